// The receiver's data receipt (reference/src/receiver/transport_bindings.hpp): which message
// data belongs to (its transport binding), which of its octets count, early data.
#include "receiver/transport_bindings.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <set>

namespace rdcc::ref {
namespace {

MessageCredit message(std::uint64_t length, std::uint64_t window) {
  MessageCredit m;
  m.length = length;
  m.window = window;
  return m;
}

TEST(CountOpaque, SplitsAtTheUnscheduledWindow_AndCountsEachOctetOnce) {
  RangeSet ranges;
  const MessageCredit m = message(100000, 8192);
  const Receipt first = count_opaque(ranges, m, 4096, 8192);
  EXPECT_EQ(first.below, 4096U);
  EXPECT_EQ(first.above, 4096U);
  EXPECT_EQ(first.duplicate, 0U);
  const Receipt again = count_opaque(ranges, m, 0, 16384);  // a retransmission overlapping it
  EXPECT_EQ(again.below, 4096U);
  EXPECT_EQ(again.above, 4096U);
  EXPECT_EQ(again.duplicate, 8192U);
}

TEST(CountOpaque, OctetsBeyondTheLength_AreNotTheMessages) {
  RangeSet ranges;
  const MessageCredit m = message(10000, 0);
  const Receipt r = count_opaque(ranges, m, 8192, 4096);
  EXPECT_EQ(r.above, 10000U - 8192U);
  EXPECT_EQ(r.duplicate, 0U);
  const Receipt past = count_opaque(ranges, m, 10000, 100);
  EXPECT_EQ(past.below + past.above + past.duplicate, 0U);
}

TEST(CountInOrder, FillsTheUnscheduledOctetsInFlightFirst) {  // RDCC-BIND-01
  MessageCredit m = message(20000, 8192);
  m.unsched_received = 4096;
  const Receipt r = count_in_order(m, 6000);
  EXPECT_EQ(r.below, 4096U);
  EXPECT_EQ(r.above, 6000U - 4096U);
  m.sched_received = 20000 - 4096 - 1000;  // 1000 octets left of the message
  const Receipt end = count_in_order(m, 4096);
  EXPECT_EQ(end.below + end.above, 1000U);
}

TEST(BindingIndex, Opaque_NamesOneMessage) {
  BindingIndex index;
  EXPECT_EQ(index.opaque(0xAB), nullptr);
  index.add_opaque(0xAB, 7);
  ASSERT_NE(index.opaque(0xAB), nullptr);
  EXPECT_EQ(*index.opaque(0xAB), 7U);
  index.add_opaque(0xAB, 9);     // a later message took the value
  index.remove_opaque(0xAB, 7);  // the earlier one leaving does not unbind it
  EXPECT_EQ(*index.opaque(0xAB), 9U);
  index.remove_opaque(0xAB, 9);
  EXPECT_EQ(index.opaque(0xAB), nullptr);
}

TEST(BindingIndex, QueuePair_CountsForItsOldestMessageStillCounting) {
  BindingIndex index;
  index.add_queue_pair(0x123, 5);
  index.add_queue_pair(0x123, 3);
  index.add_queue_pair(0x456, 1);
  std::set<std::uint64_t> done;
  const auto counting = [&](std::uint64_t id) { return done.count(id) == 0; };
  EXPECT_EQ(*index.queue_pair(0x123, true, counting), 3U);
  done.insert(3);
  EXPECT_EQ(*index.queue_pair(0x123, true, counting), 5U);
  EXPECT_EQ(index.queue_pair(0x789, true, counting), nullptr);
  // The rule hook's fault: the queue pair is not looked at, the oldest of all is taken.
  EXPECT_EQ(*index.queue_pair(0x123, false, counting), 1U);
  index.remove_queue_pair(0x456, 1);
  index.remove_queue_pair(0x123, 5);
  EXPECT_EQ(index.queue_pair(0x123, false, counting), nullptr);
}

TEST(EarlyData, IsKeptPerBindingUpToTheLimit_AndTakenOnce) {
  EarlyData early;
  early.add(BindingKind::Opaque, 7, 4096);
  early.add(BindingKind::Opaque, 7, 4096);
  early.add(BindingKind::RoCEv2, 7, 100);  // the same value, another binding
  EXPECT_EQ(early.take(BindingKind::Opaque, 7), 8192U);
  EXPECT_EQ(early.take(BindingKind::Opaque, 7), std::nullopt);
  EXPECT_EQ(early.take(BindingKind::RoCEv2, 7), 100U);
  for (int i = 0; i < 300; ++i) early.add(BindingKind::Opaque, 1, 4096);
  EXPECT_EQ(early.take(BindingKind::Opaque, 1), EarlyData::kLimit);
}

// Data for an identity no request takes (a resend that crossed its message's MSG_DONE) is not
// kept forever: at most kIdentities identities, the oldest forgotten first (spec-notes 119);
// node_soak.py's receiver grew by 16 MB over 10^6 messages before.
TEST(EarlyData, KeepsAtMostKIdentities_ForgettingTheOldestFirst) {
  EarlyData early;
  constexpr std::uint64_t n = EarlyData::kIdentities;
  for (std::uint64_t k = 0; k < 10 * n; ++k) early.add(BindingKind::Opaque, k, 100);
  EXPECT_EQ(early.identities(), n);
  EXPECT_EQ(early.take(BindingKind::Opaque, 9 * n - 1), std::nullopt);  // forgotten
  EXPECT_EQ(early.take(BindingKind::Opaque, 9 * n), 100U);              // the oldest kept
  EXPECT_EQ(early.take(BindingKind::Opaque, 10 * n - 1), 100U);         // the newest
  EXPECT_LE(early.order_places(), 2 * n);
}

// Identities added and taken, as every unscheduled message's early data is, leave no trace, and
// one that comes again is kept by its new arrival, not forgotten at its first place.
TEST(EarlyData, TakenIdentities_LeaveNoPlaceBehind_AndOneComingAgainKeepsItsNewPlace) {
  EarlyData early;
  constexpr std::uint64_t n = EarlyData::kIdentities;
  for (std::uint64_t k = 0; k < 100000; ++k) {
    early.add(BindingKind::Opaque, k, 10);
    ASSERT_EQ(early.take(BindingKind::Opaque, k), 10U);
  }
  EXPECT_EQ(early.identities(), 0U);
  EXPECT_LE(early.order_places(), 2 * n + 1);
  early.add(BindingKind::Opaque, 1, 10);     // first place
  (void)early.take(BindingKind::Opaque, 1);  // taken
  for (std::uint64_t k = 1000; k < 1000 + n - 1; ++k) early.add(BindingKind::Opaque, k, 10);
  early.add(BindingKind::Opaque, 1, 20);     // comes again: the newest of n
  early.add(BindingKind::Opaque, 5000, 10);  // one more: the oldest (1000) goes, not 1
  EXPECT_EQ(early.identities(), n);
  EXPECT_EQ(early.take(BindingKind::Opaque, 1), 20U);
  EXPECT_EQ(early.take(BindingKind::Opaque, 1000), std::nullopt);
}

}  // namespace
}  // namespace rdcc::ref
