// Every mutant of rdcc/testing/mutants.hpp is alive: for each one a small, targeted probe
// drives the endpoint it breaks and says whether the fault shows on the wire. The probe must
// see nothing wrong with the reference and must see the fault with the mutant switched on.
#include "rdcc/testing/mutants.hpp"
#include "rdcc/testing/sender_mutants.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <set>
#include <string>

#include "crn_harness.hpp"
#include "rdcc/codec/codec.hpp"
#include "rdcc/reference/crn.hpp"
#include "receiver_harness.hpp"
#include "sender_harness.hpp"

namespace rdcc::ref {
namespace {

using testing::Mutant;
using testing::MutantSet;

// A probe runs one short exchange against an endpoint started with `mutants` and returns true
// when it observed the rule being broken.
using Probe = std::function<bool(const MutantSet& mutants)>;

// ---- receiver ----------------------------------------------------------------------------------

ReceiverConfig receiver_config() {
  return ReceiverHarness::default_config();
}

const Address kS1 = ReceiverHarness::sender(1);
const Address kS2 = ReceiverHarness::sender(2);

std::vector<std::byte> wire(const Message& m) {
  std::vector<std::byte> b(encoded_size(m));
  EXPECT_TRUE(encode(m, b));
  return b;
}

// The grants of one message, in order.
std::vector<CreditGrant> grants_of(const std::vector<Sent>& sent, std::uint64_t id) {
  std::vector<CreditGrant> out;
  for (const auto& g : only<CreditGrant>(sent)) {
    if (g.message_id == id) out.push_back(g);
  }
  return out;
}

void append(std::vector<Sent>& all, const std::vector<Sent>& more) {
  all.insert(all.end(), more.begin(), more.end());
}

// Request a message of `length`, then send the octets of each grant until none comes.
std::vector<Sent> request_and_send(ReceiverHarness& h, const AssocAccept& a, std::uint64_t id,
                                   std::uint64_t length, int rounds = 4) {
  std::vector<Sent> all = h.deliver(kS1, h.request(a, id, length));
  std::uint64_t sent_to = 0;
  for (int i = 0; i < rounds; ++i) {
    const auto gs = grants_of(all, id);
    if (gs.empty() || gs.back().grant_limit <= sent_to) break;
    const std::uint64_t limit = std::min(gs.back().grant_limit, length);
    append(all, h.send_granted(kS1, id, sent_to, limit));
    sent_to = limit;
  }
  return all;
}

// Budget probe: one unscheduled announcement (no data) and scheduled messages of 64 KiB on a
// link fast enough that the rate never holds a grant back. True if the credit issued and the
// unscheduled octets announced together exceed G.
bool budget_exceeded(const MutantSet& ms) {
  ReceiverConfig c = receiver_config();
  c.link_capacity_mbps = 1000000;
  c.grant_window = std::uint64_t{64} * 1024;
  ReceiverHarness h(c, ms);
  const auto a = h.associate(kS1, 1);
  std::vector<Sent> all =
      h.deliver(kS1, h.request(a, 1, std::uint64_t{16} * 1024, std::uint64_t{16} * 1024));
  for (std::uint64_t id = 2; id <= 7; ++id) append(all, h.deliver(kS1, h.request(a, id, 1 << 20)));
  std::map<std::uint64_t, std::uint64_t> limits;
  for (const auto& g : only<CreditGrant>(all))
    limits[g.message_id] = std::max(limits[g.message_id], g.grant_limit);
  std::uint64_t sum =
      std::uint64_t{16} * 1024;  // the unscheduled message's octets, announced, not received
  for (const auto& [id, l] : limits)
    sum += id == 1 ? l - std::min<std::uint64_t>(l, std::uint64_t{16} * 1024) : l;
  return sum > c.budget;
}

// Rate probe: two messages; a report naming the sender's flow (from `reporter`), an update
// interval, then the granted octets. Returns the Pacing Rates of the first and last grant.
std::pair<std::uint32_t, std::uint32_t> rate_around_report(const MutantSet& ms,
                                                           const Address& reporter,
                                                           std::uint32_t suggested = 0) {
  ReceiverHarness h(receiver_config(), ms);
  const auto a = h.associate(kS1, 1);
  if (suggested != 0) {
    SenderStatus st;
    st.unused_credit = 0;
    st.suggested_rate = suggested;
    (void)h.deliver(kS1, h.on_association(a, st));
  }
  std::vector<Sent> all = h.deliver(kS1, h.request(a, 1, 1 << 20));
  const auto first = grants_of(all, 1);
  if (first.empty()) return {0, 0};
  CongestionReport r;
  r.reporter_id = 9;
  r.queue_depth = 500000;
  r.queue_threshold = 100000;
  r.congestion_degree = 255;
  r.direction = 1;
  r.protocol = 17;
  r.source_port = 4791;
  r.destination_port = 4791;
  r.source_address = kS1.ip;
  r.destination_address = h.cfg().local.ip;
  append(all, h.deliver(reporter, r));
  append(all, h.advance(microseconds(15)));
  append(all, h.send_granted(kS1, 1, 0, first.back().grant_limit));
  const auto gs = grants_of(all, 1);
  return {first.front().pacing_rate, gs.back().pacing_rate};
}

const Address kCrn = Address::v4(192, 0, 2, 250, 50000);
const Address kNotCrn = Address::v4(192, 0, 2, 77, 50000);

std::map<Mutant, Probe> receiver_probes() {
  std::map<Mutant, Probe> p;
  p[Mutant::GrantBeyondLength] = [](const MutantSet& ms) {
    ReceiverHarness h(receiver_config(), ms);
    const auto a = h.associate(kS1, 1);
    for (const auto& g : grants_of(h.deliver(kS1, h.request(a, 1, 8192)), 1)) {
      if (g.grant_limit > 8192) return true;
    }
    return false;
  };
  p[Mutant::FinalNeverSet] = [](const MutantSet& ms) {
    ReceiverHarness h(receiver_config(), ms);
    const auto a = h.associate(kS1, 1);
    const auto gs = grants_of(h.deliver(kS1, h.request(a, 1, 8192)), 1);
    return gs.empty() || !gs.back().final();
  };
  p[Mutant::FinalSetEarly] = [](const MutantSet& ms) {
    ReceiverHarness h(receiver_config(), ms);
    const auto a = h.associate(kS1, 1);
    for (const auto& g : grants_of(h.deliver(kS1, h.request(a, 1, 1 << 20)), 1)) {
      if (g.final() && g.grant_limit != (1U << 20U)) return true;
    }
    return false;
  };
  p[Mutant::GrantLimitReduced] = [](const MutantSet& ms) {
    ReceiverHarness h(receiver_config(), ms);
    const auto a = h.associate(kS1, 1);
    const auto gs = grants_of(request_and_send(h, a, 1, 1 << 20), 1);
    for (std::size_t i = 1; i < gs.size(); ++i) {
      if (gs[i].grant_limit < gs[i - 1].grant_limit) return true;
    }
    return gs.size() < 2;
  };
  p[Mutant::ZeroPacingRate] = [](const MutantSet& ms) {
    ReceiverHarness h(receiver_config(), ms);
    const auto a = h.associate(kS1, 1);
    const auto gs = grants_of(h.deliver(kS1, h.request(a, 1, 8192)), 1);
    return gs.empty() || gs[0].pacing_rate == 0;
  };
  p[Mutant::ReceiverSerialWithoutWraparound] = [](const MutantSet& ms) {
    ReceiverHarness h(receiver_config(), ms);
    const auto a = h.associate(kS1, 1);
    auto r1 = h.request(a, 1, 4096);
    r1.header.sequence_number = 0xFFFFFFFFU;
    (void)h.deliver(kS1, r1);
    (void)h.data(kS1, 1, 0, 4096, 1);  // message 1 complete: its rate is free again
    auto r2 = h.request(a, 2, 4096);
    r2.header.sequence_number = 0;  // newer, in serial number arithmetic
    return grants_of(h.deliver(kS1, r2), 2).empty();
  };
  p[Mutant::ReceiverStaleAccepted] = [](const MutantSet& ms) {
    ReceiverHarness h(receiver_config(), ms);
    const auto a = h.associate(kS1, 1);
    auto r1 = h.request(a, 1, 4096);
    r1.header.sequence_number = 10;
    (void)h.deliver(kS1, r1);
    (void)h.data(kS1, 1, 0, 4096, 1);  // message 1 complete: its rate is free again
    auto r2 = h.request(a, 2, 4096);
    r2.header.sequence_number = 5;
    return !grants_of(h.deliver(kS1, r2), 2).empty();
  };
  p[Mutant::AssocIdNotIdempotent] = [](const MutantSet& ms) {
    ReceiverHarness h(receiver_config(), ms);
    return h.associate(kS1, 77).header.association_id != h.associate(kS1, 77).header.association_id;
  };
  p[Mutant::NonceNotEchoed] = [](const MutantSet& ms) {
    ReceiverHarness h(receiver_config(), ms);
    return h.associate(kS1, 0xABCDEF).sender_nonce != 0xABCDEFU;
  };
  p[Mutant::UnsupportedTypeOutsideAssociation] = [](const MutantSet& ms) {
    ReceiverHarness h(receiver_config(), ms);
    std::vector<std::byte> raw(16);
    raw[0] = std::byte{0x10};
    raw[1] = std::byte{0x0B};  // no such type
    raw[3] = std::byte{16};
    return !h.deliver_raw(kS1, raw).empty();
  };
  p[Mutant::UnsupportedTypeToSource] = [](const MutantSet& ms) {
    ReceiverHarness h(receiver_config(), ms);
    const auto a = h.associate(kS1, 1);
    auto raw = wire(Message{h.request(a, 1, 4096)});
    raw[1] = std::byte{0x0B};
    for (const auto& s : h.deliver_raw(kS2, raw)) {
      if (s.to == kS2) return true;
    }
    return false;
  };
  p[Mutant::BudgetExcludesUnscheduled] = budget_exceeded;
  p[Mutant::BudgetNotEnforced] = budget_exceeded;
  p[Mutant::BudgetPerAssociation] = [](const MutantSet& ms) {
    // Two associations, each asking for more than G: together they are granted beyond it.
    ReceiverConfig c = receiver_config();
    c.link_capacity_mbps = 1000000;
    c.grant_window = c.budget;  // one message could take all of G_s
    ReceiverHarness h(c, ms);
    const auto a = h.associate(kS1, 1);
    const auto b = h.associate(kS2, 2);
    std::vector<Sent> all = h.deliver(kS1, h.request(a, 1, std::uint64_t{64} << 20U));
    append(all, h.deliver(kS2, h.request(b, 1, std::uint64_t{64} << 20U)));
    std::uint64_t sum = 0;
    std::map<std::uint32_t, std::uint64_t> limits;
    for (const auto& g : only<CreditGrant>(all))
      limits[g.header.association_id] = std::max(limits[g.header.association_id], g.grant_limit);
    for (const auto& [id, l] : limits) sum += l;
    return sum > c.budget;
  };
  p[Mutant::PoolGrantWithoutCapability] = [](const MutantSet& ms) {
    ReceiverHarness h(receiver_config(), ms);
    const auto a = h.associate(kS1, 1, capability::kStatus);
    for (const auto& g : only<CreditGrant>(h.deliver(kS1, h.request(a, 1, 8192)))) {
      if (g.pool() || g.message_id == 0) return true;
    }
    return false;
  };
  p[Mutant::PoolFlagMismatch] = [](const MutantSet& ms) {
    // Per-message grants (the reference's default): a grant for message 1 carries POOL.
    ReceiverHarness h(receiver_config(), ms);
    const auto a = h.associate(kS1, 1);
    for (const auto& g : only<CreditGrant>(h.deliver(kS1, h.request(a, 1, 8192)))) {
      if (g.pool() != (g.message_id == 0)) return true;
    }
    return false;
  };
  p[Mutant::GrantUnknownEpoch] = [](const MutantSet& ms) {
    ReceiverHarness h(receiver_config(), ms);
    const auto a = h.associate(kS1, 1);
    auto r = h.request(a, 1, 8192);
    r.header.epoch = static_cast<std::uint16_t>(a.header.epoch + 1);
    return !only<CreditGrant>(h.deliver(kS1, r)).empty();
  };
  p[Mutant::MisbehavingSenderGranted] = [](const MutantSet& ms) {
    ReceiverHarness h(receiver_config(), ms);
    const auto a = h.associate(kS1, 1);
    const auto first = grants_of(h.deliver(kS1, h.request(a, 1, 1 << 20)), 1);
    if (first.empty()) return true;
    const std::uint64_t limit = first.back().grant_limit;
    auto after = h.data(kS1, 1, limit, 4096, 1);  // beyond the Grant Limit
    append(after, h.send_granted(kS1, 1, 0, limit));
    return !grants_of(after, 1).empty();
  };
  p[Mutant::AssociationCapIgnored] = [](const MutantSet& ms) {
    ReceiverConfig c = receiver_config();
    c.max_associations = 2;
    ReceiverHarness h(c, ms);
    (void)h.associate(ReceiverHarness::sender(1), 1);
    (void)h.associate(ReceiverHarness::sender(2), 2);
    return h.associate(ReceiverHarness::sender(3), 3).header.association_id != 0;
  };
  p[Mutant::AssociationRefusedSilently] = [](const MutantSet& ms) {
    ReceiverConfig c = receiver_config();
    c.max_associations = 1;
    ReceiverHarness h(c, ms);
    (void)h.associate(ReceiverHarness::sender(1), 1);
    AssocRequest third;
    third.sender_nonce = 2;
    third.capabilities = capability::kStatus;
    third.line_rate = 100000;
    return h.deliver(ReceiverHarness::sender(2), third).empty();
  };
  p[Mutant::NoCircuitBreaker] = [](const MutantSet& ms) {
    ReceiverConfig c = receiver_config();
    c.loss_window = milliseconds(20);
    ReceiverHarness h(c, ms);
    const auto a = h.associate(kS1, 1);
    (void)h.deliver(kS1, h.request(a, 1, a.unscheduled_limit, a.unscheduled_limit));
    for (const AssocAccept& u : only<AssocAccept>(h.advance(milliseconds(100)))) {
      if (u.parameter_update() && u.unscheduled_limit == 0) return false;
    }
    return true;
  };
  p[Mutant::PendingCapIgnored] = [](const MutantSet& ms) {
    ReceiverConfig c = receiver_config();
    c.max_pending_per_association = 2;
    ReceiverHarness h(c, ms);
    const auto a = h.associate(kS1, 1);
    (void)h.deliver(kS1, h.request(a, 1, 1 << 20));
    (void)h.deliver(kS1, h.request(a, 2, 1 << 20));
    for (const auto& e : only<ErrorMessage>(h.deliver(kS1, h.request(a, 3, 1 << 20)))) {
      if (e.reason == static_cast<std::uint16_t>(ReasonCode::BudgetExhausted)) return false;
    }
    return true;
  };
  p[Mutant::ReceiverVersionNotChecked] = [](const MutantSet& ms) {
    ReceiverHarness h(receiver_config(), ms);
    const auto a = h.associate(kS1, 1);
    auto raw = wire(Message{h.request(a, 1, 8192)});
    raw[0] = std::byte{0x20};  // Version 2
    return !only<CreditGrant>(h.deliver_raw(kS1, raw)).empty();
  };
  p[Mutant::ReceiverLengthNotChecked] = [](const MutantSet& ms) {
    ReceiverHarness h(receiver_config(), ms);
    const auto a = h.associate(kS1, 1);
    auto raw = wire(Message{h.request(a, 1, 8192)});
    raw[3] = std::byte{48};  // Length 48 < 56, the size of CREDIT_REQUEST
    return !only<CreditGrant>(h.deliver_raw(kS1, raw)).empty();
  };
  p[Mutant::MsgDoneEarly] = [](const MutantSet& ms) {
    ReceiverHarness h(receiver_config(), ms);
    const auto a = h.associate(kS1, 1);
    (void)h.deliver(kS1, h.request(a, 1, 8192));
    return !only<MsgDone>(h.data(kS1, 1, 0, 4096, 1)).empty();
  };
  p[Mutant::MsgDoneNever] = [](const MutantSet& ms) {
    ReceiverHarness h(receiver_config(), ms);
    const auto a = h.associate(kS1, 1);
    (void)h.deliver(kS1, h.request(a, 1, 4096));
    return only<MsgDone>(h.data(kS1, 1, 0, 4096, 1)).empty();
  };
  p[Mutant::NoMsgDoneAgain] = [](const MutantSet& ms) {
    ReceiverHarness h(receiver_config(), ms);
    const auto a = h.associate(kS1, 1);
    (void)h.deliver(kS1, h.request(a, 1, 4096));
    (void)h.data(kS1, 1, 0, 4096, 1);
    return only<MsgDone>(h.deliver(kS1, h.request(a, 1, 4096))).empty();
  };
  p[Mutant::UnknownAssociationSilent] = [](const MutantSet& ms) {
    ReceiverHarness h(receiver_config(), ms);
    AssocAccept unknown;
    unknown.header.association_id = 0x1234;
    unknown.header.epoch = h.cfg().epoch;
    return only<ErrorMessage>(h.deliver(kS1, h.request(unknown, 1, 4096))).empty();
  };
  p[Mutant::SumOfUExceedsGu] = [](const MutantSet& ms) {
    ReceiverHarness h(receiver_config(), ms);
    std::uint64_t sum = 0;
    for (std::uint8_t i = 1; i <= 8; ++i)
      sum += h.associate(ReceiverHarness::sender(i), i).unscheduled_limit;
    return sum > h.cfg().unscheduled_budget;
  };
  p[Mutant::ReceiverReportFromUnconfiguredCrn] = [](const MutantSet& ms) {
    const auto [before, after] = rate_around_report(ms, kNotCrn);
    return after < before;
  };
  p[Mutant::ReceiverIgnoresReports] = [](const MutantSet& ms) {
    const auto [before, after] = rate_around_report(ms, kCrn);
    return after >= before;
  };
  p[Mutant::ReceiverIgnoresCongestion] = [](const MutantSet& ms) {
    const auto [before, after] = rate_around_report(ms, kCrn);
    return after >= before;
  };
  p[Mutant::ReportRaisesRate] = [](const MutantSet& ms) {
    const auto [before, after] = rate_around_report(ms, kCrn, 10000);
    return before > 10000 || after > before;
  };
  p[Mutant::SuggestedRateIgnored] = [](const MutantSet& ms) {
    const auto [before, after] = rate_around_report(ms, kNotCrn, 10000);
    return before > 10000;
  };
  p[Mutant::GrantToRequestSource] = [](const MutantSet& ms) {
    ReceiverHarness h(receiver_config(), ms);
    const auto a = h.associate(kS1, 1);
    for (const auto& s : h.deliver(kS2, h.request(a, 1, 8192))) {
      if (s.to == kS2 && std::holds_alternative<CreditGrant>(s.message)) return true;
    }
    return false;
  };
  p[Mutant::RateSumExceedsLink] = [](const MutantSet& ms) {
    ReceiverHarness h(receiver_config(), ms);
    const auto a = h.associate(kS1, 1);
    std::vector<Sent> all = h.deliver(kS1, h.request(a, 1, 1 << 20));
    append(all, h.deliver(kS1, h.request(a, 2, 1 << 20)));
    std::map<std::uint64_t, std::uint32_t> rate;
    for (const auto& g : only<CreditGrant>(all)) rate[g.message_id] = g.pacing_rate;
    std::uint64_t sum = 0;
    for (const auto& [id, r] : rate) sum += r;
    return sum > h.cfg().link_capacity_mbps;
  };
  p[Mutant::LowerGrantReclaims] = [](const MutantSet& ms) {
    // Message 2 takes half the link's rate from message 1: message 1 is re-granted at a lower
    // rate. True if that grant also lowers its Grant Limit.
    ReceiverHarness h(receiver_config(), ms);
    const auto a = h.associate(kS1, 1);
    std::vector<Sent> all = h.deliver(kS1, h.request(a, 1, 1 << 20));
    append(all, h.deliver(kS1, h.request(a, 2, 1 << 20)));
    const auto gs = grants_of(all, 1);
    for (std::size_t i = 1; i < gs.size(); ++i) {
      if (gs[i].grant_limit < gs[i - 1].grant_limit) return true;
    }
    return false;
  };
  p[Mutant::ReturnReleasesCrossedGrant] = [](const MutantSet& ms) {
    // A CREDIT_RETURN (New Limit 0) arrives at the instant of its message's grant. True if the
    // receiver stops counting the grant's credit.
    ReceiverHarness h(receiver_config(), ms);
    const auto a = h.associate(kS1, 1);
    if (only<CreditGrant>(h.deliver(kS1, h.request(a, 1, 1 << 20))).empty()) return false;
    CreditReturn r;
    r.message_id = 1;
    r.new_limit = 0;
    h.deliver(kS1, h.on_association(a, r));
    return h.receiver().outstanding_credit() == 0;
  };
  p[Mutant::Rocev2AnyQueuePair] = [](const MutantSet& ms) {
    // Two RoCEv2 messages of 4096 octets on queue pairs 1 and 2; the octets arrive on queue
    // pair 2 only. True if message 1 is reported done.
    ReceiverHarness h(receiver_config(), ms);
    const auto a = h.associate(kS1, 1);
    for (const std::uint64_t id : {std::uint64_t{1}, std::uint64_t{2}}) {
      CreditRequest r = h.request(a, id, 4096);
      r.binding_kind = static_cast<std::uint8_t>(BindingKind::RoCEv2);
      r.binding_value = (id << 40U) | 1U;  // QPN id, first MSN 0, one RDMA message
      h.deliver(kS1, r);
    }
    DataObservation d;
    d.from = kS1;
    d.binding = BindingKind::RoCEv2;
    d.key = 2;
    d.octets = 4096;
    h.checker().on_data_delivered(h.cfg().local, kS1, 2, 4096, h.now());
    h.receiver().on_data(d, h.now());
    for (const auto& done : only<MsgDone>(h.drain())) {
      if (done.message_id == 1) return true;
    }
    return false;
  };
  return p;
}

// ---- sender ------------------------------------------------------------------------------------

// An established association and one scheduled message of `length`; returns its Message ID.
std::uint64_t scheduled_message(Harness& h, std::uint64_t length, MessageHandle* handle = nullptr) {
  const MessageHandle m = h.submit(length, true);
  h.establish();
  if (handle != nullptr) *handle = m;
  return h.id(m);
}

std::uint64_t credit_requests_converted(const Harness& h) {
  std::uint64_t n = 0;
  for (const auto& r : h.sent<CreditRequest>())
    n += r.unscheduled_sent < r.message_length ? 1U : 0U;
  return n;
}

std::map<Mutant, Probe> sender_probes() {
  std::map<Mutant, Probe> p;
  p[Mutant::SenderHonoursLowerLimit] = [](const MutantSet& ms) {
    Harness h(default_config(), 7, testing::sender_policy(ms));
    const auto id = scheduled_message(h, 65536);
    h.deliver(h.grant(id, 32768, 1000));
    h.run_for(microseconds(10));
    h.deliver(h.grant(id, 8192, 1000));
    h.run_for(milliseconds(1));
    return h.data_octets(id) < 32768;
  };
  p[Mutant::SenderExceedsGrant] = [](const MutantSet& ms) {
    Harness h(default_config(), 7, testing::sender_policy(ms));
    const auto id = scheduled_message(h, 65536);
    h.deliver(h.grant(id, 8192));
    h.run_for(microseconds(500));
    return h.data_octets(id) > 8192;
  };
  p[Mutant::SenderIgnoresPacing] = [](const MutantSet& ms) {
    Harness h(default_config(), 7, testing::sender_policy(ms));
    const auto id = scheduled_message(h, 65536);
    h.deliver(h.grant(id, 65536, 1000));
    h.run_for(microseconds(100));  // 12,500 octets at 1 Gbit/s
    return h.data_octets(id) > std::uint64_t{4} * kCu;
  };
  p[Mutant::SenderUsesZeroRateGrant] = [](const MutantSet& ms) {
    Harness h(default_config(), 7, testing::sender_policy(ms));
    const auto id = scheduled_message(h, 65536);
    h.deliver(h.grant(id, 65536, 0));
    h.run_for(microseconds(500));
    return h.data_octets(id) != 0;
  };
  p[Mutant::SenderSerialWithoutWraparound] = [](const MutantSet& ms) {
    Harness h(default_config(), 7, testing::sender_policy(ms));
    const MessageHandle m = h.submit(65536, true);
    h.seq = 0xFFFFFFFFU;
    h.establish();                      // ASSOC_ACCEPT with Sequence Number 2^32 - 1
    h.deliver(h.grant(h.id(m), 8192));  // Sequence Number 0: newer
    h.run_for(microseconds(100));
    return h.data_octets(h.id(m)) == 0;
  };
  p[Mutant::SenderStaleAccepted] = [](const MutantSet& ms) {
    Harness h(default_config(), 7, testing::sender_policy(ms));
    const auto id = scheduled_message(h, 65536);
    h.deliver(h.grant(id, 4096));
    auto stale = h.grant(id, 65536);
    stale.header.sequence_number = 1;  // older than the accept and the first grant
    h.deliver(stale);
    h.run_for(microseconds(500));
    return h.data_octets(id) > 4096;
  };
  p[Mutant::SenderIgnoresLifetime] = [](const MutantSet& ms) {
    Harness h(default_config(), 7, testing::sender_policy(ms));
    const auto id = scheduled_message(h, 65536);
    h.deliver(h.grant(id, 65536, 1000, 50));  // 50 us at 1 Gbit/s: two Credit Units
    h.run_for(milliseconds(1));
    return h.data_octets(id) > std::uint64_t{3} * kCu;
  };
  p[Mutant::SenderIgnoresUnknownAssociation] = [](const MutantSet& ms) {
    Harness h(default_config(), 7, testing::sender_policy(ms));
    (void)scheduled_message(h, 65536);
    h.deliver(h.error(ReasonCode::UnknownAssociation));
    h.run_for(microseconds(10));
    return h.count<AssocRequest>() < 2;
  };
  p[Mutant::SenderReusesMessageId] = [](const MutantSet& ms) {
    Harness h(default_config(), 7, testing::sender_policy(ms));
    const MessageHandle m1 = h.submit(65536, true);
    h.establish();
    const MessageHandle m2 = h.submit(65536, true);
    return h.id(m2) <= h.id(m1);
  };
  p[Mutant::NoStartJitter] = [](const MutantSet& ms) {
    Harness h(default_config(), 7, testing::sender_policy(ms));
    (void)h.submit(1000);
    h.establish();
    const Time requested = h.tx.back().first;
    h.run_for(microseconds(20));
    return h.data.empty() || h.data.front().first == requested;
  };
  p[Mutant::MultipleUnscheduled] = [](const MutantSet& ms) {
    Harness h(default_config(), 7, testing::sender_policy(ms));
    (void)h.submit(1000);
    h.establish();
    (void)h.submit(1000);
    std::size_t unscheduled = 0;
    for (const auto& r : h.sent<CreditRequest>()) unscheduled += r.unscheduled_sent != 0 ? 1U : 0U;
    return unscheduled > 1;
  };
  p[Mutant::UnscheduledDataBeforeRequest] = [](const MutantSet& ms) {
    Harness h(default_config(), 7, testing::sender_policy(ms));
    (void)h.submit(1000);
    h.establish();
    h.run_for(microseconds(20));
    for (const auto& line : h.log) {
      if (line.find("tx CREDIT_REQUEST") != std::string::npos) return false;
      if (line.find(" data ") != std::string::npos) return true;
    }
    return false;
  };
  p[Mutant::UnscheduledSentNotLength] = [](const MutantSet& ms) {
    Harness h(default_config(), 7, testing::sender_policy(ms));
    (void)h.submit(1000);
    h.establish();
    h.run_for(microseconds(20));
    const auto rs = h.sent<CreditRequest>();
    return rs.empty() || rs.front().unscheduled_sent != 1000;
  };
  p[Mutant::ScheduledWithoutCredit] = [](const MutantSet& ms) {
    Harness h(default_config(), 7, testing::sender_policy(ms));
    const auto id = scheduled_message(h, 65536);
    h.run_for(microseconds(100));
    return h.data_octets(id) != 0;
  };
  p[Mutant::SenderReportFromUnconfiguredCrn] = [](const MutantSet& ms) {
    Harness h(default_config(), 7, testing::sender_policy(ms));
    (void)h.submit(16000);
    h.establish();
    h.deliver(h.report(), Address::v4(10, 0, 9, 99, 50000));
    h.run_for(microseconds(20));
    return credit_requests_converted(h) != 0;
  };
  p[Mutant::SenderIgnoresReports] = [](const MutantSet& ms) {
    Harness h(default_config(), 7, testing::sender_policy(ms));
    (void)h.submit(16000);
    h.establish();
    h.deliver(h.report(), kCrnAddr);
    h.run_for(microseconds(20));
    return credit_requests_converted(h) == 0;
  };
  p[Mutant::SenderAcceptsWrongNonce] = [](const MutantSet& ms) {
    Harness h(default_config(), 7, testing::sender_policy(ms));
    (void)h.submit(65536, true);
    AssocAccept acc = h.accept();
    acc.sender_nonce ^= 1U;
    h.deliver(acc);
    return h.count<CreditRequest>() != 0;
  };
  p[Mutant::SenderVersionNotChecked] = [](const MutantSet& ms) {
    Harness h(default_config(), 7, testing::sender_policy(ms));
    const auto id = scheduled_message(h, 65536);
    auto raw = encoded(h.grant(id, 8192));
    raw[0] = std::byte{0x20};
    h.deliver_bytes(raw);
    h.run_for(microseconds(100));
    return h.data_octets(id) != 0;
  };
  p[Mutant::CreditReturnBelowTransmitted] = [](const MutantSet& ms) {
    Harness h(default_config(), 7, testing::sender_policy(ms));
    MessageHandle m = 0;
    const auto id = scheduled_message(h, 65536, &m);
    h.deliver(h.grant(id, 32768, 1000));
    h.run_for(microseconds(70));
    h.s->return_credit(m, 0, h.now);
    h.drain();
    for (const auto& r : h.sent<CreditReturn>()) {
      if (r.new_limit < h.transmitted(m)) return true;
    }
    return false;
  };
  p[Mutant::SenderStatusMissing] = [](const MutantSet& ms) {
    Harness h(default_config(), 7, testing::sender_policy(ms));
    h.params.backlog_threshold = 4096;
    const auto id = scheduled_message(h, 65536);
    h.deliver(h.grant(id, 65536, 1000));
    h.run_for(microseconds(50));
    return h.count<SenderStatus>() == 0;
  };
  p[Mutant::ClassDscpIgnored] = [](const MutantSet& ms) {
    SenderConfig c = default_config();
    c.class_dscp = {0, 10, 18, 26, 34, 12, 20, 28};
    Harness h(c, 7, testing::sender_policy(ms));
    const MessageHandle m = h.submit(8192, true, 2);
    h.establish();
    h.deliver(h.grant(h.id(m), 8192, 100000, 0, flag::kFinal));
    h.run_for(microseconds(50));
    for (const auto& [t, d] : h.data) {
      if (d.dscp != 18) return true;
    }
    return h.data.empty();
  };
  return p;
}

// ---- CRN ---------------------------------------------------------------------------------------

// One report on scheduled traffic at Q = 300000 (B_th 100000, Q_max 500000).
std::vector<std::pair<Address, CongestionReport>> one_report(const MutantSet& ms) {
  Crn crn(crn_test_config(), nullptr, testing::crn_policy(ms));
  crn.on_dequeue(queue_observation(300000), Time{});
  return crn_reports(crn);
}

std::map<Mutant, Probe> crn_probes() {
  std::map<Mutant, Probe> p;
  p[Mutant::CrnDegreeFormula] = [](const MutantSet& ms) {
    const auto r = one_report(ms);
    return r.size() != 1 || r[0].second.congestion_degree != 127;  // floor(255 * 2 / 4)
  };
  p[Mutant::CrnWrongSide] = [](const MutantSet& ms) {
    const auto r = one_report(ms);
    return r.size() != 1 || !r[0].first.same_host(Address::v4(192, 0, 2, 100, 0));
  };
  p[Mutant::CrnNoFlowLimit] = [](const MutantSet& ms) {
    Crn crn(crn_test_config(), nullptr, testing::crn_policy(ms));
    for (int i = 0; i < 4; ++i)
      crn.on_dequeue(queue_observation(300000), Time{microseconds(std::int64_t{10} * i).ns});
    return crn_reports(crn).size() > 1;  // one per 50 us per flow
  };
  p[Mutant::CrnNoPortLimit] = [](const MutantSet& ms) {
    Crn crn(crn_test_config(), nullptr, testing::crn_policy(ms));
    for (std::uint8_t i = 1; i <= 3; ++i)
      crn.on_dequeue(queue_observation(300000, 26, i), Time{microseconds(i).ns});
    return crn_reports(crn).size() > 1;  // one per 5 us per port
  };
  p[Mutant::CrnNonZeroAssociation] = [](const MutantSet& ms) {
    const auto r = one_report(ms);
    return r.size() != 1 || r[0].second.header.association_id != 0 || r[0].second.header.epoch != 0;
  };
  p[Mutant::CrnBelowThreshold] = [](const MutantSet& ms) {
    Crn crn(crn_test_config(), nullptr, testing::crn_policy(ms));
    crn.on_dequeue(queue_observation(100000), Time{});
    return !crn_reports(crn).empty();
  };
  p[Mutant::CrnWrongPort] = [](const MutantSet& ms) {
    const auto r = one_report(ms);
    return r.size() != 1 || r[0].first.port != 50000;
  };
  p[Mutant::CrnSuggestedRateUndivided] = [](const MutantSet& ms) {
    const auto r = one_report(ms);
    return r.size() != 1 || r[0].second.suggested_rate != 25000;  // 100000 Mbit/s over 4 flows
  };
  p[Mutant::CrnProtocolFixed] = [](const MutantSet& ms) {
    Crn crn(crn_test_config(), nullptr, testing::crn_policy(ms));
    auto o = queue_observation(300000);
    o.flow.protocol = 6;
    crn.on_dequeue(o, Time{});
    const auto r = crn_reports(crn);
    return r.size() != 1 || r[0].second.protocol != 6;
  };
  p[Mutant::CrnDegree32Bit] = [](const MutantSet& ms) {
    auto c = crn_test_config();
    c.queue_capacity = 100000 + (64U << 20U);  // Q_max - B_th 64 MiB
    Crn crn(c, nullptr, testing::crn_policy(ms));
    crn.on_dequeue(queue_observation(100000 + (32U << 20U)), Time{});
    const auto r = crn_reports(crn);
    return r.size() != 1 || r[0].second.congestion_degree != 127;  // floor(255 / 2)
  };
  p[Mutant::CrnDepthAboveThreshold] = [](const MutantSet& ms) {
    const auto r = one_report(ms);
    return r.size() != 1 || r[0].second.queue_depth != 300000;
  };
  p[Mutant::CrnDirectionSwapped] = [](const MutantSet& ms) {
    const auto r = one_report(ms);
    return r.size() != 1 || r[0].second.direction != 1;
  };
  return p;
}

std::map<Mutant, Probe> all_probes() {
  auto p = receiver_probes();
  p.merge(sender_probes());
  p.merge(crn_probes());
  return p;
}

// ---- the table ---------------------------------------------------------------------------------

TEST(Mutants, Table_IsInEnumOrderWithUniqueNamesAndEveryRoleHasSome) {
  std::set<std::string_view> names;
  std::map<testing::MutantRole, int> per_role;
  for (std::size_t i = 0; i < testing::all_mutants().size(); ++i) {
    const auto& m = testing::all_mutants()[i];
    EXPECT_EQ(static_cast<std::size_t>(m.id), i) << m.name;
    EXPECT_TRUE(names.insert(m.name).second) << "duplicate name " << m.name;
    EXPECT_FALSE(m.description.empty()) << m.name;
    EXPECT_FALSE(m.requirement.empty()) << m.name;
    EXPECT_EQ(m.name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-"),
              std::string_view::npos)
        << m.name;
    ++per_role[m.role];
  }
  EXPECT_GE(testing::all_mutants().size(), 30U);
  EXPECT_GE(per_role[testing::MutantRole::Receiver], 10);
  EXPECT_GE(per_role[testing::MutantRole::Sender], 10);
  EXPECT_GE(per_role[testing::MutantRole::Crn], 5);
}

TEST(Mutants, FindByName_FindsEveryMutantAndNothingElse) {
  for (const auto& m : testing::all_mutants()) {
    const auto* found = testing::find_mutant(m.name);
    ASSERT_NE(found, nullptr) << m.name;
    EXPECT_EQ(found->id, m.id);
  }
  EXPECT_EQ(testing::find_mutant("no-such-mutant"), nullptr);
  EXPECT_EQ(testing::find_mutant(""), nullptr);
  std::size_t listed = 0;
  for (auto role :
       {testing::MutantRole::Receiver, testing::MutantRole::Sender, testing::MutantRole::Crn}) {
    for (const auto* m : testing::mutants_of(role)) {
      EXPECT_EQ(m->role, role);
      ++listed;
    }
  }
  EXPECT_EQ(listed, testing::kMutantCount);
}

TEST(Mutants, MutantSet_HoldsWhatWasAdded) {
  MutantSet s;
  EXPECT_TRUE(s.empty());
  s.add(Mutant::CrnWrongPort);
  EXPECT_TRUE(s.has(Mutant::CrnWrongPort));
  EXPECT_FALSE(s.has(Mutant::GrantBeyondLength));
  EXPECT_EQ(s.size(), 1U);
  EXPECT_EQ(s, (MutantSet{Mutant::CrnWrongPort}));
}

TEST(Mutants, DecodeLeniently_RepairsOnlyWhatItIsAskedTo) {
  CreditGrant g;
  g.message_id = 1;
  g.grant_limit = 4096;
  g.pacing_rate = 1;
  auto raw = wire(Message{g});
  raw[0] = std::byte{0x20};
  EXPECT_FALSE(testing::decode_leniently(raw, false, true).has_value());
  EXPECT_TRUE(testing::decode_leniently(raw, true, false).has_value());
  raw[0] = std::byte{0x10};
  raw[3] = std::byte{39};
  EXPECT_FALSE(testing::decode_leniently(raw, true, false).has_value());
  const auto fixed = testing::decode_leniently(raw, false, true);
  ASSERT_TRUE(fixed.has_value());
  EXPECT_EQ(std::get<CreditGrant>(*fixed).grant_limit, 4096U);
}

// ---- every mutant is alive ---------------------------------------------------------------------

TEST(Mutants, EveryMutantHasAProbe) {
  const auto probes = all_probes();
  for (const auto& m : testing::all_mutants()) EXPECT_EQ(probes.count(m.id), 1U) << m.name;
}

class MutantAlive : public ::testing::TestWithParam<testing::MutantInfo> {};

TEST_P(MutantAlive, TheReferencePassesItsProbeAndTheMutantFailsIt) {
  const auto& m = GetParam();
  const auto probes = all_probes();
  const auto it = probes.find(m.id);
  ASSERT_NE(it, probes.end()) << "no probe for " << m.name;
  EXPECT_FALSE(it->second(MutantSet{})) << "the reference breaks the probe of " << m.name;
  EXPECT_TRUE(it->second(MutantSet{m.id})) << m.name << " is not observable: " << m.description;
}

INSTANTIATE_TEST_SUITE_P(All, MutantAlive, ::testing::ValuesIn(testing::kMutants),
                         [](const ::testing::TestParamInfo<testing::MutantInfo>& param) {
                           std::string name(param.param.name);
                           for (auto& c : name) c = c == '-' ? '_' : c;
                           return name;
                         });

}  // namespace
}  // namespace rdcc::ref
