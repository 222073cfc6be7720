// The receiver's rules of "CREDIT_GRANT": the fields of a grant (FINAL, POOL, Lifetime; a
// Pacing Rate that is never zero, LinkRates::rate_for) and how long it lasts. The codec encodes
// it (codec/src/codec.cpp). Unit tests: reference/test/receiver/credit_grant_test.cpp.
#pragma once

#include <algorithm>
#include <cstdint>

#include "rdcc/codec/codec.hpp"
#include "rdcc/reference/time.hpp"

namespace rdcc::ref {

// The Lifetime a grant lasts: its Lifetime field (`field_us`, the policy's choice) or, zero,
// "the default Grant Lifetime of the association" (CREDIT_GRANT).
[[nodiscard]] inline Duration grant_lifetime(std::uint32_t field_us, std::uint32_t default_us) {
  return microseconds(field_us != 0 ? field_us : default_us);
}

// The longest Lifetime a grant states to cover its Pacing Rate's averaging interval or its
// credit (paced_lifetime_field): credit held longer than this is reclaimed too late to matter.
inline constexpr std::uint32_t kMaxPacedLifetimeUs = 1000000;

// The Lifetime field of a grant at `rate_mbps` that leaves `outstanding` octets granted and
// not yet received (docs/spec-notes.md, "A grant lives at least the interval its Pacing Rate
// is averaged over"): the policy's `field_us`, unless the Lifetime it means (`default_us` for
// 0) is shorter than the time to send the larger of `outstanding` and "ten Credit Units" at
// that rate; then that time (at most kMaxPacedLifetimeUs).
// - Ten Credit Units: rule 4 averages the rate over their transmission time. Within a shorter
//   Lifetime the sender may legally send ten Credit Units, far above the rate, while the
//   receiver counts the rate towards its link only until the grant lapses and then gives it to
//   another message: the sum of the rates it issues held, the link did not (77 Mbit/s through
//   a 60 Mbit/s link, 40 messages at 3 Mbit/s with a 5 ms Lifetime).
// - The outstanding credit: a grant the sender cannot use up at its rate before it lapses
//   ends in expired credit, a new CREDIT_REQUEST and another grant for the same octets.
[[nodiscard]] inline std::uint32_t paced_lifetime_field(std::uint32_t field_us,
                                                        std::uint32_t default_us,
                                                        std::uint32_t rate_mbps,
                                                        std::uint64_t credit_unit,
                                                        std::uint64_t outstanding = 0) {
  const Duration interval =
      transmission_time(std::max(10 * credit_unit, 2 * outstanding), rate_mbps);
  if (interval <= grant_lifetime(field_us, default_us)) return field_us;
  const std::int64_t us = (interval.ns + 999) / 1000;
  return static_cast<std::uint32_t>(std::min<std::int64_t>(us, kMaxPacedLifetimeUs));
}

// The CREDIT_GRANT for message `id` of `length` (the pool: id 0). "It sets the FINAL flag in
// the grant that reaches the message length" (RDCC-GRANT-12); "A grant with Message ID zero
// and the POOL flag set is a pool grant" (RDCC-GRANT-14): the pool has no message length to
// reach. `rate` is never zero (RDCC-GRANT-06, LinkRates::rate_for).
[[nodiscard]] inline CreditGrant make_grant(std::uint64_t id, std::uint64_t length,
                                            std::uint64_t limit, std::uint32_t rate,
                                            std::uint32_t lifetime_field) {
  CreditGrant g;
  g.message_id = id;
  g.grant_limit = limit;
  g.pacing_rate = rate;
  g.lifetime = lifetime_field;
  if (limit == length) g.header.flags = flag::kFinal;
  if (id == 0) g.header.flags = flag::kPool;
  return g;
}

}  // namespace rdcc::ref
