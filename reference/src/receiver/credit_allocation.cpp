// The reference receiver's rules of "Credit Allocation": which messages receive credit and at
// what rate: the grant queue and the grant pass, the Pacing Rates within the link (rule 1), the
// AIMD controller (rule 2), and no credit for an association whose Epoch or Association ID is not
// recognized (rule 4).
//
// Receiver::Impl's member functions (receiver_impl.hpp); receiver.cpp dispatches to them. Section
// names in comments are the spec's headings; docs/reference.md maps each heading to its file.
#include "receiver_impl.hpp"

#include <algorithm>
#include <utility>
#include <vector>

namespace rdcc::ref {

// A RoCEv2 message is posted in whole RDMA messages ("posts each one only when it holds
// credit for all of its octets"): its window holds at least one of them.
// The window itself is the policy's choice (policy.hpp).
std::uint64_t Receiver::Impl::window_of(const Msg& m) const {
  WindowContext c;
  c.default_window = grant_window();
  c.length = m.length;
  c.scheduled_received = m.sched_received;
  c.credit_unit = cfg.credit_unit;
  return std::max({policy->grant_window(c), m.post_unit, std::uint64_t{1}});
}

std::uint64_t Receiver::Impl::grant_window() const {
  return own_window;
}

void Receiver::Impl::set_rate(Msg& m, std::uint32_t rate) {
  rates.set(m.association, m.id, m.rate, rate, m.queued);
  m.rate = rate;
}

void Receiver::Impl::dequeue(Msg& m) {
  if (!m.queued) return;
  queue.erase(key_of(m));
  m.queued = false;
  rates.dequeued(m.rate);
}

GrantOrder Receiver::Impl::key_of(const Msg& m) {
  return GrantOrder{m.traffic_class, !m.has_deadline, m.has_deadline ? m.deadline.ns : 0,
                    m.pass,          m.association,   m.id};
}

// In the grant queue exactly while the message can take more credit, or holds an expired
// grant that its sender asked to have renewed.
void Receiver::Impl::requeue(Assoc& a, Msg& m) {
  if (m.pooled) return;  // the pool (Msg 0) is queued for it
  bool wants = m.state == MsgState::Active && (wants_more(m, window_of(m)) || m.lapsed());
  if (wants && !m.lapsed() && (association_full(a) || a.capped)) {
    // It waits for its own association's data, out of the queue: counted neither in the
    // grant pass nor in the link's fair share (docs/spec-notes.md 132). Where messages of its
    // association already wait so, it joins them, and release_capped admits them together in
    // the grant queue's order: a message whose own data freed the room does not take it ahead
    // of one that waited first and comes first by class or weight (docs/spec-notes.md 191).
    wants = false;
    mark_capped(a);
  }
  if (wants == m.queued) return;
  if (wants) {
    queue.insert(key_of(m), Queued{&a, &m});
    m.queued = true;
    rates.enqueued(m.rate);
  } else {
    dequeue(m);
  }
}

// `m` no longer waits for credit (complete, cancelled, misbehaving or released): it leaves
// the grant queue and stops counting as pending.
void Receiver::Impl::stop_waiting(Assoc& a, Msg& m) {
  dequeue(m);
  if ((m.state == MsgState::Active || m.state == MsgState::Dormant) && m.id != 0) {
    --a.active;
    --pending;
    if (a.active == 0) --active_assocs;
  }
}

// The rate the sender may be granted, before the link is shared (SenderRate::cap,
// credit_allocation.hpp).
double Receiver::Impl::sender_rate(const Assoc& a, Time now) const {
  return a.cap(a.line_rate, now, lifetime());
}

// "R_min is one Credit Unit per update interval".
double Receiver::Impl::min_rate() const {
  return own_min_rate;
}

std::uint32_t Receiver::Impl::rate_for(const Assoc& a, const Msg& m, Time now) const {
  return rates.rate_for(sender_rate(a, now), m.rate, min_rate(), *policy);
}

// The link's rate is held by others (LinkRates::lower_holders): a holder above the fair
// share is re-granted at it. A grant at the Grant Limit the sender holds "only refreshes the
// Lifetime and Pacing Rate" (docs/spec-notes.md, 42). Only active messages are re-granted: a
// cancelled, misbehaving or dormant one gets no grant, and keeps its rate until its credit
// is released.
void Receiver::Impl::lower_holders(const Msg& m, double want, Time now) {
  rates.lower_holders(m.rate, want, *policy,
                      [&](std::uint32_t association, std::uint64_t message, std::uint32_t share) {
                        Assoc& ha = assocs.at(association);
                        Msg& h = ha.msgs.at(message);
                        if (&h == &m || h.state != MsgState::Active) return false;
                        // Restating the limit gives back what a CREDIT_RETURN gave up
                        // (spec-notes 80): only with room for it in G_s, or the holder keeps
                        // its rate (spec-notes 92).
                        const std::uint64_t restated = h.restated();
                        const std::uint64_t taken_back =
                            restated > h.accounted ? restated - h.accounted : 0;
                        const std::uint64_t room = ledger.scheduled_room(scheduled_budget());
                        if (taken_back > room && policy->enforce_budget()) return false;
                        if (policy->lower_grant_reclaims() && h.limit > h.covered()) {
                          h.limit = h.covered() + (h.limit - h.covered()) / 2;
                        }
                        issue_grant(ha, h, h.limit, share, 0, now);
                        return true;
                      });
}

// The receiver as the grant pass (grant_pass, credit_allocation.hpp) sees it at `now`.
struct Receiver::Impl::GrantPassHost {
  Impl& r;
  Time now;
  Assoc* assoc = nullptr;  // the association of the message under the queue's cursor
  std::uint64_t win = 0;   // and its window_of, asked for again and again as it is looked at
  Msg& message(const Queued& q) {
    assoc = q.assoc;
    win = r.window_of(*q.msg);
    return *q.msg;
  }
  [[nodiscard]] std::uint64_t window(const Msg& /*m*/) const { return win; }
  [[nodiscard]] std::optional<std::uint64_t> fit(const Msg& m, std::uint64_t limit, bool renew,
                                                 std::uint64_t reserved) const {
    BudgetBounds bounds;
    bounds.scheduled_pool = r.policy->scheduled_pool(r.cfg.budget, r.scheduled_budget());
    bounds.reserved = reserved;
    bounds.association_cap = association_cap(m);
    bounds.enforce = r.policy->enforce_budget();
    if (r.policy->budget_per_association()) {
      bounds.enforce = false;
      bounds.association_cap = bounds.scheduled_pool;
    }
    return r.ledger.fit(
        *assoc, m,
        GrantAsk{limit, m.post_unit, r.cfg.credit_unit, renew,
                 least_new(m, std::min(bounds.scheduled_pool, bounds.association_cap == 0
                                                                  ? bounds.scheduled_pool
                                                                  : bounds.association_cap))},
        bounds);
  }
  // "Receivers SHOULD cap the credit ... per association" (RDCC-SEC-02): the operator's cap,
  // else the Backlog Threshold N_cu the association was told (docs/spec-notes.md 132), never
  // below one window of the message.
  [[nodiscard]] std::uint64_t association_cap(const Msg& /*m*/) const {
    const std::uint64_t cap = r.association_cap();
    return cap == 0 ? 0 : std::max(cap, win);
  }
  // The least new credit a grant short of room gives: half a window, at most a quarter of
  // what bounds the grant, at least one Credit Unit (docs/spec-notes.md 132).
  [[nodiscard]] std::uint64_t least_new(const Msg& /*m*/, std::uint64_t bound) const {
    return r.least_new(win, bound);
  }
  [[nodiscard]] bool association_full(const Msg& m) const {
    const std::uint64_t cap = association_cap(m);
    const std::uint64_t target = target_limit(m, win);
    const std::uint64_t need = target > m.held() ? target - m.held() : 0;
    return CreditLedger::association_full(*assoc, cap, std::min(need, least_new(m, cap)));
  }
  [[nodiscard]] RateOffer offer(const Msg& m) const {
    const double sender = r.sender_rate(*assoc, now);
    return RateOffer{r.rates.rate_for(sender, m.rate, r.min_rate(), *r.policy),
                     r.rates.wanted(sender, *r.policy)};
  }
  bool lower_holders(const Msg& m, double want) {
    const std::uint64_t before = r.ledger.scheduled();
    r.lower_holders(m, want, now);
    return r.ledger.scheduled() > before;
  }
  void skip(Msg& m) { r.dequeue(m); }
  void set_aside(Msg& m) {
    r.dequeue(m);
    r.mark_capped(*assoc);
  }
  void wait(Msg& m) { r.out_of_budget(*assoc, m, now); }
  // Every holder is at its share (kOvercommit of them): it waits until one drains (its rate
  // is released when its last octet arrives) or is reclaimed. The grant queue sets it aside.
  void park(const Msg& m) { r.rates.park(m.rate); }
  // A converted unscheduled message: its in-flight unscheduled octets move into the
  // scheduled accounting when it is granted (the sender then counts it as no longer
  // outstanding and may start another). So do the octets of a window whose reservation has
  // lapsed (J + Lifetime + 2 * D_max after the request) without their arrival: the grant's
  // limit covers them again and "Granted(a)" counts them until they arrive
  // (docs/spec-notes.md, 91).
  void grant(Msg& m, std::uint64_t limit, std::uint32_t rate) {
    r.issue_grant(*assoc, m, limit, rate, m.unsched_in_flight(), now);
  }
  // A parked message stays in the queue while it still wants credit.
  void unpark(const Queued& q) { r.requeue(*q.assoc, *q.msg); }
  void end_pass() { r.rates.end_pass(); }
};

std::uint64_t Receiver::Impl::association_cap() const {
  return cfg.max_credit_per_association != 0 ? cfg.max_credit_per_association
                                             : cfg.backlog_threshold;
}

std::uint64_t Receiver::Impl::least_new(std::uint64_t window, std::uint64_t bound) const {
  const std::uint64_t cu = std::max<std::uint64_t>(cfg.credit_unit, 1);
  return std::max(cu, std::min(window / 2, bound / 4) / cu * cu);
}

std::uint64_t Receiver::Impl::association_bound() const {
  const std::uint64_t cap = association_cap();
  return cap == 0 ? 0 : std::max(cap, grant_window());
}

bool Receiver::Impl::association_full(const Assoc& a) const {
  return CreditLedger::association_full(a, own_bound, own_least_new);
}

void Receiver::Impl::mark_capped(Assoc& a) {
  if (a.capped) return;
  a.capped = true;
  capped_assocs.push_back(a.id);
}

// Room under the cap came back (its data arrived, credit was reclaimed or a message ended):
// as many of its waiting messages as that room serves go back into the grant queue, first in
// the grant queue's own order ("by Traffic Class first (lower class number first) and by weight
// within a class", Credit Allocation: class, deadline, then the stride pass); the others wait on,
// out of the link's fair share. The pass alone compared passes of different classes, and with
// room for one message a Class 7 message went before a waiting Class 6 one (spec-notes 183).
void Receiver::Impl::release_capped() {
  if (capped_assocs.empty()) return;
  std::vector<std::uint32_t> still;
  std::vector<Msg*> waiting;
  for (const std::uint32_t id : capped_assocs) {
    Assoc* a = assocs.find(id);
    if (a == nullptr) continue;
    if (association_full(*a)) {
      still.push_back(id);
      continue;
    }
    // Only an association with a cap is ever capped, and it has room: bound > accounted.
    // own_bound and own_least_new: association_bound() and its least new credit, worked out once.
    std::size_t admit = (own_bound - a->accounted) / own_least_new;
    waiting.clear();
    for (auto& [mid, m] : a->msgs) {
      if (m.queued) {
        admit = admit > 0 ? admit - 1 : 0;
      } else if (!m.pooled && m.state == MsgState::Active && wants_more(m, window_of(m))) {
        waiting.push_back(&m);
      }
    }
    std::sort(waiting.begin(), waiting.end(),
              [](const Msg* x, const Msg* y) { return key_of(*x) < key_of(*y); });
    const std::size_t n = std::min(admit, waiting.size());
    // requeue holds a capped association's messages back; the admitted ones go in (the
    // association has room: requeue marks it capped again for none of them).
    a->capped = false;
    for (std::size_t i = 0; i < n; ++i) requeue(*a, *waiting[i]);
    if (n < waiting.size()) {
      a->capped = true;
      still.push_back(id);
    }
  }
  capped_assocs.swap(still);
}

void Receiver::Impl::grant_pass(Time now) {
  release_capped();
  GrantPassHost host{*this, now};
  rdcc::ref::grant_pass(queue, host);
}

void Receiver::Impl::ensure_aimd(Time now) {
  if (aimd_armed) return;
  aimd_armed = true;
  arm(now + std::max(cfg.base_rtt, microseconds(1)), TimerKind::Aimd);
}

// "Every update interval T_upd ... if congestion signal s_i > 0 in the last interval:
// r_i = max(R_min, r_i * (1 - beta * s_i)) else: r_i = min(R_max_i, r_i + alpha)"
// Each association with messages is updated, by itself. Those not in aimd_due are at rest:
// their last update had no signal and left r_i as it was, and no Suggested Rate is in force,
// so each update since had the same arguments and gave r_i again (the controller is a function
// of its arguments, ReceiverPolicy::next_rate): they are left out until a signal, a Suggested
// Rate, a change of r_i or a first message lists them again (aimd_wake). A tick costs the
// associations it can change, not all of them.
void Receiver::Impl::aimd_tick(Time now) {
  aimd_armed = false;
  const double r_min = min_rate();
  for (const std::uint32_t id : aimd_due.take()) {
    Assoc* a = assocs.find(id);
    if (a == nullptr || a->active == 0) continue;
    const double r_max = a->r_max(a->line_rate, cfg.link_capacity_mbps, now, lifetime());
    const double before = a->rate;
    const bool quiet = a->signal() == 0;
    a->update(*policy, r_min, r_max, cfg.aimd_alpha_mbps, cfg.aimd_beta);
    if (!quiet || a->rate != before || a->suggestion(now, lifetime()) != 0) aimd_due.add(id);
  }
  if (active_assocs != 0) ensure_aimd(now);
}

// The association a message from `from` with header `h` belongs to, or none. RDCC-ALLOC-04:
// "The receiver MUST NOT grant credit to an association whose Epoch or Association ID it does
// not recognize": such a message reaches no rule that grants (whether the Epoch is recognized
// is the policy's rule hook). Nor does one from another address than the one bound when the
// association was accepted ("Association Establishment"), unless the policy follows the
// request's source.
auto Receiver::Impl::association_of(const Address& from, const Header& h) -> Assoc* {
  Assoc* a = assocs.find(h.association_id);
  if (a == nullptr || !policy->recognizes_epoch(h.epoch, cfg.epoch)) {
    return nullptr;
  }
  if (a->peer != from && policy->follow_request_source()) a->peer = from;
  if (a->peer != from && !policy->accept_from_any_address()) {
    ++stats.requests_from_wrong_address;
    return nullptr;
  }
  return a;
}

// Whether `h` names an association of ours with an Epoch we recognize (a message that
// association_of found none for came from another address than the bound one).
bool Receiver::Impl::names_live_association(const Header& h) {
  return assocs.find(h.association_id) != nullptr && policy->recognizes_epoch(h.epoch, cfg.epoch);
}

// `a` is listed for the next update interval (aimd_tick): it has messages, and what it observed
// or was told may change r_i.
void Receiver::Impl::aimd_wake(const Assoc& a) {
  if (a.active != 0) aimd_due.add(a.id);
}

}  // namespace rdcc::ref
