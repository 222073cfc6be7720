// The reference receiver's rules of "Congestion Control Considerations": the circuit breaker: U
// set to zero for every association while the loss rate of unscheduled data is above the
// threshold, and given back once it falls below a tenth of it.
//
// Receiver::Impl's member functions (receiver_impl.hpp); receiver.cpp dispatches to them. Section
// names in comments are the spec's headings; docs/reference.md maps each heading to its file.
#include "receiver_impl.hpp"

namespace rdcc::ref {

void Receiver::Impl::ensure_breaker(Time now) {
  if (breaker_armed) return;
  breaker_armed = true;
  arm(now + cfg.loss_window, TimerKind::Breaker);
}

// "a receiver that observes a loss rate of unscheduled data above a configured threshold
// ... MUST set U to zero for all associations until the loss rate falls below one tenth of
// the threshold."
void Receiver::Impl::breaker_tick(Time now) {
  breaker_armed = false;
  const double loss = breaker.loss_rate();
  const auto change = breaker.end_window(static_cast<double>(cfg.loss_threshold_ppm) / 1e6);
  switch (policy->circuit_breaker() ? change : CircuitBreaker::Change::None) {
    case CircuitBreaker::Change::Tripped:
      ++stats.circuit_breaker_trips;
      if (events.enabled()) events.emit(now, "circuit_breaker_tripped", {{"loss_rate", loss}});
      for (auto& [id, a] : assocs) update_u(a, 0, now);
      break;
    case CircuitBreaker::Change::Cleared:
      if (events.enabled()) events.emit(now, "circuit_breaker_cleared", {{"loss_rate", loss}});
      // An association whose sender has not acknowledged the update to U = 0 may still act
      // on its old U: it keeps counting it (update_u takes the larger), and the U it gets
      // back comes out of what the others leave of G_u (docs/spec-notes.md, 73).
      for (auto& [id, a] : assocs) update_u(a, choose_u(a.u_accounted), now);
      break;
    case CircuitBreaker::Change::None: break;
  }
  if (breaker.tripped() || !assocs.empty()) ensure_breaker(now);
}

}  // namespace rdcc::ref
