// The receiver's grant scheduler: "Credit Allocation", which message gets credit next, how
// much, and for how long (the rate is rate_controller.hpp's).
//
// "Credit that becomes available is distributed among waiting messages by Traffic Class first
// (lower class number first) and by weight within a class. A receiver SHOULD give precedence
// to messages with an earlier deadline when deadlines are present." ("Traffic Classes and Pool
// Credit": "A receiver that uses per-message grants applies the same precedence".)
//
// The grant queue holds the messages that want credit, in that order: class, then messages
// with a deadline (earliest first) before those without, then stride scheduling within the
// class (a message's pass advances by the credit it is granted divided by its weight, so that
// the credit of a class is shared in proportion to the weights), then association and Message
// ID.
//
// A grant pass (grant_pass) serves the queue in that order: each message is offered the
// credit its window allows (target_limit), as much of it as the budget holds (CreditLedger::
// fit, "Receiver Credit Budget") at the rate the link leaves it (LinkRates, rule 1). A grant
// says how much (Grant Limit, FINAL) and for how long (Lifetime): make_grant. Unit tests:
// reference/test/grant_scheduler_test.cpp.
#pragma once

#include <algorithm>
#include <compare>
#include <cstdint>
#include <limits>
#include <optional>
#include <set>

#include "rdcc/codec/codec.hpp"
#include "rdcc/reference/time.hpp"

namespace rdcc::ref {

struct GrantOrder {
  std::uint8_t traffic_class = 0;
  bool no_deadline = true;
  std::int64_t deadline = 0;  // ns, when there is one
  std::uint64_t pass = 0;
  std::uint32_t association = 0;
  std::uint64_t message = 0;
  friend auto operator<=>(const GrantOrder&, const GrantOrder&) = default;
};

class GrantQueue {
 public:
  // The pass unit of the weighted round robin.
  static constexpr std::uint64_t kStride = 1ULL << 16U;

  void insert(const GrantOrder& o) { queue_.insert(o); }
  void erase(const GrantOrder& o) { queue_.erase(o); }
  [[nodiscard]] bool empty() const { return queue_.empty(); }
  [[nodiscard]] std::size_t size() const { return queue_.size(); }
  // The message served next.
  [[nodiscard]] const GrantOrder& top() const { return *queue_.begin(); }

  // Stride scheduling: a new message starts at the smallest pass of its class in the queue
  // (0 when the class has none), so it neither jumps ahead of nor waits behind the others.
  [[nodiscard]] std::uint64_t class_pass(std::uint8_t traffic_class) const {
    auto it = queue_.lower_bound(
        GrantOrder{traffic_class, false, std::numeric_limits<std::int64_t>::min(), 0, 0, 0});
    if (it != queue_.end() && it->traffic_class == traffic_class) return it->pass;
    return 0;
  }
  // The pass of a message of `weight` after it is granted `octets` more credit.
  [[nodiscard]] static std::uint64_t advance(std::uint64_t pass, std::uint64_t octets,
                                             std::uint8_t weight) {
    return pass + octets * kStride / weight;
  }

 private:
  std::set<GrantOrder> queue_;
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

// The Grant Limit a grant would carry: `window` octets past what the sender owes nothing more
// for (MessageCredit::covered), never beyond the message (RDCC-GRANT-07: "The receiver MUST
// NOT grant beyond the message length"), and never below the limit already issued: a
// renewal restates at least the old limit ("it never reduces credit", RDCC-GRANT-11).
template <class M>
[[nodiscard]] std::uint64_t target_limit(const M& m, std::uint64_t window) {
  return std::max(m.limit, std::min(m.length, m.covered() + window));
}

// Whether a message wants more credit: it is not granted to its end, and its window is half
// used or it holds no grant beyond its unscheduled window. (A lapsed grant wants renewing too:
// MessageCredit::lapsed.)
template <class M>
[[nodiscard]] bool wants_more(const M& m, std::uint64_t window) {
  return m.limit < m.length && (m.limit <= m.window || m.outstanding() <= window / 2);
}

// ---- the grant ------------------------------------------------------------------------------

// The Lifetime a grant lasts: its Lifetime field (`field_us`, the policy's choice) or, zero,
// "the default Grant Lifetime of the association" (CREDIT_GRANT).
[[nodiscard]] inline Duration grant_lifetime(std::uint32_t field_us, std::uint32_t default_us) {
  return microseconds(field_us != 0 ? field_us : default_us);
}

// The CREDIT_GRANT for message `id` of `length` (the pool: id 0). "It sets the FINAL flag in
// the grant that reaches the message length" (RDCC-GRANT-12); "A grant with Message ID zero
// and the POOL flag set is a pool grant" (RDCC-GRANT-14): the pool has no message length to
// reach. `rate` is never zero (RDCC-GRANT-06, LinkRates::rate_for).
[[nodiscard]] inline CreditGrant make_grant(std::uint64_t id, std::uint64_t length,
                                            std::uint64_t limit, std::uint32_t rate,
                                            std::uint32_t lifetime_field) {
  CreditGrant g;
  g.message_id = id;
  g.grant_limit = limit;
  g.pacing_rate = rate;
  g.lifetime = lifetime_field;
  if (limit == length) g.header.flags = flag::kFinal;
  if (id == 0) g.header.flags = flag::kPool;
  return g;
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
//   message(top)            the message at the top of the queue
//   window(m)               the credit a grant may leave outstanding (policy's grant_window)
//   fit(m, limit, renew, reserved)  the budget's decision (CreditLedger::fit): a limit or none
//   offer(m)                its RateOffer
//   lower_holders(m, want)  lowers the holders of the link's rate above the fair share;
//                           whether the scheduled credit grew (a returned limit restated)
// and acts: skip(m) (leaves the queue: nothing to give), wait(m) (the budget cannot serve it:
// the pass ends), park(m) (no rate to be had: set aside for the rest of the pass),
// grant(m, limit, rate) (issues the grant; the message leaves the queue or moves on in it),
// end_pass() (the parked messages go back to the queue).
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
template <class Host>
void grant_pass(const GrantQueue& queue, Host& host) {
  std::uint64_t reserved = 0;
  while (!queue.empty()) {
    auto& m = host.message(queue.top());
    const std::uint64_t covered = m.covered();
    const std::uint64_t held = m.held();
    const bool renew = m.lapsed();
    const std::uint64_t wanted_limit = target_limit(m, host.window(m));
    if (wanted_limit <= held && !renew) {
      host.skip(m);
      continue;
    }
    const std::optional<std::uint64_t> fit = host.fit(m, wanted_limit, renew, reserved);
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
      continue;
    }
    host.grant(m, limit, offer.rate);
  }
  host.end_pass();
}

}  // namespace rdcc::ref
