// Incast completion time on the simulator against the ideal N * S / C + base delay, with the
// peak switch queue and the peak receiver credit in flight (checker) against G. Prints a table.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "rdcc/sim/network.hpp"

using namespace rdcc;
using namespace rdcc::sim;

int main(int argc, char** argv) {
  const std::uint64_t size = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : (4U << 20U);
  const std::vector<int> fan_in = {8, 64, 256, 1024};
  constexpr std::uint32_t kRate = 100000;  // Mbit/s, every link
  const LinkConfig link{.rate_mbps = kRate, .delay = ref::microseconds(1)};
  std::printf("%6s %10s %12s %12s %8s %12s %12s %12s\n", "N", "size", "ideal_us", "actual_us",
              "ratio", "peak_queue", "peak_credit", "G");
  for (int n : fan_in) {
    NetworkConfig cfg;
    cfg.seed = 1;
    cfg.record_packets = false;
    cfg.record_events = false;
    cfg.queue.capacity = 64U << 20U;
    Network net(cfg);
    ref::ReceiverConfig rc;
    rc.budget = 2U << 20U;
    rc.unscheduled_budget = 512U << 10U;
    rc.max_associations = 4096;
    const HostId r = net.add_receiver(rc, link);
    std::vector<HostId> senders;
    for (int i = 0; i < n; ++i) {
      ref::SenderConfig sc;
      sc.name = "sender-" + std::to_string(i);
      senders.push_back(net.add_sender(sc, link));
    }
    for (HostId s : senders) net.submit(s, r, size, Time{0});
    const bool done = net.run_until_done(Time{ref::seconds(60).ns});
    Time last{};
    for (SubmitId i = 0; i < net.submitted(); ++i) {
      if (auto st = net.status(i)) last = std::max(last, st->finished);
    }
    // Ideal: all octets through the receiver's link, plus one base round trip of 4 link delays.
    const double ideal_us =
        static_cast<double>(n) * static_cast<double>(size) * 8.0 / kRate + 4.0 * 1.0;
    const double actual_us = static_cast<double>(last.ns) / 1000.0;
    std::printf("%6d %10llu %12.1f %12.1f %8.3f %12llu %12llu %12llu%s\n", n,
                static_cast<unsigned long long>(size), ideal_us, actual_us, actual_us / ideal_us,
                static_cast<unsigned long long>(net.peak_queue(r)),
                static_cast<unsigned long long>(net.checker().peak_outstanding(net.address(r))),
                static_cast<unsigned long long>(rc.budget),
                done ? (net.checker().ok() ? "" : "  VIOLATIONS") : "  NOT DONE");
    std::fflush(stdout);
  }
  return 0;
}
