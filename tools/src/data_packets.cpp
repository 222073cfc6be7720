// The data packets of a capture (data_packets.hpp).
#include "data_packets.hpp"

#include "rdcc/codec/format.hpp"
#include "rdcc/codec/rocev2.hpp"

namespace rdcc::tools {
namespace {

std::string between(const ParsedFrame& u) {
  return u.source.to_string() + " \u2192 " + u.destination.to_string();
}

}  // namespace

std::uint32_t DataPackets::peer_number(const ref::Address& receiver, const ref::Address& sender) {
  const auto [index, added] = peer_index_.insert({key_of(receiver), key_of(sender)});
  if (added) peers_.emplace_back(receiver, sender);
  return index;
}

std::uint32_t DataPackets::hosts_number(const ref::Address& sender, const ref::Address& receiver) {
  const auto [index, added] = hosts_index_.insert({ip_of(sender), ip_of(receiver)});
  if (added) opaque_seen_.push_back(false);
  return index;
}

std::uint32_t DataPackets::find_message(const MessageRef& r) const {
  const std::uint32_t peer = peer_index_.find({key_of(r.receiver), key_of(r.sender)});
  if (peer == kNone) return kNone;
  return message_index_.find({peer, r.association_id, r.message_id});
}

MessageRef DataPackets::message_ref(std::uint32_t message) const {
  const BoundKey& k = message_index_.key(message);
  const auto& [receiver, sender] = peers_[k.peer];
  return MessageRef{receiver, sender, k.association, k.message};
}

void DataPackets::bind(const CreditRequest& req, const Roles::Sides& s) {
  // A binding whose data is not read (opaque without a data port, RoCEv2 with its port 0)
  // relates no data to its message: it need not be kept until a binding that is read is (from
  // then on it is, as its kind replaces the message's earlier one). A capture holds millions.
  const bool read =
      (req.binding_kind == static_cast<std::uint8_t>(BindingKind::Opaque) && data_port_) ||
      (req.binding_kind == static_cast<std::uint8_t>(BindingKind::RoCEv2) && rocev2_port_ != 0);
  if (!read && message_index_.size() == 0) return;
  const std::uint32_t peer = peer_number(s.receiver, s.sender);
  const auto [message, added] =
      message_index_.insert({peer, req.header.association_id, req.message_id});
  if (added) bindings_.emplace_back();
  Binding& b = bindings_[message];
  b.kind = req.binding_kind;
  if (req.binding_kind == static_cast<std::uint8_t>(BindingKind::Opaque)) {
    const auto [id, id_added] =
        opaque_index_.insert({hosts_number(s.sender, s.receiver), req.binding_value});
    if (id_added) {
      opaque_ids_.push_back(message);
    } else {
      opaque_ids_[id] = message;
    }
  } else if (req.binding_kind == static_cast<std::uint8_t>(BindingKind::RoCEv2)) {
    const Rocev2Binding rb = unpack_rocev2(req.binding_value);
    b.qpn = rb.destination_qpn;
    responders_[ip_of(s.receiver)].register_message(req.binding_value, req.message_id);
    rocev2_ids_[{ip_of(s.receiver), rb.destination_qpn, req.message_id}] = message;
  }
}

DataPackets::Read DataPackets::read(const CapturedFrame& f, const ParsedFrame& u) {
  if (data_port_ && u.destination.port == *data_port_) return opaque(f, u);
  return rocev2(f, u);
}

DataPackets::Read DataPackets::opaque(const CapturedFrame& f, const ParsedFrame& u) {
  Read out;
  const auto p = framing_.decode(u.payload);
  if (!p) {
    out.text = "frame " + std::to_string(f.number) + ": opaque data packet " + between(u) +
               " does not decode: " + p.error().describe() + " [frame offset " +
               std::to_string(u.payload_offset + p.error().offset) + "]";
    return out;
  }
  ++packets_;
  const ref::OpaqueHeader& h = p->header;
  const std::uint32_t hosts = hosts_index_.find({ip_of(u.source), ip_of(u.destination)});
  const std::uint32_t id =
      hosts == kNone ? kNone : opaque_index_.find({hosts, h.message_identifier});
  const bool marked = (h.flags & ref::opaque_flag::kUnscheduled) != 0 ||
                      (unscheduled_dscp_ && u.dscp == *unscheduled_dscp_);
  if (id == kNone) {
    if (keep_early_) {
      auto& kept = early_[{ip_of(u.source), ip_of(u.destination), h.message_identifier}];
      if (kept.size() < kEarlyPackets) {
        Read r;
        r.kind = Read::Kind::Message;
        r.offset = h.offset;
        r.length = h.payload_length;
        r.marked_unscheduled = marked;
        kept.push_back({f.number, r});
      }
    }
    out.kind = Read::Kind::Unrequested;
    out.text = "Message Identifier " + format_hex(h.message_identifier);
    return out;
  }
  opaque_seen_[hosts] = true;  // the message's own hosts: its Binding Value is keyed by them
  out.kind = Read::Kind::Message;
  out.message = message_ref(opaque_ids_[id]);
  out.offset = h.offset;
  out.length = h.payload_length;
  out.marked_unscheduled = marked;
  return out;
}

std::vector<DataPackets::Early> DataPackets::early(const CreditRequest& req,
                                                   const Roles::Sides& s) {
  if (req.binding_kind == static_cast<std::uint8_t>(BindingKind::RoCEv2))
    return early_rocev2(req, s);
  if (req.binding_kind != static_cast<std::uint8_t>(BindingKind::Opaque)) return {};
  auto e = early_.find({ip_of(s.sender), ip_of(s.receiver), req.binding_value});
  if (e == early_.end()) return {};
  std::vector<Early> out = std::move(e->second);
  early_.erase(e);
  const MessageRef r{s.receiver, s.sender, req.header.association_id, req.message_id};
  for (Early& k : out) k.read.message = r;
  opaque_seen_[hosts_number(s.sender, s.receiver)] = true;
  return out;
}

std::vector<DataPackets::Early> DataPackets::early_rocev2(const CreditRequest& req,
                                                          const Roles::Sides& s) {
  const Rocev2Binding rb = unpack_rocev2(req.binding_value);
  auto e = early_rocev2_.find({ip_of(s.receiver), rb.destination_qpn});
  if (e == early_rocev2_.end()) return {};
  const std::uint32_t message =
      find_message({s.receiver, s.sender, req.header.association_id, req.message_id});
  if (message == kNone) return {};
  Binding& b = bindings_[message];
  const MessageRef r = message_ref(message);
  std::vector<Early> out;
  std::vector<EarlyRocev2>& kept = e->second;
  // The packets of the RDMA messages the binding covers (24-bit serial distance from its first
  // MSN); the others stay kept for another request.
  const auto covered = [&](const EarlyRocev2& k) {
    return ((k.msn - rb.first_msn) & kMax24) < rb.message_count;
  };
  for (const EarlyRocev2& k : kept) {
    if (!covered(k)) continue;
    Read read;
    read.kind = Read::Kind::Message;
    read.message = r;
    read.offset = b.rocev2_octets;
    read.length = k.octets;
    read.marked_unscheduled = k.unscheduled_dscp;
    b.rocev2_octets += k.octets;
    out.push_back({k.frame, read});
  }
  std::erase_if(kept, covered);
  if (!out.empty()) rocev2_seen_.insert({ip_of(s.receiver), rb.destination_qpn});
  return out;
}

DataPackets::Read DataPackets::rocev2(const CapturedFrame& f, const ParsedFrame& u) {
  Read out;
  // IPv4 or IPv6. A packet the snap length cut has no ICRC to check (its tail is zeros).
  const auto p = ref::decode_rocev2(u.ip_packet, !u.zero_filled);
  if (!p) {
    out.text = "frame " + std::to_string(f.number) + ": RoCEv2 packet " + between(u) +
               " does not decode: " + p.error().describe();
    return out;
  }
  ++packets_;
  const std::uint32_t qpn = p->bth.destination_qp;
  auto& qp = queue_pairs_[{ip_of(u.destination), qpn}];
  // A retransmission (a PSN not newer than the last, 24-bit serial) is neither new octets
  // nor a new RDMA message: the responder counts it once.
  const std::uint32_t back = (qp.last_psn - p->bth.psn) & kMax24;
  if (qp.started && back < (kMax24 + 1) / 2) {
    out.kind = Read::Kind::Retransmission;
    return out;
  }
  qp.started = true;
  qp.last_psn = p->bth.psn;
  ref::Rocev2Responder& responder = responders_[ip_of(u.destination)];
  const bool dscp = unscheduled_dscp_ && u.dscp == *unscheduled_dscp_;
  const auto counted = responder.count(*p, u.source, dscp);
  auto it = rocev2_ids_.find({ip_of(u.destination), qpn, counted.message_id});
  if (counted.message_id == 0 || it == rocev2_ids_.end()) {
    if (keep_early_) {
      auto& kept = early_rocev2_[{ip_of(u.destination), qpn}];
      if (kept.size() < kEarlyPackets) {
        kept.push_back({f.number, counted.msn, counted.observation.octets,
                        counted.observation.unscheduled_dscp});
      }
    }
    out.kind = Read::Kind::Unrequested;
    out.text = "queue pair " + format_hex(qpn) + " MSN " + std::to_string(counted.msn);
    return out;
  }
  rocev2_seen_.insert({ip_of(u.destination), qpn});
  Binding& b = bindings_[it->second];
  out.kind = Read::Kind::Message;
  out.message = message_ref(it->second);
  out.offset = b.rocev2_octets;
  out.length = counted.observation.octets;
  out.marked_unscheduled = counted.observation.unscheduled_dscp;
  b.rocev2_octets += out.length;
  return out;
}

bool DataPackets::in_capture(const MessageRef& r) const {
  const std::uint32_t message = find_message(r);
  if (message == kNone) return false;
  const Binding& b = bindings_[message];
  if (b.kind == static_cast<std::uint8_t>(BindingKind::Opaque)) {
    const std::uint32_t hosts = hosts_index_.find({ip_of(r.sender), ip_of(r.receiver)});
    return data_port_ && hosts != kNone && opaque_seen_[hosts];
  }
  if (b.kind == static_cast<std::uint8_t>(BindingKind::RoCEv2)) {
    return rocev2_port_ != 0 && rocev2_seen_.count({ip_of(r.receiver), b.qpn}) != 0;
  }
  return false;
}

}  // namespace rdcc::tools
