// "CREDIT_REQUEST", for the sender: what each field of its CREDIT_REQUEST carries, the Deadline
// relative to the request's transmission. When a request is sent is "Credit Requests and
// Grants"'s (credit_requests_and_grants.cpp).
#include "sender_impl.hpp"

#include <algorithm>
#include <cstdint>

namespace rdcc::ref {

// The CREDIT_REQUEST for m sent at `now`.
CreditRequest Sender::Impl::credit_request(const Msg& m, Time now) const {
  CreditRequest r;
  r.message_id = m.id;
  r.message_length = m.spec.length;
  r.unscheduled_sent = m.announced_unsched;
  // We send the values a receiver must treat them as, never out-of-range ones.
  r.traffic_class = m.cls();
  r.weight = m.weight();
  r.service_hint = static_cast<std::uint8_t>(m.spec.service_hint);
  r.binding_kind = static_cast<std::uint8_t>(m.spec.binding);
  r.binding_value = binding_value(m);
  if (m.spec.deadline_us != 0) {
    // "relative to transmission of the request": what is left of it now; a passed deadline
    // is sent as 1 us (zero would mean "none").
    const std::int64_t left =
        static_cast<std::int64_t>(m.spec.deadline_us) - (now - m.submitted).micros();
    r.deadline = static_cast<std::uint32_t>(std::max<std::int64_t>(left, 1));
  }
  return r;
}

}  // namespace rdcc::ref
