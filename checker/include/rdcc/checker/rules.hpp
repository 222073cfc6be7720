// The rules the InvariantChecker asserts, each named by its requirement catalog ID
// (conformance/catalog/requirements.json). The catalog holds each rule's text, section, level
// and role; the simulator, the conformance suite, the fuzzers and `rdcc pcap check` all name a
// violation by this ID and read the rest from the catalog, so no sentence of the spec is copied
// into code. rules_test (conformance/test) holds this table to the catalog.
#pragma once

#include <cstdint>
#include <string_view>

namespace rdcc::checker {

// Who a violation of a rule is held against.
enum class Party : std::uint8_t { Sender, Receiver };

// Whom a rule binds: one role, or whichever endpoint originated the message (catalog role
// "any", e.g. the Sequence Number rule of "Common Header").
enum class Binds : std::uint8_t { Sender, Receiver, Originator };

namespace rule {
inline constexpr std::string_view kSequence = "RDCC-FMT-06";
inline constexpr std::string_view kBudget = "RDCC-BUDGET-01";
inline constexpr std::string_view kSenderCredit = "RDCC-GRANT-03";
inline constexpr std::string_view kGrantExpired = "RDCC-GRANT-04";
inline constexpr std::string_view kCreditDiscarded = "RDCC-ASSOC-04";
inline constexpr std::string_view kRefusedAccept = "RDCC-ASSOC-08";
inline constexpr std::string_view kPacing = "RDCC-GRANT-05";
inline constexpr std::string_view kCreditReturnFloor = "RDCC-FMT-11";
inline constexpr std::string_view kPacingRateZero = "RDCC-GRANT-06";
inline constexpr std::string_view kGrantBeyondLength = "RDCC-GRANT-07";
inline constexpr std::string_view kPoolUnadvertised = "RDCC-GRANT-08";
inline constexpr std::string_view kFinal = "RDCC-GRANT-12";
inline constexpr std::string_view kMsgDone = "RDCC-GRANT-13";
inline constexpr std::string_view kPoolGrantId = "RDCC-GRANT-14";
inline constexpr std::string_view kUnscheduledAnnounced = "RDCC-UNSCHED-02";
inline constexpr std::string_view kUnscheduledOutstanding = "RDCC-UNSCHED-03";
inline constexpr std::string_view kUnscheduledBeyondU = "RDCC-MODE-03";
inline constexpr std::string_view kUnsupportedTypeReply = "RDCC-ERR-08";
inline constexpr std::string_view kUnknownAssociationReply = "RDCC-ERR-10";
inline constexpr std::string_view kStatusUnused = "RDCC-STATUS-04";
inline constexpr std::string_view kRequestBackoff = "RDCC-GRANT-15";
}  // namespace rule

struct InvariantRule {
  std::string_view id;  // the catalog ID
  Binds binds;          // the catalog's role: sender, receiver, or any (the originator)
};

// Every rule the checker reports (Violation::rule is one of these IDs): the one table of which
// rule binds which role. The conformance runner holds a violation against the IUT when it binds
// the IUT's role (conformance::rule_binds).
inline constexpr InvariantRule kInvariantRules[] = {
    {rule::kSequence, Binds::Originator},
    {rule::kBudget, Binds::Receiver},
    {rule::kSenderCredit, Binds::Sender},
    {rule::kGrantExpired, Binds::Sender},
    {rule::kCreditDiscarded, Binds::Sender},
    {rule::kRefusedAccept, Binds::Sender},
    {rule::kPacing, Binds::Sender},
    {rule::kCreditReturnFloor, Binds::Sender},
    {rule::kPacingRateZero, Binds::Receiver},
    {rule::kGrantBeyondLength, Binds::Receiver},
    {rule::kPoolUnadvertised, Binds::Receiver},
    {rule::kFinal, Binds::Receiver},
    {rule::kPoolGrantId, Binds::Receiver},
    {rule::kMsgDone, Binds::Receiver},
    {rule::kUnscheduledAnnounced, Binds::Sender},
    {rule::kUnscheduledOutstanding, Binds::Sender},
    {rule::kUnscheduledBeyondU, Binds::Sender},
    {rule::kUnsupportedTypeReply, Binds::Receiver},
    {rule::kUnknownAssociationReply, Binds::Receiver},
    {rule::kStatusUnused, Binds::Sender},
    {rule::kRequestBackoff, Binds::Sender},
};

// The entry of `id`; nullptr for an ID the checker does not report.
[[nodiscard]] constexpr const InvariantRule* invariant_rule(std::string_view id) {
  for (const InvariantRule& r : kInvariantRules) {
    if (r.id == id) return &r;
  }
  return nullptr;
}

}  // namespace rdcc::checker
