// The final status of the sender's retired messages (Sender::status), bounded: a generic
// store, not a rule of the spec.
#pragma once

#include <cstddef>
#include <deque>
#include <optional>
#include <unordered_map>

#include "rdcc/reference/sender.hpp"

namespace rdcc::ref {

// The final status of retired messages, for status(): the `capacity` most recently finished
// (SenderConfig::finished_status_capacity); the oldest is forgotten first.
class FinishedStore {
 public:
  explicit FinishedStore(std::size_t capacity) : capacity_(capacity) {}
  void add(const MessageStatus& st) {
    if (capacity_ == 0) return;
    if (order_.size() == capacity_) {
      by_handle_.erase(order_.front());
      order_.pop_front();
    }
    by_handle_.emplace(st.handle, st);
    order_.push_back(st.handle);
  }
  [[nodiscard]] std::optional<MessageStatus> find(MessageHandle h) const {
    auto it = by_handle_.find(h);
    if (it == by_handle_.end()) return std::nullopt;
    return it->second;
  }

 private:
  std::size_t capacity_;
  std::unordered_map<MessageHandle, MessageStatus> by_handle_;
  std::deque<MessageHandle> order_;  // oldest finished first
};

}  // namespace rdcc::ref
