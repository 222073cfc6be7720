// The reference Congestion Reporting Node ("On-Path Congestion Reporting"): queue observations
// in, rate-limited CONGESTION_REPORTs out. Sans-IO like the endpoints.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "rdcc/reference/config_schema.hpp"
#include "rdcc/reference/events.hpp"
#include "rdcc/reference/io.hpp"
#include "rdcc/reference/policy.hpp"

namespace rdcc::ref {

struct CrnConfig {
  std::string name = "crn";
  Address local;                // source of the reports (must be a configured CRN address)
  std::uint16_t rdcc_port = 0;  // "Reports are sent to the RDCC UDP port"; no default
  std::uint32_t reporter_id = 1;
  std::uint32_t queue_threshold = 0;  // B_th, octets
  std::uint32_t queue_capacity = 0;   // Q_max, octets
  std::uint32_t service_rate_mbps = 0;
  Duration per_flow_interval = microseconds(50);  // RECOMMENDED 50 us
  Duration per_port_interval =
      microseconds(5);                       // aggregate: at most one report per port per interval
  std::set<std::uint8_t> unscheduled_dscps;  // DSCPs of unscheduled traffic: report to the sender
  bool suggest_rate = true;
  std::uint8_t control_dscp = 46;

  // The settings a person gives (config_schema.hpp), once.
  template <class Self, class V>
  static void describe(Self& c, V& v) {
    using U = ConfigUnit;
    constexpr auto kAny = kConfigNoMax;
    v({"reporter_id", U::Number, 0, kAny, "--reporter-id", "Reporter ID, unique in the domain"},
      c.reporter_id);
    v({"queue_threshold", U::Octets, 0, kAny, "--queue-threshold", "B_th, below Q_max"},
      c.queue_threshold);
    v({"queue_capacity", U::Octets, 0, kAny, "--queue-capacity",
       "Q_max; beyond it, tail drop (the simulator fills 0 from its queue)"},
      c.queue_capacity);
    v({"service_rate_mbps", U::Mbps, 1, kAny, "--service-rate", "egress service rate"},
      c.service_rate_mbps);
    v({"per_flow_interval_us", U::Micros, 0, kMaxConfigMicros, "--per-flow-interval",
       "one report per flow per this interval, at most"},
      c.per_flow_interval);
    v({"per_port_interval_us", U::Micros, 0, kMaxConfigMicros, "--per-port-interval",
       "one report per port per this interval, at most"},
      c.per_port_interval);
    v({"unscheduled_dscp", U::Dscp, 0, 63, "--unscheduled-dscp",
       "DSCP of unscheduled traffic, reported to the sender (repeat)"},
      c.unscheduled_dscps);
    v({"suggest_rate", U::Bool, 0, 1, "--no-suggest-rate",
       "fill in Suggested Rate; false: leave it zero", FlagKind::SetsFalse},
      c.suggest_rate);
    v({"control_dscp", U::Dscp, 0, 63, "--control-dscp", "DSCP of RDCC control messages"},
      c.control_dscp);
  }
};

// The flow of the data packet that was dequeued.
struct FlowId {
  Address source;       // IP and UDP source port of the data packet
  Address destination;  // IP and UDP destination port
  std::uint8_t protocol = 17;
  friend bool operator==(const FlowId&, const FlowId&) = default;
};

struct QueueObservation {
  std::uint16_t port = 0;       // egress port of the queue
  std::uint64_t occupancy = 0;  // Q, octets, at dequeue
  std::uint8_t dscp = 0;
  FlowId flow;
  std::uint32_t flows_in_queue = 1;
};

struct CrnStats {
  std::uint64_t observations = 0;
  std::uint64_t reports_sent = 0;
  std::uint64_t reports_to_receiver = 0;
  std::uint64_t reports_to_sender = 0;
  std::uint64_t suppressed_per_flow = 0;
  std::uint64_t suppressed_per_port = 0;
};

class Crn {
 public:
  // `policy` makes the choices the spec leaves to the CRN (policy.hpp); without one, the
  // reference's own (CrnPolicy's defaults).
  explicit Crn(CrnConfig config, Observer* observer = nullptr,
               std::shared_ptr<const CrnPolicy> policy = nullptr);
  ~Crn();
  Crn(const Crn&) = delete;
  Crn& operator=(const Crn&) = delete;

  void on_dequeue(const QueueObservation& q, Time now);
  [[nodiscard]] std::optional<Datagram> poll_transmit();
  [[nodiscard]] const CrnStats& stats() const;
  // The flows the CRN remembers: those whose latest report still holds back the next one
  // (reported within the per-flow interval). Its memory follows these, not every flow seen.
  [[nodiscard]] std::size_t flows_remembered() const;
  // "min(255, floor(255 * (Q - B_th) / (Q_max - B_th)))"
  [[nodiscard]] static std::uint8_t congestion_degree(std::uint64_t q, std::uint64_t b_th,
                                                      std::uint64_t q_max);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rdcc::ref
