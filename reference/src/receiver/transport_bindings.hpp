// The receiver's rules of "Transport Bindings": arriving data, related to its message through
// the message's transport binding, and counted.
//
// "The receiver relates arriving data to messages through a transport binding (): each
// CREDIT_REQUEST names the transport-level identity of the message, so that the receiver can
// count the octets received for it from the information its transport already provides"
// ("Architecture"). BindingIndex finds the message; count_opaque and count_in_order count its
// octets (RDCC-BIND-01 for RoCEv2's per-queue-pair counters). Data that overtakes its
// CREDIT_REQUEST: EarlyData (docs/spec-notes.md, 69). Data beyond the credit is "Error Handling
// and Recovery" (error_handling_and_recovery.hpp, beyond_credit), the message complete "Credit
// Requests and Grants" (credit_requests_and_grants.hpp, received_all).
//
// What the receiver does with arriving data (the credit released, the grant pass) is its rule
// code in transport_bindings.cpp. Unit tests: reference/test/receiver/transport_bindings_test.cpp.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "rdcc/reference/io.hpp"
#include "rdcc/reference/range_set.hpp"
#include "receiver_credit_budget.hpp"

namespace rdcc::ref {

// What one observation adds to a message: octets inside its unscheduled window (`below`),
// above it (`above`), and octets it had already counted (`duplicate`).
struct Receipt {
  std::uint64_t below = 0;
  std::uint64_t above = 0;
  std::uint64_t duplicate = 0;
};

// The opaque binding's data carries offsets: each octet is counted once, wherever it lies
// ("If the data transport retransmits octets already transmitted, those octets remain within
// the existing Grant Limit, because the receiver has not counted them as received", "Sender
// Message State Machine"). Octets beyond the message length are not the message's.
[[nodiscard]] inline Receipt count_opaque(RangeSet& ranges, const MessageCredit& m,
                                          std::uint64_t offset, std::uint32_t octets) {
  Receipt r;
  const std::uint64_t hi = std::min<std::uint64_t>(offset + octets, m.length);
  if (offset >= hi) return r;
  std::tie(r.below, r.above) = ranges.add(offset, hi, m.window);
  r.duplicate = hi - offset - r.below - r.above;
  return r;
}

// RoCEv2's per-queue-pair counters say how many octets arrived, not where (RDCC-BIND-01: "The
// receiver MUST be able to count the payload octets received on the queue pair"). A queue
// pair delivers in order: the unscheduled octets still in flight come first, then scheduled
// ones, up to the message length.
[[nodiscard]] inline Receipt count_in_order(const MessageCredit& m, std::uint32_t octets) {
  Receipt r;
  const std::uint64_t fresh = std::min<std::uint64_t>(octets, m.length - m.received());
  r.below = std::min(fresh, m.unsched_in_flight());
  r.above = fresh - r.below;
  return r;
}

// An association's messages by transport identity: an opaque Binding Value names one message;
// a RoCEv2 queue pair carries its messages one after the other, oldest (lowest Message ID)
// first. Keyed by binding: an opaque identifier and a queue pair number of the same value are
// unrelated.
class BindingIndex {
 public:
  void add_opaque(std::uint64_t binding_value, std::uint64_t message) {
    by_value_[binding_value] = message;
  }
  void add_queue_pair(std::uint32_t qpn, std::uint64_t message) { by_qpn_[qpn].insert(message); }
  // Only the message a binding value names now is unbound (a later message may have taken it).
  void remove_opaque(std::uint64_t binding_value, std::uint64_t message) {
    if (auto it = by_value_.find(binding_value); it != by_value_.end() && it->second == message) {
      by_value_.erase(it);
    }
  }
  void remove_queue_pair(std::uint32_t qpn, std::uint64_t message) {
    if (auto q = by_qpn_.find(qpn); q != by_qpn_.end()) {
      q->second.erase(message);
      if (q->second.empty()) by_qpn_.erase(q);
    }
  }

  // The message data with opaque `binding_value` belongs to, if any.
  [[nodiscard]] const std::uint64_t* opaque(std::uint64_t binding_value) const {
    auto it = by_value_.find(binding_value);
    return it == by_value_.end() ? nullptr : &it->second;
  }
  // The message a queue pair's octets count for: its oldest one that `counting(id)` (still
  // counts octets). `match_queue_pair` is the policy's rule hook: when false, the queue pair
  // is not looked at, and the oldest such message of any queue pair is taken.
  template <class Counting>
  [[nodiscard]] const std::uint64_t* queue_pair(std::uint32_t qpn, bool match_queue_pair,
                                                Counting&& counting) const {
    if (!match_queue_pair) {
      const std::uint64_t* oldest = nullptr;
      for (const auto& [q, ids] : by_qpn_) {
        for (const std::uint64_t& id : ids) {
          if (counting(id) && (oldest == nullptr || id < *oldest)) oldest = &id;
        }
      }
      return oldest;
    }
    auto q = by_qpn_.find(qpn);
    if (q == by_qpn_.end()) return nullptr;
    for (const std::uint64_t& id : q->second) {
      if (counting(id)) return &id;
    }
    return nullptr;
  }

 private:
  std::unordered_map<std::uint64_t, std::uint64_t> by_value_;  // opaque binding value -> message
  std::map<std::uint32_t, std::set<std::uint64_t>> by_qpn_;    // RoCEv2 QPN -> messages
};

// Octets that arrived before the CREDIT_REQUEST of their message, by (binding, opaque binding
// value or RoCEv2 QPN). Unscheduled data may overtake its request ("no later than the first
// data packet" does not survive reordering); they are credited when it comes, up to the
// unscheduled window it announces (docs/spec-notes.md, 69). At most kLimit octets are kept per
// identity, and at most kIdentities identities, the oldest forgotten first (spec-notes 119):
// data of a message already finished and forgotten (a resend that crossed its MSG_DONE) also
// lands here, and no request ever takes it.
class EarlyData {
 public:
  static constexpr std::uint64_t kLimit = 1U << 20U;
  // "MUST NOT have more than one unscheduled message outstanding on an association": the data
  // that may rightly precede its request is of a message or two; the rest is stray.
  static constexpr std::size_t kIdentities = 64;

  void add(BindingKind binding, std::uint64_t key, std::uint32_t octets) {
    auto [it, added] = kept_.try_emplace({binding, key}, Kept{0, next_});
    if (it->second.octets < kLimit) it->second.octets += octets;
    if (!added) return;
    order_.push_back({it->first, next_++});
    while (kept_.size() > kIdentities) {
      forget(order_.front());
      order_.pop_front();
    }
    if (order_.size() > 2 * kIdentities) {
      // An identity taken leaves its place behind (and one taken and come again, its first
      // place): drop the places that no longer name what is kept.
      std::erase_if(order_, [this](const Place& p) { return !names_kept(p); });
    }
  }
  // The octets kept for `key` (none: nothing arrived for it), which are then forgotten.
  [[nodiscard]] std::optional<std::uint64_t> take(BindingKind binding, std::uint64_t key) {
    auto it = kept_.find({binding, key});
    if (it == kept_.end()) return std::nullopt;
    const std::uint64_t octets = it->second.octets;
    kept_.erase(it);
    return octets;
  }
  [[nodiscard]] std::size_t identities() const { return kept_.size(); }
  // The places kept for the order of arrival, taken identities' among them until dropped.
  [[nodiscard]] std::size_t order_places() const { return order_.size(); }

 private:
  using Key = std::pair<BindingKind, std::uint64_t>;
  struct Kept {
    std::uint64_t octets = 0;
    std::uint64_t arrival = 0;  // which add() first kept it
  };
  struct Place {
    Key key;
    std::uint64_t arrival = 0;
  };
  [[nodiscard]] bool names_kept(const Place& p) const {
    auto it = kept_.find(p.key);
    return it != kept_.end() && it->second.arrival == p.arrival;
  }
  void forget(const Place& p) {
    if (names_kept(p)) kept_.erase(p.key);
  }
  std::map<Key, Kept> kept_;
  std::deque<Place> order_;  // by first arrival
  std::uint64_t next_ = 0;
};

}  // namespace rdcc::ref
