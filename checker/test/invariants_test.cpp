// The invariant checker must catch every fault it names: each test feeds it a faulty
// exchange and expects exactly that rule, and a clean one and expects nothing.
#include <gtest/gtest.h>

#include "rdcc/checker/invariants.hpp"

namespace rdcc::checker {
namespace {

using ref::microseconds;
using ref::milliseconds;
using ref::nanoseconds;
using ref::seconds;
using ref::transmission_time;

const Address kReceiver = Address::v4(192, 0, 2, 100, 50000);
const Address kSender = Address::v4(192, 0, 2, 1, 40000);
constexpr std::uint32_t kAssoc = 0x5A17C0DE;

class CheckerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    checker.add_receiver(kReceiver, 100000, microseconds(10));
    AssocAccept a;
    a.header = {.association_id = kAssoc, .epoch = 1, .sequence_number = 1};
    a.unscheduled_limit = 8192;
    a.grant_lifetime = 100;
    a.credit_unit = 4096;
    a.start_jitter = 10;
    both_ways(kReceiver, kSender, a);
  }
  void both_ways(const Address& from, const Address& to, Message m) {
    checker.on_control_sent(from, to, m, now);
    checker.on_control_delivered(from, to, m, now);
  }
  // The sender asks for an association with `nonce` (its side only).
  void ask(std::uint64_t nonce) {
    AssocRequest q;
    q.sender_nonce = nonce;
    checker.on_control_sent(kSender, kReceiver, q, now);
  }
  // An ASSOC_ACCEPT of Epoch `epoch` echoing `nonce` reaches the sender: Sequence Number
  // `sequence`, Grant Lifetime 100 us, Credit Unit 4096, U `u`, no Parameter Update.
  void accept_reaches_sender(std::uint64_t nonce, std::uint16_t epoch, std::uint32_t u = 0,
                             std::uint32_t sequence = 1, std::uint32_t association = kAssoc) {
    AssocAccept a;
    a.header = {.association_id = association, .epoch = epoch, .sequence_number = sequence};
    a.sender_nonce = nonce;
    a.unscheduled_limit = u;
    a.grant_lifetime = 100;
    a.credit_unit = 4096;
    checker.on_control_delivered(kReceiver, kSender, a, now);
  }
  static CreditRequest request_of(std::uint16_t epoch, std::uint32_t sequence, std::uint64_t id,
                                  std::uint64_t length, std::uint64_t unsched) {
    CreditRequest r;
    r.header = {.association_id = kAssoc, .epoch = epoch, .sequence_number = sequence};
    r.message_id = id;
    r.message_length = length;
    r.unscheduled_sent = unsched;
    return r;
  }
  static CreditGrant grant_of(std::uint32_t association, std::uint16_t epoch, std::uint16_t flags,
                              std::uint32_t sequence, std::uint64_t id, std::uint64_t limit,
                              std::uint32_t rate) {
    CreditGrant g;
    g.header = {
        .association_id = association, .epoch = epoch, .flags = flags, .sequence_number = sequence};
    g.message_id = id;
    g.grant_limit = limit;
    g.pacing_rate = rate;
    return g;
  }
  static DataSegment segment_of(std::uint32_t association, std::uint64_t id, std::uint64_t offset,
                                std::uint32_t length, bool unsched) {
    DataSegment s;
    s.receiver = kReceiver;
    s.association_id = association;
    s.message_id = id;
    s.offset = offset;
    s.length = length;
    s.unscheduled = unsched;
    return s;
  }
  // Both sides, in Epoch 1 of kAssoc, numbered in order.
  void request(std::uint64_t id, std::uint64_t length, std::uint64_t unsched = 0) {
    both_ways(kSender, kReceiver, request_of(1, ++tx_seq, id, length, unsched));
  }
  void grant(std::uint64_t id, std::uint64_t limit, bool final_flag, std::uint32_t rate = 1000) {
    both_ways(kReceiver, kSender,
              grant_of(kAssoc, 1, final_flag ? flag::kFinal : std::uint16_t{0}, ++rx_seq, id, limit,
                       rate));
  }
  void segment(std::uint64_t id, std::uint64_t offset, std::uint32_t length, bool unsched = false) {
    checker.on_segment_sent(kSender, segment_of(kAssoc, id, offset, length, unsched), now);
    checker.on_data_delivered(kReceiver, kSender, id, length, now);
  }
  // The receiver's MSG_DONE for message `id`, stating `octets`, in Epoch 1 of kAssoc.
  void done(std::uint64_t id, std::uint64_t octets) {
    MsgDone d;
    d.header = {.association_id = kAssoc, .epoch = 1, .sequence_number = ++rx_seq};
    d.message_id = id;
    d.octets_received = octets;
    both_ways(kReceiver, kSender, d);
  }
  // The sender's side alone, as fuzz_sender sees it: a CREDIT_REQUEST it sends, a CREDIT_GRANT
  // that reaches it (Pacing Rate 100000 Mbit/s) and octets it transmits (an unscheduled
  // segment is its message's last), in incarnation `epoch` of `association`.
  void request_sent(std::uint16_t epoch, std::uint32_t sequence, std::uint64_t id,
                    std::uint64_t length, std::uint64_t unsched = 0) {
    checker.on_control_sent(kSender, kReceiver, request_of(epoch, sequence, id, length, unsched),
                            now);
  }
  void grant_reaches_sender(std::uint32_t association, std::uint16_t epoch, std::uint32_t sequence,
                            std::uint64_t id, std::uint64_t limit, std::uint16_t flags = 0) {
    checker.on_control_delivered(
        kReceiver, kSender, grant_of(association, epoch, flags, sequence, id, limit, 100000), now);
  }
  void segment_sent(std::uint32_t association, std::uint64_t id, std::uint64_t offset,
                    std::uint32_t length, bool unsched = false) {
    DataSegment s = segment_of(association, id, offset, length, unsched);
    s.last = unsched;
    checker.on_segment_sent(kSender, s, now);
  }
  // The sender holds 32768 octets of message 1 (65536 long) at `rate` Mbit/s, for 100 ms.
  void hold_grant(std::uint32_t rate) {
    ask(7);
    accept_reaches_sender(7, 1);
    request(1, 65536);
    CreditGrant g = grant_of(kAssoc, 1, 0, ++rx_seq, 1, 32768, rate);
    g.lifetime = 100000;
    both_ways(kReceiver, kSender, g);
  }

  // ERROR (UNKNOWN_ASSOCIATION) naming kAssoc, both ways (exempt from the sequence check: 0).
  void unknown_association() {
    ErrorMessage e;
    e.header = {.association_id = kAssoc, .epoch = 1, .sequence_number = 0};
    e.reason = static_cast<std::uint16_t>(ReasonCode::UnknownAssociation);
    both_ways(kReceiver, kSender, e);
  }
  // A CREDIT_REQUEST of kAssoc naming `epoch`, answered with ERROR (UNKNOWN_ASSOCIATION); then
  // a second association of the sender (0x77) is granted 64 KiB.
  void unknown_association_then_another_grant(std::uint16_t epoch) {
    both_ways(kSender, kReceiver, request_of(epoch, ++tx_seq, 2, 65536, 8192));
    unknown_association();
    second_association_requests(3, 65536);
    both_ways(kReceiver, kSender, grant_of(0x77, 1, flag::kFinal, 2, 3, 65536, 1000));
  }
  // Both sides: the receiver accepts a second association of the sender (0x77, Epoch 1, nonce
  // 2, U 8192), which asks for message `id` of `length` octets.
  void second_association_requests(std::uint64_t id, std::uint64_t length) {
    AssocAccept other;
    other.header = {.association_id = 0x77, .epoch = 1, .sequence_number = 1};
    other.sender_nonce = 2;
    other.unscheduled_limit = 8192;
    other.grant_lifetime = 100;
    other.credit_unit = 4096;
    both_ways(kReceiver, kSender, other);
    CreditRequest r = request_of(1, 1, id, length, 0);
    r.header.association_id = 0x77;
    both_ways(kSender, kReceiver, r);
  }
  std::vector<std::string> rules() const {
    std::vector<std::string> out;
    for (const auto& v : checker.violations()) out.push_back(v.rule);
    return out;
  }

  InvariantChecker checker;
  Time now{};
  std::uint32_t tx_seq = 0;
  std::uint32_t rx_seq = 1;
};

TEST_F(CheckerTest, CleanExchange_HasNoViolation) {
  request(1, 8192);
  grant(1, 8192, true);
  segment(1, 0, 4096);
  now += microseconds(1);
  segment(1, 4096, 4096);
  request(2, 4096, 4096);
  segment(2, 0, 4096, true);
  EXPECT_TRUE(checker.ok()) << (checker.ok() ? "" : checker.violations()[0].detail);
}

TEST_F(CheckerTest, GrantBeyondTheLength_IsCaught) {
  request(1, 8192);
  grant(1, 12288, true);
  EXPECT_EQ(rules(), (std::vector<std::string>{"RDCC-GRANT-07", "RDCC-GRANT-12"}));
}

TEST_F(CheckerTest, MissingFinal_IsCaught) {
  request(1, 8192);
  grant(1, 8192, false);
  EXPECT_EQ(rules(), std::vector<std::string>{"RDCC-GRANT-12"});
}

// "A grant with a Grant Limit that is not larger than the limit the sender already holds for that
// message only refreshes the Lifetime and Pacing Rate; it never reduces credit." (rule 1) A lower
// grant is no fault of the receiver's, but the limit the sender holds still counts against G,
// for the Lifetime the lower grant refreshed (docs/spec-notes.md, "What the catalog counts as a
// requirement").
TEST_F(CheckerTest, LowerGrant_IsNoFault_TheHeldLimitStillCountsForTheRefreshedLifetime) {
  request(1, 131072);
  grant(1, 65536, false);
  now += microseconds(90);  // the first grant's Lifetime (100 us) is nearly over
  grant(1, 8192, false);
  EXPECT_TRUE(checker.ok()) << checker.violations()[0].detail;
  now += microseconds(100);  // past the first grant's reclaim time, within the refreshed one
  request(2, 40000);
  grant(2, 40000, true);  // 65536 + 40000 > G = 100000: the lower grant kept 65536 in force
  EXPECT_EQ(rules(), std::vector<std::string>{"RDCC-BUDGET-01"});
}

TEST_F(CheckerTest, PacingRateZero_IsCaught) {
  request(1, 8192);
  grant(1, 8192, true, 0);
  EXPECT_EQ(rules(), std::vector<std::string>{"RDCC-GRANT-06"});
}

TEST_F(CheckerTest, DataBeyondTheGrant_IsCaught) {
  request(1, 65536);
  grant(1, 8192, false);
  segment(1, 8192, 4096);
  EXPECT_EQ(rules(), std::vector<std::string>{"RDCC-GRANT-03"});
}

// "if none is answered, the sender concludes that the receiver does not support RDCC and sends
// without it" (Association Establishment): data of Association ID zero is under no association,
// so no rule of credit binds it; the same octets under the association are judged
// (docs/spec-notes.md 151).
TEST_F(CheckerTest, DataOfNoAssociation_IsNotJudged) {
  checker.on_segment_sent(kSender, segment_of(0, 0, 0, 4096, false), now);
  checker.on_segment_sent(kSender, segment_of(0, 0, 4096, 4096, false), now);
  EXPECT_TRUE(checker.ok()) << checker.violations()[0].detail;
  segment(9, 0, 4096);
  EXPECT_EQ(rules(), std::vector<std::string>{"RDCC-GRANT-03"});
}

TEST_F(CheckerTest, DataAfterTheLifetime_IsCaught) {
  request(1, 65536);
  grant(1, 8192, false);
  now += microseconds(100);  // the association's default Lifetime
  segment(1, 0, 4096);
  EXPECT_EQ(rules(), std::vector<std::string>{"RDCC-GRANT-04"});
}

// A capture away from the sender: data may show up to the tolerance after the Lifetime.
TEST_F(CheckerTest, DataAfterTheLifetime_WithinTheTimingTolerance_Passes) {
  checker.set_timing_tolerance(microseconds(20));
  request(1, 65536);
  grant(1, 8192, false);
  now += microseconds(119);
  segment(1, 0, 4096);
  EXPECT_TRUE(checker.ok()) << checker.violations()[0].detail;
  now += microseconds(1);
  segment(1, 4096, 4096);
  EXPECT_EQ(rules(), std::vector<std::string>{"RDCC-GRANT-04"});
}

// A tester on real sockets does not see when the sender read a grant: a sender that read it
// late (here 5 ms after delivery) and sent within the Lifetime from then is not judged expired.
TEST_F(CheckerTest, ReceptionUnseen_LateReadGrant_LifetimeRunsFromItsFirstData) {
  checker.set_grant_reception_unseen(true);
  request(1, 65536);
  grant(1, 16384, false);
  now += microseconds(5000);
  segment(1, 0, 4096);
  now += microseconds(90);
  segment(1, 4096, 4096);
  EXPECT_TRUE(checker.ok()) << checker.violations()[0].detail;
}

// Whatever the reading delay, data sent longer than the Lifetime after the first data only the
// grant authorized was sent after the Lifetime.
TEST_F(CheckerTest, ReceptionUnseen_DataALifetimeAfterTheFirst_IsCaught) {
  checker.set_grant_reception_unseen(true);
  request(1, 65536);
  grant(1, 16384, false);
  now += microseconds(5000);
  segment(1, 0, 4096);
  now += microseconds(101);
  segment(1, 4096, 4096);
  EXPECT_EQ(rules(), std::vector<std::string>{"RDCC-GRANT-04"});
}

// A refresh of the held grant is proven received only by data the held grant does not cover:
// until then the old Lifetime binds, and then the new one runs from that data.
TEST_F(CheckerTest, ReceptionUnseen_Refresh_ProvenByDataAfterTheOldLifetime) {
  checker.set_grant_reception_unseen(true);
  request(1, 65536);
  grant(1, 16384, false);
  segment(1, 0, 4096);  // proves the first grant at 0: valid until 100 us
  now += microseconds(50);
  grant(1, 16384, false);  // a refresh, read whenever
  now += microseconds(150);
  segment(1, 4096, 4096);  // after the first Lifetime: under the refresh, from here
  now += microseconds(99);
  segment(1, 8192, 4096);
  EXPECT_TRUE(checker.ok()) << checker.violations()[0].detail;
  now += microseconds(2);
  segment(1, 12288, 4096);
  EXPECT_EQ(rules(), std::vector<std::string>{"RDCC-GRANT-04"});
}

// Beyond every grant delivered is beyond the credit, pending or not.
TEST_F(CheckerTest, ReceptionUnseen_DataBeyondThePendingGrant_IsCaught) {
  checker.set_grant_reception_unseen(true);
  request(1, 65536);
  grant(1, 8192, false);
  segment(1, 8192, 4096);
  EXPECT_EQ(rules(), std::vector<std::string>{"RDCC-GRANT-03"});
}

// Data the checker records before a grant's delivery (its timestamp is earlier) is not excused
// by that grant.
TEST_F(CheckerTest, ReceptionUnseen_DataBeforeTheDelivery_IsNotCovered) {
  checker.set_grant_reception_unseen(true);
  request(1, 65536);
  now += microseconds(10);
  grant(1, 8192, false);
  now = now - microseconds(5);
  segment(1, 0, 4096);
  EXPECT_EQ(rules(), std::vector<std::string>{"RDCC-GRANT-03"});
}

// A tester sees a receiver's grant leave a little after the receiver decided to send it: the
// receiver may reclaim up to the tolerance before Lifetime + 2 * D_max after the observed send,
// not earlier. G = 100000; two grants of 60000, the second 115 us (100 + 2 * 10 - 5) after the
// first.
TEST_F(CheckerTest, SendTimeTolerance_ReclaimSlightlyEarlierThanObserved_Passes_EarlierIsCaught) {
  checker.set_send_time_tolerance(microseconds(5));
  request(1, 65536);
  request(2, 65536);
  grant(1, 60000, false);
  now += microseconds(115);
  grant(2, 60000, false);
  EXPECT_TRUE(checker.ok()) << checker.violations()[0].detail;
  request(3, 65536);
  now += microseconds(114);  // 114 us after message 2's grant: its credit is still live
  grant(3, 60000, false);
  EXPECT_EQ(rules(), std::vector<std::string>{"RDCC-BUDGET-01"});
}

// The tolerance widened during a run (the tester measured a longer scheduling delay) holds for
// the grants seen before it too: message 2's grant, 110 us after message 1's (Lifetime 100 us,
// D_max 10 us: 120 us), is within a tolerance of 10 us widened after message 1's grant was
// seen, and outside the 5 us it was seen with.
class WidenedToleranceTest : public CheckerTest {
 protected:
  void two_grants(bool widen) {
    checker.set_send_time_tolerance(microseconds(5));
    request(1, 65536);
    request(2, 65536);
    grant(1, 60000, false);
    now += microseconds(100);
    if (widen) checker.set_send_time_tolerance(microseconds(10));
    now += microseconds(10);
    grant(2, 60000, false);
  }
};
TEST_F(WidenedToleranceTest, HoldsForGrantsAlreadySeen) {
  two_grants(true);
  EXPECT_TRUE(checker.ok()) << checker.violations()[0].detail;
}
TEST_F(WidenedToleranceTest, NotWidened_TheSameGrantsAreCaught) {
  two_grants(false);
  EXPECT_EQ(rules(), std::vector<std::string>{"RDCC-BUDGET-01"});
}

// A tolerance above Lifetime + 2 * D_max still counts a grant when it is sent.
TEST_F(CheckerTest, SendTimeTolerance_AGrantAlwaysCountsWhenSent) {
  checker.set_send_time_tolerance(microseconds(1000));
  request(1, 200000);
  grant(1, 150000, false);
  EXPECT_EQ(rules(), std::vector<std::string>{"RDCC-BUDGET-01"});
}

// "MUST NOT have more than one unscheduled message outstanding on an association"
TEST_F(CheckerTest, SecondUnscheduledMessageWhileOneIsOutstanding_IsCaught) {
  request(1, 4096, 4096);
  segment(1, 0, 4096, true);
  request(2, 4096, 4096);
  EXPECT_EQ(rules(), std::vector<std::string>{"RDCC-UNSCHED-03"});
}

// "The sender retransmits CREDIT_REQUEST if it holds no credit for the message after a request
// timeout, initially twice the smoothed round-trip time and at least 100 microseconds, doubling
// on each retransmission up to 100 ms." (RDCC-GRANT-15, docs/spec-notes.md 188) Requests for one
// message at 100 us, +100, +200, +400: the doubling kept passes; the next at +400 again is early.
TEST_F(CheckerTest, RequestBackoff_ARetransmissionBeforeTheDoubledTimeout_IsCaught) {
  checker.set_request_backoff(true);
  now += microseconds(100);
  std::uint32_t seq = 0;
  request_sent(1, ++seq, 1, 65536);
  for (const std::int64_t gap : {100, 200, 400}) {
    now += microseconds(gap);
    request_sent(1, ++seq, 1, 65536);
  }
  EXPECT_TRUE(checker.ok()) << checker.violations()[0].detail;
  now += microseconds(400);
  request_sent(1, ++seq, 1, 65536);
  EXPECT_EQ(rules(), std::vector<std::string>{"RDCC-GRANT-15"});
}

// A request after an input to the sender (a datagram, its upper tester), after data of its
// association, or while it holds credit may be a new one: its backoff starts again. So does
// everything when the check is off (a capture does not see the sender's host).
TEST_F(CheckerTest, RequestBackoff_StartsAgainAfterAnInputDataOrCredit_AndIsOffByDefault) {
  request_sent(1, 1, 1, 65536);
  now += microseconds(10);
  request_sent(1, 2, 1, 65536);
  EXPECT_TRUE(checker.ok());  // off by default
  checker.set_request_backoff(true);
  now += microseconds(100);
  request_sent(1, 3, 1, 65536);
  now += microseconds(200);
  request_sent(1, 4, 1, 65536);
  now += microseconds(10);
  checker.on_sender_input(now);  // e.g. an upper tester's command
  now += microseconds(10);
  request_sent(1, 5, 1, 65536);
  now += microseconds(100);
  request_sent(1, 6, 1, 65536);
  // Data of the association since the last request: the next one starts a run.
  request_sent(1, 7, 2, 1000, 1000);
  segment_sent(kAssoc, 2, 0, 1000, true);
  now += microseconds(10);
  request_sent(1, 8, 1, 65536);
  now += microseconds(100);
  request_sent(1, 9, 1, 65536);
  EXPECT_TRUE(checker.ok()) << checker.violations()[0].detail;
  // Without an input, the third request of a run 100 us after the second is early.
  now += microseconds(100);
  request_sent(1, 10, 1, 65536);
  EXPECT_EQ(rules(), std::vector<std::string>{"RDCC-GRANT-15"});
}

// "an unscheduled message stops being outstanding when the sender receives MSG_DONE or a
// CREDIT_GRANT for it"; a late retransmission of its request does not make it outstanding again.
TEST_F(CheckerTest, UnscheduledMessage_EndsWithMsgDoneOrGrant) {
  request(1, 4096, 4096);
  segment(1, 0, 4096, true);
  done(1, 4096);
  request(1, 4096, 4096);  // a retransmission overtaken by MSG_DONE
  request(2, 4096, 4096);
  segment(2, 0, 4096, true);
  grant(2, 4096, true);
  request(3, 4096, 4096);
  EXPECT_TRUE(checker.ok()) << checker.violations()[0].detail;
}

TEST_F(CheckerTest, StaleGrant_GivesNoCredit) {
  request(1, 65536);
  grant(1, 8192, false);
  CreditGrant stale;
  stale.header = {.association_id = kAssoc, .epoch = 1, .sequence_number = 1};  // not newer
  stale.message_id = 1;
  stale.grant_limit = 32768;
  stale.pacing_rate = 1000;
  checker.on_control_delivered(kReceiver, kSender, stale, now);
  segment(1, 8192, 4096);
  EXPECT_EQ(rules(), std::vector<std::string>{"RDCC-GRANT-03"});
}

TEST_F(CheckerTest, UnscheduledBeyondU_AndUnannounced_AreCaught) {
  request(1, 16384, 16384);  // U is 8192
  segment(1, 0, 4096, true);
  segment(2, 0, 4096, true);  // never announced
  EXPECT_EQ(rules(), (std::vector<std::string>{"RDCC-MODE-03", "RDCC-UNSCHED-02"}));
}

TEST_F(CheckerTest, BudgetExceeded_IsCaught_AndExpiredGrantsNoLongerCount) {
  request(1, 1U << 20U);
  request(2, 1U << 20U);
  grant(1, 60000, false);
  EXPECT_TRUE(checker.ok());
  EXPECT_EQ(checker.peak_outstanding(kReceiver), 60000U);
  now += microseconds(100 + 20);  // Lifetime + 2 * D_max: grant 1 is no longer live
  grant(2, 60000, false);
  EXPECT_TRUE(checker.ok());
  grant(1, 60000, false);  // renewed: both live, 120000 > G = 100000
  EXPECT_EQ(rules(), std::vector<std::string>{"RDCC-BUDGET-01"});
}

// fuzz/regressions/fuzz_receiver/budget-after-credit-return: the receiver releases at once
// what a CREDIT_RETURN gives back, and reuses it (docs/spec-notes.md, 65).
TEST_F(CheckerTest, CreditReturn_ReleasesTheCreditBeyondItsNewLimit_UntilTheNextGrant) {
  request(1, 1U << 20U);
  request(2, 1U << 20U);
  grant(1, 60000, false);
  CreditReturn r;
  r.header = {.association_id = kAssoc, .epoch = 1, .sequence_number = ++tx_seq};
  r.message_id = 1;
  r.new_limit = 4096;
  both_ways(kSender, kReceiver, r);
  grant(2, 60000, false);  // 4096 + 60000 <= G = 100000
  EXPECT_TRUE(checker.ok()) << (checker.ok() ? "" : checker.violations()[0].detail);
  EXPECT_EQ(checker.peak_outstanding(kReceiver), 64096U);
  grant(1, 60000, false);  // issued anew: 120000 > G
  EXPECT_EQ(rules(), std::vector<std::string>{"RDCC-BUDGET-01"});
}

TEST_F(CheckerTest, Cancel_ReleasesTheCredit2DmaxAfterTheFirstOne) {
  request(1, 1U << 20U);
  request(2, 1U << 20U);
  grant(1, 60000, false);
  Cancel c;
  c.header = {.association_id = kAssoc, .epoch = 1, .sequence_number = ++tx_seq};
  c.message_id = 1;
  both_ways(kSender, kReceiver, c);
  now += microseconds(10);
  c.header.sequence_number = ++tx_seq;
  both_ways(kSender, kReceiver, c);  // a second CANCEL does not restart the delay
  now += microseconds(10);           // 2 * D_max after the first: grant 1 no longer counts
  grant(2, 60000, false);
  EXPECT_TRUE(checker.ok()) << (checker.ok() ? "" : checker.violations()[0].detail);
}

TEST_F(CheckerTest, Cancel_CreditStillCountsWithin2Dmax) {
  request(1, 1U << 20U);
  request(2, 1U << 20U);
  grant(1, 60000, false);
  Cancel c;
  c.header = {.association_id = kAssoc, .epoch = 1, .sequence_number = ++tx_seq};
  c.message_id = 1;
  both_ways(kSender, kReceiver, c);
  now += microseconds(19);
  grant(2, 60000, false);
  EXPECT_EQ(rules(), std::vector<std::string>{"RDCC-BUDGET-01"});
}

TEST_F(CheckerTest, MsgDoneBeforeAllOctets_IsCaught) {
  request(1, 8192);
  grant(1, 8192, true);
  segment(1, 0, 4096);
  done(1, 4096);
  EXPECT_EQ(rules(), std::vector<std::string>{"RDCC-GRANT-13"});
}

// A MSG_DONE is sent when every octet has arrived: its Octets Received is the length. Fewer, or
// more than the length and every octet delivered, is caught (a count that wrapped: automatic
// mutant `transport_bindings.cpp:112:3 += -> -=`); a count between them (a duplicate counted)
// is not judged (docs/spec-notes.md 178).
TEST_F(CheckerTest, MsgDoneOctetsReceived_OtherThanTheLength_IsCaught) {
  std::uint64_t id = 0;
  for (const std::uint64_t said :
       {std::uint64_t{8192}, std::uint64_t{8192 + 4096}, std::uint64_t{8191},
        std::uint64_t{8192 + 4097}, ~std::uint64_t{0} - 10341}) {
    ++id;
    request(id, 8192);
    grant(id, 8192, true);
    segment(id, 0, 4096);
    segment(id, 4096, 4096);
    segment(id, 4096, 4096);  // delivered twice: 12,288 octets delivered in all
    done(id, said);
  }
  EXPECT_EQ(rules(), (std::vector<std::string>{"RDCC-GRANT-13", "RDCC-GRANT-13", "RDCC-GRANT-13"}));
  ASSERT_EQ(checker.violations().size(), 3U);
  EXPECT_NE(checker.violations()[0].detail.find("Octets Received 8191 of a message of 8192"),
            std::string::npos)
      << checker.violations()[0].detail;
  EXPECT_NE(checker.violations()[1].detail.find("Octets Received 12289"), std::string::npos);
  EXPECT_NE(checker.violations()[2].detail.find("Octets Received 18446744073709541274"),
            std::string::npos);
}

// "averaged over any interval equal to the transmission time of ten Credit Units"
TEST_F(CheckerTest, PacingFasterThanTheRate_IsCaught_AndExactSpacingPasses) {
  request(1, 65536);
  grant(1, 65536, true, 10000);  // 4096 octets take 3.2768 us at 10 Gbit/s
  const Duration spacing = transmission_time(4096, 10000);
  for (int i = 0; i < 16; ++i) {
    segment(1, static_cast<std::uint64_t>(i) * 4096, 4096);
    now += spacing;
  }
  EXPECT_TRUE(checker.ok()) << checker.violations()[0].detail;  // exact spacing passes
  request(2, 65536);
  grant(2, 65536, true, 10000);
  for (int i = 0; i < 12; ++i) segment(2, static_cast<std::uint64_t>(i) * 4096, 4096);  // a burst
  EXPECT_EQ(rules(), std::vector<std::string>{"RDCC-GRANT-05"});
}

// The Credit Unit is the unit of rule 4's averaging interval and of R_min, not a packet size:
// "RDCC ... does not change the format of data packets" (docs/spec-notes.md, "Data packets need
// not be one Credit Unit"). Segments of 1 KiB and of 9000 octets within the grant and its pace
// are clean; the same 9000-octet segments in a burst are not.
TEST_F(CheckerTest, DataSegmentsOfAnySize_WithinTheGrantAndThePace_Pass) {
  for (const std::uint32_t size : {1024U, 9000U}) {
    SCOPED_TRACE(size);
    const std::uint64_t id = size;
    request(id, 65536);
    grant(id, 65536, true, 10000);
    for (std::uint64_t offset = 0; offset < 65536; offset += size) {
      const auto n = static_cast<std::uint32_t>(std::min<std::uint64_t>(size, 65536 - offset));
      segment(id, offset, n);
      now += transmission_time(n, 10000);
    }
    EXPECT_TRUE(checker.ok()) << checker.violations()[0].detail;
  }
  request(3, 98304);
  grant(3, 98304, true, 10000);
  for (std::uint64_t offset = 0; offset + 9000 <= 98304; offset += 9000) segment(3, offset, 9000);
  const auto caught = rules();
  ASSERT_FALSE(caught.empty());
  for (const auto& rule : caught) EXPECT_EQ(rule, "RDCC-GRANT-05");
}

// A sender that makes up a late wake-up (docs/spec-notes.md, 71): after a gap of one window,
// ten Credit Units at once keep to the rule; two more in the same window break it (the
// checker admits one segment over ten Credit Units, note 19).
TEST_F(CheckerTest, PacingMakeUpOfALateWakeUp_TenCreditUnitsPass_MoreIsCaught) {
  request(1, 98304);
  grant(1, 98304, true, 10000);
  const Duration spacing = transmission_time(4096, 10000);
  std::uint64_t offset = 0;
  for (int i = 0; i < 5; ++i, offset += 4096) {
    segment(1, offset, 4096);
    now += spacing;
  }
  now += transmission_time(std::uint64_t{10} * 4096, 10000);  // the wake-up comes one window late
  for (int i = 0; i < 10; ++i, offset += 4096) segment(1, offset, 4096);
  EXPECT_TRUE(checker.ok()) << checker.violations()[0].detail;
  for (int i = 0; i < 2; ++i, offset += 4096) segment(1, offset, 4096);
  EXPECT_EQ(rules(), std::vector<std::string>{"RDCC-GRANT-05"});
}

// Segments shorter than a Credit Unit: what may start within the interval is ten Credit Units
// and the one segment that starts at its end, not eleven Credit Units (a sender of 1 KiB
// segments that averages over eleven Credit Units passed before). After one window's gap, 40
// segments of 1 KiB and the 41st at once keep to the rule; the 42nd breaks it.
TEST_F(CheckerTest, PacingWithShortSegments_TenCreditUnitsAndTheLastSegment) {
  request(1, 98304);
  grant(1, 98304, true, 10000);
  now += transmission_time(std::uint64_t{10} * 4096, 10000);
  std::uint64_t offset = 0;
  for (int i = 0; i < 41; ++i, offset += 1024) segment(1, offset, 1024);
  EXPECT_TRUE(checker.ok()) << checker.violations()[0].detail;
  segment(1, offset, 1024);
  EXPECT_EQ(rules(), std::vector<std::string>{"RDCC-GRANT-05"});
}

// A grant that lowers the rate binds what is sent after its reception; the octets sent at the
// old rate just before are not judged against the new one. Sending faster than the new rate
// afterwards is still caught.
TEST_F(CheckerTest, PacingAfterALowerRate_IsJudgedFromThatGrantOn) {
  request(1, 98304);
  grant(1, 98304, true, 100000);
  const Duration fast = transmission_time(4096, 100000);
  std::uint64_t offset = 0;
  for (int i = 0; i < 10; ++i, offset += 4096) {
    segment(1, offset, 4096);
    now += fast;
  }
  grant(1, 98304, true, 10000);  // the same limit, a tenth of the rate
  const Duration slow = transmission_time(4096, 10000);
  for (int i = 0; i < 10; ++i, offset += 4096) {
    segment(1, offset, 4096);
    now += slow;
  }
  EXPECT_TRUE(checker.ok()) << checker.violations()[0].detail;
  for (int i = 0; i < 4; ++i, offset += 4096) segment(1, offset, 4096);  // a burst
  const auto caught = rules();
  ASSERT_FALSE(caught.empty());
  for (const auto& r : caught) EXPECT_EQ(r, "RDCC-GRANT-05");
}

// A grant naming a Message ID the sender has not used yet reaches it; the sender ignores it as
// for an unknown message. The message it then numbers so is not held to that grant's Pacing
// Rate (docs/spec-notes.md, 94: fuzz_sender, random seed 202, where the new message went out
// under the pool at the pool's rate); a grant after the sender's request binds as before.
TEST_F(CheckerTest, GrantForAMessageIdNotYetUsed_BindsNoRate_ARequestedMessagesGrantDoes) {
  checker.on_control_delivered(kReceiver, kSender,
                               grant_of(kAssoc, 1, flag::kFinal, ++rx_seq, 2, 131072, 1), now);
  request_sent(1, ++tx_seq, 2, 131072);
  std::uint64_t offset = 0;
  for (int i = 0; i < 12; ++i, offset += 4096) segment_sent(kAssoc, 2, offset, 4096);  // a burst
  EXPECT_TRUE(checker.ok()) << checker.violations()[0].detail;
  checker.on_control_delivered(kReceiver, kSender,
                               grant_of(kAssoc, 1, flag::kFinal, ++rx_seq, 2, 131072, 10000), now);
  for (int i = 0; i < 12; ++i, offset += 4096) segment_sent(kAssoc, 2, offset, 4096);
  const auto caught = rules();
  ASSERT_FALSE(caught.empty());
  for (const auto& r : caught) EXPECT_EQ(r, "RDCC-GRANT-05");
}

// The same grant, larger than the one the sender later gets for the message, does not take the
// octets the sender sends under the pool beyond that one to the later grant's rate either; and
// it does not end the unscheduled message that later takes the ID (helper review of note 94).
TEST_F(CheckerTest, GrantForAMessageIdNotYetUsed_TakesNoOctetsFromThePool_EndsNoUnscheduled) {
  checker.on_control_delivered(
      kReceiver, kSender, grant_of(kAssoc, 1, flag::kPool, ++rx_seq, 0, 1U << 20U, 100000), now);
  checker.on_control_delivered(kReceiver, kSender,
                               grant_of(kAssoc, 1, flag::kFinal, ++rx_seq, 2, 131072, 1), now);
  request_sent(1, ++tx_seq, 2, 131072);
  checker.on_control_delivered(kReceiver, kSender, grant_of(kAssoc, 1, 0, ++rx_seq, 2, 4096, 1),
                               now);
  // 4096 octets under the message's own grant, then eleven Credit Units under the pool, at once.
  for (std::uint64_t offset = 0; offset < std::uint64_t{12} * 4096; offset += 4096) {
    segment_sent(kAssoc, 2, offset, 4096);
  }
  EXPECT_TRUE(checker.ok()) << checker.violations()[0].detail;
  checker.on_control_delivered(kReceiver, kSender,
                               grant_of(kAssoc, 1, flag::kFinal, ++rx_seq, 4, 1024, 100000), now);
  request_sent(1, ++tx_seq, 3, 1024, 1024);
  request_sent(1, ++tx_seq, 4, 1024, 1024);  // 3 is still outstanding: no grant reached it
  EXPECT_EQ(rules(), std::vector<std::string>{"RDCC-UNSCHED-03"});
}

// Loss recovery (docs/spec-notes.md, "Resent octets: under which grant, counted how, and when a
// receiver asks for them"): octets sent again under the live grant that covers them are
// legal; a resend beyond the Grant Limit or after the Lifetime is caught as any octet is.
TEST_F(CheckerTest, ResentOctets_UnderTheLiveGrant_Pass_BeyondItOrAfterItsLifetime_AreCaught) {
  request(1, 65536);
  grant(1, 16384, false);
  for (std::uint64_t o = 0; o < 16384; o += 4096) segment(1, o, 4096);
  now += microseconds(20);
  segment(1, 4096, 4096);  // named by a NACK: sent again
  EXPECT_TRUE(checker.ok()) << checker.violations()[0].detail;
  segment(1, 16384, 4096);  // "resent" beyond the limit: never sent under it
  EXPECT_EQ(rules(), std::vector<std::string>{"RDCC-GRANT-03"});
  now += microseconds(100);
  segment(1, 8192, 4096);  // again, after the Lifetime
  EXPECT_EQ(rules(), (std::vector<std::string>{"RDCC-GRANT-03", "RDCC-GRANT-04"}));
}

// Under a pool grant a resent octet counts in the pool's limit once: the pool stays within it.
TEST_F(CheckerTest, ResentOctets_UnderThePool_AreCountedOnce_NewOctetsBeyondThePool_AreCaught) {
  request_sent(1, ++tx_seq, 2, 131072);
  checker.on_control_delivered(kReceiver, kSender,
                               grant_of(kAssoc, 1, flag::kPool, ++rx_seq, 0, 16384, 100000), now);
  for (std::uint64_t o = 0; o < 16384; o += 4096) segment_sent(kAssoc, 2, o, 4096);
  now += microseconds(20);
  segment_sent(kAssoc, 2, 0, 4096);
  segment_sent(kAssoc, 2, 8192, 4096);
  EXPECT_TRUE(checker.ok()) << checker.violations()[0].detail;
  segment_sent(kAssoc, 2, 16384, 4096);
  EXPECT_EQ(rules(), std::vector<std::string>{"RDCC-GRANT-03"});
}

// The checker counts what the receiver must process (fuzz_receiver's peers are adversarial):
// a request of an association the receiver never accepted, or with a stale Sequence Number,
// holds no credit, and announced unscheduled octets count up to U only.
TEST_F(CheckerTest, RequestsTheReceiverDiscards_CountNothing) {
  CreditRequest r;
  r.header = {.association_id = kAssoc + 1, .epoch = 1, .sequence_number = 1};
  r.message_id = 1;
  r.message_length = 1U << 20U;
  r.unscheduled_sent = 1U << 20U;
  both_ways(kSender, kReceiver, r);  // unknown association
  r.header = {.association_id = kAssoc, .epoch = 2, .sequence_number = 1};
  both_ways(kSender, kReceiver, r);  // unknown Epoch
  request(2, 4096);
  r.header = {.association_id = kAssoc, .epoch = 1, .sequence_number = tx_seq};
  both_ways(kSender, kReceiver, r);  // not newer than the newest processed
  // Numbers the sender reused (request 2 after the Epoch-2 request, and the last) are its
  // faults ("Common Header"), none the receiver's.
  EXPECT_EQ(rules(), (std::vector<std::string>{"RDCC-FMT-06", "RDCC-FMT-06"}));
  for (const auto& v : checker.violations()) EXPECT_EQ(v.party, Party::Sender);
  EXPECT_EQ(checker.peak_outstanding(kReceiver), 0U);
}

TEST_F(CheckerTest, UnscheduledAnnouncements_CountUpToTheUOfTheAssociation) {
  request(1, 16384, 16384);  // U is 8192: the rest is data beyond the credit
  request(2, 4096, 4096);    // a second one while the first holds U: nothing more
  // The second announcement breaks "one unscheduled message outstanding" (the sender's rule),
  // and still adds nothing to the receiver's budget.
  EXPECT_EQ(rules(), std::vector<std::string>{"RDCC-UNSCHED-03"});
  EXPECT_EQ(checker.peak_outstanding(kReceiver), 8192U);
}

// A lapsed unscheduled window leaves its association's list (rdcc pcap check walked every
// unscheduled message the association ever had, quadratic in them); the live ones still count
// against U: after 100 lapsed messages, two announced within 10 us of each other share U.
TEST_F(CheckerTest, UnscheduledWindows_LiveOnesShareU_AfterLapsedOnesLeftTheList) {
  for (std::uint64_t id = 1; id <= 100; ++id) {
    request(id, 4096, 4096);  // live J + Lifetime + 2 * D_max = 130 us
    segment(id, 0, 4096, true);
    done(id, 4096);
    now += microseconds(200);
  }
  EXPECT_TRUE(checker.ok()) << (checker.ok() ? "" : checker.violations()[0].detail);
  EXPECT_EQ(checker.peak_outstanding(kReceiver), 4096U);
  request(101, 4096, 4096);
  now += microseconds(10);
  request(102, 8192, 8192);  // U = 8192 less 101's 4096: a window of 4096
  now += microseconds(10);
  request(103, 8192, 8192);  // nothing left
  EXPECT_EQ(checker.peak_outstanding(kReceiver), 8192U);
  EXPECT_EQ(rules(), (std::vector<std::string>{"RDCC-UNSCHED-03", "RDCC-UNSCHED-03"}));
}

// fuzz_receiver (regressions data-for-an-older-association, -after-a-refused-request): the
// receiver accepted a second association from the sender's address (another nonce) after the
// first had requested message 7, and the second asked for a message 7 too. The receiver may
// relate data for 7 to either (the second may have been removed as idle, which the checker
// cannot see): it counts for both, and the first one's MSG_DONE is not early.
TEST_F(CheckerTest, DataForAMessageTwoAssociationsOfTheSenderKnow_CountsForBoth) {
  request(7, 1024);
  grant(7, 1024, true);
  second_association_requests(7, 1024);
  checker.on_data_delivered(kReceiver, kSender, 7, 1024, now);
  done(7, 1024);
  EXPECT_TRUE(checker.ok()) << (checker.ok() ? "" : checker.violations()[0].detail);
}

// fuzz_receiver (regression credit-of-a-removed-association): the receiver removed an idle
// association, unseen, and answers ERROR (UNKNOWN_ASSOCIATION) to its sender's next request;
// from then on nothing of that association counts against G (spec-notes 93).
TEST_F(CheckerTest, UnknownAssociationFromTheReceiver_ReleasesWhatTheAssociationHeld) {
  request(1, 65536);
  grant(1, 65536, true);
  unknown_association_then_another_grant(1);
  EXPECT_TRUE(checker.ok()) << (checker.ok() ? "" : checker.violations()[0].detail);
  // Message 1's grant and the window message 2 announced, before the ERROR released both.
  EXPECT_EQ(checker.peak_outstanding(kReceiver), 65536U + 8192U);
}

// ... but not when it answers a request that named another Epoch: the association lives on
// (fuzz_receiver, the first version of the change; spec-notes 93).
TEST_F(CheckerTest, UnknownAssociationAnsweringAnotherEpoch_ReleasesNothing) {
  request(1, 65536);
  grant(1, 65536, true);
  unknown_association_then_another_grant(9);
  EXPECT_EQ(rules(), std::vector<std::string>{"RDCC-BUDGET-01"});
}

// fuzz_receiver (crash-3cb85160, issue 30's merge): a request reached an association idle for
// 21 s, which the receiver had removed unseen; its window counted against G before the ERROR
// (UNKNOWN_ASSOCIATION) that answered it could say so. A window announced to an association idle
// for kIdleUnseen counts only once the receiver shows it holds the association.
class IdleAssociationTest : public CheckerTest {
 protected:
  // kAssoc idle 2 s; then a second association of the sender is granted 96,000 of G = 100,000,
  // and kAssoc announces an unscheduled window of 8192.
  void window_after_idle() {
    now += seconds(2);
    second_association_requests(3, 96000);
    both_ways(kReceiver, kSender, grant_of(0x77, 1, flag::kFinal, 2, 3, 96000, 1000));
    request(5, 65536, 8192);
  }
};

TEST_F(IdleAssociationTest, ReceiverAnswersUnknownAssociation_TheWindowNeverCounts) {
  window_after_idle();
  unknown_association();
  EXPECT_TRUE(checker.ok()) << (checker.ok() ? "" : checker.violations()[0].detail);
  EXPECT_EQ(checker.peak_outstanding(kReceiver), 96000U);
}

TEST_F(IdleAssociationTest, ReceiverShowsItHoldsTheAssociation_TheWindowCounts) {
  window_after_idle();
  EXPECT_TRUE(checker.ok()) << "not yet: the receiver may have removed it";
  grant(5, 8192, false);  // the receiver names kAssoc: it holds it, the window is its
  ASSERT_FALSE(checker.ok());
  for (const std::string& r : rules()) EXPECT_EQ(r, "RDCC-BUDGET-01");
}

TEST_F(IdleAssociationTest, WindowOfAnAssociationInUse_CountsAtOnce) {
  request(9, 4096);  // kAssoc is not idle: its window counts when announced
  second_association_requests(3, 96000);
  both_ways(kReceiver, kSender, grant_of(0x77, 1, flag::kFinal, 2, 3, 96000, 1000));
  request(5, 65536, 8192);
  EXPECT_EQ(rules(), std::vector<std::string>{"RDCC-BUDGET-01"});
}

// A message's length is the one its first request stated; a restated length does not move it.
TEST_F(CheckerTest, RestatedLength_KeepsTheFirst) {
  request(1, 8192);
  request(1, 4096);
  grant(1, 8192, true);
  EXPECT_TRUE(checker.ok());
}

// fuzz_sender's receivers are adversarial: a grant of another Epoch is discarded by the sender
// and leaves the Sequence Numbers alone; an ASSOC_ACCEPT echoing the sender's new nonce with a
// new Epoch starts a new incarnation whose numbering restarts.
TEST_F(CheckerTest, NewEpochFromTheCurrentNonce_RestartsTheSequenceNumbers) {
  ask(0x77);
  request(1, 8192);
  CreditGrant g;
  g.header = {.association_id = kAssoc, .epoch = 9, .sequence_number = 1000};  // another Epoch
  g.message_id = 1;
  g.grant_limit = 8192;
  g.pacing_rate = 1000;
  checker.on_control_delivered(kReceiver, kSender, g, now);
  accept_reaches_sender(0x77, 2);
  g.header = {.association_id = kAssoc, .epoch = 2, .sequence_number = 2};
  checker.on_control_delivered(kReceiver, kSender, g, now);
  segment_sent(kAssoc, 1, 0, 4096);
  EXPECT_TRUE(checker.ok()) << (checker.ok() ? "" : checker.violations()[0].detail);
}

// fuzz_sender (regression sender-status-does-not-move-the-sequence): a sender discards a
// SENDER_STATUS unprocessed, so a grant numbered below it is still newer than the newest
// processed one; a processed grant numbered higher still makes a later lower one stale.
TEST_F(CheckerTest, TypesASenderDoesNotProcess_LeaveItsSequenceNumberAlone) {
  request(1, 16384);
  request(2, 16384);
  SenderStatus st;
  st.header = {.association_id = kAssoc, .epoch = 1, .sequence_number = 555};
  checker.on_control_delivered(kReceiver, kSender, st, now);
  grant(1, 4096, false);  // Sequence Number 2
  segment(1, 0, 4096);
  EXPECT_TRUE(checker.ok()) << (checker.ok() ? "" : checker.violations()[0].detail);

  rx_seq = 555;
  grant(2, 4096, false);  // 556: processed
  rx_seq = 2;
  grant(1, 8192, false);  // 3: stale, the sender must discard it (and the receiver's fault)
  segment(1, 4096, 4096);
  EXPECT_EQ(rules(), (std::vector<std::string>{"RDCC-FMT-06", "RDCC-GRANT-03"}));
}

// fuzz_sender (regression status-after-new-incarnation): an unscheduled message of the old
// incarnation is re-requested in scheduled mode after a new Epoch; a new unscheduled message of
// the new incarnation is not "a second one outstanding".
TEST_F(CheckerTest, NewIncarnation_EndsTheOutstandingUnscheduledMessage) {
  request(1, 4096, 4096);
  AssocAccept a;
  a.header = {.association_id = kAssoc, .epoch = 2, .sequence_number = 1};
  a.unscheduled_limit = 8192;
  a.grant_lifetime = 100;
  a.credit_unit = 4096;
  both_ways(kReceiver, kSender, a);
  CreditRequest r;
  r.header = {.association_id = kAssoc, .epoch = 2, .sequence_number = ++tx_seq};
  r.message_id = 2;
  r.message_length = 4096;
  r.unscheduled_sent = 4096;
  both_ways(kSender, kReceiver, r);
  EXPECT_TRUE(checker.ok()) << (checker.ok() ? "" : checker.violations()[0].detail);
  // Within one incarnation the rule still holds.
  r.header.sequence_number = ++tx_seq;
  r.message_id = 3;
  both_ways(kSender, kReceiver, r);
  EXPECT_EQ(rules(), std::vector<std::string>{"RDCC-UNSCHED-03"});
}

// fuzz_sender (regression unscheduled-after-reassociation): a stray ASSOC_ACCEPT with U = 0 came
// before the sender asked; the ASSOC_ACCEPT that echoes the sender's nonce, with the same Epoch
// and U = 8192, is the one whose parameters bind the sender.
TEST_F(CheckerTest, AcceptEchoingTheCurrentNonce_SetsTheParametersEvenWithTheSameEpoch) {
  AssocAccept stray;
  stray.header = {.association_id = kAssoc, .epoch = 2, .sequence_number = 7};
  stray.sender_nonce = 0x55;
  stray.unscheduled_limit = 0;
  checker.on_control_delivered(kReceiver, kSender, stray, now);
  ask(0x77);
  accept_reaches_sender(0x77, 2, 8192);
  request_sent(2, 1, 1, 1024, 1024);
  segment_sent(kAssoc, 1, 0, 1024, true);
  EXPECT_TRUE(checker.ok()) << (checker.ok() ? "" : checker.violations()[0].detail);
}

// fuzz_sender (regression repeated-accept-moves-the-sequence, CI smoke run): an ASSOC_ACCEPT of
// the current incarnation without Parameter Update is sequence-checked and, being newer,
// processed; it changes no parameter, but its Sequence Number is the newest processed. A pool
// grant numbered 2,885,681,152 is newer than the repeat's 1,313,080,040 (not than the first
// accept's 1), so the sender uses it; a grant numbered 1,000, below the repeat, is stale.
TEST_F(CheckerTest, RepeatedAcceptWithoutUpdate_IsTheNewestProcessedSequenceNumber) {
  ask(0x77);
  accept_reaches_sender(0x77, 2, 0, 1);
  accept_reaches_sender(0x77, 2, 8192, 1313080040);  // no Parameter Update: U stays 0
  request_sent(2, 1, 1, 65536);
  grant_reaches_sender(kAssoc, 2, 1000, 1, 65536);  // stale: the sender discards it
  segment_sent(kAssoc, 1, 0, 4096);
  EXPECT_EQ(rules(), std::vector<std::string>{"RDCC-GRANT-03"});

  grant_reaches_sender(kAssoc, 2, 2885681152U, 0, 8192, flag::kPool);
  segment_sent(kAssoc, 1, 0, 4096);
  EXPECT_EQ(rules(), std::vector<std::string>{"RDCC-GRANT-03"});  // nothing new

  // The repeat's U was not taken: an unscheduled message is beyond U = 0.
  request_sent(2, 2, 2, 1024, 1024);
  segment_sent(kAssoc, 2, 0, 1024, true);
  EXPECT_EQ(rules(), (std::vector<std::string>{"RDCC-GRANT-03", "RDCC-MODE-03"}));
}

// fuzz_sender (regression accept-of-an-earlier-association, CI smoke run): after association
// 0x2 (Epoch 20817) replaced kAssoc (Epoch 2), an ASSOC_ACCEPT echoing the nonce that names
// kAssoc and Epoch 2 again is, to the sender, a new Epoch: a new incarnation with its own U.
// From then on grants of 0x2 give nothing, as the sender discards them.
TEST_F(CheckerTest, AcceptNamingAnEarlierAssociation_StartsAnIncarnation) {
  constexpr std::uint32_t kOther = 0x2;
  ask(0x77);
  accept_reaches_sender(0x77, 2, 1, 0);
  accept_reaches_sender(0x77, 20817, 1, 0, kOther);
  accept_reaches_sender(0x77, 2, 8192, 1);
  request_sent(2, 1, 4, 1024, 1024);
  segment_sent(kAssoc, 4, 0, 1024, true);
  EXPECT_TRUE(checker.ok()) << (checker.ok() ? "" : checker.violations()[0].detail);

  // An accept of Association ID zero is refused like one with a wrong nonce: it is no
  // association, and kAssoc's grants still count (fuzz_sender, regression
  // accept-of-association-zero).
  accept_reaches_sender(0x77, 2, 0, 2, 0);
  grant_reaches_sender(kAssoc, 2, 2, 6, 4096);
  segment_sent(kAssoc, 6, 0, 4096);
  EXPECT_TRUE(checker.ok()) << (checker.ok() ? "" : checker.violations()[0].detail);

  grant_reaches_sender(kOther, 20817, 7, 5, 4096);
  segment_sent(kOther, 5, 0, 4096);
  EXPECT_EQ(rules(), std::vector<std::string>{"RDCC-GRANT-03"});
}

// "A sender accepts a new Epoch only from an ASSOC_ACCEPT that echoes its current Sender
// Nonce" (RDCC-ASSOC-08): a message of the sender naming an association that only accepts
// echoing another nonce named took one of them; found whenever it comes (no window bounds
// it), once. One the right accept named too is the sender's.
TEST_F(CheckerTest, SenderUsingAnAssociationOnlyAWrongNonceNamed_IsCaught) {
  constexpr std::uint32_t kWrong = 0x0BADC0DE;
  ask(0x77);
  accept_reaches_sender(0x78, 5, 0, 1, kWrong);
  accept_reaches_sender(0x77, 2, 0, 1);
  request_sent(2, 1, 1, 4096);
  EXPECT_TRUE(checker.ok()) << (checker.ok() ? "" : checker.violations()[0].detail);
  CreditRequest r = request_of(5, 1, 1, 4096, 0);
  r.header.association_id = kWrong;
  checker.on_control_sent(kSender, kReceiver, r, now);
  EXPECT_EQ(rules(), std::vector<std::string>{"RDCC-ASSOC-08"});
  r.header.sequence_number = 2;
  checker.on_control_sent(kSender, kReceiver, r, now);
  EXPECT_EQ(rules(), std::vector<std::string>{"RDCC-ASSOC-08"});  // reported once

  // An association a wrong nonce named first and the current one then is the sender's.
  constexpr std::uint32_t kLater = 0x0C0FFEE;
  accept_reaches_sender(0x76, 6, 0, 1, kLater);
  accept_reaches_sender(0x77, 6, 0, 2, kLater);
  r.header = {.association_id = kLater, .epoch = 6, .sequence_number = 3};
  checker.on_control_sent(kSender, kReceiver, r, now);
  EXPECT_EQ(rules(), std::vector<std::string>{"RDCC-ASSOC-08"});
}

// fuzz_sender (regression pool-flag-with-message-id-keeps-the-pool-lifetime): "A grant with
// Message ID zero and the POOL flag set is a pool grant"; one with the POOL flag and a Message
// ID, or Message ID zero without POOL, is neither a pool grant nor a grant for a message. The
// sender ignores it (Sender.PoolFlagWithAMessageId_OrMessageIdZeroWithoutPool_IsIgnored), so
// it neither shortens the pool's Lifetime nor gives the named message credit
// (docs/spec-notes.md, 81).
TEST_F(CheckerTest, PoolFlagWithAMessageId_IsNeitherAPoolGrantNorAMessageGrant) {
  request(1, 65536);
  request(2, 65536);
  CreditGrant pool;
  pool.header = {
      .association_id = kAssoc, .epoch = 1, .flags = flag::kPool, .sequence_number = ++rx_seq};
  pool.grant_limit = 16384;
  pool.pacing_rate = 100000;
  both_ways(kReceiver, kSender, pool);  // the default Lifetime, 100 us
  segment(2, 0, 4096);

  CreditGrant odd = pool;
  odd.header.sequence_number = ++rx_seq;
  odd.header.flags = flag::kPool | flag::kFinal;
  odd.message_id = 1;
  odd.grant_limit = 65536;
  odd.lifetime = 1;
  both_ways(kReceiver, kSender, odd);  // the receiver's fault
  now += microseconds(2);
  segment(2, 4096, 4096);  // the pool's 100 us still run
  EXPECT_EQ(rules(), std::vector<std::string>{"RDCC-GRANT-14"});
  segment(1, 0, 4096);  // message 1 holds no credit of its own and the pool has 8192 left
  segment(1, 4096, 4096);
  segment(1, 8192, 4096);
  EXPECT_EQ(rules(), (std::vector<std::string>{"RDCC-GRANT-14", "RDCC-GRANT-03"}));
}

TEST_F(CheckerTest, MessageIdZeroWithoutPool_GivesNoCredit) {
  request(1, 65536);
  grant(0, 65536, false);  // the receiver's fault
  segment(1, 0, 4096);
  EXPECT_EQ(rules(), (std::vector<std::string>{"RDCC-GRANT-14", "RDCC-GRANT-03"}));
}

// fuzz_sender (regression pool-grant-after-a-grant-older-than-the-accept): the ASSOC_ACCEPT
// that starts an incarnation is the first message the sender processes in it, so its Sequence
// Number is the newest processed one: a grant numbered before it (2,885,832,522 after 1, in
// serial arithmetic) is stale and gives nothing, and does not make the next fresh grant
// (1,339,545,559) look stale (docs/spec-notes.md, 85).
TEST_F(CheckerTest, NewIncarnation_TheAcceptsSequenceNumberIsTheNewestProcessed) {
  ask(0x77);
  accept_reaches_sender(0x77, 2);
  request(1, 65536);
  CreditGrant pool;
  pool.header = {
      .association_id = kAssoc, .epoch = 2, .flags = flag::kPool, .sequence_number = 2885832522U};
  pool.grant_limit = 8192;
  pool.pacing_rate = 100000;
  checker.on_control_delivered(kReceiver, kSender, pool, now);
  DataSegment s;
  s.receiver = kReceiver;
  s.association_id = kAssoc;
  s.message_id = 1;
  s.length = 4096;
  checker.on_segment_sent(kSender, s, now);
  EXPECT_EQ(rules(), std::vector<std::string>{"RDCC-GRANT-03"});  // the stale grant gave nothing
  pool.header.sequence_number = 1339545559U;
  checker.on_control_delivered(kReceiver, kSender, pool, now);
  s.offset = 4096;
  checker.on_segment_sent(kSender, s, now);
  EXPECT_EQ(rules(), std::vector<std::string>{"RDCC-GRANT-03"});  // the fresh one did
}

// Expiries of one moment are taken in the order they were scheduled: grants 1 and 3, sent
// together, expire together, 1 first, which leaves 100000 (not beyond G); 3 first would leave
// 105000 for a moment and report it.
TEST_F(CheckerTest, ExpiriesOfOneMoment_AreTakenInTheOrderScheduled) {
  request(1, 1U << 20U);
  request(2, 1U << 20U);
  request(3, 1U << 20U);
  grant(1, 10000, false);
  grant(3, 5000, false);
  now += microseconds(1);
  grant(2, 95000, false);  // 110000 > G = 100000
  EXPECT_EQ(rules(), std::vector<std::string>{"RDCC-BUDGET-01"});
  now += microseconds(100 + 20 - 1);  // grants 1 and 3: Lifetime + 2 * D_max
  grant(2, 95000, false);             // the checker sees the moment
  EXPECT_EQ(rules(), std::vector<std::string>{"RDCC-BUDGET-01"});
  EXPECT_EQ(checker.violation_count(), 1U);
}

// `rdcc pcap check` feeds each control message once, sent and delivered at one moment; the
// checker must then judge it as it does a message sent and delivered at once, including what
// sending it schedules for that very moment (a Lifetime of zero with D_max zero).
TEST(InvariantCheckerObserved, ObservedControl_IsTheSameAsSentThenDelivered) {
  InvariantChecker both;
  InvariantChecker observed;
  for (InvariantChecker* c : {&both, &observed}) c->add_receiver(kReceiver, 100000, Duration{});
  std::vector<std::pair<bool, Message>> flow;  // (from the receiver, message)
  AssocRequest q;
  q.sender_nonce = 7;
  flow.emplace_back(false, q);
  AssocAccept a;
  a.header = {.association_id = kAssoc, .epoch = 1, .sequence_number = 1};
  a.sender_nonce = 7;
  a.unscheduled_limit = 8192;
  a.credit_unit = 4096;  // Grant Lifetime zero
  flow.emplace_back(true, a);
  std::uint32_t tx_seq = 0;
  std::uint32_t rx_seq = 1;
  for (std::uint64_t id = 1; id <= 3; ++id) {
    CreditRequest r;
    r.header = {.association_id = kAssoc, .epoch = 1, .sequence_number = ++tx_seq};
    r.message_id = id;
    r.message_length = 65536;
    r.unscheduled_sent = id == 2 ? 4096 : 0;
    flow.emplace_back(false, r);
    for (const std::uint64_t limit : {40000U, 70000U, 30000U}) {  // beyond G, then reduced
      CreditGrant g;
      g.header = {.association_id = kAssoc, .epoch = 1, .sequence_number = ++rx_seq};
      g.message_id = id;
      g.grant_limit = limit;
      g.lifetime = limit == 70000U ? 50 : 0;
      g.pacing_rate = 1000;
      flow.emplace_back(true, g);
    }
    MsgDone d;  // before the octets arrived
    d.header = {.association_id = kAssoc, .epoch = 1, .sequence_number = ++rx_seq};
    d.message_id = id;
    flow.emplace_back(true, d);
  }
  Time t{};
  for (const auto& [from_receiver, m] : flow) {
    const Address& from = from_receiver ? kReceiver : kSender;
    const Address& to = from_receiver ? kSender : kReceiver;
    both.on_control_sent(from, to, m, t);
    both.on_control_delivered(from, to, m, t);
    observed.on_control_observed(from, to, m, t);
    t += microseconds(20);
  }
  ASSERT_FALSE(both.ok());
  ASSERT_EQ(observed.violations().size(), both.violations().size());
  for (std::size_t i = 0; i < both.violations().size(); ++i) {
    EXPECT_EQ(observed.violations()[i].time, both.violations()[i].time);
    EXPECT_EQ(observed.violations()[i].rule, both.violations()[i].rule);
    EXPECT_EQ(observed.violations()[i].detail, both.violations()[i].detail);
  }
  EXPECT_EQ(observed.peak_outstanding(kReceiver), both.peak_outstanding(kReceiver));
}

// ---- the rules `rdcc pcap check` alone held until they moved into the checker --------------

TEST_F(CheckerTest, StaleSequenceNumber_IsHeldAgainstItsOriginator) {
  request(1, 8192);
  grant(1, 8192, true);
  const CreditGrant g = grant_of(kAssoc, 1, flag::kFinal, rx_seq, 1, 8192, 1000);  // a copy
  checker.on_control_observed(kReceiver, kSender, g, now, 7);
  ASSERT_EQ(rules(), std::vector<std::string>{"RDCC-FMT-06"});
  EXPECT_EQ(checker.violations()[0].party, Party::Receiver);
  EXPECT_EQ(checker.violations()[0].related, 0U);  // the grant was sent without a tag
  // A copy of the sender's request: held against the sender, naming the earlier one's tag.
  const CreditRequest r = request_of(1, ++tx_seq, 2, 4096, 0);
  checker.on_control_observed(kSender, kReceiver, r, now, 8);
  checker.on_control_observed(kSender, kReceiver, r, now, 9);
  ASSERT_EQ(rules(), (std::vector<std::string>{"RDCC-FMT-06", "RDCC-FMT-06"}));
  EXPECT_EQ(checker.violations()[1].party, Party::Sender);
  EXPECT_EQ(checker.violations()[1].related, 8U);
  EXPECT_NE(checker.violations()[1].detail.find("an identical copy"), std::string::npos)
      << checker.violations()[1].detail;
}

TEST_F(CheckerTest, StaleSequenceNumber_IsDiscardedWhereThePathShowsCopies) {
  checker.set_discard_stale(true);
  const CreditRequest r = request_of(1, ++tx_seq, 1, 65536, 0);
  EXPECT_TRUE(checker.on_control_observed(kSender, kReceiver, r, now));
  EXPECT_FALSE(checker.on_control_observed(kSender, kReceiver, r, now));
  EXPECT_TRUE(checker.ok());
  EXPECT_EQ(checker.stale_count(), 1U);
}

TEST_F(CheckerTest, NewEpoch_RestartsTheNumbers) {
  request(1, 8192);
  AssocAccept a;
  a.header = {.association_id = kAssoc, .epoch = 2, .sequence_number = 1};
  both_ways(kReceiver, kSender, a);
  both_ways(kSender, kReceiver, request_of(2, 1, 2, 8192, 0));
  EXPECT_TRUE(checker.ok()) << rules()[0];
}

TEST_F(CheckerTest, MsgDoneForAMessageNeverRequested_IsCaught) {
  done(9, 0);
  EXPECT_EQ(rules(), std::vector<std::string>{"RDCC-GRANT-13"});
}

TEST_F(CheckerTest, UnsupportedTypeErrorWithoutAnAssociation_IsCaught) {
  ErrorMessage e;
  e.header = {.association_id = 0x99, .epoch = 1, .sequence_number = 1};
  e.reason = static_cast<std::uint16_t>(ReasonCode::UnsupportedType);
  both_ways(kReceiver, kSender, e);
  EXPECT_EQ(rules(), std::vector<std::string>{"RDCC-ERR-08"});
  e.header = {.association_id = kAssoc, .epoch = 1, .sequence_number = ++rx_seq};
  both_ways(kReceiver, kSender, e);  // on the accepted association: allowed
  EXPECT_EQ(rules(), std::vector<std::string>{"RDCC-ERR-08"});
}

TEST_F(CheckerTest, UnknownAssociationErrorWithoutARequest_IsCaught) {
  ErrorMessage e;
  e.header = {.association_id = 0x99, .epoch = 1, .sequence_number = 0};
  e.reason = static_cast<std::uint16_t>(ReasonCode::UnknownAssociation);
  both_ways(kReceiver, kSender, e);
  EXPECT_EQ(rules(), std::vector<std::string>{"RDCC-ERR-10"});
  CreditRequest r = request_of(1, 1, 1, 4096, 0);
  r.header.association_id = 0x99;
  both_ways(kSender, kReceiver, r);
  both_ways(kReceiver, kSender, e);  // in answer to a request: allowed
  EXPECT_EQ(rules(), std::vector<std::string>{"RDCC-ERR-10"});
}

TEST_F(CheckerTest, PoolFlagWithAMessageId_IsCaught) {
  request(1, 8192);
  both_ways(kReceiver, kSender, grant_of(kAssoc, 1, flag::kPool, ++rx_seq, 1, 4096, 1000));
  EXPECT_EQ(rules(), std::vector<std::string>{"RDCC-GRANT-14"});
}

TEST(Checker, PoolGrantToASenderThatDidNotAdvertisePool_IsCaught) {
  for (const bool advertised : {false, true}) {
    InvariantChecker checker;
    checker.add_receiver(kReceiver, 100000, microseconds(10));
    AssocRequest q;
    q.sender_nonce = 5;
    q.capabilities = advertised ? capability::kPool : 0;
    checker.on_control_observed(kSender, kReceiver, q, Time{}, 1);
    AssocAccept a;
    a.header = {.association_id = kAssoc, .epoch = 1, .sequence_number = 1};
    a.sender_nonce = 5;
    a.grant_lifetime = 100;
    checker.on_control_observed(kReceiver, kSender, a, Time{}, 2);
    CreditGrant g;
    g.header = {.association_id = kAssoc, .epoch = 1, .flags = flag::kPool, .sequence_number = 2};
    g.grant_limit = 4096;
    g.pacing_rate = 1000;
    checker.on_control_observed(kReceiver, kSender, g, Time{}, 3);
    if (advertised) {
      EXPECT_TRUE(checker.ok());
    } else {
      ASSERT_EQ(checker.violations().size(), 1U);
      EXPECT_EQ(checker.violations()[0].rule, "RDCC-GRANT-08");
      EXPECT_EQ(checker.violations()[0].related, 1U);  // the ASSOC_REQUEST
    }
  }
}

// What the checker keeps grows with the live messages (docs/spec-notes.md, "When the invariant
// checker forgets a message"): each finished message retires once nothing has named it for
// J + Lifetime + 2 * D_max (10 + 100 + 20 us here), and faults on live messages are still caught.
class ForgettingTest : public CheckerTest {
 protected:
  // Message `id` of 4 KiB from request to MSG_DONE, then 10 us later.
  void whole_message(std::uint64_t id) {
    request(id, 4096);
    grant(id, 4096, true);
    segment(id, 0, 4096);
    done(id, 4096);
    now += microseconds(10);
  }
};

TEST_F(ForgettingTest, FinishedMessages_AreForgotten_WhileALiveOnesFaultIsCaught) {
  std::size_t most = 0;
  for (std::uint64_t id = 1; id <= 5000; ++id) {
    whole_message(id);
    most = std::max(most, checker.tracked_messages());
  }
  EXPECT_LE(most, 16U);  // 130 us of messages 10 us apart, and the one in hand
  EXPECT_TRUE(checker.ok()) << (checker.ok() ? "" : checker.violations()[0].detail);
  now += milliseconds(1);
  request(5001, 8192);  // live: held to its length
  EXPECT_EQ(checker.tracked_messages(), 1U);
  EXPECT_EQ(checker.retired_messages(), 5000U);
  grant(5001, 12288, true);
  EXPECT_EQ(rules(), (std::vector<std::string>{"RDCC-GRANT-07", "RDCC-GRANT-12"}));
}

TEST_F(ForgettingTest, RetiredMessage_RepeatedRequestAndMsgDone_AreNoFault) {
  whole_message(1);
  now += milliseconds(1);
  whole_message(2);  // message 1 retires meanwhile
  ASSERT_EQ(checker.retired_messages(), 1U);
  // A request retransmitted long after (its MSG_DONE lost, say), answered with MSG_DONE again;
  // a late copy of its data: the receiver counts nothing for it, and no fault is found.
  request(1, 4096);
  checker.on_data_delivered(kReceiver, kSender, 1, 4096, now);
  done(1, 4096);
  EXPECT_TRUE(checker.ok()) << (checker.ok() ? "" : checker.violations()[0].detail);
  EXPECT_EQ(checker.peak_outstanding(kReceiver), 4096U);
}

TEST_F(ForgettingTest, RetiredMessage_IsHeldToItsLengthOnceARequestNamesItAgain) {
  whole_message(1);
  now += milliseconds(1);
  whole_message(2);
  ASSERT_EQ(checker.retired_messages(), 1U);
  request(1, 4096);
  grant(1, 8192, true);
  EXPECT_EQ(rules(), (std::vector<std::string>{"RDCC-GRANT-07", "RDCC-GRANT-12"}));
}

TEST_F(ForgettingTest, RetiredMessage_DataWithoutCredit_IsCaught) {
  whole_message(1);
  now += milliseconds(1);
  whole_message(2);
  ASSERT_EQ(checker.retired_messages(), 1U);
  // Its grant's Lifetime elapsed long ago: no credit covers these octets.
  checker.on_segment_sent(kSender, segment_of(kAssoc, 1, 0, 4096, false), now);
  EXPECT_EQ(rules(), std::vector<std::string>{"RDCC-GRANT-03"});
}

// A message that never ends (no MSG_DONE) is live, and is kept.
TEST_F(ForgettingTest, UnfinishedMessage_IsKept) {
  request(1, 8192);
  grant(1, 4096, false);
  segment(1, 0, 4096);
  now += milliseconds(10);
  whole_message(2);
  now += milliseconds(10);
  whole_message(3);
  EXPECT_EQ(checker.retired_messages(), 1U);
  EXPECT_EQ(checker.tracked_messages(), 2U);  // 1, and 3 (not yet quiet)
}

}  // namespace
}  // namespace rdcc::checker

namespace rdcc::checker {
namespace {

// "A sender that receives ERROR (UNKNOWN_ASSOCIATION) carrying its Association ID MUST discard
// all credit held for that association": octets it sent under that credit before the ERROR are
// fine; one octet after it is RDCC-ASSOC-04, though the grant's Lifetime has not elapsed.
TEST_F(CheckerTest, CreditUsedAfterUnknownAssociation_IsCaught) {
  hold_grant(100000);
  segment(1, 0, 4096);
  EXPECT_TRUE(checker.ok()) << checker.violations()[0].detail;
  unknown_association();
  now += microseconds(10);
  segment(1, 4096, 4096);
  EXPECT_EQ(rules(), std::vector<std::string>{"RDCC-ASSOC-04"});
}

// "New Limit MUST NOT be smaller than the octets already transmitted": a CREDIT_RETURN below
// the octets the checker saw the sender send is RDCC-FMT-11; one at or above them is not.
TEST_F(CheckerTest, CreditReturnBelowTheOctetsTransmitted_IsCaught) {
  hold_grant(100000);
  segment(1, 0, 4096);
  segment(1, 4096, 4096);
  CreditReturn r;
  r.header = {.association_id = kAssoc, .epoch = 1, .sequence_number = ++tx_seq};
  r.message_id = 1;
  r.new_limit = 8192;
  both_ways(kSender, kReceiver, r);
  EXPECT_TRUE(checker.ok()) << checker.violations()[0].detail;
  r.header.sequence_number = ++tx_seq;
  r.new_limit = 4096;
  both_ways(kSender, kReceiver, r);
  EXPECT_EQ(rules(), std::vector<std::string>{"RDCC-FMT-11"});
}

// On real sockets the sender may read the ERROR late: within the slack its data is not held
// against it, after it it is.
TEST_F(CheckerTest, CreditUsedAfterUnknownAssociation_WithinTheSlack_IsNotCaught) {
  checker.set_discard_slack(milliseconds(2));
  hold_grant(1000);
  unknown_association();
  now += milliseconds(1);
  segment(1, 0, 4096);
  EXPECT_TRUE(checker.ok()) << checker.violations()[0].detail;
  now += milliseconds(2);
  segment(1, 4096, 4096);
  EXPECT_EQ(rules(), std::vector<std::string>{"RDCC-ASSOC-04"});
}

// Where reception is unseen, a grant sent just before the ERROR may have been read before it: data
// under it within the slack is not held against the sender (a sender node on a loaded host sent
// its first packet 3 ms after the tester's ERROR, in explore-sender-1-7); after the slack it is.
TEST_F(CheckerTest, GrantStillUnprovenAtUnknownAssociation_IsHeldUntilTheSlack) {
  checker.set_grant_reception_unseen(true);
  checker.set_discard_slack(milliseconds(20));
  ask(7);
  accept_reaches_sender(7, 1);
  request(1, 65536);
  CreditGrant g = grant_of(kAssoc, 1, flag::kFinal, ++rx_seq, 1, 65536, 100000);
  g.lifetime = 100000;  // 100 ms, as explore's grant
  both_ways(kReceiver, kSender, g);
  now += microseconds(200);
  unknown_association();
  now += milliseconds(3);
  segment(1, 0, 4096);
  EXPECT_TRUE(checker.ok()) << checker.violations()[0].detail;
  now += milliseconds(20);
  segment(1, 4096, 4096);
  EXPECT_EQ(rules(), std::vector<std::string>{"RDCC-ASSOC-04"});
}

// Octets below a message's own Grant Limit that its own pace would not admit, while pool credit
// covers them, may have gone under the pool (in the same instant as the own grant, before the
// sender read it): no RDCC-GRANT-05. Without pool credit the same burst is one.
class PoolBurstTest : public CheckerTest {
 protected:
  // The sender's side alone (no receiver budget in play): a 1 MiB message, a pool grant of
  // 1 MiB if `pool`, its own grant of 80000 octets at 1000 Mbit/s, then four segments of 20000
  // octets in one instant (ten Credit Units of 4096 and one segment allowed).
  void burst(bool pool) {
    ask(7);
    accept_reaches_sender(7, 1);
    request_sent(1, 1, 1, 1 << 20);
    std::uint32_t seq = 10;
    if (pool) {
      CreditGrant p = grant_of(kAssoc, 1, flag::kPool, ++seq, 0, 1 << 20, 1000);
      p.lifetime = 100000;
      checker.on_control_delivered(kReceiver, kSender, p, now);
    }
    CreditGrant g = grant_of(kAssoc, 1, 0, ++seq, 1, 80000, 1000);
    g.lifetime = 100000;
    checker.on_control_delivered(kReceiver, kSender, g, now);
    for (std::uint32_t off = 0; off < 80000; off += 20000) segment_sent(kAssoc, 1, off, 20000);
  }
};

TEST_F(PoolBurstTest, CoveredByThePool_IsNotAPacingFault) {
  burst(true);
  EXPECT_TRUE(checker.ok()) << checker.violations()[0].detail;
}

TEST_F(PoolBurstTest, WithoutThePool_IsAPacingFault) {
  burst(false);
  ASSERT_FALSE(checker.ok());
  EXPECT_EQ(checker.violations()[0].rule, "RDCC-GRANT-05");
}

// Rule 4 binds "the message" to "the Pacing Rate", and a pool grant carries one: a message sent
// under the pool is paced at the pool grant's rate. Each message is judged on its own (the
// sender may pace the pool's messages together, as the reference does, which keeps each
// within it): two messages of ten Credit Units at once each pass; eleven Credit Units and one
// more segment of one message at once are RDCC-GRANT-05 (before, pool credit could be sent at
// any rate).
TEST_F(CheckerTest, PoolCredit_IsPacedAtThePoolGrantsRate_EachMessageOnItsOwn) {
  ask(7);
  accept_reaches_sender(7, 1);
  request_sent(1, 1, 1, 1 << 20);
  request_sent(1, 2, 2, 1 << 20);
  CreditGrant p = grant_of(kAssoc, 1, flag::kPool, 10, 0, 1 << 21, 1000);
  p.lifetime = 100000;
  checker.on_control_delivered(kReceiver, kSender, p, now);
  for (const std::uint64_t id : {1ULL, 2ULL}) {
    for (std::uint32_t off = 0; off < 10 * 4096; off += 4096) segment_sent(kAssoc, id, off, 4096);
  }
  EXPECT_TRUE(checker.ok()) << checker.violations()[0].detail;
  now += transmission_time(std::uint64_t{10} * 4096, 1000);  // one window later: ten more each
  for (const std::uint64_t id : {1ULL, 2ULL}) {
    for (std::uint32_t off = 10 * 4096; off < 20 * 4096; off += 4096) {
      segment_sent(kAssoc, id, off, 4096);
    }
  }
  EXPECT_TRUE(checker.ok()) << checker.violations()[0].detail;
  segment_sent(kAssoc, 1, 20 * 4096, 4096);  // the segment at the window's end
  EXPECT_TRUE(checker.ok()) << checker.violations()[0].detail;
  segment_sent(kAssoc, 1, 21 * 4096, 4096);
  EXPECT_EQ(rules(), std::vector<std::string>{"RDCC-GRANT-05"});
}

// Pool credit covers the association's messages, not octets past a message's end: 64 KiB of a
// 16 KiB message sent under a 1 MiB pool is 48 KiB of nothing's credit.
TEST_F(CheckerTest, PoolCredit_DoesNotCoverOctetsPastTheMessagesEnd) {
  ask(7);
  accept_reaches_sender(7, 1);
  request_sent(1, 1, 1, 16384);
  CreditGrant p = grant_of(kAssoc, 1, flag::kPool, 10, 0, 1 << 20, 100000);
  p.lifetime = 100000;
  checker.on_control_delivered(kReceiver, kSender, p, now);
  for (std::uint32_t off = 0; off < 16384; off += 4096) segment_sent(kAssoc, 1, off, 4096);
  EXPECT_TRUE(checker.ok()) << checker.violations()[0].detail;
  segment_sent(kAssoc, 1, 16384, 4096);
  ASSERT_EQ(rules(), std::vector<std::string>{"RDCC-GRANT-03"});
  EXPECT_NE(checker.violations()[0].detail.find("beyond its length 16384"), std::string::npos)
      << checker.violations()[0].detail;
}

// "SENDER_STATUS carries the Unused Credit on that association": never more than the credit
// delivered on it and not yet used. 64 KiB granted, 16 KiB sent: 48 KiB may be reported, not
// more (an automatic mutant reported 2^64 - 1399, the difference of a limit below the octets
// sent under the pool, wrapped).
TEST_F(CheckerTest, SenderStatus_ReportsNoMoreUnusedCreditThanWasDeliveredAndNotUsed) {
  ask(7);
  accept_reaches_sender(7, 1);
  request_sent(1, 1, 1, 1 << 20);
  grant_reaches_sender(kAssoc, 1, 2, 1, 65536);
  for (std::uint32_t off = 0; off < 16384; off += 4096) segment_sent(kAssoc, 1, off, 4096);
  SenderStatus st;
  st.header = {.association_id = kAssoc, .epoch = 1, .sequence_number = 2};
  // In the instant of the burst the status may predate it (composed first, sent after it).
  st.unused_credit = 65536;
  checker.on_control_sent(kSender, kReceiver, st, now);
  EXPECT_TRUE(checker.ok()) << checker.violations()[0].detail;
  now += microseconds(1);
  st.header.sequence_number = 3;
  st.unused_credit = 49152;
  checker.on_control_sent(kSender, kReceiver, st, now);
  EXPECT_TRUE(checker.ok()) << checker.violations()[0].detail;
  // A pool grant's credit counts whole (the checker does not split pool octets from own ones).
  CreditGrant pool = grant_of(kAssoc, 1, flag::kPool, 3, 0, 8192, 100000);
  pool.lifetime = 100000;
  checker.on_control_delivered(kReceiver, kSender, pool, now);
  st.header.sequence_number = 4;
  st.unused_credit = 49152 + 8192;
  checker.on_control_sent(kSender, kReceiver, st, now);
  EXPECT_TRUE(checker.ok()) << checker.violations()[0].detail;
  st.header.sequence_number = 5;
  st.unused_credit = 49152 + 8192 + 1;
  checker.on_control_sent(kSender, kReceiver, st, now);
  ASSERT_EQ(rules(), std::vector<std::string>{"RDCC-STATUS-04"});
  EXPECT_NE(checker.violations()[0].detail.find("more than the 57344 octets"), std::string::npos)
      << checker.violations()[0].detail;
}

// Observed in real time (a timing tolerance), the status may have been composed before any of
// the data seen: only the credit delivered bounds it, whatever was sent.
TEST_F(CheckerTest, SenderStatus_InRealTime_IsBoundedByTheCreditDelivered) {
  checker.set_timing_tolerance(microseconds(200));
  ask(7);
  accept_reaches_sender(7, 1);
  request_sent(1, 1, 1, 1 << 20);
  grant_reaches_sender(kAssoc, 1, 2, 1, 65536);
  for (std::uint32_t off = 0; off < 16384; off += 4096) segment_sent(kAssoc, 1, off, 4096);
  now += milliseconds(5);
  SenderStatus st;
  st.header = {.association_id = kAssoc, .epoch = 1, .sequence_number = 2};
  st.unused_credit = 65536;
  checker.on_control_sent(kSender, kReceiver, st, now);
  EXPECT_TRUE(checker.ok()) << checker.violations()[0].detail;
  st.header.sequence_number = 3;
  st.unused_credit = 65537;
  checker.on_control_sent(kSender, kReceiver, st, now);
  EXPECT_EQ(rules(), std::vector<std::string>{"RDCC-STATUS-04"});
}

// A capture that starts after the ASSOC_REQUEST may miss grants: no bound is judged there.
TEST_F(CheckerTest, SenderStatus_NotJudgedWhereTheAssociationsStartWasNotSeen) {
  accept_reaches_sender(7, 1);
  request_sent(1, 1, 1, 1 << 20);
  SenderStatus st;
  st.header = {.association_id = kAssoc, .epoch = 1, .sequence_number = 2};
  st.unused_credit = 1 << 30;
  checker.on_control_sent(kSender, kReceiver, st, now);
  EXPECT_TRUE(checker.ok()) << checker.violations()[0].detail;
}

// The credit of a re-established association is credit again.
TEST_F(CheckerTest, CreditOfTheReestablishedAssociation_IsUsable) {
  ask(7);
  accept_reaches_sender(7, 1);
  request(1, 65536);
  both_ways(kReceiver, kSender, grant_of(kAssoc, 1, 0, ++rx_seq, 1, 32768, 100000));
  unknown_association();
  ask(8);
  accept_reaches_sender(8, 2, 0, 50, 0x99);
  CreditRequest again = request_of(2, 1, 1, 65536, 0);
  again.header.association_id = 0x99;
  checker.on_control_sent(kSender, kReceiver, again, now);
  both_ways(kReceiver, kSender, grant_of(0x99, 2, 0, 51, 1, 32768, 100000));
  segment_sent(0x99, 1, 0, 4096);
  EXPECT_TRUE(checker.ok()) << checker.violations()[0].detail;
}

}  // namespace
}  // namespace rdcc::checker
