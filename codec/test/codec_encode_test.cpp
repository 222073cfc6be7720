// encode(): sizes, buffer checks, raw Length and header values, and the
// encode -> decode -> encode identity on a generated set.
#include <random>

#include "rdcc/testing/vectors.hpp"
#include "test_util.hpp"

namespace rdcc {
namespace {

using test::encode_to_vector;

TEST(Encode, WritesTheDefinedSizeOfEveryType) {
  for (const auto& v : testing::boundary_vectors()) {
    const auto wire = encode_to_vector(v.message);
    EXPECT_EQ(wire.size(), defined_size(v.message)) << v.name;
    EXPECT_EQ(std::to_integer<unsigned>(wire[1]), static_cast<unsigned>(type_of(v.message)));
    EXPECT_EQ((std::to_integer<unsigned>(wire[2]) << 8U) | std::to_integer<unsigned>(wire[3]),
              wire.size());
  }
}

TEST(Encode, EveryBufferSmallerThanTheMessage_IsBufferTooSmallAndWritesNothing) {
  for (const auto& v : testing::boundary_vectors()) {
    const std::size_t size = encoded_size(v.message);
    for (std::size_t n = 0; n < size; ++n) {
      std::vector<std::byte> out(n + 1, std::byte{0xEE});
      auto r = encode(v.message, std::span(out).first(n));
      ASSERT_FALSE(r) << v.name << " buffer " << n;
      EXPECT_EQ(r.error().code, EncodeErrorCode::BufferTooSmall);
      EXPECT_EQ(r.error().needed, size);
      for (auto b : out) ASSERT_EQ(b, std::byte{0xEE});
    }
  }
}

TEST(Encode, VersionOrRsvAboveFourBits_IsFieldOutOfRange) {
  std::array<std::byte, 64> out{};
  auto r = encode(MsgDone{.header = {.version = 16}}, out);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, EncodeErrorCode::FieldOutOfRange);
  EXPECT_EQ(r.error().field, "version");
  auto r2 = encode(MsgDone{.header = {.rsv = 16}}, out);
  ASSERT_FALSE(r2);
  EXPECT_EQ(r2.error().field, "rsv");
}

TEST(Encode, CongestionReportWithoutAKnownFamily_IsBadAddressFamily) {
  std::array<std::byte, 128> out{};
  auto r = encode(CongestionReport{.address_family = 5}, out);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, EncodeErrorCode::BadAddressFamily);
}

TEST(Encode, UnknownVersionIsWrittenAsGiven_SoThatTestsCanSendIt) {
  const auto wire = encode_to_vector(MsgDone{.header = {.version = 2, .rsv = 9}});
  EXPECT_EQ(wire[0], std::byte{0x29});
  auto r = decode(wire);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, DecodeErrorCode::BadVersion);
}

TEST(Encode, LargerLength_PadsWithZeroOctets) {
  const auto wire = encode_to_vector(MsgDone{.header = {.length = 40}, .message_id = 1});
  ASSERT_EQ(wire.size(), 40U);
  for (std::size_t i = 32; i < 40; ++i) EXPECT_EQ(wire[i], std::byte{0});
  auto r = decode(wire);
  ASSERT_TRUE(r);
  EXPECT_EQ(header_of(*r).length, 40);
}

TEST(Encode, SmallerLength_IsWrittenAfterAFullBody_AndDecodeRejectsIt) {
  const auto wire = encode_to_vector(CreditGrant{.header = {.length = 39}});
  ASSERT_EQ(wire.size(), 40U);
  EXPECT_EQ(wire[3], std::byte{39});
  auto r = decode(wire);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, DecodeErrorCode::LengthTooSmall);
}

TEST(Encode, EncodeDecodeEncode_IsIdentity_OnAGeneratedSet) {
  std::mt19937_64 rng(7);
  auto messages = test::random_messages(rng, 500);
  for (const auto& v : testing::boundary_vectors()) messages.push_back(v.message);
  for (const auto& m : messages) {
    const auto first = encode_to_vector(m);
    auto decoded = decode(first);
    ASSERT_TRUE(decoded) << decoded.error().describe();
    EXPECT_EQ(*decoded, test::normalized(m));
    EXPECT_EQ(encode_to_vector(*decoded), first);
  }
}

}  // namespace
}  // namespace rdcc
