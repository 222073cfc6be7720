// The kill matrix: the suite proves it can fail. It runs against the unmutated reference
// (everything must pass), then against the reference started with each mutant of
// rdcc/testing/mutants.hpp (only the scenarios of the mutant's role); a mutant is killed when
// at least one scenario fails against it. `rdcc-conform --iut reference --kill-matrix` and the
// ctest `conformance_mutants` use it.
//
// Through real nodes (`--iut exec:... --kill-matrix`): the unmutated node, then the node started
// with each mutant of its role (`--mutant NAME` through the command's {mutant}, or appended).
// Real time costs seconds per scenario, so each mutant's scenarios are played a few at a time
// (options.jobs), those that killed it in process first, and its row ends at the first that
// fails; a mutant no scenario kills has had them all.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "rdcc/conformance/runner.hpp"
#include "rdcc/conformance/suite.hpp"
#include "rdcc/testing/mutants.hpp"

namespace rdcc::conformance {

struct MutantRow {
  const testing::MutantInfo* mutant = nullptr;
  std::size_t scenarios_run = 0;
  std::size_t scenarios_of_role = 0;   // scenarios of its role (run: all, unless first_kill)
  std::vector<std::string> killed_by;  // scenarios that failed against it
  // Scenarios in which it stayed silent for the tester's patience where the reference answers:
  // inconclusive for a vendor (the spec sets no deadline), yet a verdict the mutation changed,
  // so a kill (docs/spec-notes.md, "A mutant is killed by a failing scenario, or by silence the
  // reference never shows").
  std::vector<std::string> silent_in;
  std::vector<std::string> inconclusive;  // scenarios that could not be played against it
  [[nodiscard]] bool killed() const { return !killed_by.empty() || !silent_in.empty(); }
};

struct KillMatrix {
  std::vector<ScenarioResult> reference;  // the suite against the unmutated reference
  std::vector<MutantRow> rows;            // one per mutant, in table order
  [[nodiscard]] std::vector<const ScenarioResult*> reference_not_passed() const;
  [[nodiscard]] std::vector<const testing::MutantInfo*> survivors() const;
  // The reference failed nothing and nothing was inconclusive against it (through exec: some
  // scenarios are unsupported: queue observations, virtual time), and every mutant died.
  [[nodiscard]] bool ok() const;
};

// How the mutants' scenarios are played (real nodes).
struct KillOrder {
  bool first_kill = false;  // a mutant's row ends at the first scenario that fails against it
  // Per mutant name, the scenarios to play (those that killed it in process): first those that
  // failed it, then those it was only silent in. With first_kill, a mutant named here plays
  // only these; one not named (or named with none) plays the whole selection.
  std::map<std::string, std::vector<std::string>> try_first;
  // Per mutant name, how many of try_first's scenarios failed it. A batch of scenarios played at
  // once never mixes them with the rest: a scenario that fails the mutant ends its row without
  // waiting out one that proves it only by silence (past the tester's patience: seconds).
  std::map<std::string, std::size_t> failing_first;
};

// Runs the matrix over `scenarios` with `options` (its adapter the reference, or exec: of one
// role; its mutants are replaced, and every scenario runs as with --strict). Through exec: only
// the mutants of the adapter's role are run. `progress`, if set, is told each mutant's row when
// it is done.
[[nodiscard]] KillMatrix run_kill_matrix(const std::vector<Scenario>& scenarios,
                                         SuiteOptions options,
                                         const std::function<void(const MutantRow&)>& progress = {},
                                         const KillOrder& order = {});
// The order of a matrix through real nodes from the in-process matrix `m`: each mutant's row ends
// at its first kill, and plays the scenarios that killed it in process first.
[[nodiscard]] KillOrder kill_order_of(const KillMatrix& m);

// "grant-beyond-length  [receiver]  killed by 3: receiver-final-only-at-length, ..." per
// mutant, then "60 mutants: 60 killed, 0 survived; reference: 63 passed".
[[nodiscard]] std::string kill_matrix_text(const KillMatrix& m);

// Writes kill-matrix.txt (the text above), kill-matrix.md (a table: mutant, role, the rule it
// breaks, the scenarios that kill it) and kill-matrix.json into `dir` (created). Throws
// std::runtime_error naming the file that cannot be written.
void write_kill_matrix(const std::string& dir, const KillMatrix& m);

}  // namespace rdcc::conformance
