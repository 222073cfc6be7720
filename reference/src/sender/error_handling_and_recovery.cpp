// "Error Handling and Recovery", for the sender: what each ERROR reason does (UNKNOWN_ASSOCIATION
// re-establishes, ASSOC_REFUSED aborts, BUDGET_EXHAUSTED keeps the request outstanding, ...).
#include "sender_impl.hpp"

namespace rdcc::ref {

void Sender::Impl::on_error(Assoc& a, const ErrorMessage& e, Time now) {
  ++stats.errors_received;
  const auto reason = static_cast<ReasonCode>(e.reason);
  if (reason == ReasonCode::UnknownAssociation && policy->honour_unknown_association()) {
    // Exempt from the sequence check. "carrying its Association ID"
    if (a.phase != Phase::Established || e.header.association_id != a.association_id) {
      if (events.enabled())
        events.emit(now, "discarded",
                    {{"type", "ERROR"},
                     {"reason", "unknown_association_not_ours"},
                     {"association_id", e.header.association_id}});
      return;
    }
    begin_reestablishment(a, "unknown_association", now);
    return;
  }
  if (reason == ReasonCode::AssocRefused && a.phase == Phase::Connecting) {
    // The answer to our ASSOC_REQUEST carries nothing to check it against (no nonce), so one
    // datagram from anyone would end the messages: the association procedure goes on, and an
    // ASSOC_ACCEPT echoing our nonce still wins; the messages are aborted only when its
    // attempts end unaccepted (assoc_timeout; docs/spec-notes.md, "ASSOC_REFUSED ends the
    // association procedure, not the first time it arrives").
    a.refused = true;
    if (events.enabled())
      events.emit(now, "association_refused_noted", {{"receiver", a.receiver.to_string()}});
    return;
  }
  if (!accept_header(a, e, now)) return;
  if (events.enabled())
    events.emit(now, "error", {{"reason", e.reason}, {"message_id", e.message_id}});
  switch (reason) {
    case ReasonCode::AssocRefused:
      if (Msg* m = find_msg(a, e.message_id)) {
        abort(*m, e.reason, now);
      } else if (e.message_id == 0) {
        for_each_msg(a, [&](Msg& m2) { abort(m2, e.reason, now); });
        drop_association_credit(a, now);
        set_phase(a, Phase::Idle);
      }
      break;
    case ReasonCode::MessageTooLarge:
    case ReasonCode::ApplicationAbort:
    case ReasonCode::UnsupportedBinding:
      if (Msg* m = find_msg(a, e.message_id)) abort(*m, e.reason, now);
      break;
    case ReasonCode::BudgetExhausted:
      // "WAITING | ERROR BUDGET_EXHAUSTED | keep the request outstanding | WAITING": the
      // retransmission timer keeps running.
      if (Msg* m = find_msg(a, e.message_id); m != nullptr && m->state == MessageState::Waiting) {
        fire(*m, SenderTransition::WaitingBudgetExhausted, now);
      }
      break;
    default:
      // Other reasons change nothing at the sender.
      break;
  }
}

}  // namespace rdcc::ref
