// "On-Path Congestion Reporting": while Q > B_th, at most one report per flow per report
// interval and at most one per port per port interval; to the receiver for scheduled
// traffic, to the sender for unscheduled traffic (classified by DSCP).
#include "rdcc/reference/crn.hpp"

#include "timer_list.hpp"
#include "transmit_queue.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include "rdcc/codec/codec.hpp"

namespace rdcc::ref {

namespace {

using FlowKey = std::tuple<IpAddress, IpAddress, std::uint16_t, std::uint16_t, std::uint8_t>;

// When a flow's latest report stops holding back the next one (its report time plus the
// per-flow interval), so that the flow is forgotten.
struct FlowExpiry {
  Time at;
  Time reported;
  FlowKey flow;
};

}  // namespace

struct Crn::Impl {
  CrnConfig config;
  EventSink events;
  std::shared_ptr<const CrnPolicy> policy;  // the choices the spec leaves to the CRN
  CrnStats stats;
  TransmitQueue out;  // what poll_transmit() hands out
  // The flows reported within the per-flow interval, with the time of their latest report:
  // the CRN keeps only those (the rest can hold back no report), so that its memory follows
  // the flows it reports on now, not every flow it ever saw.
  std::map<FlowKey, Time> last_flow_report;
  TimerList<FlowExpiry> flow_expiries;
  std::map<std::uint16_t, Time> last_port_report;
  std::map<std::uint16_t, std::uint32_t> port_sequence;  // "for a CRN, per reporting port"

  Impl(CrnConfig c, Observer* o, std::shared_ptr<const CrnPolicy> p)
      : config(std::move(c)),
        events(config.name, o),
        policy(p != nullptr ? std::move(p) : std::make_shared<const CrnPolicy>()) {}

  // Forgets the flows whose latest report can no longer hold one back at `now` or later (a
  // report at t holds back the flow's reports until t + the per-flow interval). Observations
  // come in time order.
  void forget_flows(Time now) {
    while (!flow_expiries.empty() && flow_expiries.next().at <= now) {
      const FlowExpiry& e = flow_expiries.next();
      if (auto it = last_flow_report.find(e.flow);
          it != last_flow_report.end() && it->second == e.reported) {
        last_flow_report.erase(it);
      }
      flow_expiries.pop();
    }
  }

  void report(const QueueObservation& q, Time now) {
    const bool unscheduled = config.unscheduled_dscps.count(q.dscp) != 0;
    const bool to_sender = policy->report_to_sender(unscheduled);
    CongestionReport r;
    r.header.sequence_number = port_sequence[q.port]++;
    // "Reports are sent to the RDCC UDP port with the Association ID and Epoch fields set to
    // zero." (defaults of Header)
    r.reporter_id = config.reporter_id;
    r.queue_depth = static_cast<std::uint32_t>(std::min<std::uint64_t>(q.occupancy, 0xFFFFFFFFU));
    r.queue_threshold = config.queue_threshold;
    r.congestion_degree = policy->congestion_degree(
        congestion_degree(q.occupancy, config.queue_threshold, config.queue_capacity), q.occupancy,
        config.queue_threshold, config.queue_capacity);
    r.direction = static_cast<std::uint8_t>(to_sender ? ReportDirection::ToSender
                                                      : ReportDirection::ToReceiver);
    r.address_family =
        static_cast<std::uint8_t>(q.flow.source.ipv6 ? AddressFamily::IPv6 : AddressFamily::IPv4);
    r.protocol = q.flow.protocol;
    r.source_port = q.flow.source.port;
    r.destination_port = q.flow.destination.port;
    if (config.suggest_rate) {
      // "optionally, a Suggested Rate equal to the queue's service rate divided by the number
      // of flows": whether, is the policy's choice.
      r.suggested_rate = policy->suggested_rate(config.service_rate_mbps, q.flows_in_queue);
    }
    r.source_address = q.flow.source.ip;
    r.destination_address = q.flow.destination.ip;

    Address to = to_sender ? q.flow.source : q.flow.destination;
    to.port = policy->report_port(config.rdcc_port, to.port);
    Message m{r};
    policy->rewrite_outgoing(m);
    out.push(to, config.control_dscp, m);
    ++stats.reports_sent;
    ++(to_sender ? stats.reports_to_sender : stats.reports_to_receiver);
    if (events.enabled()) {
      events.emit(now, "report_sent",
                  {{"to", to.to_string()},
                   {"direction", to_sender ? "sender" : "receiver"},
                   {"queue_depth", q.occupancy},
                   {"congestion_degree", r.congestion_degree},
                   {"suggested_rate", r.suggested_rate},
                   {"flow_source", q.flow.source.to_string()},
                   {"flow_destination", q.flow.destination.to_string()}});
    }
  }
};

Crn::Crn(CrnConfig config, Observer* observer, std::shared_ptr<const CrnPolicy> policy)
    : impl_(std::make_unique<Impl>(std::move(config), observer, std::move(policy))) {}
Crn::~Crn() = default;

std::uint8_t Crn::congestion_degree(std::uint64_t q, std::uint64_t b_th, std::uint64_t q_max) {
  if (q <= b_th) return 0;
  if (q_max <= b_th) return 255;
  const std::uint64_t degree = (255U * (q - b_th)) / (q_max - b_th);
  return static_cast<std::uint8_t>(std::min<std::uint64_t>(255U, degree));
}

void Crn::on_dequeue(const QueueObservation& q, Time now) {
  auto& s = *impl_;
  ++s.stats.observations;
  // "While Q exceeds B_th, the CRN MAY generate CONGESTION_REPORT for packets dequeued"
  if (q.occupancy < s.config.queue_threshold ||
      (q.occupancy == s.config.queue_threshold && !s.policy->report_at_threshold())) {
    return;
  }
  const Duration flow_interval = s.policy->report_interval(s.config.per_flow_interval);
  s.forget_flows(now);
  const auto key = std::make_tuple(q.flow.source.ip, q.flow.destination.ip, q.flow.source.port,
                                   q.flow.destination.port, q.flow.protocol);
  if (auto it = s.last_flow_report.find(key);
      it != s.last_flow_report.end() && now - it->second < flow_interval) {
    ++s.stats.suppressed_per_flow;
    return;
  }
  if (auto it = s.last_port_report.find(q.port);
      it != s.last_port_report.end() &&
      now - it->second < s.policy->port_report_interval(s.config.per_port_interval)) {
    ++s.stats.suppressed_per_port;
    return;
  }
  s.last_flow_report[key] = now;
  s.flow_expiries.arm(FlowExpiry{now + flow_interval, now, key});
  s.last_port_report[q.port] = now;
  s.report(q, now);
}

std::optional<Datagram> Crn::poll_transmit() {
  return impl_->out.pop();
}

const CrnStats& Crn::stats() const {
  return impl_->stats;
}

std::size_t Crn::flows_remembered() const {
  return impl_->last_flow_report.size();
}

}  // namespace rdcc::ref
