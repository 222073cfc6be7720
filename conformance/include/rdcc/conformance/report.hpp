// Reports of a suite run: the console lines and summary, JUnit XML, JSON, the requirement
// coverage matrix (markdown and JSON), and per scenario a pcap of every packet the tester
// sent and received and the event log (JSON lines).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "rdcc/conformance/runner.hpp"

namespace rdcc::conformance {

struct Counts {
  std::size_t passed = 0, warned = 0, failed = 0, inconclusive = 0, unsupported = 0, skipped = 0;
};
[[nodiscard]] Counts count(const std::vector<ScenarioResult>& results);
// "N passed, N warned, N failed, N inconclusive, N unsupported, N skipped"
[[nodiscard]] std::string summary_line(const Counts& c);
// One requirement of the catalog, as the coverage matrix and the verdicts need it.
struct RequirementRow {
  std::string id;
  std::string section;
  std::string level;    // MUST, SHOULD, ...
  std::string role;
  std::string testing;  // wire, upper, untestable
  std::string text;
  std::string clause;  // which part of a sentence with several key words ("rule 5", a quote)
};

// "[ 3/12] FAIL  receiver-grant-final  grant_limit was 16384, wanted <=8192 [MUST NOT]", and
// for a fail, warn or inconclusive verdict the step, the expected and the actual message, the
// requirements the failed check concerns (a fail or warn: the step's; else the scenario's) as
// the spec states them (from `catalog`: ID, level, section, sentence; an
// ID the catalog lacks by itself), and where its pcap is (`pcap`, when non-empty).
[[nodiscard]] std::string console_line(const ScenarioResult& r, std::size_t done, std::size_t total,
                                       const std::vector<RequirementRow>& catalog = {},
                                       std::string_view pcap = {});
// `RDCC-GRANT-07 MUST NOT, Credit Requests and Grants, rule 5: "The receiver MUST NOT ..."`;
// a clause that quotes part of the sentence follows it: `... "Messages ..." (the part "it MUST
// NOT reply otherwise")`; an ID the catalog lacks stands alone.
[[nodiscard]] std::string citation(std::string_view id, const std::vector<RequirementRow>& catalog);

struct SuiteReport {
  std::string iut;  // "reference:receiver", "udp:127.0.0.1:50000", ...
  bool strict = false;
  std::vector<ScenarioResult> results;
  std::vector<RequirementRow> requirements;  // the catalog (empty: coverage from scenarios only)
};

// Writes summary.txt, junit.xml, results.json, coverage.md, coverage.json and
// scenarios/<name>.pcap and scenarios/<name>.events.jsonl into `dir` (created).
// Throws std::runtime_error naming the file that cannot be written.
void write_reports(const std::string& dir, const SuiteReport& report);

// Where a run's pcap is in a report folder: "scenarios/<name>.pcap".
[[nodiscard]] std::string pcap_in_report(const ScenarioResult& r);

// The pcap of one run: every packet the tester sent and received, Ethernet/IPv4/UDP framed.
void write_pcap(const std::string& path, const ScenarioResult& r);

// XML text escaping (&, <, >, ", ').
[[nodiscard]] std::string xml_escape(std::string_view s);

}  // namespace rdcc::conformance
