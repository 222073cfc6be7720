// Reading and writing classic pcap files (libpcap, microsecond stamps; Ethernet unless the
// writer is given another link type).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace rdcc::pcaps {

// Capture time in microseconds since the Unix epoch. The golden pcaps use virtual time that
// starts at kEpochMicros, so the files are the same byte for byte on every run.
inline constexpr std::int64_t kEpochMicros = 1735689600LL * 1000000LL;  // 2025-01-01T00:00Z

inline constexpr int kLinkTypeEthernet = 1;  // DLT_EN10MB

struct Packet {
  std::int64_t time_us = 0;
  std::vector<std::byte> frame;     // the captured octets (at most the snap length)
  std::uint32_t original_length = 0;  // the frame's length on the wire
};

class PcapWriter {
 public:
  // Throws std::runtime_error naming the file if it cannot be created. `link_type` is a
  // libpcap DLT_ value (DLT_EN10MB, DLT_RAW, DLT_LINUX_SLL, ...).
  explicit PcapWriter(const std::string& path, int link_type = kLinkTypeEthernet);
  ~PcapWriter();
  PcapWriter(const PcapWriter&) = delete;
  PcapWriter& operator=(const PcapWriter&) = delete;

  // `original_length`: the frame's length on the wire when `frame` is only its first octets
  // (a snap length); 0 means the frame is whole.
  void write(std::int64_t time_us, std::span<const std::byte> frame,
             std::uint32_t original_length = 0);
  [[nodiscard]] std::size_t count() const { return count_; }

 private:
  struct Handles;
  Handles* handles_;
  std::size_t count_ = 0;
};

// Every packet of a pcap file. Throws std::runtime_error with libpcap's reason if the file
// cannot be read or is not Ethernet.
[[nodiscard]] std::vector<Packet> read_pcap(const std::string& path);

}  // namespace rdcc::pcaps
