// Test vectors, defined once: the encodings of the spec's "Example Exchange and Encodings" and
// a generated set of messages of every type at boundary values. Unit tests, fuzz seed corpora
// and golden pcaps all draw on these.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "rdcc/codec/messages.hpp"

namespace rdcc::testing {

struct Vector {
  std::string name;  // e.g. "appendix_credit_request", "credit_grant_max"
  Message message;
};

// The appendix's CREDIT_REQUEST for message 0x101, as the spec prints it.
inline constexpr std::string_view kAppendixCreditRequestHex =
    "10 03 00 38 5a 17 c0 de 00 03 00 00 00 00 00 07 00 00 00 00 00 00 01 01 00 00 00 00 00 40 "
    "00 00 00 00 00 00 00 00 00 00 02 04 01 01 00 00 00 00 00 01 23 00 00 05 00 10";
// The appendix's first CREDIT_GRANT, as the spec prints it.
inline constexpr std::string_view kAppendixCreditGrantHex =
    "10 04 00 28 5a 17 c0 de 00 03 00 00 00 00 00 2a 00 00 00 00 00 00 01 01 00 00 00 00 00 04 "
    "00 00 00 01 86 a0 00 00 07 d0";

// The field values the appendix's prose gives for the two encodings.
[[nodiscard]] CreditRequest appendix_credit_request();
[[nodiscard]] CreditGrant appendix_credit_grant();

// Every message type with: all fields zero, all fields at their maximum, and typical values;
// plus the appendix messages, non-zero reserved bits, undefined flags, class 9, weight 0,
// pacing rate 0, CONGESTION_REPORT in both address families.
[[nodiscard]] std::vector<Vector> boundary_vectors();

}  // namespace rdcc::testing
