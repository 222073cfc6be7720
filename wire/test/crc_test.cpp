// CRC-32 and the RoCEv2 ICRC (crc.hpp): the standard check value, the masked fields, and the
// ICRC of every RoCEv2 packet an encoder writes checked against an independent bitwise CRC.
#include "rdcc/wire/crc.hpp"

#include <gtest/gtest.h>

#include <string_view>
#include <vector>

#include "rdcc/wire/ip.hpp"

namespace rdcc::wire {
namespace {

std::span<const std::byte> bytes_of(std::string_view s) {
  return std::as_bytes(std::span(s));
}

TEST(Crc32, CheckValue_Of123456789) {
  EXPECT_EQ(crc32(bytes_of("123456789")), 0xCBF43926U);
  EXPECT_EQ(crc32({}), 0U);
}

TEST(Crc32, Update_ContinuesAcrossSpans) {
  const std::uint32_t a = crc32_update(0xFFFFFFFFU, bytes_of("1234"));
  EXPECT_EQ(~crc32_update(a, bytes_of("56789")), 0xCBF43926U);
}

// RoCEv2 packets: IPv4 (20) or IPv6 (40), UDP (8), BTH (12), payload, ICRC (4).
std::vector<std::byte> rocev2_packet(bool ipv6, std::size_t payload) {
  std::vector<std::byte> p(ip_header_size(ipv6) + kUdpHeaderSize + kBthSize + payload + kIcrcSize);
  for (std::size_t i = 0; i < p.size(); ++i) p[i] = static_cast<std::byte>(i * 7 + 3);
  p[0] = std::byte{static_cast<std::uint8_t>(ipv6 ? 0x60 : 0x45)};
  return p;
}

// The ICRC by its definition, bit by bit: no table, the masks spelled out per octet.
std::uint32_t icrc_bitwise(std::span<const std::byte> packet, bool ipv6) {
  std::vector<std::uint8_t> m(8, 0xFF);  // the LRH
  const std::size_t ip = ip_header_size(ipv6);
  for (std::size_t i = 0; i + kIcrcSize < packet.size(); ++i) {
    auto b = std::to_integer<std::uint8_t>(packet[i]);
    const bool masked =
        ipv6 ? (i >= 1 && i <= 3) || i == 7 : i == 1 || i == 8 || i == 10 || i == 11;
    if (masked || i == ip + 6 || i == ip + 7 || i == ip + kUdpHeaderSize + 4) b = 0xFF;
    if (ipv6 && i == 0) b |= 0x0F;
    m.push_back(b);
  }
  std::uint32_t crc = 0xFFFFFFFFU;
  for (std::uint8_t b : m) {
    crc ^= b;
    for (int k = 0; k < 8; ++k) crc = (crc & 1U) != 0 ? (crc >> 1U) ^ 0xEDB88320U : crc >> 1U;
  }
  return ~crc;
}

TEST(Icrc, Ipv4AndIpv6_MatchTheBitwiseDefinition) {
  for (bool ipv6 : {false, true}) {
    for (std::size_t payload : {0U, 1U, 64U, 1000U}) {
      const auto p = rocev2_packet(ipv6, payload);
      EXPECT_EQ(rocev2_icrc(p), icrc_bitwise(p, ipv6)) << "ipv6=" << ipv6 << " payload=" << payload;
    }
  }
}

TEST(Icrc, IgnoresMaskedFieldsAndCoversTheQpn) {
  std::vector<std::byte> pkt(kIpv4HeaderSize + kUdpHeaderSize + kBthSize + kIcrcSize);
  // A packet of all-masked fields: the CRC must not depend on TOS, TTL or checksums.
  const auto a = rocev2_icrc(pkt);
  pkt[1] = std::byte{0x12};
  pkt[8] = std::byte{0x40};
  pkt[26] = std::byte{0x77};
  pkt[kIpv4HeaderSize + kUdpHeaderSize + 4] = std::byte{0x80};
  EXPECT_EQ(rocev2_icrc(pkt), a);
  pkt[kIpv4HeaderSize + kUdpHeaderSize + 5] = std::byte{0x01};  // the QPN is covered
  EXPECT_NE(rocev2_icrc(pkt), a);
}

TEST(Icrc, TooShortForTheHeaders_IsZeroNotARead) {
  std::vector<std::byte> pkt(kIpv4HeaderSize + kUdpHeaderSize + kBthSize + kIcrcSize - 1);
  EXPECT_EQ(rocev2_icrc(pkt), 0U);
  EXPECT_EQ(rocev2_icrc({}), 0U);
}

}  // namespace
}  // namespace rdcc::wire
