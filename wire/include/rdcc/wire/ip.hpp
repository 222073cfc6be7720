// IPv4, IPv6 and UDP headers of one UDP datagram, both ways: encode writes the headers with
// their lengths and checksums; decode reads a strict packet (IPv4 without options, IPv6
// without extension headers: what the simulator and the bindings send) and says which field
// is wrong and where. Captures, with their options, extension headers and link layers, are
// read by parse_frame (frame.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "rdcc/codec/result.hpp"
#include "rdcc/wire/address.hpp"

namespace rdcc::wire {

inline constexpr std::size_t kIpv4HeaderSize = 20;
inline constexpr std::size_t kIpv6HeaderSize = 40;
inline constexpr std::size_t kUdpHeaderSize = 8;
inline constexpr std::uint8_t kProtocolUdp = 17;

enum class IpErrorCode : std::uint8_t {
  Truncated,           // the packet ends inside the named field
  BadVersion,          // the IP version is not the one expected
  BadHeaderLength,     // IPv4: IHL other than 5
  NotUdp,              // IPv4 Protocol / IPv6 Next Header is not 17
  LengthBeyondPacket,  // a length field names more octets than the packet holds
  BufferTooSmall,      // encode: the caller's buffer cannot hold the packet
  FieldOutOfRange,     // encode: a value does not fit its field
};
[[nodiscard]] std::string_view to_string(IpErrorCode code) noexcept;

// "<what> (field F, offset N, value V[, expected E])": how the errors of a field at an offset
// read, here and in the bindings (ref::BindingError).
[[nodiscard]] std::string describe_field_error(std::string_view what, std::string_view field,
                                               std::size_t offset, std::uint64_t actual,
                                               std::uint64_t expected);

struct IpError {
  IpErrorCode code;
  std::size_t offset = 0;      // octet offset of the field concerned, in the IP packet
  std::string_view field;      // e.g. "udp_length"
  std::uint64_t actual = 0;    // the offending value
  std::uint64_t expected = 0;  // what was needed; 0 if not applicable
  // "UDP length beyond packet (field udp_length, offset 24, value 900, expected 100)"
  [[nodiscard]] std::string describe() const;
};

// The IP and UDP headers of a datagram. The family is the source's (`source.ipv6`); the
// destination must be of the same.
struct UdpHeaders {
  Address source;
  Address destination;
  std::uint8_t dscp = 0;             // 6 bits (IPv6: the Traffic Class's upper six)
  std::uint8_t ecn = 0;              // 2 bits
  std::uint8_t ttl = 64;             // IPv6: Hop Limit
  std::uint16_t identification = 0;  // IPv4 only
};

[[nodiscard]] constexpr std::size_t ip_header_size(bool ipv6) noexcept {
  return ipv6 ? kIpv6HeaderSize : kIpv4HeaderSize;
}

// Writes the IP and UDP headers into `out` in front of a UDP payload of `payload_size` octets
// already in place after them, and returns the packet's size: lengths, the IPv4 header
// checksum (IPv4: Don't Fragment, no options; IPv6: Flow Label 0, no extension headers), and
// the UDP checksum, or zero where `udp_checksum` is false (RoCEv2 over IPv4).
[[nodiscard]] Result<std::size_t, IpError> encode_udp_headers(const UdpHeaders& h,
                                                              std::size_t payload_size,
                                                              std::span<std::byte> out,
                                                              bool udp_checksum = true) noexcept;
// The same with `payload` copied into place first.
[[nodiscard]] Result<std::size_t, IpError> encode_udp(const UdpHeaders& h,
                                                      std::span<const std::byte> payload,
                                                      std::span<std::byte> out) noexcept;

struct UdpPacket {
  UdpHeaders headers;
  std::uint16_t total_length = 0;  // IPv4 Total Length; IPv6: 40 + Payload Length (at most 65535)
  std::uint16_t ip_checksum = 0;   // IPv4 header checksum as carried
  std::uint16_t udp_checksum = 0;  // as carried
  std::span<const std::byte> payload;  // as the UDP Length bounds it
};

// An IPv4 packet (IHL 5) carrying UDP; the payload is bounded by the UDP Length, which must
// lie within the Total Length, which must lie within `packet`.
[[nodiscard]] Result<UdpPacket, IpError> decode_ipv4_udp(
    std::span<const std::byte> packet) noexcept;
// An IPv6 packet whose Next Header is UDP (no extension headers); bounded likewise.
[[nodiscard]] Result<UdpPacket, IpError> decode_ipv6_udp(
    std::span<const std::byte> packet) noexcept;

}  // namespace rdcc::wire
