// RFC 1982 serial-number arithmetic for 32-bit Sequence Numbers ("Common Header").
#pragma once

#include <cstdint>

namespace rdcc {

// True if `a` is newer than (greater than, in serial arithmetic) `b`. RFC 1982 leaves the
// comparison undefined when the two are exactly 2^31 apart; this returns false in both
// directions then, so such a message is "not newer" and is discarded (docs/spec-notes.md).
[[nodiscard]] constexpr bool serial_newer(std::uint32_t a, std::uint32_t b) noexcept {
  constexpr std::uint32_t kHalf = 0x80000000U;
  return a != b && static_cast<std::uint32_t>(a - b) < kHalf;
}

// a + n in serial arithmetic (n must be at most 2^31 - 1, RFC 1982 section 3.1).
[[nodiscard]] constexpr std::uint32_t serial_add(std::uint32_t a, std::uint32_t n) noexcept {
  return static_cast<std::uint32_t>(a + n);
}

}  // namespace rdcc
