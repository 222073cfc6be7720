// A UDP endpoint address (IPv4 or IPv6 and port), as endpoints see their peers.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "rdcc/codec/messages.hpp"

namespace rdcc::ref {

struct Address {
  IpAddress ip{};  // IPv4 uses the first four octets
  bool ipv6 = false;
  std::uint16_t port = 0;

  friend bool operator==(const Address&, const Address&) = default;
  // Same host (address family and IP), any port.
  [[nodiscard]] bool same_host(const Address& o) const { return ipv6 == o.ipv6 && ip == o.ip; }
  [[nodiscard]] std::string to_string() const;  // "192.0.2.1:50000", "[2001:db8::1]:50000"
  [[nodiscard]] static Address v4(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d,
                                  std::uint16_t port);
  // Parses "a.b.c.d:port" or "[v6]:port"; false on error.
  [[nodiscard]] static bool parse(std::string_view text, Address& out);
};

struct AddressHash {
  std::size_t operator()(const Address& a) const noexcept;
};

}  // namespace rdcc::ref
