// The runner: plays one scenario against an IUT through an adapter, matches what comes back,
// shows every packet to the shared InvariantChecker, and returns a verdict with its reason,
// the expected and the actual message, the packet trace and the event log.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "rdcc/checker/invariants.hpp"
#include "rdcc/conformance/adapter.hpp"
#include "rdcc/conformance/scenario.hpp"

namespace rdcc::conformance {

// Warn: a check of a SHOULD-, SHOULD NOT-, RECOMMENDED- or NOT RECOMMENDED-level requirement
// did not hold (a Fail under --strict); the scenario is a passing one that carries the warning.
// Flaky: with --retries, one try failed and a later one did not; the failing try's evidence is
// kept (suite.hpp run_one). A failure all the same: retries never hide one.
enum class Verdict : std::uint8_t { Pass, Warn, Fail, Inconclusive, Unsupported, Skipped, Flaky };
[[nodiscard]] const char* to_string(Verdict v);

// The level of a requirement ("MUST", "SHOULD", "RULE", ...), when the catalog knows it.
using LevelOf = std::function<std::optional<std::string>(std::string_view id)>;

// One packet the tester sent or received.
struct TraceEntry {
  Packet packet;
  bool from_tester = false;
};

struct ScenarioResult {
  std::string name;
  std::string file;
  Role role = Role::Receiver;
  std::vector<std::string> checks;
  std::vector<std::string> tags;
  std::string description;
  Verdict verdict = Verdict::Pass;
  std::string reason;    // why (empty on a plain pass)
  std::string expected;  // what the failing step wanted
  std::string actual;    // what arrived (JSON of the message), or "nothing"
  // Real-time adapters: the checker's timing tolerance at the end of the run (the configured
  // one, or three times the tester's own wake-up jitter when that is larger) and that jitter.
  Duration checker_tolerance{};
  Duration wake_jitter{};
  // Inconclusive because the IUT stayed silent for the tester's patience where the spec sets no
  // deadline (RunOptions::patience): nothing proves a fault, but the reference answers there.
  bool patience_elapsed = false;
  Location where;    // the step that decided the verdict
  std::string step;  // that step as written
  // Fail / Warn: the requirements the deciding check concerns (the step's `checks`, else the
  // scenario's; for an invariant, the requirement of its rule) and the level that decided the
  // verdict ("MUST", "SHOULD", "RULE", ...; empty when the catalog does not know them).
  std::vector<std::string> cited;
  std::string level;
  // The frames of the run's pcap (1-based, as Wireshark numbers them: the trace's order) the
  // deciding check cites: the message that did not match, the packet after which an invariant
  // or a watch failed; when nothing arrived, the last frame the tester sent. Empty when no
  // packet is concerned.
  std::vector<std::size_t> frames;
  // The run's endpoints: address ("127.0.0.1:40000") -> lifeline ("tester", "iut", "other",
  // "tester data", "iut data"), for the report's ladder diagram.
  std::vector<std::pair<std::string, std::string>> hosts;
  std::vector<TraceEntry> trace;
  std::vector<nlohmann::ordered_json> events;  // the IUT's and the tester's events
  std::vector<checker::Violation> violations;
  std::vector<std::size_t> violation_frames;  // per violation, the frame it was found on (0: none)
  // A generated scenario (rdcc-conform --explore): its file's text, shown in the report.
  std::string source;
  std::string iut_log;  // the IUT's standard error (exec:), kept as scenarios/<name>.iut-stderr.txt
  // exec:: the IUT's process ended by itself during the scenario, with this status or signal.
  // The verdict is then inconclusive, an error in JUnit, never a pass or a warning (a fail
  // stays a fail), and its reason names the status.
  std::optional<IutExit> iut_exit;
  // Datagrams from sources other than the IUT's, dropped before the scenario saw them.
  ForeignDatagrams foreign;
  Duration elapsed{};  // time of the run (virtual for the reference adapter)
  double wall_seconds = 0;
};

struct RunOptions {
  Duration tolerance_abs{};  // widen windows of real-time adapters: abs + rel * window
  double tolerance_rel = 0;
  // The level of each requirement (a failed SHOULD is a Warn); none: every failure is a Fail.
  LevelOf level_of;
  bool strict = false;  // a failed SHOULD is a Fail
  // Real-time adapters: how far the invariant checker's view of the IUT's data timing may be
  // from the IUT's own (the tester's kernel timestamps on loopback; the path's jitter on a real
  // network). InvariantChecker::set_timing_tolerance; 0 in virtual time.
  Duration checker_tolerance = ref::microseconds(100);
  // The tester's patience: the least time an `expect` (or a `transfer`) waits where the spec
  // states no deadline. Nothing arriving within it proves nothing about the IUT: inconclusive,
  // never a failure (docs/spec-notes.md, "No deadline for grants, MSG_DONE or SENDER_STATUS: a
  // scenario's `within` is the tester's patience").
  Duration patience = ref::milliseconds(100);
};

// The verdict of a check that did not hold, from the levels of the requirements it concerns:
// Fail if one of them is of a Fail level (MUST, RULE, MAY, ...; catalog.hpp severity_of) or
// unknown, else Warn, or Fail under `strict`. `level` gets the deciding level.
[[nodiscard]] Verdict verdict_of_failure(const std::vector<std::string>& ids,
                                         const LevelOf& level_of, bool strict, std::string& level);

// The catalog requirement an InvariantChecker rule checks: the checker names each by its
// catalog ID (rdcc/checker/rules.hpp), so the rule itself; empty for a name that is not one.
[[nodiscard]] std::string requirement_of_rule(std::string_view rule);

// Runs `s` on a started adapter. Never throws for IUT behaviour; a scenario that cannot be
// played (an unknown variable, a value that does not fit) is inconclusive.
[[nodiscard]] ScenarioResult run_scenario(const Scenario& s, Adapter& adapter,
                                          const RunOptions& options);

// A skeleton result for a scenario that is not run (skipped, or an adapter that would not start).
[[nodiscard]] ScenarioResult not_run(const Scenario& s, Verdict v, std::string reason);

// Whether a violation the InvariantChecker found binds an IUT of this role (the others concern
// the tester): the rule's role in rdcc/checker/rules.hpp, the originator for a rule of every
// endpoint.
[[nodiscard]] bool rule_binds(const checker::Violation& v, Role iut_role);

}  // namespace rdcc::conformance
