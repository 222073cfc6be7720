// "Credit Requests and Grants", for the sender: CREDIT_REQUEST and its request timeout (from
// the smoothed round-trip time, doubling up to 100 ms); the credit a message holds of its own
// grant (rule 1: cumulative; rule 3: not after its Lifetime); what may be sent and when (rule
// 2: every octet covered, check_segment; rule 4: the pacer, credit_requests_and_grants.hpp);
// CANCEL. The pool's share of the credit is "Traffic Classes and Pool Credit"'s.
#include "sender_impl.hpp"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <optional>
#include <set>

namespace rdcc::ref {

namespace {

Duration clamp_duration(Duration d, Duration lo, Duration hi) {
  return std::min(std::max(d, lo), hi);
}

}  // namespace

// The next segment's octets out of `sendable` that may go now: the policy's choice
// (SenderPolicy::segment_length), within one datagram and the ten Credit Units one pacing
// window allows (rule 4), and at least one octet.
std::uint64_t Sender::Impl::segment_length(std::uint64_t cu, std::uint64_t sendable) const {
  const std::uint64_t cap = std::min({sendable, 10 * cu, kMaxSegmentOctets});
  if (cap == 0) return 0;
  return std::clamp<std::uint64_t>(policy->segment_length(cu, cap), 1, cap);
}

Duration Sender::Impl::initial_rto(const Assoc& a) const {
  const Duration base = a.srtt ? *a.srtt * 2 : config.min_request_timeout;
  return clamp_duration(base, config.min_request_timeout, config.max_request_timeout);
}

Duration Sender::Impl::srtt_or_default(const Assoc& a) const {
  return a.srtt ? *a.srtt : config.min_request_timeout;
}

void Sender::Impl::rtt_sample(Assoc& a, Duration r, Time now) {
  // RFC 6298, section 2.
  if (!a.srtt) {
    a.srtt = r;
    a.rttvar = r / 2;
  } else {
    const Duration diff = *a.srtt > r ? *a.srtt - r : r - *a.srtt;
    a.rttvar = (a.rttvar * 3 + diff) / 4;
    a.srtt = (*a.srtt * 7 + r) / 8;
  }
  if (events.enabled())
    events.emit(
        now, "rtt_sample",
        {{"receiver", a.receiver.to_string()}, {"sample_ns", r.ns}, {"srtt_ns", a.srtt->ns}});
}

// A new CREDIT_REQUEST (not a retransmission: its answer gives an RTT sample), the request
// timer starting afresh.
void Sender::Impl::request_anew(Msg& m, Time now) {
  m.rto = initial_rto(assoc_of(m));
  send_credit_request(m, false, now);
  arm_retx(m, now + m.rto);
}

// "doubling on each retransmission up to 100 ms"
void Sender::Impl::retransmit_request(Msg& m, Time now) {
  m.rto = std::min(m.rto * 2, config.max_request_timeout);
  send_credit_request(m, true, now);
  arm_retx(m, now + m.rto);
}

void Sender::Impl::send_credit_request(Msg& m, bool retransmission, Time now) {
  Assoc& a = assoc_of(m);
  const CreditRequest r = credit_request(m, now);  // "CREDIT_REQUEST"
  ++stats.credit_requests_sent;
  if (retransmission) {
    ++stats.credit_request_retransmissions;
    m.rtt_sample_pending = false;  // Karn: a retransmitted request gives no RTT sample
  } else {
    m.rtt_sample_pending = true;
    m.request_sent = now;
  }
  send(a, r, now);
  if (config.reports_sends) unsent_requests.emplace_back(m.handle, now);
}

bool Sender::Impl::own_valid(const Msg& m, Time t) const {
  return m.granted && t < m.valid_until;
}

std::uint64_t Sender::Impl::own_limit(const Msg& m) const {
  return std::min(m.limit, m.end());
}

bool Sender::Impl::holds_credit(const Msg& m, Time t) const {
  if (m.transmitted >= m.end()) return false;
  if (own_valid(m, t) && own_limit(m) > m.transmitted) return true;
  const Assoc& a = assoc_of(m);
  if (!pool_valid(a, t)) return false;
  return m.pool_end > m.transmitted || pool_remaining(a) > 0;
}

void Sender::Impl::on_grant(Assoc& a, const CreditGrant& g, Time now) {
  if (ignores_grant_rate(g, now)) return;  // "CREDIT_GRANT"
  const Duration lifetime =
      microseconds(g.effective_lifetime(a.params.grant_lifetime));  // "measured from its reception"
  if (g.pool() || g.message_id == 0) {
    if (!(g.pool() && g.message_id == 0 && (config.capabilities & capability::kPool) != 0)) {
      ++stats.grants_ignored;
      if (events.enabled())
        events.emit(now, "grant_ignored",
                    {{"message_id", g.message_id}, {"reason", "bad_pool_grant"}});
      return;
    }
    ++stats.grants_received;
    if (g.grant_limit > a.pool_limit) {
      stats.credit_granted += g.grant_limit - a.pool_limit;
      a.pool_limit = g.grant_limit;
    }
    arm_pool_expiry(a, now + lifetime);
    a.pool_rate = g.pacing_rate;
    pool_holders.insert(&a);
    for_each_msg(a, [&](Msg& m) { mark_may_send(m); });
    if (events.enabled())
      events.emit(
          now, "pool_grant",
          {{"limit", a.pool_limit}, {"rate", g.pacing_rate}, {"lifetime_us", lifetime.micros()}});
    refresh_pool_members(a, now);
    return;
  }
  Msg* m = find_msg(a, g.message_id);
  if (m == nullptr || m->terminal()) {
    ++stats.grants_ignored;
    if (events.enabled())
      events.emit(now, "grant_ignored",
                  {{"message_id", g.message_id}, {"reason", "unknown_message"}});
    return;
  }
  ++stats.grants_received;
  if (g.grant_limit > m->spec.length) {
    ++stats.grants_beyond_length;
    if (events.enabled())
      events.emit(now, "grant_beyond_length",
                  {{"message_id", m->id}, {"limit", g.grant_limit}, {"length", m->spec.length}});
  }
  // Whether the grant gives the message credit it cannot use now: a higher limit, or unsent
  // credit made usable again after its Lifetime elapsed. Only such a grant restarts the
  // request timeout; one that adds nothing (a receiver restating the limit while the data
  // is lost) leaves it doubling ("doubling on each retransmission up to 100 ms"), so a dead
  // data path never turns into a storm of requests (docs/spec-notes.md, "A grant that adds
  // no credit does not restart the request timeout").
  const bool was_live = own_valid(*m, now);
  const bool adds_credit =
      std::min(g.grant_limit, m->end()) > std::max(m->transmitted, was_live ? own_limit(*m) : 0);
  // Rule 1: cumulative; a grant not larger than the held limit only refreshes Lifetime and
  // Pacing Rate and never reduces credit.
  if (g.grant_limit > m->limit) {
    stats.credit_granted +=
        std::min(g.grant_limit, m->spec.length) - std::min(m->limit, m->spec.length);
    m->limit = g.grant_limit;
  } else if (policy->lower_limit_lowers_credit()) {
    m->limit = g.grant_limit;
  } else {
    if (events.enabled())
      events.emit(now, "grant_refresh",
                  {{"message_id", m->id}, {"held", m->limit}, {"limit", g.grant_limit}});
  }
  arm_expiry(*m, policy->grant_valid_until(now, lifetime));
  m->rate = g.usable() ? g.pacing_rate : config.line_rate_mbps;
  m->granted = true;
  mark_may_send(*m);
  if (!m->in_credit_holders) {
    m->in_credit_holders = true;
    credit_holders.push_back(m->handle);
  }
  if (adds_credit) m->rto = initial_rto(a);
  if (events.enabled())
    events.emit(now, "grant",
                {{"message_id", m->id},
                 {"limit", m->limit},
                 {"rate", m->rate},
                 {"lifetime_us", lifetime.micros()}});
  if (m->rtt_sample_pending) {
    m->rtt_sample_pending = false;
    rtt_sample(a, now - m->request_sent, now);
  }
  // "an unscheduled message stops being outstanding when the sender receives MSG_DONE or a
  // CREDIT_GRANT for it"
  if (a.unsched_outstanding == m->handle) a.unsched_outstanding.reset();
  if (!adds_credit && !was_live) probe_tail(*m, now);
  refresh_state(*m, now);
}

void Sender::Impl::expire_own(Msg& m, Time now) {
  m.expiry_handled = true;
  const std::uint64_t lim = own_limit(m);
  if (m.state == MessageState::Drained || lim <= m.transmitted) return;
  stats.credit_expired += lim - m.transmitted;
  if (events.enabled())
    events.emit(now, "grant_expired",
                {{"message_id", m.id}, {"limit", m.limit}, {"transmitted", m.transmitted}});
  if (m.state != MessageState::Scheduled && m.state != MessageState::Waiting) return;
  if (holds_credit(m, now)) return;  // pool credit still covers it
  fire(m, SenderTransition::ScheduledLifetimeElapsed, now);
}

// The segment of m's own to plan at t, into p; false: none.
bool Sender::Impl::plan_own(Msg& m, Time t, Plan& p) {
  if (!m.resend.empty() && plan_resend(m, t, p)) return pace(p);
  if (m.terminal() || m.transmitted >= m.spec.length) return false;
  Assoc& a = assoc_of(m);
  p = Plan{};
  p.msg = &m;
  p.cu = credit_unit(a);
  if (m.without_rdcc) {
    p.len = segment_length(p.cu, m.spec.length - m.transmitted);
    p.rate = config.line_rate_mbps;
    p.pacer = &line_pacer;
  } else if (m.state == MessageState::Unsched) {
    // "Unscheduled Transmission" item 1: nothing before the random start delay.
    if (t < m.start_at) return false;
    p.len = segment_length(p.cu, m.spec.length - m.transmitted);
    p.unscheduled = true;
    if (own_valid(m, t)) {
      p.rate = std::min<std::uint64_t>(m.rate, config.line_rate_mbps);
      p.pacer = &m.pacer;
    } else {
      p.rate = config.line_rate_mbps;
      p.pacer = &line_pacer;
    }
  } else if (m.state == MessageState::Waiting || m.state == MessageState::Scheduled) {
    if (a.phase != Phase::Established) return false;
    const auto [unit_start, unit_end] = m.unit();
    if (m.pool_end > m.transmitted && pool_valid(a, t)) {
      // The rest of a post unit already reserved from the pool.
      std::uint64_t sendable = std::min(m.pool_end - m.transmitted, unit_end - m.transmitted);
      p.from_pool = true;
      p.reserve_to = m.pool_end;
      p.rate = a.pool_rate;
      p.pacer = &a.pool_pacer;
      if (own_valid(m, t) && own_limit(m) > m.transmitted) {
        // Rule 4, "MUST NOT transmit the message faster than the Pacing Rate": the octets
        // below the Grant Limit of the message's own grant keep that grant's pace as well as
        // the pool's (docs/spec-notes.md, 82).
        sendable = std::min(sendable, own_limit(m) - m.transmitted);
        p.also = &m.pacer;
        p.also_rate = m.rate;
      }
      p.len = segment_length(p.cu, sendable);
    } else if (const std::uint64_t lim = policy->transmit_limit(own_limit(m), p.cu, m.end());
               own_valid(m, t) && lim > m.transmitted) {
      if (!may_post(m, lim)) return false;  // "Transport Bindings", RoCEv2
      p.len = segment_length(p.cu, std::min(lim - m.transmitted, unit_end - m.transmitted));
      p.rate = policy->pacing_rate(m.rate, config.line_rate_mbps);
      p.pacer = &m.pacer;
    } else if (policy->send_before_credit() && m.transmitted == 0 && !m.granted) {
      p.len = std::min<std::uint64_t>(p.cu, m.spec.length);
      p.rate = config.line_rate_mbps;
      p.pacer = &line_pacer;
    } else {
      return false;
    }
  } else {
    return false;
  }
  return pace(p);
}

// When the planned segment is ready: its pacers' due time; false if it has no octets.
bool Sender::Impl::pace(Plan& p) const {
  if (p.len == 0) return false;
  const bool spaced = policy->space_segments();
  p.ready = p.pacer->ready(p.rate, p.cu, p.len, spaced);
  if (p.also != nullptr) {
    p.ready = std::max(p.ready, p.also->ready(p.also_rate, p.cu, p.len, spaced));
  }
  return true;
}

// The segment poll_data sends at t: the first message's own segment ready at t (in
// submission order), else the first association's pool segment ready at t. Without one,
// the pacers holding a planned segment back are the ones the next pacing wake-up is for
// (Pacer::held; every other pacer is idle), and `planned` keeps when the first of those
// segments becomes ready, for next_timeout(): one walk over the plans, not three.
auto Sender::Impl::ready_plan(Time t) -> Plan* {
  held.clear();
  std::optional<Time> earliest;
  Plan& p = scratch;
  for (auto it = may_send.begin(); it != may_send.end();) {
    if (plan_own(**it, t, p)) {
      if (ready_or_held(p, t, earliest)) return &p;
      ++it;
    } else {
      it = drop_unsendable(it, t);
    }
  }
  for (auto it = pool_holders.begin(); it != pool_holders.end();) {
    if (plan_pool(**it, t, p)) {
      if (ready_or_held(p, t, earliest)) return &p;
      ++it;
    } else {
      it = drop_poolless(it, t);
    }
  }
  // Only the pacers the last such poll marked can be held (nothing else sets the flag).
  for (Pacer* h : was_held) h->held = false;
  for (Pacer* h : held) h->held = true;
  std::swap(held, was_held);
  if (t == clock) planned = Planned{clock, earliest};
  return nullptr;
}

// Whether the planned segment p is ready at t; if not, its pacers hold it back until p.ready.
bool Sender::Impl::ready_or_held(const Plan& p, Time t, std::optional<Time>& earliest) {
  if (p.ready <= t) return true;
  held.push_back(p.pacer);
  if (p.also != nullptr) held.push_back(p.also);
  earliest = earliest ? std::min(*earliest, p.ready) : p.ready;
  return false;
}

// A message plan_own found nothing for at t leaves `may_send` unless time alone can give
// it something (its random start is ahead); only at the clock, as an earlier t may see
// credit that has since expired. Returns the next message.
auto Sender::Impl::drop_unsendable(std::set<Msg*, HandleLess>::iterator it, Time t)
    -> std::set<Msg*, HandleLess>::iterator {
  const Msg& m = **it;
  if (t < clock || (m.state == MessageState::Unsched && t < m.start_at)) return std::next(it);
  return may_send.erase(it);
}

// Likewise an association without a live pool grant leaves `pool_holders` (only a new pool
// grant gives it one again).
auto Sender::Impl::drop_poolless(std::set<Assoc*, AssocLess>::iterator it, Time t)
    -> std::set<Assoc*, AssocLess>::iterator {
  const Assoc& a = **it;
  if (t < clock || (a.phase == Phase::Established && pool_valid(a, t))) return std::next(it);
  return pool_holders.erase(it);
}

// When the first planned segment becomes ready at t (none: nothing is planned).
std::optional<Time> Sender::Impl::earliest_plan(Time t) {
  std::optional<Time> earliest;
  Plan p;
  const auto consider = [&](const Plan& q) {
    earliest = earliest ? std::min(*earliest, q.ready) : q.ready;
  };
  for (auto it = may_send.begin(); it != may_send.end();) {
    if (plan_own(**it, t, p)) {
      consider(p);
      ++it;
    } else {
      it = drop_unsendable(it, t);
    }
  }
  for (auto it = pool_holders.begin(); it != pool_holders.end();) {
    if (plan_pool(**it, t, p)) {
      consider(p);
      ++it;
    } else {
      it = drop_poolless(it, t);
    }
  }
  return earliest;
}

// A segment of octets sent before, which a NACK named: the message's progress, the pool's
// use and the state are what they were.
DataSegment Sender::Impl::emit_resend(Plan& p, Time now) {
  Msg& m = *p.msg;
  DataSegment s;
  s.receiver = m.spec.receiver;
  s.association_id = assoc_of(m).association_id;
  s.message_id = m.id;
  s.offset = p.offset;
  s.length = static_cast<std::uint32_t>(p.len);
  s.traffic_class = m.cls();
  s.dscp = policy->class_dscp(config.class_dscp, m.cls());
  s.binding = m.spec.binding;
  s.binding_value = binding_value(m);
  s.last = p.offset + p.len == m.spec.length;
  s.recovers = true;
  s.resend = true;
  m.resend.remove(p.offset, p.offset + p.len);
  p.pacer->record(now, p.ready, p.len, p.rate, p.cu);
  note_segment(p.pacer, now);
  stats.resent_octets += p.len;
  if (events.enabled()) {
    events.emit(now, "data",
                {{"message_id", m.id},
                 {"offset", s.offset},
                 {"length", s.length},
                 {"unscheduled", false},
                 {"pool", p.pacer != &m.pacer},
                 {"rate", p.rate},
                 {"resend", true}});
  }
  return s;
}

DataSegment Sender::Impl::emit(Plan& p, Time now) {
  if (p.resend) return emit_resend(p, now);
  Msg& m = *p.msg;
  Assoc& a = assoc_of(m);
  DataSegment s;
  s.receiver = m.spec.receiver;
  s.association_id = m.without_rdcc ? 0 : a.association_id;
  s.message_id = m.id;
  s.offset = m.transmitted;
  s.length = static_cast<std::uint32_t>(p.len);
  s.unscheduled = p.unscheduled;
  s.traffic_class = m.cls();
  // "MUST mark the data packets with the DSCP that the domain configures for unscheduled
  // RDCC traffic, if one is configured"; otherwise the class's DSCP.
  s.dscp = p.unscheduled && config.unscheduled_dscp
               ? *config.unscheduled_dscp
               : policy->class_dscp(config.class_dscp, m.cls());
  s.binding = m.spec.binding;
  s.binding_value = binding_value(m);
  s.last = m.transmitted + p.len == m.spec.length;
  s.recovers = s.binding == BindingKind::Opaque;
  check_segment(m, p, now);
  if (p.from_pool) use_pool_credit(m, a, p);
  p.pacer->record(now, p.ready, p.len, p.rate, p.cu);
  note_segment(p.pacer, now);
  if (p.also != nullptr) {
    p.also->record(now, p.ready, p.len, p.also_rate, p.cu);
    note_segment(p.also, now);
  }
  m.transmitted += p.len;
  if (m.without_rdcc) {
    stats.without_rdcc_octets += p.len;
  } else if (p.unscheduled) {
    stats.unscheduled_octets += p.len;
  } else {
    stats.scheduled_octets += p.len;
  }
  if (events.enabled()) {
    events.emit(now, "data",
                {{"message_id", m.id},
                 {"offset", s.offset},
                 {"length", s.length},
                 {"unscheduled", s.unscheduled},
                 {"pool", p.from_pool},
                 {"rate", p.rate}});
  }
  if (m.request_deferred) {
    m.request_deferred = false;
    send_credit_request(m, false, now);
  }
  after_transmission(m, p, now);
  return s;
}

void Sender::Impl::after_transmission(Msg& m, const Plan& p, Time now) {
  if (m.without_rdcc) {
    if (m.transmitted >= m.spec.length) fire(m, SenderTransition::WithoutRdccDone, now);
    return;
  }
  if (m.state == MessageState::Unsched) {
    if (m.transmitted >= m.spec.length) drained(m, now);
    return;
  }
  // "SCHEDULED | Grant Limit reached before message end | none | WAITING" (no message: the
  // request timer starts now).
  refresh_state(m, now);
  if (p.from_pool) refresh_pool_members(assoc_of(m), now);
}

// Our own invariant ("Credit Requests and Grants", rule 2): every octet is covered.
void Sender::Impl::check_segment(const Msg& m, const Plan& p, Time now) {
  const std::uint64_t end = m.transmitted + p.len;
  bool ok = end <= m.spec.length;
  if (m.without_rdcc || p.unscheduled) {
    // Unscheduled: the request announced the whole message ("Unscheduled Sent = length").
    ok = ok && (m.without_rdcc || m.announced_unsched == m.spec.length);
  } else if (p.from_pool) {
    ok = ok && pool_valid(assoc_of(m), now) && end <= p.reserve_to &&
         assoc_of(m).pool_sent + p.len <= assoc_of(m).pool_limit;
  } else {
    ok = ok && own_valid(m, now) && end <= own_limit(m);
  }
  if (!ok) {
    ++stats.invariant_violations;
    if (events.enabled())
      events.emit(now, "invariant_violation",
                  {{"message_id", m.id}, {"offset", m.transmitted}, {"length", p.len}});
  }
}

// "The sender MAY abandon a message by sending CANCEL" (a message without an Message ID yet,
// or sent without RDCC, has no receiver to tell); the message is ABORTED.
void Sender::Impl::cancel(Msg& m, Time now) {
  Assoc& a = assoc_of(m);
  if (m.id != 0 && !m.without_rdcc && a.phase == Phase::Established) {
    Cancel c;
    c.message_id = m.id;
    c.reason = static_cast<std::uint16_t>(ReasonCode::ApplicationAbort);
    send(a, c, now);
  }
  abort(m, static_cast<std::uint16_t>(ReasonCode::ApplicationAbort), now);
}

}  // namespace rdcc::ref
