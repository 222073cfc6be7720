// Any text, as `rdcc decode` reads it: hex text -> octets -> decode -> the text forms. Nothing
// crashes; a hex error names a column inside the text; hex that to_hex writes, with any
// separator parse_hex accepts, reads back as the same octets; both text forms of a decoded
// message start with its type's name, and the detailed form names the flags (and an
// association message's capabilities) as format_flags (format_capabilities) does.
#include <string>
#include <string_view>
#include <variant>

#include "rdcc/codec/format.hpp"
#include "rdcc/codec/hex.hpp"
#include "rdcc/testing/fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto octets = rdcc::parse_hex(text);
  if (!octets) {
    RDCC_FUZZ_CHECK(octets.error().column < size && !octets.error().describe().empty());
    return 0;
  }
  for (const std::string_view separator : {"", " ", ":"}) {
    const auto again = rdcc::parse_hex(rdcc::to_hex(*octets, separator));
    RDCC_FUZZ_CHECK(again.has_value() && *again == *octets);
  }
  const auto decoded = rdcc::decode(*octets);
  if (!decoded) {
    RDCC_FUZZ_CHECK(!decoded.error().describe().empty() &&
                    !rdcc::to_string(decoded.error().code).empty());
    return 0;
  }
  const auto type = rdcc::type_of(*decoded);
  const auto name = rdcc::info(type).name;
  RDCC_FUZZ_CHECK(rdcc::format_line(*decoded).starts_with(name));
  const std::string detail = rdcc::format_detail(*decoded);
  RDCC_FUZZ_CHECK(detail.starts_with(name));
  // The flags, and an association message's capabilities, by the names format_flags and
  // format_capabilities give them.
  const std::string flags = rdcc::format_flags(type, rdcc::header_of(*decoded).flags);
  RDCC_FUZZ_CHECK(detail.find(" (" + flags + ")") != std::string::npos);
  std::visit(
      [&](const auto& m) {
        if constexpr (requires { m.capabilities; }) {
          const std::string named = rdcc::format_capabilities(m.capabilities);
          RDCC_FUZZ_CHECK(detail.find(" (" + named + ")") != std::string::npos);
        }
      },
      *decoded);
  return 0;
}
