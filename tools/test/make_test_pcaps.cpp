// Writes the small captures tools/test/pcap_test.sh checks `rdcc pcap` against: real
// Ethernet / VLAN / IPv4 / IPv6 / UDP headers with valid checksums (rdcc_wire framing and
// PcapWriter, through libpcap). One clean exchange, one capture per injected fault, malformed
// frames, the other link types, and exchanges with their data packets (the opaque transport
// and RoCEv2, encoded by the reference bindings) clean and with injected data faults. RDCC
// port 50000, opaque data port 50001. Usage: make_test_pcaps OUTPUT_DIR
#include <pcap/pcap.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "rdcc/codec/codec.hpp"
#include "rdcc/codec/rocev2.hpp"
#include "rdcc/reference/bindings.hpp"
#include "rdcc/wire/frame.hpp"
#include "rdcc/wire/pcap.hpp"

namespace {

using Bytes = std::vector<std::byte>;
using Endpoint = rdcc::wire::Address;
constexpr std::uint16_t kPort = 50000;
constexpr std::uint16_t kDataPort = 50001;

Endpoint v4(std::uint8_t last, std::uint16_t port) {
  return Endpoint::v4(10, 0, 0, last, port);
}
Endpoint v6(std::uint8_t last, std::uint16_t port) {
  return Endpoint::documentation_v6(last, port);
}

Bytes octets(std::initializer_list<std::uint8_t> list) {
  Bytes b;
  for (std::uint8_t v : list) b.push_back(std::byte{v});
  return b;
}

void put16(Bytes& b, std::size_t at, std::uint32_t v) {
  b[at] = std::byte{static_cast<std::uint8_t>(v >> 8)};
  b[at + 1] = std::byte{static_cast<std::uint8_t>(v)};
}

Bytes encode_message(const rdcc::Message& m) {
  std::array<std::byte, 128> buf{};
  const auto n = rdcc::encode(m, buf);
  if (!n) {
    std::fprintf(stderr, "encode failed: %s\n", n.error().describe().c_str());
    std::exit(1);
  }
  return Bytes(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(*n));
}

// The frames are rdcc_wire's Ethernet / IPv4 or IPv6 / UDP frames (valid checksums); the
// variations below change them after the fact.
constexpr std::size_t kEthernetSize = 14;

// VLAN tags inserted after the MAC addresses, outermost first.
Bytes with_vlan(Bytes f, const std::vector<std::uint16_t>& tpids) {
  Bytes tags;
  for (std::uint16_t tpid : tpids) {
    tags.push_back(std::byte{static_cast<std::uint8_t>(tpid >> 8)});
    tags.push_back(std::byte{static_cast<std::uint8_t>(tpid)});
    tags.push_back(std::byte{0x00});
    tags.push_back(std::byte{0x64});  // VLAN 100
  }
  f.insert(f.begin() + 12, tags.begin(), tags.end());
  return f;
}

Bytes udp_frame(const Endpoint& from, const Endpoint& to, const Bytes& payload,
                const std::vector<std::uint16_t>& vlan = {}) {
  return with_vlan(rdcc::wire::udp_frame(from, to, payload), vlan);
}
Bytes frame(const Endpoint& from, const Endpoint& to, const rdcc::Message& m,
            const std::vector<std::uint16_t>& vlan = {}) {
  return udp_frame(from, to, encode_message(m), vlan);
}
// The IP packet of a frame (for the link types without Ethernet).
Bytes ip_packet(const Endpoint& from, const Endpoint& to, const Bytes& payload) {
  const Bytes f = rdcc::wire::udp_frame(from, to, payload);
  return Bytes(f.begin() + kEthernetSize, f.end());
}

// IPv6 extension headers (already formatted, each naming its next header) spliced in front
// of the UDP header; the pseudo-header, and so the UDP checksum, does not change.
Bytes with_ipv6_extensions(Bytes f, std::uint8_t first_next, const Bytes& extensions) {
  const std::size_t ip = kEthernetSize;
  const std::size_t payload =
      (std::to_integer<std::size_t>(f[ip + 4]) << 8) | std::to_integer<std::size_t>(f[ip + 5]);
  put16(f, ip + 4, static_cast<std::uint32_t>(payload + extensions.size()));
  f[ip + 6] = std::byte{first_next};
  f.insert(f.begin() + static_cast<std::ptrdiff_t>(ip + 40), extensions.begin(), extensions.end());
  return f;
}

class Writer {
 public:
  explicit Writer(const std::string& path, int link_type = rdcc::wire::kLinkTypeEthernet)
      : writer_(path, link_type) {}
  // Frames are 10 microseconds apart from 2025-01-01T00:00:00Z unless placed with at().
  void add(const Bytes& f, std::uint32_t captured = 0) {
    const Bytes cut = captured == 0 ? f : Bytes(f.begin(), f.begin() + captured);
    writer_.write(rdcc::wire::kEpochMicros + now_us_, cut, static_cast<std::uint32_t>(f.size()));
    now_us_ += 10;
  }
  // The next frame goes `us` microseconds after the previous one.
  Writer& after(std::int64_t us) {
    now_us_ += us - 10;
    return *this;
  }

 private:
  rdcc::wire::PcapWriter writer_;
  std::int64_t now_us_ = 0;
};

constexpr std::uint32_t kAssoc = 0x5a17c0de;
constexpr std::uint64_t kLength = 1 << 20;

rdcc::Header header(std::uint32_t seq, std::uint16_t flags = 0, std::uint32_t assoc = kAssoc) {
  rdcc::Header h;
  h.association_id = assoc;
  h.epoch = 3;
  h.flags = flags;
  h.sequence_number = seq;
  return h;
}
rdcc::CreditGrant grant(std::uint32_t seq, std::uint64_t limit, bool final_flag,
                        std::uint64_t id = 0x101) {
  rdcc::CreditGrant g;
  g.header = header(seq, final_flag ? rdcc::flag::kFinal : 0);
  g.message_id = id;
  g.grant_limit = limit;
  g.pacing_rate = 100000;
  g.lifetime = 2000;
  return g;
}
rdcc::MsgDone done(std::uint32_t seq, std::uint64_t octets, std::uint64_t id = 0x101) {
  rdcc::MsgDone d;
  d.header = header(seq);
  d.message_id = id;
  d.octets_received = octets;
  return d;
}

// The association and message 0x101 of 1 MiB, frames 1..7; `change` may replace any frame.
std::vector<rdcc::Message> exchange() {
  rdcc::AssocRequest ar;
  ar.sender_nonce = 0x0123456789abcdefULL;
  ar.capabilities = 3;
  ar.line_rate = 400000;
  rdcc::AssocAccept acc;
  acc.header = header(0);
  acc.sender_nonce = ar.sender_nonce;
  acc.capabilities = 3;
  acc.unscheduled_limit = 16384;
  acc.start_jitter = 8;
  acc.backlog_threshold = 1 << 20;
  acc.grant_lifetime = 2000;
  acc.credit_unit = 4096;
  rdcc::CreditRequest req;
  req.header = header(1);
  req.message_id = 0x101;
  req.message_length = kLength;
  req.traffic_class = 2;
  req.weight = 4;
  req.binding_kind = 2;
  req.binding_value = 0x101;
  return {ar,
          acc,
          req,
          grant(1, std::uint64_t{256} * 1024, false),
          grant(2, std::uint64_t{512} * 1024, false),
          grant(3, kLength, true),
          done(4, kLength)};
}

const Endpoint kSender = v4(2, 40000);
const Endpoint kReceiver = v4(1, kPort);

void write_exchange(const std::string& path, const std::vector<rdcc::Message>& msgs) {
  Writer w(path);
  for (const auto& m : msgs) {
    const auto t = rdcc::type_of(m);
    const bool from_sender =
        t == rdcc::MessageType::AssocRequest || t == rdcc::MessageType::CreditRequest;
    w.add(from_sender ? frame(kSender, kReceiver, m) : frame(kReceiver, kSender, m));
  }
}

void write_clean(const std::string& dir) {
  Writer w(dir + "/clean.pcap");
  for (const auto& m : exchange()) {
    const auto t = rdcc::type_of(m);
    const bool from_sender =
        t == rdcc::MessageType::AssocRequest || t == rdcc::MessageType::CreditRequest;
    w.add(from_sender ? frame(kSender, kReceiver, m) : frame(kReceiver, kSender, m));
  }
  // Frames 8..11: a second receiver over IPv6 behind a VLAN tag, one 8 KiB message.
  const Endpoint s6 = v6(2, 40001);
  const Endpoint r6 = v6(1, kPort);
  rdcc::AssocAccept acc = std::get<rdcc::AssocAccept>(exchange()[1]);
  acc.header.association_id = 7;
  rdcc::CreditRequest req = std::get<rdcc::CreditRequest>(exchange()[2]);
  req.header.association_id = 7;
  req.message_id = 5;
  req.message_length = 8192;
  rdcc::CreditGrant g = grant(1, 8192, true, 5);
  g.header.association_id = 7;
  rdcc::MsgDone d = done(2, 8192, 5);
  d.header.association_id = 7;
  w.add(frame(r6, s6, acc, {0x8100}));
  w.add(frame(s6, r6, req, {0x8100}));
  w.add(frame(r6, s6, g, {0x8100}));
  w.add(frame(r6, s6, d, {0x8100}));
}

void write_faults(const std::string& dir) {
  auto m = exchange();
  m[5] = grant(3, kLength + 4096, true);  // frame 6 beyond the length
  write_exchange(dir + "/grant_beyond.pcap", m);
  m = exchange();
  m[5] = grant(3, kLength, false);  // frame 6 reaches the length without FINAL
  write_exchange(dir + "/final_missing.pcap", m);
  m = exchange();
  m[5] = grant(3, std::uint64_t{128} * 1024, false);  // frame 6 below frame 5's 512 KiB
  m.emplace_back(grant(5, kLength, true));
  write_exchange(dir + "/reduced.pcap", m);
  m = exchange();
  m[4] = grant(1, std::uint64_t{512} * 1024, false);  // frame 5 repeats frame 4's Sequence Number
  write_exchange(dir + "/stale_seq.pcap", m);
  m = exchange();
  m[6] = done(4, std::uint64_t{512} * 1024);  // frame 7: MSG_DONE after half the octets
  write_exchange(dir + "/done_early.pcap", m);

  // Frame 4 a pool grant, though the ASSOC_REQUEST (frame 1) advertised STATUS alone.
  m = exchange();
  std::get<rdcc::AssocRequest>(m[0]).capabilities = rdcc::capability::kStatus;
  rdcc::CreditGrant pool = grant(1, 4096, false, 0);
  pool.header.flags = rdcc::flag::kPool;
  m[3] = pool;
  write_exchange(dir + "/pool_unadvertised.pcap", m);
  // Frame 4 with the POOL flag and Message ID 0x101, frame 5 Message ID zero without it.
  m = exchange();
  m[3] = grant(1, 4096, false);
  std::get<rdcc::CreditGrant>(m[3]).header.flags = rdcc::flag::kPool;
  m[4] = grant(2, 4096, false, 0);
  write_exchange(dir + "/pool_message_id.pcap", m);

  // ERROR where it may not be sent, MSG_DONE for a message never requested (frames 8..10).
  Writer w(dir + "/errors.pcap");
  for (std::size_t i = 0; i < 7; ++i) {
    const auto t = rdcc::type_of(exchange()[i]);
    const bool from_sender =
        t == rdcc::MessageType::AssocRequest || t == rdcc::MessageType::CreditRequest;
    w.add(from_sender ? frame(kSender, kReceiver, exchange()[i])
                      : frame(kReceiver, kSender, exchange()[i]));
  }
  rdcc::ErrorMessage unsupported;
  unsupported.header = header(5);
  unsupported.reason = static_cast<std::uint16_t>(rdcc::ReasonCode::UnsupportedType);
  w.add(frame(kReceiver, v4(3, 40000), unsupported));
  rdcc::ErrorMessage unknown;
  unknown.header = header(0, 0, 0x99);
  unknown.reason = static_cast<std::uint16_t>(rdcc::ReasonCode::UnknownAssociation);
  w.add(frame(kReceiver, v4(4, 40000), unknown));
  w.add(frame(kReceiver, kSender, done(6, 100, 0x202)));
}

// The clean exchange with the UDP checksum zero (not set) on frame 3 (the sender's
// CREDIT_REQUEST) and frame 4 (the receiver's CREDIT_GRANT): only the sender's is a finding.
void write_zero_checksums(const std::string& dir) {
  Writer w(dir + "/zero_checksum.pcap");
  constexpr std::size_t kUdpChecksumAt = kEthernetSize + 20 + 6;  // IPv4 without options
  std::size_t number = 0;
  for (const auto& m : exchange()) {
    const auto t = rdcc::type_of(m);
    const bool from_sender =
        t == rdcc::MessageType::AssocRequest || t == rdcc::MessageType::CreditRequest;
    Bytes f = from_sender ? frame(kSender, kReceiver, m) : frame(kReceiver, kSender, m);
    if (++number == 3 || number == 4) put16(f, kUdpChecksumAt, 0);
    w.add(f);
  }
}

void write_malformed(const std::string& dir) {
  Writer w(dir + "/malformed.pcap");
  const Bytes good = frame(kReceiver, kSender, grant(1, 4096, false));
  w.add(Bytes(good.begin(), good.begin() + 10));  // 1: ends inside the Ethernet header
  Bytes bad_ihl = good;
  bad_ihl[14] = std::byte{0x43};  // 2: IHL 3
  w.add(bad_ihl);
  Bytes udp_long = good;
  put16(udp_long, 14 + 20 + 4, 400);  // 3: UDP length beyond the IP payload
  w.add(udp_long);
  // 4: IPv6 with Hop-by-Hop and Destination Options before UDP: decodes.
  const Endpoint s6 = v6(2, 40001);
  const Endpoint r6 = v6(1, kPort);
  const Bytes ext = octets({60, 0, 1, 4, 0, 0, 0, 0, 17, 0, 1, 4, 0, 0, 0, 0});
  w.add(with_ipv6_extensions(frame(r6, s6, grant(2, 8192, false)), 0, ext));
  // 5: an extension header whose length runs past the payload.
  w.add(with_ipv6_extensions(udp_frame(r6, s6, Bytes{}), 60, octets({17, 200, 0, 0, 0, 0, 0, 0})));
  // 6: RDCC CREDIT_GRANT with Length 39.
  Bytes short_len = encode_message(grant(3, 8192, false));
  short_len[3] = std::byte{39};
  w.add(udp_frame(kReceiver, kSender, short_len));
  // 7: double-tagged (802.1ad + 802.1Q), decodes.
  w.add(frame(kReceiver, kSender, grant(4, 16384, false), {0x88A8, 0x8100}));
  // 8: cut by the snap length.
  const Bytes cut = frame(kReceiver, kSender, grant(5, 20480, false));
  w.add(cut, 40);
  // 9: ARP: not IP, ignored.
  Bytes arp = octets({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0, 0, 0, 0, 2, 0x08, 0x06});
  arp.resize(42, std::byte{0});
  w.add(arp);
  // 10: a first IPv4 fragment (More Fragments set; the header checksum is left as it was:
  // the reader does not check it).
  Bytes fragment = frame(kReceiver, kSender, grant(6, 1, false));
  put16(fragment, kEthernetSize + 6, 0x2000);
  w.add(fragment);
  // 11: an ordinary grant still decodes after all that.
  w.add(frame(kReceiver, kSender, grant(7, 32768, false)));
}

void write_link_types(const std::string& dir) {
  const Bytes ip = ip_packet(kReceiver, kSender, encode_message(grant(1, 4096, false)));
  {
    Writer w(dir + "/sll.pcap", DLT_LINUX_SLL);
    Bytes f = octets({0, 4, 0, 1, 0, 6, 2, 0, 0, 0, 0, 1, 0, 0, 0x08, 0x00});
    f.insert(f.end(), ip.begin(), ip.end());
    w.add(f);
  }
  {
    Writer w(dir + "/sll2.pcap", DLT_LINUX_SLL2);
    Bytes f = octets({0x08, 0x00, 0, 0, 0, 0, 0, 2, 0, 1, 4, 6, 2, 0, 0, 0, 0, 1, 0, 0});
    f.insert(f.end(), ip.begin(), ip.end());
    w.add(f);
  }
  {
    Writer w(dir + "/raw.pcap", DLT_RAW);
    const Endpoint s6 = v6(2, 40001);
    const Endpoint r6 = v6(1, kPort);
    w.add(ip_packet(r6, s6, encode_message(grant(1, 4096, false))));
  }
}

// ---- exchanges with their data packets ----------------------------------------------------
// Receiver 10.0.0.1 (RDCC 50000), sender 10.0.0.2 (RDCC 40000); opaque data on port 50001
// both ways, RoCEv2 to UDP 4791. U 16 KiB, Credit Unit 4096, default Lifetime 2000 us.
//  0x100: unscheduled, 8 KiB (two packets, UNSCHEDULED flag), then MSG_DONE;
//  0x101: scheduled, 64 KiB at 1000 Mbit/s in two grants of 32 KiB, 4096-octet packets 40 us
//         apart (4096 octets take 32.8 us at that rate), then MSG_DONE;
//  0x102: RoCEv2 (QPN 0x123, four RDMA messages of 4096 from MSN 0, path MTU 2048), one grant
//         for the whole 16 KiB, eight packets 20 us apart, then MSG_DONE.
enum class DataFault {
  None,
  BeyondGrant,         // 0x101: a ninth packet before the second grant
  AfterLifetime,       // 0x101: the first grant's Lifetime is 100 us; packets 40 us apart
  TwoUnscheduled,      // 0x103 (unscheduled) announced before 0x100's MSG_DONE
  UnscheduledBeyondU,  // U is 4096: 0x100's 8 KiB is too long for unscheduled mode
  PacingTooFast,       // 0x101's packets 1 us apart
  DoneEarly,           // MSG_DONE for 0x101 after 12 of its 16 packets
  Rocev2Overrun,       // 0x102 granted 8 KiB only, all 16 KiB sent
  Rocev2Early,         // 0x102's first RDMA message (two packets) before its request
};

class DataExchange {
 public:
  // `snap`: data frames are cut to their first 128 octets, as captures of data often are.
  // `ipv6`: the same exchange between 2001:db8::2 (sender) and 2001:db8::1 (receiver), control,
  // opaque and RoCEv2 alike; the frame numbers are those of the IPv4 one.
  DataExchange(const std::string& path, DataFault fault, bool snap = false, bool ipv6 = false)
      : w_(path), fault_(fault), snap_(snap), ipv6_(ipv6) {}

  void write() {
    association();
    unscheduled();
    scheduled();
    rocev2();
  }

 private:
  void control(const rdcc::Message& m) {
    const auto t = rdcc::type_of(m);
    const bool from_sender =
        t == rdcc::MessageType::AssocRequest || t == rdcc::MessageType::CreditRequest;
    const Endpoint sender = host(2, 40000);
    const Endpoint receiver = host(1, kPort);
    w_.add(from_sender ? frame(sender, receiver, m) : frame(receiver, sender, m));
  }
  [[nodiscard]] Endpoint host(std::uint8_t last, std::uint16_t port) const {
    return ipv6_ ? v6(last, port) : v4(last, port);
  }
  rdcc::Header tx() { return header(++tx_seq_); }
  void data(const Bytes& f) {
    w_.add(f, snap_ ? static_cast<std::uint32_t>(std::min<std::size_t>(f.size(), 128)) : 0);
  }

  void association() {
    auto m = exchange();
    rdcc::AssocAccept acc = std::get<rdcc::AssocAccept>(m[1]);
    if (fault_ == DataFault::UnscheduledBeyondU) acc.unscheduled_limit = 4096;
    control(m[0]);
    control(acc);
  }

  rdcc::CreditRequest request(std::uint64_t id, std::uint64_t length, std::uint64_t unsched,
                              std::uint8_t kind, std::uint64_t value) {
    rdcc::CreditRequest r;
    r.header = tx();
    r.message_id = id;
    r.message_length = length;
    r.unscheduled_sent = unsched;
    r.traffic_class = 2;
    r.weight = 4;
    r.binding_kind = kind;
    r.binding_value = value;
    return r;
  }
  rdcc::CreditGrant grant_for(std::uint64_t id, std::uint64_t limit, bool final_flag,
                              std::uint32_t lifetime = 2000) {
    rdcc::CreditGrant g = grant(0, limit, final_flag, id);
    g.header.sequence_number = ++rx_seq_;
    g.pacing_rate = 1000;
    g.lifetime = lifetime;
    return g;
  }
  rdcc::MsgDone done_for(std::uint64_t id, std::uint64_t octets) {
    rdcc::MsgDone d = done(++rx_seq_, octets, id);
    return d;
  }

  void opaque(std::uint64_t id, std::uint64_t offset, std::uint32_t length, bool unsched,
              bool last) {
    rdcc::ref::OpaqueHeader h;
    h.flags = static_cast<std::uint8_t>((unsched ? rdcc::ref::opaque_flag::kUnscheduled : 0) |
                                        (last ? rdcc::ref::opaque_flag::kLast : 0));
    h.payload_length = length;
    h.message_identifier = id;
    h.offset = offset;
    const Bytes payload(length, std::byte{0});
    Bytes packet(rdcc::ref::kOpaqueHeaderSize + length);
    if (!rdcc::ref::encode_opaque(h, payload, packet)) std::exit(1);
    data(udp_frame(host(2, kDataPort), host(1, kDataPort), packet));
  }

  void unscheduled() {
    control(request(0x100, 8192, 8192, 2, 0x100));
    w_.after(3);
    opaque(0x100, 0, 4096, true, false);
    opaque(0x100, 4096, 4096, true, true);
    if (fault_ == DataFault::TwoUnscheduled) control(request(0x103, 4096, 4096, 2, 0x103));
    control(done_for(0x100, 8192));
  }

  void scheduled() {
    control(request(0x101, 65536, 0, 2, 0x101));
    control(grant_for(0x101, 32768, false, fault_ == DataFault::AfterLifetime ? 100 : 2000));
    const std::int64_t spacing = fault_ == DataFault::PacingTooFast ? 1 : 40;
    const int first = fault_ == DataFault::BeyondGrant ? 9 : 8;
    for (int i = 0; i < 16; ++i) {
      if (i == first) control(grant_for(0x101, 65536, true));
      if (fault_ == DataFault::DoneEarly && i == 12) break;
      w_.after(i == 0 || i == first ? 10 : spacing);
      opaque(0x101, static_cast<std::uint64_t>(i) * 4096, 4096, false, i == 15);
    }
    control(done_for(0x101, fault_ == DataFault::DoneEarly ? 49152 : 65536));
  }

  void rocev2() {
    rdcc::ref::Rocev2Requester qp(0x123, 1000, 0x55aa, 0x10000, 2048);
    const auto plan = qp.plan_message(16384, 4096);
    if (!plan) std::exit(1);
    const bool early = fault_ == DataFault::Rocev2Early;
    const bool overrun = fault_ == DataFault::Rocev2Overrun;
    const auto request_and_grant = [&] {
      control(request(0x102, 16384, 0, 1, plan->binding_value));
      control(grant_for(0x102, overrun ? 8192 : 16384, !overrun));
    };
    if (!early) request_and_grant();
    for (std::uint64_t offset = 0; offset < 16384; offset += 4096) {
      if (early && offset == 4096) request_and_grant();
      for (const auto& h : qp.packetize(*plan, 16384, offset, 4096)) {
        rdcc::ref::Rocev2Packet p;
        p.ipv6 = ipv6_;
        p.ip.source = host(2, 0).ip;
        p.ip.destination = host(1, 0).ip;
        p.ip.source_port = 49152;
        p.ip.destination_port = rdcc::ref::kRocev2Port;
        p.bth = h.bth;
        p.reth = h.reth;
        const Bytes payload(h.length, std::byte{0});
        p.payload = payload;
        Bytes packet(rdcc::ref::rocev2_packet_size(h.bth.opcode, h.length, ipv6_));
        if (!rdcc::ref::encode_rocev2(p, packet)) std::exit(1);
        w_.after(20);
        data(rdcc::wire::ethernet_frame(packet));
      }
    }
    control(done_for(0x102, 16384));
  }

  Writer w_;
  DataFault fault_;
  bool snap_;
  bool ipv6_;
  std::uint32_t rx_seq_ = 0;
  std::uint32_t tx_seq_ = 0;
};

void write_data(const std::string& dir) {
  const std::pair<const char*, DataFault> files[] = {
      {"data_clean", DataFault::None},
      {"data_beyond_grant", DataFault::BeyondGrant},
      {"data_after_lifetime", DataFault::AfterLifetime},
      {"data_two_unscheduled", DataFault::TwoUnscheduled},
      {"data_unscheduled_beyond_u", DataFault::UnscheduledBeyondU},
      {"data_pacing", DataFault::PacingTooFast},
      {"data_done_early", DataFault::DoneEarly},
      {"data_rocev2_overrun", DataFault::Rocev2Overrun},
      {"data_rocev2_early", DataFault::Rocev2Early},
  };
  for (const auto& [name, fault] : files) {
    DataExchange(dir + "/" + name + ".pcap", fault).write();
  }
  DataExchange(dir + "/data_clean_snap.pcap", DataFault::None, true).write();
  DataExchange(dir + "/data_rocev2_overrun_snap.pcap", DataFault::Rocev2Overrun, true).write();
  // Over IPv6 (RoCEv2 in IPv6, UDP 4791): the same rules at the same frames.
  DataExchange(dir + "/data_v6_clean.pcap", DataFault::None, false, true).write();
  DataExchange(dir + "/data_v6_beyond_grant.pcap", DataFault::BeyondGrant, false, true).write();
  DataExchange(dir + "/data_v6_rocev2_overrun.pcap", DataFault::Rocev2Overrun, false, true).write();
  DataExchange(dir + "/data_v6_rocev2_overrun_snap.pcap", DataFault::Rocev2Overrun, true, true)
      .write();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_test_pcaps OUTPUT_DIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  write_clean(dir);
  write_faults(dir);
  write_malformed(dir);
  write_zero_checksums(dir);
  write_link_types(dir);
  write_data(dir);
  return 0;
}
