// A dead data path (every data packet lost: a misconfigured data port, a firewall) stalls
// every message, and must not turn the control channel into a storm. The sender's request
// timer backs off as "Credit Requests and Grants" says ("initially twice the smoothed
// round-trip time and at least 100 microseconds, doubling on each retransmission up to
// 100 ms") and a grant that adds no credit does not restart it; the receiver answers each
// re-request at most once and lowers no holder for it.
#include <gtest/gtest.h>

#include <iostream>

#include "rdcc/sim/network.hpp"

namespace rdcc::sim {
namespace {

using ref::seconds;

constexpr std::size_t kSenders = 4;
constexpr std::size_t kMessagesEach = 5;
constexpr std::uint64_t kLength = 1'000'000;
// After the first second, at most this many control messages per second per stalled message,
// both directions together (issue 18).
constexpr std::uint64_t kPerMessagePerSecond = 25;

TEST(DeadDataPath, ControlTrafficPerStalledMessageStaysBelow25PerSecondAfterTheFirstSecond) {
  NetworkConfig cfg;
  cfg.seed = 18;
  cfg.record_packets = false;
  cfg.record_events = false;
  cfg.data.loss = 1.0;
  Network net(cfg);
  const HostId r = net.add_receiver(ref::ReceiverConfig{});
  for (std::size_t s = 0; s < kSenders; ++s) {
    const HostId h = net.add_sender(ref::SenderConfig{.name = "sender-" + std::to_string(s)});
    for (std::size_t i = 0; i < kMessagesEach; ++i) net.submit(h, r, kLength, Time{});
  }
  constexpr std::uint64_t kMessages = kSenders * kMessagesEach;
  net.run_until(Time{seconds(1).ns});
  const std::uint64_t first_second = net.stats().control_sent;
  constexpr std::int64_t kSeconds = 5;
  net.run_until(Time{seconds(1 + kSeconds).ns});
  const std::uint64_t later = net.stats().control_sent - first_second;
  std::cout << "dead data path, " << kMessages << " messages: " << first_second
            << " control messages in the first second, " << later << " in the next " << kSeconds
            << " s (" << static_cast<double>(later) / kSeconds / kMessages
            << " per second per message)\n";
  EXPECT_EQ(net.stats().data_packets_delivered, 0U);
  EXPECT_FALSE(net.all_finished());  // nothing arrives, so nothing completes, and nothing aborts
  EXPECT_LE(later, kPerMessagePerSecond * kMessages * kSeconds);
  // It keeps asking: a stalled message is not given up by either side.
  EXPECT_GE(later, kMessages * kSeconds * 2);
  EXPECT_TRUE(net.checker().ok());
}

}  // namespace
}  // namespace rdcc::sim
