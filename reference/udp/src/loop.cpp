#include "rdcc/udp/loop.hpp"

#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

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

EventLoop::EventLoop() {
  epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
  if (epoll_fd_ < 0) throw std::system_error(errno, std::generic_category(), "epoll_create1");
}

EventLoop::~EventLoop() {
  ::close(epoll_fd_);
}

void EventLoop::add(int fd, std::function<void()> on_readable) {
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = fd;
  if (::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) != 0) {
    throw std::system_error(errno, std::generic_category(), "epoll_ctl add");
  }
  handlers_[fd] = std::move(on_readable);
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
    auto it = handlers_.find(events[static_cast<std::size_t>(i)].data.fd);
    if (it == handlers_.end()) continue;
    // Copy: the handler may remove itself.
    const std::function<void()> handler = it->second;
    handler();
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
