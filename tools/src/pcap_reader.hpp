// Reading captures: libpcap opens the file (pcap or pcapng), and parse_frame() takes one
// frame's octets and its link type apart down to the UDP payload. parse_frame() is pure (no
// I/O, no allocation, no exceptions), so that a libFuzzer harness can feed it bytes.
//
// Link types: Ethernet (with any number of 802.1Q / 802.1ad VLAN tags), Linux cooked
// capture v1 (SLL) and v2 (SLL2), raw IP (DLT_RAW, DLT_IPV4, DLT_IPV6) and BSD loopback
// (DLT_NULL). Network layer: IPv4 (options skipped) and IPv6 (Hop-by-Hop, Routing,
// Destination Options, Fragment and Authentication extension headers walked). Anything that
// is not UDP is Other; anything that cannot be read is Malformed with the offset and what.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "rdcc/reference/address.hpp"

namespace rdcc::tools {

enum class FrameKind : std::uint8_t {
  Udp,        // a whole UDP datagram
  Other,      // not IP, or IP but not UDP, or a non-first fragment: nothing to read here
  Malformed,  // the frame cannot be read; `what` and `offset` say why and where
};

struct ParsedFrame {
  FrameKind kind = FrameKind::Other;
  ref::Address source;       // Udp: IP address and UDP port
  ref::Address destination;
  std::uint8_t dscp = 0;
  std::uint8_t ecn = 0;
  std::uint16_t udp_checksum = 0;
  std::span<const std::byte> payload;  // Udp: the UDP payload (per the UDP Length field)
  std::size_t payload_offset = 0;      // Udp: offset of the payload within the frame
  std::span<const std::byte> ip_packet;  // Udp: the whole IP packet (IPv6: with extension headers)
  // Malformed: what was wrong ("IPv4 header length 12 is below 20") and the frame offset of
  // the field concerned. A string literal or built into `detail` (no heap on this path).
  std::string_view what;
  std::size_t offset = 0;
  std::uint64_t actual = 0;  // the offending value, where one is named in `what`
  // Malformed: only because the capture cut the frame (the IP length is beyond the captured
  // octets). Udp: the frame was cut so, and scan_capture() read it filled up with zeros to
  // its length on the wire: the headers are real, payload octets past the cut are not.
  bool snap_cut = false;
  bool zero_filled = false;
};

// Link-layer header types handled (pcap-linktype values as pcap_datalink() returns them).
[[nodiscard]] bool link_type_supported(int link_type) noexcept;
[[nodiscard]] std::string link_type_name(int link_type);

// Takes one captured frame apart. `frame` is what the capture holds (possibly cut by the
// snap length); `link_type` is pcap_datalink() of the file.
[[nodiscard]] ParsedFrame parse_frame(std::span<const std::byte> frame, int link_type) noexcept;

// "IPv4 header length 12 is below 20 (offset 14)", with the value where there is one.
[[nodiscard]] std::string describe_malformed(const ParsedFrame& f);
// The same text appended to `out` (no other allocation: `rdcc pcap dump` writes one per
// malformed frame).
void append_malformed(const ParsedFrame& f, std::string& out);

// One frame as the capture holds it.
struct CapturedFrame {
  std::uint64_t number = 0;          // 1-based, as Wireshark counts
  std::int64_t time_ns = 0;          // since the epoch
  std::int64_t relative_ns = 0;      // since the first frame of the file
  std::uint32_t original_length = 0;
  std::span<const std::byte> data;   // valid until the next call to next()
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

}  // namespace rdcc::tools
