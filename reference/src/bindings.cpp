// Transport bindings (bindings.hpp): the opaque UDP data transport (docs/data-transport.md)
// and RoCEv2 ("Transport Bindings", Binding Kind 1).
#include "rdcc/reference/bindings.hpp"

#include <algorithm>
#include <array>
#include <cassert>
#include <cstring>
#include <limits>

#include "rdcc/codec/bytes.hpp"
#include "rdcc/codec/rocev2.hpp"
#include "rdcc/wire/checksum.hpp"
#include "rdcc/wire/crc.hpp"
#include "rdcc/wire/ip.hpp"

namespace rdcc::ref {
namespace {

Failure<BindingError> error(BindingErrorCode code, std::size_t offset, std::string_view field,
                            std::uint64_t actual = 0, std::uint64_t expected = 0) {
  return fail(BindingError{code, offset, field, actual, expected});
}

// The wire layer's error, as this binding reports it (the codes correspond one to one).
BindingError binding_error(const wire::IpError& e) {
  BindingErrorCode code = BindingErrorCode::Truncated;
  switch (e.code) {
    case wire::IpErrorCode::Truncated: code = BindingErrorCode::Truncated; break;
    case wire::IpErrorCode::BadVersion: code = BindingErrorCode::BadVersion; break;
    case wire::IpErrorCode::BadHeaderLength: code = BindingErrorCode::BadHeaderLength; break;
    case wire::IpErrorCode::NotUdp: code = BindingErrorCode::NotUdp; break;
    case wire::IpErrorCode::LengthBeyondPacket: code = BindingErrorCode::PayloadBeyondPacket; break;
    case wire::IpErrorCode::BufferTooSmall: code = BindingErrorCode::BufferTooSmall; break;
    case wire::IpErrorCode::FieldOutOfRange: code = BindingErrorCode::FieldOutOfRange; break;
  }
  return BindingError{code, e.offset, e.field, e.actual, e.expected};
}

wire::UdpHeaders udp_headers(const Ipv4Udp& h, bool ipv6) {
  wire::UdpHeaders u;
  u.source.ip = h.source;
  u.source.ipv6 = ipv6;
  u.source.port = h.source_port;
  u.destination.ip = h.destination;
  u.destination.ipv6 = ipv6;
  u.destination.port = h.destination_port;
  u.dscp = h.dscp;
  u.ecn = h.ecn;
  u.ttl = h.ttl;
  u.identification = h.identification;
  return u;
}

Ipv4UdpPacket from_wire(const wire::UdpPacket& w) {
  Ipv4UdpPacket p;
  p.header.source = w.headers.source.ip;
  p.header.destination = w.headers.destination.ip;
  p.header.source_port = w.headers.source.port;
  p.header.destination_port = w.headers.destination.port;
  p.header.dscp = w.headers.dscp;
  p.header.ecn = w.headers.ecn;
  p.header.ttl = w.headers.ttl;
  p.header.identification = w.headers.identification;
  p.header.total_length = w.total_length;
  p.header.ip_checksum = w.ip_checksum;
  p.header.udp_checksum = w.udp_checksum;
  p.payload = w.payload;
  return p;
}

// IP header size of a RoCEv2 packet by its version field (IPv6: no extension headers).
std::size_t rocev2_ip_header_size(std::span<const std::byte> ip_packet) {
  const bool ipv6 = !ip_packet.empty() && (std::to_integer<std::uint8_t>(ip_packet[0]) >> 4U) == 6;
  return ipv6 ? kIpv6HeaderSize : kIpv4HeaderSize;
}

bool valid_opcode(std::uint8_t op) {
  return op == 0x06 || op == 0x07 || op == 0x08 || op == 0x0A;
}

}  // namespace

std::string_view to_string(BindingErrorCode code) noexcept {
  switch (code) {
    case BindingErrorCode::Truncated: return "truncated";
    case BindingErrorCode::BadMagic: return "bad magic";
    case BindingErrorCode::BadVersion: return "bad version";
    case BindingErrorCode::PayloadBeyondPacket: return "payload beyond packet";
    case BindingErrorCode::OffsetOverflow: return "offset overflow";
    case BindingErrorCode::BadHeaderLength: return "bad header length";
    case BindingErrorCode::NotUdp: return "not UDP";
    case BindingErrorCode::BadTransportVersion: return "bad transport version";
    case BindingErrorCode::UnsupportedOpcode: return "unsupported opcode";
    case BindingErrorCode::BadPadCount: return "bad pad count";
    case BindingErrorCode::BadIcrc: return "bad ICRC";
    case BindingErrorCode::BufferTooSmall: return "buffer too small";
    case BindingErrorCode::FieldOutOfRange: return "field out of range";
  }
  return "?";
}

std::string BindingError::describe() const {
  return wire::describe_field_error(to_string(code), field, offset, actual, expected);
}

// ---- IPv4 + UDP ---------------------------------------------------------------------------

Result<std::size_t, BindingError> encode_ipv4_udp(Ipv4Udp h, std::span<const std::byte> payload,
                                                  std::span<std::byte> out) noexcept {
  auto n = wire::encode_udp(udp_headers(h, false), payload, out);
  if (!n) return fail(binding_error(n.error()));
  return *n;
}

Result<Ipv4UdpPacket, BindingError> decode_ipv4_udp(std::span<const std::byte> packet) noexcept {
  auto p = wire::decode_ipv4_udp(packet);
  if (!p) return fail(binding_error(p.error()));
  return from_wire(*p);
}

// ---- opaque -------------------------------------------------------------------------------

OpaqueHeader opaque_header_for(const DataSegment& s) noexcept {
  OpaqueHeader h;
  h.flags = static_cast<std::uint8_t>((s.last ? opaque_flag::kLast : 0U) |
                                      (s.unscheduled ? opaque_flag::kUnscheduled : 0U) |
                                      (s.recovers ? opaque_flag::kRecovers : 0U));
  h.payload_length = s.length;
  h.message_identifier = s.binding_value;
  h.offset = s.offset;
  return h;
}

Result<std::size_t, BindingError> encode_opaque(const OpaqueHeader& h,
                                                std::span<const std::byte> payload,
                                                std::span<std::byte> out) noexcept {
  if (payload.size() != h.payload_length) {
    return error(BindingErrorCode::FieldOutOfRange, 4, "payload_length", h.payload_length,
                 payload.size());
  }
  const std::size_t total = kOpaqueHeaderSize + payload.size();
  if (out.size() < total)
    return error(BindingErrorCode::BufferTooSmall, 0, "packet", out.size(), total);
  ByteWriter w(out);
  w.u16(h.magic);
  w.u8(h.version);
  w.u8(h.flags);
  w.u32(h.payload_length);
  w.u64(h.message_identifier);
  w.u64(h.offset);
  assert(w.position() == kOpaqueHeaderSize && !w.overflow());
  if (!payload.empty()) std::memcpy(out.data() + kOpaqueHeaderSize, payload.data(), payload.size());
  return total;
}

Result<OpaquePacket, BindingError> decode_opaque(std::span<const std::byte> udp_payload) noexcept {
  ByteReader r(udp_payload);
  OpaquePacket p;
  p.header.magic = r.u16();
  if (r.overflow()) return error(BindingErrorCode::Truncated, 0, "magic", udp_payload.size(), 2);
  if (p.header.magic != kOpaqueMagic) {
    return error(BindingErrorCode::BadMagic, 0, "magic", p.header.magic, kOpaqueMagic);
  }
  p.header.version = r.u8();
  if (r.overflow()) return error(BindingErrorCode::Truncated, 2, "version", udp_payload.size(), 3);
  if (p.header.version != kOpaqueVersion) {
    return error(BindingErrorCode::BadVersion, 2, "version", p.header.version, kOpaqueVersion);
  }
  p.header.flags = r.u8();
  if (r.overflow()) return error(BindingErrorCode::Truncated, 3, "flags", udp_payload.size(), 4);
  p.header.payload_length = r.u32();
  if (r.overflow())
    return error(BindingErrorCode::Truncated, 4, "payload_length", udp_payload.size(), 8);
  p.header.message_identifier = r.u64();
  if (r.overflow()) {
    return error(BindingErrorCode::Truncated, 8, "message_identifier", udp_payload.size(), 16);
  }
  p.header.offset = r.u64();
  if (r.overflow()) return error(BindingErrorCode::Truncated, 16, "offset", udp_payload.size(), 24);
  if (p.header.payload_length > r.remaining()) {
    return error(BindingErrorCode::PayloadBeyondPacket, 4, "payload_length",
                 p.header.payload_length, r.remaining());
  }
  if (p.header.offset > std::numeric_limits<std::uint64_t>::max() - p.header.payload_length) {
    return error(BindingErrorCode::OffsetOverflow, 16, "offset", p.header.offset);
  }
  p.payload = udp_payload.subspan(kOpaqueHeaderSize, p.header.payload_length);
  p.trailing = r.remaining() - p.header.payload_length;
  return p;
}

DataObservation observe_opaque(const OpaqueHeader& h, const Address& sender_rdcc, bool ce,
                               bool unscheduled_dscp) noexcept {
  DataObservation o;
  o.from = sender_rdcc;
  o.binding = BindingKind::Opaque;
  o.key = h.message_identifier;
  o.offset = h.offset;
  o.octets = h.payload_length;
  o.ce = ce;
  o.unscheduled_dscp = unscheduled_dscp;
  o.recovers = (h.flags & opaque_flag::kRecovers) != 0;
  return o;
}

std::vector<std::byte> encode_opaque_nack(const DataNack& nack) {
  const std::size_t n = std::min(nack.ranges.size(), kMaxNackRanges);
  std::vector<std::byte> payload(16 * n);
  ByteWriter pw(payload);
  for (std::size_t i = 0; i < n; ++i) {
    pw.u64(nack.ranges[i].lo);
    pw.u64(nack.ranges[i].hi);
  }
  assert(pw.position() == payload.size() && !pw.overflow());
  OpaqueHeader h;
  h.flags = opaque_flag::kNack;
  h.payload_length = static_cast<std::uint32_t>(payload.size());
  h.message_identifier = nack.key;
  std::vector<std::byte> out(kOpaqueHeaderSize + payload.size());
  const auto written = encode_opaque(h, payload, out);
  assert(written.has_value());
  (void)written;
  return out;
}

Result<std::vector<OctetRange>, BindingError> decode_opaque_nack(const OpaquePacket& packet) {
  const std::size_t n = packet.payload.size() / 16;
  if (packet.payload.size() % 16 != 0) {
    return error(BindingErrorCode::PayloadBeyondPacket, 4, "payload_length", packet.payload.size(),
                 (n + 1) * 16);
  }
  if (n > kMaxNackRanges) {
    return error(BindingErrorCode::FieldOutOfRange, 4, "payload_length", n, kMaxNackRanges);
  }
  std::vector<OctetRange> ranges(n);
  ByteReader r(packet.payload);
  for (std::size_t i = 0; i < n; ++i) {
    ranges[i].lo = r.u64();
    ranges[i].hi = r.u64();
    if (ranges[i].lo >= ranges[i].hi) {
      return error(BindingErrorCode::FieldOutOfRange, kOpaqueHeaderSize + 16 * i, "range",
                   ranges[i].lo, ranges[i].hi);
    }
  }
  return ranges;
}

// ---- RoCEv2 -------------------------------------------------------------------------------

std::string_view to_string(Rocev2Opcode op) noexcept {
  switch (op) {
    case Rocev2Opcode::WriteFirst: return "RDMA_WRITE_FIRST";
    case Rocev2Opcode::WriteMiddle: return "RDMA_WRITE_MIDDLE";
    case Rocev2Opcode::WriteLast: return "RDMA_WRITE_LAST";
    case Rocev2Opcode::WriteOnly: return "RDMA_WRITE_ONLY";
  }
  return "?";
}

std::size_t rocev2_packet_size(Rocev2Opcode op, std::size_t payload_size, bool ipv6) noexcept {
  const std::size_t padded = (payload_size + 3U) & ~std::size_t{3};
  return (ipv6 ? kIpv6HeaderSize : kIpv4HeaderSize) + kUdpHeaderSize + kBthSize +
         (has_reth(op) ? kRethSize : 0) + padded + kIcrcSize;
}

Result<std::size_t, BindingError> encode_rocev2(const Rocev2Packet& p,
                                                std::span<std::byte> out) noexcept {
  if (p.bth.destination_qp > kMax24) {
    return error(BindingErrorCode::FieldOutOfRange, 33, "destination_qp", p.bth.destination_qp,
                 kMax24);
  }
  if (p.bth.psn > kMax24)
    return error(BindingErrorCode::FieldOutOfRange, 37, "psn", p.bth.psn, kMax24);
  if (p.bth.tver > 15) return error(BindingErrorCode::FieldOutOfRange, 29, "tver", p.bth.tver, 15);
  if (has_reth(p.bth.opcode) != p.reth.has_value()) {
    return error(BindingErrorCode::FieldOutOfRange, 40, "reth", p.reth.has_value() ? 1 : 0,
                 has_reth(p.bth.opcode) ? 1 : 0);
  }
  const std::size_t total = rocev2_packet_size(p.bth.opcode, p.payload.size(), p.ipv6);
  if (out.size() < total)
    return error(BindingErrorCode::BufferTooSmall, 0, "packet", out.size(), total);
  const std::size_t ip_header = p.ipv6 ? kIpv6HeaderSize : kIpv4HeaderSize;
  const std::size_t udp_payload = total - ip_header - kUdpHeaderSize;
  if (p.ipv6 && udp_payload + kUdpHeaderSize > 0xFFFFU) {
    return error(BindingErrorCode::FieldOutOfRange, 4, "payload_length", udp_payload, 0xFFFFU);
  }
  const auto pad = static_cast<std::uint8_t>((4U - p.payload.size() % 4U) % 4U);
  // BTH, RETH, payload, pad and ICRC placeholder, written after the IP/UDP headers.
  std::span<std::byte> body = out.subspan(ip_header + kUdpHeaderSize, udp_payload);
  ByteWriter w(body);
  w.u8(static_cast<std::uint8_t>(p.bth.opcode));
  w.u8(static_cast<std::uint8_t>((p.bth.solicited ? 0x80U : 0U) | (p.bth.mig_req ? 0x40U : 0U) |
                                 static_cast<unsigned>(pad << 4U) | p.bth.tver));
  w.u16(p.bth.p_key);
  w.u32((p.bth.fecn ? 0x80000000U : 0U) | (p.bth.becn ? 0x40000000U : 0U) | p.bth.destination_qp);
  w.u32((p.bth.ack_request ? 0x80000000U : 0U) | p.bth.psn);
  if (p.reth) {
    w.u64(p.reth->virtual_address);
    w.u32(p.reth->r_key);
    w.u32(p.reth->dma_length);
  }
  if (!p.payload.empty())
    std::memcpy(body.data() + w.position(), p.payload.data(), p.payload.size());
  std::memset(body.data() + w.position() + p.payload.size(), 0, pad + kIcrcSize);
  Ipv4Udp ip = p.ip;
  ip.destination_port = kRocev2Port;
  // The UDP checksum is zero over IPv4, as RoCEv2 permits (the ICRC protects the packet). IPv6
  // requires one; it covers the ICRC, which masks it, so it is computed last.
  const wire::UdpHeaders headers = udp_headers(ip, p.ipv6);
  auto written = wire::encode_udp_headers(headers, udp_payload, out.first(total), false);
  if (!written) return fail(binding_error(written.error()));
  const std::uint32_t icrc = wire::rocev2_icrc(out.first(total));
  for (std::size_t i = 0; i < 4; ++i) {
    out[total - 4 + i] = static_cast<std::byte>((icrc >> (8U * i)) & 0xFFU);
  }
  if (p.ipv6) {
    const std::uint16_t sum = wire::udp_checksum(
        headers.source, headers.destination, out.subspan(kIpv6HeaderSize, total - kIpv6HeaderSize));
    out[kIpv6HeaderSize + 6] = static_cast<std::byte>(sum >> 8U);
    out[kIpv6HeaderSize + 7] = static_cast<std::byte>(sum & 0xFFU);
  }
  return total;
}

namespace {

// An IPv6 packet's header and UDP header, as decode_ipv4_udp reads IPv4 (no extension headers:
// RoCEv2 carries none).
Result<Ipv4UdpPacket, BindingError> decode_ipv6_udp(std::span<const std::byte> packet) noexcept {
  auto p = wire::decode_ipv6_udp(packet);
  if (!p) return fail(binding_error(p.error()));
  return from_wire(*p);
}

}  // namespace

Result<Rocev2Packet, BindingError> decode_rocev2(std::span<const std::byte> ip_packet,
                                                 bool check_icrc) noexcept {
  const bool ipv6 = rocev2_ip_header_size(ip_packet) == kIpv6HeaderSize;
  auto ip = ipv6 ? decode_ipv6_udp(ip_packet) : decode_ipv4_udp(ip_packet);
  if (!ip) return fail(ip.error());
  Rocev2Packet p;
  p.ip = ip->header;
  p.ipv6 = ipv6;
  const std::span<const std::byte> udp = ip->payload;
  const std::size_t base = (ipv6 ? kIpv6HeaderSize : kIpv4HeaderSize) + kUdpHeaderSize;
  ByteReader r(udp);
  const std::uint8_t op = r.u8();
  if (r.overflow()) return error(BindingErrorCode::Truncated, base, "opcode", udp.size(), kBthSize);
  if (!valid_opcode(op)) return error(BindingErrorCode::UnsupportedOpcode, base, "opcode", op);
  if (udp.size() < kBthSize) {
    return error(BindingErrorCode::Truncated, base + udp.size(), "bth", udp.size(), kBthSize);
  }
  p.bth.opcode = static_cast<Rocev2Opcode>(op);
  const std::uint8_t b1 = r.u8();
  p.bth.solicited = (b1 & 0x80U) != 0;
  p.bth.mig_req = (b1 & 0x40U) != 0;
  p.bth.pad_count = static_cast<std::uint8_t>((b1 >> 4U) & 3U);
  p.bth.tver = static_cast<std::uint8_t>(b1 & 0x0FU);
  if (p.bth.tver != 0)
    return error(BindingErrorCode::BadTransportVersion, base + 1, "tver", p.bth.tver);
  p.bth.p_key = r.u16();
  const std::uint32_t w2 = r.u32();
  p.bth.fecn = (w2 & 0x80000000U) != 0;
  p.bth.becn = (w2 & 0x40000000U) != 0;
  p.bth.destination_qp = w2 & kMax24;
  const std::uint32_t w3 = r.u32();
  p.bth.ack_request = (w3 & 0x80000000U) != 0;
  p.bth.psn = w3 & kMax24;
  if (has_reth(p.bth.opcode)) {
    if (r.remaining() < kRethSize) {
      return error(BindingErrorCode::Truncated, base + kBthSize, "reth", r.remaining(), kRethSize);
    }
    Reth reth;
    reth.virtual_address = r.u64();
    reth.r_key = r.u32();
    reth.dma_length = r.u32();
    p.reth = reth;
  }
  if (r.remaining() < kIcrcSize) {
    return error(BindingErrorCode::Truncated, base + r.position(), "icrc", r.remaining(),
                 kIcrcSize);
  }
  const std::size_t padded = r.remaining() - kIcrcSize;
  if (p.bth.pad_count > padded) {
    return error(BindingErrorCode::BadPadCount, base + 1, "pad_count", p.bth.pad_count, padded);
  }
  p.payload = udp.subspan(r.position(), padded - p.bth.pad_count);
  const std::size_t icrc_at = base + r.position() + padded;
  p.icrc = 0;
  for (std::size_t i = 0; i < 4; ++i) {
    p.icrc |= std::to_integer<std::uint32_t>(ip_packet[icrc_at + i]) << (8U * i);
  }
  if (check_icrc) {
    const std::uint32_t want = wire::rocev2_icrc(ip_packet.first(icrc_at + kIcrcSize));
    if (want != p.icrc) return error(BindingErrorCode::BadIcrc, icrc_at, "icrc", p.icrc, want);
  }
  return p;
}

Result<Rocev2Plan, BindingError> plan_rocev2(std::uint64_t length, std::uint64_t rdma_message_size,
                                             std::uint32_t destination_qpn,
                                             std::uint32_t first_msn) noexcept {
  if (destination_qpn > kMax24) {
    return error(BindingErrorCode::FieldOutOfRange, 0, "destination_qpn", destination_qpn, kMax24);
  }
  if (first_msn > kMax24)
    return error(BindingErrorCode::FieldOutOfRange, 0, "first_msn", first_msn, kMax24);
  Rocev2Plan plan;
  plan.first_msn = first_msn;
  if (length == 0) {
    plan.post_unit = 0;
    plan.message_count = 1;
  } else {
    std::uint64_t unit = rdma_message_size == 0 ? length : std::min(rdma_message_size, length);
    // The count field is 16 bits: enlarge the RDMA messages rather than overflow it.
    const std::uint64_t min_unit = (length + 0xFFFEU) / 0xFFFFU;
    unit = std::max(unit, min_unit);
    plan.post_unit = unit;
    plan.message_count = static_cast<std::uint16_t>((length + unit - 1) / unit);
  }
  plan.binding_value = *pack_rocev2(Rocev2Binding{destination_qpn, first_msn, plan.message_count});
  return plan;
}

std::vector<std::uint64_t> rdma_message_sizes(std::uint64_t length, std::uint64_t post_unit) {
  if (length == 0 || post_unit == 0) return {length};
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t o = 0; o < length; o += post_unit)
    sizes.push_back(std::min(post_unit, length - o));
  return sizes;
}

Rocev2Requester::Rocev2Requester(std::uint32_t destination_qp, std::uint32_t first_psn,
                                 std::uint32_t r_key, std::uint64_t base_va, std::uint32_t pmtu)
    : qp_(destination_qp & kMax24),
      next_psn_(first_psn & kMax24),
      r_key_(r_key),
      base_va_(base_va),
      pmtu_(pmtu == 0 ? 4096 : pmtu) {}

Result<Rocev2Plan, BindingError> Rocev2Requester::plan_message(std::uint64_t length,
                                                               std::uint64_t rdma_message_size) {
  auto plan = plan_rocev2(length, rdma_message_size, qp_, next_msn_);
  if (plan) next_msn_ = (next_msn_ + plan->message_count) & kMax24;
  return plan;
}

std::vector<Rocev2Requester::PacketHeaders> Rocev2Requester::packetize(
    const Rocev2Plan& plan, std::uint64_t length, std::uint64_t offset,
    std::uint32_t segment_length) {
  std::vector<PacketHeaders> out;
  const std::uint64_t unit =
      plan.post_unit == 0 ? std::max<std::uint64_t>(length, 1) : plan.post_unit;
  std::uint64_t at = offset;
  const std::uint64_t end = offset + segment_length;
  do {
    const std::uint64_t unit_start = at - at % unit;
    const std::uint64_t unit_end = std::min(unit_start + unit, length);
    const std::uint64_t piece_end = std::min({end, unit_end, at + pmtu_});
    PacketHeaders h;
    h.offset = at;
    h.length = static_cast<std::uint32_t>(piece_end - at);
    const bool first = at == unit_start;
    const bool last = piece_end == unit_end;
    h.bth.opcode = first && last ? Rocev2Opcode::WriteOnly
                   : first       ? Rocev2Opcode::WriteFirst
                   : last        ? Rocev2Opcode::WriteLast
                                 : Rocev2Opcode::WriteMiddle;
    h.bth.destination_qp = qp_;
    h.bth.psn = next_psn_;
    h.bth.ack_request = last;
    next_psn_ = (next_psn_ + 1) & kMax24;
    if (has_reth(h.bth.opcode)) {
      h.reth =
          Reth{base_va_ + unit_start, r_key_, static_cast<std::uint32_t>(unit_end - unit_start)};
    }
    out.push_back(h);
    at = piece_end;
  } while (at < end);
  return out;
}

void Rocev2Responder::register_message(std::uint64_t binding_value, std::uint64_t message_id) {
  const Rocev2Binding b = unpack_rocev2(binding_value);
  auto& list = spans_[b.destination_qpn];
  for (const auto& s : list) {
    if (s.message_id == message_id) return;  // a retransmitted CREDIT_REQUEST
  }
  list.push_back(Span{b.first_msn, b.message_count, message_id});
}

std::uint64_t Rocev2Responder::attribute(std::uint32_t qpn, std::uint32_t msn) const {
  auto it = spans_.find(qpn);
  if (it == spans_.end()) return 0;
  for (const auto& s : it->second) {
    // 24-bit serial distance from the first MSN.
    const std::uint32_t distance = (msn - s.first_msn) & kMax24;
    if (distance < s.count) return s.message_id;
  }
  return 0;
}

Rocev2Responder::Counted Rocev2Responder::count(const Rocev2Packet& p, const Address& sender_rdcc,
                                                bool unscheduled_dscp) {
  Counters& c = qps_[p.bth.destination_qp];
  if (c.started && p.bth.psn != c.expected_psn) ++c.out_of_order;
  c.started = true;
  c.expected_psn = (p.bth.psn + 1) & kMax24;
  c.payload_octets += p.payload.size();
  ++c.packets;
  Counted out;
  out.msn = c.msn;
  out.message_id = attribute(p.bth.destination_qp, c.msn);
  // The responder's MSN counts completed RDMA messages: it advances on Last and Only.
  if (ends_message(p.bth.opcode)) c.msn = (c.msn + 1) & kMax24;
  out.observation.from = sender_rdcc;
  out.observation.binding = BindingKind::RoCEv2;
  out.observation.key = p.bth.destination_qp;
  out.observation.octets = static_cast<std::uint32_t>(p.payload.size());
  out.observation.ce = p.ip.ecn == kEcnCe;
  out.observation.unscheduled_dscp = unscheduled_dscp;
  return out;
}

const Rocev2Responder::Counters* Rocev2Responder::counters(std::uint32_t qpn) const {
  auto it = qps_.find(qpn);
  return it == qps_.end() ? nullptr : &it->second;
}

}  // namespace rdcc::ref
