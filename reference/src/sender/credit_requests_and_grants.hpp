// "Credit Requests and Grants", rule 4, for the sender: the pacer that keeps every message (and
// every pool grant, and the traffic sent at line rate) within its Pacing Rate. The rest of the
// heading's sender rules (credit held, the request timeout, what may be sent and when) are in
// credit_requests_and_grants.cpp.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "rdcc/reference/bindings.hpp"
#include "rdcc/reference/time.hpp"

namespace rdcc::ref {

// The largest data segment: an opaque data packet must fit one UDP datagram (65507 octets of
// payload over IPv4) with its header.
inline constexpr std::uint64_t kMaxSegmentOctets = 65507 - kOpaqueHeaderSize;

// "Credit Requests and Grants", rule 4: "MUST NOT transmit the message faster than the Pacing
// Rate, averaged over any interval equal to the transmission time of ten Credit Units at that
// rate." The reading (docs/spec-notes.md, 71): the octets of the segments that start within
// any such interval never exceed ten Credit Units. The pacer is a virtual clock with that
// window as its bound:
//  - each segment is due the previous one's transmission time (at the current rate) after the
//    previous one was due: on time, that is strict spacing;
//  - when the driver comes back late for a segment poll_data held back (`held`: a timer wake-up
//    late on a loaded host), the segments that fell due meanwhile go at once, as far as the
//    window allows, and the clock keeps its schedule; lateness the window does not let it
//    make up is forgiven (the clock restarts where the window let the segment go), so one
//    late wake-up never leaves a train of bursts behind it;
//  - after idleness (nothing held back: no credit, no data) the clock restarts at the
//    segment's actual start: idle time earns nothing.
// The unit of the pacing window: a Credit Unit, but no more than one datagram's payload. A
// Credit Unit beyond a datagram (the "path MTU payload size" it should be) would let a late
// wake-up release ten of them, thousands of datagrams, at one instant; a shorter window is
// stricter than rule 4, never looser.
constexpr std::uint64_t pacing_unit(std::uint64_t cu) {
  return std::min(cu, kMaxSegmentOctets);
}

struct Pacer {
  std::optional<Time> last_due;  // when the previous segment was due on the virtual clock
  std::uint64_t last_len = 0;
  bool held = false;  // poll_data held a segment of this pacer back; the wake-up is for it
  // Actual starts within the window, oldest first: recent[first..]. A vector whose front is
  // dropped by moving `first` (a deque allocated two blocks for every pacer, even an idle
  // one; this allocates nothing until the first segment).
  std::vector<std::pair<Time, std::uint64_t>> recent;
  std::size_t first = 0;
  std::uint64_t recent_octets = 0;  // the sum of recent[first..]'s lengths

  // When a segment of `len` octets is due: the virtual clock, and the window's bound.
  // `spaced` false (SenderPolicy::space_segments): only the window bounds the segments.
  [[nodiscard]] Time ready(std::uint64_t rate, std::uint64_t cu, std::uint64_t len,
                           bool spaced = true) const {
    if (!last_due) return Time{};
    cu = pacing_unit(cu);
    Time t = spaced ? *last_due + transmission_time(last_len, rate) : Time{};
    const Duration window = transmission_time(10 * cu, rate);
    std::uint64_t sum = len + recent_octets;
    for (std::size_t i = first; i < recent.size(); ++i) {
      if (sum <= 10 * cu) break;
      sum -= recent[i].second;
      t = std::max(t, recent[i].first + window);  // it leaves the window (t - window, t]
    }
    return t;
  }
  // A segment due at `due` (ready() when it was planned, at most `now`) starts at `now`.
  void record(Time now, Time due, std::uint64_t len, std::uint64_t rate, std::uint64_t cu) {
    cu = pacing_unit(cu);
    const Duration window = transmission_time(10 * cu, rate);
    const Time start = held ? std::max(due, now - window) : now;
    last_due = start;
    last_len = len;
    held = held && start + transmission_time(len, rate) <= now;  // still behind: keep up
    if (recent.capacity() == 0) recent.reserve(16);  // a window holds about ten: one allocation
    recent.emplace_back(now, len);
    recent_octets += len;
    while (first < recent.size() && recent[first].first + window <= now) {
      recent_octets -= recent[first].second;
      ++first;
    }
    if (first == recent.size()) {
      recent.clear();
      first = 0;
    } else if (first >= 16 && 2 * first >= recent.size()) {
      recent.erase(recent.begin(), recent.begin() + static_cast<std::ptrdiff_t>(first));
      first = 0;
    }
  }
  // The segments recorded at `from` or later (the newest) left by `to`: the window counts
  // them from then (Sender::sent); they stay the newest, so the order holds.
  void restamp(Time from, Time to) {
    for (std::size_t i = recent.size(); i > first && recent[i - 1].first >= from; --i) {
      recent[i - 1].first = std::max(recent[i - 1].first, to);
    }
  }
};

}  // namespace rdcc::ref
