#include "rdcc/conformance/html_report.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "rdcc/version.h"

namespace rdcc::conformance {
namespace {

using json = nlohmann::ordered_json;

std::string esc(std::string_view s) {
  return xml_escape(s);
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// An id attribute's value: the scenario's name is already [a-z0-9-].
std::string anchor(const ScenarioResult& r) {
  return "s-" + r.name;
}

std::string ms_text(std::int64_t ns) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.3f ms", static_cast<double>(ns) / 1e6);
  return buf;
}

std::string shorten(const std::string& s, std::size_t n) {
  if (s.size() <= n) return s;
  return s.substr(0, n - 1) + "\xE2\x80\xA6";  // U+2026
}

// ---- the ladder ----

// The fields a message's label leaves out (its full JSON is the row's tooltip).
bool noise(const std::string& key) {
  static const std::set<std::string> kNoise{
      "type", "version", "rsv", "length", "epoch", "association_id", "sequence_number"};
  return kNoise.count(key) != 0 || key.rfind("reserved", 0) == 0;
}

std::string value_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

// "CREDIT_GRANT message_id=1 grant_limit=12288 pacing_rate=98556 flags=2"
std::string message_label(const json& m) {
  std::string out = m.value("type", std::string("?"));
  for (const auto& [k, v] : m.items()) {
    if (noise(k)) continue;
    if (v.is_number() && v.get<double>() == 0 && k != "message_id") continue;
    out += " " + k + "=" + value_text(v);
  }
  return out;
}

// One frame of the trace as the ladder draws it.
struct Frame {
  std::size_t number = 0;  // 1-based
  std::int64_t time_ns = 0;
  std::string from, to;  // lifelines
  bool data = false;
  std::string label;    // key fields
  std::string tooltip;  // the whole decoded packet
  std::uint64_t octets = 0;
  std::string data_message;  // data: the message's number, for a band's label
};

// A lifeline's name from the run's hosts: the tester's and the IUT's data addresses share
// their lifeline; an address the run does not name is its own.
std::string lifeline_of(const std::string& address, const ScenarioResult& r) {
  for (const auto& [a, name] : r.hosts) {
    if (a != address) continue;
    if (name.rfind("tester", 0) == 0) return "tester";
    if (name.rfind("iut", 0) == 0) return "IUT (" + std::string(to_string(r.role)) + ")";
    return name;
  }
  return address;
}

// The tester's `sent` and `received` events, one per frame of the trace, in its order.
std::vector<const json*> packet_events(const ScenarioResult& r) {
  std::vector<const json*> out;
  for (const auto& e : r.events) {
    if (e.value("endpoint", std::string()) != "tester") continue;
    const std::string name = e.value("event", std::string());
    if (name == "sent" || name == "received") out.push_back(&e);
  }
  return out;
}

std::vector<Frame> frames_of(const ScenarioResult& r) {
  const auto events = packet_events(r);
  const bool paired = events.size() == r.trace.size();
  std::vector<Frame> out;
  const std::int64_t t0 = r.trace.empty() ? 0 : r.trace.front().packet.time.ns;
  for (std::size_t i = 0; i < r.trace.size(); ++i) {
    const Packet& p = r.trace[i].packet;
    Frame f;
    f.number = i + 1;
    f.time_ns = p.time.ns - t0;
    f.from = lifeline_of(p.from.to_string(), r);
    f.to = lifeline_of(p.to.to_string(), r);
    f.data = p.data;
    f.octets = p.payload.size();
    const json* e = paired ? events[i] : nullptr;
    if (e != nullptr && e->contains("message")) {
      f.label = message_label((*e)["message"]);
      f.tooltip = (*e)["message"].dump();
    } else if (e != nullptr && e->contains("packet")) {
      const json& d = (*e)["packet"];
      f.data_message = value_text(d.value("message", json(0)));
      f.octets = d.value("length", std::uint64_t{0});
      f.label = "data message=" + f.data_message +
                " offset=" + value_text(d.value("offset", json(0))) +
                " length=" + std::to_string(f.octets);
      f.tooltip = d.dump();
    } else if (e != nullptr && e->contains("rocev2")) {
      const json& d = (*e)["rocev2"];
      f.label = "RoCEv2 " + d.value("opcode", std::string("?")) +
                " qp=" + value_text(d.value("qp", json(0))) +
                " psn=" + value_text(d.value("psn", json(0)));
      f.octets = d.value("length", std::uint64_t{0});
      f.tooltip = d.dump();
    } else if (e != nullptr && e->contains("undecodable")) {
      f.label = "undecodable datagram (" + std::to_string(p.payload.size()) + " octets)";
      f.tooltip = value_text((*e)["undecodable"]);
    } else {
      f.label = std::string(p.data ? "data" : "datagram") + " (" +
                std::to_string(p.payload.size()) + " octets)";
    }
    f.tooltip = p.from.to_string() + " -> " + p.to.to_string() + ": " + f.tooltip;
    out.push_back(std::move(f));
  }
  return out;
}

// A row of the ladder.
struct Row {
  enum class Kind { Message, Band, Expected, Gap } kind = Kind::Message;
  std::size_t first = 0, last = 0;  // frames (1-based); a gap's range
  bool cited = false;
};

std::vector<Row> rows_of(const std::vector<Frame>& frames, const std::set<std::size_t>& cited) {
  std::vector<Row> rows;
  for (const auto& f : frames) {
    const bool is_cited = cited.count(f.number) != 0;
    if (f.data && !is_cited && !rows.empty() && rows.back().kind == Row::Kind::Band) {
      const Frame& prev = frames[rows.back().last - 1];
      if (prev.from == f.from && prev.to == f.to) {
        rows.back().last = f.number;
        continue;
      }
    }
    Row row;
    row.kind = f.data && !is_cited ? Row::Kind::Band : Row::Kind::Message;
    row.first = row.last = f.number;
    row.cited = is_cited;
    rows.push_back(row);
  }
  return rows;
}

// Keeps the first and last rows and those near a cited frame (and the expected row), within
// `max_rows`; the rest become gap rows.
std::vector<Row> elide(const std::vector<Row>& rows, std::size_t max_rows) {
  if (rows.size() <= max_rows) return rows;
  std::vector<bool> keep(rows.size(), false);
  const std::size_t near = 12;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (!rows[i].cited && rows[i].kind != Row::Kind::Expected) continue;
    for (std::size_t k = i >= near ? i - near : 0; k < std::min(rows.size(), i + near + 1); ++k)
      keep[k] = true;
  }
  const std::size_t kept_near =
      static_cast<std::size_t>(std::count(keep.begin(), keep.end(), true));
  const std::size_t ends = max_rows > kept_near ? (max_rows - kept_near) / 2 : 10;
  for (std::size_t i = 0; i < std::min(ends, rows.size()); ++i) keep[i] = true;
  for (std::size_t i = rows.size() > ends ? rows.size() - ends : 0; i < rows.size(); ++i)
    keep[i] = true;
  std::vector<Row> out;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (keep[i]) {
      out.push_back(rows[i]);
      continue;
    }
    if (out.empty() || out.back().kind != Row::Kind::Gap) {
      Row gap;
      gap.kind = Row::Kind::Gap;
      gap.first = rows[i].first;
      out.push_back(gap);
    }
    if (rows[i].last != 0) out.back().last = rows[i].last;
  }
  return out;
}

constexpr int kFirstCol = 260;  // the first lifeline's x
constexpr int kColGap = 430;
constexpr int kHeadH = 50;
constexpr int kRowH = 34;

std::string arrow(int x1, int x2, int y, const std::string& cls, bool dashed) {
  std::ostringstream o;
  const int dir = x2 >= x1 ? 1 : -1;
  if (x1 == x2) {  // to itself: a small loop
    o << "<path class=\"" << cls << "\" d=\"M" << x1 << " " << y - 8
      << " h40 v16 h-40\" fill=\"none\"/>";
    return o.str();
  }
  o << "<line class=\"" << cls << "\" x1=\"" << x1 << "\" y1=\"" << y << "\" x2=\"" << x2 - dir * 8
    << "\" y2=\"" << y << "\"" << (dashed ? " stroke-dasharray=\"6 4\"" : "") << "/>";
  o << "<polygon class=\"" << cls << " head\" points=\"" << x2 << "," << y << " " << x2 - dir * 10
    << "," << y - 5 << " " << x2 - dir * 10 << "," << y + 5 << "\"/>";
  return o.str();
}

}  // namespace

std::string ladder_svg(const ScenarioResult& r, std::size_t max_rows) {
  const std::vector<Frame> frames = frames_of(r);
  const std::set<std::size_t> cited(r.frames.begin(), r.frames.end());
  std::vector<Row> rows = rows_of(frames, cited);
  const bool failing = r.verdict == Verdict::Fail || r.verdict == Verdict::Warn ||
                       r.verdict == Verdict::Inconclusive || r.verdict == Verdict::Flaky;
  // The expected message, right after the actual one (or at the end when nothing came).
  if (failing && !r.expected.empty()) {
    Row expected;
    expected.kind = Row::Kind::Expected;
    std::size_t at = rows.size();
    if (!cited.empty() && r.actual != "nothing") {  // nothing: the cited frame went unanswered
      for (std::size_t i = 0; i < rows.size(); ++i) {
        if (rows[i].cited) at = i + 1;
      }
    }
    rows.insert(rows.begin() + static_cast<std::ptrdiff_t>(at), expected);
  }
  rows = elide(rows, max_rows);

  // Lifelines: the tester, the IUT, then the others in order of appearance.
  std::vector<std::string> lanes{"tester", "IUT (" + std::string(to_string(r.role)) + ")"};
  const auto lane = [&](const std::string& name) {
    const auto it = std::find(lanes.begin(), lanes.end(), name);
    if (it != lanes.end()) return static_cast<int>(it - lanes.begin());
    lanes.push_back(name);
    return static_cast<int>(lanes.size() - 1);
  };
  for (const auto& f : frames) {
    lane(f.from);
    lane(f.to);
  }
  const auto x_of = [&](const std::string& name) { return kFirstCol + lane(name) * kColGap; };
  const int width = kFirstCol + static_cast<int>(lanes.size() - 1) * kColGap + 260;
  const int height = kHeadH + static_cast<int>(rows.size()) * kRowH + 20;

  std::ostringstream o;
  o << "<svg class=\"ladder\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width
    << "\" height=\"" << height << "\" viewBox=\"0 0 " << width << " " << height
    << "\" data-scenario=\"" << esc(r.name) << "\">";
  o << "<text class=\"colhead\" x=\"8\" y=\"20\">frame</text><text class=\"colhead\" x=\"60\" "
       "y=\"20\">time</text>";
  for (std::size_t i = 0; i < lanes.size(); ++i) {
    const int x = kFirstCol + static_cast<int>(i) * kColGap;
    o << "<g class=\"lifeline\" data-lifeline=\"" << esc(lanes[i]) << "\"><rect x=\"" << x - 90
      << "\" y=\"4\" width=\"180\" height=\"26\" rx=\"4\"/><text x=\"" << x
      << "\" y=\"22\" text-anchor=\"middle\">" << esc(lanes[i]) << "</text><line x1=\"" << x
      << "\" y1=\"30\" x2=\"" << x << "\" y2=\"" << height - 6 << "\"/></g>";
  }
  int y = kHeadH;
  const std::string tester = "tester";
  const std::string iut = lanes[1];
  for (const auto& row : rows) {
    const int mid = y + kRowH / 2 + 6;
    switch (row.kind) {
      case Row::Kind::Message: {
        const Frame& f = frames[row.first - 1];
        const int x1 = x_of(f.from);
        const int x2 = x_of(f.to);
        const std::string cls = row.cited ? "msg cited" : "msg";
        o << "<g class=\"" << cls << "\" data-frame=\"" << f.number << "\"><title>frame "
          << f.number << ": " << esc(f.tooltip) << "</title>";
        if (row.cited) {
          o << "<rect class=\"highlight\" x=\"2\" y=\"" << y + 1 << "\" width=\"" << width - 4
            << "\" height=\"" << kRowH - 2 << "\"/>";
        }
        o << "<text class=\"frame\" x=\"8\" y=\"" << mid << "\">#" << f.number << "</text>";
        o << "<text class=\"time\" x=\"60\" y=\"" << mid << "\">" << ms_text(f.time_ns)
          << "</text>";
        o << arrow(x1, x2, mid, "arrow", false);
        const int lx = x1 == x2 ? x1 + 48 : (x1 + x2) / 2;
        o << "<text class=\"label\" x=\"" << lx << "\" y=\"" << mid - 6 << "\" text-anchor=\""
          << (x1 == x2 ? "start" : "middle") << "\">"
          << (row.cited ? (r.actual == "nothing" ? "unanswered: " : "actual: ") : "")
          << esc(shorten(f.label, 84)) << "</text></g>";
        break;
      }
      case Row::Kind::Band: {
        const Frame& a = frames[row.first - 1];
        const Frame& b = frames[row.last - 1];
        std::uint64_t octets = 0;
        std::set<std::string> messages;
        for (std::size_t n = row.first; n <= row.last; ++n) {
          octets += frames[n - 1].octets;
          if (!frames[n - 1].data_message.empty()) messages.insert(frames[n - 1].data_message);
        }
        std::string which;
        for (const auto& m : messages) which += (which.empty() ? "" : ",") + m;
        const int x1 = x_of(a.from);
        const int x2 = x_of(a.to);
        const std::size_t count = row.last - row.first + 1;
        o << "<g class=\"band\" data-frame=\"" << row.first << "-" << row.last
          << "\"><title>frames " << row.first << "-" << row.last << ": " << esc(a.tooltip)
          << " ... " << esc(b.tooltip) << "</title>";
        o << "<text class=\"frame\" x=\"8\" y=\"" << mid << "\">#" << row.first
          << (count > 1 ? "-" + std::to_string(row.last) : "") << "</text>";
        o << "<text class=\"time\" x=\"60\" y=\"" << mid << "\">" << ms_text(a.time_ns)
          << "</text>";
        o << "<rect class=\"band-rect\" x=\"" << std::min(x1, x2) << "\" y=\"" << y + 6
          << "\" width=\"" << std::max(8, std::abs(x2 - x1)) << "\" height=\"" << kRowH - 12
          << "\"/>";
        o << arrow(x1, x2, y + kRowH / 2, "arrow data", false);
        o << "<text class=\"label\" x=\"" << (x1 + x2) / 2 << "\" y=\"" << y + kRowH / 2 - 4
          << "\" text-anchor=\"middle\">data: " << count
          << (count == 1 ? " packet, " : " packets, ") << octets << " octets"
          << (which.empty() ? "" : ", message " + esc(which)) << " until " << ms_text(b.time_ns)
          << "</text></g>";
        break;
      }
      case Row::Kind::Expected: {
        // The expected message goes the way the tester waited for it: from the IUT to the tester.
        const int x1 = x_of(iut);
        const int x2 = x_of(tester);
        o << "<g class=\"expected\"><title>expected: " << esc(r.expected) << "</title>";
        o << "<rect class=\"highlight-expected\" x=\"2\" y=\"" << y + 1 << "\" width=\""
          << width - 4 << "\" height=\"" << kRowH - 2 << "\"/>";
        o << "<text class=\"frame\" x=\"8\" y=\"" << mid << "\">"
          << (r.actual == "nothing" ? "(none)" : "wanted") << "</text>";
        o << arrow(x1, x2, mid, "arrow", true);
        o << "<text class=\"label\" x=\"" << (x1 + x2) / 2 << "\" y=\"" << mid - 6
          << "\" text-anchor=\"middle\">expected: " << esc(shorten(r.expected, 90))
          << "</text></g>";
        break;
      }
      case Row::Kind::Gap:
        o << "<g class=\"gap\"><text x=\"" << width / 2 << "\" y=\"" << mid
          << "\" text-anchor=\"middle\">... frames " << row.first << "-" << row.last
          << " not drawn (in the pcap) ...</text></g>";
        break;
    }
    y += kRowH;
  }
  o << "</svg>";
  return o.str();
}

namespace {

constexpr const char* kStyle = R"(
body{font:14px/1.4 system-ui,sans-serif;margin:0 2em 3em;color:#222}
h1{font-size:1.5em;margin:.8em 0 .2em}h2{margin-top:1.6em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 8px;text-align:left;vertical-align:top}
th{background:#f3f3f3}code{background:#f5f5f5;padding:0 3px}
.v{display:inline-block;min-width:5.5em;text-align:center;border-radius:3px;font-weight:600;font-size:.85em;padding:0 4px}
.v-pass{background:#d8f3dc;color:#14532d}.v-warn{background:#fff3bf;color:#7c5800}.v-fail{background:#ffd6d6;color:#8b0000}.v-flaky{background:#ffc9a8;color:#7a2e00}
.v-inconclusive{background:#e5dbff;color:#4b2a99}.v-unsupported{background:#e9ecef;color:#495057}.v-skipped{background:#f8f9fa;color:#868e96}
.st-fail{background:#ffd6d6}.st-flaky{background:#ffc9a8}.st-warn{background:#fff3bf}.st-pass{background:#eefbf0}.st-uncovered{color:#999}
section.scenario{border:1px solid #ddd;border-radius:6px;padding:.3em 1em;margin:1em 0}
section.scenario.verdict-fail{border-color:#d33}section.scenario.verdict-warn{border-color:#c90}
section.scenario h3{margin:.4em 0}.desc{color:#555;margin:.2em 0}
.failure{background:#fff8f8;border-left:4px solid #d33;padding:.4em .8em;margin:.5em 0}
.verdict-warn .failure{background:#fffbea;border-left-color:#c90}
.failure code{white-space:pre-wrap;word-break:break-all}.failure .expected-text code{background:#e9f7ec}.failure .actual-text code{background:#ffe3e3}
blockquote.requirement{margin:.3em 0;padding:.2em .8em;border-left:3px solid #888;background:#fafafa}
.ladder-box{overflow-x:auto}
svg.ladder text{font:12px ui-monospace,monospace;fill:#222}
svg.ladder .colhead{fill:#666}svg.ladder .frame,svg.ladder .time{fill:#666}
svg.ladder .lifeline rect{fill:#eef2ff;stroke:#667}svg.ladder .lifeline text{font-weight:600}
svg.ladder .lifeline line{stroke:#99a;stroke-dasharray:4 3}
svg.ladder .arrow{stroke:#335;stroke-width:1.4;fill:#335}
svg.ladder .band-rect{fill:#cfe3ff;opacity:.7}svg.ladder .arrow.data{stroke:#5a8fd6;fill:#5a8fd6}
svg.ladder .cited .arrow{stroke:#c00;fill:#c00;stroke-width:2.2}svg.ladder .cited .label{fill:#c00;font-weight:700}
svg.ladder .highlight{fill:#ffe3e3}svg.ladder .highlight-expected{fill:#e3f7e8}
svg.ladder .expected .arrow{stroke:#1a7f37;fill:#1a7f37;stroke-width:2}svg.ladder .expected .label{fill:#1a7f37;font-weight:700}
svg.ladder .gap text{fill:#999;font-style:italic}
.filters button{margin-right:.4em}.hidden{display:none}
.matrix td.cell{text-align:center;padding:0}.matrix td.cell a{display:block;padding:2px 6px;text-decoration:none;color:inherit}
.matrix th.scn{writing-mode:vertical-rl;transform:rotate(180deg);font-weight:normal;font-size:.85em;white-space:nowrap}
)";

// Shows only the scenarios of one verdict (a button per verdict); nothing else runs.
constexpr const char* kScript = R"(
function rdccShow(v){document.querySelectorAll('section.scenario').forEach(function(s){
s.classList.toggle('hidden', v!=='all' && s.dataset.verdict!==v);});}
)";

// "55 pass, 11 skipped": the verdicts a run had, the others left out.
std::string short_counts(const Counts& c) {
  std::string out;
  const std::pair<std::size_t, const char*> parts[] = {{c.passed, "pass"},
                                                       {c.warned, "warn"},
                                                       {c.failed, "fail"},
                                                       {c.flaky, "flaky"},
                                                       {c.inconclusive, "inconclusive"},
                                                       {c.unsupported, "unsupported"},
                                                       {c.skipped, "skipped"}};
  for (const auto& [n, what] : parts) {
    if (n != 0) out += (out.empty() ? "" : ", ") + std::to_string(n) + " " + what;
  }
  return out.empty() ? "no scenarios" : out;
}

std::string verdict_badge(Verdict v) {
  const std::string s = to_string(v);
  return "<span class=\"v v-" + s + "\">" + upper(s) + "</span>";
}

const RequirementRow* row_of(std::string_view id, const std::vector<RequirementRow>& catalog) {
  for (const auto& row : catalog) {
    if (row.id == id) return &row;
  }
  return nullptr;
}

std::string requirement_html(std::string_view id, const std::vector<RequirementRow>& catalog) {
  const auto* row = row_of(id, catalog);
  std::string out = "<blockquote class=\"requirement\" data-id=\"" + esc(id) + "\"><b>" + esc(id);
  if (row == nullptr) return out + "</b> (not in the catalog)</blockquote>";
  out += " " + esc(row->level) + "</b>, " + esc(row->section);
  if (!row->clause.empty()) out += ", " + esc(row->clause);
  out += ": \xE2\x80\x9C" + esc(row->text) + "\xE2\x80\x9D</blockquote>";
  return out;
}

void write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

std::string page_head(const std::string& title) {
  return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + esc(title) +
         "</title><style>" + kStyle + "</style><script>" + kScript + "</script></head><body>\n";
}

std::string scenario_html(const ScenarioResult& r, const SuiteReport& report,
                          const std::filesystem::path& dir) {
  std::ostringstream o;
  const std::string v = to_string(r.verdict);
  const bool failing = r.verdict == Verdict::Fail || r.verdict == Verdict::Warn ||
                       r.verdict == Verdict::Inconclusive || r.verdict == Verdict::Flaky;
  o << "<section class=\"scenario verdict-" << v << "\" id=\"" << anchor(r) << "\" data-scenario=\""
    << esc(r.name) << "\" data-verdict=\"" << v << "\">\n";
  o << "<h3>" << verdict_badge(r.verdict) << " " << esc(r.name)
    << (r.level.empty() || !failing ? "" : " <small>[" + esc(r.level) + "]</small>") << "</h3>\n";
  o << "<p class=\"desc\">" << esc(r.description) << " <small>(" << esc(to_string(r.role)) << ", "
    << esc(r.file) << ")</small></p>\n";
  const bool have_pcapng = std::filesystem::exists(dir / annotated_pcap_in_report(r));
  if (failing || (!r.reason.empty() && r.verdict != Verdict::Pass)) {
    o << "<div class=\"failure\">\n<p class=\"reason\"><b>" << esc(r.reason) << "</b></p>\n";
    if (r.where.line != 0) {
      o << "<p class=\"where\">at <code>" << esc(r.where.to_string()) << "</code>: <code>"
        << esc(r.step) << "</code></p>\n";
    }
    if (!r.expected.empty())
      o << "<p class=\"expected-text\">expected: <code>" << esc(r.expected) << "</code></p>\n";
    if (!r.actual.empty())
      o << "<p class=\"actual-text\">actual: <code>" << esc(r.actual) << "</code></p>\n";
    if (failing) {
      for (const auto& id : r.cited.empty() ? r.checks : r.cited)
        o << requirement_html(id, report.requirements) << "\n";
    }
    if (!r.frames.empty()) {
      std::string nums;
      for (const auto f : r.frames) nums += (nums.empty() ? "" : " ") + std::to_string(f);
      o << "<p class=\"frames\">frames <span class=\"frame-numbers\">" << nums
        << "</span> of the run's capture; Wireshark display filter: <code class=\"filter\">"
        << esc(display_filter(r.frames)) << "</code></p>\n";
    }
    o << "</div>\n";
  } else if (!r.checks.empty()) {
    o << "<p class=\"checks\">checks ";
    for (std::size_t i = 0; i < r.checks.size(); ++i) o << (i ? ", " : "") << esc(r.checks[i]);
    o << "</p>\n";
  }
  if (!r.source.empty()) {  // a generated scenario (--explore): the file that reproduces it
    o << "<details class=\"source\"" << (failing ? " open" : "")
      << "><summary>the scenario file</summary><pre>" << esc(r.source) << "</pre></details>\n";
  }
  if (r.iut_exit) {
    o << "<p class=\"iut-exit\">the IUT " << esc(r.iut_exit->describe())
      << " during the scenario</p>\n";
  }
  if (r.foreign.count != 0)
    o << "<p class=\"foreign\">" << esc(foreign_note(r.foreign)) << "</p>\n";
  if (r.verdict != Verdict::Skipped) {
    o << "<p class=\"files\">capture: <a href=\"" << esc(pcap_in_report(r)) << "\">"
      << esc(pcap_in_report(r)) << "</a>";
    if (have_pcapng) {
      o << " · annotated (packet comments, <code>frame.comment</code>): <a class=\"pcapng\" href=\""
        << esc(annotated_pcap_in_report(r)) << "\">" << esc(annotated_pcap_in_report(r)) << "</a>";
    } else if (!r.frames.empty() || !r.violations.empty()) {
      o << " · no annotated capture (Wireshark's editcap was not found)";
    }
    o << " · events: <a href=\"scenarios/" << esc(r.name) << ".events.jsonl\">scenarios/"
      << esc(r.name) << ".events.jsonl</a></p>\n";
    o << "<details" << (failing ? " open" : "") << "><summary>ladder diagram (" << r.trace.size()
      << " frames)</summary><div class=\"ladder-box\">" << ladder_svg(r) << "</div></details>\n";
  }
  o << "</section>\n";
  return o.str();
}

}  // namespace

void write_html_report(const std::filesystem::path& dir, const SuiteReport& report) {
  std::ostringstream o;
  o << page_head("RDCC conformance: " + report.iut);
  o << "<header><h1>RDCC conformance report</h1><p>IUT <code id=\"iut\">" << esc(report.iut)
    << "</code>"
    << (report.strict ? " · <b>--strict</b> (a failed SHOULD is a FAIL)"
                      : " · default run (a failed SHOULD is a WARN)");
  // The toolkit's version, as results.json and the JUnit properties give it (rdcc_version).
  o << " · rdcc <span id=\"version\">" << esc(RDCC_VERSION) << "</span>";
  o << "</p></header>\n";

  // Summary by role and by verdict.
  const Verdict all[] = {Verdict::Pass,   Verdict::Warn,         Verdict::Fail,
                         Verdict::Flaky,  Verdict::Inconclusive, Verdict::Unsupported,
                         Verdict::Skipped};
  std::map<std::string, std::map<Verdict, std::size_t>> by_role;
  std::map<std::string, std::map<Verdict, std::size_t>> by_level;
  for (const auto& r : report.results) {
    ++by_role[std::string(to_string(r.role))][r.verdict];
    ++by_role["all"][r.verdict];
    if (r.verdict == Verdict::Fail || r.verdict == Verdict::Warn) {
      ++by_level[r.level.empty() ? "?" : r.level][r.verdict];
    }
  }
  o << "<h2>Summary</h2>\n<p id=\"summary-line\">" << esc(summary_line(count(report.results)))
    << "</p>\n";
  o << "<table id=\"by-role\"><tr><th>role</th>";
  for (const auto v : all) o << "<th>" << verdict_badge(v) << "</th>";
  o << "</tr>\n";
  for (auto& [role, counts] : by_role) {
    if (role == "all") continue;
    o << "<tr><td>" << esc(role) << "</td>";
    for (const auto v : all) o << "<td>" << counts[v] << "</td>";
    o << "</tr>\n";
  }
  o << "<tr><th>all</th>";
  for (const auto v : all) o << "<th>" << by_role["all"][v] << "</th>";
  o << "</tr></table>\n";
  o << "<p>Failures and warnings by the level of the requirement that decided them (MUST and RULE "
       "fail; "
       "SHOULD warns, fails under --strict):</p>\n<table id=\"by-level\"><tr><th>level</th><th>"
    << verdict_badge(Verdict::Fail) << "</th><th>" << verdict_badge(Verdict::Warn)
    << "</th></tr>\n";
  if (by_level.empty()) o << "<tr><td colspan=\"3\">none</td></tr>\n";
  for (auto& [level, counts] : by_level) {
    o << "<tr><td>" << esc(level) << "</td><td>" << counts[Verdict::Fail] << "</td><td>"
      << counts[Verdict::Warn] << "</td></tr>\n";
  }
  o << "</table>\n";

  // The scenarios, an index.
  o << "<h2>Scenarios</h2>\n<p class=\"filters\">show: <button "
       "onclick=\"rdccShow('all')\">all</button>";
  for (const auto v : all) {
    o << "<button onclick=\"rdccShow('" << to_string(v) << "')\">" << to_string(v) << "</button>";
  }
  o << "</p>\n<table "
       "id=\"scenario-index\"><tr><th>scenario</th><th>role</th><th>verdict</th><th>why</"
       "th><th>frames</th></tr>\n";
  for (const auto& r : report.results) {
    std::string nums;
    for (const auto f : r.frames) nums += (nums.empty() ? "" : " ") + std::to_string(f);
    o << "<tr><td><a href=\"#" << anchor(r) << "\">" << esc(r.name) << "</a></td><td>"
      << esc(to_string(r.role)) << "</td><td>" << verdict_badge(r.verdict)
      << (r.level.empty() ? "" : " " + esc(r.level)) << "</td><td>" << esc(shorten(r.reason, 140))
      << "</td><td>" << nums << "</td></tr>\n";
  }
  o << "</table>\n";

  // Requirement coverage.
  std::map<std::string, std::vector<const ScenarioResult*>> by_id;
  for (const auto& r : report.results) {
    for (const auto& id : r.checks) by_id[id].push_back(&r);
  }
  std::map<std::string, std::size_t> statuses;
  std::ostringstream cov;
  std::vector<RequirementRow> rows = report.requirements;
  if (rows.empty()) {
    for (const auto& [id, rs] : by_id) rows.push_back({id, "", "", "", "", "", ""});
  }
  for (const auto& row : rows) {
    const auto it = by_id.find(row.id);
    const std::vector<const ScenarioResult*> rs =
        it == by_id.end() ? std::vector<const ScenarioResult*>{} : it->second;
    const std::string status = coverage_status(row.id, rs);
    ++statuses[status];
    cov << "<tr class=\"st-" << (status == "not passed" ? "not-passed" : status) << "\"><td>"
        << esc(row.id) << "</td><td>" << esc(row.level) << "</td><td>" << esc(row.role)
        << "</td><td>" << esc(row.testing) << "</td><td>" << esc(status) << "</td><td>";
    for (std::size_t i = 0; i < rs.size(); ++i) {
      cov << (i ? ", " : "") << "<a href=\"#" << anchor(*rs[i]) << "\">" << esc(rs[i]->name)
          << "</a> (" << to_string(verdict_for(*rs[i], row.id)) << ")";
    }
    cov << "</td></tr>\n";
  }
  o << "<h2>Requirement coverage</h2>\n<p id=\"coverage-line\">" << rows.size()
    << " requirements: ";
  bool first = true;
  for (const auto& [status, n] : statuses) {
    o << (first ? "" : ", ") << n << " " << esc(status);
    first = false;
  }
  o << " (coverage.md and coverage.json have the same table)</p>\n<details><summary>the "
       "table</summary>"
       "<table id=\"coverage\"><tr><th>requirement</th><th>level</th><th>role</th><th>testing</th>"
       "<th>status</th><th>scenarios</th></tr>\n"
    << cov.str() << "</table></details>\n";

  // Every scenario: the failing ones first, with their ladders open.
  o << "<h2>Runs</h2>\n";
  std::vector<const ScenarioResult*> order;
  for (const auto& r : report.results) order.push_back(&r);
  const auto rank = [](const ScenarioResult* r) {
    switch (r->verdict) {
      case Verdict::Fail:
      case Verdict::Flaky: return 0;
      case Verdict::Inconclusive: return 1;
      case Verdict::Warn: return 2;
      default: return 3;
    }
  };
  std::stable_sort(
      order.begin(), order.end(),
      [&](const ScenarioResult* a, const ScenarioResult* b) { return rank(a) < rank(b); });
  for (const auto* r : order) o << scenario_html(*r, report, dir);
  o << "<footer><p>Files: <a href=\"summary.txt\">summary.txt</a> · <a "
       "href=\"junit.xml\">junit.xml</a> · "
       "<a href=\"results.json\">results.json</a> · <a "
       "href=\"coverage.md\">coverage.md</a></p></footer>\n";
  o << "</body></html>\n";
  write_text(dir / "index.html", o.str());
}

void write_matrix_html(const std::filesystem::path& file, const std::vector<MatrixRunRow>& rows) {
  // The columns: every scenario any row ran, in first-seen order.
  std::vector<std::string> scenarios;
  std::set<std::string> seen;
  for (const auto& row : rows) {
    for (const auto& r : row.results) {
      if (seen.insert(r.name).second) scenarios.push_back(r.name);
    }
  }
  std::ostringstream o;
  o << page_head("RDCC interop matrix");
  o << "<header><h1>RDCC interop matrix</h1><p>" << rows.size() << " IUTs × " << scenarios.size()
    << " scenarios; each cell links to that scenario in that IUT's report"
    << " · rdcc <span id=\"version\">" << esc(RDCC_VERSION) << "</span>"
    << "</p></header>\n";
  o << "<table class=\"matrix\" id=\"matrix\"><tr><th>IUT</th><th>kind</th><th>summary</th>";
  for (const auto& s : scenarios)
    o << "<th class=\"scn\" title=\"" << esc(s) << "\">" << esc(s) << "</th>";
  o << "</tr>\n";
  for (const auto& row : rows) {
    std::map<std::string, const ScenarioResult*> by_name;
    for (const auto& r : row.results) by_name[r.name] = &r;
    o << "<tr class=\"iut\" data-iut=\"" << esc(row.iut) << "\"><th><a href=\"" << esc(row.report)
      << "/index.html\" title=\"" << esc(row.iut) << "\">" << esc(shorten(row.iut, 60)) << "</a>";
    if (!row.detail.empty()) {
      o << "<br><small class=\"detail\" title=\"" << esc(row.detail) << "\">"
        << esc(shorten(row.detail, 160)) << "</small>";
    }
    o << "</th><td>" << esc(row.kind) << "</td><td><small>"
      << esc(row.note.empty() ? short_counts(count(row.results)) : "not run: " + row.note)
      << "</small></td>";
    for (const auto& s : scenarios) {
      const auto it = by_name.find(s);
      if (it == by_name.end()) {
        o << "<td class=\"cell none\"></td>";
        continue;
      }
      const ScenarioResult& r = *it->second;
      const std::string v = to_string(r.verdict);
      o << "<td class=\"cell v-" << v << "\" data-verdict=\"" << v << "\" data-scenario=\""
        << esc(s) << "\"><a href=\"" << esc(row.report) << "/index.html#" << anchor(r)
        << "\" title=\"" << esc(s) << ": " << esc(upper(v))
        << (r.reason.empty() ? "" : " - " + esc(r.reason)) << "\">" << esc(lower(v.substr(0, 4)))
        << "</a></td>";
    }
    o << "</tr>\n";
  }
  o << "</table>\n</body></html>\n";
  write_text(file, o.str());
}

}  // namespace rdcc::conformance
