// Every CONGESTION_REPORT a CRN IUT sends, judged against the queue observations the tester
// gave it (docs/scenario-language.md, "What a CRN's reports are held to"): in every scenario and
// explore episode of the role, not only where an expect names a field. A report must name a
// flow the tester's observations dequeued and copy that packet ("Protocol, ports, and addresses
// are those of the data packet that triggered the report"), carry its Q above B_th with the
// Congestion Degree of the spec's formula, go to the side its DSCP selects on the RDCC port with
// Association ID and Epoch zero, carry either no Suggested Rate or the service rate divided by
// the flows, and keep the per-flow and per-port intervals. What the CRN was configured with
// (B_th, Q_max, service rate, intervals) is known from the scenario's `config` only: without
// it, the checks that need it are skipped; its unscheduled DSCP is the config's or the one the
// adapter declares ($unscheduled_dscp).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "rdcc/codec/messages.hpp"
#include "rdcc/conformance/adapter.hpp"
#include "rdcc/reference/time.hpp"

namespace rdcc::conformance {

// A report the judge found wrong: why, what the spec's sentence makes of the observation, and
// what arrived.
struct CrnFinding {
  std::string reason;
  std::string expected;
  std::string actual;
};

class CrnReportJudge {
 public:
  // `config`: the scenario's `config` line (queue_threshold, queue_capacity, service_rate_mbps,
  // unscheduled_dscp, per_flow_interval_us, per_port_interval_us); `rdcc_port`: the port the
  // tester's RDCC address listens on (the domain's RDCC port); `slack`: how much two arrivals
  // may be closer together than the CRN sent them (0 in virtual time).
  // `unscheduled_dscp`: the IUT's, as the scenario's config or else the adapter declares it.
  CrnReportJudge(const std::map<std::string, std::uint64_t>& config,
                 std::optional<std::uint8_t> unscheduled_dscp, std::uint16_t rdcc_port,
                 ref::Duration slack);

  // A packet the tester put into the CRN's queue with a `queue` step, at `at`.
  void observed(const QueueSample& q, ref::Time at);
  // Data the tester sent into the CRN's queue (`send data`): reports may name flows the tester
  // did not describe with a `queue` step, so a report on an unknown flow is not judged.
  void data_sent() { data_sent_ = true; }
  // A report that reached the tester at `at`, addressed to `to`.
  [[nodiscard]] std::optional<CrnFinding> report(const CongestionReport& r, const Address& to,
                                                 ref::Time at);

 private:
  // Source IP, destination IP, source port, destination port, protocol, IPv6.
  using FlowKey =
      std::tuple<IpAddress, IpAddress, std::uint16_t, std::uint16_t, std::uint8_t, bool>;
  struct Observation {
    QueueSample q;
    ref::Time at;
  };
  [[nodiscard]] std::optional<std::string> mismatch(const CongestionReport& r,
                                                    const Observation& o) const;
  // How long after the last report of `key` in `last` a report at `at` comes, when that is
  // shorter than `interval` (less the slack): a report the rate limit does not allow.
  template <class Key>
  [[nodiscard]] std::optional<ref::Duration> too_soon(
      const std::map<Key, ref::Time>& last, const Key& key, ref::Time at,
      const std::optional<ref::Duration>& interval) const {
    if (!interval) return std::nullopt;
    const auto it = last.find(key);
    if (it == last.end() || (at - it->second) + slack_ >= *interval) return std::nullopt;
    return at - it->second;
  }

  std::optional<std::uint64_t> threshold_, capacity_, service_rate_, unscheduled_dscp_;
  std::optional<ref::Duration> per_flow_, per_port_;
  std::uint16_t rdcc_port_ = 0;
  ref::Duration slack_{};
  bool data_sent_ = false;
  std::map<FlowKey, std::vector<Observation>> flows_;
  std::map<FlowKey, ref::Time> last_flow_report_;
  std::map<std::uint16_t, ref::Time> last_port_report_;
};

}  // namespace rdcc::conformance
