// The rate controller (reference/src/rate_controller.hpp): one sender's AIMD update
// ("Credit Allocation") and the circuit breaker ("Congestion Control Considerations").
#include "rate_controller.hpp"

#include <gtest/gtest.h>

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
