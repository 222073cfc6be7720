// The runner: plays one scenario against an IUT through an adapter, matches what comes back,
// shows every packet to the shared InvariantChecker, and returns a verdict with its reason,
// the expected and the actual message, the packet trace and the event log.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "rdcc/conformance/adapter.hpp"
#include "rdcc/conformance/scenario.hpp"
#include "rdcc/reference/invariants.hpp"

namespace rdcc::conformance {

enum class Verdict : std::uint8_t { Pass, Fail, Inconclusive, Unsupported, Skipped };
[[nodiscard]] const char* to_string(Verdict v);

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
  Location where;        // the step that decided the verdict
  std::string step;      // that step as written
  std::vector<TraceEntry> trace;
  std::vector<nlohmann::ordered_json> events;  // the IUT's and the tester's events
  std::vector<ref::Violation> violations;
  std::string iut_log;    // the IUT's standard error (exec:), kept as scenarios/<name>.iut-stderr.txt
  Duration elapsed{};     // time of the run (virtual for the reference adapter)
  double wall_seconds = 0;
};

struct RunOptions {
  Duration tolerance_abs{};  // widen windows of real-time adapters: abs + rel * window
  double tolerance_rel = 0;
};

// Runs `s` on a started adapter. Never throws for IUT behaviour; a scenario that cannot be
// played (an unknown variable, a value that does not fit) is inconclusive.
[[nodiscard]] ScenarioResult run_scenario(const Scenario& s, Adapter& adapter,
                                          const RunOptions& options);

// A skeleton result for a scenario that is not run (skipped, or an adapter that would not start).
[[nodiscard]] ScenarioResult not_run(const Scenario& s, Verdict v, std::string reason);

// The invariant rules of InvariantChecker that bind each role (the others concern the tester).
[[nodiscard]] bool rule_binds(std::string_view rule, Role iut_role);

}  // namespace rdcc::conformance
