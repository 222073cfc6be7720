// "Common Header", for the sender: the Association ID, Epoch and Sequence Number of every
// message it sends, and the check of those of every message it receives (accept_header).
#include "sender_impl.hpp"

#include <string>
#include <utility>

namespace rdcc::ref {

void Sender::Impl::send(Assoc& a, Message m, Time now) {
  Header& h = header_of(m);
  if (!std::holds_alternative<AssocRequest>(m)) {
    h.association_id = a.association_id;
    h.epoch = a.epoch;
  }
  // "Incremented by one for each message the originator sends on the association ...,
  // including retransmissions." Never reset, so it never goes backwards for a receiver.
  h.sequence_number = a.next_seq++;
  policy->rewrite_outgoing(m);
  out.push(a.receiver, config.control_dscp, m);
  if (events.enabled()) {
    json f = to_json(m);
    f["to"] = a.receiver.to_string();
    events.emit(now, "tx", std::move(f));
  }
}

// Association ID, Epoch and "MUST discard a message of an association whose Sequence
// Number is not newer, in serial number arithmetic, than the newest one it has already
// processed from the same originator on that association."
bool Sender::Impl::accept_header(Assoc& a, const Message& msg, Time now) {
  const Header& h = header_of(msg);
  const std::string type{info(type_of(msg)).name};
  if (a.phase != Phase::Established || h.association_id != a.association_id || h.epoch != a.epoch) {
    ++stats.wrong_association;
    if (events.enabled())
      events.emit(now, "discarded",
                  {{"type", type},
                   {"reason", "wrong_association"},
                   {"association_id", h.association_id},
                   {"epoch", h.epoch}});
    return false;
  }
  const bool newer = !a.newest_seq || policy->newer_sequence(h.sequence_number, *a.newest_seq);
  if (!newer) {
    ++stats.stale_discarded;
    if (events.enabled())
      events.emit(now, "discarded",
                  {{"type", type},
                   {"reason", "stale_sequence"},
                   {"sequence_number", h.sequence_number},
                   {"newest", *a.newest_seq}});
    return false;
  }
  a.newest_seq = h.sequence_number;
  return true;
}

}  // namespace rdcc::ref
