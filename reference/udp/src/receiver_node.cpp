#include <stdexcept>

#include "rdcc/codec/codec.hpp"
#include "rdcc/udp/nodes.hpp"

namespace rdcc::udp {

namespace {

// The endpoint's configuration on this host: its address, and it hears when sends left.
ref::ReceiverConfig bound(ref::ReceiverConfig c, const Address& local) {
  c.local = local;
  c.reports_sends = true;
  return c;
}

Address with_port(Address a, std::uint16_t port) {
  a.port = port;
  return a;
}

}  // namespace

ReceiverNode::ReceiverNode(EventLoop& loop, ReceiverNodeConfig config, ref::Observer* observer)
    : loop_(loop),
      cfg_(std::move(config)),
      observer_(observer),
      rdcc_(cfg_.endpoint.local),
      data_(with_port(cfg_.endpoint.local, cfg_.data_port)),
      timer_(loop, [this] {
        receiver_->on_timeout(monotonic_now());
        service();
      }) {
  if (cfg_.rocev2_port) {
    if (cfg_.endpoint.local.ipv6) {
      throw std::invalid_argument("the RoCEv2 emulation carries IPv4 packets only");
    }
    rocev2_.emplace(with_port(cfg_.endpoint.local, *cfg_.rocev2_port));
  }
  receiver_ = std::make_unique<ref::Receiver>(bound(cfg_.endpoint, rdcc_.local()), observer_,
                                              &random_, cfg_.policy);
  loop_.add(rdcc_.fd(), [this] { on_control_readable(); });
  loop_.add(data_.fd(), [this] { on_data_readable(); });
  if (rocev2_) loop_.add(rocev2_->fd(), [this] { on_rocev2_readable(); });
  service();
}

ReceiverNode::~ReceiverNode() {
  loop_.remove(rdcc_.fd());
  loop_.remove(data_.fd());
  if (rocev2_) loop_.remove(rocev2_->fd());
}

std::optional<Address> ReceiverNode::rocev2_address() const {
  if (!rocev2_) return std::nullopt;
  return rocev2_->local();
}

void ReceiverNode::on_control_readable() {
  rdcc_.receive_turn([&](std::span<const InPacket> batch) {
    const Time now = monotonic_now();
    for (const InPacket& p : batch) {
      if (rocev2_) {
        // The responder learns each RoCEv2 message's MSN span from its request, as the
        // receiver's binding does ("Transport Bindings").
        if (auto m = decode(p.bytes)) {
          if (const auto* r = std::get_if<CreditRequest>(&*m);
              r != nullptr && r->binding_kind == static_cast<std::uint8_t>(BindingKind::RoCEv2)) {
            responder_.register_message(r->binding_value, r->message_id);
          }
        }
      }
      receiver_->on_control(p.from, p.bytes, now);
    }
    service();
  });
}

void ReceiverNode::on_data_readable() {
  data_.receive_turn([&](std::span<const InPacket> batch) {
    const Time now = monotonic_now();
    for (const InPacket& p : batch) {
      auto op = cfg_.data_framing.decode(p.bytes);
      if (!op) {
        ++stats_.data_malformed;
        continue;
      }
      const bool ce = ecn_of(p.tos) == ref::kEcnCe;
      const bool unsched = cfg_.unscheduled_dscp && dscp_of(p.tos) == *cfg_.unscheduled_dscp;
      ++stats_.data_packets;
      stats_.data_octets += op->header.payload_length;
      if (ce) ++stats_.data_ce;
      receiver_->on_data(ref::observe_opaque(op->header, p.from, ce, unsched), now);
    }
    service();
  });
}

void ReceiverNode::on_rocev2_readable() {
  std::vector<std::byte> ip_packet;
  rocev2_->receive_turn([&](std::span<const InPacket> batch) {
    const Time now = monotonic_now();
    for (const InPacket& p : batch) {
      // The socket hands over the UDP payload; the ICRC covers the IPv4 header too, which is
      // rebuilt as the sender's kernel wrote it (identification 0 with DF, as Linux sends
      // unconnected UDP; TOS, TTL and checksums are masked by the ICRC anyway).
      ref::Ipv4Udp h;
      h.source = p.from.ip;
      h.destination = rocev2_->local().ip;
      h.source_port = p.from.port;
      // The encoder computes the ICRC for UDP port 4791, whatever port the emulation uses.
      h.destination_port = ref::kRocev2Port;
      h.dscp = dscp_of(p.tos);
      h.ecn = ecn_of(p.tos);
      ip_packet.resize(ref::kIpv4HeaderSize + ref::kUdpHeaderSize + p.bytes.size());
      if (!ref::encode_ipv4_udp(h, p.bytes, ip_packet)) {
        ++stats_.data_malformed;
        continue;
      }
      auto rp = ref::decode_rocev2(ip_packet, cfg_.check_icrc);
      if (!rp) {
        if (rp.error().code == ref::BindingErrorCode::BadIcrc) {
          ++stats_.rocev2_bad_icrc;
        } else {
          ++stats_.data_malformed;
        }
        continue;
      }
      const bool unsched = cfg_.unscheduled_dscp && dscp_of(p.tos) == *cfg_.unscheduled_dscp;
      const auto counted = responder_.count(*rp, p.from, unsched);
      ++stats_.rocev2_packets;
      ++stats_.data_packets;
      stats_.data_octets += counted.observation.octets;
      if (counted.observation.ce) ++stats_.data_ce;
      receiver_->on_data(counted.observation, now);
    }
    service();
  });
}

void ReceiverNode::restart(std::uint16_t epoch) {
  ref::ReceiverConfig c = bound(cfg_.endpoint, rdcc_.local());
  c.epoch = epoch;
  cfg_.endpoint.epoch = epoch;
  receiver_ = std::make_unique<ref::Receiver>(c, observer_, &random_, cfg_.policy);
  responder_ = ref::Rocev2Responder();
  out_.clear();
  service();
}

void ReceiverNode::service() {
  while (auto d = receiver_->poll_transmit()) out_.push_back(*d);
  if (!out_.empty()) {
    std::vector<OutPacket> packets;
    packets.reserve(out_.size());
    for (const auto& d : out_) packets.push_back({d.to, tos(d.dscp, 0), d.payload()});
    rdcc_.send(packets);
    out_.clear();
    // They left now, which may be long after the receiver polled them on a loaded host: a
    // grant's credit is reclaimed counting from here (Receiver::sent).
    receiver_->sent(monotonic_now());
  }
  // Opaque transport loss recovery (docs/data-transport.md, "Loss recovery"): NACKs leave
  // from the data port for the sender's RDCC address.
  std::vector<std::pair<Address, std::vector<std::byte>>> nacks;
  while (auto n = receiver_->poll_nack()) nacks.emplace_back(n->to, ref::encode_opaque_nack(*n));
  if (!nacks.empty()) {
    std::vector<OutPacket> packets;
    packets.reserve(nacks.size());
    for (const auto& [to, bytes] : nacks) packets.push_back({to, 0, bytes});
    data_.send(packets);
    stats_.nacks_sent += nacks.size();
  }
  timer_.set(receiver_->next_timeout());
}

nlohmann::ordered_json ReceiverNode::stats_json() const {
  nlohmann::ordered_json j;
  j["role"] = "receiver";
  j["receiver"] = to_json(receiver_->stats());
  j["outstanding_credit"] = receiver_->outstanding_credit();
  j["associations"] = receiver_->association_count();
  j["pending_messages"] = receiver_->pending_messages();
  j["data"] = {{"packets", stats_.data_packets},
               {"octets", stats_.data_octets},
               {"ce", stats_.data_ce},
               {"malformed", stats_.data_malformed},
               {"rocev2_packets", stats_.rocev2_packets},
               {"rocev2_bad_icrc", stats_.rocev2_bad_icrc},
               {"nacks_sent", stats_.nacks_sent}};
  j["sockets"] = {{"rdcc", to_json(rdcc_.stats())}, {"data", to_json(data_.stats())}};
  if (rocev2_) j["sockets"]["rocev2"] = to_json(rocev2_->stats());
  return j;
}

}  // namespace rdcc::udp
