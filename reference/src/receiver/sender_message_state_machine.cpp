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

void Receiver::Impl::remember_done(Assoc& a, std::uint64_t id,
                                   std::optional<std::uint64_t> octets) {
  a.done[id] = octets;
  if (a.done_order.size() < kDoneMemory) {
    a.done_order.push_back(id);
    return;
  }
  a.done.erase(a.done_order[a.done_oldest]);
  a.done_order[a.done_oldest] = id;
  a.done_oldest = (a.done_oldest + 1) % kDoneMemory;
}

}  // namespace rdcc::ref
