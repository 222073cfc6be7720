#include <stdexcept>

#include "rdcc/codec/rocev2.hpp"
#include "rdcc/udp/nodes.hpp"

namespace rdcc::udp {

namespace {

// The endpoint's configuration on this host: its address, and it hears when sends left.
ref::SenderConfig bound(ref::SenderConfig c, const Address& local) {
  c.local = local;
  c.reports_sends = true;
  return c;
}

constexpr std::size_t kIpUdpHeaders = ref::kIpv4HeaderSize + ref::kUdpHeaderSize;

// The data socket's address: the RDCC address's IP, the configured data source port.
Address data_source(Address rdcc, std::uint16_t port) {
  if (port != 0 && port == rdcc.port) {
    throw std::invalid_argument("the data source port " + std::to_string(port) +
                                " is the RDCC port; data leaves from a port of its own");
  }
  rdcc.port = port;
  return rdcc;
}

}  // namespace

SenderNode::SenderNode(EventLoop& loop, SenderNodeConfig config, ref::Observer* observer)
    : loop_(loop),
      cfg_(std::move(config)),
      rdcc_(cfg_.endpoint.local),
      data_(data_source(rdcc_.local(), cfg_.data_source_port)),
      timer_(loop,
             [this] {
               sender_->on_timeout(clock());
               service();
             }),
      requesters_(&address_less) {
  sender_ = std::make_unique<ref::Sender>(bound(cfg_.endpoint, rdcc_.local()), random_, observer,
                                          cfg_.policy);
  // A grant's Lifetime counts from its reception (Credit Requests and Grants, rule 3): from when
  // the kernel took it in, not from when this process, perhaps descheduled, read it.
  rdcc_.timestamp_receipts();
  loop_.add(rdcc_.fd(), [this] { on_control_readable(); });
  service();
}

Time SenderNode::clock() {
  given_ = std::max(given_, monotonic_now());
  return given_;
}

SenderNode::~SenderNode() {
  loop_.remove(rdcc_.fd());
}

ref::MessageHandle SenderNode::submit(ref::MessageSpec spec) {
  if (spec.binding == BindingKind::RoCEv2) {
    if (spec.receiver.ipv6 || rdcc_.ipv6()) {
      throw std::invalid_argument("binding: the RoCEv2 emulation carries IPv4 packets only");
    }
    if (spec.binding_value != 0) {
      throw std::invalid_argument(
          "binding_value: the node numbers RoCEv2 messages itself (QPN, MSN); leave it 0");
    }
    auto it = requesters_.find(spec.receiver);
    if (it == requesters_.end()) {
      const auto qpn =
          cfg_.rocev2_qpn.value_or(static_cast<std::uint32_t>(1U + random_.uniform(kMax24 - 1U)));
      it = requesters_
               .emplace(spec.receiver, ref::Rocev2Requester(
                                           qpn, static_cast<std::uint32_t>(random_.uniform(kMax24)),
                                           static_cast<std::uint32_t>(random_.next_u64()),
                                           random_.next_u64() & ~0xFFFULL, cfg_.rocev2_pmtu))
               .first;
    }
    auto plan = it->second.plan_message(
        spec.length, spec.post_unit != 0 ? spec.post_unit : cfg_.rdma_message_size);
    if (!plan) throw std::invalid_argument("binding: " + plan.error().describe());
    spec.binding_value = plan->binding_value;
    spec.post_unit = plan->post_unit;
    roce_plans_[plan->binding_value] = RocePlan{*plan, spec.length};
  }
  const ref::MessageHandle h = sender_->submit(spec, clock());
  service();
  return h;
}

void SenderNode::cancel(ref::MessageHandle h) {
  sender_->cancel(h, clock());
  service();
}

void SenderNode::return_credit(ref::MessageHandle h, std::uint64_t new_limit) {
  sender_->return_credit(h, new_limit, clock());
  service();
}

void SenderNode::link_pause() {
  sender_->on_link_pause(clock());
  service();
}

std::optional<ref::MessageStatus> SenderNode::status(ref::MessageHandle h) const {
  return sender_->status(h);
}

void SenderNode::on_control_readable() {
  rdcc_.receive_turn([&](std::span<const InPacket> batch) {
    // Each datagram at the kernel's arrival time (kernel_arrival: never after this reading),
    // never before a time the sender was already given (its clock does not run backwards).
    Time last = given_;
    const Time now = clock();
    const std::int64_t real_now = realtime_now_ns();
    for (const InPacket& p : batch) {
      const Time at = std::max(last, kernel_arrival(p.kernel_time_ns, now, real_now));
      last = at;
      if (!on_nack(p, at)) sender_->on_control(p.from, p.bytes, at);
    }
    service();
  });
}

// Opaque transport loss recovery (docs/data-transport.md, "Loss recovery"): a receiver's NACK
// arrives at the RDCC address. It starts with the opaque Magic, which no RDCC message does
// (their first octet holds Version 1), so it cannot be mistaken for one.
bool SenderNode::on_nack(const InPacket& p, Time now) {
  auto op = ref::decode_opaque(p.bytes);
  if (!op || (op->header.flags & ref::opaque_flag::kNack) == 0) return false;
  auto ranges = ref::decode_opaque_nack(*op);
  if (!ranges) {
    ++stats_.nacks_malformed;
    return true;
  }
  ++stats_.nacks_received;
  sender_->on_nack(p.from, op->header.message_identifier, *ranges, now);
  return true;
}

std::vector<std::byte>& SenderNode::next_buffer() {
  if (buffers_used_ == buffers_.size()) buffers_.emplace_back();
  return buffers_[buffers_used_++];
}

void SenderNode::put_segment(const ref::DataSegment& s) {
  if (s.binding == BindingKind::RoCEv2) {
    auto it = roce_plans_.find(s.binding_value);
    if (it != roce_plans_.end()) {
      put_rocev2(s, it->second);
      return;
    }
  }
  // Opaque transport (docs/data-transport.md, or the configured framing): header and zero
  // payload.
  std::vector<std::byte>& buf = next_buffer();
  buf.assign(cfg_.data_framing.header_length() + s.length, std::byte{0});
  const std::vector<std::byte> payload(s.length);
  if (!cfg_.data_framing.encode(ref::opaque_header_for(s), payload, buf)) return;
  Address to = cfg_.data_via.value_or(s.receiver);
  if (!cfg_.data_via) to.port = cfg_.data_port;
  queue({to, tos(s.dscp, cfg_.ecn ? ref::kEcnEct0 : ref::kEcnNotEct), buf}, true);
  ++stats_.data_packets;
  stats_.data_octets += s.length;
}

void SenderNode::put_rocev2(const ref::DataSegment& s, const RocePlan& plan) {
  auto req = requesters_.find(s.receiver);
  if (req == requesters_.end()) return;
  const Address local = data_.local();
  for (const auto& ph : req->second.packetize(plan.plan, plan.length, s.offset, s.length)) {
    ref::Rocev2Packet rp;
    rp.ip.source = local.ip;
    rp.ip.destination = s.receiver.ip;
    rp.ip.source_port = local.port;
    rp.ip.destination_port = cfg_.rocev2_port;
    rp.ip.dscp = s.dscp;
    rp.ip.ecn = cfg_.ecn ? ref::kEcnEct0 : ref::kEcnNotEct;
    rp.ip.identification = 0;  // what Linux writes for unconnected UDP with DF (the ICRC covers it)
    rp.bth = ph.bth;
    rp.reth = ph.reth;
    const std::vector<std::byte> payload(ph.length);
    rp.payload = payload;
    std::vector<std::byte> ip_packet(ref::rocev2_packet_size(ph.bth.opcode, ph.length));
    if (!ref::encode_rocev2(rp, ip_packet)) continue;
    // The kernel writes the IPv4 and UDP headers; the socket carries the rest.
    std::vector<std::byte>& buf = next_buffer();
    buf.assign(ip_packet.begin() + kIpUdpHeaders, ip_packet.end());
    Address to = s.receiver;
    to.port = cfg_.rocev2_port;
    queue({to, tos(s.dscp, rp.ip.ecn), buf}, true);
    ++stats_.rocev2_packets;
    ++stats_.data_packets;
    stats_.data_octets += ph.length;
  }
}

void SenderNode::queue(const OutPacket& p, bool data) {
  if (data != out_data_) flush();
  out_data_ = data;
  out_.push_back(p);
}

void SenderNode::flush() {
  if (!out_.empty()) (out_data_ ? data_ : rdcc_).send(out_);
  out_.clear();
}

void SenderNode::service() {
  const Time now = clock();
  // Control first: a CREDIT_REQUEST goes out "no later than the first data packet"; control
  // the sender queues while releasing data keeps its place before later data. control_out_
  // is a deque, so the spans into its datagrams stay valid as it grows.
  const auto take_control = [this] {
    while (auto d = sender_->poll_transmit()) {
      control_out_.push_back(*d);
      queue({d->to, tos(d->dscp, 0), control_out_.back().payload()}, false);
    }
  };
  take_control();
  while (auto seg = sender_->poll_data(now)) {
    put_segment(*seg);
    take_control();
  }
  flush();
  // What this process sent left now, which may be long after `now` on a loaded host: the
  // sender counts its request timers and pacing windows from here (Sender::sent).
  sender_->sent(clock());
  control_out_.clear();
  buffers_used_ = 0;
  timer_.set(sender_->next_timeout());
  if (on_progress_) on_progress_();
}

nlohmann::ordered_json SenderNode::stats_json() const {
  nlohmann::ordered_json j;
  j["role"] = "sender";
  j["sender"] = to_json(sender_->stats());
  j["data"] = {{"packets", stats_.data_packets},
               {"octets", stats_.data_octets},
               {"rocev2_packets", stats_.rocev2_packets},
               {"nacks_received", stats_.nacks_received},
               {"nacks_malformed", stats_.nacks_malformed}};
  j["sockets"] = {{"rdcc", to_json(rdcc_.stats())}, {"data", to_json(data_.stats())}};
  return j;
}

}  // namespace rdcc::udp
