// A sequence of steps fed to one reference Receiver (rdcc/testing/steps.hpp): datagrams from
// three peers and a CRN, built through the codec from the input or corrupted or raw; data
// observations; time steps with the driver's loop. After every step everything the receiver
// sent and got goes through the InvariantChecker (budget G, grants never beyond the length
// nor reduced, FINAL, Pacing Rate, MSG_DONE only after every octet), and the harness checks
// outstanding_credit() <= G, that every datagram it sends decodes and carries its Epoch, and
// that it replies only where the spec allows: to the address an association was accepted
// from, ERROR (UNKNOWN_ASSOCIATION) only to a CREDIT_REQUEST's source, ERROR
// (UNSUPPORTED_TYPE) only at an established association's bound address, and nothing to a
// datagram that does not decode otherwise.
#include "rdcc/testing/steps.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  rdcc::testing::StepInput in(data, size);
  rdcc::testing::ReceiverHarness harness(in.u8());
  harness.run(in);
  return 0;
}
