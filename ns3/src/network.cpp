// The RDCC side of the ns-3 engine (network.hpp): the reference endpoints behind the ns-3
// Applications of fabric.hpp, driven as io.hpp documents and as reference/sim drives them.
#include "rdcc/ns3/network.hpp"

#include <algorithm>
#include <array>
#include <cassert>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <map>
#include <stdexcept>
#include <tuple>
#include <utility>
#include <vector>

#include "fabric.hpp"
#include "rdcc/codec/codec.hpp"
#include "rdcc/reference/bindings.hpp"
#include "rdcc/reference/crn.hpp"
#include "rdcc/sim/driver.hpp"

namespace rdcc::ns3sim {
namespace {

namespace fab = ns3fabric;
using sim::fnv;
using sim::kFnvOffset;

constexpr int kSenderSlot = 0;
constexpr int kReceiverSlot = 1;
constexpr std::uint32_t kTenSlashEight = 0x0a000000U;
constexpr std::size_t kIpUdpOverhead = 28;

Address address_of(std::uint32_t ip, std::uint16_t port) {
  return Address::v4(static_cast<std::uint8_t>(ip >> 24U), static_cast<std::uint8_t>(ip >> 16U),
                     static_cast<std::uint8_t>(ip >> 8U), static_cast<std::uint8_t>(ip), port);
}
std::uint32_t ip_of(const Address& a) {
  return (std::uint32_t{a.ip[0]} << 24U) | (std::uint32_t{a.ip[1]} << 16U) |
         (std::uint32_t{a.ip[2]} << 8U) | a.ip[3];
}
std::span<const std::byte> bytes_of(const fab::Datagram& d) {
  return {reinterpret_cast<const std::byte*>(d.bytes), d.size};  // NOLINT: the octets as std::byte
}
const std::uint8_t* octets(std::span<const std::byte> b) {
  return reinterpret_cast<const std::uint8_t*>(b.data());  // NOLINT: the octets as uint8_t
}

enum class Role : std::uint8_t { Sender, Receiver };

struct Timer {
  Time last_fired{-1};
  bool deferred = false;  // due while the NIC was busy: fires when the NIC is idle
};

struct Submission {
  HostId host = 0;
  ref::MessageSpec spec;
  std::optional<ref::MessageHandle> handle;
};

}  // namespace

struct Network::Impl {
  // One host's endpoints, behind its ns-3 Application.
  struct Host final : fab::Endpoint {
    Impl* net = nullptr;
    HostId id = 0;
    Address addr;
    LinkConfig link;
    std::optional<ref::ReceiverConfig> receiver_config;
    std::shared_ptr<const ref::ReceiverPolicy> receiver_policy;
    std::optional<ref::SenderConfig> sender_config;
    std::shared_ptr<const ref::SenderPolicy> sender_policy;  // none: the reference's
    std::unique_ptr<ref::SeededRandom> sender_random;
    std::unique_ptr<ref::Sender> sender;
    Address sender_addr;  // the sender's RDCC address: addr, or another port beside a receiver
    std::unique_ptr<ref::SeededRandom> receiver_random;
    std::unique_ptr<ref::Receiver> receiver;
    std::array<Timer, 2> timers;
    std::map<std::tuple<IpAddress, std::uint16_t, std::uint64_t>, std::uint64_t> opaque_ids;
    fab::AppId app = 0;

    void on_datagram(const fab::Datagram& d) override { net->deliver(*this, d); }
    void on_timer(int slot) override {
      net->fire(*this, slot == kSenderSlot ? Role::Sender : Role::Receiver);
    }
    void on_nic_idle() override { net->nic_idle(*this); }
  };

  // A switch's CRN, behind its ns-3 Application (it only sends).
  struct Switch final : fab::Endpoint {
    Address addr;
    std::unique_ptr<ref::Crn> crn;
    fab::AppId app = 0;
    void on_datagram(const fab::Datagram& /*d*/) override {}
    void on_timer(int /*slot*/) override {}
    void on_nic_idle() override {}
  };

  Network& self;
  sim::NetworkConfig cfg;
  Topology topology;
  ref::EventLog log;
  checker::InvariantChecker checker;
  std::vector<std::unique_ptr<Host>> hosts;
  std::vector<std::unique_ptr<Switch>> switches;
  std::vector<Submission> subs;
  std::size_t first_unfinished = 0;
  std::vector<std::pair<Time, std::function<void()>>> before_build;
  std::unique_ptr<fab::Fabric> fabric;
  std::string pcap_file;
  sim::NetworkStats stats;
  std::uint64_t hash = kFnvOffset;
  std::vector<std::byte> scratch;

  Impl(Network& n, sim::NetworkConfig c, Topology t) : self(n), cfg(std::move(c)), topology(t) {
    const auto any = [](const sim::Impairments& m) {
      return m.loss > 0 || m.duplicate > 0 || m.reorder > 0 || m.delay > 0;
    };
    if (any(cfg.control) || any(cfg.data)) {
      throw std::invalid_argument(
          "impairments: not modelled by the ns-3 engine (use --engine sim)");
    }
    if (const char* every = std::getenv(
            "RDCC_NS3_PROGRESS")) {  // NOLINT(concurrency-mt-unsafe): read once, before any run
      char* end = nullptr;
      progress.every_s = std::strtod(every, &end);
      if (end == every || *end != '\0' || !(progress.every_s > 0)) {
        throw std::invalid_argument(std::string("RDCC_NS3_PROGRESS: '") + every +
                                    "' is not a number of seconds above 0");
      }
    }
  }

  ref::Observer* observer() { return cfg.record_events ? &log : nullptr; }
  Time clock() const { return fabric ? Time{fabric->now_ns()} : Time{}; }

  // ---- hosts ---------------------------------------------------------------------------

  // Host i sits on the i-th /30 of 10.0.0.0/8, at its first address (fabric.cpp assigns the
  // host links first, in order; checked when the fabric is built).
  static Address host_address(HostId id, std::uint16_t port) {
    return address_of(kTenSlashEight + 4U * static_cast<std::uint32_t>(id) + 1U, port);
  }

  HostId add_host(LinkConfig link) {
    if (fabric) throw std::logic_error("ns-3 engine: hosts are added before the first run");
    auto h = std::make_unique<Host>();
    h->net = this;
    h->id = hosts.size();
    h->addr = host_address(h->id, cfg.rdcc_port);
    h->link = link;
    hosts.push_back(std::move(h));
    return hosts.back()->id;
  }

  void attach_receiver(HostId id, ref::ReceiverConfig rc,
                       std::shared_ptr<const ref::ReceiverPolicy> policy) {
    Host& h = *hosts.at(id);
    rc.local = h.addr;
    h.receiver_config = rc;
    h.receiver_policy = std::move(policy);
    checker.add_receiver(h.addr, rc.budget, rc.d_max);
  }

  void attach_sender(HostId id, ref::SenderConfig sc,
                     std::shared_ptr<const ref::SenderPolicy> policy) {
    Host& h = *hosts.at(id);
    sc.local = h.addr;
    if (h.receiver_config)
      sc.local.port = sim::dual_role_sender_port(cfg.dual_role_sender_port, cfg.rdcc_port);
    h.sender_addr = sc.local;
    if (cfg.unscheduled_dscp && !sc.unscheduled_dscp) sc.unscheduled_dscp = cfg.unscheduled_dscp;
    h.sender_config = sc;
    h.sender_policy = std::move(policy);
  }

  std::vector<Address> crn_addresses() const {
    std::vector<Address> out;
    for (const auto& s : switches) out.push_back(s->addr);
    return out;
  }

  std::unique_ptr<ref::Receiver> make_receiver(Host& h, std::uint16_t epoch) {
    ref::ReceiverConfig rc = *h.receiver_config;
    rc.epoch = epoch;
    for (const Address& a : crn_addresses()) {
      if (std::find(rc.crn_addresses.begin(), rc.crn_addresses.end(), a) ==
          rc.crn_addresses.end()) {
        rc.crn_addresses.push_back(a);
      }
    }
    h.receiver_config = rc;
    h.receiver_random =
        std::make_unique<ref::SeededRandom>(sim::receiver_seed(cfg.seed, h.id, epoch));
    return std::make_unique<ref::Receiver>(rc, observer(), h.receiver_random.get(),
                                           h.receiver_policy);
  }

  void make_sender(Host& h) {
    ref::SenderConfig sc = *h.sender_config;
    for (const Address& a : crn_addresses()) {
      if (std::find(sc.crn_addresses.begin(), sc.crn_addresses.end(), a) ==
          sc.crn_addresses.end()) {
        sc.crn_addresses.push_back(a);
      }
    }
    h.sender_random = std::make_unique<ref::SeededRandom>(sim::sender_seed(cfg.seed, h.id));
    h.sender = std::make_unique<ref::Sender>(sc, *h.sender_random, observer(), h.sender_policy);
  }

  // ---- the ns-3 fabric, built at the first run ------------------------------------------

  fab::FabricSpec fabric_spec() const {
    const auto link = [](const LinkConfig& l) {
      return fab::LinkSpec{std::uint64_t{l.rate_mbps} * 1'000'000U, l.delay.ns};
    };
    fab::FabricSpec s;
    s.kind = topology.kind == Topology::Kind::Star ? fab::FabricSpec::Kind::Star
                                                   : fab::FabricSpec::Kind::LeafSpine;
    for (const auto& h : hosts) s.host_links.push_back(link(h->link));
    s.leaves = topology.leaves;
    s.spines = topology.spines;
    s.hosts_per_leaf = topology.hosts_per_leaf;
    s.fabric_link = link(topology.fabric_link);
    s.ecmp = topology.ecmp;
    s.stack_forwarding = topology.stack_forwarding;
    s.queue_capacity = cfg.queue.capacity;
    s.ecn_threshold = cfg.queue.ecn_threshold.value_or(0);
    s.control_port = cfg.rdcc_port;
    for (const auto& h : hosts) {
      if (h->sender_config && h->sender_addr.port != cfg.rdcc_port)
        s.sender_port = h->sender_addr.port;
    }
    s.run = cfg.seed;
    // Room for the largest Credit Unit in one datagram: data is never fragmented.
    std::uint64_t largest = 0;
    for (const auto& h : hosts) {
      if (h->receiver_config)
        largest = std::max<std::uint64_t>(largest, h->receiver_config->credit_unit);
      if (h->sender_config)
        largest = std::max<std::uint64_t>(largest, h->sender_config->default_credit_unit);
    }
    const std::uint64_t mtu =
        std::max<std::uint64_t>(9000, largest + ref::kOpaqueHeaderSize + kIpUdpOverhead);
    if (mtu > 65535)
      throw std::invalid_argument(
          "ns-3 engine: a Credit Unit above 65,479 octets does not fit a datagram");
    s.mtu = static_cast<std::uint32_t>(mtu);
    return s;
  }

  void build() {
    if (fabric) return;
    fabric = std::make_unique<fab::Fabric>(fabric_spec());
    for (const auto& h : hosts) {
      if (fabric->host_ip(h->id) != ip_of(h->addr)) {
        throw std::logic_error("ns-3 engine: host " + std::to_string(h->id) +
                               " got an unexpected address");
      }
    }
    if (cfg.crn) {
      for (std::size_t i = 0; i < fabric->switches(); ++i) {
        auto sw = std::make_unique<Switch>();
        sw->addr = address_of(fabric->switch_ip(i), cfg.rdcc_port);
        sw->crn = std::make_unique<ref::Crn>(sim::crn_config_at(cfg, sw->addr), observer());
        sw->app = fabric->attach_switch(i, sw.get(), cfg.rdcc_port);
        switches.push_back(std::move(sw));
      }
      fabric->on_data_dequeue([this](const fab::DequeueSample& s) { observe(s); });
    }
    for (auto& h : hosts) {
      if (h->receiver_config) h->receiver = make_receiver(*h, h->receiver_config->epoch);
      if (h->sender_config) make_sender(*h);
      const std::uint16_t second =
          h->sender && h->sender_addr.port != cfg.rdcc_port ? h->sender_addr.port : 0;
      h->app = fabric->attach_host(h->id, h.get(), {cfg.rdcc_port, second, cfg.data_port});
    }
    if (!pcap_file.empty()) fabric->enable_pcap(pcap_file);
    for (auto& [t, fn] : before_build) fabric->schedule(t.ns, std::move(fn));
    before_build.clear();
  }

  void schedule(Time t, std::function<void()> fn) {
    if (fabric) {
      fabric->schedule(t.ns, std::move(fn));
    } else {
      before_build.emplace_back(t, std::move(fn));
    }
  }

  // ---- the sans-IO loop (io.hpp) --------------------------------------------------------

  void send_control(fab::AppId app, fab::Fabric::Socket socket, const Address& from,
                    const ref::Datagram& d) {
    if (auto m = decode(d.payload())) checker.on_control_sent(from, d.to, *m, clock());
    ++stats.control_sent;
    const auto payload = d.payload();
    fabric->send(app, socket, ip_of(d.to), d.to.port, static_cast<std::uint8_t>(d.dscp << 2U),
                 octets(payload), payload.size(), 0);
  }

  void send_segment(Host& h, const ref::DataSegment& s) {
    checker.on_segment_sent(h.sender_addr, s, clock());
    // Opaque binding over UDP; the payload octets are zero (docs/data-transport.md).
    scratch.assign(ref::kOpaqueHeaderSize + s.length, std::byte{0});
    const std::span<const std::byte> zeros(scratch.data() + ref::kOpaqueHeaderSize, s.length);
    auto n = ref::encode_opaque(ref::opaque_header_for(s), zeros, scratch);
    assert(n);
    (void)n;
    const std::uint8_t ecn = cfg.ecn_capable ? ref::kEcnEct0 : ref::kEcnNotEct;
    ++stats.data_packets_sent;
    fabric->send(h.app, fab::Fabric::kData, ip_of(s.receiver), cfg.data_port,
                 static_cast<std::uint8_t>((s.dscp << 2U) | ecn), octets(scratch),
                 ref::kOpaqueHeaderSize, s.length);
  }

  void drain_transmit(Host& h, Role role) {
    if (role == Role::Sender) {
      const auto socket =
          h.sender_addr.port == cfg.rdcc_port ? fab::Fabric::kControl : fab::Fabric::kSender;
      while (auto d = h.sender->poll_transmit()) send_control(h.app, socket, h.sender_addr, *d);
    } else {
      while (auto d = h.receiver->poll_transmit())
        send_control(h.app, fab::Fabric::kControl, h.addr, *d);
    }
  }

  void rearm(Host& h, Role role) {
    const int slot = role == Role::Sender ? kSenderSlot : kReceiverSlot;
    Timer& tm = h.timers[static_cast<std::size_t>(slot)];
    const std::optional<Time> nt =
        role == Role::Sender ? h.sender->next_timeout() : h.receiver->next_timeout();
    if (!nt) {
      fabric->cancel_timer(h.app, slot);
      return;
    }
    Time t = std::max(role == Role::Sender ? *nt + cfg.sender_timer_lateness : *nt, clock());
    // A sender due while its NIC is busy is woken when the NIC is idle (reference/sim moves its
    // timer to the end of the serialization); no endpoint is woken twice at one instant.
    if (role == Role::Sender && !fabric->nic_idle(h.app) && t <= clock()) {
      fabric->cancel_timer(h.app, slot);
      tm.deferred = true;
      return;
    }
    if (t <= tm.last_fired) t = tm.last_fired + ref::nanoseconds(1);
    fabric->arm_timer(h.app, slot, t.ns);
  }

  void service(Host& h, Role role) {
    drain_transmit(h, role);
    if (role == Role::Sender && fabric->nic_idle(h.app)) {
      if (auto seg = h.sender->poll_data(clock())) {
        send_segment(h, *seg);
        drain_transmit(h, role);
      }
    }
    rearm(h, role);
  }

  void fire(Host& h, Role role) {
    Timer& tm = h.timers[role == Role::Sender ? 0U : 1U];
    tm.last_fired = clock();
    tm.deferred = false;
    if (role == Role::Sender) {
      if (!h.sender) return;
      h.sender->on_timeout(clock());
    } else {
      if (!h.receiver) return;
      h.receiver->on_timeout(clock());
    }
    service(h, role);
  }

  void nic_idle(Host& h) {
    if (!h.sender) return;
    if (h.timers[kSenderSlot].deferred) {
      fire(h, Role::Sender);
    } else {
      service(h, Role::Sender);
    }
  }

  // ---- delivery -------------------------------------------------------------------------

  void hash_delivery(const fab::Datagram& d, bool control) {
    const std::uint64_t t = static_cast<std::uint64_t>(clock().ns);
    fnv(hash, &t, sizeof t);
    const std::array<std::uint32_t, 4> ends{d.from_ip, d.to_ip, d.from_port, d.to_port};
    fnv(hash, ends.data(), sizeof ends);
    fnv(hash, d.bytes, control ? d.size : std::min<std::size_t>(d.size, 68));
  }

  void deliver(Host& h, const fab::Datagram& d) {
    const bool control = d.to_port != cfg.data_port;
    hash_delivery(d, control);
    if (control) {
      deliver_control(h, d);
    } else {
      deliver_data(h, d);
    }
  }

  void deliver_control(Host& h, const fab::Datagram& d) {
    const Address from = address_of(d.from_ip, d.from_port);
    const auto dgram = bytes_of(d);
    ++stats.control_delivered;
    auto m = decode(dgram);
    if (m) checker.on_control_delivered(from, address_of(d.to_ip, d.to_port), *m, clock());
    const sim::Recipients to =
        sim::recipients_of(m ? &*m : nullptr, h.sender != nullptr, h.receiver != nullptr);
    if (to.receiver && m) {
      // The receiver's binding learns the transport identity of each message from its request.
      if (const auto* r = std::get_if<CreditRequest>(&*m)) {
        h.opaque_ids[{from.ip, from.port, r->binding_value}] = r->message_id;
      }
    }
    if (to.receiver) {
      h.receiver->on_control(from, dgram, clock());
      service(h, Role::Receiver);
    }
    if (to.sender) {
      h.sender->on_control(from, dgram, clock());
      service(h, Role::Sender);
    }
  }

  void deliver_data(Host& h, const fab::Datagram& d) {
    if (!h.receiver) return;
    auto op = ref::decode_opaque(bytes_of(d));
    if (!op) {
      ++stats.decode_failures;
      return;
    }
    // The data comes from the sender's data port; the receiver knows the sender by its RDCC
    // address.
    const Address from = sender_of(d.from_ip);
    const bool ce = (d.tos & 3U) == ref::kEcnCe;
    const bool unsched = cfg.unscheduled_dscp && (d.tos >> 2U) == *cfg.unscheduled_dscp;
    const ref::DataObservation obs = ref::observe_opaque(op->header, from, ce, unsched);
    auto it = h.opaque_ids.find({from.ip, from.port, op->header.message_identifier});
    const std::uint64_t message_id =
        it != h.opaque_ids.end() ? it->second : op->header.message_identifier;
    ++stats.data_packets_delivered;
    stats.data_octets_delivered += obs.octets;
    checker.on_data_delivered(h.addr, from, message_id, obs.octets, clock());
    h.receiver->on_data(obs, clock());
    service(h, Role::Receiver);
  }

  Address sender_of(std::uint32_t ip) const {
    const std::uint32_t i = (ip - kTenSlashEight - 1U) / 4U;
    if (i < hosts.size() && hosts[i]->sender) return hosts[i]->sender_addr;
    return address_of(ip, cfg.rdcc_port);
  }

  // ---- the CRNs: every data packet leaving a switch's data queue ------------------------

  void observe(const fab::DequeueSample& s) {
    Switch& sw = *switches.at(s.switch_index);
    ref::QueueObservation q;
    q.port = s.port;
    q.occupancy = s.occupancy;
    q.dscp = s.dscp;
    q.flow = ref::FlowId{address_of(s.src_ip, s.src_port), address_of(s.dst_ip, s.dst_port), 17};
    q.flows_in_queue = s.flows;
    sw.crn->on_dequeue(q, clock());
    while (auto d = sw.crn->poll_transmit())
      send_control(sw.app, fab::Fabric::kControl, sw.addr, *d);
  }

  // ---- actions --------------------------------------------------------------------------

  void do_submit(SubmitId id) {
    Submission& s = subs[id];
    Host& h = *hosts[s.host];
    s.handle = h.sender->submit(s.spec, clock());
    service(h, Role::Sender);
  }

  void restart(HostId id, std::uint16_t epoch) {
    Host& h = *hosts.at(id);
    log.on_event(ref::Event{
        clock(), "sim", "receiver_restart", {{"host", h.addr.to_string()}, {"epoch", epoch}}});
    h.receiver = make_receiver(h, epoch);
    h.opaque_ids.clear();
    h.timers[kReceiverSlot] = Timer{};
    h.timers[kReceiverSlot].last_fired = clock();
    service(h, Role::Receiver);
  }

  [[nodiscard]] bool finished(SubmitId i) const {
    const Submission& s = subs[i];
    if (!s.handle) return false;
    const auto st = hosts[s.host]->sender->status(*s.handle);
    return st && (st->state == ref::MessageState::Done || st->state == ref::MessageState::Aborted);
  }

  // RDCC_NS3_PROGRESS=SECONDS: a line on stderr every SECONDS of wall time while a run goes on
  // (virtual time, ns-3 events, CPU and wall seconds, messages finished), for runs too long to
  // wait for blind (docs/ns3.md, the 1,024-host all-to-all). Read once, at construction.
  struct Progress {
    double every_s = 0;  // 0: off
    std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
    std::chrono::steady_clock::time_point next = start;
  } progress;

  void report_progress() {
    const auto now = std::chrono::steady_clock::now();
    if (progress.every_s <= 0 || now < progress.next) return;
    progress.next = now + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                              std::chrono::duration<double>(progress.every_s));
    std::size_t done = 0;
    for (std::size_t i = 0; i < subs.size(); ++i) done += finished(i) ? 1U : 0U;
    std::fprintf(stderr,
                 "ns-3 progress: virtual %.3f us, %llu events, %.1f s CPU, %.1f s wall, %zu of %zu "
                 "messages finished\n",
                 static_cast<double>(clock().ns) / 1000.0,
                 static_cast<unsigned long long>(fabric->stats().events),
                 static_cast<double>(std::clock()) / CLOCKS_PER_SEC,
                 std::chrono::duration<double>(now - progress.start).count(), done, subs.size());
  }

  // Finished messages stay finished: the scan resumes where it stopped.
  bool all_finished() {
    while (first_unfinished < subs.size() && finished(first_unfinished)) ++first_unfinished;
    return first_unfinished == subs.size();
  }
};

Network::Network(sim::NetworkConfig config, Topology topology)
    : impl_(std::make_unique<Impl>(*this, std::move(config), topology)) {}
Network::~Network() = default;

HostId Network::add_host(LinkConfig link) {
  return impl_->add_host(link);
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
  return impl_->hosts.at(host)->addr;
}
std::size_t Network::host_count() const {
  return impl_->hosts.size();
}

SubmitId Network::submit(HostId sender, ref::MessageSpec spec, Time at) {
  if (spec.binding != BindingKind::Opaque) {
    throw std::invalid_argument(
        "binding rocev2: not modelled by the ns-3 engine (use --engine sim)");
  }
  if (!impl_->hosts.at(sender)->sender_config)
    throw std::invalid_argument("submit: the host has no sender");
  const SubmitId id = impl_->subs.size();
  impl_->subs.push_back(Submission{sender, spec, std::nullopt});
  impl_->schedule(std::max(at, now()), [this, id] { impl_->do_submit(id); });
  return id;
}
void Network::cancel(SubmitId id, Time at) {
  impl_->schedule(std::max(at, now()), [this, id] {
    Impl& s = *impl_;
    const Submission& sub = s.subs.at(id);
    if (!sub.handle) return;
    Impl::Host& h = *s.hosts[sub.host];
    h.sender->cancel(*sub.handle, s.clock());
    s.service(h, Role::Sender);
  });
}
std::optional<ref::MessageStatus> Network::status(SubmitId id) const {
  const Submission& s = impl_->subs.at(id);
  if (!s.handle) return std::nullopt;
  return impl_->hosts[s.host]->sender->status(*s.handle);
}
std::size_t Network::submitted() const {
  return impl_->subs.size();
}
bool Network::all_finished() const {
  return impl_->all_finished();
}
void Network::restart_receiver(HostId host, std::uint16_t epoch, Time at) {
  impl_->schedule(at, [this, host, epoch] { impl_->restart(host, epoch); });
}
void Network::at(Time t, std::function<void(Network&)> action) {
  impl_->schedule(t, [this, action = std::move(action)] { action(*this); });
}
void Network::write_pcap(const std::string& file) {
  if (impl_->fabric) throw std::logic_error("ns-3 engine: the pcap is chosen before the first run");
  impl_->pcap_file = file;
}

bool Network::run_until_done(Time limit) {
  impl_->build();
  // Asked every microsecond of virtual time: the message times come from the senders, so the
  // check only decides when the run stops.
  impl_->fabric->run(limit.ns, 1000, [this] {
    impl_->report_progress();
    return impl_->all_finished();
  });
  return impl_->all_finished();
}
void Network::run_until_idle(Time limit) {
  impl_->build();
  impl_->fabric->run(limit.ns, 0, nullptr);
}
Time Network::now() const {
  return impl_->clock();
}

checker::InvariantChecker& Network::checker() {
  return impl_->checker;
}
const ref::EventLog& Network::events() const {
  return impl_->log;
}
const sim::NetworkStats& Network::stats() const {
  sim::NetworkStats& s = impl_->stats;
  if (impl_->fabric) {
    const fab::FabricStats f = impl_->fabric->stats();
    s.tail_drops = f.tail_drops;
    s.ecn_marked = f.ecn_marked;
    s.events_processed = f.events;
  }
  return s;
}
sim::NetworkConfig& Network::config() {
  return impl_->cfg;
}
std::uint64_t Network::trace_hash() const {
  return sim::trace_hash(impl_->hash, impl_->log);
}
ref::Receiver* Network::receiver(HostId host) {
  return impl_->hosts.at(host)->receiver.get();
}
std::uint64_t Network::peak_queue(HostId host) const {
  return impl_->fabric ? impl_->fabric->peak_queue(host) : 0;
}
std::uint64_t Network::queue_octets(HostId host) const {
  return impl_->fabric ? impl_->fabric->queue_octets(host) : 0;
}

}  // namespace rdcc::ns3sim
