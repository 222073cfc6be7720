// The Grant Limit a grant may carry and when a message is complete
// (reference/src/receiver/credit_requests_and_grants.hpp): "Credit Requests and Grants".
#include "receiver/credit_requests_and_grants.hpp"

#include <gtest/gtest.h>

#include "receiver/receiver_credit_budget.hpp"

namespace rdcc::ref {
namespace {

MessageCredit message(std::uint64_t length, std::uint64_t window) {
  MessageCredit m;
  m.length = length;
  m.window = window;
  return m;
}

TEST(GrantSize, TargetLimit_IsAWindowPastCoveredWithinTheMessage) {
  MessageCredit m;
  m.length = 100000;
  m.window = 8192;          // unscheduled
  m.sched_received = 4096;  // covered: 12288
  EXPECT_EQ(target_limit(m, 16384), 12288U + 16384U);
  EXPECT_EQ(target_limit(m, 1U << 20U), 100000U);  // RDCC-GRANT-07: not beyond the length
  m.limit = 60000;                                 // a renewal restates at least the old limit
  EXPECT_EQ(target_limit(m, 16384), 60000U);
}

TEST(ReceivedAll, WhenEveryOctetArrived) {  // RDCC-GRANT-13
  MessageCredit m = message(10000, 4096);
  m.unsched_received = 4096;
  m.sched_received = 5903;
  EXPECT_FALSE(received_all(m, m.length));
  m.sched_received = 5904;
  EXPECT_TRUE(received_all(m, m.length));
  m.sched_received = 0;
  EXPECT_TRUE(received_all(m, 4096));  // the rule hook's fault: done early
}

}  // namespace
}  // namespace rdcc::ref
