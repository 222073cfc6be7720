// The RoCEv2 Binding Value of CREDIT_REQUEST ("Transport Bindings", Binding Kind 1):
// destination QPN in bits 63..40, first message sequence number in bits 39..16, and the
// number of RDMA messages in bits 15..0.
#pragma once

#include <cstdint>
#include <optional>

namespace rdcc {

struct Rocev2Binding {
  std::uint32_t destination_qpn = 0;  // 24 bits
  std::uint32_t first_msn = 0;        // 24 bits
  std::uint16_t message_count = 0;    // 16 bits
  friend constexpr bool operator==(const Rocev2Binding&, const Rocev2Binding&) = default;
};

inline constexpr std::uint32_t kMax24 = 0xFFFFFFU;

// Nothing if the QPN or MSN does not fit in 24 bits.
[[nodiscard]] constexpr std::optional<std::uint64_t> pack_rocev2(const Rocev2Binding& b) noexcept {
  if (b.destination_qpn > kMax24 || b.first_msn > kMax24) return std::nullopt;
  return (std::uint64_t{b.destination_qpn} << 40) | (std::uint64_t{b.first_msn} << 16) |
         std::uint64_t{b.message_count};
}

[[nodiscard]] constexpr Rocev2Binding unpack_rocev2(std::uint64_t value) noexcept {
  return Rocev2Binding{static_cast<std::uint32_t>((value >> 40) & kMax24),
                       static_cast<std::uint32_t>((value >> 16) & kMax24),
                       static_cast<std::uint16_t>(value & 0xFFFFU)};
}

}  // namespace rdcc
