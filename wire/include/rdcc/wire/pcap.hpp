// Capture files through libpcap. CaptureReader reads pcap and pcapng frame by frame, its errors
// naming the file and the frame after which it went wrong; PcapWriter writes classic pcap
// (microsecond stamps; Ethernet unless given another link type). Frames are taken apart by
// parse_frame and built by udp_frame / ethernet_frame (frame.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "rdcc/wire/frame.hpp"

namespace rdcc::wire {

// Capture time in microseconds since the Unix epoch. The golden pcaps use virtual time that
// starts at kEpochMicros, so the files are the same byte for byte on every run.
inline constexpr std::int64_t kEpochMicros = 1735689600LL * 1000000LL;  // 2025-01-01T00:00Z

// One frame as the capture holds it.
struct CapturedFrame {
  std::uint64_t number = 0;      // 1-based, as Wireshark counts
  std::int64_t time_ns = 0;      // since the epoch
  std::int64_t relative_ns = 0;  // since the first frame of the file
  std::uint32_t original_length = 0;
  std::span<const std::byte> data;  // valid until the next call to next()
};

// A capture file read frame by frame. open() and next() report failures as text that names
// the file (and, for next(), the frame after which the file went wrong).
class CaptureReader {
 public:
  CaptureReader();
  ~CaptureReader();
  CaptureReader(const CaptureReader&) = delete;
  CaptureReader& operator=(const CaptureReader&) = delete;

  // False with `error` set if the file cannot be opened or its link type is not handled.
  [[nodiscard]] bool open(const std::string& path, std::string& error);
  [[nodiscard]] int link_type() const noexcept { return link_type_; }
  // True with a frame; false at the end of the file, with `error` set if the file is damaged.
  [[nodiscard]] bool next(CapturedFrame& frame, std::string& error);

 private:
  struct Handle;
  std::unique_ptr<Handle> handle_;
  std::string path_;
  int link_type_ = 0;
  std::uint64_t count_ = 0;
  std::int64_t first_ns_ = 0;
};

// A frame the capture's snap length cut (captures often keep only the headers of data
// packets) read again, filled up with zeros in `buffer` to its length on the wire: Udp with
// `zero_filled` set when its headers were captured (the payload then lies in `buffer`, zeros
// past the cut); otherwise what parse_frame says of the frame as captured.
[[nodiscard]] ParsedFrame parse_zero_filled(const CapturedFrame& frame, int link_type,
                                            std::vector<std::byte>& buffer);

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

}  // namespace rdcc::wire
