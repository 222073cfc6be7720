// The reference receiver's rules of "Common Header": Sequence Numbers: a message not newer than
// the newest processed from the association is discarded.
//
// Receiver::Impl's member functions (receiver_impl.hpp); receiver.cpp dispatches to them. Section
// names in comments are the spec's headings; docs/reference.md maps each heading to its file.
#include "receiver_impl.hpp"

namespace rdcc::ref {

// "An endpoint MUST discard a message of an association whose Sequence Number is not
// newer ... than the newest one it has already processed from the same originator"
bool Receiver::Impl::fresh(Assoc& a, const Header& h, Time now) {
  if (a.have_seq_in && !policy->sequence_fresh(h.sequence_number, a.newest_seq_in)) {
    ++stats.stale_discarded;
    if (events.enabled())
      events.emit(now, "stale_discarded",
                  {{"association_id", a.id},
                   {"sequence_number", h.sequence_number},
                   {"newest", a.newest_seq_in}});
    return false;
  }
  a.have_seq_in = true;
  a.newest_seq_in = h.sequence_number;
  a.last_activity = now;
  a.peer_heard = true;
  start_parameter_update(a, now);  // one it has not acknowledged yet
  return true;
}

}  // namespace rdcc::ref
