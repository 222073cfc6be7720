// The simulator's own mechanics: links, queues, impairments and determinism, with raw
// datagrams so that no endpoint behaviour is involved.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "rdcc/sim/network.hpp"

namespace rdcc::sim {
namespace {

using ref::microseconds;

std::vector<std::byte> payload(std::size_t n, std::uint8_t fill = 0) {
  return std::vector<std::byte>(n, std::byte{fill});
}

std::vector<PacketRecord> delivered(const Network& net) {
  std::vector<PacketRecord> out;
  for (const auto& p : net.packets()) {
    if (p.point == PacketRecord::Point::Delivered) out.push_back(p);
  }
  return out;
}

TEST(Network, LinkSerializationAndDelay_AreExact) {
  Network net(1);
  const HostId a = net.add_host({.rate_mbps = 10000, .delay = microseconds(2)});
  const HostId b = net.add_host({.rate_mbps = 10000, .delay = microseconds(2)});
  // 48 octets of UDP payload: a 76-octet IPv4 packet, 60.8 ns at 10 Gbit/s, rounded to 61.
  net.inject(a, net.address(b), payload(48), Time{0}, true);
  net.inject(a, net.address(b), payload(48), Time{0}, true);
  net.run_until_idle(Time{1000000});
  const auto d = delivered(net);
  ASSERT_EQ(d.size(), 2U);
  // NIC 61 ns, link 2 us, switch port 61 ns, link 2 us.
  EXPECT_EQ(d[0].time.ns, 61 + 2000 + 61 + 2000);
  // The second waits for the first on the NIC; then the port is free again when it arrives.
  EXPECT_EQ(d[1].time.ns, 2 * 61 + 2000 + 61 + 2000);
  EXPECT_EQ(d[0].orig_length, 76U);
  EXPECT_EQ(d[0].from, net.address(a));
  EXPECT_EQ(d[0].to, net.address(b));
}

TEST(Network, SlowEgressPort_QueuesAtTheSwitchAtItsOwnRate) {
  Network net(1);
  const HostId a = net.add_host({.rate_mbps = 100000, .delay = microseconds(1)});
  const HostId b = net.add_host({.rate_mbps = 10000, .delay = microseconds(1)});
  for (int i = 0; i < 3; ++i) net.inject(a, net.address(b), payload(1000), Time{0}, false);
  net.run_until_idle(Time{1000000});
  const auto d = delivered(net);
  ASSERT_EQ(d.size(), 3U);
  // 1028 octets: 83 ns at 100G, 823 ns at 10G. The port is the bottleneck.
  EXPECT_EQ(d[0].time.ns, 83 + 1000 + 823 + 1000);
  EXPECT_EQ(d[1].time.ns - d[0].time.ns, 823);
  EXPECT_EQ(d[2].time.ns - d[1].time.ns, 823);
}

TEST(Network, FullQueue_TailDropsArrivals) {
  NetworkConfig cfg;
  cfg.queue.capacity = 2100;  // two 1028-octet packets
  Network net(cfg);
  const HostId a = net.add_host({.rate_mbps = 100000, .delay = microseconds(1)});
  const HostId b = net.add_host({.rate_mbps = 10000, .delay = microseconds(1)});
  for (int i = 0; i < 10; ++i) net.inject(a, net.address(b), payload(1000), Time{0}, false);
  net.run_until_idle(Time{1000000});
  // The first is in service at once; two fit behind it; the port drains one per 823 ns while
  // the others arrive every 83 ns, so the remaining seven are dropped.
  EXPECT_EQ(delivered(net).size(), 3U);
  EXPECT_EQ(net.stats().tail_drops, 7U);
  EXPECT_EQ(net.peak_queue(b), 2056U);
}

TEST(Network, QueueAboveEcnThreshold_MarksCongestionExperienced) {
  NetworkConfig cfg;
  cfg.queue.ecn_threshold = 1000;
  cfg.snap_length = 2048;
  Network net(cfg);
  const HostId a = net.add_host({.rate_mbps = 100000, .delay = microseconds(1)});
  const HostId b = net.add_host({.rate_mbps = 10000, .delay = microseconds(1)});
  for (int i = 0; i < 10; ++i) {
    net.inject(a, net.address(b), payload(1000), Time{0}, false, 0, ref::kEcnEct0);
  }
  net.run_until_idle(Time{1000000});
  const auto d = delivered(net);
  ASSERT_EQ(d.size(), 10U);
  // Occupancy found at enqueue: 0, 0, 1028, 2056, ... : the first two are not marked.
  std::vector<std::uint8_t> ecn;
  ecn.reserve(d.size());
  for (const auto& p : d) ecn.push_back(p.ecn);
  EXPECT_EQ(std::count(ecn.begin(), ecn.end(), ref::kEcnCe), 8);
  EXPECT_EQ(ecn[0], ref::kEcnEct0);
  EXPECT_EQ(ecn[1], ref::kEcnEct0);
  EXPECT_EQ(net.stats().ecn_marked, 8U);
  // The CE mark rewrote the IPv4 header checksum: the record still decodes.
  EXPECT_TRUE(ref::decode_ipv4_udp(d[9].bytes));
}

TEST(Network, NotEctPackets_AreNeverMarked) {
  NetworkConfig cfg;
  cfg.queue.ecn_threshold = 0;
  Network net(cfg);
  const HostId a = net.add_host({.rate_mbps = 100000});
  const HostId b = net.add_host({.rate_mbps = 10000});
  for (int i = 0; i < 5; ++i) net.inject(a, net.address(b), payload(1000), Time{0}, false);
  net.run_until_idle(Time{1000000});
  EXPECT_EQ(net.stats().ecn_marked, 0U);
}

struct ImpairmentRun {
  NetworkStats stats;
  std::size_t delivered = 0;
  std::size_t out_of_order = 0;
  std::uint64_t hash = 0;
};

ImpairmentRun run_impaired(std::uint64_t seed, Impairments imp, int packets) {
  NetworkConfig cfg;
  cfg.seed = seed;
  cfg.control = imp;
  cfg.queue.capacity = 1U << 30U;
  Network net(cfg);
  const HostId a = net.add_host();
  const HostId b = net.add_host();
  for (int i = 0; i < packets; ++i) {
    auto p = payload(8);
    p[0] = std::byte(i & 0xFF);
    p[1] = std::byte((i >> 8) & 0xFF);
    net.inject(a, net.address(b), p, Time{std::int64_t{i} * 1000}, true);
  }
  net.run_until_idle(Time{1000000000});
  ImpairmentRun r;
  r.stats = net.stats();
  int last = -1;
  for (const auto& p : delivered(net)) {
    const int i = std::to_integer<int>(p.bytes[28]) | (std::to_integer<int>(p.bytes[29]) << 8);
    if (i < last) ++r.out_of_order;
    last = std::max(last, i);
    ++r.delivered;
  }
  r.hash = net.trace_hash();
  return r;
}

TEST(Network, Impairments_MatchTheirProbabilitiesAtAFixedSeed) {
  constexpr int kPackets = 20000;
  const Impairments imp{
      .loss = 0.05, .duplicate = 0.10, .reorder = 0.10, .reorder_delay = microseconds(5)};
  const ImpairmentRun r = run_impaired(42, imp, kPackets);
  // Binomial: 3 sigma around the expectation.
  EXPECT_NEAR(static_cast<double>(r.stats.control_lost), 0.05 * kPackets, 3 * 31.0);
  EXPECT_NEAR(static_cast<double>(r.stats.control_duplicated), 0.10 * 0.95 * kPackets, 3 * 42.0);
  EXPECT_NEAR(static_cast<double>(r.stats.control_reordered), 0.10 * 1.045 * kPackets, 3 * 45.0);
  EXPECT_EQ(r.delivered, kPackets - r.stats.control_lost + r.stats.control_duplicated);
  EXPECT_GT(r.out_of_order, 0U);
}

TEST(Network, Impairments_SameSeedSameRunDifferentSeedDifferentRun) {
  const Impairments imp{.loss = 0.1, .duplicate = 0.1, .reorder = 0.1, .delay = 0.2};
  const ImpairmentRun a = run_impaired(7, imp, 2000);
  const ImpairmentRun b = run_impaired(7, imp, 2000);
  const ImpairmentRun c = run_impaired(8, imp, 2000);
  EXPECT_EQ(a.hash, b.hash);
  EXPECT_EQ(a.stats.control_lost, b.stats.control_lost);
  EXPECT_NE(a.hash, c.hash);
}

TEST(Network, NoImpairments_DeliversEverythingInOrder) {
  const ImpairmentRun r = run_impaired(3, Impairments{}, 500);
  EXPECT_EQ(r.delivered, 500U);
  EXPECT_EQ(r.out_of_order, 0U);
}

}  // namespace
}  // namespace rdcc::sim
