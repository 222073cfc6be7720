// The grant scheduler (reference/src/grant_scheduler.hpp): the queue "by Traffic Class first
// (lower class number first) and by weight within a class", earlier deadlines first; the size
// and Lifetime of a grant; and the grant pass, against a fake receiver that logs what the
// pass asks it to do.
#include "grant_scheduler.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "credit_ledger.hpp"

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

// ---- how much and for how long ------------------------------------------------------------

TEST(GrantSize, DefaultWindow_IsOneBdpAtLeastFourCreditUnits) {
  // 10 us at 100 Gbit/s: 125,000 octets.
  EXPECT_EQ(default_window(0, microseconds(10), 100000, 4096), 125000U);
  EXPECT_EQ(default_window(0, microseconds(1), 1000, 4096), 4U * 4096);
  EXPECT_EQ(default_window(65536, microseconds(10), 100000, 4096), 65536U);  // configured
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

TEST(GrantSize, WantsMore_WhenHalfTheWindowIsUsed) {
  MessageCredit m;
  m.length = 100000;
  EXPECT_TRUE(wants_more(m, 16384));  // no grant yet
  m.limit = 16384;
  m.accounted = 16384;
  EXPECT_FALSE(wants_more(m, 16384));  // a full window outstanding
  m.sched_received = 8192;
  EXPECT_TRUE(wants_more(m, 16384));  // half of it arrived
  m.limit = 100000;
  EXPECT_FALSE(wants_more(m, 16384));  // granted to its end
}

TEST(GrantFields, MakeGrant_SetsFinalAtTheLengthAndPoolForIdZero) {
  const CreditGrant g = make_grant(0x101, 4U << 20U, 262144, 100000, 0);
  EXPECT_EQ(g.message_id, 0x101U);
  EXPECT_EQ(g.grant_limit, 262144U);
  EXPECT_EQ(g.pacing_rate, 100000U);
  EXPECT_EQ(g.lifetime, 0U);  // "Lifetime zero means the default Grant Lifetime"
  EXPECT_FALSE(g.final());
  EXPECT_TRUE(make_grant(0x101, 4U << 20U, 4U << 20U, 60000, 2000).final());  // RDCC-GRANT-12
  const CreditGrant pool = make_grant(0, 0, 0, 1000, 0);
  EXPECT_TRUE(pool.pool());  // RDCC-GRANT-14
  EXPECT_FALSE(pool.final());
}

TEST(GrantFields, GrantLifetime_IsTheFieldOrTheAssociationsDefault) {
  EXPECT_EQ(grant_lifetime(0, 1000), microseconds(1000));
  EXPECT_EQ(grant_lifetime(250, 1000), microseconds(250));
}

// ---- the grant pass ---------------------------------------------------------------------------

struct FakeMessage : MessageCredit {
  std::uint64_t id = 0;
  std::uint64_t received_at_grant = 0;
  GrantOrder order;  // its place in the queue
};

// A receiver as the grant pass sees it: a fixed window, a budget of `free` octets, a rate per
// message, and a log of what the pass did.
struct FakeHost {
  GrantQueue& queue;
  std::map<std::uint64_t, FakeMessage> msgs;
  std::uint64_t window_octets = 16384;
  std::uint64_t free = 1U << 20U;
  std::map<std::uint64_t, RateOffer> offers;
  std::map<std::uint64_t, RateOffer> after_lowering;  // the offer once the holders are lowered
  bool budget_grows = false;                          // lowering restated a returned limit
  std::vector<std::string> log;

  void add(std::uint64_t id, std::uint64_t length, std::uint8_t cls = 0) {
    FakeMessage& m = msgs[id];
    m.id = id;
    m.length = length;
    m.order = GrantOrder{cls, true, 0, 0, 1, id};
    queue.insert(m.order);
  }
  void leave(const FakeMessage& m) { queue.erase(m.order); }

  FakeMessage& message(const GrantOrder& o) { return msgs.at(o.message); }
  std::uint64_t window(const FakeMessage&) const { return window_octets; }
  std::optional<std::uint64_t> fit(const FakeMessage& m, std::uint64_t limit, bool renew,
                                   std::uint64_t reserved) {
    const std::uint64_t room = free > reserved ? free - reserved : 0;
    if (limit - m.covered() - m.accounted <= room) return limit;
    if (renew) return m.limit;
    return std::nullopt;
  }
  RateOffer offer(const FakeMessage& m) {
    auto it = offers.find(m.id);
    return it == offers.end() ? RateOffer{1000, 1000} : it->second;
  }
  bool lower_holders(const FakeMessage& m, double want) {
    log.push_back("lower for " + std::to_string(m.id) +
                  " want=" + std::to_string(static_cast<int>(want)));
    if (auto it = after_lowering.find(m.id); it != after_lowering.end()) offers[m.id] = it->second;
    if (budget_grows) {
      budget_grows = false;
      return true;
    }
    return false;
  }
  void skip(FakeMessage& m) {
    log.push_back("skip " + std::to_string(m.id));
    leave(m);
  }
  void wait(FakeMessage& m) { log.push_back("wait " + std::to_string(m.id)); }
  void park(FakeMessage& m) {
    log.push_back("park " + std::to_string(m.id));
    leave(m);
  }
  void grant(FakeMessage& m, std::uint64_t limit, std::uint32_t rate) {
    log.push_back("grant " + std::to_string(m.id) + " limit=" + std::to_string(limit) +
                  " rate=" + std::to_string(rate));
    free -= limit - m.covered() - m.accounted;
    m.limit = limit;
    m.accounted = limit - m.covered();
    leave(m);
  }
  void end_pass() { log.push_back("end"); }
};

class GrantPass : public ::testing::Test {
 protected:
  GrantQueue queue;
  FakeHost host{queue};
  std::vector<std::string> run() {
    host.log.clear();
    grant_pass(queue, host);
    return host.log;
  }
};

TEST_F(GrantPass, ServesTheQueueInOrder_AWindowEach) {
  host.add(2, 100000, 1);
  host.add(1, 10000, 0);
  EXPECT_EQ(run(), (std::vector<std::string>{"grant 1 limit=10000 rate=1000",
                                             "grant 2 limit=16384 rate=1000", "end"}));
}

TEST_F(GrantPass, NothingToGive_LeavesTheQueue) {
  host.add(1, 100000);
  host.msgs.at(1).limit = 16384;  // a full window held
  host.msgs.at(1).accounted = 16384;
  EXPECT_EQ(run(), (std::vector<std::string>{"skip 1", "end"}));
}

TEST_F(GrantPass, TheBudgetCannotServe_EndsThePass) {
  host.add(1, 100000, 0);
  host.add(2, 100000, 1);
  host.free = 1000;
  EXPECT_EQ(run(), (std::vector<std::string>{"wait 1", "end"}));
  EXPECT_EQ(queue.size(), 2U);  // both still want credit
}

TEST_F(GrantPass, NoRate_ParksWithItsBudgetReserved) {
  host.add(1, 100000, 0);
  host.add(2, 100000, 1);
  host.free = 20000;  // a window for one of them
  host.offers[1] = RateOffer{0, 1000};
  // 1 cannot have a rate, lowering the holders does not help: it is parked and its window
  // reserved, so 2 behind it finds no budget.
  EXPECT_EQ(run(), (std::vector<std::string>{"lower for 1 want=1000", "park 1", "wait 2", "end"}));
}

TEST_F(GrantPass, ShortOfItsWantedRate_LowersTheHoldersFirst) {
  host.add(1, 100000);
  host.offers[1] = RateOffer{400, 1000};
  host.after_lowering[1] = RateOffer{1000, 1000};
  EXPECT_EQ(run(), (std::vector<std::string>{"lower for 1 want=1000",
                                             "grant 1 limit=16384 rate=1000", "end"}));
}

TEST_F(GrantPass, LoweringThatGrowsTheBudget_ServesTheTopAgain) {
  host.add(1, 100000);
  host.offers[1] = RateOffer{400, 1000};
  host.budget_grows = true;  // once: the top is served again from the start
  EXPECT_EQ(run(), (std::vector<std::string>{"lower for 1 want=1000", "lower for 1 want=1000",
                                             "grant 1 limit=16384 rate=400", "end"}));
}

TEST_F(GrantPass, RenewalThatAddsNothingOnADeadPath_TakesOnlyTheFreeRate) {
  host.add(1, 100000);
  FakeMessage& m = host.msgs.at(1);
  m.limit = 16384;  // lapsed: nothing counted, nothing arrived since the grant
  host.free = 16384;
  host.offers[1] = RateOffer{400, 1000};
  EXPECT_EQ(run(), (std::vector<std::string>{"grant 1 limit=16384 rate=400", "end"}));
}

}  // namespace
}  // namespace rdcc::ref
