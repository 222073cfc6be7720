// "CREDIT_GRANT", for the sender: a grant with Pacing Rate zero is ignored. ("Lifetime zero
// means the default Grant Lifetime of the association": CreditGrant::effective_lifetime,
// codec/.)
#include "sender_impl.hpp"

namespace rdcc::ref {

// "Pacing Rate MUST NOT be zero; a sender that receives a grant with Pacing Rate zero MUST
// ignore it." Whether g is ignored for it (counted and reported).
bool Sender::Impl::ignores_grant_rate(const CreditGrant& g, Time now) {
  if (!policy->use_grant(g.pacing_rate)) {
    // "a sender that receives a grant with Pacing Rate zero MUST ignore it."
    ++stats.grants_ignored;
    if (events.enabled())
      events.emit(now, "grant_ignored",
                  {{"message_id", g.message_id}, {"reason", "zero_pacing_rate"}});
    return true;
  }
  return false;
}

}  // namespace rdcc::ref
