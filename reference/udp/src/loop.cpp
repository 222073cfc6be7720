#include "rdcc/udp/loop.hpp"

#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <ctime>
#include <system_error>

namespace rdcc::udp {

Time monotonic_now() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return Time{static_cast<std::int64_t>(ts.tv_sec) * 1000000000LL + ts.tv_nsec};
}

std::int64_t realtime_now_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

Time kernel_arrival(std::int64_t kernel_time_ns, Time at, std::int64_t real_now_ns) {
  if (kernel_time_ns == 0) return at;
  const std::int64_t age = std::max<std::int64_t>(0, real_now_ns - kernel_time_ns);
  return Time{std::max<std::int64_t>(0, at.ns - age)};
}

EventLoop::EventLoop() {
  epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
  if (epoll_fd_ < 0) throw std::system_error(errno, std::generic_category(), "epoll_create1");
}

EventLoop::~EventLoop() {
  ::close(epoll_fd_);
}

void EventLoop::add(int fd, std::function<void()> on_readable) {
  Handlers& h = handlers_[fd];
  h.readable = std::move(on_readable);
  if (!update(fd, h)) {
    const int err = errno;
    handlers_.erase(fd);
    throw std::system_error(err, std::generic_category(), "epoll_ctl add");
  }
}

void EventLoop::watch_readable(int fd, std::function<void()> on_readable) {
  Handlers& h = handlers_[fd];
  h.readable = std::move(on_readable);
  if (!update(fd, h)) throw std::system_error(errno, std::generic_category(), "epoll_ctl");
  if (!h.registered) handlers_.erase(fd);
}

void EventLoop::watch_writable(int fd, std::function<void()> on_writable) {
  Handlers& h = handlers_[fd];
  h.writable = std::move(on_writable);
  if (!update(fd, h)) throw std::system_error(errno, std::generic_category(), "epoll_ctl");
  if (!h.registered) handlers_.erase(fd);
}

bool EventLoop::update(int fd, Handlers& h) {
  epoll_event ev{};
  ev.events = (h.readable ? EPOLLIN : 0U) | (h.writable ? EPOLLOUT : 0U);
  ev.data.fd = fd;
  if (ev.events == 0) {
    if (h.registered) (void)::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
    h.registered = false;
    return true;
  }
  if (::epoll_ctl(epoll_fd_, h.registered ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, fd, &ev) != 0) {
    return false;
  }
  h.registered = true;
  return true;
}

void EventLoop::remove(int fd) {
  (void)::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
  handlers_.erase(fd);
}

void EventLoop::run_once(Duration max_wait) {
  std::array<epoll_event, 64> events{};
  const std::int64_t ms = max_wait.ns <= 0 ? 0 : (max_wait.ns + 999999) / 1000000;
  const int n = ::epoll_wait(epoll_fd_, events.data(), static_cast<int>(events.size()),
                             static_cast<int>(std::min<std::int64_t>(ms, 60000)));
  if (n < 0) {
    if (errno == EINTR) return;
    throw std::system_error(errno, std::generic_category(), "epoll_wait");
  }
  for (int i = 0; i < n && !stopped_; ++i) {
    const epoll_event& e = events[static_cast<std::size_t>(i)];
    const int fd = e.data.fd;
    // A failed or hung-up descriptor is reported to both sides: a read or write tells which.
    const bool failed = (e.events & (EPOLLERR | EPOLLHUP)) != 0;
    if ((e.events & EPOLLOUT) != 0 || failed) {
      auto it = handlers_.find(fd);
      if (it != handlers_.end() && it->second.writable) {
        // Copy: the handler may remove itself.
        const std::function<void()> handler = it->second.writable;
        handler();
      }
    }
    if ((e.events & EPOLLIN) != 0 || failed) {
      auto it = handlers_.find(fd);
      if (it != handlers_.end() && it->second.readable) {
        const std::function<void()> handler = it->second.readable;
        handler();
      }
    }
  }
}

bool EventLoop::run_until(const std::function<bool()>& done, Duration timeout) {
  const Time deadline = monotonic_now() + timeout;
  while (!done()) {
    const Time now = monotonic_now();
    if (now >= deadline || stopped_) return false;
    run_once(deadline - now);
  }
  return true;
}

void EventLoop::run() {
  while (!stopped_) run_once(ref::seconds(1));
}

Timer::Timer(EventLoop& loop, std::function<void()> on_expiry)
    : loop_(loop), on_expiry_(std::move(on_expiry)) {
  fd_ = ::timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  if (fd_ < 0) throw std::system_error(errno, std::generic_category(), "timerfd_create");
  loop_.add(fd_, [this] {
    std::uint64_t expirations = 0;
    if (::read(fd_, &expirations, sizeof expirations) > 0) on_expiry_();
  });
}

Timer::~Timer() {
  loop_.remove(fd_);
  ::close(fd_);
}

void Timer::arm(Time at) {
  itimerspec spec{};
  // An all-zero it_value disarms: a due time at or before the epoch fires at 1 ns instead.
  const std::int64_t ns = at.ns <= 0 ? 1 : at.ns;
  spec.it_value.tv_sec = static_cast<time_t>(ns / 1000000000LL);
  spec.it_value.tv_nsec = static_cast<long>(ns % 1000000000LL);
  (void)::timerfd_settime(fd_, TFD_TIMER_ABSTIME, &spec, nullptr);
}

void Timer::disarm() {
  const itimerspec spec{};
  (void)::timerfd_settime(fd_, 0, &spec, nullptr);
}

}  // namespace rdcc::udp
