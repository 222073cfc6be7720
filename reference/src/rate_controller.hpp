// The receiver's rate controller: "Credit Allocation" (the RECOMMENDED AIMD controller and
// rules 2 and 3) and the circuit breaker of "Congestion Control Considerations".
//
// SenderRate is what the receiver knows of one sender's rate: r_i, the congestion signals of
// the current update interval, and the sender's latest Suggested Rate ("Sender Backlog
// Indication and Suggested Rates"). CircuitBreaker counts unscheduled octets announced and lost
// over a loss window and says when U must go to zero and when it may come back. When they are
// updated is the receiver's rule code (timers, arriving data and reports); these are the
// arithmetic, with unit tests of their own (reference/test/rate_controller_test.cpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>

#include "rdcc/reference/policy.hpp"
#include "rdcc/reference/time.hpp"

namespace rdcc::ref {

struct SenderRate {
  double rate = 0;                 // r_i, Mbit/s
  std::uint32_t granted_rate = 0;  // the Pacing Rate of its latest grant
  std::uint32_t suggested_rate = 0;
  Time suggested_at{};
  // The congestion signals of the current update interval.
  std::uint64_t interval_octets = 0;
  std::uint64_t interval_ce = 0;
  double interval_degree = 0;
  double interval_excess_delay = 0;

  // Data from the sender: its CE marks, and its round-trip time against the configured target
  // ("a round-trip time above the configured target").
  void observe_data(std::uint64_t octets, bool ce, std::optional<Duration> rtt,
                    Duration rtt_target) {
    interval_octets += octets;
    if (ce) interval_ce += octets;
    if (rtt && rtt_target.ns > 0 && *rtt > rtt_target) {
      const double excess =
          static_cast<double>((*rtt - rtt_target).ns) / static_cast<double>(rtt_target.ns);
      interval_excess_delay = std::max(interval_excess_delay, std::min(1.0, excess));
    }
  }
  // A CONGESTION_REPORT naming a flow of the sender: "the normalized Congestion Degree".
  void observe_report(std::uint8_t congestion_degree) {
    interval_degree = std::max(interval_degree, congestion_degree / 255.0);
  }
  // The Suggested Rate in force, 0 for none: "A receiver ignores a Suggested Rate from a
  // SENDER_STATUS received more than four default Grant Lifetimes ago".
  [[nodiscard]] std::uint32_t suggestion(Time now, Duration lifetime) const {
    return suggested_rate != 0 && now - suggested_at <= lifetime * 4 ? suggested_rate : 0;
  }
  // "s_i in [0, 1] is the largest of the CE fraction, the normalized Congestion Degree, and
  // the normalized excess delay".
  [[nodiscard]] double signal() const {
    const double ce = interval_octets == 0
                          ? 0.0
                          : static_cast<double>(interval_ce) / static_cast<double>(interval_octets);
    return std::max({ce, interval_degree, interval_excess_delay});
  }

  // One update interval of the controller `policy` (the reference's: AIMD) with the signals of
  // the interval now ending, which start again from none.
  void update(const ReceiverPolicy& policy, double r_min, double r_max, double alpha, double beta) {
    const double s = signal();
    RateUpdate u;
    // r_i is the rate the sender is granted: the controller's value can sit above the link
    // share the allocation gives, where decreases would never reach a grant
    // (docs/spec-notes.md, 41).
    u.rate = s > 0 && granted_rate != 0 ? std::min(rate, static_cast<double>(granted_rate)) : rate;
    u.signal = s;
    u.r_min = r_min;
    u.r_max = r_max;
    u.alpha = alpha;
    u.beta = beta;
    const double next = policy.next_rate(u);
    // "MUST reduce the rate it grants to a sender when it observes congestion" (rule 2),
    // whatever the controller: not above the rate in force then, nor below R_min; and never
    // above R_max_i.
    rate = s > 0 ? std::max(r_min, std::min(next, u.rate)) : std::min(next, r_max);
    interval_octets = interval_ce = 0;
    interval_degree = interval_excess_delay = 0;
  }
};

// "a receiver that observes a loss rate of unscheduled data above a configured threshold
// (RECOMMENDED: one percent over one second) MUST set U to zero for all associations until the
// loss rate falls below one tenth of the threshold."
class CircuitBreaker {
 public:
  enum class Change : std::uint8_t { None, Tripped, Cleared };

  void announced(std::uint64_t octets) { announced_ += octets; }
  // Unscheduled octets whose reservation lapsed without their arrival.
  void lost(std::uint64_t octets) { lost_ += octets; }
  [[nodiscard]] bool tripped() const { return tripped_; }
  // The loss rate of the window so far.
  [[nodiscard]] double loss_rate() const {
    return announced_ == 0 ? 0.0 : static_cast<double>(lost_) / static_cast<double>(announced_);
  }
  // The loss window ends: whether the breaker trips or clears; the next window starts empty.
  Change end_window(double threshold) {
    const double loss = loss_rate();
    announced_ = lost_ = 0;
    if (!tripped_ && loss > threshold) {
      tripped_ = true;
      return Change::Tripped;
    }
    if (tripped_ && loss < threshold / 10) {
      tripped_ = false;
      return Change::Cleared;
    }
    return Change::None;
  }

 private:
  bool tripped_ = false;
  std::uint64_t announced_ = 0;
  std::uint64_t lost_ = 0;
};

}  // namespace rdcc::ref
