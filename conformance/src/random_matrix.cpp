#include "rdcc/conformance/random_matrix.hpp"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "rdcc/conformance/catalog.hpp"
#include "rdcc/conformance/report.hpp"
#include "write_file.hpp"

namespace rdcc::conformance {
namespace {

std::vector<std::string> names_of(const std::vector<testing::RandomDraw>& draws) {
  std::vector<std::string> out;
  for (const auto& d : draws) out.emplace_back(d.choice->name);
  return out;
}

// The verdict of `s` against the reference with `v`.
ScenarioResult play(const Scenario& s, const testing::RandomVariant& v, SuiteOptions options) {
  options.adapter = with_random_variant(options.adapter, v);
  options.progress = {};
  options.jobs = 1;
  return run_one(s, options);
}

}  // namespace

std::size_t RandomMatrix::failed() const {
  std::size_t n = 0;
  for (const auto& row : rows) n += row.passed() ? 0U : 1U;
  return n;
}

AdapterSpec with_random_variant(AdapterSpec base, const testing::RandomVariant& v) {
  base.random_variant = v.id();
  base.variant.clear();
  base.mutants.clear();
  return base;
}

ShrunkFailure shrink_failure(const Scenario& s, const testing::RandomVariant& v,
                             const SuiteOptions& options) {
  // Only the draws of the scenario's role can matter; the rest go at once (kept if they do
  // matter after all: the role's draws alone must still fail).
  testing::RandomVariant best = v;
  ScenarioResult last = play(s, v, options);
  {
    std::vector<std::string> own;
    for (const auto& d : v.draws) {
      if (ref::to_string(d.choice->role) == to_string(s.role)) own.emplace_back(d.choice->name);
    }
    const auto candidate = testing::keep_only(v, own);
    const auto r = play(s, candidate, options);
    if (r.verdict == Verdict::Fail) {
      best = candidate;
      last = r;
    }
  }
  for (bool dropped = true; dropped;) {
    dropped = false;
    for (std::size_t i = 0; i < best.draws.size(); ++i) {
      auto names = names_of(best.draws);
      names.erase(names.begin() + static_cast<std::ptrdiff_t>(i));
      const auto candidate = testing::keep_only(v, names);
      const auto r = play(s, candidate, options);
      if (r.verdict != Verdict::Fail) continue;
      best = candidate;
      last = r;
      dropped = true;
      --i;
    }
  }
  if (!best.shrunk) best = testing::keep_only(v, names_of(v.draws));
  return {s.name, last.reason, best};
}

RandomMatrix run_random_variants(const std::vector<Scenario>& scenarios, SuiteOptions options,
                                 std::uint64_t seed, std::uint64_t first, std::uint64_t count,
                                 const std::function<void(const RandomRow&)>& progress) {
  options.progress = {};
  RandomMatrix m;
  m.seed = seed;
  for (std::uint64_t i = first; i < first + count; ++i) {
    RandomRow row;
    row.variant = testing::draw_random_variant(seed, i);
    SuiteOptions o = options;
    o.adapter = with_random_variant(options.adapter, row.variant);
    o.adapter.any_role = true;
    row.results = run_suite(scenarios, o);
    for (auto& r : row.results) {
      r.trace.clear();
      r.events.clear();
      if (r.verdict != Verdict::Fail) continue;
      for (const auto& s : scenarios) {
        if (s.name == r.name) row.failures.push_back(shrink_failure(s, row.variant, options));
      }
    }
    if (progress) progress(row);
    m.rows.push_back(std::move(row));
  }
  return m;
}

std::string random_row_text(const RandomRow& row) {
  std::ostringstream out;
  out << (row.passed() ? "passed  " : "FAILED  ") << "random " << row.variant.id() << "  "
      << row.results.size() << " scenarios: " << summary_line(count(row.results)) << "\n    "
      << row.variant.values() << "\n";
  for (const auto& r : row.results) {
    if (r.verdict == Verdict::Pass || r.verdict == Verdict::Skipped || r.verdict == Verdict::Fail)
      continue;
    out << "    " << to_string(r.verdict) << ": " << r.name
        << (r.reason.empty() ? "" : ": " + r.reason) << "\n";
  }
  for (const auto& f : row.failures) {
    out << "    FAIL " << f.scenario << ": " << f.reason << "\n      shrunk: random "
        << f.variant.id() << "  (" << f.variant.values() << ")\n      reproduce: rdcc-conform "
        << "--iut reference --random-variant " << f.variant.id() << " --filter " << f.scenario
        << "\n";
  }
  return out.str();
}

std::string random_matrix_text(const RandomMatrix& m) {
  std::string out;
  for (const auto& row : m.rows) out += random_row_text(row);
  return out + random_matrix_summary(m);
}

std::string random_matrix_summary(const RandomMatrix& m) {
  Counts total;
  for (const auto& row : m.rows) {
    const Counts c = count(row.results);
    total.passed += c.passed;
    total.warned += c.warned;
    total.failed += c.failed;
    total.inconclusive += c.inconclusive;
    total.unsupported += c.unsupported;
    total.skipped += c.skipped;
  }
  return std::to_string(m.rows.size()) + " random variants of seed " + std::to_string(m.seed) +
         ": " + std::to_string(m.rows.size() - m.failed()) + " passed, " +
         std::to_string(m.failed()) + " failed; variant x scenario runs: " + summary_line(total) +
         "\n";
}

std::string choice_permits_text(const testing::RandomChoice& c) {
  std::string sentence(c.permits);
  if (!c.requirement.empty()) {
    const Requirement* r = Catalog::built_in().find(c.requirement);
    sentence = r != nullptr ? r->text : std::string(c.requirement);
  }
  return "\"" + sentence + "\" (" + std::string(c.section) +
         (c.requirement.empty() ? "" : ", " + std::string(c.requirement)) + ")";
}

std::string random_permits_text(const testing::RandomVariant& v) {
  std::string out;
  for (const auto& d : v.draws) {
    out += std::string(d.choice->name) + "=" + std::to_string(d.value) + ": " +
           choice_permits_text(*d.choice) + "\n";
  }
  return out;
}

void write_random_matrix(const std::string& dir_text, const RandomMatrix& m) {
  const std::filesystem::path dir(dir_text);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create " + dir.string() + ": " + ec.message());
  write_file(dir / "random-variants.txt", random_matrix_text(m));
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const auto& row : m.rows) {
    auto values = nlohmann::ordered_json::object();
    for (const auto& d : row.variant.draws) values[std::string(d.choice->name)] = d.value;
    auto verdicts = nlohmann::ordered_json::object();
    for (const auto& r : row.results) verdicts[r.name] = to_string(r.verdict);
    auto failures = nlohmann::ordered_json::array();
    for (const auto& f : row.failures) {
      failures.push_back({{"scenario", f.scenario},
                          {"reason", f.reason},
                          {"shrunk", f.variant.id()},
                          {"shrunk_values", f.variant.values()}});
    }
    rows.push_back({{"id", row.variant.id()},
                    {"values", values},
                    {"passed", row.passed()},
                    {"summary", summary_line(count(row.results))},
                    {"verdicts", verdicts},
                    {"failures", failures}});
  }
  nlohmann::ordered_json j;
  j["seed"] = m.seed;
  j["variants"] = rows;
  j["failed"] = m.failed();
  write_file(dir / "random-variants.json", j.dump(2) + "\n");
}

}  // namespace rdcc::conformance
