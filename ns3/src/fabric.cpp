// The ns-3 side of the ns-3 engine (fabric.hpp): the topology of point-to-point links, the
// internet stack, the queue discs of every switch port and the Applications whose UDP
// sockets carry the RDCC datagrams and the opaque data transport. Built as C++17 (fabric.hpp).
#include "fabric.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "ns3/application.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/ipv4-queue-disc-item.h"
#include "ns3/ipv4-route.h"
#include "ns3/ipv4-routing-protocol.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/ppp-header.h"
#include "ns3/traffic-control-module.h"

// ns-3's Time(int64) counts nanoseconds: its default resolution, which nothing here changes.
namespace rdcc::ns3fabric {
namespace {

// Puts the RDCC datagrams (either port is the RDCC port) in band 0 of a PrioQueueDisc, above
// the data in band 1: the strict priority of control over data of reference/sim's ports.
class ControlFilter : public ns3::PacketFilter {
 public:
  static ns3::TypeId GetTypeId() {
    static ns3::TypeId tid =
        ns3::TypeId("rdcc::ControlFilter")
            .SetParent<ns3::PacketFilter>()
            .SetGroupName("TrafficControl")
            .AddConstructor<ControlFilter>()
            .AddAttribute("Port", "The RDCC port", ns3::UintegerValue(0),
                          ns3::MakeUintegerAccessor(&ControlFilter::port_),
                          ns3::MakeUintegerChecker<std::uint16_t>())
            .AddAttribute("SenderPort", "A second RDCC port (0: none)", ns3::UintegerValue(0),
                          ns3::MakeUintegerAccessor(&ControlFilter::sender_port_),
                          ns3::MakeUintegerChecker<std::uint16_t>());
    return tid;
  }

 private:
  bool CheckProtocol(ns3::Ptr<ns3::QueueDiscItem> item) const override {
    return ns3::DynamicCast<ns3::Ipv4QueueDiscItem>(item) != nullptr;
  }
  std::int32_t DoClassify(ns3::Ptr<ns3::QueueDiscItem> item) const override {
    auto ip = ns3::DynamicCast<ns3::Ipv4QueueDiscItem>(item);
    if (ip->GetHeader().GetProtocol() != ns3::UdpL4Protocol::PROT_NUMBER) return 1;
    ns3::UdpHeader udp;
    if (item->GetPacket()->PeekHeader(udp) == 0) return 1;
    const auto rdcc = [this](std::uint16_t p) {
      return p == port_ || (sender_port_ != 0 && p == sender_port_);
    };
    return rdcc(udp.GetSourcePort()) || rdcc(udp.GetDestinationPort()) ? 0 : 1;
  }
  std::uint16_t port_ = 0;
  std::uint16_t sender_port_ = 0;
};

// One node's RDCC endpoints as an ns-3 Application: the sockets, the timer, and the count of
// packets handed to the NIC and not yet on the wire (the sender polls data only when none is).
class RdccApplication : public ns3::Application {
 public:
  static ns3::TypeId GetTypeId() {
    static ns3::TypeId tid = ns3::TypeId("rdcc::RdccApplication")
                                 .SetParent<ns3::Application>()
                                 .SetGroupName("Applications");
    return tid;
  }

  void setup(Endpoint* e, ns3::Ipv4Address bind_ip, const std::array<std::uint16_t, 3>& ports) {
    endpoint_ = e;
    local_ip_ = GetNode()->GetObject<ns3::Ipv4>()->GetAddress(1, 0).GetLocal().Get();
    for (std::size_t i = 0; i < ports.size(); ++i) {
      if (ports[i] != 0) sockets_[i] = open(bind_ip, ports[i]);
    }
    ports_ = ports;
  }

  void send(Fabric::Socket from, ns3::Ipv4Address to, std::uint16_t port, std::uint8_t tos,
            const std::uint8_t* head, std::size_t n, std::size_t zero_fill) {
    ns3::Ptr<ns3::Packet> p = ns3::Create<ns3::Packet>(head, static_cast<std::uint32_t>(n));
    if (zero_fill > 0) p->AddAtEnd(ns3::Create<ns3::Packet>(static_cast<std::uint32_t>(zero_fill)));
    ns3::Ptr<ns3::Socket> s = sockets_.at(from);
    if (s == nullptr) throw std::logic_error("ns-3: the application has no such socket");
    // ns-3's UDP socket takes the IPv4 TOS octet (DSCP and ECN) from the destination address.
    ns3::InetSocketAddress dest(to, port);
    dest.SetTos(tos);
    ++unsent_;
    if (s->SendTo(p, 0, dest) < 0) --unsent_;
  }

  void arm(int slot, std::int64_t at_ns) {
    Timer& t = timers_.at(static_cast<std::size_t>(slot));
    const std::int64_t now = ns3::Simulator::Now().GetNanoSeconds();
    if (t.event.IsRunning() && t.at == at_ns) return;
    t.event.Cancel();
    t.at = at_ns;
    t.event = ns3::Simulator::Schedule(ns3::Time(std::max<std::int64_t>(0, at_ns - now)),
                                       &RdccApplication::fire, this, slot);
  }
  void disarm(int slot) { timers_.at(static_cast<std::size_t>(slot)).event.Cancel(); }
  [[nodiscard]] bool nic_idle() const { return unsent_ == 0; }

  // The NIC finished serializing a packet. The endpoint is served in an event of its own: the
  // device is still inside its transmit-complete path here.
  // By value: a trace sink's signature must be the trace source's exactly (ns-3 Callback).
  void transmitted(
      ns3::Ptr<const ns3::Packet> /*p*/) {  // NOLINT(performance-unnecessary-value-param)
    if (unsent_ > 0 && --unsent_ == 0) {
      ns3::Simulator::ScheduleNow(&RdccApplication::idle, this);
    }
  }

 private:
  ns3::Ptr<ns3::Socket> open(ns3::Ipv4Address ip, std::uint16_t port) {
    ns3::Ptr<ns3::Socket> s =
        ns3::Socket::CreateSocket(GetNode(), ns3::UdpSocketFactory::GetTypeId());
    if (s->Bind(ns3::InetSocketAddress(ip, port)) != 0) {
      throw std::runtime_error("ns-3: cannot bind UDP port " + std::to_string(port));
    }
    s->SetIpRecvTos(true);
    s->SetRecvCallback(ns3::MakeCallback(&RdccApplication::receive, this));
    return s;
  }

  void receive(ns3::Ptr<ns3::Socket> s) {
    ns3::Address from;
    std::uint16_t local_port = 0;
    for (std::size_t i = 0; i < sockets_.size(); ++i) {
      if (sockets_[i] == s) local_port = ports_[i];
    }
    while (ns3::Ptr<ns3::Packet> p = s->RecvFrom(from)) {
      const ns3::InetSocketAddress a = ns3::InetSocketAddress::ConvertFrom(from);
      ns3::SocketIpTosTag tos;
      Datagram d;
      d.tos = p->RemovePacketTag(tos) ? tos.GetTos() : 0;
      buffer_.resize(p->GetSize());
      p->CopyData(buffer_.data(), p->GetSize());
      d.from_ip = a.GetIpv4().Get();
      d.from_port = a.GetPort();
      d.to_ip = local_ip_;
      d.to_port = local_port;
      d.bytes = buffer_.data();
      d.size = buffer_.size();
      endpoint_->on_datagram(d);
    }
  }

  void fire(int slot) { endpoint_->on_timer(slot); }
  void idle() {
    if (unsent_ == 0) endpoint_->on_nic_idle();
  }

  void StartApplication() override {}
  void StopApplication() override {
    for (Timer& t : timers_) t.event.Cancel();
  }

  struct Timer {
    ns3::EventId event;
    std::int64_t at = -1;
  };

  Endpoint* endpoint_ = nullptr;
  std::array<ns3::Ptr<ns3::Socket>, 3> sockets_;  // by Fabric::Socket
  std::array<std::uint16_t, 3> ports_{};          // their ports
  std::uint32_t local_ip_ = 0;                    // the node's address (its first interface)
  std::array<Timer, 2> timers_;
  std::uint64_t unsent_ = 0;
  std::vector<std::uint8_t> buffer_;
};

// Routing of the fabric, in constant time per packet: ns-3's global routing scans one route per
// /30 link (a thousand at 1,024 hosts, a third of the run's time), while here every host is
// known by its index (10.0.0.0/8, the h-th /30, fabric.hpp) and every switch knows the port
// toward each host below it and its uplinks. ECMP hashes the flow (addresses and UDP ports)
// with a salt per switch, as switches do: one path per flow, no reordering within it.
class FabricRouting : public ns3::Ipv4RoutingProtocol {
 public:
  static ns3::TypeId GetTypeId() {
    static ns3::TypeId tid = ns3::TypeId("rdcc::FabricRouting")
                                 .SetParent<ns3::Ipv4RoutingProtocol>()
                                 .SetGroupName("Internet");
    return tid;
  }

  void configure(std::size_t hosts, std::size_t hosts_per_leaf, bool ecmp, std::uint32_t salt) {
    down_.assign(hosts, 0);
    hosts_per_leaf_ = std::max<std::size_t>(1, hosts_per_leaf);
    ecmp_ = ecmp;
    salt_ = salt;
  }
  void route_down(std::size_t host, std::uint32_t interface) { down_.at(host) = interface; }
  void route_up(std::uint32_t interface) { up_.push_back(interface); }

  ns3::Ptr<ns3::Ipv4Route> RouteOutput(ns3::Ptr<ns3::Packet> p, const ns3::Ipv4Header& header,
                                       ns3::Ptr<ns3::NetDevice> /*oif*/,
                                       ns3::Socket::SocketErrno& err) override {
    ns3::Ptr<ns3::Ipv4Route> r = route(p, header);
    err = r != nullptr ? ns3::Socket::ERROR_NOTERROR : ns3::Socket::ERROR_NOROUTETOHOST;
    return r;
  }

  bool RouteInput(ns3::Ptr<const ns3::Packet> p, const ns3::Ipv4Header& header,
                  ns3::Ptr<const ns3::NetDevice> idev, UnicastForwardCallback ucb,
                  MulticastForwardCallback /*mcb*/, LocalDeliverCallback lcb,
                  ErrorCallback ecb) override {
    const std::uint32_t dst = header.GetDestination().Get();
    if (local(dst)) {
      lcb(p, header, static_cast<std::uint32_t>(ipv4_->GetInterfaceForDevice(idev)));
      return true;
    }
    ns3::Ptr<ns3::Ipv4Route> r = route(p, header);
    if (r == nullptr) {
      ecb(p, header, ns3::Socket::ERROR_NOROUTETOHOST);
      return true;
    }
    ucb(r, p, header);
    return true;
  }

  // The interface a packet (its IPv4 header removed) to `header`'s destination leaves by; 0: none.
  [[nodiscard]] std::uint32_t next_interface(const ns3::Ptr<const ns3::Packet>& p,
                                             const ns3::Ipv4Header& header) const {
    const std::uint32_t dst = header.GetDestination().Get();
    const std::uint32_t offset = dst - kFirstHost;
    const std::size_t host = offset / 4U;
    if (dst >= kFirstHost && offset % 4U == 0 && host < down_.size() && down_[host] != 0)
      return down_[host];
    if (!up_.empty()) return up_[pick(p, header, host) % up_.size()];
    return 0;
  }
  [[nodiscard]] bool local(std::uint32_t ip) const {
    return std::find(local_.begin(), local_.end(), ip) != local_.end();
  }

  void NotifyInterfaceUp(std::uint32_t /*interface*/) override { refresh(); }
  void NotifyInterfaceDown(std::uint32_t /*interface*/) override { refresh(); }
  void NotifyAddAddress(std::uint32_t /*interface*/, ns3::Ipv4InterfaceAddress /*a*/) override {
    refresh();
  }
  void NotifyRemoveAddress(std::uint32_t /*interface*/, ns3::Ipv4InterfaceAddress /*a*/) override {
    refresh();
  }
  void SetIpv4(ns3::Ptr<ns3::Ipv4> ipv4) override {
    ipv4_ = ipv4;
    refresh();
  }
  void PrintRoutingTable(ns3::Ptr<ns3::OutputStreamWrapper> stream,
                         ns3::Time::Unit /*unit*/) const override {
    *stream->GetStream() << "rdcc fabric routing: " << up_.size() << " uplinks, hosts below:";
    for (std::size_t h = 0; h < down_.size(); ++h) {
      if (down_[h] != 0) *stream->GetStream() << ' ' << h << "->" << down_[h];
    }
    *stream->GetStream() << '\n';
  }

 private:
  void refresh() {
    local_.clear();
    if (ipv4_ == nullptr) return;
    for (std::uint32_t i = 0; i < ipv4_->GetNInterfaces(); ++i) {
      for (std::uint32_t a = 0; a < ipv4_->GetNAddresses(i); ++a)
        local_.push_back(ipv4_->GetAddress(i, a).GetLocal().Get());
    }
  }

  ns3::Ptr<ns3::Ipv4Route> route(const ns3::Ptr<const ns3::Packet>& p,
                                 const ns3::Ipv4Header& header) const {
    const std::uint32_t interface = next_interface(p, header);
    if (interface == 0) return nullptr;
    ns3::Ptr<ns3::Ipv4Route> r = ns3::Create<ns3::Ipv4Route>();
    r->SetDestination(header.GetDestination());
    r->SetGateway(header.GetDestination());  // point-to-point: the peer takes every frame
    r->SetSource(ipv4_->GetAddress(interface, 0).GetLocal());
    r->SetOutputDevice(ipv4_->GetNetDevice(interface));
    return r;
  }

  std::size_t pick(const ns3::Ptr<const ns3::Packet>& p, const ns3::Ipv4Header& header,
                   std::size_t host) const {
    if (!ecmp_) return host / hosts_per_leaf_;  // the destination's leaf picks the spine
    std::uint64_t h = salt_;
    const auto mix = [&h](std::uint64_t v) {
      h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6U) + (h >> 2U);
    };
    mix(header.GetSource().Get());
    mix(header.GetDestination().Get());
    ns3::UdpHeader udp;
    if (header.GetProtocol() == ns3::UdpL4Protocol::PROT_NUMBER && p != nullptr &&
        p->PeekHeader(udp) != 0) {
      mix((std::uint64_t{udp.GetSourcePort()} << 16U) | udp.GetDestinationPort());
    }
    return static_cast<std::size_t>(h ^ (h >> 29U));
  }

  static constexpr std::uint32_t kFirstHost = 0x0a000001U;  // 10.0.0.1: host 0
  ns3::Ptr<ns3::Ipv4> ipv4_;
  std::vector<std::uint32_t> local_;
  std::vector<std::uint32_t> down_;  // per host: the interface toward it, 0 when not below
  std::vector<std::uint32_t> up_;    // uplinks (a host: its link)
  std::size_t hosts_per_leaf_ = 1;
  bool ecmp_ = true;
  std::uint32_t salt_ = 0;
};

// A switch's forwarding plane. For a unicast IPv4 packet through the switch it does what ns-3's
// Ipv4L3Protocol::Receive, IpForward, SendRealOut and Ipv4Interface::Send do (checksum check
// when checksums are on, TTL decremented, the priority tag of the TOS, the interface of
// FabricRouting, the port's queue discs through the traffic-control layer), without what that
// path allocates per packet and hop: four callbacks and an Ipv4Route, a third of the
// instructions of an all-to-all round. The packets that leave are the same (the pcap of a run
// is the same file). Anything else takes the stock path: a packet to the switch itself, a TTL
// about to expire, a packet above the outgoing MTU, a bad checksum, a frame that is not IPv4.
class SwitchForwarder {
 public:
  SwitchForwarder(const ns3::Ptr<ns3::Node>& node, const ns3::Ptr<FabricRouting>& routing,
                  const bool* checksums)
      : ipv4_(node->GetObject<ns3::Ipv4>()),
        tc_(node->GetObject<ns3::TrafficControlLayer>()),
        routing_(routing),
        checksums_(checksums) {
    // Every interface's device and broadcast address, once (a point-to-point device builds its
    // broadcast address from a string at each call).
    for (std::uint32_t i = 0; i < ipv4_->GetNInterfaces(); ++i) {
      devices_.push_back(ipv4_->GetNetDevice(i));
      broadcast_.push_back(devices_.back()->GetBroadcast());
    }
  }

  // Takes the device's received frames in place of the node (Node::NonPromiscReceiveFromDevice).
  void attach(const ns3::Ptr<ns3::NetDevice>& device) {
    device->SetReceiveCallback(ns3::MakeCallback(&SwitchForwarder::receive, this));
  }

 private:
  // By value: the signature of ns-3's NetDevice::ReceiveCallback, which must match exactly.
  bool receive(ns3::Ptr<ns3::NetDevice> device,
               ns3::Ptr<const ns3::Packet> p,  // NOLINT(performance-unnecessary-value-param)
               std::uint16_t protocol, const ns3::Address& from) {
    if (protocol != ns3::Ipv4L3Protocol::PROT_NUMBER || !forward(p)) {
      // What the node does with it: to the traffic-control layer, which hands it to IPv4.
      tc_->Receive(device, p, protocol, from, device->GetAddress(), ns3::NetDevice::PACKET_HOST);
    }
    return true;
  }

  bool forward(const ns3::Ptr<const ns3::Packet>& p) {
    ns3::Ipv4Header h;
    if (*checksums_) h.EnableChecksum();
    ns3::Ptr<ns3::Packet> packet = p->Copy();
    if (packet->RemoveHeader(h) == 0 || !h.IsChecksumOk() || h.GetTtl() <= 1) return false;
    if (h.GetDestination().IsBroadcast() || h.GetDestination().IsMulticast() ||
        routing_->local(h.GetDestination().Get())) {
      return false;
    }
    if (h.GetPayloadSize() < packet->GetSize())
      packet->RemoveAtEnd(packet->GetSize() - h.GetPayloadSize());
    const std::uint32_t interface = routing_->next_interface(packet, h);
    if (interface == 0 || interface >= devices_.size() || !ipv4_->IsUp(interface)) return false;
    const ns3::Ptr<ns3::NetDevice>& out = devices_[interface];
    if (packet->GetSize() + h.GetSerializedSize() > out->GetMtu())
      return false;  // stock: fragments
    h.SetTtl(static_cast<std::uint8_t>(h.GetTtl() - 1));
    ns3::SocketPriorityTag priority;
    packet->RemovePacketTag(priority);
    if (const std::uint8_t prio = ns3::Socket::IpTos2Priority(h.GetTos()); prio != 0) {
      priority.SetPriority(prio);
      packet->AddPacketTag(priority);
    }
    tc_->Send(out, ns3::Create<ns3::Ipv4QueueDiscItem>(packet, broadcast_[interface],
                                                       ns3::Ipv4L3Protocol::PROT_NUMBER, h));
    return true;
  }

  ns3::Ptr<ns3::Ipv4> ipv4_;
  ns3::Ptr<ns3::TrafficControlLayer> tc_;
  ns3::Ptr<FabricRouting> routing_;
  const bool* checksums_;
  std::vector<ns3::Ptr<ns3::NetDevice>> devices_;  // by interface
  std::vector<ns3::Address> broadcast_;            // by interface
};

// A switch port's queue discs: PrioQueueDisc (control band 0, data band 1).
struct Port {
  const std::function<void(const DequeueSample&)>* observer = nullptr;
  std::size_t switch_index = 0;
  std::uint16_t number = 0;
  ns3::Ptr<ns3::QueueDisc> root;
  ns3::Ptr<ns3::QueueDisc> data;
  std::uint64_t peak = 0;
  std::map<std::tuple<std::uint32_t, std::uint16_t, std::uint32_t, std::uint16_t>, std::uint32_t>
      flows;
};

using FlowKey = std::tuple<std::uint32_t, std::uint16_t, std::uint32_t, std::uint16_t>;

bool flow_of(const ns3::Ptr<const ns3::QueueDiscItem>& item, FlowKey& key, std::uint8_t& dscp) {
  auto ip = ns3::DynamicCast<const ns3::Ipv4QueueDiscItem>(item);
  if (ip == nullptr) return false;
  const ns3::Ipv4Header& h = ip->GetHeader();
  ns3::UdpHeader udp;
  std::uint16_t sport = 0;
  std::uint16_t dport = 0;
  if (h.GetProtocol() == ns3::UdpL4Protocol::PROT_NUMBER &&
      item->GetPacket()->PeekHeader(udp) != 0) {
    sport = udp.GetSourcePort();
    dport = udp.GetDestinationPort();
  }
  key = FlowKey{h.GetSource().Get(), sport, h.GetDestination().Get(), dport};
  dscp = static_cast<std::uint8_t>(h.GetTos() >> 2U);
  return true;
}

}  // namespace

struct Fabric::Impl {
  FabricSpec spec;
  ns3::NodeContainer hosts;
  ns3::NodeContainer switches;  // star: one; leaf-spine: the leaves, then the spines
  std::vector<ns3::Ptr<ns3::NetDevice>> host_devices;  // the host's end of its link
  std::vector<Port*> host_ports;                       // the switch port toward each host
  std::vector<std::unique_ptr<Port>> ports;
  std::vector<ns3::Ptr<RdccApplication>> apps;
  std::function<void(const DequeueSample&)> dequeue;
  ns3::Ptr<ns3::PcapFileWrapper> pcap;
  std::function<bool()> done;
  std::int64_t check_ns = 1000;
  std::vector<std::unique_ptr<SwitchForwarder>> forwarders;  // one per switch
  bool checksums = false;  // ns-3's ChecksumEnabled, read when a run starts

  explicit Impl(const FabricSpec& s) : spec(s) {
    ControlFilter::GetTypeId();  // registered before the traffic-control helper names it
    ns3::RngSeedManager::SetSeed(1);
    ns3::RngSeedManager::SetRun(spec.run == 0 ? 1 : spec.run);
    build();
  }

  ~Impl() {
    apps.clear();
    ns3::Simulator::Destroy();
  }

  ns3::PointToPointHelper link(const LinkSpec& l) const {
    ns3::PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", ns3::DataRateValue(ns3::DataRate(l.rate_bps)));
    p2p.SetDeviceAttribute("Mtu", ns3::UintegerValue(spec.mtu));
    p2p.SetChannelAttribute("Delay", ns3::TimeValue(ns3::Time(l.delay_ns)));
    // One packet in the device: the queue disc above it is the queue that builds.
    p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize",
                 ns3::QueueSizeValue(ns3::QueueSize("1p")));
    return p2p;
  }

  ns3::TrafficControlHelper queue_discs(bool switch_port) const {
    ns3::TrafficControlHelper tch;
    const ns3::QueueSize cap(ns3::QueueSizeUnit::BYTES,
                             static_cast<std::uint32_t>(spec.queue_capacity));
    const std::uint16_t root = tch.SetRootQueueDisc("ns3::PrioQueueDisc");
    tch.AddPacketFilter(root, "rdcc::ControlFilter", "Port", ns3::UintegerValue(spec.control_port),
                        "SenderPort", ns3::UintegerValue(spec.sender_port));
    const auto classes = tch.AddQueueDiscClasses(root, 2, "ns3::QueueDiscClass");
    tch.AddChildQueueDisc(root, classes[0], "ns3::FifoQueueDisc", "MaxSize",
                          ns3::QueueSizeValue(cap));
    if (switch_port && spec.ecn_threshold > 0) {
      // Step marking: the instantaneous queue (QW 1) above the threshold marks every ECT packet
      // (MinTh = MaxTh, not gentle), as reference/sim's ecn_threshold does.
      const double th = static_cast<double>(spec.ecn_threshold) + 1.0;
      tch.AddChildQueueDisc(root, classes[1], "ns3::RedQueueDisc", "MaxSize",
                            ns3::QueueSizeValue(cap), "MinTh", ns3::DoubleValue(th), "MaxTh",
                            ns3::DoubleValue(th), "QW", ns3::DoubleValue(1.0), "Gentle",
                            ns3::BooleanValue(false), "UseEcn", ns3::BooleanValue(true),
                            "UseHardDrop", ns3::BooleanValue(false));
    } else {
      tch.AddChildQueueDisc(root, classes[1], "ns3::FifoQueueDisc", "MaxSize",
                            ns3::QueueSizeValue(cap));
    }
    return tch;
  }

  // A point-to-point link a <-> b; returns the devices. Queue discs go on both ends before
  // the addresses (Ipv4AddressHelper would install its default otherwise).
  ns3::NetDeviceContainer connect(const ns3::Ptr<ns3::Node>& a, bool a_switch,
                                  const ns3::Ptr<ns3::Node>& b, const LinkSpec& l,
                                  ns3::Ipv4AddressHelper& addresses) {
    ns3::NetDeviceContainer d = link(l).Install(a, b);
    ns3::QueueDiscContainer qa = queue_discs(a_switch).Install(d.Get(0));
    ns3::QueueDiscContainer qb = queue_discs(true).Install(d.Get(1));
    if (a_switch) add_port(a, qa.Get(0));
    add_port(b, qb.Get(0));
    addresses.Assign(d);
    addresses.NewNetwork();
    return d;
  }

  void add_port(const ns3::Ptr<ns3::Node>& sw, ns3::Ptr<ns3::QueueDisc> root) {
    auto p = std::make_unique<Port>();
    p->observer = &dequeue;
    for (std::size_t i = 0; i < switches.GetN(); ++i) {
      if (switches.Get(static_cast<std::uint32_t>(i)) == sw) p->switch_index = i;
    }
    p->number = static_cast<std::uint16_t>(
        std::count_if(ports.begin(), ports.end(),
                      [&](const auto& q) { return q->switch_index == p->switch_index; }) +
        1);
    p->root = root;
    p->data = root->GetQueueDiscClass(1)->GetQueueDisc();
    p->data->TraceConnectWithoutContext("Enqueue",
                                        ns3::MakeBoundCallback(&Impl::enqueued, p.get()));
    p->data->TraceConnectWithoutContext("Dequeue",
                                        ns3::MakeBoundCallback(&Impl::dequeued, p.get()));
    ports.push_back(std::move(p));
  }

  void build() {
    const std::size_t n = spec.host_links.size();
    if (spec.kind == FabricSpec::Kind::LeafSpine &&
        (spec.leaves == 0 || spec.spines == 0 || n > spec.leaves * spec.hosts_per_leaf)) {
      throw std::invalid_argument("leaf-spine: " + std::to_string(n) + " hosts do not fit " +
                                  std::to_string(spec.leaves) + " leaves of " +
                                  std::to_string(spec.hosts_per_leaf));
    }
    const std::size_t leaves = spec.kind == FabricSpec::Kind::Star ? 1 : spec.leaves;
    const std::size_t spines = spec.kind == FabricSpec::Kind::Star ? 0 : spec.spines;
    switches.Create(static_cast<std::uint32_t>(leaves + spines));
    hosts.Create(static_cast<std::uint32_t>(n));
    ns3::InternetStackHelper stack;
    stack.Install(switches);
    stack.Install(hosts);
    const std::size_t per_leaf = spec.kind == FabricSpec::Kind::Star ? n : spec.hosts_per_leaf;
    std::vector<ns3::Ptr<FabricRouting>> host_routing;
    std::vector<ns3::Ptr<FabricRouting>> switch_routing;
    const auto install = [&](const ns3::Ptr<ns3::Node>& node, std::uint32_t salt) {
      ns3::Ptr<FabricRouting> r = ns3::CreateObject<FabricRouting>();
      r->configure(n, per_leaf, spec.ecmp, salt);
      node->GetObject<ns3::Ipv4>()->SetRoutingProtocol(r);
      return r;
    };
    for (std::uint32_t i = 0; i < hosts.GetN(); ++i)
      host_routing.push_back(install(hosts.Get(i), i));
    for (std::uint32_t i = 0; i < switches.GetN(); ++i)
      switch_routing.push_back(install(switches.Get(i), 0x5a17U * (i + 1)));
    const auto interface = [](const ns3::Ptr<ns3::NetDevice>& d) {
      return static_cast<std::uint32_t>(
          d->GetNode()->GetObject<ns3::Ipv4>()->GetInterfaceForDevice(d));
    };
    ns3::Ipv4AddressHelper addresses("10.0.0.0", "255.255.255.252");
    for (std::size_t h = 0; h < n; ++h) {
      const std::size_t leaf = h / per_leaf;
      ns3::NetDeviceContainer d =
          connect(hosts.Get(static_cast<std::uint32_t>(h)), false,
                  switches.Get(static_cast<std::uint32_t>(leaf)), spec.host_links[h], addresses);
      host_devices.push_back(d.Get(0));
      host_ports.push_back(ports.back().get());
      host_routing[h]->route_up(interface(d.Get(0)));
      switch_routing[leaf]->route_down(h, interface(d.Get(1)));
    }
    for (std::size_t l = 0; l < leaves && spines > 0; ++l) {
      for (std::size_t s = 0; s < spines; ++s) {
        ns3::NetDeviceContainer d = connect(switches.Get(static_cast<std::uint32_t>(l)), true,
                                            switches.Get(static_cast<std::uint32_t>(leaves + s)),
                                            spec.fabric_link, addresses);
        switch_routing[l]->route_up(interface(d.Get(0)));
        for (std::size_t h = l * per_leaf; h < std::min(n, (l + 1) * per_leaf); ++h) {
          switch_routing[leaves + s]->route_down(h, interface(d.Get(1)));
        }
      }
    }
    for (std::uint32_t i = 0; i < switches.GetN() && !spec.stack_forwarding; ++i) {
      const ns3::Ptr<ns3::Node> sw = switches.Get(i);
      forwarders.push_back(std::make_unique<SwitchForwarder>(sw, switch_routing[i], &checksums));
      for (std::uint32_t d = 0; d < sw->GetNDevices(); ++d) {
        if (ns3::DynamicCast<ns3::PointToPointNetDevice>(sw->GetDevice(d)) != nullptr)
          forwarders.back()->attach(sw->GetDevice(d));
      }
    }
  }

  // By value: a trace sink's signature must be the trace source's exactly (ns-3 Callback).
  static void enqueued(
      Port* p,
      ns3::Ptr<const ns3::QueueDiscItem> item) {  // NOLINT(performance-unnecessary-value-param)
    p->peak = std::max<std::uint64_t>(p->peak, p->data->GetNBytes());
    FlowKey key;
    std::uint8_t dscp = 0;
    if (flow_of(item, key, dscp)) ++p->flows[key];
  }

  static void dequeued(Port* p, ns3::Ptr<const ns3::QueueDiscItem> item) {
    FlowKey key;
    std::uint8_t dscp = 0;
    if (!flow_of(item, key, dscp)) return;
    const auto flows = static_cast<std::uint32_t>(p->flows.size());
    auto f = p->flows.find(key);
    if (f != p->flows.end() && --f->second == 0) p->flows.erase(f);
    if (!*p->observer) return;
    DequeueSample s;
    s.switch_index = p->switch_index;
    s.port = p->number;
    // The queue disc counts the packet out before it fires the trace.
    s.occupancy = p->data->GetNBytes() + item->GetSize();
    s.flows = flows;
    s.dscp = dscp;
    std::tie(s.src_ip, s.src_port, s.dst_ip, s.dst_port) = key;
    (*p->observer)(s);
  }

  static std::uint32_t ip_of(const ns3::Ptr<ns3::Node>& node) {
    return node->GetObject<ns3::Ipv4>()->GetAddress(1, 0).GetLocal().Get();
  }

  AppId attach(const ns3::Ptr<ns3::Node>& node, Endpoint* e, ns3::Ipv4Address bind,
               const std::array<std::uint16_t, 3>& app_ports, const ns3::Ptr<ns3::NetDevice>& nic) {
    ns3::Ptr<RdccApplication> app = ns3::CreateObject<RdccApplication>();
    node->AddApplication(app);
    app->setup(e, bind, app_ports);
    app->SetStartTime(ns3::Seconds(0));
    if (nic != nullptr) {
      nic->TraceConnectWithoutContext("PhyTxEnd",
                                      ns3::MakeCallback(&RdccApplication::transmitted, app));
    }
    apps.push_back(app);
    return apps.size() - 1;
  }

  void write_pcap(ns3::Ptr<const ns3::Packet> p) {
    ns3::Ptr<ns3::Packet> ip = p->Copy();
    ns3::PppHeader ppp;
    ip->RemoveHeader(ppp);
    pcap->Write(ns3::Simulator::Now(), ip);
  }

  void check() {
    if (!done) return;  // a check left over from an earlier run
    if (done()) {
      ns3::Simulator::Stop();
      return;
    }
    ns3::Simulator::Schedule(ns3::Time(check_ns), &Impl::check, this);
  }
};

Fabric::Fabric(const FabricSpec& spec) : impl_(std::make_unique<Impl>(spec)) {}
Fabric::~Fabric() = default;

std::size_t Fabric::hosts() const {
  return impl_->hosts.GetN();
}
std::size_t Fabric::switches() const {
  return impl_->switches.GetN();
}
std::uint32_t Fabric::host_ip(std::size_t host) const {
  return Impl::ip_of(impl_->hosts.Get(static_cast<std::uint32_t>(host)));
}
std::uint32_t Fabric::switch_ip(std::size_t sw) const {
  return Impl::ip_of(impl_->switches.Get(static_cast<std::uint32_t>(sw)));
}

AppId Fabric::attach_host(std::size_t host, Endpoint* e,
                          const std::array<std::uint16_t, 3>& ports) {
  return impl_->attach(impl_->hosts.Get(static_cast<std::uint32_t>(host)), e,
                       ns3::Ipv4Address::GetAny(), ports, impl_->host_devices.at(host));
}
AppId Fabric::attach_switch(std::size_t sw, Endpoint* e, std::uint16_t control_port) {
  // Bound to the switch's address, so that every report carries it whatever port it leaves by.
  return impl_->attach(impl_->switches.Get(static_cast<std::uint32_t>(sw)), e,
                       ns3::Ipv4Address(switch_ip(sw)), {control_port, 0, 0}, nullptr);
}
void Fabric::send(AppId app, Socket from, std::uint32_t to_ip, std::uint16_t to_port,
                  std::uint8_t tos, const std::uint8_t* head, std::size_t head_size,
                  std::size_t zero_fill) {
  impl_->apps.at(app)->send(from, ns3::Ipv4Address(to_ip), to_port, tos, head, head_size,
                            zero_fill);
}
void Fabric::arm_timer(AppId app, int slot, std::int64_t at_ns) {
  impl_->apps.at(app)->arm(slot, at_ns);
}
void Fabric::cancel_timer(AppId app, int slot) {
  impl_->apps.at(app)->disarm(slot);
}
bool Fabric::nic_idle(AppId app) const {
  return impl_->apps.at(app)->nic_idle();
}

void Fabric::on_data_dequeue(std::function<void(const DequeueSample&)> fn) {
  impl_->dequeue = std::move(fn);
}
std::uint64_t Fabric::queue_octets(std::size_t host) const {
  return impl_->host_ports.at(host)->data->GetNBytes();
}
std::uint64_t Fabric::peak_queue(std::size_t host) const {
  return impl_->host_ports.at(host)->peak;
}

void Fabric::enable_pcap(const std::string& file) {
  // "Senders MUST set the UDP checksum": ns-3 leaves IPv4 and UDP checksums zero unless told.
  // (A process-wide ns-3 setting; it costs a sum per packet, so only a captured run pays it.)
  ns3::GlobalValue::Bind("ChecksumEnabled", ns3::BooleanValue(true));
  ns3::PcapHelper helper;
  impl_->pcap = helper.CreateFile(file, std::ios::out, ns3::PcapHelper::DLT_RAW, 65535);
  for (const auto& d : impl_->host_devices) {
    d->TraceConnectWithoutContext("MacRx", ns3::MakeCallback(&Impl::write_pcap, impl_.get()));
  }
}

void Fabric::schedule(std::int64_t at_ns, std::function<void()> fn) {
  const std::int64_t now = now_ns();
  ns3::Simulator::Schedule(ns3::Time(std::max<std::int64_t>(0, at_ns - now)),
                           [fn = std::move(fn)] { fn(); });
}
std::int64_t Fabric::now_ns() const {
  return ns3::Simulator::Now().GetNanoSeconds();
}

void Fabric::run(std::int64_t limit_ns, std::int64_t check_ns, const std::function<bool()>& done) {
  impl_->done = done;
  impl_->check_ns = std::max<std::int64_t>(1, check_ns);
  impl_->checksums = ns3::Node::ChecksumEnabled();
  if (done) ns3::Simulator::ScheduleNow(&Impl::check, impl_.get());
  ns3::Simulator::Stop(ns3::Time(std::max<std::int64_t>(0, limit_ns - now_ns())));
  ns3::Simulator::Run();
  impl_->done = nullptr;
}

FabricStats Fabric::stats() const {
  FabricStats s;
  for (const auto& p : impl_->ports) {
    for (std::size_t band = 0; band < 2; ++band) {
      const auto& st = p->root->GetQueueDiscClass(band)->GetQueueDisc()->GetStats();
      s.tail_drops += st.nTotalDroppedPackets;
      s.ecn_marked += st.nTotalMarkedPackets;
    }
  }
  s.events = ns3::Simulator::GetEventCount();
  return s;
}

}  // namespace rdcc::ns3fabric
