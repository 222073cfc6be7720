// The receiver's grant scheduler: "Credit Allocation", which message gets credit next.
//
// "Credit that becomes available is distributed among waiting messages by Traffic Class first
// (lower class number first) and by weight within a class. A receiver SHOULD give precedence
// to messages with an earlier deadline when deadlines are present." ("Traffic Classes and Pool
// Credit": "A receiver that uses per-message grants applies the same precedence".)
//
// The grant queue holds the messages that want credit, in that order: class, then messages
// with a deadline (earliest first) before those without, then stride scheduling within the
// class (a message's pass advances by the credit it is granted divided by its weight, so that
// the credit of a class is shared in proportion to the weights), then association and Message
// ID. Whether a message is in the queue and how much it is granted are the receiver's rule
// code (the budget, the link's rate); this is the order. Unit tests:
// reference/test/grant_scheduler_test.cpp.
#pragma once

#include <compare>
#include <cstdint>
#include <limits>
#include <set>

namespace rdcc::ref {

struct GrantOrder {
  std::uint8_t traffic_class = 0;
  bool no_deadline = true;
  std::int64_t deadline = 0;  // ns, when there is one
  std::uint64_t pass = 0;
  std::uint32_t association = 0;
  std::uint64_t message = 0;
  friend auto operator<=>(const GrantOrder&, const GrantOrder&) = default;
};

class GrantQueue {
 public:
  // The pass unit of the weighted round robin.
  static constexpr std::uint64_t kStride = 1ULL << 16U;

  void insert(const GrantOrder& o) { queue_.insert(o); }
  void erase(const GrantOrder& o) { queue_.erase(o); }
  [[nodiscard]] bool empty() const { return queue_.empty(); }
  [[nodiscard]] std::size_t size() const { return queue_.size(); }
  // The message served next.
  [[nodiscard]] const GrantOrder& top() const { return *queue_.begin(); }

  // Stride scheduling: a new message starts at the smallest pass of its class in the queue
  // (0 when the class has none), so it neither jumps ahead of nor waits behind the others.
  [[nodiscard]] std::uint64_t class_pass(std::uint8_t traffic_class) const {
    auto it = queue_.lower_bound(
        GrantOrder{traffic_class, false, std::numeric_limits<std::int64_t>::min(), 0, 0, 0});
    if (it != queue_.end() && it->traffic_class == traffic_class) return it->pass;
    return 0;
  }
  // The pass of a message of `weight` after it is granted `octets` more credit.
  [[nodiscard]] static std::uint64_t advance(std::uint64_t pass, std::uint64_t octets,
                                             std::uint8_t weight) {
    return pass + octets * kStride / weight;
  }

 private:
  std::set<GrantOrder> queue_;
};

}  // namespace rdcc::ref
