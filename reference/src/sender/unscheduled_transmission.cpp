// "Unscheduled Transmission", for the sender: item 5, unscheduled transmission stops and the
// remainder converts to scheduled mode on a CONGESTION_REPORT (on_report) or a link pause.
// Items 1 to 3 are the actions of the row "NEW | length <= U ... | UNSCHED"
// (sender_message_state_machine.cpp); item 4, the DSCP, is emit's
// (credit_requests_and_grants.cpp).
#include "sender_impl.hpp"

namespace rdcc::ref {

void Sender::Impl::convert(Msg& m, const char* why, Time now) {
  if (events.enabled())
    events.emit(now, "unscheduled_converted",
                {{"message_id", m.id}, {"transmitted", m.transmitted}, {"reason", why}});
  fire(m, SenderTransition::UnschedStopped, now);
}

// "or a link-layer pause indication if the local interface supports PFC": every unscheduled
// message converts.
void Sender::Impl::on_link_pause(Time now) {
  for (auto& [h, m] : live) {
    if (m.state == MessageState::Unsched) convert(m, "link_pause", now);
  }
}

}  // namespace rdcc::ref
