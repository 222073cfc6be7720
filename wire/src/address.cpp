// Address text and hashing (address.hpp).
#include "rdcc/wire/address.hpp"

#include <charconv>

#include "rdcc/codec/json.hpp"

namespace rdcc::wire {

std::string Address::to_string() const {
  std::string out;
  append_to(out);
  return out;
}

void Address::append_to(std::string& out) const {
  char text[32];  // "255.255.255.255:65535": one append
  char* at = text;
  char* const end = text + sizeof text;
  if (ipv6) {
    out += '[';
    out += address_to_string(ip, true);
    out += ']';
  } else {
    for (std::size_t i = 0; i < 4; ++i) {
      at = std::to_chars(at, end, ip[i]).ptr;
      *at++ = i == 3 ? ':' : '.';  // at most 4 octets of 3 digits, and 4 separators, so far
    }
  }
  if (ipv6) *at++ = ':';
  at = std::to_chars(at, end, port).ptr;
  out.append(text, static_cast<std::size_t>(at - text));
}

Address Address::v4(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d,
                    std::uint16_t port) {
  Address out;
  out.ip[0] = a;
  out.ip[1] = b;
  out.ip[2] = c;
  out.ip[3] = d;
  out.port = port;
  return out;
}

Address Address::documentation_v6(std::uint16_t host, std::uint16_t port) {
  Address out;
  out.ipv6 = true;
  out.ip[0] = 0x20;
  out.ip[1] = 0x01;
  out.ip[2] = 0x0d;
  out.ip[3] = 0xb8;
  out.ip[14] = static_cast<std::uint8_t>(host >> 8U);
  out.ip[15] = static_cast<std::uint8_t>(host & 0xFFU);
  out.port = port;
  return out;
}

bool Address::parse(std::string_view text, Address& out) {
  Address a;
  std::string_view host;
  std::string_view port;
  if (!text.empty() && text.front() == '[') {
    const auto close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':') {
      return false;
    }
    host = text.substr(1, close - 1);
    port = text.substr(close + 2);
    a.ipv6 = true;
  } else {
    const auto colon = text.rfind(':');
    if (colon == std::string_view::npos) return false;
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
  }
  unsigned value = 0;
  const auto [ptr, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (ec != std::errc{} || ptr != port.data() + port.size() || value > 65535 || port.empty()) {
    return false;
  }
  if (!address_from_string(host, a.ipv6, a.ip)) return false;
  a.port = static_cast<std::uint16_t>(value);
  out = a;
  return true;
}

std::size_t AddressHash::operator()(const Address& a) const noexcept {
  std::size_t h = a.ipv6 ? 0x9e3779b97f4a7c15ULL : 0;
  for (auto b : a.ip) h = (h ^ b) * 0x100000001b3ULL;
  return (h ^ a.port) * 0x100000001b3ULL;
}

}  // namespace rdcc::wire
