// "On-Path Congestion Reporting", for the sender: a CONGESTION_REPORT from a configured CRN,
// addressed to this sender, stops unscheduled transmission toward the receiver it names, and
// never increases a rate or credit.
#include "sender_impl.hpp"

#include <algorithm>
#include <cstddef>

namespace rdcc::ref {

void Sender::Impl::on_report(const Address& from, const CongestionReport& r, Time now) {
  const bool from_crn = policy->trust_report_source(
      std::any_of(config.crn_addresses.begin(), config.crn_addresses.end(),
                  [&](const Address& c) { return c.same_host(from); }));
  if (!from_crn) {
    // "An endpoint MUST ignore reports whose source address is not within the set of CRN
    // addresses configured for the domain."
    ++stats.reports_ignored;
    if (events.enabled())
      events.emit(now, "report_ignored", {{"from", from.to_string()}, {"reason", "not_a_crn"}});
    return;
  }
  ++stats.reports_received;
  const std::size_t n = r.address_size();
  const bool ours = r.ipv6() == config.local.ipv6 &&
                    std::equal(r.source_address.begin(),
                               r.source_address.begin() + static_cast<std::ptrdiff_t>(n),
                               config.local.ip.begin());
  if (r.direction != static_cast<std::uint8_t>(ReportDirection::ToSender) || !ours) {
    if (events.enabled())
      events.emit(now, "report_ignored",
                  {{"from", from.to_string()}, {"reason", "not_addressed_to_us"}});
    return;
  }
  if (events.enabled())
    events.emit(now, "report", {{"reporter_id", r.reporter_id}, {"degree", r.congestion_degree}});
  if (!policy->act_on_report()) return;
  // A report only ever stops unscheduled transmission: "An endpoint MUST NOT increase any
  // rate or credit in response to a CONGESTION_REPORT."
  for (auto& [address, a] : assocs) {
    if (a.receiver.ipv6 != r.ipv6() ||
        !std::equal(r.destination_address.begin(),
                    r.destination_address.begin() + static_cast<std::ptrdiff_t>(n),
                    a.receiver.ip.begin())) {
      continue;
    }
    for_each_msg(a, [&](Msg& m) {
      if (m.state == MessageState::Unsched) convert(m, "congestion_report", now);
    });
  }
}

}  // namespace rdcc::ref
