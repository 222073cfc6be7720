#include "rdcc/conformance/report.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "rdcc/pcaps/capture.hpp"
#include "rdcc/pcaps/framing.hpp"
#include "rdcc/version.h"

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

pcaps::Endpoint endpoint_of(const Address& a) {
  pcaps::Endpoint e;
  e.ipv6 = a.ipv6;
  e.address = a.ip;
  e.port = a.port;
  return e;
}

bool mandatory(const std::string& level) {
  static const std::set<std::string> kMust{"MUST", "MUST NOT", "REQUIRED", "SHALL", "SHALL NOT",
                                           "RULE"};
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

// What a scenario's verdict says of one requirement it checks: a fail or warn concerns the
// requirements it cites; the scenario's others were not reached.
Verdict verdict_for(const ScenarioResult& r, std::string_view id) {
  if (r.verdict != Verdict::Fail && r.verdict != Verdict::Warn) return r.verdict;
  if (r.cited.empty()) return r.verdict;
  const bool cited = std::find(r.cited.begin(), r.cited.end(), id) != r.cited.end();
  return cited ? r.verdict : Verdict::Inconclusive;
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
      cited.push_back({{"id", row->id}, {"level", row->level}, {"section", row->section},
                       {"clause", row->clause}, {"text", row->text}});
    }
  }
  j["requirements"] = cited;
  j["tags"] = r.tags;
  j["description"] = r.description;
  j["verdict"] = to_string(r.verdict);
  if (r.verdict == Verdict::Fail || r.verdict == Verdict::Warn) {
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
  for (const auto& x : r.violations) {
    v.push_back({{"time", ref::format_time(x.time)}, {"rule", x.rule}, {"detail", x.detail}});
  }
  j["violations"] = v;
  j["pcap"] = pcap_in_report(r);
  j["events"] = "scenarios/" + r.name + ".events.jsonl";
  if (!r.iut_log.empty()) j["iut_stderr"] = "scenarios/" + r.name + ".iut-stderr.txt";
  return j;
}

void write_junit(const std::filesystem::path& path, const SuiteReport& report, const Counts& c) {
  auto out = open_out(path);
  double total = 0;
  for (const auto& r : report.results) total += r.wall_seconds;
  const std::size_t tests = report.results.size();
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << "<testsuites name=\"rdcc-conform\" tests=\"" << tests << "\" failures=\"" << c.failed
      << "\" errors=\"" << c.inconclusive << "\" skipped=\"" << (c.skipped + c.unsupported)
      << "\" time=\"" << seconds_text(total) << "\">\n";
  out << "  <testsuite name=\"" << xml_escape(report.iut) << "\" tests=\"" << tests
      << "\" failures=\"" << c.failed << "\" errors=\"" << c.inconclusive << "\" skipped=\""
      << (c.skipped + c.unsupported) << "\" time=\"" << seconds_text(total) << "\">\n";
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
    if (r.verdict == Verdict::Fail || r.verdict == Verdict::Warn) {
      out << "        <property name=\"level\" value=\"" << xml_escape(r.level) << "\"/>\n";
    }
    if (r.verdict == Verdict::Warn) {
      out << "        <property name=\"warning\" value=\"" << xml_escape(r.reason) << "\"/>\n";
    }
    out << "      </properties>\n";
    std::string body = r.where.line == 0 ? "" : "at " + r.where.to_string() + ": " + r.step + "\n";
    if (!r.expected.empty()) body += "expected: " + r.expected + "\n";
    if (!r.actual.empty()) body += "actual: " + r.actual + "\n";
    if (!cited_or_checks(r).empty()) {
      body += citations(r, report.requirements, "checks: ", "\n        ") + "\n";
    }
    body += "pcap: " + pcap_in_report(r) + "\n";
    switch (r.verdict) {
      case Verdict::Pass:
        break;
      case Verdict::Warn:  // a passing testcase that carries the warning
        out << "      <system-out>" << xml_escape("WARN (" + r.level + "): " + r.reason + "\n" + body)
            << "</system-out>\n";
        break;
      case Verdict::Fail:
        out << "      <failure type=\"fail\" message=\"" << xml_escape(r.reason) << "\">"
            << xml_escape(body) << "</failure>\n";
        break;
      case Verdict::Inconclusive:
        out << "      <error type=\"inconclusive\" message=\"" << xml_escape(r.reason) << "\">"
            << xml_escape(body) << "</error>\n";
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

// The coverage of one requirement: "fail" if a scenario failed on it, "warn" if one warned on
// it and none failed, "pass" if one passed and none failed or warned, "not passed" if scenarios
// exist but none passed (inconclusive, unsupported, skipped, or stopped before reaching it),
// "uncovered" if no scenario checks it.
std::string coverage_status(std::string_view id, const std::vector<const ScenarioResult*>& rs) {
  if (rs.empty()) return "uncovered";
  bool pass = false;
  bool warn = false;
  for (const auto* r : rs) {
    const Verdict v = verdict_for(*r, id);
    if (v == Verdict::Fail) return "fail";
    warn = warn || v == Verdict::Warn;
    pass = pass || v == Verdict::Pass;
  }
  if (warn) return "warn";
  return pass ? "pass" : "not passed";
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
    reqs.push_back({{"id", row.id}, {"section", row.section}, {"level", row.level},
                    {"role", row.role}, {"testing", row.testing}, {"status", status},
                    {"scenarios", scen}});
    md << "| " << row.id << " | " << row.level << " | " << row.role << " | " << row.testing
       << " | " << status << " | " << cell << " |\n";
    // Role `any` binds the endpoints (docs/spec-notes.md 36): a run of CRN scenarios alone
    // does not leave them uncovered.
    const bool endpoints_run = roles.count("receiver") != 0 || roles.count("sender") != 0;
    const bool role_run = roles.count(row.role) != 0 || (row.role == "any" && endpoints_run);
    if (rs.empty() && mandatory(row.level) && row.testing == "wire" && role_run) {
      uncovered.push_back({{"id", row.id}, {"section", row.section}, {"role", row.role},
                           {"text", row.text}});
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

}  // namespace

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
    }
  }
  return c;
}

std::string summary_line(const Counts& c) {
  return std::to_string(c.passed) + " passed, " + std::to_string(c.warned) + " warned, " +
         std::to_string(c.failed) + " failed, " +
         std::to_string(c.inconclusive) + " inconclusive, " + std::to_string(c.unsupported) +
         " unsupported, " + std::to_string(c.skipped) + " skipped";
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
  if (r.verdict == Verdict::Fail || r.verdict == Verdict::Warn) {
    if (!r.level.empty()) line += " [" + r.level + "]";
  }
  if (r.verdict == Verdict::Fail || r.verdict == Verdict::Warn || r.verdict == Verdict::Inconclusive) {
    if (r.where.line != 0) line += "\n      at " + r.where.to_string() + ": " + r.step;
    if (!r.expected.empty()) line += "\n      expected: " + r.expected;
    if (!r.actual.empty()) line += "\n      actual:   " + r.actual;
    line += citations(r, catalog, "\n      checks:   ", "\n                ");
    if (!pcap.empty()) line += "\n      pcap:     " + std::string(pcap);
  }
  return line;
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

std::string pcap_in_report(const ScenarioResult& r) { return "scenarios/" + r.name + ".pcap"; }

void write_pcap(const std::string& path, const ScenarioResult& r) {
  pcaps::PcapWriter w(path);
  for (const auto& e : r.trace) {
    const auto frame = pcaps::udp_frame(endpoint_of(e.packet.from), endpoint_of(e.packet.to),
                                        e.packet.payload);
    w.write(pcaps::kEpochMicros + e.packet.time.ns / 1000, frame);
  }
}

void write_reports(const std::string& dir_text, const SuiteReport& report) {
  const std::filesystem::path dir(dir_text);
  std::error_code ec;
  std::filesystem::create_directories(dir / "scenarios", ec);
  if (ec) throw std::runtime_error("cannot create " + (dir / "scenarios").string() + ": " + ec.message());
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
  j["summary"] = {{"passed", c.passed},           {"warned", c.warned},
                  {"failed", c.failed},
                  {"inconclusive", c.inconclusive}, {"unsupported", c.unsupported},
                  {"skipped", c.skipped}};
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
}

}  // namespace rdcc::conformance
