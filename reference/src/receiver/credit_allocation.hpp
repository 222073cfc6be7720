// The receiver's rules of "Credit Allocation": "The receiver decides which messages receive
// credit and at what rate."
//
// Which messages, and how much (the grant scheduler). "Credit that becomes available is
// distributed among waiting messages by Traffic Class first (lower class number first) and by
// weight within a class. A receiver SHOULD give precedence to messages with an earlier deadline
// when deadlines are present." ("Traffic Classes and Pool Credit": "A receiver that uses
// per-message grants applies the same precedence".)
//
// The grant queue holds the messages that want credit, in that order: class, then messages
// with a deadline (earliest first) before those without, then stride scheduling within the
// class (a message's pass advances by the credit it is granted divided by its weight, so that
// the credit of a class is shared in proportion to the weights), then association and Message
// ID.
//
// A grant pass (grant_pass) serves the queue in that order: each message is offered the
// credit its window allows (target_limit, "Credit Requests and Grants"), as much of it as the
// budget holds (CreditLedger::fit, "Receiver Credit Budget") at the rate the link leaves it
// (LinkRates, rule 1). A grant says how much (Grant Limit, FINAL) and for how long (Lifetime):
// make_grant ("CREDIT_GRANT").
//
// At what rate (the rate controller): the RECOMMENDED AIMD controller and rules 1 to 3.
// SenderRate is what the receiver knows of one sender's rate: r_i, the congestion signals of
// the current update interval, and the sender's latest Suggested Rate ("Sender Backlog
// Indication and Suggested Rates"). LinkRates shares the access link among the messages: the
// sum of the Pacing Rates issued stays within its capacity (rule 1). When they are updated is
// the receiver's rule code (timers, arriving data and reports, credit_allocation.cpp); these
// are the arithmetic.
//
// Unit tests: reference/test/receiver/credit_allocation_test.cpp.
#pragma once

#include <algorithm>
#include <cassert>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <vector>

#include "credit_requests_and_grants.hpp"
#include "rdcc/codec/codec.hpp"
#include "rdcc/reference/policy.hpp"
#include "rdcc/reference/time.hpp"
#include "sender_backlog_indication_and_suggested_rates.hpp"

namespace rdcc::ref {

struct GrantOrder {
  std::uint8_t traffic_class = 0;
  bool no_deadline = true;
  std::int64_t deadline = 0;  // ns, when there is one
  std::uint64_t pass = 0;
  std::uint32_t association = 0;
  std::uint64_t message = 0;
  // clang-tidy 14 reads the literal 0 of a defaulted <=> as a null pointer (fixed in 17).
  friend auto operator<=>(const GrantOrder&,
                          const GrantOrder&) = default;  // NOLINT(modernize-use-nullptr)
};

// Stride scheduling: the pass unit of the weighted round robin, and the pass of a message of
// `weight` after it is granted `octets` more credit.
inline constexpr std::uint64_t kStride = 1ULL << 16U;
[[nodiscard]] inline std::uint64_t advance_pass(std::uint64_t pass, std::uint64_t octets,
                                                std::uint8_t weight) {
  return pass + octets * kStride / weight;
}

// The grant queue: the messages that want credit in GrantOrder, each with the `Item` the
// receiver reaches it by (the association and the message themselves: no lookup by ID per
// message served).
//
// A grant pass walks it from the top with a cursor. A message the pass parks (no rate to be
// had: grant_pass) stays where it is, marked, and the cursor moves past it; at the end of the
// pass the marks are cleared. So a parked message costs the pass a step of the cursor, not an
// erase and a re-insert, and the messages the pass serves are exactly those it served when
// parking took a message out of the queue until the end of the pass: the entries before the
// cursor are parked, a message inserted before the cursor during the pass (a holder re-granted)
// is where the cursor goes next, and one erased under the cursor moves it on.
template <class Item>
class GrantQueue {
 public:
  void insert(const GrantOrder& o, Item item) {
    auto it = queue_.emplace(o, Entry{item, false}).first;
    if (in_pass_ && (cursor_ == queue_.end() || o < cursor_->first)) cursor_ = it;
  }
  void erase(const GrantOrder& o) {
    auto it = queue_.find(o);
    if (it == queue_.end()) return;
    if (in_pass_) {
      if (it == cursor_) cursor_ = next_unparked(std::next(it));
      if (it->second.parked) forget_parked(it);
    }
    queue_.erase(it);
  }
  [[nodiscard]] bool empty() const { return queue_.empty(); }
  [[nodiscard]] std::size_t size() const { return queue_.size(); }
  // The message served next, outside a pass.
  [[nodiscard]] const GrantOrder& top() const { return queue_.begin()->first; }

  // Stride scheduling: a new message starts at the smallest pass of its class in the queue
  // (0 when the class has none), so it neither jumps ahead of nor waits behind the others.
  [[nodiscard]] std::uint64_t class_pass(std::uint8_t traffic_class) const {
    assert(!in_pass_);
    auto it = queue_.lower_bound(
        GrantOrder{traffic_class, false, std::numeric_limits<std::int64_t>::min(), 0, 0, 0});
    if (it != queue_.end() && it->first.traffic_class == traffic_class) return it->first.pass;
    return 0;
  }

  // ---- a grant pass ----
  void begin_pass() {
    assert(!in_pass_ && parked_.empty());
    in_pass_ = true;
    cursor_ = queue_.begin();
  }
  // Whether every message not parked has been served.
  [[nodiscard]] bool pass_done() const { return cursor_ == queue_.end(); }
  // The message under the cursor: the first in order that is not parked.
  [[nodiscard]] const Item& current() const { return cursor_->second.item; }
  // Sets the message under the cursor aside for the rest of the pass.
  void park_current() {
    cursor_->second.parked = true;
    parked_.push_back(Parked{cursor_, cursor_->second.item});
    cursor_ = next_unparked(std::next(cursor_));
  }
  // The pass ends: `unparked(item)` for every message parked, in the order they were parked
  // (one erased since is still named: it was re-granted, and the receiver looks at it again).
  template <class F>
  void end_pass(F&& unparked) {
    in_pass_ = false;
    cursor_ = queue_.end();
    std::vector<Parked> parked;
    parked.swap(parked_);
    for (Parked& p : parked) {
      if (p.where != queue_.end()) p.where->second.parked = false;
    }
    for (Parked& p : parked) unparked(p.item);
  }

 private:
  struct Entry {
    Item item;
    bool parked = false;
  };
  using Map = std::map<GrantOrder, Entry>;
  struct Parked {
    typename Map::iterator where;  // end(): erased since it was parked
    Item item;
  };

  typename Map::iterator next_unparked(typename Map::iterator it) {
    while (it != queue_.end() && it->second.parked) ++it;
    return it;
  }
  // A parked message erased during the pass (a holder re-granted): rare, so a search.
  void forget_parked(typename Map::iterator it) {
    for (Parked& p : parked_) {
      if (p.where == it) p.where = queue_.end();
    }
  }

  Map queue_;
  bool in_pass_ = false;
  typename Map::iterator cursor_ = queue_.end();
  std::vector<Parked> parked_;
};

// ---- how much ------------------------------------------------------------------------------

// The receiver's own window: one BDP of the access link (base RTT x capacity), at least four
// Credit Units; `configured` (non-zero) instead when the operator set one.
[[nodiscard]] inline std::uint64_t default_window(std::uint64_t configured, Duration base_rtt,
                                                  std::uint32_t link_capacity_mbps,
                                                  std::uint32_t credit_unit) {
  if (configured != 0) return configured;
  const auto bdp = static_cast<std::uint64_t>(base_rtt.ns) * link_capacity_mbps / 8000U;
  return std::max<std::uint64_t>(bdp, 4ULL * credit_unit);
}

// Whether a message wants more credit: it is not granted to its end, and its window is half
// used or it holds no grant beyond its unscheduled window. (A lapsed grant wants renewing too:
// MessageCredit::lapsed.)
template <class M>
[[nodiscard]] bool wants_more(const M& m, std::uint64_t window) {
  return m.limit < m.length && (m.limit <= m.window || m.outstanding() <= window / 2);
}

// ---- the grant pass -------------------------------------------------------------------------

// The rate a message is offered (LinkRates): `rate`, 0 for none now, and the rate it `wanted`
// (its sender's cap within the fair share).
struct RateOffer {
  std::uint32_t rate = 0;
  double wanted = 0;
};

// Serves the grant queue in class, deadline and stride order. `host` is the receiver; it
// answers for message `m` (a MessageCredit with `received_at_grant`, the octets received when
// its latest grant was issued):
//   message(item)           the message of the queue's current item (and its association)
//   window(m)               the credit a grant may leave outstanding (policy's grant_window)
//   fit(m, limit, renew, reserved)  the budget's decision (CreditLedger::fit): a limit or none
//   association_full(m)     whether the cap on its association's credit is what leaves it none
//   offer(m)                its RateOffer
//   lower_holders(m, want)  lowers the holders of the link's rate above the fair share;
//                           whether the scheduled credit grew (a returned limit restated)
// and acts: skip(m) (leaves the queue: nothing to give), set_aside(m) (leaves the queue until
// its association has room under its cap again), wait(m) (the budget cannot serve it:
// the pass ends), park(m) (no rate to be had: the queue sets it aside for the rest of the
// pass), grant(m, limit, rate) (issues the grant; the message leaves the queue or moves on in
// it), unpark(item) (each parked message, once the pass is over: does it still want credit),
// end_pass().
//
// A message that can get no rate is parked with its budget reserved, so that nothing behind
// it in class order takes that budget, while the messages behind it that hold a rate are
// still re-granted; a message the budget cannot serve ends the pass. A renewal that adds no
// credit, of a grant under which nothing at all arrived (the sender asked again; a dead data
// path) takes only the rate that is free: lowering the holders would re-grant each of them, so
// that every request on a dead data path drew a grant per holder (docs/spec-notes.md, "A
// re-request is answered once, and never at the holders' expense"). A holder that had returned
// credit and is re-granted counts its whole limit again (the grant gives the sender back the
// right to use it): the message's share of the budget is then worked out anew (spec-notes 80).
template <class Item, class Host>
void grant_pass(GrantQueue<Item>& queue, Host& host) {
  std::uint64_t reserved = 0;
  queue.begin_pass();
  while (!queue.pass_done()) {
    auto& m = host.message(queue.current());
    const std::uint64_t covered = m.covered();
    const std::uint64_t held = m.held();
    const bool renew = m.lapsed();
    const std::uint64_t wanted_limit = target_limit(m, host.window(m));
    if (wanted_limit <= held && !renew) {
      host.skip(m);
      continue;
    }
    const std::optional<std::uint64_t> fit = host.fit(m, wanted_limit, renew, reserved);
    if (!fit && host.association_full(m)) {
      // Its association is at its cap: it leaves the queue to wait for that association's own
      // data, and the messages of other associations behind it are served.
      host.set_aside(m);
      continue;
    }
    if (!fit) {
      host.wait(m);
      break;
    }
    const std::uint64_t limit = *fit;
    RateOffer offer = host.offer(m);
    const bool adds_nothing = renew && limit <= held && m.received() == m.received_at_grant;
    if (static_cast<double>(offer.rate) < offer.wanted && !adds_nothing) {
      if (host.lower_holders(m, offer.wanted)) continue;
      offer = host.offer(m);
    }
    if (offer.rate == 0) {
      reserved += limit - covered - m.accounted;
      host.park(m);
      queue.park_current();
      continue;
    }
    host.grant(m, limit, offer.rate);
  }
  queue.end_pass([&](const Item& item) { host.unpark(item); });
  host.end_pass();
}

// ---- at what rate ------------------------------------------------------------------------

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
  // The Suggested Rate in force, 0 for none (suggestion_in_force, "Sender Backlog Indication
  // and Suggested Rates").
  [[nodiscard]] std::uint32_t suggestion(Time now, Duration lifetime) const {
    return suggestion_in_force(suggested_rate, suggested_at, now, lifetime);
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
  // A grant pass set a message that holds `rate` aside: it can have no rate now, and still
  // wants a share until the pass ends. It stays in the grant queue (GrantQueue: parked), so
  // one that holds no rate is counted there already; one that holds a rate wants a share
  // besides the one it holds, and counts once more.
  void park(std::uint32_t rate) {
    if (rate != 0) ++parked_holders_;
  }
  void end_pass() { parked_holders_ = 0; }

  // A fair share of the link among the messages that hold a rate or want credit (each counted
  // once), at most kOvercommit of them; how it is divided is the policy's (rate_share). Whole
  // Mbit/s, as grants carry it: a fraction would make every grant at the share look short of
  // it and lower the holders again.
  [[nodiscard]] double fair_share(const ReceiverPolicy& policy) const {
    const std::size_t sharing =
        std::clamp<std::size_t>(live_ + queued_idle_ + parked_holders_, 1, kOvercommit);
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
  std::uint64_t sum_ = 0;           // sum of the Pacing Rates of live grants
  std::size_t live_ = 0;            // grants whose rate is counted in sum_
  std::size_t queued_idle_ = 0;     // messages in the grant queue that hold no rate
  std::size_t parked_holders_ = 0;  // holders set aside by this grant pass: no rate to be had
  // (rate, association, Message ID) of the messages holding a rate, highest first.
  std::set<std::tuple<std::uint32_t, std::uint32_t, std::uint64_t>, std::greater<>> holders_;
};

}  // namespace rdcc::ref
