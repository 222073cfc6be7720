// What crosses the boundary of a sans-IO endpoint, in both directions (ARCHITECTURE.md):
//
//   endpoint.on_control(from, bytes, now)   an RDCC datagram arrived
//   endpoint.on_data(observation, now)      the data transport counted octets
//   endpoint.on_timeout(now)                the time from next_timeout() has come
//   endpoint.poll_transmit() -> Datagram     control messages to send
//   sender.poll_data(now) -> DataSegment     octets it may put on the data transport now
//   receiver.poll_nack() -> DataNack         opaque transport: octets missing, to resend
//   sender.on_nack(from, nack, now)          opaque transport: a receiver's NACK arrived
//
// The loop, documented once: after any on_* call, drain poll_transmit() (and a sender's
// poll_data()) until empty, then re-arm the timer from next_timeout(). A spurious
// on_timeout() is a no-op. A driver whose sends may leave later than it polled them (a real
// host) tells a sender when they did: sender.sent(at) (SenderConfig::reports_sends).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "rdcc/codec/constants.hpp"
#include "rdcc/reference/address.hpp"
#include "rdcc/reference/range_set.hpp"
#include "rdcc/reference/time.hpp"

namespace rdcc::ref {

// An RDCC control datagram to send.
struct Datagram {
  Address to;
  std::uint8_t dscp = 0;  // the DSCP configured for control messages
  std::array<std::byte, kMaxMessageSize> bytes{};
  std::uint16_t size = 0;
  [[nodiscard]] std::span<const std::byte> payload() const { return {bytes.data(), size}; }
};

// A run of octets of one message that a sender may put on the data transport now. The
// transport binding turns it into packets (docs/data-transport.md for the opaque binding).
struct DataSegment {
  Address receiver;                  // the receiver's RDCC address (the binding maps it to data)
  std::uint32_t association_id = 0;  // 0: sent without RDCC (no association was accepted)
  std::uint64_t message_id = 0;
  std::uint64_t offset = 0;  // octet offset within the message
  std::uint32_t length = 0;  // at most one Credit Unit
  std::uint8_t dscp = 0;     // per Traffic Class, or the unscheduled DSCP
  bool unscheduled = false;
  std::uint8_t traffic_class = 0;
  BindingKind binding = BindingKind::Opaque;
  std::uint64_t binding_value = 0;
  bool last = false;  // the segment ends the message
  // Loss recovery on the opaque transport (docs/data-transport.md, "Loss recovery"): the sender
  // resends the octets a NACK names (the binding says so in every packet), and this segment
  // is such a resend, of octets below what the message had transmitted.
  bool recovers = false;
  bool resend = false;
};

// What a receiver's transport binding counted for arriving data.
struct DataObservation {
  Address from;  // the sender's RDCC address (the binding maps data to it)
  BindingKind binding = BindingKind::Opaque;
  std::uint64_t key = 0;          // opaque: the binding value; RoCEv2: the destination QPN
  std::uint64_t offset = 0;       // opaque only: octet offset within the message
  std::uint32_t octets = 0;       // payload octets counted
  bool ce = false;                // ECN Congestion Experienced
  bool unscheduled_dscp = false;  // arrived with the unscheduled DSCP
  std::optional<Duration> rtt;    // a transport RTT sample, where the transport has one
  bool recovers = false;          // opaque only: its sender resends what a NACK names
};

// Opaque transport loss recovery (docs/data-transport.md, "Loss recovery"): the octet ranges
// of one message that a receiver has not received and asks its sender to resend. The binding
// carries it in one packet to the sender's RDCC address.
struct DataNack {
  Address to;                      // the sender's RDCC address
  std::uint64_t key = 0;           // the message's Binding Value
  std::vector<OctetRange> ranges;  // lowest first, disjoint
};

}  // namespace rdcc::ref
