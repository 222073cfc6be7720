// The rate controller (reference/src/rate_controller.hpp): one sender's AIMD update and the
// Pacing Rates across the link ("Credit Allocation"), and the circuit breaker ("Congestion
// Control Considerations").
#include "rate_controller.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rdcc::ref {
namespace {

const ReceiverPolicy kAimd;  // the reference's controller

TEST(SenderRate, NoSignal_IncreasesByAlphaUpToRMax) {
  SenderRate r;
  r.rate = 1000;
  r.observe_data(4096, false, std::nullopt, microseconds(50));
  EXPECT_EQ(r.signal(), 0.0);
  r.update(kAimd, 10, 1500, 400, 0.5);
  EXPECT_EQ(r.rate, 1400);
  r.update(kAimd, 10, 1500, 400, 0.5);
  EXPECT_EQ(r.rate, 1500);  // "r_i = min(R_max_i, r_i + alpha)"
}

TEST(SenderRate, CeFraction_DecreasesMultiplicatively) {
  SenderRate r;
  r.rate = 1000;
  r.observe_data(3000, false, std::nullopt, microseconds(50));
  r.observe_data(1000, true, std::nullopt, microseconds(50));
  EXPECT_DOUBLE_EQ(r.signal(), 0.25);
  r.update(kAimd, 10, 100000, 400, 0.5);
  EXPECT_DOUBLE_EQ(r.rate, 1000 * (1 - 0.5 * 0.25));  // "r_i * (1 - beta * s_i)"
  // The interval's signals start again from none.
  EXPECT_EQ(r.signal(), 0.0);
}

TEST(SenderRate, Decrease_StartsFromTheGrantedRateAndStopsAtRMin) {
  SenderRate r;
  r.rate = 100000;
  r.granted_rate = 2000;  // the allocation gave it less than the controller's value
  r.observe_report(255);
  EXPECT_DOUBLE_EQ(r.signal(), 1.0);
  r.update(kAimd, 10, 100000, 400, 0.5);
  EXPECT_DOUBLE_EQ(r.rate, 1000);  // half the granted rate, not half of 100000
  for (int i = 0; i < 20; ++i) {
    r.observe_report(255);
    r.update(kAimd, 10, 100000, 400, 0.5);
  }
  EXPECT_DOUBLE_EQ(r.rate, 10);  // "max(R_min, ...)"
}

TEST(SenderRate, ExcessDelay_IsNormalizedToTheTargetAndCappedAtOne) {
  SenderRate r;
  r.observe_data(100, false, microseconds(75), microseconds(50));
  EXPECT_DOUBLE_EQ(r.signal(), 0.5);
  r.observe_data(100, false, microseconds(500), microseconds(50));
  EXPECT_DOUBLE_EQ(r.signal(), 1.0);
  SenderRate below;
  below.observe_data(100, false, microseconds(40), microseconds(50));
  EXPECT_EQ(below.signal(), 0.0);
}

TEST(SenderRate, Suggestion_LapsesAfterFourGrantLifetimes) {
  SenderRate r;
  r.suggested_rate = 3000;
  r.suggested_at = Time{} + milliseconds(1);
  const Duration lifetime = microseconds(100);
  EXPECT_EQ(r.suggestion(Time{} + milliseconds(1) + microseconds(400), lifetime), 3000U);
  EXPECT_EQ(r.suggestion(Time{} + milliseconds(1) + microseconds(401), lifetime), 0U);
  r.suggested_rate = 0;  // "Suggested Rate zero means that the sender makes no suggestion"
  EXPECT_EQ(r.suggestion(Time{} + milliseconds(1), lifetime), 0U);
}

TEST(SenderRate, Cap_IsTheRateWithinLineRateAndSuggestion) {
  SenderRate r;
  r.rate = 5000;
  const Time now = Time{} + milliseconds(1);
  const Duration lifetime = microseconds(100);
  EXPECT_EQ(r.cap(0, now, lifetime), 5000);  // no line rate stated
  EXPECT_EQ(r.cap(4000, now, lifetime), 4000);
  r.suggested_rate = 3000;  // RDCC-ALLOC-03
  r.suggested_at = now;
  EXPECT_EQ(r.cap(4000, now, lifetime), 3000);
  EXPECT_EQ(r.cap(4000, now + microseconds(401), lifetime), 4000);  // lapsed
}

TEST(SenderRate, RMax_IsLineRateOrLinkWithinTheSuggestion) {
  SenderRate r;
  r.rate = 100;  // r_i itself is no bound of R_max_i
  const Time now = Time{} + milliseconds(1);
  const Duration lifetime = microseconds(100);
  EXPECT_EQ(r.r_max(0, 100000, now, lifetime), 100000);
  EXPECT_EQ(r.r_max(25000, 100000, now, lifetime), 25000);
  r.suggested_rate = 7000;
  r.suggested_at = now;
  EXPECT_EQ(r.r_max(25000, 100000, now, lifetime), 7000);
}

TEST(RateLimits, MinRate_IsOneCreditUnitPerUpdateInterval) {
  EXPECT_DOUBLE_EQ(min_rate(4096, microseconds(10)), 4096 * 8.0 / 10);  // Mbit/s
  EXPECT_DOUBLE_EQ(min_rate(1000, Duration{0}), 8000000.0);  // the interval at least 1 ns
}

TEST(RateLimits, PayloadCapacity_LeavesThePacketHeadersTheirShare) {
  EXPECT_EQ(payload_capacity(100000, 4096, 0), 100000U);
  EXPECT_EQ(payload_capacity(100000, 4096, 64), 100000U * 4096 / 4160);
  EXPECT_EQ(payload_capacity(100000, 0, 64), 100000U);  // no Credit Unit: the whole link
  EXPECT_EQ(payload_capacity(1, 1, 1000), 1U);          // never zero
}

// ---- LinkRates: RDCC-ALLOC-01, the sum of the Pacing Rates within the link -----------------

TEST(LinkRates, Set_KeepsTheSumAndTheHolders) {
  LinkRates link(10000);
  link.set(1, 7, 0, 4000, false);
  link.set(1, 8, 0, 3000, false);
  EXPECT_EQ(link.sum(), 7000U);
  EXPECT_EQ(link.holders(), 2U);
  link.set(1, 7, 4000, 1000, false);  // lowered
  EXPECT_EQ(link.sum(), 4000U);
  link.set(1, 8, 3000, 0, false);  // released
  EXPECT_EQ(link.sum(), 1000U);
  EXPECT_EQ(link.holders(), 1U);
  EXPECT_EQ(link.headroom(0), 9000U);
  EXPECT_EQ(link.headroom(1000), 10000U);  // its own rate counts as room
}

TEST(LinkRates, FairShare_CountsHoldersQueuedAndParkedMessagesUpToTheOvercommit) {
  const ReceiverPolicy policy;
  LinkRates link(12000);
  EXPECT_EQ(link.fair_share(policy), 12000);  // nobody: the whole link
  link.set(1, 1, 0, 6000, false);
  link.enqueued(0);  // a queued message that holds no rate
  EXPECT_EQ(link.fair_share(policy), 6000);
  link.park();
  EXPECT_EQ(link.fair_share(policy), 4000);
  link.end_pass();
  link.dequeued(0);
  EXPECT_EQ(link.fair_share(policy), 12000);
  // A queued message that gets a rate is counted once.
  link.enqueued(0);
  link.set(1, 2, 0, 3000, true);
  EXPECT_EQ(link.fair_share(policy), 6000);
  for (std::uint64_t id = 10; id < 40; ++id) link.set(2, id, 0, 1, false);
  EXPECT_EQ(link.fair_share(policy), 12000.0 / LinkRates::kOvercommit);
}

TEST(LinkRates, RateFor_IsTheSendersCapWithinShareAndHeadroom) {
  const ReceiverPolicy policy;
  LinkRates link(10000);
  EXPECT_EQ(link.rate_for(4000.7, 0, 100, policy), 4000U);  // whole Mbit/s
  EXPECT_EQ(link.rate_for(20000, 0, 100, policy), 10000U);  // the share of one: the link
  link.set(1, 1, 0, 9950, false);
  // 50 Mbit/s left, below R_min: no rate now (a grant carries a non-zero one).
  EXPECT_EQ(link.rate_for(20000, 0, 100, policy), 0U);
  EXPECT_EQ(link.rate_for(20000, 0, 40, policy), 50U);
  EXPECT_EQ(link.rate_for(0.5, 0, 0.1, policy), 0U);  // under 1 Mbit/s: none
}

// The rule hook's fault (a mutant) leaves the link's sum unchecked.
struct NoRateSum final : ReceiverPolicy {
  [[nodiscard]] bool enforce_rate_sum() const override { return false; }
};

TEST(LinkRates, RateFor_WithoutTheRuleHook_IsTheSendersCap) {
  const NoRateSum policy;
  LinkRates link(10000);
  link.set(1, 1, 0, 10000, false);
  EXPECT_EQ(link.rate_for(20000, 0, 100, policy), 20000U);
}

TEST(LinkRates, LowerHolders_OffersTheHighestAboveTheShareUntilThereIsRoom) {
  const ReceiverPolicy policy;
  LinkRates link(9000);
  link.set(1, 1, 0, 5000, false);
  link.set(2, 2, 0, 3000, false);
  link.set(3, 3, 0, 1000, false);
  link.enqueued(0);  // the message that wants a share: 4 sharing, 2250 each
  std::vector<std::string> log;
  link.lower_holders(0, 2250, policy, [&](std::uint32_t a, std::uint64_t m, std::uint32_t share) {
    log.push_back("offer " + std::to_string(a) + "/" + std::to_string(m) + " at " +
                  std::to_string(share));
    if (m == 1) return false;  // keeps its rate (e.g. not active)
    link.set(a, m, 3000, share, false);
    return true;
  });
  // 1/1 refused, 2/2 lowered to 2250: 750 free, still short; offers start again from the
  // highest, 1/1 refuses again, and 2/2 at the share is no longer above it.
  EXPECT_EQ(log, (std::vector<std::string>{"offer 1/1 at 2250", "offer 2/2 at 2250",
                                           "offer 1/1 at 2250"}));
  EXPECT_EQ(link.sum(), 5000U + 2250U + 1000U);
}

TEST(LinkRates, LowerHolders_StopsWhenTheHeadroomSuffices) {
  const ReceiverPolicy policy;
  LinkRates link(8000);
  link.set(1, 1, 0, 4000, false);
  link.set(1, 2, 0, 4000, false);
  link.enqueued(0);  // 3 sharing: 2666 each
  std::vector<std::uint64_t> offered;
  link.lower_holders(0, 2000, policy, [&](std::uint32_t a, std::uint64_t m, std::uint32_t share) {
    offered.push_back(m);
    link.set(a, m, 4000, share, false);
    return true;
  });
  // Equal rates: the higher Message ID first. One lowered leaves 1334, short of 2000; two
  // leave 2668, and the offers stop.
  EXPECT_EQ(offered, (std::vector<std::uint64_t>{2, 1}));
  EXPECT_EQ(link.sum(), 2U * 2666U);
  EXPECT_GE(link.headroom(0), 2000U);
}

TEST(CircuitBreaker, LossAboveThreshold_Trips) {
  CircuitBreaker b;
  b.announced(1000);
  b.lost(11);
  EXPECT_DOUBLE_EQ(b.loss_rate(), 0.011);
  EXPECT_EQ(b.end_window(0.01), CircuitBreaker::Change::Tripped);
  EXPECT_TRUE(b.tripped());
  EXPECT_EQ(b.loss_rate(), 0.0);  // the next window starts empty
}

TEST(CircuitBreaker, Tripped_ClearsOnlyBelowATenthOfTheThreshold) {
  CircuitBreaker b;
  b.announced(100);
  b.lost(50);
  ASSERT_EQ(b.end_window(0.01), CircuitBreaker::Change::Tripped);
  b.announced(1000);
  b.lost(5);  // 0.5 %: below the threshold, not below a tenth of it
  EXPECT_EQ(b.end_window(0.01), CircuitBreaker::Change::None);
  EXPECT_TRUE(b.tripped());
  b.announced(10000);
  b.lost(9);  // 0.09 %
  EXPECT_EQ(b.end_window(0.01), CircuitBreaker::Change::Cleared);
  EXPECT_FALSE(b.tripped());
}

TEST(CircuitBreaker, AtTheThreshold_DoesNotTrip) {
  CircuitBreaker b;
  b.announced(1000);
  b.lost(10);
  EXPECT_EQ(b.end_window(0.01), CircuitBreaker::Change::None);
  EXPECT_EQ(b.end_window(0.01), CircuitBreaker::Change::None);  // an empty window: no loss
}

}  // namespace
}  // namespace rdcc::ref
