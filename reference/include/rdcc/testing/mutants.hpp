// Mutants: named, deliberate faults in the reference Receiver, Sender and Crn. A conformance
// suite proves it can fail by catching each of them (ARCHITECTURE.md, "conformance").
//
// Each mutant breaks one rule of the spec at the one place in the reference that implements
// it, and only when switched on at start (a policy injected at construction:
// rdcc/testing/receiver_mutants.hpp, rdcc/testing/sender_mutants.hpp; `rdcc-conform --mutant
// NAME`, `rdcc receiver|sender|crn --mutant NAME`). Every mutant is
// observable on the wire: what the endpoint sends, or what it does with what it receives.
// With an empty MutantSet the endpoints are the reference.
#pragma once

#include <array>
#include <bitset>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "rdcc/codec/codec.hpp"

namespace rdcc::testing {

enum class Mutant : std::uint8_t {
  // Receiver.
  GrantBeyondLength,
  FinalNeverSet,
  FinalSetEarly,
  GrantLimitReduced,
  ZeroPacingRate,
  ReceiverSerialWithoutWraparound,
  ReceiverStaleAccepted,
  AssocIdNotIdempotent,
  NonceNotEchoed,
  UnsupportedTypeOutsideAssociation,
  UnsupportedTypeToSource,
  BudgetExcludesUnscheduled,
  BudgetNotEnforced,
  PoolGrantWithoutCapability,
  GrantUnknownEpoch,
  MisbehavingSenderGranted,
  AssociationCapIgnored,
  PendingCapIgnored,
  ReceiverVersionNotChecked,
  ReceiverLengthNotChecked,
  MsgDoneEarly,
  MsgDoneNever,
  NoMsgDoneAgain,
  UnknownAssociationSilent,
  SumOfUExceedsGu,
  ReceiverReportFromUnconfiguredCrn,
  ReceiverIgnoresReports,
  ReceiverIgnoresCongestion,
  ReportRaisesRate,
  SuggestedRateIgnored,
  GrantToRequestSource,
  RateSumExceedsLink,
  Rocev2AnyQueuePair,
  LowerGrantReclaims,
  BudgetPerAssociation,
  ReturnReleasesCrossedGrant,
  PoolFlagMismatch,
  AssociationRefusedSilently,
  NoCircuitBreaker,
  // Sender.
  SenderHonoursLowerLimit,
  SenderExceedsGrant,
  SenderIgnoresPacing,
  SenderUsesZeroRateGrant,
  SenderSerialWithoutWraparound,
  SenderStaleAccepted,
  SenderIgnoresLifetime,
  SenderIgnoresUnknownAssociation,
  SenderReusesMessageId,
  NoStartJitter,
  MultipleUnscheduled,
  UnscheduledDataBeforeRequest,
  UnscheduledSentNotLength,
  ScheduledWithoutCredit,
  SenderReportFromUnconfiguredCrn,
  SenderIgnoresReports,
  SenderAcceptsWrongNonce,
  SenderVersionNotChecked,
  CreditReturnBelowTransmitted,
  SenderStatusMissing,
  ClassDscpIgnored,
  // CRN.
  CrnDegreeFormula,
  CrnWrongSide,
  CrnNoFlowLimit,
  CrnNoPortLimit,
  CrnNonZeroAssociation,
  CrnBelowThreshold,
  CrnWrongPort,
  CrnDirectionSwapped,
  CrnSuggestedRateUndivided,
  CrnProtocolFixed,
  CrnDegree32Bit,
  CrnDepthAboveThreshold,
};

inline constexpr std::size_t kMutantCount =
    static_cast<std::size_t>(Mutant::CrnDepthAboveThreshold) + 1;

enum class MutantRole : std::uint8_t { Receiver, Sender, Crn };

[[nodiscard]] constexpr std::string_view to_string(MutantRole r) noexcept {
  switch (r) {
    case MutantRole::Receiver: return "receiver";
    case MutantRole::Sender: return "sender";
    case MutantRole::Crn: return "crn";
  }
  return "?";
}

struct MutantInfo {
  Mutant id;
  std::string_view name;  // the command-line name, e.g. "grant-beyond-length"
  MutantRole role;
  std::string_view description;  // what the faulty endpoint does
  std::string_view requirement;  // the rule it breaks, in the spec's words, and its section
};

// The table, in the order of the enum.
inline constexpr std::array<MutantInfo, kMutantCount> kMutants{{
    // ---- receiver ----------------------------------------------------------------------
    {Mutant::GrantBeyondLength, "grant-beyond-length", MutantRole::Receiver,
     "the grant that reaches the message length states a Grant Limit one Credit Unit beyond it",
     "The receiver MUST NOT grant beyond the message length (Credit Requests and Grants, rule 5)"},
    {Mutant::FinalNeverSet, "final-never-set", MutantRole::Receiver,
     "the FINAL flag is never set, not even in the grant that reaches the message length",
     "It sets the FINAL flag in the grant that reaches the message length (rule 5); FINAL: Grant "
     "Limit equals the message length (CREDIT_GRANT)"},
    {Mutant::FinalSetEarly, "final-set-early", MutantRole::Receiver,
     "every grant carries the FINAL flag, also those below the message length",
     "FINAL (Grant Limit equals the message length) (CREDIT_GRANT)"},
    {Mutant::GrantLimitReduced, "grant-limit-reduced", MutantRole::Receiver,
     "a grant that follows an earlier one for the same message states a Grant Limit one Credit "
     "Unit below the earlier one, keeping the FINAL flag of the window that reaches the length",
     "0x0002 FINAL (Grant Limit equals the message length) (CREDIT_GRANT); a lower Grant Limit "
     "alone is no fault: it only refreshes the Lifetime and Pacing Rate (Credit Requests and "
     "Grants, rule 1)"},
    {Mutant::ZeroPacingRate, "zero-pacing-rate", MutantRole::Receiver,
     "every grant carries Pacing Rate zero",
     "Receivers MUST issue a non-zero Pacing Rate (rule 4); Pacing Rate MUST NOT be zero "
     "(CREDIT_GRANT)"},
    {Mutant::ReceiverSerialWithoutWraparound, "receiver-serial-without-wraparound",
     MutantRole::Receiver,
     "sequence numbers are compared as plain integers, so a number that wrapped past 2^32 is "
     "taken for a stale one",
     "An endpoint MUST discard a message ... whose Sequence Number is not newer, in serial number "
     "arithmetic, than the newest one it has already processed (Common Header)"},
    {Mutant::ReceiverStaleAccepted, "receiver-stale-accepted", MutantRole::Receiver,
     "messages of an association are processed whatever their Sequence Number",
     "An endpoint MUST discard a message of an association whose Sequence Number is not newer "
     "than the newest one it has already processed (Common Header)"},
    {Mutant::AssocIdNotIdempotent, "assoc-id-not-idempotent", MutantRole::Receiver,
     "a retransmitted ASSOC_REQUEST with the same nonce creates a new association with a new "
     "Association ID",
     "A receiver MUST treat a retransmitted ASSOC_REQUEST with the same nonce as idempotent and "
     "return the same Association ID (Association Establishment)"},
    {Mutant::NonceNotEchoed, "nonce-not-echoed", MutantRole::Receiver,
     "ASSOC_ACCEPT carries the Sender Nonce with its lowest bit flipped",
     "The receiver answers with ASSOC_ACCEPT, which echoes the nonce (Association Establishment)"},
    {Mutant::UnsupportedTypeOutsideAssociation, "unsupported-type-outside-association",
     MutantRole::Receiver,
     "a message of unknown Type that belongs to no established association is answered with "
     "ERROR (UNSUPPORTED_TYPE) to its source",
     "the receiver MAY reply with ERROR (UNSUPPORTED_TYPE) to the address bound to that "
     "association, and it MUST NOT reply otherwise (Error Handling and Recovery)"},
    {Mutant::UnsupportedTypeToSource, "unsupported-type-to-source", MutantRole::Receiver,
     "a message of unknown Type naming an established association from another address is "
     "answered with ERROR (UNSUPPORTED_TYPE) to that other address",
     "MAY reply with ERROR (UNSUPPORTED_TYPE) to the address bound to that association, and it "
     "MUST NOT reply otherwise (Error Handling and Recovery)"},
    {Mutant::BudgetExcludesUnscheduled, "budget-excludes-unscheduled", MutantRole::Receiver,
     "scheduled credit is bounded by G instead of G_s: unscheduled octets announced and not yet "
     "received are not counted against the budget",
     "A receiver MUST maintain: sum over a of (Granted(a) + Unsched(a)) <= G (Receiver Credit "
     "Budget)"},
    {Mutant::BudgetNotEnforced, "budget-not-enforced", MutantRole::Receiver,
     "scheduled credit is granted without any bound from the budget",
     "A receiver MUST maintain: sum over a of (Granted(a) + Unsched(a)) <= G (Receiver Credit "
     "Budget)"},
    {Mutant::PoolGrantWithoutCapability, "pool-grant-without-capability", MutantRole::Receiver,
     "with every grant to a sender that did not advertise POOL, a pool grant (Message ID 0, POOL) "
     "with the same limit is sent as well",
     "A receiver MUST NOT use pool grants with a sender that did not advertise the POOL "
     "capability (Credit Requests and Grants)"},
    {Mutant::GrantUnknownEpoch, "grant-unknown-epoch", MutantRole::Receiver,
     "the Epoch of a message is not checked: a CREDIT_REQUEST with an Epoch the receiver does not "
     "recognize is granted",
     "The receiver MUST NOT grant credit to an association whose Epoch or Association ID it does "
     "not recognize (Credit Allocation, rule 4)"},
    {Mutant::MisbehavingSenderGranted, "misbehaving-sender-granted", MutantRole::Receiver,
     "data beyond the Grant Limit and outside the unscheduled window does not stop grants for "
     "the message",
     "The receiver ... MUST NOT grant further credit to the association for that message (Error "
     "Handling and Recovery)"},
    {Mutant::AssociationCapIgnored, "association-cap-ignored", MutantRole::Receiver,
     "the configured bound on the number of associations is not enforced",
     "Receivers MUST bound the number of associations (Security Considerations); a receiver that "
     "cannot admit a new association answers with ERROR (ASSOC_REFUSED)"},
    {Mutant::PendingCapIgnored, "pending-cap-ignored", MutantRole::Receiver,
     "the configured bound on pending messages per association is not enforced",
     "Receivers MUST bound the number ... of pending messages (Security Considerations)"},
    {Mutant::ReceiverVersionNotChecked, "receiver-version-not-checked", MutantRole::Receiver,
     "a message with a Version other than 1 is processed as if it were version 1",
     "Messages carrying an unknown Version MUST be discarded (Error Handling and Recovery)"},
    {Mutant::ReceiverLengthNotChecked, "receiver-length-not-checked", MutantRole::Receiver,
     "a message whose Length is smaller than its type's size, or larger than the datagram, is "
     "processed as if Length were right",
     "A message whose Length field is smaller than the size defined for its Type, or larger than "
     "the UDP payload, MUST be discarded (Error Handling and Recovery)"},
    {Mutant::MsgDoneEarly, "msg-done-early", MutantRole::Receiver,
     "MSG_DONE is sent as soon as half of the message's octets have arrived",
     "When the receiver has received all octets of a message it sends MSG_DONE (Credit Requests "
     "and Grants)"},
    {Mutant::MsgDoneNever, "msg-done-never", MutantRole::Receiver,
     "MSG_DONE is never sent when a message's last octet arrives (a request for the completed "
     "message still gets it)",
     "When the receiver has received all octets of a message it sends MSG_DONE (Credit Requests "
     "and Grants)"},
    {Mutant::NoMsgDoneAgain, "no-msg-done-again", MutantRole::Receiver,
     "a CREDIT_REQUEST for a completed message is ignored",
     "a receiver that receives CREDIT_REQUEST for a completed message answers with MSG_DONE "
     "again (Sender Message State Machine)"},
    {Mutant::UnknownAssociationSilent, "unknown-association-silent", MutantRole::Receiver,
     "a CREDIT_REQUEST for an unknown association is discarded without ERROR",
     "A receiver that receives a CREDIT_REQUEST for an unknown association replies with ERROR "
     "(UNKNOWN_ASSOCIATION) (Error Handling and Recovery)"},
    {Mutant::SumOfUExceedsGu, "sum-of-u-exceeds-gu", MutantRole::Receiver,
     "every association is given the configured U, whatever the sum of U over associations",
     "The receiver MUST choose U for each association so that the sum of U over all associations "
     "with a non-zero U does not exceed G_u (Unscheduled Transmission)"},
    {Mutant::ReceiverReportFromUnconfiguredCrn, "receiver-report-from-unconfigured-crn",
     MutantRole::Receiver, "CONGESTION_REPORTs from any source address are acted on",
     "An endpoint MUST ignore reports whose source address is not within the set of CRN "
     "addresses configured for the domain (On-Path Congestion Reporting)"},
    {Mutant::ReceiverIgnoresReports, "receiver-ignores-reports", MutantRole::Receiver,
     "a CONGESTION_REPORT naming a flow from a sender does not reduce the rate granted to it",
     "The receiver MUST reduce the rate it grants to a sender when it observes ... a "
     "CONGESTION_REPORT naming a flow from that sender (Credit Allocation, rule 2)"},
    {Mutant::ReceiverIgnoresCongestion, "receiver-ignores-congestion", MutantRole::Receiver,
     "the rate controller keeps a sender's rate whatever congestion it signals: ECN CE marks, "
     "reports and a round-trip time above the target never reduce it",
     "The receiver MUST reduce the rate it grants to a sender when it observes congestion on "
     "the path from that sender: ECN Congestion Experienced (CE) marks on data from that "
     "sender, ... (Credit Allocation, rule 2)"},
    {Mutant::ReportRaisesRate, "report-raises-rate", MutantRole::Receiver,
     "a CONGESTION_REPORT naming a flow from a sender resets its rate to the link capacity and "
     "lifts its Suggested Rate",
     "An endpoint MUST NOT increase any rate or credit in response to a CONGESTION_REPORT "
     "(On-Path Congestion Reporting)"},
    {Mutant::SuggestedRateIgnored, "suggested-rate-ignored", MutantRole::Receiver,
     "the Suggested Rate of SENDER_STATUS is ignored",
     "When the most recent SENDER_STATUS from a sender carries a non-zero Suggested Rate, the "
     "Pacing Rate granted to that sender MUST NOT exceed it (Credit Allocation, rule 3)"},
    {Mutant::GrantToRequestSource, "grant-to-request-source", MutantRole::Receiver,
     "a message of an association from another address moves the association there: grants go "
     "to that address",
     "receivers send all other messages only to the address bound when the association was "
     "accepted (Security Considerations; Association Establishment)"},
    {Mutant::RateSumExceedsLink, "rate-sum-exceeds-link", MutantRole::Receiver,
     "every grant carries the sender's full rate, without regard to the rates of the other live "
     "grants",
     "The sum of the Pacing Rates the receiver issues MUST NOT exceed the capacity of its access "
     "link (Credit Allocation, rule 1)"},
    {Mutant::Rocev2AnyQueuePair, "rocev2-any-queue-pair", MutantRole::Receiver,
     "RoCEv2 payload octets count toward the association's oldest RoCEv2 message still "
     "receiving, whatever queue pair they arrived on",
     "The receiver MUST be able to count the payload octets received on the queue pair ... since "
     "RDMA WRITE operations produce no completion at the responder (Transport Bindings)"},
    {Mutant::LowerGrantReclaims, "lower-grant-reclaims", MutantRole::Receiver,
     "a holder whose Pacing Rate is lowered for a new message is re-granted at a Grant Limit "
     "halfway between what it has delivered and its limit, and the receiver counts only that: the "
     "credit the sender still holds goes to other messages again",
     "A grant with a Grant Limit that is not larger than the limit the sender already holds for "
     "that message only refreshes the Lifetime and Pacing Rate; it never reduces credit (Credit "
     "Requests and Grants, rule 1); sum over a of (Granted(a) + Unsched(a)) <= G (Receiver "
     "Credit Budget)"},
    {Mutant::BudgetPerAssociation, "budget-per-association", MutantRole::Receiver,
     "the scheduled budget G_s bounds each association's credit alone, not the sum over "
     "associations: every association may hold G_s",
     "A receiver MUST maintain: sum over a of (Granted(a) + Unsched(a)) <= G (Receiver Credit "
     "Budget)"},
    {Mutant::ReturnReleasesCrossedGrant, "return-releases-crossed-grant", MutantRole::Receiver,
     "a CREDIT_RETURN that arrives right after a grant of its message (it left the sender before "
     "the grant reached it) releases the grant's credit above New Limit, which the sender takes "
     "when the grant arrives: the receiver grants that credit to another message as well",
     "sum over a of (Granted(a) + Unsched(a)) <= G (Receiver Credit Budget); a grant that "
     "reaches the sender after its CREDIT_RETURN is credit the sender holds (docs/spec-notes.md "
     "80, 187)"},
    {Mutant::PoolFlagMismatch, "pool-flag-mismatch", MutantRole::Receiver,
     "the POOL flag disagrees with the Message ID on every grant: a grant for a message carries "
     "POOL, a pool grant (Message ID 0) goes without it",
     "A grant with Message ID zero and the POOL flag set is a pool grant: it covers all scheduled "
     "messages of the association (Credit Requests and Grants); 0x0001 POOL (Message ID is zero "
     "and the grant covers the association's pool) (CREDIT_GRANT)"},
    {Mutant::AssociationRefusedSilently, "association-refused-silently", MutantRole::Receiver,
     "an ASSOC_REQUEST beyond the bound on associations is dropped: no ERROR (ASSOC_REFUSED) "
     "answers it",
     "A receiver that cannot admit a new association answers with ERROR (reason ASSOC_REFUSED) "
     "(Association Establishment)"},
    {Mutant::NoCircuitBreaker, "no-circuit-breaker", MutantRole::Receiver,
     "the circuit breaker never trips: U stays as it was whatever share of the unscheduled data "
     "is lost",
     "As a circuit breaker, a receiver that observes a loss rate of unscheduled data above a "
     "configured threshold ... MUST set U to zero for all associations (Congestion Control "
     "Considerations)"},
    // ---- sender ------------------------------------------------------------------------
    {Mutant::SenderHonoursLowerLimit, "sender-honours-lower-limit", MutantRole::Sender,
     "a newer grant with a smaller Grant Limit lowers the credit held for the message",
     "A grant with a Grant Limit that is not larger than the limit the sender already holds ... "
     "only refreshes the Lifetime and Pacing Rate; it never reduces credit (rule 1)"},
    {Mutant::SenderExceedsGrant, "sender-exceeds-grant", MutantRole::Sender,
     "transmits up to one Credit Unit beyond the Grant Limit it holds",
     "The sender MUST NOT transmit an octet at offset o of a message unless o is smaller than the "
     "Grant Limit held for that message (rule 2)"},
    {Mutant::SenderIgnoresPacing, "sender-ignores-pacing", MutantRole::Sender,
     "transmits granted octets at its line rate, whatever the Pacing Rate",
     "The sender MUST NOT transmit the message faster than the Pacing Rate (rule 4)"},
    {Mutant::SenderUsesZeroRateGrant, "sender-uses-zero-rate-grant", MutantRole::Sender,
     "a grant with Pacing Rate zero is used, at the line rate",
     "a sender that receives a grant with Pacing Rate zero MUST ignore it (CREDIT_GRANT)"},
    {Mutant::SenderSerialWithoutWraparound, "sender-serial-without-wraparound", MutantRole::Sender,
     "sequence numbers are compared as plain integers, so a number that wrapped past 2^32 is "
     "taken for a stale one",
     "An endpoint MUST discard a message ... whose Sequence Number is not newer, in serial number "
     "arithmetic, than the newest one it has already processed (Common Header)"},
    {Mutant::SenderStaleAccepted, "sender-stale-accepted", MutantRole::Sender,
     "messages of an association are processed whatever their Sequence Number",
     "An endpoint MUST discard a message of an association whose Sequence Number is not newer "
     "than the newest one it has already processed (Common Header)"},
    {Mutant::SenderIgnoresLifetime, "sender-ignores-lifetime", MutantRole::Sender,
     "grants never expire: octets are transmitted under a grant after its Lifetime",
     "The sender MUST NOT transmit under a grant after the Lifetime of that grant has elapsed "
     "(rule 3)"},
    {Mutant::SenderIgnoresUnknownAssociation, "sender-ignores-unknown-association",
     MutantRole::Sender, "ERROR (UNKNOWN_ASSOCIATION) carrying its Association ID is ignored",
     "A sender that receives ERROR (UNKNOWN_ASSOCIATION) carrying its Association ID MUST discard "
     "all credit held for that association, re-establish it, and request credit again "
     "(Association Establishment)"},
    {Mutant::SenderReusesMessageId, "sender-reuses-message-id", MutantRole::Sender,
     "every message of an association gets the same Message ID",
     "Message IDs MUST increase with each new message of an association and MUST NOT be reused "
     "within it (Credit Requests and Grants)"},
    {Mutant::NoStartJitter, "no-start-jitter", MutantRole::Sender,
     "unscheduled transmission starts at once, without the random delay",
     "MUST delay the first transmission by a random duration drawn uniformly from [0, J] "
     "microseconds (Unscheduled Transmission, item 1)"},
    {Mutant::MultipleUnscheduled, "multiple-unscheduled", MutantRole::Sender,
     "a new message no larger than U is sent unscheduled even while another is outstanding",
     "MUST NOT have more than one unscheduled message outstanding on an association "
     "(Unscheduled Transmission, item 3)"},
    {Mutant::UnscheduledDataBeforeRequest, "unscheduled-data-before-request", MutantRole::Sender,
     "the CREDIT_REQUEST of an unscheduled message is sent after its first data packet",
     "MUST send a CREDIT_REQUEST for the message no later than the first data packet "
     "(Unscheduled Transmission, item 2)"},
    {Mutant::UnscheduledSentNotLength, "unscheduled-sent-not-length", MutantRole::Sender,
     "the CREDIT_REQUEST of an unscheduled message carries Unscheduled Sent zero",
     "with the Unscheduled Sent field set to the message length (Unscheduled Transmission, item "
     "2)"},
    {Mutant::ScheduledWithoutCredit, "scheduled-without-credit", MutantRole::Sender,
     "a scheduled message transmits its first Credit Unit before it holds any credit",
     "the sender MUST send CREDIT_REQUEST and MUST NOT transmit any octet of the message until it "
     "holds credit for that octet (Transmission Mode Selection)"},
    {Mutant::SenderReportFromUnconfiguredCrn, "sender-report-from-unconfigured-crn",
     MutantRole::Sender, "CONGESTION_REPORTs from any source address are acted on",
     "An endpoint MUST ignore reports whose source address is not within the set of CRN "
     "addresses configured for the domain (On-Path Congestion Reporting)"},
    {Mutant::SenderIgnoresReports, "sender-ignores-reports", MutantRole::Sender,
     "a CONGESTION_REPORT addressed to it does not stop unscheduled transmission",
     "MUST stop unscheduled transmission and convert the remainder of the message to scheduled "
     "mode upon receiving a CONGESTION_REPORT addressed to it (Unscheduled Transmission, item 5)"},
    {Mutant::SenderAcceptsWrongNonce, "sender-accepts-wrong-nonce", MutantRole::Sender,
     "an ASSOC_ACCEPT that does not echo the current Sender Nonce establishes the association",
     "it binds the response to the request and prevents off-path injection of ASSOC_ACCEPT; a "
     "sender accepts a new Epoch only from an ASSOC_ACCEPT that echoes its current Sender Nonce "
     "(Association Establishment)"},
    {Mutant::SenderVersionNotChecked, "sender-version-not-checked", MutantRole::Sender,
     "a message with a Version other than 1 is processed as if it were version 1",
     "Messages carrying an unknown Version MUST be discarded (Error Handling and Recovery)"},
    {Mutant::CreditReturnBelowTransmitted, "credit-return-below-transmitted", MutantRole::Sender,
     "CREDIT_RETURN is sent with the New Limit asked for, even below the octets transmitted",
     "New Limit MUST NOT be smaller than the octets already transmitted (MSG_DONE, CANCEL, "
     "CREDIT_RETURN, and ERROR)"},
    {Mutant::SenderStatusMissing, "sender-status-missing", MutantRole::Sender,
     "no SENDER_STATUS is ever sent, whatever the unused credit held",
     "When the total credit the sender holds and has not yet used ... exceeds its Backlog "
     "Threshold, the sender MUST send SENDER_STATUS on each association that holds such credit "
     "(Sender Backlog Indication and Suggested Rates)"},
    {Mutant::ClassDscpIgnored, "class-dscp-ignored", MutantRole::Sender,
     "scheduled data of every Traffic Class carries the DSCP the domain configures for class 0",
     "The sender MUST mark the data packets of each class with the DSCP that the domain "
     "configures for that class (Traffic Classes and Pool Credit)"},
    // ---- CRN ---------------------------------------------------------------------------
    {Mutant::CrnDegreeFormula, "crn-degree-formula", MutantRole::Crn,
     "the Congestion Degree is computed as floor(255 * (Q - B_th) / Q_max)",
     "the Congestion Degree, computed as min(255, floor(255 * (Q - B_th) / (Q_max - B_th))) "
     "(On-Path Congestion Reporting)"},
    {Mutant::CrnWrongSide, "crn-wrong-side", MutantRole::Crn,
     "reports on scheduled traffic go to the sender and reports on unscheduled traffic to the "
     "receiver",
     "For scheduled traffic it sends the report to the destination address of the data packet "
     "(the receiver) ... For unscheduled traffic it sends the report to the source address (the "
     "sender) (On-Path Congestion Reporting)"},
    {Mutant::CrnNoFlowLimit, "crn-no-flow-limit", MutantRole::Crn,
     "the per-flow report interval is not enforced",
     "subject to a rate limit of at most one report per flow per configured report interval "
     "(On-Path Congestion Reporting)"},
    {Mutant::CrnNoPortLimit, "crn-no-port-limit", MutantRole::Crn,
     "the aggregate per-port report limit is not enforced",
     "subject to ... an aggregate limit per port (On-Path Congestion Reporting)"},
    {Mutant::CrnNonZeroAssociation, "crn-nonzero-association", MutantRole::Crn,
     "reports carry the Reporter ID as Association ID and Epoch 1",
     "Reports are sent to the RDCC UDP port with the Association ID and Epoch fields set to zero "
     "(On-Path Congestion Reporting; Common Header)"},
    {Mutant::CrnBelowThreshold, "crn-below-threshold", MutantRole::Crn,
     "reports are generated while Q equals B_th, not only while it exceeds it",
     "While Q exceeds B_th, the CRN MAY generate CONGESTION_REPORT (On-Path Congestion "
     "Reporting)"},
    {Mutant::CrnWrongPort, "crn-wrong-port", MutantRole::Crn,
     "reports are sent to the UDP port of the data packet instead of the RDCC port",
     "Reports are sent to the RDCC UDP port (On-Path Congestion Reporting)"},
    {Mutant::CrnDirectionSwapped, "crn-direction-swapped", MutantRole::Crn,
     "the Direction field says 2 in reports sent to the receiver and 1 in reports sent to the "
     "sender",
     "Direction is 1 when the report is sent to the receiver and 2 when it is sent to the sender "
     "(CONGESTION_REPORT)"},
    {Mutant::CrnSuggestedRateUndivided, "crn-suggested-rate-undivided", MutantRole::Crn,
     "the Suggested Rate is the queue's whole service rate, whatever the number of flows",
     "optionally, a Suggested Rate equal to the queue's service rate divided by the number of "
     "flows the CRN observes in the queue (On-Path Congestion Reporting)"},
    {Mutant::CrnProtocolFixed, "crn-protocol-fixed", MutantRole::Crn,
     "the Protocol field always says 17 (UDP), whatever the data packet's protocol",
     "Protocol, ports, and addresses are those of the data packet that triggered the report "
     "(CONGESTION_REPORT)"},
    {Mutant::CrnDegree32Bit, "crn-degree-32bit", MutantRole::Crn,
     "the Congestion Degree's 255 * (Q - B_th) is computed in 32 bits, so it wraps once Q - B_th "
     "exceeds 16 MiB",
     "the Congestion Degree, computed as min(255, floor(255 * (Q - B_th) / (Q_max - B_th))) "
     "(On-Path Congestion Reporting)"},
    {Mutant::CrnDepthAboveThreshold, "crn-depth-above-threshold", MutantRole::Crn,
     "the Queue Depth field carries Q - B_th (the excess over the threshold), not Q",
     "the queue occupancy and threshold, in octets (On-Path Congestion Reporting); Queue Depth "
     "and Queue Threshold are in octets (CONGESTION_REPORT)"},
}};

[[nodiscard]] constexpr const MutantInfo& info(Mutant m) noexcept {
  return kMutants[static_cast<std::size_t>(m)];
}

// Every mutant, in table order.
[[nodiscard]] constexpr std::span<const MutantInfo> all_mutants() noexcept {
  return kMutants;
}

// The mutant called `name` ("grant-beyond-length"), or nothing.
[[nodiscard]] constexpr const MutantInfo* find_mutant(std::string_view name) noexcept {
  for (const auto& m : kMutants) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

// The mutants of one role.
[[nodiscard]] std::vector<const MutantInfo*> mutants_of(MutantRole role);

// The faults an endpoint is started with; empty: the reference.
class MutantSet {
 public:
  MutantSet() = default;
  MutantSet(std::initializer_list<Mutant> ms) {
    for (Mutant m : ms) add(m);
  }
  void add(Mutant m) { bits_.set(static_cast<std::size_t>(m)); }
  [[nodiscard]] bool has(Mutant m) const { return bits_.test(static_cast<std::size_t>(m)); }
  [[nodiscard]] bool empty() const { return bits_.none(); }
  [[nodiscard]] std::size_t size() const { return bits_.count(); }
  friend bool operator==(const MutantSet&, const MutantSet&) = default;

 private:
  std::bitset<kMutantCount> bits_;
};

// For the version- and length-check mutants: decodes `datagram` as if its Version were 1
// (`ignore_version`) and its Length were right (`ignore_length`: a Length smaller than the
// type's size, or larger than the datagram, is taken as the datagram's size).
[[nodiscard]] Result<Message, DecodeError> decode_leniently(std::span<const std::byte> datagram,
                                                            bool ignore_version,
                                                            bool ignore_length);

}  // namespace rdcc::testing
