// Packets per second of `rdcc pcap dump` and `rdcc pcap check` on a capture it generates
// (default 1,000,000 RDCC packets: Ethernet / IPv4 / UDP, 64 associations, each message a
// CREDIT_REQUEST, four CREDIT_GRANTs and a MSG_DONE), and of tshark with the RDCC dissectors
// (the C plugin, where it is built, and the Lua one) on the same file: its summary lines
// against `dump` and `check`, and its JSON lines of the RDCC layer (-T ek -J rdcc, the C plugin)
// against `dump --json`. Prints the figures; not in ctest. The Lua dissector takes many minutes on
// 1M packets: `--tshark c` skips it.
//
// Usage: pcap_bench [--packets N] [--unscheduled K] [--keep FILE] [--tshark c|lua|both|none]
//                   [--capture-only]
//   --unscheduled K: every K-th message is a small unscheduled one (default 0: none).
//   --capture-only: write the capture (to --keep FILE) and print its packets and messages,
//   measure nothing (tools/bench/pcap_check_memory.sh measures `pcap check` on it).
#include <sys/resource.h>
#include <sys/wait.h>

#include <unistd.h>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "rdcc/codec/codec.hpp"
#include "rdcc/wire/pcap.hpp"

namespace {

constexpr std::uint16_t kPort = 50000;

// An Ethernet/IPv4/UDP frame around `msg`, with both checksums (wire's frame builder).
std::vector<std::byte> frame(std::uint8_t sender, bool to_receiver, const rdcc::Message& msg) {
  std::array<std::byte, 128> body{};
  const auto n = rdcc::encode(msg, body);
  if (!n) std::abort();
  const auto rx = rdcc::wire::Address::v4(10, 0, 0, 1, kPort);
  const auto tx =
      rdcc::wire::Address::v4(10, 0, 1, sender, static_cast<std::uint16_t>(40000 + sender));
  return rdcc::wire::udp_frame(to_receiver ? tx : rx, to_receiver ? rx : tx,
                               std::span(body).first(*n));
}

// Every `unscheduled`-th message of each association (0: none) is a 2 KiB one the sender sends
// unscheduled: its CREDIT_REQUEST announces it whole (U = 16 KiB) and the receiver answers
// MSG_DONE, as in the MoE dispatch traffic of many small messages.
// Returns the number of messages it holds (those whose CREDIT_REQUEST is in it).
std::uint64_t generate(const std::string& path, std::uint64_t packets, std::uint64_t unscheduled) {
  rdcc::wire::PcapWriter out(path);  // throws naming the file
  constexpr std::uint32_t kAssociations = 64;
  std::vector<std::uint32_t> seq_rx(kAssociations, 1);
  std::vector<std::uint32_t> seq_tx(kAssociations, 1);
  std::uint64_t written = 0;
  std::int64_t ns = 0;
  const auto add = [&](std::uint8_t sender, bool to_receiver, const rdcc::Message& m) {
    if (written == packets) return;
    ns += 1000;  // 1 microsecond apart
    out.write(rdcc::wire::kEpochMicros + ns / 1000, frame(sender, to_receiver, m));
    ++written;
  };
  for (std::uint32_t a = 0; a < kAssociations; ++a) {
    rdcc::AssocRequest ar;
    ar.sender_nonce = 0x1000 + a;
    add(static_cast<std::uint8_t>(a), true, ar);
    rdcc::AssocAccept acc;
    acc.header.association_id = 0x100 + a;
    acc.header.epoch = 1;
    acc.sender_nonce = 0x1000 + a;
    acc.grant_lifetime = 2000;
    acc.credit_unit = 4096;
    acc.unscheduled_limit = 16 * 1024;
    add(static_cast<std::uint8_t>(a), false, acc);
  }
  constexpr std::uint64_t kLength = std::uint64_t{256} * 1024;
  constexpr std::uint64_t kSmall = 2048;
  // `add` counts what it writes; clang's loop analysis cannot see that, so the test is a break.
  std::uint64_t messages = 0;
  for (std::uint64_t id = 1;; ++id) {
    if (written >= packets) break;
    ++messages;
    const std::uint32_t a = static_cast<std::uint32_t>(id % kAssociations);
    const auto s = static_cast<std::uint8_t>(a);
    rdcc::Header h;
    h.association_id = 0x100 + a;
    h.epoch = 1;
    rdcc::CreditRequest req;
    req.header = h;
    req.header.sequence_number = seq_tx[a]++;
    req.message_id = id;
    req.message_length = kLength;
    req.binding_kind = 2;
    req.binding_value = id;
    const bool small = unscheduled != 0 && (id / kAssociations) % unscheduled == 0;
    if (small) {
      req.message_length = kSmall;
      req.unscheduled_sent = kSmall;
    }
    add(s, true, req);
    for (std::uint64_t step = 1; step <= 4 && !small; ++step) {
      rdcc::CreditGrant g;
      g.header = h;
      g.header.sequence_number = seq_rx[a]++;
      g.header.flags = step == 4 ? rdcc::flag::kFinal : 0;
      g.message_id = id;
      g.grant_limit = kLength * step / 4;
      g.pacing_rate = 100000;
      add(s, false, g);
    }
    rdcc::MsgDone d;
    d.header = h;
    d.header.sequence_number = seq_rx[a]++;
    d.message_id = id;
    d.octets_received = req.message_length;
    add(s, false, d);
  }
  return messages;
}

// What a command took (stdout to /dev/null): wall-clock seconds, and the CPU seconds (user +
// system) of it and its children, which a machine shared with other work disturbs less.
// Negative if it failed.
struct Timing {
  double wall = -1;
  double cpu = -1;
};

double cpu_of_children() {
  rusage u{};
  getrusage(RUSAGE_CHILDREN, &u);
  const auto s = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6;
  };
  return s(u.ru_utime) + s(u.ru_stime);
}

Timing timed(const std::string& command) {
  const double cpu_before = cpu_of_children();
  const auto start = std::chrono::steady_clock::now();
  const int status = std::system((command + " >/dev/null").c_str());
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) > 1) return {};
  return {s, cpu_of_children() - cpu_before};
}

void report(const char* what, std::uint64_t packets, const Timing& t) {
  if (t.wall < 0) {
    std::printf("%-34s failed\n", what);
    return;
  }
  std::printf("%-34s %8.3f s  %12.0f packets/s   (CPU %7.3f s  %12.0f packets/s)\n", what, t.wall,
              static_cast<double>(packets) / t.wall, t.cpu, static_cast<double>(packets) / t.cpu);
}

// tshark loads personal plugins from $HOME only, and none when run as root: a temporary HOME
// holding the built C plugin, and tshark run as nobody when we are root. Empty if the plugin
// is not built.
std::string c_plugin_prefix(const std::string& home) {
  namespace fs = std::filesystem;
  std::error_code ec;
  for (const auto& release : fs::directory_iterator(RDCC_PLUGIN_DIR, ec)) {
    const fs::path so = release.path() / "epan" / "rdcc.so";
    if (!fs::exists(so)) continue;
    const fs::path to =
        fs::path(home) / ".local/lib/wireshark/plugins" / release.path().filename() / "epan";
    fs::create_directories(to);
    fs::create_directories(fs::path(home) / ".config/wireshark");
    fs::copy_file(so, to / "rdcc.so", fs::copy_options::overwrite_existing);
    fs::permissions(home, fs::perms::all, fs::perm_options::add);
    for (const auto& e : fs::recursive_directory_iterator(home)) {
      fs::permissions(e.path(), fs::perms::all, fs::perm_options::add);
    }
    std::string command =
        getuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : "";
    command.append("env HOME=").append(home).append(" ");
    return command;
  }
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // figures appear as they are measured
  std::uint64_t packets = 1000000;
  std::uint64_t unscheduled = 0;
  std::string keep;
  std::string tshark = "both";
  bool capture_only = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--packets" && i + 1 < argc) {
      packets = std::strtoull(argv[++i], nullptr, 10);
    } else if (a == "--unscheduled" && i + 1 < argc) {
      unscheduled = std::strtoull(argv[++i], nullptr, 10);
    } else if (a == "--keep" && i + 1 < argc) {
      keep = argv[++i];
    } else if (a == "--tshark" && i + 1 < argc) {
      tshark = argv[++i];
    } else if (a == "--capture-only") {
      capture_only = true;
    } else {
      std::fprintf(stderr,
                   "usage: pcap_bench [--packets N] [--unscheduled K] [--keep FILE] [--tshark "
                   "c|lua|both|none] [--capture-only]\n");
      return 2;
    }
  }
  const std::string path =
      keep.empty() ? "/tmp/rdcc_pcap_bench_" + std::to_string(getpid()) + ".pcap" : keep;
  if (capture_only && keep.empty()) {
    std::fprintf(stderr, "pcap_bench: --capture-only writes the capture to --keep FILE\n");
    return 2;
  }
  const std::uint64_t messages = generate(path, packets, unscheduled);
  std::printf("capture: %s, %llu RDCC packets, %llu messages\n", path.c_str(),
              static_cast<unsigned long long>(packets), static_cast<unsigned long long>(messages));
  if (capture_only) return 0;
  const std::string rdcc = RDCC_BINARY;
  const Timing dump = timed(rdcc + " pcap dump " + path + " --port 50000 2>/dev/null");
  const Timing json = timed(rdcc + " pcap dump " + path + " --port 50000 --json 2>/dev/null");
  const Timing check =
      timed(rdcc + " pcap check " + path + " --port 50000 --budget 1GiB 2>/dev/null");
  report("rdcc pcap dump", packets, dump);
  report("rdcc pcap dump --json", packets, json);
  report("rdcc pcap check", packets, check);
  const bool have_tshark = std::system("command -v tshark >/dev/null 2>&1") == 0;
  if (!have_tshark || tshark == "none") {
    std::printf("tshark comparison skipped: %s\n",
                have_tshark ? "--tshark none" : "tshark not found");
  }
  // One summary line per packet, as `dump` prints: the fairest comparison.
  // The ratio is the figure (target: at least 20), by wall clock and by CPU time.
  const auto ratio = [&](const Timing& t, const char* name, const Timing& r) {
    if (t.wall > 0 && r.wall > 0) {
      std::printf("  %s is %.1f times as fast (CPU time: %.1f times; target: 20)\n", name,
                  t.wall / r.wall, t.cpu / r.cpu);
    }
  };
  const auto compare = [&](const char* what, const Timing& t) {
    report(what, packets, t);
    ratio(t, "dump", dump);
    ratio(t, "dump --json", json);
    ratio(t, "check", check);
  };
  if (have_tshark && (tshark == "c" || tshark == "both")) {
    const std::string home = "/tmp/rdcc_pcap_bench_home_" + std::to_string(getpid());
    const std::string prefix = c_plugin_prefix(home);
    if (prefix.empty()) {
      std::printf("tshark + C plugin skipped: %s/*/epan/rdcc.so not built\n", RDCC_PLUGIN_DIR);
    } else {
      compare("tshark + C plugin (summary lines)",
              timed(prefix + "tshark -n -r " + path + " -o rdcc.udp.port:50000 2>/dev/null"));
      // JSON lines of the RDCC layer alone, as `dump --json` writes: its like-for-like figure.
      const Timing ek = timed(prefix + "tshark -n -r " + path +
                              " -o rdcc.udp.port:50000 -T ek -J rdcc 2>/dev/null");
      report("tshark + C plugin (-T ek -J rdcc)", packets, ek);
      ratio(ek, "dump --json", json);
    }
    std::filesystem::remove_all(home);
  }
  const std::string lua = std::string(RDCC_SOURCE_DIR) + "/dissector/lua/rdcc.lua";
  if (have_tshark && (tshark == "lua" || tshark == "both")) {
    compare("tshark + rdcc.lua (summary lines)",
            timed("tshark -n -r " + path + " -X lua_script:" + lua +
                  " -o rdcc.udp.port:50000 -d udp.port==50000,rdcc 2>/dev/null"));
  }
  if (keep.empty()) std::remove(path.c_str());
  return 0;
}
