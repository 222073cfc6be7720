// Any octets as one captured frame of each link type the tools read (tools/src/pcap_reader.hpp):
// parse_frame() never reads outside the frame (ASan), always says Udp, Other or Malformed, a
// Malformed frame names what and an offset inside the frame (its text ends with that offset),
// and a Udp payload is a span of the frame itself that ends where the frame allows, its offset
// consistent with the span.
#include <array>
#include <charconv>
#include <string>
#include <string_view>

#include "pcap_reader.hpp"
#include "rdcc/testing/fuzz.hpp"

namespace {

// " at offset N", how the text of a Malformed frame ends.
std::string_view offset_text(std::size_t offset) {
  static char text[48] = " at offset ";
  constexpr std::size_t kPrefix = 11;
  const char* end = std::to_chars(text + kPrefix, text + sizeof text, offset).ptr;
  return {text, static_cast<std::size_t>(end - text)};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // Ethernet, raw IP (DLT_RAW and LINKTYPE_RAW), Linux cooked v1 and v2, IPv4, IPv6, loopback,
  // and one the reader does not handle.
  static constexpr std::array<int, 9> kLinkTypes{1, 12, 101, 113, 276, 228, 229, 0, 147};
  const auto frame = rdcc::testing::input_octets(data, size);
  static std::string text;
  bool described = false;
  for (const int link_type : kLinkTypes) {
    const auto f = rdcc::tools::parse_frame(frame, link_type);
    RDCC_FUZZ_CHECK(rdcc::tools::link_type_supported(link_type) ||
                    f.kind == rdcc::tools::FrameKind::Malformed);
    if (f.kind == rdcc::tools::FrameKind::Malformed) {
      RDCC_FUZZ_CHECK(!f.what.empty() && f.offset <= size);
      // The text names what and where: what the dump appends, into one reused string (an
      // allocation per link type was most of the harness's time); describe_malformed(), the
      // same text in a string of its own, once per input.
      text.clear();
      rdcc::tools::append_malformed(f, text);
      RDCC_FUZZ_CHECK(text.starts_with(f.what) && text.ends_with(offset_text(f.offset)));
      if (!described) {
        RDCC_FUZZ_CHECK(rdcc::tools::describe_malformed(f) == text);
        described = true;
      }
    } else if (f.kind == rdcc::tools::FrameKind::Udp) {
      RDCC_FUZZ_CHECK(f.payload_offset >= 8 && f.payload_offset + f.payload.size() <= size &&
                      f.payload.data() == frame.data() + f.payload_offset);
    }
  }
  return 0;
}
