// Any text: the JSON mapping never throws or crashes, and a message it accepts survives
// encode -> decode -> to_json -> message_from_json unchanged (json.hpp); where encode() or
// decode() rightly refuses it (an AF without layout; a Version other than 1 or a short Length
// written on purpose), it still reads back unchanged from its own to_json. encode() writes
// encoded_size() octets and refuses a buffer one octet short. append_json_members writes what
// to_json().dump() writes.
#include <array>
#include <nlohmann/json.hpp>

#include "rdcc/codec/json.hpp"
#include "rdcc/testing/fuzz.hpp"

namespace {
bool reads_back(const nlohmann::ordered_json& j, const rdcc::Message& expected) {
  const auto again = rdcc::message_from_json(j);
  return again.has_value() && *again == expected;
}
bool reads_back(const rdcc::Message& m, const rdcc::Message& expected) {
  return reads_back(rdcc::to_json(m), expected);
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto j = nlohmann::ordered_json::parse(data, data + size, nullptr, false);
  if (j.is_discarded()) return 0;
  const auto parsed = rdcc::message_from_json(j);
  if (!parsed) {
    RDCC_FUZZ_CHECK(!parsed.error().describe().empty());
    return 0;
  }
  // to_json(*parsed), built once: dumped here, read back below where encode or decode refuses.
  const auto dom = rdcc::to_json(*parsed);
  static std::string text;  // reused: its room stays between inputs
  text.assign(1, '{');
  rdcc::append_json_members(*parsed, text);
  text += '}';
  RDCC_FUZZ_CHECK(text == dom.dump());
  const auto normalized = rdcc::testing::with_defined_length(*parsed);
  static std::array<std::byte, 0xFFFF> buffer;  // the largest Length
  const std::size_t needed = rdcc::encoded_size(*parsed);
  const auto small = rdcc::encode(*parsed, std::span(buffer).first(needed - 1));
  RDCC_FUZZ_CHECK(!small && !small.error().describe().empty() &&
                  !rdcc::to_string(small.error().code).empty());
  const auto written = rdcc::encode(*parsed, buffer);
  if (!written) {
    RDCC_FUZZ_CHECK(written.error().code == rdcc::EncodeErrorCode::BadAddressFamily &&
                    small.error().code == rdcc::EncodeErrorCode::BadAddressFamily);
    RDCC_FUZZ_CHECK(!written.error().describe().empty() && reads_back(dom, normalized));
    return 0;
  }
  RDCC_FUZZ_CHECK(*written == needed &&
                  small.error().code == rdcc::EncodeErrorCode::BufferTooSmall &&
                  small.error().needed == needed);
  const auto wire = std::span<const std::byte>(buffer).first(needed);
  const auto expected = rdcc::testing::expected_decode(wire);
  const auto decoded = rdcc::decode(wire);
  RDCC_FUZZ_CHECK(decoded.has_value() == !expected.error.has_value());
  if (!decoded) {
    RDCC_FUZZ_CHECK(decoded.error().code == *expected.error && reads_back(dom, normalized));
    return 0;
  }
  RDCC_FUZZ_CHECK(*decoded == normalized && reads_back(*decoded, *decoded));
  return 0;
}
