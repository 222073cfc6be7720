// Sockets: the only file of the toolkit that calls socket(2) and friends (with loop.cpp for
// epoll and timers).
#include "rdcc/udp/socket.hpp"

#include <netinet/in.h>
#include <netinet/ip.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <system_error>
#include <utility>

#include "rdcc/udp/sockaddr.hpp"

namespace rdcc::udp {

namespace {

[[noreturn]] void fail(const std::string& what, const Address& a) {
  throw std::system_error(errno, std::generic_category(), what + " " + a.to_string());
}

// Room for one TOS/Traffic Class control message (an int, the larger of the two forms).
constexpr std::size_t kCmsgSpace = CMSG_SPACE(sizeof(int));
// Room for a receive timestamp (SO_TIMESTAMPNS).
constexpr std::size_t kTimestampSpace = CMSG_SPACE(sizeof(timespec));

void set_int(int fd, int level, int name, int value) {
  (void)::setsockopt(fd, level, name, &value, sizeof value);
}

}  // namespace

UdpSocket::UdpSocket(const Address& local) : local_(local) {
  fd_ = ::socket(local.ipv6 ? AF_INET6 : AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd_ < 0) fail("socket for", local);
  if (local.ipv6) {
    set_int(fd_, IPPROTO_IPV6, IPV6_V6ONLY, 1);
    set_int(fd_, IPPROTO_IPV6, IPV6_RECVTCLASS, 1);
  } else {
    set_int(fd_, IPPROTO_IP, IP_RECVTOS, 1);
  }
  // Larger buffers than the default absorb bursts of a whole grant (the kernel caps them at
  // net.core.rmem_max / wmem_max).
  set_int(fd_, SOL_SOCKET, SO_RCVBUF, 8 << 20);
  set_int(fd_, SOL_SOCKET, SO_SNDBUF, 8 << 20);
  SockAddr sa = to_sockaddr(local);
  if (::bind(fd_, sa.get(), sa.len) != 0) {
    const int err = errno;
    close_fd();
    errno = err;
    fail("cannot bind UDP", local);
  }
  SockAddr bound;
  bound.len = sizeof bound.storage;
  if (::getsockname(fd_, bound.get_mut(), &bound.len) == 0) local_ = from_sockaddr(bound);
  rx_buffers_ = std::make_unique_for_overwrite<std::byte[]>(kBatch * kMaxDatagram);
  rx_packets_.resize(kBatch);
}

UdpSocket::~UdpSocket() {
  close_fd();
}

UdpSocket::UdpSocket(UdpSocket&& o) noexcept
    : fd_(std::exchange(o.fd_, -1)),
      local_(o.local_),
      stats_(o.stats_),
      rx_buffers_(std::move(o.rx_buffers_)),
      rx_packets_(std::move(o.rx_packets_)) {}

UdpSocket& UdpSocket::operator=(UdpSocket&& o) noexcept {
  if (this != &o) {
    close_fd();
    fd_ = std::exchange(o.fd_, -1);
    local_ = o.local_;
    stats_ = o.stats_;
    rx_buffers_ = std::move(o.rx_buffers_);
    rx_packets_ = std::move(o.rx_packets_);
  }
  return *this;
}

void UdpSocket::close_fd() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void UdpSocket::send(std::span<const OutPacket> packets) {
  std::array<mmsghdr, kBatch> msgs{};
  std::array<iovec, kBatch> iov{};
  std::array<SockAddr, kBatch> addrs{};
  alignas(cmsghdr) std::array<std::array<unsigned char, kCmsgSpace>, kBatch> control{};
  std::size_t done = 0;
  while (done < packets.size()) {
    const std::size_t n = std::min(kBatch, packets.size() - done);
    for (std::size_t i = 0; i < n; ++i) {
      const OutPacket& p = packets[done + i];
      addrs[i] = to_sockaddr(p.to);
      // The kernel only reads the iovec.
      iov[i].iov_base = const_cast<std::byte*>(p.bytes.data());
      iov[i].iov_len = p.bytes.size();
      msghdr& h = msgs[i].msg_hdr;
      h = msghdr{};
      h.msg_name = addrs[i].get_mut();
      h.msg_namelen = addrs[i].len;
      h.msg_iov = &iov[i];
      h.msg_iovlen = 1;
      h.msg_control = control[i].data();
      h.msg_controllen = kCmsgSpace;
      cmsghdr* c = CMSG_FIRSTHDR(&h);
      const int value = p.tos;
      c->cmsg_level = ipv6() ? IPPROTO_IPV6 : IPPROTO_IP;
      c->cmsg_type = ipv6() ? IPV6_TCLASS : IP_TOS;
      c->cmsg_len = CMSG_LEN(sizeof value);
      std::memcpy(CMSG_DATA(c), &value, sizeof value);
    }
    const int sent = ::sendmmsg(fd_, msgs.data(), static_cast<unsigned>(n), 0);
    if (sent < 0) {
      if (errno == EINTR) continue;
      // The first packet was refused (EAGAIN: buffer full; or unreachable): drop it, go on.
      ++stats_.send_failures;
      ++done;
      continue;
    }
    stats_.datagrams_sent += static_cast<std::uint64_t>(sent);
    done += static_cast<std::size_t>(sent);
  }
}

std::span<const InPacket> UdpSocket::receive() {
  std::array<mmsghdr, kBatch> msgs{};
  std::array<iovec, kBatch> iov{};
  std::array<SockAddr, kBatch> addrs{};
  alignas(cmsghdr) std::array<std::array<unsigned char, kCmsgSpace * 2 + kTimestampSpace>, kBatch>
      control{};
  for (std::size_t i = 0; i < kBatch; ++i) {
    iov[i].iov_base = rx_buffers_.get() + i * kMaxDatagram;
    iov[i].iov_len = kMaxDatagram;
    msghdr& h = msgs[i].msg_hdr;
    h.msg_name = addrs[i].get_mut();
    h.msg_namelen = sizeof addrs[i].storage;
    h.msg_iov = &iov[i];
    h.msg_iovlen = 1;
    h.msg_control = control[i].data();
    h.msg_controllen = control[i].size();
  }
  int got = -1;
  do {
    got = ::recvmmsg(fd_, msgs.data(), static_cast<unsigned>(kBatch), MSG_DONTWAIT, nullptr);
  } while (got < 0 && errno == EINTR);
  if (got <= 0) return {};
  const auto n = static_cast<std::size_t>(got);
  for (std::size_t i = 0; i < n; ++i) {
    msghdr& h = msgs[i].msg_hdr;
    addrs[i].len = h.msg_namelen;
    InPacket& p = rx_packets_[i];
    p.from = from_sockaddr(addrs[i]);
    p.tos = 0;
    p.kernel_time_ns = 0;
    if ((h.msg_flags & MSG_TRUNC) != 0) ++stats_.truncated;
    for (cmsghdr* c = CMSG_FIRSTHDR(&h); c != nullptr; c = CMSG_NXTHDR(&h, c)) {
      if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_TOS) {
        unsigned char value = 0;  // IPv4 delivers the TOS as one octet
        std::memcpy(&value, CMSG_DATA(c), sizeof value);
        p.tos = value;
      } else if (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_TCLASS) {
        int value = 0;  // IPv6 delivers the Traffic Class as an int
        std::memcpy(&value, CMSG_DATA(c), sizeof value);
        p.tos = static_cast<std::uint8_t>(value);
      } else if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
        timespec ts{};
        std::memcpy(&ts, CMSG_DATA(c), sizeof ts);
        p.kernel_time_ns = std::int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
      }
    }
    p.bytes = {rx_buffers_.get() + i * kMaxDatagram,
               std::min<std::size_t>(msgs[i].msg_len, kMaxDatagram)};
  }
  stats_.datagrams_received += n;
  return {rx_packets_.data(), n};
}

void UdpSocket::timestamp_receipts() {
  set_int(fd_, SOL_SOCKET, SO_TIMESTAMPNS, 1);
}

std::uint16_t pick_free_port(const Address& ip) {
  Address a = ip;
  a.port = 0;
  const UdpSocket s(a);
  return s.local().port;
}

}  // namespace rdcc::udp
