// FinishedStore (reference/src/finished_store.hpp): the final status of the sender's retired
// messages, the `capacity` most recently added, the oldest forgotten first.
#include "finished_store.hpp"

#include <gtest/gtest.h>

namespace rdcc::ref {
namespace {

MessageStatus finished(MessageHandle h, std::uint64_t length) {
  MessageStatus st;
  st.handle = h;
  st.length = length;
  st.state = MessageState::Done;
  return st;
}

TEST(FinishedStore, Empty_FindsNothing) {
  const FinishedStore store(4);
  EXPECT_FALSE(store.find(1).has_value());
}

TEST(FinishedStore, Add_FindsTheStatusByHandle) {
  FinishedStore store(4);
  store.add(finished(7, 100));
  store.add(finished(9, 200));
  ASSERT_TRUE(store.find(7).has_value());
  EXPECT_EQ(store.find(7)->length, 100U);
  ASSERT_TRUE(store.find(9).has_value());
  EXPECT_EQ(store.find(9)->length, 200U);
  EXPECT_FALSE(store.find(8).has_value());
}

TEST(FinishedStore, Full_ForgetsTheOldestFirst) {
  FinishedStore store(2);
  store.add(finished(1, 10));
  store.add(finished(2, 20));
  store.add(finished(3, 30));
  EXPECT_FALSE(store.find(1).has_value());
  EXPECT_TRUE(store.find(2).has_value());
  EXPECT_TRUE(store.find(3).has_value());
}

TEST(FinishedStore, CapacityZero_KeepsNothing) {
  FinishedStore store(0);
  store.add(finished(1, 10));
  EXPECT_FALSE(store.find(1).has_value());
}

}  // namespace
}  // namespace rdcc::ref
