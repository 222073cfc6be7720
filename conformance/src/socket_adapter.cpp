// The real-network adapters (the only file of the runner that knows about processes; the
// sockets are reference/udp's UdpSocket, which sets DSCP and ECN on every datagram sent and
// reads them on every datagram received): udp:HOST:PORT[,data=PORT] talks to a running
// endpoint; exec:COMMAND starts one per scenario with its stdin/stdout as the upper tester
// (docs/upper-tester.md) and its standard error kept for the report. The tester binds its
// control and data sockets on the loopback address of the IUT's family, with ports the system
// picks, and an "other" host's socket on 127.0.0.3 (IPv4 loopback only) for from=$other; time
// is the monotonic clock from the start of the scenario. Only the IUT's datagrams reach the
// scenario (from_iut): any other source is foreign, dropped and counted, never judged. An exec:
// IUT that ends by itself before the scenario does is reported with its status (iut_exit).
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <fstream>
#include <system_error>
#include <thread>

#include "rdcc/codec/codec.hpp"
#include "rdcc/codec/json.hpp"
#include "rdcc/codec/json_input.hpp"
#include "rdcc/conformance/adapter.hpp"
#include "rdcc/udp/loop.hpp"
#include "rdcc/udp/sockaddr.hpp"
#include "rdcc/udp/socket.hpp"

namespace rdcc::conformance {
namespace {

// A hello's "class_dscp": eight DSCPs, class 0 first; null: the IUT knows none. Anything else is
// malformed (hello() refuses it, naming the value).
std::optional<ClassDscps> class_dscps_of(const nlohmann::json& v) {
  if (!v.is_array() || v.size() != ClassDscps{}.size()) return std::nullopt;
  ClassDscps out{};
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (!v[i].is_number_unsigned() || v[i].get<std::uint64_t>() > 63) return std::nullopt;
    out.at(i) = static_cast<std::uint8_t>(v[i].get<std::uint64_t>());
  }
  return out;
}

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

// How long the upper tester may take to answer one request, and the IUT to bind its port.
constexpr int kUpperTimeoutMs = 5000;
constexpr int kReadyTimeoutMs = 5000;
// How much of an upper tester's answer a reason quotes.
constexpr std::size_t kAnswerExcerpt = 400;

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

// A UDP socket bound to `ip` with `port` (0: one the system picks).
std::optional<std::string> open_udp(const Address& ip, std::optional<udp::UdpSocket>& sock,
                                    std::uint16_t port = 0) {
  Address any = ip;
  any.port = port;
  try {
    sock.emplace(any);
  } catch (const std::system_error& e) {
    return "bind " + any.to_string() + ": " + e.what();
  }
  return std::nullopt;
}

// The ECN codepoints (RFC 3168): the tester's data is ECN-capable, CE when the scenario says.
constexpr std::uint8_t kEct0 = 2;
constexpr std::uint8_t kCe = 3;

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
  }
  return s;
}

class SocketAdapter final : public Adapter {
 public:
  explicit SocketAdapter(AdapterSpec spec) : spec_(std::move(spec)) {}

  ~SocketAdapter() override {
    stop_child();
    if (log_reader_.joinable()) log_reader_.join();
  }
  SocketAdapter(const SocketAdapter&) = delete;
  SocketAdapter& operator=(const SocketAdapter&) = delete;

  std::optional<std::string> start(const Scenario& s) override {
    pending_.clear();  // a scenario's datagrams are never sent into the next one's
    if (!s.config.empty()) {
      // exec: passes the configuration to the command it starts ({config}, {config_keys});
      // udp: reaches an IUT that is already running, which runs the scenario when it was
      // declared to run with that configuration (udp:...,KEY=VALUE).
      const bool placeholder = spec_.command.find("{config}") != std::string::npos ||
                               spec_.command.find("{config_keys}") != std::string::npos;
      if (spec_.kind == AdapterSpec::Kind::Udp) {
        for (const auto& [key, value] : s.config) {
          const auto it = spec_.configured.find(key);
          if (it != spec_.configured.end() && it->second == value) continue;
          unsupported_ =
              "the scenario configures the IUT (config " + config_keys_text(s.config) +
              "): udp: reaches an IUT that is already running; start it so and declare " + key +
              "=" + std::to_string(value) + " in --iut udp:...,KEY=VALUE (" +
              (it == spec_.configured.end() ? "not declared"
                                            : "declared " + std::to_string(it->second)) +
              "), or use exec: with {config}";
          return unsupported_;
        }
      } else if (!placeholder) {
        unsupported_ = "the scenario configures the IUT (config " + s.config.begin()->first +
                       "=...): the exec: command has no {config} or {config_keys} to take it";
        return unsupported_;
      }
    }
    // Queue observations go through the IUT's upper tester (`queue`, docs/upper-tester.md):
    // exec: only, whose command serves it on stdio.
    if (has_queue(s) && spec_.kind != AdapterSpec::Kind::Exec) {
      unsupported_ =
          "queue observations need the IUT's upper tester (op queue), which exec: "
          "serves on stdio, or the in-process CRN (reference:crn)";
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
      if (spec_.rocev2_port != 0) {
        iut_rocev2_ = iut_;
        iut_rocev2_.port = spec_.rocev2_port;
      }
      loopback = iut_;
    } else {
      loopback = Address::v4(127, 0, 0, 1, 0);
    }
    if (auto e = open_udp(loopback, control_)) return e;
    if (auto e = open_udp(loopback, data_, spec_.tester_data_port)) return e;
    // The checker judges the IUT's timing by when each packet reached the tester's kernel, not
    // by when this process got round to reading it.
    control_->timestamp_receipts();
    data_->timestamp_receipts();
    config_ = s.config;
    tester_ = control_->local();
    tester_data_ = data_->local();
    // Another host on the loopback network, for from=$other (an off-path host, an unconfigured
    // CRN): any 127.0.0.0/8 address is local on Linux.
    if (!loopback.ipv6 && loopback.ip[0] == 127 &&
        !open_udp(Address::v4(127, 0, 0, 3, 0), other_)) {
      other_addr_ = other_->local();
    }
    started_ = Clock::now();
    wake_jitter_ = Duration{};
    if (spec_.kind == AdapterSpec::Kind::Exec) return spawn(s, loopback);
    if (!spec_.upper.empty()) {
      if (auto e = connect_upper()) return e;
      if (needs_upper(s)) return hello(s);
    }
    return std::nullopt;
  }

  [[nodiscard]] Address iut_control() const override { return iut_; }
  [[nodiscard]] Address iut_data() const override { return iut_data_; }
  [[nodiscard]] Address iut_rocev2() const override { return iut_rocev2_; }
  [[nodiscard]] Address tester_control() const override { return tester_; }
  [[nodiscard]] Address tester_data() const override { return tester_data_; }
  [[nodiscard]] Address other_control() const override { return other_addr_; }
  [[nodiscard]] bool virtual_time() const override { return false; }
  [[nodiscard]] std::string describe() const override {
    return spec_.kind == AdapterSpec::Kind::Udp ? "udp:" + iut_.to_string()
                                                : "exec:" + spec_.command;
  }
  [[nodiscard]] Time now() override {
    return Time{
        std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - started_).count()};
  }

  void send(const Packet& p) override {
    udp::UdpSocket* sock = nullptr;
    if (p.from == tester_control()) {
      sock = &*control_;  // data too leaves from the RDCC address
    } else if (other_ && p.from == other_addr_) {
      sock = &*other_;
    } else {
      unsupported_ = "sending from " + p.from.to_string() +
                     " (from=) needs the in-process reference IUT; use from=$other";
      return;
    }
    // DSCP and ECN as the scenario gives them: data is ECN-capable (ECT(0)), CE on ce=1.
    const std::uint8_t ecn = !p.data ? 0 : p.ce ? kCe : kEct0;
    // Held until the runner next waits, reads or asks the IUT (flush()): the datagrams of
    // consecutive `send` steps leave in one sendmmsg, back to back as the scenario wrote them.
    // One sendto each let a tester descheduled between two spread them over milliseconds (a
    // CRN's queue, filled by a burst, then never reached B_th).
    pending_.push_back(Pending{sock, p.to, udp::tos(p.dscp, ecn), p.payload});
  }

  // Sends what send() held, in order, one sendmmsg per run of one socket's datagrams. A lost
  // datagram is what the network may do; the scenario's expectations judge it.
  void flush() {
    std::vector<udp::OutPacket> out;
    for (std::size_t i = 0; i < pending_.size();) {
      out.clear();
      std::size_t j = i;
      for (; j < pending_.size() && pending_[j].sock == pending_[i].sock; ++j) {
        out.push_back(udp::OutPacket{pending_[j].to, pending_[j].tos, pending_[j].bytes});
      }
      pending_[i].sock->send(out);
      i = j;
    }
    pending_.clear();
  }

  std::optional<Packet> receive(Time deadline) override {
    flush();
    for (;;) {
      if (!inbox_.empty()) {
        Packet p = std::move(inbox_.front());
        inbox_.pop_front();
        return p;
      }
      const Time t = now();
      // To the nanosecond (ppoll): poll's whole milliseconds made every `wait 20us` and every
      // short window of a scenario last a millisecond or more on a real IUT, long enough for a
      // grant's Lifetime to pass or a rate to recover between two steps meant to be adjacent.
      const std::int64_t wait_ns = t >= deadline ? 0 : (deadline - t).ns;
      const timespec timeout{static_cast<time_t>(wait_ns / 1000000000),
                             static_cast<long>(wait_ns % 1000000000)};
      std::array<pollfd, 3> fds{{{control_->fd(), POLLIN, 0},
                                 {data_->fd(), POLLIN, 0},
                                 {other_ ? other_->fd() : -1, POLLIN, 0}}};
      const int n = ::ppoll(fds.data(), fds.size(), &timeout, nullptr);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        const Time woke = now();
        if (n == 0 && wait_ns > 0 && woke > deadline) {
          wake_jitter_ = std::max(wake_jitter_, woke - deadline);
        }
        if (woke >= deadline) return std::nullopt;
        continue;
      }
      // Every socket is read, whichever poll named: a request the IUT sent before its data is
      // in the control socket by the time the data is in the data socket, and the round is put
      // in the order the kernel took the packets in. At most a turn's batches per socket
      // (receive_turn): a flood on one socket leaves the others their turn.
      // The clocks are read once the sockets are drained: every kernel stamp then lies before
      // them. Read before, a datagram that arrived between the reading and recvmmsg (the
      // tester descheduled there, as on a loaded host) had no age and took the time of the
      // reading: sixteen paced data packets spread over 579 us were judged as one burst
      // (RDCC-GRANT-05, sender-pacing, about 1 play in 20 with both cores busy).
      std::array<udp::UdpSocket*, 3> socks{&*control_, &*data_, other_ ? &*other_ : nullptr};
      std::vector<Packet> round;
      std::vector<std::int64_t> stamps;  // the kernel's, one per packet of the round (0: none)
      for (std::size_t i = 0; i < socks.size(); ++i) {
        if (socks[i] == nullptr) continue;
        socks[i]->receive_turn([&](std::span<const udp::InPacket> batch) {
          for (const udp::InPacket& in : batch) {
            if (!from_iut(in.from, i == 1)) {
              foreign(in.from);
              continue;
            }
            Packet p;
            p.from = in.from;
            p.to = socks[i]->local();
            p.data = i == 1;
            p.dscp = udp::dscp_of(in.tos);
            p.ce = udp::ecn_of(in.tos) == kCe;
            p.payload.assign(in.bytes.begin(), in.bytes.end());
            round.push_back(std::move(p));
            stamps.push_back(in.kernel_time_ns);
          }
        });
      }
      const Time at = now();
      const std::int64_t real_now = udp::realtime_now_ns();
      for (std::size_t i = 0; i < round.size(); ++i) {
        round[i].time = at;
        if (stamps[i] != 0) round[i].kernel_time = udp::kernel_arrival(stamps[i], at, real_now);
      }
      std::stable_sort(round.begin(), round.end(), [](const Packet& a, const Packet& b) {
        return a.kernel_time.value_or(a.time) < b.kernel_time.value_or(b.time);
      });
      for (auto& p : round) inbox_.push_back(std::move(p));
    }
  }

  [[nodiscard]] Duration wake_jitter() const override { return wake_jitter_; }

  UpperResponse upper(const nlohmann::json& request) override {
    flush();
    const bool exec = spec_.kind == AdapterSpec::Kind::Exec && child_ > 0 && !child_exited_;
    const bool tcp = spec_.kind == AdapterSpec::Kind::Udp && from_child_.get() >= 0;
    if (!exec && !tcp) {
      return json{{"ok", false},
                  {"error", "unsupported"},
                  {"detail",
                   "this udp: IUT has no upper tester: give its TCP address "
                   "(udp:HOST:PORT,upper=tcp:HOST:PORT), or use exec:"}};
    }
    auto r = exchange(request);
    if (!r) return json{{"ok", false}, {"error", "no_answer"}, {"detail", child_status()}};
    // A running IUT outlives the scenario: what the scenario submitted is cancelled at its end.
    if (tcp && request.value("op", std::string()) == "submit" && r->value("ok", false) &&
        r->contains("handle")) {
      submitted_.push_back((*r)["handle"]);
    }
    return *r;
  }

  std::optional<std::string> queue(const QueueSample& q) override {
    flush();
    // A real CRN sends its reports to the flow's addresses: never let it aim them off this host.
    for (const Address* a : {&q.source, &q.destination}) {
      if (!a->is_loopback()) {
        unsupported_ = "the queue observation names the flow address " + a->to_string() +
                       ", off this host: a real CRN would send its report there (write the "
                       "flow with loopback addresses or $tester for a real IUT)";
        return unsupported_;
      }
    }
    if (!hello_ || !offers(*hello_, "queue")) {
      unsupported_ = "queue observations need the IUT's upper tester op queue";
      return unsupported_;
    }
    auto r = exchange(queue_request(q));
    if (!r) return "the IUT did not answer queue: " + child_status();
    if (!r->value("ok", false)) {
      if (r->value("error", std::string()) == "unsupported") {
        unsupported_ = "the IUT said unsupported to queue: " + r->value("detail", std::string());
        return unsupported_;
      }
      return "the IUT refused queue: " + excerpt(*r, kAnswerExcerpt);
    }
    return std::nullopt;
  }
  std::vector<ref::Event> take_events() override { return {}; }
  [[nodiscard]] std::optional<std::pair<std::uint64_t, Duration>> receiver_budget() const override {
    // The scenario's configuration is what the IUT runs with (exec: {config}); else what it
    // declared. Without D_max, credit counts as reclaimed at its Lifetime: the most lenient
    // accounting, as the checker cannot know how much later the IUT may reclaim it.
    const auto budget = config_.find("budget");
    const auto d_max = config_.find("d_max_us");
    std::optional<std::uint64_t> g = spec_.declared.budget;
    if (budget != config_.end()) g = budget->second;
    if (!g) return std::nullopt;
    Duration d = spec_.declared.d_max.value_or(Duration{});
    if (d_max != config_.end()) d = ref::microseconds(static_cast<std::int64_t>(d_max->second));
    return std::make_pair(*g, d);
  }
  std::string finish() override {
    flush();
    // Before the end of the scenario closes its standard input (an upper tester on stdio ends
    // there): an IUT that has already ended did so by itself.
    reap(false);
    if (child_exited_) exited_during_ = exit_;
    close_upper();
    stop_child();
    // Every writer of the pipe is gone with the process group: the reader sees its end.
    if (log_reader_.joinable()) log_reader_.join();
    return std::move(log_);
  }
  [[nodiscard]] std::optional<nlohmann::json> hello() const override { return hello_; }
  [[nodiscard]] std::optional<IutExit> iut_exit() const override { return exited_during_; }
  [[nodiscard]] const ForeignDatagrams& foreign() const override { return foreign_; }
  [[nodiscard]] std::optional<std::uint8_t> unscheduled_dscp() const override {
    if (hello_ && hello_->contains("unscheduled_dscp")) {
      const auto& d = (*hello_)["unscheduled_dscp"];
      if (d.is_number_unsigned() && d.get<std::uint64_t>() < 64) {
        return static_cast<std::uint8_t>(d.get<std::uint64_t>());
      }
      return std::nullopt;  // null: none configured
    }
    return spec_.unscheduled_dscp;
  }
  [[nodiscard]] std::optional<ClassDscps> class_dscps() const override {
    if (hello_ && hello_->contains("class_dscp")) return class_dscps_of((*hello_)["class_dscp"]);
    return spec_.class_dscps;
  }
  [[nodiscard]] const ref::DataFraming& data_framing() const override { return spec_.data_framing; }
  [[nodiscard]] std::optional<std::string> unsupported() const override {
    if (child_exited_ && exit_.signal == 0 && exit_.status == 127) {
      return std::string("the IUT command exited with 127 (not supported)");
    }
    return unsupported_;
  }

 private:
  std::optional<std::string> spawn(const Scenario& s, const Address& loopback) {
    // Ports for the IUT: picked by the system, released, then handed to the command.
    const bool rocev2_given = spec_.command.find("{rocev2_port}") != std::string::npos;
    Address rdcc, data, rocev2;
    {
      std::optional<udp::UdpSocket> probe_c, probe_d, probe_r;
      if (auto e = open_udp(loopback, probe_c)) return e;
      if (auto e = open_udp(loopback, probe_d)) return e;
      if (rocev2_given) {
        if (auto e = open_udp(loopback, probe_r)) return e;
        rocev2 = probe_r->local();
      }
      rdcc = probe_c->local();
      data = probe_d->local();
    }
    iut_ = rdcc;
    iut_data_ = data;
    iut_rocev2_ = rocev2;
    // The reference node's mutants (kill matrix through real nodes): {mutant}, or appended.
    std::string mutants;
    for (const auto& m : spec_.mutants) mutants += (mutants.empty() ? "" : " --mutant ") + m;
    std::string cmd = command_with_mutant(spec_.command, mutants);
    cmd = replace_all(cmd, "{rdcc_port}", std::to_string(rdcc.port));
    cmd = replace_all(cmd, "{data_port}", std::to_string(data.port));
    cmd = replace_all(cmd, "{rocev2_port}", std::to_string(rocev2.port));
    cmd = replace_all(cmd, "{tester_port}", std::to_string(tester_.port));
    cmd = replace_all(cmd, "{tester_data_port}", std::to_string(tester_data_.port));
    // The scenario's configuration: as the reference node's options, or as written.
    if (cmd.find("{config}") != std::string::npos) {
      auto options = node_config_options(s.role, s.config);
      if (auto* e = std::get_if<std::string>(&options)) {
        unsupported_ = *e;
        return unsupported_;
      }
      std::string text;
      for (const auto& o : std::get<std::vector<std::string>>(options)) {
        text += (text.empty() ? "" : " ") + o;
      }
      cmd = replace_all(cmd, "{config}", text);
    }
    cmd = replace_all(cmd, "{config_keys}", config_keys_text(s.config));
    // The IUT's standard error, kept for the report: a pipe that a thread drains, so that it
    // never fills and blocks the IUT (and /dev/stderr opened by the IUT is the same pipe).
    int err_pipe[2];
    if (::pipe2(err_pipe, O_CLOEXEC) != 0) return std::string("pipe: ") + std::strerror(errno);
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
      // The IUT's log is not the tester's console: it goes to the report.
      ::dup2(err_pipe[1], 2);
      ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(in_pipe[0]);
    ::close(out_pipe[1]);
    ::close(err_pipe[1]);
    log_reader_ = std::thread([this, fd = err_pipe[0]] {
      char buf[4096];
      for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR);) {
        if (n > 0) log_.append(buf, static_cast<std::size_t>(n));  // read after join() only
      }
      ::close(fd);
    });
    to_child_ = Fd(in_pipe[1]);
    from_child_ = Fd(out_pipe[0]);
    // Ready: the upper tester answers hello (a scenario that uses it), or the RDCC port is bound.
    if (!needs_upper(s)) {
      // Every IUT port the command was given is bound (a CRN may take only {data_port}).
      const bool data_given = spec_.command.find("{data_port}") != std::string::npos;
      const bool rdcc_given = spec_.command.find("{rdcc_port}") != std::string::npos;
      if (rdcc_given || !data_given) {
        if (auto e = wait_bound(rdcc)) return e;
      }
      if (rocev2_given) {
        if (auto e = wait_bound(rocev2)) return e;
      }
      return data_given ? wait_bound(data) : std::nullopt;
    }
    return hello(s);
  }

  static bool needs_upper(const Scenario& s) {
    return has_queue(s) || std::any_of(s.steps.begin(), s.steps.end(),
                                       [](const Step& st) { return st.kind == Step::Kind::Upper; });
  }
  static bool has_queue(const Scenario& s) {
    return std::any_of(s.steps.begin(), s.steps.end(),
                       [](const Step& st) { return st.kind == Step::Kind::Queue; });
  }

  // The upper tester's hello: what the IUT offers (docs/upper-tester.md).
  std::optional<std::string> hello(const Scenario& s) {
    auto hello = exchange(json{{"op", "hello"}});
    if (!hello) return "the IUT did not answer hello: " + child_status();
    if (!hello->value("ok", false)) {
      if (hello->value("error", std::string()) == "unsupported") {
        unsupported_ = "the IUT said unsupported: " + hello->value("detail", std::string());
        return unsupported_;
      }
      return "the IUT refused hello: " + excerpt(*hello, kAnswerExcerpt);
    }
    if (hello->contains("class_dscp") && !(*hello)["class_dscp"].is_null() &&
        !class_dscps_of((*hello)["class_dscp"])) {
      return "the IUT's hello has \"class_dscp\": " + excerpt((*hello)["class_dscp"], 80) +
             ", not eight DSCPs 0..63 (class 0 first) or null";
    }
    hello_ = *hello;
    if (has_queue(s) && !offers(*hello_, "queue")) {
      unsupported_ =
          "queue observations need the IUT's upper tester op queue, which its hello does "
          "not list (rdcc crn serves it with --upper-tester stdio)";
      return unsupported_;
    }
    return std::nullopt;
  }

  static bool offers(const json& hello, const std::string& op) {
    const auto ops = hello.find("ops");
    return ops != hello.end() && ops->is_array() &&
           std::find(ops->begin(), ops->end(), op) != ops->end();
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
      if (!answers_.empty()) {
        const LineSplitter::Line answer = std::move(answers_.front());
        answers_.pop_front();
        return answer_of(answer);
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
      // Lines of at most kJsonMaxLine octets: a longer answer is never held whole.
      answer_lines_.feed(std::string_view(buf, static_cast<std::size_t>(n)),
                         [this](LineSplitter::Line&& l) {
                           if (l.too_long != 0 || !l.text.empty()) answers_.push_back(std::move(l));
                         });
    }
  }

  // An answer line of the upper tester as a JSON object whose "ok", "error" and "detail" are of
  // their types (docs/upper-tester.md), so that the runner can read them; else bad_answer,
  // naming what was wrong with an excerpt of the line. Read with the bounds of every JSON
  // reader (json_input.hpp): an IUT's answer nested a million deep is refused, not copied.
  static json answer_of(const LineSplitter::Line& line) {
    const auto bad = [](const std::string& detail) {
      return json{{"ok", false}, {"error", "bad_answer"}, {"detail", detail}};
    };
    if (line.too_long != 0) return bad(line_too_long(line.too_long, kJsonMaxLine));
    const auto read = parse_json<json>(line.text, {kJsonMaxLine, kJsonMaxDepth});
    if (!read) return bad("not JSON: " + read.error().describe());
    const json& j = *read;
    if (!j.is_object()) return bad("not a JSON object: " + excerpt(line.text, kAnswerExcerpt));
    const auto ok = j.find("ok");
    if (ok == j.end() || !ok->is_boolean()) {
      return bad("'ok' is not true or false: " + excerpt(line.text, kAnswerExcerpt));
    }
    for (const char* key : {"error", "detail"}) {
      const auto it = j.find(key);
      if (it != j.end() && !it->is_string()) {
        return bad(std::string("'") + key +
                   "' is not a string: " + excerpt(line.text, kAnswerExcerpt));
      }
    }
    return j;
  }

  // Whether a datagram from `from` is the IUT's: from one of the addresses the tester knows it
  // by (its RDCC, data and RoCEv2 addresses: a receiver's NACKs leave from its data port), or,
  // to the data socket, from any port of a sender IUT's host (data leaves from a port of its
  // own, docs/data-transport.md). A CRN's are all the IUT's: its reports leave from an address
  // of its own and the data it forwards from the flow's source, neither known to the tester.
  [[nodiscard]] bool from_iut(const Address& from, bool data_socket) const {
    if (spec_.role == Role::Crn) return true;
    for (const Address* a : {&iut_, &iut_data_, &iut_rocev2_}) {
      if (a->port != 0 && from == *a) return true;
    }
    return data_socket && spec_.role == Role::Sender && from.ipv6 == iut_.ipv6 &&
           from.ip == iut_.ip;
  }
  // A datagram that is not the IUT's: counted, its source kept (the first few), dropped.
  void foreign(const Address& from) {
    ++foreign_.count;
    if (foreign_.sources.size() < ForeignDatagrams::kSourcesKept &&
        std::find(foreign_.sources.begin(), foreign_.sources.end(), from) ==
            foreign_.sources.end()) {
      foreign_.sources.push_back(from);
    }
  }

  // udp: a TCP connection to the running IUT's upper tester, for this scenario; exchange()
  // reads and writes it as it does an exec: IUT's standard output and input.
  std::optional<std::string> connect_upper() {
    Address at;
    if (!Address::parse(spec_.upper, at)) {
      return "upper=tcp:" + spec_.upper +
             ": not an IP address and port (a.b.c.d:PORT or [v6]:PORT)";
    }
    const udp::SockAddr sa = udp::to_sockaddr(at);
    Fd fd(::socket(at.ipv6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (fd.get() < 0) return std::string("cannot open a TCP socket: ") + std::strerror(errno);
    if (::connect(fd.get(), sa.get(), sa.len) != 0) {
      return "cannot connect to the upper tester at tcp:" + at.to_string() + ": " +
             std::strerror(errno) + " (is the IUT running with --upper-tester tcp:...?)";
    }
    const int one = 1;
    (void)::setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    to_child_ = Fd(::dup(fd.get()));
    from_child_ = std::move(fd);
    return std::nullopt;
  }

  // The end of a udp: scenario: its messages cancelled (an IUT that keeps running must not
  // carry them into the next scenario), then the connection closed.
  void close_upper() {
    if (spec_.kind != AdapterSpec::Kind::Udp || from_child_.get() < 0) return;
    for (const auto& handle : submitted_)
      (void)exchange(json{{"op", "cancel"}, {"handle", handle}});
    submitted_.clear();
    to_child_.reset();
    from_child_.reset();
    answer_lines_ = LineSplitter();
    answers_.clear();
  }

  // Collects the child's exit status if it has ended (waiting up to a second if `wait`).
  void reap(bool wait) {
    if (child_ <= 0 || child_exited_) return;
    for (int i = 0; i < (wait ? 100 : 1); ++i) {
      int status = 0;
      if (::waitpid(child_, &status, WNOHANG) == child_) {
        child_exited_ = true;
        exit_ =
            WIFSIGNALED(status) ? IutExit{0, WTERMSIG(status)} : IutExit{WEXITSTATUS(status), 0};
        return;
      }
      if (wait) ::usleep(10000);
    }
  }

  std::string child_status() {
    if (spec_.kind == AdapterSpec::Kind::Udp) {
      return "the upper tester at tcp:" + spec_.upper + " did not answer within " +
             std::to_string(kUpperTimeoutMs) + " ms, or closed the connection";
    }
    reap(true);
    if (child_exited_) return "the IUT command " + exit_.describe();
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
  std::optional<udp::UdpSocket> control_, data_, other_;
  // Datagrams send() holds for flush(), with their bytes.
  struct Pending {
    udp::UdpSocket* sock = nullptr;
    Address to;
    std::uint8_t tos = 0;
    std::vector<std::byte> bytes;
  };
  std::vector<Pending> pending_;
  Fd to_child_, from_child_;
  std::thread log_reader_;
  std::string log_;  // the IUT's standard error, written by log_reader_ until it ends
  Address iut_, iut_data_, iut_rocev2_, tester_, tester_data_, other_addr_;
  std::deque<Packet> inbox_;
  std::map<std::string, std::uint64_t> config_;  // the scenario's `config`
  Clock::time_point started_ = Clock::now();
  Duration wake_jitter_{};  // the latest this run's waits woke past their deadline
  pid_t child_ = -1;
  bool child_exited_ = false;
  IutExit exit_;                          // how the command ended, once child_exited_
  std::optional<IutExit> exited_during_;  // it ended by itself before finish()
  ForeignDatagrams foreign_;
  LineSplitter answer_lines_;               // the upper tester's answers, line by line
  std::deque<LineSplitter::Line> answers_;  // complete, not yet taken
  std::optional<std::string> unsupported_;
  std::optional<nlohmann::json> hello_;  // the upper tester's answer to hello
  std::vector<json> submitted_;          // udp: the handles this scenario's submits returned
};

}  // namespace

// exec: whether the shell finds the command's first word (a program, a builtin or a function),
// so that a mistyped path is one error for the run, not an "unsupported" per scenario (the
// shell's own exit status 127 for a command it cannot find).
std::optional<std::string> probe_command(const std::string& command) {
  const auto begin = command.find_first_not_of(" \t");
  if (begin == std::string::npos) return "the exec: command is empty";
  const std::string word = command.substr(begin, command.find_first_of(" \t;|&", begin) - begin);
  const pid_t pid = ::fork();
  if (pid < 0) return std::string("cannot fork: ") + std::strerror(errno);
  if (pid == 0) {
    const int null = ::open("/dev/null", O_WRONLY);
    if (null >= 0) ::dup2(null, 1);
    ::execl("/bin/sh", "sh", "-c", "command -v -- \"$1\"", "sh", word.c_str(),
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return std::nullopt;
  return "the IUT's command '" + word + "' is not found (exec: " + command + ")";
}

std::optional<std::string> probe_liveness(const AdapterSpec& spec, std::string* note) {
  if (spec.kind == AdapterSpec::Kind::Exec) return probe_command(spec.command);
  if (spec.kind != AdapterSpec::Kind::Udp) return std::nullopt;
  const std::string where = spec.host.find(':') != std::string::npos
                                ? "[" + spec.host + "]:" + std::to_string(spec.port)
                                : spec.host + ":" + std::to_string(spec.port);
  Address iut;
  if (!Address::parse(where, iut)) return "not an IP address: " + spec.host;
  // A connected socket, so that the kernel reports an ICMP port unreachable as ECONNREFUSED.
  const udp::SockAddr sa = udp::to_sockaddr(iut);
  Fd fd(::socket(iut.ipv6 ? AF_INET6 : AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  if (fd.get() < 0) return std::string("cannot open a UDP socket: ") + std::strerror(errno);
  if (::connect(fd.get(), sa.get(), sa.len) != 0) {
    return "cannot reach " + where + ": " + std::strerror(errno);
  }
  // A CREDIT_REQUEST for an association no receiver has given out: it creates no state, and a
  // receiver answers it with ERROR (UNKNOWN_ASSOCIATION) (Error Handling and Recovery).
  auto probe = message_from_json(nlohmann::ordered_json{{"type", "CREDIT_REQUEST"},
                                                        {"association_id", 0xFFFFFFFFU},
                                                        {"epoch", 0xFFFFU},
                                                        {"sequence_number", 1U},
                                                        {"message_id", 1U},
                                                        {"message_length", 1U},
                                                        {"binding_kind", "OPAQUE"},
                                                        {"binding_value", 1U}});
  if (!probe) return "cannot build the probe: " + probe.error().describe();
  std::array<std::byte, 128> buf{};
  const auto n = encode(*probe, buf);
  if (!n) return "cannot encode the probe";
  constexpr int kTries = 3;
  constexpr int kWaitMs = 300;
  for (int i = 0; i < kTries; ++i) {
    (void)::send(fd.get(), buf.data(), *n, 0);
    pollfd p{fd.get(), POLLIN, 0};
    if (::poll(&p, 1, kWaitMs) <= 0) continue;
    std::array<std::byte, 2048> in{};
    if (::recv(fd.get(), in.data(), in.size(), 0) >= 0) return std::nullopt;  // it answers
    if (errno == ECONNREFUSED) {
      return "nothing listens at udp:" + where +
             " (ICMP port unreachable): is the IUT running, "
             "and is this its RDCC port?";
    }
  }
  // Silence proves nothing of a sender or a CRN. A receiver answers the probe with ERROR
  // (UNKNOWN_ASSOCIATION), but one that does not is a conformance finding
  // (receiver-unknown-association-error judges it), not an absent IUT: a note, and the run goes on.
  if (spec.role == Role::Receiver && note != nullptr) {
    *note = "the IUT at udp:" + where +
            " did not answer a CREDIT_REQUEST for an unknown "
            "association within " +
            std::to_string(kTries * kWaitMs) +
            " ms (no ICMP port "
            "unreachable either): if it is not running, or this is not its RDCC port, the "
            "scenarios will be inconclusive";
  }
  return std::nullopt;
}

std::unique_ptr<Adapter> make_socket_adapter(const AdapterSpec& spec) {
  return std::make_unique<SocketAdapter>(spec);
}

}  // namespace rdcc::conformance
