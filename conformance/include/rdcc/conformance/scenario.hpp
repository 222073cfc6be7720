// The scenario language (docs/scenario-language.md): what a parsed scenario file holds, and
// the parser. A scenario plays the peer of an implementation under test (IUT): it sends
// messages and data, tells the IUT's upper tester what to do, and expects messages, data or
// silence within time windows, each checked by field matchers.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "rdcc/codec/constants.hpp"
#include "rdcc/conformance/catalog.hpp"
#include "rdcc/reference/time.hpp"

namespace rdcc::conformance {

// Where something is in a scenario file; line and column count from 1.
struct Location {
  std::string file;
  int line = 0;
  int column = 0;
  [[nodiscard]] std::string to_string() const;  // "file:line:col"
};

// A parse error: where, and what was expected.
struct ParseError {
  Location where;
  std::string what;
  [[nodiscard]] std::string describe() const;  // "file:line:col: what"
};

// A value as written: a number, registry names OR-ed with '|', text (addresses, quoted
// strings), or a variable with an optional offset ($limit+4096).
struct Value {
  enum class Kind : std::uint8_t { Number, Names, Text, Variable };
  Kind kind = Kind::Number;
  std::uint64_t number = 0;
  std::vector<std::string> names;
  std::string text;  // Text: the text; Variable: the variable's name
  // Variable: its value times multiply, divided by divide (rounded down), plus offset:
  // `$g1*3/2+10`.
  std::uint64_t multiply = 1;
  std::uint64_t divide = 1;
  std::int64_t offset = 0;
  Location where;
  [[nodiscard]] std::string to_string() const;  // as written
};

enum class Op : std::uint8_t { Eq, Ne, Lt, Le, Gt, Ge, AllBits, NoBits };
[[nodiscard]] const char* to_string(Op op);

// field OP value
struct Matcher {
  std::string field;
  Op op = Op::Eq;
  Value value;
  Location where;
};

// -> name=field
struct Capture {
  std::string variable;
  std::string field;
};

// What a send or an expect concerns: an RDCC message of a type, or a data packet.
struct Pattern {
  bool data = false;                             // a data packet (opaque binding)
  MessageType type = MessageType::AssocRequest;  // when !data
  bool silence = false;                          // expect one of: "| silence" (nothing arrives)
  // expect one of: "| unsupported PATTERN": the IUT declines an optional feature in the way the
  // spec prescribes (ERROR UNSUPPORTED_BINDING); a match ends the scenario "unsupported".
  bool declines = false;
  // expect one of: "| later PATTERN": proof by order. A packet that matches it answers a message
  // the tester sent after the one the step waits on, so the IUT was alive and had read the
  // earlier one: from then on the step waits the tester's patience at most, and nothing by then
  // is a Fail, not inconclusive (docs/scenario-language.md, "Proof by order"). The matching
  // packet is kept for the steps that follow.
  bool later = false;
  std::vector<Matcher> matchers;
  std::vector<Capture> captures;
  Location where;
  [[nodiscard]] std::string to_string() const;  // "CREDIT_GRANT message_id=1 grant_limit<=8192"
};

// `send raw` octets that come from a variable: `$name:N` writes the value big-endian into N
// octets (1..8) at `offset` of the datagram.
struct RawField {
  std::size_t offset = 0;
  std::size_t width = 0;
  Value value;
};

struct Step {
  enum class Kind : std::uint8_t {
    Send,        // send TYPE field=value ...
    SendRaw,     // send raw HEX ...
    SendData,    // send data message=.. offset=.. length=..
    SendRocev2,  // send rocev2 qp=.. length=.. [psn=..] [opcode=..] (RDMA WRITE, Binding Kind 1)
    Expect,      // expect [one of] ... (alternatives)
    Silence,     // silence DURATION
    Ignore,      // ignore TYPE|data ... ("ignore none" clears the set)
    Defaults,    // defaults association_id=$a epoch=$e
    Upper,       // upper OP key=value ... [-> var=key]
    Queue,       // queue port=.. occupancy=.. ... (CRN IUT)
    Wait,        // wait DURATION
    Watch,       // watch pacing_sum<=N / unscheduled_sum<=N (checked on every CREDIT_GRANT /
                 // ASSOC_ACCEPT from then on)
    Transfer,    // transfer [within D] message_id=.. message=.. length=.. [segment=..] [ce=1]: send
                 // data for every octet the IUT grants, as a conforming sender does
    Set,         // set name=value ... (a variable's value until a capture replaces it)
    Require,     // require VAR OP VALUE ... "reason" (unsupported unless every condition holds)
    Spread,      // spread $V1 ... $VN over D: the captured samples are a uniform draw from [0, D]
  };
  Kind kind = Kind::Wait;
  Location where;
  std::string text;  // the step's line as written, for reports
  // Send / SendData / SendRocev2 / Defaults / Upper / Queue / Set: assignments; Expect:
  // alternatives.
  Pattern pattern;
  std::vector<std::byte> raw;        // SendRaw: the octets ($name:N placeholders zero)
  std::vector<RawField> raw_fields;  // SendRaw: the $name:N placeholders
  std::vector<Pattern> alternatives;
  ref::Duration
      within{};  // Expect / Transfer: upper bound of the window; Silence / Wait: the duration
  ref::Duration after{};  // Expect: lower bound of the window
  // Expect: `by D` instead of `within D`, a time the spec states (docs/spec-notes.md, "No deadline
  // for grants, MSG_DONE or SENDER_STATUS: a scenario's `within` is the tester's patience"):
  // nothing arriving by it fails. A `within` is the tester's patience: nothing arriving within it
  // is inconclusive.
  bool bound = false;
  // Expect written `seen`: the packet may have arrived at any time since the scenario began,
  // before or after the steps in between, ignored or kept; only if none has does the step wait.
  bool seen = false;
  std::vector<std::string> ignore;       // Ignore: type names, or "data"
  std::vector<Pattern> ignore_patterns;  // Ignore: one per name, with its field matchers
  std::string upper_op;  // Upper: submit, cancel, return_credit, link_pause, status, ...
  // Expect / Silence / Watch: `checks ID ...` at the end of the line, the requirements this step
  // checks (empty: the scenario's `checks`). A failure's verdict takes their level.
  std::vector<std::string> checks;
  Location checks_where;
  std::string reason;  // Require: why the scenario cannot test the IUT otherwise
  // Spread: the variables holding the samples (without '$'); `within` is D.
  std::vector<std::string> samples;
};

// The IUT's role: Role::Receiver, Role::Sender or Role::Crn (catalog.hpp).

struct Scenario {
  std::string name;
  Role role = Role::Receiver;
  std::vector<std::string> checks;  // requirement IDs
  std::vector<std::string> tags;
  std::string description;
  std::map<std::string, std::uint64_t> config;  // reference IUT configuration (config key=value)
  std::vector<Step> steps;
  Location where;  // the file
  // A generated scenario's text (explore's episodes in the suite, docs/explore.md): the report
  // carries it, since no file holds it. Empty for a scenario read from a file.
  std::string source;
};

// Built-in variables: the addresses and ports of a run, set by the runner from the adapter
// before the first step, so that a scenario is the same on every IUT. Address variables
// ($tester, "IP:PORT") go where an address does (from=, to=); IP variables ($tester_ip) go in
// the address fields of CONGESTION_REPORT; port variables are numbers.
struct BuiltinVariable {
  enum class Kind : std::uint8_t { Address, Ip, Number };
  std::string_view name;
  Kind kind;
  std::string_view meaning;
};
[[nodiscard]] const std::vector<BuiltinVariable>& builtin_variables();
[[nodiscard]] const BuiltinVariable* find_builtin(std::string_view name);

// The scenario tag that marks a scenario that needs the in-process reference in virtual time
// (its windows are too fine for real sockets, or it drives what only the reference exposes):
// on udp: and exec: IUTs it is "unsupported" with that reason, never played.
inline constexpr std::string_view kVirtualTimeTag = "virtual-time";

// The scenario tag that marks a scenario that needs an IUT with no other association (its
// rates depend on what else the IUT serves): "unsupported" on udp: (one IUT for the whole run).
inline constexpr std::string_view kFreshIutTag = "fresh-iut";

// The watch of `watch pacing_sum<=N`: the sum of the Pacing Rates in force (the latest grant of
// each message that has no MSG_DONE yet) must stay at or below N Mbit/s.
inline constexpr std::string_view kPacingSum = "pacing_sum";
// The watch of `watch unscheduled_sum<=N`: the sum of the non-zero U in force (the latest
// ASSOC_ACCEPT of each association, a Parameter Update's included) must stay at or below N
// octets ("Unscheduled Transmission": the sum of U over the associations with a non-zero U
// does not exceed G_u).
inline constexpr std::string_view kUnscheduledSum = "unscheduled_sum";
// The watch of `watch weight_share heavier=H lighter=L`: until H's grants reach its length, the
// credit granted to L since the step may not run ahead of H's by more than one grant
// (conformance/src/steps/weight_share.hpp).
inline constexpr std::string_view kWeightShare = "weight_share";

// The default window of an expect without "within".
inline constexpr ref::Duration kDefaultWindow = ref::milliseconds(10);

// Whether a requirement ID exists (the catalog answers); empty: any RDCC-<AREA>-<NN> form.
using KnownId = std::function<bool(std::string_view)>;

// Parses one scenario; every ID of `checks` must have the RDCC-<AREA>-<NN> form and be known.
[[nodiscard]] std::variant<Scenario, ParseError> parse_scenario(const std::string& text,
                                                                const std::string& file,
                                                                const KnownId& known_id);
// Reads and parses a file; an unreadable file is a ParseError at line 0.
[[nodiscard]] std::variant<Scenario, ParseError> load_scenario(const std::string& path,
                                                               const KnownId& known_id);

// The configuration keys `config` accepts for a role, with their defaults (the reference IUT).
[[nodiscard]] std::vector<std::string> config_keys(Role role);

// Field names of a message type that send and expect accept (header fields included).
[[nodiscard]] std::vector<std::string> message_fields(MessageType type);
// What a field's values may be: registry names (OR-ed for bit sets), or an address in text.
struct FieldInfo {
  std::vector<NamedValue> names;
  bool bitset = false;
  bool address = false;
};
[[nodiscard]] std::optional<FieldInfo> message_field(MessageType type, std::string_view name);
// "2ms", "500us", "1s", "100ns" (what scenario files and --tolerance-abs take).
[[nodiscard]] std::optional<ref::Duration> parse_duration(std::string_view text);

// Field names of a data packet (opaque binding).
[[nodiscard]] const std::vector<std::string>& data_fields();

// Field names of `send rocev2` (one RoCEv2 RC RDMA WRITE packet, Binding Kind 1), and the
// names its `opcode` takes (RDMA_WRITE_FIRST 0x06, RDMA_WRITE_MIDDLE 0x07, RDMA_WRITE_LAST
// 0x08, RDMA_WRITE_ONLY 0x0A).
[[nodiscard]] const std::vector<std::string>& rocev2_fields();
[[nodiscard]] std::optional<std::uint8_t> rocev2_opcode(std::string_view name);

// The packet's addresses, not fields of the message: `from=IP:PORT` on a send (the tester
// sends from another address, as an off-path host or an unconfigured CRN would), and
// `to=IP:PORT` / `from=IP:PORT` (= or !=) in an expect.
inline constexpr std::string_view kFromField = "from";
inline constexpr std::string_view kToField = "to";
// `within_u=1` on `send CREDIT_REQUEST ... unscheduled_sent=N`: the tester announces the
// message unscheduled only if N is at most the U the IUT gave the association (its latest
// ASSOC_ACCEPT), and otherwise requests it scheduled (Unscheduled Sent 0); on `send data
// ... unscheduled=1` the packet goes only if its message's request went unscheduled. A
// conforming sender's choice, for a tester that cannot know U when the scenario is written.
inline constexpr std::string_view kWithinUField = "within_u";
// `-> d=since_submit_us` on an expect: the microseconds from the latest `upper submit` to the
// packet's arrival (its kernel timestamp on real sockets), for a `spread` of start delays.
inline constexpr std::string_view kSinceSubmitField = "since_submit_us";
// `gap_us>$g` / `-> g=gap_us` on an expect right after an expect: the microseconds from the
// arrival of the packet the step before matched to this one's (kernel timestamps on real
// sockets, where a comparison allows the window tolerance): "exponential backoff" as gaps.
inline constexpr std::string_view kGapField = "gap_us";
// `-> s=stalled_us` on a transfer: the longest time, in microseconds, the transfer waited for
// credit between running out of it and sending again (the data was not continuous for that
// long): a scenario that needs data in every interval of a controller requires it short.
inline constexpr std::string_view kStalledField = "stalled_us";
// `spread` needs at least this many samples: all of N uniform draws from [0, D] fall in one
// quarter of it with probability 4^-N, 1.5e-5 at eight.
inline constexpr std::size_t kMinSpreadSamples = 8;

}  // namespace rdcc::conformance
