// DueList (reference/src/due_list.hpp): the IDs added since the last take, each once, in
// increasing order; those added while a take is being walked go to the next one.
#include "due_list.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace rdcc::ref {
namespace {

using Ids = std::vector<std::uint32_t>;

TEST(DueList, Empty_TakesNothing) {
  DueList<std::uint32_t> due;
  EXPECT_TRUE(due.empty());
  EXPECT_TRUE(due.take().empty());
}

TEST(DueList, Repeats_TakenOnceInOrder) {
  DueList<std::uint32_t> due;
  for (const std::uint32_t id : {7U, 7U, 3U, 9U, 3U, 7U, 1U}) due.add(id);
  EXPECT_FALSE(due.empty());
  EXPECT_EQ(due.take(), (Ids{1, 3, 7, 9}));
  EXPECT_TRUE(due.empty());
  EXPECT_TRUE(due.take().empty());
}

TEST(DueList, AddedWhileWalkingATake_GoToTheNext) {
  DueList<std::uint32_t> due;
  due.add(2);
  due.add(1);
  Ids walked;
  for (const std::uint32_t id : due.take()) {
    walked.push_back(id);
    due.add(id + 10);  // kept for the next round
  }
  EXPECT_EQ(walked, (Ids{1, 2}));
  EXPECT_EQ(due.take(), (Ids{11, 12}));
}

}  // namespace
}  // namespace rdcc::ref
