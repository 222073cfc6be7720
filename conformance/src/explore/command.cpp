// rdcc-conform --explore: options checked, progress and the result printed, the report written.
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "../write_file.hpp"
#include "rdcc/conformance/explore.hpp"

namespace rdcc::conformance {
int explore_main(const ExploreCommand& c, std::ostream& out, std::ostream& err) {
  constexpr int kUsage = 2;
  if (c.role != "receiver" && c.role != "sender" && c.role != "crn") {
    err << "rdcc-conform: --explore plays against a receiver, a sender or a CRN IUT (--role "
           "receiver, sender or crn), not '"
        << c.role << "'\n";
    return kUsage;
  }
  const Role role = c.role == "sender" ? Role::Sender
                    : c.role == "crn"  ? Role::Crn
                                       : Role::Receiver;
  ExploreOptions o;
  o.role = role;
  o.seed = c.seed;
  o.steps = c.steps;
  o.suite = c.suite;
  o.suite.adapter.role = role;
  o.known_id = c.known_id;
  if (!c.duration.empty()) {
    const auto d = parse_duration(c.duration);
    if (!d || d->ns <= 0) {
      err << "rdcc-conform: --duration takes a duration (30s, 500ms), not '" << c.duration << "'\n";
      return kUsage;
    }
    o.duration_s = static_cast<double>(d->ns) / 1e9;
  }
  out << "rdcc-conform: explore against " << c.iut << ", seed " << c.seed << "\n";
  const ExploreResult r = explore(o, [&out](const std::string& line) { out << line << std::endl; });
  out << explore_text(r);
  if (!c.report_dir.empty()) {
    try {
      SuiteReport report;
      report.iut = c.iut;
      report.strict = true;
      report.requirements = c.catalog;
      report.results = r.runs;
      if (r.failed) report.results.push_back(r.shrunk);
      write_reports(c.report_dir, report);
      const std::filesystem::path dir(c.report_dir);
      write_file(dir / "explore.txt", explore_text(r));
      if (r.failed) {
        write_file(dir / (r.shrunk.name + ".scn"), r.shrunk_text);
        write_file(dir / (r.failing.name + ".scn"), r.program_text);
      }
      out << "report: " << c.report_dir << " (explore.txt, index.html"
          << (r.failed ? ", " + r.shrunk.name + ".scn" : std::string()) << ")\n";
    } catch (const std::exception& e) {
      err << "rdcc-conform: " << e.what() << "\n";
      return kUsage;
    }
  }
  if (r.failed) return 1;
  return r.inconclusive > 0 ? 3 : 0;
}

}  // namespace rdcc::conformance
