// The fields and Lifetime of a grant (reference/src/receiver/credit_grant.hpp): "CREDIT_GRANT".
#include "receiver/credit_grant.hpp"

#include <gtest/gtest.h>

namespace rdcc::ref {
namespace {

TEST(GrantFields, MakeGrant_SetsFinalAtTheLengthAndPoolForIdZero) {
  const CreditGrant g = make_grant(0x101, 4U << 20U, 262144, 100000, 0);
  EXPECT_EQ(g.message_id, 0x101U);
  EXPECT_EQ(g.grant_limit, 262144U);
  EXPECT_EQ(g.pacing_rate, 100000U);
  EXPECT_EQ(g.lifetime, 0U);  // "Lifetime zero means the default Grant Lifetime"
  EXPECT_FALSE(g.final());
  EXPECT_TRUE(make_grant(0x101, 4U << 20U, 4U << 20U, 60000, 2000).final());  // RDCC-GRANT-12
  const CreditGrant pool = make_grant(0, 0, 0, 1000, 0);
  EXPECT_TRUE(pool.pool());  // RDCC-GRANT-14
  EXPECT_FALSE(pool.final());
}

TEST(GrantFields, GrantLifetime_IsTheFieldOrTheAssociationsDefault) {
  EXPECT_EQ(grant_lifetime(0, 1000), microseconds(1000));
  EXPECT_EQ(grant_lifetime(250, 1000), microseconds(250));
}

// docs/spec-notes.md 131: a grant lives at least the transmission time of ten Credit Units at
// its Pacing Rate, the interval rule 4 averages the rate over.
TEST(GrantFields, PacedLifetime_CoversTenCreditUnitsAtTheRate) {
  // 10 x 8192 octets at 100 Gbit/s take 6.6 us: a 2000 us Lifetime already covers them.
  EXPECT_EQ(paced_lifetime_field(2000, 1000, 100000, 8192), 2000U);
  // ... and the field 0 (the association's default, 1000 us) stays 0.
  EXPECT_EQ(paced_lifetime_field(0, 1000, 100000, 8192), 0U);
  // At 3 Mbit/s ten Credit Units take 218,454 us (rounded up): a 5 ms Lifetime is lengthened.
  EXPECT_EQ(paced_lifetime_field(5000, 5000, 3, 8192), 218454U);
  EXPECT_EQ(paced_lifetime_field(0, 5000, 3, 8192), 218454U);
  EXPECT_GE(grant_lifetime(paced_lifetime_field(5000, 5000, 3, 8192), 5000),
            transmission_time(10 * 8192, 3));
  // At 1 Mbit/s (655 ms) and below, at most kMaxPacedLifetimeUs.
  EXPECT_EQ(paced_lifetime_field(5000, 5000, 1, 65536), kMaxPacedLifetimeUs);
}

}  // namespace
}  // namespace rdcc::ref
