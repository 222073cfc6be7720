// Counters as JSON, for `rdcc receiver|sender|crn` (SIGUSR1, exit) and the upper tester.
#include <tuple>

#include "rdcc/udp/nodes.hpp"

namespace rdcc::udp {

bool address_less(const Address& a, const Address& b) {
  return std::tie(a.ipv6, a.ip, a.port) < std::tie(b.ipv6, b.ip, b.port);
}

#define RDCC_FIELD(name) j[#name] = s.name;

nlohmann::ordered_json to_json(const ref::ReceiverStats& s) {
  nlohmann::ordered_json j;
  RDCC_FIELD(associations_accepted)
  RDCC_FIELD(associations_refused)
  RDCC_FIELD(associations_removed_idle)
  RDCC_FIELD(credit_requests_received)
  RDCC_FIELD(grants_sent)
  RDCC_FIELD(credit_granted)
  RDCC_FIELD(credit_reclaimed)
  RDCC_FIELD(credit_returned)
  RDCC_FIELD(unscheduled_octets)
  RDCC_FIELD(scheduled_octets)
  RDCC_FIELD(msg_done_sent)
  RDCC_FIELD(errors_sent)
  RDCC_FIELD(reports_received)
  RDCC_FIELD(reports_ignored)
  RDCC_FIELD(sender_status_received)
  RDCC_FIELD(stale_discarded)
  RDCC_FIELD(requests_from_wrong_address)
  RDCC_FIELD(parameter_updates_sent)
  RDCC_FIELD(malformed_discarded)
  RDCC_FIELD(unknown_type_discarded)
  RDCC_FIELD(misbehaving_data_octets)
  RDCC_FIELD(unattributed_data_octets)
  RDCC_FIELD(late_data_octets)
  RDCC_FIELD(circuit_breaker_trips)
  RDCC_FIELD(invariant_violations)
  RDCC_FIELD(nacks_sent)
  RDCC_FIELD(nacked_octets)
  RDCC_FIELD(duplicate_octets)
  return j;
}

nlohmann::ordered_json to_json(const ref::SenderStats& s) {
  nlohmann::ordered_json j;
  RDCC_FIELD(assoc_requests_sent)
  RDCC_FIELD(associations_established)
  RDCC_FIELD(associations_failed)
  RDCC_FIELD(re_establishments)
  RDCC_FIELD(credit_requests_sent)
  RDCC_FIELD(credit_request_retransmissions)
  RDCC_FIELD(grants_received)
  RDCC_FIELD(grants_ignored)
  RDCC_FIELD(stale_discarded)
  RDCC_FIELD(credit_granted)
  RDCC_FIELD(credit_expired)
  RDCC_FIELD(credit_returned)
  RDCC_FIELD(unscheduled_octets)
  RDCC_FIELD(scheduled_octets)
  RDCC_FIELD(reports_received)
  RDCC_FIELD(reports_ignored)
  RDCC_FIELD(unscheduled_conversions)
  RDCC_FIELD(sender_status_sent)
  RDCC_FIELD(messages_done)
  RDCC_FIELD(messages_aborted)
  RDCC_FIELD(errors_received)
  RDCC_FIELD(malformed_discarded)
  RDCC_FIELD(invariant_violations)
  RDCC_FIELD(nonce_mismatch)
  RDCC_FIELD(wrong_association)
  RDCC_FIELD(unexpected_discarded)
  RDCC_FIELD(grants_beyond_length)
  RDCC_FIELD(parameter_updates)
  RDCC_FIELD(without_rdcc_octets)
  RDCC_FIELD(nacks_received)
  RDCC_FIELD(resent_octets)
  RDCC_FIELD(tail_probes)
  return j;
}

nlohmann::ordered_json to_json(const ref::CrnStats& s) {
  nlohmann::ordered_json j;
  RDCC_FIELD(observations)
  RDCC_FIELD(reports_sent)
  RDCC_FIELD(reports_to_receiver)
  RDCC_FIELD(reports_to_sender)
  RDCC_FIELD(suppressed_per_flow)
  RDCC_FIELD(suppressed_per_port)
  return j;
}

nlohmann::ordered_json to_json(const SocketStats& s) {
  nlohmann::ordered_json j;
  RDCC_FIELD(datagrams_sent)
  RDCC_FIELD(datagrams_received)
  RDCC_FIELD(send_failures)
  RDCC_FIELD(truncated)
  return j;
}

#undef RDCC_FIELD

nlohmann::ordered_json to_json(const ref::MessageStatus& s) {
  return {{"handle", s.handle},
          {"state", ref::to_string(s.state)},
          {"message_id", s.message_id},
          {"length", s.length},
          {"transmitted", s.transmitted},
          {"grant_limit", s.grant_limit},
          {"without_rdcc", s.without_rdcc},
          {"abort_reason", s.abort_reason},
          {"elapsed_us", s.finished.ns > s.submitted.ns ? (s.finished - s.submitted).micros() : 0}};
}

}  // namespace rdcc::udp
