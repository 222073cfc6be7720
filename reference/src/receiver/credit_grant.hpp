// The receiver's rules of "CREDIT_GRANT": the fields of a grant (FINAL, POOL, Lifetime; a
// Pacing Rate that is never zero, LinkRates::rate_for) and how long it lasts. The codec encodes
// it (codec/src/codec.cpp). Unit tests: reference/test/receiver/credit_grant_test.cpp.
#pragma once

#include <cstdint>

#include "rdcc/codec/codec.hpp"
#include "rdcc/reference/time.hpp"

namespace rdcc::ref {

// The Lifetime a grant lasts: its Lifetime field (`field_us`, the policy's choice) or, zero,
// "the default Grant Lifetime of the association" (CREDIT_GRANT).
[[nodiscard]] inline Duration grant_lifetime(std::uint32_t field_us, std::uint32_t default_us) {
  return microseconds(field_us != 0 ? field_us : default_us);
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
