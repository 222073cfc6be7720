// Explore mode on real runs of the in-process reference (virtual time, fixed seeds), proof by
// order on real scenario runs, and a retried scenario's verdict (FLAKY) in every report format.
#include "rdcc/conformance/explore.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "../src/steps/crn_reports.hpp"
#include "../src/steps/order_proof.hpp"
#include "rdcc/conformance/catalog.hpp"
#include "rdcc/conformance/report.hpp"
#include "rdcc/conformance/suite.hpp"
#include "rdcc/reference/variants.hpp"
#include "rdcc/testing/mutants.hpp"

namespace rdcc::conformance {
namespace {

SuiteOptions reference_options(const std::string& iut = "reference") {
  SuiteOptions o;
  o.adapter = std::get<AdapterSpec>(parse_adapter_spec(iut));
  return o;
}

ExploreOptions explore_options(std::uint64_t seed, std::size_t steps,
                               const std::vector<std::string>& mutants = {},
                               const std::string& variant = "") {
  ExploreOptions o;
  o.seed = seed;
  o.steps = steps;
  o.suite = reference_options("reference:receiver");
  o.suite.adapter.mutants = mutants;
  o.suite.adapter.variant = variant;
  return o;
}

std::string read(const std::filesystem::path& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

Scenario parse(const std::string& text) {
  auto r = parse_scenario(text, "t.scn", {});
  if (auto* e = std::get_if<ParseError>(&r)) ADD_FAILURE() << e->describe();
  return std::get<Scenario>(r);
}

Scenario load(const std::string& relative) {
  auto loaded = load_scenarios({std::string(RDCC_SCENARIOS_DIR) + "/" + relative}, {});
  EXPECT_TRUE(loaded.errors.empty()) << (loaded.errors.empty() ? "" : loaded.errors[0].describe());
  return loaded.scenarios.at(0);
}

ScenarioResult run(const Scenario& s, const std::vector<std::string>& mutants = {}) {
  SuiteOptions o = reference_options("reference:receiver");
  o.adapter.mutants = mutants;
  return run_one(s, o);
}

// ---- delta debugging ----

// An explore run that neither failed nor ended inconclusive; `label` names the variant.
void expect_clean(const ExploreResult& r, std::string_view label = {}) {
  const std::string who = label.empty() ? std::string() : std::string(label) + ": ";
  EXPECT_FALSE(r.failed) << who << explore_text(r);
  EXPECT_EQ(r.inconclusive, 0U) << who << explore_text(r);
}

// Every one of `parts` occurs in the programs' text `all`.
void expect_all_in(const std::string& all, std::initializer_list<const char*> parts) {
  for (const char* part : parts) EXPECT_NE(all.find(part), std::string::npos) << part;
}

TEST(Ddmin, FindsTheTwoStimuliAFailureNeedsAmongForty) {
  std::size_t calls = 0;
  const auto fails = [&](const std::vector<std::size_t>& keep) {
    ++calls;
    const bool a = std::find(keep.begin(), keep.end(), 3) != keep.end();
    const bool b = std::find(keep.begin(), keep.end(), 31) != keep.end();
    return a && b;
  };
  EXPECT_EQ(ddmin(40, fails), (std::vector<std::size_t>{3, 31}));
  EXPECT_LT(calls, 120U);
}

TEST(Ddmin, KeepsEveryStimulusWhenAllAreNeeded) {
  const auto fails = [](const std::vector<std::size_t>& keep) { return keep.size() == 5; };
  EXPECT_EQ(ddmin(5, fails), (std::vector<std::size_t>{0, 1, 2, 3, 4}));
}

// ---- the programs ----

TEST(Programs, SameSeedSameStimuliAndEveryProgramParses) {
  const auto catalog = Catalog::load(RDCC_CATALOG_PATH);
  const KnownId known = [&](std::string_view id) { return catalog.find(id) != nullptr; };
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    for (std::size_t episode = 0; episode < 3; ++episode) {
      const auto a = render(generate_program(Role::Receiver, seed, episode, 24));
      EXPECT_EQ(a, render(generate_program(Role::Receiver, seed, episode, 24)));
      auto parsed = parse_scenario(a, "explore.scn", known);
      EXPECT_TRUE(std::holds_alternative<Scenario>(parsed))
          << std::get<ParseError>(parsed).describe() << "\n"
          << a;
    }
  }
  EXPECT_NE(render(generate_program(Role::Receiver, 1, 0, 24)),
            render(generate_program(Role::Receiver, 2, 0, 24)));
}

TEST(Programs, DrawTheStimuliTheModelOffers) {
  std::map<std::string, std::size_t> kinds;
  std::string all;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    for (const auto& s : generate_program(Role::Receiver, seed, seed % 3, 24).stimuli) {
      ++kinds[s.kind];
      for (const auto& l : s.lines) all += l + "\n";
    }
  }
  for (const char* k : {"associate",
                        "request",
                        "transfer",
                        "msg-done-again",
                        "unknown-association",
                        "unsupported-binding",
                        "wrong-epoch",
                        "stale-sequence",
                        "sequence-jump",
                        "cancel",
                        "credit-return",
                        "sender-status",
                        "retransmit",
                        "wait",
                        "big-request",
                        "unscheduled",
                        "suggested-rate",
                        "bad-version",
                        "length-too-small",
                        "unknown-type",
                        "unknown-type-other-address",
                        "foreign-request",
                        "overrun",
                        "unscheduled-late"}) {
    EXPECT_GT(kinds[k], 0U) << k;
  }
  // The small-budget episodes hold the sum of U and of the Pacing Rates by watches.
  const Program budget = generate_program(Role::Receiver, 1, 2, 24);
  EXPECT_NE(budget.config.find("link_capacity_mbps="), std::string::npos);
  EXPECT_EQ(budget.preamble.size(), 2U);
  EXPECT_NE(render(budget).find("\nwatch pacing_sum<=100000"), std::string::npos);
  // Field boundaries: classes above 7, weight 0, an equal Sequence Number, the wrap.
  expect_all_in(all, {" traffic_class=9 ", " weight=0 ", "sequence_number=429496"});
}

TEST(Programs, ShrinkingKeepsWhatAStimulusNeeds) {
  bool seen = false;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    const Program p = generate_program(Role::Receiver, seed, 0, 24);
    for (std::size_t i = 0; i < p.stimuli.size(); ++i) {
      for (const auto n : p.stimuli[i].needs) EXPECT_LT(n, i) << p.stimuli[i].kind;
      if (p.stimuli[i].kind != "msg-done-again") continue;
      // The request for a completed message means nothing without the transfer that completed
      // it, nor that without the request and the association.
      const auto kept = with_needs(p, {i});
      std::vector<std::string> kinds;
      for (const auto k : kept) kinds.push_back(p.stimuli[k].kind);
      ASSERT_GE(kinds.size(), 3U);
      EXPECT_EQ(kinds.front(), "associate") << seed;
      EXPECT_EQ(kinds.back(), "msg-done-again") << seed;
      const bool completed = std::count(kinds.begin(), kinds.end(), "transfer") == 1;
      EXPECT_TRUE(completed) << seed;
      seen = true;
    }
  }
  EXPECT_TRUE(seen);
}

// ---- explore against the reference and its mutants ----

TEST(Explore, PassesTheReferenceWithFixedSeeds) {
  for (const std::uint64_t seed : {1U, 2U, 3U}) {
    const auto r = explore(explore_options(seed, 96));
    expect_clean(r);
    EXPECT_EQ(r.stimuli, 96U);
  }
}

TEST(Explore, PassesEveryReceiverVariant) {
  for (const auto& v : ref::variants()) {
    if (v.role != ref::VariantRole::Receiver) continue;
    const auto r = explore(explore_options(1, 96, {}, std::string(v.name)));
    EXPECT_FALSE(r.failed) << v.name << ": " << explore_text(r);
    // Explore's stimuli carry the opaque binding only: a receiver without it (a conforming
    // choice) declines the first message of each episode, which is then unsupported.
    if (v.name == std::string_view("rocev2-binding-only")) {
      ASSERT_FALSE(r.runs.empty());
      for (const auto& run : r.runs) EXPECT_EQ(run.verdict, Verdict::Unsupported) << run.reason;
    }
  }
}

// A sample of the receiver mutants (tools/bench/explore_kill_matrix.sh runs them all): explore
// alone fails each, and the shrunk scenario fails it on its own and passes the reference.
TEST(Explore, KillsMutantsAndShrinksToAScenarioThatFailsAlone) {
  for (const char* mutant :
       {"no-msg-done-again", "unknown-association-silent", "receiver-serial-without-wraparound",
        "grant-beyond-length", "misbehaving-sender-granted", "assoc-id-not-idempotent",
        "unsupported-type-outside-association", "unsupported-type-to-source",
        "grant-to-request-source", "sum-of-u-exceeds-gu", "msg-done-never"}) {
    const auto r = explore(explore_options(1, 400, {mutant}));
    ASSERT_TRUE(r.failed) << mutant << ": " << explore_text(r);
    EXPECT_EQ(r.shrunk.verdict, Verdict::Fail) << mutant << ": " << explore_text(r);
    EXPECT_LE(r.shrunk_stimuli, r.steps_to_failure);
    const Scenario shrunk = parse(r.shrunk_text);
    EXPECT_EQ(run(shrunk, {mutant}).verdict, Verdict::Fail) << mutant << "\n" << r.shrunk_text;
    const auto clean = run(shrunk);
    EXPECT_EQ(clean.verdict, Verdict::Pass) << mutant << ": " << clean.reason << "\n"
                                            << r.shrunk_text;
  }
}

// ---- against a sender: the tester plays its receiver ----

ExploreOptions sender_options(std::uint64_t seed, std::size_t steps,
                              const std::vector<std::string>& mutants = {},
                              const std::string& variant = "") {
  ExploreOptions o = explore_options(seed, steps, mutants, variant);
  o.role = Role::Sender;
  o.suite = reference_options("reference:sender");
  o.suite.adapter.mutants = mutants;
  o.suite.adapter.variant = variant;
  return o;
}

TEST(SenderPrograms, SameSeedSameStimuliAndTheBoundariesTheModelOffers) {
  const auto catalog = Catalog::load(RDCC_CATALOG_PATH);
  const KnownId known = [&](std::string_view id) { return catalog.find(id) != nullptr; };
  std::map<std::string, std::size_t> kinds;
  std::string all;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    const auto p = generate_program(Role::Sender, seed, seed % 4, 24);
    const auto text = render(p);
    EXPECT_EQ(text, render(generate_program(Role::Sender, seed, seed % 4, 24)));
    auto parsed = parse_scenario(text, "explore.scn", known);
    EXPECT_TRUE(std::holds_alternative<Scenario>(parsed))
        << std::get<ParseError>(parsed).describe() << "\n"
        << text;
    for (const auto& st : p.stimuli) {
      ++kinds[st.kind];
      for (const auto& l : st.lines) all += l + "\n";
      for (const auto n : st.needs) EXPECT_LT(n, &st - p.stimuli.data());
    }
  }
  for (const char* k : {"associate", "submit", "grant", "zero-rate-grant", "stale-grant",
                        "forged-grant", "bad-version-grant", "unknown-association", "pool-grant",
                        "msg-done", "cancel", "return-credit", "wait", "forged-accept"}) {
    EXPECT_GT(kinds[k], 0U) << k;
  }
  // Unaligned Credit Units, Lifetime zero (the default), Pacing Rate zero, an Epoch of zero,
  // Sequence Numbers near the wrap, FINAL.
  expect_all_in(all, {" credit_unit=1460", " lifetime=0", " pacing_rate=0 ", " epoch=0 ",
                      "sequence_number=429496", " flags=FINAL", " from=$other", " version=2"});
}

TEST(SenderExplore, PassesTheReferenceAndEverySenderVariant) {
  for (const std::uint64_t seed : {1U, 2U, 3U, 4U}) {
    const auto r = explore(sender_options(seed, 120));
    expect_clean(r);
    EXPECT_EQ(r.stimuli, 120U);
  }
  for (const auto& v : ref::variants()) {
    if (v.role != ref::VariantRole::Sender) continue;
    expect_clean(explore(sender_options(1, 120, {}, std::string(v.name))), v.name);
  }
}

// Explore alone fails each of these sender mutants (the Grant Limit beyond a stale, zero-rate or
// over-used grant, the Lifetime, the pace, a second unscheduled message, a reused Message ID),
// and the shrunk scenario fails it alone and passes the reference.
TEST(SenderExplore, KillsMutantsAndShrinksToAScenarioThatFailsAlone) {
  for (const char* mutant :
       {"sender-exceeds-grant", "sender-ignores-pacing", "sender-uses-zero-rate-grant",
        "sender-stale-accepted", "sender-ignores-lifetime", "sender-reuses-message-id",
        "multiple-unscheduled", "unscheduled-data-before-request", "scheduled-without-credit",
        "sender-serial-without-wraparound", "sender-version-not-checked",
        "sender-ignores-unknown-association", "sender-accepts-wrong-nonce"}) {
    const auto r = explore(sender_options(1, 400, {mutant}));
    ASSERT_TRUE(r.failed) << mutant << ": " << explore_text(r);
    EXPECT_EQ(r.shrunk.verdict, Verdict::Fail) << mutant << ": " << explore_text(r);
    const Scenario shrunk = parse(r.shrunk_text);
    SuiteOptions o = reference_options("reference:sender");
    o.adapter.mutants = {mutant};
    EXPECT_EQ(run_one(shrunk, o).verdict, Verdict::Fail) << mutant << "\n" << r.shrunk_text;
    o.adapter.mutants.clear();
    const auto clean = run_one(shrunk, o);
    EXPECT_EQ(clean.verdict, Verdict::Pass) << mutant << ": " << clean.reason << "\n"
                                            << r.shrunk_text;
  }
}

// The suite plays explore's first episodes against a sender beside its files.
TEST(SenderExplore, EpisodesJoinTheSuiteAsScenarios) {
  const auto catalog = Catalog::load(RDCC_CATALOG_PATH);
  const KnownId known = [&](std::string_view id) { return catalog.find(id) != nullptr; };
  const auto episodes = explore_scenarios(Role::Sender, 1, 6, known);
  ASSERT_EQ(episodes.size(), 6U);
  EXPECT_EQ(episodes[0].name, "explore-sender-1-0");
  EXPECT_EQ(episodes[0].source, render(generate_program(Role::Sender, 1, 0, 24)));
  EXPECT_TRUE(explore_scenarios(Role::Any, 1, 6, known).empty());
  const auto r = run_one(episodes[0], reference_options("reference:sender"));
  EXPECT_EQ(r.verdict, Verdict::Pass) << r.reason;
  EXPECT_EQ(r.source, episodes[0].source);
  // The six episodes of the suite fail a sender that sends beyond its grant.
  SuiteOptions bad = reference_options("reference:sender");
  bad.adapter.mutants = {"sender-exceeds-grant"};
  EXPECT_TRUE(std::any_of(episodes.begin(), episodes.end(), [&](const Scenario& e) {
    return run_one(e, bad).verdict == Verdict::Fail;
  }));
}

// ---- against a CRN ----

ExploreOptions crn_options(std::uint64_t seed, std::size_t steps,
                           const std::vector<std::string>& mutants = {},
                           const std::string& variant = "") {
  ExploreOptions o = explore_options(seed, steps, mutants, variant);
  o.role = Role::Crn;
  o.suite.adapter.role = Role::Crn;
  return o;
}

TEST(CrnPrograms, SameSeedSameStimuliAndTheBoundariesTheModelOffers) {
  std::string all;
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    const auto p = generate_program(Role::Crn, seed, seed % 5, 24);
    const std::string text = render(p);
    EXPECT_EQ(text, render(generate_program(Role::Crn, seed, seed % 5, 24)));
    parse(text);
    all += text;
    // The episode configures the CRN with what the judge needs.
    for (const char* key : {"queue_threshold=", "queue_capacity=", "service_rate_mbps=",
                            "per_flow_interval_us=", "per_port_interval_us="}) {
      EXPECT_NE(p.config.find(key), std::string::npos) << key;
    }
  }
  expect_all_in(all, {" protocol=6 ", " dscp=$unscheduled_dscp ", "source=$tester_data",
                      "destination=$tester_data", "expect CONGESTION_REPORT within 1ms",
                      "ignore CONGESTION_REPORT", "wait 4000us", "dequeue at or below B_th"});
}

TEST(CrnExplore, PassesTheReferenceAndEveryCrnVariant) {
  for (const std::uint64_t seed : {1U, 2U, 3U, 4U}) {
    expect_clean(explore(crn_options(seed, 240)));
  }
  for (const auto& v : ref::variants()) {
    if (v.role != ref::VariantRole::Crn) continue;
    expect_clean(explore(crn_options(1, 240, {}, std::string(v.name))), v.name);
  }
}

// Explore alone fails every CRN mutant, and the shrunk scenario fails it alone and passes the
// reference.
TEST(CrnExplore, KillsEveryCrnMutantAndShrinksToAScenarioThatFailsAlone) {
  for (const auto& m : testing::all_mutants()) {
    if (m.role != testing::MutantRole::Crn) continue;
    const std::string mutant(m.name);
    const auto r = explore(crn_options(1, 400, {mutant}));
    ASSERT_TRUE(r.failed) << mutant << ": " << explore_text(r);
    EXPECT_EQ(r.shrunk.verdict, Verdict::Fail) << mutant << ": " << explore_text(r);
    const Scenario shrunk = parse(r.shrunk_text);
    SuiteOptions o = reference_options("reference:crn");
    o.adapter.mutants = {mutant};
    EXPECT_EQ(run_one(shrunk, o).verdict, Verdict::Fail) << mutant << "\n" << r.shrunk_text;
    o.adapter.mutants.clear();
    const auto clean = run_one(shrunk, o);
    EXPECT_EQ(clean.verdict, Verdict::Pass) << mutant << ": " << clean.reason << "\n"
                                            << r.shrunk_text;
  }
}

// The report judge on its own: each sentence it holds a report to.
struct JudgeFixture {
  CrnReportJudge judge{{{"queue_threshold", 1000},
                        {"queue_capacity", 2000},
                        {"service_rate_mbps", 100000},
                        {"per_flow_interval_us", 50},
                        {"per_port_interval_us", 5}},
                       std::uint8_t{8},
                       50000,
                       ref::Duration{}};
  QueueSample q;
  CongestionReport r;
  Address to = Address::v4(192, 0, 2, 9, 50000);
  JudgeFixture() {
    q.port = 1;
    q.occupancy = 1500;
    q.dscp = 26;
    q.source = Address::v4(192, 0, 2, 5, 40000);
    q.destination = Address::v4(192, 0, 2, 9, 4791);
    q.protocol = 17;
    q.flows = 4;
    r.queue_depth = 1500;
    r.queue_threshold = 1000;
    r.congestion_degree = 127;  // floor(255 * 500 / 1000)
    r.direction = 1;
    r.protocol = 17;
    r.source_port = 40000;
    r.destination_port = 4791;
    r.suggested_rate = 25000;
    r.source_address = q.source.ip;
    r.destination_address = q.destination.ip;
    judge.observed(q, ref::Time{});
  }
  std::string verdict(const CongestionReport& x, ref::Time at = ref::Time{}) {
    auto f = judge.report(x, to, at);
    return f ? f->reason : "ok";
  }
};

TEST(CrnReportJudge, TakesTheReportThePacketCallsForAndNamesEachWrongField) {
  {
    JudgeFixture j;
    EXPECT_EQ(j.verdict(j.r), "ok");
    auto none = j.r;
    none.suggested_rate = 0;  // "optionally"
    EXPECT_EQ(j.verdict(none, ref::Time{ref::microseconds(60).ns}), "ok");
  }
  const std::vector<std::pair<std::string, std::function<void(JudgeFixture&)>>> faults = {
      {"Congestion Degree 128", [](JudgeFixture& j) { j.r.congestion_degree = 128; }},
      {"Queue Depth 500", [](JudgeFixture& j) { j.r.queue_depth = 500; }},
      {"Queue Threshold 2000", [](JudgeFixture& j) { j.r.queue_threshold = 2000; }},
      {"Direction 2 for a packet of DSCP 26",
       [](JudgeFixture& j) {
         j.r.direction = 2;
         j.to = Address::v4(192, 0, 2, 7, 50000);
       }},
      {"sent to 192.0.2.5", [](JudgeFixture& j) { j.to = Address::v4(192, 0, 2, 5, 50000); }},
      {"to port 4791", [](JudgeFixture& j) { j.to.port = 4791; }},
      {"Association ID 7", [](JudgeFixture& j) { j.r.header.association_id = 7; }},
      {"Suggested Rate 100000", [](JudgeFixture& j) { j.r.suggested_rate = 100000; }},
      {"never put into the CRN's queue", [](JudgeFixture& j) { j.r.protocol = 6; }},
  };
  for (const auto& [want, fault] : faults) {
    JudgeFixture j;
    fault(j);
    const auto got = j.verdict(j.r);
    EXPECT_NE(got.find(want), std::string::npos) << want << " / " << got;
  }
  {  // At B_th: "While Q exceeds B_th".
    JudgeFixture j;
    auto q = j.q;
    q.source.port = 40001;
    q.occupancy = 1000;
    j.judge.observed(q, ref::Time{});
    auto r = j.r;
    r.source_port = 40001;
    r.queue_depth = 1000;
    r.congestion_degree = 0;
    EXPECT_NE(j.verdict(r).find("not above its Queue Threshold"), std::string::npos);
  }
  {  // The per-flow interval (50 us): 49 us after the last is too soon, 50 us is not.
    JudgeFixture j;
    EXPECT_EQ(j.verdict(j.r), "ok");
    EXPECT_NE(j.verdict(j.r, ref::Time{ref::microseconds(49).ns}).find("per flow"),
              std::string::npos);
    JudgeFixture k;
    EXPECT_EQ(k.verdict(k.r), "ok");
    EXPECT_EQ(k.verdict(k.r, ref::Time{ref::microseconds(50).ns}), "ok");
  }
  {  // The per-port interval (5 us), for another flow on the same port.
    JudgeFixture j;
    auto q = j.q;
    q.source.port = 40002;
    j.judge.observed(q, ref::Time{});
    auto r = j.r;
    r.source_port = 40002;
    EXPECT_EQ(j.verdict(j.r), "ok");
    EXPECT_NE(j.verdict(r, ref::Time{ref::microseconds(4).ns}).find("aggregate limit per port"),
              std::string::npos);
  }
}

// ---- proof by order ----

TEST(OrderProof, DeadlineIsThePatienceAfterTheWitnessAndNeverEarlier) {
  OrderProof p;
  const ref::Time own{ref::milliseconds(100).ns};
  EXPECT_EQ(p.deadline(own, ref::milliseconds(100)), own);
  p.witness(ref::Time{ref::milliseconds(50).ns}, {7}, "ASSOC_ACCEPT");
  p.witness(ref::Time{ref::milliseconds(60).ns}, {9}, "a later one");  // the first counts
  EXPECT_TRUE(p.proven());
  EXPECT_EQ(p.deadline(own, ref::milliseconds(100)), ref::Time{ref::milliseconds(150).ns});
  EXPECT_EQ(p.deadline(ref::Time{ref::milliseconds(400).ns}, ref::milliseconds(100)),
            ref::Time{ref::milliseconds(400).ns});
  EXPECT_EQ(p.frames(), std::vector<std::size_t>{7});
  EXPECT_NE(p.reason("MSG_DONE", ref::milliseconds(100)).find("(frame 7)"), std::string::npos);
}

// The mutants that only reached INCONCLUSIVE ("silent past the tester's patience") now FAIL by
// order, and the reference passes the same scenarios.
TEST(OrderProof, FailsWhatSilenceOnlyLeftInconclusive) {
  const std::pair<const char*, const char*> cases[] = {
      {"receiver/msg-done-again-by-order.scn", "no-msg-done-again"},
      {"receiver/unknown-association-by-order.scn", "unknown-association-silent"},
  };
  for (const auto& [file, mutant] : cases) {
    const Scenario s = load(file);
    const auto ref_run = run(s);
    EXPECT_EQ(ref_run.verdict, Verdict::Pass) << file << ": " << ref_run.reason;
    const auto bad = run(s, {mutant});
    EXPECT_EQ(bad.verdict, Verdict::Fail) << file << ": " << bad.reason;
    EXPECT_NE(bad.reason.find("answered a message the tester sent after it"), std::string::npos)
        << bad.reason;
    EXPECT_FALSE(bad.frames.empty());
  }
  const auto clean = run(load("receiver/unsupported-binding-by-order.scn"));
  EXPECT_EQ(clean.verdict, Verdict::Pass) << clean.reason;
}

TEST(OrderProof, ParserRejectsLaterWithSilenceOrAlone) {
  const std::string head = "scenario x\nrole receiver\nchecks RDCC-SM-01\n";
  EXPECT_TRUE(std::holds_alternative<ParseError>(
      parse_scenario(head + "expect one of\n| silence\n| later ASSOC_ACCEPT\n", "t.scn", {})));
  EXPECT_TRUE(std::holds_alternative<ParseError>(parse_scenario(
      head + "expect one of\n| later MSG_DONE\n| later ASSOC_ACCEPT\n", "t.scn", {})));
  EXPECT_TRUE(std::holds_alternative<ParseError>(parse_scenario(
      head + "expect one of\n| MSG_DONE\n| later ASSOC_ACCEPT -> a=epoch\n", "t.scn", {})));
  const Scenario ok = parse(head + "expect one of\n| MSG_DONE\n| later ASSOC_ACCEPT\n");
  ASSERT_EQ(ok.steps.at(0).alternatives.size(), 2U);
  EXPECT_TRUE(ok.steps[0].alternatives[1].later);
  EXPECT_EQ(ok.steps[0].alternatives[1].to_string(), "later ASSOC_ACCEPT");
}

// ---- retries: a failure then a pass is FLAKY ----

// An unsupported play is played again only where a `require` measured the play (a transfer that
// waited for credit on a loaded host left the congestion it showed not continuous), never where
// the IUT declined.
TEST(Retries, AnUnsupportedPlayIsPlayedAgainOnlyWhereARequireMeasuredIt) {
  ScenarioResult r;
  r.verdict = Verdict::Unsupported;
  r.step = "require stall<200 \"the tester waited for credit\"";
  EXPECT_TRUE(worth_another_try(r));
  r.step = "expect one of within 1ms";
  EXPECT_FALSE(worth_another_try(r));
  r.verdict = Verdict::Pass;
  EXPECT_FALSE(worth_another_try(r));
  for (const Verdict v : {Verdict::Fail, Verdict::Inconclusive, Verdict::Warn}) {
    r.verdict = v;
    EXPECT_TRUE(worth_another_try(r));
  }
}

TEST(Retries, AFailThenAPassIsFlakyInEveryReportAndKeepsTheFailingEvidence) {
  const Scenario s = load("receiver/grant-final-within-length.scn");
  ScenarioResult failed = run(s, {"grant-beyond-length"});
  ASSERT_EQ(failed.verdict, Verdict::Fail) << failed.reason;
  const ScenarioResult passed = run(s);
  ASSERT_EQ(passed.verdict, Verdict::Pass) << passed.reason;
  const auto failed_frames = failed.frames;
  const auto failed_trace = failed.trace.size();

  const ScenarioResult r = retried({failed, passed});
  EXPECT_EQ(r.verdict, Verdict::Flaky);
  EXPECT_EQ(r.reason.rfind("failed on try 1 of 2, then pass on try 2: ", 0), 0U) << r.reason;
  EXPECT_EQ(r.frames, failed_frames);
  EXPECT_EQ(r.trace.size(), failed_trace);
  // The last try decides otherwise: a pass then a fail is a fail; an inconclusive then a pass
  // a pass.
  EXPECT_EQ(retried({passed, failed}).verdict, Verdict::Fail);
  ScenarioResult inconclusive = passed;
  inconclusive.verdict = Verdict::Inconclusive;
  EXPECT_EQ(retried({inconclusive, passed}).verdict, Verdict::Pass);
  EXPECT_EQ(retried({failed, inconclusive}).verdict, Verdict::Flaky);

  const Counts c = count({r, passed});
  EXPECT_EQ(c.flaky, 1U);
  EXPECT_EQ(c.failed, 0U);
  EXPECT_EQ(summary_line(c),
            "1 passed, 0 warned, 0 failed, 0 inconclusive, 0 unsupported, 0 skipped, 1 flaky");
  EXPECT_EQ(console_line(r, 1, 2).rfind("[1/2] FLAKY", 0), 0U);

  const auto dir = std::filesystem::temp_directory_path() / "rdcc-flaky-report";
  std::filesystem::remove_all(dir);
  SuiteReport report;
  report.iut = "exec:test";
  report.results = {r, passed};
  write_reports(dir.string(), report);
  EXPECT_NE(read(dir / "summary.txt").find(", 1 flaky"), std::string::npos);
  const std::string junit = read(dir / "junit.xml");
  EXPECT_NE(junit.find("failures=\"1\""), std::string::npos);
  EXPECT_NE(junit.find("<failure type=\"flaky\""), std::string::npos);
  const auto results = nlohmann::json::parse(read(dir / "results.json"));
  EXPECT_EQ(results["summary"]["flaky"], 1);
  EXPECT_EQ(results["scenarios"][0]["verdict"], "flaky");
  const std::string html = read(dir / "index.html");
  EXPECT_NE(html.find("data-verdict=\"flaky\""), std::string::npos);
  EXPECT_NE(html.find("v-flaky"), std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace rdcc::conformance
