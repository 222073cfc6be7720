// Any octets as one captured frame of each link type wire's frame parser reads
// (rdcc/wire/frame.hpp): parse_frame() never reads outside the frame (ASan), always says Udp, Other
// or Malformed, a Malformed frame names what and an offset inside the frame (its text ends with
// that offset), and a Udp payload is a span of the frame itself that ends where the frame allows,
// its offset consistent with the span. The strict decoder of rdcc/wire/ip.hpp agrees with it: a
// packet it accepts (not a fragment), parse_frame reads as raw IP to the same addresses and
// payload.
#include <array>
#include <charconv>
#include <string>
#include <string_view>

#include "rdcc/testing/fuzz.hpp"
#include "rdcc/wire/frame.hpp"
#include "rdcc/wire/ip.hpp"

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
    const auto f = rdcc::wire::parse_frame(frame, link_type);
    RDCC_FUZZ_CHECK(rdcc::wire::link_type_supported(link_type) ||
                    f.kind == rdcc::wire::FrameKind::Malformed);
    if (f.kind == rdcc::wire::FrameKind::Malformed) {
      RDCC_FUZZ_CHECK(!f.what.empty() && f.offset <= size);
      // The text names what and where: what the dump appends, into one reused string (an
      // allocation per link type was most of the harness's time); describe_malformed(), the
      // same text in a string of its own, once per input.
      text.clear();
      rdcc::wire::append_malformed(f, text);
      RDCC_FUZZ_CHECK(text.starts_with(f.what) && text.ends_with(offset_text(f.offset)));
      if (!described) {
        RDCC_FUZZ_CHECK(rdcc::wire::describe_malformed(f) == text);
        described = true;
      }
    } else if (f.kind == rdcc::wire::FrameKind::Udp) {
      RDCC_FUZZ_CHECK(f.payload_offset >= 8 && f.payload_offset + f.payload.size() <= size &&
                      f.payload.data() == frame.data() + f.payload_offset);
    }
  }
  const bool ipv6 = size > 0 && (data[0] >> 4U) == 6;
  const auto strict =
      ipv6 ? rdcc::wire::decode_ipv6_udp(frame) : rdcc::wire::decode_ipv4_udp(frame);
  const bool fragment = !ipv6 && size > 7 && ((data[6] & 0x3FU) != 0 || data[7] != 0);
  if (strict && !fragment) {
    const auto f = rdcc::wire::parse_frame(frame, 101);
    RDCC_FUZZ_CHECK(
        f.kind == rdcc::wire::FrameKind::Udp && f.source == strict->headers.source &&
        f.destination == strict->headers.destination && f.udp_checksum == strict->udp_checksum &&
        f.payload.data() == strict->payload.data() && f.payload.size() == strict->payload.size());
  }
  return 0;
}
