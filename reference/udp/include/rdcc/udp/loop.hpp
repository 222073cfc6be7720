// The event loop: epoll over sockets and timers, and the monotonic clock mapped to
// rdcc::ref::Time (CLOCK_MONOTONIC nanoseconds). Single-threaded; every callback runs on it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>

#include "rdcc/reference/time.hpp"

namespace rdcc::udp {

using ref::Duration;
using ref::Time;

// CLOCK_MONOTONIC as endpoint time.
[[nodiscard]] Time monotonic_now();
// CLOCK_REALTIME now, in nanoseconds: what the kernel's receive timestamps are read against.
[[nodiscard]] std::int64_t realtime_now_ns();
// When a datagram the kernel stamped `kernel_time_ns` (CLOCK_REALTIME; 0: not stamped) arrived,
// on a clock that read `at` when CLOCK_REALTIME read `real_now_ns`: never after `at` nor before
// that clock's zero; `at` when the datagram has no stamp. Read both clocks after the datagram
// was received: a stamp later than `real_now_ns` counts as `at`.
[[nodiscard]] Time kernel_arrival(std::int64_t kernel_time_ns, Time at, std::int64_t real_now_ns);

class EventLoop {
 public:
  EventLoop();
  ~EventLoop();
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  // Calls `on_readable` whenever `fd` is readable. The caller keeps `fd` open until remove().
  void add(int fd, std::function<void()> on_readable);
  // Calls `on_readable` whenever `fd` is readable, or no longer (null: reading paused, as of a
  // peer whose answers are not read); `fd` stays watched for whatever else is asked of it.
  void watch_readable(int fd, std::function<void()> on_readable);
  // Calls `on_writable` whenever `fd` can take more output (or has failed), or no longer (null).
  void watch_writable(int fd, std::function<void()> on_writable);
  // Stops watching `fd` for anything.
  void remove(int fd);

  // Runs callbacks for at most `max_wait` (or until stop()); returns after the first wake-up
  // that ran at least one callback, or when `max_wait` has passed.
  void run_once(Duration max_wait);
  // Runs until `done()` holds (true) or `timeout` passes (false). `done` is checked after
  // every wake-up.
  bool run_until(const std::function<bool()>& done, Duration timeout);
  // Runs until stop().
  void run();
  void stop() { stopped_ = true; }
  [[nodiscard]] bool stopped() const { return stopped_; }

 private:
  int epoll_fd_ = -1;
  bool stopped_ = false;
  struct Handlers {
    std::function<void()> readable;
    std::function<void()> writable;
    bool registered = false;  // with epoll
  };
  // Registers, changes or drops `fd` with epoll for what its handlers ask; false on failure.
  bool update(int fd, Handlers& h);
  std::map<int, Handlers> handlers_;
};

// A one-shot timer on CLOCK_MONOTONIC (timerfd) that calls back on its loop when due.
class Timer {
 public:
  Timer(EventLoop& loop, std::function<void()> on_expiry);
  ~Timer();
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;

  void arm(Time at);  // replaces any earlier arming; a time already past fires at once
  void disarm();
  // Arms at `at` if set, disarms otherwise (what next_timeout() returns).
  void set(std::optional<Time> at) { at ? arm(*at) : disarm(); }

 private:
  EventLoop& loop_;
  int fd_ = -1;
  std::function<void()> on_expiry_;
};

}  // namespace rdcc::udp
