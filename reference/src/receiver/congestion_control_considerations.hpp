// The receiver's rules of "Congestion Control Considerations": the circuit breaker.
// CircuitBreaker counts unscheduled octets announced and lost over a loss window and says when
// U must go to zero and when it may come back; when the window ends and what then happens to U
// is the receiver's rule code, congestion_control_considerations.cpp. Unit tests:
// reference/test/receiver/congestion_control_considerations_test.cpp.
#pragma once

#include <cstdint>

namespace rdcc::ref {

// "a receiver that observes a loss rate of unscheduled data above a configured threshold
// (RECOMMENDED: one percent over one second) MUST set U to zero for all associations until the
// loss rate falls below one tenth of the threshold."
class CircuitBreaker {
 public:
  enum class Change : std::uint8_t { None, Tripped, Cleared };

  void announced(std::uint64_t octets) { announced_ += octets; }
  // Unscheduled octets whose reservation lapsed without their arrival.
  void lost(std::uint64_t octets) { lost_ += octets; }
  [[nodiscard]] bool tripped() const { return tripped_; }
  // The loss rate of the window so far.
  [[nodiscard]] double loss_rate() const {
    return announced_ == 0 ? 0.0 : static_cast<double>(lost_) / static_cast<double>(announced_);
  }
  // The loss window ends: whether the breaker trips or clears; the next window starts empty.
  Change end_window(double threshold) {
    const double loss = loss_rate();
    announced_ = lost_ = 0;
    if (!tripped_ && loss > threshold) {
      tripped_ = true;
      return Change::Tripped;
    }
    if (tripped_ && loss < threshold / 10) {
      tripped_ = false;
      return Change::Cleared;
    }
    return Change::None;
  }

 private:
  bool tripped_ = false;
  std::uint64_t announced_ = 0;
  std::uint64_t lost_ = 0;
};

}  // namespace rdcc::ref
