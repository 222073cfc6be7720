// The Internet checksum (RFC 1071): the IPv4 header checksum, and the UDP checksum over the
// IPv4 (RFC 768) or IPv6 (RFC 8200, section 8.1) pseudo-header.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "rdcc/wire/address.hpp"

namespace rdcc::wire {

// The ones' complement sum of `data` as 16-bit big-endian words (an odd last octet is the
// high half of a word), continued from `sum` and kept folded to 16 bits, so that a sum can be
// carried over any number of spans.
[[nodiscard]] std::uint32_t ones_complement_sum(std::span<const std::byte> data,
                                                std::uint32_t sum = 0) noexcept;

// The checksum field of a sum: its ones' complement, folded to 16 bits.
[[nodiscard]] std::uint16_t checksum_of(std::uint32_t sum) noexcept;

// checksum_of(ones_complement_sum(data)): the IPv4 header checksum of a header whose checksum
// field is zero; 0 over a header whose field is filled in correctly.
[[nodiscard]] std::uint16_t internet_checksum(std::span<const std::byte> data) noexcept;

// The UDP checksum of `datagram` (UDP header, its checksum field zero, and payload) between
// the IP addresses of `source` and `destination` (same family; ports are the header's). A
// computed 0 is sent as 0xFFFF: zero means "no checksum" (RFC 768).
[[nodiscard]] std::uint16_t udp_checksum(const Address& source, const Address& destination,
                                         std::span<const std::byte> datagram) noexcept;

}  // namespace rdcc::wire
