// The receiver against forged datagrams (issue 30; docs/spec-notes.md, "Data belongs to an
// association, never to a host", "What a receiver tells a source that has no association", "A
// Sequence Number far ahead is discarded, not processed", "Parameter Updates go to a peer that
// has answered", "Associations per host"). Each test compares the log of what the receiver sent
// (`t=1.000ms tx CREDIT_GRANT to=192.0.2.1:40000 msg=1 limit=4096`).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "receiver_harness.hpp"

namespace rdcc::ref {
namespace {

// One line per datagram the receiver sent: time, type, destination and what the test reads.
std::vector<std::string> log_of(const std::vector<Sent>& sent, Time now) {
  std::vector<std::string> out;
  for (const Sent& s : sent) {
    std::string line = format_time(now) + " tx " + std::string(info(type_of(s.message)).name) +
                       " to=" + s.to.to_string();
    const Header& h = header_of(s.message);
    if (const auto* g = std::get_if<CreditGrant>(&s.message)) {
      line += " msg=" + std::to_string(g->message_id) + " limit=" + std::to_string(g->grant_limit);
    } else if (const auto* d = std::get_if<MsgDone>(&s.message)) {
      line += " msg=" + std::to_string(d->message_id);
    } else if (const auto* e = std::get_if<ErrorMessage>(&s.message)) {
      line += " reason=" + std::to_string(e->reason) +
              " assoc=" + std::to_string(h.association_id) + " epoch=" + std::to_string(h.epoch);
    } else if (const auto* a = std::get_if<AssocAccept>(&s.message)) {
      line += " u=" + std::to_string(a->unscheduled_limit) +
              ((h.flags & flag::kParameterUpdate) != 0 ? " update" : "");
    }
    out.push_back(line);
  }
  return out;
}

ReceiverConfig config() {
  ReceiverConfig c = ReceiverHarness::default_config();
  c.epoch = 77;
  return c;
}

const Address kHost1Port1 = Address::v4(192, 0, 2, 1, 40000);
const Address kHost1Port2 = Address::v4(192, 0, 2, 1, 40001);
const Address kHost1Data = Address::v4(192, 0, 2, 1, 33333);  // the data transport's port

// Requests message `id` of `length` octets on the association of kHost1Port1, with opaque
// Binding Value `binding_value`.
void request_named(ReceiverHarness& h, const AssocAccept& a, std::uint64_t id, std::uint64_t length,
                   std::uint64_t binding_value) {
  CreditRequest r = h.request(a, id, length);
  r.binding_value = binding_value;
  h.deliver(kHost1Port1, r);
}

// Two senders on one host: each one's data counts for its own message, whatever came first.
TEST(ReceiverData, TwoSendersOnOneHost_EachOnesDataCountsForItsOwnMessage) {
  ReceiverHarness h(config());
  const AssocAccept a = h.associate(kHost1Port1, 1);
  const AssocAccept b = h.associate(kHost1Port2, 2);
  CreditRequest ra = h.request(a, 1, 4096);
  ra.binding_value = 0xA1;
  CreditRequest rb = h.request(b, 1, 4096);
  rb.binding_value = 0xB1;
  h.deliver(kHost1Port1, ra);
  h.deliver(kHost1Port2, rb);
  const Time t = h.now();
  EXPECT_EQ(log_of(h.data(kHost1Data, 0xB1, 0, 4096, 1), t),
            (std::vector<std::string>{"t=0.000ms tx MSG_DONE to=192.0.2.1:40001 msg=1"}));
  EXPECT_EQ(log_of(h.data(kHost1Data, 0xA1, 0, 4096, 1), t),
            (std::vector<std::string>{"t=0.000ms tx MSG_DONE to=192.0.2.1:40000 msg=1"}));
  EXPECT_EQ(h.receiver().stats().unattributed_data_octets, 0U);
}

// Data naming no message of its host (forged, or from another host) touches no association: no
// misbehaving verdict, no credit counted, and the real data completes the message after it.
TEST(ReceiverData, UnknownIdentity_TouchesNoAssociation) {
  ReceiverHarness h(config());
  const AssocAccept a = h.associate(kHost1Port1, 1);
  request_named(h, a, 1, 8192, 0xA1);
  // Beyond the Grant Limit, had it named the message: forged with the Message ID as identifier,
  // and the right identifier from another host.
  EXPECT_TRUE(h.data(kHost1Data, 1, 8192 - 1000, 1000, 1).empty());
  EXPECT_TRUE(h.data(Address::v4(192, 0, 2, 9, 33333), 0xA1, 0, 8192, 1).empty());
  EXPECT_EQ(h.receiver().stats().misbehaving_data_octets, 0U);
  EXPECT_EQ(h.receiver().stats().unattributed_data_octets, 1000U + 8192U);
  const Time t = h.now();
  EXPECT_TRUE(h.data(kHost1Data, 0xA1, 0, 4096, 1).empty());
  EXPECT_EQ(log_of(h.data(kHost1Data, 0xA1, 4096, 4096, 1), t),
            (std::vector<std::string>{"t=0.000ms tx MSG_DONE to=192.0.2.1:40000 msg=1"}));
}

// Data of a message already complete (a resend that crossed the octets it replaced) is late,
// not data of no message: it is counted apart from forged data, and completes nothing again.
TEST(ReceiverData, DataOfAFinishedMessage_IsLateNotUnattributed) {
  ReceiverHarness h(config());
  const AssocAccept a = h.associate(kHost1Port1, 1);
  request_named(h, a, 1, 4096, 0xA1);
  const Time t = h.now();
  EXPECT_EQ(log_of(h.data(kHost1Data, 0xA1, 0, 4096, 1), t),
            (std::vector<std::string>{"t=0.000ms tx MSG_DONE to=192.0.2.1:40000 msg=1"}));
  EXPECT_TRUE(h.data(kHost1Data, 0xA1, 1024, 1024, 1).empty());
  EXPECT_TRUE(h.data(kHost1Data, 0xB2, 0, 512, 1).empty());
  EXPECT_EQ(h.receiver().stats().late_data_octets, 1024U);
  EXPECT_EQ(h.receiver().stats().unattributed_data_octets, 512U);
  // The same identity taken by a later message is that message's again.
  request_named(h, a, 2, 4096, 0xA1);
  const Time t2 = h.now();
  EXPECT_EQ(log_of(h.data(kHost1Data, 0xA1, 0, 4096, 1), t2),
            (std::vector<std::string>{"t=0.000ms tx MSG_DONE to=192.0.2.1:40000 msg=2"}));
  EXPECT_EQ(h.receiver().stats().late_data_octets, 1024U);
}

// A sender that re-established names its message again with the same identity: its data counts
// for the association accepted last, while the first still lives.
TEST(ReceiverData, IdentityTwoAssociationsOfTheHostKnow_CountsForTheOneAcceptedLast) {
  ReceiverHarness h(config());
  const AssocAccept old_one = h.associate(kHost1Port1, 1);
  CreditRequest r1 = h.request(old_one, 5, 4096);
  r1.binding_value = 0xC1;
  h.deliver(kHost1Port1, r1);
  const AssocAccept new_one = h.associate(kHost1Port1, 2);
  CreditRequest r2 = h.request(new_one, 1, 4096);
  r2.binding_value = 0xC1;
  h.deliver(kHost1Port1, r2);
  const Time t = h.now();
  const auto sent = h.data(kHost1Data, 0xC1, 0, 4096, 1);
  ASSERT_EQ(only<MsgDone>(sent).size(), 1U);
  EXPECT_EQ(only<MsgDone>(sent)[0].header.association_id, new_one.header.association_id);
  EXPECT_EQ(log_of(sent, t),
            (std::vector<std::string>{"t=0.000ms tx MSG_DONE to=192.0.2.1:40000 msg=1"}));
}

// Data that overtakes its request waits for the request of its host that names it.
TEST(ReceiverData, EarlyDataOfAHost_IsTakenByTheRequestThatNamesIt) {
  ReceiverHarness h(config());
  const AssocAccept a = h.associate(kHost1Port1, 1);
  const AssocAccept b = h.associate(kHost1Port2, 2);
  EXPECT_TRUE(h.data(kHost1Data, 0xB2, 0, 2048, 2).empty());
  CreditRequest ra = h.request(a, 2, 2048, 2048);
  ra.binding_value = 0xA2;
  EXPECT_TRUE(only<MsgDone>(h.deliver(kHost1Port1, ra)).empty()) << "not a's data";
  CreditRequest rb = h.request(b, 2, 2048, 2048);
  rb.binding_value = 0xB2;
  const Time t = h.now();
  EXPECT_EQ(log_of(h.deliver(kHost1Port2, rb), t),
            (std::vector<std::string>{"t=0.000ms tx MSG_DONE to=192.0.2.1:40001 msg=2"}));
}

// An ERROR to a source with no association restates what the request carried; the refusal of a
// request not admitted is of no association.
TEST(ReceiverErrors, StrangerLearnsNoEpoch) {
  ReceiverConfig c = config();
  c.max_associations = 1;
  ReceiverHarness h(c);
  const AssocAccept a = h.associate(kHost1Port1, 1);
  EXPECT_EQ(a.header.epoch, 77U);
  CreditRequest forged = h.request(a, 1, 4096);
  forged.header.epoch = 0;
  const Address stranger = Address::v4(192, 0, 2, 50, 40000);
  const Time t = h.now();
  EXPECT_EQ(log_of(h.deliver(stranger, forged), t),
            (std::vector<std::string>{"t=0.000ms tx ERROR to=192.0.2.50:40000 reason=2 assoc=" +
                                      std::to_string(a.header.association_id) + " epoch=0"}));
  AssocRequest req;
  req.sender_nonce = 9;
  EXPECT_EQ(log_of(h.deliver(stranger, req), t),
            (std::vector<std::string>{"t=0.000ms tx ERROR to=192.0.2.50:40000 reason=1 assoc=0 "
                                      "epoch=0"}));
}

// One message numbered far ahead moves nothing: the peer's next message is processed.
TEST(ReceiverSequence, FarAheadMessage_IsDiscardedAndMovesNothing) {
  ReceiverHarness h(config());
  const AssocAccept a = h.associate(kHost1Port1, 1);
  CreditRequest first = h.request(a, 1, 4096);
  first.header.sequence_number = 10;
  EXPECT_EQ(only<CreditGrant>(h.deliver(kHost1Port1, first)).size(), 1U);
  CreditRequest ahead = h.request(a, 2, 4096);
  ahead.header.sequence_number = 10 + kSequenceWindow + 1;
  EXPECT_TRUE(h.deliver(kHost1Port1, ahead).empty());
  CreditRequest edge = h.request(a, 3, 4096);
  edge.header.sequence_number = 11;
  const auto granted = [](const std::vector<Sent>& sent, std::uint64_t id) {
    const auto grants = only<CreditGrant>(sent);
    return std::any_of(grants.begin(), grants.end(),
                       [&](const CreditGrant& g) { return g.message_id == id; });
  };
  EXPECT_TRUE(granted(h.deliver(kHost1Port1, edge), 3));
  // Newer by exactly the window: processed, and the newest processed number moves to it.
  CreditRequest within = h.request(a, 4, 4096);
  within.header.sequence_number = 11 + kSequenceWindow;
  EXPECT_TRUE(granted(h.deliver(kHost1Port1, within), 4));
  CreditRequest stale = h.request(a, 5, 4096);
  stale.header.sequence_number = 12;
  EXPECT_TRUE(h.deliver(kHost1Port1, stale).empty()) << "not newer: discarded, as the rule says";
}

// Trips the circuit breaker: an unscheduled message announced on `a` whose data never comes.
void trip_breaker(ReceiverHarness& h, const AssocAccept& a, const Address& from) {
  h.deliver(from, h.request(a, 1, a.unscheduled_limit, a.unscheduled_limit));
}

// An association made by an ASSOC_REQUEST alone (a forged one: the victim's address) is sent no
// Parameter Update; one whose peer has answered gets rounds of eight.
TEST(ReceiverUpdates, PeerNeverHeard_IsSentNoUpdate_AHeardOneRoundsOfEight) {
  ReceiverHarness h(config());
  const Address victim = Address::v4(192, 0, 2, 60, 40000);
  h.associate(victim, 0x77);
  const AssocAccept own = h.associate(kHost1Port1, 0x88);
  trip_breaker(h, own, kHost1Port1);
  std::vector<Sent> later = h.advance(seconds(5));
  std::size_t to_victim = 0;
  std::size_t to_peer = 0;
  for (const Sent& s : later) {
    to_victim += s.to == victim ? 1U : 0U;
    to_peer += s.to == kHost1Port1 && std::holds_alternative<AssocAccept>(s.message) ? 1U : 0U;
  }
  EXPECT_EQ(to_victim, 0U);
  // A round of eight when the breaker trips (U 0), one when it clears (U again), then nothing
  // until the peer is heard.
  EXPECT_EQ(to_peer, 16U);
  // The peer speaks again: one more round begins at once.
  const Time t = h.now();
  const auto answer = h.deliver(kHost1Port1, h.request(own, 2, 4096));
  ASSERT_FALSE(answer.empty());
  EXPECT_EQ(log_of({answer.front()}, t),
            (std::vector<std::string>{"t=5000.000ms tx ASSOC_ACCEPT to=192.0.2.1:40000 u=16384 "
                                      "update"}));
}

// An acknowledged update ends its round.
TEST(ReceiverUpdates, Acknowledged_EndsTheRound) {
  ReceiverHarness h(config());
  const AssocAccept own = h.associate(kHost1Port1, 0x88);
  trip_breaker(h, own, kHost1Port1);
  // Up to the round's first update.
  for (int ms = 0; ms < 1500 && only<AssocAccept>(h.advance(milliseconds(1))).empty(); ++ms) {
  }
  AssocRequest ack;
  ack.header.flags = flag::kUpdateAcknowledgment;
  ack.sender_nonce = 0x88;
  h.deliver(kHost1Port1, ack);
  EXPECT_TRUE(only<AssocAccept>(h.advance(milliseconds(300))).empty())
      << "the round's other seven are not sent";
}

// Requests from many ports of one host fill its share, not the receiver.
TEST(ReceiverAssociations, OneHostsRequests_LeaveRoomForAnotherHost) {
  ReceiverConfig c = config();
  c.max_associations = 8;
  c.max_associations_per_host = 3;
  ReceiverHarness h(c);
  std::vector<std::string> replies;
  for (std::uint16_t port = 1; port <= 5; ++port) {
    AssocRequest req;
    req.sender_nonce = port;
    const auto out = h.deliver(Address::v4(192, 0, 2, 66, port), req);
    ASSERT_EQ(out.size(), 1U);
    replies.emplace_back(info(type_of(out[0].message)).name);
  }
  EXPECT_EQ(replies, (std::vector<std::string>{"ASSOC_ACCEPT", "ASSOC_ACCEPT", "ASSOC_ACCEPT",
                                               "ERROR", "ERROR"}));
  EXPECT_NE(h.associate(Address::v4(192, 0, 2, 67, 40000), 1).header.association_id, 0U);
}

// A request repeated with the same nonce gets the same association, but keeps it alive only once
// its peer has sent the association a message.
TEST(ReceiverAssociations, RepeatedRequestsOfAPeerNeverHeard_KeepNothingAlive) {
  ReceiverHarness h(config());
  const Address forged = Address::v4(192, 0, 2, 70, 40000);
  const AssocAccept first = h.associate(forged, 0x70);
  const AssocAccept heard = h.associate(kHost1Port1, 0x71);
  h.deliver(kHost1Port1, h.request(heard, 1, 4096));
  for (int i = 0; i < 2; ++i) {
    h.advance(seconds(4));
    EXPECT_EQ(h.associate(forged, 0x70).header.association_id, first.header.association_id);
    h.deliver(kHost1Port1, h.on_association(heard, SenderStatus{}));
  }
  h.advance(seconds(4));
  EXPECT_EQ(h.receiver().association_count(), 1U) << "idle 10 s after it was accepted: removed";
  EXPECT_EQ(h.receiver().stats().associations_removed_idle, 1U);
}

}  // namespace
}  // namespace rdcc::ref
