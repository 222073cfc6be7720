#include "rdcc/conformance/auto_mutants.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <stdexcept>
#include <variant>

#include "rdcc/conformance/report.hpp"
#include "write_file.hpp"

namespace rdcc::conformance {
namespace {

// A mutant's run may not take longer than this wall-clock bound (a loop the mutation made
// endless, on a host too loaded for the CPU bound below to trip first).
constexpr int kChildSeconds = 120;
// A mutant plays the scenarios of one role, a part of what the reference played in the parent:
// the CPU time it may use is kChildCpuFactor times the reference's whole run (never below
// kChildCpuFloor s), so a mutant made endless stops after seconds of CPU, on a loaded host as on
// an idle one. Its address space is bounded too, so a mutant that allocates without end dies of
// its own bad_alloc instead of drawing the host's OOM killer onto other processes.
constexpr std::uint64_t kChildCpuFactor = 4;
constexpr std::uint64_t kChildCpuFloor = 20;
constexpr rlim_t kChildAddressSpace = rlim_t{4} << 30U;

// CPU seconds this process has used (every thread's).
double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// FNV-1a over what crossed the wire: direction, instant, kind, marks and bytes of every packet.
std::uint64_t trace_hash(const std::vector<TraceEntry>& trace) {
  std::uint64_t h = 1469598103934665603ULL;
  const auto mix = [&h](std::uint64_t v) {
    for (int i = 0; i < 8; ++i) {
      h ^= (v >> (8 * i)) & 0xFFU;
      h *= 1099511628211ULL;
    }
  };
  for (const auto& e : trace) {
    mix(e.from_tester ? 1 : 2);
    mix(static_cast<std::uint64_t>(e.packet.time.ns));
    mix((e.packet.data ? 1U : 0U) | (e.packet.rocev2 ? 2U : 0U) | (e.packet.ce ? 4U : 0U) |
        (static_cast<std::uint64_t>(e.packet.dscp) << 8U));
    mix(e.packet.payload.size());
    for (std::byte b : e.packet.payload) mix(std::to_integer<std::uint64_t>(b));
  }
  return h;
}

struct Played {
  Verdict verdict = Verdict::Pass;
  std::uint64_t hash = 0;
  std::string reason;
};

std::map<std::string, Played> play_all(const std::vector<Scenario>& scenarios,
                                       SuiteOptions options) {
  options.progress = {};
  std::map<std::string, Played> out;
  for (const auto& r : run_suite(scenarios, options)) {
    out[r.name] = {r.verdict, trace_hash(r.trace), r.reason};
  }
  return out;
}

std::string one_line(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  std::replace(s.begin(), s.end(), '\t', ' ');
  return s;
}

// Runs the mutant in a child process: "NAME\tVERDICT\tHASH\tREASON" lines back through a pipe.
std::variant<std::map<std::string, Played>, std::string> play_in_child(
    std::uint32_t id, const std::vector<Scenario>& scenarios, const SuiteOptions& options,
    std::uint64_t cpu_limit_s) {
  int fds[2];
  if (pipe(fds) != 0) return std::string("pipe: ") + std::strerror(errno);
  const pid_t pid = fork();
  if (pid < 0) return std::string("fork: ") + std::strerror(errno);
  if (pid == 0) {
    close(fds[0]);
    const rlimit cpu{static_cast<rlim_t>(cpu_limit_s), static_cast<rlim_t>(cpu_limit_s + 5)};
    const rlimit as{kChildAddressSpace, kChildAddressSpace};
    setrlimit(RLIMIT_CPU, &cpu);
    setrlimit(RLIMIT_AS, &as);
    automut::set_active(id);
    std::string text;
    for (const auto& [name, p] : play_all(scenarios, options)) {
      text += name + "\t" + std::to_string(static_cast<int>(p.verdict)) + "\t" +
              std::to_string(p.hash) + "\t" + one_line(p.reason) + "\n";
    }
    std::size_t at = 0;
    while (at < text.size()) {
      const ssize_t n = write(fds[1], text.data() + at, text.size() - at);
      if (n <= 0) _exit(3);
      at += static_cast<std::size_t>(n);
    }
    _exit(0);
  }
  close(fds[1]);
  std::string text;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kChildSeconds);
  bool timed_out = false;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left)) <= 0) continue;
    char buf[4096];
    const ssize_t n = read(fds[0], buf, sizeof buf);
    if (n <= 0) break;
    text.append(buf, static_cast<std::size_t>(n));
  }
  close(fds[0]);
  if (timed_out) kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  if (timed_out) return "ran past " + std::to_string(kChildSeconds) + " s";
  if (WIFSIGNALED(status) && (WTERMSIG(status) == SIGXCPU || WTERMSIG(status) == SIGKILL) &&
      text.empty()) {
    return "ran past its CPU bound of " + std::to_string(cpu_limit_s) +
           " s (the reference's whole run times " + std::to_string(kChildCpuFactor) + ")";
  }
  if (WIFSIGNALED(status)) return "died of signal " + std::to_string(WTERMSIG(status));
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return std::string("exited with an error");
  std::map<std::string, Played> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    std::string name, verdict, hash, reason;
    std::getline(f, name, '\t');
    std::getline(f, verdict, '\t');
    std::getline(f, hash, '\t');
    std::getline(f, reason);
    out[name] = {static_cast<Verdict>(std::stoi(verdict)), std::stoull(hash), reason};
  }
  return out;
}

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : " ") + s;
  return out;
}

}  // namespace

const char* to_string(AutoOutcome o) {
  switch (o) {
    case AutoOutcome::Killed: return "killed";
    case AutoOutcome::Inconclusive: return "inconclusive";
    case AutoOutcome::Survived: return "survived";
    case AutoOutcome::Equivalent: return "equivalent";
    case AutoOutcome::Crashed: return "crashed";
  }
  return "?";
}

std::size_t AutoMatrix::count(AutoOutcome o) const {
  return static_cast<std::size_t>(std::count_if(
      rows.begin(), rows.end(), [o](const AutoMutantRow& r) { return r.outcome == o; }));
}

double AutoMatrix::score() const {
  const std::size_t visible =
      count(AutoOutcome::Killed) + count(AutoOutcome::Inconclusive) + count(AutoOutcome::Survived);
  return visible == 0
             ? 1.0
             : static_cast<double>(count(AutoOutcome::Killed)) / static_cast<double>(visible);
}

std::size_t AutoMatrix::reviewed() const {
  return static_cast<std::size_t>(std::count_if(rows.begin(), rows.end(), [](const auto& r) {
    return r.outcome == AutoOutcome::Survived && !r.reviewed.empty();
  }));
}

double AutoMatrix::fault_score() const {
  const std::size_t faults = count(AutoOutcome::Killed) + count(AutoOutcome::Inconclusive) +
                             count(AutoOutcome::Survived) - reviewed();
  return faults == 0
             ? 1.0
             : static_cast<double>(count(AutoOutcome::Killed)) / static_cast<double>(faults);
}

std::string describe(const automut::AutoMutant& m) {
  std::ostringstream out;
  out << m.id << " [" << m.role << "] " << m.kind << " " << m.file << ":" << m.line << ":"
      << m.column << " in " << m.function << "(): " << m.original << " -> "
      << (std::strlen(m.replacement) == 0 ? "(removed)" : m.replacement);
  return out.str();
}

const automut::AutoMutant* find_auto_mutant(std::uint32_t id) {
  if (id == 0 || id > automut::kAutoMutantCount) return nullptr;
  return &automut::kAutoMutants[id - 1];
}

std::vector<std::uint32_t> parse_auto_mutant_ids(const std::string& text, std::string* error) {
  std::vector<std::uint32_t> out;
  std::istringstream in(text);
  std::string part;
  while (std::getline(in, part, ',')) {
    const auto dash = part.find('-');
    try {
      const auto lo = std::stoul(part.substr(0, dash));
      const auto hi = dash == std::string::npos ? lo : std::stoul(part.substr(dash + 1));
      if (lo == 0 || hi < lo || hi > automut::kAutoMutantCount) throw std::out_of_range(part);
      for (auto id = lo; id <= hi; ++id) out.push_back(static_cast<std::uint32_t>(id));
    } catch (const std::exception&) {
      if (error != nullptr) {
        *error = "automatic mutant ids '" + part + "': ids are 1.." +
                 std::to_string(automut::kAutoMutantCount) + ", as A-B or A";
      }
      return {};
    }
  }
  return out;
}

std::vector<std::uint32_t> sample_auto_mutants(std::size_t count, std::uint64_t seed) {
  std::vector<std::uint32_t> all(automut::kAutoMutantCount);
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<std::uint32_t>(i + 1);
  std::mt19937_64 rng(seed);
  std::shuffle(all.begin(), all.end(), rng);
  all.resize(std::min(count, all.size()));
  std::sort(all.begin(), all.end());
  return all;
}

std::string site_key(const automut::AutoMutant& m) {
  return std::string(m.file) + ":" + std::to_string(m.line) + ":" + std::to_string(m.column) + " " +
         m.original + " -> " + (std::strlen(m.replacement) == 0 ? "(removed)" : m.replacement);
}

std::vector<std::pair<std::string, std::string>> load_reviewed(const std::string& path) {
  std::vector<std::pair<std::string, std::string>> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    // "| `FILE:LINE:COLUMN ORIGINAL -> REPLACEMENT` | ... |"
    if (line.rfind("| `", 0) != 0) continue;
    const auto end = line.find('`', 3);
    if (end == std::string::npos) continue;
    // A `|` in a table cell is written `\|`, in a code span too (GitHub's tables).
    std::string key = line.substr(3, end - 3);
    for (std::size_t at = key.find("\\|"); at != std::string::npos; at = key.find("\\|", at)) {
      key.erase(at, 1);
    }
    out.emplace_back(key, line);
  }
  return out;
}

AutoMatrix run_auto_mutant_matrix(const std::vector<Scenario>& scenarios, SuiteOptions options,
                                  const std::vector<std::uint32_t>& ids,
                                  const std::string& reviewed_path,
                                  const std::function<void(const AutoMutantRow&)>& progress) {
  // As the named mutants' kill matrix: under --strict, so that a mutant that breaks a SHOULD
  // (a WARN in a default run) counts as found.
  options.strict = true;
  automut::set_active(0);
  const double cpu_before = cpu_seconds();
  const auto reference = play_all(scenarios, options);
  const auto cpu_limit_s = std::max<std::uint64_t>(
      kChildCpuFloor,
      kChildCpuFactor * static_cast<std::uint64_t>(std::ceil(cpu_seconds() - cpu_before)));
  const auto reviewed = load_reviewed(reviewed_path);
  AutoMatrix m;
  for (const std::uint32_t id : ids) {
    AutoMutantRow row;
    row.mutant = find_auto_mutant(id);
    if (row.mutant == nullptr) continue;
    for (const auto& [key, text] : reviewed) {
      if (key == site_key(*row.mutant)) row.reviewed = text;
    }
    std::vector<Scenario> own;
    for (const auto& s : scenarios) {
      if (to_string(s.role) == std::string_view(row.mutant->role)) own.push_back(s);
    }
    auto played = play_in_child(id, own, options, cpu_limit_s);
    if (auto* why = std::get_if<std::string>(&played)) {
      row.outcome = AutoOutcome::Crashed;
      row.reason = *why;
    } else {
      for (const auto& [name, p] : std::get<std::map<std::string, Played>>(played)) {
        const auto ref = reference.find(name);
        if (p.verdict == Verdict::Fail) {
          if (row.failed_in.empty()) row.reason = p.reason;
          row.failed_in.push_back(name);
        } else if (p.verdict == Verdict::Inconclusive && ref != reference.end() &&
                   ref->second.verdict != Verdict::Inconclusive) {
          row.inconclusive_in.push_back(name);
        }
        if (ref == reference.end() || ref->second.hash != p.hash) row.differs_in.push_back(name);
      }
      row.outcome = !row.failed_in.empty()         ? AutoOutcome::Killed
                    : !row.inconclusive_in.empty() ? AutoOutcome::Inconclusive
                    : !row.differs_in.empty()      ? AutoOutcome::Survived
                                                   : AutoOutcome::Equivalent;
    }
    if (progress) progress(row);
    m.rows.push_back(std::move(row));
  }
  return m;
}

std::string auto_row_text(const AutoMutantRow& row) {
  std::string out = std::string(to_string(row.outcome)) + "  " + describe(*row.mutant);
  if (!row.failed_in.empty()) out += "\n    fails " + join(row.failed_in);
  if (!row.inconclusive_in.empty()) out += "\n    inconclusive in " + join(row.inconclusive_in);
  if (row.outcome == AutoOutcome::Survived) {
    out += "\n    trace differs in " + join(row.differs_in);
    out += row.reviewed.empty() ? "\n    NOT REVIEWED" : "\n    reviewed: " + row.reviewed;
  }
  if (row.outcome == AutoOutcome::Crashed) out += "\n    " + row.reason;
  return out + "\n";
}

std::string auto_matrix_summary(const AutoMatrix& m) {
  char score[32];
  std::snprintf(score, sizeof score, "%.1f%%", 100.0 * m.score());
  char faults[32];
  std::snprintf(faults, sizeof faults, "%.1f%%", 100.0 * m.fault_score());
  const std::size_t unreviewed = m.count(AutoOutcome::Survived) - m.reviewed();
  const std::size_t visible = m.count(AutoOutcome::Killed) + m.count(AutoOutcome::Inconclusive) +
                              m.count(AutoOutcome::Survived);
  return std::to_string(m.rows.size()) + " automatic mutants: " + std::to_string(visible) +
         " wire-visible, " + std::to_string(m.count(AutoOutcome::Killed)) + " killed (FAIL), " +
         std::to_string(m.count(AutoOutcome::Inconclusive)) + " inconclusive, " +
         std::to_string(m.count(AutoOutcome::Survived)) + " survived (" +
         std::to_string(unreviewed) + " not reviewed), " +
         std::to_string(m.count(AutoOutcome::Equivalent)) + " equivalent, " +
         std::to_string(m.count(AutoOutcome::Crashed)) + " crashed; mutation score " + score +
         " (killed / wire-visible); of the faults " + faults + " (killed / wire-visible less the " +
         std::to_string(m.reviewed()) + " reviewed as legal)\n";
}

void write_auto_matrix(const std::string& dir_text, const AutoMatrix& m) {
  const std::filesystem::path dir(dir_text);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create " + dir.string() + ": " + ec.message());
  std::string text;
  for (const auto& r : m.rows) text += auto_row_text(r);
  write_file(dir / "auto-mutants.txt", text + auto_matrix_summary(m));
  auto rows = nlohmann::ordered_json::array();
  for (const auto& r : m.rows) {
    rows.push_back({{"id", r.mutant->id},
                    {"role", r.mutant->role},
                    {"file", r.mutant->file},
                    {"line", r.mutant->line},
                    {"kind", r.mutant->kind},
                    {"original", r.mutant->original},
                    {"replacement", r.mutant->replacement},
                    {"function", r.mutant->function},
                    {"outcome", to_string(r.outcome)},
                    {"failed_in", r.failed_in},
                    {"inconclusive_in", r.inconclusive_in},
                    {"differs_in", r.differs_in},
                    {"reason", r.reason},
                    {"reviewed", r.reviewed}});
  }
  nlohmann::ordered_json j;
  j["mutants"] = rows;
  j["score"] = m.score();
  j["reviewed"] = m.reviewed();
  j["fault_score"] = m.fault_score();
  j["summary"] = auto_matrix_summary(m);
  write_file(dir / "auto-mutants.json", j.dump(2) + "\n");
}

}  // namespace rdcc::conformance
