// The step harnesses of rdcc/testing/steps.hpp on programs written with StepWriter: what the
// harness itself must get right (a false positive of the harness aborts the test binary).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "rdcc/testing/steps.hpp"

namespace rdcc::testing {
namespace {

using Tx = SenderHarness;

void run(Tx& harness, const StepWriter& w) {
  const std::vector<std::uint8_t>& octets = w.octets();
  StepInput in(octets.data() + 1, octets.size() - 1);  // octet 0 built the harness
  harness.run(in);
}

// Found by the CI smoke's fuzz_sender (regressions/fuzz_sender/message-id-of-another-receiver):
// Message IDs name a message "within an association", so each receiver's first message is
// Message ID 1. The harness kept one length per Message ID and held the 65536-octet message to
// receiver 0 to the 1-octet length of receiver 1's message 1.
TEST(SenderHarness, MessageIdsAreScopedByReceiverAndAssociation) {
  StepWriter w(0);
  w.op(Tx::kSubmit, {0, 7, 0x10, 2, 4});  // 65536 octets to receiver 0, scheduled
  w.op(Tx::kSubmit, {1, 1, 0x10, 2, 4});  // 1 octet to receiver 1, scheduled
  // ASSOC_ACCEPTs echoing each receiver's nonce (vocabulary 0 and 1); both assign Association
  // ID 1 in Epoch 1. Capabilities 7, U 8192, J 10 us, N_cu 65536, Lifetime 1 ms, CU 1024.
  w.op(Tx::kDatagram, {0, 1, 0, 0x07, 4, 2, 5, 4, 2, 0x2B});
  w.op(Tx::kDatagram, {1, 1, 1, 0x07, 4, 2, 5, 4, 2, 0x2B});
  // CREDIT_GRANT FINAL to receiver 0's message 1 for all 65536 octets, 100 Gbit/s.
  w.op(Tx::kDatagram, {0, 3, 1, 5, 5, 0, 0x2B | 0x80});
  for (int i = 0; i < 4; ++i) w.op(Tx::kRunTimers, {15});
  Tx harness(w.octets()[0]);
  run(harness, w);
  const auto& stats = harness.sender().stats();
  EXPECT_EQ(stats.associations_established, 2U);
  EXPECT_GE(stats.credit_requests_sent, 2U);
  EXPECT_EQ(stats.scheduled_octets, 65536U);  // receiver 0's message 1, all of it
  EXPECT_EQ(stats.invariant_violations, 0U);
}

}  // namespace
}  // namespace rdcc::testing
