// The receiver's caps (reference/src/receiver/security_considerations.hpp): "Security
// Considerations".
#include "receiver/security_considerations.hpp"

#include <gtest/gtest.h>

namespace rdcc::ref {
namespace {

TEST(SecurityCaps, AssociationCap_RefusesOnlyOnceItIsReached) {
  EXPECT_FALSE(at_association_cap(0, 1));
  EXPECT_FALSE(at_association_cap(99, 100));
  EXPECT_TRUE(at_association_cap(100, 100));
  EXPECT_TRUE(at_association_cap(0, 0));
}

TEST(SecurityCaps, PendingCap_RefusesOnlyOnceItIsReached) {
  EXPECT_FALSE(at_pending_cap(1023, 1024));
  EXPECT_TRUE(at_pending_cap(1024, 1024));
}

}  // namespace
}  // namespace rdcc::ref
