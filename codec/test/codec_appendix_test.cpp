// "Example Exchange and Encodings": both encodings reproduced byte for byte and decoded field
// by field.
#include "rdcc/codec/rocev2.hpp"
#include "rdcc/testing/vectors.hpp"
#include "test_util.hpp"

namespace rdcc {
namespace {

using test::bytes_of;
using test::encode_to_vector;

TEST(Appendix, CreditRequest_EncodesByteForByte) {
  const auto expected = bytes_of(testing::kAppendixCreditRequestHex);
  ASSERT_EQ(expected.size(), 56U);
  EXPECT_EQ(to_hex(encode_to_vector(testing::appendix_credit_request())), to_hex(expected));
}

TEST(Appendix, CreditRequest_DecodesFieldByField) {
  const auto wire = bytes_of(testing::kAppendixCreditRequestHex);
  auto decoded = decode(wire);
  ASSERT_TRUE(decoded) << decoded.error().describe();
  const auto* r = std::get_if<CreditRequest>(&*decoded);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->header.version, 1);
  EXPECT_EQ(r->header.rsv, 0);
  EXPECT_EQ(r->header.length, 56);
  EXPECT_EQ(r->header.association_id, 0x5A17C0DEU);
  EXPECT_EQ(r->header.epoch, 3);
  EXPECT_EQ(r->header.flags, 0);
  EXPECT_EQ(r->header.sequence_number, 7U);
  EXPECT_EQ(r->message_id, 0x101U);
  EXPECT_EQ(r->message_length, 4U * 1024U * 1024U);
  EXPECT_EQ(r->unscheduled_sent, 0U);
  EXPECT_EQ(r->traffic_class, 2);
  EXPECT_EQ(r->weight, 4);
  EXPECT_EQ(r->service_hint, static_cast<std::uint8_t>(ServiceHint::LatencySensitive));
  EXPECT_EQ(r->binding_kind, static_cast<std::uint8_t>(BindingKind::RoCEv2));
  EXPECT_EQ(r->deadline, 0U);
  const auto binding = unpack_rocev2(r->binding_value);
  EXPECT_EQ(binding.destination_qpn, 0x000123U);
  EXPECT_EQ(binding.first_msn, 5U);
  EXPECT_EQ(binding.message_count, 16);
  auto expected = testing::appendix_credit_request();
  expected.header.length = 56;  // decode keeps the Length it read
  EXPECT_EQ(*decoded, Message{expected});
}

TEST(Appendix, CreditGrant_EncodesByteForByte) {
  const auto expected = bytes_of(testing::kAppendixCreditGrantHex);
  ASSERT_EQ(expected.size(), 40U);
  EXPECT_EQ(to_hex(encode_to_vector(testing::appendix_credit_grant())), to_hex(expected));
}

TEST(Appendix, CreditGrant_DecodesFieldByField) {
  auto decoded = decode(bytes_of(testing::kAppendixCreditGrantHex));
  ASSERT_TRUE(decoded) << decoded.error().describe();
  const auto* g = std::get_if<CreditGrant>(&*decoded);
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->header.length, 40);
  EXPECT_EQ(g->header.association_id, 0x5A17C0DEU);
  EXPECT_EQ(g->header.epoch, 3);
  EXPECT_EQ(g->header.sequence_number, 42U);
  EXPECT_EQ(g->message_id, 0x101U);
  EXPECT_EQ(g->grant_limit, 262144U);
  EXPECT_EQ(g->pacing_rate, 100000U);
  EXPECT_EQ(g->lifetime, 2000U);
  EXPECT_FALSE(g->pool());
  EXPECT_FALSE(g->final());
  EXPECT_TRUE(g->usable());
}

}  // namespace
}  // namespace rdcc

#include <fstream>
#include <sstream>

namespace rdcc {
namespace {

// docs/examples/appendix.hex (what the README's main command decodes) holds the same two
// datagrams as the test vectors, in the same order.
TEST(Appendix, ExampleFile_HoldsTheSpecsEncodings) {
  std::ifstream in(std::string(RDCC_SOURCE_DIR) + "/docs/examples/appendix.hex");
  ASSERT_TRUE(in) << "docs/examples/appendix.hex is missing";
  std::vector<std::string> datagrams;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line[0] != '#') datagrams.push_back(line);
  }
  ASSERT_EQ(datagrams.size(), 2U);
  EXPECT_EQ(test::bytes_of(datagrams[0]), test::bytes_of(testing::kAppendixCreditRequestHex));
  EXPECT_EQ(test::bytes_of(datagrams[1]), test::bytes_of(testing::kAppendixCreditGrantHex));
}

}  // namespace
}  // namespace rdcc
