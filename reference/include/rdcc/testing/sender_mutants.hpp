// The sender's and the CRN's mutants (mutants.hpp) as policies: each fault is an override of
// one hook of SenderPolicy / CrnPolicy (policy.hpp), decided at construction, never a switch
// inside the rule code. Wire-only faults rewrite the outgoing message (rewrite_outgoing).
//
// The policy wraps `base` (a conforming variant's policy, or the reference's when null): every
// conforming choice is the base's, every hook a mutant of `mutants` names answers as the fault.
// With no mutant of the role in `mutants`, the result is `base` itself.
#pragma once

#include <memory>

#include "rdcc/reference/policy.hpp"
#include "rdcc/testing/mutants.hpp"

namespace rdcc::testing {

[[nodiscard]] std::shared_ptr<const ref::SenderPolicy> sender_policy(
    const MutantSet& mutants, std::shared_ptr<const ref::SenderPolicy> base = nullptr);

[[nodiscard]] std::shared_ptr<const ref::CrnPolicy> crn_policy(
    const MutantSet& mutants, std::shared_ptr<const ref::CrnPolicy> base = nullptr);

}  // namespace rdcc::testing
