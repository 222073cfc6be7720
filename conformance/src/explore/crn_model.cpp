// The model of what the tester may put into a CRN IUT's queue, and the programs drawn from it
// (explore.hpp, docs/explore.md, "Against a CRN"). Each episode configures the CRN with drawn
// values (B_th and Q_max unaligned, Q_max - B_th up to 64 MiB so that 255 * (Q - B_th) needs
// more than 32 bits, a service rate, per-flow and per-port intervals) and
// dequeues packets of many flows: Q below, at and just above B_th, at the Congestion Degree's
// steps, at and beyond Q_max; every DSCP (the IUT's unscheduled one, scheduled ones, the same flow
// switching between them); UDP and TCP; 1 to 200 flows in the queue; the same flow again within
// its interval, several ports, pauses. The oracle is the runner's report judge
// (conformance/src/steps/crn_reports.hpp), which holds every report the CRN sends to the
// packet it names. Where a report is due (a flow's first packet above B_th, on a port whose
// last report lies past its interval and a margin for real adapters, toward the tester) the
// episode expects it; everything else is the judge's.
#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "models.hpp"
#include "rdcc/reference/random.hpp"

namespace rdcc::conformance::explore_model {
namespace {

struct Flow {
  std::string far;  // the side the tester does not play: 127.0.0.K:PORT
  std::uint16_t far_port = 0;
  bool tester_receives = true;  // the flow goes to $tester_data (else comes from it)
  unsigned protocol = 17;
  unsigned port = 1;            // the egress port it leaves by
  std::string dscp;             // of its latest packet
  bool maybe_reported = false;  // a packet above B_th was dequeued: a report may have gone
};

class CrnModel {
 public:
  CrnModel(std::uint64_t seed, std::size_t episode)
      : rng_(seed * 0xA0761D6478BD642FULL + episode + 3) {
    b_th_ = below(8) == 0 ? 1 + below(4096) : 1500 + below(1U << 20U);
    const std::uint64_t span =
        below(4) == 0 ? (32U << 20U) + below(32U << 20U) : 1 + below(2U << 20U);
    q_max_ = b_th_ + span;
    service_ = std::array<std::uint64_t, 6>{1000, 10000, 25000, 100000, 400000, 799999}[below(6)];
    // Short intervals test their boundary in virtual time; 100 ms ones outlast an episode, so
    // that a CRN which ignores them is caught on real adapters too, whose judge allows the
    // host's scheduling delay between two reports (the window tolerance, at least 2 ms).
    per_flow_us_ = std::array<std::uint64_t, 4>{10, 1000, 100000, 100000}[below(4)];
    per_port_us_ = std::array<std::uint64_t, 4>{0, 1, 20, 100000}[below(4)];
  }

  std::string config() const {
    return "queue_threshold=" + std::to_string(b_th_) +
           " queue_capacity=" + std::to_string(q_max_) +
           " service_rate_mbps=" + std::to_string(service_) +
           " per_flow_interval_us=" + std::to_string(per_flow_us_) +
           " per_port_interval_us=" + std::to_string(per_port_us_);
  }

  Stimulus next() {
    const auto pick = below(20);
    Stimulus s = index_ == 0               ? observe(std::nullopt)
                 : pick < 4                ? wait()
                 : pick < 7 && last_above_ ? observe(last_above_)  // the same flow again
                                           : observe(std::nullopt);
    ++index_;
    return with_sorted_needs(std::move(s));
  }

 private:
  std::uint64_t below(std::uint64_t n) { return rng_.uniform(n - 1); }

  // An occupancy from where the spec's words change: below, at and just above B_th, the
  // Congestion Degree's steps (a floor just reached, or just missed), Q_max and beyond.
  std::uint64_t occupancy() {
    const std::uint64_t span = q_max_ - b_th_;
    switch (below(9)) {
      case 0: return below(b_th_);
      case 1: return b_th_;
      case 2: return b_th_ + 1;
      case 3: return q_max_;
      case 4: return q_max_ + below(q_max_);
      case 5:
      case 6: {
        // The smallest Q of Congestion Degree k, or one octet below it.
        const std::uint64_t k = 1 + below(254);
        const std::uint64_t q = b_th_ + (k * span + 254) / 255;
        return below(2) == 0 ? q : q - 1;
      }
      default: return b_th_ + 1 + below(span);
    }
  }

  // The IUT's unscheduled DSCP ($unscheduled_dscp: the one its configuration declares, which
  // an episode leaves as it is), or a scheduled one: 0, or any other. Any other may happen to
  // be the IUT's unscheduled DSCP too, so only 0 makes a report to the receiver due; the judge
  // knows which DSCP is which for the reports that come.
  std::string dscp() {
    if (below(5) < 2) return "$unscheduled_dscp";
    return std::to_string(below(2) == 0 ? 0 : 1 + below(63));
  }

  Flow& flow(const std::optional<std::size_t>& again) {
    if (again) return flows_[*again];
    if (flows_.empty() || below(2) == 0 || flows_.size() >= 40) {
      if (flows_.size() < 40) {
        Flow f;
        f.far_port = static_cast<std::uint16_t>(41000 + flows_.size());
        f.far = "127.0.0." + std::to_string(10 + below(200)) + ":" + std::to_string(f.far_port);
        f.tester_receives = below(2) == 0;
        f.protocol = below(5) == 0 ? 6 : 17;
        f.port = static_cast<unsigned>(1 + below(4));
        flows_.push_back(f);
        return flows_.back();
      }
    }
    return flows_[below(flows_.size())];
  }

  // A packet of a flow dequeued: a new or earlier flow, or `again` (an index into flows_) above
  // B_th once more, within its interval.
  Stimulus observe(const std::optional<std::size_t>& again) {
    Flow& f = flow(again);
    const auto q = again ? b_th_ + 1 + below(q_max_ - b_th_) : occupancy();
    // A flow dequeued again keeps its DSCP, so that both reports go the same way.
    const auto d = again ? f.dscp : dscp();
    f.dscp = d;
    const auto port = f.port;  // a flow leaves by one port
    const auto n = below(4) == 0 ? 1 + below(200) : 1 + below(4);
    const std::string src = f.tester_receives ? f.far : "$tester_data";
    const std::string dst = f.tester_receives ? "$tester_data" : f.far;
    Stimulus s{q > b_th_ ? "dequeue above B_th" : "dequeue at or below B_th", {}, {}};
    s.lines.push_back("queue port=" + std::to_string(port) + " occupancy=" + std::to_string(q) +
                      " dscp=" + d + " source=" + src + " destination=" + dst +
                      " protocol=" + std::to_string(f.protocol) + " flows=" + std::to_string(n));
    // The report goes to the receiver for scheduled traffic, to the sender for unscheduled:
    // due only where it reaches the tester, on a flow never reported, on a port idle for its
    // interval and the margin, above B_th.
    const bool to_tester = f.tester_receives ? d == "0" : d == "$unscheduled_dscp";
    auto& last = port_last_[port - 1];
    const bool port_idle = !last || now_ >= *last + per_port_us_ + kMarginUs;
    if (q > b_th_ && to_tester && !f.maybe_reported && port_idle) {
      std::string ignore = "ignore";
      for (const auto& g : flows_) {
        if (&g == &f) continue;
        ignore += std::string(" CONGESTION_REPORT ") +
                  (g.tester_receives ? "source_port=" : "destination_port=") +
                  std::to_string(g.far_port);
      }
      if (ignore != "ignore") s.lines.push_back(ignore);
      const std::string far_ip = f.far.substr(0, f.far.find(':'));
      s.lines.push_back(
          "expect CONGESTION_REPORT within 1ms " +
          std::string(f.tester_receives
                          ? "source_address=" + far_ip +
                                " source_port=" + std::to_string(f.far_port) +
                                " destination_address=$tester_ip destination_port=$tester_data_port"
                          : "source_address=$tester_ip source_port=$tester_data_port "
                            "destination_address=" +
                                far_ip + " destination_port=" + std::to_string(f.far_port)) +
          " protocol=" + std::to_string(f.protocol) + " checks RDCC-CRN-03");
    }
    if (q > b_th_) {
      f.maybe_reported = true;
      last = now_;
      last_above_ = static_cast<std::size_t>(&f - flows_.data());
    }
    return s;
  }

  Stimulus wait() {
    const std::uint64_t us = std::array<std::uint64_t, 5>{2, 20, 80, 400, 4000}[below(5)];
    now_ += us;
    return {"wait", {"wait " + std::to_string(us) + "us"}, {}};
  }

  // How long past a port's interval the tester waits before a report on it is due: on real
  // adapters the CRN may read one packet that much later than the next.
  static constexpr std::uint64_t kMarginUs = 3000;

  ref::SeededRandom rng_;
  std::size_t index_ = 0;
  std::uint64_t now_ = 0;  // the tester's time in microseconds: its waits
  std::uint64_t b_th_ = 0, q_max_ = 0, service_ = 0, per_flow_us_ = 0, per_port_us_ = 0;
  std::vector<Flow> flows_;
  std::optional<std::size_t> last_above_;  // the flow last dequeued above B_th
  std::array<std::optional<std::uint64_t>, 4> port_last_{};
};

}  // namespace

Program crn_program(std::uint64_t seed, std::size_t episode, std::size_t count) {
  Program p;
  p.role = Role::Crn;
  p.name = "explore-crn-" + std::to_string(seed) + "-" + std::to_string(episode);
  CrnModel model(seed, episode);
  p.config = model.config();
  for (std::size_t i = 0; i < count; ++i) p.stimuli.push_back(model.next());
  return p;
}

}  // namespace rdcc::conformance::explore_model
