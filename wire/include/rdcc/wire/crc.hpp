// CRC-32 (IEEE 802.3) and the RoCEv2 Invariant CRC (ICRC) built on it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace rdcc::wire {

inline constexpr std::size_t kBthSize = 12;  // InfiniBand Base Transport Header
inline constexpr std::size_t kIcrcSize = 4;

// CRC-32 (reflected polynomial 0xEDB88320) continued over `data` from the register `crc`, raw:
// neither the initial nor the final inversion is applied here.
[[nodiscard]] std::uint32_t crc32_update(std::uint32_t crc,
                                         std::span<const std::byte> data) noexcept;

// The CRC-32 of `data` as Ethernet, zlib and PNG compute it (initial and final inversion):
// crc32("123456789") == 0xCBF43926.
[[nodiscard]] std::uint32_t crc32(std::span<const std::byte> data) noexcept;

// The RoCEv2 ICRC: CRC-32 over 8 octets of 0xFF (the masked LRH), the IP header with the
// fields routers change set to all ones (IPv4: TOS, TTL and checksum; IPv6: Traffic Class,
// Flow Label and Hop Limit), the UDP header with its checksum set to all ones, the BTH with
// its reserved octet 4 (FECN/BECN) set to all ones, and the rest of the packet up to the
// ICRC; stored least significant octet first (as the Linux rxe driver and RNICs do).
// `ip_packet` is the whole IPv4 or IPv6 packet (its version field says which; IPv4 without
// options, IPv6 without extension headers) including the 4 ICRC octets at its end; 0 for a
// packet too short to hold the headers and the ICRC.
[[nodiscard]] std::uint32_t rocev2_icrc(std::span<const std::byte> ip_packet) noexcept;

}  // namespace rdcc::wire
