// The receiver's "Credit Allocation" (reference/src/receiver/credit_allocation.hpp): the grant
// scheduler's queue "by Traffic Class first (lower class number first) and by weight within a
// class", earlier deadlines first; the size of a grant; the grant pass, against a fake receiver
// that logs what the pass asks it to do; one sender's AIMD update and the Pacing Rates across
// the link.
#include "receiver/credit_allocation.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "receiver/receiver_credit_budget.hpp"

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

// The queue of the plain tests: its item is the Message ID.
using IdQueue = GrantQueue<std::uint64_t>;
void put(IdQueue& q, const GrantOrder& o) {
  q.insert(o, o.message);
}

TEST(GrantQueue, LowerClassFirst) {
  IdQueue q;
  put(q, msg(1, 3));
  put(q, msg(2, 0));
  put(q, msg(3, 7));
  EXPECT_EQ(q.top().message, 2U);
  q.erase(q.top());
  EXPECT_EQ(q.top().message, 1U);
  EXPECT_EQ(q.size(), 2U);
}

TEST(GrantQueue, EarlierDeadlineFirst_WithinAClassAndBeforeNone) {
  IdQueue q;
  GrantOrder none = msg(1, 2);
  GrantOrder late = msg(2, 2, 1000);
  late.no_deadline = false;
  late.deadline = 5000;
  GrantOrder early = msg(3, 2, 9999);
  early.no_deadline = false;
  early.deadline = 1000;
  put(q, none);
  put(q, late);
  put(q, early);
  std::vector<std::uint64_t> order;
  while (!q.empty()) {
    order.push_back(q.top().message);
    q.erase(q.top());
  }
  EXPECT_EQ(order, (std::vector<std::uint64_t>{3, 2, 1}));
}

TEST(GrantQueue, ClassPass_IsTheSmallestPassOfTheClass) {
  IdQueue q;
  EXPECT_EQ(q.class_pass(1), 0U);
  put(q, msg(1, 1, 700));
  put(q, msg(2, 1, 300));
  put(q, msg(3, 0, 5));
  put(q, msg(4, 2, 9));
  EXPECT_EQ(q.class_pass(1), 300U);
  EXPECT_EQ(q.class_pass(3), 0U);
}

// Served one Credit Unit at a time, two messages of weights 1 and 3 share the credit 1:3.
TEST(GrantQueue, Advance_SharesCreditInProportionToWeight) {
  IdQueue q;
  const std::map<std::uint64_t, std::uint8_t> weight{{1, 1}, {2, 3}};
  put(q, msg(1, 0));
  put(q, msg(2, 0));
  std::map<std::uint64_t, int> granted;
  for (int i = 0; i < 400; ++i) {
    GrantOrder top = q.top();
    q.erase(top);
    ++granted[top.message];
    top.pass = advance_pass(top.pass, 4096, weight.at(top.message));
    put(q, top);
  }
  EXPECT_EQ(granted[1], 100);
  EXPECT_EQ(granted[2], 300);
}

// A pass walks the queue with a cursor: what it parks stays in the queue, set aside until the
// pass ends; the cursor is always the first message in order that is not parked.
TEST(GrantQueue, Pass_ParkedMessagesAreSkippedAndStayQueued) {
  IdQueue q;
  for (std::uint64_t id = 1; id <= 4; ++id) put(q, msg(id, 0, id * 10));
  q.begin_pass();
  EXPECT_EQ(q.current(), 1U);
  q.park_current();
  EXPECT_EQ(q.current(), 2U);
  q.park_current();
  EXPECT_EQ(q.current(), 3U);
  q.erase(msg(3, 0, 30));  // served: leaves the queue under the cursor
  EXPECT_EQ(q.current(), 4U);
  q.park_current();
  EXPECT_TRUE(q.pass_done());
  std::vector<std::uint64_t> unparked;
  q.end_pass([&](std::uint64_t id) { unparked.push_back(id); });
  EXPECT_EQ(unparked, (std::vector<std::uint64_t>{1, 2, 4}));
  EXPECT_EQ(q.size(), 3U);
  EXPECT_EQ(q.top().message, 1U);
  q.begin_pass();  // the next pass sees them again
  EXPECT_EQ(q.current(), 1U);
  q.end_pass([](std::uint64_t) {});
}

TEST(GrantQueue, Pass_InsertBeforeTheCursor_IsServedNext) {
  IdQueue q;
  put(q, msg(1, 0, 10));
  put(q, msg(2, 0, 20));
  put(q, msg(3, 0, 30));
  q.begin_pass();
  q.park_current();  // 1
  EXPECT_EQ(q.current(), 2U);
  put(q, msg(4, 0, 5));  // ahead of the parked 1: the first not parked
  EXPECT_EQ(q.current(), 4U);
  q.erase(msg(4, 0, 5));
  EXPECT_EQ(q.current(), 2U);  // past the parked 1
  put(q, msg(5, 0, 40));       // behind the cursor: the cursor stays
  EXPECT_EQ(q.current(), 2U);
  q.park_current();  // 2
  EXPECT_EQ(q.current(), 3U);
  q.end_pass([](std::uint64_t) {});
}

TEST(GrantQueue, Pass_ParkedMessageErased_IsStillNamedAtTheEnd) {
  IdQueue q;
  put(q, msg(1, 0, 10));
  put(q, msg(2, 0, 20));
  q.begin_pass();
  q.park_current();        // 1
  q.erase(msg(1, 0, 10));  // re-granted during the pass
  put(q, msg(1, 0, 50));   // and queued again, behind 2
  EXPECT_EQ(q.current(), 2U);
  q.erase(msg(2, 0, 20));
  EXPECT_EQ(q.current(), 1U);  // no longer parked: served again
  q.erase(msg(1, 0, 50));
  EXPECT_TRUE(q.pass_done());
  std::vector<std::uint64_t> unparked;
  q.end_pass([&](std::uint64_t id) { unparked.push_back(id); });
  EXPECT_EQ(unparked, (std::vector<std::uint64_t>{1}));
  EXPECT_TRUE(q.empty());
}

// ---- how much and for how long ------------------------------------------------------------

TEST(GrantSize, DefaultWindow_IsOneBdpAtLeastFourCreditUnits) {
  // 10 us at 100 Gbit/s: 125,000 octets.
  EXPECT_EQ(default_window(0, microseconds(10), 100000, 4096), 125000U);
  EXPECT_EQ(default_window(0, microseconds(1), 1000, 4096), 4U * 4096);
  EXPECT_EQ(default_window(65536, microseconds(10), 100000, 4096), 65536U);  // configured
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

// ---- the grant pass ---------------------------------------------------------------------------

struct FakeMessage : MessageCredit {
  std::uint64_t id = 0;
  std::uint64_t received_at_grant = 0;
  GrantOrder order;  // its place in the queue
};

// A receiver as the grant pass sees it: a fixed window, a budget of `free` octets, a rate per
// message, and a log of what the pass did.
struct FakeHost {
  GrantQueue<FakeMessage*>& queue;
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
    queue.insert(m.order, &m);
  }
  void leave(const FakeMessage& m) { queue.erase(m.order); }

  FakeMessage& message(FakeMessage* m) { return *m; }
  std::uint64_t window(const FakeMessage&) const { return window_octets; }
  std::optional<std::uint64_t> fit(const FakeMessage& m, std::uint64_t limit, bool renew,
                                   std::uint64_t reserved) {
    if (full.count(m.id) != 0) return std::nullopt;  // its association is at its cap
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
  void park(FakeMessage& m) { log.push_back("park " + std::to_string(m.id)); }
  // A parked message that no longer wants credit leaves the queue (unwanted).
  void unpark(FakeMessage* m) {
    if (unwanted.count(m->id) != 0) leave(*m);
  }
  std::set<std::uint64_t> unwanted;
  void grant(FakeMessage& m, std::uint64_t limit, std::uint32_t rate) {
    log.push_back("grant " + std::to_string(m.id) + " limit=" + std::to_string(limit) +
                  " rate=" + std::to_string(rate));
    free -= limit - m.covered() - m.accounted;
    m.limit = limit;
    m.accounted = limit - m.covered();
    leave(m);
  }
  void end_pass() { log.emplace_back("end"); }
  std::set<std::uint64_t> full;  // messages whose association is at its cap
  [[nodiscard]] bool association_full(const FakeMessage& m) const { return full.count(m.id) != 0; }
  void set_aside(FakeMessage& m) {
    log.push_back("aside " + std::to_string(m.id));
    leave(m);
  }
};

class GrantPass : public ::testing::Test {
 protected:
  GrantQueue<FakeMessage*> queue;
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

// docs/spec-notes.md 132: a message whose association is at its cap leaves the queue, and the
// messages behind it (of other associations) are served in the same pass; one short of the
// budget G_s ends the pass.
TEST_F(GrantPass, AssociationAtItsCap_StepsAsideAndTheOthersAreServed) {
  host.add(1, 100000);
  host.add(2, 100000);
  host.full.insert(1);
  EXPECT_EQ(run(), (std::vector<std::string>{"aside 1", "grant 2 limit=16384 rate=1000", "end"}));
  EXPECT_TRUE(queue.empty());
  host.add(3, 100000);
  host.add(4, 100000);
  host.free = 0;
  EXPECT_EQ(run(), (std::vector<std::string>{"wait 3", "end"}));
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

TEST_F(GrantPass, NoRate_ParkedStaysQueued_TheMessagesBehindItAreServed) {
  host.add(1, 100000, 0);
  host.add(2, 100000, 1);
  host.add(3, 100000, 2);
  host.offers[1] = RateOffer{0, 1000};
  host.offers[3] = RateOffer{0, 1000};
  host.unwanted.insert(3);  // 3 no longer wants credit when the pass ends
  EXPECT_EQ(run(), (std::vector<std::string>{"lower for 1 want=1000", "park 1",
                                             "grant 2 limit=16384 rate=1000",
                                             "lower for 3 want=1000", "park 3", "end"}));
  ASSERT_EQ(queue.size(), 1U);
  EXPECT_EQ(queue.top().message, 1U);  // parked, still queued for the next pass
  host.offers[1] = RateOffer{1000, 1000};
  EXPECT_EQ(run(), (std::vector<std::string>{"grant 1 limit=16384 rate=1000", "end"}));
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

// ---- at what rate ------------------------------------------------------------------------

const ReceiverPolicy kAimd;  // the reference's controller

TEST(SenderRate, NoSignal_IncreasesByAlphaUpToRMax) {
  SenderRate r;
  r.rate = 1000;
  r.observe_data(4096, false, std::nullopt, microseconds(50));
  EXPECT_EQ(r.signal(), 0.0);
  r.update(kAimd, 10, 1500, 400, 0.5);
  EXPECT_EQ(r.rate, 1400);
  r.update(kAimd, 10, 1500, 400, 0.5);
  EXPECT_EQ(r.rate, 1500);  // "r_i = min(R_max_i, r_i + alpha)"
}

TEST(SenderRate, CeFraction_DecreasesMultiplicatively) {
  SenderRate r;
  r.rate = 1000;
  r.observe_data(3000, false, std::nullopt, microseconds(50));
  r.observe_data(1000, true, std::nullopt, microseconds(50));
  EXPECT_DOUBLE_EQ(r.signal(), 0.25);
  r.update(kAimd, 10, 100000, 400, 0.5);
  EXPECT_DOUBLE_EQ(r.rate, 1000 * (1 - 0.5 * 0.25));  // "r_i * (1 - beta * s_i)"
  // The interval's signals start again from none.
  EXPECT_EQ(r.signal(), 0.0);
}

TEST(SenderRate, Decrease_StartsFromTheGrantedRateAndStopsAtRMin) {
  SenderRate r;
  r.rate = 100000;
  r.granted_rate = 2000;  // the allocation gave it less than the controller's value
  r.observe_report(255);
  EXPECT_DOUBLE_EQ(r.signal(), 1.0);
  r.update(kAimd, 10, 100000, 400, 0.5);
  EXPECT_DOUBLE_EQ(r.rate, 1000);  // half the granted rate, not half of 100000
  for (int i = 0; i < 20; ++i) {
    r.observe_report(255);
    r.update(kAimd, 10, 100000, 400, 0.5);
  }
  EXPECT_DOUBLE_EQ(r.rate, 10);  // "max(R_min, ...)"
}

TEST(SenderRate, ExcessDelay_IsNormalizedToTheTargetAndCappedAtOne) {
  SenderRate r;
  r.observe_data(100, false, microseconds(75), microseconds(50));
  EXPECT_DOUBLE_EQ(r.signal(), 0.5);
  r.observe_data(100, false, microseconds(500), microseconds(50));
  EXPECT_DOUBLE_EQ(r.signal(), 1.0);
  SenderRate below;
  below.observe_data(100, false, microseconds(40), microseconds(50));
  EXPECT_EQ(below.signal(), 0.0);
}

TEST(SenderRate, Cap_IsTheRateWithinLineRateAndSuggestion) {
  SenderRate r;
  r.rate = 5000;
  const Time now = Time{} + milliseconds(1);
  const Duration lifetime = microseconds(100);
  EXPECT_EQ(r.cap(0, now, lifetime), 5000);  // no line rate stated
  EXPECT_EQ(r.cap(4000, now, lifetime), 4000);
  r.suggested_rate = 3000;  // RDCC-ALLOC-03
  r.suggested_at = now;
  EXPECT_EQ(r.cap(4000, now, lifetime), 3000);
  EXPECT_EQ(r.cap(4000, now + microseconds(401), lifetime), 4000);  // lapsed
}

TEST(SenderRate, RMax_IsLineRateOrLinkWithinTheSuggestion) {
  SenderRate r;
  r.rate = 100;  // r_i itself is no bound of R_max_i
  const Time now = Time{} + milliseconds(1);
  const Duration lifetime = microseconds(100);
  EXPECT_EQ(r.r_max(0, 100000, now, lifetime), 100000);
  EXPECT_EQ(r.r_max(25000, 100000, now, lifetime), 25000);
  r.suggested_rate = 7000;
  r.suggested_at = now;
  EXPECT_EQ(r.r_max(25000, 100000, now, lifetime), 7000);
}

TEST(RateLimits, MinRate_IsOneCreditUnitPerUpdateInterval) {
  EXPECT_DOUBLE_EQ(min_rate(4096, microseconds(10)), 4096 * 8.0 / 10);  // Mbit/s
  EXPECT_DOUBLE_EQ(min_rate(1000, Duration{0}), 8000000.0);  // the interval at least 1 ns
}

TEST(RateLimits, PayloadCapacity_LeavesThePacketHeadersTheirShare) {
  EXPECT_EQ(payload_capacity(100000, 4096, 0), 100000U);
  EXPECT_EQ(payload_capacity(100000, 4096, 64), 100000U * 4096 / 4160);
  EXPECT_EQ(payload_capacity(100000, 0, 64), 100000U);  // no Credit Unit: the whole link
  EXPECT_EQ(payload_capacity(1, 1, 1000), 1U);          // never zero
}

// ---- LinkRates: RDCC-ALLOC-01, the sum of the Pacing Rates within the link -----------------

TEST(LinkRates, Set_KeepsTheSumAndTheHolders) {
  LinkRates link(10000);
  link.set(1, 7, 0, 4000, false);
  link.set(1, 8, 0, 3000, false);
  EXPECT_EQ(link.sum(), 7000U);
  EXPECT_EQ(link.holders(), 2U);
  link.set(1, 7, 4000, 1000, false);  // lowered
  EXPECT_EQ(link.sum(), 4000U);
  link.set(1, 8, 3000, 0, false);  // released
  EXPECT_EQ(link.sum(), 1000U);
  EXPECT_EQ(link.holders(), 1U);
  EXPECT_EQ(link.headroom(0), 9000U);
  EXPECT_EQ(link.headroom(1000), 10000U);  // its own rate counts as room
}

TEST(LinkRates, FairShare_CountsHoldersQueuedAndParkedMessagesUpToTheOvercommit) {
  const ReceiverPolicy policy;
  LinkRates link(12000);
  EXPECT_EQ(link.fair_share(policy), 12000);  // nobody: the whole link
  link.set(1, 1, 0, 6000, false);
  link.enqueued(0);  // a queued message that holds no rate
  EXPECT_EQ(link.fair_share(policy), 6000);
  link.park(0);  // parked, it stays in the grant queue: counted once, as queued
  EXPECT_EQ(link.fair_share(policy), 6000);
  link.park(6000);  // a parked holder wants a share besides the one it holds
  EXPECT_EQ(link.fair_share(policy), 4000);
  link.end_pass();
  link.dequeued(0);
  EXPECT_EQ(link.fair_share(policy), 12000);
  // A queued message that gets a rate is counted once.
  link.enqueued(0);
  link.set(1, 2, 0, 3000, true);
  EXPECT_EQ(link.fair_share(policy), 6000);
  for (std::uint64_t id = 10; id < 40; ++id) link.set(2, id, 0, 1, false);
  EXPECT_EQ(link.fair_share(policy), 12000.0 / LinkRates::kOvercommit);
}

TEST(LinkRates, RateFor_IsTheSendersCapWithinShareAndHeadroom) {
  const ReceiverPolicy policy;
  LinkRates link(10000);
  EXPECT_EQ(link.rate_for(4000.7, 0, 100, policy), 4000U);  // whole Mbit/s
  EXPECT_EQ(link.rate_for(20000, 0, 100, policy), 10000U);  // the share of one: the link
  link.set(1, 1, 0, 9950, false);
  // 50 Mbit/s left, below R_min: no rate now (a grant carries a non-zero one).
  EXPECT_EQ(link.rate_for(20000, 0, 100, policy), 0U);
  EXPECT_EQ(link.rate_for(20000, 0, 40, policy), 50U);
  EXPECT_EQ(link.rate_for(0.5, 0, 0.1, policy), 0U);  // under 1 Mbit/s: none
}

// The rule hook's fault (a mutant) leaves the link's sum unchecked.
struct NoRateSum final : ReceiverPolicy {
  [[nodiscard]] bool enforce_rate_sum() const override { return false; }
};

TEST(LinkRates, RateFor_WithoutTheRuleHook_IsTheSendersCap) {
  const NoRateSum policy;
  LinkRates link(10000);
  link.set(1, 1, 0, 10000, false);
  EXPECT_EQ(link.rate_for(20000, 0, 100, policy), 20000U);
}

TEST(LinkRates, LowerHolders_OffersTheHighestAboveTheShareUntilThereIsRoom) {
  const ReceiverPolicy policy;
  LinkRates link(9000);
  link.set(1, 1, 0, 5000, false);
  link.set(2, 2, 0, 3000, false);
  link.set(3, 3, 0, 1000, false);
  link.enqueued(0);  // the message that wants a share: 4 sharing, 2250 each
  std::vector<std::string> log;
  link.lower_holders(0, 2250, policy, [&](std::uint32_t a, std::uint64_t m, std::uint32_t share) {
    log.push_back("offer " + std::to_string(a) + "/" + std::to_string(m) + " at " +
                  std::to_string(share));
    if (m == 1) return false;  // keeps its rate (e.g. not active)
    link.set(a, m, 3000, share, false);
    return true;
  });
  // 1/1 refused, 2/2 lowered to 2250: 750 free, still short; offers start again from the
  // highest, 1/1 refuses again, and 2/2 at the share is no longer above it.
  EXPECT_EQ(log, (std::vector<std::string>{"offer 1/1 at 2250", "offer 2/2 at 2250",
                                           "offer 1/1 at 2250"}));
  EXPECT_EQ(link.sum(), 5000U + 2250U + 1000U);
}

TEST(LinkRates, LowerHolders_StopsWhenTheHeadroomSuffices) {
  const ReceiverPolicy policy;
  LinkRates link(8000);
  link.set(1, 1, 0, 4000, false);
  link.set(1, 2, 0, 4000, false);
  link.enqueued(0);  // 3 sharing: 2666 each
  std::vector<std::uint64_t> offered;
  link.lower_holders(0, 2000, policy, [&](std::uint32_t a, std::uint64_t m, std::uint32_t share) {
    offered.push_back(m);
    link.set(a, m, 4000, share, false);
    return true;
  });
  // Equal rates: the higher Message ID first. One lowered leaves 1334, short of 2000; two
  // leave 2668, and the offers stop.
  EXPECT_EQ(offered, (std::vector<std::uint64_t>{2, 1}));
  EXPECT_EQ(link.sum(), 2U * 2666U);
  EXPECT_GE(link.headroom(0), 2000U);
}

}  // namespace
}  // namespace rdcc::ref
