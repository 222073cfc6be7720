// The reference receiver's rules of "Sender Backlog Indication and Suggested Rates": a
// SENDER_STATUS received: its Suggested Rate recorded (which one is in force:
// sender_backlog_indication_and_suggested_rates.hpp).
//
// Receiver::Impl's member functions (receiver_impl.hpp); receiver.cpp dispatches to them. Section
// names in comments are the spec's headings; docs/reference.md maps each heading to its file.
#include "receiver_impl.hpp"

namespace rdcc::ref {

void Receiver::Impl::on_sender_status(Assoc& a, const SenderStatus& status, Time now) {
  ++stats.sender_status_received;
  a.suggested_rate = policy->suggested_rate(status.suggested_rate);
  a.suggested_at = now;
  aimd_wake(a);
  if (events.enabled())
    events.emit(now, "sender_status",
                {{"association_id", a.id},
                 {"suggested_rate", status.suggested_rate},
                 {"congestion_level", status.congestion_level}});
}

}  // namespace rdcc::ref
