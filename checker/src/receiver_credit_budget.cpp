// "Receiver Credit Budget": the credit a receiver holds out, against G (RDCC-BUDGET-01), from what
// it sent and what it processed.
#include "impl.hpp"

namespace rdcc::checker {

// Octets the receiver has authorized and not yet received.
std::uint64_t InvariantChecker::Impl::exposure_of(const MsgModel& m, Time t) {
  if (m.complete) return 0;
  std::uint64_t authorized = 0;
  if (t < m.grant_live_until) authorized = m.limit_sent;
  if (t < m.window_live_until && !m.window_unconfirmed) authorized = std::max(authorized, m.window);
  if (m.length_known) authorized = std::min(authorized, m.length);
  authorized = std::min(authorized, m.returned_limit);
  if (m.cancelled && t >= m.cancel_reclaim_from) authorized = 0;
  return authorized > m.received ? authorized - m.received : 0;
}

void InvariantChecker::Impl::refresh(std::uint32_t msg_number, Time t) {
  MsgModel& m = msgs[msg_number];
  const std::uint32_t r_number = peers[assocs[m.assoc].peer].receiver;
  if (r_number == kNone) return;
  ReceiverModel& r = receivers[r_number];
  const std::uint64_t now_exposure = exposure_of(m, t);
  r.outstanding = r.outstanding - m.exposure + now_exposure;
  m.exposure = now_exposure;
  r.peak = std::max(r.peak, r.outstanding);
  if (r.outstanding > r.budget && keeping()) {
    violate(t, rule::kBudget,
            "receiver outstanding credit " + std::to_string(r.outstanding) +
                " exceeds G = " + std::to_string(r.budget));
  }
}

// The receiver sent a message naming an association the checker thought it may have removed
// as idle (AssocModel::maybe_removed): it holds it, and the windows announced meanwhile
// count.
void InvariantChecker::Impl::confirm_held(std::uint32_t ai, Time t) {
  assocs[ai].maybe_removed = false;
  for (const std::uint32_t mi : assocs[ai].windowed) {
    if (!msgs[mi].window_unconfirmed) continue;
    msgs[mi].window_unconfirmed = false;
    refresh(mi, t);
  }
}

// The receiver answered ERROR (UNKNOWN_ASSOCIATION) to a request of an association it had
// accepted, naming its Epoch: it has removed it ("A receiver MAY remove an association that has
// carried no traffic for a locally configured idle time ...; it reclaims all credit of that
// association when doing so"), which the checker cannot see happen. What the association's
// messages held is released, and what its sender sends later is not the receiver's (spec-notes
// 93).
void InvariantChecker::Impl::forget_association(std::uint32_t ai, std::uint16_t epoch, Time t) {
  AssocModel& a = assocs[ai];
  if (!a.accepted || a.epoch != epoch || !a.request_in_incarnation) return;
  a.accepted = false;
  a.u_accounted = 0;
  a.maybe_removed = false;
  for (std::uint32_t mi = 0; mi < msgs.size(); ++mi) {  // a rare message: a walk will do
    MsgModel& m = msgs[mi];
    if (m.assoc != ai) continue;
    m.grant_live_until = std::min(m.grant_live_until, t);
    m.window_live_until = std::min(m.window_live_until, t);
    refresh(mi, t);
  }
}

// "the credit of a cancelled message no earlier than 2 * D_max after it sent or received
// the CANCEL" ("Receiver Credit Budget"): the first CANCEL starts the delay.
void InvariantChecker::Impl::cancel_seen(std::uint32_t ai, std::uint64_t message_id, Duration d_max,
                                         Time t) {
  const std::uint32_t mi = find_msg(ai, message_id);
  if (mi == kNone || msgs[mi].cancelled) return;
  msgs[mi].cancelled = true;
  msgs[mi].cancel_reclaim_from = t + d_max * 2;
  schedule(mi, msgs[mi].cancel_reclaim_from);
}

// A receiver (number `r`) got a control message from a sender. It counts what the receiver
// must process: messages of an association it accepted for that address, with its Epoch and
// a Sequence Number newer than the newest processed ("Common Header"). Anything else the
// receiver discards, or answers with ERROR (UNKNOWN_ASSOCIATION), and holds no credit for.
void InvariantChecker::Impl::receiver_got(std::uint32_t r, const AddrKey& rx, const AddrKey& tx,
                                          const Message& m, Time t) {
  const Header& h = header_of(m);
  const std::uint32_t p = peer(rx, tx);
  if (const auto* q = std::get_if<AssocRequest>(&m)) {
    update_acknowledged(p, *q);
    return;
  }
  if (std::holds_alternative<CongestionReport>(m)) return;
  {
    // What the receiver's ERROR (UNKNOWN_ASSOCIATION) and MSG_DONE may answer, processed or
    // not (error_rules, receiver_sent): any message naming the association (the spec has the
    // reply answer a CREDIT_REQUEST and forbids it nowhere else), a request for the message.
    const std::uint32_t asked = assoc(p, h.association_id);
    assocs[asked].requested = true;
    if (const auto* req = std::get_if<CreditRequest>(&m)) {
      msgs[msg(asked, req->message_id)].requested = true;
    }
  }
  const std::uint32_t ai = find_assoc(p, h.association_id);
  if (ai == kNone) return;
  if (std::holds_alternative<CreditRequest>(m)) {
    // Whether an ERROR (UNKNOWN_ASSOCIATION) that answers it says the receiver removed the
    // association, or only that this request named another Epoch (spec-notes 93).
    assocs[ai].request_in_incarnation = assocs[ai].accepted && assocs[ai].epoch == h.epoch;
  }
  if (!assocs[ai].accepted || assocs[ai].epoch != h.epoch) return;
  AssocModel& a = assocs[ai];
  if (a.have_seq_in && !processed(h.sequence_number, a.newest_seq_in)) return;
  // Only what the receiver processes keeps the association alive for the checker: it may
  // only ever see it idle longer than the receiver does.
  if (t - a.last_traffic >= kIdleUnseen) a.maybe_removed = true;
  a.last_traffic = t;
  a.have_seq_in = true;
  a.newest_seq_in = h.sequence_number;
  if (const auto* c = std::get_if<Cancel>(&m)) {
    cancel_seen(ai, c->message_id, receivers[r].d_max, t);
    return;
  }
  if (const auto* ret = std::get_if<CreditReturn>(&m)) {
    // The sender will not transmit beyond New Limit: the receiver may release the rest at
    // once (docs/spec-notes.md, 65).
    if (const std::uint32_t mi = find_msg(ai, ret->message_id); mi != kNone) {
      msgs[mi].returned_limit = std::min(msgs[mi].returned_limit, ret->new_limit);
      refresh(mi, t);
    }
    return;
  }
  const auto* req = std::get_if<CreditRequest>(&m);
  if (req == nullptr || req->message_id == 0) return;  // "zero is reserved"
  const std::uint32_t mi = msg(ai, req->message_id);
  MsgModel& msg = msgs[mi];
  if (!msg.length_known) {  // a message's length is the one its first request announced
    msg.length = req->message_length;
    msg.length_known = true;
  }
  // The request's association, for data that arrives without one; once the receiver has
  // accepted an association for this sender, data is counted for that one instead (and
  // always will be), so the request's need not be kept.
  if (const auto known = peer_msg_index.find(MsgKey{p, req->message_id});
      known != peer_msg_index.end() || peers[p].accepted.empty()) {
    PeerMsgModel& pm =
        known != peer_msg_index.end() ? peer_msgs[known->second] : peer_msg(p, req->message_id);
    pm.has_association = true;
    pm.association = h.association_id;
    msg.received += pm.early;
    pm.early = 0;
  }
  announce_window(r, a, mi, *req, t);
  refresh(mi, t);
}

// ASSOC_REQUEST with Update Acknowledgment: the receiver may account the new U alone.
void InvariantChecker::Impl::update_acknowledged(std::uint32_t p, const AssocRequest& q) {
  if (!q.update_acknowledgment()) return;
  for (AssocModel& a : assocs) {  // a rare message: a walk over all associations will do
    if (a.peer == p && a.accepted && a.nonce == q.sender_nonce) a.u_accounted = a.u_current;
  }
}

}  // namespace rdcc::checker
