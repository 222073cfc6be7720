// "Credit Requests and Grants": the rules of the grants a receiver sends (RDCC-GRANT-06, -07, -12,
// -13), the credit a sender holds from those it processed, and data judged by it (RDCC-GRANT-03,
// -04, RDCC-ASSOC-04, RDCC-UNSCHED-02, RDCC-MODE-03), and the pacing of rule 4 (RDCC-GRANT-05).
#include "impl.hpp"

namespace rdcc::checker {

// A MSG_DONE is sent "when the receiver has received all octets of a message" (RDCC-GRANT-13),
// so its Octets Received is the message's length: fewer says it has not, and more than both the
// length and every octet delivered to it (duplicates counted) is a count of octets it never got
// (docs/spec-notes.md 178). A count between the two (duplicates, resent octets) is not judged.
bool InvariantChecker::Impl::miscounted(std::uint64_t octets_received, const MsgModel& m) {
  return octets_received < m.length || octets_received > std::max(m.length, m.received);
}

// The receiver (number `r`) sent a control message.
void InvariantChecker::Impl::receiver_sent(std::uint32_t r, const AddrKey& rx, const AddrKey& tx,
                                           const Message& m, Time t) {
  const Header& h = header_of(m);
  const std::uint32_t p = peer(rx, tx);
  const std::uint32_t ai = assoc(p, h.association_id);
  AssocModel& a = assocs[ai];
  // Anything but an ERROR (UNKNOWN_ASSOCIATION) naming it says the receiver holds it now (its
  // idle time may still run: only an ASSOC_ACCEPT, which makes it, restarts the checker's).
  if (const auto* e = std::get_if<ErrorMessage>(&m);
      a.maybe_removed &&
      (e == nullptr || e->reason != static_cast<std::uint16_t>(ReasonCode::UnknownAssociation))) {
    confirm_held(ai, t);
  }
  if (const auto* acc = std::get_if<AssocAccept>(&m)) {
    accept_sent(p, ai, h, *acc, t);
  } else if (const auto* g = std::get_if<CreditGrant>(&m)) {
    if (g->pacing_rate == 0 && keeping()) {
      violate(t, rule::kPacingRateZero, "receiver issued Pacing Rate 0: " + format_line(m));
    }
    pool_rules(a, *g, t);
    if (g->pool()) return;
    const std::uint32_t mi = msg(ai, g->message_id);
    MsgModel& msg = msgs[mi];
    if (msg.length_known && g->grant_limit > msg.length && keeping()) {
      violate(t, rule::kGrantBeyondLength,
              "Grant Limit " + std::to_string(g->grant_limit) + " beyond the length " +
                  std::to_string(msg.length) + ": " + format_line(m));
    }
    if (msg.length_known && g->final() != (g->grant_limit == msg.length) && keeping()) {
      violate(t, rule::kFinal,
              std::string(g->final() ? "FINAL set below" : "FINAL missing at") +
                  " the message length: " + format_line(m));
    }
    // A Grant Limit below an earlier one is no fault: it "only refreshes the Lifetime and Pacing
    // Rate; it never reduces credit" (Credit Requests and Grants, rule 1). The sender still holds
    // the largest limit, for a new Lifetime, and the budget counts that (docs/spec-notes.md,
    // "What the catalog counts as a requirement").
    msg.limit_sent = std::max(msg.limit_sent, g->grant_limit);
    // A grant after a CREDIT_RETURN or CANCEL is credit the receiver issued anew.
    msg.returned_limit = ~std::uint64_t{0};
    msg.cancelled = false;
    const Duration life = microseconds(g->effective_lifetime(a.lifetime_us));
    // An observer that sees the grant leave a little after the receiver decided to send it
    // allows the receiver that much earlier a reclamation (set_send_time_tolerance); the
    // grant always counts at the moment it is sent.
    const Duration live = life + receivers[r].d_max * 2 - send_time_tolerance;
    msg.grant_live_until = t + (live.ns > 0 ? live : Duration{1});
    schedule(mi, msg.grant_live_until);
    refresh(mi, t);
  } else if (const auto* c = std::get_if<Cancel>(&m)) {
    cancel_seen(ai, c->message_id, receivers[r].d_max, t);
  } else if (const auto* e = std::get_if<ErrorMessage>(&m)) {
    error_rules(a, *e, t);
    refused(ai, *e, t);
  } else if (const auto* done = std::get_if<MsgDone>(&m)) {
    done_rules(ai, *done, t);
  }
}

// The receiver sent MSG_DONE (association `ai`): only for a message requested of it, whose
// every octet arrived, stating them all (RDCC-GRANT-13).
void InvariantChecker::Impl::done_rules(std::uint32_t ai, const MsgDone& done, Time t) {
  const AssocModel& a = assocs[ai];
  const std::uint32_t mi = find_msg(ai, done.message_id);
  if (a.established && (mi == kNone || !msgs[mi].requested) && keeping()) {
    // Only where the association was accepted in view: otherwise its request may predate
    // what the checker saw.
    violate(t, rule::kMsgDone,
            "MSG_DONE for a message no CREDIT_REQUEST of which reached the receiver, on an "
            "association it accepted: " +
                format_line(done));
  } else if (mi != kNone && !msgs[mi].complete && msgs[mi].length_known) {
    const MsgModel& msg = msgs[mi];
    if (msg.received < msg.length) {
      if (keeping()) {
        violate(t, rule::kMsgDone,
                "MSG_DONE after " + std::to_string(msg.received) + " of " +
                    std::to_string(msg.length) + " octets: " + format_line(done));
      }
    } else if (miscounted(done.octets_received, msg) && keeping()) {
      violate(t, rule::kMsgDone,
              "MSG_DONE states Octets Received " + std::to_string(done.octets_received) +
                  " of a message of " + std::to_string(msg.length) + " octets (" +
                  std::to_string(msg.received) +
                  " delivered to the receiver): it is sent when all of them have arrived: " +
                  format_line(done));
    }
  }
  if (mi != kNone) done_sent(mi);
}

// A sender got a control message from a receiver: the credit it may use.
void InvariantChecker::Impl::sender_got(const AddrKey& tx, const AddrKey& rx, const Message& m,
                                        Time t) {
  const Header& h = header_of(m);
  const std::uint32_t p = peer(rx, tx);
  const std::uint32_t ai = assoc(p, h.association_id);
  AssocModel& a = assocs[ai];
  if (const auto* acc = std::get_if<AssocAccept>(&m)) {
    accept_got(p, ai, h, *acc);
    return;
  }
  // ERROR (UNKNOWN_ASSOCIATION) is exempt from the sequence check and gives no credit, but
  // ends the association's unscheduled message; anything else counts only within the
  // incarnation the sender accepted.
  if (const auto* e = std::get_if<ErrorMessage>(&m);
      e != nullptr && e->reason == static_cast<std::uint16_t>(ReasonCode::UnknownAssociation)) {
    discard_sender_credit(ai, t);
    end_unscheduled(ai, m);
    return;
  }
  // A sender processes only these types from a receiver; any other (SENDER_STATUS,
  // CREDIT_REQUEST, ...) it discards unprocessed, so its Sequence Number is not "the newest
  // one it has already processed" (docs/spec-notes.md, 75).
  if (!std::holds_alternative<CreditGrant>(m) && !std::holds_alternative<MsgDone>(m) &&
      !std::holds_alternative<Cancel>(m) && !std::holds_alternative<ErrorMessage>(m)) {
    return;
  }
  if (!a.sender_accepted || h.epoch != a.sender_epoch) return;
  if (const PeerModel& pm = peers[p]; pm.has_sender_current && pm.sender_current != ai) return;
  // The sender must discard what is not newer; it may use only what it may accept.
  if (a.have_seq && !processed(h.sequence_number, a.newest_seq)) return;
  a.have_seq = true;
  a.newest_seq = h.sequence_number;
  end_unscheduled(ai, m);
  if (const auto* done = std::get_if<MsgDone>(&m)) done_delivered(ai, done->message_id);
  const auto* g = std::get_if<CreditGrant>(&m);
  if (g != nullptr && g->usable()) grant_got(ai, *g, t);
}

// A usable CREDIT_GRANT the sender processed (association `ai`): the credit it holds from it.
void InvariantChecker::Impl::grant_got(std::uint32_t ai, const CreditGrant& g, Time t) {
  AssocModel& a = assocs[ai];
  // "A grant with Message ID zero and the POOL flag set is a pool grant"; the POOL flag with
  // a Message ID, or Message ID zero without it, is neither that nor a grant for a message:
  // it gives no credit and refreshes no Lifetime (docs/spec-notes.md, 81).
  if (g.pool() != (g.message_id == 0)) return;
  const Duration life = microseconds(g.effective_lifetime(a.lifetime_us));
  const Time valid_until = t + life;
  if (g.pool()) {
    a.pool_granted = std::max(a.pool_granted, g.grant_limit);
    if (reception_unseen) {
      if (!a.pool_pending) a.pool_pending_from = t;
      a.pool_pending = true;
      a.pool_pending_limit = std::max(a.pool_pending_limit, g.grant_limit);
      a.pool_pending_life = std::max(a.pool_pending_life, life);
      // As for a message's grant (pend): the higher rate until reception is shown.
      a.pool_pending_rate = g.pacing_rate;
      a.pool_rate = std::max(a.pool_rate, g.pacing_rate);
      return;
    }
    a.pool_limit = std::max(a.pool_limit, g.grant_limit);
    a.pool_valid_until = valid_until;
    a.pool_rate = g.pacing_rate;
    return;
  }
  MsgModel& msg = msgs[this->msg(ai, g.message_id)];
  set_unused_term(a, msg, std::max(msg.granted_max, g.grant_limit), msg.sent_end);
  if (!msg.sender_knows) {
    // A grant for a message the sender has not shown it holds (a Message ID it has not used
    // yet): the sender may have ignored it as for an unknown message, and send the message,
    // once it exists, under the pool or a later grant. Neither its Grant Limit nor its Pacing
    // Rate binds how those octets are judged; it only excuses octets that nothing else covers
    // (docs/spec-notes.md, 94).
    if (msg.early == kNone) msg.early = early_grants.take();
    EarlyGrant& e = early_grants[msg.early];
    e.limit = std::max(e.limit, g.grant_limit);
    e.valid_until = valid_until;
    return;
  }
  if (reception_unseen) {
    pend(msg, g, life, t);
    return;
  }
  msg.held_limit = std::max(msg.held_limit, g.grant_limit);
  msg.held_valid_until = valid_until;
  msg.discarded = false;
  set_rate(msg, g.pacing_rate);
}

// A grant delivered where its reception is unseen: kept pending until data shows it was
// received. Until then the message is paced against the higher of its old and new rates (the
// sender may already send at the new one); a lower rate binds from the proof on.
void InvariantChecker::Impl::pend(MsgModel& msg, const CreditGrant& g, Duration life, Time t) {
  if (msg.pending == kNone) {
    msg.pending = pending_grants.take();
    pending_grants[msg.pending].from = t;
  }
  PendingGrant& p = pending_grants[msg.pending];
  p.limit = std::max(p.limit, g.grant_limit);
  p.life = std::max(p.life, life);
  p.rate = g.pacing_rate;
  if (g.pacing_rate > msg.rate) set_rate(msg, g.pacing_rate);
}

void InvariantChecker::Impl::set_rate(MsgModel& msg, std::uint32_t rate) {
  // A new rate binds what is sent after the grant's reception: the octets sent under the
  // old rate are not judged against it (docs/spec-notes.md, 42).
  if (rate != msg.rate && msg.paced != kNone) pacing_windows[msg.paced].clear();
  msg.rate = rate;
}

// Data at `t` that the held grant does not cover: the pending grants delivered by then were
// received by `t` at the latest, so their Lifetime runs from `t` (set_grant_reception_unseen).
void InvariantChecker::Impl::take_pending(MsgModel& msg, Time t) {
  if (msg.pending == kNone) return;
  const PendingGrant p = pending_grants[msg.pending];
  if (t < p.from) return;
  pending_grants.give(msg.pending);
  msg.held_limit = std::max(msg.held_limit, p.limit);
  msg.held_valid_until = t + p.life;
  msg.discarded = false;
  set_rate(msg, p.rate);
}

void InvariantChecker::Impl::segment(const AddrKey& tx, const DataSegment& s, Time t) {
  // Association ID zero is no association ("assigns a non-zero Association ID"): data the
  // sender sends without RDCC once its attempts went unanswered ("sends without it",
  // Association Establishment), which no rule of credit binds (docs/spec-notes.md 151).
  if (s.association_id == 0) return;
  const std::uint32_t ai = assoc(peer(key_of(s.receiver), tx), s.association_id);
  MsgModel& msg = msgs[this->msg(ai, s.message_id)];
  msg.sender_knows = true;
  AssocModel& a = assocs[ai];
  a.last_data = a.last_data ? std::max(*a.last_data, t) : t;
  const std::uint64_t end = s.offset + s.length;
  if (end > msg.sent_end) {
    if (t > a.recent_at) {
      a.recent_sent = 0;
      a.recent_at = t;
    }
    a.recent_sent =
        std::min(kUnboundedCredit, a.recent_sent + std::min(kUnboundedCredit, end - msg.sent_end));
  }
  set_unused_term(a, msg, msg.granted_max, std::max(msg.sent_end, end));
  if (s.unscheduled) {
    unscheduled_segment(msg, a, s, end, t);
    return;
  }
  // No credit covers octets past the message's end: a grant never goes beyond the length
  // (RDCC-GRANT-07), and pool credit covers the association's messages, not more than they
  // hold (docs/spec-notes.md 175).
  if (msg.length != 0 && end > msg.length) {
    if (keeping()) {
      violate(t, rule::kSenderCredit,
              "octets " + std::to_string(s.offset) + ".." + std::to_string(end) + " of message " +
                  std::to_string(s.message_id) + " beyond its length " +
                  std::to_string(msg.length) + " (no grant, own or pool, covers them)");
    }
    return;
  }
  if (end <= msg.held_limit && t < msg.held_valid_until + tolerance) {
    if (pool_instead(msg, a, s, t)) return;
    check_pacing(msg, a, s, t);
    return;
  }
  take_pending(msg, t);
  if (end <= msg.held_limit && t < msg.held_valid_until + tolerance) {
    check_pacing(msg, a, s, t);
    return;
  }
  if (end <= msg.pool_sent_end && t < a.pool_valid_until + tolerance) {  // a resend
    check_pool_pacing(msg, a, s, t);
    return;
  }
  if (!(t < a.pool_valid_until + tolerance && a.pool_used + s.length <= a.pool_limit)) {
    take_pool_pending(a, t);
  }
  if (t < a.pool_valid_until + tolerance && a.pool_used + s.length <= a.pool_limit) {
    a.pool_used += s.length;
    msg.pool_sent_end = std::max(msg.pool_sent_end, end);
    check_pool_pacing(msg, a, s, t);
    return;
  }
  if (msg.early != kNone) {
    const EarlyGrant& e = early_grants[msg.early];
    if (end <= e.limit && t < e.valid_until + tolerance) return;
  }
  uncovered(msg, s, end, t);
}

// Octets `s` of a message that no credit the sender held covers: which rule they break.
void InvariantChecker::Impl::uncovered(const MsgModel& msg, const DataSegment& s, std::uint64_t end,
                                       Time t) {
  if (!keeping()) return;
  if (end <= msg.held_limit && msg.discarded) {
    violate(t, rule::kCreditDiscarded,
            "octets " + std::to_string(s.offset) + ".." + std::to_string(end) + " of message " +
                std::to_string(s.message_id) + " sent " +
                format_duration(t - msg.held_valid_until) +
                " after ERROR (UNKNOWN_ASSOCIATION) for its association reached the sender, "
                "under the credit it had to discard (Grant Limit " +
                std::to_string(msg.held_limit) + ")" +
                (tolerance.ns != 0 ? " (tolerance " + format_duration(tolerance) + ")"
                                   : std::string()));
    return;
  }
  if (end <= msg.held_limit) {
    // Rule 3: "MUST NOT transmit under a grant after the Lifetime of that grant has elapsed"
    violate(t, rule::kGrantExpired,
            "octets " + std::to_string(s.offset) + ".." + std::to_string(end) + " of message " +
                std::to_string(s.message_id) + " sent " +
                format_duration(t - msg.held_valid_until) +
                " after the Lifetime of its grant (Grant Limit " + std::to_string(msg.held_limit) +
                ") had elapsed" +
                (reception_unseen ? std::string(", counted from the first data only that grant "
                                                "authorized")
                                  : std::string()) +
                (tolerance.ns != 0 ? " (tolerance " + format_duration(tolerance) + ")"
                                   : std::string()));
    return;
  }
  violate(t, rule::kSenderCredit,
          "octets " + std::to_string(s.offset) + ".." + std::to_string(end) + " of message " +
              std::to_string(s.message_id) + " sent with " +
              (t < msg.held_valid_until ? "Grant Limit " + std::to_string(msg.held_limit)
                                        : std::string("no grant within its Lifetime")));
}

// Rule 4 (RDCC-GRANT-05): no message faster than its Pacing Rate, its own grant's or its
// association's pool grant's.
// Rule 4's interval: the transmission time of ten Credit Units at the message's rate.
Duration InvariantChecker::Impl::pacing_window(std::uint32_t rate, const AssocModel& a) {
  return transmission_time(10ULL * a.credit_unit, rate);
}

// The octets that may start within one such interval, (t - interval, t]: ten Credit Units
// and `last`, the segment that starts at its end, t (its transmission lies after the
// interval). An observer away from the sender may see packets closer together than they were
// sent (set_timing_tolerance): the rate's worth of the tolerance more. (Eleven Credit Units
// before: a sender of segments shorter than a Credit Unit could average over eleven.)
std::uint64_t InvariantChecker::Impl::pacing_allowance(std::uint32_t rate, const AssocModel& a,
                                                       std::uint64_t last) const {
  return 10ULL * a.credit_unit + last + octets_in(tolerance, rate);
}

// Octets below the message's own Grant Limit that its own grant's pace would not admit now,
// while the association's pool credit covers them: the sender may have sent them under the
// pool (pool grants "cover all scheduled messages of the association"), for example just
// before it read the own grant, in the same instant. Counted as pool octets; true if so.
bool InvariantChecker::Impl::pool_instead(MsgModel& msg, AssocModel& a, const DataSegment& s,
                                          Time t) {
  if (msg.rate == 0 || a.credit_unit == 0 || msg.paced == kNone) return false;
  if (!(t < a.pool_valid_until + tolerance && a.pool_used + s.length <= a.pool_limit)) {
    return false;
  }
  const Duration window = pacing_window(msg.rate, a);
  std::uint64_t octets = s.length;
  for (const auto& [when, n] : pacing_windows[msg.paced]) {
    if (t - when < window) octets += n;
  }
  if (octets <= pacing_allowance(msg.rate, a, s.length)) return false;
  a.pool_used += s.length;
  msg.pool_sent_end = std::max(msg.pool_sent_end, s.offset + s.length);
  check_pool_pacing(msg, a, s, t);
  return true;
}

// "MUST NOT transmit the message faster than the Pacing Rate, averaged over any interval
// equal to the transmission time of ten Credit Units at that rate": octets whose
// transmission starts within one such interval may not exceed ten Credit Units plus the
// segment that starts at its end.
void InvariantChecker::Impl::check_pacing(MsgModel& msg, const AssocModel& a, const DataSegment& s,
                                          Time t) {
  if (msg.rate == 0 || a.credit_unit == 0) return;
  if (msg.paced == kNone) msg.paced = pacing_windows.take();
  paced(pacing_windows[msg.paced], msg.rate, a, s, t, "");
}

// The same for its octets sent under the pool grant, at the pool grant's Pacing Rate: each
// message no faster than it (rule 4 names "the message"; the sender may pace the pool's
// messages together, which keeps each within it). A new rate binds from its reception on.
void InvariantChecker::Impl::check_pool_pacing(MsgModel& msg, const AssocModel& a,
                                               const DataSegment& s, Time t) {
  if (a.pool_rate == 0 || a.credit_unit == 0) return;
  if (msg.pool_paced == kNone) msg.pool_paced = pacing_windows.take();
  auto& recent = pacing_windows[msg.pool_paced];
  if (msg.pool_rate != a.pool_rate) {
    recent.clear();
    msg.pool_rate = a.pool_rate;
  }
  paced(recent, a.pool_rate, a, s, t, " under its association's pool grant");
}

void InvariantChecker::Impl::paced(std::vector<std::pair<Time, std::uint32_t>>& recent,
                                   std::uint32_t rate, const AssocModel& a, const DataSegment& s,
                                   Time t, const char* under) {
  const Duration window = pacing_window(rate, a);
  recent.erase(recent.begin(), std::find_if(recent.begin(), recent.end(),
                                            [&](const auto& e) { return t - e.first < window; }));
  recent.emplace_back(t, s.length);
  std::uint64_t octets = 0;
  for (const auto& [when, n] : recent) octets += n;
  if (octets > pacing_allowance(rate, a, s.length) && keeping()) {
    violate(t, rule::kPacing,
            std::to_string(octets) + " octets of message " + std::to_string(s.message_id) + under +
                " within the transmission time of ten Credit Units at " + std::to_string(rate) +
                " Mbit/s");
  }
}

// "The sender retransmits CREDIT_REQUEST if it holds no credit for the message after a request
// timeout, initially twice the smoothed round-trip time and at least 100 microseconds, doubling
// on each retransmission up to 100 ms." (RDCC-GRANT-15, from below; docs/spec-notes.md 188.)
// A request is judged as the k-th retransmission of a run only where nothing can have started
// it anew: no input reached the sender (a datagram, its upper tester) from shortly before the
// request that precedes it on, the association sent no data since, and the message held no
// credit when that request went (a request while credit is held is no retransmission). The
// timeout is at least 100 us at first and doubles with each retransmission, so the k-th
// interval is at least min(100 us * 2^(k-1), 100 ms), whatever the round-trip time.
void InvariantChecker::Impl::request_backoff_rule(MsgModel& msg, const AssocModel& a,
                                                  const CreditRequest& req, Time t) {
  // An input sent this long before the previous request may have reached the sender after it:
  // a round trip of the tester's timing uncertainty.
  const Duration guard = tolerance * 2;
  const bool fresh =
      !msg.request_seen || (sender_input && *sender_input + guard >= msg.last_request) ||
      (a.last_data && *a.last_data >= msg.last_request) ||
      (msg.held_limit > msg.sent_end && msg.held_valid_until > msg.last_request) ||
      msg.pending != kNone || msg.early != kNone || a.pool_limit != 0 || t < msg.last_request;
  if (fresh) {
    msg.request_run = 0;
  } else {
    constexpr std::uint8_t kDoublings = 10;  // 100 us * 2^10 > 100 ms
    msg.request_run = std::min<std::uint8_t>(msg.request_run + 1, kDoublings + 1);
    const Duration bound = std::min(microseconds(100) * (std::int64_t{1} << (msg.request_run - 1U)),
                                    microseconds(100000));
    const Duration interval = t - msg.last_request;
    if (interval + tolerance < bound && keeping()) {
      violate(t, rule::kRequestBackoff,
              "CREDIT_REQUEST for message " + std::to_string(req.message_id) + " " +
                  std::to_string(interval.ns / 1000) + " us after the one before, retransmission " +
                  std::to_string(msg.request_run) +
                  " of a request nobody answered: its timeout is at least " +
                  std::to_string(bound.ns / 1000) +
                  " us (at least 100 us at first, doubling on each retransmission)");
    }
  }
  msg.request_seen = true;
  msg.last_request = t;
}

}  // namespace rdcc::checker
