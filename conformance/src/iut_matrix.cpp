#include "rdcc/conformance/iut_matrix.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "rdcc/conformance/random_matrix.hpp"
#include "rdcc/conformance/variant_matrix.hpp"
#include "rdcc/version.h"

namespace rdcc::conformance {
namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

// A folder name for a row: "03-mutant-grant-beyond-length".
std::string folder_of(std::size_t index, const MatrixIut& iut) {
  char num[32];
  std::snprintf(num, sizeof num, "%02zu-", index + 1);
  std::string name = iut.kind;
  if (iut.kind == "variant") name += "-" + iut.adapter.variant;
  if (iut.kind == "mutant" && !iut.adapter.mutants.empty())
    name += "-" + iut.adapter.mutants.front();
  if (iut.kind == "reference" && !iut.role.empty()) name += "-" + iut.role;
  if (iut.kind == "random") name += "-" + iut.adapter.random_variant.substr(0, 24);
  if (iut.kind == "auto-mutant") name += "-" + std::to_string(iut.auto_mutant);
  std::string out = num;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
    out += ok ? c : '-';
  }
  return out;
}

AutoMutantHooks& hooks() {
  static AutoMutantHooks h;
  return h;
}

}  // namespace

void set_auto_mutant_hooks(AutoMutantHooks h) {
  hooks() = std::move(h);
}

MatrixIut variant_iut(const ref::VariantInfo& v, AdapterSpec base) {
  base.variant = std::string(v.name);
  base.mutants.clear();
  return {"reference variant=" + std::string(v.name), "variant", std::move(base),
          std::string(ref::to_string(v.role)),
          "\"" + permits_text(v) + "\" (" + std::string(v.section) + ")"};
}

MatrixIut mutant_iut(const testing::MutantInfo& m, AdapterSpec base) {
  base.mutants = {std::string(m.name)};
  base.variant.clear();
  const std::string iut = base.kind == AdapterSpec::Kind::Reference ? "reference" : "exec:";
  return {iut + " mutant=" + std::string(m.name), "mutant", std::move(base),
          std::string(to_string(m.role)), "breaks " + std::string(m.requirement)};
}

std::vector<Scenario> scenarios_for(const MatrixIut& iut, const std::vector<Scenario>& scenarios) {
  std::vector<Scenario> out;
  for (const auto& s : scenarios) {
    if (iut.role.empty() || to_string(s.role) == iut.role) out.push_back(s);
  }
  return out;
}

std::vector<ScenarioResult> run_against(const MatrixIut& iut,
                                        const std::vector<Scenario>& scenarios,
                                        SuiteOptions options) {
  options.adapter = iut.adapter;
  return run_suite(scenarios, options);
}

std::vector<ScenarioResult> verdicts_only(std::vector<ScenarioResult> results) {
  for (auto& r : results) {
    r.trace.clear();
    r.events.clear();
  }
  return results;
}

std::vector<MatrixIut> load_matrix_file(const std::string& path, const AdapterSpec& base) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read the matrix file " + path);
  std::vector<MatrixIut> out;
  std::string line;
  for (std::size_t number = 1; std::getline(in, line); ++number) {
    const auto where = path + ":" + std::to_string(number) + ": ";
    std::string rest = trim(line);
    const std::string as_written = rest;
    const std::size_t listed_before = out.size();
    if (rest.empty() || rest.front() == '#') continue;
    std::string role;
    std::vector<std::string> variants;
    std::vector<std::string> mutants;
    // Leading key=value words; the rest of the line is the IUT as --iut takes it.
    for (;;) {
      const auto space = rest.find_first_of(" \t");
      const std::string word = rest.substr(0, space);
      const auto eq = word.find('=');
      if (eq == std::string::npos || word.rfind("exec:", 0) == 0 || word.rfind("udp:", 0) == 0)
        break;
      const std::string key = word.substr(0, eq);
      const std::string value = word.substr(eq + 1);
      if (key == "role") {
        if (value != "receiver" && value != "sender" && value != "crn") {
          throw std::runtime_error(std::string(where).append("role=").append(value).append(
              ": the role is receiver, sender or crn"));
        }
        role = value;
      } else if (key == "variant" || key == "mutant") {
        // NAME, or * for all of them.
        const bool variant = key == "variant";
        std::vector<std::string>& names = variant ? variants : mutants;
        if (value == "*") {
          if (variant) {
            for (const auto& v : ref::variants()) names.emplace_back(v.name);
          } else {
            for (const auto& m : testing::all_mutants()) names.emplace_back(m.name);
          }
        } else if (variant ? ref::find_variant(value) == nullptr
                           : testing::find_mutant(value) == nullptr) {
          throw std::runtime_error(std::string(where)
                                       .append("unknown ")
                                       .append(key)
                                       .append(" '")
                                       .append(value)
                                       .append("' (rdcc-conform --list-")
                                       .append(key)
                                       .append("s)"));
        } else {
          names.push_back(value);
        }
      } else if (key == "random") {
        std::string error;
        const auto v = testing::parse_random_variant(value, &error);
        if (!v) throw std::runtime_error(where + error);
        MatrixIut iut{"reference random=" + value, "random", base, "", v->values()};
        iut.adapter.kind = AdapterSpec::Kind::Reference;
        iut.adapter.any_role = true;
        iut.adapter = with_random_variant(iut.adapter, *v);
        out.push_back(std::move(iut));
      } else if (key == "auto-mutant") {
        const auto describe = hooks().describe;
        std::optional<std::string> what;
        std::uint32_t id = 0;
        try {
          id = static_cast<std::uint32_t>(std::stoul(value));
        } catch (const std::exception&) {
          id = 0;
        }
        if (describe) what = describe(id);
        if (!what) {
          throw std::runtime_error(where + "auto-mutant=" + value +
                                   (describe ? ": no such automatic mutant (--list-auto-mutants)"
                                             : ": needs rdcc-conform-automut"));
        }
        MatrixIut iut{"reference auto-mutant=" + value, "auto-mutant", base, "", *what, id};
        iut.adapter.kind = AdapterSpec::Kind::Reference;
        iut.adapter.any_role = true;
        out.push_back(std::move(iut));
      } else {
        throw std::runtime_error(
            std::string(where)
                .append("unknown key '")
                .append(key)
                .append("' (role=, variant=, mutant=, random=, auto-mutant=)"));
      }
      if (space == std::string::npos) {
        rest.clear();
        break;
      }
      rest = trim(rest.substr(space));
    }
    const std::string iut_text = rest.empty() ? "reference" : rest;
    auto parsed = parse_adapter_spec(iut_text);
    if (auto* e = std::get_if<std::string>(&parsed)) throw std::runtime_error(where + *e);
    AdapterSpec spec = std::get<AdapterSpec>(parsed);
    spec.data_framing = base.data_framing;
    spec.unscheduled_dscp = base.unscheduled_dscp;
    spec.class_dscps = base.class_dscps;
    spec.tolerance_abs = base.tolerance_abs;
    spec.tolerance_rel = base.tolerance_rel;
    const bool reference = spec.kind == AdapterSpec::Kind::Reference;
    if (!reference && role.empty() && spec.any_role) role = "receiver";
    if (!reference && role.empty()) {
      throw std::runtime_error(where + iut_text.substr(0, iut_text.find(':')) +
                               ": needs role=receiver|sender|crn before it");
    }
    if (!role.empty()) {
      spec.role = role == "sender" ? Role::Sender : role == "crn" ? Role::Crn : Role::Receiver;
      if (reference) spec.any_role = false;
    } else if (!spec.any_role) {
      role = to_string(spec.role);  // reference:ROLE
    }
    if (!variants.empty() && !reference) {
      throw std::runtime_error(where + "variant= applies to the reference IUT only");
    }
    if (!mutants.empty() && spec.kind == AdapterSpec::Kind::Udp) {
      throw std::runtime_error(
          where + "mutant= applies to the reference IUT and to exec: (the reference node)");
    }
    const auto fits = [&](std::string_view of_role) { return role.empty() || role == of_role; };
    for (const auto& name : variants) {
      const auto* v = ref::find_variant(name);
      if (fits(ref::to_string(v->role))) out.push_back(variant_iut(*v, spec));
    }
    for (const auto& name : mutants) {
      const auto* m = testing::find_mutant(name);
      if (!fits(to_string(m->role))) continue;
      MatrixIut iut = mutant_iut(*m, spec);
      if (!reference) iut.label = std::string(iut_text).append(" mutant=").append(name);
      out.push_back(std::move(iut));
    }
    if (out.size() > listed_before &&
        (out.back().kind == "random" || out.back().kind == "auto-mutant")) {
      continue;  // the line was the row
    }
    if (variants.empty() && mutants.empty()) {
      const std::string kind = reference                             ? "reference"
                               : spec.kind == AdapterSpec::Kind::Udp ? "udp"
                                                                     : "exec";
      out.push_back({as_written, kind, spec, role});
    }
    // One IUT on the line: the line is its label.
    if (out.size() == listed_before + 1 && as_written.find('*') == std::string::npos) {
      out.back().label = as_written;
    }
  }
  if (out.empty()) throw std::runtime_error(path + ": no IUT listed");
  return out;
}

std::vector<MatrixRunRow> run_interop_matrix(
    const std::vector<MatrixIut>& iuts, const std::vector<Scenario>& scenarios,
    const SuiteOptions& options, const std::string& dir, const SuiteReport& report_template,
    const std::function<void(const MatrixRunRow&)>& progress) {
  SuiteOptions o = options;
  o.progress = {};
  std::vector<MatrixRunRow> rows;
  nlohmann::ordered_json j;
  auto list = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < iuts.size(); ++i) {
    const MatrixIut& iut = iuts[i];
    MatrixRunRow row;
    row.iut = iut.label;
    row.kind = iut.kind;
    row.report = folder_of(i, iut);
    if (auto dead = probe_liveness(iut.adapter)) {
      // One IUT that does not answer is its row's note, not the end of the matrix.
      row.note = *dead;
    } else {
      SuiteReport report = report_template;
      report.iut = iut.label;
      report.strict = o.strict;
      if (hooks().activate) hooks().activate(iut.auto_mutant);
      report.results = run_against(iut, scenarios_for(iut, scenarios), o);
      if (hooks().activate) hooks().activate(0);
      row.detail = iut.detail;
      // A random variant's FAIL is a false failure: the page names the fewest draws causing it.
      if (iut.kind == "random") {
        const auto v = testing::parse_random_variant(iut.adapter.random_variant, nullptr);
        for (const auto& r : report.results) {
          if (r.verdict != Verdict::Fail || !v) continue;
          for (const auto& s : scenarios) {
            if (s.name != r.name) continue;
            const ShrunkFailure f = shrink_failure(s, *v, o);
            row.detail += "; FAIL " + f.scenario + " shrunk to random=" + f.variant.id();
          }
        }
      }
      write_reports((std::filesystem::path(dir) / row.report).string(), report);
      row.results = verdicts_only(std::move(report.results));  // the report has the rest
    }
    nlohmann::ordered_json verdicts = nlohmann::ordered_json::object();
    for (const auto& r : row.results) verdicts[r.name] = to_string(r.verdict);
    if (row.detail.empty()) row.detail = iut.detail;
    list.push_back({{"iut", row.iut},
                    {"kind", row.kind},
                    {"detail", row.detail},
                    {"report", row.report + "/index.html"},
                    {"note", row.note},
                    {"summary", summary_line(count(row.results))},
                    {"verdicts", verdicts}});
    if (progress) progress(row);
    rows.push_back(std::move(row));
  }
  j["rdcc_version"] = RDCC_VERSION;
  j["iuts"] = list;
  write_matrix_html(std::filesystem::path(dir) / "matrix.html", rows);
  const auto json_path = std::filesystem::path(dir) / "matrix.json";
  std::ofstream out(json_path);
  out << j.dump(2) << "\n";
  out.close();
  if (!out) throw std::runtime_error("cannot write " + json_path.string());
  return rows;
}

}  // namespace rdcc::conformance
