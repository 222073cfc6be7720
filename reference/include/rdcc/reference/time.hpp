// Time for sans-IO endpoints: a strong type over integer nanoseconds. Endpoints never read a
// clock; the simulator passes virtual time and the UDP driver a monotonic clock (STYLE.md).
#pragma once

#include <compare>
#include <cstdint>
#include <limits>
#include <string>

namespace rdcc::ref {

struct Duration {
  std::int64_t ns = 0;
  // clang-tidy 14 reads the literal 0 of a defaulted <=> as a null pointer (fixed in 17).
  friend constexpr auto operator<=>(Duration, Duration) = default;  // NOLINT(modernize-use-nullptr)
  friend constexpr Duration operator+(Duration a, Duration b) { return {a.ns + b.ns}; }
  friend constexpr Duration operator-(Duration a, Duration b) { return {a.ns - b.ns}; }
  friend constexpr Duration operator*(Duration a, std::int64_t k) { return {a.ns * k}; }
  friend constexpr Duration operator*(std::int64_t k, Duration a) { return {a.ns * k}; }
  friend constexpr Duration operator/(Duration a, std::int64_t k) { return {a.ns / k}; }
  [[nodiscard]] constexpr double seconds() const { return static_cast<double>(ns) * 1e-9; }
  [[nodiscard]] constexpr std::int64_t micros() const { return ns / 1000; }
};

struct Time {
  std::int64_t ns = 0;
  // clang-tidy 14 reads the literal 0 of a defaulted <=> as a null pointer (fixed in 17).
  friend constexpr auto operator<=>(Time, Time) = default;  // NOLINT(modernize-use-nullptr)
  friend constexpr Time operator+(Time t, Duration d) { return {t.ns + d.ns}; }
  friend constexpr Time operator-(Time t, Duration d) { return {t.ns - d.ns}; }
  friend constexpr Duration operator-(Time a, Time b) { return {a.ns - b.ns}; }
  constexpr Time& operator+=(Duration d) {
    ns += d.ns;
    return *this;
  }
  [[nodiscard]] static constexpr Time never() { return {std::numeric_limits<std::int64_t>::max()}; }
};

[[nodiscard]] constexpr Duration nanoseconds(std::int64_t n) {
  return {n};
}
[[nodiscard]] constexpr Duration microseconds(std::int64_t n) {
  return {n * 1000};
}
[[nodiscard]] constexpr Duration milliseconds(std::int64_t n) {
  return {n * 1000000};
}
[[nodiscard]] constexpr Duration seconds(std::int64_t n) {
  return {n * 1000000000};
}

// Time to put `octets` on a link of `mbps` Mbit/s, rounded up to a whole nanosecond.
[[nodiscard]] constexpr Duration transmission_time(std::uint64_t octets, std::uint64_t mbps) {
  if (mbps == 0) return {std::numeric_limits<std::int64_t>::max() / 4};
  // octets * 8 bits / (mbps * 1e6 bit/s) s = octets * 8000 / mbps ns
  return {static_cast<std::int64_t>((octets * 8000U + mbps - 1U) / mbps)};
}

// "t=1.234ms" as test logs write it.
[[nodiscard]] std::string format_time(Time t);

}  // namespace rdcc::ref
