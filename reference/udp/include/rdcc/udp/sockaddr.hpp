// Address <-> struct sockaddr, for the socket calls (the driver's, and the conformance adapters').
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>

#include <cstring>

#include "rdcc/reference/address.hpp"

namespace rdcc::udp {

struct SockAddr {
  sockaddr_storage storage{};
  socklen_t len = 0;
  // The socket API takes sockaddr*; sockaddr_storage is designed to be viewed through it.
  [[nodiscard]] const sockaddr* get() const { return reinterpret_cast<const sockaddr*>(&storage); }
  [[nodiscard]] sockaddr* get_mut() { return reinterpret_cast<sockaddr*>(&storage); }
};

inline SockAddr to_sockaddr(const ref::Address& a) {
  SockAddr out;
  if (a.ipv6) {
    sockaddr_in6 s{};
    s.sin6_family = AF_INET6;
    s.sin6_port = htons(a.port);
    std::memcpy(&s.sin6_addr, a.ip.data(), 16);
    std::memcpy(&out.storage, &s, sizeof s);
    out.len = sizeof s;
  } else {
    sockaddr_in s{};
    s.sin_family = AF_INET;
    s.sin_port = htons(a.port);
    std::memcpy(&s.sin_addr, a.ip.data(), 4);
    std::memcpy(&out.storage, &s, sizeof s);
    out.len = sizeof s;
  }
  return out;
}

inline ref::Address from_sockaddr(const SockAddr& in) {
  ref::Address a;
  if (in.storage.ss_family == AF_INET6) {
    sockaddr_in6 s{};
    std::memcpy(&s, &in.storage, sizeof s);
    a.ipv6 = true;
    a.port = ntohs(s.sin6_port);
    std::memcpy(a.ip.data(), &s.sin6_addr, 16);
  } else {
    sockaddr_in s{};
    std::memcpy(&s, &in.storage, sizeof s);
    a.port = ntohs(s.sin_port);
    std::memcpy(a.ip.data(), &s.sin_addr, 4);
  }
  return a;
}

}  // namespace rdcc::udp
