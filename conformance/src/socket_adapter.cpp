// The real-network adapters (the only file of the runner that knows about sockets and
// processes): udp:HOST:PORT[,data=PORT] talks to a running endpoint; exec:COMMAND starts one
// per scenario with its stdin/stdout as the upper tester (docs/upper-tester.md). The tester
// binds its control and data sockets on the loopback address of the IUT's family, with
// ports the system picks; time is the monotonic clock from the start of the scenario.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <algorithm>

#include "rdcc/conformance/adapter.hpp"

namespace rdcc::conformance {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

// How long the upper tester may take to answer one request, and the IUT to bind its port.
constexpr int kUpperTimeoutMs = 5000;
constexpr int kReadyTimeoutMs = 5000;

class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() { reset(); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  Fd& operator=(Fd&& o) noexcept {
    reset();
    fd_ = o.fd_;
    o.fd_ = -1;
    return *this;
  }
  [[nodiscard]] int get() const { return fd_; }
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

sockaddr_storage to_sockaddr(const Address& a, socklen_t& len) {
  sockaddr_storage ss{};
  if (a.ipv6) {
    sockaddr_in6 s6{};
    s6.sin6_family = AF_INET6;
    s6.sin6_port = htons(a.port);
    std::memcpy(&s6.sin6_addr, a.ip.data(), 16);
    std::memcpy(&ss, &s6, sizeof s6);
    len = sizeof s6;
  } else {
    sockaddr_in s4{};
    s4.sin_family = AF_INET;
    s4.sin_port = htons(a.port);
    std::memcpy(&s4.sin_addr, a.ip.data(), 4);
    std::memcpy(&ss, &s4, sizeof s4);
    len = sizeof s4;
  }
  return ss;
}

Address from_sockaddr(const sockaddr_storage& ss) {
  Address a;
  if (ss.ss_family == AF_INET6) {
    sockaddr_in6 s6{};
    std::memcpy(&s6, &ss, sizeof s6);
    a.ipv6 = true;
    std::memcpy(a.ip.data(), &s6.sin6_addr, 16);
    a.port = ntohs(s6.sin6_port);
  } else {
    sockaddr_in s4{};
    std::memcpy(&s4, &ss, sizeof s4);
    std::memcpy(a.ip.data(), &s4.sin_addr, 4);
    a.port = ntohs(s4.sin_port);
  }
  return a;
}

// A UDP socket bound to `ip` with a port the system picks; its address in `bound`.
std::optional<std::string> open_udp(const Address& ip, Fd& fd, Address& bound) {
  fd = Fd(::socket(ip.ipv6 ? AF_INET6 : AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  if (fd.get() < 0) return std::string("socket: ") + std::strerror(errno);
  Address any = ip;
  any.port = 0;
  socklen_t len = 0;
  auto ss = to_sockaddr(any, len);
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&ss), len) != 0) {  // NOLINT: the sockets API
    return "bind " + any.to_string() + ": " + std::strerror(errno);
  }
  sockaddr_storage got{};
  socklen_t got_len = sizeof got;
  ::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&got), &got_len);  // NOLINT
  bound = from_sockaddr(got);
  return std::nullopt;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
  }
  return s;
}

class SocketAdapter final : public Adapter {
 public:
  explicit SocketAdapter(AdapterSpec spec) : spec_(std::move(spec)) {}

  ~SocketAdapter() override { stop_child(); }
  SocketAdapter(const SocketAdapter&) = delete;
  SocketAdapter& operator=(const SocketAdapter&) = delete;

  std::optional<std::string> start(const Scenario& s) override {
    if (!s.config.empty()) {
      unsupported_ = "the scenario configures the IUT (config " + s.config.begin()->first +
                     "=...), which only the reference adapter can do";
      return unsupported_;
    }
    Address loopback;
    if (spec_.kind == AdapterSpec::Kind::Udp) {
      const std::string text = spec_.host.find(':') != std::string::npos
                                   ? "[" + spec_.host + "]:" + std::to_string(spec_.port)
                                   : spec_.host + ":" + std::to_string(spec_.port);
      if (!Address::parse(text, iut_)) return "not an IP address: " + spec_.host;
      iut_data_ = iut_;
      iut_data_.port = spec_.data_port;
      loopback = iut_;
    } else {
      loopback = Address::v4(127, 0, 0, 1, 0);
    }
    if (auto e = open_udp(loopback, control_, tester_)) return e;
    if (auto e = open_udp(loopback, data_, tester_data_)) return e;
    started_ = Clock::now();
    if (spec_.kind == AdapterSpec::Kind::Exec) return spawn(s, loopback);
    return std::nullopt;
  }

  [[nodiscard]] Address iut_control() const override { return iut_; }
  [[nodiscard]] Address iut_data() const override { return iut_data_; }
  [[nodiscard]] Address tester_control() const override { return tester_; }
  [[nodiscard]] Address tester_data() const override { return tester_data_; }
  [[nodiscard]] bool virtual_time() const override { return false; }
  [[nodiscard]] std::string describe() const override {
    return spec_.kind == AdapterSpec::Kind::Udp ? "udp:" + iut_.to_string() : "exec:" + spec_.command;
  }
  [[nodiscard]] Time now() override {
    return Time{std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - started_).count()};
  }

  void send(const Packet& p) override {
    if (p.from != tester_control()) {
      // from=: a datagram from another host needs the in-process reference adapter.
      unsupported_ = "sending from " + p.from.to_string() + " (from=) needs the in-process reference IUT";
      return;
    }
    socklen_t len = 0;
    auto ss = to_sockaddr(p.to, len);
    const int fd = control_.get();  // data too leaves from the RDCC address
    // A lost datagram is what the network may do; the scenario's expectations judge it.
    (void)::sendto(fd, p.payload.data(), p.payload.size(), 0,
                   reinterpret_cast<const sockaddr*>(&ss), len);  // NOLINT: the sockets API
  }

  std::optional<Packet> receive(Time deadline) override {
    for (;;) {
      const Time t = now();
      const std::int64_t wait_ms = t >= deadline ? 0 : (deadline - t).ns / 1000000 + 1;
      std::array<pollfd, 2> fds{{{control_.get(), POLLIN, 0}, {data_.get(), POLLIN, 0}}};
      const int n = ::poll(fds.data(), fds.size(), static_cast<int>(wait_ms));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        if (now() >= deadline) return std::nullopt;
        continue;
      }
      for (std::size_t i = 0; i < fds.size(); ++i) {
        if ((fds[i].revents & POLLIN) == 0) continue;
        std::array<std::byte, 65536> buf{};
        sockaddr_storage from{};
        socklen_t from_len = sizeof from;
        const ssize_t got = ::recvfrom(fds[i].fd, buf.data(), buf.size(), 0,
                                       reinterpret_cast<sockaddr*>(&from), &from_len);  // NOLINT
        if (got < 0) continue;
        Packet p;
        p.time = now();
        p.from = from_sockaddr(from);
        p.to = i == 0 ? tester_ : tester_data_;
        p.data = i == 1;
        p.payload.assign(buf.begin(), buf.begin() + got);
        return p;
      }
    }
  }

  UpperResponse upper(const nlohmann::json& request) override {
    if (spec_.kind != AdapterSpec::Kind::Exec || child_ <= 0 || child_exited_) {
      return json{{"ok", false}, {"error", "unsupported"},
                  {"detail", "the udp: adapter has no upper tester; use exec:"}};
    }
    auto r = exchange(request);
    if (!r) return json{{"ok", false}, {"error", "no_answer"}, {"detail", child_status()}};
    return *r;
  }

  std::optional<std::string> queue(const QueueSample&) override {
    unsupported_ = "queue observations need the in-process CRN (reference:crn)";
    return unsupported_;
  }
  std::vector<ref::Event> take_events() override { return {}; }
  [[nodiscard]] std::optional<std::pair<std::uint64_t, Duration>> receiver_budget() const override {
    return std::nullopt;
  }
  [[nodiscard]] std::optional<std::string> unsupported() const override {
    if (child_exited_ && exit_code_ == 127) {
      return std::string("the IUT command exited with 127 (not supported)");
    }
    return unsupported_;
  }

 private:
  std::optional<std::string> spawn(const Scenario& s, const Address& loopback) {
    // Ports for the IUT: picked by the system, released, then handed to the command.
    Fd probe_c, probe_d;
    Address rdcc, data;
    if (auto e = open_udp(loopback, probe_c, rdcc)) return e;
    if (auto e = open_udp(loopback, probe_d, data)) return e;
    probe_c.reset();
    probe_d.reset();
    iut_ = rdcc;
    iut_data_ = data;
    std::string cmd = replace_all(spec_.command, "{rdcc_port}", std::to_string(rdcc.port));
    cmd = replace_all(cmd, "{data_port}", std::to_string(data.port));
    cmd = replace_all(cmd, "{tester_port}", std::to_string(tester_.port));
    cmd = replace_all(cmd, "{tester_data_port}", std::to_string(tester_data_.port));
    int in_pipe[2];
    int out_pipe[2];
    if (::pipe2(in_pipe, O_CLOEXEC) != 0 || ::pipe2(out_pipe, O_CLOEXEC) != 0) {
      return std::string("pipe: ") + std::strerror(errno);
    }
    child_ = ::fork();
    if (child_ < 0) return std::string("fork: ") + std::strerror(errno);
    if (child_ > 0) ::setpgid(child_, child_);
    if (child_ == 0) {
      // Its own process group: the shell and whatever it starts end together.
      ::setpgid(0, 0);
      ::dup2(in_pipe[0], 0);
      ::dup2(out_pipe[1], 1);
      const int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
      if (null >= 0) ::dup2(null, 2);  // the IUT's log is not the tester's console
      ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(in_pipe[0]);
    ::close(out_pipe[1]);
    to_child_ = Fd(in_pipe[1]);
    from_child_ = Fd(out_pipe[0]);
    // Ready: the upper tester answers hello (a scenario that uses it), or the RDCC port is bound.
    const bool needs_upper = std::any_of(s.steps.begin(), s.steps.end(),
                                         [](const Step& st) { return st.kind == Step::Kind::Upper; });
    if (!needs_upper) return wait_bound(rdcc);
    auto hello = exchange(json{{"op", "hello"}});
    if (!hello) return "the IUT did not answer hello: " + child_status();
    if (!hello->value("ok", false)) {
      if (hello->value("error", std::string()) == "unsupported") {
        unsupported_ = "the IUT said unsupported: " + hello->value("detail", std::string());
        return unsupported_;
      }
      return "the IUT refused hello: " + hello->dump();
    }
    return std::nullopt;
  }

  // Ready when a UDP socket is bound to the IUT's RDCC port (/proc/net/udp, udp6), or an
  // error once the command has ended or kReadyTimeoutMs has passed.
  std::optional<std::string> wait_bound(const Address& rdcc) {
    char port[8];
    std::snprintf(port, sizeof port, ":%04X ", rdcc.port);
    const auto until = Clock::now() + std::chrono::milliseconds(kReadyTimeoutMs);
    while (Clock::now() < until) {
      for (const char* table : {"/proc/net/udp", "/proc/net/udp6"}) {
        std::ifstream in(table);
        std::string line;
        while (std::getline(in, line)) {
          // "  sl  local_address rem_address ...": the local address is the second column.
          const auto local = line.find(':', line.find(':') + 1);
          if (local != std::string::npos && line.compare(local, 6, port) == 0) return std::nullopt;
        }
      }
      reap(false);
      if (child_exited_) return child_status();
      ::usleep(5000);
    }
    return "the IUT command did not bind UDP port " + std::to_string(rdcc.port) + " within " +
           std::to_string(kReadyTimeoutMs) + " ms";
  }

  std::optional<json> exchange(const json& request) {
    const std::string line = request.dump() + "\n";
    signal(SIGPIPE, SIG_IGN);
    if (::write(to_child_.get(), line.data(), line.size()) != static_cast<ssize_t>(line.size())) {
      reap(false);
      return std::nullopt;
    }
    const auto until = Clock::now() + std::chrono::milliseconds(kUpperTimeoutMs);
    for (;;) {
      const auto nl = pending_.find('\n');
      if (nl != std::string::npos) {
        const std::string answer = pending_.substr(0, nl);
        pending_.erase(0, nl + 1);
        auto j = json::parse(answer, nullptr, false);
        if (j.is_discarded()) return json{{"ok", false}, {"error", "bad_answer"}, {"detail", answer}};
        return j;
      }
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now());
      if (left.count() <= 0) return std::nullopt;
      pollfd p{from_child_.get(), POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
      char buf[4096];
      const ssize_t n = ::read(from_child_.get(), buf, sizeof buf);
      if (n <= 0) {
        reap(true);
        return std::nullopt;
      }
      pending_.append(buf, static_cast<std::size_t>(n));
    }
  }

  // Collects the child's exit status if it has ended (waiting up to a second if `wait`).
  void reap(bool wait) {
    if (child_ <= 0 || child_exited_) return;
    for (int i = 0; i < (wait ? 100 : 1); ++i) {
      int status = 0;
      if (::waitpid(child_, &status, WNOHANG) == child_) {
        child_exited_ = true;
        exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        return;
      }
      if (wait) ::usleep(10000);
    }
  }

  std::string child_status() {
    reap(true);
    if (child_exited_) return "the IUT command exited with status " + std::to_string(exit_code_);
    return "the IUT command is running but did not answer within " +
           std::to_string(kUpperTimeoutMs) + " ms";
  }

  void stop_child() {
    if (child_ <= 0) return;
    to_child_.reset();
    reap(false);
    if (!child_exited_) {
      ::kill(-child_, SIGTERM);
      reap(true);
    }
    if (!child_exited_) {
      ::kill(-child_, SIGKILL);
      ::waitpid(child_, nullptr, 0);
    }
    ::kill(-child_, SIGKILL);  // anything of the group the shell left behind
  }

  AdapterSpec spec_;
  Fd control_, data_, to_child_, from_child_;
  Address iut_, iut_data_, tester_, tester_data_;
  Clock::time_point started_ = Clock::now();
  pid_t child_ = -1;
  bool child_exited_ = false;
  int exit_code_ = 0;
  std::string pending_;
  std::optional<std::string> unsupported_;
};

}  // namespace

std::unique_ptr<Adapter> make_socket_adapter(const AdapterSpec& spec) {
  return std::make_unique<SocketAdapter>(spec);
}

}  // namespace rdcc::conformance
