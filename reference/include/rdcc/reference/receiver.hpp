// The reference RDCC receiver: sans-IO (io.hpp documents the loop).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "rdcc/codec/constants.hpp"
#include "rdcc/reference/bindings.hpp"
#include "rdcc/reference/config_schema.hpp"
#include "rdcc/reference/events.hpp"
#include "rdcc/reference/io.hpp"
#include "rdcc/reference/policy.hpp"
#include "rdcc/reference/random.hpp"

namespace rdcc::ref {

struct ReceiverConfig {
  std::string name = "receiver";
  Address local;
  std::uint16_t epoch = 1;                       // a restarted receiver MUST use a different Epoch
  std::uint64_t budget = 4U << 20U;              // G, octets
  std::uint64_t unscheduled_budget = 1U << 20U;  // G_u (G_s = G - G_u)
  std::uint32_t link_capacity_mbps = 100000;
  // Octets the data transport adds to each packet of up to one Credit Unit of payload on the
  // access link (IP, UDP and binding headers). Pacing Rates count message octets, so the
  // rates issued sum to at most the link capacity less this share (docs/spec-notes.md, 72).
  std::uint32_t data_packet_overhead = static_cast<std::uint32_t>(kMaxDataPacketOverheadIpv4);
  std::uint32_t unscheduled_limit = 65536;      // U advertised, capped so sum of U <= G_u
  std::uint32_t start_jitter_us = 10;           // J
  std::uint32_t backlog_threshold = 1U << 20U;  // N_cu advertised
  std::uint32_t grant_lifetime_us = 1000;       // default Grant Lifetime
  std::uint32_t credit_unit = 4096;
  Duration d_max = microseconds(20);  // maximum one-way delay of the domain
  Duration base_rtt = microseconds(10);
  Duration rtt_target = microseconds(50);  // "a round-trip time above the configured target"
  std::uint64_t grant_window = 0;          // per-message outstanding credit; 0: one BDP
  std::size_t max_associations = 1024;
  // Of them, from one host (any port): a flood from one host leaves room for the others.
  std::size_t max_associations_per_host = 256;
  std::size_t max_pending_per_association = 1024;
  std::uint64_t max_credit_per_association = 0;  // 0: the N_cu advertised (backlog_threshold)
  std::uint64_t max_message_length = 1ULL << 40U;
  Duration idle_timeout = seconds(10);  // "SHOULD be at least 10 seconds"
  std::vector<Address> crn_addresses;
  std::uint32_t capabilities = capability::kPool | capability::kStatus | capability::kCrn;
  bool rocev2_binding = true;
  bool opaque_binding = true;
  double aimd_beta = 0.5;
  std::uint32_t aimd_alpha_mbps = 0;  // 0: one percent of the link capacity
  // The circuit breaker: RECOMMENDED one percent over one second (Congestion Control
  // Considerations), the threshold in parts per million of the unscheduled octets announced.
  std::uint32_t loss_threshold_ppm = 10000;
  Duration loss_window = seconds(1);
  std::uint8_t control_dscp = 46;

  // The settings a person gives (config_schema.hpp), once.
  // The driver calls Receiver::sent() after each batch of sends (the UDP node): a grant's
  // credit is reclaimed Lifetime + 2 * D_max after the grant left, not after its poll.
  bool reports_sends = false;

  template <class Self, class V>
  static void describe(Self& c, V& v) {
    using U = ConfigUnit;
    constexpr auto kAny = kConfigNoMax;
    v({"epoch", U::Number, 1, kAny, "--epoch", "Epoch; a restarted receiver MUST use another"},
      c.epoch);
    v({"budget", U::Octets, 1, kAny, "--budget", "G: octets granted and not yet received, at most"},
      c.budget);
    v({"unscheduled_budget", U::Octets, 0, kAny, "--unscheduled-budget",
       "G_u: the unscheduled part of G"},
      c.unscheduled_budget);
    v({"link_capacity_mbps", U::Mbps, 1, kAny, "--link-capacity", "access link capacity"},
      c.link_capacity_mbps);
    v({"unscheduled_limit", U::Octets, 0, kAny, "--unscheduled-limit",
       "U advertised (0: off); the sum of U over associations stays within G_u"},
      c.unscheduled_limit);
    v({"start_jitter_us", U::Micros, 0, kAny, "--start-jitter", "J advertised"}, c.start_jitter_us);
    v({"backlog_threshold", U::Octets, 0, kAny, "--backlog-threshold", "N_cu advertised"},
      c.backlog_threshold);
    v({"grant_lifetime_us", U::Micros, 1, kAny, "--grant-lifetime", "default Grant Lifetime"},
      c.grant_lifetime_us);
    v({"credit_unit", U::Octets, 1, kMaxCreditUnit, "--credit-unit", "Credit Unit"}, c.credit_unit);
    v({"d_max_us", U::Micros, 0, kMaxConfigMicros, "--d-max",
       "D_max, the domain's maximum one-way delay"},
      c.d_max);
    v({"base_rtt_us", U::Micros, 0, kMaxConfigMicros, "--base-rtt", "base RTT (AIMD interval)"},
      c.base_rtt);
    v({"rtt_target_us", U::Micros, 0, kMaxConfigMicros, "--rtt-target",
       "RTT above which a path is congested"},
      c.rtt_target);
    v({"grant_window", U::Octets, 0, kAny, "--grant-window",
       "credit outstanding per message (0: one BDP)"},
      c.grant_window);
    v({"max_associations", U::Number, 1, kMaxConfigCount, "--max-associations",
       "associations, at most"},
      c.max_associations);
    v({"max_associations_per_host", U::Number, 1, kMaxConfigCount, "--max-associations-per-host",
       "associations from one host (any port), at most"},
      c.max_associations_per_host);
    v({"max_pending_per_association", U::Number, 1, kMaxConfigCount, "--max-pending",
       "pending messages per association, at most"},
      c.max_pending_per_association);
    v({"max_credit_per_association", U::Octets, 0, kAny, "--max-credit-per-association",
       "credit per association, at most (0: the Backlog Threshold N_cu advertised)"},
      c.max_credit_per_association);
    v({"max_message_length", U::Octets, 1, kAny, "--max-message-length",
       "longer messages are refused"},
      c.max_message_length);
    // "SHOULD be at least 10 seconds" (Association Establishment).
    v({"idle_timeout_ms", U::Millis, 10000, 0xFFFFFFFFU, "--idle-timeout",
       "remove associations idle this long"},
      c.idle_timeout);
    v({"capabilities", U::Capabilities, 0, kAny, "--capabilities", "capabilities offered"},
      c.capabilities);
    v({"opaque_binding", U::Bool, 0, 1, "--bindings", "accept the opaque binding",
       FlagKind::ListItem, "opaque"},
      c.opaque_binding);
    v({"rocev2_binding", U::Bool, 0, 1, "--bindings", "accept the RoCEv2 binding",
       FlagKind::ListItem, "rocev2"},
      c.rocev2_binding);
    v({"control_dscp", U::Dscp, 0, 63, "--control-dscp", "DSCP of RDCC control messages"},
      c.control_dscp);
    v({"loss_threshold_ppm", U::Number, 1, 999999, "--loss-threshold",
       "circuit breaker: U goes to zero above this loss rate of unscheduled data, ppm"},
      c.loss_threshold_ppm);
    v({"loss_window_ms", U::Millis, 1, 3600000, "--loss-window",
       "circuit breaker: the window the loss rate is measured over"},
      c.loss_window);
  }
};

// The access link's capacity for message octets (Mbit/s): link_capacity_mbps less the share of
// data_packet_overhead in packets of one Credit Unit. The Pacing Rates a receiver issues sum
// to at most this (docs/spec-notes.md, 72).
[[nodiscard]] std::uint32_t payload_capacity_mbps(const ReceiverConfig& config);

struct ReceiverStats {
  std::uint64_t associations_accepted = 0;
  std::uint64_t associations_refused = 0;
  std::uint64_t associations_removed_idle = 0;
  std::uint64_t credit_requests_received = 0;
  std::uint64_t grants_sent = 0;
  std::uint64_t credit_granted = 0;    // octets
  std::uint64_t credit_reclaimed = 0;  // octets
  std::uint64_t credit_returned = 0;   // octets
  std::uint64_t unscheduled_octets = 0;
  std::uint64_t scheduled_octets = 0;
  std::uint64_t msg_done_sent = 0;
  std::uint64_t errors_sent = 0;
  std::uint64_t reports_received = 0;
  std::uint64_t reports_ignored = 0;
  std::uint64_t sender_status_received = 0;
  std::uint64_t stale_discarded = 0;
  std::uint64_t requests_from_wrong_address = 0;
  std::uint64_t parameter_updates_sent = 0;
  std::uint64_t malformed_discarded = 0;
  std::uint64_t unknown_type_discarded = 0;
  std::uint64_t misbehaving_data_octets = 0;
  std::uint64_t unattributed_data_octets = 0;  // data naming no message of its host
  std::uint64_t late_data_octets = 0;          // data naming only a message already finished
  std::uint64_t circuit_breaker_trips = 0;
  std::uint64_t invariant_violations = 0;
  // Loss recovery on the opaque transport (docs/data-transport.md, "Loss recovery").
  std::uint64_t nacks_sent = 0;
  std::uint64_t nacked_octets = 0;     // octets the NACKs named
  std::uint64_t duplicate_octets = 0;  // octets that arrived again (counted once)
};

class Receiver {
 public:
  // Association IDs are drawn from `random` (unpredictable IDs limit blind injection,
  // "Security Considerations"); without one, a generator seeded from the Epoch is used.
  // `policy` makes the choices the spec leaves to the receiver (policy.hpp); without one, the
  // reference's own (ReceiverPolicy's defaults).
  explicit Receiver(ReceiverConfig config, Observer* observer = nullptr,
                    RandomSource* random = nullptr,
                    std::shared_ptr<const ReceiverPolicy> policy = nullptr);
  ~Receiver();
  Receiver(const Receiver&) = delete;
  Receiver& operator=(const Receiver&) = delete;

  void on_control(const Address& from, std::span<const std::byte> datagram, Time now);
  void on_data(const DataObservation& data, Time now);
  void on_timeout(Time now);
  [[nodiscard]] std::optional<Time> next_timeout() const;
  [[nodiscard]] std::optional<Datagram> poll_transmit();
  // Opaque transport: the octets of a message missing when its sender asked again, for the
  // binding to send to the sender (docs/data-transport.md, "Loss recovery"). Drain it with
  // poll_transmit.
  [[nodiscard]] std::optional<DataNack> poll_nack();
  // What poll_transmit() gave since the last call left by `at` (only with
  // ReceiverConfig::reports_sends). "reclaims the credit of an expired grant no earlier than
  // Lifetime + 2 * D_max after it sent the grant": a process descheduled between reading its
  // clock and its send puts a grant on the wire later than its poll, and its credit is then
  // reclaimed that much later.
  void sent(Time at);

  // sum over associations of (Granted(a) + Unsched(a)) ("Receiver Credit Budget").
  [[nodiscard]] std::uint64_t outstanding_credit() const;
  [[nodiscard]] std::size_t association_count() const;
  [[nodiscard]] std::size_t pending_messages() const;
  [[nodiscard]] const ReceiverStats& stats() const;
  [[nodiscard]] const ReceiverConfig& config() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rdcc::ref
