// "Transmission Mode Selection", for the sender: each new message's Message ID, and unscheduled
// or scheduled mode.
#include "sender_impl.hpp"

#include <cstdint>

namespace rdcc::ref {

void Sender::Impl::select_mode(Msg& m, Time now) {
  Assoc& a = assoc_of(m);
  set_id(m, a.next_message_id);
  a.next_message_id += policy->message_id_step();
  m.rto = initial_rto(a);
  const std::uint32_t u = a.params.unscheduled_limit;
  const bool unscheduled = config.allow_unscheduled && !m.spec.force_scheduled && u > 0 &&
                           m.spec.length <= u &&
                           (!a.unsched_outstanding || !policy->one_unscheduled_outstanding()) &&
                           now >= a.unsched_blocked_until && policy->use_unscheduled(m.spec.length);
  if (unscheduled) {
    fire(m, SenderTransition::NewUnscheduled, now);
    if (m.spec.length == 0) drained(m, now);
    return;
  }
  fire(m, SenderTransition::NewScheduled, now);
  refresh_state(m, now);
}

}  // namespace rdcc::ref
