// The ns-3 engine as a library (network.hpp): what a run leaves behind in the process. ns-3's
// simulator is process-wide, so the component must carry nothing from one run to the next:
// two runs of one description, one after the other, give the same trace (docs/ns3.md, MPI).
#include "rdcc/ns3/network.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>

namespace rdcc::ns3sim {
namespace {

struct Outcome {
  bool finished = false;
  std::uint64_t trace = 0;
  ref::Time last{};
  std::uint64_t delivered = 0;
};

Outcome incast(Topology topology, std::size_t senders, const std::string& pcap = {}) {
  sim::NetworkConfig config;
  config.seed = 7;
  config.queue.ecn_threshold = 32768;
  config.crn = ref::CrnConfig{};
  Network net(config, topology);
  ref::ReceiverConfig rc;
  rc.budget = 1U << 20U;
  rc.unscheduled_budget = 256U << 10U;
  const HostId receiver = net.add_host();
  net.attach_receiver(receiver, rc);
  for (std::size_t i = 0; i < senders; ++i) {
    const HostId s = net.add_host();
    net.attach_sender(s, ref::SenderConfig{});
    ref::MessageSpec spec;
    spec.receiver = net.address(receiver);
    spec.length = 256U << 10U;
    net.submit(s, spec, ref::Time{static_cast<std::int64_t>(i) * 1000});
  }
  if (!pcap.empty()) net.write_pcap(pcap);
  Outcome o;
  o.finished = net.run_until_done(ref::Time{} + ref::milliseconds(100));
  EXPECT_TRUE(net.checker().ok());
  o.trace = net.trace_hash();
  for (SubmitId i = 0; i < net.submitted(); ++i) o.last = std::max(o.last, net.status(i)->finished);
  o.delivered = net.stats().data_octets_delivered;
  return o;
}

TEST(Ns3Network, TwoRunsInOneProcess_GiveTheSameTrace) {
  const Outcome a = incast(Topology{}, 6);
  const Outcome b = incast(Topology{}, 6);
  ASSERT_TRUE(a.finished);
  EXPECT_EQ(a.trace, b.trace);
  EXPECT_EQ(a.last, b.last);
  EXPECT_EQ(a.delivered, 6U * (256U << 10U));
}

Topology leaf_spine(std::size_t leaves, std::size_t spines, std::size_t hosts_per_leaf) {
  Topology t;
  t.kind = Topology::Kind::LeafSpine;
  t.leaves = leaves;
  t.spines = spines;
  t.hosts_per_leaf = hosts_per_leaf;
  return t;
}

TEST(Ns3Network, LeafSpineIncast_DeliversEveryOctetNearLineRate) {
  const Outcome o = incast(leaf_spine(2, 2, 4), 7);
  ASSERT_TRUE(o.finished);
  EXPECT_EQ(o.delivered, 7U * (256U << 10U));
  // 7 x 256 KiB through the receiver's 100 Gbit/s link: 147 us at line rate; the grants'
  // round trips over two more hops and 1 MiB of G keep it within a third of that.
  EXPECT_GT(o.last.ns, 146'800);
  EXPECT_LT(o.last.ns, 147'000 * 4 / 3);
}

std::string contents(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The switches' own forwarding plane (fabric.cpp) against ns-3's IPv4 forwarding: the same
// packets at the same times, header octets (TTL, checksums, ECN marks) included.
TEST(Ns3Network, SwitchForwarding_LeavesThePacketsAsNs3sStackDoes) {
  Topology t = leaf_spine(3, 2, 3);
  const std::string dir = ::testing::TempDir();
  const Outcome fabric = incast(t, 5, dir + "ns3_forwarding_fabric.pcap");
  t.stack_forwarding = true;
  const Outcome stack = incast(t, 5, dir + "ns3_forwarding_stack.pcap");
  ASSERT_TRUE(fabric.finished);
  EXPECT_EQ(fabric.trace, stack.trace);
  EXPECT_EQ(fabric.last, stack.last);
  EXPECT_EQ(fabric.delivered, 5U * (256U << 10U));
  const std::string a = contents(dir + "ns3_forwarding_fabric.pcap");
  EXPECT_GT(a.size(), 5U * (256U << 10U));
  EXPECT_TRUE(a == contents(dir + "ns3_forwarding_stack.pcap")) << "the two pcaps differ";
}

TEST(Ns3Network, Impairments_AreRefused) {
  sim::NetworkConfig config;
  config.control.loss = 0.1;
  EXPECT_THROW(Network(config, Topology{}), std::invalid_argument);
}

}  // namespace
}  // namespace rdcc::ns3sim
