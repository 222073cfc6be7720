// Behaviour policies: the choices the spec leaves to an implementation ("The choice of
// algorithm is local", "A sender MAY use scheduled mode for any message", ...), injected into
// an endpoint at construction. The default policy of each role is the reference's own choice;
// a conforming variant (variants.hpp) is another policy that the spec equally permits.
//
// A policy decides; the endpoint's rule code still enforces every MUST around the decision
// (the budget G, Grant Limits within the message length, the pacing bound, ...), so no policy
// can make an endpoint break a rule. Policies are stateless: every hook is const and gets
// what it decides from its arguments.
#pragma once

namespace rdcc::ref {

// Hooks of the receiver: first window, Pacing Rate allocation, Lifetime, answers to a
// re-request, pool grants, U per association, BUDGET_EXHAUSTED, ...
class ReceiverPolicy {
 public:
  virtual ~ReceiverPolicy() = default;
};

// Hooks of the sender: transmission mode, segment size and bursts, Message IDs and nonces on
// re-establishment, capabilities advertised, ...
class SenderPolicy {
 public:
  virtual ~SenderPolicy() = default;
};

// Hooks of the CRN: Suggested Rate, report intervals, ...
class CrnPolicy {
 public:
  virtual ~CrnPolicy() = default;
};

}  // namespace rdcc::ref
