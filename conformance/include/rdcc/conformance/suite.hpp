// A suite run: scenario files found under a folder, selected by role and --filter, skipped
// when they check only MAY-level requirements and --strict is off, run in parallel, each
// on a fresh adapter.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "rdcc/conformance/adapter.hpp"
#include "rdcc/conformance/runner.hpp"
#include "rdcc/conformance/scenario.hpp"

namespace rdcc::conformance {

// Every *.scn file under `dir`, sorted by path.
[[nodiscard]] std::vector<std::string> find_scenario_files(const std::string& dir);

struct Loaded {
  std::vector<Scenario> scenarios;
  std::vector<ParseError> errors;
};
[[nodiscard]] Loaded load_scenarios(const std::vector<std::string>& files, const KnownId& known_id);

// A scenario matches a filter if the glob matches its name, one of its tags or one of its
// requirement IDs. No filters: everything matches.
[[nodiscard]] bool matches_filters(const Scenario& s, const std::vector<std::string>& filters);

// Why a scenario is skipped without --strict (it checks only MAY- or OPTIONAL-level
// requirements: behaviour the IUT need not have chosen), or nothing. SHOULD-level scenarios
// run: a failed SHOULD is a Warn. A CRN's scenarios always run: the MAY they check is what makes
// the IUT a CRN.
[[nodiscard]] std::optional<std::string> optional_only(const Scenario& s, const LevelOf& level_of);

struct SuiteOptions {
  AdapterSpec adapter;
  RunOptions run;
  bool strict = false;
  unsigned jobs = 1;
  // Real-time adapters: a scenario that fails or is inconclusive (worth_another_try) is played
  // again, up to this many more times (a loaded host); the verdict is the last one's, its reason
  // names the tries, except that a failure followed by a try that did not fail is Flaky
  // (retried()).
  unsigned retries = 0;
  LevelOf level_of;
  // Called after each scenario finishes (from the thread that ran it, under a lock).
  std::function<void(const ScenarioResult&, std::size_t done, std::size_t total)> progress;
};

// Runs the scenarios (already selected by role and filter); results in the input order.
[[nodiscard]] std::vector<ScenarioResult> run_suite(const std::vector<Scenario>& scenarios,
                                                    const SuiteOptions& options);

// Starts a fresh adapter for `s` and runs it (again on --retries: retried()).
[[nodiscard]] ScenarioResult run_one(const Scenario& s, const SuiteOptions& options);

// Whether a play that ended so is played again (--retries): a fail, a warn, an inconclusive, and
// an unsupported whose `require` measured the play itself (a transfer that waited for credit on a
// loaded host), not what the IUT supports.
[[nodiscard]] bool worth_another_try(const ScenarioResult& r);

// The verdict of the tries of one scenario, in the order played: one try is itself; else the
// last try's, its reason naming the earlier ones; but a Fail followed by a try that did not fail
// is Flaky, carrying the failing try's evidence (retries never hide a failure).
[[nodiscard]] ScenarioResult retried(std::vector<ScenarioResult> tries);

}  // namespace rdcc::conformance
