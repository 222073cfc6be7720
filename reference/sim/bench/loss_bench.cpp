// Loss recovery on the simulator (issue 18): 8 senders x 4 MiB to one receiver with data
// packets lost (0.1%, 1%, 5%), alone, with 1% control loss and with 10% reordering; completion
// time against the ideal (every octet through the receiver's link at line rate, plus four link
// delays), and the octets resent as a share of all octets sent. Prints a table.
#include <cstdio>
#include <vector>

#include "rdcc/sim/loss_incast.hpp"

using namespace rdcc;
using namespace rdcc::sim;

int main() {
  std::printf("%-10s %-14s %6s %10s %10s %7s %8s %8s %9s %6s\n", "data_loss", "also", "done",
              "ideal_us", "actual_us", "ratio", "lost", "nacks", "resent_%", "viol");
  for (double loss : {0.001, 0.01, 0.05}) {
    for (LossMix mix : {LossMix::DataOnly, LossMix::ControlLoss, LossMix::Reordering}) {
      const LossIncast s = loss_case(loss, mix);
      const LossIncastResult r = run_loss_incast(s);
      const double ideal = static_cast<double>(r.ideal.ns) / 1000.0;
      const double actual = static_cast<double>(r.last.ns) / 1000.0;
      const double resent = r.network.data_octets_sent == 0
                                ? 0.0
                                : 100.0 * static_cast<double>(r.network.resent_octets_sent) /
                                      static_cast<double>(r.network.data_octets_sent);
      std::printf("%-10.3f %-14s %6s %10.1f %10.1f %7.2f %8llu %8llu %9.2f %6llu\n", loss,
                  to_string(mix), r.done ? "all" : "NO", ideal, actual, actual / ideal,
                  static_cast<unsigned long long>(r.network.data_lost),
                  static_cast<unsigned long long>(r.network.nacks_sent), resent,
                  static_cast<unsigned long long>(r.violations));
    }
  }
  return 0;
}
