// The data packets of a capture (data_packets.hpp).
#include "data_packets.hpp"

#include <cstdio>

#include "rdcc/codec/rocev2.hpp"

namespace rdcc::tools {
namespace {

std::string hex(std::uint64_t v) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(v));
  return text;
}

std::string between(const ParsedFrame& u) {
  return u.source.to_string() + " \u2192 " + u.destination.to_string();
}

}  // namespace

void DataPackets::bind(const CreditRequest& req, const Roles::Sides& s) {
  const MessageRef r{s.receiver, s.sender, req.header.association_id, req.message_id};
  Binding& b = bindings_[msg_key(r)];
  b.kind = req.binding_kind;
  if (req.binding_kind == static_cast<std::uint8_t>(BindingKind::Opaque)) {
    opaque_ids_[{ip_of(s.sender), ip_of(s.receiver), req.binding_value}] = r;
  } else if (req.binding_kind == static_cast<std::uint8_t>(BindingKind::RoCEv2)) {
    const Rocev2Binding rb = unpack_rocev2(req.binding_value);
    b.qpn = rb.destination_qpn;
    responders_[ip_of(s.receiver)].register_message(req.binding_value, req.message_id);
    rocev2_ids_[{ip_of(s.receiver), rb.destination_qpn, req.message_id}] = r;
  }
}

DataPackets::Read DataPackets::read(const CapturedFrame& f, const ParsedFrame& u) {
  if (data_port_ && u.destination.port == *data_port_) return opaque(f, u);
  return rocev2(f, u);
}

DataPackets::Read DataPackets::opaque(const CapturedFrame& f, const ParsedFrame& u) {
  Read out;
  const auto p = ref::decode_opaque(u.payload);
  if (!p) {
    out.text = "frame " + std::to_string(f.number) + ": opaque data packet " + between(u) +
               " does not decode: " + p.error().describe() + " [frame offset " +
               std::to_string(u.payload_offset + p.error().offset) + "]";
    return out;
  }
  ++packets_;
  const ref::OpaqueHeader& h = p->header;
  auto it = opaque_ids_.find({ip_of(u.source), ip_of(u.destination), h.message_identifier});
  const bool marked = (h.flags & ref::opaque_flag::kUnscheduled) != 0 ||
                      (unscheduled_dscp_ && u.dscp == *unscheduled_dscp_);
  if (it == opaque_ids_.end()) {
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
    out.text = "Message Identifier " + hex(h.message_identifier);
    return out;
  }
  opaque_seen_.insert({ip_of(it->second.sender), ip_of(it->second.receiver)});
  out.kind = Read::Kind::Message;
  out.message = it->second;
  out.offset = h.offset;
  out.length = h.payload_length;
  out.marked_unscheduled = marked;
  return out;
}

std::vector<DataPackets::Early> DataPackets::early(const CreditRequest& req, const Roles::Sides& s) {
  if (req.binding_kind != static_cast<std::uint8_t>(BindingKind::Opaque)) return {};
  auto e = early_.find({ip_of(s.sender), ip_of(s.receiver), req.binding_value});
  if (e == early_.end()) return {};
  std::vector<Early> out = std::move(e->second);
  early_.erase(e);
  const MessageRef r{s.receiver, s.sender, req.header.association_id, req.message_id};
  for (Early& k : out) k.read.message = r;
  opaque_seen_.insert({ip_of(s.sender), ip_of(s.receiver)});
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
    out.kind = Read::Kind::Unrequested;
    out.text = "queue pair " + hex(qpn) + " MSN " + std::to_string(counted.msn);
    return out;
  }
  rocev2_seen_.insert({ip_of(u.destination), qpn});
  Binding& b = bindings_[msg_key(it->second)];
  out.kind = Read::Kind::Message;
  out.message = it->second;
  out.offset = b.rocev2_octets;
  out.length = counted.observation.octets;
  out.marked_unscheduled = counted.observation.unscheduled_dscp;
  b.rocev2_octets += out.length;
  return out;
}

bool DataPackets::in_capture(const MessageRef& r) const {
  const auto b = bindings_.find(msg_key(r));
  if (b == bindings_.end()) return false;
  if (b->second.kind == static_cast<std::uint8_t>(BindingKind::Opaque)) {
    return data_port_ && opaque_seen_.count({ip_of(r.sender), ip_of(r.receiver)}) != 0;
  }
  if (b->second.kind == static_cast<std::uint8_t>(BindingKind::RoCEv2)) {
    return rocev2_port_ != 0 && rocev2_seen_.count({ip_of(r.receiver), b->second.qpn}) != 0;
  }
  return false;
}

}  // namespace rdcc::tools
