// The datagrams an endpoint has queued for poll_transmit() (io.hpp), oldest first. A vector
// read out from `next_` and emptied once read out, so its storage serves the next datagrams:
// a deque took a node, an allocation, per Datagram (the fuzz harnesses' largest cost after
// the sanitizers). Private to the reference endpoints.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "rdcc/codec/codec.hpp"
#include "rdcc/reference/io.hpp"

namespace rdcc::ref {

class TransmitQueue {
 public:
  void reserve(std::size_t n) { items_.reserve(n); }
  // m, encoded in place into a new datagram to `to` (a message the endpoint built always
  // encodes).
  void push(const Address& to, std::uint8_t dscp, const Message& m) {
    Datagram& d = items_.emplace_back();
    d.to = to;
    d.dscp = dscp;
    const auto written = encode(m, d.bytes);
    assert(written.has_value());
    d.size = static_cast<std::uint16_t>(written.value());
  }
  // m as the endpoint's policy rewrites it (policy.hpp, rewrite_outgoing: the deliberate
  // faults that only change what goes on the wire), then queued. The endpoint reports what
  // it sent from the rewritten `m`.
  template <class Policy>
  void push(const Address& to, std::uint8_t dscp, Message& m, const Policy& policy) {
    policy.rewrite_outgoing(m);
    push(to, dscp, m);
  }
  [[nodiscard]] std::optional<Datagram> pop() {
    if (next_ == items_.size()) return std::nullopt;
    Datagram d = items_[next_++];  // trivially copyable: a move is a copy
    if (next_ == items_.size()) {
      items_.clear();
      next_ = 0;
    }
    return d;
  }

 private:
  std::vector<Datagram> items_;
  std::size_t next_ = 0;
};

}  // namespace rdcc::ref
