// The reference receiver: the glue. What arrives (control messages, data, timers) is dispatched
// to the rules of the spec heading it concerns, each in a file named after that heading
// (reference/src/receiver/<heading>.cpp and .hpp, docs/reference.md); this file holds the
// dispatch, the sending of what the rules produce, and the public API (rdcc/reference/
// receiver.hpp). The receiver's state is Receiver::Impl (receiver_impl.hpp).
#include "rdcc/reference/receiver.hpp"

#include "receiver_impl.hpp"

#include "rdcc/codec/json.hpp"

namespace rdcc::ref {
namespace {

using json = nlohmann::ordered_json;

}  // namespace

std::uint32_t payload_capacity_mbps(const ReceiverConfig& config) {
  return payload_capacity(config.link_capacity_mbps, config.credit_unit,
                          config.data_packet_overhead);
}

void Receiver::Impl::send_to(const Address& to, Message m, Time now) {
  out.push(to, cfg.control_dscp, m, *policy);
  if (events.enabled()) {
    json f = to_json(m);
    f["to"] = to.to_string();
    if (events.enabled()) events.emit(now, "tx", std::move(f));
  }
}

void Receiver::Impl::on_control(const Address& from, std::span<const std::byte> datagram,
                                Time now) {
  auto decoded = policy->decode_control(datagram);
  if (!decoded) {
    on_undecodable(from, decoded.error(), now);
    return;
  }
  const Message& m = *decoded;
  if (const auto* req = std::get_if<AssocRequest>(&m)) {
    on_assoc_request(from, *req, now);
  } else if (const auto* report = std::get_if<CongestionReport>(&m)) {
    on_report(from, *report, now);  // "Messages from CRNs carry no Epoch"
  } else if (const auto* cr = std::get_if<CreditRequest>(&m)) {
    Assoc* a = association_of(from, cr->header);
    if (a == nullptr) {
      if (policy->answer_request_from_other_address() || !names_live_association(cr->header)) {
        answer_unknown_association(from, cr->header, now);
      }
      return;
    }
    if (!fresh(*a, cr->header, now)) return;
    on_credit_request(*a, *cr, now);
  } else {
    Assoc* a = association_of(from, header_of(m));
    if (a == nullptr || !fresh(*a, header_of(m), now)) return;
    dispatch_association_message(*a, m, now);
  }
  grant_pass(now);
}

void Receiver::Impl::dispatch_association_message(Assoc& a, const Message& m, Time now) {
  if (const auto* status = std::get_if<SenderStatus>(&m)) {
    on_sender_status(a, *status, now);
  } else if (const auto* cancel = std::get_if<Cancel>(&m)) {
    on_cancel(a, *cancel, now);
  } else if (const auto* ret = std::get_if<CreditReturn>(&m)) {
    on_credit_return(a, *ret, now);
  } else {
    // ASSOC_ACCEPT, CREDIT_GRANT, MSG_DONE, ERROR: not for a receiver.
    if (events.enabled()) events.emit(now, "unexpected_message", {{"type", info(type_of(m)).name}});
  }
}

auto Receiver::Impl::timer_message(const Timer& t) -> Msg* {
  Assoc* a = assocs.find(t.association);
  if (a == nullptr) return nullptr;
  auto m = a->msgs.find(t.message);
  if (m == a->msgs.end() || m->second.generation != t.generation) return nullptr;
  return &m->second;
}

void Receiver::Impl::fire(const Timer& t, Time now) {
  switch (t.kind) {
    case TimerKind::Reclaim:
      if (Msg* m = timer_message(t)) reclaim(assocs.at(t.association), *m, now);
      break;
    case TimerKind::UnschedRelease:
      if (Msg* m = timer_message(t); m != nullptr && m->unsched_accounted != 0) {
        release_unscheduled(*m);
      }
      break;
    case TimerKind::CancelReclaim:
      if (Msg* m = timer_message(t)) reclaim_cancelled(assocs.at(t.association), *m, now);
      break;
    case TimerKind::ParameterUpdate: {
      Assoc* a = assocs.find(t.association);
      if (a != nullptr && a->update_pending && a->update_generation == t.generation) {
        send_parameter_update(*a, now);
      }
      break;
    }
    case TimerKind::Aimd: aimd_tick(now); break;
    case TimerKind::Breaker: breaker_tick(now); break;
    case TimerKind::Idle: idle_check(now); break;
  }
}

// "no earlier than Lifetime + 2 * D_max after it sent the grant": each grant polled since the
// last call, if it is still the message's latest, is reclaimed as much later as it left
// after its poll (its earlier reclamation no longer fires: the generation moves on).
void Receiver::Impl::confirm_sends(Time at) {
  for (const UnsentGrant& g : unsent_grants) {
    if (at <= g.polled) continue;
    Msg* m =
        timer_message(Timer{g.reclaim, TimerKind::Reclaim, g.association, g.message, g.generation});
    if (m == nullptr) continue;
    if (m->granted_at == g.polled) m->granted_at = at;
    ++m->generation;
    arm(g.reclaim + (at - g.polled), TimerKind::Reclaim, g.association, g.message, m->generation);
  }
  unsent_grants.clear();
}

void Receiver::Impl::on_timeout(Time now) {
  while (!timers.empty() && timers.next().at <= now) {
    const Timer t = timers.next();
    timers.pop();
    fire(t, now);
  }
  grant_pass(now);
}

Receiver::Receiver(ReceiverConfig config, Observer* observer, RandomSource* random,
                   std::shared_ptr<const ReceiverPolicy> policy)
    : impl_(std::make_unique<Impl>(std::move(config), observer, random, std::move(policy))) {}
Receiver::~Receiver() = default;

void Receiver::on_control(const Address& from, std::span<const std::byte> datagram, Time now) {
  impl_->on_control(from, datagram, now);
}
void Receiver::on_data(const DataObservation& data, Time now) {
  impl_->on_data(data, now);
}
void Receiver::on_timeout(Time now) {
  impl_->on_timeout(now);
}
std::optional<Time> Receiver::next_timeout() const {
  if (impl_->timers.empty()) return std::nullopt;
  return impl_->timers.next().at;
}
std::optional<Datagram> Receiver::poll_transmit() {
  return impl_->out.pop();
}
void Receiver::sent(Time at) {
  impl_->confirm_sends(at);
}
std::optional<DataNack> Receiver::poll_nack() {
  if (impl_->nacks.empty()) return std::nullopt;
  DataNack n = std::move(impl_->nacks.front());
  impl_->nacks.erase(impl_->nacks.begin());
  return n;
}
std::uint64_t Receiver::outstanding_credit() const {
  return impl_->ledger.outstanding();
}
std::size_t Receiver::association_count() const {
  return impl_->assocs.size();
}
std::size_t Receiver::pending_messages() const {
  return impl_->pending;
}
const ReceiverStats& Receiver::stats() const {
  return impl_->stats;
}
const ReceiverConfig& Receiver::config() const {
  return impl_->cfg;
}

}  // namespace rdcc::ref
