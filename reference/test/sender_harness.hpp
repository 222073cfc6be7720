// The sender's test harness: a fake receiver and the sans-IO loop of io.hpp around one
// Sender, with crafted, encoded control messages in virtual time and fixed seeds. Shared by the
// sender's rule tests and the mutants' tests.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "rdcc/codec/codec.hpp"
#include "rdcc/reference/sender.hpp"

namespace rdcc::ref {

inline const Address kLocal = Address::v4(10, 0, 0, 1, 50000);
inline const Address kRecv = Address::v4(10, 0, 0, 2, 50000);
inline const Address kRecv2 = Address::v4(10, 0, 0, 3, 50000);
inline const Address kCrnAddr = Address::v4(10, 0, 9, 1, 50000);
inline constexpr std::uint32_t kCu = 4096;

inline SenderConfig default_config() {
  SenderConfig c;
  c.local = kLocal;
  c.crn_addresses = {kCrnAddr};
  c.unscheduled_dscp = 8;
  for (std::uint8_t i = 0; i < 8; ++i) c.class_dscp[i] = static_cast<std::uint8_t>(16 + i);
  c.control_dscp = 46;
  return c;
}

inline AssocAccept default_params() {
  AssocAccept a;
  a.capabilities = capability::kPool | capability::kStatus | capability::kCrn;
  a.unscheduled_limit = 16384;
  a.start_jitter = 10;
  a.backlog_threshold = 1U << 20U;
  a.grant_lifetime = 1000;
  a.credit_unit = kCu;
  return a;
}

inline std::vector<std::byte> encoded(const Message& m) {
  std::vector<std::byte> b(encoded_size(m));
  const auto n = encode(m, b);
  EXPECT_TRUE(n.has_value());
  return b;
}

inline std::string ms(Time t) {
  return format_time(t);
}

// A fake receiver and the sans-IO loop of io.hpp around one Sender.
struct Harness {
  SenderConfig cfg;
  SeededRandom rng;
  EventLog events;
  std::unique_ptr<Sender> s;
  Time now{};
  std::vector<std::pair<Time, Message>> tx;
  std::vector<Datagram> datagrams;
  std::vector<std::pair<Time, DataSegment>> data;
  std::vector<std::string> log;
  // The receiver's side of the association.
  std::uint32_t assoc_id = 0x5A17C0DE;
  std::uint16_t epoch = 3;
  std::uint32_t seq = 1000;
  AssocAccept params = default_params();

  // `policy`: the sender's (a variant's, or a mutant's: rdcc/testing/sender_mutants.hpp).
  explicit Harness(SenderConfig c = default_config(), std::uint64_t seed = 7,
                   std::shared_ptr<const SenderPolicy> policy = nullptr)
      : cfg(std::move(c)),
        rng(seed),
        s(std::make_unique<Sender>(cfg, rng, &events, std::move(policy))) {}

  void record(const Datagram& d) {
    auto m = decode(d.payload());
    ASSERT_TRUE(m.has_value());
    datagrams.push_back(d);
    tx.emplace_back(now, m.value());
    std::string line = ms(now) + " tx " + std::string{info(type_of(m.value())).name};
    char extra[160] = "";
    if (const auto* r = std::get_if<CreditRequest>(&m.value())) {
      std::snprintf(extra, sizeof extra, " msg=%llu len=%llu unsched=%llu",
                    static_cast<unsigned long long>(r->message_id),
                    static_cast<unsigned long long>(r->message_length),
                    static_cast<unsigned long long>(r->unscheduled_sent));
    } else if (const auto* st = std::get_if<SenderStatus>(&m.value())) {
      std::snprintf(extra, sizeof extra, " unused=%llu level=%u rate=%u",
                    static_cast<unsigned long long>(st->unused_credit),
                    unsigned{st->congestion_level}, st->suggested_rate);
    } else if (const auto* ar = std::get_if<AssocRequest>(&m.value())) {
      if (ar->update_acknowledgment()) std::snprintf(extra, sizeof extra, " UPDATE_ACK");
    }
    log.push_back(line + extra);
  }
  void drain() {
    for (bool any = true; any;) {
      any = false;
      while (auto d = s->poll_transmit()) {
        record(*d);
        any = true;
      }
      while (auto seg = s->poll_data(now)) {
        data.emplace_back(now, *seg);
        log.push_back(ms(now) + " data msg=" + std::to_string(seg->message_id) +
                      " off=" + std::to_string(seg->offset) +
                      " len=" + std::to_string(seg->length) + (seg->unscheduled ? " unsched" : ""));
        any = true;
      }
    }
  }
  // Runs the timer loop until `t` (inclusive).
  void run_until(Time t) {
    int same_time = 0;
    for (;;) {
      const auto nt = s->next_timeout();
      if (!nt || *nt > t) break;
      same_time = *nt <= now ? same_time + 1 : 0;
      ASSERT_LT(same_time, 1000) << "next_timeout() does not advance at " << ms(now);
      now = std::max(now, *nt);
      s->on_timeout(now);
      drain();
    }
    now = t;
    s->on_timeout(now);
    drain();
  }
  void run_for(Duration d) { run_until(now + d); }

  Header hdr(std::uint16_t flags = 0) {
    Header h;
    h.association_id = assoc_id;
    h.epoch = epoch;
    h.flags = flags;
    h.sequence_number = seq++;
    return h;
  }
  void deliver(const Message& m, const Address& from = kRecv) {
    const auto b = encoded(m);
    s->on_control(from, b, now);
    drain();
  }
  void deliver_bytes(const std::vector<std::byte>& b, const Address& from = kRecv) {
    s->on_control(from, b, now);
    drain();
  }

  template <class T>
  std::vector<T> sent() const {
    std::vector<T> out;
    for (const auto& [t, m] : tx) {
      if (const auto* x = std::get_if<T>(&m)) out.push_back(*x);
    }
    return out;
  }
  template <class T>
  std::size_t count() const {
    return sent<T>().size();
  }
  template <class T>
  T last() const {
    auto v = sent<T>();
    EXPECT_FALSE(v.empty());
    return v.empty() ? T{} : v.back();
  }
  std::uint64_t nonce() const { return last<AssocRequest>().sender_nonce; }

  AssocAccept accept(std::uint16_t flags = 0) {
    AssocAccept a = params;
    a.header = hdr(flags);
    a.sender_nonce = nonce();
    return a;
  }
  void establish(Duration rtt = microseconds(0)) {
    run_for(rtt);
    deliver(accept());
  }
  MessageHandle submit(std::uint64_t length, bool scheduled = false, std::uint8_t cls = 0,
                       std::uint8_t weight = 1, const Address& to = kRecv) {
    MessageSpec m;
    m.receiver = to;
    m.length = length;
    m.traffic_class = cls;
    m.weight = weight;
    m.force_scheduled = scheduled;
    const MessageHandle h = s->submit(m, now);
    drain();
    return h;
  }
  MessageHandle submit_spec(const MessageSpec& m) {
    const MessageHandle h = s->submit(m, now);
    drain();
    return h;
  }
  std::uint64_t id(MessageHandle h) const { return s->status(h)->message_id; }
  MessageState state(MessageHandle h) const { return s->status(h)->state; }
  std::uint64_t transmitted(MessageHandle h) const { return s->status(h)->transmitted; }

  CreditGrant grant(std::uint64_t mid, std::uint64_t limit, std::uint32_t rate = 100000,
                    std::uint32_t lifetime = 0, std::uint16_t flags = 0) {
    CreditGrant g;
    g.header = hdr(flags);
    g.message_id = mid;
    g.grant_limit = limit;
    g.pacing_rate = rate;
    g.lifetime = lifetime;
    return g;
  }
  MsgDone done(std::uint64_t mid, std::uint64_t octets) {
    MsgDone d;
    d.header = hdr();
    d.message_id = mid;
    d.octets_received = octets;
    return d;
  }
  ErrorMessage error(ReasonCode reason, std::uint64_t mid = 0) {
    ErrorMessage e;
    e.header = hdr();
    e.reason = static_cast<std::uint16_t>(reason);
    e.message_id = mid;
    return e;
  }
  CongestionReport report(const Address& src = kLocal, const Address& dst = kRecv,
                          std::uint8_t direction = 2) {
    CongestionReport r;
    r.header.sequence_number = 1;
    r.reporter_id = 9;
    r.queue_depth = 100000;
    r.queue_threshold = 50000;
    r.congestion_degree = 128;
    r.direction = direction;
    r.protocol = 17;
    r.source_port = 4791;
    r.destination_port = 4791;
    r.source_address = src.ip;
    r.destination_address = dst.ip;
    return r;
  }
  std::uint64_t data_octets(std::uint64_t mid) const {
    std::uint64_t n = 0;
    for (const auto& [t, d] : data) n += d.message_id == mid ? d.length : 0U;
    return n;
  }
  std::vector<std::string> log_lines(const std::string& contains) const {
    std::vector<std::string> out;
    for (const auto& l : log) {
      if (l.find(contains) != std::string::npos) out.push_back(l);
    }
    return out;
  }
};

}  // namespace rdcc::ref
