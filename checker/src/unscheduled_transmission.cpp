// "Unscheduled Transmission": windows announced, one message outstanding (RDCC-UNSCHED-03); and
// the control messages a sender sends (CREDIT_RETURN's floor, RDCC-FMT-11).
#include "impl.hpp"

namespace rdcc::checker {

// Octets of unscheduled windows of the association's messages still counted at `t`. A window
// that has lapsed leaves the list (a new request for its message lists it again): the walk
// covers the live windows, not every unscheduled message the association ever had, which made
// `rdcc pcap check` quadratic in them. Time runs forward here; a capture whose timestamps step
// back could only see fewer windows, and so judge more leniently, never falsely.
std::uint64_t InvariantChecker::Impl::live_windows(AssocModel& a, std::uint32_t except, Time t) {
  std::uint64_t sum = 0;
  std::vector<std::uint32_t>& listed = a.windowed;
  for (std::size_t i = 0; i < listed.size();) {
    const std::uint32_t mi = listed[i];
    MsgModel& m = msgs[mi];
    if (t >= m.window_live_until) {
      m.windowed = false;
      listed[i] = listed.back();
      listed.pop_back();
      continue;
    }
    if (mi != except && !m.complete) sum += m.window > m.received ? m.window - m.received : 0;
    ++i;
  }
  return sum;
}

void InvariantChecker::Impl::sender_sent(const AddrKey& tx, const AddrKey& rx, const Message& m,
                                         Time t) {
  if (const auto* q = std::get_if<AssocRequest>(&m); q != nullptr && !q->update_acknowledgment()) {
    PeerModel& pm = peers[peer(rx, tx)];
    pm.has_sender_nonce = true;
    pm.sender_nonce = q->sender_nonce;
    pm.sender_capabilities = q->capabilities;
    pm.offer_tag = tag;
    return;
  }
  if (const auto* st = std::get_if<SenderStatus>(&m)) {
    const std::uint32_t p = peer_index.find({rx, tx});
    const std::uint32_t ai = p == kNone ? kNone : find_assoc(p, st->header.association_id);
    if (ai == kNone) return;
    refused_used(p, ai, m, t);
    status_sent(ai, *st, t);
    return;
  }
  const bool cancel = std::holds_alternative<Cancel>(m);
  const auto* req = std::get_if<CreditRequest>(&m);
  const auto* ret = std::get_if<CreditReturn>(&m);
  if (!cancel && req == nullptr && ret == nullptr) return;
  const std::uint32_t p = peer(rx, tx);
  const std::uint32_t ai = assoc(p, header_of(m).association_id);
  refused_used(p, ai, m, t);
  if (ret != nullptr) {
    // "New Limit MUST NOT be smaller than the octets already transmitted": the octets this
    // observer saw it send before the CREDIT_RETURN (one it reads later can only hide a
    // violation, never invent one).
    const std::uint32_t mi = find_msg(ai, ret->message_id);
    if (mi != kNone && ret->new_limit < msgs[mi].sent_end && keeping()) {
      violate(t, rule::kCreditReturnFloor,
              "New Limit " + std::to_string(ret->new_limit) + " below the " +
                  std::to_string(msgs[mi].sent_end) + " octets of message " +
                  std::to_string(ret->message_id) + " already transmitted: " + format_line(m));
    }
    return;
  }
  if (cancel) {
    if (const std::uint64_t id = std::get<Cancel>(m).message_id; id != 0) {
      msgs[msg(ai, id)].sender_knows = true;
    }
    end_unscheduled(ai, m);
    return;
  }
  MsgModel& msg = msgs[this->msg(ai, req->message_id)];
  msg.sender_knows = true;
  if (request_backoff) request_backoff_rule(msg, assocs[ai], *req, t);
  if (!msg.length_known) msg.length = req->message_length;
  msg.announced_unsched = std::max(msg.announced_unsched, req->unscheduled_sent);
  if (req->unscheduled_sent == 0 || msg.unsched_ended) return;
  // "MUST NOT have more than one unscheduled message outstanding on an association"
  AssocModel& a = assocs[ai];
  if (a.unsched_outstanding && a.unsched_message != req->message_id) {
    if (keeping()) {
      violate(
          t, rule::kUnscheduledOutstanding,
          "unscheduled message " + std::to_string(req->message_id) + " announced while message " +
              std::to_string(a.unsched_message) +
              " is still outstanding (no MSG_DONE or CREDIT_GRANT for it yet): " + format_line(m));
    }
    return;
  }
  a.unsched_outstanding = true;
  a.unsched_message = req->message_id;
}

// "an unscheduled message stops being outstanding when the sender receives MSG_DONE or a
// CREDIT_GRANT for it"; also when it ends otherwise (CANCEL, ERROR for it), and all of an
// association's on ERROR (UNKNOWN_ASSOCIATION), where the sender drops everything.
void InvariantChecker::Impl::end_unscheduled(std::uint32_t ai, const Message& m) {
  std::uint64_t id = 0;
  if (const auto* d = std::get_if<MsgDone>(&m)) {
    id = d->message_id;
  } else if (const auto* g = std::get_if<CreditGrant>(&m);
             g != nullptr && g->usable() && !g->pool()) {
    id = g->message_id;
  } else if (const auto* c = std::get_if<Cancel>(&m)) {
    id = c->message_id;
  } else if (const auto* e = std::get_if<ErrorMessage>(&m)) {
    if (e->reason == static_cast<std::uint16_t>(ReasonCode::UnknownAssociation)) {
      assocs[ai].unsched_outstanding = false;
      return;
    }
    id = e->message_id;
  } else {
    return;
  }
  if (id == 0) return;
  // Only a message the sender holds: it ignores one for a Message ID it has not used yet, and
  // that ID's unscheduled message, once sent, is outstanding (docs/spec-notes.md, 94).
  const std::uint32_t mi = find_msg(ai, id);
  if (mi == kNone || !msgs[mi].sender_knows) return;
  msgs[mi].unsched_ended = true;
  AssocModel& a = assocs[ai];
  if (a.unsched_outstanding && a.unsched_message == id) a.unsched_outstanding = false;
}

// A passive observer cannot know the sender's mode: octets no live grant covers that lie
// within the message's announced unscheduled window were sent unscheduled.
bool InvariantChecker::Impl::inferred_unscheduled(const AddrKey& tx, const DataSegment& s, Time t) {
  const std::uint32_t p = peer_index.find({key_of(s.receiver), tx});
  if (p == kNone) return false;
  const std::uint32_t ai = find_assoc(p, s.association_id);
  if (ai == kNone) return false;
  const std::uint32_t mi = find_msg(ai, s.message_id);
  if (mi == kNone) return false;
  const MsgModel& msg = msgs[mi];
  const std::uint64_t end = s.offset + s.length;
  if (end <= msg.held_limit && t < msg.held_valid_until + tolerance) return false;
  if (msg.pending != kNone && end <= pending_grants[msg.pending].limit) return false;
  return end <= msg.announced_unsched;
}

// Octets a sender transmitted unscheduled, up to `end` of its message: announced first, in a
// message no larger than U.
void InvariantChecker::Impl::unscheduled_segment(const MsgModel& msg, const AssocModel& a,
                                                 const DataSegment& s, std::uint64_t end, Time t) {
  // "MUST send a CREDIT_REQUEST ... no later than the first data packet, with the
  // Unscheduled Sent field set to the message length"; the message is at most U.
  if (end > msg.announced_unsched && keeping()) {
    violate(t, rule::kUnscheduledAnnounced,
            "unscheduled octets up to " + std::to_string(end) + " of message " +
                std::to_string(s.message_id) + " without a CREDIT_REQUEST announcing them");
  }
  if (msg.announced_unsched > a.u && keeping()) {
    violate(t, rule::kUnscheduledBeyondU,
            "unscheduled message of " + std::to_string(msg.announced_unsched) +
                " octets with U = " + std::to_string(a.u));
  }
}

// A request the receiver processed (number `r`) announced unscheduled octets of message `mi`,
// or converted it: the window it counts.
void InvariantChecker::Impl::announce_window(std::uint32_t r, AssocModel& a, std::uint32_t mi,
                                             const CreditRequest& req, Time t) {
  MsgModel& msg = msgs[mi];
  if (req.unscheduled_sent != 0 && msg.window == 0) {
    // Announced octets count up to the U the receiver accounts for the association, less
    // what its other messages still hold: beyond that they are data beyond the credit
    // ("Error Handling and Recovery"), not credit the receiver issued.
    const std::uint64_t others = live_windows(a, mi, t);
    const std::uint64_t allowed = a.u_accounted > others ? a.u_accounted - others : 0;
    msg.window = std::min({req.unscheduled_sent, msg.length, allowed});
    msg.window_unconfirmed = a.maybe_removed;
    msg.window_live_until =
        t + microseconds(a.j) + microseconds(a.lifetime_us) + receivers[r].d_max * 2;
    schedule(mi, msg.window_live_until);
    if (!msg.windowed) {
      msg.windowed = true;
      a.windowed.push_back(mi);
    }
  } else if (req.unscheduled_sent < msg.window) {
    msg.window = req.unscheduled_sent;  // converted: the octets actually transmitted
  }
}

}  // namespace rdcc::checker
