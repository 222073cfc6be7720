// The discrete-event network (network.hpp).
#include "rdcc/sim/network.hpp"

#include "rdcc/reference/range_set.hpp"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <deque>
#include <limits>
#include <queue>
#include <set>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <variant>

#include "rdcc/codec/codec.hpp"
#include "rdcc/codec/rocev2.hpp"
#include "rdcc/sim/driver.hpp"
#include "rdcc/wire/checksum.hpp"

namespace rdcc::sim {
namespace {

// Identities of opaque data no request has named yet that the driver keeps for the checker.
constexpr std::size_t kEarlyIdentities = std::size_t{1} << 16U;

using rdcc::BindingKind;

bool draw(ref::SeededRandom& rng, double p) {
  if (p <= 0) return false;
  constexpr double kScale = 1.0 / 9007199254740992.0;  // 2^-53
  return static_cast<double>(rng.next_u64() >> 11U) * kScale < p;
}

// A packet in flight. `bytes` is the whole IPv4 packet.
struct Packet {
  bool control = false;
  HostId src_host = 0;       // where it entered the network (the switch for CRN reports)
  bool from_switch = false;  // a CRN report
  HostId dst_host = 0;
  Address from;
  Address to;
  std::uint8_t dscp = 0;
  std::uint8_t ecn = 0;
  std::vector<std::byte> bytes;
  [[nodiscard]] std::uint64_t size() const { return bytes.size(); }
};

enum class Role : std::uint8_t { Sender, Receiver };

struct Timer {
  std::optional<Time> armed;
  Time last_fired{-1};
};

struct RocePlanEntry {
  ref::Rocev2Plan plan;
  std::uint64_t length = 0;
  HostId receiver = 0;
};

struct Host {
  HostId id = 0;
  Address addr;
  LinkConfig link;
  std::unique_ptr<ref::SeededRandom> sender_random;
  std::unique_ptr<ref::Sender> sender;
  Address sender_addr;  // the sender's RDCC address: addr, or another port beside a receiver
  std::unique_ptr<ref::SeededRandom> receiver_random;
  std::unique_ptr<ref::Receiver> receiver;
  std::optional<ref::ReceiverConfig> receiver_config;
  std::shared_ptr<const ref::ReceiverPolicy> receiver_policy;
  Timer sender_timer;
  Timer receiver_timer;
  // NIC: control datagrams first, then the packets of the current data segment.
  std::deque<Packet> nic_control;
  std::deque<Packet> nic_data;
  bool nic_busy = false;
  Time nic_free_at{};
  // RoCEv2 requester queue pairs, one per receiver host, and the plans of their messages.
  std::map<HostId, ref::Rocev2Requester> requesters;
  std::map<std::uint64_t, RocePlanEntry> roce_plans;  // by binding value
  // Receiver side: RoCEv2 responder counters, and opaque binding values -> Message IDs.
  ref::Rocev2Responder responder;
  std::map<std::tuple<IpAddress, std::uint16_t, std::uint64_t>, std::uint64_t> opaque_ids;
  // Opaque octets delivered, per (sender IP, binding value): what the checker has counted.
  std::map<std::pair<IpAddress, std::uint64_t>, ref::RangeSet> delivered;
  // Both are kept while a message is live: from its request until a while after the
  // receiver's MSG_DONE for it (forget_finished), by (sender's RDCC address, Message ID).
  std::map<std::tuple<IpAddress, std::uint16_t, std::uint64_t>, std::uint64_t> opaque_values;
  // Opaque octets delivered before any request named their identifier, by (sender's address,
  // binding value): the checker hears of them with the request (note_request). Stray data of
  // finished messages lands here too: at most kEarlyIdentities are kept.
  std::map<std::tuple<IpAddress, std::uint16_t, std::uint64_t>, std::uint64_t> early;
  std::deque<std::pair<Time, std::tuple<IpAddress, std::uint16_t, std::uint64_t>>> finished;
  std::uint16_t ip_id = 0;
};

struct Port {
  std::deque<Packet> control;
  std::deque<Packet> data;
  std::uint64_t control_octets = 0;
  std::uint64_t data_octets = 0;
  std::uint64_t peak_data = 0;
  bool busy = false;
  std::map<std::tuple<IpAddress, std::uint16_t, IpAddress, std::uint16_t>, std::uint32_t>
      flows;  // data packets queued per flow
};

struct Submission {
  HostId host = 0;
  ref::MessageSpec spec;
  Time at;
  std::optional<ref::MessageHandle> handle;
  // The final status, kept here once seen: the sender keeps only a bounded number of them
  // (SenderConfig::finished_status_capacity), and the simulator answers for every message.
  std::optional<ref::MessageStatus> final;
};

// Event kinds, ordered by (time, sequence): same instant, scheduling order.
struct ArriveSwitch {
  Packet packet;
};
struct PortDone {
  HostId port;
  Packet packet;
};
struct ArriveHost {
  Packet packet;
};
struct NicDone {
  HostId host;
};
struct TimerFire {
  HostId host;
  Role role;
  Time at;
};
struct SubmitEv {
  SubmitId id;
};
struct RestartEv {
  HostId host;
  std::uint16_t epoch;
};
struct ActionEv {
  std::function<void(Network&)> fn;
};
struct InjectEv {
  HostId host;
  Address to;
  std::vector<std::byte> payload;
  bool control;
  std::uint8_t dscp;
  std::uint8_t ecn;
};
using EventBody = std::variant<ArriveSwitch, PortDone, ArriveHost, NicDone, TimerFire, SubmitEv,
                               RestartEv, ActionEv, InjectEv>;
struct Scheduled {
  Time t;
  std::uint64_t seq;
  // Heap ordering: earliest first, then FIFO.
  friend bool operator>(const Scheduled& a, const Scheduled& b) {
    return std::tie(a.t.ns, a.seq) > std::tie(b.t.ns, b.seq);
  }
};

}  // namespace

struct Network::Impl {
  Network& self;
  NetworkConfig cfg;
  ref::SeededRandom rng;
  ref::EventLog log;
  checker::InvariantChecker checker;
  std::vector<Host> hosts;
  // Each host's index by its address with port zero (the first host of an address, as host_of
  // found it by walking the hosts: a lookup per packet, not a walk of the fabric).
  std::unordered_map<Address, HostId, ref::AddressHash> host_by_addr;
  std::vector<Port> ports;
  std::unique_ptr<ref::Crn> crn;
  Address crn_addr;
  // The submissions still answered for: ids [forgotten, forgotten + subs.size()).
  std::deque<Submission> subs;
  SubmitId forgotten = 0;  // ids below it finished and were dropped (finished_status_capacity)
  std::uint64_t forgotten_not_done = 0;  // of which ABORTED
  SubmitId first_open = 0;               // ids before it are all DONE or ABORTED (all_finished)
  std::vector<PacketRecord> records;
  NetworkStats stats;
  std::uint64_t hash = kFnvOffset;
  Time clock{};
  std::uint64_t seq = 0;
  std::priority_queue<Scheduled, std::vector<Scheduled>, std::greater<>> heap;
  std::map<std::uint64_t, EventBody> bodies;
  std::size_t events_hashed = 0;
  std::uint64_t in_flight = 0;  // packets anywhere in the network (NICs, links, queues)

  Impl(Network& n, NetworkConfig c) : self(n), cfg(std::move(c)), rng(mix(cfg.seed)) {
    crn_addr = Address::v4(10, 255, 255, 254, cfg.rdcc_port);
    if (cfg.crn) {
      ref::CrnConfig cc = crn_config_at(cfg, crn_addr);
      cfg.crn = cc;
      crn = std::make_unique<ref::Crn>(cc, cfg.record_events ? &log : nullptr);
    }
  }

  ref::Observer* observer() { return cfg.record_events ? &log : nullptr; }

  void schedule(Time t, EventBody body) {
    const std::uint64_t s = seq++;
    heap.push(Scheduled{t, s});
    bodies.emplace(s, std::move(body));
  }

  // ---- hosts --------------------------------------------------------------------------

  HostId add_host(LinkConfig link) {
    Host h;
    h.id = hosts.size();
    const std::size_t n = h.id + 1;
    h.addr = Address::v4(10, 0, static_cast<std::uint8_t>(n / 250),
                         static_cast<std::uint8_t>(n % 250 + 1), cfg.rdcc_port);
    h.link = link;
    Address key = h.addr;
    key.port = 0;
    host_by_addr.try_emplace(key, h.id);
    hosts.push_back(std::move(h));
    ports.emplace_back();
    return hosts.back().id;
  }

  std::unique_ptr<ref::Receiver> make_receiver(Host& h, ref::ReceiverConfig rc) {
    rc.local = h.addr;
    if (crn && std::find(rc.crn_addresses.begin(), rc.crn_addresses.end(), crn_addr) ==
                   rc.crn_addresses.end()) {
      rc.crn_addresses.push_back(crn_addr);
    }
    h.receiver_config = rc;
    h.receiver_random =
        std::make_unique<ref::SeededRandom>(receiver_seed(cfg.seed, h.id, rc.epoch));
    return std::make_unique<ref::Receiver>(rc, observer(), h.receiver_random.get(),
                                           h.receiver_policy);
  }

  void attach_receiver(HostId id, ref::ReceiverConfig rc,
                       std::shared_ptr<const ref::ReceiverPolicy> policy) {
    Host& h = hosts.at(id);
    h.receiver_policy = std::move(policy);
    h.receiver = make_receiver(h, std::move(rc));
    checker.add_receiver(h.addr, h.receiver_config->budget, h.receiver_config->d_max);
  }

  void attach_sender(HostId id, ref::SenderConfig sc,
                     std::shared_ptr<const ref::SenderPolicy> policy) {
    Host& h = hosts.at(id);
    sc.local = h.addr;
    if (h.receiver) sc.local.port = dual_role_sender_port(cfg.dual_role_sender_port, cfg.rdcc_port);
    h.sender_addr = sc.local;
    if (crn && std::find(sc.crn_addresses.begin(), sc.crn_addresses.end(), crn_addr) ==
                   sc.crn_addresses.end()) {
      sc.crn_addresses.push_back(crn_addr);
    }
    if (cfg.unscheduled_dscp && !sc.unscheduled_dscp) sc.unscheduled_dscp = cfg.unscheduled_dscp;
    h.sender_random = std::make_unique<ref::SeededRandom>(sender_seed(cfg.seed, h.id));
    h.sender = std::make_unique<ref::Sender>(sc, *h.sender_random, observer(), std::move(policy));
  }

  Host* host_of(Address a) {
    if (a.ipv6) return nullptr;
    a.port = 0;
    auto it = host_by_addr.find(a);
    return it == host_by_addr.end() ? nullptr : &hosts[it->second];
  }

  // ---- packets ------------------------------------------------------------------------

  void record(const Packet& p, PacketRecord::Point point) {
    if (!cfg.record_packets) return;
    PacketRecord r;
    r.time = clock;
    r.point = point;
    r.from = p.from;
    r.to = p.to;
    r.dscp = p.dscp;
    r.ecn = p.ecn;
    r.control = p.control;
    r.orig_length = static_cast<std::uint32_t>(p.bytes.size());
    const std::size_t n = std::min(p.bytes.size(), cfg.snap_length);
    r.bytes.assign(p.bytes.begin(), p.bytes.begin() + static_cast<std::ptrdiff_t>(n));
    records.push_back(std::move(r));
  }

  Packet make_packet(bool control, const Address& from, const Address& to, std::uint8_t dscp,
                     std::uint8_t ecn, std::span<const std::byte> udp_payload, std::uint16_t id) {
    Packet p;
    p.control = control;
    p.from = from;
    p.to = to;
    p.dscp = dscp;
    p.ecn = ecn;
    p.bytes.resize(ref::kIpv4HeaderSize + ref::kUdpHeaderSize + udp_payload.size());
    ref::Ipv4Udp h;
    h.source = from.ip;
    h.destination = to.ip;
    h.source_port = from.port;
    h.destination_port = to.port;
    h.dscp = dscp;
    h.ecn = ecn;
    h.identification = id;
    auto n = ref::encode_ipv4_udp(h, udp_payload, p.bytes);
    assert(n && *n == p.bytes.size());
    (void)n;
    return p;
  }

  // Impairments apply where a packet leaves its first link: dropped, duplicated, or given an
  // extra delay (which reorders it behind later packets).
  // RoCEv2 data is lossless here: the emulation has no go-back-N of the reliable connection,
  // so its packets are never lost or tail-dropped (as on a PFC-protected class); loss,
  // duplication and the queue's tail drop apply to opaque data, which recovers by NACK
  // (docs/sim.md, "RoCEv2 data is lossless"; docs/data-transport.md, "Loss recovery").
  static bool lossless(const Packet& p) { return !p.control && p.to.port == ref::kRocev2Port; }

  void launch(Packet p, Duration delay) {
    const Impairments& imp = p.control ? cfg.control : cfg.data;
    if (!lossless(p) && draw(rng, imp.loss)) {
      ++(p.control ? stats.control_lost : stats.data_lost);
      record(p, PacketRecord::Point::Dropped);
      --in_flight;
      return;
    }
    if (!lossless(p) && draw(rng, imp.duplicate)) {
      ++(p.control ? stats.control_duplicated : stats.data_duplicated);
      ++in_flight;
      launch_copy(Packet(p), delay, imp);
    }
    launch_copy(std::move(p), delay, imp);
  }
  void launch_copy(Packet p, Duration delay, const Impairments& imp) {
    Duration extra{};
    if (draw(rng, imp.reorder)) {
      extra = extra + imp.reorder_delay;
      if (p.control) ++stats.control_reordered;
    }
    if (draw(rng, imp.delay) && imp.max_extra_delay.ns > 0) {
      const auto span = static_cast<std::uint64_t>(imp.max_extra_delay.ns - 1);
      extra = extra + ref::nanoseconds(1 + static_cast<std::int64_t>(rng.uniform(span)));
      if (p.control) ++stats.control_delayed;
    }
    schedule(clock + delay + extra, ArriveSwitch{std::move(p)});
  }

  void nic_start(Host& h) {
    if (h.nic_busy) return;
    std::deque<Packet>* q = !h.nic_control.empty() ? &h.nic_control
                            : !h.nic_data.empty()  ? &h.nic_data
                                                   : nullptr;
    if (q == nullptr) return;
    Packet p = std::move(q->front());
    q->pop_front();
    h.nic_busy = true;
    h.nic_free_at = clock + ref::transmission_time(p.size(), h.link.rate_mbps);
    record(p, PacketRecord::Point::Sent);
    if (p.control)
      ++stats.control_sent;
    else
      ++stats.data_packets_sent;
    const Time done = h.nic_free_at;
    // The packet is on the wire when its last bit has left the NIC.
    schedule(done, NicDone{h.id});
    const Duration delay = h.link.delay;
    pending_launch.emplace(seq - 1, std::make_pair(std::move(p), delay));
  }
  // Packets whose serialization ends at a NicDone event, launched by it.
  std::map<std::uint64_t, std::pair<Packet, Duration>> pending_launch;

  void send_control(Host& h, const Address& from, const ref::Datagram& d) {
    if (auto m = decode(d.payload())) {
      checker.on_control_sent(from, d.to, *m, clock);
      if (const auto* done = std::get_if<MsgDone>(&*m); done != nullptr && h.receiver) {
        h.finished.emplace_back(clock, std::make_tuple(d.to.ip, d.to.port, done->message_id));
      }
    }
    forget_finished(h);
    ++in_flight;
    h.nic_control.push_back(make_packet(true, from, d.to, d.dscp, 0, d.payload(), h.ip_id++));
  }

  void send_segment(Host& h, const ref::DataSegment& s) {
    checker.on_segment_sent(h.sender_addr, s, clock);
    if (s.binding == BindingKind::Opaque) {
      stats.data_octets_sent += s.length;
      if (s.resend) stats.resent_octets_sent += s.length;
    }
    Host* dst = host_of(s.receiver);
    if (dst == nullptr) return;
    const std::uint8_t ecn = cfg.ecn_capable ? ref::kEcnEct0 : ref::kEcnNotEct;
    if (s.binding == BindingKind::RoCEv2) {
      auto it = h.roce_plans.find(s.binding_value);
      if (it != h.roce_plans.end()) {
        send_rocev2(h, *dst, it->second, s, ecn);
        return;
      }
    }
    // Opaque binding; payload octets are zero (docs/data-transport.md, "In the simulator").
    std::vector<std::byte> udp(ref::kOpaqueHeaderSize + s.length);
    const std::vector<std::byte> zeros(s.length);
    auto n = ref::encode_opaque(ref::opaque_header_for(s), zeros, udp);
    assert(n);
    (void)n;
    Address to = dst->addr;
    to.port = cfg.data_port;
    Address from = h.addr;
    from.port = cfg.data_port;
    ++in_flight;
    h.nic_data.push_back(make_packet(false, from, to, s.dscp, ecn, udp, h.ip_id++));
  }

  void send_rocev2(Host& h, Host& dst, const RocePlanEntry& e, const ref::DataSegment& s,
                   std::uint8_t ecn) {
    auto req = h.requesters.find(dst.id);
    if (req == h.requesters.end()) return;
    for (const auto& ph : req->second.packetize(e.plan, e.length, s.offset, s.length)) {
      ref::Rocev2Packet rp;
      rp.ip.source = h.addr.ip;
      rp.ip.destination = dst.addr.ip;
      // UDP source port: flow entropy from the queue pair, as RNICs do.
      rp.ip.source_port = static_cast<std::uint16_t>(0xC000U | (ph.bth.destination_qp & 0x3FFFU));
      rp.ip.destination_port = ref::kRocev2Port;
      rp.ip.dscp = s.dscp;
      rp.ip.ecn = ecn;
      rp.ip.identification = h.ip_id++;
      rp.bth = ph.bth;
      rp.reth = ph.reth;
      const std::vector<std::byte> zeros(ph.length);
      rp.payload = zeros;
      Packet p;
      p.control = false;
      p.from = {h.addr.ip, false, rp.ip.source_port};
      p.to = {dst.addr.ip, false, ref::kRocev2Port};
      p.dscp = s.dscp;
      p.ecn = ecn;
      p.bytes.resize(ref::rocev2_packet_size(ph.bth.opcode, ph.length));
      auto n = ref::encode_rocev2(rp, p.bytes);
      assert(n);
      (void)n;
      ++in_flight;
      h.nic_data.push_back(std::move(p));
    }
  }

  // ---- the sans-IO loop (io.hpp) --------------------------------------------------------

  void drain_transmit(Host& h, Role role) {
    if (role == Role::Sender) {
      while (auto d = h.sender->poll_transmit()) send_control(h, h.sender_addr, *d);
    } else {
      while (auto d = h.receiver->poll_transmit()) send_control(h, h.addr, *d);
    }
  }

  bool nic_free(const Host& h) const {
    return !h.nic_busy && h.nic_control.empty() && h.nic_data.empty();
  }

  void rearm(Host& h, Role role) {
    Timer& tm = role == Role::Sender ? h.sender_timer : h.receiver_timer;
    std::optional<Time> nt =
        role == Role::Sender ? h.sender->next_timeout() : h.receiver->next_timeout();
    if (!nt) {
      tm.armed.reset();
      return;
    }
    Time t = std::max(role == Role::Sender ? *nt + cfg.sender_timer_lateness : *nt, clock);
    // A sender ready to transmit while its NIC is busy is served when the NIC frees; and no
    // endpoint is woken twice at the same instant (a spurious on_timeout is a no-op anyway).
    if (role == Role::Sender && h.nic_busy && t < h.nic_free_at) t = h.nic_free_at;
    if (t <= tm.last_fired) t = tm.last_fired + ref::nanoseconds(1);
    if (tm.armed && *tm.armed == t) return;
    tm.armed = t;
    schedule(t, TimerFire{h.id, role, t});
  }

  // Opaque transport loss recovery (docs/data-transport.md, "Loss recovery"): a NACK travels
  // as a data-transport packet from the receiver's data port to the sender's RDCC address.
  void send_nack(Host& h, const ref::DataNack& n) {
    const std::vector<std::byte> udp = ref::encode_opaque_nack(n);
    Address from = h.addr;
    from.port = cfg.data_port;
    ++in_flight;
    ++stats.nacks_sent;
    h.nic_data.push_back(make_packet(false, from, n.to, 0, 0, udp, h.ip_id++));
  }

  void service(Host& h, Role role) {
    if (role == Role::Receiver) {
      drain_transmit(h, role);
      while (auto n = h.receiver->poll_nack()) send_nack(h, *n);
      nic_start(h);
      rearm(h, role);
      return;
    }
    drain_transmit(h, role);
    if (nic_free(h)) {
      if (auto seg = h.sender->poll_data(clock)) {
        send_segment(h, *seg);
        drain_transmit(h, role);
      }
    }
    nic_start(h);
    rearm(h, role);
  }

  void service_all(Host& h) {
    if (h.receiver) service(h, Role::Receiver);
    if (h.sender) service(h, Role::Sender);
  }

  // ---- delivery -----------------------------------------------------------------------

  void deliver_control(Host& h, const Packet& p) {
    auto ip = ref::decode_ipv4_udp(p.bytes);
    if (!ip) {
      ++stats.decode_failures;
      return;
    }
    const std::span<const std::byte> dgram = ip->payload;
    ++stats.control_delivered;
    auto m = decode(dgram);
    if (m) checker.on_control_delivered(p.from, p.to, *m, clock);
    // Demultiplex a dual-role host by who may receive the type ("RDCC Message Types").
    const Recipients to =
        recipients_of(m ? &*m : nullptr, h.sender != nullptr, h.receiver != nullptr);
    const bool to_sender = to.sender;
    const bool to_receiver = to.receiver;
    if (to_receiver && m) {
      if (const auto* r = std::get_if<CreditRequest>(&*m)) note_request(h, p.from, *r);
    }
    if (to_receiver) {
      h.receiver->on_control(p.from, dgram, clock);
      service(h, Role::Receiver);
    }
    if (to_sender) {
      h.sender->on_control(p.from, dgram, clock);
      service(h, Role::Sender);
    }
  }

  // The receiver's binding learns the transport identity of each message from its request.
  void note_request(Host& h, const Address& from, const CreditRequest& r) {
    if (r.binding_kind == static_cast<std::uint8_t>(BindingKind::RoCEv2)) {
      h.responder.register_message(r.binding_value, r.message_id);
    } else {
      h.opaque_ids[{from.ip, from.port, r.binding_value}] = r.message_id;
      h.opaque_values[{from.ip, from.port, r.message_id}] = r.binding_value;
      // Data that came before this request is the message's: the checker hears of it now,
      // after the request and before the receiver takes it as early data.
      if (auto e = h.early.find({from.ip, from.port, r.binding_value}); e != h.early.end()) {
        checker.on_data_delivered(h.addr, from, r.message_id, e->second, clock);
        h.early.erase(e);
      }
    }
  }

  // What the binding kept of a message whose MSG_DONE the receiver sent a while ago: as long
  // as the longest its data can still be on its way (J + Lifetime + 2 * D_max after that
  // MSG_DONE, as the checker forgets it). Data arriving later than that (none from a sender
  // that got the MSG_DONE) is named by its binding value and counted whole.
  void forget_finished(Host& h) {
    if (h.finished.empty() || !h.receiver_config) return;
    const ref::ReceiverConfig& rc = *h.receiver_config;
    const Duration keep = ref::microseconds(rc.start_jitter_us) +
                          ref::microseconds(rc.grant_lifetime_us) + rc.d_max * 2;
    while (!h.finished.empty() && h.finished.front().first + keep < clock) {
      const auto [ip, port, message_id] = h.finished.front().second;
      h.finished.pop_front();
      const auto v = h.opaque_values.find({ip, port, message_id});
      if (v == h.opaque_values.end()) continue;
      const std::uint64_t value = v->second;
      h.opaque_values.erase(v);
      if (const auto id = h.opaque_ids.find({ip, port, value});
          id != h.opaque_ids.end() && id->second == message_id) {
        h.opaque_ids.erase(id);
        h.delivered.erase({ip, value});
      }
    }
  }

  Address sender_rdcc(const Address& data_from) {
    Host* s = host_of(data_from);
    if (s == nullptr) return data_from;
    return s->sender ? s->sender_addr : s->addr;
  }

  void deliver_data(Host& h, const Packet& p) {
    auto ip = ref::decode_ipv4_udp(p.bytes);
    if (!ip) {
      ++stats.decode_failures;
      return;
    }
    if (deliver_nack(h, p, ip->payload)) return;
    if (!h.receiver) return;
    const Address from = sender_rdcc(p.from);
    const bool ce = ip->header.ecn == ref::kEcnCe;
    const bool unsched = cfg.unscheduled_dscp && ip->header.dscp == *cfg.unscheduled_dscp;
    ref::DataObservation obs;
    std::uint64_t message_id = 0;
    std::optional<std::uint64_t> checked_octets;
    if (ip->header.destination_port == ref::kRocev2Port) {
      auto rp = ref::decode_rocev2(p.bytes);
      if (!rp) {
        ++stats.decode_failures;
        return;
      }
      auto counted = h.responder.count(*rp, from, unsched);
      obs = counted.observation;
      message_id = counted.message_id;
    } else {
      auto op = ref::decode_opaque(ip->payload);
      if (!op) {
        ++stats.decode_failures;
        return;
      }
      obs = ref::observe_opaque(op->header, from, ce, unsched);
      auto it = h.opaque_ids.find({from.ip, from.port, op->header.message_identifier});
      // The checker counts each octet once, as the receiver does: a resent octet that had
      // arrived already (a NACK for one still on its way) is no octet more received.
      const auto [below, above] = h.delivered[{from.ip, op->header.message_identifier}].add(
          op->header.offset, op->header.offset + op->header.payload_length);
      checked_octets = below + above;
      if (it == h.opaque_ids.end()) {
        // No request has named its identifier (yet): which message it is, only the request
        // that names it will tell (note_request); the Binding Value is no Message ID.
        if (h.early.size() >= kEarlyIdentities) h.early.clear();
        h.early[{from.ip, from.port, op->header.message_identifier}] += *checked_octets;
        ++stats.data_packets_delivered;
        stats.data_octets_delivered += obs.octets;
        h.receiver->on_data(obs, clock);
        service(h, Role::Receiver);
        return;
      }
      message_id = it->second;
    }
    ++stats.data_packets_delivered;
    stats.data_octets_delivered += obs.octets;
    checker.on_data_delivered(h.addr, from, message_id, checked_octets.value_or(obs.octets), clock);
    h.receiver->on_data(obs, clock);
    service(h, Role::Receiver);
  }

  // A NACK for this host's sender; false if the packet is none.
  bool deliver_nack(Host& h, const Packet& p, std::span<const std::byte> udp) {
    if (p.to.port == cfg.data_port || p.to.port == ref::kRocev2Port) return false;
    auto op = ref::decode_opaque(udp);
    if (!op || (op->header.flags & ref::opaque_flag::kNack) == 0) return false;
    auto ranges = ref::decode_opaque_nack(*op);
    if (!ranges || !h.sender) {
      ++stats.decode_failures;
      return true;
    }
    ++stats.nacks_delivered;
    h.sender->on_nack(p.from, op->header.message_identifier, *ranges, clock);
    service(h, Role::Sender);
    return true;
  }

  // ---- switch -------------------------------------------------------------------------

  void arrive_switch(Packet p) {
    Host* dst = host_of(p.to);
    if (dst == nullptr) {
      --in_flight;
      return;
    }
    p.dst_host = dst->id;
    Port& port = ports[dst->id];
    std::uint64_t& occ = p.control ? port.control_octets : port.data_octets;
    if (occ + p.size() > cfg.queue.capacity && !lossless(p)) {
      ++stats.tail_drops;
      record(p, PacketRecord::Point::Dropped);
      --in_flight;
      return;
    }
    if (!p.control && cfg.queue.ecn_threshold && occ > *cfg.queue.ecn_threshold &&
        p.ecn != ref::kEcnNotEct) {
      mark_ce(p);
      ++stats.ecn_marked;
    }
    occ += p.size();
    if (p.control) {
      port.control.push_back(std::move(p));
    } else {
      ++port.flows[{p.from.ip, p.from.port, p.to.ip, p.to.port}];
      port.peak_data = std::max(port.peak_data, port.data_octets);
      port.data.push_back(std::move(p));
    }
    port_start(dst->id);
  }

  static void mark_ce(Packet& p) {
    p.ecn = ref::kEcnCe;
    // TOS octet and the IPv4 header checksum (recomputed, not updated as RFC 1624 would).
    p.bytes[1] = static_cast<std::byte>((p.dscp << 2U) | ref::kEcnCe);
    p.bytes[10] = std::byte{0};
    p.bytes[11] = std::byte{0};
    const std::uint16_t c = wire::internet_checksum(std::span(p.bytes).first(ref::kIpv4HeaderSize));
    p.bytes[10] = static_cast<std::byte>(c >> 8U);
    p.bytes[11] = static_cast<std::byte>(c & 0xFFU);
  }

  void port_start(HostId id) {
    Port& port = ports[id];
    if (port.busy) return;
    const bool control = !port.control.empty();
    std::deque<Packet>& q = control ? port.control : port.data;
    if (q.empty()) return;
    Packet p = std::move(q.front());
    q.pop_front();
    const std::uint64_t occupancy_at_dequeue = control ? port.control_octets : port.data_octets;
    (control ? port.control_octets : port.data_octets) -= p.size();
    if (!control) {
      auto f = port.flows.find({p.from.ip, p.from.port, p.to.ip, p.to.port});
      const auto flows = static_cast<std::uint32_t>(port.flows.size());
      if (--f->second == 0) port.flows.erase(f);
      if (crn) observe(id, p, occupancy_at_dequeue, flows);
    }
    port.busy = true;
    const Time done = clock + ref::transmission_time(p.size(), hosts[id].link.rate_mbps);
    schedule(done, PortDone{id, std::move(p)});
  }

  void observe(HostId port, const Packet& p, std::uint64_t occupancy, std::uint32_t flows) {
    ref::QueueObservation q;
    q.port = static_cast<std::uint16_t>(port + 1);
    q.occupancy = occupancy;
    q.dscp = p.dscp;
    q.flow = ref::FlowId{p.from, p.to, 17};
    q.flows_in_queue = flows;
    crn->on_dequeue(q, clock);
    while (auto d = crn->poll_transmit()) {
      if (auto m = decode(d->payload())) checker.on_control_sent(crn_addr, d->to, *m, clock);
      Packet r = make_packet(true, crn_addr, d->to, d->dscp, 0, d->payload(), 0);
      r.from_switch = true;
      ++in_flight;
      ++stats.control_sent;
      record(r, PacketRecord::Point::Sent);
      launch(std::move(r), Duration{});
    }
  }

  void port_done(HostId id, Packet p) {
    ports[id].busy = false;
    schedule(clock + hosts[id].link.delay, ArriveHost{std::move(p)});
    port_start(id);
  }

  void arrive_host(Packet p) {
    --in_flight;
    record(p, PacketRecord::Point::Delivered);
    fnv_u64(hash, static_cast<std::uint64_t>(clock.ns));
    fnv(hash, p.from.ip.data(), 4);
    fnv(hash, p.to.ip.data(), 4);
    fnv_u64(hash, (std::uint64_t{p.from.port} << 16U) | p.to.port);
    fnv(hash, p.bytes.data(),
        p.control ? p.bytes.size() : std::min<std::size_t>(p.bytes.size(), 96));
    Host& h = hosts[p.dst_host];
    if (p.control) {
      deliver_control(h, p);
    } else {
      deliver_data(h, p);
    }
  }

  // ---- events -------------------------------------------------------------------------

  void dispatch(std::uint64_t s) {
    auto node = bodies.extract(s);
    EventBody& body = node.mapped();
    ++stats.events_processed;
    if (auto* e = std::get_if<ArriveSwitch>(&body)) {
      arrive_switch(std::move(e->packet));
    } else if (auto* pd = std::get_if<PortDone>(&body)) {
      port_done(pd->port, std::move(pd->packet));
    } else if (auto* ah = std::get_if<ArriveHost>(&body)) {
      arrive_host(std::move(ah->packet));
    } else if (auto* nd = std::get_if<NicDone>(&body)) {
      Host& h = hosts[nd->host];
      auto pl = pending_launch.extract(s);
      h.nic_busy = false;
      launch(std::move(pl.mapped().first), pl.mapped().second);
      if (h.sender) {
        service(h, Role::Sender);
      } else {
        nic_start(h);
      }
    } else if (auto* tf = std::get_if<TimerFire>(&body)) {
      Host& h = hosts[tf->host];
      Timer& tm = tf->role == Role::Sender ? h.sender_timer : h.receiver_timer;
      if (!tm.armed || *tm.armed != tf->at) return;
      tm.armed.reset();
      tm.last_fired = clock;
      if (tf->role == Role::Sender) {
        if (!h.sender) return;
        h.sender->on_timeout(clock);
      } else {
        if (!h.receiver) return;
        h.receiver->on_timeout(clock);
      }
      service(h, tf->role);
    } else if (auto* se = std::get_if<SubmitEv>(&body)) {
      do_submit(se->id);
    } else if (auto* re = std::get_if<RestartEv>(&body)) {
      Host& h = hosts[re->host];
      ref::ReceiverConfig rc = *h.receiver_config;
      rc.epoch = re->epoch;
      log.on_event(ref::Event{
          clock, "sim", "receiver_restart", {{"host", h.addr.to_string()}, {"epoch", re->epoch}}});
      h.receiver = make_receiver(h, rc);
      h.responder = ref::Rocev2Responder{};
      h.opaque_ids.clear();
      h.delivered.clear();
      h.opaque_values.clear();
      h.early.clear();
      h.finished.clear();
      h.receiver_timer = Timer{};
      h.receiver_timer.last_fired = clock;
      service(h, Role::Receiver);
    } else if (auto* ae = std::get_if<ActionEv>(&body)) {
      ae->fn(self);
    } else if (auto* ie = std::get_if<InjectEv>(&body)) {
      Host& h = hosts[ie->host];
      Address from = h.addr;
      if (!ie->control) from.port = cfg.data_port;
      ++in_flight;
      Packet p = make_packet(ie->control, from, ie->to, ie->dscp, ie->ecn, ie->payload, h.ip_id++);
      (ie->control ? h.nic_control : h.nic_data).push_back(std::move(p));
      nic_start(h);
    }
  }

  [[nodiscard]] Submission* submission(SubmitId id) {
    return id >= forgotten && id - forgotten < subs.size() ? &subs[id - forgotten] : nullptr;
  }

  // The status of a message; a finished one's is kept here once seen, as the sender keeps
  // only a bounded number of them (SenderConfig::finished_status_capacity).
  std::optional<ref::MessageStatus> status(SubmitId id) {
    Submission* s = submission(id);
    if (s == nullptr) return std::nullopt;
    if (s->final) return s->final;
    if (!s->handle) return std::nullopt;
    auto st = hosts[s->host].sender->status(*s->handle);
    if (st && (st->state == ref::MessageState::Done || st->state == ref::MessageState::Aborted)) {
      s->final = st;
    }
    return st;
  }

  // Moves first_open past the finished messages; true when none is open.
  bool all_finished() {
    // A finished message stays finished: the walk resumes where the last one stopped, so a
    // long run's checks cost what is still open, not every message ever submitted.
    for (; first_open < forgotten + subs.size(); ++first_open) {
      auto st = status(first_open);
      if (!st ||
          (st->state != ref::MessageState::Done && st->state != ref::MessageState::Aborted)) {
        return false;
      }
    }
    return true;
  }

  // Drops the oldest finished submissions beyond NetworkConfig::finished_status_capacity.
  void forget_finished_submissions() {
    if (cfg.finished_status_capacity == std::numeric_limits<std::size_t>::max()) return;
    (void)all_finished();
    while (first_open - forgotten > cfg.finished_status_capacity) {
      if (subs.front().final->state != ref::MessageState::Done) ++forgotten_not_done;
      subs.pop_front();
      ++forgotten;
    }
  }

  void do_submit(SubmitId id) {
    Submission& s = *submission(id);
    Host& h = hosts[s.host];
    if (s.spec.binding == BindingKind::RoCEv2) plan_roce(h, s.spec);
    s.handle = h.sender->submit(s.spec, clock);
    service(h, Role::Sender);
  }

  void plan_roce(Host& h, ref::MessageSpec& spec) {
    Host* dst = host_of(spec.receiver);
    if (dst == nullptr) return;
    auto [it, fresh] = h.requesters.try_emplace(
        dst->id, static_cast<std::uint32_t>(0x000100U + h.id),
        static_cast<std::uint32_t>(mix(h.id) & kMax24), static_cast<std::uint32_t>(mix(h.id + 7)),
        0x10000000ULL * (dst->id + 1), cfg.rocev2_pmtu);
    (void)fresh;
    if (spec.binding_value != 0) {
      // The application planned it: keep its numbers.
      ref::Rocev2Plan plan;
      const Rocev2Binding b = unpack_rocev2(spec.binding_value);
      plan.binding_value = spec.binding_value;
      plan.message_count = b.message_count;
      plan.first_msn = b.first_msn;
      plan.post_unit = spec.post_unit;
      h.roce_plans[spec.binding_value] = RocePlanEntry{plan, spec.length, dst->id};
      return;
    }
    auto plan = it->second.plan_message(
        spec.length, spec.post_unit != 0 ? spec.post_unit : cfg.rdma_message_size);
    if (!plan) return;
    spec.binding_value = plan->binding_value;
    spec.post_unit = plan->post_unit;
    h.roce_plans[plan->binding_value] = RocePlanEntry{*plan, spec.length, dst->id};
  }

  bool step(Time limit) {
    if (heap.empty() || heap.top().t > limit) return false;
    const Scheduled s = heap.top();
    heap.pop();
    clock = s.t;
    dispatch(s.seq);
    return true;
  }
};

ref::CrnConfig crn_config_at(const NetworkConfig& cfg, Address local) {
  ref::CrnConfig cc = cfg.crn.value();
  cc.local = local;
  if (cc.rdcc_port == 0) cc.rdcc_port = cfg.rdcc_port;
  if (cc.queue_capacity == 0) cc.queue_capacity = static_cast<std::uint32_t>(cfg.queue.capacity);
  if (cc.queue_threshold == 0)
    cc.queue_threshold = static_cast<std::uint32_t>(cfg.queue.capacity / 4);
  if (cfg.unscheduled_dscp && cc.unscheduled_dscps.empty())
    cc.unscheduled_dscps.insert(*cfg.unscheduled_dscp);
  return cc;
}

Network::Network(std::uint64_t seed) : Network(NetworkConfig{.seed = seed}) {}
Network::Network(NetworkConfig config) : impl_(std::make_unique<Impl>(*this, std::move(config))) {}
Network::~Network() = default;

HostId Network::add_host(LinkConfig link) {
  return impl_->add_host(link);
}
HostId Network::add_receiver(ref::ReceiverConfig config, LinkConfig link,
                             std::shared_ptr<const ref::ReceiverPolicy> policy) {
  const HostId h = impl_->add_host(link);
  impl_->attach_receiver(h, std::move(config), std::move(policy));
  return h;
}
HostId Network::add_sender(ref::SenderConfig config, LinkConfig link,
                           std::shared_ptr<const ref::SenderPolicy> policy) {
  const HostId h = impl_->add_host(link);
  impl_->attach_sender(h, std::move(config), std::move(policy));
  return h;
}
void Network::attach_receiver(HostId host, ref::ReceiverConfig config,
                              std::shared_ptr<const ref::ReceiverPolicy> policy) {
  impl_->attach_receiver(host, std::move(config), std::move(policy));
}
void Network::attach_sender(HostId host, ref::SenderConfig config,
                            std::shared_ptr<const ref::SenderPolicy> policy) {
  impl_->attach_sender(host, std::move(config), std::move(policy));
}
Address Network::address(HostId host) const {
  return impl_->hosts.at(host).addr;
}
std::size_t Network::host_count() const {
  return impl_->hosts.size();
}

SubmitId Network::submit(HostId sender, ref::MessageSpec spec, Time at) {
  impl_->forget_finished_submissions();
  const SubmitId id = impl_->forgotten + impl_->subs.size();
  impl_->subs.push_back(Submission{sender, spec, at, std::nullopt});
  impl_->schedule(std::max(at, impl_->clock), SubmitEv{id});
  return id;
}
SubmitId Network::submit(HostId sender, HostId receiver, std::uint64_t length, Time at,
                         rdcc::BindingKind binding) {
  ref::MessageSpec spec;
  spec.receiver = address(receiver);
  spec.length = length;
  spec.binding = binding;
  return submit(sender, spec, at);
}
void Network::cancel(SubmitId id, Time at) {
  impl_->schedule(std::max(at, impl_->clock), ActionEv{[id](Network& n) {
                    Impl& s = *n.impl_;
                    const Submission* sub = s.submission(id);
                    if (sub == nullptr || !sub->handle) return;  // unknown, or long finished
                    Host& h = s.hosts[sub->host];
                    h.sender->cancel(*sub->handle, s.clock);
                    s.service(h, Role::Sender);
                  }});
}
void Network::return_credit(SubmitId id, std::uint64_t new_limit, Time at) {
  impl_->schedule(std::max(at, impl_->clock), ActionEv{[id, new_limit](Network& n) {
                    Impl& s = *n.impl_;
                    const Submission* sub = s.submission(id);
                    if (sub == nullptr || !sub->handle) return;  // unknown, or long finished
                    Host& h = s.hosts[sub->host];
                    h.sender->return_credit(*sub->handle, new_limit, s.clock);
                    s.service(h, Role::Sender);
                  }});
}
std::optional<ref::MessageStatus> Network::status(SubmitId id) const {
  return impl_->status(id);
}
std::size_t Network::submitted() const {
  return impl_->forgotten + impl_->subs.size();
}
bool Network::all_done() const {
  if (impl_->forgotten_not_done != 0) return false;
  for (SubmitId i = impl_->forgotten; i < submitted(); ++i) {
    auto st = status(i);
    if (!st || st->state != ref::MessageState::Done) return false;
  }
  return true;
}
bool Network::all_finished() const {
  return impl_->all_finished();
}

void Network::restart_receiver(HostId host, std::uint16_t epoch, Time at) {
  impl_->schedule(at, RestartEv{host, epoch});
}
void Network::inject(HostId from, const Address& to, std::vector<std::byte> udp_payload, Time at,
                     bool control, std::uint8_t dscp, std::uint8_t ecn) {
  impl_->schedule(std::max(at, impl_->clock),
                  InjectEv{from, to, std::move(udp_payload), control, dscp, ecn});
}
void Network::at(Time t, std::function<void(Network&)> action) {
  impl_->schedule(t, ActionEv{std::move(action)});
}

void Network::run_until(Time t) {
  while (impl_->step(t)) {
  }
  impl_->clock = std::max(impl_->clock, t);
}
bool Network::run_until_done(Time limit) {
  // Check completion only after events that could finish a message, cheaply: every 64 steps.
  std::uint64_t n = 0;
  while (true) {
    if ((n++ & 63U) == 0 && impl_->in_flight == 0 && all_finished()) return true;
    if (!impl_->step(limit)) break;
  }
  return all_finished();
}
void Network::run_until_idle(Time limit) {
  while (impl_->step(limit)) {
  }
}
Time Network::now() const {
  return impl_->clock;
}

checker::InvariantChecker& Network::checker() {
  return impl_->checker;
}
const ref::EventLog& Network::events() const {
  return impl_->log;
}
const std::vector<PacketRecord>& Network::packets() const {
  return impl_->records;
}
const NetworkStats& Network::stats() const {
  return impl_->stats;
}
NetworkConfig& Network::config() {
  return impl_->cfg;
}

std::uint64_t Network::trace_hash() const {
  return sim::trace_hash(impl_->hash, impl_->log);
}

ref::Sender* Network::sender(HostId host) {
  return impl_->hosts.at(host).sender.get();
}
ref::Receiver* Network::receiver(HostId host) {
  return impl_->hosts.at(host).receiver.get();
}
ref::Crn* Network::crn() {
  return impl_->crn.get();
}
const ref::Rocev2Responder* Network::rocev2_responder(HostId host) const {
  return &impl_->hosts.at(host).responder;
}
std::uint64_t Network::peak_queue(HostId host) const {
  return impl_->ports.at(host).peak_data;
}
std::uint64_t Network::queue_octets(HostId host) const {
  return impl_->ports.at(host).data_octets;
}

}  // namespace rdcc::sim
