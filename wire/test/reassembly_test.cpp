// IP fragment reassembly (reassembly.hpp): IPv4 and IPv6 UDP packets cut into fragments come
// back whole in any order, a repeated fragment is ignored, and what cannot be put together
// (overlaps with other octets, too old, too many pending, never finished) is dropped and told.
#include "rdcc/wire/reassembly.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "rdcc/wire/ip.hpp"

namespace rdcc::wire {
namespace {

using Bytes = std::vector<std::byte>;

Address address(bool ipv6, std::uint8_t last, std::uint16_t port) {
  Address a;
  a.ipv6 = ipv6;
  if (ipv6) {
    a.ip[0] = 0x20;
    a.ip[1] = 0x01;
    a.ip[2] = 0x0d;
    a.ip[3] = 0xb8;
    a.ip[15] = last;
  } else {
    a.ip[0] = 10;
    a.ip[3] = last;
  }
  a.port = port;
  return a;
}

// A UDP packet of `size` payload octets (0, 1, 2, ...).
Bytes udp_packet(bool ipv6, std::size_t size) {
  Bytes payload(size);
  for (std::size_t i = 0; i < size; ++i) payload[i] = static_cast<std::byte>(i & 0xFFU);
  UdpHeaders h{.source = address(ipv6, 2, 40000), .destination = address(ipv6, 1, 50000)};
  h.identification = 0x1234;
  Bytes out(size + 64);
  const auto n = encode_udp(h, payload, out);
  EXPECT_TRUE(n.has_value());
  out.resize(n ? *n : 0);
  return out;
}

// The packet's IP payload cut into fragments of `chunk` octets (a multiple of 8).
std::vector<Bytes> fragments(const Bytes& packet, bool ipv6, std::size_t chunk) {
  const std::size_t header = ipv6 ? kIpv6HeaderSize : kIpv4HeaderSize;
  std::vector<Bytes> out;
  for (std::size_t at = header; at < packet.size(); at += chunk) {
    const std::size_t n = std::min(chunk, packet.size() - at);
    const std::size_t offset = at - header;
    const bool more = at + n < packet.size();
    Bytes f(packet.begin(), packet.begin() + static_cast<std::ptrdiff_t>(header));
    if (ipv6) {
      f[6] = std::byte{44};  // Next Header: Fragment
      const std::size_t length = 8 + n;
      f[4] = static_cast<std::byte>(length >> 8U);
      f[5] = static_cast<std::byte>(length & 0xFFU);
      const std::size_t field = offset | (more ? 1U : 0U);
      const Bytes fragment_header{std::byte{kProtocolUdp},
                                  std::byte{0},
                                  static_cast<std::byte>(field >> 8U),
                                  static_cast<std::byte>(field & 0xFFU),
                                  std::byte{0xCA},
                                  std::byte{0xFE},
                                  std::byte{0x00},
                                  std::byte{0x01}};
      f.insert(f.end(), fragment_header.begin(), fragment_header.end());
    } else {
      const std::size_t total = header + n;
      f[2] = static_cast<std::byte>(total >> 8U);
      f[3] = static_cast<std::byte>(total & 0xFFU);
      const std::size_t field = (offset / 8U) | (more ? 0x2000U : 0U);
      f[6] = static_cast<std::byte>(field >> 8U);
      f[7] = static_cast<std::byte>(field & 0xFFU);
    }
    f.insert(f.end(), packet.begin() + static_cast<std::ptrdiff_t>(at),
             packet.begin() + static_cast<std::ptrdiff_t>(at + n));
    out.push_back(std::move(f));
  }
  return out;
}

std::optional<Bytes> add(Reassembler& r, const Bytes& fragment, std::uint64_t frame,
                         std::int64_t time_ns = 0) {
  const ParsedFrame f = parse_frame(fragment, kLinkTypeRawIp);
  EXPECT_EQ(f.kind, FrameKind::Fragment) << "frame " << frame;
  return r.add(f, frame, time_ns);
}

void expect_same_datagram(const Bytes& whole, const Bytes& original) {
  const ParsedFrame a = parse_frame(whole, kLinkTypeRawIp);
  const ParsedFrame b = parse_frame(original, kLinkTypeRawIp);
  ASSERT_EQ(a.kind, FrameKind::Udp) << describe_malformed(a);
  EXPECT_EQ(a.source, b.source);
  EXPECT_EQ(a.destination, b.destination);
  EXPECT_EQ(a.udp_checksum, b.udp_checksum);
  EXPECT_TRUE(std::equal(a.payload.begin(), a.payload.end(), b.payload.begin(), b.payload.end()));
}

TEST(Reassembly, Ipv4FragmentsInAnyOrder_ComeBackAsTheDatagram) {
  const Bytes packet = udp_packet(false, 1000);
  auto parts = fragments(packet, false, 256);
  ASSERT_EQ(parts.size(), 4U);
  std::reverse(parts.begin(), parts.end());
  Reassembler r;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) EXPECT_FALSE(add(r, parts[i], i + 1));
  EXPECT_EQ(r.pending(), 1U);
  const auto whole = add(r, parts.back(), parts.size());
  ASSERT_TRUE(whole);
  EXPECT_EQ(whole->size(), packet.size());
  expect_same_datagram(*whole, packet);
  EXPECT_EQ(r.pending(), 0U);
  EXPECT_TRUE(r.take_dropped().empty());
}

TEST(Reassembly, Ipv6Fragments_ComeBackOctetForOctet) {
  const Bytes packet = udp_packet(true, 3000);
  const auto parts = fragments(packet, true, 1232);
  ASSERT_EQ(parts.size(), 3U);
  Reassembler r;
  EXPECT_FALSE(add(r, parts[0], 1));
  EXPECT_FALSE(add(r, parts[2], 2));
  const auto whole = add(r, parts[1], 3);
  ASSERT_TRUE(whole);
  EXPECT_EQ(*whole, packet);  // Next Header UDP again, the Payload Length of the whole
}

TEST(Reassembly, AFragmentCapturedTwice_IsIgnored) {
  const Bytes packet = udp_packet(false, 600);
  const auto parts = fragments(packet, false, 304);
  Reassembler r;
  EXPECT_FALSE(add(r, parts[0], 1));
  EXPECT_FALSE(add(r, parts[0], 2));
  const auto whole = add(r, parts[1], 3);
  ASSERT_TRUE(whole);
  expect_same_datagram(*whole, packet);
}

TEST(Reassembly, OverlapWithOtherOctets_DropsThePacket) {
  const Bytes packet = udp_packet(false, 600);
  auto parts = fragments(packet, false, 304);
  Bytes changed = parts[0];
  changed.back() ^= std::byte{0xFF};
  Reassembler r;
  EXPECT_FALSE(add(r, parts[0], 1));
  EXPECT_FALSE(add(r, changed, 2));
  EXPECT_FALSE(add(r, parts[1], 3));  // a new packet of its own now, never finished
  const auto dropped = r.take_dropped();
  ASSERT_EQ(dropped.size(), 1U);
  EXPECT_EQ(dropped[0].first_frame, 1U);
  EXPECT_EQ(dropped[0].last_frame, 2U);
  EXPECT_EQ(dropped[0].why, "overlapping fragments with different octets");
}

TEST(Reassembly, IncompleteAfterTheTimeout_IsDropped) {
  const Bytes packet = udp_packet(true, 3000);
  const auto parts = fragments(packet, true, 1232);
  Reassembler r;
  constexpr std::int64_t kSecond = 1000000000;
  EXPECT_FALSE(add(r, parts[0], 1, 0));
  EXPECT_FALSE(add(r, parts[1], 2, 30 * kSecond));
  EXPECT_FALSE(add(r, parts[2], 3, 31 * kSecond));  // the first fragment is 31 s old
  const auto dropped = r.take_dropped();
  ASSERT_EQ(dropped.size(), 1U);
  EXPECT_EQ(dropped[0].why, "incomplete 30 s after its first fragment");
  EXPECT_EQ(r.pending(), 1U);  // the last fragment starts a packet of its own
  r.finish();
  const auto left = r.take_dropped();
  ASSERT_EQ(left.size(), 1U);
  EXPECT_EQ(left[0].first_frame, 3U);
  EXPECT_EQ(left[0].why, "incomplete at the end of the capture");
}

TEST(Reassembly, AtMostMaxPackets_TheOldestPushedOut) {
  Reassembler r(Reassembler::Limits{.max_packets = 4});
  for (std::uint16_t id = 0; id < 6; ++id) {
    Bytes packet = udp_packet(false, 600);
    packet[4] = static_cast<std::byte>(id >> 8U);
    packet[5] = static_cast<std::byte>(id & 0xFFU);
    EXPECT_FALSE(add(r, fragments(packet, false, 304)[0], id + 1U, id));
  }
  EXPECT_EQ(r.pending(), 4U);
  const auto dropped = r.take_dropped();
  ASSERT_EQ(dropped.size(), 2U);
  EXPECT_EQ(dropped[0].first_frame, 1U);
  EXPECT_EQ(dropped[1].first_frame, 2U);
}

TEST(Reassembly, BeyondTheLargestPacket_IsDropped) {
  const Bytes packet = udp_packet(false, 600);
  Bytes last = fragments(packet, false, 304)[1];
  last[6] = std::byte{0x1F};  // offset 8184 * 8 = 65472 octets: the end beyond 65,535
  last[7] = std::byte{0xF8};
  Reassembler r;
  EXPECT_FALSE(add(r, last, 1));
  const auto dropped = r.take_dropped();
  ASSERT_EQ(dropped.size(), 1U);
  EXPECT_EQ(dropped[0].why, "fragments beyond 65,535 octets");
}

TEST(Reassembly, ParseFrame_TellsFragmentsOfUdpOnly) {
  const Bytes packet = udp_packet(false, 600);
  auto parts = fragments(packet, false, 304);
  const ParsedFrame first = parse_frame(parts[0], kLinkTypeRawIp);
  ASSERT_EQ(first.kind, FrameKind::Fragment);
  EXPECT_EQ(first.fragment.identification, 0x1234U);
  EXPECT_EQ(first.fragment.offset, 0U);
  EXPECT_TRUE(first.fragment.more);
  EXPECT_EQ(first.fragment.data.size(), 304U);
  const ParsedFrame second = parse_frame(parts[1], kLinkTypeRawIp);
  ASSERT_EQ(second.kind, FrameKind::Fragment);
  EXPECT_EQ(second.fragment.offset, 304U);
  EXPECT_FALSE(second.fragment.more);
  parts[1][9] = std::byte{6};  // TCP: not the capture tools' business
  EXPECT_EQ(parse_frame(parts[1], kLinkTypeRawIp).kind, FrameKind::Other);
}

}  // namespace
}  // namespace rdcc::wire
