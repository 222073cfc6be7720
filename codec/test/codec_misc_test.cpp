// Serial arithmetic, the RoCEv2 binding value, hex text, the constants tables, text output.
#include "rdcc/codec/format.hpp"
#include "rdcc/codec/rocev2.hpp"
#include "rdcc/codec/serial.hpp"
#include "rdcc/testing/vectors.hpp"
#include "test_util.hpp"

#include <set>

namespace rdcc {
namespace {

TEST(Serial, NewerWithinHalfTheSpace) {
  EXPECT_TRUE(serial_newer(1, 0));
  EXPECT_FALSE(serial_newer(0, 1));
  EXPECT_FALSE(serial_newer(5, 5));
  EXPECT_TRUE(serial_newer(0x7FFFFFFFU, 0));
  EXPECT_TRUE(serial_newer(0, 0xFFFFFFFFU));  // wraps
  EXPECT_FALSE(serial_newer(0xFFFFFFFFU, 0));
  EXPECT_TRUE(serial_newer(10, 0xFFFFFFF0U));
  EXPECT_TRUE(serial_newer(0x80000000U, 1));
}

TEST(Serial, ExactlyHalfTheSpaceApart_IsNewerInNeitherDirection) {
  for (std::uint32_t a : {0U, 1U, 0x7FFFFFFFU, 0x80000000U, 0xFFFFFFFFU}) {
    const std::uint32_t b = a + 0x80000000U;
    EXPECT_FALSE(serial_newer(a, b)) << a;
    EXPECT_FALSE(serial_newer(b, a)) << a;
  }
}

TEST(Serial, Add_Wraps) {
  EXPECT_EQ(serial_add(0xFFFFFFFFU, 1), 0U);
  EXPECT_TRUE(serial_newer(serial_add(0xFFFFFFF0U, 0x7FFFFFFFU), 0xFFFFFFF0U));
}

TEST(Rocev2Binding, PacksBitsAsTheSpecLaysThemOut) {
  EXPECT_EQ(*pack_rocev2({0x000123, 5, 16}), 0x0001230000050010ULL);
  EXPECT_EQ(*pack_rocev2({0xFFFFFF, 0, 0}), 0xFFFFFF0000000000ULL);
  EXPECT_EQ(*pack_rocev2({0, 0xFFFFFF, 0}), 0x000000FFFFFF0000ULL);
  EXPECT_EQ(*pack_rocev2({0, 0, 0xFFFF}), 0x000000000000FFFFULL);
  EXPECT_FALSE(pack_rocev2({0x1000000, 0, 0}).has_value());
  EXPECT_FALSE(pack_rocev2({0, 0x1000000, 0}).has_value());
}

TEST(Rocev2Binding, UnpackInvertsPack) {
  for (std::uint64_t v :
       {0ULL, 0xFFFFFFFFFFFFFFFFULL, 0x0001230000050010ULL, 0x123456789ABCDEF0ULL}) {
    EXPECT_EQ(*pack_rocev2(unpack_rocev2(v)), v);
  }
}

TEST(Hex, ParsesSeparatorsAndPrefix) {
  auto a = parse_hex("0x10 03:00-38\n5a17c0de");
  ASSERT_TRUE(a);
  EXPECT_EQ(to_hex(*a), "10 03 00 38 5a 17 c0 de");
  EXPECT_EQ(to_hex(*a, ""), "100300385a17c0de");
  auto empty = parse_hex("");
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->empty());
}

TEST(Hex, ErrorsNameTheColumn) {
  auto bad = parse_hex("10 0g");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().column, 4U);
  EXPECT_EQ(bad.error().describe(), "'g' is not a hex digit (column 5)");
  auto lone = parse_hex("10 0");
  ASSERT_FALSE(lone);
  EXPECT_EQ(lone.error().column, 3U);
  auto lone2 = parse_hex("1 02");
  ASSERT_FALSE(lone2);
  EXPECT_EQ(lone2.error().column, 0U);
}

TEST(Constants, MessageTypeTableIsIndexedByTypeAndMatchesTheVariant) {
  std::set<std::string_view> names;
  for (std::size_t i = 0; i < kMessageTypes.size(); ++i) {
    EXPECT_EQ(static_cast<std::size_t>(kMessageTypes[i].type), i + 1);
    EXPECT_EQ(find_message_type(static_cast<std::uint8_t>(i + 1)), &kMessageTypes[i]);
    EXPECT_EQ(message_type_from_name(kMessageTypes[i].name), kMessageTypes[i].type);
    names.insert(kMessageTypes[i].name);
  }
  EXPECT_EQ(names.size(), kMessageTypes.size());
  EXPECT_EQ(find_message_type(0), nullptr);
  EXPECT_EQ(find_message_type(11), nullptr);
  EXPECT_EQ(info(MessageType::CongestionReport).max_size, 72);
}

TEST(Constants, RegistriesHoldTheSpecsInitialContents) {
  EXPECT_EQ(name_of(kReasonCodes, 7), "UNSUPPORTED_BINDING");
  EXPECT_EQ(name_of(kReasonCodes, 8), "");
  EXPECT_EQ(value_of(kReasonCodes, "budget_exhausted"), 3U);
  EXPECT_EQ(name_of(kBindingKinds, 1), "ROCEV2");
  EXPECT_EQ(name_of(kServiceHints, 2), "THROUGHPUT_ORIENTED");
  EXPECT_EQ(defined_flags(MessageType::CreditGrant), 0x0003);
  EXPECT_EQ(defined_flags(MessageType::AssocAccept), 0x0001);
  EXPECT_EQ(defined_flags(MessageType::AssocRequest), 0x0002);
  EXPECT_EQ(defined_flags(MessageType::MsgDone), 0x0000);
}

TEST(Accessors, TreatAsRules) {
  CreditGrant g{.lifetime = 0};
  EXPECT_EQ(g.effective_lifetime(2000), 2000U);
  g.lifetime = 10;
  EXPECT_EQ(g.effective_lifetime(2000), 10U);
  EXPECT_FALSE(g.usable());
  CreditRequest r{.traffic_class = 7, .weight = 255};
  EXPECT_EQ(r.effective_class(), 7);
  EXPECT_EQ(r.effective_weight(), 255);
}

TEST(Format, LineAndDetail) {
  const Message grant = testing::appendix_credit_grant();
  EXPECT_EQ(format_line(grant),
            "CREDIT_GRANT assoc=0x5a17c0de epoch=3 seq=42 message_id=0x101 grant_limit=262144 "
            "pacing_rate=100000 lifetime=2000");
  const auto detail = format_detail(testing::appendix_credit_request());
  EXPECT_NE(detail.find("binding_value: 0x1230000050010 (destination_qpn=0x123 first_msn=5 "
                        "message_count=16)"),
            std::string::npos)
      << detail;
  EXPECT_NE(detail.find("service_hint: 1 (LATENCY_SENSITIVE)"), std::string::npos);
  const auto odd = format_detail(CreditRequest{.traffic_class = 9, .weight = 0});
  EXPECT_NE(odd.find("traffic_class: 9  [above 7: treated as 7]"), std::string::npos) << odd;
  EXPECT_NE(odd.find("weight: 0  [zero: treated as 1]"), std::string::npos);
  EXPECT_EQ(format_flags(MessageType::CreditGrant, 0x8003), "POOL|FINAL|0x8000");
  EXPECT_EQ(format_capabilities(0), "none");
  EXPECT_EQ(format_rate(100000), "100 Gbit/s");
  EXPECT_EQ(format_rate(1500), "1.5 Gbit/s");
  EXPECT_EQ(format_rate(10), "10 Mbit/s");
  // Identifiers as format_line writes them: the tools' and the checker's texts use the same.
  EXPECT_EQ(format_hex(0x5a17c0de), "0x5a17c0de");
  EXPECT_EQ(format_hex(0), "0x0");
  EXPECT_EQ(format_hex(~std::uint64_t{0}), "0xffffffffffffffff");
}

}  // namespace
}  // namespace rdcc
