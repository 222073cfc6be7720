// The opaque and RoCEv2 bindings: fixed vectors, round trips, truncation sweeps, errors.
#include <gtest/gtest.h>

#include <vector>

#include "rdcc/codec/hex.hpp"
#include "rdcc/codec/rocev2.hpp"
#include "rdcc/reference/bindings.hpp"

namespace rdcc::ref {
namespace {

std::vector<std::byte> hex(const char* text) {
  return parse_hex(text).value();
}

TEST(Opaque, FixedVector_EncodesFieldByField) {
  OpaqueHeader h;
  h.flags = opaque_flag::kLast;
  h.payload_length = 4;
  h.message_identifier = 0x101;
  h.offset = 0x40000;
  const std::vector<std::byte> payload = hex("de ad be ef");
  std::vector<std::byte> out(28);
  ASSERT_EQ(*encode_opaque(h, payload, out), 28U);
  EXPECT_EQ(to_hex(out),
            "52 44 01 01 00 00 00 04 00 00 00 00 00 00 01 01 "
            "00 00 00 00 00 04 00 00 de ad be ef");
  auto d = decode_opaque(out);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->header, h);
  EXPECT_TRUE(d->header.last());
  EXPECT_EQ(to_hex(d->payload), "de ad be ef");
  EXPECT_EQ(d->trailing, 0U);
}

// docs/data-transport.md, "Loss recovery": flag NACK, the Binding Value, Offset 0, and one
// (start, end) pair of 64-bit offsets per range.
TEST(Opaque, NackFixedVector_RoundTrips) {
  const DataNack n{Address{}, 0x101, {{0x1000, 0x2000}, {0x40000, 0x40010}}};
  const std::vector<std::byte> out = encode_opaque_nack(n);
  EXPECT_EQ(to_hex(out),
            "52 44 01 08 00 00 00 20 00 00 00 00 00 00 01 01 "
            "00 00 00 00 00 00 00 00 "
            "00 00 00 00 00 00 10 00 00 00 00 00 00 00 20 00 "
            "00 00 00 00 00 04 00 00 00 00 00 00 00 04 00 10");
  auto d = decode_opaque(out);
  ASSERT_TRUE(d);
  auto ranges = decode_opaque_nack(*d);
  ASSERT_TRUE(ranges);
  EXPECT_EQ(*ranges, n.ranges);
}

TEST(Opaque, NackWithEmptyRangeOrPartialPair_IsRejectedWithItsOffset) {
  std::vector<std::byte> out = encode_opaque_nack(DataNack{Address{}, 1, {{8, 9}}});
  out[kOpaqueHeaderSize + 15] = std::byte{8};  // end 8: empty
  auto d = decode_opaque(out);
  ASSERT_TRUE(d);
  auto r = decode_opaque_nack(*d);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, BindingErrorCode::FieldOutOfRange);
  EXPECT_EQ(r.error().offset, kOpaqueHeaderSize);
  out = encode_opaque_nack(DataNack{Address{}, 1, {{8, 9}}});
  out[7] = std::byte{12};  // Payload Length 12: not a whole pair
  out.resize(kOpaqueHeaderSize + 12);
  d = decode_opaque(out);
  ASSERT_TRUE(d);
  EXPECT_EQ(decode_opaque_nack(*d).error().code, BindingErrorCode::PayloadBeyondPacket);
}

TEST(Opaque, RecoversFlag_ReachesTheObservation) {
  DataSegment s;
  s.recovers = true;
  const OpaqueHeader h = opaque_header_for(s);
  EXPECT_EQ(h.flags & opaque_flag::kRecovers, opaque_flag::kRecovers);
  EXPECT_TRUE(observe_opaque(h, Address{}, false, false).recovers);
  EXPECT_FALSE(observe_opaque(OpaqueHeader{}, Address{}, false, false).recovers);
}

TEST(Opaque, EveryPrefix_IsTruncatedAtTheRightFieldOrPayloadBeyondPacket) {
  OpaqueHeader h;
  h.payload_length = 3;
  h.message_identifier = 7;
  const std::vector<std::byte> payload(3);
  std::vector<std::byte> out(27);
  ASSERT_TRUE(encode_opaque(h, payload, out));
  for (std::size_t n = 0; n < out.size(); ++n) {
    auto d = decode_opaque(std::span(out).first(n));
    ASSERT_FALSE(d) << n;
    const std::size_t want = n < 2    ? 0
                             : n < 3  ? 2
                             : n < 4  ? 3
                             : n < 8  ? 4
                             : n < 16 ? 8
                             : n < 24 ? 16
                                      : 4;
    EXPECT_EQ(d.error().offset, want) << n;
    EXPECT_EQ(d.error().code,
              n < 24 ? BindingErrorCode::Truncated : BindingErrorCode::PayloadBeyondPacket)
        << n;
  }
}

TEST(Opaque, BadMagicBadVersionAndOffsetOverflow_AreRejected) {
  std::vector<std::byte> out(24);
  OpaqueHeader h;
  ASSERT_TRUE(encode_opaque(h, {}, out));
  auto bad = out;
  bad[0] = std::byte{0x00};
  EXPECT_EQ(decode_opaque(bad).error().code, BindingErrorCode::BadMagic);
  bad = out;
  bad[2] = std::byte{0x02};
  EXPECT_EQ(decode_opaque(bad).error().code, BindingErrorCode::BadVersion);
  EXPECT_EQ(decode_opaque(bad).error().offset, 2U);
  h.offset = ~0ULL;
  h.payload_length = 1;
  std::vector<std::byte> big(25);
  ASSERT_TRUE(encode_opaque(h, std::vector<std::byte>(1), big));
  EXPECT_EQ(decode_opaque(big).error().code, BindingErrorCode::OffsetOverflow);
}

TEST(Opaque, UndefinedFlagsAndTrailingOctets_AreKeptNotRejected) {
  OpaqueHeader h;
  h.flags = 0xF0;
  std::vector<std::byte> out(30);
  ASSERT_TRUE(encode_opaque(h, {}, out));
  auto d = decode_opaque(out);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->header.flags, 0xF0);
  EXPECT_EQ(d->trailing, 6U);
}

TEST(Opaque, Observation_CarriesIdentifierOffsetAndOctets) {
  DataSegment s;
  s.binding_value = 0x55;
  s.offset = 8192;
  s.length = 4096;
  s.last = true;
  const OpaqueHeader h = opaque_header_for(s);
  EXPECT_TRUE(h.last());
  const DataObservation o = observe_opaque(h, Address::v4(10, 0, 0, 1, 50000), true, false);
  EXPECT_EQ(o.key, 0x55U);
  EXPECT_EQ(o.offset, 8192U);
  EXPECT_EQ(o.octets, 4096U);
  EXPECT_TRUE(o.ce);
  EXPECT_EQ(o.binding, BindingKind::Opaque);
}

TEST(Ipv4Udp, RoundTrip_WithValidChecksums) {
  Ipv4Udp h;
  h.source = {10, 0, 0, 1};
  h.destination = {10, 0, 0, 2};
  h.source_port = 50000;
  h.destination_port = 50001;
  h.dscp = 46;
  h.ecn = kEcnEct0;
  const std::vector<std::byte> payload = hex("01 02 03");
  std::vector<std::byte> out(31);
  ASSERT_EQ(*encode_ipv4_udp(h, payload, out), 31U);
  auto d = decode_ipv4_udp(out);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->header.dscp, 46);
  EXPECT_EQ(d->header.ecn, kEcnEct0);
  EXPECT_EQ(to_hex(d->payload), "01 02 03");
  for (std::size_t n = 0; n < 28; ++n) EXPECT_FALSE(decode_ipv4_udp(std::span(out).first(n))) << n;
}

TEST(Rocev2, AppendixBindingValue_QpnMsnCount) {
  auto plan = plan_rocev2(4U << 20U, 256U << 10U, 0x000123, 5);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->message_count, 16);
  EXPECT_EQ(plan->post_unit, 256U << 10U);
  EXPECT_EQ(plan->binding_value, 0x0001230000050010ULL);
  EXPECT_EQ(unpack_rocev2(plan->binding_value), (Rocev2Binding{0x123, 5, 16}));
  EXPECT_EQ(rdma_message_sizes(4U << 20U, plan->post_unit).size(), 16U);
}

TEST(Rocev2, Plan_EnlargesRdmaMessagesRatherThanOverflowTheCount) {
  auto plan = plan_rocev2(1ULL << 32U, 4096, 1, 0);
  ASSERT_TRUE(plan);
  EXPECT_LE(plan->message_count, 0xFFFF);
  EXPECT_GE(plan->post_unit * plan->message_count, 1ULL << 32U);
  EXPECT_EQ(plan_rocev2(1, 1, 1U << 24U, 0).error().code, BindingErrorCode::FieldOutOfRange);
  EXPECT_EQ(plan_rocev2(0, 0, 1, 0)->message_count, 1);
}

Rocev2Packet sample_packet(Rocev2Opcode op, std::span<const std::byte> payload) {
  Rocev2Packet p;
  p.ip.source = {10, 0, 0, 3};
  p.ip.destination = {10, 0, 0, 2};
  p.ip.source_port = 0xC123;
  p.ip.dscp = 26;
  p.ip.ecn = kEcnEct0;
  p.bth.opcode = op;
  p.bth.destination_qp = 0x000123;
  p.bth.psn = 0x000042;
  if (has_reth(op)) p.reth = Reth{0x10000000, 0xABCD, 262144};
  p.payload = payload;
  return p;
}

TEST(Rocev2, WriteFirst_FixedHeadersAndRoundTrip) {
  const std::vector<std::byte> payload = hex("aa bb cc dd ee");
  const Rocev2Packet p = sample_packet(Rocev2Opcode::WriteFirst, payload);
  std::vector<std::byte> out(rocev2_packet_size(p.bth.opcode, payload.size()));
  ASSERT_EQ(*encode_rocev2(p, out), 20U + 8 + 12 + 16 + 8 + 4);
  // BTH: opcode 0x06, M set, pad 3, P_Key ffff, QPN 0x000123, PSN 0x000042.
  EXPECT_EQ(to_hex(std::span(out).subspan(28, 12)), "06 70 ff ff 00 00 01 23 00 00 00 42");
  // RETH: VA, R_Key, DMA length.
  EXPECT_EQ(to_hex(std::span(out).subspan(40, 16)),
            "00 00 00 00 10 00 00 00 00 00 ab cd 00 04 00 00");
  EXPECT_EQ(std::to_integer<int>(out[22]) << 8 | std::to_integer<int>(out[23]), 4791);
  auto d = decode_rocev2(out);
  ASSERT_TRUE(d) << d.error().describe();
  EXPECT_EQ(d->bth.opcode, Rocev2Opcode::WriteFirst);
  EXPECT_EQ(d->bth.pad_count, 3);
  EXPECT_EQ(d->bth.destination_qp, 0x123U);
  EXPECT_EQ(*d->reth, *p.reth);
  EXPECT_EQ(to_hex(d->payload), "aa bb cc dd ee");
}

TEST(Rocev2, CorruptedOctet_IsBadIcrcAndMaskedFieldsAreNot) {
  const std::vector<std::byte> payload(8);
  const Rocev2Packet p = sample_packet(Rocev2Opcode::WriteOnly, payload);
  std::vector<std::byte> out(rocev2_packet_size(p.bth.opcode, payload.size()));
  ASSERT_TRUE(encode_rocev2(p, out));
  auto ce = out;
  ce[1] = std::byte{(26 << 2) | kEcnCe};  // a switch marks CE: TOS is masked
  ce[10] = std::byte{0};                  // and the IP checksum would be rewritten
  EXPECT_TRUE(decode_rocev2(ce));
  auto bad = out;
  bad[60] ^= std::byte{1};
  EXPECT_EQ(decode_rocev2(bad).error().code, BindingErrorCode::BadIcrc);
  EXPECT_TRUE(decode_rocev2(bad, false));
}

TEST(Rocev2, EveryPrefix_FailsAndErrorsNameTheirField) {
  const std::vector<std::byte> payload(4);
  const Rocev2Packet p = sample_packet(Rocev2Opcode::WriteOnly, payload);
  std::vector<std::byte> out(rocev2_packet_size(p.bth.opcode, payload.size()));
  ASSERT_TRUE(encode_rocev2(p, out));
  for (std::size_t n = 0; n < out.size(); ++n)
    EXPECT_FALSE(decode_rocev2(std::span(out).first(n))) << n;
  auto op = out;
  op[28] = std::byte{0x04};  // SEND Only: not an RDMA WRITE
  EXPECT_EQ(decode_rocev2(op, false).error().code, BindingErrorCode::UnsupportedOpcode);
  auto tver = out;
  tver[29] = std::byte{0x41};
  EXPECT_EQ(decode_rocev2(tver, false).error().code, BindingErrorCode::BadTransportVersion);
}

Rocev2Packet sample_packet_ipv6(Rocev2Opcode op, std::span<const std::byte> payload) {
  Rocev2Packet p = sample_packet(op, payload);
  p.ipv6 = true;
  p.ip.source = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3};
  p.ip.destination = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
  return p;
}

TEST(Rocev2, Ipv6_FixedHeadersRoundTripAndUdpChecksum) {
  const std::vector<std::byte> payload = hex("aa bb cc dd ee");
  const Rocev2Packet p = sample_packet_ipv6(Rocev2Opcode::WriteFirst, payload);
  std::vector<std::byte> out(rocev2_packet_size(p.bth.opcode, payload.size(), true));
  ASSERT_EQ(*encode_rocev2(p, out), 40U + 8 + 12 + 16 + 8 + 4);
  // Version 6, Traffic Class 26 << 2 | ECT(0), Flow Label 0, Payload Length 48, UDP, Hop 64.
  EXPECT_EQ(to_hex(std::span(out).first(8)), "66 a0 00 00 00 30 11 40");
  EXPECT_EQ(to_hex(std::span(out).subspan(40, 6)), "c1 23 12 b7 00 30");
  EXPECT_EQ(to_hex(std::span(out).subspan(48, 12)), "06 70 ff ff 00 00 01 23 00 00 00 42");
  // The ICRC as an independent CRC-32 (Python zlib.crc32) over the masked packet gives it.
  EXPECT_EQ(to_hex(std::span(out).last(4)), "ee 09 a4 30");
  // The UDP checksum over the IPv6 pseudo-header holds: the one's complement sum is all ones.
  std::uint32_t sum = 17U + 48U;
  for (std::size_t i = 8; i < 40; i += 2) {
    sum += std::to_integer<std::uint32_t>(out[i]) << 8 | std::to_integer<std::uint32_t>(out[i + 1]);
  }
  for (std::size_t i = 40; i < out.size(); i += 2) {
    sum += std::to_integer<std::uint32_t>(out[i]) << 8 | std::to_integer<std::uint32_t>(out[i + 1]);
  }
  while (sum >> 16U) sum = (sum & 0xFFFFU) + (sum >> 16U);
  EXPECT_EQ(sum, 0xFFFFU);
  auto d = decode_rocev2(out);
  ASSERT_TRUE(d) << d.error().describe();
  EXPECT_TRUE(d->ipv6);
  EXPECT_EQ(d->ip.source, p.ip.source);
  EXPECT_EQ(d->ip.dscp, 26);
  EXPECT_EQ(d->ip.ecn, kEcnEct0);
  EXPECT_EQ(d->bth.destination_qp, 0x123U);
  EXPECT_EQ(*d->reth, *p.reth);
  EXPECT_EQ(to_hex(d->payload), "aa bb cc dd ee");
}

TEST(Rocev2, Ipv6_MaskedFieldsAreNotCoveredAndEveryOtherOctetIs) {
  const std::vector<std::byte> payload(8);
  const Rocev2Packet p = sample_packet_ipv6(Rocev2Opcode::WriteOnly, payload);
  std::vector<std::byte> out(rocev2_packet_size(p.bth.opcode, payload.size(), true));
  ASSERT_TRUE(encode_rocev2(p, out));
  auto masked = out;
  masked[1] = std::byte{0xF5};  // Traffic Class (a switch marks CE) and the Flow Label
  masked[3] = std::byte{0x42};
  masked[7] = std::byte{0x01};  // Hop Limit
  masked[46] = std::byte{0};    // UDP checksum
  EXPECT_TRUE(decode_rocev2(masked)) << decode_rocev2(masked).error().describe();
  for (const std::size_t at : {std::size_t{9}, std::size_t{41}, std::size_t{53}, out.size() - 5}) {
    auto bad = out;
    bad[at] ^= std::byte{1};
    EXPECT_EQ(decode_rocev2(bad).error().code, BindingErrorCode::BadIcrc) << at;
  }
  auto tcp = out;
  tcp[6] = std::byte{6};
  EXPECT_EQ(decode_rocev2(tcp, false).error().code, BindingErrorCode::NotUdp);
  for (std::size_t n = 0; n < out.size(); ++n) {
    EXPECT_FALSE(decode_rocev2(std::span(out).first(n))) << n;
  }
}

TEST(Rocev2, RequesterAndResponder_CountPerQueuePairAndAttributeByMsn) {
  Rocev2Requester req(0x123, 100, 0xABCD, 0x1000, 4096);
  auto first = req.plan_message(10000, 4096);  // 3 RDMA messages: MSN 0..2
  auto second = req.plan_message(4096, 4096);  // 1 RDMA message: MSN 3
  ASSERT_TRUE(first && second);
  EXPECT_EQ(first->message_count, 3);
  EXPECT_EQ(second->first_msn, 3U);
  Rocev2Responder resp;
  resp.register_message(first->binding_value, 0x101);
  resp.register_message(second->binding_value, 0x102);
  const Address from = Address::v4(10, 0, 0, 3, 50000);
  std::uint64_t counted_first = 0;
  auto feed = [&](const Rocev2Plan& plan, std::uint64_t len, std::uint64_t want_id) {
    for (std::uint64_t off = 0; off < len; off += 2048) {
      const auto seg = static_cast<std::uint32_t>(std::min<std::uint64_t>(2048, len - off));
      for (const auto& h : req.packetize(plan, len, off, seg)) {
        const std::vector<std::byte> payload(h.length);
        Rocev2Packet p = sample_packet(h.bth.opcode, payload);
        p.bth = h.bth;
        p.reth = h.reth;
        std::vector<std::byte> out(rocev2_packet_size(p.bth.opcode, payload.size()));
        ASSERT_TRUE(encode_rocev2(p, out));
        auto d = decode_rocev2(out);
        ASSERT_TRUE(d);
        const auto c = resp.count(*d, from, false);
        EXPECT_EQ(c.message_id, want_id);
        EXPECT_EQ(c.observation.key, 0x123U);
        if (want_id == 0x101) counted_first += c.observation.octets;
      }
    }
  };
  feed(*first, 10000, 0x101);
  feed(*second, 4096, 0x102);
  EXPECT_EQ(counted_first, 10000U);
  const auto* c = resp.counters(0x123);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->payload_octets, 14096U);
  EXPECT_EQ(c->msn, 4U);  // advanced on each Last/Only
  EXPECT_EQ(c->out_of_order, 0U);
}

TEST(Rocev2, Packetize_OpcodesFollowTheRdmaMessageBoundaries) {
  Rocev2Requester req(7, 0, 1, 0, 4096);
  auto plan = req.plan_message(8192, 8192);
  ASSERT_TRUE(plan);
  auto a = req.packetize(*plan, 8192, 0, 4096);
  auto b = req.packetize(*plan, 8192, 4096, 4096);
  ASSERT_EQ(a.size(), 1U);
  ASSERT_EQ(b.size(), 1U);
  EXPECT_EQ(a[0].bth.opcode, Rocev2Opcode::WriteFirst);
  EXPECT_EQ(a[0].reth->dma_length, 8192U);
  EXPECT_EQ(b[0].bth.opcode, Rocev2Opcode::WriteLast);
  EXPECT_EQ(b[0].bth.psn, 1U);
  auto only = req.plan_message(100, 8192);
  EXPECT_EQ(req.packetize(*only, 100, 0, 100)[0].bth.opcode, Rocev2Opcode::WriteOnly);
}

}  // namespace
}  // namespace rdcc::ref
