// A CRN's reports against the tester's queue observations (crn_reports.hpp). Every check quotes
// the sentence of "On-Path Congestion Reporting" or of the CONGESTION_REPORT format it holds
// the report to.
#include "crn_reports.hpp"

#include <algorithm>

#include "rdcc/codec/json.hpp"
#include "rdcc/reference/crn.hpp"

namespace rdcc::conformance {
namespace {

std::optional<std::uint64_t> config_value(const std::map<std::string, std::uint64_t>& c,
                                          const char* key) {
  const auto it = c.find(key);
  if (it == c.end()) return std::nullopt;
  return it->second;
}

std::string ip_text(const IpAddress& ip, bool ipv6) {
  return address_to_string(ip, ipv6);
}

constexpr std::uint64_t kDepthMax = 0xFFFFFFFFU;

}  // namespace

CrnReportJudge::CrnReportJudge(const std::map<std::string, std::uint64_t>& config,
                               std::optional<std::uint8_t> unscheduled_dscp,
                               std::uint16_t rdcc_port, ref::Duration slack)
    : threshold_(config_value(config, "queue_threshold")),
      capacity_(config_value(config, "queue_capacity")),
      service_rate_(config_value(config, "service_rate_mbps")),
      unscheduled_dscp_(config_value(config, "unscheduled_dscp")),
      rdcc_port_(rdcc_port),
      slack_(slack) {
  if (!unscheduled_dscp_ && unscheduled_dscp) unscheduled_dscp_ = *unscheduled_dscp;
  if (auto v = config_value(config, "per_flow_interval_us")) {
    per_flow_ = ref::microseconds(static_cast<std::int64_t>(*v));
  }
  if (auto v = config_value(config, "per_port_interval_us")) {
    per_port_ = ref::microseconds(static_cast<std::int64_t>(*v));
  }
}

void CrnReportJudge::observed(const QueueSample& q, ref::Time at) {
  const FlowKey key{q.source.ip,        q.destination.ip, q.source.port,
                    q.destination.port, q.protocol,       q.source.ipv6};
  flows_[key].push_back({q, at});
}

// Why report `r` cannot be the one observation `o` triggered, or none.
std::optional<std::string> CrnReportJudge::mismatch(const CongestionReport& r,
                                                    const Observation& o) const {
  const std::uint64_t q = o.q.occupancy;
  const std::uint64_t b_th = threshold_.value_or(r.queue_threshold);
  if (r.queue_depth != std::min(q, kDepthMax)) {
    return "Queue Depth " + std::to_string(r.queue_depth) + ", but the packet was dequeued at Q " +
           std::to_string(q) + " (\"the queue occupancy and threshold, in octets\")";
  }
  if (q <= b_th) {
    return "the packet was dequeued at Q " + std::to_string(q) + ", not above B_th " +
           std::to_string(b_th) + " (\"While Q exceeds B_th, the CRN MAY generate\")";
  }
  if (capacity_) {
    const auto want = ref::Crn::congestion_degree(q, b_th, *capacity_);
    if (r.congestion_degree != want) {
      return "Congestion Degree " + std::to_string(r.congestion_degree) + ", but min(255, " +
             "floor(255 * (Q - B_th) / (Q_max - B_th))) with Q " + std::to_string(q) + ", B_th " +
             std::to_string(b_th) + " and Q_max " + std::to_string(*capacity_) + " is " +
             std::to_string(want);
    }
  }
  if (unscheduled_dscp_) {
    const bool unscheduled = o.q.dscp == *unscheduled_dscp_;
    const std::uint8_t want = static_cast<std::uint8_t>(unscheduled ? ReportDirection::ToSender
                                                                    : ReportDirection::ToReceiver);
    if (r.direction != want) {
      return "Direction " + std::to_string(r.direction) + " for a packet of DSCP " +
             std::to_string(o.q.dscp) + ", which is " +
             (unscheduled ? "the unscheduled DSCP" : "scheduled traffic") +
             " (\"For scheduled traffic it sends the report to the destination address of the "
             "data packet (the receiver)... For unscheduled traffic it sends the report to the "
             "source address (the sender)\"; \"Direction is 1 when the report is sent to the "
             "receiver and 2 when it is sent to the sender\")";
    }
  }
  if (service_rate_ && r.suggested_rate != 0) {
    const std::uint64_t flows = std::max<std::uint64_t>(o.q.flows, 1);
    const std::uint64_t low = *service_rate_ / flows;
    const std::uint64_t high = (*service_rate_ + flows - 1) / flows;
    if (r.suggested_rate != low && r.suggested_rate != high) {
      return "Suggested Rate " + std::to_string(r.suggested_rate) +
             " Mbit/s, but the service rate " + std::to_string(*service_rate_) +
             " Mbit/s divided by the " + std::to_string(flows) + " flows in the queue is " +
             std::to_string(low) +
             (low == high ? "" : " (or " + std::to_string(high) + " rounded up)") +
             " (\"optionally, a Suggested Rate equal to the queue's service rate divided by the "
             "number of flows the CRN observes in the queue\")";
    }
  }
  return std::nullopt;
}

std::optional<CrnFinding> CrnReportJudge::report(const CongestionReport& r, const Address& to,
                                                 ref::Time at) {
  const auto finding = [](std::string reason, std::string expected) {
    return CrnFinding{std::move(reason), std::move(expected), ""};
  };
  if (r.header.association_id != 0 || r.header.epoch != 0) {
    return finding("a CONGESTION_REPORT with Association ID " +
                       std::to_string(r.header.association_id) + " and Epoch " +
                       std::to_string(r.header.epoch) +
                       ": \"Reports are sent to the RDCC UDP port with the Association ID and "
                       "Epoch fields set to zero\"",
                   "association_id=0 epoch=0");
  }
  if (r.direction != static_cast<std::uint8_t>(ReportDirection::ToReceiver) &&
      r.direction != static_cast<std::uint8_t>(ReportDirection::ToSender)) {
    return finding("a CONGESTION_REPORT with Direction " + std::to_string(r.direction) +
                       ": \"Direction is 1 when the report is sent to the receiver and 2 when it "
                       "is sent to the sender\"",
                   "direction=1 or direction=2");
  }
  if (to.port != rdcc_port_) {
    return finding("a CONGESTION_REPORT to port " + std::to_string(to.port) +
                       ": \"Reports are sent to the RDCC UDP port\" (" +
                       std::to_string(rdcc_port_) + ")",
                   "to port " + std::to_string(rdcc_port_));
  }
  if (threshold_ && r.queue_threshold != *threshold_) {
    return finding("a CONGESTION_REPORT with Queue Threshold " + std::to_string(r.queue_threshold) +
                       ", but the CRN is configured with B_th " + std::to_string(*threshold_) +
                       " (\"the queue occupancy and threshold, in octets\")",
                   "queue_threshold=" + std::to_string(*threshold_));
  }
  if (r.queue_depth <= r.queue_threshold) {
    return finding("a CONGESTION_REPORT with Queue Depth " + std::to_string(r.queue_depth) +
                       ", not above its Queue Threshold " + std::to_string(r.queue_threshold) +
                       ": \"While Q exceeds B_th, the CRN MAY generate CONGESTION_REPORT\"",
                   "no report while Q <= B_th");
  }
  const bool ipv6 = r.ipv6();
  const FlowKey key{
      r.source_address, r.destination_address, r.source_port, r.destination_port, r.protocol, ipv6};
  const std::string flow_text =
      ip_text(r.source_address, ipv6) + ":" + std::to_string(r.source_port) + " -> " +
      ip_text(r.destination_address, ipv6) + ":" + std::to_string(r.destination_port) +
      " protocol " + std::to_string(r.protocol);
  const auto it = flows_.find(key);
  if (it == flows_.end()) {
    if (data_sent_) return std::nullopt;  // a flow of the data the tester sent
    std::string seen;
    std::size_t n = 0;
    for (const auto& [k, obs] : flows_) {
      if (n++ == 3) {
        seen += ", ...";
        break;
      }
      const auto& q = obs.front().q;
      seen += (seen.empty() ? "" : ", ") + q.source.to_string() + " -> " +
              q.destination.to_string() + " protocol " + std::to_string(q.protocol);
    }
    return finding("a CONGESTION_REPORT naming the flow " + flow_text +
                       ", which the tester never put into the CRN's queue: \"Protocol, ports, "
                       "and addresses are those of the data packet that triggered the report\"",
                   seen.empty() ? "no report" : "a flow the tester sent: " + seen);
  }
  const auto& obs = it->second;
  // "For scheduled traffic it sends the report to the destination address of the data packet
  // (the receiver) ... For unscheduled traffic it sends the report to the source address (the
  // sender)": to the side its own Direction names (where the two sides differ, and the tester
  // saw the address the report came to).
  const bool to_sender = r.direction == static_cast<std::uint8_t>(ReportDirection::ToSender);
  const Address& flow_src = obs.front().q.source;
  const Address& flow_dst = obs.front().q.destination;
  const Address& named = to_sender ? flow_src : flow_dst;
  const Address& other = to_sender ? flow_dst : flow_src;
  if (!named.same_host(other) && to.ipv6 == other.ipv6 && wire::same_octets(to.ip, other.ip)) {
    return finding("a CONGESTION_REPORT with Direction " + std::to_string(r.direction) +
                       " sent to " + ip_text(to.ip, to.ipv6) + ", the flow's " +
                       (to_sender ? "receiver" : "sender") +
                       ": \"Direction is 1 when the report is sent to the receiver and 2 when it "
                       "is sent to the sender\"",
                   "to " + ip_text(named.ip, named.ipv6));
  }
  std::vector<const Observation*> matching;
  for (const auto& o : obs) {
    if (!mismatch(r, o)) matching.push_back(&o);
  }
  if (matching.empty()) {
    // The report answers the latest packet of the flow dequeued at its Queue Depth, or else
    // the flow's latest packet.
    const Observation* best = &obs.back();
    for (const auto& o : obs) {
      if (std::min(o.q.occupancy, kDepthMax) == r.queue_depth) best = &o;
    }
    return finding("a CONGESTION_REPORT on " + flow_text +
                       " that no packet of it dequeued by the "
                       "tester explains: " +
                       *mismatch(r, *best),
                   "a report of the packet dequeued at Q " + std::to_string(best->q.occupancy));
  }
  if (const auto gap = too_soon(last_flow_report_, key, at, per_flow_)) {
    return finding("a second CONGESTION_REPORT on " + flow_text + " " +
                       std::to_string(gap->micros()) +
                       " us after the first: \"a rate limit of at most one report per flow per "
                       "configured report interval\" (" +
                       std::to_string(per_flow_->micros()) + " us)",
                   "no report on the flow until " + std::to_string(per_flow_->micros()) +
                       " us after the last");
  }
  last_flow_report_[key] = at;
  // The per-port limit where the packet's port is certain: every packet that explains the
  // report left by the same port.
  const std::uint16_t port = matching.front()->q.port;
  const bool one_port = std::all_of(matching.begin(), matching.end(),
                                    [&](const Observation* o) { return o->q.port == port; });
  if (const auto gap = one_port ? too_soon(last_port_report_, port, at, per_port_) : std::nullopt) {
    return finding("a CONGESTION_REPORT for port " + std::to_string(port) + " " +
                       std::to_string(gap->micros()) +
                       " us after the port's last: \"and an aggregate limit per port\" "
                       "(configured: one report per " +
                       std::to_string(per_port_->micros()) + " us)",
                   "no report for the port until " + std::to_string(per_port_->micros()) +
                       " us after its last");
  }
  if (one_port) last_port_report_[port] = at;
  return std::nullopt;
}

}  // namespace rdcc::conformance
