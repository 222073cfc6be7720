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
  std::size_t flaky = 0;
};
[[nodiscard]] Counts count(const std::vector<ScenarioResult>& results);
// "N passed, N warned, N failed, N inconclusive, N unsupported, N skipped", and ", N flaky"
// when a scenario failed on one try and passed on a retry"
[[nodiscard]] std::string summary_line(const Counts& c);
// One requirement of the catalog, as the coverage matrix and the verdicts need it.
struct RequirementRow {
  std::string id;
  std::string section;
  std::string level;  // MUST, SHOULD, ...
  std::string role;
  std::string testing;  // wire, upper, untestable
  std::string text;
  std::string clause;  // which part of a sentence with several key words ("rule 5", a quote)
};

// "[ 3/12] FAIL  receiver-grant-final  grant_limit was 16384, wanted <=8192 [MUST NOT]", and
// for a fail, warn or inconclusive verdict the step, the expected and the actual message, the
// requirements the failed check concerns (a fail or warn: the step's; else the scenario's) as
// the spec states them (from `catalog`: ID, level, section, sentence; an
// ID the catalog lacks by itself), where its pcap is (`pcap`, when non-empty) and the frames
// of it the verdict cites (ScenarioResult::frames, with their Wireshark display filter).
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

// The coverage of one requirement by these runs: "fail" if a scenario failed on it, "flaky" if
// one failed on it on a try and passed on a retry and none failed, "warn" if one warned on it
// and none failed or was flaky, "pass" if one passed and none failed or warned, "not
// passed" if scenarios exist but none passed, "uncovered" if no scenario checks it.
[[nodiscard]] std::string coverage_status(std::string_view id,
                                          const std::vector<const ScenarioResult*>& results);
// What a scenario's verdict says of one requirement it checks: a fail or warn concerns the
// requirements it cites; the scenario's others were not reached (inconclusive).
[[nodiscard]] Verdict verdict_for(const ScenarioResult& r, std::string_view id);

// The annotated capture of a run in a report folder, "scenarios/<name>.pcapng" (written where a
// verdict cites frames or the IUT broke an invariant, and Wireshark's editcap is at hand).
[[nodiscard]] std::string annotated_pcap_in_report(const ScenarioResult& r);

// Writes summary.txt, junit.xml, results.json, coverage.md, coverage.json, index.html
// (html_report.hpp), scenarios/<name>.pcap, scenarios/<name>.events.jsonl and, for a run with
// flagged frames, scenarios/<name>.pcapng with a packet comment on each (the requirement's ID
// and sentence) into `dir` (created).
// Throws std::runtime_error naming the file that cannot be written.
void write_reports(const std::string& dir, const SuiteReport& report);

// Where a run's pcap is in a report folder: "scenarios/<name>.pcap".
[[nodiscard]] std::string pcap_in_report(const ScenarioResult& r);

// The pcap of one run: every packet the tester sent and received, Ethernet/IPv4/UDP framed.
void write_pcap(const std::string& path, const ScenarioResult& r);

// "3 datagrams from sources that are not the IUT's (127.0.0.1:40000), dropped unjudged"; empty
// for none.
[[nodiscard]] std::string foreign_note(const ForeignDatagrams& f);

// The Wireshark display filter that selects these frames: "frame.number in {12 15}".
[[nodiscard]] std::string display_filter(const std::vector<std::size_t>& frames);
// "12 15 (Wireshark: frame.number in {12 15})": the cited frames in a verdict's text.
[[nodiscard]] std::string frames_text(const std::vector<std::size_t>& frames);

// XML text escaping (&, <, >, ", ').
[[nodiscard]] std::string xml_escape(std::string_view s);

}  // namespace rdcc::conformance
