// The grant queue (reference/src/grant_scheduler.hpp): "by Traffic Class first (lower class
// number first) and by weight within a class", earlier deadlines first.
#include "grant_scheduler.hpp"

#include <gtest/gtest.h>

#include <map>
#include <vector>

namespace rdcc::ref {
namespace {

GrantOrder msg(std::uint64_t id, std::uint8_t cls, std::uint64_t pass = 0) {
  GrantOrder o;
  o.traffic_class = cls;
  o.pass = pass;
  o.association = 1;
  o.message = id;
  return o;
}

TEST(GrantQueue, LowerClassFirst) {
  GrantQueue q;
  q.insert(msg(1, 3));
  q.insert(msg(2, 0));
  q.insert(msg(3, 7));
  EXPECT_EQ(q.top().message, 2U);
  q.erase(q.top());
  EXPECT_EQ(q.top().message, 1U);
  EXPECT_EQ(q.size(), 2U);
}

TEST(GrantQueue, EarlierDeadlineFirst_WithinAClassAndBeforeNone) {
  GrantQueue q;
  GrantOrder none = msg(1, 2);
  GrantOrder late = msg(2, 2, 1000);
  late.no_deadline = false;
  late.deadline = 5000;
  GrantOrder early = msg(3, 2, 9999);
  early.no_deadline = false;
  early.deadline = 1000;
  q.insert(none);
  q.insert(late);
  q.insert(early);
  std::vector<std::uint64_t> order;
  while (!q.empty()) {
    order.push_back(q.top().message);
    q.erase(q.top());
  }
  EXPECT_EQ(order, (std::vector<std::uint64_t>{3, 2, 1}));
}

TEST(GrantQueue, ClassPass_IsTheSmallestPassOfTheClass) {
  GrantQueue q;
  EXPECT_EQ(q.class_pass(1), 0U);
  q.insert(msg(1, 1, 700));
  q.insert(msg(2, 1, 300));
  q.insert(msg(3, 0, 5));
  q.insert(msg(4, 2, 9));
  EXPECT_EQ(q.class_pass(1), 300U);
  EXPECT_EQ(q.class_pass(3), 0U);
}

// Served one Credit Unit at a time, two messages of weights 1 and 3 share the credit 1:3.
TEST(GrantQueue, Advance_SharesCreditInProportionToWeight) {
  GrantQueue q;
  const std::map<std::uint64_t, std::uint8_t> weight{{1, 1}, {2, 3}};
  q.insert(msg(1, 0));
  q.insert(msg(2, 0));
  std::map<std::uint64_t, int> granted;
  for (int i = 0; i < 400; ++i) {
    GrantOrder top = q.top();
    q.erase(top);
    ++granted[top.message];
    top.pass = GrantQueue::advance(top.pass, 4096, weight.at(top.message));
    q.insert(top);
  }
  EXPECT_EQ(granted[1], 100);
  EXPECT_EQ(granted[2], 300);
}

}  // namespace
}  // namespace rdcc::ref
