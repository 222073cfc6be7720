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

// A RoCEv2 message's window ends where an RDMA message ends: with 1460-octet Credit Units, three
// of them past 2048 octets received would end 2332 octets into the second 4096-octet RDMA WRITE,
// credit its sender cannot post with (random variant 7:5 of receiver-rocev2-queue-pair-count).
TEST(GrantSize, TargetLimit_OfARocev2Message_EndsWhereAnRdmaMessageEnds) {
  struct RdmaMessage : MessageCredit {
    std::uint64_t post_unit = 4096;
  } m;
  m.length = 3 * 4096 - 100;  // the last RDMA WRITE is shorter
  m.sched_received = 2048;
  EXPECT_EQ(target_limit(m, 3 * 1460), 8192U);
  m.sched_received = 4096;
  EXPECT_EQ(target_limit(m, 4096), 8192U);                 // already at an end
  EXPECT_EQ(target_limit(m, 3 * 1460), 3 * 4096U - 100U);  // not beyond the message
  m.post_unit = 0;                                         // opaque: Credit Units only
  EXPECT_EQ(target_limit(m, 3 * 1460), 4096U + 3 * 1460U);
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
