// The conforming variants (rdcc/reference/variants.hpp): each one behaves as it is named, which
// the default does not (every test fails if the variant is the default policy), and stays
// conforming: the invariant checker finds nothing.
#include <gtest/gtest.h>

#include <set>

#include "crn_harness.hpp"
#include "rdcc/reference/variants.hpp"
#include "rdcc/testing/spec_file.hpp"
#include "receiver_harness.hpp"

namespace rdcc::ref {
namespace {

ReceiverConfig with_variant(const char* name, std::shared_ptr<const ReceiverPolicy>& policy,
                            ReceiverConfig c = ReceiverHarness::default_config()) {
  EXPECT_TRUE(apply_variant(name, c, policy)) << name;
  return c;
}

// The harness of a receiver with variant `name` (empty: the default).
struct Variant {
  explicit Variant(const char* name, const ReceiverConfig& c = ReceiverHarness::default_config())
      : config(name[0] == '\0' ? c : with_variant(name, policy, c)), h(config, policy) {}
  ~Variant() {
    for (const auto& v : h.checker().violations()) ADD_FAILURE() << v.rule << ": " << v.detail;
  }
  std::shared_ptr<const ReceiverPolicy> policy;  // set by with_variant, before `config`
  ReceiverConfig config;
  ReceiverHarness h;
};

// The first grant of a 1 MiB message on a fresh association.
CreditGrant first_grant(ReceiverHarness& h, std::uint64_t length = 1U << 20U) {
  const Address s = ReceiverHarness::sender(1);
  const auto a = h.associate(s, 1);
  auto g = only<CreditGrant>(h.deliver(s, h.request(a, 1, length)));
  EXPECT_EQ(g.size(), 1U);
  return g.empty() ? CreditGrant{} : g.front();
}

// Notes 15 and 58: a CREDIT_REQUEST naming a live association from another address. The
// reference answers ERROR (UNKNOWN_ASSOCIATION) to that address (the association is unknown to
// it); the variant answers nothing; neither grants.
TEST(Variants, OtherAddressSilent_AnswersNothingToARequestFromAnotherAddress) {
  for (const char* name : {"", "other-address-silent"}) {
    SCOPED_TRACE(name);
    Variant v(name);
    const Address s = ReceiverHarness::sender(1);
    const Address other = ReceiverHarness::sender(2);
    const auto a = v.h.associate(s, 1);
    const auto out = v.h.deliver(other, v.h.request(a, 1, 4096));
    EXPECT_TRUE(only<CreditGrant>(out).empty());
    const auto errors = only<ErrorMessage>(out);
    if (name[0] == '\0') {
      ASSERT_EQ(errors.size(), 1U);
      EXPECT_EQ(errors.front().reason, static_cast<std::uint16_t>(ReasonCode::UnknownAssociation));
      EXPECT_EQ(out.front().to, other);
    } else {
      EXPECT_TRUE(out.empty());
    }
  }
}

TEST(Variants, Registry_NamesAreUniqueAndEachQuotesTheSpecWordForWord) {
  const rdcc::testing::SpecFile spec_file(RDCC_SPEC_PATH);
  if (!spec_file.text()) GTEST_SKIP() << spec_file.reason();
  // The spec's line breaks and runs of spaces are one space in a quotation.
  std::string spec;
  for (char ch : *spec_file.text()) {
    const bool space = ch == ' ' || ch == '\n' || ch == '\t' || ch == '\r';
    if (space && (spec.empty() || spec.back() == ' ')) continue;
    spec += space ? ' ' : ch;
  }
  std::set<std::string_view> names;
  for (const auto& v : variants()) {
    EXPECT_TRUE(names.insert(v.name).second) << "duplicate " << v.name;
    EXPECT_EQ(find_variant(v.name), &v);
    EXPECT_FALSE(v.description.empty()) << v.name;
    EXPECT_FALSE(v.section.empty()) << v.name;
    // A sentence that is a requirement of the catalog is named by its ID (rules_test holds
    // it to the catalog); any other is quoted, and must be the spec's.
    if (v.permits.empty()) {
      EXPECT_TRUE(v.requirement.starts_with("RDCC-")) << v.name << " names no sentence";
    } else {
      EXPECT_NE(spec.find(std::string(v.permits)), std::string::npos)
          << v.name << " quotes what the spec does not say: " << v.permits;
    }
  }
  EXPECT_EQ(find_variant("no-such-variant"), nullptr);
  ReceiverConfig c;
  std::shared_ptr<const ReceiverPolicy> p;
  EXPECT_FALSE(apply_variant("crn-no-suggested-rate", c, p)) << "a CRN variant is no receiver's";
}

TEST(ReceiverVariants, GrantWholeMessage_FirstGrantIsTheWholeMessageWithFinal) {
  Variant d("");
  Variant v("grant-whole-message");
  const auto dg = first_grant(d.h, std::uint64_t{128} * 1024);
  const auto vg = first_grant(v.h, std::uint64_t{128} * 1024);
  EXPECT_FALSE(dg.final());
  EXPECT_TRUE(vg.final());
  EXPECT_EQ(vg.grant_limit, 128U * 1024U);
}

TEST(ReceiverVariants, GrantWholeMessage_StaysWithinTheBudget) {
  Variant v("grant-whole-message");
  const auto g = first_grant(v.h, 1U << 20U);  // G_s is 192 KiB
  EXPECT_FALSE(g.final());
  EXPECT_EQ(g.grant_limit, v.h.cfg().budget - v.h.cfg().unscheduled_budget);
}

TEST(ReceiverVariants, FirstWindowOneCreditUnit_GrantsOneUnitThenMoreOnceItArrives) {
  Variant d("");
  Variant v("first-window-one-credit-unit");
  EXPECT_GT(first_grant(d.h).grant_limit, d.h.cfg().credit_unit);
  const auto g = first_grant(v.h);
  EXPECT_EQ(g.grant_limit, v.h.cfg().credit_unit);
  const auto next =
      only<CreditGrant>(v.h.send_granted(ReceiverHarness::sender(1), 1, 0, g.grant_limit));
  ASSERT_FALSE(next.empty());
  EXPECT_GT(next.back().grant_limit, 2ULL * v.h.cfg().credit_unit);
}

TEST(ReceiverVariants, PacingLinkOverK_OneMessageGetsLinkOverK) {
  Variant d("");
  const auto full = first_grant(d.h).pacing_rate;
  const std::uint32_t capacity = payload_capacity_mbps(d.h.cfg());
  EXPECT_EQ(full, capacity);
  for (const auto& [name, k] :
       {std::pair{"pacing-link-over-2", 2U}, std::pair{"pacing-link-over-4", 4U},
        std::pair{"pacing-link-over-8", 8U}}) {
    Variant v(name);
    EXPECT_EQ(first_grant(v.h).pacing_rate, capacity / k) << name;
  }
}

TEST(ReceiverVariants, PacingLinkOverK_RatesStillSumWithinTheLink) {
  Variant v("pacing-link-over-2");
  std::map<std::uint32_t, std::uint32_t> rate;
  for (std::uint8_t i = 1; i <= 4; ++i) {
    const Address s = ReceiverHarness::sender(i);
    const auto a = v.h.associate(s, i);
    for (const auto& g :
         only<CreditGrant>(v.h.deliver(s, v.h.request(a, 1, std::uint64_t{64} * 1024)))) {
      rate[g.header.association_id] = g.pacing_rate;
    }
  }
  std::uint64_t sum = 0;
  for (const auto& [assoc, r] : rate) {
    EXPECT_LE(r, payload_capacity_mbps(v.h.cfg()) / 2);
    sum += r;
  }
  EXPECT_LE(sum, payload_capacity_mbps(v.h.cfg()));
}

TEST(ReceiverVariants, Lifetimes_AreStatedInTheGrantAndReclaimedAfterThem) {
  Variant d("");
  EXPECT_EQ(first_grant(d.h).lifetime, 0U);
  for (const auto& [name, us] :
       {std::pair{"lifetime-explicit-default", 100U},  // the harness's default
        std::pair{"lifetime-100us", 100U}, std::pair{"lifetime-2000us", 2000U}}) {
    ReceiverConfig c = ReceiverHarness::default_config();
    c.grant_lifetime_us = name == std::string_view("lifetime-100us") ? 1000 : 100;
    Variant v(name, c);
    const auto g = first_grant(v.h);
    EXPECT_EQ(g.lifetime, us) << name;
    const auto outstanding = v.h.receiver().outstanding_credit();
    const Duration hold = microseconds(us) + v.h.cfg().d_max * 2;
    v.h.advance(hold - nanoseconds(1));
    EXPECT_EQ(v.h.receiver().outstanding_credit(), outstanding) << name << ": reclaimed too early";
    v.h.advance(nanoseconds(1));
    EXPECT_EQ(v.h.receiver().outstanding_credit(), 0U) << name << ": not reclaimed on time";
  }
}

// A re-request while the grant is live, after the sender returned part of its credit: the
// default grants the message again (it is due credit), "never" stays silent until the grant
// expires.
TEST(ReceiverVariants, ReRequestNeverWhileLive_GetsNoGrantUntilTheGrantExpires) {
  for (const char* name : {"", "rerequest-never-while-live"}) {
    Variant v(name);
    const Address s = ReceiverHarness::sender(1);
    const auto a = v.h.associate(s, 1);
    ASSERT_EQ(only<CreditGrant>(v.h.deliver(s, v.h.request(a, 1, 1U << 20U))).size(), 1U);
    v.h.advance(v.h.cfg().d_max * 2);  // the return cannot have crossed the grant
    CreditReturn r;
    r.message_id = 1;
    r.new_limit = 4096;
    EXPECT_TRUE(only<CreditGrant>(v.h.deliver(s, v.h.on_association(a, r))).empty());
    // The sender asks again, then sends the 4096 octets it kept: the default takes the request
    // up again and grants more; "never" ignored the request, and the message stays returned.
    EXPECT_TRUE(only<CreditGrant>(v.h.deliver(s, v.h.request(a, 1, 1U << 20U))).empty());
    const auto answer = only<CreditGrant>(v.h.data(s, 1, 0, 4096, 1));
    EXPECT_EQ(answer.size(), name[0] == '\0' ? 1U : 0U) << "'" << name << "'";
    if (name[0] == '\0') continue;
    // Once the grant has expired and been reclaimed, a re-request is answered.
    v.h.advance(microseconds(v.h.cfg().grant_lifetime_us) + v.h.cfg().d_max * 2);
    EXPECT_EQ(only<CreditGrant>(v.h.deliver(s, v.h.request(a, 1, 1U << 20U))).size(), 1U);
  }
}

TEST(ReceiverVariants, ReRequestAlwaysAnswered_RestatesTheLiveGrant) {
  for (const char* name : {"", "rerequest-always-answered"}) {
    Variant v(name);
    const Address s = ReceiverHarness::sender(1);
    const auto a = v.h.associate(s, 1);
    const auto g = only<CreditGrant>(v.h.deliver(s, v.h.request(a, 1, std::uint64_t{64} * 1024)));
    ASSERT_EQ(g.size(), 1U);
    const auto again =
        only<CreditGrant>(v.h.deliver(s, v.h.request(a, 1, std::uint64_t{64} * 1024)));
    if (name[0] == '\0') {
      EXPECT_TRUE(again.empty()) << "the default owes nothing while the grant is live";
      continue;
    }
    ASSERT_EQ(again.size(), 1U);
    EXPECT_EQ(again[0].grant_limit, g[0].grant_limit);
    EXPECT_NE(again[0].pacing_rate, 0U);
  }
}

TEST(ReceiverVariants, PoolGrants_APoolSenderGetsPoolGrants_OthersPerMessageGrants) {
  for (const char* name : {"", "pool-grants"}) {
    Variant v(name);
    const bool pool = name[0] != '\0';
    const Address s = ReceiverHarness::sender(1);
    const auto a = v.h.associate(s, 1, capability::kPool | capability::kStatus);
    auto out = v.h.deliver(s, v.h.request(a, 1, 8192));
    const auto more = v.h.deliver(s, v.h.request(a, 2, 8192));
    out.insert(out.end(), more.begin(), more.end());
    std::uint64_t pool_limit = 0;
    std::size_t per_message = 0;
    for (const auto& g : only<CreditGrant>(out)) {
      if (g.pool()) {
        EXPECT_EQ(g.message_id, 0U);
        EXPECT_FALSE(g.final());
        pool_limit = std::max(pool_limit, g.grant_limit);
      } else {
        ++per_message;
      }
    }
    if (pool) {
      EXPECT_EQ(per_message, 0U);
    } else {
      EXPECT_GE(per_message, 2U) << "the default grants each message (and re-grants to share)";
    }
    EXPECT_EQ(pool_limit, pool ? 16384U : 0U) << "'" << name << "'";
    if (!pool) continue;
    // The sender divides the pool between its messages: both complete within it.
    out = v.h.data(s, 1, 0, 8192, 1);
    const auto two = v.h.data(s, 2, 0, 8192, 2);
    out.insert(out.end(), two.begin(), two.end());
    EXPECT_EQ(only<MsgDone>(out).size(), 2U);
    EXPECT_EQ(v.h.receiver().outstanding_credit(), 0U);
    // "A receiver MUST NOT use pool grants with a sender that did not advertise the POOL
    // capability."
    const Address other = ReceiverHarness::sender(2);
    const auto b = v.h.associate(other, 2, capability::kStatus);
    for (const auto& g : only<CreditGrant>(v.h.deliver(other, v.h.request(b, 1, 8192)))) {
      EXPECT_FALSE(g.pool());
      EXPECT_EQ(g.message_id, 1U);
    }
  }
}

// More octets of pooled messages than the pool's Grant Limit stop pool grants (the limit counts
// octets across the messages, not offsets within one).
TEST(ReceiverVariants, PoolGrants_DataBeyondThePoolEndsItsGrants) {
  Variant v("pool-grants");
  const Address s = ReceiverHarness::sender(1);
  const auto a = v.h.associate(s, 1, capability::kPool | capability::kStatus);
  const auto g = only<CreditGrant>(v.h.deliver(s, v.h.request(a, 1, 1U << 20U)));
  ASSERT_EQ(g.size(), 1U);
  ASSERT_TRUE(g[0].pool());
  const auto beyond = static_cast<std::uint32_t>(g[0].grant_limit + 4096);
  EXPECT_TRUE(only<CreditGrant>(v.h.data(s, 1, 0, beyond, 1)).empty());
  EXPECT_EQ(v.h.receiver().stats().misbehaving_data_octets, 4096U);
  EXPECT_TRUE(only<CreditGrant>(v.h.data(s, 1, beyond, 65536, 1)).empty());
  // The tester's own fault (data beyond its credit), which the checker reports; not the variant's.
  for (const auto& f : v.h.checker().take_violations()) EXPECT_NE(f.rule, "budget") << f.detail;
}

TEST(ReceiverVariants, SmallUEveryAssociation_NoAssociationGetsUZeroAndTheSumStaysWithinGu) {
  ReceiverConfig c = ReceiverHarness::default_config();
  c.max_associations = 16;  // G_u 64 KiB: 4 KiB each
  Variant d("", c);
  Variant v("small-u-every-association", c);
  std::uint64_t sum = 0;
  std::size_t zero_default = 0;
  for (std::uint8_t i = 1; i <= 16; ++i) {
    const auto u = v.h.associate(ReceiverHarness::sender(i), i).unscheduled_limit;
    EXPECT_EQ(u, 4096U);
    sum += u;
    zero_default += d.h.associate(ReceiverHarness::sender(i), i).unscheduled_limit == 0 ? 1U : 0U;
  }
  EXPECT_LE(sum, v.h.cfg().unscheduled_budget);
  EXPECT_GT(zero_default, 0U) << "the default gives U in full while G_u lasts, then 0";
}

TEST(ReceiverVariants, BudgetExhaustedError_TellsAWaitingMessageOnceAndGrantsItLater) {
  for (const char* name : {"", "budget-exhausted-error"}) {
    Variant v(name);
    const Address s = ReceiverHarness::sender(1);
    const auto a = v.h.associate(s, 1);
    // Messages 1 and 2 take G_s (192 KiB); message 3 waits for budget.
    ASSERT_EQ(only<CreditGrant>(v.h.deliver(s, v.h.request(a, 1, 1U << 20U))).size(), 1U);
    ASSERT_FALSE(only<CreditGrant>(v.h.deliver(s, v.h.request(a, 2, 1U << 20U))).empty());
    auto out = v.h.deliver(s, v.h.request(a, 3, 1U << 20U));
    EXPECT_TRUE(only<CreditGrant>(out).empty());
    const auto errors = only<ErrorMessage>(out);
    if (name[0] == '\0') {
      EXPECT_TRUE(errors.empty());
      continue;
    }
    ASSERT_EQ(errors.size(), 1U);
    EXPECT_EQ(errors[0].reason, static_cast<std::uint16_t>(ReasonCode::BudgetExhausted));
    EXPECT_EQ(errors[0].message_id, 3U);
    EXPECT_TRUE(only<ErrorMessage>(v.h.deliver(s, v.h.request(a, 3, 1U << 20U))).empty()) << "once";
    // The hoarded grants expire and are reclaimed: message 3 is granted.
    out = v.h.advance(microseconds(v.h.cfg().grant_lifetime_us) + v.h.cfg().d_max * 2);
    bool granted = false;
    for (const auto& g : only<CreditGrant>(out)) granted = granted || g.message_id == 3;
    EXPECT_TRUE(granted);
  }
}

TEST(ReceiverVariants, IdleRemovalOnTime_RemovesAtTheIdleTimeExactly) {
  for (const char* name : {"", "idle-removal-on-time"}) {
    Variant v(name);
    const Address s = ReceiverHarness::sender(1);
    const auto a = v.h.associate(s, 1);
    // Traffic 1 s later: the association is idle from then on, and idle for 10 s at 11 s.
    v.h.advance(seconds(1));
    SenderStatus st;
    v.h.deliver(s, v.h.on_association(a, st));
    v.h.advance(v.h.cfg().idle_timeout + milliseconds(1));
    const bool removed = v.h.receiver().association_count() == 0;
    EXPECT_EQ(removed, name[0] != '\0') << "'" << name << "'";
  }
}

TEST(ReceiverVariants, RateFixedFairShare_CutsOnCongestionAndGrowsBackMultiplicatively) {
  std::map<std::string, std::uint32_t> after;
  ReceiverConfig c = ReceiverHarness::default_config();
  c.budget = 64U << 20U;         // no wait for budget: every grant is paced by the rate alone
  c.grant_lifetime_us = 100000;  // nor a lapsed grant during the intervals
  for (const char* name : {"", "rate-fixed-fair-share"}) {
    Variant v(name, c);
    const Address s = ReceiverHarness::sender(1);
    const auto a = v.h.associate(s, 1);
    const auto first = only<CreditGrant>(v.h.deliver(s, v.h.request(a, 1, 16U << 20U)));
    ASSERT_EQ(first.size(), 1U);
    const auto rate_of_next_grant = [&](std::uint64_t& sent, std::uint32_t octets, bool ce) {
      const auto g = only<CreditGrant>(v.h.data(s, 1, sent, octets, 1, ce));
      sent += octets;
      return g.empty() ? 0U : g.back().pacing_rate;
    };
    std::uint64_t sent = 0;
    // An interval of CE-marked data, then the next grant: cut.
    (void)rate_of_next_grant(sent, 65536, true);
    v.h.advance(v.h.cfg().base_rtt);
    const std::uint32_t cut = rate_of_next_grant(sent, 65536, false);
    EXPECT_NE(cut, 0U);
    EXPECT_LT(cut, first[0].pacing_rate) << "'" << name << "' must reduce on congestion";
    // Fifteen intervals without congestion, then the next grants.
    for (int i = 0; i < 15; ++i) {
      (void)rate_of_next_grant(sent, 4096, false);
      v.h.advance(v.h.cfg().base_rtt);
    }
    for (int i = 0; i < 4 && after[name] == 0; ++i)
      after[name] = rate_of_next_grant(sent, 32768, false);
  }
  EXPECT_EQ(after["rate-fixed-fair-share"], payload_capacity_mbps(c));
  EXPECT_LT(after[""], after["rate-fixed-fair-share"]) << "AIMD climbs back by alpha per interval";
  EXPECT_NE(after[""], 0U);
}

TEST(CrnVariants, NoSuggestedRate_ReportsCarryNone) {
  for (const char* name : {"", "crn-no-suggested-rate"}) {
    CrnConfig c = crn_test_config();
    std::shared_ptr<const CrnPolicy> policy;
    if (name[0] != '\0') {
      ASSERT_TRUE(apply_variant(name, c, policy));
    }
    Crn crn(c, nullptr, policy);
    crn.on_dequeue(queue_observation(200000), Time{});
    const auto reports = crn_reports(crn);
    ASSERT_EQ(reports.size(), 1U);
    EXPECT_EQ(reports[0].second.suggested_rate, name[0] == '\0' ? 100000U / 4U : 0U) << name;
  }
}

TEST(CrnVariants, LongReportInterval_ReportsAFlowLessOften) {
  for (const auto& [name, interval_us] :
       {std::pair{"", 50}, std::pair{"crn-report-interval-100us", 100},
        std::pair{"crn-report-interval-1ms", 1000}}) {
    CrnConfig c = crn_test_config();
    std::shared_ptr<const CrnPolicy> policy;
    if (name[0] != '\0') {
      ASSERT_TRUE(apply_variant(name, c, policy));
    }
    Crn crn(c, nullptr, policy);
    int reports = 0;
    // One dequeue per microsecond of the same flow for 2 ms: one report per interval.
    for (int us = 0; us < 2000; ++us) {
      crn.on_dequeue(queue_observation(200000), Time{} + microseconds(us));
      reports += static_cast<int>(crn_reports(crn).size());
    }
    EXPECT_EQ(reports, 2000 / interval_us) << "'" << name << "'";
  }
}

}  // namespace
}  // namespace rdcc::ref
