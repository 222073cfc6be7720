// rdcc-gen-pcaps: writes the captures of pcaps/ and their index, reproducibly (fixed seed,
// virtual time from kEpochMicros): captures built from the codec's test vectors and from the
// spec's "Example Exchange and Encodings", and the simulator's golden captures (every message
// type, an 8-to-1 incast with CRN reports, a RoCEv2-bound transfer, a receiver restart;
// sim_captures.cpp).
//
//   rdcc-gen-pcaps OUTDIR                 the small captures and OUTDIR/INDEX.md
//   rdcc-gen-pcaps --bench N FILE         N RDCC datagrams for the tshark benchmark
#include <array>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "rdcc/codec/codec.hpp"
#include "rdcc/codec/format.hpp"
#include "rdcc/codec/rocev2.hpp"
#include "rdcc/testing/vectors.hpp"
#include "rdcc/wire/frame.hpp"
#include "rdcc/wire/pcap.hpp"
#include "sim_captures.hpp"

namespace rdcc::pcaps {
namespace {

using wire::Address;
using wire::kEpochMicros;
using wire::PcapWriter;
using wire::udp_frame;

// splitmix64: a fixed, portable generator (std::uniform_*_distribution is not portable).
class Random {
 public:
  explicit Random(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  std::uint32_t below(std::uint32_t n) { return static_cast<std::uint32_t>(next() % n); }

 private:
  std::uint64_t state_;
};

std::vector<std::byte> encoded(const Message& m) {
  std::vector<std::byte> out(encoded_size(m));
  auto written = encode(m, out);
  if (!written) throw std::runtime_error("encode failed: " + written.error().describe());
  return out;
}

struct Entry {
  std::string what;  // one line for INDEX.md
};

// A capture being written, with the lines of its INDEX.md section.
class Capture {
 public:
  Capture(const std::string& dir, std::string name, std::string summary)
      : name_(std::move(name)), summary_(std::move(summary)), writer_(dir + "/" + name_) {}

  void add(std::int64_t time_us, const Address& src, const Address& dst,
           std::span<const std::byte> payload, std::string what) {
    writer_.write(kEpochMicros + time_us, udp_frame(src, dst, payload));
    lines_.push_back({std::to_string(writer_.count()) + " | " + src.to_string() + " → " +
                      dst.to_string() + " | " + std::move(what)});
  }
  void add(std::int64_t time_us, const Address& src, const Address& dst, const Message& m,
           std::string what) {
    add(time_us, src, dst, encoded(m), std::move(what));
  }

  void index(std::ostream& out, bool per_frame) const {
    out << "## " << name_ << "\n\n" << summary_ << " " << writer_.count() << " frames.\n\n";
    if (!per_frame) return;
    out << "| frame | from → to | what it shows |\n| --- | --- | --- |\n";
    for (const auto& l : lines_) out << "| " << l.what << " |\n";
    out << '\n';
  }

 private:
  std::string name_;
  std::string summary_;
  PcapWriter writer_;
  std::vector<Entry> lines_;
};

bool from_receiver(MessageType t) {
  return t == MessageType::AssocAccept || t == MessageType::CreditGrant ||
         t == MessageType::MsgDone || t == MessageType::Error;
}

// Every boundary vector of the codec, one flow each (so that no vector's sequence number is
// judged against another's), alternating IPv4 and IPv6.
void write_boundary(const std::string& dir, std::ostream& index) {
  Capture c(dir, "boundary.pcap",
            "Every codec boundary vector (`rdcc::testing::boundary_vectors()`): each message "
            "type with all fields zero, all at their maximum, typical values, and the "
            "suspicious values the dissectors flag. Each vector is its own flow (sender port "
            "40000 + frame), odd frames over IPv4, even frames over IPv6.");
  const auto vectors = testing::boundary_vectors();
  for (std::size_t i = 0; i < vectors.size(); ++i) {
    const auto& v = vectors[i];
    const auto sender_port = static_cast<std::uint16_t>(40000 + i + 1);
    const bool v6 = i % 2 == 1;
    const Address receiver =
        v6 ? Address::documentation_v6(1, kRdccPort) : Address::v4(10, 0, 0, 1, kRdccPort);
    const Address sender =
        v6 ? Address::documentation_v6(2, sender_port) : Address::v4(10, 0, 0, 2, sender_port);
    const Address crn =
        v6 ? Address::documentation_v6(254, kRdccPort) : Address::v4(10, 0, 0, 254, kRdccPort);
    const auto type = type_of(v.message);
    const std::string what = "`" + v.name + "`: " + format_line(v.message);
    if (type == MessageType::CongestionReport) {
      c.add(static_cast<std::int64_t>(i) * 1000, crn, receiver, v.message, what);
    } else if (from_receiver(type)) {
      c.add(static_cast<std::int64_t>(i) * 1000, receiver, sender, v.message, what);
    } else {
      c.add(static_cast<std::int64_t>(i) * 1000, sender, receiver, v.message, what);
    }
  }
  c.index(index, true);
}

// "Example Exchange and Encodings": a 2 KiB unscheduled dispatch message and a 4 MiB KV cache
// transfer granted in 256 KiB steps, with the appendix's two encodings byte for byte.
void write_appendix_exchange(const std::string& dir, std::ostream& index) {
  Capture c(dir, "appendix_exchange.pcap",
            "The exchange of the spec's appendix, over IPv4, in virtual time (10 µs round "
            "trip): association, an unscheduled 2 KiB message 0x100, a 4 MiB message 0x101 "
            "granted in sixteen 256 KiB steps (the first grant is the appendix's encoding), "
            "FINAL, MSG_DONE. Shows request/grant/done linking and the request-to-grant "
            "time.");
  const Address receiver = Address::v4(10, 0, 0, 1, kRdccPort);
  const Address sender = Address::v4(10, 0, 0, 2, 40000);
  constexpr std::uint32_t kAssoc = 0x5A17C0DE;
  constexpr std::uint16_t kEpoch = 3;
  constexpr std::uint64_t kNonce = 0x8C3E5A1F00D2B7A9ULL;
  constexpr std::uint64_t kBig = 4U << 20U;
  constexpr std::uint64_t kStep = 256U << 10U;

  std::int64_t t = 0;
  c.add(t, sender, receiver,
        AssocRequest{.header = {.sequence_number = 5},
                     .sender_nonce = kNonce,
                     .capabilities = capability::kPool | capability::kStatus,
                     .line_rate = 400000},
        "ASSOC_REQUEST with a random nonce, POOL and STATUS, 400 Gbit/s line rate");
  t += 10;
  c.add(t, receiver, sender,
        AssocAccept{.header = {.association_id = kAssoc, .epoch = kEpoch, .sequence_number = 40},
                    .sender_nonce = kNonce,
                    .capabilities = capability::kPool | capability::kStatus,
                    .unscheduled_limit = 16384,
                    .start_jitter = 8,
                    .backlog_threshold = 1 << 20,
                    .grant_lifetime = 2000,
                    .credit_unit = 4096},
        "ASSOC_ACCEPT echoing the nonce: U = 16 KiB, J = 8 µs, N_cu = 1 MiB, lifetime 2 ms");
  t += 3;  // the random start delay in [0, J]
  c.add(t, sender, receiver,
        CreditRequest{.header = {.association_id = kAssoc, .epoch = kEpoch, .sequence_number = 6},
                      .message_id = 0x100,
                      .message_length = 2048,
                      .unscheduled_sent = 2048,
                      .weight = 1,
                      .binding_kind = static_cast<std::uint8_t>(BindingKind::Opaque),
                      .binding_value = 0x100},
        "CREDIT_REQUEST for the unscheduled 2 KiB message 0x100 (Unscheduled Sent = length)");
  t += 1;
  auto request = testing::appendix_credit_request();
  c.add(t, sender, receiver, request,
        "CREDIT_REQUEST for 0x101, 4 MiB, class 2, RoCEv2 binding: the appendix's encoding");
  t += 6;
  std::uint32_t seq = 41;
  c.add(t, receiver, sender,
        MsgDone{.header = {.association_id = kAssoc, .epoch = kEpoch, .sequence_number = seq++},
                .message_id = 0x100,
                .octets_received = 2048},
        "MSG_DONE for 0x100");
  t += 1;
  auto grant = testing::appendix_credit_grant();
  c.add(t, receiver, sender, grant,
        "first CREDIT_GRANT for 0x101, 256 KiB at 100 Gbit/s: the appendix's encoding");
  ++seq;
  for (std::uint64_t limit = 2 * kStep; limit <= kBig; limit += kStep) {
    t += 21;  // 256 KiB at 100 Gbit/s
    const bool last = limit == kBig;
    const std::uint32_t rate = limit == 2 * kStep ? 60000 : 80000;
    c.add(t, receiver, sender,
          CreditGrant{.header = {.association_id = kAssoc,
                                 .epoch = kEpoch,
                                 .flags = last ? flag::kFinal : std::uint16_t{0},
                                 .sequence_number = seq++},
                      .message_id = 0x101,
                      .grant_limit = limit,
                      .pacing_rate = rate,
                      .lifetime = 2000},
          "CREDIT_GRANT for 0x101 to " + std::to_string(limit >> 10) + " KiB" +
              (last ? ", FINAL" : ""));
  }
  t += 26;
  c.add(t, receiver, sender,
        MsgDone{.header = {.association_id = kAssoc, .epoch = kEpoch, .sequence_number = seq++},
                .message_id = 0x101,
                .octets_received = kBig},
        "MSG_DONE for 0x101, 4 MiB received");
  c.index(index, true);
}

std::vector<std::byte> with_octet(std::vector<std::byte> bytes, std::size_t offset,
                                  std::uint8_t value) {
  bytes.at(offset) = std::byte{value};
  return bytes;
}

// Each decode error and each suspicious value the dissectors flag, plus the per-message and
// per-association checks that need state (FINAL below the length, sequence numbers).
void write_malformed(const std::string& dir, std::ostream& index) {
  Capture c(dir, "malformed.pcap",
            "Malformed and suspicious packets over IPv4: each decode error, each suspicious "
            "value the dissectors flag, and two short runs that the stateful checks need (a "
            "known request followed by bad grants; sequence numbers around the wrap and 2^31 "
            "apart). The expert info belongs exactly where the description names a finding.");
  const Address receiver = Address::v4(10, 0, 0, 1, kRdccPort);
  const Address crn = Address::v4(10, 0, 0, 254, kRdccPort);
  std::uint16_t next_port = 41000;
  auto sender = [&] { return Address::v4(10, 0, 0, 2, next_port++); };
  std::int64_t t = 0;
  auto add = [&](const Address& s, const Address& d, std::vector<std::byte> bytes,
                 std::string what) {
    c.add(t, s, d, bytes, std::move(what));
    t += 1000;
  };
  const Header h{.association_id = 0x00C0FFEE, .epoch = 1, .sequence_number = 1};
  const CreditGrant grant{
      .header = h, .message_id = 9, .grant_limit = 65536, .pacing_rate = 25000, .lifetime = 1000};
  const CreditRequest request{.header = h,
                              .message_id = 9,
                              .message_length = 65536,
                              .traffic_class = 1,
                              .weight = 1,
                              .binding_kind = static_cast<std::uint8_t>(BindingKind::Opaque),
                              .binding_value = 9};
  const MsgDone done{.header = h, .message_id = 9, .octets_received = 65536};

  auto g = encoded(grant);
  add(receiver, sender(), {g.begin(), g.begin() + 3}, "truncated: 3 octets, Length cut short");
  add(receiver, sender(), {g.begin(), g.begin() + 1}, "truncated: 1 octet, no Type");
  add(receiver, sender(), with_octet(g, 0, 0x20), "bad version: Version 2");
  add(receiver, sender(), with_octet(g, 1, 0x0B), "unknown type 0x0B (full header kept)");
  add(receiver, sender(), with_octet(g, 1, 0x00), "unknown type 0x00 (Reserved)");
  auto r = encoded(request);
  add(sender(), receiver, with_octet(r, 3, 20), "Length 20, smaller than 56 (CREDIT_REQUEST)");
  add(receiver, sender(), with_octet(g, 3, 48), "Length 48, beyond the 40-octet datagram");
  CongestionReport report{.header = {.sequence_number = 1},
                          .reporter_id = 7,
                          .queue_depth = 200000,
                          .queue_threshold = 100000,
                          .congestion_degree = 64,
                          .direction = 1,
                          .address_family = 4,
                          .protocol = 17,
                          .source_port = 50001,
                          .destination_port = 4791,
                          .source_address = {10, 0, 0, 2},
                          .destination_address = {10, 0, 0, 1}};
  add(crn, receiver, with_octet(encoded(report), 30, 5), "CONGESTION_REPORT with AF 5");
  auto report6 = report;
  report6.address_family = 6;
  report6.header.sequence_number = 2;
  auto r6 = encoded(report6);
  r6.resize(48);
  r6[3] = std::byte{48};
  add(crn, receiver, r6, "CONGESTION_REPORT with AF 6 and Length 48 (smaller than 72)");

  auto m = done;
  m.header.rsv = 0x0A;
  add(receiver, sender(), encoded(m), "MSG_DONE with Rsv 0xA (non-zero reserved bits)");
  add(sender(), receiver,
      encoded(SenderStatus{.header = h,
                           .unused_credit = 1 << 20,
                           .congestion_level = 10,
                           .service_hint = 2,
                           .reserved = 0x0100,
                           .suggested_rate = 10000}),
      "SENDER_STATUS with a non-zero reserved field");
  add(sender(), receiver,
      encoded(AssocRequest{.header = {},
                           .sender_nonce = 0x1122334455667788ULL,
                           .line_rate = 100000,
                           .reserved = {0, 0, 1, 0}}),
      "ASSOC_REQUEST with the third reserved word non-zero");
  auto q = request;
  q.traffic_class = 9;
  add(sender(), receiver, encoded(q), "CREDIT_REQUEST with Class 9 (treated as 7)");
  q = request;
  q.weight = 0;
  add(sender(), receiver, encoded(q), "CREDIT_REQUEST with Weight 0 (treated as 1)");
  auto p = grant;
  p.pacing_rate = 0;
  add(receiver, sender(), encoded(p), "CREDIT_GRANT with Pacing Rate 0 (must be ignored)");
  p = grant;
  p.header.flags = flag::kPool;
  add(receiver, sender(), encoded(p), "CREDIT_GRANT with POOL and Message ID 9");
  p = grant;
  p.header.flags = 0x0010;
  add(receiver, sender(), encoded(p), "CREDIT_GRANT with undefined flag 0x0010");
  auto trailing = encoded(done);
  for (const std::uint8_t b : std::array<std::uint8_t, 5>{0xDE, 0xAD, 0xBE, 0xEF, 0x00})
    trailing.push_back(std::byte{b});
  add(receiver, sender(), trailing, "MSG_DONE followed by 5 octets after Length");
  auto extended = done;
  extended.header.length = 36;
  add(receiver, sender(), encoded(extended),
      "MSG_DONE with Length 36: 4 octets beyond the defined body");
  add(sender(), receiver, encoded(Cancel{.header = h, .message_id = 9, .reason = 0x0123}),
      "CANCEL with unregistered reason 0x0123");

  // One association whose request is known: FINAL below the length, beyond it, missing.
  const Address s = Address::v4(10, 0, 0, 3, 42000);
  auto seq = [](Header hh, std::uint32_t n) {
    hh.sequence_number = n;
    return hh;
  };
  CreditRequest known = request;
  known.message_id = 0x200;
  known.message_length = 100000;
  add(s, receiver, encoded(known), "CREDIT_REQUEST for 0x200, 100000 octets");
  CreditGrant fg{.header = seq(h, 1),
                 .message_id = 0x200,
                 .grant_limit = 50000,
                 .pacing_rate = 25000,
                 .lifetime = 1000};
  fg.header.flags = flag::kFinal;
  add(receiver, s, encoded(fg), "CREDIT_GRANT FINAL at 50000, below the requested 100000");
  fg.header = seq(h, 2);
  fg.grant_limit = 150000;
  add(receiver, s, encoded(fg), "CREDIT_GRANT at 150000, beyond the length 100000 (FINAL)");
  fg.header = seq(h, 3);
  fg.grant_limit = 100000;
  add(receiver, s, encoded(fg), "CREDIT_GRANT reaching the length 100000 without FINAL");

  // Sequence numbers of one originator on one association (serial arithmetic, RFC 1982).
  const Address s2 = Address::v4(10, 0, 0, 4, 43000);
  CreditReturn ret{.header = seq(h, 0xFFFFFFFEU), .message_id = 3, .new_limit = 4096};
  add(s2, receiver, encoded(ret), "CREDIT_RETURN, sequence 0xFFFFFFFE");
  ret.header = seq(h, 0xFFFFFFFFU);
  add(s2, receiver, encoded(ret), "CREDIT_RETURN, sequence 0xFFFFFFFF (newer)");
  ret.header = seq(h, 0);
  add(s2, receiver, encoded(ret), "CREDIT_RETURN, sequence 0 (newer: wraps)");
  ret.header = seq(h, 0);
  add(s2, receiver, encoded(ret), "CREDIT_RETURN, sequence 0 again (not newer: duplicate)");
  ret.header = seq(h, 0xFFFFFFF0U);
  add(s2, receiver, encoded(ret), "CREDIT_RETURN, sequence 0xFFFFFFF0 (not newer: stale)");
  ret.header = seq(h, 0x80000000U);
  add(s2, receiver, encoded(ret), "CREDIT_RETURN, sequence 0x80000000: 2^31 after 0, not newer");
  ret.header = seq(h, 1);
  add(s2, receiver, encoded(ret), "CREDIT_RETURN, sequence 1 (newer than 0)");
  add(receiver, s2,
      encoded(ErrorMessage{.header = seq(h, 0),
                           .reason = static_cast<std::uint16_t>(ReasonCode::UnknownAssociation)}),
      "ERROR UNKNOWN_ASSOCIATION, sequence 0: exempt from the check");
  add(receiver, s2,
      encoded(ErrorMessage{.header = seq(h, 0),
                           .reason = static_cast<std::uint16_t>(ReasonCode::BudgetExhausted)}),
      "ERROR BUDGET_EXHAUSTED, sequence 0 after the exempt ERROR: the first from the receiver");
  add(receiver, s2,
      encoded(ErrorMessage{.header = seq(h, 0),
                           .reason = static_cast<std::uint16_t>(ReasonCode::BudgetExhausted)}),
      "ERROR BUDGET_EXHAUSTED, sequence 0 again (not newer)");
  c.index(index, true);
}

// A DNS query for a random name, as resolvers send them.
std::vector<std::byte> dns_query(Random& rng) {
  std::vector<std::byte> q;
  auto u8 = [&](std::uint32_t v) { q.push_back(std::byte{static_cast<std::uint8_t>(v)}); };
  u8(rng.below(256));
  u8(rng.below(256));  // ID
  u8(0x01);
  u8(0x00);  // RD
  u8(0);
  u8(1);  // QDCOUNT
  for (int i = 0; i < 6; ++i) u8(0);
  for (int label = 0; label < 3; ++label) {
    const std::uint32_t n = 3 + rng.below(10);
    u8(n);
    for (std::uint32_t i = 0; i < n; ++i) u8('a' + rng.below(26));
  }
  u8(0);
  u8(0);
  u8(rng.below(2) == 0 ? 1 : 28);  // A or AAAA
  u8(0);
  u8(1);  // IN
  return q;
}

// Ordinary UDP that the heuristic must not claim: DNS queries, QUIC-like packets of random
// octets on random ports, and near misses that begin like RDCC but are not.
void write_ordinary(const std::string& dir, std::ostream& index) {
  Capture c(dir, "ordinary_udp.pcap",
            "Ordinary UDP traffic that is not RDCC, for the heuristic test: DNS queries to "
            "port 53, QUIC-like packets (long and short header forms, random octets) to 443 "
            "and random ports, and near misses that start like RDCC (first octet 0x10, a "
            "registered Type) with a Length that does not match the datagram. The heuristic "
            "must claim none of them.");
  Random rng(0x0DD5EED);
  std::int64_t t = 0;
  for (int i = 0; i < 200; ++i) {
    const auto client_port = static_cast<std::uint16_t>(1024 + rng.below(64511));
    const Address client =
        Address::v4(192, 168, 1, static_cast<std::uint8_t>(2 + rng.below(200)), client_port);
    std::vector<std::byte> payload;
    std::uint16_t server_port = 0;
    const std::uint32_t kind = rng.below(10);
    if (kind < 3) {
      payload = dns_query(rng);
      server_port = 53;
    } else {
      const std::uint32_t size = kind == 8 ? 1200 : 20 + rng.below(kind < 5 ? 60 : 120);
      for (std::uint32_t k = 0; k < size; ++k)
        payload.push_back(std::byte{static_cast<std::uint8_t>(rng.below(256))});
      payload[0] = std::byte{
          static_cast<std::uint8_t>(kind % 2 == 0 ? 0xC0 | (rng.below(64)) : 0x40 | rng.below(64))};
      if (kind == 9) {
        // A near miss: version 1, a registered type, a Length that is not the datagram's.
        payload[0] = std::byte{0x10};
        payload[1] = std::byte{static_cast<std::uint8_t>(1 + rng.below(10))};
        payload[2] = std::byte{0};
        payload[3] = std::byte{static_cast<std::uint8_t>(16 + rng.below(60))};
      }
      server_port = rng.below(2) == 0 ? 443 : static_cast<std::uint16_t>(1024 + rng.below(64511));
    }
    const Address server =
        Address::v4(203, 0, 113, static_cast<std::uint8_t>(1 + rng.below(250)), server_port);
    c.add(t, client, server, payload, "");
    t += 1 + rng.below(5000);
  }
  c.index(index, false);
}

// N datagrams of 64 associations, each cycling request, grant, FINAL grant, MSG_DONE, for the
// tshark benchmark.
void write_bench(std::size_t n, const std::string& path) {
  PcapWriter w(path);
  const Address receiver = Address::v4(10, 0, 0, 1, kRdccPort);
  constexpr std::uint32_t kFlows = 64;
  constexpr std::uint64_t kLength = 1U << 20U;
  for (std::size_t i = 0; i < n; ++i) {
    const auto flow = static_cast<std::uint32_t>(i % kFlows);
    const auto round = static_cast<std::uint32_t>(i / kFlows);
    const Address sender = Address::v4(10, 0, 1, static_cast<std::uint8_t>(flow), 40000);
    const Header h{.association_id = 0x100 + flow, .epoch = 1, .sequence_number = round};
    const std::uint64_t id = 1 + round / 4;
    const auto time = kEpochMicros + static_cast<std::int64_t>(i);
    switch (round % 4) {
      case 0:
        w.write(time,
                udp_frame(sender, receiver,
                          encoded(CreditRequest{.header = h,
                                                .message_id = id,
                                                .message_length = kLength,
                                                .traffic_class = 2,
                                                .weight = 4,
                                                .service_hint = 1,
                                                .binding_kind = 1,
                                                .binding_value = *pack_rocev2({0x123, 5, 16})})));
        break;
      case 1:
      case 2: {
        Header gh = h;
        if (round % 4 == 2) gh.flags = flag::kFinal;
        w.write(time, udp_frame(receiver, sender,
                                encoded(CreditGrant{.header = gh,
                                                    .message_id = id,
                                                    .grant_limit = (round % 4) * kLength / 2,
                                                    .pacing_rate = 100000,
                                                    .lifetime = 2000})));
        break;
      }
      default:
        w.write(
            time,
            udp_frame(receiver, sender,
                      encoded(MsgDone{.header = h, .message_id = id, .octets_received = kLength})));
        break;
    }
  }
}

int run(int argc, char** argv) {
  if (argc == 4 && std::string(argv[1]) == "--bench") {
    char* end = nullptr;
    const unsigned long long n = std::strtoull(argv[2], &end, 10);
    if (end == argv[2] || *end != '\0' || n == 0) {
      std::cerr << "rdcc-gen-pcaps: --bench needs a positive packet count, not '" << argv[2]
                << "'\n";
      return 2;
    }
    write_bench(n, argv[3]);
    return 0;
  }
  if (argc != 2) {
    std::cerr << "usage: rdcc-gen-pcaps OUTDIR | rdcc-gen-pcaps --bench N FILE\n";
    return 2;
  }
  const std::string dir = argv[1];
  std::ofstream index(dir + "/INDEX.md");
  if (!index) {
    std::cerr << "rdcc-gen-pcaps: cannot write " << dir << "/INDEX.md\n";
    return 1;
  }
  index << "# Captures\n\n"
           "Generated by `rdcc-gen-pcaps` (`pcaps/src/gen_pcaps.cpp`); regenerate them all with "
           "`cmake --build BUILD --target pcaps`. Do not edit by hand: this index is written "
           "with them. Ethernet / IPv4 or IPv6 / UDP with valid checksums, virtual time from "
           "2025-01-01T00:00:00Z, fixed seeds: the files are the same byte for byte on every "
           "run. RDCC runs on UDP port 50000 (the spec forbids a default port; open them with "
           "`-d udp.port==50000,rdcc` or set the `rdcc.udp.port` preference).\n\n"
           "The `sim_*` captures come from the simulator (`reference/sim`) running the "
           "reference endpoints: every packet as the switch delivered it, data on UDP 50001 "
           "(the opaque transport, docs/data-transport.md) or 4791 (RoCEv2), cut to 128 "
           "octets of IP (every RDCC message is whole). Times are the simulator's, rounded "
           "down to the microsecond. Their frame numbers change whenever the endpoints' "
           "behaviour does: regenerate, and the tables follow.\n\n";
  write_boundary(dir, index);
  write_appendix_exchange(dir, index);
  write_malformed(dir, index);
  write_ordinary(dir, index);
  write_simulated(dir, index);
  return 0;
}

}  // namespace
}  // namespace rdcc::pcaps

int main(int argc, char** argv) {
  try {
    return rdcc::pcaps::run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "rdcc-gen-pcaps: " << e.what() << '\n';
    return 1;
  }
}
