// The C API (rdcc/codec.h): every test vector through rdcc_decode and back through
// rdcc_encode, octet for octet (a field the C layer forgot to copy would come back zero); the
// appendix grant field by field; errors with their field, offset and the C++ codec's text.
#include <cstring>

#include "rdcc/codec.h"
#include "rdcc/codec/format.hpp"
#include "rdcc/codec/json.hpp"
#include "rdcc/testing/vectors.hpp"
#include "test_util.hpp"

namespace rdcc {
namespace {

using test::bytes_of;
using test::encode_to_vector;

const std::uint8_t* octets(const std::vector<std::byte>& v) {
  return reinterpret_cast<const std::uint8_t*>(v.data());
}

TEST(CApi, EveryVector_DecodesAndEncodesBackOctetForOctet) {
  const auto vectors = testing::boundary_vectors();
  ASSERT_FALSE(vectors.empty());
  for (const auto& v : vectors) {
    const auto wire = encode_to_vector(v.message);
    rdcc_message m;
    rdcc_error e;
    ASSERT_EQ(rdcc_decode(octets(wire), wire.size(), &m, &e), RDCC_OK)
        << v.name << ": " << e.message;
    EXPECT_EQ(m.type, static_cast<std::uint8_t>(type_of(v.message))) << v.name;
    std::vector<std::uint8_t> back(wire.size());
    std::size_t written = 0;
    ASSERT_EQ(rdcc_encode(&m, back.data(), back.size(), &written, &e), RDCC_OK)
        << v.name << ": " << e.message;
    EXPECT_EQ(written, wire.size()) << v.name;
    EXPECT_EQ(std::memcmp(back.data(), wire.data(), wire.size()), 0) << v.name;
    // The text form is the C++ codec's.
    char line[512];
    const std::string expected = format_line(*decode(wire));
    EXPECT_EQ(rdcc_format_line(&m, line, sizeof line), expected.size()) << v.name;
    EXPECT_STREQ(line, expected.c_str()) << v.name;
  }
}

TEST(CApi, AppendixGrant_DecodesFieldByField) {
  const auto wire = bytes_of(testing::kAppendixCreditGrantHex);
  rdcc_message m;
  ASSERT_EQ(rdcc_decode(octets(wire), wire.size(), &m, nullptr), RDCC_OK);
  EXPECT_EQ(m.type, RDCC_CREDIT_GRANT);
  EXPECT_EQ(m.header.version, 1);
  EXPECT_EQ(m.header.length, 40);
  EXPECT_EQ(m.header.association_id, 0x5A17C0DEU);
  EXPECT_EQ(m.header.epoch, 3);
  EXPECT_EQ(m.header.sequence_number, 42U);
  EXPECT_EQ(m.body.credit_grant.message_id, 0x101U);
  EXPECT_EQ(m.body.credit_grant.grant_limit, 262144U);
  EXPECT_EQ(m.body.credit_grant.pacing_rate, 100000U);
  EXPECT_EQ(m.body.credit_grant.lifetime, 2000U);
  EXPECT_STREQ(rdcc_type_name(m.type), "CREDIT_GRANT");
}

TEST(CApi, DecodeError_NamesFieldOffsetAndValues) {
  auto wire = bytes_of(testing::kAppendixCreditGrantHex);
  wire[3] = std::byte{20};  // Length 20 < 40
  rdcc_message m;
  rdcc_error e;
  EXPECT_EQ(rdcc_decode(octets(wire), wire.size(), &m, &e), RDCC_E_LENGTH_TOO_SMALL);
  EXPECT_EQ(e.code, RDCC_E_LENGTH_TOO_SMALL);
  EXPECT_STREQ(e.field, "length");
  EXPECT_EQ(e.offset, 2U);
  EXPECT_EQ(e.actual, 20U);
  EXPECT_EQ(e.expected, 40U);
  EXPECT_STREQ(e.message, decode(wire).error().describe().c_str());

  const std::uint8_t bad_version[] = {0x20, 0x04, 0x00, 0x28};
  EXPECT_EQ(rdcc_decode(bad_version, sizeof bad_version, &m, &e), RDCC_E_BAD_VERSION);
  EXPECT_STREQ(e.field, "version");
  const std::uint8_t version_only[] = {0x10};
  EXPECT_EQ(rdcc_decode(version_only, sizeof version_only, &m, &e), RDCC_E_TRUNCATED);
  EXPECT_EQ(rdcc_decode(nullptr, 0, &m, &e), RDCC_E_TRUNCATED);
  EXPECT_EQ(rdcc_decode(bad_version, sizeof bad_version, nullptr, &e), RDCC_E_INVALID_ARGUMENT);
}

TEST(CApi, EncodeErrors_BufferTypeAndRange) {
  rdcc_message m{};
  m.type = RDCC_MSG_DONE;
  m.header.version = 1;
  std::uint8_t out[64];
  std::size_t written = 0;
  rdcc_error e;
  EXPECT_EQ(rdcc_encode(&m, out, 31, &written, &e), RDCC_E_BUFFER_TOO_SMALL);
  EXPECT_EQ(e.needed, 32U);
  EXPECT_EQ(rdcc_encode(&m, out, sizeof out, &written, &e), RDCC_OK);
  EXPECT_EQ(written, 32U);
  m.header.version = 16;
  EXPECT_EQ(rdcc_encode(&m, out, sizeof out, &written, &e), RDCC_E_FIELD_OUT_OF_RANGE);
  EXPECT_STREQ(e.field, "version");
  m.header.version = 1;
  m.type = RDCC_CONGESTION_REPORT;
  m.body.congestion_report.address_family = 5;
  EXPECT_EQ(rdcc_encode(&m, out, sizeof out, &written, &e), RDCC_E_BAD_ADDRESS_FAMILY);
  for (const int type : {0, 11, 255}) {
    m.type = static_cast<std::uint8_t>(type);
    EXPECT_EQ(rdcc_encode(&m, out, sizeof out, &written, &e), RDCC_E_UNKNOWN_TYPE) << type;
    EXPECT_STREQ(e.field, "type");
    EXPECT_EQ(rdcc_format_line(&m, nullptr, 0), 0U);
    EXPECT_EQ(rdcc_type_name(type), nullptr);
  }
  EXPECT_EQ(rdcc_encode(nullptr, out, sizeof out, &written, &e), RDCC_E_INVALID_ARGUMENT);
}

TEST(CApi, FormatLine_CutsToCapacityAndReturnsTheWholeLength) {
  const auto wire = bytes_of(testing::kAppendixCreditGrantHex);
  rdcc_message m;
  ASSERT_EQ(rdcc_decode(octets(wire), wire.size(), &m, nullptr), RDCC_OK);
  const std::string expected = format_line(*decode(wire));
  char small[8];
  EXPECT_EQ(rdcc_format_line(&m, small, sizeof small), expected.size());
  EXPECT_EQ(std::string(small), expected.substr(0, 7));
  EXPECT_STREQ(rdcc_version(), RDCC_VERSION);
}

TEST(CApi, Json_IsTheCodecsMappingBothWays_ForEveryVector) {
  for (const auto& v : testing::boundary_vectors()) {
    const auto wire = encode_to_vector(v.message);
    rdcc_message m;
    ASSERT_EQ(rdcc_decode(octets(wire), wire.size(), &m, nullptr), RDCC_OK) << v.name;
    const std::string expected = to_json(*decode(wire)).dump();
    std::string text(rdcc_to_json(&m, nullptr, 0), '\0');
    ASSERT_EQ(text.size(), expected.size()) << v.name;
    EXPECT_EQ(rdcc_to_json(&m, text.data(), text.size() + 1), expected.size()) << v.name;
    EXPECT_EQ(text, expected) << v.name;
    rdcc_message back;
    rdcc_error e;
    ASSERT_EQ(rdcc_from_json(text.data(), text.size(), &back, &e), RDCC_OK)
        << v.name << ": " << e.message;
    std::vector<std::uint8_t> out(wire.size());
    std::size_t written = 0;
    ASSERT_EQ(rdcc_encode(&back, out.data(), out.size(), &written, &e), RDCC_OK) << v.name;
    EXPECT_EQ(std::memcmp(out.data(), wire.data(), wire.size()), 0) << v.name;
  }
}

TEST(CApi, FromJson_NamesTheKeyOrTheText) {
  rdcc_message m;
  rdcc_error e;
  const std::string bad_reason = R"({"type":"ERROR","reason":"NO_SUCH_REASON"})";
  EXPECT_EQ(rdcc_from_json(bad_reason.data(), bad_reason.size(), &m, &e), RDCC_E_BAD_JSON);
  EXPECT_STREQ(e.field, "reason");
  EXPECT_NE(std::string(e.message).find("NO_SUCH_REASON"), std::string::npos) << e.message;
  const std::string wide = R"({"type":"CREDIT_REQUEST","traffic_class":256})";
  EXPECT_EQ(rdcc_from_json(wide.data(), wide.size(), &m, &e), RDCC_E_BAD_JSON);
  EXPECT_STREQ(e.field, "traffic_class");
  const std::string not_json = "{\"type\":";
  EXPECT_EQ(rdcc_from_json(not_json.data(), not_json.size(), &m, &e), RDCC_E_BAD_JSON);
  EXPECT_STREQ(e.field, "");
  const std::string huge(70000, ' ');
  EXPECT_EQ(rdcc_from_json(huge.data(), huge.size(), &m, &e), RDCC_E_BAD_JSON);
  EXPECT_EQ(rdcc_from_json(nullptr, 1, &m, &e), RDCC_E_INVALID_ARGUMENT);
}

TEST(CApi, Tables_DescribeEveryTypesFieldsToItsSize) {
  const char* text = rdcc_tables_json();
  ASSERT_NE(text, nullptr);
  const auto tables = nlohmann::json::parse(text);
  ASSERT_EQ(tables["types"].size(), kMessageTypes.size());
  std::size_t header_bits = 0;
  for (const auto& f : tables["header"]) header_bits += f["bits"].get<std::size_t>();
  EXPECT_EQ(header_bits, 8 * kHeaderSize);
  for (const auto& t : tables["types"]) {
    std::size_t bits = header_bits;
    std::size_t addresses = 0;
    for (const auto& f : t["fields"]) {
      bits += f["bits"].get<std::size_t>();
      if (f["unit"] == "address") ++addresses;
    }
    // CONGESTION_REPORT's two addresses are 4 octets each in its (IPv4) size.
    EXPECT_EQ(bits / 8 + addresses * 4, t["size"].get<std::size_t>()) << t["name"];
  }
  EXPECT_EQ(tables["registries"]["reason_codes"]["2"], "UNKNOWN_ASSOCIATION");
  EXPECT_EQ(tables["message_flags"]["CREDIT_GRANT"]["2"], "FINAL");
  EXPECT_EQ(tables["error_codes"]["4"], "length_too_small");
  EXPECT_EQ(tables["error_codes"][std::to_string(RDCC_E_BAD_JSON)], "bad_json");
}

}  // namespace
}  // namespace rdcc
