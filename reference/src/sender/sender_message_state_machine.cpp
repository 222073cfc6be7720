// "Sender Message State Machine", for the sender: the table of "Sender Message State
// Transitions" as data (kTransitions) and one function per row (row_...), dispatched by fire();
// which row an event takes (drained, refresh_state, request_timeout, abort, on_msg_done); and
// octets the data transport retransmits, within the existing Grant Limit (plan_resend,
// on_nack).
#include "sender_impl.hpp"

#include <algorithm>
#include <array>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <span>

namespace rdcc::ref {

namespace {

// "Sender Message State Transitions", as data: each row's states of origin and next state.
// Each row's action is a function of Sender::Impl named after the row (row_new_unscheduled,
// ...; "the rows' actions" there), which Sender::Impl::fire dispatches to by the row's name.
// Rows after WaitingBudgetExhausted are the reference's own, for what the table leaves out
// (docs/spec-notes.md, "The sender's state machine beyond the table").
struct Row {
  SenderTransition id;
  std::uint8_t from;  // bit (1 << MessageState) per state the row leaves
  MessageState to;
};
constexpr std::uint8_t bit(MessageState s) {
  return static_cast<std::uint8_t>(1U << static_cast<unsigned>(s));
}
constexpr std::uint8_t kLive = bit(MessageState::New) | bit(MessageState::Unsched) |
                               bit(MessageState::Waiting) | bit(MessageState::Scheduled) |
                               bit(MessageState::Drained);
using enum MessageState;
constexpr std::array<Row, kSenderTransitionCount> kTransitions{{
    // NEW | length <= U and no unscheduled message outstanding | start random delay; send
    // CREDIT_REQUEST with Unscheduled Sent = length | UNSCHED
    {SenderTransition::NewUnscheduled, bit(New), Unsched},
    // NEW | otherwise | send CREDIT_REQUEST | WAITING
    {SenderTransition::NewScheduled, bit(New), Waiting},
    // UNSCHED | all octets transmitted | none | DRAINED
    {SenderTransition::UnschedDrained, bit(Unsched), Drained},
    // UNSCHED | CONGESTION_REPORT or link pause | stop; request credit for the remainder | WAITING
    {SenderTransition::UnschedStopped, bit(Unsched), Waiting},
    // WAITING | CREDIT_GRANT above transmitted offset | none | SCHEDULED
    {SenderTransition::WaitingGranted, bit(Waiting), Scheduled},
    // WAITING | request timeout | retransmit CREDIT_REQUEST | WAITING
    {SenderTransition::WaitingRequestTimeout, bit(Waiting), Waiting},
    // SCHEDULED | Grant Limit reached before message end | none | WAITING
    {SenderTransition::ScheduledLimitReached, bit(Scheduled), Waiting},
    // SCHEDULED | Lifetime elapsed | send CREDIT_REQUEST | WAITING (the reference also asks
    // again when unused credit of a WAITING message expires)
    {SenderTransition::ScheduledLifetimeElapsed, bit(Scheduled) | bit(Waiting), Waiting},
    // SCHEDULED | all octets transmitted | none | DRAINED
    {SenderTransition::ScheduledDrained, bit(Scheduled), Drained},
    // DRAINED | MSG_DONE | release state | DONE
    {SenderTransition::DrainedDone, bit(Drained), Done},
    // DRAINED | request timeout | retransmit CREDIT_REQUEST | DRAINED
    {SenderTransition::DrainedRequestTimeout, bit(Drained), Drained},
    // any but DONE or ABORTED | CANCEL for the message; ERROR (MESSAGE_TOO_LARGE,
    // APPLICATION_ABORT, UNSUPPORTED_BINDING) for it; or ERROR (ASSOC_REFUSED) | release state |
    // ABORTED
    {SenderTransition::Aborted, kLive, Aborted},
    // WAITING | ERROR BUDGET_EXHAUSTED | keep the request outstanding | WAITING
    {SenderTransition::WaitingBudgetExhausted, bit(Waiting), Waiting},
    // Beyond the table. NEW | no ASSOC_REQUEST answered: "sends without it" | SCHEDULED
    {SenderTransition::WithoutRdcc, bit(New), Scheduled},
    // SCHEDULED without RDCC | all octets transmitted (no MSG_DONE will come) | DONE
    {SenderTransition::WithoutRdccDone, bit(Scheduled), Done},
    // any live but NEW | ERROR (UNKNOWN_ASSOCIATION) or a new Epoch: "discard all credit ...,
    // re-establish it, and request credit again" | WAITING
    {SenderTransition::CreditDropped, kLive& static_cast<std::uint8_t>(~bit(New)), Waiting},
    // WAITING | the last octets went under pool credit reserved before | none | DRAINED
    {SenderTransition::WaitingDrained, bit(Waiting), Drained},
}};

constexpr bool table_in_order() {
  for (std::size_t i = 0; i < kTransitions.size(); ++i) {
    if (static_cast<std::size_t>(kTransitions[i].id) != i) return false;
  }
  return true;
}
static_assert(table_in_order(), "kTransitions lists every SenderTransition in order");

}  // namespace

const char* to_string(MessageState s) {
  switch (s) {
    case MessageState::New: return "NEW";
    case MessageState::Unsched: return "UNSCHED";
    case MessageState::Waiting: return "WAITING";
    case MessageState::Scheduled: return "SCHEDULED";
    case MessageState::Drained: return "DRAINED";
    case MessageState::Done: return "DONE";
    case MessageState::Aborted: return "ABORTED";
  }
  return "?";
}

const char* to_string(SenderTransition t) {
  switch (t) {
    case SenderTransition::NewUnscheduled: return "new_unscheduled";
    case SenderTransition::NewScheduled: return "new_scheduled";
    case SenderTransition::UnschedDrained: return "unsched_drained";
    case SenderTransition::UnschedStopped: return "unsched_stopped";
    case SenderTransition::WaitingGranted: return "waiting_granted";
    case SenderTransition::WaitingRequestTimeout: return "waiting_request_timeout";
    case SenderTransition::ScheduledLimitReached: return "scheduled_limit_reached";
    case SenderTransition::ScheduledLifetimeElapsed: return "scheduled_lifetime_elapsed";
    case SenderTransition::ScheduledDrained: return "scheduled_drained";
    case SenderTransition::DrainedDone: return "drained_done";
    case SenderTransition::DrainedRequestTimeout: return "drained_request_timeout";
    case SenderTransition::Aborted: return "aborted";
    case SenderTransition::WaitingBudgetExhausted: return "waiting_budget_exhausted";
    case SenderTransition::WithoutRdcc: return "without_rdcc";
    case SenderTransition::WithoutRdccDone: return "without_rdcc_done";
    case SenderTransition::CreditDropped: return "credit_dropped";
    case SenderTransition::WaitingDrained: return "waiting_drained";
  }
  return "?";
}

void Sender::Impl::set_state(Msg& m, MessageState s, Time now) {
  if (m.state == s) return;
  // The frequent events are built only for an observer (fuzz harnesses run without one).
  if (events.enabled()) {
    events.emit(now, "message_state",
                {{"handle", m.handle},
                 {"message_id", m.id},
                 {"receiver", m.spec.receiver.to_string()},
                 {"from", to_string(m.state)},
                 {"to", to_string(s)},
                 {"transmitted", m.transmitted},
                 {"grant_limit", m.limit}});
  }
  m.state = s;
  if (s == MessageState::Done || s == MessageState::Aborted) {
    m.finished = now;
    m.retx_at = Time::never();
    if (!m.without_rdcc) count_hint_weight(m, -1);
    count_hint(m, -1);
    if (s == MessageState::Done) ++stats.messages_done;
    if (s == MessageState::Aborted) ++stats.messages_aborted;
    retiring.push_back(m.handle);
  }
}

// The change of state of row `t` (kTransitions): m leaves a state the row names for the
// row's next state. Rows that keep the state (a retransmitted request) are counted too.
// Only the rows' functions below call it.
void Sender::Impl::enter(Msg& m, SenderTransition t, Time now) {
  const Row& row = kTransitions[static_cast<std::size_t>(t)];
  assert((row.from & bit(m.state)) != 0);
  ++stats.transitions[static_cast<std::size_t>(t)];
  set_state(m, row.to, now);
  mark_may_send(m);
}

// ---- the rows' actions ("Sender Message State Transitions") -------------------------------
// One function per row of the table, named after it, each quoting its row (state | event |
// action | next state): it does the row's action and enters the next state, in the order
// the reference always has (what a message sends on leaving a state goes out before the
// change of state is reported). Which row an event takes is decided where the event is
// handled; fire() runs the row's function.

void Sender::Impl::fire(Msg& m, SenderTransition t, Time now) {
  switch (t) {
    case SenderTransition::NewUnscheduled: row_new_unscheduled(m, now); return;
    case SenderTransition::NewScheduled: row_new_scheduled(m, now); return;
    case SenderTransition::UnschedDrained: row_unsched_drained(m, now); return;
    case SenderTransition::UnschedStopped: row_unsched_stopped(m, now); return;
    case SenderTransition::WaitingGranted: row_waiting_granted(m, now); return;
    case SenderTransition::WaitingRequestTimeout: row_waiting_request_timeout(m, now); return;
    case SenderTransition::ScheduledLimitReached: row_scheduled_limit_reached(m, now); return;
    case SenderTransition::ScheduledLifetimeElapsed: row_scheduled_lifetime_elapsed(m, now); return;
    case SenderTransition::ScheduledDrained: row_scheduled_drained(m, now); return;
    case SenderTransition::DrainedDone: row_drained_done(m, now); return;
    case SenderTransition::DrainedRequestTimeout: row_drained_request_timeout(m, now); return;
    case SenderTransition::Aborted: row_aborted(m, now); return;
    case SenderTransition::WaitingBudgetExhausted: row_waiting_budget_exhausted(m, now); return;
    case SenderTransition::WithoutRdcc: row_without_rdcc(m, now); return;
    case SenderTransition::WithoutRdccDone: row_without_rdcc_done(m, now); return;
    case SenderTransition::CreditDropped: row_credit_dropped(m, now); return;
    case SenderTransition::WaitingDrained: row_waiting_drained(m, now); return;
  }
}

// NEW | length <= U and no unscheduled message outstanding | start random delay; send
// CREDIT_REQUEST with Unscheduled Sent = length | UNSCHED ("Unscheduled Transmission",
// items 1-3)
void Sender::Impl::row_new_unscheduled(Msg& m, Time now) {
  Assoc& a = assoc_of(m);
  a.unsched_outstanding = m.handle;
  const std::uint64_t jitter_ns =
      policy->start_delay_ns(std::uint64_t{a.params.start_jitter} * 1000U, random);
  arm_start(m, now + nanoseconds(static_cast<std::int64_t>(jitter_ns)));
  m.announced_unsched = m.spec.length;
  if (events.enabled())
    events.emit(now, "unscheduled_start",
                {{"handle", m.handle}, {"message_id", m.id}, {"delay_ns", jitter_ns}});
  if (!policy->request_before_unscheduled_data() && m.spec.length != 0) {
    m.request_deferred = true;  // sent after the first data packet (emit)
  } else {
    send_credit_request(m, false, now);
  }
  enter(m, SenderTransition::NewUnscheduled, now);
}

// NEW | otherwise | send CREDIT_REQUEST | WAITING (its request timer starts)
void Sender::Impl::row_new_scheduled(Msg& m, Time now) {
  m.announced_unsched = 0;
  send_credit_request(m, false, now);
  enter(m, SenderTransition::NewScheduled, now);
  arm_retx(m, now + m.rto);
}

// UNSCHED | all octets transmitted | none | DRAINED
void Sender::Impl::row_unsched_drained(Msg& m, Time now) {
  enter(m, SenderTransition::UnschedDrained, now);
  start_drained_timer(m, now);
}

// UNSCHED | CONGESTION_REPORT or link pause | stop; request credit for the remainder |
// WAITING: the new CREDIT_REQUEST states the octets actually transmitted.
void Sender::Impl::row_unsched_stopped(Msg& m, Time now) {
  ++stats.unscheduled_conversions;
  m.announced_unsched = m.transmitted;
  enter(m, SenderTransition::UnschedStopped, now);
  request_anew(m, now);
  refresh_state(m, now);
}

// WAITING | CREDIT_GRANT above transmitted offset | none | SCHEDULED
void Sender::Impl::row_waiting_granted(Msg& m, Time now) {
  enter(m, SenderTransition::WaitingGranted, now);
}

// WAITING | request timeout | retransmit CREDIT_REQUEST | WAITING
void Sender::Impl::row_waiting_request_timeout(Msg& m, Time now) {
  enter(m, SenderTransition::WaitingRequestTimeout, now);
  retransmit_request(m, now);
}

// SCHEDULED | Grant Limit reached before message end | none | WAITING (refresh_state starts
// the request timer)
void Sender::Impl::row_scheduled_limit_reached(Msg& m, Time now) {
  enter(m, SenderTransition::ScheduledLimitReached, now);
}

// SCHEDULED | Lifetime elapsed | send CREDIT_REQUEST | WAITING (also taken when unused
// credit of a WAITING message expires)
void Sender::Impl::row_scheduled_lifetime_elapsed(Msg& m, Time now) {
  enter(m, SenderTransition::ScheduledLifetimeElapsed, now);
  request_anew(m, now);
}

// SCHEDULED | all octets transmitted | none | DRAINED
void Sender::Impl::row_scheduled_drained(Msg& m, Time now) {
  enter(m, SenderTransition::ScheduledDrained, now);
  start_drained_timer(m, now);
}

// DRAINED | MSG_DONE | release state | DONE (the message retires at the next event: sweep)
void Sender::Impl::row_drained_done(Msg& m, Time now) {
  enter(m, SenderTransition::DrainedDone, now);
}

// DRAINED | request timeout | retransmit CREDIT_REQUEST | DRAINED
void Sender::Impl::row_drained_request_timeout(Msg& m, Time now) {
  enter(m, SenderTransition::DrainedRequestTimeout, now);
  retransmit_request(m, now);
}

// any but DONE or ABORTED | CANCEL for the message; ERROR (MESSAGE_TOO_LARGE,
// APPLICATION_ABORT, UNSUPPORTED_BINDING) for it; or ERROR (ASSOC_REFUSED) | release state |
// ABORTED (abort() records the reason)
void Sender::Impl::row_aborted(Msg& m, Time now) {
  Assoc& a = assoc_of(m);
  if (a.unsched_outstanding == m.handle) {
    // The receiver releases the reservation up to J + Grant Lifetime + 2 * D_max after the
    // request; until then another unscheduled message could exceed G_u. D_max is not known
    // here, so the SRTT stands in for it.
    a.unsched_outstanding.reset();
    a.unsched_blocked_until = m.request_sent + microseconds(a.params.start_jitter) +
                              microseconds(a.params.grant_lifetime) + srtt_or_default(a) * 2;
  }
  enter(m, SenderTransition::Aborted, now);
}

// WAITING | ERROR BUDGET_EXHAUSTED | keep the request outstanding | WAITING (its
// retransmission timer keeps running)
void Sender::Impl::row_waiting_budget_exhausted(Msg& m, Time now) {
  enter(m, SenderTransition::WaitingBudgetExhausted, now);
}

// Beyond the table. NEW | no ASSOC_REQUEST answered | "sends without it" | SCHEDULED
void Sender::Impl::row_without_rdcc(Msg& m, Time now) {
  count_hint_weight(m, -1);
  m.without_rdcc = true;
  m.retx_at = Time::never();
  enter(m, SenderTransition::WithoutRdcc, now);
}

// SCHEDULED without RDCC | all octets transmitted (no MSG_DONE will come) | none | DONE
void Sender::Impl::row_without_rdcc_done(Msg& m, Time now) {
  enter(m, SenderTransition::WithoutRdccDone, now);
}

// any live but NEW | ERROR (UNKNOWN_ASSOCIATION) or a new Epoch | "discard all credit ...,
// re-establish it, and request credit again": the message restarts from offset zero (the
// receiver's new state knows none of its octets) | WAITING
void Sender::Impl::row_credit_dropped(Msg& m, Time now) {
  if (events.enabled())
    events.emit(now, "credit_dropped",
                {{"handle", m.handle},
                 {"message_id", m.id},
                 {"grant_limit", m.limit},
                 {"transmitted", m.transmitted}});
  m.limit = 0;
  m.granted = false;
  m.expiry_handled = true;
  m.ceiling.reset();
  m.pool_end = 0;
  m.vtime = 0;
  m.transmitted = 0;
  m.resend.clear();
  m.announced_unsched = 0;
  m.retx_at = Time::never();
  m.pacer = Pacer{};
  enter(m, SenderTransition::CreditDropped, now);
}

// WAITING | the last octets went under pool credit reserved before | none | DRAINED
void Sender::Impl::row_waiting_drained(Msg& m, Time now) {
  enter(m, SenderTransition::WaitingDrained, now);
  start_drained_timer(m, now);
}

// "DRAINED | request timeout | retransmit CREDIT_REQUEST" until MSG_DONE: the timer starts.
void Sender::Impl::start_drained_timer(Msg& m, Time now) {
  m.rto = initial_rto(assoc_of(m));
  arm_retx(m, now + m.rto);
}

// All octets transmitted: the row of the state m is in.
void Sender::Impl::drained(Msg& m, Time now) {
  fire(m,
       m.state == MessageState::Unsched     ? SenderTransition::UnschedDrained
       : m.state == MessageState::Scheduled ? SenderTransition::ScheduledDrained
                                            : SenderTransition::WaitingDrained,
       now);
}

// WAITING <-> SCHEDULED -> DRAINED, from the credit held now.
void Sender::Impl::refresh_state(Msg& m, Time now) {
  if (m.state != MessageState::Waiting && m.state != MessageState::Scheduled) return;
  if (m.without_rdcc) return;
  if (m.transmitted >= m.spec.length) {
    drained(m, now);
    return;
  }
  if (holds_credit(m, now)) {
    if (m.state == MessageState::Waiting) fire(m, SenderTransition::WaitingGranted, now);
    m.retx_at = Time::never();
    return;
  }
  const bool was_scheduled = m.state == MessageState::Scheduled;
  if (was_scheduled) fire(m, SenderTransition::ScheduledLimitReached, now);
  if (m.transmitted >= m.end()) {
    // Everything up to the CREDIT_RETURN offset is sent: asking for more would only make
    // the receiver issue credit this message promised not to use.
    m.retx_at = Time::never();
    return;
  }
  if (was_scheduled || m.retx_at == Time::never()) {
    arm_retx(m, now + m.rto);
  }
}

void Sender::Impl::request_timeout(Msg& m, Time now) {
  if (m.state == MessageState::Waiting && holds_credit(m, now)) {
    m.retx_at = Time::never();
    return;
  }
  if (m.state == MessageState::Waiting) {
    fire(m, SenderTransition::WaitingRequestTimeout, now);
  } else if (m.state == MessageState::Drained) {
    fire(m, SenderTransition::DrainedRequestTimeout, now);
  } else {
    retransmit_request(m, now);  // no row names another state with its timer armed
  }
}

// The first octets a NACK named, under a live grant that covers them: "If the data transport
// retransmits octets already transmitted, those octets remain within the existing Grant
// Limit, because the receiver has not counted them as received" (Sender Message State
// Machine). The message's own grant if it covers them, else a live pool grant (its octets
// already count in the pool's); paced like new octets. Nothing else lets them go: no
// unscheduled resend, and none under an expired grant (rule 3).
bool Sender::Impl::plan_resend(Msg& m, Time t, Plan& p) {
  if (m.terminal() || m.without_rdcc) return false;
  Assoc& a = assoc_of(m);
  if (a.phase != Phase::Established) return false;
  const OctetRange r = *m.resend.first();
  p = Plan{};
  p.msg = &m;
  p.cu = credit_unit(a);
  p.resend = true;
  p.offset = r.lo;
  if (own_valid(m, t) && r.lo < own_limit(m)) {
    p.len = segment_length(p.cu, std::min(r.hi, own_limit(m)) - r.lo);
    p.rate = m.rate;
    p.pacer = &m.pacer;
  } else if (pool_valid(a, t) && !m.granted) {
    p.len = segment_length(p.cu, r.hi - r.lo);
    p.rate = a.pool_rate;
    p.pacer = &a.pool_pacer;
  } else {
    return false;
  }
  return true;
}

void Sender::Impl::abort(Msg& m, std::uint16_t reason, Time now) {
  if (m.terminal()) return;
  m.abort_reason = reason;
  fire(m, SenderTransition::Aborted, now);
}

void Sender::Impl::on_msg_done(Assoc& a, const MsgDone& d, Time now) {
  Msg* m = find_msg(a, d.message_id);
  if (m == nullptr || m->terminal()) {
    if (events.enabled()) events.emit(now, "msg_done_ignored", {{"message_id", d.message_id}});
    return;
  }
  if (a.unsched_outstanding == m->handle) a.unsched_outstanding.reset();
  if (m->state != MessageState::Drained) {
    // Only DRAINED leaves on MSG_DONE: octets we have not sent cannot have arrived.
    if (events.enabled())
      events.emit(now, "msg_done_unexpected",
                  {{"message_id", m->id}, {"state", to_string(m->state)}});
    return;
  }
  if (d.octets_received != m->spec.length) {
    if (events.enabled())
      events.emit(now, "msg_done_length_mismatch",
                  {{"message_id", m->id}, {"octets_received", d.octets_received}});
  }
  fire(*m, SenderTransition::DrainedDone, now);
}

// The tail-loss probe (docs/data-transport.md, "Loss recovery"): a grant that renews a lapsed
// one without adding credit says the receiver has not counted octets the message sent below
// the limit. The receiver names them only to a sender whose data told it that it resends
// (RECOVERS); when every data packet of the association was lost (a switch's queue full while
// they passed), it never heard that, and the message would wait for good. So the last credit
// unit the message sent below the limit goes again, under this live grant, with RECOVERS: it
// stays within the Grant Limit the receiver already counts ("If the data transport retransmits
// octets already transmitted, those octets remain within the existing Grant Limit"), and the
// receiver, hearing it, names what is missing on the next request. One segment per renewal,
// and renewals follow the sender's requests, which back off.
void Sender::Impl::probe_tail(Msg& m, Time now) {
  if (m.terminal() || m.without_rdcc || m.spec.binding != BindingKind::Opaque) return;
  if (!m.resend.empty()) return;  // a NACK's octets go first; they carry RECOVERS too
  const std::uint64_t hi = std::min(m.transmitted, own_limit(m));
  if (hi == 0) return;
  const std::uint64_t cu = credit_unit(assoc_of(m));
  const std::uint64_t lo = hi - ((hi - 1) % cu + 1);  // the last credit unit's octets
  m.resend.add(lo, hi);
  ++stats.tail_probes;
  mark_may_send(m);
  if (events.enabled())
    events.emit(now, "tail_probe", {{"message_id", m.id}, {"offset", lo}, {"octets", hi - lo}});
}

// A receiver's NACK (docs/data-transport.md, "Loss recovery"): the octets it names that the
// message has transmitted are sent again (plan_resend).
void Sender::Impl::on_nack(const Address& from, std::uint64_t key,
                           std::span<const OctetRange> ranges, Time now) {
  ++stats.nacks_received;
  std::uint64_t named = 0;
  for (auto& [h, m] : live) {
    if (m.terminal() || m.without_rdcc || m.spec.binding != BindingKind::Opaque) continue;
    if (!m.spec.receiver.same_host(from) || binding_value(m) != key) continue;
    // Only octets the message has transmitted in this association are sent again (a
    // re-established association starts each message over: drop_association_credit).
    for (const OctetRange& r : ranges) {
      const std::uint64_t hi = std::min(r.hi, m.transmitted);
      if (r.lo >= hi) continue;
      m.resend.add(r.lo, hi);
      named += hi - r.lo;
    }
    mark_may_send(m);
    if (events.enabled())
      events.emit(now, "nack",
                  {{"message_id", m.id}, {"ranges", ranges.size()}, {"octets", named}});
  }
}

}  // namespace rdcc::ref
