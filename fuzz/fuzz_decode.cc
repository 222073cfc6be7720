// Any octets: decode() never crashes, fails exactly where the spec's checks say and with the
// field they name, and what decodes re-encodes to the same octets: the type's defined size as
// received, zeros up to Length, nothing after Length (docs/spec-notes.md, items 1, 3 and 4),
// and those octets decode to the same message. The accessors apply the spec's "treat as" rules.
#include <algorithm>
#include <array>

#include "rdcc/testing/fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto input = rdcc::testing::input_octets(data, size);
  const auto expected = rdcc::testing::expected_decode(input);
  const auto decoded = rdcc::decode(input);
  RDCC_FUZZ_CHECK(decoded.has_value() == !expected.error.has_value());
  if (!decoded) {
    RDCC_FUZZ_CHECK(decoded.error().code == *expected.error);
    RDCC_FUZZ_CHECK(decoded.error().offset == expected.offset);
    RDCC_FUZZ_CHECK(decoded.error().header == rdcc::peek_header(input));
    return 0;
  }
  RDCC_FUZZ_CHECK(rdcc::testing::accessors_follow_the_spec(*decoded));
  static std::array<std::byte, 0xFFFF> out;  // the largest Length
  const auto written = rdcc::encode(*decoded, out);
  RDCC_FUZZ_CHECK(written.has_value() && *written == expected.length);
  const auto message = std::span(out).first(expected.length);
  const auto body = message.first(expected.defined_size);
  RDCC_FUZZ_CHECK(std::ranges::equal(body, input.first(expected.defined_size)));
  RDCC_FUZZ_CHECK(std::ranges::all_of(message.subspan(expected.defined_size),
                                      [](std::byte b) { return b == std::byte{0}; }));
  const auto again = rdcc::decode(message);
  RDCC_FUZZ_CHECK(again.has_value() && *again == *decoded);
  return 0;
}
