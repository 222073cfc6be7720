// The receiver's rate controller: "Credit Allocation", the rate half of its first sentence
// ("The receiver decides which messages receive credit and at what rate"; which messages is
// grant_scheduler.hpp): the RECOMMENDED AIMD controller and rules 1 to 3, and the circuit
// breaker of "Congestion Control Considerations".
//
// SenderRate is what the receiver knows of one sender's rate: r_i, the congestion signals of
// the current update interval, and the sender's latest Suggested Rate ("Sender Backlog
// Indication and Suggested Rates"). LinkRates shares the access link among the messages: the
// sum of the Pacing Rates issued stays within its capacity (rule 1). CircuitBreaker counts
// unscheduled octets announced and lost over a loss window and says when U must go to zero
// and when it may come back. When they are updated is the receiver's rule code (timers,
// arriving data and reports); these are the arithmetic, with unit tests of their own
// (reference/test/rate_controller_test.cpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <tuple>

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
  // The rate the sender may be granted before the link is shared: r_i, within its line rate
  // (0: none stated) and the Suggested Rate in force. RDCC-ALLOC-03: "When the most recent
  // SENDER_STATUS from a sender carries a non-zero Suggested Rate, the Pacing Rate granted to
  // that sender MUST NOT exceed it."
  [[nodiscard]] double cap(std::uint32_t line_rate, Time now, Duration lifetime) const {
    double r = rate;
    if (line_rate != 0) r = std::min(r, static_cast<double>(line_rate));
    if (const std::uint32_t suggested = suggestion(now, lifetime); suggested != 0) {
      r = std::min(r, static_cast<double>(suggested));
    }
    return r;
  }
  // "R_max_i is the smaller of the sender's line rate and its Suggested Rate" (the link's
  // capacity when the sender stated no line rate).
  [[nodiscard]] double r_max(std::uint32_t line_rate, std::uint32_t link_capacity, Time now,
                             Duration lifetime) const {
    double r = static_cast<double>(line_rate != 0 ? line_rate : link_capacity);
    if (const std::uint32_t suggested = suggestion(now, lifetime); suggested != 0) {
      r = std::min(r, static_cast<double>(suggested));
    }
    return r;
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

// "R_min is one Credit Unit per update interval" (Mbit/s; the interval at least 1 ns).
[[nodiscard]] inline double min_rate(std::uint32_t credit_unit, Duration update_interval) {
  return static_cast<double>(credit_unit) * 8000.0 /
         static_cast<double>(std::max<std::int64_t>(1, update_interval.ns));
}

// The access link's capacity for message octets, Mbit/s: Pacing Rates count message octets,
// and each packet of up to one Credit Unit of payload carries `overhead` octets of headers on
// the link (docs/spec-notes.md, 72). At least 1; the whole link when `credit_unit` is 0.
[[nodiscard]] inline std::uint32_t payload_capacity(std::uint32_t link_capacity_mbps,
                                                    std::uint32_t credit_unit,
                                                    std::uint32_t overhead) {
  if (credit_unit == 0) return link_capacity_mbps;
  const std::uint64_t packet = std::uint64_t{credit_unit} + overhead;
  return static_cast<std::uint32_t>(
      std::max<std::uint64_t>(1, std::uint64_t{link_capacity_mbps} * credit_unit / packet));
}

// The Pacing Rates of the live grants, shared across the access link. RDCC-ALLOC-01: "The sum
// of the Pacing Rates the receiver issues MUST NOT exceed the capacity of its access link."
// A message holds a rate from its grant until its credit is released; each one is counted
// under (association, Message ID). The link is shared fairly among the messages that hold a
// rate or want credit, at most kOvercommit of them; a message that can have no share waits
// for a holder to drain, or has the holders above the fair share lowered to it.
class LinkRates {
 public:
  // Messages that share the link's rate at most.
  static constexpr std::size_t kOvercommit = 16;

  explicit LinkRates(std::uint32_t capacity) : capacity_(capacity) {}

  [[nodiscard]] std::uint32_t capacity() const { return capacity_; }
  // The sum of the Pacing Rates of the live grants.
  [[nodiscard]] std::uint64_t sum() const { return sum_; }
  // Messages that hold a rate.
  [[nodiscard]] std::size_t holders() const { return holders_.size(); }

  // The rate `message` of `association` holds goes from `from` to `to`; `queued`: whether the
  // message is in the grant queue (where one that holds no rate wants a share).
  void set(std::uint32_t association, std::uint64_t message, std::uint32_t from, std::uint32_t to,
           bool queued) {
    if ((from == 0) != (to == 0)) {
      live_ = to == 0 ? live_ - 1 : live_ + 1;
      if (queued) queued_idle_ = to == 0 ? queued_idle_ + 1 : queued_idle_ - 1;
    }
    if (from != 0) holders_.erase({from, association, message});
    if (to != 0) holders_.emplace(to, association, message);
    sum_ = sum_ - from + to;
  }
  // A message that holds `rate` enters or leaves the grant queue.
  void enqueued(std::uint32_t rate) {
    if (rate == 0) ++queued_idle_;
  }
  void dequeued(std::uint32_t rate) {
    if (rate == 0) --queued_idle_;
  }
  // A grant pass set a message aside that can have no rate now; it still wants a share until
  // the pass ends.
  void park() { ++parked_idle_; }
  void end_pass() { parked_idle_ = 0; }

  // A fair share of the link among the messages that hold a rate or want credit (each counted
  // once), at most kOvercommit of them; how it is divided is the policy's (rate_share). Whole
  // Mbit/s, as grants carry it: a fraction would make every grant at the share look short of
  // it and lower the holders again.
  [[nodiscard]] double fair_share(const ReceiverPolicy& policy) const {
    const std::size_t sharing =
        std::clamp<std::size_t>(live_ + queued_idle_ + parked_idle_, 1, kOvercommit);
    return static_cast<double>(std::min(capacity_, policy.rate_share(capacity_, sharing)));
  }
  // The rate a sender capped at `sender` should be granted if the link's rate were free.
  [[nodiscard]] double wanted(double sender, const ReceiverPolicy& policy) const {
    return std::min(sender, fair_share(policy));
  }
  // What the link leaves for a message that holds `own`: the capacity less the others' rates.
  [[nodiscard]] std::uint64_t headroom(std::uint32_t own) const {
    const std::uint64_t others = sum_ - own;
    return capacity_ > others ? capacity_ - others : 0;
  }
  // The Pacing Rate a message that holds `own` is granted, its sender capped at `sender`
  // (SenderRate::cap), whole Mbit/s; 0: none now (RDCC-GRANT-06: "Receivers MUST issue a
  // non-zero Pacing Rate", so it waits). Within the headroom (RDCC-ALLOC-01) unless the
  // policy's rule hook says otherwise. What the holders' whole-Mbit/s shares leave of the link
  // is no rate to send a window at: below `r_min`, the message waits for a holder to drain
  // (docs/spec-notes.md, 72).
  [[nodiscard]] std::uint32_t rate_for(double sender, std::uint32_t own, double r_min,
                                       const ReceiverPolicy& policy) const {
    double r = sender;
    if (policy.enforce_rate_sum()) {
      const double want = wanted(sender, policy);
      const auto room = static_cast<double>(headroom(own));
      if (room < want && room < r_min) return 0;
      r = std::min(want, room);
    }
    return r < 1 ? 0 : static_cast<std::uint32_t>(r);
  }
  // The link's rate is held by others: `regrant(association, message, share)` is offered the
  // holders above the fair share, highest first, until a message that holds `own` and wants
  // `want` finds that much headroom. It answers whether it re-granted the holder at `share`
  // (which lowers its rate here through set); the offers then start again from the highest.
  template <class Regrant>
  void lower_holders(std::uint32_t own, double want, const ReceiverPolicy& policy,
                     Regrant&& regrant) {
    const auto share = static_cast<std::uint32_t>(fair_share(policy));
    auto it = holders_.begin();
    while (it != holders_.end() && std::get<0>(*it) > share &&
           static_cast<double>(headroom(own)) < want) {
      if (regrant(std::get<1>(*it), std::get<2>(*it), share)) {
        it = holders_.begin();
      } else {
        ++it;
      }
    }
  }

 private:
  std::uint32_t capacity_;
  std::uint64_t sum_ = 0;        // sum of the Pacing Rates of live grants
  std::size_t live_ = 0;         // grants whose rate is counted in sum_
  std::size_t queued_idle_ = 0;  // messages in the grant queue that hold no rate
  std::size_t parked_idle_ = 0;  // set aside by this grant pass: no rate to be had
  // (rate, association, Message ID) of the messages holding a rate, highest first.
  std::set<std::tuple<std::uint32_t, std::uint32_t, std::uint64_t>, std::greater<>> holders_;
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
