// Writes the small captures tools/test/pcap_test.sh checks `rdcc pcap` against: real
// Ethernet / VLAN / IPv4 / IPv6 / UDP headers with valid checksums, through libpcap's
// pcap_open_dead + pcap_dump. One clean exchange, one capture per injected fault, malformed
// frames, and the other link types. RDCC port 50000. Usage: make_test_pcaps OUTPUT_DIR
#include <pcap/pcap.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "rdcc/codec/codec.hpp"

namespace {

using Bytes = std::vector<std::uint8_t>;
constexpr std::uint16_t kPort = 50000;

struct Host {
  std::array<std::uint8_t, 16> ip{};
  bool ipv6 = false;
  std::uint16_t port = 0;
};

Host v4(std::uint8_t last, std::uint16_t port) { return {{10, 0, 0, last}, false, port}; }
Host v6(std::uint8_t last, std::uint16_t port) {
  Host h{{0x20, 0x01, 0x0d, 0xb8}, true, port};
  h.ip[15] = last;
  return h;
}

void put16(Bytes& b, std::size_t at, std::uint32_t v) {
  b[at] = static_cast<std::uint8_t>(v >> 8);
  b[at + 1] = static_cast<std::uint8_t>(v);
}

std::uint32_t sum16(const std::uint8_t* p, std::size_t n, std::uint32_t s = 0) {
  for (std::size_t i = 0; i + 1 < n; i += 2) s += static_cast<std::uint32_t>((p[i] << 8) | p[i + 1]);
  if (n % 2 != 0) s += static_cast<std::uint32_t>(p[n - 1] << 8);
  return s;
}
std::uint16_t fold(std::uint32_t s) {
  while (s >> 16) s = (s & 0xFFFF) + (s >> 16);
  return static_cast<std::uint16_t>(~s);
}

Bytes encode_message(const rdcc::Message& m) {
  std::array<std::byte, 128> buf{};
  const auto n = rdcc::encode(m, buf);
  if (!n) {
    std::fprintf(stderr, "encode failed: %s\n", n.error().describe().c_str());
    std::exit(1);
  }
  Bytes b(*n);
  std::memcpy(b.data(), buf.data(), *n);
  return b;
}

// UDP header + payload with the checksum over the pseudo-header.
Bytes udp(const Host& from, const Host& to, const Bytes& payload) {
  Bytes u(8 + payload.size());
  put16(u, 0, from.port);
  put16(u, 2, to.port);
  put16(u, 4, static_cast<std::uint32_t>(u.size()));
  // memcpy from an empty vector (a null pointer) is undefined, even for zero octets.
  if (!payload.empty()) std::memcpy(u.data() + 8, payload.data(), payload.size());
  std::uint32_t s = 0;
  const std::size_t alen = from.ipv6 ? 16 : 4;
  s = sum16(from.ip.data(), alen, s);
  s = sum16(to.ip.data(), alen, s);
  s += 17 + static_cast<std::uint32_t>(u.size());
  std::uint16_t c = fold(sum16(u.data(), u.size(), s));
  if (c == 0) c = 0xFFFF;
  put16(u, 6, c);
  return u;
}

Bytes ipv4(const Host& from, const Host& to, const Bytes& l4, std::uint8_t proto = 17,
           std::uint16_t fragment = 0x4000) {
  Bytes p(20 + l4.size());
  p[0] = 0x45;
  put16(p, 2, static_cast<std::uint32_t>(p.size()));
  put16(p, 6, fragment);
  p[8] = 64;
  p[9] = proto;
  std::memcpy(p.data() + 12, from.ip.data(), 4);
  std::memcpy(p.data() + 16, to.ip.data(), 4);
  put16(p, 10, fold(sum16(p.data(), 20)));
  if (!l4.empty()) std::memcpy(p.data() + 20, l4.data(), l4.size());
  return p;
}

// IPv6; `extensions` (already formatted, each naming its next header) go before the UDP.
Bytes ipv6(const Host& from, const Host& to, const Bytes& l4, std::uint8_t first_next = 17,
           const Bytes& extensions = {}) {
  Bytes p(40 + extensions.size() + l4.size());
  p[0] = 0x60;
  put16(p, 4, static_cast<std::uint32_t>(extensions.size() + l4.size()));
  p[6] = first_next;
  p[7] = 64;
  std::memcpy(p.data() + 8, from.ip.data(), 16);
  std::memcpy(p.data() + 24, to.ip.data(), 16);
  if (!extensions.empty()) std::memcpy(p.data() + 40, extensions.data(), extensions.size());
  if (!l4.empty()) std::memcpy(p.data() + 40 + extensions.size(), l4.data(), l4.size());
  return p;
}

Bytes ethernet(const Bytes& ip, bool ipv6_packet, std::vector<std::uint16_t> vlan_tpids = {}) {
  Bytes f = {0x02, 0, 0, 0, 0, 1, 0x02, 0, 0, 0, 0, 2};
  for (std::uint16_t tpid : vlan_tpids) {
    f.push_back(static_cast<std::uint8_t>(tpid >> 8));
    f.push_back(static_cast<std::uint8_t>(tpid));
    f.push_back(0x00);
    f.push_back(0x64);  // VLAN 100
  }
  f.push_back(ipv6_packet ? 0x86 : 0x08);
  f.push_back(ipv6_packet ? 0xDD : 0x00);
  f.insert(f.end(), ip.begin(), ip.end());
  return f;
}

Bytes ip_packet(const Host& from, const Host& to, const Bytes& payload) {
  return from.ipv6 ? ipv6(from, to, udp(from, to, payload)) : ipv4(from, to, udp(from, to, payload));
}
Bytes frame(const Host& from, const Host& to, const rdcc::Message& m,
            std::vector<std::uint16_t> vlan = {}) {
  return ethernet(ip_packet(from, to, encode_message(m)), from.ipv6, std::move(vlan));
}

class Writer {
 public:
  Writer(const std::string& path, int link_type) : path_(path) {
    pcap_ = pcap_open_dead_with_tstamp_precision(link_type, 65535, PCAP_TSTAMP_PRECISION_NANO);
    dump_ = pcap_dump_open(pcap_, path.c_str());
    if (dump_ == nullptr) {
      std::fprintf(stderr, "%s: %s\n", path.c_str(), pcap_geterr(pcap_));
      std::exit(1);
    }
  }
  ~Writer() {
    pcap_dump_close(dump_);
    pcap_close(pcap_);
  }
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;
  // Frames are 10 microseconds apart from 2025-01-01T00:00:00Z.
  void add(const Bytes& f, std::size_t captured = 0) {
    pcap_pkthdr h{};
    const std::int64_t ns = static_cast<std::int64_t>(count_++) * 10000;
    h.ts.tv_sec = 1735689600 + ns / 1000000000;
    h.ts.tv_usec = static_cast<decltype(h.ts.tv_usec)>(ns % 1000000000);  // nanoseconds
    h.len = static_cast<bpf_u_int32>(f.size());
    h.caplen = static_cast<bpf_u_int32>(captured == 0 ? f.size() : captured);
    pcap_dump(static_cast<u_char*>(static_cast<void*>(dump_)), &h, f.data());
  }

 private:
  std::string path_;
  pcap_t* pcap_ = nullptr;
  pcap_dumper_t* dump_ = nullptr;
  std::size_t count_ = 0;
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
  return {ar, acc, req, grant(1, 256 * 1024, false), grant(2, 512 * 1024, false),
          grant(3, kLength, true), done(4, kLength)};
}

const Host kSender = v4(2, 40000);
const Host kReceiver = v4(1, kPort);

void write_exchange(const std::string& path, const std::vector<rdcc::Message>& msgs) {
  Writer w(path, DLT_EN10MB);
  for (const auto& m : msgs) {
    const auto t = rdcc::type_of(m);
    const bool from_sender = t == rdcc::MessageType::AssocRequest ||
                             t == rdcc::MessageType::CreditRequest;
    w.add(from_sender ? frame(kSender, kReceiver, m) : frame(kReceiver, kSender, m));
  }
}

void write_clean(const std::string& dir) {
  Writer w(dir + "/clean.pcap", DLT_EN10MB);
  for (const auto& m : exchange()) {
    const auto t = rdcc::type_of(m);
    const bool from_sender = t == rdcc::MessageType::AssocRequest ||
                             t == rdcc::MessageType::CreditRequest;
    w.add(from_sender ? frame(kSender, kReceiver, m) : frame(kReceiver, kSender, m));
  }
  // Frames 8..11: a second receiver over IPv6 behind a VLAN tag, one 8 KiB message.
  const Host s6 = v6(2, 40001);
  const Host r6 = v6(1, kPort);
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
  m[5] = grant(3, 128 * 1024, false);  // frame 6 below frame 5's 512 KiB
  m.push_back(grant(5, kLength, true));
  write_exchange(dir + "/reduced.pcap", m);
  m = exchange();
  m[4] = grant(1, 512 * 1024, false);  // frame 5 repeats frame 4's Sequence Number
  write_exchange(dir + "/stale_seq.pcap", m);
  m = exchange();
  m[6] = done(4, 512 * 1024);  // frame 7: MSG_DONE after half the octets
  write_exchange(dir + "/done_early.pcap", m);

  // ERROR where it may not be sent, MSG_DONE for a message never requested (frames 8..10).
  Writer w(dir + "/errors.pcap", DLT_EN10MB);
  for (std::size_t i = 0; i < 7; ++i) {
    const auto t = rdcc::type_of(exchange()[i]);
    const bool from_sender = t == rdcc::MessageType::AssocRequest ||
                             t == rdcc::MessageType::CreditRequest;
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

void write_malformed(const std::string& dir) {
  Writer w(dir + "/malformed.pcap", DLT_EN10MB);
  const Bytes good = frame(kReceiver, kSender, grant(1, 4096, false));
  w.add(Bytes(good.begin(), good.begin() + 10));  // 1: ends inside the Ethernet header
  Bytes bad_ihl = good;
  bad_ihl[14] = 0x43;  // 2: IHL 3
  w.add(bad_ihl);
  Bytes udp_long = good;
  put16(udp_long, 14 + 20 + 4, 400);  // 3: UDP length beyond the IP payload
  w.add(udp_long);
  // 4: IPv6 with Hop-by-Hop and Destination Options before UDP: decodes.
  const Host s6 = v6(2, 40001);
  const Host r6 = v6(1, kPort);
  Bytes ext = {60, 0, 1, 4, 0, 0, 0, 0, 17, 0, 1, 4, 0, 0, 0, 0};
  w.add(ethernet(ipv6(r6, s6, udp(r6, s6, encode_message(grant(2, 8192, false))), 0, ext), true));
  // 5: an extension header whose length runs past the payload.
  Bytes bad_ext = {17, 200, 0, 0, 0, 0, 0, 0};
  w.add(ethernet(ipv6(r6, s6, Bytes(4, 0), 60, bad_ext), true));
  // 6: RDCC CREDIT_GRANT with Length 39.
  Bytes short_len = encode_message(grant(3, 8192, false));
  short_len[3] = 39;
  w.add(ethernet(ip_packet(kReceiver, kSender, short_len), false));
  // 7: double-tagged (802.1ad + 802.1Q), decodes.
  w.add(frame(kReceiver, kSender, grant(4, 16384, false), {0x88A8, 0x8100}));
  // 8: cut by the snap length.
  const Bytes cut = frame(kReceiver, kSender, grant(5, 20480, false));
  w.add(cut, 40);
  // 9: ARP: not IP, ignored.
  Bytes arp = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0, 0, 0, 0, 2, 0x08, 0x06};
  arp.resize(42, 0);
  w.add(arp);
  // 10: a first IPv4 fragment (More Fragments set).
  w.add(ethernet(ipv4(kReceiver, kSender, udp(kReceiver, kSender, encode_message(grant(6, 1, false))), 17, 0x2000), false));
  // 11: an ordinary grant still decodes after all that.
  w.add(frame(kReceiver, kSender, grant(7, 32768, false)));
}

void write_link_types(const std::string& dir) {
  const Bytes ip = ip_packet(kReceiver, kSender, encode_message(grant(1, 4096, false)));
  {
    Writer w(dir + "/sll.pcap", DLT_LINUX_SLL);
    Bytes f = {0, 4, 0, 1, 0, 6, 2, 0, 0, 0, 0, 1, 0, 0, 0x08, 0x00};
    f.insert(f.end(), ip.begin(), ip.end());
    w.add(f);
  }
  {
    Writer w(dir + "/sll2.pcap", 276);
    Bytes f = {0x08, 0x00, 0, 0, 0, 0, 0, 2, 0, 1, 4, 6, 2, 0, 0, 0, 0, 1, 0, 0};
    f.insert(f.end(), ip.begin(), ip.end());
    w.add(f);
  }
  {
    Writer w(dir + "/raw.pcap", DLT_RAW);
    const Host s6 = v6(2, 40001);
    const Host r6 = v6(1, kPort);
    w.add(ip_packet(r6, s6, encode_message(grant(1, 4096, false))));
  }
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
  write_link_types(dir);
  return 0;
}
