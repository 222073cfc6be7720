// rdcc-conform: runs the conformance scenarios against an implementation under test and
// reports a verdict per scenario tied to the spec's requirements (docs/scenario-language.md).
// Exit status: 0 when nothing failed, 1 when a scenario failed, 2 on usage or parse errors, 3
// when some scenario was inconclusive, 4 when one failed on a try and passed on a retry (flaky).
#include <unistd.h>
#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <system_error>
#include <thread>

#include "rdcc/conformance/adapter.hpp"
#ifdef RDCC_AUTOMUT
#include "rdcc/conformance/auto_mutants.hpp"
#endif
#include "rdcc/conformance/catalog.hpp"
#include "rdcc/conformance/explore.hpp"
#include "rdcc/conformance/iut_matrix.hpp"
#include "rdcc/conformance/kill_matrix.hpp"
#include "rdcc/conformance/random_matrix.hpp"
#include "rdcc/conformance/report.hpp"
#include "rdcc/conformance/suite.hpp"
#include "rdcc/conformance/variant_matrix.hpp"
#include "rdcc/reference/variants.hpp"
#include "rdcc/testing/mutants.hpp"
#include "rdcc/testing/random_variants.hpp"
#include "rdcc/version.h"

namespace {

using namespace rdcc::conformance;

constexpr int kExitFail = 1;
constexpr int kExitUsage = 2;
// Nothing failed, but the tester saw too little to judge some scenario (inconclusive): a CI that
// reads the status must not take that for a pass.
constexpr int kExitInconclusive = 3;
// Nothing failed on its last try, but a scenario failed on an earlier one (--retries): FLAKY.
constexpr int kExitFlaky = 4;

std::optional<double> parse_percent(std::string text) {
  if (!text.empty() && text.back() == '%') text.pop_back();
  try {
    std::size_t used = 0;
    const double v = std::stod(text, &used);
    if (used != text.size() || v < 0) return std::nullopt;
    return v / 100.0;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// Where the scenarios and the catalog are when --scenarios and --catalog are not given: beside
// the installed program (PREFIX/bin/rdcc-conform -> PREFIX/share/rdcc/{scenarios,catalog}),
// else the source tree's conformance/ folder it was built from; either way from any cwd.
std::filesystem::path data_dir() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    auto installed = (exe.parent_path() / RDCC_INSTALLED_DATA_DIR).lexically_normal();
    if (std::filesystem::is_directory(installed / "scenarios", ec)) return installed;
  }
  return RDCC_SOURCE_DATA_DIR;
}

// The catalog as the reports cite it (none: the reports name IDs only).
std::vector<RequirementRow> catalog_rows(const std::optional<Catalog>& catalog) {
  std::vector<RequirementRow> rows;
  if (!catalog) return rows;
  for (const auto& r : catalog->all()) {
    rows.push_back({r.id, r.section, std::string(to_string(r.level)),
                    std::string(to_string(r.role)), std::string(to_string(r.testing)), r.text,
                    r.clause});
  }
  return rows;
}

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : " ") + s;
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"rdcc-conform: RDCC conformance scenarios against an implementation under test",
               "rdcc-conform"};
  app.set_version_flag("--version", "rdcc-conform " RDCC_VERSION);
  std::string iut;
  std::string role_text = "receiver";
  std::vector<std::string> mutants;
  std::string variant;
  std::vector<std::string> filters;
  bool list = false;
  bool list_mutants = false;
  bool list_variants = false;
  bool list_config = false;
  bool kill_matrix = false;
  bool variant_matrix = false;
  std::string matrix_file;
  std::uint64_t random_count = 0;
  std::uint64_t random_seed = 1;
  std::uint64_t random_first = 0;
  std::string random_variant;
  bool list_random_choices = false;
  std::uint32_t auto_mutant = 0;
  bool auto_mutant_matrix = false;
  bool list_auto_mutants = false;
  std::string auto_mutant_ids;
  std::size_t auto_mutant_sample = 0;
  bool strict = false;
  unsigned jobs = 1;
  unsigned retries = 0;
  const std::filesystem::path data = data_dir();
  std::string scenarios_dir = (data / "scenarios").string();
  const std::string suite_dir = scenarios_dir;  // the suite's own scenarios
  std::string report_dir;
  std::string catalog_path = (data / "catalog" / "requirements.json").string();
  std::string tolerance_abs = "200us";
  std::string tolerance_rel = "10%";
  std::string unscheduled_dscp = "8";
  std::string class_dscp = "0,0,0,0,0,0,0,0";
  std::string checker_tolerance = "100us";
  std::string patience = "100ms";
  app.add_option("--iut", iut,
                 "The IUT: reference (each scenario on the reference of its role), "
                 "reference:receiver|sender|crn, udp:HOST:PORT[,data=PORT][,rocev2=PORT] or "
                 "exec:\"COMMAND {rdcc_port} {data_port} {rocev2_port} {tester_port} "
                 "{tester_data_port} {config} {config_keys}\"");
  app.add_option("--role", role_text, "The role of a udp: or exec: IUT (receiver, sender, crn)")
      ->check(CLI::IsMember({"receiver", "sender", "crn"}));
  app.add_option("--mutant", mutants,
                 "Start the reference IUT with this deliberate fault (exec: the reference node: "
                 "the command's {mutant}, or --mutant NAME appended)");
  app.add_option("--variant", variant,
                 "Start the reference IUT with this conforming variant: a behaviour the spec "
                 "permits that the default does not choose");
  std::string data_framing;
  app.add_option("--data-framing", data_framing,
                 "JSON file describing how the IUT frames opaque data (docs/data-transport.md, "
                 "\"A vendor's framing\"); default: the project's framing. An exec: command "
                 "must be given the same (rdcc receiver|sender --data-framing FILE)");
  app.add_flag("--list", list, "List the selected scenarios and exit");
  app.add_flag("--list-variants", list_variants,
               "List the variants --variant takes, each with the spec sentence that permits "
               "it, and exit");
  app.add_flag("--list-mutants", list_mutants, "List the mutants --mutant takes and exit");
  app.add_flag("--list-config", list_config,
               "List the configuration keys a scenario's config line takes, per role: unit, "
               "the reference IUT's default, range and the reference node's option; and exit");
  app.add_flag("--kill-matrix", kill_matrix,
               "Run the suite against the reference and against each mutant; fail unless the "
               "reference passes and every mutant is killed (--iut reference; or --iut exec: "
               "starting the reference node of --role, each mutant as a real node: {mutant} in "
               "the command, or --mutant NAME appended)");
  app.add_flag("--variant-matrix", variant_matrix,
               "Run the suite against each conforming variant of the reference (the scenarios "
               "of its role, default and --strict); fail unless every variant passes every "
               "scenario of a default run (--iut reference only)");
  app.add_option("--matrix", matrix_file,
                 "Interop matrix: run every IUT this file lists (a line each: [role=ROLE] "
                 "[variant=NAME|*] [mutant=NAME|*] [IUT as --iut takes it; default reference]) "
                 "against the scenarios of its role; write each run's report into "
                 "--report DIR/NN-NAME/ and the grid to DIR/matrix.html (and matrix.json)");
  app.add_option("--random-variants", random_count,
                 "Run the suite against N random conforming variants of the reference (every "
                 "free choice drawn within the spec's bounds from --seed); any FAIL is a false "
                 "failure, shrunk to the fewest draws that still fail (--iut reference only)");
  app.add_option("--seed", random_seed,
                 "The seed of --random-variants, --auto-mutant samples and --explore (the same "
                 "stimuli on every adapter; default 1)");
  app.add_option("--first-index", random_first,
                 "The index of the first random variant --random-variants runs (default 0)");
  app.add_option("--random-variant", random_variant,
                 "Start the reference IUT with one random conforming variant: SEED:INDEX, or a "
                 "shrunk one SEED:INDEX:NAME,NAME (as --random-variants prints them)");
  app.add_flag("--list-random-choices", list_random_choices,
               "List the free choices a random variant draws, each with the spec sentence that "
               "leaves it free, and exit");
  app.add_option("--auto-mutant", auto_mutant,
                 "Start the reference IUT with automatic mutant ID (the rule code's operators, "
                 "constants and sending statements changed by a tool: --list-auto-mutants); runs "
                 "rdcc-conform-automut, the suite built against the mutated copy");
  app.add_flag("--auto-mutant-matrix", auto_mutant_matrix,
               "Run every automatic mutant (or --auto-mutants IDS, --auto-mutant-sample N from "
               "--seed) against the scenarios of its role: killed, inconclusive, survived "
               "(wire trace not the reference's), equivalent; print the mutation score");
  app.add_option("--auto-mutants", auto_mutant_ids, "The automatic mutants to run: 1-40,77");
  app.add_option("--auto-mutant-sample", auto_mutant_sample,
                 "Run N automatic mutants drawn from --seed");
  app.add_flag("--list-auto-mutants", list_auto_mutants, "List the automatic mutants and exit");
  app.add_option("--filter", filters,
                 "Select scenarios whose name, a tag or a requirement ID matches this glob "
                 "(repeatable: any match selects)");
  app.add_flag("--strict", strict,
               "A failed SHOULD-level check is a FAIL, not a WARN; also run scenarios that check "
               "only MAY-level requirements");
  app.add_option("--jobs,-j", jobs, "Scenarios run in parallel")->check(CLI::Range(1U, 64U));
  app.add_option("--scenarios", scenarios_dir,
                 "Folder of *.scn files (searched recursively); default: share/rdcc/scenarios "
                 "beside the installed program (bin/../share/rdcc), or the source tree's "
                 "conformance/scenarios for a program in its build tree");
  app.add_option("--report", report_dir,
                 "Write summary.txt, junit.xml, results.json, coverage.md/json and per scenario "
                 "a pcap and an event log into this folder");
  auto* catalog_option =
      app.add_option("--catalog", catalog_path,
                     "The requirement catalog (requirements.json); default: "
                     "share/rdcc/catalog/requirements.json, found as --scenarios is");
  app.add_option("--tolerance-abs", tolerance_abs,
                 "Timing tolerance of real-time adapters, absolute part (e.g. 200us)");
  app.add_option("--tolerance-rel", tolerance_rel,
                 "Timing tolerance of real-time adapters, relative part (e.g. 10%)");
  app.add_option("--unscheduled-dscp", unscheduled_dscp,
                 "udp:, exec: the DSCP the domain configures for unscheduled data as the IUT has "
                 "it (0..63), or 'none'; an IUT's upper tester that says it in hello overrides it "
                 "(default 8)");
  app.add_option("--class-dscp", class_dscp,
                 "udp:, exec: the DSCP the domain configures for each Traffic Class as the IUT "
                 "has it: eight values 0..63, class 0 first, comma-separated, or 'none'; an IUT's "
                 "upper tester that says it in hello (\"class_dscp\") overrides it (default 0 "
                 "for every class)");
  app.add_option("--checker-tolerance", checker_tolerance,
                 "Real-time adapters: how far the invariant checker's view of the IUT's data "
                 "timing may be from the IUT's own (the tester reads kernel receive timestamps; "
                 "on a real network, the path's jitter), e.g. 100us");
  app.add_option("--patience", patience,
                 "The least time an expect waits where the spec states no deadline (a grant, "
                 "MSG_DONE, an ERROR reply, data): nothing arriving within it is inconclusive, "
                 "never a failure (default 100ms)");
  app.add_option("--retries", retries,
                 "Real-time adapters: play a scenario that failed, warned, was inconclusive or "
                 "unsupported by a `require` up to N more times, each on a fresh IUT (the report "
                 "says so); a failure then a pass is FLAKY (exit 4), never a pass")
      ->check(CLI::Range(0U, 5U));
  bool explore_mode = false;
  std::size_t explore_steps = 200;
  std::string explore_duration;
  app.add_flag(
      "--explore", explore_mode,
      "Explore mode (docs/explore.md): play generated stimuli against the IUT (receiver, "
      "sender or CRN role), judged by the invariant checker, stated bounds and proof by order; a "
      "failure is shrunk to a scenario file that fails on its own");
  app.add_option("--steps", explore_steps, "--explore: stimuli to play in all (default 200)");
  app.add_option("--duration", explore_duration,
                 "--explore: play for this long (e.g. 30s) instead of --steps");
  std::size_t explore_episodes = 12;
  auto* episodes_option =
      app.add_option("--explore-episodes", explore_episodes,
                     "Episodes of explore (of --seed, 24 stimuli each) the suite plays against a "
                     "receiver, a sender and a CRN beside its own scenario files, as scenarios "
                     "explore-SEED-N, explore-sender-SEED-N and explore-crn-SEED-N (default 12; "
                     "0: none; beside a "
                     "--scenarios folder of your own only when given; docs/explore.md)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : kExitUsage;
  }

  if (list_mutants) {
    for (const auto& m : rdcc::testing::all_mutants()) {
      std::cout << m.name << "  [" << rdcc::testing::to_string(m.role) << "]  " << m.description
                << "\n    breaks: " << m.requirement << "\n";
    }
    return 0;
  }
#ifndef RDCC_AUTOMUT
  // The automatic mutants live in their own program, built against the mutated copy of the
  // rule code; this one hands the whole command line over to it (a matrix file too, when it
  // lists one).
  bool matrix_of_auto_mutants = false;
  if (!matrix_file.empty()) {
    std::ifstream in(matrix_file);
    std::string line;
    while (std::getline(in, line)) matrix_of_auto_mutants |= line.find("auto-mutant=") == 0;
  }
  if (auto_mutant != 0 || auto_mutant_matrix || list_auto_mutants || matrix_of_auto_mutants) {
    std::error_code ec;
    const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
    const auto other = (self.parent_path() / "rdcc-conform-automut").string();
    execv(other.c_str(), argv);
    std::cerr << "rdcc-conform: the automatic mutants need " << other << " (configure with "
              << "-DRDCC_AUTOMUT=ON where /usr/bin/python3 has python3-clang): "
              << std::strerror(errno) << "\n";
    return kExitUsage;
  }
#else
  set_auto_mutant_hooks({[](std::uint32_t id) { rdcc::automut::set_active(id); },
                         [](std::uint32_t id) -> std::optional<std::string> {
                           const auto* m = find_auto_mutant(id);
                           if (m == nullptr) return std::nullopt;
                           return describe(*m);
                         }});
  if (list_auto_mutants) {
    for (std::size_t i = 0; i < rdcc::automut::kAutoMutantCount; ++i) {
      std::cout << describe(rdcc::automut::kAutoMutants[i]) << "\n";
    }
    return 0;
  }
  if (auto_mutant != 0) {
    if (find_auto_mutant(auto_mutant) == nullptr) {
      std::cerr << "rdcc-conform: no automatic mutant " << auto_mutant << " (1.."
                << rdcc::automut::kAutoMutantCount << ")\n";
      return kExitUsage;
    }
    rdcc::automut::set_active(auto_mutant);
  }
#endif
  if (list_random_choices) {
    for (const auto& c : rdcc::testing::random_choices()) {
      std::cout << c.name << "  [" << rdcc::ref::to_string(c.role) << "]  " << c.meaning
                << "\n    permits: " << choice_permits_text(c) << "\n";
    }
    return 0;
  }
  if (list_config) {
    std::cout << config_keys_table();
    return 0;
  }
  if (list_variants) {
    for (const auto& v : rdcc::ref::variants()) {
      std::cout << v.name << " [" << rdcc::ref::to_string(v.role) << "] permits: \""
                << permits_text(v) << "\""
                << (v.requirement.empty() ? "" : " (" + std::string(v.requirement) + ")") << "\n";
    }
    return 0;
  }
  SuiteOptions options;
  if (!iut.empty()) {
    auto spec = parse_adapter_spec(iut);
    if (auto* e = std::get_if<std::string>(&spec)) {
      std::cerr << "rdcc-conform: " << *e << "\n";
      return kExitUsage;
    }
    options.adapter = std::get<AdapterSpec>(spec);
    if (!data_framing.empty()) {
      try {
        options.adapter.data_framing = rdcc::ref::DataFraming::load(data_framing);
      } catch (const rdcc::ref::FramingError& e) {
        std::cerr << "rdcc-conform: --data-framing: " << e.what() << "\n";
        return kExitUsage;
      }
    }
  } else if (!list && matrix_file.empty()) {
    std::cerr << "rdcc-conform: --iut is required (see --help)\n";
    return kExitUsage;
  }
  if (options.adapter.kind != AdapterSpec::Kind::Reference) {
    options.adapter.role = role_text == "sender" ? Role::Sender
                           : role_text == "crn"  ? Role::Crn
                                                 : Role::Receiver;
    if (!mutants.empty() && options.adapter.kind != AdapterSpec::Kind::Exec) {
      std::cerr << "rdcc-conform: --mutant applies to the reference IUT and to exec: (the "
                   "reference node) only\n";
      return kExitUsage;
    }
    if (!variant.empty()) {
      std::cerr << "rdcc-conform: --variant applies to the reference IUT only (a real node "
                   "takes it: rdcc receiver|sender|crn --variant NAME)\n";
      return kExitUsage;
    }
  }
  for (const auto& name : mutants) {
    const auto* m = rdcc::testing::find_mutant(name);
    if (m == nullptr) {
      std::cerr << "rdcc-conform: unknown mutant '" << name << "' (--list-mutants lists them)\n";
      return kExitUsage;
    }
    if (!options.adapter.any_role && to_string(m->role) != to_string(options.adapter.role)) {
      std::cerr << "rdcc-conform: mutant '" << name << "' is a fault of the " << to_string(m->role)
                << ", not of the " << to_string(options.adapter.role) << "\n";
      return kExitUsage;
    }
  }
  options.adapter.mutants = mutants;
  if (!random_variant.empty() || random_count > 0) {
    std::string error;
    if (options.adapter.kind != AdapterSpec::Kind::Reference || !variant.empty() ||
        (!random_variant.empty() && random_count > 0)) {
      std::cerr << "rdcc-conform: --random-variant(s) applies to the reference IUT, without "
                   "--variant, and one of the two\n";
      return kExitUsage;
    }
    if (!random_variant.empty() && !rdcc::testing::parse_random_variant(random_variant, &error)) {
      std::cerr << "rdcc-conform: " << error << "\n";
      return kExitUsage;
    }
    options.adapter.random_variant = random_variant;
  }
  if (!variant.empty()) {
    const auto* v = rdcc::ref::find_variant(variant);
    if (v == nullptr) {
      std::string known;
      for (const auto& k : rdcc::ref::variants())
        known += (known.empty() ? "" : ", ") + std::string(k.name);
      std::cerr << "rdcc-conform: unknown variant '" << variant
                << "'; these are: " << (known.empty() ? "(none)" : known) << "\n";
      return kExitUsage;
    }
    if (!options.adapter.any_role && to_string(v->role) != to_string(options.adapter.role)) {
      std::cerr << "rdcc-conform: variant '" << variant << "' is a behaviour of the "
                << to_string(v->role) << ", not of the " << to_string(options.adapter.role) << "\n";
      return kExitUsage;
    }
    options.adapter.variant = variant;
  }
  auto abs = parse_duration(tolerance_abs);
  auto rel = parse_percent(tolerance_rel);
  if (!abs || !rel) {
    std::cerr << "rdcc-conform: --tolerance-abs takes a duration (200us) and --tolerance-rel a "
                 "percentage (10%)\n";
    return kExitUsage;
  }
  if (unscheduled_dscp == "none") {
    options.adapter.unscheduled_dscp = std::nullopt;
  } else {
    char* end = nullptr;
    const unsigned long d = std::strtoul(unscheduled_dscp.c_str(), &end, 10);
    if (unscheduled_dscp.empty() || *end != '\0' || d > 63) {
      std::cerr << "rdcc-conform: --unscheduled-dscp takes 0..63 or none, not '" << unscheduled_dscp
                << "'\n";
      return kExitUsage;
    }
    options.adapter.unscheduled_dscp = static_cast<std::uint8_t>(d);
  }
  if (auto e = parse_class_dscps(class_dscp, options.adapter.class_dscps)) {
    std::cerr << "rdcc-conform: --class-dscp " << *e << "\n";
    return kExitUsage;
  }
  const auto checker_abs = parse_duration(checker_tolerance);
  if (!checker_abs) {
    std::cerr << "rdcc-conform: --checker-tolerance takes a duration (100us)\n";
    return kExitUsage;
  }
  options.run.checker_tolerance = *checker_abs;
  const auto patience_d = parse_duration(patience);
  if (!patience_d) {
    std::cerr << "rdcc-conform: --patience takes a duration (100ms), not '" << patience << "'\n";
    return kExitUsage;
  }
  options.run.patience = *patience_d;
  options.run.tolerance_abs = *abs;
  options.run.tolerance_rel = *rel;
  options.strict = strict;
  options.jobs = jobs;
  options.retries = retries;

  const auto files = find_scenario_files(scenarios_dir);
  if (files.empty()) {
    std::cerr << "rdcc-conform: no *.scn files under " << scenarios_dir << "\n";
    return kExitUsage;
  }
  // The catalog: IDs in `checks` must be in it, levels decide what --strict adds, and the
  // coverage matrix lists every requirement. Without the file (and without --catalog), IDs
  // are checked for their form only.
  std::optional<Catalog> catalog;
  if (catalog_option->count() > 0 || std::filesystem::exists(catalog_path)) {
    try {
      catalog = Catalog::load(catalog_path);
    } catch (const std::exception& e) {
      std::cerr << "rdcc-conform: " << e.what() << "\n";
      return kExitUsage;
    }
  } else {
    std::cerr << "rdcc-conform: no catalog at " << catalog_path
              << "; requirement IDs are checked for their form only\n";
  }
  KnownId known_id;
  if (catalog) {
    known_id = [&catalog](std::string_view id) { return catalog->find(id) != nullptr; };
    options.level_of = [&catalog](std::string_view id) -> std::optional<std::string> {
      const auto* r = catalog->find(id);
      if (r == nullptr) return std::nullopt;
      return std::string(to_string(r->level));
    };
  }
  if (explore_mode) {
    // reference:sender names the role itself; --role names it for udp: and exec:.
    std::string explore_role = role_text;
    if (options.adapter.kind == AdapterSpec::Kind::Reference && !options.adapter.any_role) {
      explore_role = std::string(to_string(options.adapter.role));
    }
    return explore_main({options, explore_role, explore_duration, iut, report_dir, random_seed,
                         explore_steps, known_id, catalog_rows(catalog)},
                        std::cout, std::cerr);
  }
  auto loaded = load_scenarios(files, known_id);
  if (!loaded.errors.empty()) {
    for (const auto& e : loaded.errors) std::cerr << e.describe() << "\n";
    return kExitUsage;
  }
  // Explore's episodes beside the suite's files: stimuli nobody listed, in every run of the
  // suite (not beside a folder of one's own, unless --explore-episodes asks for them).
  std::error_code same_ec;
  const bool the_suite = std::filesystem::equivalent(scenarios_dir, suite_dir, same_ec);
  if (the_suite || episodes_option->count() > 0) {
    for (const Role role : {Role::Receiver, Role::Sender, Role::Crn}) {
      for (auto& s : explore_scenarios(role, random_seed, explore_episodes, known_id)) {
        loaded.scenarios.push_back(std::move(s));
      }
    }
  }
  std::vector<Scenario> selected;
  for (auto& s : loaded.scenarios) {
    // --iut reference --variant NAME: the scenarios of the variant's role.
    const auto* v = variant.empty() ? nullptr : rdcc::ref::find_variant(variant);
    const bool role_ok =
        iut.empty() || (options.adapter.any_role
                            ? v == nullptr || to_string(s.role) == rdcc::ref::to_string(v->role)
                            : s.role == options.adapter.role);
    if (role_ok && matches_filters(s, filters)) selected.push_back(std::move(s));
  }
  if (list) {
    for (const auto& s : selected) {
      std::cout << s.name << "  [" << to_string(s.role) << "]  checks " << join(s.checks);
      if (!s.tags.empty()) std::cout << "  tags " << join(s.tags);
      std::cout << "\n    " << s.description << "\n";
      // The configuration the scenario needs, and how the reference node takes it: what a
      // vendor sets on a udp: IUT before declaring it (udp:...,KEY=VALUE).
      if (!s.config.empty()) {
        std::cout << "    config " << config_keys_text(s.config);
        const auto node_options = node_config_options(s.role, s.config);
        if (const auto* o = std::get_if<std::vector<std::string>>(&node_options)) {
          std::cout << "  (rdcc " << to_string(s.role) << " options:";
          for (const auto& w : *o) std::cout << ' ' << w;
          std::cout << ')';
        }
        std::cout << "\n";
      }
    }
    std::cout << selected.size() << " scenarios\n";
    return 0;
  }
  if (selected.empty()) {
    std::cerr << "rdcc-conform: no scenario matches the IUT's role and the filters\n";
    return kExitUsage;
  }

  if (!matrix_file.empty()) {
    if (!iut.empty() || kill_matrix || variant_matrix || !mutants.empty() || !variant.empty() ||
        report_dir.empty()) {
      std::cerr << "rdcc-conform: --matrix FILE takes its IUTs from the file (no --iut, --mutant, "
                   "--variant, --kill-matrix or --variant-matrix) and needs --report DIR\n";
      return kExitUsage;
    }
    std::vector<MatrixIut> iuts;
    try {
      iuts = load_matrix_file(matrix_file, options.adapter);
    } catch (const std::exception& e) {
      std::cerr << "rdcc-conform: " << e.what() << "\n";
      return kExitUsage;
    }
    SuiteReport report;
    report.requirements = catalog_rows(catalog);
    std::cout << "rdcc-conform: interop matrix of " << iuts.size() << " IUTs and "
              << selected.size() << " scenarios\n";
    try {
      const auto rows = run_interop_matrix(
          iuts, selected, options, report_dir, report, [](const MatrixRunRow& row) {
            std::cout << row.iut << ": "
                      << (row.note.empty() ? summary_line(count(row.results))
                                           : "not run: " + row.note)
                      << "  (" << row.report << "/index.html)" << std::endl;
          });
      std::cout << "report: " << report_dir << "/matrix.html (and matrix.json; a report per IUT)\n";
      // The matrix shows verdicts; a mutant's failures are what it is for. Exit 1 only when an
      // IUT could not be run at all.
      for (const auto& row : rows) {
        if (!row.note.empty()) return kExitFail;
      }
      return 0;
    } catch (const std::exception& e) {
      std::cerr << "rdcc-conform: " << e.what() << "\n";
      return kExitUsage;
    }
  }

#ifdef RDCC_AUTOMUT
  if (auto_mutant_matrix) {
    std::vector<std::uint32_t> ids;
    std::string error;
    if (!auto_mutant_ids.empty()) {
      ids = parse_auto_mutant_ids(auto_mutant_ids, &error);
    } else if (auto_mutant_sample > 0) {
      ids = sample_auto_mutants(auto_mutant_sample, random_seed);
    } else {
      ids = parse_auto_mutant_ids("1-" + std::to_string(rdcc::automut::kAutoMutantCount), &error);
    }
    if (ids.empty()) {
      std::cerr << "rdcc-conform: " << error << "\n";
      return kExitUsage;
    }
    std::cout << "rdcc-conform: " << ids.size() << " automatic mutants of "
              << rdcc::automut::kAutoMutantCount << ", " << selected.size() << " scenarios\n";
    const AutoMatrix m = run_auto_mutant_matrix(
        selected, options, ids, (data / "mutants-reviewed.md").string(),
        [](const AutoMutantRow& row) { std::cout << auto_row_text(row) << std::flush; });
    std::cout << auto_matrix_summary(m);
    if (!report_dir.empty()) {
      try {
        write_auto_matrix(report_dir, m);
        std::cout << "report: " << report_dir << " (auto-mutants.txt, auto-mutants.json)\n";
      } catch (const std::exception& e) {
        std::cerr << "rdcc-conform: " << e.what() << "\n";
        return kExitUsage;
      }
    }
    for (const auto& row : m.rows) {
      if (row.outcome == AutoOutcome::Survived && row.reviewed.empty()) return kExitFail;
    }
    return 0;
  }
#endif
  if (random_count > 0) {
    std::cout << "rdcc-conform: " << random_count << " random variants of seed " << random_seed
              << " from index " << random_first << ", " << selected.size() << " scenarios\n";
    const RandomMatrix m = run_random_variants(
        selected, options, random_seed, random_first, random_count,
        [](const RandomRow& row) { std::cout << random_row_text(row) << std::flush; });
    std::cout << random_matrix_summary(m);
    if (!report_dir.empty()) {
      try {
        write_random_matrix(report_dir, m);
        std::cout << "report: " << report_dir << " (random-variants.txt, random-variants.json)\n";
      } catch (const std::exception& e) {
        std::cerr << "rdcc-conform: " << e.what() << "\n";
        return kExitUsage;
      }
    }
    return m.ok() ? 0 : kExitFail;
  }

  if (kill_matrix) {
    if (options.adapter.kind == AdapterSpec::Kind::Udp || !mutants.empty() || !variant.empty() ||
        variant_matrix) {
      std::cerr << "rdcc-conform: --kill-matrix runs the reference IUT (--iut reference, or "
                   "--iut exec: starting the reference node), without --mutant, --variant or "
                   "--variant-matrix\n";
      return kExitUsage;
    }
    const auto show = [](const MutantRow& row) {
      std::cout << (row.killed() ? "killed   " : "SURVIVED ") << row.mutant->name << "  ("
                << row.killed_by.size() + row.silent_in.size() << " of " << row.scenarios_run
                << " scenarios)" << std::endl;
    };
    KillOrder order;
    if (options.adapter.kind == AdapterSpec::Kind::Exec) {
      // In process first (virtual time: seconds): its figures, and the scenarios that killed
      // each mutant there, to play first against the real node.
      SuiteOptions in_process = options;
      in_process.adapter = AdapterSpec{};
      in_process.adapter.role = options.adapter.role;
      std::vector<Scenario> own;
      for (const auto& s : selected) {
        if (s.role == options.adapter.role) own.push_back(s);
      }
      const KillMatrix ref_matrix = run_kill_matrix(own, in_process);
      std::size_t of_role = 0;
      for (const auto& row : ref_matrix.rows) {
        if (to_string(row.mutant->role) == to_string(options.adapter.role)) ++of_role;
      }
      std::size_t killed = 0;
      for (const auto& row : ref_matrix.rows) {
        if (to_string(row.mutant->role) == to_string(options.adapter.role) && row.killed())
          ++killed;
      }
      std::cout << "rdcc-conform: in process (reference:" << to_string(options.adapter.role)
                << "): " << killed << " of " << of_role << " " << to_string(options.adapter.role)
                << " mutants killed\n";
      order = kill_order_of(ref_matrix);
      std::cout << "rdcc-conform: kill matrix through real nodes (" << iut
                << "): " << selected.size() << " scenarios\n";
    } else {
      std::cout << "rdcc-conform: kill matrix of " << selected.size() << " scenarios and "
                << rdcc::testing::kMutantCount << " mutants\n";
    }
    const KillMatrix m = run_kill_matrix(selected, options, show, order);
    std::cout << kill_matrix_text(m);
    // The unmutated IUT played the whole selection: with --report, its report as a suite run
    // writes it (reference/), so one run is both the suite and the matrix.
    if (!report_dir.empty()) {
      try {
        write_kill_matrix(report_dir, m);
        SuiteReport unmutated;
        unmutated.iut = iut;
        unmutated.strict = true;  // run_kill_matrix plays strictly
        unmutated.requirements = catalog_rows(catalog);
        unmutated.results = m.reference;
        write_reports((std::filesystem::path(report_dir) / "reference").string(), unmutated);
        std::cout << "report: " << report_dir
                  << " (kill-matrix.txt, kill-matrix.md, kill-matrix.json; reference/: the "
                     "unmutated IUT's suite report)\n";
      } catch (const std::exception& e) {
        std::cerr << "rdcc-conform: " << e.what() << "\n";
        return kExitUsage;
      }
    }
    return m.ok() ? 0 : kExitFail;
  }

  if (variant_matrix) {
    if (options.adapter.kind != AdapterSpec::Kind::Reference || !mutants.empty() ||
        !variant.empty()) {
      std::cerr << "rdcc-conform: --variant-matrix runs the reference IUT (--iut reference), "
                   "without --mutant or --variant\n";
      return kExitUsage;
    }
    std::cout << "rdcc-conform: variant matrix of " << selected.size() << " scenarios and "
              << rdcc::ref::variants().size() << " variants\n";
    const VariantMatrix m = run_variant_matrix(selected, options, [](const VariantRow& row) {
      std::cout << (row.passed() ? "passed   " : "FAILED   ") << row.variant->name << "  ("
                << summary_line(count(row.results)) << ")" << std::endl;
    });
    std::cout << variant_matrix_text(m);
    if (!report_dir.empty()) {
      try {
        write_variant_matrix(report_dir, m);
        std::cout << "report: " << report_dir
                  << " (variant-matrix.txt, variant-matrix.md, variant-matrix.json)\n";
      } catch (const std::exception& e) {
        std::cerr << "rdcc-conform: " << e.what() << "\n";
        return kExitUsage;
      }
    }
    return m.ok() ? 0 : kExitFail;
  }

  std::string silent;
  if (auto dead = probe_liveness(options.adapter, &silent)) {
    std::cerr << "rdcc-conform: " << *dead << "\n";
    return kExitUsage;
  }
  if (!silent.empty()) std::cerr << "rdcc-conform: note: " << silent << "\n";
  std::cout << "rdcc-conform: " << selected.size() << " scenarios against " << iut << "\n";
  SuiteReport report;
  report.iut = iut;
  report.strict = strict;
  report.requirements = catalog_rows(catalog);
  // A failing verdict cites the spec's sentences it checks and where its capture will be.
  options.progress = [&report, &report_dir](const ScenarioResult& r, std::size_t done,
                                            std::size_t total) {
    const std::string pcap =
        report_dir.empty() ? "" : (std::filesystem::path(report_dir) / pcap_in_report(r)).string();
    std::cout << console_line(r, done, total, report.requirements, pcap) << std::endl;
  };
  report.results = run_suite(selected, options);
  const Counts c = count(report.results);
  std::cout << summary_line(c) << "\n";
  if (!report_dir.empty()) {
    try {
      write_reports(report_dir, report);
      std::cout << "report: " << report_dir << " (summary.txt, junit.xml, results.json, "
                << "coverage.md, coverage.json, scenarios/)\n";
    } catch (const std::exception& e) {
      std::cerr << "rdcc-conform: " << e.what() << "\n";
      return kExitUsage;
    }
  }
  if (c.failed > 0) return kExitFail;
  if (c.flaky > 0) return kExitFlaky;
  return c.inconclusive > 0 ? kExitInconclusive : 0;
}
