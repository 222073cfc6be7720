// "Sender Message State Transitions", one test per row, named after it (SenderTransition):
// the message is brought to the row's state, the row's event happens, and the test checks the
// next state, the row's action on the wire, and that exactly that row was counted.
#include <array>

#include "sender_harness.hpp"

namespace rdcc::ref {
namespace {

std::uint64_t taken(const Harness& h, SenderTransition t) {
  return h.s->stats().transitions[static_cast<std::size_t>(t)];
}

// A scheduled message (longer than U = 16384) in WAITING on an established association.
MessageHandle waiting(Harness& h, std::uint64_t length = 100000) {
  const MessageHandle m = h.submit(length);
  h.deliver(h.accept());
  EXPECT_EQ(h.state(m), MessageState::Waiting);
  return m;
}

// An unscheduled message (no longer than U) in UNSCHED, nothing of it sent yet.
MessageHandle unscheduled(Harness& h, std::uint64_t length = 8192) {
  const MessageHandle m = h.submit(length);
  h.deliver(h.accept());
  EXPECT_EQ(h.state(m), MessageState::Unsched);
  return m;
}

// A scheduled message of 20000 octets granted whole and sent: DRAINED.
MessageHandle drained(Harness& h) {
  const MessageHandle m = waiting(h, 20000);
  h.deliver(h.grant(h.id(m), 20000));
  h.run_for(microseconds(50));
  EXPECT_EQ(h.state(m), MessageState::Drained);
  return m;
}

TEST(SenderTransitions, NewUnscheduled) {
  Harness h;
  const MessageHandle m = unscheduled(h);
  EXPECT_EQ(taken(h, SenderTransition::NewUnscheduled), 1U);
  EXPECT_EQ(taken(h, SenderTransition::NewScheduled), 0U);
  // "send CREDIT_REQUEST with Unscheduled Sent = length"
  EXPECT_EQ(h.last<CreditRequest>().unscheduled_sent, 8192U);
  EXPECT_EQ(h.transmitted(m), 0U);  // "start random delay"
}

TEST(SenderTransitions, NewScheduled) {
  Harness h;
  waiting(h);
  EXPECT_EQ(taken(h, SenderTransition::NewScheduled), 1U);
  EXPECT_EQ(taken(h, SenderTransition::NewUnscheduled), 0U);
  EXPECT_EQ(h.last<CreditRequest>().unscheduled_sent, 0U);
}

TEST(SenderTransitions, UnschedDrained) {
  Harness h;
  const MessageHandle m = unscheduled(h);
  h.run_for(microseconds(50));
  EXPECT_EQ(h.state(m), MessageState::Drained);
  EXPECT_EQ(h.transmitted(m), 8192U);
  EXPECT_EQ(taken(h, SenderTransition::UnschedDrained), 1U);
}

TEST(SenderTransitions, UnschedStopped) {
  Harness h;
  const MessageHandle m = unscheduled(h);
  const std::size_t requests = h.count<CreditRequest>();
  h.s->on_link_pause(h.now);
  h.drain();
  EXPECT_EQ(h.state(m), MessageState::Waiting);
  EXPECT_EQ(taken(h, SenderTransition::UnschedStopped), 1U);
  // "stop; request credit for the remainder": the new request states what was sent.
  EXPECT_EQ(h.count<CreditRequest>(), requests + 1);
  EXPECT_EQ(h.last<CreditRequest>().unscheduled_sent, h.transmitted(m));
}

TEST(SenderTransitions, WaitingGranted) {
  Harness h;
  const MessageHandle m = waiting(h);
  h.deliver(h.grant(h.id(m), 8192));
  EXPECT_EQ(h.state(m), MessageState::Scheduled);
  EXPECT_EQ(taken(h, SenderTransition::WaitingGranted), 1U);
}

TEST(SenderTransitions, WaitingRequestTimeout) {
  Harness h;
  const MessageHandle m = waiting(h);
  const std::size_t requests = h.count<CreditRequest>();
  h.run_for(milliseconds(1));
  EXPECT_EQ(h.state(m), MessageState::Waiting);
  const std::uint64_t n = taken(h, SenderTransition::WaitingRequestTimeout);
  EXPECT_GE(n, 1U);
  EXPECT_EQ(h.count<CreditRequest>(), requests + n);  // "retransmit CREDIT_REQUEST"
}

TEST(SenderTransitions, ScheduledLimitReached) {
  Harness h;
  const MessageHandle m = waiting(h);
  h.deliver(h.grant(h.id(m), 10000));
  h.run_for(milliseconds(1));
  EXPECT_EQ(h.transmitted(m), 10000U);
  EXPECT_EQ(h.state(m), MessageState::Waiting);
  EXPECT_EQ(taken(h, SenderTransition::ScheduledLimitReached), 1U);
}

TEST(SenderTransitions, ScheduledLifetimeElapsed) {
  Harness h;
  const MessageHandle m = waiting(h);
  // 1 Mbit/s: one Credit Unit takes 33 ms, the Lifetime is 100 us.
  h.deliver(h.grant(h.id(m), 100000, 1, 100));
  const std::size_t requests = h.count<CreditRequest>();
  h.run_for(microseconds(150));
  EXPECT_EQ(h.state(m), MessageState::Waiting);
  EXPECT_EQ(taken(h, SenderTransition::ScheduledLifetimeElapsed), 1U);
  EXPECT_EQ(h.count<CreditRequest>(), requests + 1);  // "send CREDIT_REQUEST"
}

TEST(SenderTransitions, ScheduledDrained) {
  Harness h;
  const MessageHandle m = drained(h);
  EXPECT_EQ(h.transmitted(m), 20000U);
  EXPECT_EQ(taken(h, SenderTransition::ScheduledDrained), 1U);
}

TEST(SenderTransitions, DrainedDone) {
  Harness h;
  const MessageHandle m = drained(h);
  h.deliver(h.done(h.id(m), 20000));
  EXPECT_EQ(h.state(m), MessageState::Done);
  EXPECT_EQ(taken(h, SenderTransition::DrainedDone), 1U);
}

TEST(SenderTransitions, DrainedRequestTimeout) {
  Harness h;
  const MessageHandle m = drained(h);
  const std::size_t requests = h.count<CreditRequest>();
  h.run_for(milliseconds(1));
  EXPECT_EQ(h.state(m), MessageState::Drained);
  const std::uint64_t n = taken(h, SenderTransition::DrainedRequestTimeout);
  EXPECT_GE(n, 1U);
  EXPECT_EQ(h.count<CreditRequest>(), requests + n);
}

TEST(SenderTransitions, Aborted) {
  Harness h;
  const MessageHandle m = waiting(h);
  h.deliver(h.error(ReasonCode::MessageTooLarge, h.id(m)));
  EXPECT_EQ(h.state(m), MessageState::Aborted);
  EXPECT_EQ(taken(h, SenderTransition::Aborted), 1U);
  const MessageHandle n = h.submit(100000);
  h.s->cancel(n, h.now);
  h.drain();
  EXPECT_EQ(h.state(n), MessageState::Aborted);
  EXPECT_EQ(taken(h, SenderTransition::Aborted), 2U);
  EXPECT_EQ(h.count<Cancel>(), 1U);
}

TEST(SenderTransitions, WaitingBudgetExhausted) {
  Harness h;
  const MessageHandle m = waiting(h);
  h.deliver(h.error(ReasonCode::BudgetExhausted, h.id(m)));
  EXPECT_EQ(h.state(m), MessageState::Waiting);
  EXPECT_EQ(taken(h, SenderTransition::WaitingBudgetExhausted), 1U);
  // "keep the request outstanding": it is still retransmitted.
  const std::size_t requests = h.count<CreditRequest>();
  h.run_for(milliseconds(1));
  EXPECT_GT(h.count<CreditRequest>(), requests);
}

TEST(SenderTransitions, WithoutRdccAndWithoutRdccDone) {
  Harness h;
  const MessageHandle m = h.submit(10000);
  h.run_for(seconds(1));  // eight unanswered ASSOC_REQUESTs
  EXPECT_TRUE(h.s->status(m)->without_rdcc);
  EXPECT_EQ(h.state(m), MessageState::Done);
  EXPECT_EQ(taken(h, SenderTransition::WithoutRdcc), 1U);
  EXPECT_EQ(taken(h, SenderTransition::WithoutRdccDone), 1U);
}

TEST(SenderTransitions, CreditDropped) {
  Harness h;
  const MessageHandle m = waiting(h);
  h.deliver(h.grant(h.id(m), 8192, 1));
  ASSERT_EQ(h.state(m), MessageState::Scheduled);
  ErrorMessage e = h.error(ReasonCode::UnknownAssociation);
  h.deliver(e);
  EXPECT_EQ(h.state(m), MessageState::Waiting);
  EXPECT_EQ(taken(h, SenderTransition::CreditDropped), 1U);
  EXPECT_EQ(h.s->status(m)->transmitted, 0U);  // starts over in the new association
}

// WAITING | nothing left to transmit (here: a message of no octets, which never holds credit)
// | none | DRAINED, and its request timer runs as DRAINED's.
TEST(SenderTransitions, WaitingDrained) {
  Harness h;
  const MessageHandle m = h.submit(0, /*scheduled=*/true);
  h.deliver(h.accept());
  EXPECT_EQ(h.state(m), MessageState::Drained);
  EXPECT_EQ(taken(h, SenderTransition::NewScheduled), 1U);
  EXPECT_EQ(taken(h, SenderTransition::WaitingDrained), 1U);
  EXPECT_EQ(taken(h, SenderTransition::ScheduledDrained), 0U);
  const std::size_t requests = h.count<CreditRequest>();
  h.run_for(milliseconds(1));
  EXPECT_GT(h.count<CreditRequest>(), requests);
  EXPECT_GE(taken(h, SenderTransition::DrainedRequestTimeout), 1U);
}

// Every row has a name, and the names are distinct.
TEST(SenderTransitions, EveryRowIsNamed) {
  std::array<std::string, kSenderTransitionCount> names;
  for (std::size_t i = 0; i < kSenderTransitionCount; ++i) {
    names[i] = to_string(static_cast<SenderTransition>(i));
    EXPECT_NE(names[i], "?") << i;
    for (std::size_t j = 0; j < i; ++j) EXPECT_NE(names[i], names[j]);
  }
}

}  // namespace
}  // namespace rdcc::ref
