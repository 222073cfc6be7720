// The reference receiver's rules of "Association Establishment": ASSOC_REQUEST answered with
// ASSOC_ACCEPT (idempotent for the same nonce), refused at the cap, parameter updates
// retransmitted until acknowledged, idle associations removed with their credit.
//
// Receiver::Impl's member functions (receiver_impl.hpp); receiver.cpp dispatches to them. Section
// names in comments are the spec's headings; docs/reference.md maps each heading to its file.
#include "receiver_impl.hpp"

#include <algorithm>
#include <vector>

namespace rdcc::ref {

AssocAccept Receiver::Impl::accept_for(const Assoc& a) const {
  AssocAccept acc;
  acc.sender_nonce = a.nonce;
  acc.capabilities = cfg.capabilities;
  acc.unscheduled_limit = a.u;
  acc.start_jitter = cfg.start_jitter_us;
  acc.backlog_threshold = cfg.backlog_threshold;
  acc.grant_lifetime = cfg.grant_lifetime_us;
  acc.credit_unit = cfg.credit_unit;
  return acc;
}

void Receiver::Impl::on_assoc_request(const Address& from, const AssocRequest& req, Time now) {
  if (Assoc* known = assocs.of_request(req.sender_nonce, from);
      known != nullptr && (policy->same_nonce_same_association() || req.update_acknowledgment())) {
    Assoc& a = *known;
    // "Associations are kept alive by data and control traffic": of the association. An
    // ASSOC_REQUEST repeated by an address that never sent the association a message (a forged
    // one, refreshed to hold the receiver's room) keeps nothing alive (docs/spec-notes.md,
    // "Associations per host").
    if (a.peer_heard || req.update_acknowledgment()) a.last_activity = now;
    if (req.update_acknowledgment()) {
      if (a.update_pending) {
        a.update_pending = false;
        a.update_attempts_left = 0;
        ledger.set_u(a, a.u);
        if (events.enabled())
          events.emit(now, "parameter_update_acknowledged", {{"association_id", a.id}, {"u", a.u}});
      }
      return;
    }
    // "A receiver MUST treat a retransmitted ASSOC_REQUEST with the same nonce as
    // idempotent and return the same Association ID."
    send(a, accept_for(a), now);
    return;
  }
  if (req.update_acknowledgment()) return;  // acknowledges nothing we know
  const std::size_t cap = policy->association_cap(cfg.max_associations);
  if (at_association_cap(assocs.size(), cap) ||
      at_association_cap(assocs.of_host(from).size(),
                         std::min(cap, cfg.max_associations_per_host))) {
    // Of no association: Association ID and Epoch zero (the Epoch is not told to a stranger,
    // docs/spec-notes.md, "What a receiver tells a source that has no association").
    ++stats.associations_refused;
    if (policy->answer_refusal()) {
      ErrorMessage e;
      e.reason = static_cast<std::uint16_t>(ReasonCode::AssocRefused);
      send_to(from, Message{e}, now);
      ++stats.errors_sent;
    }
    if (events.enabled()) events.emit(now, "association_refused", {{"from", from.to_string()}});
    return;
  }
  const std::uint32_t id = assocs.new_id(*random);
  // "to the address and port from which the accepted ASSOC_REQUEST came"
  Assoc& stored = assocs.add(id, from, req.sender_nonce);
  stored.seq_out = policy->first_sequence_number();
  stored.capabilities = req.capabilities;
  stored.line_rate = req.line_rate;
  stored.u = choose_u();
  // "A receiver MUST NOT use pool grants with a sender that did not advertise the POOL
  // capability."
  stored.pool_grants = (req.capabilities & capability::kPool) != 0 && policy->pool_grants();
  stored.last_activity = now;
  stored.rate =
      static_cast<double>(req.line_rate != 0 ? std::min(req.line_rate, cfg.link_capacity_mbps)
                                             : cfg.link_capacity_mbps);
  ledger.open(stored);
  ledger.set_u(stored, stored.u);
  ++stats.associations_accepted;
  if (events.enabled())
    events.emit(now, "association_accepted",
                {{"association_id", id}, {"peer", from.to_string()}, {"u", stored.u}});
  send(stored, accept_for(stored), now);
  if (!idle_armed) {
    idle_armed = true;
    arm(now + cfg.idle_timeout, TimerKind::Idle);
  }
}

void Receiver::Impl::update_u(Assoc& a, std::uint32_t u, Time now) {
  if (a.u == u) return;
  // "Until then, the sender may still act on the old parameters, so the receiver accounts
  // for it with the larger of the old and new U."
  ledger.set_u(a, std::max(a.u_accounted, u));
  a.u = u;
  a.update_pending = true;
  start_parameter_update(a, now);
}

// "the receiver retransmits the update with exponential backoff until it is acknowledged": in
// rounds of kUpdateAttempts, each started by a change of U or by the peer's next message, and
// only toward a peer heard from since its association was accepted. An association a forged
// ASSOC_REQUEST made is sent nothing but the one ASSOC_ACCEPT per request ("so the exchange
// cannot be used for amplification"), and an unacknowledged update costs no more than the
// larger U it keeps accounted (docs/spec-notes.md, "Parameter Updates go to a peer that has
// answered").
void Receiver::Impl::start_parameter_update(Assoc& a, Time now) {
  if (!a.update_pending || !a.peer_heard || a.update_attempts_left != 0) return;
  a.update_attempts_left = kUpdateAttempts;
  a.update_backoff = milliseconds(1);
  send_parameter_update(a, now);
}

void Receiver::Impl::send_parameter_update(Assoc& a, Time now) {
  AssocAccept acc = accept_for(a);
  acc.header.flags = flag::kParameterUpdate;
  send(a, acc, now);
  ++stats.parameter_updates_sent;
  if (--a.update_attempts_left == 0) return;
  arm(now + a.update_backoff, TimerKind::ParameterUpdate, a.id, 0, ++a.update_generation);
  a.update_backoff = std::min(a.update_backoff * 2, seconds(1));
}

// "A receiver MAY remove an association that has carried no traffic for a locally configured
// idle time"; when the next check is due is the policy's choice.
void Receiver::Impl::idle_check(Time now) {
  idle_armed = false;
  std::vector<std::uint32_t> idle;
  for (auto& [id, a] : assocs) {
    if (now - a.last_activity >= cfg.idle_timeout) idle.push_back(id);
  }
  for (auto id : idle) {
    ++stats.associations_removed_idle;
    remove_association(assocs.at(id), now, "idle");
  }
  if (!assocs.empty()) {
    Time least_recent = now;
    for (const auto& [id, a] : assocs) least_recent = std::min(least_recent, a.last_activity);
    idle_armed = true;
    arm(std::max(now + microseconds(1),
                 policy->next_idle_check(now, least_recent, cfg.idle_timeout)),
        TimerKind::Idle);
  }
}

void Receiver::Impl::remove_association(Assoc& a, Time now, const char* why) {
  for (auto& [id, m] : a.msgs) release_message(a, m, now, false);
  ledger.close(a);
  if (events.enabled())
    events.emit(now, "association_removed", {{"association_id", a.id}, {"reason", why}});
  const Address peer = a.peer;
  assocs.remove(a);
  if (assocs.of_host(peer).empty()) early_by_host.erase(AssociationTable<Assoc>::host_of(peer));
}

}  // namespace rdcc::ref
