// The IUTs a matrix runs, and the one loop that runs the suite against each of them. The kill
// matrix (kill_matrix.hpp: the reference with each mutant), the variant matrix
// (variant_matrix.hpp: each conforming variant) and the interop matrix (`rdcc-conform
// --matrix FILE`: a list of IUTs, the reference, its variants and mutants and exec: commands,
// each with its own report and one HTML grid of them all) use it.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
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
  // What the row is, for the page: a variant's sentence, a mutant's requirement, a random
  // variant's draws, an automatic mutant's site.
  std::string detail;
  std::uint32_t auto_mutant = 0;  // an automatic mutant's id (rdcc-conform-automut only)
};

// The automatic mutants are built into rdcc-conform-automut only: its main sets these, and a
// matrix line `auto-mutant=ID` needs them.
struct AutoMutantHooks {
  std::function<void(std::uint32_t)> activate;                        // 0: the reference
  std::function<std::optional<std::string>(std::uint32_t)> describe;  // none: no such id
};
void set_auto_mutant_hooks(AutoMutantHooks hooks);

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

// Reads a matrix file: one IUT a line, `[role=ROLE] [variant=NAME] [mutant=NAME] [IUT]`, or
// `random=SEED:INDEX[:NAME,...]` (a random conforming variant; a FAIL is shrunk on the page) or
// `auto-mutant=ID` (rdcc-conform-automut), where
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
