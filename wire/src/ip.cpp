// IPv4, IPv6 and UDP headers (ip.hpp).
#include "rdcc/wire/ip.hpp"

#include <algorithm>
#include <cassert>
#include <cstring>

#include "rdcc/codec/bytes.hpp"
#include "rdcc/wire/checksum.hpp"

namespace rdcc::wire {
namespace {

Failure<IpError> error(IpErrorCode code, std::size_t offset, std::string_view field,
                       std::uint64_t actual = 0, std::uint64_t expected = 0) {
  return fail(IpError{code, offset, field, actual, expected});
}

void put16(std::span<std::byte> out, std::size_t at, std::uint16_t v) {
  out[at] = static_cast<std::byte>(v >> 8U);
  out[at + 1] = static_cast<std::byte>(v & 0xFFU);
}

}  // namespace

std::string_view to_string(IpErrorCode code) noexcept {
  switch (code) {
    case IpErrorCode::Truncated: return "truncated";
    case IpErrorCode::BadVersion: return "bad version";
    case IpErrorCode::BadHeaderLength: return "bad header length";
    case IpErrorCode::NotUdp: return "not UDP";
    case IpErrorCode::LengthBeyondPacket: return "length beyond packet";
    case IpErrorCode::BufferTooSmall: return "buffer too small";
    case IpErrorCode::FieldOutOfRange: return "field out of range";
  }
  return "?";
}

std::string describe_field_error(std::string_view what, std::string_view field, std::size_t offset,
                                 std::uint64_t actual, std::uint64_t expected) {
  std::string s{what};
  s += " (field ";
  s += field;
  s += ", offset " + std::to_string(offset);
  s += ", value " + std::to_string(actual);
  if (expected != 0) s += ", expected " + std::to_string(expected);
  s += ")";
  return s;
}

std::string IpError::describe() const {
  return describe_field_error(to_string(code), field, offset, actual, expected);
}

Result<std::size_t, IpError> encode_udp_headers(const UdpHeaders& h, std::size_t payload_size,
                                                std::span<std::byte> out,
                                                bool udp_checksum) noexcept {
  const bool ipv6 = h.source.ipv6;
  const std::size_t ip = ip_header_size(ipv6);
  const std::size_t total = ip + kUdpHeaderSize + payload_size;
  const std::size_t udp_length = kUdpHeaderSize + payload_size;
  if (h.destination.ipv6 != ipv6) {
    return error(IpErrorCode::FieldOutOfRange, ipv6 ? 24 : 16, "destination",
                 h.destination.ipv6 ? 6 : 4, ipv6 ? 6 : 4);
  }
  if (!ipv6 && total > 0xFFFFU)
    return error(IpErrorCode::FieldOutOfRange, 2, "total_length", total, 0xFFFFU);
  if (ipv6 && udp_length > 0xFFFFU) {
    return error(IpErrorCode::FieldOutOfRange, 4, "payload_length", udp_length, 0xFFFFU);
  }
  if (out.size() < total) return error(IpErrorCode::BufferTooSmall, 0, "packet", out.size(), total);
  if (h.dscp > 63 || h.ecn > 3) {
    return ipv6 ? error(IpErrorCode::FieldOutOfRange, 0, "traffic_class", h.dscp)
                : error(IpErrorCode::FieldOutOfRange, 1, "tos", h.dscp);
  }
  const auto tos = static_cast<std::uint8_t>((h.dscp << 2U) | h.ecn);
  ByteWriter w(out.first(ip + kUdpHeaderSize));
  if (ipv6) {
    w.u32((6U << 28U) | (std::uint32_t{tos} << 20U));  // version, Traffic Class, Flow Label 0
    w.u16(static_cast<std::uint16_t>(udp_length));     // Payload Length: no extension headers
    w.u8(kProtocolUdp);
    w.u8(h.ttl);
    w.bytes(std::span<const std::uint8_t>(h.source.ip.data(), 16));
    w.bytes(std::span<const std::uint8_t>(h.destination.ip.data(), 16));
  } else {
    w.u8(0x45);  // version 4, IHL 5
    w.u8(tos);
    w.u16(static_cast<std::uint16_t>(total));
    w.u16(h.identification);
    w.u16(0x4000);  // DF, fragment offset 0
    w.u8(h.ttl);
    w.u8(kProtocolUdp);
    w.u16(0);  // checksum, below
    w.bytes(std::span<const std::uint8_t>(h.source.ip.data(), 4));
    w.bytes(std::span<const std::uint8_t>(h.destination.ip.data(), 4));
    put16(out, 10, internet_checksum(out.first(kIpv4HeaderSize)));
  }
  w.u16(h.source.port);
  w.u16(h.destination.port);
  w.u16(static_cast<std::uint16_t>(udp_length));
  w.u16(0);  // checksum, below
  assert(w.position() == ip + kUdpHeaderSize);
  if (udp_checksum) {
    put16(out, ip + 6, wire::udp_checksum(h.source, h.destination, out.subspan(ip, udp_length)));
  }
  return total;
}

Result<std::size_t, IpError> encode_udp(const UdpHeaders& h, std::span<const std::byte> payload,
                                        std::span<std::byte> out) noexcept {
  const std::size_t at = ip_header_size(h.source.ipv6) + kUdpHeaderSize;
  // memmove: the payload may lie in `out` already (built in place, or a caller's one buffer).
  if (out.size() >= at + payload.size() && !payload.empty()) {
    std::memmove(out.data() + at, payload.data(), payload.size());
  }
  return encode_udp_headers(h, payload.size(), out);
}

Result<UdpPacket, IpError> decode_ipv4_udp(std::span<const std::byte> packet) noexcept {
  ByteReader r(packet);
  const std::uint8_t vihl = r.u8();
  if (r.overflow()) return error(IpErrorCode::Truncated, 0, "version", packet.size(), 1);
  if ((vihl >> 4U) != 4) return error(IpErrorCode::BadVersion, 0, "version", vihl >> 4U, 4);
  if ((vihl & 0x0FU) != 5) return error(IpErrorCode::BadHeaderLength, 0, "ihl", vihl & 0x0FU, 5);
  if (packet.size() < kIpv4HeaderSize + kUdpHeaderSize) {
    return error(IpErrorCode::Truncated, packet.size() < kIpv4HeaderSize ? 1 : kIpv4HeaderSize,
                 packet.size() < kIpv4HeaderSize ? "ipv4_header" : "udp_header", packet.size(),
                 kIpv4HeaderSize + kUdpHeaderSize);
  }
  UdpPacket p;
  const std::uint8_t tos = r.u8();
  p.headers.dscp = static_cast<std::uint8_t>(tos >> 2U);
  p.headers.ecn = static_cast<std::uint8_t>(tos & 3U);
  p.total_length = r.u16();
  p.headers.identification = r.u16();
  r.skip(2);
  p.headers.ttl = r.u8();
  const std::uint8_t protocol = r.u8();
  p.ip_checksum = r.u16();
  r.bytes(std::span<std::uint8_t>(p.headers.source.ip.data(), 4));
  r.bytes(std::span<std::uint8_t>(p.headers.destination.ip.data(), 4));
  if (protocol != kProtocolUdp)
    return error(IpErrorCode::NotUdp, 9, "protocol", protocol, kProtocolUdp);
  if (p.total_length > packet.size()) {
    return error(IpErrorCode::LengthBeyondPacket, 2, "total_length", p.total_length, packet.size());
  }
  if (p.total_length < kIpv4HeaderSize + kUdpHeaderSize) {
    return error(IpErrorCode::Truncated, 2, "total_length", p.total_length,
                 kIpv4HeaderSize + kUdpHeaderSize);
  }
  p.headers.source.port = r.u16();
  p.headers.destination.port = r.u16();
  const std::uint16_t udp_length = r.u16();
  p.udp_checksum = r.u16();
  if (udp_length < kUdpHeaderSize || udp_length > p.total_length - kIpv4HeaderSize) {
    return error(IpErrorCode::LengthBeyondPacket, 24, "udp_length", udp_length,
                 p.total_length - kIpv4HeaderSize);
  }
  p.payload = packet.subspan(kIpv4HeaderSize + kUdpHeaderSize, udp_length - kUdpHeaderSize);
  return p;
}

Result<UdpPacket, IpError> decode_ipv6_udp(std::span<const std::byte> packet) noexcept {
  if (packet.size() < kIpv6HeaderSize + kUdpHeaderSize) {
    return error(IpErrorCode::Truncated, packet.size() < kIpv6HeaderSize ? 0 : kIpv6HeaderSize,
                 packet.size() < kIpv6HeaderSize ? "ipv6_header" : "udp_header", packet.size(),
                 kIpv6HeaderSize + kUdpHeaderSize);
  }
  ByteReader r(packet);
  const std::uint32_t first = r.u32();
  if ((first >> 28U) != 6) return error(IpErrorCode::BadVersion, 0, "version", first >> 28U, 6);
  UdpPacket p;
  p.headers.source.ipv6 = p.headers.destination.ipv6 = true;
  const auto tc = static_cast<std::uint8_t>((first >> 20U) & 0xFFU);
  p.headers.dscp = static_cast<std::uint8_t>(tc >> 2U);
  p.headers.ecn = static_cast<std::uint8_t>(tc & 3U);
  const std::uint16_t payload_length = r.u16();
  const std::uint8_t next = r.u8();
  p.headers.ttl = r.u8();
  r.bytes(std::span<std::uint8_t>(p.headers.source.ip.data(), 16));
  r.bytes(std::span<std::uint8_t>(p.headers.destination.ip.data(), 16));
  if (next != kProtocolUdp) return error(IpErrorCode::NotUdp, 6, "next_header", next, kProtocolUdp);
  if (payload_length > packet.size() - kIpv6HeaderSize) {
    return error(IpErrorCode::LengthBeyondPacket, 4, "payload_length", payload_length,
                 packet.size() - kIpv6HeaderSize);
  }
  p.total_length =
      static_cast<std::uint16_t>(std::min<std::size_t>(kIpv6HeaderSize + payload_length, 0xFFFFU));
  p.headers.source.port = r.u16();
  p.headers.destination.port = r.u16();
  const std::uint16_t udp_length = r.u16();
  p.udp_checksum = r.u16();
  if (udp_length < kUdpHeaderSize || udp_length > payload_length) {
    return error(IpErrorCode::LengthBeyondPacket, kIpv6HeaderSize + 4, "udp_length", udp_length,
                 payload_length);
  }
  p.payload = packet.subspan(kIpv6HeaderSize + kUdpHeaderSize, udp_length - kUdpHeaderSize);
  return p;
}

}  // namespace rdcc::wire
