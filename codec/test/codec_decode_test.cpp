// decode(): every error reason with its offset, truncation at every offset, Length off by one
// both ways for every type, and raw values kept.
#include <random>

#include "rdcc/testing/vectors.hpp"
#include "test_util.hpp"

namespace rdcc {
namespace {

using test::encode_to_vector;

std::vector<std::byte> wire_of_type(std::size_t index) {
  for (const auto& v : testing::boundary_vectors()) {
    if (v.message.index() == index) return encode_to_vector(v.message);
  }
  return {};
}

void set_length(std::vector<std::byte>& wire, std::size_t length) {
  wire[2] = static_cast<std::byte>(length >> 8U);
  wire[3] = static_cast<std::byte>(length & 0xFFU);
}

TEST(Decode, EmptyDatagram_IsTruncatedAtVersion) {
  auto r = decode({});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, DecodeErrorCode::Truncated);
  EXPECT_EQ(r.error().offset, 0U);
  EXPECT_EQ(r.error().field, "version");
  EXPECT_FALSE(r.error().header.has_value());
}

TEST(Decode, EveryPrefixOfEveryVector_FailsWithTheRightReasonAndOffset) {
  for (const auto& v : testing::boundary_vectors()) {
    const auto wire = encode_to_vector(v.message);
    for (std::size_t n = 0; n < wire.size(); ++n) {
      SCOPED_TRACE(v.name + " prefix " + std::to_string(n));
      auto r = decode(std::span(wire).first(n));
      ASSERT_FALSE(r);
      const auto& e = r.error();
      if (n < 4) {
        EXPECT_EQ(e.code, DecodeErrorCode::Truncated);
        EXPECT_EQ(e.offset, n < 1 ? 0U : (n < 2 ? 1U : 2U));
        EXPECT_EQ(e.field, n < 1 ? "version" : (n < 2 ? "type" : "length"));
      } else {
        EXPECT_EQ(e.code, DecodeErrorCode::LengthBeyondDatagram);
        EXPECT_EQ(e.offset, 2U);
        EXPECT_EQ(e.actual, wire.size());
        EXPECT_EQ(e.expected, n);
      }
      EXPECT_EQ(e.header.has_value(), n >= kHeaderSize);
    }
    EXPECT_TRUE(decode(wire)) << v.name;
  }
}

TEST(Decode, LengthOneBelowTheTypeSize_IsLengthTooSmall_ForEveryType) {
  for (std::size_t t = 0; t < kMessageTypes.size(); ++t) {
    SCOPED_TRACE(std::string(kMessageTypes[t].name));
    auto wire = wire_of_type(t);
    ASSERT_FALSE(wire.empty());
    const std::size_t size = wire.size();
    set_length(wire, size - 1);
    auto r = decode(wire);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, DecodeErrorCode::LengthTooSmall);
    EXPECT_EQ(r.error().offset, 2U);
    EXPECT_EQ(r.error().field, "length");
    EXPECT_EQ(r.error().actual, size - 1);
    EXPECT_EQ(r.error().expected, size);
    EXPECT_EQ(r.error().raw_type, t + 1);
  }
}

TEST(Decode, LengthOneBeyondTheDatagram_IsLengthBeyondDatagram_ForEveryType) {
  for (std::size_t t = 0; t < kMessageTypes.size(); ++t) {
    SCOPED_TRACE(std::string(kMessageTypes[t].name));
    auto wire = wire_of_type(t);
    const std::size_t size = wire.size();
    set_length(wire, size + 1);
    auto r = decode(wire);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, DecodeErrorCode::LengthBeyondDatagram);
    EXPECT_EQ(r.error().actual, size + 1);
    EXPECT_EQ(r.error().expected, size);
  }
}

TEST(Decode, LengthOneAboveTheTypeSizeWithinTheDatagram_IsAcceptedAndTheExtraOctetIgnored) {
  for (std::size_t t = 0; t < kMessageTypes.size(); ++t) {
    SCOPED_TRACE(std::string(kMessageTypes[t].name));
    auto wire = wire_of_type(t);
    const auto plain = decode(wire);
    ASSERT_TRUE(plain);
    wire.push_back(std::byte{0xAB});
    set_length(wire, wire.size());
    auto r = decode(wire);
    ASSERT_TRUE(r) << r.error().describe();
    EXPECT_EQ(header_of(*r).length, wire.size());
    Message expected = *plain;
    header_of(expected).length = static_cast<std::uint16_t>(wire.size());
    EXPECT_EQ(*r, expected);
  }
}

TEST(Decode, OctetsAfterLength_AreNotPartOfTheMessage) {
  auto wire = test::bytes_of(testing::kAppendixCreditGrantHex);
  wire.push_back(std::byte{0xFF});
  wire.push_back(std::byte{0xFF});
  auto r = decode(wire);
  ASSERT_TRUE(r);
  EXPECT_EQ(header_of(*r).length, 40);
  EXPECT_EQ(std::get<CreditGrant>(*r).lifetime, 2000U);
}

TEST(Decode, VersionOtherThanOne_IsBadVersion) {
  for (unsigned version : {0U, 2U, 3U, 15U}) {
    auto wire = test::bytes_of(testing::kAppendixCreditGrantHex);
    wire[0] = static_cast<std::byte>(version << 4U);
    auto r = decode(wire);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, DecodeErrorCode::BadVersion);
    EXPECT_EQ(r.error().offset, 0U);
    EXPECT_EQ(r.error().actual, version);
    EXPECT_TRUE(r.error().header.has_value());
  }
}

TEST(Decode, BadVersion_IsReportedBeforeAnUnknownTypeOrABadLength) {
  const std::array<std::byte, 4> wire{std::byte{0x20}, std::byte{0xEE}, std::byte{0}, std::byte{1}};
  auto r = decode(wire);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, DecodeErrorCode::BadVersion);
}

TEST(Decode, UnknownType_IsReportedAtOffsetOneWithTheHeaderKept) {
  for (int type : {0x00, 0x0B, 0x7F, 0xC0, 0xFF}) {
    auto wire = test::bytes_of(testing::kAppendixCreditGrantHex);
    wire[1] = static_cast<std::byte>(type);
    auto r = decode(wire);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, DecodeErrorCode::UnknownType);
    EXPECT_EQ(r.error().offset, 1U);
    EXPECT_EQ(r.error().raw_type, type);
    ASSERT_TRUE(r.error().header.has_value());
    EXPECT_EQ(r.error().header->association_id, 0x5A17C0DEU);
    EXPECT_EQ(r.error().header->epoch, 3);
  }
}

TEST(Decode, UnknownTypeInAShortDatagram_HasNoHeader) {
  const std::array<std::byte, 2> wire{std::byte{0x10}, std::byte{0x42}};
  auto r = decode(wire);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, DecodeErrorCode::UnknownType);
  EXPECT_FALSE(r.error().header.has_value());
}

TEST(Decode, LengthTooSmall_IsReportedBeforeLengthBeyondDatagram) {
  // Length 20 is below CREDIT_REQUEST's 56 and beyond the 18-octet datagram: the property of
  // the message itself is reported first.
  auto wire = test::bytes_of(testing::kAppendixCreditRequestHex);
  wire.resize(18);
  set_length(wire, 20);
  auto r = decode(wire);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, DecodeErrorCode::LengthTooSmall);
}

TEST(Decode, CongestionReportAddressFamilies) {
  for (const auto& name : {"congestion_report_ipv4", "congestion_report_ipv6"}) {
    for (const auto& v : testing::boundary_vectors()) {
      if (v.name != name) continue;
      const auto wire = encode_to_vector(v.message);
      EXPECT_EQ(wire.size(), std::get<CongestionReport>(v.message).ipv6() ? 72U : 48U);
      auto r = decode(wire);
      ASSERT_TRUE(r) << r.error().describe();
      EXPECT_EQ(*r, test::normalized(v.message));
    }
  }
}

TEST(Decode, CongestionReportWithAnUnknownAddressFamily_IsBadAddressFamilyAtOffset30) {
  for (int af : {0, 5, 7, 41, 255}) {
    std::vector<std::byte> wire(72);
    wire[0] = std::byte{0x10};
    wire[1] = std::byte{0x06};
    set_length(wire, 72);
    wire[30] = static_cast<std::byte>(af);
    auto r = decode(wire);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, DecodeErrorCode::BadAddressFamily);
    EXPECT_EQ(r.error().offset, 30U);
    EXPECT_EQ(r.error().field, "address_family");
    EXPECT_EQ(r.error().actual, af);
  }
}

TEST(Decode, CongestionReportIpv6WithTheIpv4Length_IsLengthTooSmallAgainst72) {
  for (std::size_t length : {48U, 71U}) {
    std::vector<std::byte> wire(72);
    wire[0] = std::byte{0x10};
    wire[1] = std::byte{0x06};
    set_length(wire, length);
    wire[30] = std::byte{6};
    auto r = decode(wire);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, DecodeErrorCode::LengthTooSmall);
    EXPECT_EQ(r.error().actual, length);
    EXPECT_EQ(r.error().expected, 72U);
  }
}

TEST(Decode, CongestionReportIpv4WithLength72_IsAcceptedWithTheRestIgnored) {
  std::vector<std::byte> wire(72, std::byte{0x77});
  wire[0] = std::byte{0x10};
  wire[1] = std::byte{0x06};
  set_length(wire, 72);
  wire[30] = std::byte{4};
  auto r = decode(wire);
  ASSERT_TRUE(r);
  const auto& report = std::get<CongestionReport>(*r);
  EXPECT_EQ(report.destination_address[3], 0x77);
  EXPECT_EQ(report.destination_address[4], 0);  // octets past the IPv4 layout are not read
}

TEST(Decode, RawValuesAreKept) {
  for (const auto& v : testing::boundary_vectors()) {
    auto r = decode(encode_to_vector(v.message));
    ASSERT_TRUE(r) << v.name << ": " << r.error().describe();
    EXPECT_EQ(*r, test::normalized(v.message)) << v.name;
  }
  auto odd = decode(encode_to_vector(CreditRequest{.traffic_class = 9, .weight = 0}));
  ASSERT_TRUE(odd);
  const auto& request = std::get<CreditRequest>(*odd);
  EXPECT_EQ(request.traffic_class, 9);
  EXPECT_EQ(request.effective_class(), 7);
  EXPECT_EQ(request.weight, 0);
  EXPECT_EQ(request.effective_weight(), 1);
}

TEST(Decode, ReservedBitsAndUndefinedFlags_AreKeptNotRejected) {
  auto wire = test::bytes_of(testing::kAppendixCreditGrantHex);
  wire[0] = std::byte{0x1F};   // Rsv = 15
  wire[10] = std::byte{0xFF};  // every flag
  wire[11] = std::byte{0xFC};  // ... but POOL and FINAL
  auto r = decode(wire);
  ASSERT_TRUE(r);
  const auto& g = std::get<CreditGrant>(*r);
  EXPECT_EQ(g.header.rsv, 15);
  EXPECT_EQ(g.header.flags, 0xFFFC);
  EXPECT_FALSE(g.pool());
  EXPECT_FALSE(g.final());
}

TEST(Decode, RandomBytes_NeverCrashAndAlwaysGiveAnAnswer) {
  std::mt19937_64 rng(20261202);
  std::array<std::byte, 96> buf{};
  for (int i = 0; i < 20000; ++i) {
    const std::size_t n = rng() % buf.size();
    for (std::size_t k = 0; k < n; ++k) buf[k] = static_cast<std::byte>(rng());
    if (n > 0 && (i % 2) == 0) buf[0] = std::byte{0x10};
    if (n > 1 && (i % 4) == 0) buf[1] = static_cast<std::byte>(1 + rng() % 10);
    auto r = decode(std::span(buf).first(n));
    if (r) {
      EXPECT_LE(header_of(*r).length, n);
      EXPECT_GE(header_of(*r).length, defined_size(*r));
    } else {
      EXPECT_FALSE(r.error().describe().empty());
    }
  }
}

TEST(DecodeError, Describe_NamesFieldOffsetAndValues) {
  auto wire = test::bytes_of(testing::kAppendixCreditRequestHex);
  set_length(wire, 20);
  auto r = decode(wire);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().describe(),
            "length 20 is smaller than 56, the size of CREDIT_REQUEST (field length, offset 2)");
  EXPECT_EQ(to_string(r.error().code), "length_too_small");
}

}  // namespace
}  // namespace rdcc
