// The receiver's rules of "Security Considerations": its bounds on the state a sender can make
// it keep. "Receivers SHOULD cap the credit and the number of pending messages per
// association." "Receivers MUST bound the number of associations and of pending messages, and
// SHOULD refuse new associations rather than evicting active ones." The caps themselves are
// configured (ReceiverConfig) and pass through the policy's rule hooks (association_cap,
// pending_cap); what a request over a cap is answered with is the rule code that asks
// (association_establishment.cpp: ERROR ASSOC_REFUSED; credit_requests_and_grants.cpp: ERROR
// BUDGET_EXHAUSTED). The credit cap per association bounds CreditLedger::fit
// (BudgetBounds::association_cap, receiver_credit_budget.hpp). Unit tests:
// reference/test/receiver/security_considerations_test.cpp.
#pragma once

#include <cstddef>

namespace rdcc::ref {

// Whether a new association is refused: `associations` are kept, at most `cap` ("SHOULD refuse
// new associations rather than evicting active ones"). Asked of all associations and of those
// of the request's host (ReceiverConfig::max_associations_per_host): requests from one host,
// with any source port, then cannot take the room of another host's sender.
[[nodiscard]] inline bool at_association_cap(std::size_t associations, std::size_t cap) {
  return associations >= cap;
}

// Whether a new message of an association with `pending` messages is refused, at most `cap`
// ("Receivers MUST bound the number of associations and of pending messages").
[[nodiscard]] inline bool at_pending_cap(std::size_t pending, std::size_t cap) {
  return pending >= cap;
}

}  // namespace rdcc::ref
