// Finished messages retire from the sender's live state; their final status stays in a
// bounded store (SenderConfig::finished_status_capacity) for status().
#include "sender_harness.hpp"

namespace rdcc::ref {
namespace {

// Sends one unscheduled message of `length` octets and answers it with MSG_DONE.
// The first call opens the association.
MessageHandle send_and_finish(Harness& h, std::uint64_t length) {
  const MessageHandle m = h.submit(length);
  if (!h.s->association(kRecv)->established) h.deliver(h.accept());
  h.run_for(microseconds(20));
  EXPECT_EQ(h.state(m), MessageState::Drained);
  h.deliver(h.done(h.id(m), length));
  return m;
}

TEST(SenderRetire, FinishedMessage_KeepsItsFinalStatus) {
  Harness h;
  const MessageHandle m = send_and_finish(h, 4096);
  h.run_for(microseconds(1));  // the next event retires it
  const auto st = h.s->status(m);
  ASSERT_TRUE(st.has_value());
  EXPECT_EQ(st->state, MessageState::Done);
  EXPECT_EQ(st->transmitted, 4096U);
  EXPECT_EQ(st->length, 4096U);
  EXPECT_NE(st->finished, Time{});
  // A late MSG_DONE or grant for it is ignored, as before it retired.
  h.deliver(h.done(st->message_id, 4096));
  h.deliver(h.grant(st->message_id, 8192));
  EXPECT_EQ(h.s->stats().messages_done, 1U);
  EXPECT_EQ(h.s->stats().grants_ignored, 1U);
}

TEST(SenderRetire, StatusStore_ForgetsTheOldestBeyondItsCapacity) {
  SenderConfig c = default_config();
  c.finished_status_capacity = 3;
  Harness h(c);
  std::vector<MessageHandle> handles;
  handles.reserve(5);
  for (int i = 0; i < 5; ++i) handles.push_back(send_and_finish(h, 1000));
  h.run_for(microseconds(1));
  EXPECT_FALSE(h.s->status(handles[0]).has_value());
  EXPECT_FALSE(h.s->status(handles[1]).has_value());
  for (std::size_t i = 2; i < handles.size(); ++i) {
    ASSERT_TRUE(h.s->status(handles[i]).has_value()) << i;
    EXPECT_EQ(h.s->status(handles[i])->state, MessageState::Done);
  }
}

TEST(SenderRetire, CapacityZero_KeepsNoFinalStatus_LiveOnesStillAnswer) {
  SenderConfig c = default_config();
  c.finished_status_capacity = 0;
  Harness h(c);
  const MessageHandle done = send_and_finish(h, 1000);
  const MessageHandle live = h.submit(100000, true);
  h.run_for(microseconds(1));
  EXPECT_FALSE(h.s->status(done).has_value());
  ASSERT_TRUE(h.s->status(live).has_value());
  EXPECT_EQ(h.s->status(live)->state, MessageState::Waiting);
}

// The Message ID of a retired message finds nothing; the live message with the next ID is
// found by its own.
TEST(SenderRetire, GrantForALiveMessage_AfterOthersRetired_ReachesIt) {
  Harness h;
  for (int i = 0; i < 3; ++i) send_and_finish(h, 1000);
  const MessageHandle m = h.submit(100000, true);
  h.deliver(h.grant(h.id(m), 8192));
  EXPECT_EQ(h.state(m), MessageState::Scheduled);
  h.run_for(milliseconds(1));
  EXPECT_EQ(h.transmitted(m), 8192U);
}

}  // namespace
}  // namespace rdcc::ref
