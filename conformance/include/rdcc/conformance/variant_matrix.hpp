// The variant matrix, the dual of the kill matrix: the suite proves it never fails wrongly.
// Each conforming variant of the reference (rdcc/reference/variants.hpp: a behaviour the spec
// permits that the default does not choose) runs against every scenario of its role, in a
// default run and under --strict. A variant passes when its default run has no FAIL and no
// INCONCLUSIVE verdict (UNSUPPORTED only where the variant declines an optional feature and
// the IUT says so); the --strict run is reported beside it, where a variant that takes a
// SHOULD-level alternative may lose a SHOULD-only scenario. `rdcc-conform --iut reference
// --variant-matrix` and the ctest `conformance_variants` use it.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "rdcc/conformance/runner.hpp"
#include "rdcc/conformance/suite.hpp"
#include "rdcc/reference/variants.hpp"

namespace rdcc::conformance {

struct VariantRow {
  const ref::VariantInfo* variant = nullptr;
  std::size_t scenarios_run = 0;
  std::vector<ScenarioResult> results;         // default run
  std::vector<ScenarioResult> strict_results;  // --strict run
  // Scenarios of the default run with this verdict.
  [[nodiscard]] std::vector<const ScenarioResult*> with(Verdict v) const;
  [[nodiscard]] std::vector<const ScenarioResult*> strict_with(Verdict v) const;
  // No FAIL and no INCONCLUSIVE in the default run.
  [[nodiscard]] bool passed() const;
};

struct VariantMatrix {
  std::vector<VariantRow> rows;  // one per variant, in table order
  [[nodiscard]] std::vector<const ref::VariantInfo*> failed() const;
  [[nodiscard]] bool ok() const { return failed().empty(); }
};

// Runs every variant over the scenarios of its role among
// `scenarios`, with `options` (its adapter must be the reference; its variant and mutants are
// replaced). `progress`, if set, is told each variant's row when it is done.
[[nodiscard]] VariantMatrix run_variant_matrix(
    const std::vector<Scenario>& scenarios, SuiteOptions options,
    const std::function<void(const VariantRow&)>& progress = {});

// "grant-whole-message  [receiver]  33 scenarios: 30 passed, 3 skipped; strict: 33 passed"
// per variant, with every scenario that did not pass named with its reason, then the totals.
[[nodiscard]] std::string variant_matrix_text(const VariantMatrix& m);

// The spec sentence that permits variant `v`: its quotation, or the text of the catalog
// requirement it names (the built-in catalog).
[[nodiscard]] std::string permits_text(const ref::VariantInfo& v);

// Writes variant-matrix.txt (the text above), variant-matrix.md (a table: variant, role, the
// sentence that permits it, default and strict verdicts) and variant-matrix.json into `dir`
// (created). Throws std::runtime_error naming the file that cannot be written.
void write_variant_matrix(const std::string& dir, const VariantMatrix& m);

}  // namespace rdcc::conformance
