// The sender's indexes (timer heaps, the messages that may send, the running backlog sums)
// change what an event costs, never what it decides: the timers due together are served in
// the order of a walk over every association (by address) and every message (by handle), a
// timer re-armed wakes the sender at its new time only, and the SENDER_STATUS sums follow
// messages that come and go.
#include <gtest/gtest.h>

#include "sender_harness.hpp"

namespace rdcc::ref {
namespace {

// Association attempts due at the same time go out in address order, whatever order the
// associations were opened in.
TEST(SenderIndexes, AssociationAttemptsDueTogether_GoInAddressOrder) {
  Harness h;
  const std::array<Address, 4> order = {
      Address::v4(10, 0, 0, 40, 50000), Address::v4(10, 0, 0, 10, 50000),
      Address::v4(10, 0, 0, 30, 50000), Address::v4(10, 0, 0, 20, 50000)};
  for (const Address& to : order) h.submit(4096, false, 0, 1, to);
  ASSERT_EQ(h.datagrams.size(), order.size());
  for (std::size_t i = 0; i < order.size(); ++i) EXPECT_EQ(h.datagrams[i].to, order[i]);
  h.datagrams.clear();
  h.run_until(h.now + milliseconds(1));  // the second attempts, all due together
  ASSERT_EQ(h.datagrams.size(), order.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    EXPECT_EQ(h.datagrams[i].to,
              Address::v4(10, 0, 0, static_cast<std::uint8_t>(10 * (i + 1)), 50000))
        << i;
  }
}

// A retransmission timer re-armed later (the request answered, the message drained) does not
// wake the sender at its old time.
TEST(SenderIndexes, ReArmedTimer_WakesAtItsNewTimeOnly) {
  Harness h;
  const MessageHandle m = h.submit(4096, /*scheduled=*/true);
  h.establish();
  const auto first = h.s->next_timeout();
  ASSERT_TRUE(first.has_value());
  h.run_until(h.now + microseconds(40));
  h.deliver(h.grant(h.id(m), 4096));
  EXPECT_EQ(h.state(m), MessageState::Drained);
  const auto next = h.s->next_timeout();
  ASSERT_TRUE(next.has_value());
  EXPECT_GT(*next, *first);  // the old time is no longer a wake-up
  const std::size_t requests = h.count<CreditRequest>();
  h.run_until(*next - nanoseconds(1));
  EXPECT_EQ(h.count<CreditRequest>(), requests);
  h.run_until(*next);
  EXPECT_EQ(h.count<CreditRequest>(), requests + 1);  // DRAINED: request timeout
}

// The Service Hint counts behind SENDER_STATUS follow messages in and out: with the one
// latency-sensitive message retired, the dominant hint of the next status is the others'.
TEST(SenderIndexes, ServiceHintCounts_FollowMessagesInAndOut) {
  SenderConfig c = default_config();
  c.local_backlog_threshold = 1;
  Harness h(c);
  MessageSpec ls;
  ls.receiver = kRecv;
  ls.length = 4096;
  ls.force_scheduled = true;
  ls.service_hint = ServiceHint::LatencySensitive;
  const MessageHandle a = h.submit_spec(ls);
  h.establish();
  h.deliver(h.grant(h.id(a), 4096));
  ASSERT_GE(h.count<SenderStatus>(), 1U);
  EXPECT_EQ(h.last<SenderStatus>().service_hint, 1);
  h.deliver(h.done(h.id(a), 4096));
  ASSERT_EQ(h.state(a), MessageState::Done);
  MessageSpec tp = ls;
  tp.service_hint = ServiceHint::ThroughputOriented;
  const MessageHandle b = h.submit_spec(tp);
  const std::size_t before = h.count<SenderStatus>();
  h.deliver(h.grant(h.id(b), 4096));
  ASSERT_GT(h.count<SenderStatus>(), before);
  EXPECT_EQ(h.last<SenderStatus>().service_hint, 2);
}

}  // namespace
}  // namespace rdcc::ref
