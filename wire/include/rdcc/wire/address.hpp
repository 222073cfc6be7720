// A UDP endpoint address (IPv4 or IPv6 and port): how endpoints see their peers, and the
// source and destination of every captured or generated frame.
#pragma once

#include <bit>
#include <compare>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>

#include "rdcc/codec/messages.hpp"

namespace rdcc::wire {

struct Address {
  IpAddress ip{};  // IPv4 uses the first four octets
  bool ipv6 = false;
  std::uint16_t port = 0;

  // The octets compared as two integers (same_octets, below): the defaulted comparison
  // called memcmp for them (ASan's checked one in the fuzz build).
  friend bool operator==(const Address& a, const Address& b) noexcept;
  // Same host (address family and IP), any port.
  [[nodiscard]] bool same_host(const Address& o) const noexcept;
  // 127.0.0.0/8 or ::1.
  [[nodiscard]] bool is_loopback() const noexcept {
    return ipv6 ? ip == IpAddress{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1} : ip[0] == 127;
  }
  [[nodiscard]] std::string to_string() const;  // "192.0.2.1:50000", "[2001:db8::1]:50000"
  // The same text appended to `out` (IPv4 without any allocation: for dumping many packets).
  void append_to(std::string& out) const;
  [[nodiscard]] static Address v4(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d,
                                  std::uint16_t port);
  // 2001:db8::<host> (RFC 3849 documentation prefix), for generated captures and tests.
  [[nodiscard]] static Address documentation_v6(std::uint16_t host, std::uint16_t port);
  // Parses "a.b.c.d:port" or "[v6]:port"; false on error.
  [[nodiscard]] static bool parse(std::string_view text, Address& out);
};

struct AddressHash {
  std::size_t operator()(const Address& a) const noexcept;
};

// An Address packed into integers: a key that compares and hashes in a few instructions (a
// tuple of the array of octets compared them with memcmp). It orders as (family, IP octets,
// port), the order of that tuple.
struct AddressKey {
  std::uint64_t ipv6 = 0;  // 0 or 1
  std::uint64_t high = 0;  // IP octets 0..7, big-endian (IPv4: its four octets, then zeros)
  std::uint64_t low = 0;   // IP octets 8..15
  std::uint64_t port = 0;
  // clang-tidy 14 reads the literal 0 of a defaulted <=> as a null pointer (fixed in 17).
  // NOLINTNEXTLINE(modernize-use-nullptr)
  friend constexpr auto operator<=>(const AddressKey&, const AddressKey&) = default;
};

[[nodiscard]] inline AddressKey key_of(const Address& a) noexcept {
  const auto big_endian = [](const std::uint8_t* p) {
    std::uint64_t v = 0;
    std::memcpy(&v, p, sizeof v);
    return std::endian::native == std::endian::little ? __builtin_bswap64(v) : v;
  };
  AddressKey k;
  k.ipv6 = a.ipv6 ? 1 : 0;
  k.high = big_endian(a.ip.data());
  k.low = big_endian(a.ip.data() + 8);
  k.port = a.port;
  return k;
}

// The 16 octets as two integers, in memory order (equality only; key_of gives the order).
[[nodiscard]] inline bool same_octets(const IpAddress& a, const IpAddress& b) noexcept {
  std::uint64_t a0 = 0, a1 = 0, b0 = 0, b1 = 0;
  std::memcpy(&a0, a.data(), 8);
  std::memcpy(&a1, a.data() + 8, 8);
  std::memcpy(&b0, b.data(), 8);
  std::memcpy(&b1, b.data() + 8, 8);
  return a0 == b0 && a1 == b1;
}
inline bool operator==(const Address& a, const Address& b) noexcept {
  return a.port == b.port && a.ipv6 == b.ipv6 && same_octets(a.ip, b.ip);
}
inline bool Address::same_host(const Address& o) const noexcept {
  return ipv6 == o.ipv6 && same_octets(ip, o.ip);
}

// Mixes `v` into the hash `h` (for keys made of AddressKeys and numbers).
[[nodiscard]] constexpr std::uint64_t hash_mix(std::uint64_t h, std::uint64_t v) noexcept {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  h ^= h >> 31;
  h *= 0xbf58476d1ce4e5b9ULL;
  return h ^ (h >> 29);
}
[[nodiscard]] constexpr std::uint64_t hash_mix(std::uint64_t h, const AddressKey& k) noexcept {
  return hash_mix(hash_mix(hash_mix(h, k.high), k.low), (k.ipv6 << 16) | k.port);
}

// The hashes of these keys are not noexcept on purpose: libstdc++'s unordered containers then
// keep each node's hash, so that a lookup or a rehash does not hash every node it passes.
struct AddressKeyHash {
  std::size_t operator()(const AddressKey& k) const { return hash_mix(0, k); }
};

}  // namespace rdcc::wire
