// "Error Handling and Recovery": where a receiver may send ERROR (RDCC-ERR-08, RDCC-ERR-10), what
// a refusal releases, and the credit a sender must discard (RDCC-ASSOC-04).
#include "impl.hpp"

namespace rdcc::checker {

// Where the receiver may send ERROR ("Error Handling and Recovery"): UNSUPPORTED_TYPE only on
// an established association (to its bound address: the pair's sender), UNKNOWN_ASSOCIATION
// only in answer to a message of the sender naming that Association ID.
void InvariantChecker::Impl::error_rules(const AssocModel& a, const ErrorMessage& e, Time t) {
  const auto reason = static_cast<ReasonCode>(e.reason);
  if (reason == ReasonCode::UnsupportedType && !a.established && keeping()) {
    violate(t, rule::kUnsupportedTypeReply,
            "ERROR (UNSUPPORTED_TYPE) to a sender with no association accepted with this "
            "Association ID: " +
                format_line(e));
  } else if (reason == ReasonCode::UnknownAssociation && !a.requested && keeping()) {
    violate(t, rule::kUnknownAssociationReply,
            "ERROR (UNKNOWN_ASSOCIATION) with no message from the sender naming this "
            "Association ID before it: " +
                format_line(e));
  }
}

// A request the receiver refused ("Transport Bindings", "Security Considerations"): it holds
// nothing for that message, so its window and length are forgotten.
void InvariantChecker::Impl::refused(std::uint32_t ai, const ErrorMessage& e, Time t) {
  const auto reason = static_cast<ReasonCode>(e.reason);
  if (reason == ReasonCode::UnknownAssociation) {
    forget_association(ai, e.header.epoch, t);
    return;
  }
  if (reason != ReasonCode::UnsupportedBinding && reason != ReasonCode::MessageTooLarge &&
      reason != ReasonCode::BudgetExhausted) {
    return;
  }
  const std::uint32_t mi = find_msg(ai, e.message_id);
  if (mi == kNone || msgs[mi].limit_sent != 0) return;
  msgs[mi].window = 0;
  msgs[mi].length_known = false;
  refresh(mi, t);
}

// "A sender that receives ERROR (UNKNOWN_ASSOCIATION) carrying its Association ID MUST
// discard all credit held for that association": every grant of its messages and its pool
// lapses at `at` (data after it, beyond the timing tolerance, breaks RDCC-ASSOC-04), and what
// was pending is dropped. Credit comes again only from grants of the association it
// re-establishes.
void InvariantChecker::Impl::discard_sender_credit(std::uint32_t ai, Time at) {
  AssocModel& a = assocs[ai];
  if (!a.sender_accepted) return;
  // Data of the same instant is not after it: a sender may have sent it (a burst) before it
  // read the ERROR; an observer that does not see the sender read it allows the slack.
  const Time t = at + Duration{1} + discard_slack;
  a.pool_valid_until = std::min(a.pool_valid_until, t);
  a.pool_pending = false;
  a.pool_pending_limit = 0;
  a.pool_pending_life = Duration{};
  for (const auto& [key, index] : msg_index) {
    if (key.owner != ai) continue;
    MsgModel& msg = msgs[index];
    if (msg.pending != kNone) {
      // A grant no data has yet shown received may have reached the sender before the ERROR
      // (it was sent first): the sender held that credit too, for its Lifetime from when it
      // read it and until it read the ERROR (the slack covers both reads).
      const PendingGrant& p = pending_grants[msg.pending];
      if (p.from <= at) {
        msg.held_limit = std::max(msg.held_limit, p.limit);
        msg.held_valid_until = std::max(msg.held_valid_until, p.from + p.life + (t - at));
      }
      pending_grants.give(msg.pending);
      msg.pending = kNone;
    }
    if (msg.held_valid_until > t) {
      msg.held_valid_until = t;
      msg.discarded = true;
    }
    if (msg.early != kNone) {
      EarlyGrant& e = early_grants[msg.early];
      e.valid_until = std::min(e.valid_until, t);
    }
  }
}

}  // namespace rdcc::checker
