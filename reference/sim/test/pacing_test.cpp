// The sender's pacing under late timer wake-ups ("Credit Requests and Grants", rule 4;
// docs/spec-notes.md, 71): what a late wake-up delayed is sent at once, and never more than
// ten Credit Units start within the transmission time of ten Credit Units at the rate.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "rdcc/sim/network.hpp"

namespace rdcc::sim {
namespace {

using ref::microseconds;

constexpr std::uint64_t kKiB = 1U << 10U;
constexpr std::uint32_t kCreditUnit = 4096;
constexpr std::uint32_t kGrantedRate = 10000;  // Mbit/s: the receiver's link, a tenth of the NICs'

struct Segment {
  Time time;
  std::uint64_t length = 0;
  std::uint64_t rate = 0;
};

struct Trace {
  Time done{};
  std::vector<Segment> segments;
  std::string violations;
};

// One sender, one scheduled message of `length` octets granted whole at kGrantedRate; every
// sender timer fires `lateness` after the time the sender asked for.
Trace run_message(Duration lateness, std::uint64_t length,
                  std::uint64_t grant_window = 1024 * kKiB) {
  NetworkConfig cfg;
  cfg.seed = 11;
  cfg.record_packets = false;
  cfg.sender_timer_lateness = lateness;
  Network net(cfg);
  ref::ReceiverConfig rc;
  rc.link_capacity_mbps = kGrantedRate;
  rc.budget = 4096 * kKiB;
  rc.grant_window = grant_window;
  rc.credit_unit = kCreditUnit;
  const HostId r = net.add_receiver(rc);
  const HostId s = net.add_sender(ref::SenderConfig{.name = "sender", .allow_unscheduled = false});
  const SubmitId id = net.submit(s, r, length, Time{0});
  Trace out;
  EXPECT_TRUE(net.run_until_done(Time{ref::seconds(1).ns}));
  out.done = net.status(id)->finished;
  for (const auto& e : net.events().events()) {
    if (e.endpoint != "sender" || e.name != "data") continue;
    out.segments.push_back({e.time, e.fields.at("length").get<std::uint64_t>(),
                            e.fields.at("rate").get<std::uint64_t>()});
  }
  for (const auto& v : net.checker().violations()) {
    out.violations += ref::format_time(v.time) + " " + v.rule + ": " + v.detail + "\n";
  }
  return out;
}

// The most octets whose transmission starts within (t - W, t], W the transmission time of
// ten Credit Units at the segment's rate, over every segment start t.
std::uint64_t max_octets_in_window(const std::vector<Segment>& segs) {
  std::uint64_t worst = 0;
  for (std::size_t i = 0; i < segs.size(); ++i) {
    const Duration window = ref::transmission_time(10ULL * kCreditUnit, segs[i].rate);
    std::uint64_t octets = 0;
    for (std::size_t j = 0; j <= i; ++j) {
      if (segs[i].time - segs[j].time < window) octets += segs[j].length;
    }
    worst = std::max(worst, octets);
  }
  return worst;
}

// The most segments sent back to back (each less than one Credit Unit's transmission time at
// the rate after the previous one).
std::size_t longest_burst(const std::vector<Segment>& segs) {
  std::size_t longest = segs.empty() ? 0 : 1;
  std::size_t run_length = 1;
  for (std::size_t i = 1; i < segs.size(); ++i) {
    const Duration spacing = ref::transmission_time(segs[i - 1].length, segs[i].rate);
    run_length = segs[i].time - segs[i - 1].time < spacing ? run_length + 1 : 1;
    longest = std::max(longest, run_length);
  }
  return longest;
}

TEST(Pacing, OnTime_StrictSpacing) {
  const Trace on_time = run_message(Duration{}, 256 * kKiB);
  EXPECT_TRUE(on_time.violations.empty()) << on_time.violations;
  ASSERT_EQ(on_time.segments.size(), 64U);
  EXPECT_EQ(longest_burst(on_time.segments), 1U);
  EXPECT_LE(max_octets_in_window(on_time.segments), 10ULL * kCreditUnit);
}

// Wake-ups 5 µs late (one and a half Credit Units at the rate) are made up: the segments that
// fell due go back to back, as far as the window of ten Credit Units allows.
TEST(Pacing, LateWakeUps_AreMadeUpAtOnce) {
  const Trace on_time = run_message(Duration{}, 256 * kKiB);
  const Trace late = run_message(microseconds(5), 256 * kKiB);
  EXPECT_TRUE(late.violations.empty()) << late.violations;
  ASSERT_EQ(late.segments.size(), 64U);
  // Strict spacing from each late start would lose the lateness at every segment (64 x 5 µs).
  // What is lost is at most one lateness per window of ten Credit Units: the wake-up for the
  // window's own bound is late too, and the window lets nothing more go at it.
  EXPECT_LE((late.done - on_time.done).ns, (microseconds(5) * 8).ns);
  EXPECT_GE(longest_burst(late.segments), 2U);
  EXPECT_LE(max_octets_in_window(late.segments), 10ULL * kCreditUnit);
}

// Wake-ups 100 µs late (three windows of ten Credit Units): each one sends at most ten
// Credit Units at once, and no window ever holds more.
TEST(Pacing, VeryLateWakeUps_NeverBeyondTenCreditUnits) {
  const Trace late = run_message(microseconds(100), 256 * kKiB);
  EXPECT_TRUE(late.violations.empty()) << late.violations;
  ASSERT_EQ(late.segments.size(), 64U);
  EXPECT_EQ(longest_burst(late.segments), 10U);
  EXPECT_LE(max_octets_in_window(late.segments), 10ULL * kCreditUnit);
}

// Idle time earns nothing: a message granted 16 KiB at a time waits a round trip for each
// grant with nothing held back by pacing, and then starts again at strict spacing.
TEST(Pacing, AfterWaitingForCredit_NoBurst) {
  const Trace on_time = run_message(Duration{}, 256 * kKiB, 16 * kKiB);
  EXPECT_TRUE(on_time.violations.empty()) << on_time.violations;
  ASSERT_EQ(on_time.segments.size(), 64U);
  EXPECT_EQ(longest_burst(on_time.segments), 1U);
}

// "The sum of the Pacing Rates the receiver issues MUST NOT exceed the capacity of its access
// link." (Credit Allocation, rule 1; docs/spec-notes.md, 72) Pacing Rates count message
// octets; the link carries headers too. Eight senders, 2 MiB each, to one receiver on
// 100 Gbit/s links: with the headers counted, the port toward the receiver drains what
// arrives; counting payload only (overhead 0), the 1.3% excess piles up in its queue.
std::uint64_t incast_peak_queue(std::uint32_t data_packet_overhead, std::string& violations) {
  NetworkConfig cfg;
  cfg.seed = 5;
  cfg.record_packets = false;
  cfg.record_events = false;
  cfg.queue.capacity = 16U << 20U;
  Network net(cfg);
  ref::ReceiverConfig rc;
  rc.budget = 8U << 20U;
  rc.unscheduled_budget = 1U << 20U;
  rc.data_packet_overhead = data_packet_overhead;
  const HostId r = net.add_receiver(rc);
  for (int i = 0; i < 8; ++i) {
    const HostId s = net.add_sender(ref::SenderConfig{.name = "sender-" + std::to_string(i)});
    net.submit(s, r, 2U << 20U, Time{0});
  }
  EXPECT_TRUE(net.run_until_done(Time{ref::seconds(1).ns}));
  for (const auto& v : net.checker().violations()) violations += v.rule + ": " + v.detail + "\n";
  return net.peak_queue(r);
}

TEST(Pacing, IncastRatesCountHeaders_TheQueueTowardTheReceiverStaysShort) {
  std::string violations;
  const std::uint64_t counted =
      incast_peak_queue(static_cast<std::uint32_t>(ref::kMaxDataPacketOverheadIpv4), violations);
  const std::uint64_t payload_only = incast_peak_queue(0, violations);
  EXPECT_TRUE(violations.empty()) << violations;
  std::printf("peak queue toward the receiver: %llu octets with headers counted, %llu without\n",
              static_cast<unsigned long long>(counted),
              static_cast<unsigned long long>(payload_only));
  EXPECT_LT(counted * 2, payload_only);
}

// The workload of the reliability audit (shared/audits/reliability.md): `messages` messages of
// `length` octets at once from one sender (10 Gbit/s) to a receiver whose link is 60 Mbit/s,
// with the audit's parameters (G 4 MiB, G_u 1 MiB, N_cu 1 MiB, Lifetime 5 ms, Credit Unit
// 8 KiB, grant window 256 KiB).
struct SlowLinkRun {
  Time last{};      // the last message DONE
  double mbps = 0;  // payload over that time
  NetworkStats network;
  ref::SenderStats sender;
  ref::ReceiverStats receiver;
  bool done = false;
  bool checker_ok = false;
};

SlowLinkRun run_slow_link(int messages, std::uint64_t length, std::uint64_t seed) {
  NetworkConfig cfg;
  cfg.seed = seed;
  cfg.record_packets = false;
  cfg.record_events = false;
  Network net(cfg);
  ref::ReceiverConfig rc;
  rc.budget = 4U << 20U;
  rc.unscheduled_budget = 1U << 20U;
  rc.link_capacity_mbps = 60;
  rc.unscheduled_limit = 64 * kKiB;
  rc.backlog_threshold = 1U << 20U;
  rc.grant_lifetime_us = 5000;
  rc.credit_unit = 8192;
  rc.d_max = microseconds(100);
  rc.base_rtt = microseconds(200);
  rc.grant_window = 256 * kKiB;
  const HostId r = net.add_receiver(rc);
  const HostId s = net.add_sender(ref::SenderConfig{.name = "sender", .line_rate_mbps = 10000});
  std::vector<SubmitId> ids;
  for (int i = 0; i < messages; ++i) ids.push_back(net.submit(s, r, length, Time{0}));
  SlowLinkRun out;
  out.done = net.run_until_done(Time{ref::seconds(60).ns});
  for (const SubmitId id : ids) out.last = std::max(out.last, net.status(id)->finished);
  out.mbps = static_cast<double>(length * static_cast<std::uint64_t>(messages) * 8) /
             (static_cast<double>(out.last.ns) / 1e3);
  out.network = net.stats();
  out.sender = net.sender(s)->stats();
  out.receiver = net.receiver(r)->stats();
  out.checker_ok = net.checker().ok();
  return out;
}

// docs/spec-notes.md 131: forty messages of 1 MB, which the receiver's policy shares the link
// among at a few Mbit/s each, with a 5 ms default Lifetime. Ten Credit Units take 218 ms at
// 3 Mbit/s: under 5 ms grants each message could legally send its ten at line rate, and the
// receiver gave the rate of a lapsed grant to the next message, so the messages together went
// at 76 Mbit/s. With grants that live the rate's averaging interval they go no faster than the
// link.
TEST(Pacing, LowRatesAndAShortLifetime_TheMessagesTogetherKeepToTheLink) {
  const SlowLinkRun run = run_slow_link(40, 1000000, 131);
  ASSERT_TRUE(run.done);
  std::printf("40 x 1 MB at a 60 Mbit/s link: last done %s, %.1f Mbit/s of payload\n",
              ref::format_time(run.last).c_str(), run.mbps);
  EXPECT_LE(run.mbps, 60.0);
  EXPECT_TRUE(run.checker_ok);
}

// docs/spec-notes.md 131 and 132: the audit's 40 messages of 2 MB. Before the rules of those
// notes the sender sent 407,668 SENDER_STATUS (its unused credit stayed above N_cu), the
// receiver 9,026 grants of one Credit Unit, and grants lapsed before the sender could use them
// at their rate (89 MB expired, 6,736 NACKs): 25 control datagrams per data packet. Since the
// capped association's messages are served in the grant queue's order (spec-notes 191: a message
// whose own data freed room no longer keeps it ahead of the others), the forty take turns, and
// each one's request timer retransmits while it waits for its next turn: 0.93 control datagrams
// per data packet (8,387 CREDIT_REQUESTs), where one message at a time ran to completion before
// (0.66, 5,677). The bound stays a bound against the pathology: one per data packet.
TEST(Pacing, FortyMessagesThroughASlowLink_ControlTrafficStaysProportionate) {
  const SlowLinkRun run = run_slow_link(40, 2000000, 132);
  ASSERT_TRUE(run.done);
  const NetworkStats& st = run.network;
  const double per_data =
      static_cast<double>(st.control_sent) / static_cast<double>(st.data_packets_sent);
  std::printf(
      "40 x 2 MB at 60 Mbit/s: %s, %.1f Mbit/s; %llu control datagrams for %llu data packets "
      "(%.2f): %llu CREDIT_REQUESTs, %llu SENDER_STATUS, %llu grants, %llu NACKs\n",
      ref::format_time(run.last).c_str(), run.mbps,
      static_cast<unsigned long long>(st.control_sent),
      static_cast<unsigned long long>(st.data_packets_sent), per_data,
      static_cast<unsigned long long>(run.sender.credit_requests_sent),
      static_cast<unsigned long long>(run.sender.sender_status_sent),
      static_cast<unsigned long long>(run.receiver.grants_sent),
      static_cast<unsigned long long>(run.receiver.nacks_sent));
  EXPECT_TRUE(run.checker_ok);
  EXPECT_EQ(run.sender.sender_status_sent, 0U);  // the association never holds more than N_cu
  EXPECT_EQ(run.sender.credit_expired, 0U);      // every grant lives until its credit is used
  EXPECT_EQ(run.receiver.nacks_sent, 0U);
  EXPECT_LE(run.receiver.grants_sent * 8, st.data_packets_sent);  // no grant per Credit Unit
  EXPECT_LE(per_data, 1.0);
  EXPECT_LE(run.mbps, 60.0);
  EXPECT_GE(run.mbps, 45.0);
}

}  // namespace
}  // namespace rdcc::sim
