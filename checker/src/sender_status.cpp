// "SENDER_STATUS": the Unused Credit a sender may report (RDCC-STATUS-04).
#include "impl.hpp"

namespace rdcc::checker {

// A message's part of its association's unused_bound: its highest Grant Limit beyond what it
// sent. Sets both and keeps the sum.
void InvariantChecker::Impl::set_unused_term(AssocModel& a, MsgModel& m, std::uint64_t granted,
                                             std::uint64_t sent) {
  // A part of a TiB or more bounds nothing, and summed it could wrap: counted apart; below it,
  // even 2^23 messages' parts sum below 2^63.
  const auto replace = [&a](std::uint64_t& sum, std::uint64_t before, std::uint64_t after) {
    if (before >= kUnboundedCredit) {
      --a.unbounded_terms;
    } else {
      sum -= before;
    }
    if (after >= kUnboundedCredit) {
      ++a.unbounded_terms;
    } else {
      sum += after;
    }
  };
  const auto term = [](std::uint64_t g, std::uint64_t s) { return g > s ? g - s : 0; };
  replace(a.granted_sum, m.granted_max, granted);
  replace(a.unused_bound, term(m.granted_max, m.sent_end), term(granted, sent));
  m.granted_max = granted;
  m.sent_end = sent;
}

// "SENDER_STATUS carries the Unused Credit on that association" (RDCC-STATUS-04): never more
// than all credit delivered on it and not used (docs/spec-notes.md 176).
void InvariantChecker::Impl::status_sent(std::uint32_t ai, const SenderStatus& st, Time t) {
  const AssocModel& a = assocs[ai];
  if (!a.status_bounded || !keeping()) return;
  // Each part is small (else there is no ceiling), so the sum cannot wrap.
  if (a.unbounded_terms != 0 || a.pool_granted >= kUnboundedCredit ||
      a.recent_sent >= kUnboundedCredit) {
    return;
  }
  // In virtual time (no tolerance) the octets sent before the status's instant are used;
  // in real time, none: the sender composed the status at a time the observer cannot see.
  const std::uint64_t bound =
      tolerance.ns == 0 ? a.unused_bound + a.pool_granted + (t == a.recent_at ? a.recent_sent : 0)
                        : a.granted_sum + a.pool_granted;
  if (st.unused_credit <= bound) return;
  violate(t, rule::kStatusUnused,
          "SENDER_STATUS reports " + std::to_string(st.unused_credit) +
              " octets of Unused Credit on association " +
              std::to_string(st.header.association_id) + ", more than the " +
              std::to_string(bound) +
              (tolerance.ns == 0
                   ? " octets of credit delivered on it and not yet used (every grant's highest "
                     "Grant Limit beyond the octets sent before that instant, and the pool's)"
                   : " octets of credit delivered on it (every grant's highest Grant Limit, "
                     "and the pool's)"));
}

}  // namespace rdcc::checker
