// Soak of one sender on the simulator (issue 19, item 7): N sequential messages of 4 KiB, one
// every microsecond, from one sender to one receiver on 100 Gbit/s links. Prints, per N, the
// wall time per message and the process's resident memory (VmRSS) at every tenth of the run
// and its peak (VmHWM). With several N, each runs in a child process of its own, so each peak
// is its own.
//
//   sim_soak_bench                 # N = 10^4, 10^5, 10^6
//   sim_soak_bench 1000 20000      # the sizes given
//   sim_soak_bench --assocs A [N ...]   # many live associations (below); N default 10^4, 10^5
//
// With --assocs A, one sender talks to A receivers at once: N messages of 4 KiB in rounds of
// A, one to every receiver, a round every A * 0.4 us (the sender's link at 100 Gbit/s drains
// a round in A * 0.33 us), so each event of the sender meets about A live associations and
// messages. Prints the wall time per message and per simulator event: what the sender's
// per-event cost does with the live state (issue 19, item 2).
// Targets: the time per message at 10^6 within 1.3x of that at 10^4; memory flat after the
// first tenth. Everything the run keeps is in the figures: the endpoints, the simulator's
// table of submissions (bounded here: NetworkConfig::finished_status_capacity, as the bench
// asks no status of a finished message) and binding state, and the invariant checker's models
// (it forgets a message once it has ended and gone quiet: "checker_msgs" is how many it models
// at the end). The "growth_B/msg" column is the growth between the first and the last tenth
// per message.
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "rdcc/sim/network.hpp"

using namespace rdcc;
using namespace rdcc::sim;

namespace {

// A field of /proc/self/status in kB ("VmRSS", "VmHWM"); 0 if unreadable.
std::uint64_t proc_status_kb(const std::string& field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field + ":", 0) == 0)
      return std::strtoull(line.c_str() + field.size() + 1, nullptr, 10);
  }
  return 0;
}

// The soak's simulator: seed 1, nothing recorded; every host on a 100 Gbit/s link of 1 us.
NetworkConfig soak_network() {
  NetworkConfig cfg;
  cfg.seed = 1;
  cfg.record_packets = false;
  cfg.record_events = false;
  cfg.finished_status_capacity = 1024;
  return cfg;
}
constexpr std::uint64_t kLength = 4096;
const LinkConfig kLink{.rate_mbps = 100000, .delay = ref::microseconds(1)};

int run(std::uint64_t n) {
  constexpr std::uint64_t kGapNs = 1000;  // 1 us apart
  constexpr std::uint64_t kChunk = 1000;  // messages handed to the simulator ahead of its clock
  Network net(soak_network());
  const LinkConfig link = kLink;
  ref::ReceiverConfig rc;
  const HostId r = net.add_receiver(rc, link);
  ref::SenderConfig sc;
  const HostId s = net.add_sender(sc, link);

  std::vector<std::uint64_t> rss_kb;  // at every tenth
  const auto start = std::chrono::steady_clock::now();
  std::uint64_t next_sample = n / 10;
  for (std::uint64_t i = 0; i < n; i += kChunk) {
    const std::uint64_t end = std::min(n, i + kChunk);
    for (std::uint64_t j = i; j < end; ++j)
      net.submit(s, r, kLength, Time{static_cast<std::int64_t>(j * kGapNs)});
    net.run_until(Time{static_cast<std::int64_t>(end * kGapNs)});
    while (end >= next_sample && next_sample != 0 && rss_kb.size() < 10) {
      rss_kb.push_back(proc_status_kb("VmRSS"));
      next_sample += n / 10;
    }
  }
  net.run_until(Time{static_cast<std::int64_t>(n * kGapNs)} + ref::milliseconds(100));
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const ref::SenderStats& st = net.sender(s)->stats();
  const bool ok = st.messages_done == n && net.checker().ok();
  std::printf("%9llu %12.3f %10.3f %10llu %10llu %10llu %14.1f %12zu%s\n",
              static_cast<unsigned long long>(n), secs,
              secs * 1e9 / static_cast<double>(n) / 1000.0,
              static_cast<unsigned long long>(rss_kb.empty() ? 0 : rss_kb.front()),
              static_cast<unsigned long long>(rss_kb.empty() ? 0 : rss_kb.back()),
              static_cast<unsigned long long>(proc_status_kb("VmHWM")),
              rss_kb.size() < 2
                  ? 0.0
                  : (static_cast<double>(rss_kb.back()) - static_cast<double>(rss_kb.front())) *
                        1024.0 / (static_cast<double>(n) * 0.9),
              net.checker().tracked_messages(), ok ? "" : "  NOT ALL DONE OR VIOLATIONS");
  if (std::getenv("SOAK_RSS_SERIES") != nullptr) {
    std::printf("          rss_kb at each tenth:");
    for (auto k : rss_kb) std::printf(" %llu", static_cast<unsigned long long>(k));
    std::printf("\n");
  }
  std::fflush(stdout);
  return ok ? 0 : 1;
}

int run_many(std::uint64_t n, std::uint64_t assocs) {
  const std::uint64_t round_ns = assocs * 400;  // 0.4 us a message: the link keeps up
  Network net(soak_network());
  std::vector<HostId> receivers;
  for (std::uint64_t i = 0; i < assocs; ++i) receivers.push_back(net.add_receiver({}, kLink));
  const HostId s = net.add_sender({}, kLink);
  const auto start = std::chrono::steady_clock::now();
  std::uint64_t submitted = 0;
  Time at{};
  for (std::uint64_t round = 0; submitted < n; ++round) {
    at = Time{static_cast<std::int64_t>(round * round_ns)};
    for (std::uint64_t i = 0; i < assocs && submitted < n; ++i, ++submitted)
      net.submit(s, receivers[i], kLength, at);
    net.run_until(at + Duration{static_cast<std::int64_t>(round_ns)});
  }
  net.run_until(at + ref::milliseconds(100));
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::uint64_t events = net.stats().events_processed;
  const ref::SenderStats& st = net.sender(s)->stats();
  const bool ok = st.messages_done == n && net.checker().ok();
  std::printf("%9llu %7llu %10.3f %10.3f %12llu %10.1f %10llu%s\n",
              static_cast<unsigned long long>(n), static_cast<unsigned long long>(assocs), secs,
              secs * 1e6 / static_cast<double>(n), static_cast<unsigned long long>(events),
              secs * 1e9 / static_cast<double>(events),
              static_cast<unsigned long long>(proc_status_kb("VmHWM")),
              ok ? "" : "  NOT ALL DONE OR VIOLATIONS");
  std::fflush(stdout);
  return ok ? 0 : 1;
}

// Each size in a child process of its own, so each peak is its own.
template <class Run>
int run_each(const std::vector<std::uint64_t>& sizes, Run&& run_one) {
  if (sizes.size() == 1) return run_one(sizes.front());
  int status = 0;
  for (std::uint64_t n : sizes) {
    const pid_t pid = fork();
    if (pid == 0) _exit(run_one(n));
    int ws = 0;
    waitpid(pid, &ws, 0);
    if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0) status = 1;
  }
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::uint64_t> sizes;
  std::uint64_t assocs = 0;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--assocs" && i + 1 < argc) {
      assocs = std::strtoull(argv[++i], nullptr, 10);
      if (assocs == 0) {
        std::fprintf(stderr, "sim_soak_bench: --assocs must be a positive count\n");
        return 2;
      }
      continue;
    }
    sizes.push_back(std::strtoull(argv[i], nullptr, 10));
  }
  for (std::uint64_t n : sizes) {
    if (n == 0) {
      std::fprintf(stderr, "sim_soak_bench: N must be a positive count of messages\n");
      return 2;
    }
  }
  if (assocs != 0) {
    if (sizes.empty()) sizes = {10000, 100000};
    std::printf("%9s %7s %10s %10s %12s %10s %10s\n", "N", "assocs", "wall_s", "us/msg", "events",
                "ns/event", "peak_kB");
    std::fflush(stdout);
    return run_each(sizes, [&](std::uint64_t n) { return run_many(n, assocs); });
  }
  if (sizes.empty()) sizes = {10000, 100000, 1000000};
  std::printf("%9s %12s %10s %10s %10s %10s %14s %12s\n", "N", "wall_s", "us/msg", "rss@10%kB",
              "rss@100%kB", "peak_kB", "growth_B/msg", "checker_msgs");
  std::fflush(stdout);
  // One size runs in this process (for a heap profiler); several, each in a child of its own.
  return run_each(sizes, run);
}
