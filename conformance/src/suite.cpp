#include "rdcc/conformance/suite.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <mutex>
#include <set>
#include <thread>

namespace rdcc::conformance {

std::vector<std::string> find_scenario_files(const std::string& dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (std::filesystem::recursive_directory_iterator it(dir, ec), end; !ec && it != end;
       it.increment(ec)) {
    if (it->is_regular_file() && it->path().extension() == ".scn")
      files.push_back(it->path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

Loaded load_scenarios(const std::vector<std::string>& files, const KnownId& known_id) {
  Loaded out;
  std::set<std::string> names;
  for (const auto& f : files) {
    auto r = load_scenario(f, known_id);
    if (auto* e = std::get_if<ParseError>(&r)) {
      out.errors.push_back(*e);
      continue;
    }
    auto& s = std::get<Scenario>(r);
    if (!names.insert(s.name).second) {
      out.errors.push_back({s.where, "scenario name '" + s.name + "' is used by another file"});
      continue;
    }
    out.scenarios.push_back(std::move(s));
  }
  return out;
}

bool matches_filters(const Scenario& s, const std::vector<std::string>& filters) {
  if (filters.empty()) return true;
  auto glob = [](const std::string& pattern, const std::string& text) {
    return fnmatch(pattern.c_str(), text.c_str(), 0) == 0;
  };
  for (const auto& f : filters) {
    if (glob(f, s.name)) return true;
    for (const auto& t : s.tags) {
      if (glob(f, t)) return true;
    }
    for (const auto& id : s.checks) {
      if (glob(f, id)) return true;
    }
  }
  return false;
}

std::optional<std::string> optional_only(const Scenario& s, const LevelOf& level_of) {
  if (!level_of) return std::nullopt;
  // "Support for this section is OPTIONAL for network nodes" and "the CRN MAY generate
  // CONGESTION_REPORT" decide whether a node is a CRN; an IUT tested in the role crn is one, so
  // what the CRN scenarios check (the MAY's own conditions: above B_th, the rate limits) binds
  // it, and they run by default (docs/spec-notes.md, "A CRN's scenarios run by default").
  if (s.role == Role::Crn) return std::nullopt;
  std::string levels;
  for (const auto& id : s.checks) {
    const auto text = level_of(id);
    const auto level = text ? level_from_string(*text) : std::nullopt;
    if (!level || !is_optional(*level)) return std::nullopt;
    levels += (levels.empty() ? "" : ", ") + id + " " + *text;
  }
  return "checks only MAY-level requirements (" + levels +
         "): behaviour the IUT may not have chosen; run with --strict";
}

namespace {

ScenarioResult run_once(const Scenario& s, const SuiteOptions& options);

}  // namespace

ScenarioResult run_one(const Scenario& s, const SuiteOptions& options) {
  ScenarioResult r = run_once(s, options);
  if (options.adapter.kind == AdapterSpec::Kind::Reference) return r;
  std::vector<ScenarioResult> tries{std::move(r)};
  while (tries.size() <= options.retries) {
    if (!worth_another_try(tries.back())) break;
    tries.push_back(run_once(s, options));
  }
  return retried(std::move(tries));
}

bool worth_another_try(const ScenarioResult& r) {
  switch (r.verdict) {
    case Verdict::Fail:
    case Verdict::Inconclusive:
    case Verdict::Warn: return true;
    // A `require` that did not hold may measure this play, not the IUT (receiver-report-reduces-
    // rate's stall on a loaded host): another play may hold it.
    case Verdict::Unsupported: return r.step.starts_with("require ");
    default: return false;
  }
}

ScenarioResult retried(std::vector<ScenarioResult> tries) {
  if (tries.size() == 1) return std::move(tries.front());
  std::string earlier;
  for (std::size_t i = 0; i + 1 < tries.size(); ++i) {
    earlier += (earlier.empty() ? "" : "; ") + std::string(to_string(tries[i].verdict)) + ": " +
               tries[i].reason;
  }
  const std::string count = std::to_string(tries.size());
  const auto failed = std::find_if(tries.begin(), tries.end(), [](const ScenarioResult& t) {
    return t.verdict == Verdict::Fail;
  });
  ScenarioResult& last = tries.back();
  if (failed == tries.end() || last.verdict == Verdict::Fail) {
    last.reason += std::string(last.reason.empty() ? "" : " ") + "(try " + count +
                   "; before: " + earlier + ")";
    return std::move(last);
  }
  // A failure on one try, then a try that did not fail: FLAKY, with the failing try's evidence
  // (its step, messages, frames and capture), never the later try's pass.
  ScenarioResult out = std::move(*failed);
  const auto at = static_cast<std::size_t>(failed - tries.begin()) + 1;
  out.verdict = Verdict::Flaky;
  out.reason = "failed on try " + std::to_string(at) + " of " + count + ", then " +
               to_string(last.verdict) + " on try " + count + ": " + out.reason;
  return out;
}

namespace {

// An IUT that ended by itself during the scenario: whatever its steps came to, the run is an
// error (inconclusive, the status in the reason), never a pass or a warning; a failure the
// steps found stays a failure. Exit status 127 is the exec: convention for "unsupported"
// (Adapter::unsupported), and a scenario not run is left as it is.
void judge_iut_exit(ScenarioResult& r, const IutExit& exit) {
  r.iut_exit = exit;
  const bool declined = exit.signal == 0 && exit.status == 127;
  if (declined || r.verdict == Verdict::Unsupported || r.verdict == Verdict::Skipped) return;
  const std::string what = "the IUT " + exit.describe() + " during the scenario";
  if (r.verdict == Verdict::Fail) {
    r.reason += " (then " + what + ")";
    return;
  }
  std::string before = to_string(r.verdict);
  if (!r.reason.empty()) before += ": " + r.reason;
  r.verdict = Verdict::Inconclusive;
  r.reason = what + " (its steps had come to " + before + ")";
}

ScenarioResult run_once(const Scenario& s, const SuiteOptions& options) {
  if (!options.strict) {
    if (auto why = optional_only(s, options.level_of)) return not_run(s, Verdict::Skipped, *why);
  }
  AdapterSpec spec = options.adapter;
  if (spec.any_role) spec.role = s.role;
  if (spec.kind != AdapterSpec::Kind::Reference &&
      std::find(s.tags.begin(), s.tags.end(), kVirtualTimeTag) != s.tags.end()) {
    return not_run(s, Verdict::Unsupported,
                   "tagged " + std::string(kVirtualTimeTag) +
                       ": its time windows need the in-process reference in virtual time");
  }
  if (spec.kind == AdapterSpec::Kind::Udp && !spec.fresh &&
      std::find(s.tags.begin(), s.tags.end(), kFreshIutTag) != s.tags.end()) {
    return not_run(s, Verdict::Unsupported,
                   "tagged " + std::string(kFreshIutTag) +
                       ": needs an IUT that serves nothing else (exec: starts one per scenario; "
                       "a udp: IUT started for this run alone is declared so: udp:...,fresh)");
  }
  auto adapter = make_adapter(spec);
  ScenarioResult r;
  if (auto error = adapter->start(s)) {
    if (auto u = adapter->unsupported()) {
      r = not_run(s, Verdict::Unsupported, *u);
    } else {
      r = not_run(s, Verdict::Inconclusive, "the IUT did not start: " + *error);
    }
  } else {
    RunOptions run = options.run;
    run.level_of = options.level_of;
    run.strict = options.strict;
    r = run_scenario(s, *adapter, run);
  }
  r.iut_log = adapter->finish();
  r.foreign = adapter->foreign();
  if (auto exit = adapter->iut_exit()) judge_iut_exit(r, *exit);
  if (!r.iut_log.empty() && (r.verdict == Verdict::Fail || r.verdict == Verdict::Inconclusive)) {
    r.reason += " (the IUT's standard error: scenarios/" + r.name + ".iut-stderr.txt)";
  }
  return r;
}

}  // namespace

std::vector<ScenarioResult> run_suite(const std::vector<Scenario>& scenarios,
                                      const SuiteOptions& options) {
  std::vector<ScenarioResult> results(scenarios.size());
  std::atomic<std::size_t> next{0};
  std::size_t done = 0;
  std::mutex lock;
  auto worker = [&]() {
    for (std::size_t i = next++; i < scenarios.size(); i = next++) {
      ScenarioResult r = run_one(scenarios[i], options);
      const std::lock_guard<std::mutex> guard(lock);
      ++done;
      if (options.progress) options.progress(r, done, scenarios.size());
      results[i] = std::move(r);
    }
  };
  const unsigned jobs = std::max(
      1U, std::min<unsigned>(options.jobs,
                             static_cast<unsigned>(std::max<std::size_t>(1, scenarios.size()))));
  std::vector<std::thread> threads;
  for (unsigned j = 1; j < jobs; ++j) threads.emplace_back(worker);
  worker();
  for (auto& t : threads) t.join();
  return results;
}

}  // namespace rdcc::conformance
