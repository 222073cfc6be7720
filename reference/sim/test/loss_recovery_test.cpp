// Data loss never stalls a message (issue 18): 8 senders x 4 MiB to one receiver, with 0.1%,
// 1% and 5% of data packets lost, each alone, with 1% of control packets lost, and with 10%
// of all packets reordered. Opaque data recovers by NACK (docs/data-transport.md, "Loss
// recovery"): every message completes, the invariant checker (which judges the resent data
// too) finds nothing, and each octet is counted once. Fixed seeds, virtual time.
#include <gtest/gtest.h>

#include <iostream>
#include <tuple>

#include "rdcc/sim/loss_incast.hpp"
#include "rdcc/sim/network.hpp"

namespace rdcc::sim {
namespace {

class LossRecovery : public ::testing::TestWithParam<std::tuple<double, LossMix>> {};

TEST_P(LossRecovery, EveryMessageCompletesWithoutViolations) {
  const auto [loss, mix] = GetParam();
  const LossIncast s = loss_case(loss, mix);
  const LossIncastResult r = run_loss_incast(s);
  std::cout << "data loss " << loss << " (" << to_string(mix) << ")"
            << ": last done " << ref::format_time(Time{r.last.ns}) << " (ideal "
            << ref::format_time(Time{r.ideal.ns}) << "), " << r.network.data_lost
            << " data packets lost, " << r.network.resent_octets_sent << " octets resent, "
            << r.network.nacks_sent << " NACKs\n";
  EXPECT_TRUE(r.done);
  EXPECT_EQ(r.violations, 0U) << r.first_violation;
  EXPECT_GT(r.network.data_lost, 0U);
  EXPECT_GT(r.network.resent_octets_sent, 0U);
  // Each octet counted once: the receiver counted exactly the octets of the messages.
  // (4 MiB is above U: every octet is scheduled.)
  EXPECT_EQ(r.receiver.scheduled_octets, s.length * static_cast<std::uint64_t>(s.senders));
  // Resending is bounded by what was lost (plus octets still on their way when named).
  EXPECT_LT(r.network.resent_octets_sent, r.network.data_octets_sent / 2);
}

INSTANTIATE_TEST_SUITE_P(Incast8x4MiB, LossRecovery,
                         ::testing::Combine(::testing::Values(0.001, 0.01, 0.05),
                                            ::testing::Values(LossMix::DataOnly,
                                                              LossMix::ControlLoss,
                                                              LossMix::Reordering)));

// docs/sim.md, "RoCEv2 data is lossless": the emulation has no go-back-N, so the data
// impairments and tail drops leave RoCEv2 packets alone, while opaque data beside them is
// lost (and recovered).
TEST(RoceV2Data, IsLosslessUnderDataImpairments) {
  NetworkConfig cfg;
  cfg.seed = 18;
  cfg.record_packets = false;
  cfg.record_events = false;
  cfg.data.loss = 0.05;
  cfg.data.duplicate = 0.05;
  Network net(cfg);
  const HostId r = net.add_receiver(ref::ReceiverConfig{});
  const HostId a = net.add_sender(ref::SenderConfig{.name = "roce"});
  const HostId b = net.add_sender(ref::SenderConfig{.name = "opaque"});
  const SubmitId roce = net.submit(a, r, 2U << 20U, Time{}, BindingKind::RoCEv2);
  const SubmitId opaque = net.submit(b, r, 2U << 20U, Time{});
  ASSERT_TRUE(net.run_until_done(Time{ref::seconds(2).ns}));
  EXPECT_EQ(net.status(roce)->state, ref::MessageState::Done);
  EXPECT_EQ(net.status(opaque)->state, ref::MessageState::Done);
  EXPECT_GT(net.stats().data_lost, 0U);
  EXPECT_TRUE(net.checker().ok());
}

// Every data packet lost until the grant has lapsed: the receiver has not heard that this
// sender resends (RECOVERS), so it names no lost octet, and renews the same Grant Limit on each
// request. The sender's tail-loss probe on that renewal (docs/data-transport.md, "Loss
// recovery") tells it; the message completes. Without the probe it waited for good: seen on
// real nodes, rdcc_loss_nodes stalled one sender of four when a loaded host's switch queue
// dropped all of its data.
TEST(LossRecovery, AllDataOfASenderLost_CompletesThroughTheTailProbe) {
  NetworkConfig cfg;
  cfg.seed = 30;
  cfg.record_packets = false;
  cfg.data.loss = 1.0;
  Network net(cfg);
  const HostId r = net.add_receiver(ref::ReceiverConfig{});
  const HostId s = net.add_sender(ref::SenderConfig{.name = "s"});
  const SubmitId m = net.submit(s, r, 1U << 20U, Time{});
  net.at(Time{ref::milliseconds(2).ns}, [](Network& n) { n.config().data.loss = 0; });
  ASSERT_TRUE(net.run_until_done(Time{ref::seconds(2).ns}));
  EXPECT_EQ(net.status(m)->state, ref::MessageState::Done);
  EXPECT_GT(net.stats().data_lost, 0U);
  EXPECT_GT(net.sender(s)->stats().tail_probes, 0U);
  EXPECT_EQ(net.receiver(r)->stats().scheduled_octets + net.receiver(r)->stats().unscheduled_octets,
            1U << 20U);
  EXPECT_TRUE(net.checker().ok()) << net.checker().violations().front().detail;
}

}  // namespace
}  // namespace rdcc::sim
