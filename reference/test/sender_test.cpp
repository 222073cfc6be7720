// The reference Sender, driven directly: crafted, encoded control messages in, virtual time,
// fixed seeds. Every test quotes the sentence of the spec it holds the sender to.
#include "rdcc/reference/sender.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <string>
#include <vector>

#include "rdcc/codec/codec.hpp"
#include "rdcc/codec/rocev2.hpp"
#include "sender_harness.hpp"

namespace rdcc::ref {
namespace {

// ---------------------------------------------------------------------------------------------
// Association Establishment

// "a sender sends ASSOC_REQUEST to the receiver's RDCC port, carrying a 64-bit random Sender
// Nonce, its capabilities, and its line rate." "The reserved words make ASSOC_REQUEST as large
// as ASSOC_ACCEPT"
TEST(Sender, AssocRequest_CarriesNonceCapabilitiesLineRateAndIsPaddedTo48Octets) {
  Harness h;
  (void)h.submit(1000);
  ASSERT_EQ(h.datagrams.size(), 1U);
  EXPECT_EQ(h.datagrams[0].size, 48U);
  EXPECT_EQ(h.datagrams[0].to, kRecv);
  const auto r = h.last<AssocRequest>();
  SeededRandom same(7);
  EXPECT_EQ(r.sender_nonce, same.next_u64()) << "the nonce comes from the injected generator";
  EXPECT_EQ(r.capabilities, h.cfg.capabilities);
  EXPECT_EQ(r.line_rate, h.cfg.line_rate_mbps);
  EXPECT_EQ(r.header.association_id, 0U);
  EXPECT_EQ(r.header.epoch, 0U);
  EXPECT_EQ(r.reserved, (std::array<std::uint32_t, 4>{}));
}

// "The sender retransmits ASSOC_REQUEST with exponential backoff, starting at 1 ms and
// doubling, for at most eight attempts; if none is answered, the sender concludes that the
// receiver does not support RDCC and sends without it."
TEST(Sender, AssocRetransmission_BacksOffFromOneMsForEightAttemptsThenFallsBack) {
  Harness h;
  const MessageHandle m = h.submit(std::uint64_t{3} * kCu, true);
  h.run_until(Time{} + milliseconds(254));
  EXPECT_EQ(h.log, (std::vector<std::string>{
                       "t=0.000ms tx ASSOC_REQUEST", "t=1.000ms tx ASSOC_REQUEST",
                       "t=3.000ms tx ASSOC_REQUEST", "t=7.000ms tx ASSOC_REQUEST",
                       "t=15.000ms tx ASSOC_REQUEST", "t=31.000ms tx ASSOC_REQUEST",
                       "t=63.000ms tx ASSOC_REQUEST", "t=127.000ms tx ASSOC_REQUEST"}));
  // Every attempt carries the same nonce (the receiver treats them as idempotent).
  for (const auto& r : h.sent<AssocRequest>()) EXPECT_EQ(r.sender_nonce, h.nonce());
  EXPECT_EQ(h.data.size(), 0U);
  EXPECT_FALSE(h.s->status(m)->without_rdcc);
  // The eighth attempt is given its full 128 ms before the sender gives up.
  h.run_until(Time{} + milliseconds(255));
  EXPECT_EQ(h.count<AssocRequest>(), 8U);
  EXPECT_TRUE(h.s->association(kRecv)->without_rdcc);
  EXPECT_EQ(h.s->stats().associations_failed, 1U);
  EXPECT_TRUE(h.s->status(m)->without_rdcc);
}

// "... and sends without it." Messages then flow at line rate with no credit.
TEST(Sender, WithoutRdcc_MessagesFlowAtLineRateWithoutCredit) {
  SenderConfig c = default_config();
  c.line_rate_mbps = 1000;  // 4096 octets: 32.768 us
  Harness h(c);
  const MessageHandle m = h.submit(std::uint64_t{3} * kCu);
  h.run_until(Time{} + milliseconds(255));
  const MessageHandle late = h.submit(kCu);
  h.run_for(milliseconds(1));
  EXPECT_EQ(h.data_octets(0), 4U * kCu);
  EXPECT_EQ(h.state(m), MessageState::Done);
  EXPECT_EQ(h.state(late), MessageState::Done);
  EXPECT_EQ(h.count<CreditRequest>(), 0U);
  ASSERT_GE(h.data.size(), 2U);
  EXPECT_EQ(h.data[1].first - h.data[0].first, transmission_time(kCu, 1000));
  EXPECT_EQ(h.s->stats().without_rdcc_octets, 4U * kCu);
}

// "The Sender Nonce ... binds the response to the request and prevents off-path injection of
// ASSOC_ACCEPT."
TEST(Sender, AssocAccept_NotEchoingTheNonce_IsDroppedAndCounted) {
  Harness h;
  (void)h.submit(100000);
  AssocAccept a = h.accept();
  a.sender_nonce ^= 1;
  h.deliver(a);
  EXPECT_FALSE(h.s->association(kRecv)->established);
  EXPECT_EQ(h.s->stats().nonce_mismatch, 1U);
  EXPECT_EQ(h.count<CreditRequest>(), 0U);
  h.deliver(h.accept());
  EXPECT_TRUE(h.s->association(kRecv)->established);
  EXPECT_EQ(h.s->association(kRecv)->association_id, h.assoc_id);
  EXPECT_EQ(h.count<CreditRequest>(), 1U);
}

// "Incremented by one for each message the originator sends on the association ..., including
// retransmissions."
TEST(Sender, OutgoingSequenceNumbers_IncrementByOneIncludingRetransmissions) {
  Harness h;
  (void)h.submit(100000);
  h.run_until(Time{} + milliseconds(3));  // three ASSOC_REQUEST attempts
  h.deliver(h.accept());
  h.run_for(milliseconds(1));  // CREDIT_REQUEST and retransmissions
  ASSERT_GE(h.tx.size(), 6U);
  for (std::size_t i = 1; i < h.tx.size(); ++i) {
    EXPECT_EQ(header_of(h.tx[i].second).sequence_number,
              header_of(h.tx[i - 1].second).sequence_number + 1);
  }
  const auto r = h.last<CreditRequest>();
  EXPECT_EQ(r.header.association_id, h.assoc_id);
  EXPECT_EQ(r.header.epoch, h.epoch);
}

// The opaque Binding Value no application set is a non-zero draw per message, from a stream
// split off the injected generator without shifting it (docs/spec-notes.md, "Data belongs to an
// association, never to a host"): blind data and NACKs name nothing.
TEST(Sender, DefaultOpaqueBindingValue_IsADrawPerMessage_NotTheMessageId) {
  Harness h;
  const MessageHandle a = h.submit(100000);
  const MessageHandle b = h.submit(100000);
  h.deliver(h.accept());
  const auto reqs = h.sent<CreditRequest>();
  ASSERT_EQ(reqs.size(), 2U);
  SeededRandom same(7);
  const auto split = same.split();
  EXPECT_EQ(reqs[0].binding_value, split->next_u64());
  EXPECT_EQ(reqs[1].binding_value, split->next_u64());
  EXPECT_NE(reqs[0].binding_value, h.id(a));
  EXPECT_NE(reqs[1].binding_value, h.id(b));
  EXPECT_EQ(h.nonce(), same.next_u64()) << "the nonce is still the generator's first draw";
}

// A NACK naming the Message ID (the old default Binding Value, audit row 1.12) names nothing and
// makes nothing be sent again; one naming the Binding Value, under the live grant, does.
TEST(Sender, NackNamingNoBindingValue_ResendsNothing) {
  Harness h;
  const MessageHandle m = h.submit(65536, true);
  h.establish();
  h.deliver(h.grant(h.id(m), 65536, 100000, 100000));
  h.run_for(microseconds(200));
  ASSERT_EQ(h.s->status(m)->state, MessageState::Drained);
  const OctetRange whole{0, 65536};
  h.s->on_nack(kRecv, h.id(m), std::span<const OctetRange>(&whole, 1), h.now);
  h.run_for(microseconds(100));
  EXPECT_EQ(h.s->stats().resent_octets, 0U);
  h.s->on_nack(kRecv, h.last<CreditRequest>().binding_value, std::span<const OctetRange>(&whole, 1),
               h.now);
  h.run_for(microseconds(100));
  EXPECT_GT(h.s->stats().resent_octets, 0U) << "the test can see a resend";
}

// "Message IDs MUST increase with each new message of an association and MUST NOT be reused
// within it." "zero is reserved"
TEST(Sender, MessageIds_IncreaseAndAreNeverZero) {
  Harness h;
  const MessageHandle a = h.submit(100000);
  const MessageHandle b = h.submit(100000);
  h.deliver(h.accept());
  const MessageHandle c = h.submit(100000);
  EXPECT_GT(h.id(a), 0U);
  EXPECT_LT(h.id(a), h.id(b));
  EXPECT_LT(h.id(b), h.id(c));
  const auto reqs = h.sent<CreditRequest>();
  ASSERT_EQ(reqs.size(), 3U);
  EXPECT_LT(reqs[0].message_id, reqs[1].message_id);
  EXPECT_LT(reqs[1].message_id, reqs[2].message_id);
}

// ---------------------------------------------------------------------------------------------
// Sequence numbers ("Common Header")

// "An endpoint MUST discard a message of an association whose Sequence Number is not newer, in
// serial number arithmetic, than the newest one it has already processed from the same
// originator on that association."
TEST(Sender, IncomingSequence_StaleDuplicateAndHalfSpaceApartAreDiscarded_WrapIsNewer) {
  Harness h;
  const MessageHandle m = h.submit(1 << 20);
  h.deliver(h.accept());  // seq 1000
  const std::uint64_t mid = h.id(m);
  CreditGrant g = h.grant(mid, 8192);  // seq 1001
  h.deliver(g);
  EXPECT_EQ(h.s->status(m)->grant_limit, 8192U);
  CreditGrant dup = g;
  dup.grant_limit = 65536;  // same sequence number: a duplicate
  h.deliver(dup);
  CreditGrant older = g;
  older.header.sequence_number = 999;
  older.grant_limit = 65536;
  h.deliver(older);
  EXPECT_EQ(h.s->status(m)->grant_limit, 8192U);
  EXPECT_EQ(h.s->stats().stale_discarded, 2U);
  // Forward by up to kSequenceWindow at a time; further ahead is discarded and moves nothing
  // (docs/spec-notes.md, "A Sequence Number far ahead is discarded, not processed").
  for (const std::uint32_t sn : {1001U + kSequenceWindow, 1001U + 2U * kSequenceWindow}) {
    h.seq = sn;
    h.deliver(h.grant(mid, h.s->status(m)->grant_limit + 4096));
  }
  EXPECT_EQ(h.s->status(m)->grant_limit, 8192U + 2U * 4096U);
  h.seq = 0x40000000U;
  h.deliver(h.grant(mid, 65536));
  EXPECT_EQ(h.s->status(m)->grant_limit, 8192U + 2U * 4096U);
  EXPECT_EQ(h.s->stats().stale_discarded, 3U);
  // Across the wrap: 0xFFFFFFFF, then 0; exactly 2^31 apart is newer in neither direction.
  Harness w;
  w.seq = 0xFFFFFFF0U;
  const MessageHandle wm = w.submit(1 << 20);
  w.deliver(w.accept());
  for (const std::uint32_t sn : {0xFFFFFFFFU, 0U}) {
    w.seq = sn;
    w.deliver(w.grant(w.id(wm), w.s->status(wm)->grant_limit + 4096));
  }
  EXPECT_EQ(w.s->status(wm)->grant_limit, 2U * 4096U);
  w.seq = 0x80000000U;
  w.deliver(w.grant(w.id(wm), 65536));
  EXPECT_EQ(w.s->status(wm)->grant_limit, 2U * 4096U);
  EXPECT_EQ(w.s->stats().stale_discarded, 1U);
}

// Messages of another association or Epoch are not ours.
TEST(Sender, IncomingMessage_WithAnotherAssociationIdOrEpoch_IsDiscarded) {
  Harness h;
  const MessageHandle m = h.submit(1 << 20);
  h.deliver(h.accept());
  CreditGrant g = h.grant(h.id(m), 8192);
  g.header.association_id ^= 1;
  h.deliver(g);
  CreditGrant e = h.grant(h.id(m), 8192);
  e.header.epoch = 9;
  h.deliver(e);
  EXPECT_EQ(h.s->status(m)->grant_limit, 0U);
  EXPECT_EQ(h.s->stats().wrong_association, 2U);
}

// "Messages carrying an unknown Version MUST be discarded." (and the rest of the decode rules)
TEST(Sender, MalformedDatagrams_AreDiscardedAndCounted) {
  Harness h;
  const MessageHandle m = h.submit(1 << 20);
  h.deliver(h.accept());
  auto b = encoded(h.grant(h.id(m), 8192));
  auto bad_version = b;
  bad_version[0] = std::byte{0x20};
  h.deliver_bytes(bad_version);
  auto short_length = b;
  short_length[3] = std::byte{20};
  h.deliver_bytes(short_length);
  h.deliver_bytes(std::vector<std::byte>(b.begin(), b.begin() + 3));
  h.deliver_bytes({});
  EXPECT_EQ(h.s->stats().malformed_discarded, 4U);
  EXPECT_EQ(h.s->status(m)->grant_limit, 0U);
  h.deliver(AssocRequest{});  // a type a sender never receives
  EXPECT_EQ(h.s->stats().unexpected_discarded, 1U);
}

// ---------------------------------------------------------------------------------------------
// Transmission Mode Selection, scheduled mode, grants

// "Otherwise, the sender MUST send CREDIT_REQUEST and MUST NOT transmit any octet of the
// message until it holds credit for that octet."
// Rule 2: "MUST NOT transmit an octet at offset o of a message unless o is smaller than the
// Grant Limit held for that message"
TEST(Sender, ScheduledMode_NoOctetBeforeCreditAndNeverBeyondTheLimit) {
  Harness h;
  const MessageHandle m = h.submit(100000);
  h.deliver(h.accept());
  EXPECT_EQ(h.state(m), MessageState::Waiting);
  const auto r = h.last<CreditRequest>();
  EXPECT_EQ(r.message_length, 100000U);
  EXPECT_EQ(r.unscheduled_sent, 0U);
  h.run_for(milliseconds(5));
  EXPECT_EQ(h.data.size(), 0U);
  h.deliver(h.grant(h.id(m), 10000, 100000, 100000));
  EXPECT_EQ(h.state(m), MessageState::Scheduled);
  h.run_for(milliseconds(1));
  EXPECT_EQ(h.data_octets(h.id(m)), 10000U);
  for (const auto& [t, d] : h.data) {
    EXPECT_LE(d.length, kCu);
    EXPECT_LE(d.offset + d.length, 10000U);
    EXPECT_FALSE(d.unscheduled);
  }
  // "SCHEDULED | Grant Limit reached before message end | none | WAITING"
  EXPECT_EQ(h.state(m), MessageState::Waiting);
}

// Rule 1: "A grant with a Grant Limit that is not larger than the limit the sender already
// holds for that message only refreshes the Lifetime and Pacing Rate; it never reduces credit."
TEST(Sender, GrantNotLarger_OnlyRefreshesLifetimeAndRate_NeverReducesCredit) {
  Harness h;
  const MessageHandle m = h.submit(1 << 20);
  h.deliver(h.accept());
  const std::uint64_t mid = h.id(m);
  h.deliver(h.grant(mid, 65536, 1000, 100));  // 1 Gbit/s, 100 us
  h.run_for(microseconds(50));
  h.deliver(h.grant(mid, 16384, 2000, 1000));  // smaller limit, faster, longer-lived
  EXPECT_EQ(h.s->status(m)->grant_limit, 65536U);
  h.run_for(microseconds(900));
  // Without the refresh, nothing would be sent after 100 us; the smaller limit is not a cap.
  EXPECT_EQ(h.data_octets(mid), 65536U);
  EXPECT_GT(h.data.back().first, Time{} + microseconds(100));
  // The refreshed rate applies: 2 Gbit/s spacing.
  const auto n = h.data.size();
  EXPECT_EQ(h.data[n - 1].first - h.data[n - 2].first, transmission_time(kCu, 2000));
}

// "Pacing Rate MUST NOT be zero; a sender that receives a grant with Pacing Rate zero MUST
// ignore it."
TEST(Sender, GrantWithZeroPacingRate_IsIgnored) {
  Harness h;
  const MessageHandle m = h.submit(1 << 20);
  h.deliver(h.accept());
  h.deliver(h.grant(h.id(m), 65536, 0));
  h.run_for(milliseconds(1));
  EXPECT_EQ(h.data.size(), 0U);
  EXPECT_EQ(h.s->status(m)->grant_limit, 0U);
  EXPECT_EQ(h.state(m), MessageState::Waiting);
  EXPECT_EQ(h.s->stats().grants_ignored, 1U);
}

// Rule 3: "The sender MUST NOT transmit under a grant after the Lifetime of that grant has
// elapsed, measured from its reception. It sends a new CREDIT_REQUEST to obtain fresh credit."
// "SCHEDULED | Lifetime elapsed | send CREDIT_REQUEST | WAITING"
TEST(Sender, ExpiredGrant_StopsTransmissionAndRequestsAgain) {
  Harness h;
  const MessageHandle m = h.submit(1 << 20);
  h.deliver(h.accept());
  h.log.clear();
  h.deliver(h.grant(h.id(m), 65536, 1000, 100));  // 4096 octets per 32.768 us
  h.run_for(microseconds(150));
  EXPECT_EQ(h.log, (std::vector<std::string>{
                       "t=0.000ms data msg=1 off=0 len=4096",
                       "t=0.033ms data msg=1 off=4096 len=4096",
                       "t=0.066ms data msg=1 off=8192 len=4096",
                       "t=0.098ms data msg=1 off=12288 len=4096",
                       "t=0.100ms tx CREDIT_REQUEST msg=1 len=1048576 unsched=0",
                   }));
  EXPECT_EQ(h.state(m), MessageState::Waiting);
  EXPECT_EQ(h.s->stats().credit_expired, 65536U - 16384U);
  // A fresh grant with the same limit revives the held credit (it is newer by sequence).
  h.deliver(h.grant(h.id(m), 65536, 1000, 100));
  EXPECT_EQ(h.state(m), MessageState::Scheduled);
}

// "Lifetime zero means the default Grant Lifetime of the association."
TEST(Sender, GrantLifetimeZero_MeansTheAssociationDefault) {
  Harness h;
  h.params.grant_lifetime = 300;
  const MessageHandle m = h.submit(1 << 20);
  h.deliver(h.accept());
  h.deliver(h.grant(h.id(m), 1 << 20, 1000, 0));
  h.run_for(microseconds(299));
  const auto before = h.data_octets(h.id(m));
  h.run_for(microseconds(2));
  EXPECT_EQ(h.state(m), MessageState::Waiting);
  h.run_for(microseconds(500));
  EXPECT_EQ(h.data_octets(h.id(m)), before);
  EXPECT_EQ(before, 10U * kCu);  // 0, 32.8, ..., 295 us
}

// Largest number of octets whose segments start within any window [t, t + w).
std::uint64_t max_in_window(const std::vector<std::pair<Time, DataSegment>>& d, Duration w) {
  std::uint64_t best = 0;
  for (std::size_t i = 0; i < d.size(); ++i) {
    std::uint64_t sum = 0;
    for (std::size_t j = i; j < d.size() && d[j].first < d[i].first + w; ++j)
      sum += d[j].second.length;
    best = std::max(best, sum);
  }
  return best;
}

// Rule 4: "The sender MUST NOT transmit the message faster than the Pacing Rate, averaged over
// any interval equal to the transmission time of ten Credit Units at that rate." Driven on
// time, the pacer spaces strictly (late wake-ups: docs/spec-notes.md, 71, and reference/sim).
TEST(Sender, Pacing_NeverMoreThanTenCreditUnitsInAnyWindowOfTheirTransmissionTime) {
  for (const std::uint32_t rate : {1000U, 10000U, 40000U, 100000U}) {
    SCOPED_TRACE(rate);
    Harness h;
    const std::uint64_t len = 4U << 20U;
    const MessageHandle m = h.submit(len);
    h.deliver(h.accept());
    h.deliver(h.grant(h.id(m), len, rate, 4000000));
    h.run_for(seconds(1));
    ASSERT_EQ(h.data_octets(h.id(m)), len);
    EXPECT_LE(max_in_window(h.data, transmission_time(std::uint64_t{10} * kCu, rate)), 10U * kCu);
    // No burst at the start either, and no slower than the rate (within one segment).
    EXPECT_LE(max_in_window(h.data, transmission_time(kCu, rate)), kCu);
    const Duration took = h.data.back().first - h.data.front().first;
    EXPECT_LE(took, transmission_time(len, rate));
    EXPECT_GE(took + transmission_time(kCu, rate), transmission_time(len, rate));
  }
}

// Rule 4 with segments shorter than a Credit Unit (RoCEv2 post units of 6000 octets give
// 4096 + 1904): strict spacing alone would put 42000 octets in one window; the window check
// keeps it at ten Credit Units.
TEST(Sender, Pacing_WithShortSegments_StillNoMoreThanTenCreditUnitsInAnyWindow) {
  for (const std::uint32_t rate : {1000U, 25000U}) {
    SCOPED_TRACE(rate);
    Harness h;
    MessageSpec spec;
    spec.receiver = kRecv;
    spec.length = 600000;
    spec.binding = BindingKind::RoCEv2;
    spec.binding_value = *pack_rocev2({0x123, 5, 100});
    spec.post_unit = 6000;
    const MessageHandle m = h.submit_spec(spec);
    h.deliver(h.accept());
    h.deliver(h.grant(h.id(m), spec.length, rate, 4000000));
    h.run_for(seconds(1));
    ASSERT_EQ(h.data_octets(h.id(m)), spec.length);
    EXPECT_LE(max_in_window(h.data, transmission_time(std::uint64_t{10} * kCu, rate)), 10U * kCu);
  }
}

// Rule 4 on a real host (Sender::sent): a driver that polls a catch-up burst after a late
// wake-up and is then descheduled before its send puts the burst on the wire late, and the
// next burst on time. Every fifth batch here is polled 400 us late and leaves 400 us after
// its poll (the window of ten Credit Units at 1 Gbit/s is 328 us). On the wire (the times
// the batches left), a sender told when they left keeps within ten Credit Units and a segment
// in every window; one that counts from its polls put twenty Credit Units in one.
TEST(Sender, LateSends_PacingHoldsOnTheWireWhenTheDriverSaysWhenTheyLeft) {
  constexpr std::uint32_t kRate = 1000;
  const Duration window = transmission_time(std::uint64_t{10} * kCu, kRate);
  for (const bool reports : {false, true}) {
    SCOPED_TRACE(reports);
    SenderConfig c = default_config();
    c.reports_sends = reports;
    Harness h(c);
    const MessageHandle m = h.submit(1 << 20, true);
    h.establish();
    const auto g = encoded(h.grant(h.id(m), 1 << 20, kRate, 4000000));
    h.s->on_control(kRecv, g, h.now);
    std::vector<std::pair<Time, DataSegment>> wire;  // when each segment left
    Time t = h.now;
    for (int batch = 0; batch < 400 && h.s->status(h.id(m)) && h.transmitted(m) < (1U << 20U);
         ++batch) {
      const bool late = batch % 5 == 4;
      if (late) t = t + microseconds(400);
      h.s->on_timeout(t);
      while (h.s->poll_transmit()) {
      }
      std::vector<DataSegment> out;
      while (auto seg = h.s->poll_data(t)) out.push_back(*seg);
      const Time left = late ? t + microseconds(400) : t;
      for (const DataSegment& seg : out) wire.emplace_back(left, seg);
      h.s->sent(left);
      const auto next = h.s->next_timeout();
      ASSERT_TRUE(next.has_value());
      t = std::max(*next, left);
    }
    ASSERT_EQ(h.transmitted(m), 1U << 20U);
    const std::uint64_t most = max_in_window(wire, window);
    if (reports) {
      EXPECT_LE(most, 11U * kCu);
    } else {
      EXPECT_GT(most, 11U * kCu);  // the fault the driver's report removes
    }
  }
}

// The request timer on a real host: a CREDIT_REQUEST that left 5 ms after its poll is
// retransmitted a request timeout after it left, not 160 us after its poll (RDCC-GRANT-15's
// doubling judges the wire).
TEST(Sender, LateSends_TheRequestTimerCountsFromWhenTheRequestLeft) {
  for (const bool reports : {false, true}) {
    SCOPED_TRACE(reports);
    SenderConfig c = default_config();
    c.reports_sends = reports;
    Harness h(c);
    (void)h.submit(1 << 20, true);
    h.establish(microseconds(80));  // the request is polled at 80 us
    const Time polled = h.now;
    h.s->sent(polled + milliseconds(5));
    h.run_for(milliseconds(10));
    std::vector<Time> at;
    for (const auto& [t, msg] : h.tx) {
      if (std::holds_alternative<CreditRequest>(msg)) at.push_back(t);
    }
    ASSERT_GE(at.size(), 2U);
    EXPECT_EQ(at[0], polled);
    EXPECT_EQ(at[1],
              reports ? polled + milliseconds(5) + microseconds(160) : polled + microseconds(160));
  }
}

// "The sender retransmits CREDIT_REQUEST if it holds no credit for the message after a request
// timeout, initially twice the smoothed round-trip time and at least 100 microseconds,
// doubling on each retransmission up to 100 ms."
TEST(Sender, CreditRequestRetransmission_StartsAtTwoSrttAndDoublesUpTo100ms) {
  Harness h;
  (void)h.submit(1 << 20);
  h.establish(microseconds(80));  // SRTT 80 us from the association exchange
  EXPECT_EQ(h.s->association(kRecv)->srtt, microseconds(80));
  h.run_for(milliseconds(700));
  std::vector<std::int64_t> gaps;
  std::vector<Time> at;
  for (const auto& [t, m] : h.tx) {
    if (std::holds_alternative<CreditRequest>(m)) at.push_back(t);
  }
  for (std::size_t i = 1; i < at.size(); ++i) gaps.push_back((at[i] - at[i - 1]).micros());
  ASSERT_GE(gaps.size(), 13U);
  EXPECT_EQ(std::vector<std::int64_t>(gaps.begin(), gaps.begin() + 13),
            (std::vector<std::int64_t>{160, 320, 640, 1280, 2560, 5120, 10240, 20480, 40960, 81920,
                                       100000, 100000, 100000}));
  EXPECT_GE(h.s->stats().credit_request_retransmissions, 13U);
}

// "Deadline is the number of microseconds, relative to transmission of the request, by which
// the sender would like the message delivered; zero means none." Every CREDIT_REQUEST,
// retransmissions too, carries what is left of the deadline when it is sent; a deadline passed
// is sent as 1 us, never as zero ("none"); a message without one sends zero.
TEST(Sender, CreditRequestDeadline_IsRelativeToEachRequestsTransmission) {
  Harness h;
  MessageSpec m;
  m.receiver = kRecv;
  m.length = 1 << 20;
  m.force_scheduled = true;
  m.deadline_us = 500;
  (void)h.submit_spec(m);
  (void)h.submit(1 << 20, true);  // no deadline
  h.establish(microseconds(80));  // the requests go at 80 us, retransmitted 160, 320, ... later
  h.run_for(milliseconds(2));
  std::vector<std::pair<std::int64_t, std::uint32_t>> with;  // (sent at, Deadline)
  std::vector<std::uint32_t> without;
  for (const auto& [t, msg] : h.tx) {
    if (const auto* r = std::get_if<CreditRequest>(&msg)) {
      if (r->message_id == 1) with.emplace_back((t - Time{}).micros(), r->deadline);
      if (r->message_id == 2) without.push_back(r->deadline);
    }
  }
  ASSERT_GE(with.size(), 4U);
  EXPECT_EQ(with[0], (std::pair<std::int64_t, std::uint32_t>{80, 420}));
  EXPECT_EQ(with[1], (std::pair<std::int64_t, std::uint32_t>{240, 260}));
  EXPECT_EQ(with[2], (std::pair<std::int64_t, std::uint32_t>{560, 1}));
  EXPECT_EQ(with[3].second, 1U);
  ASSERT_FALSE(without.empty());
  EXPECT_TRUE(std::all_of(without.begin(), without.end(), [](std::uint32_t d) { return d == 0; }));
}

// A grant that restates the limit the sender has already used up adds no credit: the request
// timeout keeps doubling (docs/spec-notes.md, "A grant that adds no credit does not restart
// the request timeout"). A grant with more credit restarts it from twice the SRTT.
TEST(Sender, CreditRequestRetransmission_GrantWithoutNewCreditDoesNotRestartTheTimeout) {
  Harness h;
  const MessageHandle m = h.submit(1 << 20);
  h.establish(microseconds(80));  // SRTT 80 us: the timeout starts at 160 us
  h.deliver(h.grant(h.id(m), std::uint64_t{4} * kCu, 100000, 1000));
  h.run_for(microseconds(50));  // the 4 Credit Units are sent: WAITING at the limit
  ASSERT_EQ(h.state(m), MessageState::Waiting);
  const auto requests_at = [&] {
    std::vector<Time> at;
    for (const auto& [t, msg] : h.tx) {
      if (std::holds_alternative<CreditRequest>(msg)) at.push_back(t);
    }
    return at;
  };
  // Each retransmission is answered at once with the same limit (a renewal of a lost window).
  for (int i = 0; i < 6; ++i) {
    const auto before = requests_at().size();
    while (requests_at().size() == before) h.run_for(microseconds(10));
    h.deliver(h.grant(h.id(m), std::uint64_t{4} * kCu, 100000, 1000));
  }
  const auto at = requests_at();
  ASSERT_GE(at.size(), 7U);
  std::vector<std::int64_t> gaps;
  for (std::size_t i = at.size() - 6; i < at.size(); ++i)
    gaps.push_back((at[i] - at[i - 1]).micros() / 10 * 10);
  // 160, 320, 640, ... as if no grant had come (within the 10 us steps of the loop).
  for (std::size_t i = 1; i < gaps.size(); ++i) EXPECT_GE(gaps[i], gaps[i - 1] * 2 - 10) << i;
  // More credit restarts it: the next request comes 160 us after the limit is reached again.
  h.deliver(h.grant(h.id(m), std::uint64_t{8} * kCu, 100000, 1000));
  h.run_for(microseconds(50));
  ASSERT_EQ(h.state(m), MessageState::Waiting);
  const auto n = requests_at().size();
  h.run_for(microseconds(170));
  EXPECT_EQ(requests_at().size(), n + 1);
}

// "... and at least 100 microseconds": a tiny SRTT does not shorten it.
TEST(Sender, CreditRequestRetransmission_IsAtLeast100Microseconds) {
  Harness h;
  (void)h.submit(1 << 20);
  h.establish(microseconds(10));
  h.run_for(microseconds(99));
  EXPECT_EQ(h.count<CreditRequest>(), 1U);
  h.run_for(microseconds(1));
  EXPECT_EQ(h.count<CreditRequest>(), 2U);
}

// "In WAITING the sender holds no usable credit and retransmits CREDIT_REQUEST"; a grant stops
// the retransmissions.
TEST(Sender, CreditRequestRetransmission_StopsWhileCreditIsHeld) {
  Harness h;
  const MessageHandle m = h.submit(1 << 20);
  h.establish(microseconds(80));
  h.deliver(h.grant(h.id(m), 1 << 20, 1000, 100000));
  const auto n = h.count<CreditRequest>();
  h.run_for(milliseconds(5));
  EXPECT_EQ(h.count<CreditRequest>(), n);
}

// "DRAINED | request timeout | retransmit CREDIT_REQUEST | DRAINED"; "DRAINED | MSG_DONE |
// release state | DONE"
TEST(Sender, Drained_RetransmitsCreditRequestUntilMsgDone) {
  Harness h;
  const MessageHandle m = h.submit(std::uint64_t{3} * kCu, true);
  h.establish(microseconds(80));
  h.deliver(h.grant(h.id(m), std::uint64_t{3} * kCu, 100000, 100000, flag::kFinal));
  h.run_for(microseconds(5));
  EXPECT_EQ(h.state(m), MessageState::Drained);
  const auto n = h.count<CreditRequest>();
  h.run_for(microseconds(160 + 320));
  EXPECT_EQ(h.count<CreditRequest>(), n + 2);
  h.deliver(h.done(h.id(m), std::uint64_t{3} * kCu));
  EXPECT_EQ(h.state(m), MessageState::Done);
  h.run_for(milliseconds(10));
  EXPECT_EQ(h.count<CreditRequest>(), n + 2);
}

// Only DRAINED leaves on MSG_DONE: the receiver cannot have octets not yet sent.
TEST(Sender, MsgDone_BeforeAllOctetsAreSent_DoesNotEndTheMessage) {
  Harness h;
  const MessageHandle m = h.submit(1 << 20);
  h.deliver(h.accept());
  h.deliver(h.done(h.id(m), 1 << 20));
  EXPECT_EQ(h.state(m), MessageState::Waiting);
}

// ---------------------------------------------------------------------------------------------
// Unscheduled Transmission

// 1. "MUST delay the first transmission by a random duration drawn uniformly from [0, J]
// microseconds"; 2. "MUST send a CREDIT_REQUEST for the message no later than the first data
// packet, with the Unscheduled Sent field set to the message length"; 4. "MUST mark the data
// packets with the ... DSCP ... for unscheduled RDCC traffic"
TEST(Sender, Unscheduled_StartsAfterJitterInZeroToJ_AnnouncedFirst_WithTheUnscheduledDscp) {
  Harness h;
  h.params.start_jitter = 10;
  (void)h.submit(1 << 20, true);  // establishes the association
  h.deliver(h.accept());
  Duration lo = microseconds(10);
  Duration hi{};
  for (int i = 0; i < 200; ++i) {
    const Time t0 = h.now;
    const auto before_data = h.data.size();
    const MessageHandle m = h.submit(2048);
    EXPECT_EQ(h.state(m), MessageState::Unsched);
    const auto r = h.last<CreditRequest>();
    EXPECT_EQ(r.message_id, h.id(m));
    EXPECT_EQ(r.unscheduled_sent, 2048U);
    EXPECT_EQ(h.tx.back().first, t0) << "the request precedes the delay";
    h.run_for(microseconds(20));
    ASSERT_EQ(h.data.size(), before_data + 1);
    const auto& [t, d] = h.data.back();
    EXPECT_TRUE(d.unscheduled);
    EXPECT_EQ(d.dscp, 8);
    EXPECT_EQ(d.length, 2048U);
    const Duration delay = t - t0;
    EXPECT_GE(delay, Duration{});
    EXPECT_LE(delay, microseconds(10));
    lo = std::min(lo, delay);
    hi = std::max(hi, delay);
    EXPECT_EQ(h.state(m), MessageState::Drained);
    h.deliver(h.done(h.id(m), 2048));
    EXPECT_EQ(h.state(m), MessageState::Done);
  }
  // Drawn over the whole interval, not a constant.
  EXPECT_LT(lo, microseconds(1));
  EXPECT_GT(hi, microseconds(9));
}

// 3. "MUST NOT have more than one unscheduled message outstanding on an association; an
// unscheduled message stops being outstanding when the sender receives MSG_DONE or a
// CREDIT_GRANT for it"
TEST(Sender, Unscheduled_AtMostOneOutstanding_UntilItsGrantOrMsgDone) {
  Harness h;
  const MessageHandle a = h.submit(2048);
  const MessageHandle b = h.submit(2048);
  h.deliver(h.accept());
  EXPECT_EQ(h.state(a), MessageState::Unsched);
  EXPECT_EQ(h.state(b), MessageState::Waiting);
  EXPECT_EQ(h.sent<CreditRequest>()[1].unscheduled_sent, 0U);
  h.run_for(microseconds(20));  // a is sent and DRAINED, still outstanding
  const MessageHandle c = h.submit(2048);
  EXPECT_EQ(h.state(c), MessageState::Waiting);
  h.deliver(h.grant(h.id(a), 2048, 100000, 0, flag::kFinal));  // a grant for a
  const MessageHandle d = h.submit(2048);
  EXPECT_EQ(h.state(d), MessageState::Unsched);
  h.run_for(microseconds(20));
  h.deliver(h.done(h.id(d), 2048));  // MSG_DONE for d
  const MessageHandle e = h.submit(2048);
  EXPECT_EQ(h.state(e), MessageState::Unsched);
}

// "If the message length is less than or equal to U, the sender MAY transmit ..."; "A receiver
// that advertises U = 0 disables unscheduled mode for that association."
TEST(Sender, Unscheduled_OnlyUpToUAndNeverWithUZero) {
  Harness h;
  const MessageHandle at_u = h.submit(16384);
  h.deliver(h.accept());
  EXPECT_EQ(h.state(at_u), MessageState::Unsched);
  h.deliver(h.grant(h.id(at_u), 16384));
  const MessageHandle above = h.submit(16385);
  EXPECT_EQ(h.state(above), MessageState::Waiting);
  Harness z;
  z.params.unscheduled_limit = 0;
  const MessageHandle small = z.submit(100);
  z.deliver(z.accept());
  EXPECT_EQ(z.state(small), MessageState::Waiting);
}

// 5. "MUST stop unscheduled transmission and convert the remainder of the message to scheduled
// mode upon receiving a CONGESTION_REPORT addressed to it"; "sends a new CREDIT_REQUEST whose
// Unscheduled Sent field states the octets actually transmitted."
TEST(Sender, Unscheduled_CongestionReport_StopsAndRequestsCreditForTheRemainder) {
  SenderConfig c = default_config();
  c.line_rate_mbps = 1000;
  Harness h(c);
  h.params.start_jitter = 0;
  const MessageHandle m = h.submit(16384);
  h.deliver(h.accept());
  h.run_for(microseconds(40));  // two segments: 0 and 32.8 us
  ASSERT_EQ(h.transmitted(m), 8192U);
  h.deliver(h.report(), kCrnAddr);
  EXPECT_EQ(h.state(m), MessageState::Waiting);
  const auto r = h.last<CreditRequest>();
  EXPECT_EQ(r.message_id, h.id(m));
  EXPECT_EQ(r.unscheduled_sent, 8192U);
  h.run_for(milliseconds(1));
  EXPECT_EQ(h.transmitted(m), 8192U) << "no octet after the report without credit";
  h.deliver(h.grant(h.id(m), 16384, 1000, 10000, flag::kFinal));
  h.run_for(milliseconds(1));
  EXPECT_EQ(h.transmitted(m), 16384U);
  EXPECT_FALSE(h.data.back().second.unscheduled);
  EXPECT_EQ(h.data.back().second.dscp, 16);
  EXPECT_EQ(h.s->stats().unscheduled_conversions, 1U);
}

// "... or a link-layer pause indication if the local interface supports PFC."
TEST(Sender, Unscheduled_LinkPause_ConvertsLikeAReport) {
  Harness h;
  const MessageHandle m = h.submit(16384);
  h.deliver(h.accept());
  h.s->on_link_pause(h.now);  // still inside the start delay: nothing sent
  h.drain();
  EXPECT_EQ(h.state(m), MessageState::Waiting);
  EXPECT_EQ(h.last<CreditRequest>().unscheduled_sent, 0U);
  h.run_for(milliseconds(1));
  EXPECT_EQ(h.transmitted(m), 0U);
}

// "An endpoint MUST ignore reports whose source address is not within the set of CRN addresses
// configured for the domain." A report naming another host's flow, or sent toward the
// receiver, is not addressed to us.
TEST(Sender, CongestionReport_NotFromACrnOrNotAddressedToUs_IsIgnored) {
  Harness h;
  const MessageHandle m = h.submit(16384);
  h.deliver(h.accept());
  h.deliver(h.report(), Address::v4(10, 0, 9, 2, 50000));             // not a CRN
  h.deliver(h.report(), kRecv);                                       // the receiver is not a CRN
  h.deliver(h.report(Address::v4(10, 0, 0, 7, 1), kRecv), kCrnAddr);  // another sender's flow
  h.deliver(h.report(kLocal, kRecv, 1), kCrnAddr);                    // Direction 1
  EXPECT_EQ(h.state(m), MessageState::Unsched);
  EXPECT_EQ(h.s->stats().reports_ignored, 2U);
  h.run_for(microseconds(30));
  EXPECT_EQ(h.transmitted(m), 16384U);
}

// "An endpoint MUST NOT increase any rate or credit in response to a CONGESTION_REPORT."
TEST(Sender, CongestionReport_NeverIncreasesCreditOrRate) {
  Harness h;
  const MessageHandle m = h.submit(1 << 20);
  h.deliver(h.accept());
  h.deliver(h.grant(h.id(m), 65536, 1000, 100000));
  h.run_for(microseconds(100));
  const auto before = *h.s->status(m);
  const auto requests = h.count<CreditRequest>();
  CongestionReport r = h.report();
  r.suggested_rate = 100000;  // a suggestion is never taken as a licence
  h.deliver(r, kCrnAddr);
  EXPECT_EQ(h.s->status(m)->grant_limit, before.grant_limit);
  EXPECT_EQ(h.count<CreditRequest>(), requests);
  h.run_for(microseconds(400));
  // Still 1 Gbit/s spacing.
  const auto n = h.data.size();
  EXPECT_EQ(h.data[n - 1].first - h.data[n - 2].first, transmission_time(kCu, 1000));
}

// ---------------------------------------------------------------------------------------------
// Traffic Classes and Pool Credit

// "classes are served in strict priority order from 0 to 7, and within a class credit is
// divided in proportion to the weights carried in CREDIT_REQUEST, using a work-conserving
// weighted round-robin." "The sender MUST mark the data packets of each class with the DSCP
// that the domain configures for that class"
TEST(Sender, PoolGrant_IsDividedByClassPriorityThenByWeight) {
  Harness h;
  const MessageHandle low_a = h.submit(1 << 20, true, 1, 3);
  const MessageHandle low_b = h.submit(1 << 20, true, 1, 1);
  const MessageHandle high = h.submit(std::uint64_t{8} * kCu, true, 0, 1);
  const MessageHandle cls9 = h.submit(1 << 20, true, 9, 0);  // treated as class 7, weight 1
  h.deliver(h.accept());
  h.deliver(h.grant(0, 8 * kCu + 40 * kCu, 100000, 100000, flag::kPool));
  h.run_for(milliseconds(1));
  EXPECT_EQ(h.transmitted(high), 8U * kCu);
  EXPECT_EQ(h.transmitted(low_a), 30U * kCu);
  EXPECT_EQ(h.transmitted(low_b), 10U * kCu);
  EXPECT_EQ(h.transmitted(cls9), 0U);
  // Class 0 went first, entirely.
  for (std::size_t i = 0; i < 8; ++i) EXPECT_EQ(h.data[i].second.message_id, h.id(high));
  for (const auto& [t, d] : h.data) EXPECT_EQ(d.dscp, 16 + d.traffic_class);
  EXPECT_EQ(h.s->association(kRecv)->pool_sent, 48U * kCu);
  // Work-conserving: when class 1 is done with its share, class 7 gets the rest.
  EXPECT_EQ(h.state(low_a), MessageState::Waiting);
  h.deliver(h.grant(0, 8 * kCu + 40 * kCu + 2 * kCu, 100000, 100000, flag::kPool));
  h.run_for(milliseconds(1));
  EXPECT_EQ(h.transmitted(low_a) + h.transmitted(low_b), 42U * kCu);
  EXPECT_EQ(h.sent<CreditRequest>()[3].traffic_class, 7);
  EXPECT_EQ(h.sent<CreditRequest>()[3].weight, 1);
}

// "A grant with Message ID zero and the POOL flag set is a pool grant"; anything else with
// Message ID zero is not a grant for any message.
TEST(Sender, PoolFlagWithAMessageId_OrMessageIdZeroWithoutPool_IsIgnored) {
  Harness h;
  const MessageHandle m = h.submit(1 << 20);
  h.deliver(h.accept());
  h.deliver(h.grant(h.id(m), 65536, 100000, 0, flag::kPool));
  h.deliver(h.grant(0, 65536, 100000, 0, 0));
  h.run_for(milliseconds(1));
  EXPECT_EQ(h.transmitted(m), 0U);
  EXPECT_EQ(h.s->stats().grants_ignored, 2U);
}

// fuzz_sender (regression pool-reservation-then-grant-of-its-own): a RoCEv2 message reserves
// its whole RDMA message from a POOL grant and sends it at the pool's rate; a grant of its
// own with a lower Pacing Rate then arrives. "MUST NOT transmit the message faster than the
// Pacing Rate": from then on the octets the pool reserved go no faster than the message's own
// rate (docs/spec-notes.md, 82).
TEST(Sender, PoolReservedOctets_AfterAGrantOfTheMessagesOwn_GoAtTheLowerRate) {
  Harness h;
  MessageSpec spec;
  spec.receiver = kRecv;
  spec.length = 131072;
  spec.binding = BindingKind::RoCEv2;
  spec.binding_value = *pack_rocev2({0x123, 5, 1});
  spec.post_unit = 131072;  // one RDMA message: posted only when all of it is covered
  const MessageHandle m = h.submit_spec(spec);
  h.deliver(h.accept());
  h.deliver(h.grant(0, 131072, 100000, 0, flag::kPool));
  h.run_for(microseconds(1));
  const std::uint64_t before = h.transmitted(m);
  ASSERT_GT(before, 0U);
  ASSERT_LT(before, spec.length);
  const Time granted = h.now;
  h.deliver(h.grant(h.id(m), 131072, 1000, 0, flag::kFinal));
  h.run_for(milliseconds(2));
  EXPECT_EQ(h.transmitted(m), spec.length);
  // Ten Credit Units at 1000 Mbit/s take 327.68 us: no window of that length after the grant
  // holds more than ten Credit Units.
  std::vector<std::pair<Time, DataSegment>> after;
  std::copy_if(h.data.begin(), h.data.end(), std::back_inserter(after),
               [&](const auto& d) { return d.first >= granted; });
  ASSERT_FALSE(after.empty());
  EXPECT_LE(max_in_window(after, transmission_time(std::uint64_t{10} * kCu, 1000)), 10U * kCu);
}

// ---------------------------------------------------------------------------------------------
// Transport Bindings: RoCEv2

// "a sender that honors partial grants divides an RDCC message into several RDMA messages and
// posts each one only when it holds credit for all of its octets."
TEST(Sender, Rocev2_PostUnitsAreReleasedOnlyWhenFullyCoveredByCredit) {
  Harness h;
  MessageSpec spec;
  spec.receiver = kRecv;
  spec.length = 30000;
  spec.binding = BindingKind::RoCEv2;
  spec.binding_value = *pack_rocev2({0x123, 5, 3});
  spec.post_unit = 10000;
  const MessageHandle m = h.submit_spec(spec);
  h.deliver(h.accept());
  EXPECT_EQ(h.last<CreditRequest>().binding_kind, 1);
  EXPECT_EQ(h.last<CreditRequest>().binding_value, spec.binding_value);
  h.deliver(h.grant(h.id(m), 15000, 100000, 100000));
  h.run_for(milliseconds(1));
  EXPECT_EQ(h.transmitted(m), 10000U);
  h.deliver(h.grant(h.id(m), 19999, 100000, 100000));
  h.run_for(milliseconds(1));
  EXPECT_EQ(h.transmitted(m), 10000U);
  h.deliver(h.grant(h.id(m), 20000, 100000, 100000));
  h.run_for(milliseconds(1));
  EXPECT_EQ(h.transmitted(m), 20000U);
  h.deliver(h.grant(h.id(m), 30000, 100000, 100000, flag::kFinal));
  h.run_for(milliseconds(1));
  EXPECT_EQ(h.transmitted(m), 30000U);
  for (const auto& [t, d] : h.data) {
    EXPECT_EQ(d.offset / 10000, (d.offset + d.length - 1) / 10000) << "a segment spans two units";
    EXPECT_EQ(d.binding, BindingKind::RoCEv2);
  }
  // The same under pool credit: a unit is reserved whole or not at all.
  Harness p;
  const MessageHandle pm = p.submit_spec(spec);
  p.deliver(p.accept());
  p.deliver(p.grant(0, 15000, 100000, 100000, flag::kPool));
  p.run_for(milliseconds(1));
  EXPECT_EQ(p.transmitted(pm), 10000U);
  EXPECT_EQ(p.s->association(kRecv)->pool_sent, 10000U);
}

// ---------------------------------------------------------------------------------------------
// Epoch, UNKNOWN_ASSOCIATION, Parameter Update

// "A sender that receives ERROR (UNKNOWN_ASSOCIATION) carrying its Association ID MUST discard
// all credit held for that association, re-establish it, and request credit again for its
// pending messages." (exempt from the sequence check)
TEST(Sender, UnknownAssociation_DropsAllCreditReestablishesAndRequestsAgain) {
  Harness h;
  const MessageHandle m = h.submit(1 << 20);
  const MessageHandle pooled = h.submit(1 << 20, true, 2);
  h.deliver(h.accept());
  h.deliver(h.grant(h.id(m), 65536, 100000, 100000));
  h.deliver(h.grant(0, 65536, 100000, 100000, flag::kPool));
  h.run_for(microseconds(1));
  const std::uint64_t old_nonce = h.nonce();
  ErrorMessage e = h.error(ReasonCode::UnknownAssociation);
  e.header.sequence_number = 1;  // a restarted receiver restarted its numbering
  h.deliver(e);
  EXPECT_EQ(h.s->stats().re_establishments, 1U);
  EXPECT_NE(h.nonce(), old_nonce);
  EXPECT_EQ(h.state(m), MessageState::Waiting);
  EXPECT_EQ(h.s->status(m)->grant_limit, 0U);
  EXPECT_EQ(h.s->association(kRecv)->pool_limit, 0U);
  const auto sent_before = h.data.size();
  h.run_for(microseconds(500));
  EXPECT_EQ(h.data.size(), sent_before) << "no octet on dropped credit";
  h.assoc_id = 0x0BADCAFE;
  h.epoch = 4;
  h.seq = 1;
  h.deliver(h.accept());
  const auto reqs = h.sent<CreditRequest>();
  ASSERT_EQ(reqs.size(), 4U);
  EXPECT_EQ(reqs[2].header.association_id, 0x0BADCAFEU);
  EXPECT_EQ(reqs[2].header.epoch, 4);
  EXPECT_EQ(reqs[2].message_length, 1U << 20U);
  EXPECT_EQ(reqs[2].unscheduled_sent, 0U);
  EXPECT_GT(reqs[2].message_id, reqs[1].message_id) << "a new Message ID in the new association";
  EXPECT_EQ(h.transmitted(m), 0U) << "the whole message is sent again";
  EXPECT_EQ(h.transmitted(pooled), 0U);
}

// "if none is answered, the sender concludes that the receiver does not support RDCC and
// sends without it" describes a receiver that never answered. One that has accepted an
// association does support RDCC: while re-establishing, the sender keeps asking (at most a
// second apart) and never sends without credit (docs/spec-notes.md).
TEST(Sender, ReEstablishmentUnanswered_KeepsAskingAndNeverSendsWithoutCredit) {
  Harness h;
  const MessageHandle m = h.submit(1 << 20);
  h.deliver(h.accept());
  h.deliver(h.grant(h.id(m), 65536, 100000, 100000));
  h.run_for(microseconds(1));
  ErrorMessage e = h.error(ReasonCode::UnknownAssociation);
  e.header.sequence_number = 1;
  h.deliver(e);
  const auto sent_before = h.data.size();
  const auto requests_before = h.s->stats().assoc_requests_sent;
  h.run_for(seconds(5));
  EXPECT_EQ(h.data.size(), sent_before) << "no octet without credit";
  EXPECT_EQ(h.state(m), MessageState::Waiting);
  EXPECT_FALSE(h.s->status(m)->without_rdcc);
  EXPECT_EQ(h.s->stats().associations_failed, 0U);
  // 8 attempts in 255 ms, then one a second: 8 + 4 more within five seconds.
  EXPECT_GE(h.s->stats().assoc_requests_sent - requests_before, 12U);
  EXPECT_LE(h.s->stats().assoc_requests_sent - requests_before, 14U);
}

// "... carrying its Association ID": anyone else's is not ours.
TEST(Sender, UnknownAssociation_ForAnotherAssociationId_IsIgnored) {
  Harness h;
  const MessageHandle m = h.submit(1 << 20);
  h.deliver(h.accept());
  h.deliver(h.grant(h.id(m), 65536));
  ErrorMessage e = h.error(ReasonCode::UnknownAssociation);
  e.header.association_id = 77;
  h.deliver(e);
  EXPECT_EQ(h.s->stats().re_establishments, 0U);
  EXPECT_EQ(h.s->status(m)->grant_limit, 65536U);
}

// Epoch is "the receiver's incarnation"; the spec makes zero the value of ASSOC_REQUEST and of
// CRN messages, but forbids it only for the Association ID ("assigns a non-zero Association
// ID"). An ASSOC_ACCEPT with Epoch 0 is an association like any other (docs/spec-notes.md,
// "Epoch 0"): its grants give credit, and a later Epoch is a new incarnation.
TEST(Sender, AcceptWithEpochZero_IsAnAssociationLikeAnyOther) {
  Harness h;
  h.epoch = 0;
  const MessageHandle m = h.submit(8192, true);
  h.deliver(h.accept());
  const auto r = h.last<CreditRequest>();
  EXPECT_EQ(r.header.epoch, 0U);
  EXPECT_EQ(r.header.association_id, h.assoc_id);
  h.deliver(h.grant(h.id(m), 8192, 100000, 100000));
  h.run_for(microseconds(100));
  EXPECT_EQ(h.transmitted(m), 8192U);
  const MessageHandle n = h.submit(1 << 20, true);
  h.epoch = 1;  // the receiver restarted
  h.deliver(h.accept());
  EXPECT_EQ(h.s->stats().re_establishments, 1U);
  EXPECT_EQ(h.last<CreditRequest>().header.epoch, 1U);
  (void)n;
}

// "A sender accepts a new Epoch only from an ASSOC_ACCEPT that echoes its current Sender
// Nonce." "any but DONE or ABORTED | ... new Epoch in ASSOC_ACCEPT | drop credit; re-establish;
// send CREDIT_REQUEST | WAITING"; "a sender that accepts a new Epoch resets the newest
// processed Sequence Number of the association."
TEST(Sender, NewEpochInAssocAccept_EchoingTheNonce_DropsCreditAndRequestsAgain) {
  Harness h;
  const MessageHandle m = h.submit(1 << 20);
  h.deliver(h.accept());
  h.deliver(h.grant(h.id(m), 65536, 1000, 100000));
  h.run_for(microseconds(10));
  // A new Epoch with the wrong nonce: ignored.
  h.epoch = 4;
  AssocAccept forged = h.accept();
  forged.sender_nonce ^= 0xFF;
  h.deliver(forged);
  EXPECT_EQ(h.s->association(kRecv)->epoch, 3);
  EXPECT_EQ(h.s->status(m)->grant_limit, 65536U);
  // The real one, with a restarted (lower) sequence number.
  h.seq = 5;
  h.assoc_id = 0x1234;
  h.deliver(h.accept());
  EXPECT_EQ(h.s->association(kRecv)->epoch, 4);
  EXPECT_EQ(h.s->association(kRecv)->association_id, 0x1234U);
  EXPECT_EQ(h.s->status(m)->grant_limit, 0U);
  EXPECT_EQ(h.state(m), MessageState::Waiting);
  const auto r = h.last<CreditRequest>();
  EXPECT_EQ(r.header.epoch, 4);
  EXPECT_EQ(r.message_id, h.id(m));
  // Sequence numbers restart from the accept's.
  h.deliver(h.grant(h.id(m), 8192));
  EXPECT_EQ(h.s->status(m)->grant_limit, 8192U);
}

// "A receiver changes the parameters of an existing association by sending ASSOC_ACCEPT with
// the Parameter Update flag. The sender acknowledges it by sending ASSOC_REQUEST with the same
// Sender Nonce and the Update Acknowledgment flag"
TEST(Sender, ParameterUpdate_IsAppliedAndAcknowledgedWithTheSameNonce) {
  Harness h;
  (void)h.submit(100000);
  h.deliver(h.accept());
  const std::uint64_t nonce = h.nonce();
  h.params.unscheduled_limit = 0;  // e.g. the circuit breaker
  h.params.grant_lifetime = 400;
  const AssocAccept update = h.accept(flag::kParameterUpdate);
  h.deliver(update);
  const auto ack = h.last<AssocRequest>();
  EXPECT_TRUE(ack.update_acknowledgment());
  EXPECT_EQ(ack.header.flags, flag::kUpdateAcknowledgment);
  EXPECT_EQ(ack.sender_nonce, nonce);
  EXPECT_EQ(h.s->association(kRecv)->unscheduled_limit, 0U);
  EXPECT_EQ(h.s->association(kRecv)->grant_lifetime_us, 400U);
  const MessageHandle small = h.submit(100);
  EXPECT_EQ(h.state(small), MessageState::Waiting);
  // A retransmitted update is acknowledged again; a stale copy of an older one is not applied.
  h.deliver(h.accept(flag::kParameterUpdate));
  EXPECT_EQ(h.s->stats().parameter_updates, 2U);
  AssocAccept stale = update;
  stale.unscheduled_limit = 65536;
  h.deliver(stale);
  EXPECT_EQ(h.s->association(kRecv)->unscheduled_limit, 0U);
  EXPECT_EQ(h.s->stats().parameter_updates, 2U);
}

// ---------------------------------------------------------------------------------------------
// CANCEL, ERROR, CREDIT_RETURN

// "The sender MAY abandon a message by sending CANCEL"
TEST(Sender, Cancel_SendsCancelApplicationAbortAndAborts) {
  Harness h;
  const MessageHandle m = h.submit(1 << 20);
  h.deliver(h.accept());
  h.deliver(h.grant(h.id(m), 65536, 1000, 100000));
  h.run_for(microseconds(50));
  h.s->cancel(m, h.now);
  h.drain();
  const auto c = h.last<Cancel>();
  EXPECT_EQ(c.message_id, h.id(m));
  EXPECT_EQ(c.reason, static_cast<std::uint16_t>(ReasonCode::ApplicationAbort));
  EXPECT_EQ(h.state(m), MessageState::Aborted);
  const auto sent = h.data.size();
  const auto requests = h.count<CreditRequest>();
  h.run_for(milliseconds(10));
  EXPECT_EQ(h.data.size(), sent);
  EXPECT_EQ(h.count<CreditRequest>(), requests);
}

// "any but DONE or ABORTED | CANCEL for the message; ERROR for the message with reason
// MESSAGE_TOO_LARGE, APPLICATION_ABORT, or UNSUPPORTED_BINDING; or ERROR with reason
// ASSOC_REFUSED | release state | ABORTED"
TEST(Sender, ReceiverCancelOrAbortingError_AbortsTheMessage) {
  for (const ReasonCode r : {ReasonCode::MessageTooLarge, ReasonCode::ApplicationAbort,
                             ReasonCode::UnsupportedBinding, ReasonCode::AssocRefused}) {
    SCOPED_TRACE(static_cast<int>(r));
    Harness h;
    const MessageHandle m = h.submit(1 << 20);
    const MessageHandle other = h.submit(1 << 20);
    h.deliver(h.accept());
    h.deliver(h.error(r, h.id(m)));
    EXPECT_EQ(h.state(m), MessageState::Aborted);
    EXPECT_EQ(h.s->status(m)->abort_reason, static_cast<std::uint16_t>(r));
    EXPECT_EQ(h.state(other), MessageState::Waiting);
  }
  Harness h;
  const MessageHandle m = h.submit(1 << 20);
  h.deliver(h.accept());
  Cancel c;
  c.header = h.hdr();
  c.message_id = h.id(m);
  c.reason = static_cast<std::uint16_t>(ReasonCode::ApplicationAbort);
  h.deliver(c);
  EXPECT_EQ(h.state(m), MessageState::Aborted);
}

// "A receiver that cannot admit a new association answers with ERROR (reason ASSOC_REFUSED)."
// The refusal carries no nonce: the procedure's attempts go on, and the messages are aborted
// when they end unaccepted (docs/spec-notes.md, "ASSOC_REFUSED ends the association procedure,
// not the first time it arrives").
TEST(Sender, AssocRefused_AbortsEveryPendingMessageWhenTheAttemptsEndUnaccepted) {
  Harness h;
  const MessageHandle a = h.submit(100);
  const MessageHandle b = h.submit(1 << 20);
  ErrorMessage e = h.error(ReasonCode::AssocRefused);
  e.header.association_id = 0;
  e.header.epoch = 0;
  h.deliver(e);
  EXPECT_EQ(h.state(a), MessageState::New);
  h.run_for(milliseconds(100));
  EXPECT_EQ(h.state(a), MessageState::New);
  h.run_for(milliseconds(300));
  EXPECT_EQ(h.state(a), MessageState::Aborted);
  EXPECT_EQ(h.state(b), MessageState::Aborted);
  EXPECT_EQ(h.s->status(a)->abort_reason, static_cast<std::uint16_t>(ReasonCode::AssocRefused));
  h.run_for(milliseconds(300));
  EXPECT_EQ(h.count<AssocRequest>(), 8U) << "eight attempts, then nothing";
}

// A forged refusal (audit row 1.6): the receiver's ASSOC_ACCEPT echoing the nonce still
// establishes the association, and no message is aborted.
TEST(Sender, AssocRefusedThenAccepted_EstablishesAndAbortsNothing) {
  Harness h;
  const MessageHandle a = h.submit(1 << 20);
  ErrorMessage e = h.error(ReasonCode::AssocRefused);
  e.header.association_id = 0;
  e.header.epoch = 0;
  h.deliver(e);
  h.run_for(milliseconds(2));
  h.deliver(h.accept());
  h.run_for(milliseconds(400));
  EXPECT_EQ(h.state(a), MessageState::Waiting);
  EXPECT_EQ(h.s->status(a)->abort_reason, 0U);
}

// "WAITING | ERROR BUDGET_EXHAUSTED | keep the request outstanding | WAITING"; "senders keep
// their requests outstanding."
TEST(Sender, BudgetExhausted_KeepsTheRequestOutstanding) {
  Harness h;
  const MessageHandle m = h.submit(1 << 20);
  h.establish(microseconds(80));
  h.deliver(h.error(ReasonCode::BudgetExhausted, h.id(m)));
  h.deliver(h.error(ReasonCode::BudgetExhausted, 0));
  EXPECT_EQ(h.state(m), MessageState::Waiting);
  h.run_for(microseconds(160));
  EXPECT_EQ(h.count<CreditRequest>(), 2U) << "the retransmission timer still runs";
  h.deliver(h.grant(h.id(m), 65536));
  EXPECT_EQ(h.state(m), MessageState::Scheduled);
}

// "A sender that will not use credit it holds SHOULD return it with CREDIT_RETURN, which
// states the offset beyond which the sender will not transmit"; "New Limit MUST NOT be smaller
// than the octets already transmitted."
TEST(Sender, CreditReturn_NeverBelowTransmitted_AndNothingIsSentBeyondIt) {
  Harness h;
  const MessageHandle m = h.submit(1 << 20);
  h.deliver(h.accept());
  h.deliver(h.grant(h.id(m), 65536, 1000, 100000));
  h.run_for(microseconds(40));  // 8192 sent
  ASSERT_EQ(h.transmitted(m), 8192U);
  h.s->return_credit(m, 4096, h.now);
  h.drain();
  EXPECT_EQ(h.count<CreditReturn>(), 0U);
  h.s->return_credit(m, 16384, h.now);
  h.drain();
  const auto r = h.last<CreditReturn>();
  EXPECT_EQ(r.message_id, h.id(m));
  EXPECT_EQ(r.new_limit, 16384U);
  EXPECT_EQ(h.s->stats().credit_returned, 65536U - 16384U);
  h.deliver(h.grant(h.id(m), 131072, 1000, 100000));  // possibly issued before the return
  h.run_for(milliseconds(2));
  EXPECT_EQ(h.transmitted(m), 16384U);
}

// ---------------------------------------------------------------------------------------------
// Sender Backlog Indication and Suggested Rates

// "When the total credit the sender holds and has not yet used, summed over all its
// associations, exceeds its Backlog Threshold, the sender MUST send SENDER_STATUS on each
// association that holds such credit." "The sender repeats SENDER_STATUS once per smoothed
// round-trip time while the condition persists, and sends one final SENDER_STATUS with
// Congestion Level zero when it ends."
TEST(Sender, SenderStatus_StartsAboveTheThreshold_RepeatsOncePerSrtt_EndsWithLevelZero) {
  Harness h;
  h.params.backlog_threshold = 32768;
  const MessageHandle m = h.submit(1 << 20);
  h.establish(microseconds(50));  // SRTT 50 us
  h.run_for(microseconds(50));    // and the request -> grant sample is 50 us too
  h.log.clear();
  h.deliver(h.grant(h.id(m), 65536, 1000, 200));  // 64 KiB at 1 Gbit/s, 200 us
  h.run_for(microseconds(300));
  const auto statuses = h.log_lines("SENDER_STATUS");
  EXPECT_EQ(statuses, (std::vector<std::string>{
                          "t=0.100ms tx SENDER_STATUS unused=65536 level=128 rate=100000",
                          "t=0.150ms tx SENDER_STATUS unused=57344 level=110 rate=100000",
                          "t=0.200ms tx SENDER_STATUS unused=49152 level=85 rate=100000",
                          "t=0.250ms tx SENDER_STATUS unused=45056 level=70 rate=100000",
                          "t=0.300ms tx SENDER_STATUS unused=0 level=0 rate=0",
                      }));
}

// "sends one final SENDER_STATUS with Congestion Level zero when it ends": when the data that
// poll_data() releases ends the episode, the final status is queued then, for the driver's
// next poll_transmit(), not at the sender's next event (docs/spec-notes.md, 66;
// fuzz/regressions/fuzz_sender/final-sender-status-when-poll-data-ends-the-episode).
TEST(Sender, SenderStatus_FinalOneGoesOutWhenPollDataEndsTheEpisode) {
  Harness h;
  h.params.backlog_threshold = 0;
  const MessageHandle m = h.submit(65536);
  h.deliver(h.accept());
  h.log.clear();
  h.deliver(h.grant(h.id(m), 1024, 25000, 10));  // one segment's credit, sent at once
  EXPECT_EQ(h.log, (std::vector<std::string>{
                       "t=0.000ms tx SENDER_STATUS unused=1024 level=255 rate=100000",
                       "t=0.000ms data msg=1 off=0 len=1024",
                       "t=0.000ms tx SENDER_STATUS unused=0 level=0 rate=0",
                   }));
}

// fuzz_sender (regression backlog-of-a-pool-of-everything): a pool grant of 2^64 - 1 octets and a
// grant of the message's own. Their sum saturates at 2^64 - 1 instead of wrapping to less than
// either (8191 here, below the threshold: no episode), after which the data sent, which only
// uses credit up, "started" an episode at the sender's next event, whatever it was.
TEST(Sender, SenderStatus_UnusedCreditSaturates_WithAPoolGrantOfEverything) {
  Harness h;
  h.params.backlog_threshold = 65536;
  const MessageHandle m = h.submit(8192, true);
  h.deliver(h.accept());
  h.log.clear();
  h.deliver(h.grant(0, ~std::uint64_t{0}, 1000, 1000, flag::kPool));
  h.deliver(h.grant(h.id(m), 65536, 1000, 1000));
  h.run_for(microseconds(100));
  const auto status = h.log_lines("SENDER_STATUS");
  ASSERT_FALSE(status.empty());
  EXPECT_EQ(status[0],
            "t=0.000ms tx SENDER_STATUS unused=18446744073709551615 level=255 rate=100000");
  for (const auto& line : status) EXPECT_NE(line.find("level=255"), std::string::npos) << line;
  EXPECT_EQ(h.transmitted(m), 8192U);
}

// The Backlog Threshold "is the smallest N_cu advertised by its receivers, or a smaller locally
// configured value"; SENDER_STATUS goes only to a receiver that advertised STATUS.
// "the sender MUST send SENDER_STATUS on each association that holds such credit": also on one
// whose receiver did not advertise STATUS (docs/spec-notes.md, "SENDER_STATUS"); the threshold
// is the smaller of N_cu and the local one.
TEST(Sender, SenderStatus_UsesTheLocalThresholdAndGoesAlsoToReceiversWithoutStatusCapability) {
  SenderConfig c = default_config();
  c.local_backlog_threshold = 1000;
  Harness h(c);
  h.params.capabilities = capability::kPool;  // no STATUS
  const MessageHandle m = h.submit(1 << 20);
  h.deliver(h.accept());
  h.deliver(h.grant(h.id(m), 65536, 1000, 200));
  h.run_for(microseconds(300));
  ASSERT_GE(h.count<SenderStatus>(), 1U);
  EXPECT_GT(h.sent<SenderStatus>()[0].unused_credit, 1000U);
  EXPECT_GT(h.sent<SenderStatus>()[0].congestion_level, 0U);
  Harness k(c);
  const MessageHandle km = k.submit(1 << 20);
  k.deliver(k.accept());
  k.deliver(k.grant(k.id(km), 2000, 1000, 200));  // 2000 > 1000, far below N_cu
  // Its 2000 octets go out at once, and the episode ends with them.
  EXPECT_EQ(k.log_lines("SENDER_STATUS"),
            (std::vector<std::string>{
                "t=0.000ms tx SENDER_STATUS unused=2000 level=128 rate=100000",
                "t=0.000ms tx SENDER_STATUS unused=0 level=0 rate=0",
            }));
}

// "The sender SHOULD compute the Suggested Rate for receiver j as its own available
// transmission rate multiplied by the share it wishes receiver j to obtain, where the shares
// are derived from the Service Hints of the pending messages (for example, larger shares for
// latency-sensitive messages) and sum to at most one."
TEST(Sender, SenderStatus_SuggestedRatesFollowServiceHintSharesSummingToAtMostOne) {
  SenderConfig c = default_config();
  c.available_rate_mbps = 90000;
  Harness h(c);
  h.params.backlog_threshold = 10000;
  MessageSpec fast;
  fast.receiver = kRecv;
  fast.length = 1 << 20;
  fast.service_hint = ServiceHint::LatencySensitive;
  MessageSpec bulk = fast;
  bulk.receiver = kRecv2;
  bulk.service_hint = ServiceHint::ThroughputOriented;
  const MessageHandle a = h.submit_spec(fast);
  const MessageHandle b = h.submit_spec(bulk);
  AssocAccept first = h.accept();
  first.sender_nonce = h.sent<AssocRequest>()[0].sender_nonce;
  h.deliver(first, kRecv);
  AssocAccept second = h.accept();
  second.sender_nonce = h.sent<AssocRequest>()[1].sender_nonce;
  h.deliver(second, kRecv2);
  h.deliver(h.grant(h.id(a), 65536, 100, 100000), kRecv);
  h.deliver(h.grant(h.id(b), 65536, 100, 100000), kRecv2);
  std::uint64_t to_a = 0;
  std::uint64_t to_b = 0;
  for (std::size_t i = 0; i < h.tx.size(); ++i) {
    if (const auto* s = std::get_if<SenderStatus>(&h.tx[i].second)) {
      (h.datagrams[i].to == kRecv ? to_a : to_b) = s->suggested_rate;
      if (h.datagrams[i].to == kRecv) {
        EXPECT_EQ(s->service_hint, 1);
      }
    }
  }
  EXPECT_EQ(to_a, 60000U);
  EXPECT_EQ(to_b, 30000U);
  EXPECT_LE(to_a + to_b, 90000U);
}

// ---------------------------------------------------------------------------------------------
// DSCP

// "RDCC control messages SHOULD be marked with a DSCP that receives at least the priority of
// the data they control"; data per class.
TEST(Sender, Dscp_ControlUsesTheControlDscpAndDataItsClassDscp) {
  Harness h;
  const MessageHandle m = h.submit(1 << 20, true, 3);
  h.deliver(h.accept());
  h.deliver(h.grant(h.id(m), 8192));
  h.run_for(microseconds(10));
  for (const auto& d : h.datagrams) EXPECT_EQ(d.dscp, 46);
  ASSERT_FALSE(h.data.empty());
  for (const auto& [t, d] : h.data) EXPECT_EQ(d.dscp, 19);
}

}  // namespace
}  // namespace rdcc::ref
