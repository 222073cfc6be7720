// The reference receiver's rules of "Transport Bindings": arriving data related to its message
// through the binding, counted, checked against the credit held, and the message completed; the
// Binding Kinds supported; NACKs on the opaque binding.
//
// Receiver::Impl's member functions (receiver_impl.hpp); receiver.cpp dispatches to them. Section
// names in comments are the spec's headings; docs/reference.md maps each heading to its file.
#include "receiver_impl.hpp"

#include <algorithm>
#include <vector>

namespace rdcc::ref {

bool Receiver::Impl::binding_supported(std::uint8_t kind) const {
  if (kind == static_cast<std::uint8_t>(BindingKind::RoCEv2)) return cfg.rocev2_binding;
  if (kind == static_cast<std::uint8_t>(BindingKind::Opaque)) return cfg.opaque_binding;
  return false;
}

// Loss recovery on the opaque transport (docs/data-transport.md, "Loss recovery"). A sender
// asks again when it holds no usable credit or has sent every octet, so its request says
// that what it could send is on its way or lost. Missing octets that can no longer be on
// their way are named in a NACK: those below the highest octet received (a later one
// arrived), and, once the grant that allowed them has lapsed (Lifetime + 2 * D_max after it
// was sent: "an octet transmitted just before expiry can take another D_max to arrive"),
// every one below the Grant Limit. One NACK per request at most, so the sender's request
// backoff bounds them. Octets without a grant (an unscheduled window) are not named: the
// sender resends only under a live grant.
void Receiver::Impl::nack_missing(Assoc& a, Msg& m, Time now) {
  if (!a.peer_recovers || m.binding != BindingKind::Opaque) return;
  if (m.state != MsgState::Active && m.state != MsgState::Dormant) return;
  const std::uint64_t granted = m.pooled ? m.length : m.limit;
  const std::uint64_t upto =
      !m.pooled && m.accounted == 0 ? granted : std::min(granted, m.ranges.end());
  std::vector<OctetRange> gaps = m.ranges.gaps(0, upto, kMaxNackRanges);
  if (gaps.empty()) return;
  std::uint64_t octets = 0;
  for (const OctetRange& g : gaps) octets += g.hi - g.lo;
  ++stats.nacks_sent;
  stats.nacked_octets += octets;
  if (events.enabled())
    events.emit(now, "nack_sent",
                {{"association_id", a.id},
                 {"message_id", m.id},
                 {"ranges", gaps.size()},
                 {"octets", octets},
                 {"first", gaps.front().lo}});
  nacks.push_back(DataNack{a.peer, m.binding_value, std::move(gaps)});
}

// The message data belongs to, by its transport identity (BindingIndex, transport_bindings.hpp).
auto Receiver::Impl::find_message(Assoc& a, const DataObservation& d) -> Msg* {
  const std::uint64_t* id = nullptr;
  if (d.binding == BindingKind::Opaque) {
    id = a.binding.opaque(d.key);
  } else {
    id = a.binding.queue_pair(static_cast<std::uint32_t>(d.key), policy->match_queue_pair(),
                              [&](std::uint64_t message) {
                                const Msg& m = a.msgs.at(message);
                                return m.received() < m.length;
                              });
  }
  return id == nullptr ? nullptr : &a.msgs.at(*id);
}

// The association and message data belongs to (docs/spec-notes.md, "Data belongs to an
// association, never to a host"): of the associations accepted from the data's host, the one
// whose messages include its transport identity ("each CREDIT_REQUEST names the
// transport-level identity of the message", Architecture); where several do (a sender that
// re-established names its pending messages again), the one accepted last. Any number of
// senders share an IP, and data naming no message of that host is no association's.
auto Receiver::Impl::data_owner(const DataObservation& d) -> std::pair<Assoc*, Msg*> {
  const std::vector<std::uint32_t>& ids = assocs.of_host(d.from);
  for (auto it = ids.rbegin(); it != ids.rend(); ++it) {
    Assoc& a = assocs.at(*it);
    if (Msg* m = find_message(a, d)) return {&a, m};
  }
  return {nullptr, nullptr};
}

void Receiver::Impl::on_data(const DataObservation& d, Time now) {
  auto [ap, mp] = data_owner(d);
  if (mp == nullptr) {
    // No message of its host has this identity (yet): it is kept for a request still on its way
    // (docs/spec-notes.md, 69), and touches no association, not even its idle time. Data naming
    // a message already finished is late, not unattributed (a later message may still take the
    // identity, so it is kept all the same).
    (names_finished(d) ? stats.late_data_octets : stats.unattributed_data_octets) += d.octets;
    if (!assocs.of_host(d.from).empty()) early_of(d.from).add(d.binding, d.key, d.octets);
    return;
  }
  Assoc& a = *ap;
  a.last_activity = now;
  a.observe_data(d.octets, d.ce, d.rtt, cfg.rtt_target);
  aimd_wake(a);
  Msg& m = *mp;
  const bool opaque = d.binding == BindingKind::Opaque;
  if (opaque && d.recovers) a.peer_recovers = true;
  const Receipt got =
      opaque ? count_opaque(m.ranges, m, d.offset, d.octets) : count_in_order(m, d.octets);
  stats.duplicate_octets += got.duplicate;
  // The opaque binding says where the octets are; RoCEv2 counters only say how many, which
  // arrive in order on the queue pair. A pooled message's scheduled octets are held by the
  // pool grant (pool_data).
  const std::uint64_t held = m.pooled ? m.length : m.held();
  const std::uint64_t data_end = opaque ? d.offset + d.octets : m.covered() + got.above;
  if (const auto excess = beyond_credit(held, data_end, d.octets, got.above != 0 || opaque);
      excess && policy->stop_granting_misbehaving()) {
    stats.misbehaving_data_octets += *excess;
    misbehaving(a, m, data_end, now);
  }
  m.unsched_received += got.below;
  m.sched_received += got.above;
  stats.scheduled_octets += got.above;
  if (m.pooled && got.above != 0) pool_data(a, got.above, now);
  set_unsched(m, m.unsched_accounted != 0 ? m.unsched_in_flight() : 0);
  ledger.settle(a, m);
  // A grant whose every octet has arrived no longer needs its share of the link.
  if (m.accounted == 0 && m.rate != 0) set_rate(m, 0);
  if (m.state == MsgState::Misbehaving) return;
  if (received_all(m, policy->completion_octets(m.length))) {
    complete(a, m, now);
  } else {
    requeue(a, m);
  }
  grant_pass(now);
}

}  // namespace rdcc::ref
