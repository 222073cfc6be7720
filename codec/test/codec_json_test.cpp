// The JSON mapping: stable keys, both directions, and errors that name the key.
#include <cmath>
#include <limits>
#include <random>

#include "rdcc/codec/json.hpp"
#include "rdcc/testing/vectors.hpp"
#include "test_util.hpp"

namespace rdcc {
namespace {

using json = nlohmann::ordered_json;

TEST(Json, AppendixCreditGrant_HasStableKeysAndValues) {
  const auto j = to_json(testing::appendix_credit_grant());
  EXPECT_EQ(j.dump(),
            R"({"type":"CREDIT_GRANT","version":1,"rsv":0,"length":40,"association_id":1511506142,)"
            R"("epoch":3,"flags":0,"sequence_number":42,"message_id":257,"grant_limit":262144,)"
            R"("pacing_rate":100000,"lifetime":2000})");
}

TEST(Json, CongestionReport_WritesAddressesAsText) {
  for (const auto& v : testing::boundary_vectors()) {
    if (v.name == "congestion_report_ipv4") {
      const auto j = to_json(v.message);
      EXPECT_EQ(j["source_address"], "192.0.2.1");
      EXPECT_EQ(j["destination_address"], "192.0.2.99");
    }
    if (v.name == "congestion_report_ipv6") {
      const auto j = to_json(v.message);
      EXPECT_EQ(j["source_address"], "2001:db8::1");
      EXPECT_EQ(j["length"], 72);
    }
  }
}

TEST(Json, ToJsonFromJson_IsIdentity_OnAGeneratedSet) {
  std::mt19937_64 rng(11);
  auto messages = test::random_messages(rng, 200);
  for (const auto& v : testing::boundary_vectors()) messages.push_back(v.message);
  for (const auto& m : messages) {
    const auto j = to_json(m);
    auto back = message_from_json(j);
    ASSERT_TRUE(back) << j.dump() << ": " << back.error().describe();
    EXPECT_EQ(*back, test::normalized(m)) << j.dump();
    // And through text.
    auto again = message_from_json(json::parse(j.dump()));
    ASSERT_TRUE(again);
    EXPECT_EQ(*again, *back);
  }
}

// The fast text path of `rdcc pcap dump --json` writes what to_json(m).dump() writes.
TEST(Json, AppendJsonMembers_IsToJsonDump_OnAGeneratedSet) {
  std::mt19937_64 rng(12);
  auto messages = test::random_messages(rng, 2000);
  for (const auto& v : testing::boundary_vectors()) messages.push_back(v.message);
  for (const auto& m : messages) {
    std::string text = "{";
    append_json_members(m, text);
    text += '}';
    EXPECT_EQ(text, to_json(m).dump());
  }
}

// Doubles in nlohmann's layout: the capture times of `rdcc pcap dump --json` (nanoseconds as
// seconds) and the corners of its fixed/exponent layout. nlohmann's Grisu2 now and then writes
// more digits than needed (0.0009638580000000001 for 0.000963858); std::to_chars never does,
// so the text reads back the same double and is never longer, and equal where nlohmann's is
// the shortest.
TEST(Json, AppendJsonDouble_ReadsBackTheSameDouble_InNlohmannsLayout) {
  std::vector<double> values{0.0,
                             -0.0,
                             1.0,
                             -1.0,
                             0.5,
                             1e-05,
                             3e-05,
                             0.0001,
                             0.000393,
                             1e-4,
                             1e-5,
                             123.45,
                             1e15,
                             1e16,
                             1e14,
                             1.5e15,
                             123456789012345.0,
                             1e-300,
                             1e300,
                             2.5e-7,
                             0.1,
                             0.2,
                             0.3,
                             1.0 / 3,
                             9.999999999e-5,
                             std::numeric_limits<double>::max(),
                             std::numeric_limits<double>::min(),
                             std::numeric_limits<double>::denorm_min(),
                             std::numeric_limits<double>::infinity(),
                             std::numeric_limits<double>::quiet_NaN()};
  std::mt19937_64 rng(13);
  for (int i = 0; i < 100000; ++i) {
    values.push_back(static_cast<double>(rng() % 100'000'000'000'000ULL) * 1e-9);
    values.push_back(static_cast<double>(rng() % 1'000'000ULL) * 1e-9);
  }
  std::size_t equal = 0;
  for (const double v : values) {
    std::string text;
    append_json_double(text, v);
    const std::string theirs = json(v).dump();
    if (!std::isfinite(v)) {
      EXPECT_EQ(text, "null");
      continue;
    }
    const json back = json::parse(text);
    ASSERT_TRUE(back.is_number_float()) << text;
    EXPECT_EQ(back.get<double>(), v) << text;
    EXPECT_EQ(std::signbit(back.get<double>()), std::signbit(v)) << text;
    EXPECT_LE(text.size(), theirs.size()) << text << " vs " << theirs;
    if (text == theirs) ++equal;
  }
  // The layout is nlohmann's: only the rare longer Grisu2 digits differ.
  EXPECT_GT(equal, values.size() * 9 / 10);
  for (const double v : {0.0, -0.0, 1.0, 0.5, 1e-05, 3e-05, 0.0001, 0.000393, 123.45, 1e15, 1e16,
                         1.5e15, 1e-300, 1e300, 2.5e-7}) {
    std::string text;
    append_json_double(text, v);
    EXPECT_EQ(text, json(v).dump());
  }
}

TEST(Json, AppendJsonSeconds_WritesWhatAppendJsonDoubleWritesForNsOverABillion) {
  std::vector<std::int64_t> values{0,
                                   1,
                                   -1,
                                   10,
                                   30000,
                                   393000,
                                   999999999,
                                   1000000000,
                                   1000000001,
                                   123456789012345,
                                   999999999999999,
                                   -999999999999999,
                                   1000000000000000,
                                   1000000000000001,
                                   -1000000000000001,
                                   1735689600000030000,
                                   std::numeric_limits<std::int64_t>::max(),
                                   std::numeric_limits<std::int64_t>::min()};
  for (std::int64_t p = 1; p <= 100'000'000'000'000'000; p *= 10) {
    values.push_back(p);
    values.push_back(p - 1);
    values.push_back(p + 1);
    values.push_back(-p);
  }
  std::mt19937_64 rng(17);
  for (int i = 0; i < 200000; ++i) {
    values.push_back(static_cast<std::int64_t>(rng() % 1'000'000'000'000'000ULL));
    values.push_back(static_cast<std::int64_t>(rng() % 10'000'000ULL) * 1000);
    values.push_back(static_cast<std::int64_t>(rng() % 100'000'000'000'000'000ULL));
  }
  for (const std::int64_t ns : values) {
    std::string seconds;
    append_json_seconds(seconds, ns);
    std::string expected;
    append_json_double(expected, static_cast<double>(ns) / 1e9);
    ASSERT_EQ(seconds, expected) << ns;
  }
}

TEST(Json, FromJson_AcceptsNamesHexStringsAndDefaults) {
  auto m = message_from_json(json::parse(R"({
    "type": "credit_grant", "flags": ["POOL", "FINAL"], "message_id": "0x101",
    "grant_limit": 4096, "pacing_rate": 1000})"));
  ASSERT_TRUE(m) << m.error().describe();
  const auto& g = std::get<CreditGrant>(*m);
  EXPECT_TRUE(g.pool());
  EXPECT_TRUE(g.final());
  EXPECT_EQ(g.message_id, 0x101U);
  EXPECT_EQ(g.header.version, 1);
  EXPECT_EQ(g.header.length, 0);  // encode() writes the type's size

  auto e = message_from_json(json::parse(R"({"type": 10, "reason": "UNKNOWN_ASSOCIATION"})"));
  ASSERT_TRUE(e);
  EXPECT_EQ(std::get<ErrorMessage>(*e).reason, 2);

  auto r = message_from_json(json::parse(
      R"({"type": "CREDIT_REQUEST", "binding_kind": "ROCEV2", "service_hint": "LATENCY_SENSITIVE",
          "binding_value": {"destination_qpn": 291, "first_msn": 5, "message_count": 16}})"));
  ASSERT_TRUE(r) << r.error().describe();
  EXPECT_EQ(std::get<CreditRequest>(*r).binding_value,
            testing::appendix_credit_request().binding_value);

  auto a = message_from_json(json::parse(R"({"type": 1, "capabilities": ["POOL", "CRN", 16]})"));
  ASSERT_TRUE(a);
  EXPECT_EQ(std::get<AssocRequest>(*a).capabilities, 0x15U);
}

struct BadJson {
  const char* text;
  const char* key;
  const char* what;
};

TEST(Json, FromJson_ErrorsNameTheKey) {
  const BadJson cases[] = {
      {R"([1, 2])", "", "a message must be a JSON object, not array"},
      {R"({"message_id": 1})", "type", "is missing"},
      {R"({"type": "GRANT"})", "type", "unknown name 'GRANT'"},
      {R"({"type": 11})", "type", "11 is not an RDCC message type"},
      {R"({"type": "MSG_DONE", "grant_limit": 1})", "grant_limit", "is not a field of MSG_DONE"},
      {R"({"type": "CREDIT_REQUEST", "weight": 256})", "weight",
       "larger than the field's maximum 255"},
      {R"({"type": "CREDIT_REQUEST", "weight": -1})", "weight", "must not be negative"},
      {R"({"type": "CREDIT_REQUEST", "weight": 1.5})", "weight", "must be a whole number"},
      {R"({"type": "CREDIT_REQUEST", "weight": true})", "weight", "must be a number, not boolean"},
      {R"({"type": "CANCEL", "reason": "NOPE"})", "reason", "unknown name 'NOPE' (known: NO_ERROR"},
      {R"({"type": "CREDIT_GRANT", "version": 16})", "version", "maximum 15"},
      {R"({"type": "CREDIT_GRANT", "flags": ["PARAMETER_UPDATE"]})", "flags", "unknown name"},
      {R"({"type": "CONGESTION_REPORT", "source_address": "::1"})", "source_address", "IPv4"},
      {R"({"type": "CONGESTION_REPORT", "address_family": 5, "source_address": "1.2.3.4"})",
       "source_address", "address_family must be 4 or 6"},
      {R"({"type": "CREDIT_REQUEST", "binding_value": {"qpn": 1}})", "binding_value.qpn",
       "unknown key"},
      {R"({"type": "CREDIT_REQUEST", "binding_value": {"first_msn": 16777216}})",
       "binding_value.first_msn", "maximum 16777215"},
      {R"({"type": "MSG_DONE", "message_id": "0xZZ"})", "message_id", "is not a number"},
  };
  for (const auto& c : cases) {
    auto r = message_from_json(json::parse(c.text));
    ASSERT_FALSE(r) << c.text;
    EXPECT_EQ(r.error().key, c.key) << c.text;
    EXPECT_NE(r.error().what.find(c.what), std::string::npos) << c.text << " -> " << r.error().what;
  }
}

}  // namespace
}  // namespace rdcc
