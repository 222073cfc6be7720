// The receiver's mutants (rdcc/testing/mutants.hpp) as a policy: each one is a rule hook of
// ReceiverPolicy answered wrongly, or a rewrite of an outgoing message (rewrite_outgoing), so
// the receiver's rule code has no fault switch and its public configuration no testing type.
#pragma once

#include <memory>

#include "rdcc/reference/policy.hpp"
#include "rdcc/reference/receiver.hpp"
#include "rdcc/testing/mutants.hpp"

namespace rdcc::testing {

// The policy of a receiver started with `mutants` (those of other roles are ignored): `base`
// (a conforming variant's policy; null: the reference's) with the mutants' faults on top.
// `config` is the receiver's (the Credit Unit a grant mutant adds or takes away). With no
// receiver mutant in the set, `base` itself.
[[nodiscard]] std::shared_ptr<const ref::ReceiverPolicy> receiver_policy(
    const MutantSet& mutants, const ref::ReceiverConfig& config,
    std::shared_ptr<const ref::ReceiverPolicy> base = nullptr);

}  // namespace rdcc::testing
