// The report a vendor reads in a browser: DIR/index.html of `rdcc-conform --report DIR`, and
// the interop matrix of `rdcc-conform --matrix`. Self-contained (inline CSS, SVG and a few
// lines of script; nothing loaded from the network). Per scenario a ladder (sequence) diagram
// drawn from the run's trace and event log, the frames of its pcap numbered as Wireshark
// numbers them: lifelines for the tester, the IUT and any other host; every message with its
// key fields and time; data as bands; at the failing step the actual message (the cited
// frames) and the expected one highlighted, with the quoted requirements, the links to the
// pcap and a Wireshark display filter selecting the cited frames.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "rdcc/conformance/report.hpp"

namespace rdcc::conformance {

// The ladder diagram of one run, an <svg> element. At most `max_rows` rows are drawn: the
// first and last of a long run and those around the cited frames, the others elided with a
// note saying which frames.
[[nodiscard]] std::string ladder_svg(const ScenarioResult& r, std::size_t max_rows = 240);

// Writes DIR/index.html for a report written by write_reports (it links to the files there:
// scenarios/<name>.pcap, the annotated .pcapng where one was written, the event logs).
void write_html_report(const std::filesystem::path& dir, const SuiteReport& report);

// One IUT of an interop matrix and its run: a row of the grid.
struct MatrixRunRow {
  std::string iut;     // "reference:receiver", "reference --variant X", "exec:..."
  std::string kind;    // "reference", "variant", "mutant", "exec"
  std::string report;  // the run's report folder, relative to the matrix page
  std::string note;    // why the IUT was not run (it did not answer), or empty
  std::string detail;  // what the row is: the sentence, the draws, the site; a FAIL's shrunk id
  std::vector<ScenarioResult> results;
};

// Writes `file`: a grid of IUTs (rows) by scenarios (columns), a cell per verdict linking to
// that scenario in that run's report (report/index.html#s-NAME).
void write_matrix_html(const std::filesystem::path& file, const std::vector<MatrixRunRow>& rows);

}  // namespace rdcc::conformance
