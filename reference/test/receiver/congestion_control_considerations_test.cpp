// The circuit breaker (reference/src/receiver/congestion_control_considerations.hpp):
// "Congestion Control Considerations".
#include "receiver/congestion_control_considerations.hpp"

#include <gtest/gtest.h>

namespace rdcc::ref {
namespace {

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
