// A sequence of steps fed to one reference Sender (rdcc/testing/steps.hpp): the application's
// submit / cancel / return_credit, link pauses, datagrams from two receivers, a CRN and a
// stranger (built through the codec, corrupted or raw), timers and time steps. After every step
// poll_transmit() and poll_data() are drained and everything goes through the
// InvariantChecker (every octet under a live grant or the unscheduled window of an announced
// message no larger than U, pacing, Sequence Numbers); the harness also checks that the sender
// answers no malformed datagram and no stranger, talks only to receivers it was given, never
// sends beyond a message's length, falls back to no RDCC only after eight unanswered
// ASSOC_REQUESTs, and never counts an invariant violation of its own.
#include "rdcc/testing/steps.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  rdcc::testing::StepInput in(data, size);
  rdcc::testing::SenderHarness harness(in.u8());
  harness.run(in);
  return 0;
}
