// Random conforming variants against the suite (rdcc/testing/random_variants.hpp): N variants
// drawn from a seed, each over every scenario of every role; the suite must FAIL none of them.
// A FAIL is a false failure: it is shrunk, draw by draw, to the fewest draws that still fail
// that scenario, and reported with that variant's id (`rdcc-conform --iut reference
// --random-variant ID --filter SCENARIO` reproduces it). `rdcc-conform --iut reference
// --random-variants N --seed S`, the ctest `conformance_random_variants` and
// conformance/bench/random_variants.sh use it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "rdcc/conformance/runner.hpp"
#include "rdcc/conformance/suite.hpp"
#include "rdcc/testing/random_variants.hpp"

namespace rdcc::conformance {

struct ShrunkFailure {
  std::string scenario;
  std::string reason;              // the verdict's reason with the shrunk variant
  testing::RandomVariant variant;  // the fewest draws that still fail it
};

struct RandomRow {
  testing::RandomVariant variant;
  std::vector<ScenarioResult> results;  // verdicts only
  std::vector<ShrunkFailure> failures;  // one per failing scenario
  [[nodiscard]] bool passed() const { return failures.empty(); }
};

struct RandomMatrix {
  std::uint64_t seed = 0;
  std::vector<RandomRow> rows;
  [[nodiscard]] std::size_t failed() const;
  [[nodiscard]] bool ok() const { return failed() == 0; }
};

// The reference with random variant `v` (an id: SEED:INDEX[:NAME,...]): `base` with it.
[[nodiscard]] AdapterSpec with_random_variant(AdapterSpec base, const testing::RandomVariant& v);

// The fewest draws of `v` that still FAIL scenario `s` (greedy: each draw dropped in turn,
// kept out when the scenario still fails without it, until no draw can go), and the reason of
// that last failure.
[[nodiscard]] ShrunkFailure shrink_failure(const Scenario& s, const testing::RandomVariant& v,
                                           const SuiteOptions& options);

// Runs variants `first` .. `first + count - 1` of `seed` over `scenarios` (every role's),
// shrinking each FAIL. `progress`, if set, is told each row when it is done.
[[nodiscard]] RandomMatrix run_random_variants(
    const std::vector<Scenario>& scenarios, SuiteOptions options, std::uint64_t seed,
    std::uint64_t first, std::uint64_t count,
    const std::function<void(const RandomRow&)>& progress = {});

// "random 7:3  68 scenarios: ...; values ..." per variant, each FAIL with its shrunk id, then
// the totals.
[[nodiscard]] std::string random_row_text(const RandomRow& row);
[[nodiscard]] std::string random_matrix_text(const RandomMatrix& m);
// Its last line: "200 random variants of seed 1: 200 passed, 0 failed; ...".
[[nodiscard]] std::string random_matrix_summary(const RandomMatrix& m);

// "\"In ASSOC_ACCEPT, ...\" (ASSOC_REQUEST and ASSOC_ACCEPT)": the sentence that leaves a choice
// free, quoted (a catalog requirement's text where the choice names one), and its section.
[[nodiscard]] std::string choice_permits_text(const testing::RandomChoice& c);

// "receiver.credit_unit: "In ASSOC_ACCEPT, ..." (ASSOC_REQUEST and ASSOC_ACCEPT)" for each draw
// of `v`: the sentence that leaves each value free (a catalog requirement's text where the
// choice names one).
[[nodiscard]] std::string random_permits_text(const testing::RandomVariant& v);

// Writes random-variants.txt and random-variants.json into `dir` (created). Throws
// std::runtime_error naming the file that cannot be written.
void write_random_matrix(const std::string& dir, const RandomMatrix& m);

}  // namespace rdcc::conformance
