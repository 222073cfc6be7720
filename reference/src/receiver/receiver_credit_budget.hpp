// The receiver's credit ledger: "Receiver Credit Budget".
//
// "For each association a, let Granted(a) be the sum, over the scheduled messages of a, of
// the Grant Limit issued minus the octets received, and let Unsched(a) be the unscheduled
// octets announced but not yet received. A receiver MUST maintain: sum over a of
// ( Granted(a) + Unsched(a) ) <= G". G = G_s + G_u.
//
// What is counted, per message (MessageCredit): the scheduled credit is (Grant Limit -
// unscheduled window - scheduled octets received) while its latest grant is live, that is
// until Lifetime + 2 * D_max after that grant was sent; the unscheduled credit is (window -
// unscheduled octets received) until the octets arrive or J + Lifetime + 2 * D_max after the
// CREDIT_REQUEST. The ledger keeps the running totals of both, per association
// (AssociationCredit) and over all (CreditLedger), and the sum of the U in force, which
// "MUST NOT exceed G_u" ("Unscheduled Transmission"); every change goes through one of its
// operations, which keep the totals equal to the sums of their parts (check()). When credit
// is counted or released is the receiver's rule code; the ledger is the arithmetic. Unit
// tests: reference/test/receiver/receiver_credit_budget_test.cpp.
#pragma once

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <limits>
#include <optional>
#include <unordered_set>

#include "rdcc/reference/time.hpp"

namespace rdcc::ref {

// No CREDIT_RETURN since the last grant.
inline constexpr std::uint64_t kNoReturn = std::numeric_limits<std::uint64_t>::max();

// One message's offsets and the credit counted for it.
struct MessageCredit {
  std::uint64_t length = 0;  // Message Length (the pool's: its messages' scheduled octets)
  std::uint64_t window = 0;  // the unscheduled window [0, window)
  std::uint64_t unsched_received = 0;   // octets received inside the window
  std::uint64_t sched_received = 0;     // octets received above it
  std::uint64_t limit = 0;              // highest Grant Limit issued
  std::uint64_t returned = kNoReturn;   // New Limit of a CREDIT_RETURN since the last grant
  std::uint64_t accounted = 0;          // scheduled credit counted now: its part of Granted(a)
  std::uint64_t unsched_accounted = 0;  // unscheduled reservation counted now: of Unsched(a)

  [[nodiscard]] std::uint64_t received() const { return unsched_received + sched_received; }
  // The offset below which the sender owes nothing more: the unscheduled window and the
  // scheduled octets received above it. A Grant Limit beyond it is credit outstanding.
  [[nodiscard]] std::uint64_t covered() const { return window + sched_received; }
  // The offset the sender may transmit up to: its Grant Limit, or its unscheduled window.
  [[nodiscard]] std::uint64_t held() const { return std::max(limit, window); }
  // The scheduled credit the sender still holds: up to the Grant Limit, or up to the New
  // Limit of a CREDIT_RETURN after it ("the offset beyond which the sender will not transmit").
  [[nodiscard]] std::uint64_t outstanding() const {
    const std::uint64_t upto = std::min(limit, returned);
    return upto > covered() ? upto - covered() : 0;
  }
  // The Grant Limit restated in full: the credit a grant at the same limit counts again.
  [[nodiscard]] std::uint64_t restated() const { return limit > covered() ? limit - covered() : 0; }
  // Unscheduled octets announced and not yet received.
  [[nodiscard]] std::uint64_t unsched_in_flight() const {
    return window > unsched_received ? window - unsched_received : 0;
  }
  // A grant lapsed (its credit reclaimed or returned) with octets below its limit not received.
  [[nodiscard]] bool lapsed() const { return accounted == 0 && limit > covered(); }
};

// When credit is released without its data ("Credit is released when data arrives, when
// MSG_DONE is sent, or when credit is reclaimed"). "A sender measures the Lifetime from the
// reception of the grant, which can be up to D_max after the receiver sent it, and an octet
// transmitted just before expiry can take another D_max to arrive. The receiver therefore
// reclaims the credit of an expired grant no earlier than Lifetime + 2 * D_max after it sent
// the grant, and the credit of a cancelled message no earlier than 2 * D_max after it sent or
// received the CANCEL."
[[nodiscard]] inline Time reclaim_at(Time sent, Duration lifetime, Duration d_max) {
  return sent + lifetime + d_max * 2;
}
[[nodiscard]] inline Time cancel_reclaim_at(Time cancelled, Duration d_max) {
  return cancelled + d_max * 2;
}

// What a grant for one message asks of the budget (CreditLedger::fit).
struct GrantAsk {
  std::uint64_t limit = 0;      // the Grant Limit the grant scheduler would issue
  std::uint64_t post_unit = 0;  // RoCEv2: credit in whole RDMA messages of this size; 0: none
  std::uint32_t credit_unit = 0;
  bool renew = false;  // the grant lapsed (MessageCredit::lapsed): a grant may restate it
  // Short of room for the whole ask, the least new credit worth a grant (whole Credit Units
  // rounded); 0: any. A renewal may always restate what it holds.
  std::uint64_t least_new = 0;
};

// The bounds a grant is fitted within (CreditLedger::fit).
struct BudgetBounds {
  std::uint64_t scheduled_pool = 0;   // G_s, as the policy's rule hook gives it
  std::uint64_t reserved = 0;         // credit set aside this grant pass for messages ahead
  std::uint64_t association_cap = 0;  // most scheduled credit per association; 0: none
  bool enforce = true;                // the rule hook: whether a grant waits for room in G_s
};

// One association's part of the totals.
struct AssociationCredit {
  std::uint64_t accounted = 0;  // Granted(a): scheduled credit counted
  std::uint64_t unsched = 0;    // Unsched(a): unscheduled credit counted
  std::uint32_t u_accounted =
      0;  // the U counted against G_u: max(old, new) while an update is unacknowledged
};

class CreditLedger {
 public:
  // An association's part joins the totals (empty), or leaves them (emptied first).
  void open(AssociationCredit& a) { accounts_.insert(&a); }
  void close(AssociationCredit& a) {
    set_u(a, 0);
    assert(a.accounted == 0 && a.unsched == 0);
    accounts_.erase(&a);
  }

  // The scheduled credit counted for message `m` of association `a` becomes `value`.
  void set_scheduled(AssociationCredit& a, MessageCredit& m, std::uint64_t value) {
    sched_sum_ = sched_sum_ - m.accounted + value;
    a.accounted = a.accounted - m.accounted + value;
    m.accounted = value;
  }
  // The unscheduled reservation counted for message `m` of association `a` becomes `value`.
  void set_unscheduled(AssociationCredit& a, MessageCredit& m, std::uint64_t value) {
    unsched_sum_ = unsched_sum_ - m.unsched_accounted + value;
    a.unsched = a.unsched - m.unsched_accounted + value;
    m.unsched_accounted = value;
  }
  // The U counted for association `a` becomes `value`.
  void set_u(AssociationCredit& a, std::uint32_t value) {
    u_sum_ = u_sum_ - a.u_accounted + value;
    a.u_accounted = value;
  }

  // Arriving octets only ever lower the credit counted for a message.
  void settle(AssociationCredit& a, MessageCredit& m) {
    if (m.accounted != 0) set_scheduled(a, m, std::min(m.accounted, m.outstanding()));
  }

  [[nodiscard]] std::uint64_t scheduled() const { return sched_sum_; }
  [[nodiscard]] std::uint64_t unscheduled() const { return unsched_sum_; }
  // sum over a of ( Granted(a) + Unsched(a) ): what the invariant bounds by G.
  [[nodiscard]] std::uint64_t outstanding() const { return sched_sum_ + unsched_sum_; }
  [[nodiscard]] std::uint64_t u_sum() const { return u_sum_; }
  // What `bound` leaves once the scheduled credit counted and `reserved` are taken.
  [[nodiscard]] std::uint64_t scheduled_room(std::uint64_t bound,
                                             std::uint64_t reserved = 0) const {
    const std::uint64_t taken = sched_sum_ + reserved;
    return bound > taken ? bound - taken : 0;
  }
  // The U left of `g_u` once the others' U are counted; `own`: what the association being
  // given a new U counts now.
  [[nodiscard]] std::uint64_t u_room(std::uint64_t g_u, std::uint64_t own) const {
    const std::uint64_t others = u_sum_ - own;
    return g_u > others ? g_u - others : 0;
  }

  // The budget decision for one grant: the Grant Limit a grant for message `m` of association
  // `a` may carry, or nothing: the message waits. RDCC-BUDGET-01: "A receiver MUST maintain:
  // sum over a of ( Granted(a) + Unsched(a) ) <= G"; scheduled credit is kept within G_s.
  // - A converted unscheduled message's in-flight octets (and those of a window whose
  //   reservation lapsed) move into the scheduled credit when it is granted, whatever the
  //   limit (docs/spec-notes.md, 91): no room for them, no grant.
  // - "Receivers SHOULD cap the credit ... per association" (RDCC-SEC-02): within the cap.
  // - Short of room for the whole ask, as much as there is: new credit in whole Credit Units,
  //   a RoCEv2 message's in whole RDMA messages ("posts each one only when it holds credit for
  //   all of its octets"). Grant Limits never go down: if that cannot even restate the old
  //   limit, or gives nothing new to a grant that has not lapsed, the message waits; so it does
  //   when what it gives is less than `ask.least_new`.
  [[nodiscard]] std::optional<std::uint64_t> fit(const AssociationCredit& a, const MessageCredit& m,
                                                 const GrantAsk& ask, const BudgetBounds& b) const {
    const std::uint64_t moved = m.unsched_in_flight();
    std::uint64_t free = scheduled_room(b.scheduled_pool, b.reserved);
    if (moved > free && b.enforce) return std::nullopt;
    free -= std::min(free, moved);
    if (!b.enforce) free = std::numeric_limits<std::uint64_t>::max() / 2;
    if (b.association_cap != 0) {
      free = std::min(free, b.association_cap > a.accounted ? b.association_cap - a.accounted : 0);
    }
    const std::uint64_t covered = m.covered();
    const std::uint64_t need = ask.limit - covered - m.accounted;
    if (need <= free) return ask.limit;
    const std::uint64_t held = m.held();
    std::uint64_t fit = covered + m.accounted + free;
    if (ask.post_unit != 0 && fit < m.length) {
      fit -= fit % ask.post_unit;
    } else if (fit > held) {
      fit -= (fit - held) % ask.credit_unit;
    }
    if (fit < m.limit || (fit <= held && !ask.renew)) return std::nullopt;
    // A sliver of room (one Credit Unit freed by each arriving packet) is not worth a grant
    // per packet: the message waits until the room is worth one (docs/spec-notes.md 132). A
    // message whose grants end on its post units grows by whole post units: one is worth a
    // grant, or a cap below the next Credit Unit's post unit would keep it waiting for good.
    const std::uint64_t least =
        ask.post_unit != 0 ? std::min(ask.least_new, ask.post_unit) : ask.least_new;
    if (!ask.renew && fit > held && fit < ask.limit && fit - held < least) {
      return std::nullopt;
    }
    return fit;
  }

  // Whether association `a` has less than `least` room left under `cap` (0: no cap): its
  // messages wait for their own data, not the others'.
  [[nodiscard]] static bool association_full(const AssociationCredit& a, std::uint64_t cap,
                                             std::uint64_t least) {
    return cap != 0 && a.accounted + least > cap;
  }

  // Each total equals the sum of the associations' parts.
  [[nodiscard]] bool check() const {
    std::uint64_t sched = 0;
    std::uint64_t unsched = 0;
    std::uint64_t u = 0;
    for (const AssociationCredit* a : accounts_) {
      sched += a->accounted;
      unsched += a->unsched;
      u += a->u_accounted;
    }
    return sched == sched_sum_ && unsched == unsched_sum_ && u == u_sum_;
  }

 private:
  std::uint64_t sched_sum_ = 0;    // scheduled credit counted, all associations
  std::uint64_t unsched_sum_ = 0;  // unscheduled reservations counted
  std::uint64_t u_sum_ = 0;        // sum of u_accounted over associations
  std::unordered_set<const AssociationCredit*> accounts_;
};

}  // namespace rdcc::ref
