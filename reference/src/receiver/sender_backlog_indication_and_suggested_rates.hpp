// The receiver's rules of "Sender Backlog Indication and Suggested Rates": which Suggested Rate
// is in force. The rate it caps is Credit Allocation's rule 3 (SenderRate::cap,
// credit_allocation.hpp); what a SENDER_STATUS records is the receiver's rule code,
// sender_backlog_indication_and_suggested_rates.cpp. Unit tests:
// reference/test/receiver/sender_backlog_indication_and_suggested_rates_test.cpp.
#pragma once

#include <cstdint>

#include "rdcc/reference/time.hpp"

namespace rdcc::ref {

// The Suggested Rate in force, 0 for none: "A receiver ignores a Suggested Rate from a
// SENDER_STATUS received more than four default Grant Lifetimes ago". `suggested_rate` was
// received at `suggested_at`; `lifetime` is the default Grant Lifetime.
[[nodiscard]] inline std::uint32_t suggestion_in_force(std::uint32_t suggested_rate,
                                                       Time suggested_at, Time now,
                                                       Duration lifetime) {
  return suggested_rate != 0 && now - suggested_at <= lifetime * 4 ? suggested_rate : 0;
}

}  // namespace rdcc::ref
