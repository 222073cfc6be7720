// The kill matrix on real runs of the reference adapter: one CRN scenario kills the mutants
// that break what it checks and lets the others survive, and the matrix says which.
#include "rdcc/conformance/kill_matrix.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace rdcc::conformance {
namespace {

std::vector<Scenario> load(const std::string& relative) {
  const std::string path = std::string(RDCC_SCENARIOS_DIR) + "/" + relative;
  auto loaded = load_scenarios({path}, {});
  EXPECT_TRUE(loaded.errors.empty()) << (loaded.errors.empty() ? "" : loaded.errors[0].describe());
  return loaded.scenarios;
}

const MutantRow& row_of(const KillMatrix& m, std::string_view name) {
  const auto it = std::find_if(m.rows.begin(), m.rows.end(),
                               [&](const MutantRow& r) { return r.mutant->name == name; });
  EXPECT_NE(it, m.rows.end()) << name;
  return *it;
}

SuiteOptions reference_options() {
  SuiteOptions o;
  auto spec = parse_adapter_spec("reference");
  o.adapter = std::get<AdapterSpec>(spec);
  return o;
}

TEST(KillMatrix, OneScenario_KillsWhatItChecksAndNamesTheSurvivors) {
  const auto scenarios = load("crn/report-to-sender-unscheduled.scn");
  ASSERT_EQ(scenarios.size(), 1U);
  const KillMatrix m = run_kill_matrix(scenarios, reference_options());

  ASSERT_EQ(m.reference.size(), 1U);
  EXPECT_EQ(m.reference[0].verdict, Verdict::Pass) << m.reference[0].reason;
  EXPECT_TRUE(m.reference_not_passed().empty());
  ASSERT_EQ(m.rows.size(), testing::kMutantCount);

  // It checks the destination, its port, Direction and Association ID / Epoch ...
  for (const char* killed :
       {"crn-wrong-side", "crn-wrong-port", "crn-direction-swapped", "crn-nonzero-association"}) {
    const auto& row = row_of(m, killed);
    EXPECT_EQ(row.scenarios_run, 1U) << killed;
    EXPECT_EQ(row.killed_by, std::vector<std::string>{"crn-report-to-sender-unscheduled"})
        << killed;
  }
  // ... and the runner's report judge, which holds every report to the packet it names, finds
  // a Queue Depth that is not the packet's Q (steps/crn_reports.hpp) ...
  EXPECT_EQ(row_of(m, "crn-depth-above-threshold").killed_by,
            std::vector<std::string>{"crn-report-to-sender-unscheduled"});
  // ... not the Congestion Degree nor the rate limits; and nothing of the other roles runs.
  for (const char* survived : {"crn-degree-formula", "crn-no-flow-limit", "crn-no-port-limit"}) {
    EXPECT_FALSE(row_of(m, survived).killed()) << survived;
  }
  const auto& receiver_row = row_of(m, "grant-beyond-length");
  EXPECT_EQ(receiver_row.scenarios_run, 0U);
  EXPECT_FALSE(receiver_row.killed());
  EXPECT_FALSE(m.ok());
  EXPECT_EQ(m.survivors().size(), testing::kMutantCount - 5);

  const std::string text = kill_matrix_text(m);
  EXPECT_NE(text.find("crn-wrong-port  [crn]  killed by 1 of 1: crn-report-to-sender-unscheduled"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("crn-degree-formula  [crn]  SURVIVED 1 scenarios"), std::string::npos)
      << text;
  EXPECT_NE(text.find(std::to_string(testing::kMutantCount) + " mutants: 5 killed, " +
                      std::to_string(testing::kMutantCount - 5) + " survived"),
            std::string::npos)
      << text;
}

TEST(KillMatrix, SilencePastThePatience_WhereTheReferenceAnswers_IsAKill_NamedAsSuch) {
  // The spec sets no deadline for "answers with MSG_DONE again": a receiver that never does is
  // inconclusive for a vendor, and the mutant that never does is killed by that silence, named
  // apart from the failures.
  const auto scenarios = load("receiver/msg-done-after-data.scn");
  ASSERT_EQ(scenarios.size(), 1U);
  const KillMatrix m = run_kill_matrix(scenarios, reference_options());
  ASSERT_EQ(m.reference.size(), 1U);
  EXPECT_EQ(m.reference[0].verdict, Verdict::Pass) << m.reference[0].reason;
  const auto& row = row_of(m, "no-msg-done-again");
  EXPECT_TRUE(row.killed());
  EXPECT_TRUE(row.killed_by.empty());
  EXPECT_EQ(row.silent_in, std::vector<std::string>{"receiver-msg-done-after-data"});
  EXPECT_TRUE(row.inconclusive.empty());
  const std::string text = kill_matrix_text(m);
  EXPECT_NE(text.find("no-msg-done-again  [receiver]  killed by 1 of 1: silent past the tester's "
                      "patience (inconclusive) in receiver-msg-done-after-data"),
            std::string::npos)
      << text;
}

// Through real nodes the matrix plays each mutant only the scenarios that killed it in process,
// those that failed it alone before those it was silent in, and stops at the first kill.
TEST(KillMatrix, KillOrder_PlaysOnlyTheInProcessKillers_FailingOnesFirst) {
  auto scenarios = load("crn/report-to-sender-unscheduled.scn");
  const auto degree = load("crn/congestion-degree.scn");
  scenarios.insert(scenarios.end(), degree.begin(), degree.end());
  ASSERT_EQ(scenarios.size(), 2U);
  SuiteOptions o = reference_options();
  o.adapter.role = Role::Crn;
  o.adapter.any_role = false;
  o.jobs = 2;

  // The order the in-process matrix gives: a row's failing scenarios counted apart.
  const KillMatrix in_process = run_kill_matrix(scenarios, o);
  const KillOrder derived = kill_order_of(in_process);
  EXPECT_TRUE(derived.first_kill);
  EXPECT_EQ(derived.try_first.at("crn-wrong-port"),
            std::vector<std::string>{"crn-report-to-sender-unscheduled"});
  EXPECT_EQ(derived.failing_first.at("crn-wrong-port"), 1U);

  KillOrder order;
  order.first_kill = true;
  // Named with the scenario that fails it: that one alone is played, and kills it.
  order.try_first["crn-wrong-port"] = {"crn-report-to-sender-unscheduled"};
  order.failing_first["crn-wrong-port"] = 1;
  // Named with a scenario that does not fail it: it survives that one, and the other scenario
  // (which might) is not played.
  order.try_first["crn-degree-formula"] = {"crn-report-to-sender-unscheduled"};
  order.failing_first["crn-degree-formula"] = 1;
  const KillMatrix m = run_kill_matrix(scenarios, o, {}, order);

  const auto& killed = row_of(m, "crn-wrong-port");
  EXPECT_TRUE(killed.killed());
  EXPECT_EQ(killed.scenarios_run, 1U);  // not a batch of two: the failing one alone
  EXPECT_EQ(killed.scenarios_of_role, 2U);
  const auto& narrowed = row_of(m, "crn-degree-formula");
  EXPECT_FALSE(narrowed.killed());
  EXPECT_EQ(narrowed.scenarios_run, 1U);
  EXPECT_NE(kill_matrix_text(m).find("crn-degree-formula  [crn]  SURVIVED 1 scenarios (those "
                                     "that killed it in process; of 2)"),
            std::string::npos)
      << kill_matrix_text(m);
  // A mutant not named plays the whole selection, two at a time, until one fails it.
  const auto& unnamed = row_of(m, "crn-direction-swapped");
  EXPECT_TRUE(unnamed.killed());
  EXPECT_EQ(unnamed.scenarios_run, 2U);
}

TEST(KillMatrix, WritesTextMarkdownAndJson) {
  const auto scenarios = load("crn/at-threshold-silent.scn");
  const KillMatrix m = run_kill_matrix(scenarios, reference_options());
  const auto dir =
      std::filesystem::temp_directory_path() /
      ("rdcc-kill-matrix-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  std::filesystem::remove_all(dir);
  write_kill_matrix(dir.string(), m);

  std::ifstream json_file(dir / "kill-matrix.json");
  const auto j = nlohmann::json::parse(json_file);
  // The scenario and the report judge behind it kill a few CRN mutants; the file says which.
  EXPECT_GE(m.survivors().size(), testing::kMutantCount - 8);
  EXPECT_EQ(j["killed"], testing::kMutantCount - m.survivors().size());
  EXPECT_EQ(j["survived"], m.survivors().size());
  bool found = false;
  for (const auto& row : j["mutants"]) {
    if (row["mutant"] == "crn-below-threshold") {
      found = true;
      EXPECT_EQ(row["killed_by"], nlohmann::json::array({"crn-at-threshold-silent"}));
    }
  }
  EXPECT_TRUE(found);
  std::stringstream md;
  md << std::ifstream(dir / "kill-matrix.md").rdbuf();
  EXPECT_NE(md.str().find("| `crn-below-threshold` | crn |"), std::string::npos);
  EXPECT_NE(md.str().find("**survived**"), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(dir / "kill-matrix.txt"));
  std::filesystem::remove_all(dir);
}

TEST(KillMatrix, UnwritableFolder_IsAnErrorNamingIt) {
  const KillMatrix m;
  EXPECT_THROW(
      {
        try {
          write_kill_matrix("/proc/rdcc-no-such-folder/x", m);
        } catch (const std::runtime_error& e) {
          EXPECT_NE(std::string(e.what()).find("/proc/rdcc-no-such-folder"), std::string::npos);
          throw;
        }
      },
      std::runtime_error);
}

}  // namespace
}  // namespace rdcc::conformance
