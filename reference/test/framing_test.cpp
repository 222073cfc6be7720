// DataFraming: the project's framing by default, a vendor's from its JSON description; encode
// and decode round-trip, truncation and bad lengths are caught, and a bad file names the field.
#include <gtest/gtest.h>

#include <vector>

#include "rdcc/reference/framing.hpp"

namespace rdcc::ref {
namespace {

// docs/examples/framing/vendor-16.json
constexpr const char* kVendor16 = R"({"name": "vendor-16", "header_length": 16,
  "byte_order": "big", "binding_value": {"offset": 0, "size": 8},
  "offset": {"offset": 8, "size": 8}, "payload_length": "rest"})";

OpaqueHeader header_of(std::uint64_t id, std::uint64_t offset, std::uint32_t length) {
  OpaqueHeader h;
  h.message_identifier = id;
  h.offset = offset;
  h.payload_length = length;
  return h;
}

TEST(DataFraming, Default_IsTheProjectsFraming) {
  const DataFraming f;
  EXPECT_TRUE(f.is_project());
  EXPECT_EQ(f.header_length(), kOpaqueHeaderSize);
  std::vector<std::byte> out(kOpaqueHeaderSize + 4);
  const std::vector<std::byte> payload(4);
  ASSERT_TRUE(f.encode(header_of(0x77, 8, 4), payload, out));
  EXPECT_EQ(out[0], std::byte{0x52});  // Magic "RD"
  const auto d = decode_opaque(out);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->header.message_identifier, 0x77U);
}

TEST(DataFraming, Vendor16_PutsTheFieldsWhereTheFileSays) {
  const DataFraming f = DataFraming::parse(kVendor16, "vendor-16.json");
  EXPECT_FALSE(f.is_project());
  EXPECT_EQ(f.name(), "vendor-16");
  EXPECT_EQ(f.header_length(), 16U);
  const std::vector<std::byte> payload(5, std::byte{0xAB});
  std::vector<std::byte> out(16 + 5);
  const auto n = f.encode(header_of(0x0102030405060708, 0x1000, 5), payload, out);
  ASSERT_TRUE(n);
  EXPECT_EQ(*n, 21U);
  const std::vector<std::byte> expected_header{
      std::byte{1}, std::byte{2}, std::byte{3},    std::byte{4}, std::byte{5}, std::byte{6},
      std::byte{7}, std::byte{8}, std::byte{0},    std::byte{0}, std::byte{0}, std::byte{0},
      std::byte{0}, std::byte{0}, std::byte{0x10}, std::byte{0}};
  EXPECT_EQ(std::vector<std::byte>(out.begin(), out.begin() + 16), expected_header);
  const auto d = f.decode(out);
  ASSERT_TRUE(d) << d.error().describe();
  EXPECT_EQ(d->header.message_identifier, 0x0102030405060708U);
  EXPECT_EQ(d->header.offset, 0x1000U);
  EXPECT_EQ(d->header.payload_length, 5U);  // the rest of the datagram
  EXPECT_EQ(d->payload.size(), 5U);
  // Shorter than the header: truncated, whatever the prefix.
  for (std::size_t cut = 0; cut < 16; ++cut) {
    const auto t = f.decode(std::span<const std::byte>(out).first(cut));
    ASSERT_FALSE(t) << cut;
    EXPECT_EQ(t.error().code, BindingErrorCode::Truncated);
  }
}

TEST(DataFraming, LittleEndianLengthAndConstant_AreWrittenAndChecked) {
  const DataFraming f = DataFraming::parse(
      R"({"header_length": 24, "byte_order": "little", "constants": [{"offset": 0, "size": 2, "value": 4660}],
          "payload_length": {"offset": 2, "size": 2}, "binding_value": {"offset": 8, "size": 8},
          "offset": {"offset": 16, "size": 4}})",
      "le.json");
  const std::vector<std::byte> payload(3);
  std::vector<std::byte> out(24 + 3 + 2);  // two octets after the payload
  ASSERT_TRUE(f.encode(header_of(9, 0x01020304, 3), payload, out));
  EXPECT_EQ(out[0], std::byte{0x34});  // 4660 = 0x1234, least significant octet first
  EXPECT_EQ(out[1], std::byte{0x12});
  EXPECT_EQ(out[2], std::byte{3});
  EXPECT_EQ(out[16], std::byte{4});
  const auto d = f.decode(out);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->header.offset, 0x01020304U);
  EXPECT_EQ(d->trailing, 2U);
  out[0] = std::byte{0};
  const auto bad = f.decode(out);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, BindingErrorCode::BadMagic);
  out[0] = std::byte{0x34};
  out[2] = std::byte{9};  // a length beyond the datagram
  EXPECT_EQ(f.decode(out).error().code, BindingErrorCode::PayloadBeyondPacket);
  // An offset that does not fit its 4 octets cannot be sent.
  EXPECT_FALSE(f.encode(header_of(9, 1ULL << 32U, 3), payload, out));
}

std::string error_of(const std::string& json) {
  try {
    (void)DataFraming::parse(json, "f.json");
  } catch (const FramingError& e) {
    return e.what();
  }
  return "no error";
}

TEST(DataFraming, BadFiles_NameTheFileAndTheField) {
  const std::string fields =
      R"("binding_value": {"offset": 0, "size": 8}, "offset": {"offset": 8, "size": 8})";
  EXPECT_EQ(error_of(R"({"byte_order": "big", )" + fields + R"(, "payload_length": "rest"})"),
            "f.json: field \"header_length\": missing");
  EXPECT_EQ(error_of(R"({"header_length": 16, "byte_order": "big", )" + fields + "}"),
            "f.json: field \"payload_length\": missing");
  EXPECT_EQ(error_of(R"({"header_length": 16, "byte_order": "big", )" + fields +
                     R"(, "payload_length": "all"})"),
            "f.json: field \"payload_length\": expected {\"offset\": N, \"size\": S} or \"rest\" "
            "(the rest of the datagram), found \"all\"");
  EXPECT_EQ(
      error_of(R"({"header_length": 16, "byte_order": "big", "offset": {"offset": 8, "size": 8},
                        "binding_value": {"offset": 0, "size": 8, "bits": 64}, "payload_length": "rest"})"),
      "f.json: field \"binding_value.bits\": unknown key (expected offset, size)");
  EXPECT_EQ(error_of(R"({"header_length": 16, "byte_order": "big", )" + fields +
                     R"(, "payload_length": "rest", "magic": 1})"),
            "f.json: field \"magic\": unknown key (expected name, header_length, byte_order, "
            "binding_value, offset, payload_length, constants)");
  EXPECT_EQ(
      error_of(
          R"({"header_length": 16, "byte_order": "big", )" + fields +
          R"(, "payload_length": "rest", "constants": [{"offset": 0, "size": 1, "value": 1}]})"),
      "f.json: field \"constants[0]\": overlaps binding_value");
  EXPECT_EQ(
      error_of(
          R"({"header_length": 20, "byte_order": "big", )" + fields +
          R"(, "payload_length": "rest", "constants": [{"offset": 16, "size": 1, "value": 256}]})"),
      "f.json: field \"constants[0].value\": 256 does not fit 1 octets");
  EXPECT_NE(error_of("[1]").find("f.json: expected a JSON object"), std::string::npos);
}

}  // namespace
}  // namespace rdcc::ref
