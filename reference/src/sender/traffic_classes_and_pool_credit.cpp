// "Traffic Classes and Pool Credit", for the sender: the credit of a pool grant (a grant with
// Message ID zero and the POOL flag, "Credit Requests and Grants") shared among the scheduled
// messages of the association, classes in strict priority and a weighted round-robin within a
// class (plan_pool, use_pool_credit); its Lifetime (expire_pool).
#include "sender_impl.hpp"

#include <algorithm>
#include <array>
#include <cstdint>

namespace rdcc::ref {

namespace {

// Scale of the weighted round-robin virtual clock: octets * kWrrScale / weight.
constexpr std::uint64_t kWrrScale = 1U << 16U;

}  // namespace

bool Sender::Impl::pool_valid(const Assoc& a, Time t) const {
  return a.pool_rate != 0 && t < a.pool_valid_until;
}

std::uint64_t Sender::Impl::pool_reserved(const Assoc& a) const {
  std::uint64_t r = 0;
  for_each_msg(a, [&](const Msg& m) {
    if (m.pool_end > m.transmitted) r += m.pool_end - m.transmitted;
  });
  return r;
}

std::uint64_t Sender::Impl::pool_remaining(const Assoc& a) const {
  const std::uint64_t used = a.pool_sent + pool_reserved(a);
  return a.pool_limit > used ? a.pool_limit - used : 0;
}

// Scheduled messages share a pool grant; an unscheduled one is not covered by it.
bool Sender::Impl::pool_member(const Msg& m) {
  return !m.without_rdcc &&
         (m.state == MessageState::Waiting || m.state == MessageState::Scheduled);
}

void Sender::Impl::refresh_pool_members(Assoc& a, Time now) {
  for_each_msg(a, [&](Msg& m) {
    if (pool_member(m)) refresh_state(m, now);
  });
}

void Sender::Impl::expire_pool(Assoc& a, Time now) {
  a.pool_expiry_handled = true;
  const std::uint64_t unused = a.pool_limit - a.pool_sent;
  stats.credit_expired += unused;
  if (events.enabled())
    events.emit(now, "pool_expired", {{"limit", a.pool_limit}, {"sent", a.pool_sent}});
  for_each_msg(a, [&](Msg& m) {
    m.pool_end = std::min(m.pool_end, m.transmitted);
    if (m.state != MessageState::Scheduled || holds_credit(m, now)) return;
    fire(m, SenderTransition::ScheduledLifetimeElapsed, now);
  });
}

// "classes are served in strict priority order from 0 to 7, and within a class credit is
// divided in proportion to the weights ..., using a work-conserving weighted round-robin."
// The round-robin is start-time fair: each message carries a virtual time advanced by
// octets / weight; the eligible message with the smallest one goes next.
bool Sender::Impl::plan_pool(Assoc& a, Time t, Plan& p) {
  if (a.phase != Phase::Established || !pool_valid(a, t)) return false;
  const std::uint64_t remaining = pool_remaining(a);
  if (remaining == 0) return false;
  const std::uint64_t cu = credit_unit(a);
  // One walk for every class: each class's candidate is its first message with the
  // smallest virtual time.
  struct Candidate {
    Msg* msg = nullptr;
    std::uint64_t vt = 0;
    std::uint64_t chunk = 0;
  };
  std::array<Candidate, kMaxTrafficClass + 1> best{};
  for_each_msg(a, [&](Msg& m) {
    if (!pool_member(m) || m.transmitted >= m.end()) return;
    if (m.pool_end > m.transmitted) return;                       // has a reservation
    if (own_valid(m, t) && own_limit(m) > m.transmitted) return;  // uses its own credit
    const auto [unit_start, unit_end] = m.unit();
    std::uint64_t chunk = 0;
    if (m.spec.post_unit != 0) {
      if (unit_end > m.end() || unit_end - m.transmitted > remaining) return;
      chunk = unit_end - m.transmitted;
    } else {
      chunk = segment_length(cu, std::min(remaining, m.end() - m.transmitted));
    }
    const std::size_t c = m.cls();
    const std::uint64_t vt = std::max(m.vtime, a.class_vclock[c]);
    if (best[c].msg == nullptr || vt < best[c].vt) best[c] = {&m, vt, chunk};
  });
  for (const Candidate& b : best) {
    if (b.msg == nullptr) continue;
    p = Plan{};
    p.msg = b.msg;
    p.cu = cu;
    p.from_pool = true;
    p.reserve_to = b.msg->transmitted + b.chunk;
    p.len = segment_length(cu, b.chunk);
    p.rate = a.pool_rate;
    p.pacer = &a.pool_pacer;
    p.ready = p.pacer->ready(p.rate, p.cu, p.len, policy->space_segments());
    return true;  // strict priority: a lower class waits even if this one is paced
  }
  return false;
}

// A segment sent under the pool grant: the reservation of its post unit (or chunk) from the
// pool advances the message's virtual time and its class's (the weighted round-robin of
// plan_pool), and the pool's octets sent count it.
void Sender::Impl::use_pool_credit(Msg& m, Assoc& a, const Plan& p) {
  if (m.pool_end < p.reserve_to) {
    const std::uint64_t chunk = p.reserve_to - m.transmitted;
    const std::uint64_t c = m.cls();
    a.class_vclock[c] = std::max(m.vtime, a.class_vclock[c]);
    m.vtime = a.class_vclock[c] + chunk * kWrrScale / m.weight();
    m.pool_end = p.reserve_to;
    mark_may_send(m);  // plan_own sends the rest of the reservation
  }
  a.pool_sent += p.len;
}

}  // namespace rdcc::ref
