// A set of octet offsets kept as disjoint half-open ranges [lo, hi), for loss recovery on the
// opaque data transport (docs/data-transport.md, "Loss recovery"): the receiver keeps the
// octets of each message it has received (each counted once) and names the ones missing in a
// NACK; the sender keeps the octets a NACK named until it has resent them. One unit with its
// own test (reference/test/range_set_test.cpp), as ngtcp2's gaptr.
#pragma once

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <optional>
#include <utility>
#include <vector>

namespace rdcc::ref {

struct OctetRange {
  std::uint64_t lo = 0;
  std::uint64_t hi = 0;  // exclusive
  friend bool operator==(const OctetRange&, const OctetRange&) = default;
};

class RangeSet {
 public:
  // Adds [lo, hi); returns the octets newly covered below `split` and at or above it (the
  // receiver's unscheduled window and the scheduled octets after it).
  std::pair<std::uint64_t, std::uint64_t> add(std::uint64_t lo, std::uint64_t hi,
                                              std::uint64_t split = 0) {
    std::uint64_t below = 0;
    std::uint64_t above = 0;
    if (lo >= hi) return {0, 0};
    const auto count_new = [&](std::uint64_t a, std::uint64_t b) {
      if (a >= b) return;
      const std::uint64_t mid = std::clamp(split, a, b);
      below += mid - a;
      above += b - mid;
    };
    auto it = ranges_.upper_bound(lo);
    if (it != ranges_.begin() && std::prev(it)->second >= lo) it = std::prev(it);
    std::uint64_t merged_lo = lo;
    std::uint64_t merged_hi = hi;
    std::uint64_t cursor = lo;
    while (it != ranges_.end() && it->first <= hi) {
      count_new(cursor, std::min(it->first, hi));  // the gap before this range is new
      cursor = std::max(cursor, it->second);
      merged_lo = std::min(merged_lo, it->first);
      merged_hi = std::max(merged_hi, it->second);
      it = ranges_.erase(it);
    }
    count_new(cursor, hi);
    ranges_[merged_lo] = merged_hi;
    covered_ += below + above;
    return {below, above};
  }

  // Removes [lo, hi).
  void remove(std::uint64_t lo, std::uint64_t hi) {
    if (lo >= hi) return;
    auto it = ranges_.upper_bound(lo);
    if (it != ranges_.begin() && std::prev(it)->second > lo) it = std::prev(it);
    while (it != ranges_.end() && it->first < hi) {
      const std::uint64_t a = it->first;
      const std::uint64_t b = it->second;
      it = ranges_.erase(it);
      covered_ -= b - a;
      if (a < lo) insert(a, lo);
      if (b > hi) insert(hi, b);
    }
  }

  // The ranges of [lo, hi) the set does not hold, lowest first, at most `max` of them.
  [[nodiscard]] std::vector<OctetRange> gaps(std::uint64_t lo, std::uint64_t hi,
                                             std::size_t max) const {
    std::vector<OctetRange> out;
    std::uint64_t cursor = lo;
    auto it = ranges_.upper_bound(lo);
    if (it != ranges_.begin() && std::prev(it)->second > lo) it = std::prev(it);
    for (; it != ranges_.end() && it->first < hi && out.size() < max; ++it) {
      if (it->first > cursor) out.push_back({cursor, it->first});
      cursor = std::max(cursor, it->second);
    }
    if (cursor < hi && out.size() < max) out.push_back({cursor, hi});
    return out;
  }

  // The lowest range, if any.
  [[nodiscard]] std::optional<OctetRange> first() const {
    if (ranges_.empty()) return std::nullopt;
    return OctetRange{ranges_.begin()->first, ranges_.begin()->second};
  }
  // One past the highest octet held (0 when empty).
  [[nodiscard]] std::uint64_t end() const {
    return ranges_.empty() ? 0 : std::prev(ranges_.end())->second;
  }
  [[nodiscard]] bool empty() const { return ranges_.empty(); }
  [[nodiscard]] std::uint64_t covered() const { return covered_; }
  [[nodiscard]] std::size_t size() const { return ranges_.size(); }
  void clear() {
    ranges_.clear();
    covered_ = 0;
  }

 private:
  void insert(std::uint64_t a, std::uint64_t b) {
    ranges_[a] = b;
    covered_ += b - a;
  }
  std::map<std::uint64_t, std::uint64_t> ranges_;  // start -> end, disjoint, not touching
  std::uint64_t covered_ = 0;
};

}  // namespace rdcc::ref
