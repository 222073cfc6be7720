// Frames, both ways. parse_frame() takes one captured frame's octets and its link type apart
// down to the UDP payload: the one frame parser of the toolkit (rdcc pcap, the dissector tests,
// the fuzz seeds). It is pure (no I/O, no allocation, no exceptions), so that a libFuzzer
// harness can feed it bytes. udp_frame() and ethernet_frame() build the Ethernet frames the
// capture writers (the golden pcaps, rdcc sim --pcap, the conformance report) write.
//
// Link types: Ethernet (with any number of 802.1Q / 802.1ad VLAN tags), Linux cooked
// capture v1 (SLL) and v2 (SLL2), raw IP (DLT_RAW, DLT_IPV4, DLT_IPV6) and BSD loopback
// (DLT_NULL). Network layer: IPv4 (options skipped) and IPv6 (Hop-by-Hop, Routing,
// Destination Options, Fragment and Authentication extension headers walked). Anything that
// is not UDP is Other; anything that cannot be read is Malformed with the offset and what; an
// IPv4 or IPv6 fragment is a Fragment, which a wire::Reassembler (reassembly.hpp) puts back
// together into the IP packet that parse_frame() then reads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rdcc/wire/address.hpp"

namespace rdcc::wire {

enum class FrameKind : std::uint8_t {
  Udp,        // a whole UDP datagram
  Other,      // not IP, or IP but not UDP (IPv4 fragments of another protocol too)
  Malformed,  // the frame cannot be read; `what` and `offset` say why and where
  Fragment,   // an IPv4 fragment of UDP, or an IPv6 fragment: `fragment` describes it
};

// One fragment of an IP packet, as the frame holds it.
struct IpFragment {
  bool ipv6 = false;
  std::uint32_t identification = 0;  // IPv4: 16 bits; IPv6: the Fragment header's 32 bits
  std::uint8_t protocol = 0;         // IPv4 Protocol; IPv6: the Fragment header's Next Header
  std::size_t offset = 0;            // of `data` in the original packet's payload, in octets
  bool more = false;                 // More Fragments
  // IPv4: the header with its options. IPv6: the fixed header and the extension headers before
  // the Fragment header (the unfragmentable part); `next_header_at` is the offset in it of the
  // Next Header field that names the Fragment header.
  std::span<const std::byte> header;
  std::size_t next_header_at = 0;
  std::span<const std::byte> data;  // the fragment's part of the payload
};

struct ParsedFrame {
  FrameKind kind = FrameKind::Other;
  Address source;  // Udp: IP address and UDP port
  Address destination;
  std::uint8_t dscp = 0;
  std::uint8_t ecn = 0;
  std::uint16_t udp_checksum = 0;
  std::span<const std::byte> payload;    // Udp: the UDP payload (per the UDP Length field)
  std::size_t payload_offset = 0;        // Udp: offset of the payload within the frame
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
  IpFragment fragment;  // Fragment only
};

inline constexpr int kLinkTypeEthernet = 1;  // DLT_EN10MB, what udp_frame() builds

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

// ---- building frames ----------------------------------------------------------------------

// An Ethernet frame carrying `payload` in UDP from `src` to `dst` (both of the same family),
// with a valid IPv4 header checksum and a valid UDP checksum (encode_udp, ip.hpp).
[[nodiscard]] std::vector<std::byte> udp_frame(const Address& src, const Address& dst,
                                               std::span<const std::byte> payload);

// An Ethernet frame around an IPv4 or IPv6 packet (the simulator's packets), with the MAC
// addresses udp_frame uses. `ip_packet` may be cut to a snap length but must hold the IP
// header's addresses; throws std::invalid_argument otherwise.
[[nodiscard]] std::vector<std::byte> ethernet_frame(std::span<const std::byte> ip_packet);

}  // namespace rdcc::wire
