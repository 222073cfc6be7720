// The rule table of `rdcc pcap check` (check_rules.hpp).
#include "check_rules.hpp"

#include <utility>

namespace rdcc::tools {
namespace {

constexpr CheckRule kRules[] = {
    {"CHK-BUDGET", "Receiver Credit Budget",
     "A receiver MUST maintain: sum over a of ( Granted(a) + Unsched(a) ) <= G", "RDCC-BUDGET-01"},
    {"CHK-GRANT-BEYOND-LENGTH", "Credit Requests and Grants, rule 5",
     "The receiver MUST NOT grant beyond the message length.", "RDCC-GRANT-07"},
    {"CHK-FINAL", "Credit Requests and Grants, rule 5",
     "It sets the FINAL flag in the grant that reaches the message length.", ""},
    {"CHK-PACING-ZERO", "Credit Requests and Grants, rule 4",
     "Receivers MUST issue a non-zero Pacing Rate.", "RDCC-GRANT-06"},
    {"CHK-DONE-EARLY", "Credit Requests and Grants",
     "When the receiver has received all octets of a message it sends MSG_DONE.", ""},
    {"CHK-DONE-UNREQUESTED", "Credit Requests and Grants",
     "CREDIT_REQUEST announces a message ... When the receiver has received all octets of a "
     "message it sends MSG_DONE.",
     ""},
    {"CHK-SENDER-CREDIT", "Credit Requests and Grants, rule 2",
     "The sender MUST NOT transmit an octet at offset o of a message unless o is smaller than "
     "the Grant Limit held for that message, or the octet is part of the unscheduled window "
     "permitted by .",
     "RDCC-GRANT-03"},
    {"CHK-GRANT-EXPIRED", "Credit Requests and Grants, rule 3",
     "The sender MUST NOT transmit under a grant after the Lifetime of that grant has elapsed, "
     "measured from its reception.",
     "RDCC-GRANT-04"},
    {"CHK-UNSCHEDULED", "Unscheduled Transmission, item 2",
     "MUST send a CREDIT_REQUEST for the message no later than the first data packet, with the "
     "Unscheduled Sent field set to the message length, so that the receiver can account for "
     "the octets;",
     "RDCC-UNSCHED-02"},
    {"CHK-UNSCHED-BEYOND-U", "Transmission Mode Selection",
     "Otherwise, the sender MUST send CREDIT_REQUEST and MUST NOT transmit any octet of the "
     "message until it holds credit for that octet.",
     "RDCC-MODE-03"},
    {"CHK-UNSCHED-OUTSTANDING", "Unscheduled Transmission, item 3",
     "MUST NOT have more than one unscheduled message outstanding on an association; an "
     "unscheduled message stops being outstanding when the sender receives MSG_DONE or a "
     "CREDIT_GRANT for it;",
     "RDCC-UNSCHED-03"},
    {"CHK-PACING", "Credit Requests and Grants, rule 4",
     "The sender MUST NOT transmit the message faster than the Pacing Rate, averaged over any "
     "interval equal to the transmission time of ten Credit Units at that rate.",
     "RDCC-GRANT-05"},
    {"CHK-SEQ", "Common Header",
     "An endpoint MUST discard a message of an association whose Sequence Number is not newer, "
     "in serial number arithmetic , than the newest one it has already processed from the same "
     "originator on that association.",
     "RDCC-FMT-06"},
    {"CHK-ERROR-UNSUPPORTED-TYPE", "Error Handling and Recovery",
     "if the message belongs to an established association, the receiver MAY reply with ERROR "
     "(UNSUPPORTED_TYPE) to the address bound to that association, and it MUST NOT reply "
     "otherwise.",
     "RDCC-ERR-08"},
    {"CHK-ERROR-UNKNOWN-ASSOCIATION", "Error Handling and Recovery",
     "A receiver that receives a CREDIT_REQUEST for an unknown association replies with ERROR "
     "(UNKNOWN_ASSOCIATION)",
     ""},
    {"CHK-POOL-UNADVERTISED", "Credit Requests and Grants",
     "A receiver MUST NOT use pool grants with a sender that did not advertise the POOL "
     "capability.",
     "RDCC-GRANT-08"},
    {"CHK-GRANT-POOL-ID", "CREDIT_GRANT",
     "0x0001 POOL (Message ID is zero and the grant covers the association's pool)", ""},
    {"CHK-MALFORMED", "Error Handling and Recovery",
     "A message whose Length field is smaller than the size defined for its Type, or larger "
     "than the UDP payload, MUST be discarded.",
     "RDCC-ERR-09"},
    {"CHK-UDP-CHECKSUM", "Message Formats", "Senders MUST set the UDP checksum.", "RDCC-FMT-01"},
};

// The InvariantChecker's rule names (invariants.hpp kInvariantRules), and ours.
constexpr std::pair<std::string_view, std::string_view> kViolations[] = {
    {"budget", "CHK-BUDGET"},
    {"grant_beyond_length", "CHK-GRANT-BEYOND-LENGTH"},
    {"final_flag", "CHK-FINAL"},
    {"pacing_rate_zero", "CHK-PACING-ZERO"},
    {"msg_done_early", "CHK-DONE-EARLY"},
    {"sender_credit", "CHK-SENDER-CREDIT"},
    {"grant_expired", "CHK-GRANT-EXPIRED"},
    {"pacing", "CHK-PACING"},
    {"unscheduled_unannounced", "CHK-UNSCHEDULED"},
    {"unscheduled_beyond_u", "CHK-UNSCHED-BEYOND-U"},
    {"unscheduled_outstanding", "CHK-UNSCHED-OUTSTANDING"},
};

}  // namespace

std::string_view check_rule_for_violation(std::string_view invariant_rule) {
  for (const auto& [name, id] : kViolations) {
    if (name == invariant_rule) return id;
  }
  return {};
}

std::span<const CheckRule> check_rules() { return kRules; }

const CheckRule& check_rule(std::string_view id) {
  for (const CheckRule& r : kRules) {
    if (r.id == id) return r;
  }
  return kRules[0];
}

std::vector<std::string_view> requirement_ids(const CheckRule& rule) {
  std::vector<std::string_view> ids;
  std::string_view rest = rule.requirements;
  while (!rest.empty()) {
    const std::size_t space = rest.find(' ');
    ids.push_back(rest.substr(0, space));
    if (space == std::string_view::npos) break;
    rest.remove_prefix(space + 1);
  }
  return ids;
}

}  // namespace rdcc::tools
