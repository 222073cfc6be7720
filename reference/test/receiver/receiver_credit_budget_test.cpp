// CreditLedger (reference/src/receiver/receiver_credit_budget.hpp): the running totals of "Receiver
// Credit Budget" stay the sums of their parts through every operation, and the derived quantities
// of a message say what the spec's words say.
#include "receiver/receiver_credit_budget.hpp"

#include <gtest/gtest.h>

#include <optional>

namespace rdcc::ref {
namespace {

TEST(MessageCredit, Covered_IsWindowAndScheduledOctetsReceived) {
  MessageCredit m;
  m.length = 100000;
  m.window = 16384;
  m.unsched_received = 8192;
  m.sched_received = 4096;
  EXPECT_EQ(m.covered(), 16384U + 4096U);
  EXPECT_EQ(m.received(), 8192U + 4096U);
  EXPECT_EQ(m.unsched_in_flight(), 8192U);
  EXPECT_EQ(m.held(), 16384U);
}

TEST(MessageCredit, Outstanding_StopsAtTheNewLimitOfACreditReturn) {
  MessageCredit m;
  m.length = 100000;
  m.limit = 65536;
  m.sched_received = 16384;
  EXPECT_EQ(m.outstanding(), 65536U - 16384U);
  EXPECT_EQ(m.restated(), 65536U - 16384U);
  m.returned = 32768;
  EXPECT_EQ(m.outstanding(), 32768U - 16384U);
  EXPECT_EQ(m.restated(), 65536U - 16384U);  // a grant at the same limit gives it back
  m.returned = 8192;                         // below what arrived: nothing held
  EXPECT_EQ(m.outstanding(), 0U);
}

TEST(MessageCredit, Lapsed_WhenNothingIsCountedBelowTheGrantLimit) {
  MessageCredit m;
  m.length = 100000;
  m.limit = 65536;
  EXPECT_TRUE(m.lapsed());
  m.accounted = 1;
  EXPECT_FALSE(m.lapsed());
  m.accounted = 0;
  m.sched_received = 65536;  // every octet the grant allowed has arrived
  EXPECT_FALSE(m.lapsed());
}

// A ledger with two associations open.
class CreditLedgerTest : public ::testing::Test {
 protected:
  CreditLedgerTest() {
    ledger.open(a);
    ledger.open(b);
  }
  CreditLedger ledger;
  AssociationCredit a;
  AssociationCredit b;
  MessageCredit m;
};

TEST_F(CreditLedgerTest, SetScheduled_KeepsMessageAssociationAndTotalInStep) {
  MessageCredit m1;
  MessageCredit m2;
  MessageCredit m3;
  ledger.set_scheduled(a, m1, 4096);
  ledger.set_scheduled(a, m2, 8192);
  ledger.set_scheduled(b, m3, 1000);
  EXPECT_EQ(a.accounted, 12288U);
  EXPECT_EQ(b.accounted, 1000U);
  EXPECT_EQ(ledger.scheduled(), 13288U);
  EXPECT_TRUE(ledger.check());
  ledger.set_scheduled(a, m1, 0);
  EXPECT_EQ(m1.accounted, 0U);
  EXPECT_EQ(a.accounted, 8192U);
  EXPECT_EQ(ledger.scheduled(), 9192U);
  EXPECT_TRUE(ledger.check());
}

TEST_F(CreditLedgerTest, Outstanding_IsScheduledPlusUnscheduled) {
  ledger.set_scheduled(a, m, 5000);
  ledger.set_unscheduled(a, m, 3000);
  EXPECT_EQ(ledger.unscheduled(), 3000U);
  EXPECT_EQ(a.unsched, 3000U);
  EXPECT_EQ(ledger.outstanding(), 8000U);
  ledger.set_unscheduled(a, m, 1000);
  EXPECT_EQ(ledger.outstanding(), 6000U);
  EXPECT_TRUE(ledger.check());
}

TEST_F(CreditLedgerTest, Settle_OnlyEverLowersTheCreditCounted) {
  m.length = 100000;
  m.limit = 40000;
  ledger.set_scheduled(a, m, m.outstanding());
  EXPECT_EQ(ledger.scheduled(), 40000U);
  m.sched_received = 10000;
  ledger.settle(a, m);
  EXPECT_EQ(ledger.scheduled(), 30000U);
  // A lapsed grant (counted 0) is not counted again by arriving octets.
  ledger.set_scheduled(a, m, 0);
  m.sched_received = 20000;
  ledger.settle(a, m);
  EXPECT_EQ(ledger.scheduled(), 0U);
  EXPECT_TRUE(ledger.check());
}

TEST_F(CreditLedgerTest, URoom_IsWhatTheOthersLeaveOfGu) {
  ledger.set_u(a, 16384);
  ledger.set_u(b, 32768);
  EXPECT_EQ(ledger.u_sum(), 49152U);
  EXPECT_EQ(ledger.u_room(65536, 0), 65536U - 49152U);      // a new association
  EXPECT_EQ(ledger.u_room(65536, 16384), 65536U - 32768U);  // a's own U is its to keep
  EXPECT_EQ(ledger.u_room(32768, 0), 0U);
  EXPECT_TRUE(ledger.check());
}

TEST_F(CreditLedgerTest, ScheduledRoom_CountsTheReserved) {
  ledger.set_scheduled(a, m, 100);
  EXPECT_EQ(ledger.scheduled_room(1000), 900U);
  EXPECT_EQ(ledger.scheduled_room(1000, 400), 500U);
  EXPECT_EQ(ledger.scheduled_room(1000, 2000), 0U);
}

TEST_F(CreditLedgerTest, Close_TakesTheAssociationsUOutOfTheTotals) {
  ledger.set_u(a, 1000);
  ledger.set_u(b, 2000);
  ledger.close(a);
  EXPECT_EQ(ledger.u_sum(), 2000U);
  EXPECT_TRUE(ledger.check());
}

TEST_F(CreditLedgerTest, Check_FindsATotalOutOfStep) {
  ledger.set_scheduled(a, m, 4096);
  EXPECT_TRUE(ledger.check());
  a.accounted = 0;  // changed behind the ledger's back
  EXPECT_FALSE(ledger.check());
}

// ---- the budget decision (CreditLedger::fit, RDCC-BUDGET-01) ----------------------------------

class BudgetFit : public CreditLedgerTest {
 protected:
  BudgetFit() {
    m.length = 1U << 20U;
    bounds.scheduled_pool = 65536;
  }
  std::optional<std::uint64_t> fit(std::uint64_t limit, bool renew = false) {
    return ledger.fit(a, m, GrantAsk{limit, post_unit, 4096, renew, least_new}, bounds);
  }
  BudgetBounds bounds;
  std::uint64_t post_unit = 0;
  std::uint64_t least_new = 0;
};

TEST_F(BudgetFit, RoomForTheWholeAsk_GrantsIt) {
  EXPECT_EQ(fit(65536), 65536U);
}

TEST_F(BudgetFit, ShortOfRoom_GrantsWholeCreditUnitsOfWhatIsLeft) {
  MessageCredit other;
  ledger.set_scheduled(b, other, 60000);  // 5536 left of G_s
  EXPECT_EQ(fit(65536), 4096U);
  bounds.reserved = 2000;  // 3536 left: not one Credit Unit
  EXPECT_EQ(fit(65536), std::nullopt);
}

TEST_F(BudgetFit, RoCEv2_GrantsWholeRdmaMessages) {
  post_unit = 16384;
  MessageCredit other;
  ledger.set_scheduled(b, other, 65536 - 40000);  // 40000 left: two RDMA messages
  EXPECT_EQ(fit(65536), 32768U);
}

TEST_F(BudgetFit, MovedUnscheduledOctetsMustFit_WhateverTheLimit) {
  m.window = 8192;  // announced, none arrived: they move into G_s with the grant
  MessageCredit other;
  ledger.set_scheduled(b, other, 60000);  // 5536 left
  EXPECT_EQ(fit(8192 + 4096), std::nullopt);
  ledger.set_scheduled(b, other, 50000);  // 15536 left: 8192 moved, 7344 for new credit
  EXPECT_EQ(fit(8192 + 16384), 8192U + 4096U);
}

TEST_F(BudgetFit, AssociationCap_BoundsItsScheduledCredit) {
  MessageCredit mine;
  ledger.set_scheduled(a, mine, 8192);
  bounds.association_cap = 16384;  // RDCC-SEC-02: 8192 more at most
  EXPECT_EQ(fit(65536), 8192U);
}

TEST_F(BudgetFit, NeverBelowTheLimitIssued_AndNothingNewMeansWait) {
  m.limit = 32768;  // lapsed: nothing counted
  MessageCredit other;
  ledger.set_scheduled(b, other, 65536 - 8192);
  EXPECT_EQ(fit(65536), std::nullopt);  // cannot restate 32768
  ledger.set_scheduled(b, other, 65536 - 32768);
  EXPECT_EQ(fit(65536), std::nullopt);  // restates it, adds nothing: not a renewal
  EXPECT_EQ(fit(65536, true), 32768U);  // a renewal may restate it
}

// docs/spec-notes.md 132: a sliver of room is not worth a grant; the whole ask, or a renewal,
// always is.
TEST_F(BudgetFit, ShortOfRoom_WaitsUntilTheRoomIsWorthAGrant) {
  least_new = 16384;
  MessageCredit other;
  ledger.set_scheduled(b, other, 65536 - 8192);  // 8192 left: two Credit Units
  EXPECT_EQ(fit(65536), std::nullopt);
  ledger.set_scheduled(b, other, 65536 - 16384);  // 16384 left
  EXPECT_EQ(fit(65536), 16384U);
  ledger.set_scheduled(b, other, 65536 - 8192);
  EXPECT_EQ(fit(8192), 8192U);  // the whole ask
  m.limit = 4096;               // lapsed: a renewal may add what there is
  EXPECT_EQ(fit(65536, true), 8192U);
}

TEST_F(CreditLedgerTest, AssociationFull_WhenLessThanAGrantIsLeftUnderTheCap) {
  MessageCredit mine;
  ledger.set_scheduled(a, mine, 60000);
  EXPECT_FALSE(CreditLedger::association_full(a, 0, 16384));  // no cap
  EXPECT_TRUE(CreditLedger::association_full(a, 65536, 16384));
  EXPECT_FALSE(CreditLedger::association_full(a, 65536, 4096));
  EXPECT_FALSE(CreditLedger::association_full(b, 65536, 16384));  // per association
}

TEST_F(BudgetFit, WithoutEnforcement_TheBudgetIsNoBound) {
  MessageCredit other;
  ledger.set_scheduled(b, other, 65536);
  bounds.enforce = false;  // the rule hook's fault (a mutant)
  EXPECT_EQ(fit(1U << 20U), 1U << 20U);
}

}  // namespace
}  // namespace rdcc::ref
