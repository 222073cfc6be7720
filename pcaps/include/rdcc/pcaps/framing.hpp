// Ethernet / IPv4 or IPv6 / UDP framing for captures, both ways: building frames with correct
// IP and UDP checksums for the golden pcaps, and taking them apart again for the tests that
// compare a dissector's output with the codec's decode of the same datagrams.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace rdcc::pcaps {

// One UDP endpoint. An IPv4 address uses the first four octets of `address`.
struct Endpoint {
  bool ipv6 = false;
  std::array<std::uint8_t, 16> address{};
  std::uint16_t port = 0;
};

[[nodiscard]] Endpoint ipv4_endpoint(std::uint8_t a, std::uint8_t b, std::uint8_t c,
                                     std::uint8_t d, std::uint16_t port);
// 2001:db8::<host> (RFC 3849 documentation prefix).
[[nodiscard]] Endpoint ipv6_endpoint(std::uint16_t host, std::uint16_t port);
[[nodiscard]] std::string to_string(const Endpoint& e);

// An Ethernet frame carrying `payload` in UDP from `src` to `dst` (both of the same family),
// with a valid IPv4 header checksum and a valid UDP checksum.
[[nodiscard]] std::vector<std::byte> udp_frame(const Endpoint& src, const Endpoint& dst,
                                               std::span<const std::byte> payload);

// An Ethernet frame around an IPv4 or IPv6 packet (the simulator's packets), with the MAC
// addresses udp_frame uses. `ip_packet` may be cut to a snap length but must hold the IP
// header's addresses; throws std::invalid_argument otherwise.
[[nodiscard]] std::vector<std::byte> ethernet_frame(std::span<const std::byte> ip_packet);

struct UdpDatagram {
  Endpoint src;
  Endpoint dst;
  std::vector<std::byte> payload;  // the UDP payload, as the UDP Length field bounds it
  bool truncated = false;          // captured short of its length: `payload` is the first part
};

// Takes an Ethernet frame apart. Nothing if it is not Ethernet/IPv4-or-IPv6/UDP or is cut
// short; `why` then says what was wrong. `original_length` is the frame's length on the wire
// (pcap's len): a frame captured shorter than that (a snap length) is no error, its payload
// is the captured part and `truncated` is set; the UDP header itself must be captured.
[[nodiscard]] std::optional<UdpDatagram> parse_udp_frame(std::span<const std::byte> frame,
                                                         std::string& why,
                                                         std::size_t original_length = 0);

}  // namespace rdcc::pcaps
