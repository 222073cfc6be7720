// Pacer (reference/src/sender/credit_requests_and_grants.hpp): "Credit Requests and Grants",
// rule 4, "MUST NOT transmit the message faster than the Pacing Rate, averaged over any interval
// equal to the transmission time of ten Credit Units at that rate" (docs/spec-notes.md, 71).
#include "sender/credit_requests_and_grants.hpp"

#include <gtest/gtest.h>

#include "rdcc/reference/time.hpp"

namespace rdcc::ref {
namespace {

constexpr std::uint64_t kRate = 1000;  // Mbit/s: 500 octets take 4 us
constexpr std::uint64_t kCu = 1000;
const Time kT0 = Time{} + microseconds(100);

TEST(Pacer, Idle_FirstSegmentIsReadyAtOnce) {
  const Pacer p;
  EXPECT_EQ(p.ready(kRate, kCu, 500), Time{});
}

TEST(Pacer, OnTime_EachSegmentIsDueThePreviousOnesTransmissionTimeAfterIt) {
  Pacer p;
  p.record(kT0, kT0, 500, kRate, kCu);
  EXPECT_EQ(p.ready(kRate, kCu, 500), kT0 + transmission_time(500, kRate));
}

TEST(Pacer, Unspaced_NoMoreThanTenCreditUnitsStartWithinTheirTransmissionTime) {
  Pacer p;
  for (int i = 0; i < 10; ++i) p.record(kT0, kT0, kCu, kRate, kCu);
  EXPECT_EQ(p.ready(kRate, kCu, 1, false), kT0 + transmission_time(10 * kCu, kRate));
}

TEST(Pacer, AfterIdleness_TheClockRestartsAtTheActualStart) {
  Pacer p;
  p.record(kT0, kT0, 500, kRate, kCu);
  const Time later = kT0 + milliseconds(1);
  p.record(later, p.ready(kRate, kCu, 500), 500, kRate, kCu);
  EXPECT_EQ(p.ready(kRate, kCu, 500), later + transmission_time(500, kRate));
}

TEST(Pacer, HeldBack_ALateWakeUpKeepsTheSchedule) {
  Pacer p;
  p.record(kT0, kT0, 500, kRate, kCu);
  const Time due = p.ready(kRate, kCu, 500);
  p.held = true;
  const Time late = due + transmission_time(1500, kRate);  // three segments late
  p.record(late, due, 500, kRate, kCu);
  EXPECT_TRUE(p.held);  // still behind: the next segment goes at once too
  EXPECT_EQ(p.ready(kRate, kCu, 500), due + transmission_time(500, kRate));
}

TEST(Pacer, HeldBack_LatenessBeyondTheWindowIsForgiven) {
  Pacer p;
  p.record(kT0, kT0, 500, kRate, kCu);
  const Time due = p.ready(kRate, kCu, 500);
  p.held = true;
  const Time late = due + milliseconds(1);
  p.record(late, due, 500, kRate, kCu);
  const Duration window = transmission_time(10 * kCu, kRate);
  EXPECT_EQ(p.ready(kRate, kCu, 500), late - window + transmission_time(500, kRate));
}

TEST(Pacer, Restamped_TheWindowCountsSegmentsFromWhenTheyLeft) {
  Pacer p;
  for (int i = 0; i < 10; ++i) p.record(kT0, kT0, kCu, kRate, kCu);
  const Time left = kT0 + milliseconds(1);
  p.restamp(kT0, left);
  EXPECT_EQ(p.ready(kRate, kCu, 1, false), left + transmission_time(10 * kCu, kRate));
}

TEST(Pacer, Restamped_OlderSegmentsKeepTheirTimes) {
  Pacer p;
  p.record(kT0, kT0, 5 * kCu, kRate, kCu);
  const Time later = kT0 + microseconds(10);
  p.record(later, later, 5 * kCu, kRate, kCu);
  p.restamp(later, later + microseconds(5));
  // The first five Credit Units leave the window at kT0 + window; one octet more may go then.
  EXPECT_EQ(p.ready(kRate, kCu, 1, false), kT0 + transmission_time(10 * kCu, kRate));
}

TEST(Pacer, CreditUnitBeyondADatagram_TheWindowCountsDatagrams) {
  EXPECT_EQ(pacing_unit(1U << 20U), kMaxSegmentOctets);
  EXPECT_EQ(pacing_unit(kCu), kCu);
}

}  // namespace
}  // namespace rdcc::ref
