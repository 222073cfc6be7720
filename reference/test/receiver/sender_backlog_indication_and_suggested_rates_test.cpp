// The Suggested Rate in force
// (reference/src/receiver/sender_backlog_indication_and_suggested_rates.hpp, through
// SenderRate::suggestion): "Sender Backlog Indication and Suggested Rates".
#include "receiver/sender_backlog_indication_and_suggested_rates.hpp"

#include <gtest/gtest.h>

#include "receiver/credit_allocation.hpp"

namespace rdcc::ref {
namespace {

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

}  // namespace
}  // namespace rdcc::ref
