// The reference CRN ("On-Path Congestion Reporting"), rule by rule.
#include <gtest/gtest.h>

#include "crn_harness.hpp"
#include "rdcc/codec/codec.hpp"
#include "rdcc/reference/crn.hpp"

namespace rdcc::ref {
namespace {

// "the Congestion Degree, computed as min(255, floor(255 * (Q - B_th) / (Q_max - B_th)))"
TEST(Crn, CongestionDegree_FollowsTheFormula) {
  EXPECT_EQ(Crn::congestion_degree(100, 100, 500), 0);
  EXPECT_EQ(Crn::congestion_degree(101, 100, 500), 0);    // floor(255 * 1 / 400)
  EXPECT_EQ(Crn::congestion_degree(300, 100, 500), 127);  // floor(127.5)
  EXPECT_EQ(Crn::congestion_degree(500, 100, 500), 255);
  EXPECT_EQ(Crn::congestion_degree(900, 100, 500), 255);  // min(255, ...)
}

// "While Q exceeds B_th, the CRN MAY generate CONGESTION_REPORT"
TEST(Crn, BelowOrAtTheThreshold_NoReport) {
  Crn crn(crn_test_config());
  crn.on_dequeue(queue_observation(100000), Time{});
  crn.on_dequeue(queue_observation(50000), Time{});
  EXPECT_TRUE(crn_reports(crn).empty());
}

// "For scheduled traffic it sends the report to the destination address of the data packet
// (the receiver) ... For unscheduled traffic it sends the report to the source address (the
// sender)" / "Reports are sent to the RDCC UDP port with the Association ID and Epoch fields
// set to zero."
TEST(Crn, ReportsGoToTheReceiverForScheduledAndToTheSenderForUnscheduledTraffic) {
  Crn crn(crn_test_config());
  crn.on_dequeue(queue_observation(300000, 26, 1), Time{});
  crn.on_dequeue(queue_observation(300000, 10, 2),
                 Time{microseconds(5).ns});  // past the port limit
  const auto out = crn_reports(crn);
  ASSERT_EQ(out.size(), 2U);
  EXPECT_EQ(out[0].first, Address::v4(192, 0, 2, 100, 50000));
  EXPECT_EQ(out[0].second.direction, 1);
  EXPECT_EQ(out[1].first, Address::v4(192, 0, 2, 2, 50000));
  EXPECT_EQ(out[1].second.direction, 2);
  for (const auto& [to, r] : out) {
    EXPECT_EQ(r.header.association_id, 0U);
    EXPECT_EQ(r.header.epoch, 0);
    EXPECT_EQ(r.reporter_id, 0xC0FFEEU);
    EXPECT_EQ(r.queue_depth, 300000U);
    EXPECT_EQ(r.queue_threshold, 100000U);
    EXPECT_EQ(r.congestion_degree, 127);
    // "Protocol, ports, and addresses are those of the data packet that triggered the report"
    EXPECT_EQ(r.protocol, 17);
    EXPECT_EQ(r.source_port, 40000);
    EXPECT_EQ(r.destination_port, 4791);
    // "optionally, a Suggested Rate equal to the queue's service rate divided by the number
    // of flows the CRN observes in the queue"
    EXPECT_EQ(r.suggested_rate, 25000U);
  }
}

// "subject to a rate limit of at most one report per flow per configured report interval
// (RECOMMENDED: 50 microseconds) and an aggregate limit per port"
TEST(Crn, RateLimits_OnePerFlowPerIntervalAndAnAggregatePerPort) {
  Crn crn(crn_test_config());
  crn.on_dequeue(queue_observation(300000, 26, 1), Time{});
  crn.on_dequeue(queue_observation(300000, 26, 1), Time{microseconds(49).ns});
  EXPECT_EQ(crn_reports(crn).size(), 1U);
  EXPECT_EQ(crn.stats().suppressed_per_flow, 1U);
  crn.on_dequeue(queue_observation(300000, 26, 1), Time{microseconds(50).ns});
  EXPECT_EQ(crn_reports(crn).size(), 1U);
  // Another flow on the same port within the port interval (5 us) is suppressed too.
  crn.on_dequeue(queue_observation(300000, 26, 2), Time{microseconds(52).ns});
  EXPECT_EQ(crn_reports(crn).size(), 0U);
  EXPECT_EQ(crn.stats().suppressed_per_port, 1U);
  crn.on_dequeue(queue_observation(300000, 26, 2), Time{microseconds(56).ns});
  EXPECT_EQ(crn_reports(crn).size(), 1U);
}

// "Incremented by one for each message the originator sends on the association (or, for a
// CRN, per reporting port)"
TEST(Crn, SequenceNumbers_IncrementPerReportingPort) {
  Crn crn(crn_test_config());
  for (int i = 0; i < 3; ++i) {
    auto o = queue_observation(300000, 26, static_cast<std::uint8_t>(i + 1));
    crn.on_dequeue(o, Time{microseconds(std::int64_t{10} * i).ns});
  }
  const auto out = crn_reports(crn);
  ASSERT_EQ(out.size(), 3U);
  EXPECT_EQ(out[1].second.header.sequence_number, out[0].second.header.sequence_number + 1);
  EXPECT_EQ(out[2].second.header.sequence_number, out[1].second.header.sequence_number + 1);
}

// A flow reported more than one per-flow interval ago can hold back no report: the CRN
// forgets it, so that its memory follows the flows it reports on now.
TEST(Crn, RemembersOnlyTheFlowsReportedWithinTheInterval) {
  Crn crn(crn_test_config());
  for (int i = 0; i < 200; ++i) {
    // A new flow every 10 us: past the port interval (5 us), within the flow interval (50 us).
    crn.on_dequeue(queue_observation(300000, 26, static_cast<std::uint8_t>(i + 1)),
                   Time{microseconds(std::int64_t{10} * i).ns});
  }
  EXPECT_EQ(crn.stats().reports_sent, 200U);
  EXPECT_EQ(crn.flows_remembered(), 5U);  // reported at t - 40 us ... t
  // A remembered flow is still held back; a forgotten one is reported again.
  crn.on_dequeue(queue_observation(300000, 26, 200), Time{microseconds(1999).ns});
  EXPECT_EQ(crn.stats().suppressed_per_flow, 1U);
  crn.on_dequeue(queue_observation(300000, 26, 1), Time{microseconds(2010).ns});
  EXPECT_EQ(crn.stats().reports_sent, 201U);
}

TEST(Crn, Ipv6Flow_GivesThe72OctetForm) {
  Crn crn(crn_test_config());
  auto o = queue_observation(300000);
  o.flow.source.ipv6 = o.flow.destination.ipv6 = true;
  o.flow.source.ip = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  o.flow.destination.ip = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
  crn.on_dequeue(o, Time{});
  auto d = crn.poll_transmit();
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->size, 72);
  EXPECT_TRUE(d->to.ipv6);
}

}  // namespace
}  // namespace rdcc::ref
