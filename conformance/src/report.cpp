#include "rdcc/conformance/report.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "rdcc/conformance/html_report.hpp"
#include "rdcc/version.h"
#include "rdcc/wire/annotate.hpp"
#include "rdcc/wire/frame.hpp"
#include "rdcc/wire/pcap.hpp"

namespace rdcc::conformance {
namespace {

using json = nlohmann::ordered_json;

std::ofstream open_out(const std::filesystem::path& path) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw std::runtime_error("cannot write " + path.string());
  return out;
}

void close_checked(std::ofstream& out, const std::filesystem::path& path) {
  out.close();
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6f", s);
  return buf;
}

bool mandatory(const std::string& level) {
  static const std::set<std::string> kMust{"MUST",  "MUST NOT",  "REQUIRED",
                                           "SHALL", "SHALL NOT", "RULE"};
  return kMust.count(level) != 0;
}

const RequirementRow* find_row(std::string_view id, const std::vector<RequirementRow>& catalog) {
  for (const auto& row : catalog) {
    if (row.id == id) return &row;
  }
  return nullptr;
}

// The requirements a verdict concerns: those of the check that failed or warned, else all the
// scenario checks.
const std::vector<std::string>& cited_or_checks(const ScenarioResult& r) {
  return r.cited.empty() ? r.checks : r.cited;
}

// The requirements a failing verdict breaks, a line each: `first` before the first, `next`
// before the others.
std::string citations(const ScenarioResult& r, const std::vector<RequirementRow>& catalog,
                      std::string_view first, std::string_view next) {
  std::string out;
  const auto& ids = cited_or_checks(r);
  for (std::size_t i = 0; i < ids.size(); ++i) {
    out += i == 0 ? first : next;
    out += citation(ids[i], catalog);
  }
  return out;
}

json result_json(const ScenarioResult& r, const std::vector<RequirementRow>& catalog) {
  json j;
  j["name"] = r.name;
  j["file"] = r.file;
  j["role"] = to_string(r.role);
  j["checks"] = r.checks;
  json cited = json::array();
  for (const auto& id : r.checks) {
    if (const auto* row = find_row(id, catalog)) {
      cited.push_back({{"id", row->id},
                       {"level", row->level},
                       {"section", row->section},
                       {"clause", row->clause},
                       {"text", row->text}});
    }
  }
  j["requirements"] = cited;
  j["tags"] = r.tags;
  j["description"] = r.description;
  j["verdict"] = to_string(r.verdict);
  if (r.verdict == Verdict::Fail || r.verdict == Verdict::Warn || r.verdict == Verdict::Flaky) {
    j["level"] = r.level;  // the level that decided it: "MUST", "SHOULD", "RULE", ...
    j["cited"] = cited_or_checks(r);
  }
  j["reason"] = r.reason;
  j["expected"] = r.expected;
  j["actual"] = r.actual;
  j["where"] = r.where.line == 0 ? "" : r.where.to_string();
  j["step"] = r.step;
  j["elapsed_us"] = r.elapsed.micros();
  j["wall_seconds"] = r.wall_seconds;
  j["packets"] = r.trace.size();
  json v = json::array();
  for (std::size_t i = 0; i < r.violations.size(); ++i) {
    const auto& x = r.violations[i];
    json one{{"time", ref::format_time(x.time)}, {"rule", x.rule}, {"detail", x.detail}};
    if (i < r.violation_frames.size() && r.violation_frames[i] != 0)
      one["frame"] = r.violation_frames[i];
    v.push_back(std::move(one));
  }
  j["violations"] = v;
  j["pcap"] = pcap_in_report(r);
  j["frames"] = r.frames;  // the frames of the pcap the verdict cites (1-based)
  if (!r.frames.empty()) j["display_filter"] = display_filter(r.frames);
  j["events"] = "scenarios/" + r.name + ".events.jsonl";
  if (!r.iut_log.empty()) j["iut_stderr"] = "scenarios/" + r.name + ".iut-stderr.txt";
  if (r.checker_tolerance.ns != 0) {  // real-time adapters: what the checker allowed for timing
    j["checker_tolerance_us"] = r.checker_tolerance.micros();
    j["wake_jitter_us"] = r.wake_jitter.micros();
  }
  if (!r.source.empty()) j["source"] = r.source;  // a generated scenario's file (--explore)
  if (r.iut_exit) {
    json e{{"description", r.iut_exit->describe()}};
    if (r.iut_exit->signal != 0) {
      e["signal"] = r.iut_exit->signal;
    } else {
      e["status"] = r.iut_exit->status;
    }
    j["iut_exit"] = e;
  }
  if (r.foreign.count != 0) {
    json sources = json::array();
    for (const auto& a : r.foreign.sources) sources.push_back(a.to_string());
    j["foreign_datagrams"] = {{"count", r.foreign.count}, {"sources", sources}};
  }
  return j;
}

void write_junit(const std::filesystem::path& path, const SuiteReport& report, const Counts& c) {
  auto out = open_out(path);
  double total = 0;
  for (const auto& r : report.results) total += r.wall_seconds;
  const std::size_t tests = report.results.size();
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << "<testsuites name=\"rdcc-conform\" tests=\"" << tests << "\" failures=\""
      << c.failed + c.flaky << "\" errors=\"" << c.inconclusive << "\" skipped=\""
      << (c.skipped + c.unsupported) << "\" time=\"" << seconds_text(total) << "\">\n";
  out << "  <testsuite name=\"" << xml_escape(report.iut) << "\" tests=\"" << tests
      << "\" failures=\"" << c.failed + c.flaky << "\" errors=\"" << c.inconclusive
      << "\" skipped=\"" << (c.skipped + c.unsupported) << "\" time=\"" << seconds_text(total)
      << "\">\n";
  out << "    <properties>\n";
  out << "      <property name=\"rdcc_version\" value=\"" RDCC_VERSION "\"/>\n";
  out << "      <property name=\"strict\" value=\"" << (report.strict ? "true" : "false")
      << "\"/>\n";
  out << "    </properties>\n";
  for (const auto& r : report.results) {
    out << "    <testcase classname=\"rdcc." << to_string(r.role) << "\" name=\""
        << xml_escape(r.name) << "\" file=\"" << xml_escape(r.file) << "\" time=\""
        << seconds_text(r.wall_seconds) << "\">\n";
    out << "      <properties>\n";
    for (const auto& id : r.checks) {
      out << "        <property name=\"requirement\" value=\"" << xml_escape(id) << "\"/>\n";
    }
    out << "        <property name=\"verdict\" value=\"" << to_string(r.verdict) << "\"/>\n";
    if (r.verdict == Verdict::Fail || r.verdict == Verdict::Warn || r.verdict == Verdict::Flaky) {
      out << "        <property name=\"level\" value=\"" << xml_escape(r.level) << "\"/>\n";
    }
    if (r.verdict == Verdict::Warn) {
      out << "        <property name=\"warning\" value=\"" << xml_escape(r.reason) << "\"/>\n";
    }
    if (r.iut_exit) {
      out << "        <property name=\"iut_exit\" value=\"" << xml_escape(r.iut_exit->describe())
          << "\"/>\n";
    }
    if (r.foreign.count != 0) {
      out << "        <property name=\"foreign_datagrams\" value=\"" << r.foreign.count << "\"/>\n";
    }
    out << "      </properties>\n";
    std::string body = r.where.line == 0 ? "" : "at " + r.where.to_string() + ": " + r.step + "\n";
    if (!r.expected.empty()) body += "expected: " + r.expected + "\n";
    if (!r.actual.empty()) body += "actual: " + r.actual + "\n";
    if (!cited_or_checks(r).empty()) {
      body += citations(r, report.requirements, "checks: ", "\n        ") + "\n";
    }
    body += "pcap: " + pcap_in_report(r) + "\n";
    if (!r.frames.empty()) body += "frames: " + frames_text(r.frames) + "\n";
    switch (r.verdict) {
      case Verdict::Pass: break;
      case Verdict::Warn:  // a passing testcase that carries the warning
        out << "      <system-out>"
            << xml_escape("WARN (" + r.level + "): " + r.reason + "\n" + body) << "</system-out>\n";
        break;
      case Verdict::Fail:
      case Verdict::Flaky:  // failed on one try: a failure, typed so
        out << "      <failure type=\"" << to_string(r.verdict) << "\" message=\""
            << xml_escape(r.reason) << "\">" << xml_escape(body) << "</failure>\n";
        break;
      case Verdict::Inconclusive:  // an IUT that ended during the scenario: type iut_exited
        out << "      <error type=\"" << (r.iut_exit ? "iut_exited" : "inconclusive")
            << "\" message=\"" << xml_escape(r.reason) << "\">" << xml_escape(body) << "</error>\n";
        break;
      case Verdict::Unsupported:
      case Verdict::Skipped:
        out << "      <skipped message=\"" << to_string(r.verdict) << ": " << xml_escape(r.reason)
            << "\"/>\n";
        break;
    }
    out << "    </testcase>\n";
  }
  out << "  </testsuite>\n</testsuites>\n";
  close_checked(out, path);
}

void write_coverage(const std::filesystem::path& dir, const SuiteReport& report) {
  std::map<std::string, std::vector<const ScenarioResult*>> by_id;
  std::set<std::string> roles;
  for (const auto& r : report.results) {
    roles.insert(std::string(to_string(r.role)));
    for (const auto& id : r.checks) by_id[id].push_back(&r);
  }
  std::vector<RequirementRow> rows = report.requirements;
  if (rows.empty()) {
    for (const auto& [id, rs] : by_id) rows.push_back({id, "", "", "", "", ""});
  }
  json j;
  j["iut"] = report.iut;
  json reqs = json::array();
  json uncovered = json::array();
  std::ostringstream md;
  md << "# Requirement coverage (" << report.iut << ")\n\n";
  md << "| Requirement | Level | Role | Testing | Status | Scenarios |\n";
  md << "|---|---|---|---|---|---|\n";
  for (const auto& row : rows) {
    const auto it = by_id.find(row.id);
    const std::vector<const ScenarioResult*> rs =
        it == by_id.end() ? std::vector<const ScenarioResult*>{} : it->second;
    const std::string status = coverage_status(row.id, rs);
    json scen = json::array();
    std::string cell;
    for (const auto* r : rs) {
      const char* v = to_string(verdict_for(*r, row.id));
      scen.push_back({{"name", r->name}, {"verdict", v}});
      cell += (cell.empty() ? "" : ", ") + r->name + " (" + v + ")";
    }
    reqs.push_back({{"id", row.id},
                    {"section", row.section},
                    {"level", row.level},
                    {"role", row.role},
                    {"testing", row.testing},
                    {"status", status},
                    {"scenarios", scen}});
    md << "| " << row.id << " | " << row.level << " | " << row.role << " | " << row.testing << " | "
       << status << " | " << cell << " |\n";
    // Role `any` binds the endpoints (docs/spec-notes.md 36): a run of CRN scenarios alone
    // does not leave them uncovered.
    const bool endpoints_run = roles.count("receiver") != 0 || roles.count("sender") != 0;
    const bool role_run = roles.count(row.role) != 0 || (row.role == "any" && endpoints_run);
    if (rs.empty() && mandatory(row.level) && row.testing == "wire" && role_run) {
      uncovered.push_back(
          {{"id", row.id}, {"section", row.section}, {"role", row.role}, {"text", row.text}});
    }
  }
  j["requirements"] = reqs;
  j["uncovered_wire_musts"] = uncovered;
  md << "\n## Wire-testable MUSTs without a scenario (roles run: ";
  std::string role_list;
  for (const auto& r : roles) role_list += (role_list.empty() ? "" : ", ") + r;
  md << role_list << ")\n\n";
  if (uncovered.empty()) md << "None.\n";
  for (const auto& u : uncovered) {
    md << "- " << u["id"].get<std::string>() << " (" << u["section"].get<std::string>()
       << "): " << u["text"].get<std::string>() << "\n";
  }
  auto out_json = open_out(dir / "coverage.json");
  out_json << j.dump(2) << "\n";
  close_checked(out_json, dir / "coverage.json");
  auto out_md = open_out(dir / "coverage.md");
  out_md << md.str();
  close_checked(out_md, dir / "coverage.md");
}

// The comments of a run's annotated capture: the frames its verdict cites (the verdict, then
// each requirement it cites with its sentence), and each frame where the IUT broke an
// invariant (the rule's ID, its sentence, what the checker saw).
wire::FrameComments frame_comments(const ScenarioResult& r,
                                   const std::vector<RequirementRow>& catalog) {
  wire::FrameComments out;
  std::map<std::uint64_t, std::set<std::string>>
      broken;  // frame -> requirements its violations name
  for (std::size_t k = 0; k < r.violations.size() && k < r.violation_frames.size(); ++k) {
    const auto& v = r.violations[k];
    const std::size_t frame = r.violation_frames[k];
    if (frame == 0) continue;
    const std::string rule_id = requirement_of_rule(v.rule);
    const std::string id = rule_id.empty() ? v.rule : rule_id;
    const std::string text = citation(id, catalog) + " (" + v.detail + ")";
    auto& texts = out[frame];
    if (std::find(texts.begin(), texts.end(), text) == texts.end()) texts.push_back(text);
    broken[frame].insert(id);
  }
  for (const auto f : r.frames) {
    std::string text = "rdcc-conform " + std::string(to_string(r.verdict)) + " " + r.name +
                       (r.level.empty() ? "" : " [" + r.level + "]") + ": " + r.reason;
    for (const auto& id : cited_or_checks(r)) {
      if (broken[f].count(id) == 0) text += "\n" + citation(id, catalog);
    }
    auto& texts = out[f];
    texts.insert(texts.begin(), text);
  }
  return out;
}

}  // namespace

Verdict verdict_for(const ScenarioResult& r, std::string_view id) {
  if (r.verdict != Verdict::Fail && r.verdict != Verdict::Warn && r.verdict != Verdict::Flaky) {
    return r.verdict;
  }
  if (r.cited.empty()) return r.verdict;
  const bool cited = std::find(r.cited.begin(), r.cited.end(), id) != r.cited.end();
  return cited ? r.verdict : Verdict::Inconclusive;
}

std::string coverage_status(std::string_view id, const std::vector<const ScenarioResult*>& rs) {
  if (rs.empty()) return "uncovered";
  bool pass = false;
  bool warn = false;
  bool flaky = false;
  for (const auto* r : rs) {
    const Verdict v = verdict_for(*r, id);
    if (v == Verdict::Fail) return "fail";
    flaky = flaky || v == Verdict::Flaky;
    warn = warn || v == Verdict::Warn;
    pass = pass || v == Verdict::Pass;
  }
  if (flaky) return "flaky";
  if (warn) return "warn";
  return pass ? "pass" : "not passed";
}

std::string annotated_pcap_in_report(const ScenarioResult& r) {
  return "scenarios/" + r.name + ".pcapng";
}

Counts count(const std::vector<ScenarioResult>& results) {
  Counts c;
  for (const auto& r : results) {
    switch (r.verdict) {
      case Verdict::Pass: ++c.passed; break;
      case Verdict::Warn: ++c.warned; break;
      case Verdict::Fail: ++c.failed; break;
      case Verdict::Inconclusive: ++c.inconclusive; break;
      case Verdict::Unsupported: ++c.unsupported; break;
      case Verdict::Skipped: ++c.skipped; break;
      case Verdict::Flaky: ++c.flaky; break;
    }
  }
  return c;
}

std::string summary_line(const Counts& c) {
  return std::to_string(c.passed) + " passed, " + std::to_string(c.warned) + " warned, " +
         std::to_string(c.failed) + " failed, " + std::to_string(c.inconclusive) +
         " inconclusive, " + std::to_string(c.unsupported) + " unsupported, " +
         std::to_string(c.skipped) + " skipped" +
         (c.flaky == 0 ? "" : ", " + std::to_string(c.flaky) + " flaky");
}

std::string citation(std::string_view id, const std::vector<RequirementRow>& catalog) {
  const auto* row = find_row(id, catalog);
  if (row == nullptr) return std::string(id);
  std::string out = row->id + " " + row->level + ", " + row->section;
  const bool rule = row->clause.rfind("rule ", 0) == 0;
  if (rule) out += ", " + row->clause;
  out += ": \"" + row->text + "\"";
  if (!row->clause.empty() && !rule) out += " (the part \"" + row->clause + "\")";
  return out;
}

std::string console_line(const ScenarioResult& r, std::size_t done, std::size_t total,
                         const std::vector<RequirementRow>& catalog, std::string_view pcap) {
  std::string verdict = to_string(r.verdict);
  for (auto& ch : verdict) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  const std::string width = std::to_string(total);
  std::string n = std::to_string(done);
  n.insert(0, width.size() > n.size() ? width.size() - n.size() : 0, ' ');
  std::string line = "[" + n + "/" + width + "] " + verdict;
  line.append(verdict.size() < 12 ? 13 - verdict.size() : 1, ' ');
  line += r.name;
  if (!r.reason.empty()) line += ": " + r.reason;
  if (r.verdict == Verdict::Fail || r.verdict == Verdict::Warn || r.verdict == Verdict::Flaky) {
    if (!r.level.empty()) line += " [" + r.level + "]";
  }
  if (r.verdict == Verdict::Fail || r.verdict == Verdict::Warn ||
      r.verdict == Verdict::Inconclusive || r.verdict == Verdict::Flaky) {
    if (r.where.line != 0) line += "\n      at " + r.where.to_string() + ": " + r.step;
    if (!r.expected.empty()) line += "\n      expected: " + r.expected;
    if (!r.actual.empty()) line += "\n      actual:   " + r.actual;
    line += citations(r, catalog, "\n      checks:   ", "\n                ");
    if (!pcap.empty()) line += "\n      pcap:     " + std::string(pcap);
    if (!r.frames.empty()) line += "\n      frames:   " + frames_text(r.frames);
  }
  if (r.foreign.count != 0) line += "\n      note:     " + foreign_note(r.foreign);
  return line;
}

std::string foreign_note(const ForeignDatagrams& f) {
  if (f.count == 0) return {};
  std::string sources;
  for (const auto& a : f.sources) sources += (sources.empty() ? "" : ", ") + a.to_string();
  if (f.sources.size() == ForeignDatagrams::kSourcesKept) sources += ", ...";  // maybe more
  return std::to_string(f.count) + (f.count == 1 ? " datagram" : " datagrams") +
         " from sources that are not the IUT's (" + sources + "), dropped unjudged";
}

std::string display_filter(const std::vector<std::size_t>& frames) {
  std::string out = "frame.number in {";
  for (std::size_t i = 0; i < frames.size(); ++i)
    out += (i == 0 ? "" : " ") + std::to_string(frames[i]);
  return out + "}";
}

std::string frames_text(const std::vector<std::size_t>& frames) {
  std::string out;
  for (const auto f : frames) out += (out.empty() ? "" : " ") + std::to_string(f);
  return out + " (Wireshark: " + display_filter(frames) + ")";
}

std::string xml_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        // XML 1.0 forbids most control characters; reasons never need them.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') {
          out += '?';
        } else {
          out += c;
        }
    }
  }
  return out;
}

std::string pcap_in_report(const ScenarioResult& r) {
  return "scenarios/" + r.name + ".pcap";
}

void write_pcap(const std::string& path, const ScenarioResult& r) {
  wire::PcapWriter w(path);
  for (const auto& e : r.trace) {
    const auto frame = wire::udp_frame(e.packet.from, e.packet.to, e.packet.payload);
    w.write(wire::kEpochMicros + e.packet.time.ns / 1000, frame);
  }
}

void write_reports(const std::string& dir_text, const SuiteReport& report) {
  const std::filesystem::path dir(dir_text);
  std::error_code ec;
  std::filesystem::create_directories(dir / "scenarios", ec);
  if (ec)
    throw std::runtime_error("cannot create " + (dir / "scenarios").string() + ": " + ec.message());
  const Counts c = count(report.results);

  auto summary = open_out(dir / "summary.txt");
  for (std::size_t i = 0; i < report.results.size(); ++i) {
    const ScenarioResult& r = report.results[i];
    summary << console_line(r, i + 1, report.results.size(), report.requirements, pcap_in_report(r))
            << "\n";
  }
  summary << summary_line(c) << "\n";
  close_checked(summary, dir / "summary.txt");

  write_junit(dir / "junit.xml", report, c);

  json j;
  j["rdcc_version"] = RDCC_VERSION;
  j["iut"] = report.iut;
  j["strict"] = report.strict;
  j["summary"] = {{"passed", c.passed},
                  {"warned", c.warned},
                  {"failed", c.failed},
                  {"inconclusive", c.inconclusive},
                  {"unsupported", c.unsupported},
                  {"skipped", c.skipped},
                  {"flaky", c.flaky}};
  json list = json::array();
  for (const auto& r : report.results) list.push_back(result_json(r, report.requirements));
  j["scenarios"] = list;
  auto results = open_out(dir / "results.json");
  results << j.dump(2) << "\n";
  close_checked(results, dir / "results.json");

  write_coverage(dir, report);

  for (const auto& r : report.results) {
    if (r.verdict == Verdict::Skipped) continue;
    write_pcap((dir / pcap_in_report(r)).string(), r);
    const auto annotated = dir / annotated_pcap_in_report(r);
    std::filesystem::remove(annotated, ec);  // a stale one from an earlier run
    const auto comments = frame_comments(r, report.requirements);
    if (!comments.empty()) {
      // Without editcap the report has the plain pcap only; index.html says so.
      (void)wire::annotate_capture((dir / pcap_in_report(r)).string(), annotated.string(),
                                   comments);
    }
    const auto events_path = dir / "scenarios" / (r.name + ".events.jsonl");
    auto events = open_out(events_path);
    for (const auto& e : r.events) events << e.dump() << "\n";
    close_checked(events, events_path);
    if (!r.iut_log.empty()) {
      const auto log_path = dir / "scenarios" / (r.name + ".iut-stderr.txt");
      auto log = open_out(log_path);
      log << r.iut_log;
      close_checked(log, log_path);
    }
  }
  // Last: it links to the annotated captures where they were written.
  write_html_report(dir, report);
}

}  // namespace rdcc::conformance
