// The reference receiver's rules of "Sender Message State Machine": a CREDIT_REQUEST for a
// finished message: MSG_DONE again for a completed one, nothing for a cancelled one; the finished
// messages remembered for it.
//
// Receiver::Impl's member functions (receiver_impl.hpp); receiver.cpp dispatches to them. Section
// names in comments are the spec's headings; docs/reference.md maps each heading to its file.
#include "receiver_impl.hpp"

namespace rdcc::ref {

// A CREDIT_REQUEST for a message that finished (`octets` received; nothing for a cancelled
// one). "When the receiver has received all octets of a message it sends MSG_DONE": a
// cancelled message never completed; a request for it (a duplicate the network delayed
// past the CANCEL) is discarded.
void Receiver::Impl::answer_finished(Assoc& a, std::uint64_t message_id,
                                     const std::optional<std::uint64_t>& octets, Time now) {
  if (!octets) {
    if (events.enabled())
      events.emit(now, "request_for_cancelled_message",
                  {{"association_id", a.id}, {"message_id", message_id}});
    return;
  }
  // "a receiver that receives CREDIT_REQUEST for a completed message answers with
  // MSG_DONE again"
  if (!policy->answer_done_again()) return;
  MsgDone d;
  d.message_id = message_id;
  d.octets_received = *octets;
  send(a, d, now);
  ++stats.msg_done_sent;
}

void Receiver::Impl::remember_done(Assoc& a, const Msg& m, std::optional<std::uint64_t> octets) {
  a.done[m.id] = octets;
  const Finished f{m.id, m.binding,
                   m.binding == BindingKind::Opaque ? m.binding_value : m.rocev2.destination_qpn};
  a.done_identities[{f.binding, f.key}] = f.id;
  if (a.done_order.size() < kDoneMemory) {
    a.done_order.push_back(f);
    return;
  }
  const Finished& oldest = a.done_order[a.done_oldest];
  a.done.erase(oldest.id);
  // Only if no later finished message took the identity since.
  if (auto it = a.done_identities.find({oldest.binding, oldest.key});
      it != a.done_identities.end() && it->second == oldest.id) {
    a.done_identities.erase(it);
  }
  a.done_order[a.done_oldest] = f;
  a.done_oldest = (a.done_oldest + 1) % kDoneMemory;
}

// Data that names no live message but a finished one of an association of its host: late data
// (a resend that crossed the octets it replaced, or the original that crossed its resend).
bool Receiver::Impl::names_finished(const DataObservation& d) const {
  for (const std::uint32_t id : assocs.of_host(d.from)) {
    if (assocs.at(id).done_identities.contains({d.binding, d.key})) return true;
  }
  return false;
}

}  // namespace rdcc::ref
