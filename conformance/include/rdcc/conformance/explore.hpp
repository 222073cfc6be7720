// Explore mode (docs/explore.md): a stateful random tester. From a seed it writes programs of
// stimuli that the spec lets the tester send (a model of associations, messages, Sequence
// Numbers and histories, not the scenario list), plays each as a scenario on a fresh IUT, and
// judges with the runner's oracle: the invariant checker, the bounds the spec states and proof
// by order. A failing program is shrunk (delta debugging over its stimuli) to a minimal
// scenario file that reproduces the failure on its own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "rdcc/conformance/report.hpp"
#include "rdcc/conformance/runner.hpp"
#include "rdcc/conformance/scenario.hpp"
#include "rdcc/conformance/suite.hpp"

namespace rdcc::conformance {

// One stimulus: what the tester does, as lines of the scenario language (with the expect that
// judges it, where the spec demands an answer or forbids one). Variables an earlier stimulus
// captures ($aK, $eK) tie it to that one: shrinking keeps both or neither plays.
struct Stimulus {
  std::string kind;  // "associate", "request", "transfer", "msg-done-again", ...
  std::vector<std::string> lines;
  // The earlier stimuli (indices) it means nothing without: its association's, its message's
  // request, the transfer that completed the message it asks about. Shrinking keeps them.
  std::vector<std::size_t> needs{};
};

// A program: the stimuli of one episode, played on one fresh IUT.
struct Program {
  Role role = Role::Receiver;
  std::string name;  // explore-SEED-EPISODE
  // The IUT's configuration for the episode (a scenario's `config` line): every third episode
  // a small budget, so that demand exceeds G. Dropped on udp:, whose IUT is already running.
  std::string config;
  // Lines played before the stimuli (watches that hold over the whole episode), kept whatever
  // shrinking drops.
  std::vector<std::string> preamble;
  std::vector<Stimulus> stimuli;
};

// `keep` with every stimulus a kept one needs, transitively, in increasing order.
[[nodiscard]] std::vector<std::size_t> with_needs(const Program& p, std::vector<std::size_t> keep);

// The stimuli of episode `episode` of `seed`: the same on every adapter and every run.
// `count` stimuli at most (the first ones establish associations).
[[nodiscard]] Program generate_program(Role role, std::uint64_t seed, std::size_t episode,
                                       std::size_t count);

// The scenario file of a program restricted to the stimuli `keep` (indices, in order).
[[nodiscard]] std::string render(const Program& p, const std::vector<std::size_t>& keep);
[[nodiscard]] std::string render(const Program& p);

// Delta debugging (Zeller's ddmin) over the indices 0..n-1: a smallest subset (1-minimal: no
// single index can be removed) for which `fails` holds, given that it holds for all of them.
// `fails` is called with indices in increasing order.
[[nodiscard]] std::vector<std::size_t> ddmin(
    std::size_t n, const std::function<bool(const std::vector<std::size_t>&)>& fails);

struct ExploreOptions {
  Role role = Role::Receiver;
  std::uint64_t seed = 1;
  std::size_t steps = 200;   // stimuli in all (over episodes)
  double duration_s = 0;     // > 0: stop after this many seconds instead
  std::size_t episode = 24;  // stimuli per episode (a fresh IUT each)
  SuiteOptions suite;        // the adapter, tolerances, patience, levels
  KnownId known_id;          // the catalog's IDs (empty: any)
};

struct ExploreResult {
  std::uint64_t seed = 0;
  std::size_t episodes = 0;
  std::size_t stimuli = 0;       // played in all, up to and with the failing episode
  std::size_t inconclusive = 0;  // episodes the IUT's silence left undecided
  bool failed = false;
  std::vector<ScenarioResult> runs;  // one per episode (the last is the failing one, if any)
  // The failure: the episode's run, the stimuli played until it (the program up to the
  // failing one), the minimal scenario file and its own run (a Fail, reproduced).
  ScenarioResult failing;
  std::size_t steps_to_failure = 0;
  std::string program_text;
  std::string shrunk_text;
  std::size_t shrunk_stimuli = 0;
  ScenarioResult shrunk;
};

// The first `episodes` episodes of `seed` against `role` as scenarios of the suite (tag
// `explore`, the text in Scenario::source): the default run plays them beside the written
// scenarios, so that a vendor's device meets stimuli nobody listed without asking for them.
// Empty for a role explore has no model of (the CRN).
[[nodiscard]] std::vector<Scenario> explore_scenarios(Role role, std::uint64_t seed,
                                                      std::size_t episodes,
                                                      const KnownId& known_id);

// Explores; `progress` gets a line per episode. Never throws for IUT behaviour.
[[nodiscard]] ExploreResult explore(const ExploreOptions& options,
                                    const std::function<void(const std::string&)>& progress = {});

// "explore seed 7: 9 episodes, 200 stimuli, no failure (1 inconclusive)" or the failure with
// its steps and the shrunk scenario.
[[nodiscard]] std::string explore_text(const ExploreResult& r);

// rdcc-conform --explore, from its command line.
struct ExploreCommand {
  SuiteOptions suite;
  std::string role;      // --role: receiver (the only role explore plays against yet)
  std::string duration;  // --duration ("30s"), empty: --steps
  std::string iut;
  std::string report_dir;  // --report: the shrunk scenario, its run's report, explore.txt
  std::uint64_t seed = 1;
  std::size_t steps = 200;
  KnownId known_id;
  std::vector<RequirementRow> catalog;
};
// Runs it and prints explore_text; the exit status: 0 no failure, 1 a failure (shrunk), 2 a bad
// command line, 3 no failure but an episode inconclusive.
[[nodiscard]] int explore_main(const ExploreCommand& c, std::ostream& out, std::ostream& err);

}  // namespace rdcc::conformance
