// IPv4 / IPv6 / UDP (ip.hpp) and the frame parser (frame.hpp): round trips through the
// encoders and parse_frame, and malformed packets and frames named by field and offset.
#include "rdcc/wire/ip.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "rdcc/wire/checksum.hpp"
#include "rdcc/wire/frame.hpp"

namespace rdcc::wire {
namespace {

std::vector<std::byte> payload_of(std::size_t n) {
  std::vector<std::byte> p(n);
  for (std::size_t i = 0; i < n; ++i) p[i] = static_cast<std::byte>(i + 1);
  return p;
}

UdpHeaders headers(bool ipv6) {
  UdpHeaders h;
  h.source = ipv6 ? Address::documentation_v6(1, 50000) : Address::v4(10, 0, 0, 1, 50000);
  h.destination = ipv6 ? Address::documentation_v6(2, 50001) : Address::v4(10, 0, 0, 2, 50001);
  h.dscp = 46;
  h.ecn = 2;
  h.ttl = 17;
  h.identification = ipv6 ? 0 : 0x1234;
  return h;
}

std::vector<std::byte> packet(bool ipv6, std::size_t n) {
  std::vector<std::byte> out(ip_header_size(ipv6) + kUdpHeaderSize + n);
  const auto written = encode_udp(headers(ipv6), payload_of(n), out);
  EXPECT_TRUE(written);
  return out;
}

Result<UdpPacket, IpError> decode(bool ipv6, std::span<const std::byte> p) {
  return ipv6 ? decode_ipv6_udp(p) : decode_ipv4_udp(p);
}

TEST(Ip, RoundTrip_Ipv4AndIpv6) {
  for (bool ipv6 : {false, true}) {
    const auto p = packet(ipv6, 33);
    const auto d = decode(ipv6, p);
    ASSERT_TRUE(d) << d.error().describe();
    EXPECT_EQ(d->headers.source, headers(ipv6).source);
    EXPECT_EQ(d->headers.destination, headers(ipv6).destination);
    EXPECT_EQ(d->headers.dscp, 46);
    EXPECT_EQ(d->headers.ecn, 2);
    EXPECT_EQ(d->headers.ttl, 17);
    EXPECT_EQ(d->headers.identification, ipv6 ? 0 : 0x1234);
    EXPECT_EQ(d->total_length, p.size());
    EXPECT_EQ(std::vector<std::byte>(d->payload.begin(), d->payload.end()), payload_of(33));
    // Checksums as a receiver verifies them.
    if (!ipv6) {
      EXPECT_EQ(internet_checksum(std::span(p).first(kIpv4HeaderSize)), 0);
    }
    auto zeroed = p;
    const std::size_t at = ip_header_size(ipv6) + 6;
    zeroed[at] = zeroed[at + 1] = std::byte{0};
    EXPECT_EQ(udp_checksum(d->headers.source, d->headers.destination,
                           std::span(zeroed).subspan(ip_header_size(ipv6))),
              d->udp_checksum);
  }
}

TEST(Ip, EveryPrefix_IsAnErrorNamingAFieldInside) {
  for (bool ipv6 : {false, true}) {
    const auto p = packet(ipv6, 5);
    for (std::size_t n = 0; n < p.size(); ++n) {
      const auto d = decode(ipv6, std::span(p).first(n));
      ASSERT_FALSE(d) << "ipv6=" << ipv6 << " prefix " << n;
      EXPECT_FALSE(d.error().field.empty());
      EXPECT_LE(d.error().offset, p.size());
    }
  }
}

TEST(Ip, UdpLengthBeyondTheIpPayload_NamesUdpLengthAtItsOffset) {
  auto p = packet(false, 10);
  p[24] = std::byte{0x01};  // UDP Length 0x0112
  const auto d = decode_ipv4_udp(p);
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().code, IpErrorCode::LengthBeyondPacket);
  EXPECT_EQ(d.error().field, "udp_length");
  EXPECT_EQ(d.error().offset, 24U);
  EXPECT_EQ(d.error().describe(),
            "length beyond packet (field udp_length, offset 24, value 274, expected 18)");
}

TEST(Ip, TotalLengthBeyondThePacket_NamesTotalLength) {
  auto p = packet(false, 10);
  p.pop_back();
  const auto d = decode_ipv4_udp(p);
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().field, "total_length");
  EXPECT_EQ(d.error().offset, 2U);
}

TEST(Ip, Ipv6PayloadLengthBeyondThePacket_NamesPayloadLength) {
  auto p = packet(true, 10);
  p.pop_back();
  const auto d = decode_ipv6_udp(p);
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().field, "payload_length");
  EXPECT_EQ(d.error().offset, 4U);
}

TEST(Ip, OptionsAndOtherProtocols_AreNamed) {
  auto p = packet(false, 4);
  p[0] = std::byte{0x46};
  EXPECT_EQ(decode_ipv4_udp(p).error().code, IpErrorCode::BadHeaderLength);
  p = packet(false, 4);
  p[9] = std::byte{6};
  EXPECT_EQ(decode_ipv4_udp(p).error().field, "protocol");
  p = packet(true, 4);
  p[6] = std::byte{6};
  EXPECT_EQ(decode_ipv6_udp(p).error().field, "next_header");
  EXPECT_EQ(decode_ipv6_udp(packet(false, 40)).error().code, IpErrorCode::BadVersion);
}

TEST(Ip, Encode_RefusesWhatDoesNotFit) {
  std::vector<std::byte> small(20);
  EXPECT_EQ(encode_udp(headers(false), payload_of(4), small).error().code,
            IpErrorCode::BufferTooSmall);
  UdpHeaders mixed = headers(false);
  mixed.destination = Address::documentation_v6(2, 1);
  std::vector<std::byte> out(100);
  EXPECT_EQ(encode_udp(mixed, {}, out).error().field, "destination");
  UdpHeaders bad = headers(false);
  bad.dscp = 64;
  EXPECT_EQ(encode_udp(bad, {}, out).error().field, "tos");
  std::vector<std::byte> big(70000);
  EXPECT_EQ(encode_udp(headers(false), std::span(big).first(65520), big).error().field,
            "total_length");
}

// ---- parse_frame ---------------------------------------------------------------------------

TEST(Frame, UdpFrame_ParsesBackToItsAddressesAndPayload) {
  for (bool ipv6 : {false, true}) {
    const UdpHeaders h = headers(ipv6);
    const auto frame = udp_frame(h.source, h.destination, payload_of(21));
    const ParsedFrame f = parse_frame(frame, kLinkTypeEthernet);
    ASSERT_EQ(f.kind, FrameKind::Udp) << describe_malformed(f);
    EXPECT_EQ(f.source, h.source);
    EXPECT_EQ(f.destination, h.destination);
    EXPECT_EQ(f.payload_offset, 14 + ip_header_size(ipv6) + kUdpHeaderSize);
    EXPECT_EQ(std::vector<std::byte>(f.payload.begin(), f.payload.end()), payload_of(21));
    // The simulator's packets framed the same way.
    EXPECT_EQ(ethernet_frame(std::span(frame).subspan(14)), frame);
  }
}

TEST(Frame, VlanTag_IsSkipped) {
  const UdpHeaders h = headers(false);
  auto frame = udp_frame(h.source, h.destination, payload_of(3));
  const std::array<std::byte, 4> tag{std::byte{0x81}, std::byte{0x00}, std::byte{0x00},
                                     std::byte{0x07}};
  frame.insert(frame.begin() + 12, tag.begin(), tag.end());
  const ParsedFrame f = parse_frame(frame, kLinkTypeEthernet);
  ASSERT_EQ(f.kind, FrameKind::Udp) << describe_malformed(f);
  EXPECT_EQ(f.payload.size(), 3U);
}

TEST(Frame, EveryPrefix_IsMalformedWithAnOffsetInsideTheFrame) {
  const UdpHeaders h = headers(true);
  const auto frame = udp_frame(h.source, h.destination, payload_of(9));
  for (std::size_t n = 0; n < frame.size(); ++n) {
    const ParsedFrame f = parse_frame(std::span(frame).first(n), kLinkTypeEthernet);
    ASSERT_EQ(f.kind, FrameKind::Malformed) << "prefix " << n;
    EXPECT_FALSE(f.what.empty());
    EXPECT_LE(f.offset, frame.size());
  }
}

TEST(Frame, BadIpv4HeaderLength_NamesTheFieldAndOffset) {
  const UdpHeaders h = headers(false);
  auto frame = udp_frame(h.source, h.destination, payload_of(3));
  frame[14] = std::byte{0x43};  // IHL 3
  const ParsedFrame f = parse_frame(frame, kLinkTypeEthernet);
  ASSERT_EQ(f.kind, FrameKind::Malformed);
  EXPECT_EQ(describe_malformed(f), "IPv4 header length is below 20 (value 12) at offset 14");
}

TEST(Frame, UnknownLinkType_IsMalformedNotACrash) {
  const auto frame = payload_of(40);
  const ParsedFrame f = parse_frame(frame, 147);
  EXPECT_EQ(f.kind, FrameKind::Malformed);
  EXPECT_FALSE(link_type_supported(147));
}

}  // namespace
}  // namespace rdcc::wire
