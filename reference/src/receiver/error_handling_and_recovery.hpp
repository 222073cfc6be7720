// The receiver's rules of "Error Handling and Recovery" that are arithmetic: data beyond the
// credit. The ERROR replies, BUDGET_EXHAUSTED and what a misbehaving sender is then refused
// are the receiver's rule code, error_handling_and_recovery.cpp. Unit tests:
// reference/test/receiver/error_handling_and_recovery_test.cpp.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>

namespace rdcc::ref {

// Whether an observation ending at `data_end` lies beyond `held` (the Grant Limit or
// unscheduled window the sender holds), and by how many of its octets: RDCC-ERR-01..03, "Data
// received for a message beyond its Grant Limit and outside its unscheduled window indicates a
// misbehaving sender". Nothing when it is within. `scheduled`: the observation carries
// scheduled octets (the opaque binding's offsets always say where data lies; RoCEv2's counters
// only say so when octets above the window arrive).
[[nodiscard]] inline std::optional<std::uint64_t> beyond_credit(std::uint64_t held,
                                                                std::uint64_t data_end,
                                                                std::uint32_t octets,
                                                                bool scheduled) {
  if (data_end <= held || !scheduled) return std::nullopt;
  return std::min<std::uint64_t>(data_end - held, octets);
}

}  // namespace rdcc::ref
