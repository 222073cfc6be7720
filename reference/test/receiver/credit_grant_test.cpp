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

}  // namespace
}  // namespace rdcc::ref
