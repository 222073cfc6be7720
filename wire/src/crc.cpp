// CRC-32 and the RoCEv2 ICRC (crc.hpp).
#include "rdcc/wire/crc.hpp"

#include <array>
#include <cstring>

#include "rdcc/wire/ip.hpp"

namespace rdcc::wire {
namespace {

constexpr std::array<std::uint32_t, 256> make_crc_table() {
  std::array<std::uint32_t, 256> t{};
  for (std::uint32_t i = 0; i < 256; ++i) {
    std::uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1U) != 0 ? 0xEDB88320U ^ (c >> 1U) : c >> 1U;
    t[i] = c;
  }
  return t;
}
constexpr std::array<std::uint32_t, 256> kCrcTable = make_crc_table();

}  // namespace

std::uint32_t crc32_update(std::uint32_t crc, std::span<const std::byte> data) noexcept {
  for (std::byte b : data) {
    crc = kCrcTable[(crc ^ std::to_integer<std::uint32_t>(b)) & 0xFFU] ^ (crc >> 8U);
  }
  return crc;
}

std::uint32_t crc32(std::span<const std::byte> data) noexcept {
  return ~crc32_update(0xFFFFFFFFU, data);
}

std::uint32_t rocev2_icrc(std::span<const std::byte> ip_packet) noexcept {
  const bool ipv6 = !ip_packet.empty() && (std::to_integer<std::uint8_t>(ip_packet[0]) >> 4U) == 6;
  const std::size_t ip = ipv6 ? kIpv6HeaderSize : kIpv4HeaderSize;
  const std::size_t headers = ip + kUdpHeaderSize + kBthSize;
  if (ip_packet.size() < headers + kIcrcSize) return 0;
  std::array<std::byte, kIpv6HeaderSize + kUdpHeaderSize + kBthSize> masked{};
  std::memcpy(masked.data(), ip_packet.data(), headers);
  if (!ipv6) {
    masked[1] = std::byte{0xFF};   // TOS (DSCP, ECN): routers may change it
    masked[8] = std::byte{0xFF};   // TTL
    masked[10] = std::byte{0xFF};  // header checksum
    masked[11] = std::byte{0xFF};
  } else {
    masked[0] |= std::byte{0x0F};  // Traffic Class (4 bits here, 4 in the next octet)
    masked[1] = std::byte{0xFF};   // the rest of it and the Flow Label
    masked[2] = std::byte{0xFF};
    masked[3] = std::byte{0xFF};
    masked[7] = std::byte{0xFF};  // Hop Limit
  }
  masked[ip + 6] = std::byte{0xFF};  // UDP checksum
  masked[ip + 7] = std::byte{0xFF};
  masked[ip + kUdpHeaderSize + 4] = std::byte{0xFF};  // BTH octet 4 (FECN/BECN, resv)
  std::array<std::byte, 8> lrh{};
  lrh.fill(std::byte{0xFF});
  std::uint32_t crc = crc32_update(0xFFFFFFFFU, lrh);
  crc = crc32_update(crc, std::span<const std::byte>(masked).first(headers));
  crc = crc32_update(crc, ip_packet.subspan(headers, ip_packet.size() - headers - kIcrcSize));
  return ~crc;
}

}  // namespace rdcc::wire
