// The reference receiver's rules of "On-Path Congestion Reporting": a CONGESTION_REPORT received:
// ignored unless from a configured CRN, otherwise a congestion signal for the senders of the flow
// it names (it can only lower their rates).
//
// Receiver::Impl's member functions (receiver_impl.hpp); receiver.cpp dispatches to them. Section
// names in comments are the spec's headings; docs/reference.md maps each heading to its file.
#include "receiver_impl.hpp"

#include <algorithm>

namespace rdcc::ref {

void Receiver::Impl::on_report(const Address& from, const CongestionReport& r, Time now) {
  // "An endpoint MUST ignore reports whose source address is not within the set of CRN
  // addresses configured for the domain."
  const bool known =
      policy->accept_report(std::any_of(cfg.crn_addresses.begin(), cfg.crn_addresses.end(),
                                        [&](const Address& c) { return c.same_host(from); }));
  if (!known) {
    ++stats.reports_ignored;
    if (events.enabled()) events.emit(now, "report_ignored", {{"from", from.to_string()}});
    return;
  }
  ++stats.reports_received;
  // "A CONGESTION_REPORT can only cause a receiver to reduce the rate it grants": it only
  // raises the sender's congestion signal, which the controller turns into decreases.
  Address flow_source;
  flow_source.ip = r.source_address;
  flow_source.ipv6 = r.ipv6();
  const ReportReaction reaction = policy->report_reaction();
  for (auto& [id, a] : assocs) {
    if (!a.peer.same_host(flow_source) || reaction == ReportReaction::Ignore) continue;
    aimd_wake(a);
    if (reaction == ReportReaction::ResetRate) {
      a.rate = cfg.link_capacity_mbps;
      a.suggested_rate = 0;
      continue;
    }
    a.observe_report(r.congestion_degree);
  }
  if (events.enabled())
    events.emit(now, "report_received",
                {{"from", from.to_string()}, {"congestion_degree", r.congestion_degree}});
}

}  // namespace rdcc::ref
