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

#include <algorithm>
#include <cstdint>

namespace rdcc::ref {

// Hooks of the receiver: first window, Pacing Rate allocation, Lifetime, answers to a
// re-request, pool grants, U per association, BUDGET_EXHAUSTED, ...
class ReceiverPolicy {
 public:
  virtual ~ReceiverPolicy() = default;
};

// Hooks of the sender: transmission mode, segment size and bursts, Message IDs and nonces on
// re-establishment, capabilities advertised, CREDIT_RETURN. The defaults are the reference's
// own choices. The sender's rule code decides whether a choice is open at all (unscheduled
// mode only for a message no larger than U with no other one outstanding, no octet beyond
// the credit held or its Lifetime, the ten-Credit-Unit pacing window, ...) and clamps what a
// hook answers to it.
class SenderPolicy {
 public:
  virtual ~SenderPolicy() = default;

  // "Transmission Mode Selection": whether a message that may go in unscheduled mode does.
  // Asked only when unscheduled mode is allowed ("A sender MAY use scheduled mode for any
  // message").
  [[nodiscard]] virtual bool use_unscheduled(std::uint64_t /*length*/) const { return true; }

  // The octets of the next data segment: `sendable` octets may go now (credit, the post unit
  // and the message end already applied, and at most the ten Credit Units one pacing window
  // allows), `credit_unit` is the association's. The sender clamps the answer to [1, sendable].
  // Default: one Credit Unit.
  [[nodiscard]] virtual std::uint64_t segment_length(std::uint64_t credit_unit,
                                                     std::uint64_t sendable) const {
    return std::min(credit_unit, sendable);
  }

  // Whether paced segments are spaced by their own transmission time at the Pacing Rate
  // (default), or go in bursts that only rule 4's window (ten Credit Units in any interval of
  // their transmission time) bounds.
  [[nodiscard]] virtual bool space_segments() const { return true; }

  // The first Message ID of an association the sender re-establishes with a receiver, given
  // the next one the previous association would have used. Default: go on counting, so no
  // Message ID is ever used twice toward one receiver. The sender never goes below 1.
  [[nodiscard]] virtual std::uint64_t first_message_id_on_reestablishment(
      std::uint64_t next) const {
    return next;
  }

  // Whether re-establishing an association draws a new Sender Nonce (default) or keeps the
  // current one. Retransmissions of one ASSOC_REQUEST always keep it.
  [[nodiscard]] virtual bool fresh_nonce_on_reestablishment() const { return true; }

  // Whether SENDER_STATUS carries a Suggested Rate computed from the Service Hints (default),
  // or zero: "Suggested Rate zero means that the sender makes no suggestion."
  [[nodiscard]] virtual bool suggest_rate() const { return true; }

  // Whether the sender gives back credit it will not use with CREDIT_RETURN when the
  // application says so (default), or keeps silent and simply never transmits beyond the
  // New Limit.
  [[nodiscard]] virtual bool send_credit_return() const { return true; }
};

// Hooks of the CRN: Suggested Rate, report intervals, ...
class CrnPolicy {
 public:
  virtual ~CrnPolicy() = default;
};

}  // namespace rdcc::ref
