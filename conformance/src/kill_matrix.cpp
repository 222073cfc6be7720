#include "rdcc/conformance/kill_matrix.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "rdcc/conformance/iut_matrix.hpp"
#include "rdcc/conformance/report.hpp"
#include "write_file.hpp"

namespace rdcc::conformance {
namespace {

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

}  // namespace

std::vector<const ScenarioResult*> KillMatrix::reference_not_passed() const {
  std::vector<const ScenarioResult*> out;
  for (const auto& r : reference) {
    if (r.verdict != Verdict::Pass) out.push_back(&r);
  }
  return out;
}

bool KillMatrix::ok() const {
  const auto bad = [](const ScenarioResult* r) {
    return r->verdict == Verdict::Fail || r->verdict == Verdict::Flaky ||
           r->verdict == Verdict::Inconclusive;
  };
  const auto not_passed = reference_not_passed();
  return std::none_of(not_passed.begin(), not_passed.end(), bad) && survivors().empty();
}

std::vector<const testing::MutantInfo*> KillMatrix::survivors() const {
  std::vector<const testing::MutantInfo*> out;
  for (const auto& row : rows) {
    if (!row.killed()) out.push_back(row.mutant);
  }
  return out;
}

KillMatrix run_kill_matrix(const std::vector<Scenario>& scenarios, SuiteOptions options,
                           const std::function<void(const MutantRow&)>& progress,
                           const KillOrder& order) {
  options.strict = true;
  options.progress = {};
  options.adapter.mutants.clear();
  const bool real_node = options.adapter.kind != AdapterSpec::Kind::Reference;
  KillMatrix m;
  m.reference = run_suite(scenarios, options);
  for (const auto& mutant : testing::all_mutants()) {
    // A real node, or the reference of one role (reference:ROLE): that role's mutants only.
    const bool one_role = real_node || !options.adapter.any_role;
    if (one_role && to_string(mutant.role) != to_string(options.adapter.role)) continue;
    const MatrixIut iut = mutant_iut(mutant, options.adapter);
    std::vector<Scenario> own = scenarios_for(iut, scenarios);
    const std::size_t of_role = own.size();
    std::size_t tier = 0;  // how many of own's first scenarios failed the mutant in process
    if (const auto first = order.try_first.find(std::string(mutant.name));
        first != order.try_first.end()) {
      const auto rank = [&](const Scenario& s) {
        const auto at = std::find(first->second.begin(), first->second.end(), s.name);
        return static_cast<std::size_t>(at - first->second.begin());
      };
      std::stable_sort(own.begin(), own.end(),
                       [&](const Scenario& a, const Scenario& b) { return rank(a) < rank(b); });
      const auto failing = order.failing_first.find(first->first);
      const std::size_t failed = failing == order.failing_first.end() ? 0 : failing->second;
      tier = static_cast<std::size_t>(std::count_if(
          own.begin(), own.end(), [&](const Scenario& s) { return rank(s) < failed; }));
      // A mutant that scenarios killed in process plays only those: the matrix through real
      // nodes shows that what kills in virtual time kills a real node. (A kill only the rest
      // could make would be missed, so the row can only err towards a survivor, which the
      // caller sees.)
      if (order.first_kill && !first->second.empty()) {
        own.erase(std::find_if(own.begin(), own.end(),
                               [&](const Scenario& s) { return rank(s) == first->second.size(); }),
                  own.end());
      }
    }
    MutantRow row;
    row.mutant = &mutant;
    row.scenarios_of_role = of_role;
    const std::size_t step = order.first_kill ? std::max<std::size_t>(1, options.jobs) : own.size();
    for (std::size_t at = 0, end = 0; at < own.size() && !(order.first_kill && row.killed());
         at = end) {
      end = std::min(own.size(), at + step);
      if (at < tier) end = std::min(end, tier);  // the scenarios that failed it, alone
      const std::vector<Scenario> some(own.begin() + static_cast<std::ptrdiff_t>(at),
                                       own.begin() + static_cast<std::ptrdiff_t>(end));
      row.scenarios_run += some.size();
      for (const auto& r : run_against(iut, some, options)) {
        if (r.verdict == Verdict::Fail || r.verdict == Verdict::Flaky) {  // a try failed
          row.killed_by.push_back(r.name);
        } else if (r.patience_elapsed) {
          row.silent_in.push_back(r.name);
        } else if (r.verdict == Verdict::Inconclusive) {
          row.inconclusive.push_back(r.name);
        }
      }
    }
    if (progress) progress(row);
    m.rows.push_back(std::move(row));
  }
  return m;
}

KillOrder kill_order_of(const KillMatrix& m) {
  KillOrder out;
  out.first_kill = true;
  for (const auto& row : m.rows) {
    const std::string name(row.mutant->name);
    auto& killers = out.try_first[name];
    killers = row.killed_by;
    killers.insert(killers.end(), row.silent_in.begin(), row.silent_in.end());
    out.failing_first[name] = row.killed_by.size();
  }
  return out;
}

std::string kill_matrix_text(const KillMatrix& m) {
  std::ostringstream out;
  for (const auto& row : m.rows) {
    out << row.mutant->name << "  [" << to_string(row.mutant->role) << "]  ";
    if (row.killed()) {
      out << "killed by " << row.killed_by.size() + row.silent_in.size() << " of "
          << row.scenarios_run
          << (row.scenarios_run < row.scenarios_of_role
                  ? " played (of " + std::to_string(row.scenarios_of_role) + ")"
                  : std::string())
          << ": " << join(row.killed_by);
      if (!row.silent_in.empty()) {
        out << (row.killed_by.empty() ? "" : "; ")
            << "silent past the tester's patience (inconclusive) in " << join(row.silent_in);
      }
    } else {
      out << "SURVIVED " << row.scenarios_run << " scenarios"
          << (row.scenarios_run < row.scenarios_of_role
                  ? " (those that killed it in process; of " +
                        std::to_string(row.scenarios_of_role) + ")"
                  : std::string())
          << " (" << row.mutant->description << ")";
    }
    if (!row.inconclusive.empty()) out << "; inconclusive: " << join(row.inconclusive);
    out << "\n";
  }
  const Counts c = count(m.reference);
  out << m.rows.size() << " mutants: " << m.rows.size() - m.survivors().size() << " killed, "
      << m.survivors().size() << " survived; reference: " << summary_line(c) << "\n";
  for (const auto* r : m.reference_not_passed()) {
    out << "reference " << to_string(r->verdict) << ": " << r->name << ": " << r->reason << "\n";
  }
  return out.str();
}

void write_kill_matrix(const std::string& dir_text, const KillMatrix& m) {
  const std::filesystem::path dir(dir_text);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create " + dir.string() + ": " + ec.message());
  write_file(dir / "kill-matrix.txt", kill_matrix_text(m));

  std::ostringstream md;
  md << "# Kill matrix\n\nEvery mutant of the reference endpoints "
        "(`reference/include/rdcc/testing/mutants.hpp`) against the scenarios of its role. "
        "The reference itself: "
     << summary_line(count(m.reference)) << ".\n\n"
     << "| mutant | role | breaks | killed by |\n| --- | --- | --- | --- |\n";
  for (const auto& row : m.rows) {
    md << "| `" << row.mutant->name << "` | " << to_string(row.mutant->role) << " | "
       << row.mutant->requirement << " | "
       << (!row.killed()
               ? std::string("**survived**")
               : join(row.killed_by) +
                     (row.silent_in.empty()
                          ? std::string()
                          : (row.killed_by.empty() ? "" : "; ") +
                                std::string("silent past the patience in ") + join(row.silent_in)))
       << " |\n";
  }
  md << "\n"
     << m.rows.size() - m.survivors().size() << " of " << m.rows.size() << " mutants killed.\n";
  write_file(dir / "kill-matrix.md", md.str());

  nlohmann::ordered_json j;
  j["reference"] = {{"passed", count(m.reference).passed},
                    {"not_passed", nlohmann::ordered_json::array()}};
  for (const auto* r : m.reference_not_passed()) {
    j["reference"]["not_passed"].push_back(
        {{"scenario", r->name}, {"verdict", to_string(r->verdict)}, {"reason", r->reason}});
  }
  auto rows = nlohmann::ordered_json::array();
  for (const auto& row : m.rows) {
    rows.push_back({{"mutant", row.mutant->name},
                    {"role", to_string(row.mutant->role)},
                    {"description", row.mutant->description},
                    {"breaks", row.mutant->requirement},
                    {"scenarios_run", row.scenarios_run},
                    {"killed_by", row.killed_by},
                    {"silent_in", row.silent_in},
                    {"inconclusive", row.inconclusive}});
  }
  j["mutants"] = rows;
  j["killed"] = m.rows.size() - m.survivors().size();
  j["survived"] = m.survivors().size();
  write_file(dir / "kill-matrix.json", j.dump(2) + "\n");
}

}  // namespace rdcc::conformance
