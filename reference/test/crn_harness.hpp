// What the CRN's rule tests and the mutants' probes share: a CRN configuration (B_th 100000,
// Q_max 500000, DSCP 10 unscheduled), one dequeued packet's queue observation, and the reports
// the CRN sent.
#pragma once

#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "rdcc/codec/codec.hpp"
#include "rdcc/reference/crn.hpp"

namespace rdcc::ref {

inline CrnConfig crn_test_config() {
  CrnConfig c;
  c.local = Address::v4(192, 0, 2, 250, 50000);
  c.rdcc_port = 50000;
  c.reporter_id = 0xC0FFEE;
  c.queue_threshold = 100000;
  c.queue_capacity = 500000;
  c.service_rate_mbps = 100000;
  c.unscheduled_dscps = {10};
  return c;
}

// A packet of the flow from 192.0.2.<host>:40000 to the receiver 192.0.2.100:4791 leaving
// egress port 3 with `q` octets queued.
inline QueueObservation queue_observation(std::uint64_t q, std::uint8_t dscp = 26,
                                          std::uint8_t host = 1) {
  QueueObservation o;
  o.port = 3;
  o.occupancy = q;
  o.dscp = dscp;
  o.flow.source = Address::v4(192, 0, 2, host, 40000);
  o.flow.destination = Address::v4(192, 0, 2, 100, 4791);
  o.flow.protocol = 17;
  o.flows_in_queue = 4;
  return o;
}

inline std::vector<std::pair<Address, CongestionReport>> crn_reports(Crn& crn) {
  std::vector<std::pair<Address, CongestionReport>> out;
  while (auto d = crn.poll_transmit()) {
    auto m = decode(d->payload());
    EXPECT_TRUE(m.has_value());
    if (m) out.emplace_back(d->to, std::get<CongestionReport>(*m));
  }
  return out;
}

}  // namespace rdcc::ref
