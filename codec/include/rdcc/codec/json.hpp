// The JSON mapping of messages (nlohmann/json), both ways. Keys are the FieldSpec names of
// messages.hpp, flat beside the header's keys; the dissector's field names are "rdcc." + key.
//
//   {"type": "CREDIT_GRANT", "version": 1, "rsv": 0, "length": 40, "association_id": ...,
//    "epoch": 3, "flags": 0, "sequence_number": 42, "message_id": 257, ...}
//
// to_json writes every field with its raw numeric value (addresses as text); from_json also
// accepts registry names for enum fields ("reason": "UNKNOWN_ASSOCIATION"), lists of names
// for flags and capabilities, "0x..." strings for numbers, and an object
// {"destination_qpn", "first_msn", "message_count"} for a RoCEv2 binding_value. Keys left
// out take their defaults (version 1, length 0 = the type's size, other fields 0).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "rdcc/codec/messages.hpp"
#include "rdcc/codec/result.hpp"

namespace rdcc {

struct JsonError {
  std::string key;   // the offending key ("" for the whole object)
  std::string what;  // e.g. "value 300 does not fit in 8 bits"
  [[nodiscard]] std::string describe() const;
};

[[nodiscard]] nlohmann::ordered_json to_json(const Message& m);
[[nodiscard]] Result<Message, JsonError> message_from_json(const nlohmann::ordered_json& j);

// The members of to_json(m) exactly as to_json(m).dump() writes them between its braces (the
// same keys, order and text), appended to `out` without building a JSON value: the per-packet
// path of `rdcc pcap dump --json`.
void append_json_members(const Message& m, std::string& out);
// A double in the layout of nlohmann's dump(): the shortest digits that read back the same value
// (std::to_chars), fixed-point while the decimal point lies within 4 places before and 15 after
// the first digit (".0" after a whole number), otherwise d[.ddd]e+XX; "null" if not finite. The
// same text as dump() but where dump()'s Grisu2 writes more digits, or, where 17 are needed,
// another last one (both read back the same value; fuzz_json_number checks it).
void append_json_double(std::string& out, double v);
// ns / 10^9 seconds, exactly as append_json_double(out, ns / 1e9) writes it, from the integer's
// own digits (a tenth of the work: `rdcc pcap dump --json` writes one per packet).
void append_json_seconds(std::string& out, std::int64_t ns);
// The same two, written at `p`, which has room for kMaxJsonNumber characters; they return
// the end of what they wrote.
inline constexpr std::size_t kMaxJsonNumber = 32;
char* write_json_double(char* p, double v);
char* write_json_seconds(char* p, std::int64_t ns);

// Addresses as text; the family decides the form.
[[nodiscard]] std::string address_to_string(const IpAddress& a, bool ipv6);
[[nodiscard]] bool address_from_string(std::string_view text, bool ipv6, IpAddress& out);

}  // namespace rdcc
