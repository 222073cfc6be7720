// Explore mode's loop: episodes of generated stimuli on fresh IUTs, judged by the runner, and
// the failing one shrunk to a scenario file that fails on its own (explore.hpp).
#include <algorithm>
#include <chrono>
#include <sstream>
#include <variant>

#include "rdcc/conformance/explore.hpp"

namespace rdcc::conformance {
namespace {

// Plays the stimuli `keep` of `p` as a scenario on a fresh IUT of the suite's adapter.
ScenarioResult play(const Program& p, const std::vector<std::size_t>& keep,
                    const ExploreOptions& o) {
  const std::string text = render(p, keep);
  auto parsed = parse_scenario(text, p.name + ".scn", o.known_id);
  if (auto* e = std::get_if<ParseError>(&parsed)) {
    Scenario s;
    s.name = p.name;
    s.role = p.role;
    ScenarioResult r = not_run(s, Verdict::Inconclusive,
                               "explore wrote a scenario it cannot parse: " + e->describe());
    r.source = text;
    return r;
  }
  ScenarioResult r = run_one(std::get<Scenario>(parsed), o.suite);
  r.source = text;
  return r;
}

std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

// The stimulus (an index into keep) whose lines hold `line` of render(p, keep).
std::size_t stimulus_at(const Program& p, const std::vector<std::size_t>& keep, int line) {
  // The header's six lines (seven with a config line), then the first stimulus's comment.
  int at = p.config.empty() ? 7 : 8;
  for (std::size_t k = 0; k < keep.size(); ++k) {
    at += 1 + static_cast<int>(p.stimuli[keep[k]].lines.size());
    if (line < at) return k;
  }
  return keep.empty() ? 0 : keep.size() - 1;
}

}  // namespace

std::vector<Scenario> explore_scenarios(Role role, std::uint64_t seed, std::size_t episodes,
                                        const KnownId& known_id) {
  std::vector<Scenario> out;
  if (role != Role::Sender && role != Role::Receiver && role != Role::Crn) return out;
  constexpr std::size_t kStimuli = 24;  // an episode of --explore
  for (std::size_t e = 0; e < episodes; ++e) {
    const Program p = generate_program(role, seed, e, kStimuli);
    const std::string text = render(p);
    auto parsed = parse_scenario(text, p.name + ".scn", known_id);
    // The generator writes only what the parser takes (explore_test: every program parses).
    if (auto* s = std::get_if<Scenario>(&parsed)) {
      s->source = text;
      s->description = "Explore episode " + std::to_string(e) + " of seed " + std::to_string(seed) +
                       ": stimuli drawn from what the spec lets the tester send (docs/explore.md); "
                       "shrink a failure with rdcc-conform --explore --seed " +
                       std::to_string(seed);
      out.push_back(std::move(*s));
    }
  }
  return out;
}

ExploreResult explore(const ExploreOptions& o,
                      const std::function<void(const std::string&)>& progress) {
  ExploreResult out;
  out.seed = o.seed;
  const auto t0 = std::chrono::steady_clock::now();
  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  for (std::size_t episode = 0;; ++episode) {
    const bool timed = o.duration_s > 0;
    if (timed ? elapsed() >= o.duration_s : out.stimuli >= o.steps) break;
    const std::size_t count = timed ? o.episode : std::min(o.episode, o.steps - out.stimuli);
    Program p = generate_program(o.role, o.seed, episode, count);
    if (o.suite.adapter.kind == AdapterSpec::Kind::Udp) p.config.clear();
    std::vector<std::size_t> all(p.stimuli.size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
    ScenarioResult r = play(p, all, o);
    ++out.episodes;
    if (r.verdict == Verdict::Inconclusive) ++out.inconclusive;
    if (progress) {
      progress("episode " + std::to_string(episode) + ": " + std::to_string(count) + " stimuli, " +
               to_string(r.verdict) + (r.reason.empty() ? "" : ": " + r.reason));
    }
    if (r.verdict != Verdict::Fail) {
      out.stimuli += count;
      out.runs.push_back(std::move(r));
      continue;
    }
    const std::size_t failed_at = stimulus_at(p, all, r.where.line);
    out.failed = true;
    out.stimuli += failed_at + 1;
    out.steps_to_failure = out.stimuli;
    out.program_text = r.source;
    const auto cited = sorted(r.cited);
    // The stimuli after the failing one played no part: shrink the prefix.
    const auto same_failure = [&](const std::vector<std::size_t>& keep) {
      const ScenarioResult t = play(p, with_needs(p, keep), o);
      return t.verdict == Verdict::Fail && sorted(t.cited) == cited;
    };
    const auto keep = with_needs(p, ddmin(failed_at + 1, same_failure));
    Program shrunk = p;
    shrunk.name = p.name + "-shrunk";
    out.shrunk_text = render(shrunk, keep);
    out.shrunk_stimuli = keep.size();
    out.shrunk = play(shrunk, keep, o);
    if (progress) {
      progress("shrunk to " + std::to_string(keep.size()) + " of " + std::to_string(failed_at + 1) +
               " stimuli: " + to_string(out.shrunk.verdict));
    }
    out.failing = r;
    out.runs.push_back(std::move(r));
    break;
  }
  return out;
}

std::string explore_text(const ExploreResult& r) {
  std::ostringstream o;
  o << "explore seed " << r.seed << ": " << r.episodes << " episodes, " << r.stimuli
    << " stimuli, ";
  if (!r.failed) {
    o << "no failure";
    if (r.inconclusive > 0) o << " (" << r.inconclusive << " episodes inconclusive)";
    o << "\n";
    return o.str();
  }
  o << "FAIL after " << r.steps_to_failure << " stimuli: " << r.failing.reason;
  if (!r.failing.level.empty()) o << " [" << r.failing.level << "]";
  o << "\n  at " << r.failing.where.to_string() << ": " << r.failing.step << "\n";
  o << "shrunk to " << r.shrunk_stimuli << " stimuli, which alone "
    << (r.shrunk.verdict == Verdict::Fail ? "FAIL"
                                          : "do NOT reproduce the failure (verdict " +
                                                std::string(to_string(r.shrunk.verdict)) + ")")
    << ": " << r.shrunk.reason << "\n";
  o << "---- " << r.shrunk.name << ".scn ----\n" << r.shrunk_text << "----\n";
  return o.str();
}

}  // namespace rdcc::conformance
