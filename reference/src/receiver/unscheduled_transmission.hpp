// The receiver's rules of "Unscheduled Transmission" that are arithmetic: when the unscheduled
// reservation of a message is released. Choosing U within G_u, accepting the unscheduled
// octets a CREDIT_REQUEST announces and the reservation's release are the receiver's rule code,
// unscheduled_transmission.cpp (the sum of U in force is counted by CreditLedger,
// receiver_credit_budget.hpp). Unit tests:
// reference/test/receiver/unscheduled_transmission_test.cpp.
#pragma once

#include "rdcc/reference/time.hpp"

namespace rdcc::ref {

// "The receiver releases the unscheduled reservation of a message when the announced octets
// have arrived, or when J plus the default Grant Lifetime plus 2 * D_max has elapsed after it
// received the CREDIT_REQUEST" ("Unscheduled Transmission").
[[nodiscard]] inline Time unscheduled_release_at(Time requested, Duration jitter, Duration lifetime,
                                                 Duration d_max) {
  return requested + jitter + lifetime + d_max * 2;
}

}  // namespace rdcc::ref
