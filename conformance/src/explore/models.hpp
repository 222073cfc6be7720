// The models explore draws its stimuli from, one per role the tester plays against
// (explore.hpp, docs/explore.md): program.cpp holds the receiver's, sender_model.cpp the
// sender's, crn_model.cpp the CRN's.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "rdcc/codec/format.hpp"
#include "rdcc/conformance/explore.hpp"

namespace rdcc::conformance::explore_model {

// A drawn stimulus's needs in increasing order, each once (shrinking walks them backwards).
inline Stimulus with_sorted_needs(Stimulus s) {
  std::sort(s.needs.begin(), s.needs.end());
  s.needs.erase(std::unique(s.needs.begin(), s.needs.end()), s.needs.end());
  return s;
}

// The stimuli of one episode against a sender IUT: the tester plays its receiver.
[[nodiscard]] Program sender_program(std::uint64_t seed, std::size_t episode, std::size_t count);
// The stimuli of one episode against a CRN IUT: the tester fills its queue (crn_model.cpp).
[[nodiscard]] Program crn_program(std::uint64_t seed, std::size_t episode, std::size_t count);

}  // namespace rdcc::conformance::explore_model
