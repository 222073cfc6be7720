// A non-blocking UDP socket with batched I/O (recvmmsg/sendmmsg) and the IP TOS / IPv6 Traffic
// Class of every datagram: set per packet on transmission (DSCP and ECN, as ancillary data),
// read on receipt (IP_RECVTOS / IPV6_RECVTCLASS), so a receiver sees DSCP and ECN CE.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "rdcc/reference/address.hpp"

namespace rdcc::udp {

using ref::Address;

inline constexpr std::size_t kBatch = 64;           // datagrams per recvmmsg/sendmmsg call
inline constexpr std::size_t kMaxDatagram = 65536;  // octets a received datagram may hold
inline constexpr std::size_t kBatchesPerTurn = 4;   // batches read per readable event

// The IP TOS octet: DSCP in the upper six bits, ECN in the lower two.
[[nodiscard]] constexpr std::uint8_t tos(std::uint8_t dscp, std::uint8_t ecn) {
  return static_cast<std::uint8_t>((static_cast<unsigned>(dscp) << 2U) | (ecn & 3U));
}
[[nodiscard]] constexpr std::uint8_t dscp_of(std::uint8_t tos_octet) {
  return static_cast<std::uint8_t>(static_cast<unsigned>(tos_octet) >> 2U);
}
[[nodiscard]] constexpr std::uint8_t ecn_of(std::uint8_t tos_octet) {
  return static_cast<std::uint8_t>(static_cast<unsigned>(tos_octet) & 3U);
}

struct OutPacket {
  Address to;
  std::uint8_t tos = 0;
  std::span<const std::byte> bytes;
};

struct InPacket {
  Address from;
  std::uint8_t tos = 0;              // as received (0 if the kernel gave none)
  std::span<const std::byte> bytes;  // valid until the next receive()
  // When the kernel took the datagram in (CLOCK_REALTIME, ns), after timestamp_receipts(); 0
  // otherwise. On loopback that is within the sender's own send call.
  std::int64_t kernel_time_ns = 0;
};

struct SocketStats {
  std::uint64_t datagrams_sent = 0;
  std::uint64_t datagrams_received = 0;
  std::uint64_t send_failures = 0;  // dropped: the socket buffer was full or the kernel refused
  std::uint64_t truncated = 0;      // received datagrams larger than kMaxDatagram
};

class UdpSocket {
 public:
  // Binds to `local` (port 0: an ephemeral port). Throws std::system_error naming the address.
  explicit UdpSocket(const Address& local);
  ~UdpSocket();
  UdpSocket(const UdpSocket&) = delete;
  UdpSocket& operator=(const UdpSocket&) = delete;
  UdpSocket(UdpSocket&& o) noexcept;
  UdpSocket& operator=(UdpSocket&& o) noexcept;

  [[nodiscard]] int fd() const { return fd_; }
  [[nodiscard]] const Address& local() const { return local_; }
  [[nodiscard]] bool ipv6() const { return local_.ipv6; }
  // Asks the kernel for the time each datagram arrived (SO_TIMESTAMPNS): an observer that
  // judges the peer's timing must not count its own scheduling delay.
  void timestamp_receipts();

  // Sends every packet (in batches of kBatch); packets the kernel refuses are counted in
  // send_failures and dropped, as a full interface queue would drop them.
  void send(std::span<const OutPacket> packets);
  // Receives up to kBatch datagrams without blocking; empty when none is waiting.
  [[nodiscard]] std::span<const InPacket> receive();
  // What a readable socket gives in one turn of the event loop: `handle(batch)` for each batch
  // received, at most kBatchesPerTurn of them. The loop is level-triggered, so what is left is
  // reported again on the next turn, after the other descriptors (data, timers, signals, the
  // upper tester) had theirs: a node flooded on one socket does not starve the rest (a
  // receiver busy with retransmitted requests still reads the data that would finish them).
  template <class Handle>
  void receive_turn(Handle&& handle) {
    for (std::size_t i = 0; i < kBatchesPerTurn; ++i) {
      const std::span<const InPacket> batch = receive();
      if (batch.empty()) return;
      handle(batch);
    }
  }

  [[nodiscard]] const SocketStats& stats() const { return stats_; }

 private:
  void close_fd();
  int fd_ = -1;
  Address local_;
  SocketStats stats_;
  std::unique_ptr<std::byte[]> rx_buffers_;  // kBatch datagrams of kMaxDatagram octets
  std::vector<InPacket> rx_packets_;
};

// A UDP port that is free on `ip` now (bind to port 0, read it, close): for tests.
[[nodiscard]] std::uint16_t pick_free_port(const Address& ip);

}  // namespace rdcc::udp
