// TimerList (reference/src/timer_list.hpp): the receiver's armed timers, fired in time order
// and, at equal times, in the order they were armed.
#include "timer_list.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "rdcc/reference/time.hpp"

namespace rdcc::ref {
namespace {

struct T {
  Time at;
  int id = 0;
};

std::vector<int> fire_all(TimerList<T>& timers) {
  std::vector<int> order;
  while (!timers.empty()) {
    order.push_back(timers.next().id);
    timers.pop();
  }
  return order;
}

TEST(TimerList, Empty_HasNoNext) {
  TimerList<T> timers;
  EXPECT_TRUE(timers.empty());
  EXPECT_EQ(timers.size(), 0U);
}

TEST(TimerList, ArmedOutOfOrder_FireInTimeOrder) {
  TimerList<T> timers;
  timers.arm({Time{} + microseconds(30), 3});
  timers.arm({Time{} + microseconds(10), 1});
  timers.arm({Time{} + microseconds(40), 4});
  timers.arm({Time{} + microseconds(20), 2});
  EXPECT_EQ(timers.size(), 4U);
  EXPECT_EQ(timers.next().id, 1);
  EXPECT_EQ(fire_all(timers), (std::vector<int>{1, 2, 3, 4}));
}

TEST(TimerList, DueTogether_FireInArmingOrder) {
  TimerList<T> timers;
  const Time t = Time{} + milliseconds(1);
  timers.arm({t, 1});
  timers.arm({t + microseconds(5), 9});
  timers.arm({t, 2});
  timers.arm({t, 3});
  timers.arm({t - microseconds(5), 0});
  EXPECT_EQ(fire_all(timers), (std::vector<int>{0, 1, 2, 3, 9}));
}

TEST(TimerList, ArmedWhileFiring_TakesItsPlace) {
  TimerList<T> timers;
  timers.arm({Time{} + microseconds(10), 1});
  timers.arm({Time{} + microseconds(30), 3});
  EXPECT_EQ(timers.next().id, 1);
  timers.pop();
  timers.arm({Time{} + microseconds(20), 2});
  timers.arm({Time{} + microseconds(30), 4});
  EXPECT_EQ(fire_all(timers), (std::vector<int>{2, 3, 4}));
}

}  // namespace
}  // namespace rdcc::ref
