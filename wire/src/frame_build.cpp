// Building Ethernet frames for capture files (frame.hpp: udp_frame, ethernet_frame).
#include <stdexcept>

#include "rdcc/codec/bytes.hpp"
#include "rdcc/wire/frame.hpp"
#include "rdcc/wire/ip.hpp"

namespace rdcc::wire {
namespace {

constexpr std::uint16_t kEtherTypeIpv4 = 0x0800;
constexpr std::uint16_t kEtherTypeIpv6 = 0x86DD;
constexpr std::size_t kEthernetSize = 14;

// A locally administered MAC address derived from the IP address, so that Wireshark's
// Ethernet columns stay readable and stable.
void write_mac(ByteWriter& w, const Address& a) {
  const std::size_t size = a.ipv6 ? 16 : 4;
  w.write<std::uint8_t>(0x02);
  w.write<std::uint8_t>(0x00);
  for (std::size_t i = size - 4; i < size; ++i) w.write(a.ip[i]);
}

void write_ethernet_header(ByteWriter& w, const Address& src, const Address& dst) {
  write_mac(w, dst);
  write_mac(w, src);
  w.write<std::uint16_t>(src.ipv6 ? kEtherTypeIpv6 : kEtherTypeIpv4);
}

}  // namespace

std::vector<std::byte> udp_frame(const Address& src, const Address& dst,
                                 std::span<const std::byte> payload) {
  UdpHeaders h;
  h.source = src;
  h.destination = dst;
  std::vector<std::byte> frame(kEthernetSize + ip_header_size(src.ipv6) + kUdpHeaderSize +
                               payload.size());
  ByteWriter w(frame);
  write_ethernet_header(w, src, dst);
  auto written = encode_udp(h, payload, std::span(frame).subspan(kEthernetSize));
  if (!written) throw std::invalid_argument("udp_frame: " + written.error().describe());
  return frame;
}

std::vector<std::byte> ethernet_frame(std::span<const std::byte> ip_packet) {
  Address src;
  Address dst;
  const std::uint8_t version =
      ip_packet.empty() ? 0 : std::to_integer<std::uint8_t>(ip_packet[0]) >> 4;
  const std::size_t addresses_at = version == 6 ? 8 : 12;
  const std::size_t address_size = version == 6 ? 16 : 4;
  if ((version != 4 && version != 6) || ip_packet.size() < addresses_at + 2 * address_size) {
    throw std::invalid_argument("ethernet_frame: not an IPv4 or IPv6 header (" +
                                std::to_string(ip_packet.size()) + " octets, version " +
                                std::to_string(version) + ")");
  }
  src.ipv6 = dst.ipv6 = version == 6;
  for (std::size_t i = 0; i < address_size; ++i) {
    src.ip[i] = std::to_integer<std::uint8_t>(ip_packet[addresses_at + i]);
    dst.ip[i] = std::to_integer<std::uint8_t>(ip_packet[addresses_at + address_size + i]);
  }
  std::vector<std::byte> frame(kEthernetSize + ip_packet.size());
  ByteWriter w(frame);
  write_ethernet_header(w, src, dst);
  for (auto b : ip_packet) w.write(std::to_integer<std::uint8_t>(b));
  return frame;
}

}  // namespace rdcc::wire
