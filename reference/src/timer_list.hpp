// The armed timers of an endpoint, the next one last: a vector kept in order (latest first),
// so that firing is a pop_back and arming scans from the back over the few timers due sooner.
// Timers due at the same time fire in the order they were armed (a std::priority_queue left
// that to the layout of its heap, whose out-of-line sift loops were a fifth of the receiver
// fuzz harness's instructions). `T` is the endpoint's timer, with its due time in `at`.
// Arming is linear in the number of timers armed: it serves few timers (the
// receiver's, the CRN's flows reported within one interval), not millions armed in time order
// (the invariant checker's ExpiryQueue keeps those).
// Private to the reference endpoints; reference/test/timer_list_test.cpp tests it.
#pragma once

#include <cstddef>
#include <vector>

namespace rdcc::ref {

template <class T>
class TimerList {
 public:
  void reserve(std::size_t n) { timers_.reserve(n); }
  void arm(const T& t) {
    std::size_t i = timers_.size();
    while (i > 0 && timers_[i - 1].at <= t.at) --i;
    timers_.insert(timers_.begin() + static_cast<std::ptrdiff_t>(i), t);
  }
  [[nodiscard]] bool empty() const { return timers_.empty(); }
  [[nodiscard]] std::size_t size() const { return timers_.size(); }
  // The timer due first (of those due together, the one armed first).
  [[nodiscard]] const T& next() const { return timers_.back(); }
  void pop() { timers_.pop_back(); }

 private:
  std::vector<T> timers_;
};

}  // namespace rdcc::ref
