// "Traffic Classes and Pool Credit": pool grants (RDCC-GRANT-08, RDCC-GRANT-14) and pool credit
// held.
#include "impl.hpp"

namespace rdcc::checker {

// "A grant with Message ID zero and the POOL flag set is a pool grant" (the flag: "Message ID
// is zero"); and a pool grant only to a sender that advertised POOL ("Credit Requests and
// Grants").
void InvariantChecker::Impl::pool_rules(const AssocModel& a, const CreditGrant& g, Time t) {
  if (g.pool() != (g.message_id == 0)) {
    if (keeping()) {
      violate(t, rule::kPoolGrantId,
              std::string(g.pool() ? "the POOL flag with Message ID " + std::to_string(g.message_id)
                                   : "Message ID zero without the POOL flag") +
                  ": the sender ignores the grant: " + format_line(g));
    }
  } else if (g.pool() && a.capabilities_known && !a.pool_advertised && keeping()) {
    violate(t, rule::kPoolUnadvertised,
            "pool grant to a sender whose ASSOC_REQUEST did not advertise POOL: " + format_line(g),
            a.offer_tag);
  }
}

void InvariantChecker::Impl::take_pool_pending(AssocModel& a, Time t) {
  if (!a.pool_pending || t < a.pool_pending_from) return;
  a.pool_pending = false;
  a.pool_limit = std::max(a.pool_limit, a.pool_pending_limit);
  a.pool_valid_until = t + a.pool_pending_life;
  a.pool_rate = a.pool_pending_rate;
  a.pool_pending_limit = 0;
  a.pool_pending_life = Duration{};
}

}  // namespace rdcc::checker
