// Data beyond the credit (reference/src/receiver/error_handling_and_recovery.hpp): "Error
// Handling and Recovery".
#include "receiver/error_handling_and_recovery.hpp"

#include <gtest/gtest.h>

#include <optional>

namespace rdcc::ref {
namespace {

TEST(BeyondCredit, CountsTheOctetsPastTheLimitHeld) {  // RDCC-ERR-01..03
  EXPECT_EQ(beyond_credit(16384, 16384, 4096, true), std::nullopt);
  EXPECT_EQ(beyond_credit(16384, 18000, 4096, true), 18000U - 16384U);
  EXPECT_EQ(beyond_credit(0, 100000, 4096, true), 4096U);             // at most the observation's
  EXPECT_EQ(beyond_credit(16384, 18000, 0, true), 0U);                // beyond, with no octet
  EXPECT_EQ(beyond_credit(16384, 18000, 4096, false), std::nullopt);  // no scheduled octet
}

}  // namespace
}  // namespace rdcc::ref
