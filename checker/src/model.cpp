// A message's end and its retirement: when the checker may forget a message (docs/spec-notes.md,
// "When the invariant checker forgets a message").
#include "impl.hpp"

namespace rdcc::checker {

// A message named again after it retired: what its end established still holds (a request
// reached the receiver, which had every octet, and the sender knew it and got MSG_DONE);
// its credit had lapsed, so the sender holds none, and its length is learned again from a
// request. It retires again once quiet (docs/spec-notes.md, "When the invariant checker
// forgets a message").
std::uint32_t InvariantChecker::Impl::resurrect(std::uint32_t assoc_number,
                                                std::uint64_t message_id) {
  const std::uint32_t index = add_msg(assoc_number, message_id);
  MsgModel& m = msgs[index];
  m.requested = true;
  m.sender_knows = true;
  m.unsched_ended = true;
  m.complete = true;
  m.done_sent = true;
  m.done_delivered = true;
  m.touched = now;
  ++resurrected;
  schedule_retirement(index);
  return index;
}

// Once the message has ended on both sides: a check when it may retire.
void InvariantChecker::Impl::schedule_retirement(std::uint32_t index) {
  MsgModel& m = msgs[index];
  if (!m.done_sent || !m.done_delivered || m.retire_scheduled) return;
  m.retire_scheduled = true;
  expiries.push(retire_due(m), index, m.generation, true);
}

// The earliest moment the message may retire: nothing named it for the longest that any of
// its credit can stay live (J + Lifetime + 2 * D_max, and the observer's timing tolerance),
// and every moment its model still counts toward has passed.
Time InvariantChecker::Impl::retire_due(const MsgModel& m) const {
  const AssocModel& a = assocs[m.assoc];
  const std::uint32_t r = peers[a.peer].receiver;
  const Duration d_max = r == kNone ? Duration{} : receivers[r].d_max;
  const Duration quiet = microseconds(a.j) + microseconds(a.lifetime_us) + d_max * 2 + tolerance;
  Time due = m.touched + quiet;
  due = std::max({due, m.held_valid_until + tolerance, m.grant_live_until, m.window_live_until});
  if (m.cancelled) due = std::max(due, m.cancel_reclaim_from);
  if (m.early != kNone) due = std::max(due, early_grants[m.early].valid_until + tolerance);
  return due;
}

void InvariantChecker::Impl::retire_check(std::uint32_t index, Time at) {
  const Time due = retire_due(msgs[index]);
  if (at < due) {
    expiries.push(due, index, msgs[index].generation, true);
    return;
  }
  retire(index);
}

// Forgets the message: its ID joins its association's retired ones, its slots are free.
void InvariantChecker::Impl::retire(std::uint32_t index) {
  MsgModel& m = msgs[index];
  AssocModel& a = assocs[m.assoc];
  if (m.exposure != 0) {  // none: every octet arrived; kept exact all the same
    const std::uint32_t r = peers[a.peer].receiver;
    if (r != kNone) receivers[r].outstanding -= m.exposure;
  }
  if (m.windowed) std::erase(a.windowed, index);
  set_unused_term(a, m, 0, 0);
  pacing_windows.give(m.paced);
  pacing_windows.give(m.pool_paced);
  early_grants.give(m.early);
  pending_grants.give(m.pending);
  const std::uint32_t association = assoc_index.key(m.assoc).association;
  if (const auto it = peer_msg_index.find(MsgKey{a.peer, m.id});
      it != peer_msg_index.end() && peer_msgs[it->second].early == 0 &&
      (!peer_msgs[it->second].has_association ||
       peer_msgs[it->second].association == association)) {
    std::uint32_t slot = it->second;
    peer_msgs.give(slot);
    peer_msg_index.erase(it);
  }
  a.retire(m.id);
  if (retire_observer) {
    const PeerKey& pk = peer_index.key(a.peer);
    retire_observer(Retired{pk.rx, pk.tx, association, m.id});
  }
  msg_index.erase(MsgKey{m.assoc, m.id});
  if (last_msg == index) last_msg = kNone;
  m.assoc = kNone;
  free_msgs.push_back(index);
  ++retired_count;
}

// The receiver sent MSG_DONE for the message: its end, where every octet had arrived.
void InvariantChecker::Impl::done_sent(std::uint32_t index) {
  MsgModel& m = msgs[index];
  if (!m.requested || !(m.complete || (m.length_known && m.received >= m.length))) return;
  m.done_sent = true;
  schedule_retirement(index);
}

// A MSG_DONE the sender processed reached it, for a message it holds.
void InvariantChecker::Impl::done_delivered(std::uint32_t ai, std::uint64_t message_id) {
  const std::uint32_t index = find_msg(ai, message_id);
  if (index == kNone || !msgs[index].sender_knows) return;
  msgs[index].done_delivered = true;
  schedule_retirement(index);
}

PeerMsgModel& InvariantChecker::Impl::peer_msg(std::uint32_t peer_number,
                                               std::uint64_t message_id) {
  const auto [it, added] = peer_msg_index.try_emplace(MsgKey{peer_number, message_id}, kNone);
  if (added) it->second = peer_msgs.take();
  return peer_msgs[it->second];
}

}  // namespace rdcc::checker
