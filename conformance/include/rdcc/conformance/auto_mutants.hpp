// The automatic mutants against the suite (reference/automutants/: the rule code's operators,
// constants and sending statements changed by a tool, one mutant per run-time id). Compiled
// into rdcc-conform-automut only, the suite linked against the generated copy of the rule code;
// `rdcc-conform --auto-mutant ID`, `--auto-mutant-matrix` and `--list-auto-mutants` run it.
//
// Each mutant runs the scenarios of its role in a child process (a mutant may crash or loop),
// and is classified against the reference's own run of the same scenarios:
//  - killed: some scenario FAILs;
//  - inconclusive: none fails, one the reference passes is inconclusive (not a kill);
//  - survived: none fails, but the wire trace of some scenario differs from the reference's
//    (what crosses the wire is not the reference's, and the suite let it pass);
//  - equivalent: every scenario's trace is the reference's, byte for byte and instant for
//    instant (these stimuli cannot tell it from the reference: not counted);
//  - crashed: the child died or ran past its time bound.
// Mutation score = killed / (killed + inconclusive + survived). A survivor is killed by a new
// scenario or listed in conformance/mutants-reviewed.md with the spec sentence that makes its
// behaviour legal; the matrix marks the reviewed ones.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "rdcc/automut.hpp"
#include "rdcc/conformance/runner.hpp"
#include "rdcc/conformance/suite.hpp"

namespace rdcc::conformance {

enum class AutoOutcome : std::uint8_t { Killed, Inconclusive, Survived, Equivalent, Crashed };
[[nodiscard]] const char* to_string(AutoOutcome o);

struct AutoMutantRow {
  const automut::AutoMutant* mutant = nullptr;
  AutoOutcome outcome = AutoOutcome::Equivalent;
  std::vector<std::string> failed_in;        // scenarios that FAIL
  std::vector<std::string> inconclusive_in;  // inconclusive where the reference passes
  std::vector<std::string> differs_in;       // traces not the reference's
  std::string reason;                        // the first FAIL's reason, or how it crashed
  std::string reviewed;                      // its entry in the reviewed list, if any
};

struct AutoMatrix {
  std::vector<AutoMutantRow> rows;
  [[nodiscard]] std::size_t count(AutoOutcome o) const;
  // killed / (killed + inconclusive + survived); 1 when nothing is wire-visible.
  [[nodiscard]] double score() const;
  // Survivors listed in the reviewed file: behaviour the spec allows (conforming variants).
  [[nodiscard]] std::size_t reviewed() const;
  // killed / (wire-visible - reviewed): the share of the mutants that break the spec on the
  // wire that a scenario FAILs; 1 when there is none.
  [[nodiscard]] double fault_score() const;
};

// "12 relational reference/src/receiver/x.cpp:40:7 in grant(): < -> <=".
[[nodiscard]] std::string describe(const automut::AutoMutant& m);
[[nodiscard]] const automut::AutoMutant* find_auto_mutant(std::uint32_t id);

// Ids from "1-40,77" (checked against the table); an error names the bad part.
[[nodiscard]] std::vector<std::uint32_t> parse_auto_mutant_ids(const std::string& text,
                                                               std::string* error);
// `count` ids drawn without repetition from every mutant, by `seed`, in id order.
[[nodiscard]] std::vector<std::uint32_t> sample_auto_mutants(std::size_t count, std::uint64_t seed);

// "reference/src/receiver/x.cpp:40:7 < -> <=": what a reviewed survivor is listed by (its id
// moves when the rule code is edited; its site and change are what was reviewed).
[[nodiscard]] std::string site_key(const automut::AutoMutant& m);
// The reviewed list: the rows "| `SITE_KEY` | ... |" of conformance/mutants-reviewed.md.
[[nodiscard]] std::vector<std::pair<std::string, std::string>> load_reviewed(
    const std::string& path);

// Played under --strict whatever `options` say, as the named mutants' kill matrix is.
[[nodiscard]] AutoMatrix run_auto_mutant_matrix(
    const std::vector<Scenario>& scenarios, SuiteOptions options,
    const std::vector<std::uint32_t>& ids, const std::string& reviewed_path,
    const std::function<void(const AutoMutantRow&)>& progress = {});

[[nodiscard]] std::string auto_row_text(const AutoMutantRow& row);
[[nodiscard]] std::string auto_matrix_summary(const AutoMatrix& m);
// auto-mutants.txt (a row per mutant, then the summary) and auto-mutants.json into `dir`.
void write_auto_matrix(const std::string& dir, const AutoMatrix& m);

}  // namespace rdcc::conformance
