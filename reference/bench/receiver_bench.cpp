// The receiver's cost per grant decision with 10, 1,000 and 100,000 pending messages
// (issue 3: it must grow no faster than logarithmically). Steady state: G_s is one Credit
// Unit, so every arriving Credit Unit of data frees the budget and makes exactly one grant
// decision among all pending messages (weighted round robin over the grant queue). Virtual
// time advances by the transmission time of one Credit Unit at 400 Gbit/s per arrival, and
// timers (reclaims, the AIMD tick) fire as they fall due, as a driver would run them.
//
// reference/bench/callgrind.sh counts the instructions of arrive_one_credit_unit (one arrival,
// its grant decision and the grant sent) under callgrind: a load-independent figure.
#include <benchmark/benchmark.h>

#include <vector>

#include "rdcc/codec/codec.hpp"
#include "rdcc/reference/receiver.hpp"

namespace rdcc::ref {
namespace {

std::vector<std::byte> wire(const Message& m) {
  std::vector<std::byte> out(encoded_size(m));
  (void)encode(m, out);
  return out;
}

// Message ID of a CREDIT_GRANT datagram, read in place (octets 16..23).
std::uint64_t granted_message(const Datagram& d) {
  if (d.size != 40 || d.bytes[1] != std::byte{0x04}) return 0;
  std::uint64_t id = 0;
  for (std::size_t i = 16; i < 24; ++i)
    id = (id << 8U) | std::to_integer<std::uint64_t>(d.bytes[i]);
  return id;
}

struct Steady {
  Address sender;
  Duration step;
  std::uint32_t credit_unit = 0;
  Time now{};
  std::uint64_t current = 0;  // the message whose Credit Unit arrives next
  std::vector<std::uint64_t> sent;
  std::uint64_t decisions = 0;
};

// One Credit Unit of the granted message arrives; the receiver decides the next grant.
[[gnu::noinline]] void arrive_one_credit_unit(Receiver& r, Steady& s) {
  DataObservation d;
  d.from = s.sender;
  d.key = s.current;
  d.offset = s.sent[s.current];
  d.octets = s.credit_unit;
  s.sent[s.current] += s.credit_unit;
  s.now += s.step;
  r.on_data(d, s.now);
  if (auto t = r.next_timeout(); t && *t <= s.now) r.on_timeout(s.now);
  while (auto out = r.poll_transmit()) {
    if (auto id = granted_message(*out)) {
      s.current = id;
      ++s.decisions;
    }
  }
}

void BM_GrantDecision(benchmark::State& state) {
  const auto pending = static_cast<std::size_t>(state.range(0));
  ReceiverConfig c;
  c.local = Address::v4(192, 0, 2, 100, 50000);
  c.credit_unit = 4096;
  c.unscheduled_budget = 16384;
  c.budget = c.unscheduled_budget + c.credit_unit;
  c.grant_window = c.credit_unit;
  c.grant_lifetime_us = 100;
  c.link_capacity_mbps = 400000;
  c.max_pending_per_association = pending + 1;
  Receiver r(c);
  const Address sender = Address::v4(192, 0, 2, 1, 40000);
  Time now{};
  r.on_control(sender, wire(AssocRequest{.sender_nonce = 1, .line_rate = 400000}), now);
  std::uint32_t assoc = 0;
  std::uint64_t current = 0;
  while (auto d = r.poll_transmit()) {
    if (auto m = decode(d->payload()); m && std::holds_alternative<AssocAccept>(*m)) {
      assoc = header_of(*m).association_id;
    }
  }
  for (std::size_t i = 1; i <= pending; ++i) {
    CreditRequest q;
    q.header = {.association_id = assoc,
                .epoch = c.epoch,
                .sequence_number = static_cast<std::uint32_t>(i)};
    q.message_id = i;
    q.message_length = 1ULL << 40U;
    q.weight = static_cast<std::uint8_t>(1 + i % 4);
    q.traffic_class = static_cast<std::uint8_t>(i % 3);
    q.binding_kind = static_cast<std::uint8_t>(BindingKind::Opaque);
    q.binding_value = i;
    r.on_control(sender, wire(q), now);
    while (auto d = r.poll_transmit()) {
      if (auto id = granted_message(*d)) current = id;
    }
  }
  Steady s{sender,
           transmission_time(c.credit_unit, c.link_capacity_mbps),
           c.credit_unit,
           now,
           current,
           std::vector<std::uint64_t>(pending + 1, 0),
           0};
  for (auto _ : state) arrive_one_credit_unit(r, s);
  state.counters["grants_per_arrival"] =
      benchmark::Counter(static_cast<double>(s.decisions), benchmark::Counter::kAvgIterations);
  state.counters["pending"] = static_cast<double>(r.pending_messages());
}

BENCHMARK(BM_GrantDecision)->Arg(10)->Arg(1000)->Arg(100000)->Unit(benchmark::kNanosecond);

// The grant pass with many messages parked (docs/ns3.md: a receiver of a 1,024-host
// all-to-all holding a thousand queued requests). N senders, one association each, each
// announces a 4 KiB message; the first kOvercommit hold the link's whole rate, so every pass
// parks the others (no rate to be had) until the budget ends it. Each iteration is one control
// message (a SENDER_STATUS from the next sender, no suggestion) and the pass it makes.
struct Parked {
  std::vector<Address> senders;
  std::vector<std::uint32_t> assocs;
  std::vector<std::uint32_t> seq;
  std::size_t next = 0;
  std::uint16_t epoch = 0;
  Time now{};
};

[[gnu::noinline]] void control_message_with_parked(Receiver& r, Parked& p) {
  const std::size_t i = p.next;
  p.next = (p.next + 1) % p.senders.size();
  SenderStatus st;
  st.header = {.association_id = p.assocs[i], .epoch = p.epoch, .sequence_number = ++p.seq[i]};
  r.on_control(p.senders[i], wire(st), p.now);
  while (auto out = r.poll_transmit()) benchmark::DoNotOptimize(out);
}

void BM_ControlMessageWithParked(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  ReceiverConfig c;
  c.local = Address::v4(192, 0, 2, 100, 50000);
  c.credit_unit = 4096;
  c.budget = 2U << 20U;
  c.unscheduled_budget = 512U << 10U;
  c.unscheduled_limit = 0;
  c.max_associations = n;
  c.grant_lifetime_us = 1000000;  // no reclaim during the run
  Receiver r(c);
  Parked p;
  p.epoch = c.epoch;
  for (std::size_t i = 0; i < n; ++i) {
    p.senders.push_back(Address::v4(10, static_cast<std::uint8_t>(i >> 16U),
                                    static_cast<std::uint8_t>(i >> 8U),
                                    static_cast<std::uint8_t>(i), 40000));
    r.on_control(p.senders[i], wire(AssocRequest{.sender_nonce = i + 1, .line_rate = 100000}),
                 p.now);
    while (auto d = r.poll_transmit()) {
      if (auto m = decode(d->payload()); m && std::holds_alternative<AssocAccept>(*m)) {
        p.assocs.push_back(header_of(*m).association_id);
      }
    }
  }
  p.seq.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    CreditRequest q;
    q.header = {.association_id = p.assocs[i], .epoch = c.epoch, .sequence_number = ++p.seq[i]};
    q.message_id = 1;
    q.message_length = 4096;
    q.binding_kind = static_cast<std::uint8_t>(BindingKind::Opaque);
    q.binding_value = 1;
    r.on_control(p.senders[i], wire(q), p.now);
    while (auto d = r.poll_transmit()) benchmark::DoNotOptimize(d);
  }
  for (auto _ : state) control_message_with_parked(r, p);
  state.counters["pending"] = static_cast<double>(r.pending_messages());
}

BENCHMARK(BM_ControlMessageWithParked)->Arg(64)->Arg(1024)->Unit(benchmark::kNanosecond);

}  // namespace
}  // namespace rdcc::ref

BENCHMARK_MAIN();
