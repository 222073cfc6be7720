// The reference receiver, rule by rule. Each test quotes the sentence it holds the receiver
// to. A harness plays the sender side with encoded messages in virtual time, and feeds the
// invariant checker with everything that crosses the wire, so every test also checks that
// the budget, grant and MSG_DONE invariants hold.
#include <gtest/gtest.h>

#include <numeric>

#include "rdcc/checker/invariants.hpp"
#include "rdcc/codec/codec.hpp"
#include "rdcc/codec/format.hpp"
#include "rdcc/codec/rocev2.hpp"
#include "rdcc/reference/receiver.hpp"
#include "receiver_harness.hpp"

namespace rdcc::ref {
namespace {

class ReceiverTest : public ::testing::Test {
 protected:
  // The receiver is held to its rules; the tests' scripted senders are faulty on purpose in
  // places (a stale Sequence Number), which the checker holds against them.
  void TearDown() override {
    for (const auto& v : h.checker().violations()) {
      if (v.party == Party::Sender) continue;
      ADD_FAILURE() << format_time(v.time) << " " << v.rule << ": " << v.detail;
    }
  }
  ReceiverHarness h;
};

// Every rule the invariant checker holds the receiver (and the well-behaved scripted senders)
// to, kept.
void expect_no_violation(ReceiverHarness& h) {
  for (const auto& v : h.checker().violations()) {
    ADD_FAILURE() << format_time(v.time) << " " << v.rule << ": " << v.detail;
  }
}

// ---- Association Establishment -----------------------------------------------------------

TEST_F(ReceiverTest, Receiver_AssocRequest_IsAnsweredWithAcceptEchoingTheNonce) {
  const auto a = h.associate(ReceiverHarness::sender(1), 0xABCDEF);
  EXPECT_EQ(a.sender_nonce, 0xABCDEFU);
  EXPECT_NE(a.header.association_id, 0U);  // "assigns a non-zero Association ID"
  EXPECT_EQ(a.header.epoch, h.cfg().epoch);
  EXPECT_EQ(a.unscheduled_limit, h.cfg().unscheduled_limit);
  EXPECT_EQ(a.start_jitter, h.cfg().start_jitter_us);
  EXPECT_EQ(a.backlog_threshold, h.cfg().backlog_threshold);
  EXPECT_EQ(a.grant_lifetime, h.cfg().grant_lifetime_us);
  EXPECT_EQ(a.credit_unit, h.cfg().credit_unit);
  EXPECT_FALSE(a.parameter_update());
}

// "A receiver MUST treat a retransmitted ASSOC_REQUEST with the same nonce as idempotent and
// return the same Association ID."
TEST_F(ReceiverTest, Receiver_RetransmittedAssocRequest_ReturnsTheSameAssociationId) {
  const auto first = h.associate(ReceiverHarness::sender(1), 77);
  const auto second = h.associate(ReceiverHarness::sender(1), 77);
  EXPECT_EQ(first.header.association_id, second.header.association_id);
  EXPECT_EQ(h.receiver().association_count(), 1U);
  const auto other = h.associate(ReceiverHarness::sender(1), 78);
  EXPECT_NE(other.header.association_id, first.header.association_id);
}

// An Update Acknowledgment is an ASSOC_REQUEST with the same nonce, but no retransmission: the
// idempotency MUST ("return the same Association ID") does not ask for an answer to it, and it
// never makes an association, whoever sends it (docs/spec-notes.md, "An Update Acknowledgment
// is not a retransmitted ASSOC_REQUEST"). A plain retransmission afterwards still gets the same
// Association ID.
TEST_F(ReceiverTest, Receiver_UpdateAcknowledgment_GetsNoAnswerAndMakesNoAssociation) {
  const Address s = ReceiverHarness::sender(1);
  const auto first = h.associate(s, 77);
  AssocRequest ack;
  ack.header.flags = flag::kUpdateAcknowledgment;
  ack.sender_nonce = 77;
  EXPECT_TRUE(h.deliver(s, ack).empty()) << "an acknowledgment of no pending update";
  ack.sender_nonce = 78;  // a nonce the receiver never accepted
  EXPECT_TRUE(h.deliver(s, ack).empty());
  EXPECT_TRUE(h.deliver(ReceiverHarness::sender(2), ack).empty());
  EXPECT_EQ(h.receiver().association_count(), 1U);
  const auto again = h.associate(s, 77);
  EXPECT_EQ(again.header.association_id, first.header.association_id);
  EXPECT_EQ(h.receiver().association_count(), 1U);
}

// "The receiver sends all messages of the association to the address and port from which the
// accepted ASSOC_REQUEST came."
TEST_F(ReceiverTest, Receiver_SendsEverythingToTheBoundAddress) {
  const Address s = ReceiverHarness::sender(3);
  const auto a = h.associate(s, 5);
  const auto out = h.deliver(s, h.request(a, 1, 8192));
  ASSERT_FALSE(out.empty());
  for (const auto& sent : out) EXPECT_EQ(sent.to, s);
}

// "Receivers MUST bound the number of associations ..., and SHOULD refuse new associations
// rather than evicting active ones." / "A receiver that cannot admit a new association
// answers with ERROR (reason ASSOC_REFUSED)."
TEST(ReceiverCaps, Receiver_AssociationCap_RefusesRatherThanEvicts) {
  auto cfg = ReceiverHarness::default_config();
  cfg.max_associations = 2;
  ReceiverHarness h(cfg);
  const auto a1 = h.associate(ReceiverHarness::sender(1), 1);
  h.associate(ReceiverHarness::sender(2), 2);
  AssocRequest req;
  req.sender_nonce = 3;
  const auto out = h.deliver(ReceiverHarness::sender(3), req);
  ASSERT_EQ(out.size(), 1U);
  const auto errors = only<ErrorMessage>(out);
  ASSERT_EQ(errors.size(), 1U);
  EXPECT_EQ(errors[0].reason, static_cast<std::uint16_t>(ReasonCode::AssocRefused));
  EXPECT_EQ(out[0].to, ReceiverHarness::sender(3));
  EXPECT_EQ(h.receiver().association_count(), 2U);
  // The existing association still works.
  EXPECT_EQ(only<CreditGrant>(h.deliver(ReceiverHarness::sender(1), h.request(a1, 1, 4096))).size(),
            1U);
}

// "The receiver MUST choose U for each association so that the sum of U over all
// associations with a non-zero U does not exceed G_u."
TEST_F(ReceiverTest, Receiver_SumOfU_NeverExceedsGu) {
  std::uint64_t sum = 0;
  for (std::uint8_t i = 1; i <= 10; ++i) {
    sum += h.associate(ReceiverHarness::sender(i), i).unscheduled_limit;
    EXPECT_LE(sum, h.cfg().unscheduled_budget);
  }
  EXPECT_EQ(sum, h.cfg().unscheduled_budget);  // 4 x 16 KiB, then U = 0
}

// ---- Credit Requests and Grants ------------------------------------------------------------

// "The receiver MUST NOT grant beyond the message length. It sets the FINAL flag in the
// grant that reaches the message length."
TEST_F(ReceiverTest, Receiver_GrantReachingTheLength_HasFinalAndNeverGoesBeyond) {
  const Address s = ReceiverHarness::sender(1);
  const auto a = h.associate(s, 1);
  auto grants = only<CreditGrant>(h.deliver(s, h.request(a, 1, 10000)));
  ASSERT_EQ(grants.size(), 1U);
  EXPECT_EQ(grants[0].grant_limit, 10000U);
  EXPECT_TRUE(grants[0].final());
  EXPECT_NE(grants[0].pacing_rate, 0U);  // "Receivers MUST issue a non-zero Pacing Rate."
}

TEST_F(ReceiverTest, Receiver_LargeMessage_IsGrantedInWindowsUpToTheLengthWithFinalOnce) {
  const Address s = ReceiverHarness::sender(1);
  const auto a = h.associate(s, 1);
  const std::uint64_t length = 1U << 20U;
  auto out = h.deliver(s, h.request(a, 1, length));
  std::uint64_t sent = 0;
  std::uint64_t last_limit = 0;
  int finals = 0;
  bool done = false;
  for (int round = 0; round < 1000 && !done; ++round) {
    for (const auto& g : only<CreditGrant>(out)) {
      EXPECT_GE(g.grant_limit, last_limit);
      EXPECT_LE(g.grant_limit, length);
      last_limit = g.grant_limit;
      finals += g.final() ? 1 : 0;
    }
    done = !only<MsgDone>(out).empty();
    if (done) break;
    ASSERT_GT(last_limit, sent) << "no credit to send with";
    out = h.send_granted(s, 1, sent, last_limit);
    sent = last_limit;
  }
  EXPECT_TRUE(done);
  EXPECT_EQ(finals, 1);
  EXPECT_EQ(last_limit, length);
}

// "sum over a of ( Granted(a) + Unsched(a) ) <= G" with many messages competing.
TEST_F(ReceiverTest, Receiver_ManyMessages_OutstandingCreditNeverExceedsTheBudget) {
  std::vector<AssocAccept> accepts;
  for (std::uint8_t i = 1; i <= 8; ++i)
    accepts.push_back(h.associate(ReceiverHarness::sender(i), i));
  // A later grant restates its message's limit (one that lowers the rate only refreshes it).
  std::map<std::uint32_t, std::uint64_t> limit;
  for (std::uint8_t i = 0; i < 8; ++i) {
    for (auto& g :
         only<CreditGrant>(h.deliver(ReceiverHarness::sender(static_cast<std::uint8_t>(i + 1)),
                                     h.request(accepts[i], 1, 1U << 20U)))) {
      limit[g.header.association_id] = std::max(limit[g.header.association_id], g.grant_limit);
    }
    EXPECT_LE(h.receiver().outstanding_credit(), h.cfg().budget);
  }
  std::uint64_t granted = 0;
  for (const auto& [assoc, l] : limit) granted += l;
  // G_s = G - G_u bounds scheduled grants: the unscheduled part stays reserved.
  EXPECT_LE(granted, h.cfg().budget - h.cfg().unscheduled_budget);
  EXPECT_GT(granted, 0U);
}

// "the receiver therefore reclaims the credit of an expired grant no earlier than Lifetime +
// 2 * D_max after it sent the grant"
TEST_F(ReceiverTest, Receiver_ExpiredGrant_IsReclaimedAfterLifetimePlus2Dmax) {
  const Address s = ReceiverHarness::sender(1);
  const auto a = h.associate(s, 1);
  ASSERT_EQ(only<CreditGrant>(h.deliver(s, h.request(a, 1, 65536))).size(), 1U);
  const auto outstanding = h.receiver().outstanding_credit();
  ASSERT_GT(outstanding, 0U);
  const Duration hold = microseconds(h.cfg().grant_lifetime_us) + h.cfg().d_max * 2;
  h.advance(hold - nanoseconds(1));
  EXPECT_EQ(h.receiver().outstanding_credit(), outstanding) << "reclaimed too early";
  h.advance(nanoseconds(1));
  EXPECT_EQ(h.receiver().outstanding_credit(), 0U);
  EXPECT_EQ(h.receiver().stats().credit_reclaimed, outstanding);
}

// "after it sent the grant", on a real host (Receiver::sent): a grant polled at t that left
// 3 ms later keeps its credit counted until 3 ms after Lifetime + 2 * D_max from t, as the
// sender may use it for the grant's whole Lifetime from when it arrived. A receiver that
// counts from its poll gives the credit to another message while the grant is still live on
// the wire (RDCC-BUDGET-01; receiver-reclaim-not-early through exec with both cores busy).
TEST(ReceiverLateSends, AGrantThatLeftLate_IsReclaimedAsMuchLater) {
  for (const bool reports : {false, true}) {
    SCOPED_TRACE(reports);
    ReceiverConfig c = ReceiverHarness::default_config();
    c.reports_sends = reports;
    ReceiverHarness h(c);
    const Address s = ReceiverHarness::sender(1);
    const auto a = h.associate(s, 1);
    ASSERT_EQ(only<CreditGrant>(h.deliver(s, h.request(a, 1, 65536))).size(), 1U);
    const auto outstanding = h.receiver().outstanding_credit();
    ASSERT_GT(outstanding, 0U);
    const Duration late = milliseconds(3);
    h.receiver().sent(h.now() + late);
    const Duration hold = microseconds(c.grant_lifetime_us) + c.d_max * 2;
    h.advance(hold + late - nanoseconds(1));
    EXPECT_EQ(h.receiver().outstanding_credit(), reports ? outstanding : 0U);
    h.advance(nanoseconds(1));
    EXPECT_EQ(h.receiver().outstanding_credit(), 0U);
    EXPECT_EQ(h.receiver().stats().credit_reclaimed, outstanding);
  }
}

// A hoarding sender gets credit back only when it asks again, and never a smaller limit.
// A grant whose every octet arrived is not hoarded: when its reclaim time comes the message
// keeps its place in the grant queue (docs/spec-notes.md, 43).
TEST(ReceiverAllocation, Receiver_ConsumedGrantAtItsReclaimTime_StaysInTheGrantQueue) {
  // G_s is one Credit Unit: the messages take turns, one grant at a time.
  auto cfg = ReceiverHarness::default_config();
  cfg.budget = 4096 + 16 * 1024;
  cfg.unscheduled_budget = std::uint64_t{16} * 1024;
  cfg.grant_window = 4096;
  ReceiverHarness h(cfg);
  const Address s = ReceiverHarness::sender(1);
  const auto a = h.associate(s, 1);
  auto granted = [](const std::vector<Sent>& out) {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> ids;  // (message, limit)
    for (const auto& g : only<CreditGrant>(out)) ids.emplace_back(g.message_id, g.grant_limit);
    return ids;
  };
  using Grants = std::vector<std::pair<std::uint64_t, std::uint64_t>>;
  EXPECT_EQ(granted(h.deliver(s, h.request(a, 1, 1U << 20U))), (Grants{{1, 4096}}));
  h.deliver(s, h.request(a, 2, 1U << 20U));
  h.deliver(s, h.request(a, 3, 1U << 20U));
  // Message 1's Credit Unit arrives: message 2's turn, and its sender hoards the credit.
  EXPECT_EQ(granted(h.data(s, 1, 0, 4096, 1)), (Grants{{2, 4096}}));
  // Both grants reach their reclaim time: message 2's credit comes back and goes to message 3.
  const Duration hold = microseconds(cfg.grant_lifetime_us) + cfg.d_max * 2;
  EXPECT_EQ(granted(h.advance(hold)), (Grants{{3, 4096}}));
  EXPECT_EQ(h.receiver().stats().credit_reclaimed, 4096U);
  // Message 1 used all its credit and asked for nothing: still its turn next.
  EXPECT_EQ(granted(h.data(s, 3, 0, 4096, 3)), (Grants{{1, 8192}}));
}

TEST_F(ReceiverTest, Receiver_AfterReclaim_ReGrantsOnlyOnANewRequestAndNeverBelowTheOldLimit) {
  const Address s = ReceiverHarness::sender(1);
  const auto a = h.associate(s, 1);
  const auto first = only<CreditGrant>(h.deliver(s, h.request(a, 1, 65536)));
  ASSERT_EQ(first.size(), 1U);
  EXPECT_TRUE(only<CreditGrant>(h.advance(milliseconds(1))).empty());
  const auto again = only<CreditGrant>(h.deliver(s, h.request(a, 1, 65536)));
  ASSERT_EQ(again.size(), 1U);
  EXPECT_GE(again[0].grant_limit, first[0].grant_limit);
}

// "the credit of a cancelled message no earlier than 2 * D_max after it sent or received the
// CANCEL"
TEST_F(ReceiverTest, Receiver_CancelledMessage_IsReclaimedAfter2Dmax) {
  const Address s = ReceiverHarness::sender(1);
  const auto a = h.associate(s, 1);
  ASSERT_EQ(only<CreditGrant>(h.deliver(s, h.request(a, 1, 65536))).size(), 1U);
  const auto outstanding = h.receiver().outstanding_credit();
  Cancel c;
  c.message_id = 1;
  c.reason = static_cast<std::uint16_t>(ReasonCode::ApplicationAbort);
  h.deliver(s, h.on_association(a, c));
  h.advance(h.cfg().d_max * 2 - nanoseconds(1));
  EXPECT_EQ(h.receiver().outstanding_credit(), outstanding);
  h.advance(nanoseconds(1));
  EXPECT_EQ(h.receiver().outstanding_credit(), 0U);
  EXPECT_EQ(h.receiver().pending_messages(), 0U);
}

// "When the receiver has received all octets of a message it sends MSG_DONE." / "a receiver
// that receives CREDIT_REQUEST for a completed message answers with MSG_DONE again."
TEST_F(ReceiverTest, Receiver_MsgDone_WhenAllOctetsArrived_AndAgainForACompletedMessage) {
  const Address s = ReceiverHarness::sender(1);
  const auto a = h.associate(s, 1);
  const auto g = only<CreditGrant>(h.deliver(s, h.request(a, 9, 12000)));
  ASSERT_EQ(g.size(), 1U);
  auto out = h.send_granted(s, 9, 0, 8192);
  EXPECT_TRUE(only<MsgDone>(out).empty());
  out = h.send_granted(s, 9, 8192, 12000);
  auto done = only<MsgDone>(out);
  ASSERT_EQ(done.size(), 1U);
  EXPECT_EQ(done[0].message_id, 9U);
  EXPECT_EQ(done[0].octets_received, 12000U);
  done = only<MsgDone>(h.deliver(s, h.request(a, 9, 12000)));
  ASSERT_EQ(done.size(), 1U);
  EXPECT_EQ(done[0].octets_received, 12000U);
  EXPECT_EQ(h.receiver().outstanding_credit(), 0U);
}

// "If the data transport retransmits octets already transmitted, those octets remain within
// the existing Grant Limit, because the receiver has not counted them as received."
TEST_F(ReceiverTest, Receiver_RetransmittedOctets_AreNotCountedTwice) {
  const Address s = ReceiverHarness::sender(1);
  const auto a = h.associate(s, 1);
  ASSERT_EQ(only<CreditGrant>(h.deliver(s, h.request(a, 1, 8192))).size(), 1U);
  h.data(s, 1, 0, 4096, 1);
  EXPECT_TRUE(only<MsgDone>(h.data(s, 1, 0, 4096, 0)).empty());  // the same octets again
  EXPECT_EQ(only<MsgDone>(h.data(s, 1, 4096, 4096, 1)).size(), 1U);
}

// ---- Unscheduled Transmission ----------------------------------------------------------------

// "The receiver releases the unscheduled reservation of a message when the announced octets
// have arrived, or when J plus the default Grant Lifetime plus 2 * D_max has elapsed after it
// received the CREDIT_REQUEST."
TEST_F(ReceiverTest, Receiver_UnscheduledReservation_IsReleasedOnArrival) {
  const Address s = ReceiverHarness::sender(1);
  const auto a = h.associate(s, 1);
  auto out = h.deliver(s, h.request(a, 1, 8192, 8192));
  EXPECT_TRUE(only<CreditGrant>(out).empty());
  EXPECT_EQ(h.receiver().outstanding_credit(), 8192U);
  h.data(s, 1, 0, 4096, 1);
  EXPECT_EQ(h.receiver().outstanding_credit(), 4096U);
  EXPECT_EQ(only<MsgDone>(h.data(s, 1, 4096, 4096, 1)).size(), 1U);
  EXPECT_EQ(h.receiver().outstanding_credit(), 0U);
}

TEST_F(ReceiverTest, Receiver_UnscheduledReservation_IsReleasedAfterJPlusLifetimePlus2Dmax) {
  const Address s = ReceiverHarness::sender(1);
  const auto a = h.associate(s, 1);
  h.deliver(s, h.request(a, 1, 8192, 8192));
  const Duration hold = microseconds(h.cfg().start_jitter_us) +
                        microseconds(h.cfg().grant_lifetime_us) + h.cfg().d_max * 2;
  h.advance(hold - nanoseconds(1));
  EXPECT_EQ(h.receiver().outstanding_credit(), 8192U);
  h.advance(nanoseconds(1));
  EXPECT_EQ(h.receiver().outstanding_credit(), 0U);
}

// The window "can only shrink": a converting request after the reservation lapsed does not
// reserve the rest of the window again. fuzz_receiver (random seed 208): with G_s taken by
// another sender's grant, the request could not be granted, and the reservation it brought back
// took the receiver's own count above G (docs/spec-notes.md, 95).
TEST(ReceiverBudget, Receiver_LapsedReservation_IsNotReservedAgainByAConvertingRequest) {
  auto cfg = ReceiverHarness::default_config();
  cfg.budget = std::uint64_t{64} * 1024;
  cfg.unscheduled_budget = std::uint64_t{16} * 1024;
  cfg.unscheduled_limit = 8 * 1024;
  cfg.grant_window = 0;  // one BDP: more than G_s
  ReceiverHarness h(cfg);
  const Address s1 = ReceiverHarness::sender(1);
  const Address s2 = ReceiverHarness::sender(2);
  const auto a = h.associate(s1, 1);
  const auto b = h.associate(s2, 2);
  h.deliver(s1, h.request(a, 2, 8192, 8192));
  h.advance(microseconds(cfg.start_jitter_us) + microseconds(cfg.grant_lifetime_us) +
            cfg.d_max * 2);
  EXPECT_EQ(h.receiver().outstanding_credit(), 0U);
  ASSERT_EQ(only<CreditGrant>(h.deliver(s2, h.request(b, 1, 1U << 20U))).size(), 1U);
  const std::uint64_t scheduled = h.receiver().outstanding_credit();
  EXPECT_EQ(scheduled, cfg.budget - cfg.unscheduled_budget);  // G_s, all of it
  EXPECT_TRUE(only<CreditGrant>(h.deliver(s1, h.request(a, 2, 8192, 1024))).empty());
  EXPECT_EQ(h.receiver().outstanding_credit(), scheduled);
  expect_no_violation(h);
}

// "A sender that converts an unscheduled message to scheduled mode sends a new CREDIT_REQUEST
// whose Unscheduled Sent field states the octets actually transmitted."
TEST_F(ReceiverTest, Receiver_ConvertedUnscheduledMessage_IsGrantedTheRemainder) {
  const Address s = ReceiverHarness::sender(1);
  const auto a = h.associate(s, 1);
  h.deliver(s, h.request(a, 1, 16384, 16384));
  h.data(s, 1, 0, 4096, 1);
  const auto g = only<CreditGrant>(h.deliver(s, h.request(a, 1, 16384, 4096)));
  ASSERT_EQ(g.size(), 1U);
  EXPECT_EQ(g[0].grant_limit, 16384U);
  EXPECT_TRUE(g[0].final());
  EXPECT_EQ(only<MsgDone>(h.send_granted(s, 1, 4096, 16384)).size(), 1U);
}

// ---- Receiver Credit Budget / Credit Allocation -------------------------------------------

// "Credit that becomes available is distributed among waiting messages by Traffic Class first
// (lower class number first)"
TEST(ReceiverAllocation, Receiver_ScarceBudget_GoesToTheLowerClassFirst) {
  auto cfg = ReceiverHarness::default_config();
  cfg.budget = 64 * 1024 + 16 * 1024;  // G_s = 64 KiB: one window at a time
  cfg.unscheduled_budget = std::uint64_t{16} * 1024;
  cfg.grant_window = std::uint64_t{64} * 1024;
  ReceiverHarness h(cfg);
  const Address s = ReceiverHarness::sender(1);
  const auto a = h.associate(s, 1);
  auto out = h.deliver(s, h.request(a, 1, 1U << 20U, 0, /*cls=*/5));
  ASSERT_EQ(only<CreditGrant>(out).size(), 1U);  // all of G_s to message 1
  h.deliver(s, h.request(a, 2, 1U << 20U, 0, /*cls=*/1));
  h.deliver(s, h.request(a, 3, 1U << 20U, 0, /*cls=*/3));
  // Message 1's data frees credit: class 1 (message 2) gets it before class 3 and 5. (Message
  // 1 is re-granted its own limit at a lower rate, to share the link: no credit in that.)
  out = h.send_granted(s, 1, 0, std::uint64_t{64} * 1024);
  std::vector<CreditGrant> grants;
  for (const auto& g : only<CreditGrant>(out)) {
    if (g.message_id != 1 || g.grant_limit > std::uint64_t{64} * 1024) grants.push_back(g);
  }
  ASSERT_FALSE(grants.empty());
  EXPECT_EQ(grants.front().message_id, 2U);
}

// "Credit that becomes available is distributed among waiting messages by Traffic Class first
// (lower class number first) and by weight within a class. A receiver SHOULD give precedence to
// messages with an earlier deadline when deadlines are present." The reference orders by class,
// then deadline, then weight (docs/spec-notes.md, "A deadline orders messages within their
// class"): a deadline in class 1 does not overtake class 0, and within a class it overtakes a
// heavier weight.
TEST(ReceiverAllocation, Receiver_DeadlineOrdersWithinAClass_ClassComesFirst) {
  auto cfg = ReceiverHarness::default_config();
  cfg.budget = 64 * 1024 + 16 * 1024;  // G_s = 64 KiB: one window at a time
  cfg.unscheduled_budget = std::uint64_t{16} * 1024;
  cfg.grant_window = std::uint64_t{64} * 1024;
  const auto first_served = [&](std::uint8_t cls2, std::uint32_t deadline2, std::uint8_t weight2,
                                std::uint8_t cls3, std::uint32_t deadline3, std::uint8_t weight3) {
    ReceiverHarness h(cfg);
    const Address s = ReceiverHarness::sender(1);
    const auto a = h.associate(s, 1);
    EXPECT_EQ(only<CreditGrant>(h.deliver(s, h.request(a, 1, 1U << 20U))).size(), 1U);
    auto r2 = h.request(a, 2, 1U << 20U, 0, cls2, weight2);
    r2.deadline = deadline2;
    h.deliver(s, r2);
    auto r3 = h.request(a, 3, 1U << 20U, 0, cls3, weight3);
    r3.deadline = deadline3;
    h.deliver(s, r3);
    for (const auto& g : only<CreditGrant>(h.send_granted(s, 1, 0, std::uint64_t{64} * 1024))) {
      if (g.message_id != 1) return g.message_id;
    }
    return std::uint64_t{0};
  };
  // Class first: message 3 (class 0, no deadline) before message 2 (class 1, deadline 100 us).
  EXPECT_EQ(first_served(1, 100, 1, 0, 0, 1), 3U);
  // Within class 0: the deadline (message 3) before the heavier weight (message 2).
  EXPECT_EQ(first_served(0, 0, 255, 0, 100, 1), 3U);
}

// "... and by weight within a class"
TEST(ReceiverAllocation, Receiver_WithinAClass_CreditFollowsTheWeights) {
  // G_s is one Credit Unit: one message holds credit at a time, and each grant goes to the
  // message the weighted round robin serves next.
  auto cfg = ReceiverHarness::default_config();
  cfg.budget = 4096 + 16 * 1024;
  cfg.unscheduled_budget = std::uint64_t{16} * 1024;
  cfg.grant_window = 4096;
  ReceiverHarness h(cfg);
  const Address s = ReceiverHarness::sender(1);
  const auto a = h.associate(s, 1);
  std::map<std::uint64_t, std::uint64_t> limit;
  std::map<std::uint64_t, int> grants;
  auto take = [&](const std::vector<Sent>& out) {
    for (const auto& g : only<CreditGrant>(out)) {
      limit[g.message_id] = g.grant_limit;
      ++grants[g.message_id];
    }
  };
  take(h.deliver(s, h.request(a, 1, 1U << 24U, 0, 2, /*weight=*/3)));
  take(h.deliver(s, h.request(a, 2, 1U << 24U, 0, 2, /*weight=*/1)));
  std::map<std::uint64_t, std::uint64_t> sent;
  for (int round = 0; round < 400; ++round) {
    bool any = false;
    for (std::uint64_t id : {1U, 2U}) {
      if (sent[id] < limit[id]) {
        const std::uint64_t from = sent[id];
        const auto n = static_cast<std::uint32_t>(limit[id] - from);
        sent[id] = limit[id];
        take(h.data(s, id, from, n, id));
        any = true;
        break;
      }
    }
    ASSERT_TRUE(any) << "no credit outstanding at round " << round;
  }
  ASSERT_GT(grants[2], 0);
  const double ratio = static_cast<double>(grants[1]) / static_cast<double>(grants[2]);
  EXPECT_NEAR(ratio, 3.0, 0.1) << grants[1] << " vs " << grants[2];
}

// "The sum of the Pacing Rates the receiver issues MUST NOT exceed the capacity of its access
// link."
// A message that arrives while another holds the whole link gets a share at once: the holder
// is re-granted its own limit at a lower rate. A cancelled holder gets no grant: its rate is
// freed when its credit is reclaimed, 2 * D_max after the CANCEL.
TEST_F(ReceiverTest, Receiver_RateHolder_IsLoweredForANewMessageButNeverOnceCancelled) {
  const Address s1 = ReceiverHarness::sender(1);
  const Address s2 = ReceiverHarness::sender(2);
  const Address s3 = ReceiverHarness::sender(3);
  const auto a1 = h.associate(s1, 1);
  const auto a2 = h.associate(s2, 2);
  const auto a3 = h.associate(s3, 3);
  const auto first = only<CreditGrant>(h.deliver(s1, h.request(a1, 1, 65536)));
  ASSERT_EQ(first.size(), 1U);
  EXPECT_EQ(first[0].pacing_rate, payload_capacity_mbps(h.cfg()));
  const auto out = only<CreditGrant>(h.deliver(s2, h.request(a2, 1, 65536)));
  ASSERT_EQ(out.size(), 2U);
  EXPECT_EQ(out[0].header.association_id,
            a1.header.association_id);  // the same limit, half the rate
  EXPECT_EQ(out[0].grant_limit, first[0].grant_limit);
  EXPECT_EQ(out[0].pacing_rate, payload_capacity_mbps(h.cfg()) / 2);
  EXPECT_EQ(out[1].header.association_id, a2.header.association_id);
  EXPECT_EQ(out[1].pacing_rate, payload_capacity_mbps(h.cfg()) / 2);
  for (const auto& [from, accept] : {std::pair{s1, a1}, std::pair{s2, a2}}) {
    Cancel c;
    c.message_id = 1;
    c.reason = static_cast<std::uint16_t>(ReasonCode::ApplicationAbort);
    h.deliver(from, h.on_association(accept, c));
  }
  // Both holders are cancelled: the third message waits for their rates, and neither is
  // re-granted.
  EXPECT_TRUE(only<CreditGrant>(h.deliver(s3, h.request(a3, 1, 65536))).empty());
  const auto later = only<CreditGrant>(h.advance(h.cfg().d_max * 2));
  ASSERT_EQ(later.size(), 1U);
  EXPECT_EQ(later[0].header.association_id, a3.header.association_id);
}

TEST_F(ReceiverTest, Receiver_PacingRatesOfLiveGrants_SumToAtMostTheLinkCapacity) {
  // The latest grant of each message states its rate (a message whose rate is lowered to make
  // room for another is re-granted at the same limit).
  std::map<std::uint32_t, std::uint32_t> rate;
  for (std::uint8_t i = 1; i <= 6; ++i) {
    const Address s = ReceiverHarness::sender(i);
    const auto a = h.associate(s, i);
    for (const auto& g : only<CreditGrant>(h.deliver(s, h.request(a, 1, 20000)))) {
      rate[g.header.association_id] = g.pacing_rate;
    }
    std::uint64_t sum = 0;
    for (const auto& [assoc, r] : rate) sum += r;
    EXPECT_LE(sum, h.cfg().link_capacity_mbps);
  }
  std::uint64_t sum = 0;
  for (const auto& [assoc, r] : rate) sum += r;
  EXPECT_EQ(rate.size(), 6U);  // every message has a rate: none waits for another to drain
  EXPECT_GT(sum, 0U);
}

// Two messages that hold credit and want more share the link in halves: each message counts
// once among those sharing, whether it holds a rate, waits in the grant queue, or both.
TEST_F(ReceiverTest, Receiver_TwoSteadySenders_AreEachGrantedHalfTheLink) {
  const Address s1 = ReceiverHarness::sender(1);
  const Address s2 = ReceiverHarness::sender(2);
  const auto a1 = h.associate(s1, 1);
  const auto a2 = h.associate(s2, 2);
  std::map<std::uint8_t, std::uint64_t> limit;
  std::map<std::uint8_t, std::uint64_t> sent;
  std::map<std::uint8_t, std::uint32_t> rate;
  auto take = [&](const std::vector<Sent>& out) {
    for (const auto& x : out) {
      if (const auto* g = std::get_if<CreditGrant>(&x.message)) {
        const std::uint8_t to = x.to == s1 ? 1 : 2;
        limit[to] = g->grant_limit;
        rate[to] = g->pacing_rate;
      }
    }
  };
  take(h.deliver(s1, h.request(a1, 1, 1U << 24U)));
  take(h.deliver(s2, h.request(a2, 1, 1U << 24U)));
  for (int round = 0; round < 200; ++round) {
    for (const std::uint8_t who : {std::uint8_t{1}, std::uint8_t{2}}) {
      if (sent[who] >= limit[who]) continue;
      const std::uint64_t from = sent[who];
      const auto n = static_cast<std::uint32_t>(std::min<std::uint64_t>(4096, limit[who] - from));
      sent[who] += n;
      take(h.data(who == 1 ? s1 : s2, 1, from, n, 1));
    }
    h.advance(nanoseconds(400));
  }
  EXPECT_EQ(rate[1], payload_capacity_mbps(h.cfg()) / 2);
  EXPECT_EQ(rate[2], payload_capacity_mbps(h.cfg()) / 2);
}

// "When the most recent SENDER_STATUS from a sender carries a non-zero Suggested Rate, the
// Pacing Rate granted to that sender MUST NOT exceed it." / "A receiver ignores a Suggested
// Rate from a SENDER_STATUS received more than four default Grant Lifetimes ago"
TEST_F(ReceiverTest, Receiver_SuggestedRate_CapsThePacingRateUntilFourLifetimesPass) {
  const Address s = ReceiverHarness::sender(1);
  const auto a = h.associate(s, 1);
  SenderStatus st;
  st.unused_credit = 1U << 20U;
  st.congestion_level = 200;
  st.suggested_rate = 12345;
  h.deliver(s, h.on_association(a, st));
  auto g = only<CreditGrant>(h.deliver(s, h.request(a, 1, 8192)));
  ASSERT_EQ(g.size(), 1U);
  EXPECT_LE(g[0].pacing_rate, 12345U);
  // Ignored after four Lifetimes: the rate recovers (additive increase, the spec's R_max_i
  // no longer capped by the suggestion).
  h.advance(microseconds(h.cfg().grant_lifetime_us) * 4 + h.cfg().base_rtt * 10);
  g = only<CreditGrant>(h.deliver(s, h.request(a, 2, 8192)));
  ASSERT_EQ(g.size(), 1U);
  EXPECT_GT(g[0].pacing_rate, 12345U);
}

// Congestion Level 0 is "none", and the final SENDER_STATUS carries it, but the level says
// nothing of the Suggested Rate: rule 3 reads "the most recent SENDER_STATUS ... carries a
// non-zero Suggested Rate", whatever its level (docs/spec-notes.md, "A SENDER_STATUS with
// Congestion Level 0 that is not the final one").
TEST_F(ReceiverTest, Receiver_SenderStatusWithLevelZero_StillCapsByItsSuggestedRate) {
  const Address s = ReceiverHarness::sender(1);
  const auto a = h.associate(s, 1);
  SenderStatus st;
  st.unused_credit = 1U << 20U;
  st.congestion_level = 0;
  st.suggested_rate = 12345;
  h.deliver(s, h.on_association(a, st));
  const auto g = only<CreditGrant>(h.deliver(s, h.request(a, 1, 8192)));
  ASSERT_EQ(g.size(), 1U);
  EXPECT_LE(g[0].pacing_rate, 12345U);
  EXPECT_NE(g[0].pacing_rate, 0U);
}

// "The receiver MUST reduce the rate it grants to a sender when it observes congestion on the
// path from that sender: ECN Congestion Experienced (CE) marks on data from that sender"
TEST_F(ReceiverTest, Receiver_CeMarkedData_ReducesTheGrantedRate) {
  const Address s = ReceiverHarness::sender(1);
  const auto a = h.associate(s, 1);
  const auto first = only<CreditGrant>(h.deliver(s, h.request(a, 1, 1U << 20U)));
  ASSERT_EQ(first.size(), 1U);
  std::uint32_t last_rate = first[0].pacing_rate;
  std::uint64_t sent = 0;
  std::uint64_t limit = first[0].grant_limit;
  for (int i = 0; i < 20 && sent < limit; ++i) {
    auto out = h.data(s, 1, sent, 4096, 1, /*ce=*/true);
    sent += 4096;
    out = h.advance(h.cfg().base_rtt);
    for (const auto& g : only<CreditGrant>(h.data(s, 1, sent, 4096, 1, true))) {
      last_rate = g.pacing_rate;
      limit = g.grant_limit;
    }
    sent += 4096;
  }
  EXPECT_LT(last_rate, first[0].pacing_rate);
}

// "An endpoint MUST ignore reports whose source address is not within the set of CRN
// addresses configured for the domain." / "An endpoint MUST NOT increase any rate or credit
// in response to a CONGESTION_REPORT."
TEST_F(ReceiverTest, Receiver_Reports_AreIgnoredFromUnconfiguredAddresses_AndNeverRaiseAnything) {
  const Address s = ReceiverHarness::sender(1);
  const auto a = h.associate(s, 1);
  ASSERT_EQ(only<CreditGrant>(h.deliver(s, h.request(a, 1, 1U << 20U))).size(), 1U);
  const auto before = h.receiver().outstanding_credit();
  CongestionReport r;
  r.direction = 1;
  r.congestion_degree = 255;
  r.source_address = s.ip;
  r.destination_address = h.cfg().local.ip;
  auto out = h.deliver(Address::v4(192, 0, 2, 66, 9), r);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(h.receiver().stats().reports_ignored, 1U);
  out = h.deliver(h.cfg().crn_addresses[0], r);
  EXPECT_TRUE(only<CreditGrant>(out).empty());
  EXPECT_EQ(h.receiver().stats().reports_received, 1U);
  EXPECT_LE(h.receiver().outstanding_credit(), before);
}

// A CONGESTION_REPORT's Suggested Rate is optional information: "A CONGESTION_REPORT can only
// cause a receiver to reduce the rate it grants", and the rate controller's input is the
// Congestion Degree. The reference takes nothing from the Suggested Rate (docs/spec-notes.md,
// "What endpoints do with a report's Suggested Rate"): two runs that differ only in it, one far
// below the granted rate and one far above the link, grant exactly the same.
TEST(ReceiverReports, Receiver_ReportSuggestedRate_ChangesNothingTheDegreeDoesNot) {
  const auto run = [](std::uint32_t suggested) {
    ReceiverHarness h;
    const Address s = ReceiverHarness::sender(1);
    const auto a = h.associate(s, 1);
    std::vector<std::pair<std::uint64_t, std::uint32_t>> grants;
    const auto take = [&](const std::vector<Sent>& out) {
      for (const auto& g : only<CreditGrant>(out))
        grants.emplace_back(g.grant_limit, g.pacing_rate);
    };
    take(h.deliver(s, h.request(a, 1, 1U << 20U)));
    CongestionReport r;
    r.direction = 1;
    r.congestion_degree = 64;
    r.suggested_rate = suggested;
    r.source_address = s.ip;
    r.destination_address = h.cfg().local.ip;
    take(h.deliver(h.cfg().crn_addresses[0], r));
    std::uint64_t sent = 0;
    for (int i = 0; i < 8; ++i, sent += 4096) {
      take(h.data(s, 1, sent, 4096, 1));
      take(h.advance(h.cfg().base_rtt));
    }
    EXPECT_TRUE(h.checker().ok());
    return grants;
  };
  const auto low = run(1);
  ASSERT_GE(low.size(), 1U);
  EXPECT_EQ(low, run(4000000));
}

// "The receiver MUST NOT grant credit to an association whose Epoch or Association ID it does
// not recognize." / "A receiver that receives a CREDIT_REQUEST for an unknown association
// replies with ERROR (UNKNOWN_ASSOCIATION)"
TEST_F(ReceiverTest, Receiver_RequestForAnUnknownAssociationOrEpoch_GetsUnknownAssociation) {
  const Address s = ReceiverHarness::sender(1);
  auto a = h.associate(s, 1);
  auto wrong_epoch = h.request(a, 1, 4096);
  wrong_epoch.header.epoch = static_cast<std::uint16_t>(a.header.epoch + 1);
  auto wrong_id = h.request(a, 2, 4096);
  wrong_id.header.association_id = a.header.association_id ^ 0x1000U;
  for (const auto& r : {wrong_epoch, wrong_id}) {
    const auto out = h.deliver(s, r);
    ASSERT_EQ(out.size(), 1U);
    const auto e = only<ErrorMessage>(out);
    ASSERT_EQ(e.size(), 1U);
    EXPECT_EQ(e[0].reason, static_cast<std::uint16_t>(ReasonCode::UnknownAssociation));
    EXPECT_EQ(e[0].header.association_id,
              r.header.association_id);  // "carrying its Association ID"
  }
  EXPECT_EQ(h.receiver().stats().grants_sent, 0U);
}

// "An endpoint MUST discard a message of an association whose Sequence Number is not newer,
// in serial number arithmetic, than the newest one it has already processed"
TEST_F(ReceiverTest, Receiver_StaleDuplicateAndHalfSpaceSequenceNumbers_AreDiscarded) {
  const Address s = ReceiverHarness::sender(1);
  const auto a = h.associate(s, 1);
  auto r = h.request(a, 1, 4096);
  r.header.sequence_number = 0xFFFFFFF0U;
  ASSERT_EQ(only<CreditGrant>(h.deliver(s, r)).size(), 1U);
  auto dup = h.request(a, 2, 4096);
  dup.header.sequence_number = 0xFFFFFFF0U;  // duplicate
  EXPECT_TRUE(h.deliver(s, dup).empty());
  dup.header.sequence_number = 0xFFFFFFE0U;  // older
  EXPECT_TRUE(h.deliver(s, dup).empty());
  dup.header.sequence_number = 0x7FFFFFF0U;  // exactly 2^31 apart: not newer
  EXPECT_TRUE(h.deliver(s, dup).empty());
  EXPECT_EQ(h.receiver().stats().stale_discarded, 3U);
  auto retransmission = h.request(a, 1, 4096);
  retransmission.header.sequence_number = 5;  // newer across the wrap: processed
  h.deliver(s, retransmission);
  EXPECT_EQ(h.receiver().stats().stale_discarded, 3U);
  EXPECT_EQ(h.receiver().stats().credit_requests_received, 2U);
}

// ---- Error Handling and Recovery -----------------------------------------------------------

// "Data received for a message beyond its Grant Limit and outside its unscheduled window
// indicates a misbehaving sender. The receiver MAY discard such data, MUST NOT grant further
// credit to the association for that message, and SHOULD log the event."
TEST_F(ReceiverTest, Receiver_DataBeyondTheGrant_StopsGrantingThatMessageAndIsLogged) {
  auto cfg = ReceiverHarness::default_config();
  const Address s = ReceiverHarness::sender(1);
  const auto a = h.associate(s, 1);
  const auto g = only<CreditGrant>(h.deliver(s, h.request(a, 1, 1U << 20U)));
  ASSERT_EQ(g.size(), 1U);
  const std::uint64_t limit = g[0].grant_limit;
  ASSERT_LT(limit, 1U << 20U);
  const auto beyond = h.data(s, 1, limit, 4096, 0);  // past the grant, ahead of the rest
  EXPECT_EQ(h.receiver().stats().misbehaving_data_octets, 4096U);
  EXPECT_EQ(h.events().count("misbehaving_sender"), 1U);
  EXPECT_TRUE(only<CreditGrant>(h.advance(milliseconds(5))).empty());
  EXPECT_TRUE(only<CreditGrant>(h.deliver(s, h.request(a, 1, 1U << 20U))).empty());
  (void)beyond;
}

// "MUST NOT grant further credit to the association for that message": the message, not the
// association (docs/spec-notes.md, "The misbehaving sender's penalty is per message"). The
// association's other messages are still served; a receiver that stopped serving them too
// would break no rule either, so the suite demands neither.
TEST_F(ReceiverTest, Receiver_DataBeyondTheGrant_OtherMessagesOfTheAssociationAreStillGranted) {
  const Address s = ReceiverHarness::sender(1);
  const auto a = h.associate(s, 1);
  const auto g = only<CreditGrant>(h.deliver(s, h.request(a, 1, 1U << 20U)));
  ASSERT_EQ(g.size(), 1U);
  (void)h.data(s, 1, g[0].grant_limit, 4096, 0);  // past the grant: misbehaving
  ASSERT_EQ(h.events().count("misbehaving_sender"), 1U);
  // Message 1 keeps the link's rate until its credit is reclaimed (Lifetime + 2 * D_max), so
  // message 2 may wait that long for a rate of its own.
  auto out = h.deliver(s, h.request(a, 2, 8192));
  const auto later = h.advance(milliseconds(5));
  out.insert(out.end(), later.begin(), later.end());
  const auto grants = only<CreditGrant>(out);
  ASSERT_EQ(grants.size(), 1U);
  EXPECT_EQ(grants[0].message_id, 2U);
  EXPECT_EQ(grants[0].grant_limit, 8192U);
}

// "Messages carrying an unknown Version MUST be discarded." / "A message whose Length field is
// smaller than the size defined for its Type, or larger than the UDP payload, MUST be
// discarded."
TEST_F(ReceiverTest, Receiver_BadVersionAndBadLength_AreDiscardedWithoutReply) {
  const Address s = ReceiverHarness::sender(1);
  const auto a = h.associate(s, 1);
  const Message req = h.request(a, 1, 4096);
  std::vector<std::byte> wire(encoded_size(req));
  ASSERT_TRUE(encode(req, wire));
  auto bad_version = wire;
  bad_version[0] = std::byte{0x20};
  EXPECT_TRUE(h.deliver_raw(s, bad_version).empty());
  auto short_length = wire;
  short_length[3] = std::byte{55};
  EXPECT_TRUE(h.deliver_raw(s, short_length).empty());
  EXPECT_TRUE(h.deliver_raw(s, std::span(wire).first(40)).empty());
  EXPECT_EQ(h.receiver().stats().malformed_discarded, 3U);
  EXPECT_EQ(h.receiver().stats().grants_sent, 0U);
}

// "Messages with an unknown Type MUST be discarded; if the message belongs to an established
// association, the receiver MAY reply with ERROR (UNSUPPORTED_TYPE) to the address bound to
// that association, and it MUST NOT reply otherwise."
TEST_F(ReceiverTest, Receiver_UnknownType_RepliesOnlyWithinAnEstablishedAssociation) {
  const Address s = ReceiverHarness::sender(1);
  const auto a = h.associate(s, 1);
  std::vector<std::byte> wire(16);
  wire[0] = std::byte{0x10};
  wire[1] = std::byte{0x42};
  wire[3] = std::byte{16};
  const auto put32 = [&](std::size_t at, std::uint32_t v) {
    for (std::size_t i = 0; i < 4; ++i) wire[at + i] = static_cast<std::byte>(v >> (24 - 8 * i));
  };
  put32(4, a.header.association_id);
  wire[8] = static_cast<std::byte>(a.header.epoch >> 8U);
  wire[9] = static_cast<std::byte>(a.header.epoch & 0xFFU);
  // Not before its peer has sent the association a message: the ERROR (28 octets) would be
  // larger than what came (docs/spec-notes.md, "Parameter Updates go to a peer that has
  // answered").
  EXPECT_TRUE(h.deliver_raw(s, wire).empty());
  h.deliver(s, h.request(a, 1, 4096));
  put32(12, 100);  // a Sequence Number newer than the request's
  auto out = h.deliver_raw(s, wire);
  ASSERT_EQ(out.size(), 1U);
  EXPECT_EQ(out[0].to, s);
  EXPECT_EQ(only<ErrorMessage>(out).at(0).reason,
            static_cast<std::uint16_t>(ReasonCode::UnsupportedType));
  // From another address, or naming no association: no reply.
  EXPECT_TRUE(h.deliver_raw(ReceiverHarness::sender(2), wire).empty());
  put32(4, 0xDEADBEEF);
  EXPECT_TRUE(h.deliver_raw(s, wire).empty());
  EXPECT_TRUE(h.deliver_raw(s, std::span(wire).first(8)).empty());
}

// "A receiver that does not support the Binding Kind of a request answers with ERROR
// (UNSUPPORTED_BINDING) for that message."
TEST_F(ReceiverTest, Receiver_UnsupportedBindingAndTooLargeMessages_GetTheirErrors) {
  const Address s = ReceiverHarness::sender(1);
  const auto a = h.associate(s, 1);
  auto r = h.request(a, 1, 4096);
  r.binding_kind = 0;  // Reserved
  auto e = only<ErrorMessage>(h.deliver(s, r));
  ASSERT_EQ(e.size(), 1U);
  EXPECT_EQ(e[0].reason, static_cast<std::uint16_t>(ReasonCode::UnsupportedBinding));
  EXPECT_EQ(e[0].message_id, 1U);
  auto big = h.request(a, 2, h.cfg().max_message_length + 1);
  e = only<ErrorMessage>(h.deliver(s, big));
  ASSERT_EQ(e.size(), 1U);
  EXPECT_EQ(e[0].reason, static_cast<std::uint16_t>(ReasonCode::MessageTooLarge));
}

// "Receivers MUST bound the number of associations and of pending messages"
TEST(ReceiverCaps, Receiver_PendingMessageCap_AnswersBudgetExhaustedAndKeepsTheRest) {
  auto cfg = ReceiverHarness::default_config();
  cfg.max_pending_per_association = 3;
  ReceiverHarness h(cfg);
  const Address s = ReceiverHarness::sender(1);
  const auto a = h.associate(s, 1);
  for (std::uint64_t id = 1; id <= 3; ++id) h.deliver(s, h.request(a, id, 1U << 20U));
  const auto e = only<ErrorMessage>(h.deliver(s, h.request(a, 4, 1U << 20U)));
  ASSERT_EQ(e.size(), 1U);
  EXPECT_EQ(e[0].reason, static_cast<std::uint16_t>(ReasonCode::BudgetExhausted));
  EXPECT_EQ(h.receiver().pending_messages(), 3U);
}

// "A receiver MAY remove an association that has carried no traffic for a locally configured
// idle time ...; it reclaims all credit of that association when doing so."
TEST_F(ReceiverTest, Receiver_IdleAssociation_IsRemovedWithItsCreditReclaimed) {
  const Address s = ReceiverHarness::sender(1);
  const auto a = h.associate(s, 1);
  h.deliver(s, h.request(a, 1, 1U << 20U));
  h.advance(h.cfg().idle_timeout + h.cfg().idle_timeout / 4);
  EXPECT_EQ(h.receiver().association_count(), 0U);
  EXPECT_EQ(h.receiver().outstanding_credit(), 0U);
  const auto e = only<ErrorMessage>(h.deliver(s, h.request(a, 2, 4096)));
  ASSERT_EQ(e.size(), 1U);
  EXPECT_EQ(e[0].reason, static_cast<std::uint16_t>(ReasonCode::UnknownAssociation));
}

// "a receiver that observes a loss rate of unscheduled data above a configured threshold
// (RECOMMENDED: one percent over one second) MUST set U to zero for all associations until
// the loss rate falls below one tenth of the threshold."
TEST_F(ReceiverTest, Receiver_UnscheduledLoss_TripsTheCircuitBreakerAndUpdatesU) {
  const Address s = ReceiverHarness::sender(1);
  const auto a = h.associate(s, 1);
  ASSERT_GT(a.unscheduled_limit, 0U);
  h.deliver(s, h.request(a, 1, 8192, 8192));  // announced, never arrives
  auto out = h.advance(seconds(1));
  const auto updates = only<AssocAccept>(out);
  ASSERT_GE(updates.size(), 1U);
  EXPECT_TRUE(updates[0].parameter_update());
  EXPECT_EQ(updates[0].unscheduled_limit, 0U);
  EXPECT_EQ(h.receiver().stats().circuit_breaker_trips, 1U);
  // "the receiver retransmits the update with exponential backoff until it is acknowledged"
  out = h.advance(milliseconds(4));
  EXPECT_GE(only<AssocAccept>(out).size(), 2U);
  AssocRequest ack;
  ack.sender_nonce = 1;
  ack.header.flags = flag::kUpdateAcknowledgment;
  h.deliver(s, ack);
  EXPECT_TRUE(only<AssocAccept>(h.advance(milliseconds(100))).empty());
}

// "Until then, the sender may still act on the old parameters, so the receiver accounts for
// it with the larger of the old and new U." (Association Establishment) When the circuit
// breaker clears, the senders that never acknowledged the update to U = 0 may still act on
// their old U: the U given back must leave room for it (docs/spec-notes.md, 73).
TEST_F(ReceiverTest, Receiver_CircuitBreakerClears_OldUOfAnUnacknowledgedUpdateStillCounts) {
  // Per association, the U values its sender may act on: the one it acknowledged (or was
  // accepted with) and every one sent since.
  std::map<std::uint32_t, std::vector<std::uint32_t>> may_use;
  const auto watch = [&](const std::vector<Sent>& out) {
    for (const auto& accept : only<AssocAccept>(out)) {
      may_use[accept.header.association_id].push_back(accept.unscheduled_limit);
    }
  };
  const auto acknowledge = [&](const Address& s, std::uint64_t nonce, std::uint32_t id) {
    AssocRequest ack;
    ack.sender_nonce = nonce;
    ack.header.flags = flag::kUpdateAcknowledgment;
    watch(h.deliver(s, ack));
    may_use[id] = {may_use[id].back()};
  };
  std::vector<AssocAccept> accepts;
  for (std::uint8_t n = 1; n <= 4; ++n) {
    accepts.push_back(h.associate(ReceiverHarness::sender(n), n));
    may_use[accepts.back().header.association_id] = {accepts.back().unscheduled_limit};
  }
  std::uint64_t sum = 0;
  for (const auto& a : accepts) sum += a.unscheduled_limit;
  ASSERT_EQ(sum, h.cfg().unscheduled_budget);  // G_u is all given out
  watch(h.deliver(ReceiverHarness::sender(1), h.request(accepts[0], 1, 8192, 8192)));  // lost
  watch(h.advance(seconds(1)));
  ASSERT_EQ(h.receiver().stats().circuit_breaker_trips, 1U);
  // No sender acknowledges U = 0 yet; four more associations arrive meanwhile (U = 0).
  for (std::uint8_t n = 5; n <= 8; ++n) {
    accepts.push_back(h.associate(ReceiverHarness::sender(n), n));
    EXPECT_EQ(accepts.back().unscheduled_limit, 0U);
    may_use[accepts.back().header.association_id] = {0};
  }
  watch(h.advance(seconds(1)));  // no loss in this second: the breaker clears
  std::uint32_t given_back = 0;
  std::uint64_t worst = 0;
  for (const auto& [id, values] : may_use) {
    given_back = std::max(given_back, values.back());
    worst += *std::max_element(values.begin(), values.end());
  }
  EXPECT_GT(given_back, 0U);
  EXPECT_LE(worst, h.cfg().unscheduled_budget);
  // Once every sender has acknowledged, what they may use is what is counted.
  for (std::uint8_t n = 1; n <= 8; ++n) {
    acknowledge(ReceiverHarness::sender(n), n, accepts[n - 1U].header.association_id);
  }
  worst = 0;
  for (const auto& [id, values] : may_use) worst += values.back();
  EXPECT_LE(worst, h.cfg().unscheduled_budget);
}

// Pacing Rates count message octets and leave the headers' share of the link (docs/spec-notes.md,
// 72): at most payload_capacity_mbps in all. Sixteen messages share it in whole Mbit/s
// (98,556 / 16 = 6,159 each); the 12 Mbit/s left over is no rate for a seventeenth message,
// which waits instead of crawling at it.
TEST(ReceiverRates, SeventeenMessages_ShareThePayloadCapacityAndTheCrumbsGoToNobody) {
  ReceiverConfig cfg = ReceiverHarness::default_config();
  cfg.budget = 16U << 20U;
  cfg.grant_window = std::uint64_t{64} * 1024;
  ReceiverHarness h(cfg);
  const Address s = ReceiverHarness::sender(1);
  const auto a = h.associate(s, 1);
  std::map<std::uint64_t, std::uint32_t> rate;  // latest Pacing Rate per message
  for (std::uint64_t id = 1; id <= 17; ++id) {
    for (const auto& g : only<CreditGrant>(h.deliver(s, h.request(a, id, 1U << 20U)))) {
      rate[g.message_id] = g.pacing_rate;
    }
  }
  const std::uint32_t capacity = payload_capacity_mbps(cfg);
  EXPECT_EQ(capacity, 100000U * 4096U / (4096U + 60U));
  std::uint64_t sum = 0;
  for (const auto& [id, r] : rate) sum += r;
  EXPECT_LE(sum, capacity);
  EXPECT_EQ(rate.size(), 16U);
  for (const auto& [id, r] : rate) EXPECT_EQ(r, capacity / 16) << "message " << id;
  EXPECT_TRUE(h.checker().ok());
}

// ---- Transport Bindings: RoCEv2 ------------------------------------------------------------

// Message 1 of 8192 octets on queue pair 0x123 (PSN 5), two RDMA messages of 4096 octets.
CreditRequest rocev2_request(ReceiverHarness& h, const AssocAccept& a) {
  auto r = h.request(a, 1, 8192);
  r.binding_kind = static_cast<std::uint8_t>(BindingKind::RoCEv2);
  r.binding_value = *pack_rocev2({0x123, 5, 2});
  return r;
}

// "The receiver MUST be able to count the payload octets received on the queue pair"
TEST_F(ReceiverTest, Receiver_Rocev2Binding_CountsOctetsPerQueuePair) {
  const Address s = ReceiverHarness::sender(1);
  const auto a = h.associate(s, 1);
  const auto r = rocev2_request(h, a);
  ASSERT_EQ(only<CreditGrant>(h.deliver(s, r)).size(), 1U);
  DataObservation d;
  d.from = s;
  d.binding = BindingKind::RoCEv2;
  d.key = 0x123;
  d.octets = 4096;
  h.checker().on_data_delivered(h.cfg().local, s, 1, 4096, h.now());
  h.receiver().on_data(d, h.now());
  EXPECT_TRUE(only<MsgDone>(h.drain()).empty());
  h.checker().on_data_delivered(h.cfg().local, s, 1, 4096, h.now());
  h.receiver().on_data(d, h.now());
  EXPECT_EQ(only<MsgDone>(h.drain()).size(), 1U);
}

// A RoCEv2 message's grants end on its post units (RDMA messages); a cap on the association's
// credit (here the Backlog Threshold, 7982) below the post unit that follows one Credit Unit
// (5447: the second post unit ends at 8192) leaves room for one post unit only. One post unit is
// worth a grant: the message is granted 4096 octets, not kept waiting for good with an ERROR
// (BUDGET_EXHAUSTED) and nothing more (random variant 127:113 of receiver-rocev2-queue-pair-count).
TEST(ReceiverBudget,
     Receiver_Rocev2MessageUnderACapBelowOneCreditUnitsPostUnit_IsGrantedAPostUnit) {
  ReceiverConfig cfg = ReceiverHarness::default_config();
  cfg.credit_unit = 5447;
  cfg.backlog_threshold = 7982;
  cfg.grant_window = 5447;
  ReceiverHarness h(cfg);
  const Address s = ReceiverHarness::sender(1);
  const auto a = h.associate(s, 1);
  const auto r = rocev2_request(h, a);
  const auto g = only<CreditGrant>(h.deliver(s, r));
  ASSERT_EQ(g.size(), 1U);
  EXPECT_EQ(g[0].grant_limit, 4096U);
}

// Found by fuzz_receiver (fuzz/regressions/fuzz_receiver/early-data-of-another-binding): octets
// that precede their request are kept per binding, so opaque data whose message identifier
// equals a queue pair number is never credited to a RoCEv2 message on that queue pair.
TEST_F(ReceiverTest, Receiver_EarlyDataOfTheOtherBinding_IsNotCreditedToARocev2Message) {
  const Address s = ReceiverHarness::sender(1);
  const auto a = h.associate(s, 1);
  EXPECT_TRUE(h.data(s, 0x123, 0, 4096, 0x123).empty());  // opaque, identifier 0x123
  auto r = h.request(a, 1, 4096);
  r.binding_kind = static_cast<std::uint8_t>(BindingKind::RoCEv2);
  r.binding_value = *pack_rocev2({0x123, 5, 1});
  const auto out = h.deliver(s, r);
  EXPECT_TRUE(only<MsgDone>(out).empty()) << "the opaque octets counted for the RoCEv2 message";
  EXPECT_EQ(only<CreditGrant>(out).size(), 1U);
}

// Found by fuzz_receiver (fuzz/regressions/fuzz_receiver/request-after-cancel): "When the
// receiver has received all octets of a message it sends MSG_DONE." A cancelled message never
// completed, so a request for it that arrives after its credit was reclaimed (a duplicate the
// network delayed past the CANCEL) gets no MSG_DONE.
TEST_F(ReceiverTest, Receiver_RequestAfterCancelReclaimed_GetsNoMsgDone) {
  const Address s = ReceiverHarness::sender(1);
  const auto a = h.associate(s, 1);
  const auto r = h.request(a, 1, 32768);
  ASSERT_EQ(only<CreditGrant>(h.deliver(s, r)).size(), 1U);
  Cancel c;
  c.message_id = 1;
  c.reason = static_cast<std::uint16_t>(ReasonCode::ApplicationAbort);
  EXPECT_TRUE(h.deliver(s, h.on_association(a, c)).empty());
  h.advance(h.cfg().d_max * 2 + microseconds(1));  // the cancelled message's credit is reclaimed
  auto again = r;
  again.header.sequence_number = h.on_association(a, Cancel{}).header.sequence_number;
  const auto out = h.deliver(s, again);
  EXPECT_TRUE(only<MsgDone>(out).empty()) << "MSG_DONE for a message that never completed";
  EXPECT_TRUE(only<CreditGrant>(out).empty());
}

// "A sender that will not use credit it holds SHOULD return it with CREDIT_RETURN, which states
// the offset beyond which the sender will not transmit." The credit beyond New Limit is free
// until the next grant: data arriving later (even none, as in the fuzz finding
// receiver-budget-exceeded-after-cancel) must not count it again, or the sum of Granted +
// Unsched goes above G once the freed budget has been granted to another message.
TEST_F(ReceiverTest, Receiver_CreditReturn_CreditBeyondNewLimitIsNotCountedAgainWhenDataArrives) {
  const Address s = ReceiverHarness::sender(1);
  const auto a = h.associate(s, 1);
  const auto g = only<CreditGrant>(h.deliver(s, h.request(a, 1, 65536)));
  ASSERT_EQ(g.size(), 1U);
  ASSERT_GE(g[0].grant_limit, 16384U);
  h.send_granted(s, 1, 0, 4096);
  h.advance(h.cfg().d_max * 2);  // the return cannot have crossed the grant
  CreditReturn r;
  r.message_id = 1;
  r.new_limit = 8192;
  h.deliver(s, h.on_association(a, r));
  EXPECT_EQ(h.receiver().outstanding_credit(), 4096U);
  h.data(s, 1, 4096, 0, 1);  // no octets: nothing changes
  EXPECT_EQ(h.receiver().outstanding_credit(), 4096U);
  Cancel c;
  c.message_id = 1;
  c.reason = static_cast<std::uint16_t>(ReasonCode::ApplicationAbort);
  h.deliver(s, h.on_association(a, c));
  // The freed budget goes to another sender's message, up to G.
  const Address s2 = ReceiverHarness::sender(2);
  const auto a2 = h.associate(s2, 2);
  h.deliver(s2, h.request(a2, 7, 4 * h.cfg().budget));
  EXPECT_LE(h.receiver().outstanding_credit(), h.cfg().budget);
  h.data(s, 1, 4096, 4096, 1);  // the returned message's last octets below New Limit
  EXPECT_LE(h.receiver().outstanding_credit(), h.cfg().budget);
  h.data(s, 1, 8192, 0, 1);
  EXPECT_LE(h.receiver().outstanding_credit(), h.cfg().budget);
  h.advance(h.cfg().d_max * 2 + microseconds(1));
  EXPECT_LE(h.receiver().outstanding_credit(), h.cfg().budget);
}

// After a CREDIT_RETURN the next grant gives back the right to send up to its own limit, and
// the receiver counts that credit again.
TEST_F(ReceiverTest, Receiver_CreditReturn_ANewGrantCountsItsWholeLimitAgain) {
  const Address s = ReceiverHarness::sender(1);
  const auto a = h.associate(s, 1);
  ASSERT_EQ(only<CreditGrant>(h.deliver(s, h.request(a, 1, 65536))).size(), 1U);
  h.advance(h.cfg().d_max * 2);  // the return cannot have crossed the grant
  CreditReturn r;
  r.message_id = 1;
  r.new_limit = 0;
  h.deliver(s, h.on_association(a, r));
  EXPECT_EQ(h.receiver().outstanding_credit(), 0U);
  const auto g = only<CreditGrant>(h.deliver(s, h.request(a, 1, 65536)));
  ASSERT_EQ(g.size(), 1U);
  EXPECT_EQ(h.receiver().outstanding_credit(), g[0].grant_limit);
}

// A CREDIT_RETURN that arrives within 2 * D_max of the message's latest grant may have left the
// sender before that grant reached it: the sender may hold and use the grant's credit, so the
// receiver keeps counting it until the grant's reclaim; the message is served no more until it
// asks again (docs/spec-notes.md 187). Found by receiver-rates-within-link with random variants:
// the credit of a return that crossed a grant went to another message beyond G.
TEST_F(ReceiverTest, Receiver_CreditReturnThatMayHaveCrossedTheGrant_KeepsItsCreditUntilReclaim) {
  const Address s = ReceiverHarness::sender(1);
  const auto a = h.associate(s, 1);
  const auto g = only<CreditGrant>(h.deliver(s, h.request(a, 1, 65536)));
  ASSERT_EQ(g.size(), 1U);
  CreditReturn r;
  r.message_id = 1;
  r.new_limit = 0;
  EXPECT_TRUE(only<CreditGrant>(h.deliver(s, h.on_association(a, r))).empty());
  EXPECT_EQ(h.receiver().outstanding_credit(), g[0].grant_limit);
  // Another sender asks for all of G: it gets only what the crossed grant leaves.
  const Address s2 = ReceiverHarness::sender(2);
  const auto a2 = h.associate(s2, 2);
  h.deliver(s2, h.request(a2, 7, 4 * h.cfg().budget));
  EXPECT_LE(h.receiver().outstanding_credit(), h.cfg().budget);
  // After the grant's reclaim the credit is free again.
  h.advance(microseconds(h.cfg().grant_lifetime_us) * 4 + h.cfg().d_max * 2);
  EXPECT_LE(h.receiver().outstanding_credit(), h.cfg().budget);
}

// "the receiver then reclaims the outstanding credit of the message after the reclamation
// delay": counted from the first CANCEL. A sender that repeats CANCEL with fresh sequence
// numbers must not push the reclamation out for ever.
TEST_F(ReceiverTest, Receiver_RepeatedCancel_DoesNotPostponeTheReclamation) {
  const Address s = ReceiverHarness::sender(1);
  const auto a = h.associate(s, 1);
  ASSERT_EQ(only<CreditGrant>(h.deliver(s, h.request(a, 1, 65536))).size(), 1U);
  Cancel c;
  c.message_id = 1;
  c.reason = static_cast<std::uint16_t>(ReasonCode::ApplicationAbort);
  h.deliver(s, h.on_association(a, c));
  for (int i = 0; i < 4; ++i) {
    h.advance(h.cfg().d_max / 2);
    h.deliver(s, h.on_association(a, c));
  }
  EXPECT_EQ(h.receiver().outstanding_credit(), 0U);
  EXPECT_EQ(h.receiver().pending_messages(), 0U);
}

// Data that precedes its CREDIT_REQUEST is credited only within the unscheduled window the
// request announces: scheduled octets cannot precede their own request, so octets beyond the
// window belong to something else, e.g. the previous Epoch's transfer still in flight when the
// receiver restarted (spec-notes 69). Crediting them sent MSG_DONE before the octets arrived.
TEST_F(ReceiverTest, Receiver_EarlyDataBeyondTheUnscheduledWindow_IsNotCredited) {
  const Address s = ReceiverHarness::sender(1);
  const auto a = h.associate(s, 1);
  DataObservation d;  // RoCEv2 counts octets per queue pair, without offsets
  d.from = s;
  d.binding = BindingKind::RoCEv2;
  d.key = 0x123;
  d.octets = 4096;
  h.receiver().on_data(d, h.now());  // in flight from before the request: no message yet
  EXPECT_TRUE(h.drain().empty());
  const auto r = rocev2_request(h, a);
  const auto g = only<CreditGrant>(h.deliver(s, r));
  ASSERT_EQ(g.size(), 1U);
  EXPECT_EQ(g[0].grant_limit, 8192U);
  h.checker().on_data_delivered(h.cfg().local, s, 1, 4096, h.now());
  h.receiver().on_data(d, h.now());
  EXPECT_TRUE(only<MsgDone>(h.drain()).empty()) << "MSG_DONE after half the message's octets";
  h.checker().on_data_delivered(h.cfg().local, s, 1, 4096, h.now());
  h.receiver().on_data(d, h.now());
  const auto done = only<MsgDone>(h.drain());
  ASSERT_EQ(done.size(), 1U);
  EXPECT_EQ(done[0].octets_received, 8192U);
}

// Within the window they are credited: unscheduled data may overtake its request.
TEST_F(ReceiverTest, Receiver_EarlyDataWithinTheUnscheduledWindow_IsCredited) {
  const Address s = ReceiverHarness::sender(1);
  const auto a = h.associate(s, 1);
  EXPECT_TRUE(h.data(s, 1, 0, 4096, 1).empty());
  h.deliver(s, h.request(a, 1, 8192, 4096));
  const auto done = only<MsgDone>(h.data(s, 1, 4096, 4096, 1));
  ASSERT_EQ(done.size(), 1U);
  EXPECT_EQ(done[0].octets_received, 8192U);
}

// Spec-notes 80: a rate holder that returned its credit and is re-granted at a lower rate
// (so that a new message gets its share of the link) is given its whole limit back, which the
// budget counts again. The new message's share of the budget must be worked out after that,
// or the two grants together exceed G (CI smoke finding, fuzz_receiver seed 1).
TEST(ReceiverBudget,
     Receiver_HolderRegrantedAtALowerRateAfterCreditReturn_LeavesTheNewMessageOnlyWhatIsFree) {
  ReceiverConfig cfg = ReceiverHarness::default_config();
  cfg.budget = std::uint64_t{96} * 1024;
  cfg.unscheduled_budget = 0;
  cfg.unscheduled_limit = 0;
  cfg.grant_window = std::uint64_t{64} * 1024;
  ReceiverHarness h(cfg);
  const Address s1 = ReceiverHarness::sender(1);
  const auto a1 = h.associate(s1, 1);
  const auto request1 = h.request(a1, 1, 1 << 20);
  const auto g1 = only<CreditGrant>(h.deliver(s1, request1));
  ASSERT_EQ(g1.size(), 1U);
  ASSERT_EQ(g1[0].grant_limit, 64U * 1024);
  h.advance(cfg.d_max * 2);  // the return cannot have crossed the grant
  CreditReturn r;
  r.message_id = 1;
  r.new_limit = 0;
  h.deliver(s1, h.on_association(a1, r));
  ASSERT_EQ(h.receiver().outstanding_credit(), 0U);
  // A second sender's message waits: the returned message still holds the link's rate.
  const Address s2 = ReceiverHarness::sender(2);
  const auto a2 = h.associate(s2, 2);
  ASSERT_TRUE(only<CreditGrant>(h.deliver(s2, h.request(a2, 7, 1 << 20))).empty());
  // The first sender asks again: its message is re-granted at the fair share, restating its
  // 64 KiB (credit issued anew, all counted), and the waiting message gets what is left.
  auto again = request1;
  again.header.sequence_number = h.on_association(a1, Cancel{}).header.sequence_number;
  const auto grants = only<CreditGrant>(h.deliver(s1, again));
  ASSERT_EQ(grants.size(), 2U);
  EXPECT_EQ(grants[0].message_id, 1U);
  EXPECT_EQ(grants[0].grant_limit, 64U * 1024);
  EXPECT_LT(grants[0].pacing_rate, g1[0].pacing_rate);
  EXPECT_EQ(grants[1].message_id, 7U);
  EXPECT_EQ(grants[1].grant_limit, 32U * 1024);
  EXPECT_EQ(h.receiver().outstanding_credit(), cfg.budget);
  EXPECT_TRUE(h.checker().ok()) << h.checker().violations().front().detail;
}

// A per-association cap of 16 KiB with windows of 16 KiB and a Credit Unit of 9000 octets: room
// freed under the cap serves one least grant at a time.
class ReceiverCap : public ::testing::Test {
 protected:
  static ReceiverConfig config() {
    ReceiverConfig cfg = ReceiverHarness::default_config();
    cfg.credit_unit = 9000;
    cfg.grant_window = 16384;
    cfg.max_credit_per_association = 16384;
    return cfg;
  }
  void TearDown() override { expect_no_violation(h); }
  ReceiverHarness h{config()};
};

// "Credit that becomes available is distributed among waiting messages by Traffic Class first"
// (Credit Allocation): room under a per-association cap that serves one message goes to the
// waiting message of the lower class, whatever the order of their requests and their passes
// (each class keeps its own stride passes). A Credit Unit of 9000 octets and a 16 KiB cap
// leave room for one least grant; the Class 7 message (requested first) waits while the
// Class 6 one is served (spec-notes 183; receiver-class-precedence-by-order).
TEST_F(ReceiverCap, FreedRoomForOneMessage_GoesToTheLowerClassFirst) {
  const Address s = ReceiverHarness::sender(1);
  const AssocAccept a = h.associate(s, 0x21);
  auto g1 = only<CreditGrant>(h.deliver(s, h.request(a, 1, 16384, 0, 0)));
  ASSERT_EQ(g1.size(), 1U);
  ASSERT_EQ(g1[0].grant_limit, 16384U);
  EXPECT_TRUE(only<CreditGrant>(h.deliver(s, h.request(a, 2, 16384, 0, 9, 0))).empty());
  EXPECT_TRUE(only<CreditGrant>(h.deliver(s, h.request(a, 3, 16384, 0, 6, 1))).empty());
  const auto freed = only<CreditGrant>(h.data(s, 1, 0, 16384, 1));
  ASSERT_FALSE(freed.empty());
  EXPECT_EQ(freed[0].message_id, 3U) << "the Class 6 message is served before the Class 7 one";
}

// "... and by weight within a class" (Credit Allocation): a message whose own data freed room
// under a per-association cap does not take that room ahead of the messages of its association
// that waited for it out of the grant queue; they are re-admitted together in the queue's order,
// and the one of Weight 255 is served before the one of Weight 1 that was just served. A Credit
// Unit of 9000 octets and a 16 KiB cap leave room for one least grant (spec-notes 191;
// receiver-weight-share-within-class).
TEST_F(ReceiverCap, MessageWhoseDataFreedTheRoom_WaitsBehindTheHeavierWaitingMessage) {
  const Address s = ReceiverHarness::sender(1);
  const AssocAccept a = h.associate(s, 0x31);
  ASSERT_EQ(only<CreditGrant>(h.deliver(s, h.request(a, 1, 16384, 0, 0))).size(), 1U);
  EXPECT_TRUE(only<CreditGrant>(h.deliver(s, h.request(a, 2, 65536, 0, 0, 1))).empty());
  EXPECT_TRUE(only<CreditGrant>(h.deliver(s, h.request(a, 3, 65536, 0, 0, 255))).empty());
  const auto first = only<CreditGrant>(h.data(s, 1, 0, 16384, 1));
  ASSERT_EQ(first.size(), 1U);
  const std::uint64_t served = first[0].message_id;
  const std::uint64_t other = served == 2 ? 3 : 2;
  const auto next = only<CreditGrant>(
      h.data(s, served, 0, static_cast<std::uint32_t>(first[0].grant_limit), served));
  ASSERT_FALSE(next.empty());
  EXPECT_EQ(next[0].message_id, served == 2 ? other : served)
      << "after the Weight 1 message's turn, the Weight 255 message that waited is served";
}

}  // namespace
}  // namespace rdcc::ref
