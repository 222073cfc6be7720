// The receiver's grant pass when the Pacing Rate is all held ("Credit Allocation", rule 1):
// a message at the head of the grant queue that can get no rate must not wait for the
// holders to drain; the holders are re-granted at their fair share.
#include <gtest/gtest.h>

#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "rdcc/sim/network.hpp"

namespace rdcc::sim {
namespace {

using ref::microseconds;

constexpr std::uint64_t kKiB = 1U << 10U;

std::string violations(Network& net) {
  std::string s;
  for (const auto& v : net.checker().violations()) {
    s += ref::format_time(v.time) + " " + v.rule + ": " + v.detail + "\n";
  }
  return s;
}

struct GrantEvent {
  Time time;
  std::uint64_t limit = 0;
  std::uint32_t rate = 0;
};

// The CREDIT_GRANTs the receiver sent to `to`, in order.
std::vector<GrantEvent> grants_to(const Network& net, const Address& to) {
  std::vector<GrantEvent> out;
  for (const auto& e : net.events().events()) {
    if (e.endpoint != "receiver" || e.name != "tx" || e.fields.value("type", "") != "CREDIT_GRANT")
      continue;
    if (e.fields.at("to").get<std::string>() != to.to_string()) continue;
    out.push_back({e.time, e.fields.at("grant_limit").get<std::uint64_t>(),
                   e.fields.at("pacing_rate").get<std::uint32_t>()});
  }
  return out;
}

// Sender a's 512 KiB message is alone when it is granted: one window (512 KiB) at the whole
// link. Sender b's message arrives 2 µs later.
TEST(GrantStall, LateMessage_GetsAShareAtOnceAndTheHolderIsReGrantedAtALowerRate) {
  NetworkConfig cfg;
  cfg.seed = 3;
  cfg.record_packets = false;
  Network net(cfg);
  ref::ReceiverConfig rc;
  rc.budget = 2048 * kKiB;
  rc.unscheduled_budget = 256 * kKiB;
  rc.grant_window = 512 * kKiB;
  rc.base_rtt = microseconds(6);
  const HostId r = net.add_receiver(rc);
  const HostId a = net.add_sender(ref::SenderConfig{.name = "sender-a"});
  const HostId b = net.add_sender(ref::SenderConfig{.name = "sender-b"});
  const SubmitId first = net.submit(a, r, 512 * kKiB, Time{0});
  const SubmitId late = net.submit(b, r, 512 * kKiB, Time{microseconds(2).ns});
  ASSERT_TRUE(net.run_until_done(Time{ref::seconds(1).ns})) << violations(net);
  EXPECT_TRUE(net.checker().ok()) << violations(net);

  const Time a_done = net.status(first)->finished;
  const Time b_done = net.status(late)->finished;
  const auto to_a = grants_to(net, net.address(a));
  const auto to_b = grants_to(net, net.address(b));
  ASSERT_FALSE(to_a.empty());
  ASSERT_FALSE(to_b.empty());
  std::cout << "b's first grant " << ref::format_time(to_b.front().time) << "; a done "
            << ref::format_time(a_done) << ", b done " << ref::format_time(b_done) << "\n";
  EXPECT_EQ(to_a.front().limit, 512 * kKiB);
  EXPECT_EQ(to_a.front().rate, ref::payload_capacity_mbps(rc));
  // b is granted within a round trip of its request, not after a's 512 KiB (42 µs at the
  // whole link) have drained ...
  EXPECT_LT(to_b.front().time.ns, microseconds(12).ns);
  // ... because a is re-granted at the same limit with its fair share of the link.
  std::optional<GrantEvent> lowered;
  for (const auto& g : to_a) {
    if (g.limit == to_a.front().limit && g.rate < to_a.front().rate && !lowered) lowered = g;
  }
  ASSERT_TRUE(lowered.has_value());
  EXPECT_EQ(lowered->rate, ref::payload_capacity_mbps(rc) / 2);
  EXPECT_LE(lowered->rate + to_b.front().rate, ref::payload_capacity_mbps(rc));
  // The two share the link: they finish together, and the link stays busy (1 MiB takes
  // 84 µs at 100 Gbit/s).
  EXPECT_LT(std::max(a_done.ns, b_done.ns) - std::min(a_done.ns, b_done.ns), microseconds(10).ns);
  EXPECT_LT(std::max(a_done.ns, b_done.ns), microseconds(110).ns);
}

}  // namespace
}  // namespace rdcc::sim
