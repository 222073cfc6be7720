// The reference receiver's rules of "Unscheduled Transmission": choosing U within G_u, the
// unscheduled octets a CREDIT_REQUEST announces, a converted message's window, and the release of
// the unscheduled reservation.
//
// Receiver::Impl's member functions (receiver_impl.hpp); receiver.cpp dispatches to them. Section
// names in comments are the spec's headings; docs/reference.md maps each heading to its file.
#include "receiver_impl.hpp"

#include <algorithm>

namespace rdcc::ref {

// "The receiver MUST choose U for each association so that the sum of U over all
// associations with a non-zero U does not exceed G_u." `own`: what the association being
// given a new U already counts (0 for a new one).
std::uint32_t Receiver::Impl::choose_u(std::uint32_t own) const {
  if (breaker.tripped()) return 0;
  const std::uint64_t left = ledger.u_room(policy->unscheduled_pool(cfg.unscheduled_budget), own);
  UnscheduledContext c;
  c.configured = cfg.unscheduled_limit;
  c.left = left;
  c.g_u = cfg.unscheduled_budget;
  c.max_associations = cfg.max_associations;
  c.credit_unit = cfg.credit_unit;
  return static_cast<std::uint32_t>(std::min<std::uint64_t>(policy->unscheduled_limit(c), left));
}

// Unscheduled data may overtake its CREDIT_REQUEST ("no later than the first data packet"
// does not survive reordering): octets counted before the request are credited now, up to
// the unscheduled window the request announces. Nothing beyond it can precede the request
// of the same message: such octets belong to something else, e.g. a previous Epoch's
// transfer still in flight when the receiver restarted (spec-notes 69). The opaque
// binding's offsets are not kept for them, so they count from offset 0 up.
void Receiver::Impl::count_early_data(const Assoc& a, Msg& m) {
  const auto early = early_of(a.peer).take(
      m.binding, m.binding == BindingKind::Opaque ? m.binding_value : m.rocev2.destination_qpn);
  if (!early) return;
  const std::uint64_t octets = std::min({*early, m.length, m.window});
  const auto [below, above] = m.ranges.add(0, octets, m.window);
  m.unsched_received += below;
  m.sched_received += above;
  set_unsched(m, m.unsched_in_flight());
}

// The unscheduled reservation of `m` lapsed without the announced octets' arrival ("or when J
// plus the default Grant Lifetime plus 2 * D_max has elapsed"): released, and counted as lost
// by the circuit breaker.
void Receiver::Impl::release_unscheduled(Msg& m) {
  breaker.lost(m.unsched_accounted);
  set_unsched(m, 0);
}

void Receiver::Impl::accept_unscheduled(Assoc& a, Msg& m, std::uint64_t announced, Time now) {
  if (announced == 0) return;
  const std::uint64_t others = a.unsched - m.unsched_accounted;
  const std::uint64_t allowed = a.u_accounted > others ? a.u_accounted - others : 0;
  if (announced > allowed || announced > m.length) {
    // Beyond U, or a second unscheduled message outstanding: only `allowed` octets count as
    // unscheduled; the rest is data beyond the credit ("Error Handling and Recovery").
    if (events.enabled())
      events.emit(now, "unscheduled_beyond_limit",
                  {{"association_id", a.id},
                   {"message_id", m.id},
                   {"announced", announced},
                   {"allowed", allowed}});
    announced = std::min(allowed, m.length);
  }
  m.window = announced;
  set_unsched(m, announced > m.unsched_received ? announced - m.unsched_received : 0);
  stats.unscheduled_octets += announced;
  breaker.announced(announced);
  // "or when J plus the default Grant Lifetime plus 2 * D_max has elapsed after it
  // received the CREDIT_REQUEST"
  arm(unscheduled_release_at(now, microseconds(cfg.start_jitter_us), lifetime(), cfg.d_max),
      TimerKind::UnschedRelease, a.id, m.id, m.generation);
  ensure_breaker(now);
}

// A converted unscheduled message states the octets actually transmitted (`sent`, below its
// window): the window can only shrink ("Unscheduled Transmission"), and so can its
// reservation: one that has lapsed stays released (docs/spec-notes.md, 95).
void Receiver::Impl::convert_unscheduled(Assoc& a, Msg& m, std::uint64_t sent) {
  const std::uint64_t before = m.window;
  m.window = std::max(sent, m.unsched_received);
  set_unsched(m, std::min(m.unsched_accounted, m.window - m.unsched_received));
  if (m.pooled) a.msgs.at(0).length += before - m.window;  // now scheduled, in the pool
}

}  // namespace rdcc::ref
