// The receiver's rules of "Credit Requests and Grants" that are arithmetic: the Grant Limit a
// grant may carry (rules 1 and 5) and when a message is complete (MSG_DONE). Requests, grants,
// MSG_DONE, CANCEL and CREDIT_RETURN as they arrive and leave are the receiver's rule code,
// credit_requests_and_grants.cpp. Unit tests:
// reference/test/receiver/credit_requests_and_grants_test.cpp.
#pragma once

#include <algorithm>
#include <cstdint>

#include "receiver_credit_budget.hpp"

namespace rdcc::ref {

// The Grant Limit a grant would carry: `window` octets past what the sender owes nothing more
// for (MessageCredit::covered), never beyond the message (RDCC-GRANT-07: "The receiver MUST
// NOT grant beyond the message length"), and never below the limit already issued: a
// renewal restates at least the old limit ("it never reduces credit", RDCC-GRANT-11). A RoCEv2
// message's window ends where an RDMA message ends (`post_unit`, its length over their number):
// the sender "posts each one only when it holds credit for all of its octets" (Transport
// Bindings), so credit that ends inside one is credit it cannot use, and a receiver that waits
// for its data before granting the rest waits for ever (docs/spec-notes.md 174).
template <class M>
[[nodiscard]] std::uint64_t target_limit(const M& m, std::uint64_t window) {
  std::uint64_t end = m.covered() + window;
  if constexpr (requires { m.post_unit; }) {
    if (m.post_unit != 0 && end % m.post_unit != 0) end += m.post_unit - end % m.post_unit;
  }
  return std::max(m.limit, std::min(m.length, end));
}

// RDCC-GRANT-13: "When the receiver has received all octets of a message it sends MSG_DONE".
// `completion_octets` is the policy's rule hook (the message length by default).
[[nodiscard]] inline bool received_all(const MessageCredit& m, std::uint64_t completion_octets) {
  return m.received() >= std::min(m.length, completion_octets);
}

}  // namespace rdcc::ref
