// The Internet checksum (checksum.hpp): RFC 1071's worked example, an IPv4 header, and the UDP
// checksum over both pseudo-headers.
#include "rdcc/wire/checksum.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "rdcc/wire/ip.hpp"

namespace rdcc::wire {
namespace {

std::vector<std::byte> octets(std::initializer_list<int> v) {
  std::vector<std::byte> out;
  for (int b : v) out.push_back(static_cast<std::byte>(b));
  return out;
}

TEST(Checksum, Rfc1071Example_SumsToDdf2) {
  // RFC 1071, section 3: the octets 00 01 f2 03 f4 f5 f6 f7 sum to ddf2.
  const auto data = octets({0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7});
  EXPECT_EQ(ones_complement_sum(data), 0xddf2U);
  EXPECT_EQ(internet_checksum(data), 0x220dU);
}

TEST(Checksum, OddLength_LastOctetIsTheHighHalf) {
  EXPECT_EQ(internet_checksum(octets({0x00, 0x01, 0xf2})), static_cast<std::uint16_t>(~0xf201U));
}

TEST(Checksum, SumCarriedOverSpans_EqualsTheSumOfTheWhole) {
  const auto data = octets({0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7});
  const auto first = std::span(data).first(4);
  const auto rest = std::span(data).subspan(4);
  EXPECT_EQ(checksum_of(ones_complement_sum(rest, ones_complement_sum(first))),
            internet_checksum(data));
}

TEST(Checksum, Ipv4Header_KnownValueAndVerifiesToZero) {
  // 192.168.0.1 -> 192.168.0.199, UDP, total length 0x73, DF, TTL 64: checksum 0xb861.
  auto header = octets({0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
                        0x00, 0x00, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7});
  EXPECT_EQ(internet_checksum(header), 0xb861U);
  header[10] = std::byte{0xb8};
  header[11] = std::byte{0x61};
  EXPECT_EQ(internet_checksum(header), 0U);
}

TEST(Checksum, UdpOverIpv4_KnownValue) {
  // 10.0.0.1:50000 -> 10.0.0.2:50001, payload "hi": pseudo-header 0a00 0001 0a00 0002 0011
  // 000a, header c350 c351 000a 0000, payload 6869 sum to 0x20332, folded 0x0334: ~ is 0xfccb.
  const Address src = Address::v4(10, 0, 0, 1, 50000);
  const Address dst = Address::v4(10, 0, 0, 2, 50001);
  const auto datagram = octets({0xc3, 0x50, 0xc3, 0x51, 0x00, 0x0a, 0x00, 0x00, 'h', 'i'});
  EXPECT_EQ(udp_checksum(src, dst, datagram), 0xfccbU);
}

TEST(Checksum, UdpOverIpv6_VerifiesWithThePseudoHeader) {
  Address src;
  src.ipv6 = true;
  src.ip[0] = 0x20;
  src.ip[1] = 0x01;
  src.ip[15] = 1;
  src.port = 7;
  Address dst = src;
  dst.ip[15] = 2;
  dst.port = 9;
  std::vector<std::byte> packet(kIpv6HeaderSize + kUdpHeaderSize + 5);
  const auto payload = octets({1, 2, 3, 4, 5});
  ASSERT_TRUE(encode_udp(UdpHeaders{src, dst}, payload, packet));
  // The receiver's check: the sum over pseudo-header and datagram, checksum included, is 0xFFFF.
  const auto datagram = std::span(packet).subspan(kIpv6HeaderSize);
  std::uint32_t sum = ones_complement_sum(std::as_bytes(std::span(src.ip)));
  sum = ones_complement_sum(std::as_bytes(std::span(dst.ip)), sum);
  sum += 17U + static_cast<std::uint32_t>(datagram.size());
  EXPECT_EQ(checksum_of(ones_complement_sum(datagram, sum)), 0U);
}

}  // namespace
}  // namespace rdcc::wire
