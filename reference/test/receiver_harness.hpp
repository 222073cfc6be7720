// The receiver's test harness: it plays the sender side with encoded messages in virtual
// time and feeds the invariant checker with everything that crosses the wire. Shared by the
// receiver's rule tests and the mutants' tests.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <span>
#include <vector>

#include "rdcc/checker/invariants.hpp"
#include "rdcc/codec/codec.hpp"
#include "rdcc/reference/receiver.hpp"
#include "rdcc/testing/receiver_mutants.hpp"

namespace rdcc::ref {

using checker::InvariantChecker;
using checker::Party;
using checker::Violation;

struct Sent {
  Address to;
  Message message;
};

class ReceiverHarness {
 public:
  // `policy`: a conforming variant's (rdcc/reference/variants.hpp); null: the default.
  explicit ReceiverHarness(const ReceiverConfig& cfg = default_config(),
                           std::shared_ptr<const ReceiverPolicy> policy = nullptr)
      : random_(7), receiver_(cfg, &events_, &random_, std::move(policy)) {
    checker_.add_receiver(cfg.local, cfg.budget, cfg.d_max);
  }
  // A receiver started with deliberate faults (rdcc/testing/receiver_mutants.hpp).
  ReceiverHarness(const ReceiverConfig& cfg, const testing::MutantSet& mutants)
      : ReceiverHarness(cfg, testing::receiver_policy(mutants, cfg)) {
    mutated_ = !mutants.empty();
  }

  static ReceiverConfig default_config() {
    ReceiverConfig c;
    c.local = Address::v4(192, 0, 2, 100, 50000);
    c.budget = std::uint64_t{256} * 1024;
    c.unscheduled_budget = std::uint64_t{64} * 1024;
    c.unscheduled_limit = 16 * 1024;
    c.grant_lifetime_us = 100;
    c.credit_unit = 4096;
    c.d_max = microseconds(10);
    c.base_rtt = microseconds(10);
    c.link_capacity_mbps = 100000;
    c.crn_addresses = {Address::v4(192, 0, 2, 250, 0)};
    return c;
  }

  static Address sender(std::uint8_t n) { return Address::v4(192, 0, 2, n, 40000); }

  std::vector<Sent> deliver(const Address& from, Message m) {
    std::vector<std::byte> wire(encoded_size(m));
    EXPECT_TRUE(encode(m, wire));
    checker_.on_control_sent(from, cfg().local, m, now_);
    checker_.on_control_delivered(from, cfg().local, m, now_);
    receiver_.on_control(from, wire, now_);
    return drain();
  }

  std::vector<Sent> deliver_raw(const Address& from, std::span<const std::byte> wire) {
    receiver_.on_control(from, wire, now_);
    return drain();
  }

  std::vector<Sent> data(const Address& from, std::uint64_t key, std::uint64_t offset,
                         std::uint32_t octets, std::uint64_t message_id, bool ce = false) {
    DataObservation d;
    d.from = from;
    d.key = key;
    d.offset = offset;
    d.octets = octets;
    d.ce = ce;
    checker_.on_data_delivered(cfg().local, from, message_id, octets, now_);
    receiver_.on_data(d, now_);
    return drain();
  }

  // Runs the timers up to `t`.
  std::vector<Sent> advance_to(Time t) {
    std::vector<Sent> all;
    while (auto next = receiver_.next_timeout()) {
      if (*next > t) break;
      now_ = std::max(now_, *next);
      receiver_.on_timeout(now_);
      auto sent = drain();
      all.insert(all.end(), sent.begin(), sent.end());
    }
    now_ = t;
    return all;
  }
  std::vector<Sent> advance(Duration d) { return advance_to(now_ + d); }

  // ASSOC_REQUEST -> ASSOC_ACCEPT; returns the accept.
  AssocAccept associate(const Address& from, std::uint64_t nonce,
                        std::uint32_t capabilities = capability::kStatus) {
    AssocRequest req;
    req.sender_nonce = nonce;
    req.capabilities = capabilities;
    req.line_rate = 100000;
    auto out = deliver(from, req);
    EXPECT_EQ(out.size(), 1U);
    if (out.empty() || !std::holds_alternative<AssocAccept>(out[0].message)) return {};
    const auto accept = std::get<AssocAccept>(out[0].message);
    sequence_[accept.header.association_id] = 1;
    return accept;
  }

  CreditRequest request(const AssocAccept& a, std::uint64_t id, std::uint64_t length,
                        std::uint64_t unscheduled = 0, std::uint8_t cls = 0,
                        std::uint8_t weight = 1) {
    CreditRequest r;
    r.header.association_id = a.header.association_id;
    r.header.epoch = a.header.epoch;
    r.header.sequence_number = sequence_[a.header.association_id]++;
    r.message_id = id;
    r.message_length = length;
    r.unscheduled_sent = unscheduled;
    r.traffic_class = cls;
    r.weight = weight;
    r.binding_kind = static_cast<std::uint8_t>(BindingKind::Opaque);
    r.binding_value = id;
    return r;
  }

  template <class T>
  T on_association(const AssocAccept& a, T body) {
    body.header.association_id = a.header.association_id;
    body.header.epoch = a.header.epoch;
    body.header.sequence_number = sequence_[a.header.association_id]++;
    return body;
  }

  // Sends every octet the receiver has granted for a message, in Credit Units.
  std::vector<Sent> send_granted(const Address& from, std::uint64_t id, std::uint64_t from_offset,
                                 std::uint64_t limit) {
    std::vector<Sent> all;
    for (std::uint64_t o = from_offset; o < limit; o += cfg().credit_unit) {
      const auto n =
          static_cast<std::uint32_t>(std::min<std::uint64_t>(cfg().credit_unit, limit - o));
      auto out = data(from, id, o, n, id);
      all.insert(all.end(), out.begin(), out.end());
    }
    return all;
  }

  std::vector<Sent> drain() {
    std::vector<Sent> out;
    while (auto d = receiver_.poll_transmit()) {
      auto m = decode(d->payload());
      EXPECT_TRUE(m.has_value());
      if (!m) continue;
      checker_.on_control_sent(cfg().local, d->to, *m, now_);
      checker_.on_control_delivered(cfg().local, d->to, *m, now_);
      // The reference's own account of its budget; a mutant may break it on purpose.
      if (!mutated_) {
        EXPECT_LE(receiver_.outstanding_credit(), cfg().budget);
      }
      out.push_back({d->to, *m});
    }
    return out;
  }

  const ReceiverConfig& cfg() const { return receiver_.config(); }
  Receiver& receiver() { return receiver_; }
  InvariantChecker& checker() { return checker_; }
  EventLog& events() { return events_; }
  Time now() const { return now_; }

 private:
  EventLog events_;
  SeededRandom random_;
  Receiver receiver_;
  InvariantChecker checker_;
  Time now_{};
  std::map<std::uint32_t, std::uint32_t> sequence_;
  bool mutated_ = false;
};

template <class T>
inline std::vector<T> only(const std::vector<Sent>& sent) {
  std::vector<T> out;
  for (const auto& s : sent) {
    if (const auto* m = std::get_if<T>(&s.message)) out.push_back(*m);
  }
  return out;
}

}  // namespace rdcc::ref
