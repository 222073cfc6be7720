// The reference receiver's rules of "Error Handling and Recovery": the ERROR replies
// (UNKNOWN_ASSOCIATION, UNSUPPORTED_TYPE, BUDGET_EXHAUSTED, and those of the requests),
// undecodable messages discarded, a misbehaving sender granted no more.
//
// Receiver::Impl's member functions (receiver_impl.hpp); receiver.cpp dispatches to them. Section
// names in comments are the spec's headings; docs/reference.md maps each heading to its file.
#include "receiver_impl.hpp"

namespace rdcc::ref {

void Receiver::Impl::send_error(Assoc& a, ReasonCode reason, std::uint64_t message_id, Time now) {
  ErrorMessage e;
  e.reason = static_cast<std::uint16_t>(reason);
  e.message_id = message_id;
  send(a, e, now);
  ++stats.errors_sent;
}

// The budget cannot serve `m`, which waits. "If a receiver is about to run out of budget for
// an extended period, it MAY send ERROR (BUDGET_EXHAUSTED) to senders with pending requests"
// ("Error Handling and Recovery"): whether it does is the policy's choice; once per message
// until it is granted, and only to one that holds no credit (it is waiting for some).
void Receiver::Impl::out_of_budget(Assoc& a, Msg& m, Time now) {
  if (m.told_exhausted || m.accounted != 0 || !policy->tell_budget_exhausted()) return;
  m.told_exhausted = true;
  send_error(a, ReasonCode::BudgetExhausted, m.id, now);
}

// "Data received for a message beyond its Grant Limit and outside its unscheduled window
// indicates a misbehaving sender. The receiver MAY discard such data, MUST NOT grant further
// credit to the association for that message, and SHOULD log the event."
void Receiver::Impl::misbehaving(Assoc& a, Msg& m, std::uint64_t data_end, Time now) {
  if (m.state == MsgState::Misbehaving) return;
  if (events.enabled())
    events.emit(now, "misbehaving_sender",
                {{"association_id", a.id},
                 {"message_id", m.id},
                 {"limit", m.limit},
                 {"data_end", data_end}});
  stop_waiting(a, m);
  m.state = MsgState::Misbehaving;
}

// A datagram that did not decode: discarded. "Messages with an unknown Type MUST be
// discarded".
void Receiver::Impl::on_undecodable(const Address& from, const DecodeError& e, Time now) {
  if (e.code == DecodeErrorCode::UnknownType) {
    ++stats.unknown_type_discarded;
    // "if the message belongs to an established association, the receiver MAY reply
    // with ERROR (UNSUPPORTED_TYPE) to the address bound to that association, and it
    // MUST NOT reply otherwise."
    if (e.header) {
      // Only to a peer that has answered: a message of unknown Type may be 16 octets, the
      // ERROR is 28 (docs/spec-notes.md, "Parameter Updates go to a peer that has answered").
      if (Assoc* a = association_of(from, *e.header)) {
        if (a->peer_heard) send_error(*a, ReasonCode::UnsupportedType, 0, now);
      } else if (policy->answer_unsupported_type_unbound(
                     assocs.contains(e.header->association_id))) {
        ErrorMessage err;
        err.header.association_id = e.header->association_id;
        err.header.epoch = e.header->epoch;  // its own: ours is no stranger's (answer_unknown_...)
        err.reason = static_cast<std::uint16_t>(ReasonCode::UnsupportedType);
        send_to(from, Message{err}, now);
      }
    }
  } else {
    ++stats.malformed_discarded;
  }
  if (events.enabled())
    events.emit(now, "discarded", {{"from", from.to_string()}, {"reason", e.describe()}});
}

// "A receiver that receives a CREDIT_REQUEST for an unknown association replies with ERROR
// (UNKNOWN_ASSOCIATION)". The reply restates the request's Association ID and Epoch: the
// receiver's Epoch is one of the values that limit blind injection ("Security
// Considerations"), and a source with no association learns none of it (docs/spec-notes.md,
// "What a receiver tells a source that has no association"). The sender of an association
// the receiver forgot reads its own Epoch back, as before the receiver forgot it.
void Receiver::Impl::answer_unknown_association(const Address& from, const Header& h, Time now) {
  if (!policy->answer_unknown_association()) return;
  ErrorMessage e;
  e.header.association_id = h.association_id;
  e.header.epoch = h.epoch;
  e.reason = static_cast<std::uint16_t>(ReasonCode::UnknownAssociation);
  send_to(from, Message{e}, now);
  ++stats.errors_sent;
}

}  // namespace rdcc::ref
