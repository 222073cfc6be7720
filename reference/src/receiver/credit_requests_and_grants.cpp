// The reference receiver's rules of "Credit Requests and Grants": a CREDIT_REQUEST announcing or
// re-requesting a message, the grant issued (rules 1 to 5), pool grants, MSG_DONE, CANCEL and
// CREDIT_RETURN.
//
// Receiver::Impl's member functions (receiver_impl.hpp); receiver.cpp dispatches to them. Section
// names in comments are the spec's headings; docs/reference.md maps each heading to its file.
#include "receiver_impl.hpp"

#include <algorithm>
#include <cassert>

namespace rdcc::ref {

void Receiver::Impl::complete(Assoc& a, Msg& m, Time now) {
  const std::uint64_t id = m.id;
  const std::uint64_t octets = m.received();
  remember_done(a, m, octets);
  release_message(a, m, now, true);
  if (policy->send_msg_done()) {
    MsgDone done;
    done.message_id = id;
    done.octets_received = octets;
    send(a, done, now);
    ++stats.msg_done_sent;
  }
  if (events.enabled())
    events.emit(now, "message_complete",
                {{"association_id", a.id}, {"message_id", id}, {"octets", octets}});
}

void Receiver::Impl::on_credit_request(Assoc& a, const CreditRequest& r, Time now) {
  ++stats.credit_requests_received;
  if (auto it = a.msgs.find(r.message_id); it != a.msgs.end() && r.message_id != 0) {
    update_message(a, it->second, r, now);
    return;
  }
  if (auto done = a.done.find(r.message_id); done != a.done.end()) {
    answer_finished(a, r.message_id, done->second, now);
    return;
  }
  if (r.message_id == 0) {
    // "Message ID is chosen by the sender ...; zero is reserved."
    if (events.enabled()) events.emit(now, "reserved_message_id", {{"association_id", a.id}});
    return;
  }
  if (!binding_supported(r.binding_kind)) {
    send_error(a, ReasonCode::UnsupportedBinding, r.message_id, now);
    return;
  }
  if (r.message_length > cfg.max_message_length) {
    send_error(a, ReasonCode::MessageTooLarge, r.message_id, now);
    return;
  }
  if (at_pending_cap(a.msgs.size() - a.msgs.count(0),
                     policy->pending_cap(cfg.max_pending_per_association))) {
    // The sender keeps the request outstanding and retries.
    send_error(a, ReasonCode::BudgetExhausted, r.message_id, now);
    return;
  }
  // "Message IDs MUST increase ..." binds the sender: a lower ID not seen before is a request
  // that was lost or overtaken, and is new (docs/spec-notes.md).
  a.highest_id = std::max(a.highest_id, r.message_id);
  Msg& m = a.msgs[r.message_id];
  m.association = a.id;
  m.id = r.message_id;
  m.length = r.message_length;
  m.traffic_class = r.effective_class();
  m.weight = r.effective_weight();
  m.has_deadline = r.has_deadline();
  m.deadline = now + microseconds(r.deadline);
  m.binding = static_cast<BindingKind>(r.binding_kind);
  m.binding_value = r.binding_value;
  m.rocev2 = unpack_rocev2(r.binding_value);
  if (m.binding == BindingKind::RoCEv2 && m.rocev2.message_count != 0) {
    m.post_unit = (m.length + m.rocev2.message_count - 1) / m.rocev2.message_count;
  }
  if (m.binding == BindingKind::Opaque) {
    a.binding.add_opaque(m.binding_value, m.id);
  } else {
    a.binding.add_queue_pair(m.rocev2.destination_qpn, m.id);
  }
  m.pass = queue.class_pass(m.traffic_class);
  if (a.active++ == 0) {
    ++active_assocs;
    aimd_wake(a);  // its rate is updated again from the next interval
  }
  ++pending;
  accept_unscheduled(a, m, r.unscheduled_sent, now);
  if (events.enabled())
    events.emit(now, "message_announced",
                {{"association_id", a.id},
                 {"message_id", m.id},
                 {"length", m.length},
                 {"unscheduled", m.window},
                 {"traffic_class", m.traffic_class}});
  count_early_data(a, m);
  if (m.length == 0 || m.received() >= m.length) {
    complete(a, m, now);
    return;
  }
  if (a.pool_grants) {
    m.pooled = true;
    Msg& pool = pool_of(a);
    pool.length += m.length - m.covered();
    requeue(a, pool);
  }
  requeue(a, m);
  ensure_aimd(now);
}

// The association's pool ("A grant with Message ID zero and the POOL flag set is a pool
// grant: it covers all scheduled messages of the association, and the Grant Limit counts
// octets across those messages"), made with its first message. It is no pending message.
auto Receiver::Impl::pool_of(Assoc& a) -> Msg& {
  auto [it, made] = a.msgs.try_emplace(0);
  Msg& pool = it->second;
  if (made) {
    pool.association = a.id;
    pool.pass = queue.class_pass(0);
  }
  return pool;
}

// A pooled message's scheduled octets arrived: they count against the pool's Grant Limit.
void Receiver::Impl::pool_data(Assoc& a, std::uint64_t above, Time now) {
  Msg& pool = a.msgs.at(0);
  pool.sched_received += above;
  if (pool.sched_received > pool.limit && pool.state != MsgState::Misbehaving &&
      policy->stop_granting_misbehaving()) {
    // "Data received for a message beyond its Grant Limit ... indicates a misbehaving
    // sender": beyond the pool's, no further pool credit.
    stats.misbehaving_data_octets += std::min(above, pool.sched_received - pool.limit);
    if (events.enabled())
      events.emit(now, "misbehaving_sender",
                  {{"association_id", a.id},
                   {"message_id", 0},
                   {"limit", pool.limit},
                   {"data_end", pool.sched_received}});
    dequeue(pool);
    pool.state = MsgState::Misbehaving;
  }
  ledger.settle(a, pool);
  if (pool.accounted == 0 && pool.rate != 0) set_rate(pool, 0);
  requeue(a, pool);
}

void Receiver::Impl::update_message(Assoc& a, Msg& m, const CreditRequest& r, Time now) {
  if (m.state == MsgState::Cancelled || m.state == MsgState::Misbehaving) return;
  nack_missing(a, m, now);
  if (r.unscheduled_sent < m.window) convert_unscheduled(a, m, r.unscheduled_sent);
  if (m.pooled) {
    // Its credit is the pool's: the request asks for that (a lapsed pool grant is renewed).
    Msg& pool = a.msgs.at(0);
    if (pool.state == MsgState::Dormant) pool.state = MsgState::Active;
    requeue(a, pool);
    return;
  }
  // A request while the message's grant is live: no grant is owed (docs/spec-notes.md, 52);
  // whether one comes is the policy's choice. "Never" leaves the message as it is, a
  // returned one too, until the grant expires.
  const ReRequestAnswer answer =
      m.accounted != 0 ? policy->answer_rerequest() : ReRequestAnswer::WhenCreditIsDue;
  if (answer == ReRequestAnswer::Never) return;
  if (m.state == MsgState::Dormant) {
    m.state = MsgState::Active;
    if (events.enabled())
      events.emit(now, "message_woken", {{"association_id", a.id}, {"message_id", m.id}});
  }
  if (m.lapsed()) {
    // The grant expired at the sender too: it asks again; the credit is granted anew.
    m.state = MsgState::Active;
  }
  if (answer == ReRequestAnswer::Always) {
    answer_live_rerequest(a, m, now);
  } else {
    requeue(a, m);
  }
}

// A grant for a message whose grant is live: more credit if it is due some, else the same
// Grant Limit, which "only refreshes the Lifetime and Pacing Rate" (rule 1), at the rate the
// allocation gives it now (its own rate counts as room). Not after a CREDIT_RETURN: restating
// the limit would give back the returned credit, which the grant pass does only with room
// for it in G_s (spec-notes 80).
void Receiver::Impl::answer_live_rerequest(Assoc& a, Msg& m, Time now) {
  requeue(a, m);
  if (m.queued || m.returned != kNoReturn) return;  // the grant pass serves it
  const std::uint32_t rate = rate_for(a, m, now);
  if (rate == 0) return;
  issue_grant(a, m, m.limit, rate, 0, now);
}

void Receiver::Impl::issue_grant(Assoc& a, Msg& m, std::uint64_t limit, std::uint32_t rate,
                                 std::uint64_t moved, Time now) {
  dequeue(m);
  assert(limit <= m.length);  // "The receiver MUST NOT grant beyond the message length."
  assert(limit >= m.held());
  const std::uint64_t added = limit - m.held();
  m.limit = limit;
  m.received_at_grant = m.received();
  m.granted_at = now;
  m.returned = kNoReturn;  // a new grant gives back the right to send up to its limit
  m.told_exhausted = false;
  if (moved != 0) {
    set_unsched(m, 0);
    m.window = m.unsched_received;  // octets still in flight are now scheduled credit
  }
  ledger.set_scheduled(a, m, m.outstanding());
  set_rate(m, rate);
  a.granted_rate = rate;
  ++m.generation;
  // "Lifetime zero means the default Grant Lifetime of the association"; which one a grant
  // states is the policy's choice, lengthened to the interval its rate is averaged over and to
  // the time its credit takes at that rate.
  const std::uint32_t lifetime_field =
      paced_lifetime_field(policy->grant_lifetime_us(cfg.grant_lifetime_us), cfg.grant_lifetime_us,
                           rate, cfg.credit_unit, m.outstanding());
  const Time reclaim =
      reclaim_at(now, grant_lifetime(lifetime_field, cfg.grant_lifetime_us), cfg.d_max);
  arm(reclaim, TimerKind::Reclaim, a.id, m.id, m.generation);
  if (cfg.reports_sends) unsent_grants.push_back({a.id, m.id, m.generation, now, reclaim});
  m.pass = advance_pass(m.pass, added, m.weight);
  CreditGrant g = make_grant(m.id, m.length, limit, rate, lifetime_field);
  if (policy->pool_grant_without_capability() && (a.capabilities & capability::kPool) == 0) {
    CreditGrant pool = g;
    pool.message_id = 0;
    pool.header.flags = flag::kPool;
    send(a, pool, now);
  }
  send(a, g, now);
  ++stats.grants_sent;
  stats.credit_granted += added;
  requeue(a, m);
}

void Receiver::Impl::on_cancel(Assoc& a, const Cancel& cancel, Time now) {
  auto it = a.msgs.find(cancel.message_id);
  if (it == a.msgs.end() || cancel.message_id == 0) return;
  Msg& msg = it->second;
  if (msg.pooled && msg.state != MsgState::Cancelled) {
    // Its octets still to come leave the pool's demand (never below what the pool granted).
    Msg& pool = a.msgs.at(0);
    const std::uint64_t left = msg.length - std::min(msg.length, msg.covered());
    pool.length -= std::min(left, pool.length - std::max(pool.limit, pool.sched_received));
  }
  // A repeated CANCEL keeps the first one's reclamation time: re-arming it would let a
  // sender hold its credit for as long as it repeats itself.
  if (msg.state == MsgState::Cancelled) return;
  // "the credit of a cancelled message no earlier than 2 * D_max after it sent or
  // received the CANCEL"
  stop_waiting(a, msg);
  msg.state = MsgState::Cancelled;
  ++msg.generation;
  arm(cancel_reclaim_at(now, cfg.d_max), TimerKind::CancelReclaim, a.id, msg.id, msg.generation);
  if (events.enabled())
    events.emit(now, "message_cancelled", {{"association_id", a.id}, {"message_id", msg.id}});
}

// A CREDIT_RETURN that may have crossed the message's latest grant (sent before that grant
// reached the sender: they arrive within 2 * D_max of each other) says nothing of that grant's
// credit, which the sender may hold and use: the credit stays counted until the grant's reclaim
// (Lifetime + 2 * D_max), and only the message stops being served (docs/spec-notes.md 187).
void Receiver::Impl::on_credit_return(Assoc& a, const CreditReturn& ret, Time now) {
  auto it = a.msgs.find(ret.message_id);
  if (it == a.msgs.end() || it->second.pooled) return;
  Msg& msg = it->second;
  if (msg.limit != 0 && now - msg.granted_at < cfg.d_max * 2 &&
      !policy->return_releases_crossed_grant()) {
    if (msg.state == MsgState::Active) msg.state = MsgState::Dormant;
    dequeue(msg);
    return;
  }
  msg.returned = std::min(msg.returned, ret.new_limit);
  const std::uint64_t keep = msg.outstanding();
  if (keep < msg.accounted) {
    stats.credit_returned += msg.accounted - keep;
    ledger.set_scheduled(a, msg, keep);
  }
  if (msg.state == MsgState::Active) msg.state = MsgState::Dormant;
  dequeue(msg);
}

}  // namespace rdcc::ref
