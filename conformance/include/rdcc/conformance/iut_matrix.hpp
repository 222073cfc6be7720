// The IUTs a matrix runs, and the one loop that runs the suite against each of them. The kill
// matrix (kill_matrix.hpp: the reference with each mutant), the variant matrix
// (variant_matrix.hpp: each conforming variant) and the interop matrix (`rdcc-conform
// --matrix FILE`: a list of IUTs, the reference, its variants and mutants and exec: commands,
// each with its own report and one HTML grid of them all) use it.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "rdcc/conformance/html_report.hpp"
#include "rdcc/conformance/report.hpp"
#include "rdcc/conformance/suite.hpp"
#include "rdcc/reference/variants.hpp"
#include "rdcc/testing/mutants.hpp"

namespace rdcc::conformance {

struct MatrixIut {
  std::string label;  // "reference", "reference variant=pacing-link-over-2", "exec:..."
  std::string kind;   // "reference", "variant", "mutant", "exec", "udp"
  AdapterSpec adapter;
  std::string role;  // the role of the scenarios it runs; empty: each scenario on its role's
};

// The reference (`base`, its role kept for exec:) with one conforming variant, or one mutant:
// the scenarios of that variant's or mutant's role.
[[nodiscard]] MatrixIut variant_iut(const ref::VariantInfo& v, AdapterSpec base);
[[nodiscard]] MatrixIut mutant_iut(const testing::MutantInfo& m, AdapterSpec base);

// The scenarios of `scenarios` the IUT plays (those of its role), in their order.
[[nodiscard]] std::vector<Scenario> scenarios_for(const MatrixIut& iut,
                                                  const std::vector<Scenario>& scenarios);

// Runs `scenarios` (scenarios_for, or some of them) against the IUT: `options` with its adapter
// (the rest of options.adapter, its data framing and tolerances, kept where the IUT's line did
// not say).
[[nodiscard]] std::vector<ScenarioResult> run_against(const MatrixIut& iut,
                                                      const std::vector<Scenario>& scenarios,
                                                      SuiteOptions options);

// The results without their traces and event logs: what a matrix keeps of a run whose report
// (if any) is written.
[[nodiscard]] std::vector<ScenarioResult> verdicts_only(std::vector<ScenarioResult> results);

// Reads a matrix file: one IUT a line, `[role=ROLE] [variant=NAME] [mutant=NAME] [IUT]`, where
// IUT is what --iut takes (reference, reference:ROLE, udp:..., exec:COMMAND to the end of the
// line; default reference); `#` starts a comment line. `variant=*` and `mutant=*` stand for
// every variant and every mutant. udp: and exec: need role=. Throws std::runtime_error naming
// the file, the line and what is wrong. `base` gives the options --iut would otherwise take
// (data framing, DSCP, tolerances).
[[nodiscard]] std::vector<MatrixIut> load_matrix_file(const std::string& path,
                                                      const AdapterSpec& base);

// Runs every IUT over its scenarios, writes each run's report (write_reports, with its
// index.html) into DIR/NN-LABEL/, and DIR/matrix.html, DIR/matrix.json: the grid of IUTs by
// scenarios, each cell linking to that run's report. `progress` is told each row when done.
// Throws std::runtime_error naming a file that cannot be written.
[[nodiscard]] std::vector<MatrixRunRow> run_interop_matrix(
    const std::vector<MatrixIut>& iuts, const std::vector<Scenario>& scenarios,
    const SuiteOptions& options, const std::string& dir, const SuiteReport& report_template,
    const std::function<void(const MatrixRunRow&)>& progress = {});

}  // namespace rdcc::conformance
