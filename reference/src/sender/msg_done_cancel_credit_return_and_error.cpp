// "MSG_DONE, CANCEL, CREDIT_RETURN, and ERROR", for the sender: CREDIT_RETURN's New Limit, never
// below the octets already transmitted. (MSG_DONE, CANCEL and ERROR received are the rows of
// "Sender Message State Machine" and "Error Handling and Recovery".)
#include "sender_impl.hpp"

#include <algorithm>
#include <cstdint>

namespace rdcc::ref {

// CREDIT_RETURN: "New Limit MUST NOT be smaller than the octets already transmitted". The
// message never transmits beyond new_limit; whether the receiver is told is the policy's
// choice ("A sender that will not use credit it holds SHOULD return it with CREDIT_RETURN",
// "Credit Requests and Grants").
void Sender::Impl::return_credit(Msg& m, std::uint64_t new_limit, Time now) {
  Assoc& a = assoc_of(m);
  if (m.id == 0 || m.without_rdcc || a.phase != Phase::Established) return;
  // "New Limit MUST NOT be smaller than the octets already transmitted"; an RDMA message
  // already posted is not cut either.
  if (m.spec.post_unit != 0 && m.transmitted % m.spec.post_unit != 0) {
    new_limit = std::max(new_limit, m.unit().second);
  }
  const std::uint64_t held_limit = own_limit(m);
  if ((new_limit < m.transmitted && !policy->return_below_transmitted()) ||
      new_limit >= held_limit) {
    if (events.enabled())
      events.emit(now, "credit_return_skipped",
                  {{"message_id", m.id},
                   {"new_limit", new_limit},
                   {"transmitted", m.transmitted},
                   {"held", held_limit}});
    return;
  }
  // The message never transmits beyond new_limit; whether the receiver is told is the
  // policy's choice ("SHOULD return it with CREDIT_RETURN").
  m.ceiling = new_limit;
  if (policy->send_credit_return()) {
    CreditReturn r;
    r.message_id = m.id;
    r.new_limit = new_limit;
    send(a, r, now);
    stats.credit_returned += held_limit - new_limit;
  }
  if (events.enabled())
    events.emit(now, "credit_returned",
                {{"message_id", m.id},
                 {"new_limit", new_limit},
                 {"returned", held_limit - new_limit},
                 {"sent", policy->send_credit_return()}});
  refresh_state(m, now);
  update_backlog(now);
}

}  // namespace rdcc::ref
