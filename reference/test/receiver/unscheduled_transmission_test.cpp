// When the unscheduled reservation of a message is released
// (reference/src/receiver/unscheduled_transmission.hpp): "Unscheduled Transmission".
#include "receiver/unscheduled_transmission.hpp"

#include <gtest/gtest.h>

namespace rdcc::ref {
namespace {

// "or when J plus the default Grant Lifetime plus 2 * D_max has elapsed after it received the
// CREDIT_REQUEST"
TEST(UnscheduledRelease, IsJPlusTheDefaultLifetimePlusTwiceDmaxAfterTheRequest) {
  const Time requested = Time{} + milliseconds(1);
  EXPECT_EQ(unscheduled_release_at(requested, microseconds(5), microseconds(100), microseconds(20)),
            requested + microseconds(145));
}

}  // namespace
}  // namespace rdcc::ref
