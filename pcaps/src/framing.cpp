#include "rdcc/pcaps/framing.hpp"

#include <arpa/inet.h>

#include <stdexcept>

#include "rdcc/codec/bytes.hpp"

namespace rdcc::pcaps {
namespace {

constexpr std::uint16_t kEtherTypeIpv4 = 0x0800;
constexpr std::uint16_t kEtherTypeIpv6 = 0x86DD;
constexpr std::uint8_t kProtocolUdp = 17;
constexpr std::size_t kEthernetSize = 14;
constexpr std::size_t kIpv4Size = 20;
constexpr std::size_t kIpv6Size = 40;
constexpr std::size_t kUdpSize = 8;

// RFC 1071 one's-complement sum over `data`, added to `sum`.
std::uint32_t add_ones_complement(std::uint32_t sum, std::span<const std::byte> data) {
  for (std::size_t i = 0; i < data.size(); i += 2) {
    std::uint32_t word = std::to_integer<std::uint32_t>(data[i]) << 8;
    if (i + 1 < data.size()) word |= std::to_integer<std::uint32_t>(data[i + 1]);
    sum += word;
  }
  return sum;
}

std::uint16_t fold(std::uint32_t sum) {
  while ((sum >> 16) != 0) sum = (sum & 0xFFFFU) + (sum >> 16);
  return static_cast<std::uint16_t>(~sum & 0xFFFFU);
}

std::span<const std::byte> address_bytes(const Endpoint& e) {
  return std::as_bytes(std::span(e.address).first(e.ipv6 ? 16 : 4));
}

// A locally administered MAC address derived from the IP address, so that Wireshark's
// Ethernet columns stay readable and stable.
void write_mac(ByteWriter& w, const Endpoint& e) {
  const auto a = address_bytes(e);
  w.write<std::uint8_t>(0x02);
  w.write<std::uint8_t>(0x00);
  for (std::size_t i = a.size() - 4; i < a.size(); ++i) w.write(std::to_integer<std::uint8_t>(a[i]));
}

void write_address(ByteWriter& w, const Endpoint& e) {
  for (auto b : address_bytes(e)) w.write(std::to_integer<std::uint8_t>(b));
}

}  // namespace

Endpoint ipv4_endpoint(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d,
                       std::uint16_t port) {
  Endpoint e;
  e.address[0] = a;
  e.address[1] = b;
  e.address[2] = c;
  e.address[3] = d;
  e.port = port;
  return e;
}

Endpoint ipv6_endpoint(std::uint16_t host, std::uint16_t port) {
  Endpoint e;
  e.ipv6 = true;
  e.address[0] = 0x20;
  e.address[1] = 0x01;
  e.address[2] = 0x0d;
  e.address[3] = 0xb8;
  e.address[14] = static_cast<std::uint8_t>(host >> 8);
  e.address[15] = static_cast<std::uint8_t>(host & 0xFF);
  e.port = port;
  return e;
}

std::string to_string(const Endpoint& e) {
  char text[INET6_ADDRSTRLEN] = {};
  inet_ntop(e.ipv6 ? AF_INET6 : AF_INET, e.address.data(), text, sizeof text);
  return e.ipv6 ? "[" + std::string(text) + "]:" + std::to_string(e.port)
                : std::string(text) + ":" + std::to_string(e.port);
}

std::vector<std::byte> udp_frame(const Endpoint& src, const Endpoint& dst,
                                 std::span<const std::byte> payload) {
  const std::size_t ip_size = src.ipv6 ? kIpv6Size : kIpv4Size;
  const auto udp_length = static_cast<std::uint16_t>(kUdpSize + payload.size());
  std::vector<std::byte> frame(kEthernetSize + ip_size + udp_length);
  ByteWriter w(frame);
  write_mac(w, dst);
  write_mac(w, src);
  w.write<std::uint16_t>(src.ipv6 ? kEtherTypeIpv6 : kEtherTypeIpv4);
  if (src.ipv6) {
    w.write<std::uint32_t>(0x60000000U);  // version 6, traffic class 0, flow label 0
    w.write<std::uint16_t>(udp_length);
    w.write<std::uint8_t>(kProtocolUdp);
    w.write<std::uint8_t>(64);  // hop limit
    write_address(w, src);
    write_address(w, dst);
  } else {
    const std::size_t ip_start = w.position();
    w.write<std::uint8_t>(0x45);  // version 4, IHL 5
    w.write<std::uint8_t>(0);
    w.write<std::uint16_t>(static_cast<std::uint16_t>(kIpv4Size + udp_length));
    w.write<std::uint16_t>(0);       // identification
    w.write<std::uint16_t>(0x4000);  // don't fragment
    w.write<std::uint8_t>(64);       // TTL
    w.write<std::uint8_t>(kProtocolUdp);
    w.write<std::uint16_t>(0);  // header checksum, filled in below
    write_address(w, src);
    write_address(w, dst);
    const auto checksum = fold(add_ones_complement(0, std::span(frame).subspan(ip_start, kIpv4Size)));
    frame[ip_start + 10] = std::byte{static_cast<std::uint8_t>(checksum >> 8)};
    frame[ip_start + 11] = std::byte{static_cast<std::uint8_t>(checksum & 0xFF)};
  }
  const std::size_t udp_start = w.position();
  w.write<std::uint16_t>(src.port);
  w.write<std::uint16_t>(dst.port);
  w.write<std::uint16_t>(udp_length);
  w.write<std::uint16_t>(0);  // checksum, filled in below
  for (auto b : payload) w.write(std::to_integer<std::uint8_t>(b));

  // The pseudo-header of RFC 768 (IPv4) or RFC 8200 section 8.1 (IPv6), then the datagram.
  std::uint32_t sum = add_ones_complement(0, address_bytes(src));
  sum = add_ones_complement(sum, address_bytes(dst));
  sum += kProtocolUdp;
  sum += udp_length;
  sum = add_ones_complement(sum, std::span(frame).subspan(udp_start));
  std::uint16_t checksum = fold(sum);
  if (checksum == 0) checksum = 0xFFFF;  // zero means "no checksum" in UDP
  frame[udp_start + 6] = std::byte{static_cast<std::uint8_t>(checksum >> 8)};
  frame[udp_start + 7] = std::byte{static_cast<std::uint8_t>(checksum & 0xFF)};
  return frame;
}

std::vector<std::byte> ethernet_frame(std::span<const std::byte> ip_packet) {
  Endpoint src;
  Endpoint dst;
  const std::uint8_t version = ip_packet.empty() ? 0 : std::to_integer<std::uint8_t>(ip_packet[0]) >> 4;
  const std::size_t addresses_at = version == 6 ? 8 : 12;
  const std::size_t address_size = version == 6 ? 16 : 4;
  if ((version != 4 && version != 6) || ip_packet.size() < addresses_at + 2 * address_size) {
    throw std::invalid_argument("ethernet_frame: not an IPv4 or IPv6 header (" +
                                std::to_string(ip_packet.size()) + " octets, version " +
                                std::to_string(version) + ")");
  }
  src.ipv6 = dst.ipv6 = version == 6;
  for (std::size_t i = 0; i < address_size; ++i) {
    src.address[i] = std::to_integer<std::uint8_t>(ip_packet[addresses_at + i]);
    dst.address[i] = std::to_integer<std::uint8_t>(ip_packet[addresses_at + address_size + i]);
  }
  std::vector<std::byte> frame(kEthernetSize + ip_packet.size());
  ByteWriter w(frame);
  write_mac(w, dst);
  write_mac(w, src);
  w.write<std::uint16_t>(version == 6 ? kEtherTypeIpv6 : kEtherTypeIpv4);
  for (auto b : ip_packet) w.write(std::to_integer<std::uint8_t>(b));
  return frame;
}

std::optional<UdpDatagram> parse_udp_frame(std::span<const std::byte> frame, std::string& why,
                                           std::size_t original_length) {
  ByteReader r(frame);
  r.skip(12);
  const auto ether_type = r.read<std::uint16_t>();
  UdpDatagram d;
  std::uint8_t protocol = 0;
  if (ether_type == kEtherTypeIpv4) {
    const auto version_ihl = r.read<std::uint8_t>();
    const std::size_t ihl = (version_ihl & 0x0FU) * 4U;
    if ((version_ihl >> 4) != 4 || ihl < kIpv4Size) {
      why = "bad IPv4 header";
      return std::nullopt;
    }
    r.skip(8);
    protocol = r.read<std::uint8_t>();
    r.skip(2);
    for (std::size_t i = 0; i < 4; ++i) d.src.address[i] = r.read<std::uint8_t>();
    for (std::size_t i = 0; i < 4; ++i) d.dst.address[i] = r.read<std::uint8_t>();
    r.skip(ihl - kIpv4Size);
  } else if (ether_type == kEtherTypeIpv6) {
    d.src.ipv6 = d.dst.ipv6 = true;
    r.skip(6);
    protocol = r.read<std::uint8_t>();
    r.skip(1);
    for (auto& b : d.src.address) b = r.read<std::uint8_t>();
    for (auto& b : d.dst.address) b = r.read<std::uint8_t>();
  } else {
    why = "not IPv4 or IPv6 over Ethernet";
    return std::nullopt;
  }
  if (protocol != kProtocolUdp) {
    why = "not UDP";
    return std::nullopt;
  }
  d.src.port = r.read<std::uint16_t>();
  d.dst.port = r.read<std::uint16_t>();
  const auto udp_length = r.read<std::uint16_t>();
  r.skip(2);
  if (r.overflow() || udp_length < kUdpSize) {
    why = "frame cut short";
    return std::nullopt;
  }
  std::size_t payload_size = udp_length - kUdpSize;
  if (r.remaining() < payload_size) {
    // Cut short on the wire, or only by the capture's snap length?
    if (original_length < frame.size() + (payload_size - r.remaining())) {
      why = "frame cut short";
      return std::nullopt;
    }
    payload_size = r.remaining();
    d.truncated = true;
  }
  const auto payload = frame.subspan(r.position(), payload_size);
  d.payload.assign(payload.begin(), payload.end());
  return d;
}

}  // namespace rdcc::pcaps
