#include "rdcc/conformance/variant_matrix.hpp"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "rdcc/conformance/catalog.hpp"
#include "rdcc/conformance/iut_matrix.hpp"
#include "rdcc/conformance/report.hpp"
#include "write_file.hpp"

namespace rdcc::conformance {
namespace {

std::vector<const ScenarioResult*> with_verdict(const std::vector<ScenarioResult>& results,
                                                Verdict v) {
  std::vector<const ScenarioResult*> out;
  for (const auto& r : results) {
    if (r.verdict == v) out.push_back(&r);
  }
  return out;
}

// "fail: receiver-x (reason); inconclusive: ..." for the verdicts other than pass and skipped.
std::string not_passed(const std::vector<ScenarioResult>& results) {
  std::string out;
  for (const auto& r : results) {
    if (r.verdict == Verdict::Pass || r.verdict == Verdict::Skipped) continue;
    out += "\n    " + std::string(to_string(r.verdict)) + ": " + r.name;
    if (!r.reason.empty()) out += ": " + r.reason;
  }
  return out;
}

nlohmann::ordered_json verdicts_json(const std::vector<ScenarioResult>& results) {
  auto j = nlohmann::ordered_json::object();
  for (const auto& r : results) {
    j[r.name] = r.reason.empty() ? nlohmann::ordered_json(to_string(r.verdict))
                                 : nlohmann::ordered_json{{"verdict", to_string(r.verdict)},
                                                          {"reason", r.reason}};
  }
  return j;
}

nlohmann::ordered_json counts_json(const Counts& c) {
  return {{"passed", c.passed},
          {"warned", c.warned},
          {"failed", c.failed},
          {"inconclusive", c.inconclusive},
          {"unsupported", c.unsupported},
          {"skipped", c.skipped},
          {"flaky", c.flaky}};
}

std::string md_cell(std::string text) {
  for (auto& ch : text) {
    if (ch == '|') ch = '/';
    if (ch == '\n') ch = ' ';
  }
  return text;
}

}  // namespace

std::vector<const ScenarioResult*> VariantRow::with(Verdict v) const {
  return with_verdict(results, v);
}
std::vector<const ScenarioResult*> VariantRow::strict_with(Verdict v) const {
  return with_verdict(strict_results, v);
}

bool VariantRow::passed() const {
  return with(Verdict::Fail).empty() && with(Verdict::Flaky).empty() &&
         with(Verdict::Inconclusive).empty();
}

std::vector<const ref::VariantInfo*> VariantMatrix::failed() const {
  std::vector<const ref::VariantInfo*> out;
  for (const auto& row : rows) {
    if (!row.passed()) out.push_back(row.variant);
  }
  return out;
}

VariantMatrix run_variant_matrix(const std::vector<Scenario>& scenarios, SuiteOptions options,
                                 const std::function<void(const VariantRow&)>& progress) {
  options.progress = {};
  options.adapter.mutants.clear();
  VariantMatrix m;
  for (const auto& variant : ref::variants()) {
    const MatrixIut iut = variant_iut(variant, options.adapter);
    const std::vector<Scenario> own = scenarios_for(iut, scenarios);
    SuiteOptions o = options;
    VariantRow row;
    row.variant = &variant;
    row.scenarios_run = own.size();
    o.strict = false;
    row.results = verdicts_only(run_against(iut, own, o));
    o.strict = true;
    row.strict_results = verdicts_only(run_against(iut, own, o));
    if (progress) progress(row);
    m.rows.push_back(std::move(row));
  }
  return m;
}

std::string variant_matrix_text(const VariantMatrix& m) {
  std::ostringstream out;
  Counts total;
  Counts total_strict;
  const auto add = [](Counts& t, const Counts& c) {
    t.passed += c.passed;
    t.warned += c.warned;
    t.failed += c.failed;
    t.inconclusive += c.inconclusive;
    t.unsupported += c.unsupported;
    t.skipped += c.skipped;
  };
  for (const auto& row : m.rows) {
    const Counts c = count(row.results);
    const Counts s = count(row.strict_results);
    add(total, c);
    add(total_strict, s);
    out << row.variant->name << "  [" << ref::to_string(row.variant->role) << "]  "
        << (row.passed() ? "" : "FAILED ") << row.scenarios_run << " scenarios: " << summary_line(c)
        << "; strict: " << summary_line(s) << not_passed(row.results);
    const std::string strict_only = not_passed(row.strict_results);
    if (!strict_only.empty() && strict_only != not_passed(row.results)) {
      out << "\n  strict:" << strict_only;
    }
    out << "\n";
  }
  out << m.rows.size() << " variants: " << m.rows.size() - m.failed().size() << " passed, "
      << m.failed().size() << " failed; variant x scenario runs: " << summary_line(total)
      << "; strict: " << summary_line(total_strict) << "\n";
  return out.str();
}

std::string permits_text(const ref::VariantInfo& v) {
  if (v.requirement.empty()) return std::string(v.permits);
  const Requirement* r = Catalog::built_in().find(v.requirement);
  return r != nullptr ? r->text : std::string(v.requirement);
}

void write_variant_matrix(const std::string& dir_text, const VariantMatrix& m) {
  const std::filesystem::path dir(dir_text);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create " + dir.string() + ": " + ec.message());
  write_file(dir / "variant-matrix.txt", variant_matrix_text(m));

  std::ostringstream md;
  md << "# Variant matrix\n\nEvery conforming variant of the reference endpoints "
        "(`reference/include/rdcc/reference/variants.hpp`) against the scenarios of its role, "
        "in a default run and under `--strict`. A variant passes when its default run has no "
        "fail and no inconclusive verdict.\n\n"
     << "| variant | role | permits | default | strict | not passed |\n"
        "| --- | --- | --- | --- | --- | --- |\n";
  for (const auto& row : m.rows) {
    std::string notes;
    for (const auto* results : {&row.results, &row.strict_results}) {
      for (const auto& r : *results) {
        if (r.verdict == Verdict::Pass || r.verdict == Verdict::Skipped) continue;
        notes += (notes.empty() ? "" : "; ") +
                 std::string(results == &row.strict_results ? "strict " : "") +
                 to_string(r.verdict) + " " + r.name;
      }
    }
    md << "| `" << row.variant->name << "` | " << ref::to_string(row.variant->role) << " | \""
       << md_cell(permits_text(*row.variant)) << "\" (" << row.variant->section
       << (row.variant->requirement.empty() ? "" : ", " + std::string(row.variant->requirement))
       << ") | " << summary_line(count(row.results)) << " | "
       << summary_line(count(row.strict_results)) << " | " << (notes.empty() ? "" : md_cell(notes))
       << " |\n";
  }
  md << "\n"
     << m.rows.size() - m.failed().size() << " of " << m.rows.size() << " variants passed.\n";
  write_file(dir / "variant-matrix.md", md.str());

  nlohmann::ordered_json j;
  auto rows = nlohmann::ordered_json::array();
  for (const auto& row : m.rows) {
    rows.push_back({{"variant", row.variant->name},
                    {"role", ref::to_string(row.variant->role)},
                    {"description", row.variant->description},
                    {"permits", permits_text(*row.variant)},
                    {"requirement", row.variant->requirement},
                    {"section", row.variant->section},
                    {"scenarios_run", row.scenarios_run},
                    {"passed", row.passed()},
                    {"default", counts_json(count(row.results))},
                    {"strict", counts_json(count(row.strict_results))},
                    {"verdicts", verdicts_json(row.results)},
                    {"strict_verdicts", verdicts_json(row.strict_results)}});
  }
  j["variants"] = rows;
  j["passed"] = m.rows.size() - m.failed().size();
  j["failed"] = m.failed().size();
  write_file(dir / "variant-matrix.json", j.dump(2) + "\n");
}

}  // namespace rdcc::conformance
