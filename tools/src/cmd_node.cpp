// rdcc receiver | sender | crn: the reference endpoints as processes on real UDP sockets
// (reference/udp), for a vendor to run against their own implementation. docs/cli.md.
#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "commands.hpp"
#include "input.hpp"
#include "rdcc/codec/constants.hpp"
#include "rdcc/reference/random.hpp"
#include "rdcc/reference/variants.hpp"
#include "rdcc/testing/mutants.hpp"
#include "rdcc/testing/receiver_mutants.hpp"
#include "rdcc/testing/sender_mutants.hpp"
#include "rdcc/udp/loop.hpp"
#include "rdcc/udp/nodes.hpp"
#include "rdcc/udp/upper_tester.hpp"

namespace rdcc::tools {
namespace {

using Json = nlohmann::ordered_json;
using udp::Address;

// ---- options shared by the three nodes ----------------------------------------------------

struct Common {
  std::string config;  // consumed by expand_node_config before parsing; here for --help
  std::string name;
  std::string events;
  std::string address;
  std::uint16_t rdcc_port = 0;
  std::vector<std::string> crn;
  unsigned control_dscp = 46;
  std::vector<std::string> mutants;
  std::string variant;
};

[[noreturn]] void invalid(const std::string& option, const std::string& why) {
  throw CLI::ValidationError(option, why);
}

void add_common(CLI::App& sub, Common& c, const char* role) {
  sub.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  sub.add_option("--config", c.config,
                 "JSON object of options: keys are the long option names without dashes; "
                 "options given on the command line win");
  sub.add_option("--name", c.name, "name in events")->default_val(role);
  sub.add_option("--events", c.events, "write the endpoint's events to FILE as JSON lines");
  sub.add_option("--address", c.address, "this node's IP address (IPv4 or IPv6)")->required();
  sub.add_option("--rdcc-port,--port", c.rdcc_port,
                 "the domain's RDCC port (no default: \"Implementations MUST NOT assume a "
                 "default port value\")")
      ->required()
      ->check(CLI::Range(1, 65535));
  sub.add_option("--control-dscp", c.control_dscp, "DSCP of RDCC control messages")
      ->default_val(46)
      ->check(CLI::Range(0, 63));
  sub.add_option(
         "--mutant", c.mutants,
         std::string("start with this deliberate fault (repeat; rdcc/testing/mutants.hpp, ") +
             "rdcc-conform --list-mutants)")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  sub.add_option("--variant", c.variant,
                 "start with this conforming variant: a behaviour the spec permits that the "
                 "default does not choose (rdcc/reference/variants.hpp, rdcc-conform "
                 "--list-variants)");
}

// --variant NAME: a conforming variant of this node's role, applied to its configuration and
// policy once every other option is, or an error naming the ones there are.
template <class Config, class Policy>
void apply_variant_option(const std::string& name, ref::VariantRole role, Config& config,
                          std::shared_ptr<const Policy>& policy) {
  if (name.empty() || ref::apply_variant(name, config, policy)) return;
  std::string known;
  for (const auto& v : ref::variants()) {
    if (v.role == role) known += (known.empty() ? "" : ", ") + std::string(v.name);
  }
  invalid("--variant", "'" + name + "' is not a " + std::string(ref::to_string(role)) +
                           " variant; these are: " + (known.empty() ? "(none)" : known));
}

// --mutant NAME: a mutant of this node's role, or an error naming the ones there are.
testing::MutantSet parse_mutants(const std::vector<std::string>& names, testing::MutantRole role) {
  testing::MutantSet set;
  for (const auto& name : names) {
    const testing::MutantInfo* m = testing::find_mutant(name);
    if (m == nullptr || m->role != role) {
      std::string known;
      for (const auto* info : testing::mutants_of(role)) {
        known += (known.empty() ? "" : ", ") + std::string(info->name);
      }
      invalid("--mutant", "'" + name + "' is not a " + std::string(testing::to_string(role)) +
                              " mutant; these are: " + known);
    }
    set.add(m->id);
  }
  return set;
}

Address parse_address(const std::string& option, const std::string& text) {
  Address a;
  if (!Address::parse(text, a)) {
    invalid(option, "'" + text + "' is not an address a.b.c.d:port or [v6]:port");
  }
  return a;
}

Address parse_ip(const std::string& option, const std::string& text, std::uint16_t port) {
  Address a;
  const std::string with_port = text.find(':') != std::string::npos
                                    ? "[" + text + "]:" + std::to_string(port)
                                    : text + ":" + std::to_string(port);
  if (!Address::parse(with_port, a)) invalid(option, "'" + text + "' is not an IP address");
  return a;
}

std::vector<Address> parse_crns(const std::vector<std::string>& list) {
  std::vector<Address> out;
  for (const auto& t : list) out.push_back(parse_ip("--crn", t, 0));
  return out;
}

std::uint32_t parse_capabilities(const std::string& text) {
  std::uint32_t caps = 0;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');) {
    if (item.empty()) continue;
    auto v = value_of(kCapabilities, item);
    if (!v) invalid("--capabilities", "'" + item + "' is not one of POOL, STATUS, CRN");
    caps |= *v;
  }
  return caps;
}

// Events as JSON lines (Event::to_json), flushed per line so a tail -f sees them.
class EventFile final : public ref::Observer {
 public:
  // /dev/stderr is written through the process's own standard error, as the ready and exit
  // lines are: opened anew it would have a file offset of its own, and with `2>FILE` the two
  // would write over each other's lines.
  explicit EventFile(const std::string& path) {
    if (path == "/dev/stderr") return;
    file_.open(path);
    if (!file_) invalid("--events", "cannot open '" + path + "' for writing");
  }
  void on_event(const ref::Event& e) override {
    (file_.is_open() ? static_cast<std::ostream&>(file_) : std::cerr)
        << e.to_json().dump() << std::endl;
  }

 private:
  std::ofstream file_;
};

std::unique_ptr<EventFile> open_events(const Common& c) {
  return c.events.empty() ? nullptr : std::make_unique<EventFile>(c.events);
}

void print_line(const Json& j) {
  std::cerr << j.dump() << std::endl;
}

// SIGUSR1 prints the counters; SIGINT and SIGTERM end the loop (the caller prints them).
class Signals {
 public:
  Signals(udp::EventLoop& loop, std::function<Json()> stats)
      : loop_(loop), stats_(std::move(stats)) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGUSR1);
    sigprocmask(SIG_BLOCK, &set, nullptr);
    fd_ = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
    loop_.add(fd_, [this] {
      signalfd_siginfo info{};
      while (::read(fd_, &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
        if (info.ssi_signo == SIGUSR1) {
          print_line({{"event", "stats"}, {"stats", stats_()}});
        } else {
          reason_ = info.ssi_signo == SIGINT ? "SIGINT" : "SIGTERM";
          loop_.stop();
        }
      }
    });
  }
  ~Signals() {
    loop_.remove(fd_);
    ::close(fd_);
  }
  Signals(const Signals&) = delete;
  Signals& operator=(const Signals&) = delete;
  [[nodiscard]] const std::string& reason() const { return reason_; }

 private:
  udp::EventLoop& loop_;
  std::function<Json()> stats_;
  int fd_ = -1;
  std::string reason_;
};

// ---- rdcc receiver ------------------------------------------------------------------------

// An upper tester on standard input and output (docs/upper-tester.md): one JSON request a line,
// one answer a line, in order; a role's operations in answer_op. The end of standard input ends
// the node.
class StdioUpperTester {
 public:
  explicit StdioUpperTester(udp::EventLoop& loop) : loop_(loop) {
    loop_.add(0, [this] { on_readable(); });
  }
  virtual ~StdioUpperTester() { loop_.remove(0); }
  StdioUpperTester(const StdioUpperTester&) = delete;
  StdioUpperTester& operator=(const StdioUpperTester&) = delete;
  [[nodiscard]] bool ended() const { return ended_; }

 protected:
  static Json error(const char* kind, const std::string& detail) {
    return {{"ok", false}, {"error", kind}, {"detail", detail}};
  }
  // An error naming the first key of `r` that `op` does not take, if any.
  static std::optional<Json> unknown_key(const std::string& op, const Json& r,
                                         std::initializer_list<std::string_view> keys) {
    for (const auto& [key, value] : r.items()) {
      if (key == "op" || key == "id" || std::find(keys.begin(), keys.end(), key) != keys.end())
        continue;
      return error("bad_request", "unknown key '" + key + "' for op " + op);
    }
    return std::nullopt;
  }
  virtual Json answer_op(const std::string& op, const Json& r) = 0;

 private:
  void on_readable() {
    char buf[4096];
    const ssize_t n = ::read(0, buf, sizeof buf);
    if (n <= 0) {
      ended_ = true;
      loop_.remove(0);
      loop_.stop();
      return;
    }
    pending_.append(buf, static_cast<std::size_t>(n));
    for (auto nl = pending_.find('\n'); nl != std::string::npos; nl = pending_.find('\n')) {
      std::string line = pending_.substr(0, nl);
      pending_.erase(0, nl + 1);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.empty()) continue;
      std::cout << answer(line).dump() << std::endl;
    }
  }

  Json answer(const std::string& line) {
    const Json r = Json::parse(line, nullptr, false);
    if (r.is_discarded() || !r.is_object())
      return error("bad_request", "not a JSON object: " + line);
    const auto op_it = r.find("op");
    if (op_it == r.end() || !op_it->is_string()) return error("bad_request", "missing key 'op'");
    const std::string op = op_it->get<std::string>();
    Json out = answer_op(op, r);
    if (r.contains("id")) out["id"] = r["id"];
    return out;
  }

  udp::EventLoop& loop_;
  std::string pending_;
  bool ended_ = false;
};

// The sender's operations, which a receiver or a CRN answers "unsupported".
bool is_sender_op(const std::string& op) {
  return op == "submit" || op == "cancel" || op == "return_credit" || op == "link_pause" ||
         op == "status" || op == "wait" || op == "association";
}

// The receiver's upper tester: `hello`, `restart` (the receiver loses its state and comes back
// with another Epoch, "A receiver that loses its state (for example, after a restart) MUST use
// a different Epoch") and `stats`.
class ReceiverUpperTester final : public StdioUpperTester {
 public:
  ReceiverUpperTester(udp::EventLoop& loop, udp::ReceiverNode& node, ref::SystemRandom& random)
      : StdioUpperTester(loop), node_(node), random_(random) {}

 private:
  Json answer_op(const std::string& op, const Json& r) override {
    if (op == "hello" || op == "restart" || op == "stats") {
      if (auto e = unknown_key(op, r, {})) return *e;
    }
    if (op == "hello") {
      return {{"ok", true},
              {"role", "receiver"},
              {"implementation", udp::kImplementation},
              {"version", udp::kImplementationVersion},
              {"ops", {"hello", "restart", "stats"}}};
    }
    if (op == "restart") {
      const std::uint16_t old = node_.receiver().config().epoch;
      // Another non-zero Epoch, from the CSPRNG: never the one before.
      auto epoch = static_cast<std::uint16_t>(1U + random_.uniform(65534));
      if (epoch == old) epoch = static_cast<std::uint16_t>(epoch % 65535U + 1U);
      node_.restart(epoch);
      print_line({{"event", "restart"}, {"epoch", epoch}});
      return {{"ok", true}, {"epoch", epoch}};
    }
    if (op == "stats") return {{"ok", true}, {"stats", node_.stats_json()}};
    if (is_sender_op(op))
      return error("unsupported", "op " + op + " drives a sender; this is a receiver");
    return error("bad_request", "'op' \"" + op + "\" is not one of hello, restart, stats");
  }

  udp::ReceiverNode& node_;
  ref::SystemRandom& random_;
};

// --data-framing FILE: the opaque transport's framing (docs/data-transport.md, "A vendor's
// framing"); the project's own without it.
void add_data_framing(CLI::App& sub, std::string& file) {
  sub.add_option("--data-framing", file,
                 "JSON file describing the opaque data transport's header (where the binding "
                 "value, offset and payload length sit; docs/data-transport.md); default: the "
                 "project's framing");
}
ref::DataFraming data_framing(const std::string& file) {
  if (file.empty()) return {};
  try {
    return load_data_framing(file);
  } catch (const ref::FramingError& e) {
    invalid("--data-framing", e.what());
  }
}

struct ReceiverOptions {
  Common c;
  std::uint16_t data_port = 0;
  std::string data_framing;
  bool rocev2 = false;
  std::uint16_t rocev2_port = 4791;
  bool no_icrc_check = false;
  std::optional<unsigned> epoch;
  std::uint64_t budget = 0, unscheduled_budget = 0;
  std::uint32_t link_capacity = 0, unscheduled_limit = 0, start_jitter = 0;
  std::uint32_t backlog_threshold = 0, grant_lifetime = 0, credit_unit = 0;
  std::uint32_t d_max = 0, base_rtt = 0, rtt_target = 0;
  std::uint64_t grant_window = 0;
  std::size_t max_associations = 0, max_pending = 0;
  std::uint64_t max_credit_per_association = 0, max_message_length = 0;
  std::uint32_t idle_timeout_ms = 0;
  std::string capabilities;
  std::string bindings;
  std::optional<unsigned> unscheduled_dscp;
  std::string upper_tester;
};

void run_receiver(const ReceiverOptions& o) {
  udp::ReceiverNodeConfig cfg;
  auto& e = cfg.endpoint;
  e.name = o.c.name;
  e.local = parse_ip("--address", o.c.address, o.c.rdcc_port);
  if (o.unscheduled_budget > o.budget) {
    invalid("--unscheduled-budget", std::to_string(o.unscheduled_budget) +
                                        " is larger than --budget " + std::to_string(o.budget) +
                                        " (G = G_s + G_u)");
  }
  if (o.unscheduled_limit > o.unscheduled_budget) {
    invalid("--unscheduled-limit", std::to_string(o.unscheduled_limit) +
                                       " is larger than --unscheduled-budget " +
                                       std::to_string(o.unscheduled_budget) +
                                       " (the sum of U over associations must not exceed G_u)");
  }
  if (o.data_port == o.c.rdcc_port) {
    invalid("--data-port", std::to_string(o.data_port) + " is the RDCC port");
  }
  ref::SystemRandom random;
  // "A receiver that loses its state ... MUST use a different Epoch": without --epoch, a
  // random non-zero one from the CSPRNG (docs/spec-notes.md).
  e.epoch = static_cast<std::uint16_t>(o.epoch ? *o.epoch : 1U + random.uniform(65534));
  e.budget = o.budget;
  e.unscheduled_budget = o.unscheduled_budget;
  e.link_capacity_mbps = o.link_capacity;
  e.unscheduled_limit = o.unscheduled_limit;
  e.start_jitter_us = o.start_jitter;
  e.backlog_threshold = o.backlog_threshold;
  e.grant_lifetime_us = o.grant_lifetime;
  e.credit_unit = o.credit_unit;
  e.d_max = ref::microseconds(o.d_max);
  e.base_rtt = ref::microseconds(o.base_rtt);
  e.rtt_target = ref::microseconds(o.rtt_target);
  e.grant_window = o.grant_window;
  e.max_associations = o.max_associations;
  e.max_pending_per_association = o.max_pending;
  e.max_credit_per_association = o.max_credit_per_association;
  e.max_message_length = o.max_message_length;
  e.idle_timeout = ref::milliseconds(o.idle_timeout_ms);
  e.crn_addresses = parse_crns(o.c.crn);
  e.capabilities = parse_capabilities(o.capabilities);
  e.opaque_binding = o.bindings.find("opaque") != std::string::npos;
  e.rocev2_binding = o.bindings.find("rocev2") != std::string::npos;
  e.control_dscp = static_cast<std::uint8_t>(o.c.control_dscp);
  const testing::MutantSet mutants = parse_mutants(o.c.mutants, testing::MutantRole::Receiver);
  apply_variant_option(o.c.variant, ref::VariantRole::Receiver, e, cfg.policy);
  cfg.policy = testing::receiver_policy(mutants, e, std::move(cfg.policy));
  cfg.data_port = o.data_port;
  cfg.data_framing = data_framing(o.data_framing);
  if (o.rocev2) cfg.rocev2_port = o.rocev2_port;
  cfg.check_icrc = !o.no_icrc_check;
  if (o.unscheduled_dscp) cfg.unscheduled_dscp = static_cast<std::uint8_t>(*o.unscheduled_dscp);

  auto events = open_events(o.c);
  udp::EventLoop loop;
  udp::ReceiverNode node(loop, cfg, events.get());
  Signals signals(loop, [&] { return node.stats_json(); });
  std::unique_ptr<ReceiverUpperTester> upper;
  if (!o.upper_tester.empty()) {
    if (o.upper_tester != "stdio") {
      invalid("--upper-tester", "'" + o.upper_tester + "': a receiver serves stdio only");
    }
    upper = std::make_unique<ReceiverUpperTester>(loop, node, random);
  }
  Json ready{{"event", "ready"},
             {"role", "receiver"},
             {"rdcc", node.rdcc_address().to_string()},
             {"data", node.data_address().to_string()},
             {"epoch", e.epoch}};
  if (auto a = node.rocev2_address()) ready["rocev2"] = a->to_string();
  print_line(ready);
  loop.run();
  const std::string reason = upper && upper->ended() ? "end of input" : signals.reason();
  print_line({{"event", "exit"}, {"reason", reason}, {"stats", node.stats_json()}});
}

void add_receiver(CLI::App& app) {
  auto o = std::make_shared<ReceiverOptions>();
  CLI::App* sub = app.add_subcommand("receiver", "run the reference receiver on UDP sockets");
  add_common(*sub, o->c, "receiver");
  sub->add_option("--data-port", o->data_port, "UDP port of the opaque data transport")
      ->required()
      ->check(CLI::Range(1, 65535));
  add_data_framing(*sub, o->data_framing);
  sub->add_flag("--rocev2", o->rocev2, "receive RoCEv2 packets (on --rocev2-port)");
  sub->add_option("--rocev2-port", o->rocev2_port, "UDP port of RoCEv2")
      ->default_val(4791)
      ->check(CLI::Range(1, 65535));
  sub->add_flag("--no-icrc-check", o->no_icrc_check, "count RoCEv2 packets whose ICRC is wrong");
  sub->add_option("--epoch", o->epoch, "Epoch (default: random, so a restart changes it)")
      ->check(CLI::Range(1, 65535));
  sub->add_option("--budget", o->budget, "G: octets granted and not yet received, at most")
      ->required()
      ->check(CLI::Range(std::uint64_t{1}, ~std::uint64_t{0}));
  sub->add_option("--unscheduled-budget", o->unscheduled_budget, "G_u: the unscheduled part of G")
      ->required();
  sub->add_option("--link-capacity", o->link_capacity, "access link capacity, Mbit/s")
      ->required()
      ->check(CLI::Range(1U, 0xFFFFFFFFU));
  sub->add_option("--unscheduled-limit", o->unscheduled_limit, "U advertised, octets (0: off)")
      ->required();
  sub->add_option("--start-jitter", o->start_jitter, "J advertised, microseconds")->required();
  sub->add_option("--backlog-threshold", o->backlog_threshold, "N_cu advertised, octets")
      ->required();
  sub->add_option("--grant-lifetime", o->grant_lifetime, "default Grant Lifetime, microseconds")
      ->required()
      ->check(CLI::Range(1U, 0xFFFFFFFFU));
  sub->add_option("--credit-unit", o->credit_unit, "Credit Unit, octets")
      ->required()
      ->check(CLI::Range(1U, 65507U));
  sub->add_option("--d-max", o->d_max, "D_max, the domain's maximum one-way delay, microseconds")
      ->required();
  sub->add_option("--base-rtt", o->base_rtt, "base RTT, microseconds (AIMD interval)")
      ->default_val(100);
  sub->add_option("--rtt-target", o->rtt_target, "RTT above which a path is congested, us")
      ->default_val(1000);
  sub->add_option("--grant-window", o->grant_window, "credit outstanding per message (0: one BDP)")
      ->default_val(0);
  sub->add_option("--max-associations", o->max_associations, "associations, at most")
      ->default_val(1024)
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 24U));
  sub->add_option("--max-pending", o->max_pending, "pending messages per association, at most")
      ->default_val(1024)
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 24U));
  sub->add_option("--max-credit-per-association", o->max_credit_per_association,
                  "credit per association, at most (0: no cap below G_s)")
      ->default_val(0);
  sub->add_option("--max-message-length", o->max_message_length, "longer messages are refused")
      ->default_val(1ULL << 40U);
  sub->add_option("--idle-timeout", o->idle_timeout_ms, "remove idle associations after, ms")
      ->default_val(10000)
      ->check(CLI::Range(10000U, 0xFFFFFFFFU));
  sub->add_option("--crn", o->c.crn, "IP of a CRN whose reports count (repeat)");
  sub->add_option("--capabilities", o->capabilities, "POOL,STATUS,CRN (comma-separated)")
      ->default_val("POOL,STATUS,CRN");
  sub->add_option("--bindings", o->bindings, "bindings accepted: opaque,rocev2")
      ->default_val("opaque,rocev2");
  sub->add_option("--unscheduled-dscp", o->unscheduled_dscp, "DSCP of unscheduled data")
      ->check(CLI::Range(0U, 63U));
  sub->add_option("--upper-tester", o->upper_tester,
                  "stdio: serve the upper tester (hello, restart, stats) on stdin/stdout");
  sub->callback([o] { run_receiver(*o); });
}

// ---- rdcc sender --------------------------------------------------------------------------

struct SenderOptions {
  Common c;
  std::uint16_t data_port = 0;
  std::uint16_t data_source_port = 0;
  std::string data_framing;
  std::optional<std::uint16_t> local_port;
  std::uint32_t line_rate = 0;
  std::string capabilities;
  std::optional<unsigned> unscheduled_dscp;
  std::vector<unsigned> class_dscp;
  std::uint64_t backlog_threshold = 0;
  std::uint32_t available_rate = 0;
  bool scheduled_only = false;
  std::string data_via;
  std::uint16_t rocev2_port = 4791;
  std::uint64_t rdma_message_size = 65536;
  std::optional<std::uint32_t> rocev2_qpn;
  bool no_ecn = false;
  std::string upper_tester;
  std::vector<std::uint64_t> send;
  std::string to;
  unsigned traffic_class = 0;
  std::string binding;
  bool exit_when_done = false;
  std::uint32_t timeout_ms = 0;
};

// Runs until the --send messages are done (with --exit-when-done), a signal, or the end of
// standard input in --upper-tester stdio mode; 0 when every --send message completed.
int run_sender(const SenderOptions& o) {
  udp::SenderNodeConfig cfg;
  auto& e = cfg.endpoint;
  e.name = o.c.name;
  e.local = parse_ip("--address", o.c.address, o.local_port.value_or(o.c.rdcc_port));
  e.line_rate_mbps = o.line_rate;
  e.capabilities = parse_capabilities(o.capabilities);
  e.crn_addresses = parse_crns(o.c.crn);
  if (o.unscheduled_dscp) e.unscheduled_dscp = static_cast<std::uint8_t>(*o.unscheduled_dscp);
  if (!o.class_dscp.empty()) {
    if (o.class_dscp.size() != 8) {
      invalid("--class-dscp", std::to_string(o.class_dscp.size()) +
                                  " values given; one DSCP per Traffic Class 0..7 is 8");
    }
    for (std::size_t i = 0; i < 8; ++i) {
      if (o.class_dscp[i] > 63) {
        invalid("--class-dscp", "class " + std::to_string(i) + ": " +
                                    std::to_string(o.class_dscp[i]) + " is not a DSCP (0..63)");
      }
      e.class_dscp[i] = static_cast<std::uint8_t>(o.class_dscp[i]);
    }
  }
  e.control_dscp = static_cast<std::uint8_t>(o.c.control_dscp);
  e.local_backlog_threshold = o.backlog_threshold;
  e.available_rate_mbps = o.available_rate;
  e.allow_unscheduled = !o.scheduled_only;
  apply_variant_option(o.c.variant, ref::VariantRole::Sender, e, cfg.policy);
  cfg.policy =
      testing::sender_policy(parse_mutants(o.c.mutants, testing::MutantRole::Sender), cfg.policy);
  cfg.rdcc_port = o.c.rdcc_port;
  cfg.data_port = o.data_port;
  cfg.data_source_port = o.data_source_port;
  if (o.data_source_port != 0 && o.data_source_port == e.local.port) {
    invalid("--data-source-port", std::to_string(o.data_source_port) +
                                      " is the port RDCC messages use; data leaves from its own");
  }
  cfg.data_framing = data_framing(o.data_framing);
  if (!o.data_via.empty()) cfg.data_via = parse_address("--data-via", o.data_via);
  cfg.rocev2_port = o.rocev2_port;
  cfg.rdma_message_size = o.rdma_message_size;
  cfg.rocev2_qpn = o.rocev2_qpn;
  cfg.ecn = !o.no_ecn;
  if (!o.send.empty() && o.to.empty()) invalid("--to", "required with --send");
  Address to;
  if (!o.to.empty()) to = parse_address("--to", o.to);
  BindingKind binding = BindingKind::Opaque;
  if (o.binding == "rocev2") {
    binding = BindingKind::RoCEv2;
  } else if (o.binding != "opaque") {
    invalid("--binding", "'" + o.binding + "' is not opaque or rocev2");
  }

  auto events = open_events(o.c);
  // Standard output may be a pipe to a tester that can go away (--upper-tester stdio).
  ::signal(SIGPIPE, SIG_IGN);
  udp::EventLoop loop;
  udp::SenderNode node(loop, cfg, events.get());
  Signals signals(loop, [&] { return node.stats_json(); });
  std::unique_ptr<udp::UpperTesterServer> upper;
  bool input_ended = false;
  if (!o.upper_tester.empty()) {
    try {
      upper = std::make_unique<udp::UpperTesterServer>(loop, node, o.upper_tester);
    } catch (const std::invalid_argument& ex) {
      invalid("--upper-tester", ex.what());
    }
    upper->set_on_eof([&] { input_ended = true; });
  }
  Json ready{{"event", "ready"},
             {"role", "sender"},
             {"rdcc", node.rdcc_address().to_string()},
             {"data", node.data_address().to_string()}};
  if (upper && upper->tcp_address()) ready["upper_tester"] = upper->tcp_address()->to_string();
  print_line(ready);

  std::vector<ref::MessageHandle> sent;
  for (std::uint64_t length : o.send) {
    ref::MessageSpec m;
    m.receiver = to;
    m.length = length;
    m.traffic_class = static_cast<std::uint8_t>(o.traffic_class);
    m.binding = binding;
    try {
      sent.push_back(node.submit(m));
    } catch (const std::invalid_argument& ex) {
      invalid("--binding", ex.what());
    }
  }
  const auto finished = [&](ref::MessageHandle h) {
    const auto s = node.status(h);
    return s->state == ref::MessageState::Done || s->state == ref::MessageState::Aborted ||
           (s->without_rdcc && s->transmitted == s->length);
  };
  const auto all_done = [&] { return std::all_of(sent.begin(), sent.end(), finished); };
  const ref::Duration limit =
      o.timeout_ms == 0 ? ref::seconds(365LL * 86400) : ref::milliseconds(o.timeout_ms);
  const bool done = loop.run_until(
      [&] { return (o.exit_when_done && all_done()) || input_ended || loop.stopped(); }, limit);
  Json messages = Json::array();
  bool all_ok = true;
  for (auto h : sent) {
    const auto s = node.status(h);
    messages.push_back(udp::to_json(*s));
    all_ok = all_ok && s->state == ref::MessageState::Done;
  }
  const std::string reason = !signals.reason().empty() ? signals.reason()
                             : input_ended             ? "end of input"
                             : done                    ? "done"
                                                       : "timeout";
  print_line({{"event", "exit"},
              {"reason", reason},
              {"stats", node.stats_json()},
              {"messages", messages}});
  return all_ok ? 0 : 1;
}

void add_sender(CLI::App& app, int& status) {
  auto o = std::make_shared<SenderOptions>();
  CLI::App* sub = app.add_subcommand("sender", "run the reference sender on UDP sockets");
  add_common(*sub, o->c, "sender");
  sub->add_option("--data-port", o->data_port, "receivers' UDP port of the opaque transport")
      ->required()
      ->check(CLI::Range(1, 65535));
  sub->add_option("--data-source-port", o->data_source_port,
                  "UDP port data leaves from, on --address (default 0: one the system picks); "
                  "never the RDCC port")
      ->check(CLI::Range(0, 65535));
  add_data_framing(*sub, o->data_framing);
  sub->add_option("--local-port", o->local_port,
                  "bind this port instead of the RDCC port (CRN reports then miss this sender)")
      ->check(CLI::Range(0, 65535));
  sub->add_option("--line-rate", o->line_rate, "line rate advertised, Mbit/s")
      ->required()
      ->check(CLI::Range(1U, 0xFFFFFFFFU));
  sub->add_option("--capabilities", o->capabilities, "POOL,STATUS,CRN (comma-separated)")
      ->default_val("POOL,STATUS,CRN");
  sub->add_option("--crn", o->c.crn, "IP of a CRN whose reports count (repeat)");
  sub->add_option("--unscheduled-dscp", o->unscheduled_dscp, "DSCP of unscheduled data")
      ->check(CLI::Range(0U, 63U));
  sub->add_option("--class-dscp", o->class_dscp, "DSCP of Traffic Classes 0..7 (8 values)")
      ->delimiter(',')
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  sub->add_option("--backlog-threshold", o->backlog_threshold,
                  "local Backlog Threshold, octets (0: the smallest N_cu advertised)")
      ->default_val(0);
  sub->add_option("--available-rate", o->available_rate, "rate for Suggested Rates (0: line rate)")
      ->default_val(0);
  sub->add_flag("--scheduled-only", o->scheduled_only, "never use unscheduled mode");
  sub->add_option("--data-via", o->data_via, "send data to this address (a CRN's ingress)");
  sub->add_option("--rocev2-port", o->rocev2_port, "receivers' UDP port of RoCEv2")
      ->default_val(4791)
      ->check(CLI::Range(1, 65535));
  sub->add_option("--rdma-message-size", o->rdma_message_size, "RoCEv2 RDMA message size")
      ->default_val(65536)
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 31U));
  sub->add_option("--rocev2-qpn", o->rocev2_qpn, "destination QPN (default: random)")
      ->check(CLI::Range(1U, 0xFFFFFFU));
  sub->add_flag("--no-ecn", o->no_ecn, "send data Not-ECT instead of ECT(0)");
  sub->add_option("--upper-tester", o->upper_tester,
                  "serve the upper tester: stdio or tcp:127.0.0.1:PORT (docs/upper-tester.md)");
  sub->add_option("--send", o->send, "submit a message of LENGTH octets at start (repeat)")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  sub->add_option("--to", o->to, "receiver RDCC address of the --send messages");
  sub->add_option("--class", o->traffic_class, "Traffic Class of the --send messages")
      ->default_val(0)
      ->check(CLI::Range(0U, 255U));
  sub->add_option("--binding", o->binding, "opaque or rocev2, for the --send messages")
      ->default_val("opaque");
  sub->add_flag("--exit-when-done", o->exit_when_done, "exit once every --send message is done");
  sub->add_option("--timeout", o->timeout_ms, "exit after this many ms at most (0: never)")
      ->default_val(0);
  sub->callback([o, &status] { status = run_sender(*o); });
}

// The CRN's upper tester: `hello`, `stats` and `queue`, a queue observation the tester makes up
// (port, occupancy, DSCP and flow of a packet at dequeue): what a switch's own queue would
// show, so that a suite can drive the report rules (RDCC-CRN-03) through a real node as it
// does the in-process CRN (docs/upper-tester.md, "A CRN's upper tester").
class CrnUpperTester final : public StdioUpperTester {
 public:
  CrnUpperTester(udp::EventLoop& loop, udp::CrnNode& node) : StdioUpperTester(loop), node_(node) {}

 private:
  static std::optional<std::uint64_t> number(const Json& r, const char* key, std::uint64_t max,
                                             std::optional<std::uint64_t> fallback, Json& err) {
    const auto it = r.find(key);
    if (it == r.end()) {
      if (!fallback) err = error("bad_request", std::string("missing key '") + key + "'");
      return fallback;
    }
    if (!it->is_number_unsigned()) {
      err = error("bad_request",
                  std::string("'") + key + "' must be a non-negative integer, not " + it->dump());
      return std::nullopt;
    }
    const auto v = it->get<std::uint64_t>();
    if (v > max) {
      err = error("bad_request", std::string("'") + key + "' is " + std::to_string(v) + ", above " +
                                     std::to_string(max));
      return std::nullopt;
    }
    return v;
  }
  static std::optional<ref::Address> address(const Json& r, const char* key, Json& err) {
    const auto it = r.find(key);
    ref::Address a;
    if (it == r.end()) {
      err = error("bad_request", std::string("missing key '") + key + "'");
      return std::nullopt;
    }
    if (!it->is_string() || !ref::Address::parse(it->get<std::string>(), a)) {
      err = error("bad_request",
                  std::string("'") + key +
                      "' must be an address \"a.b.c.d:port\" or \"[v6]:port\", not " + it->dump());
      return std::nullopt;
    }
    return a;
  }

  Json answer_op(const std::string& op, const Json& r) override {
    if (op == "hello" || op == "stats") {
      if (auto e = unknown_key(op, r, {})) return *e;
    }
    if (op == "hello") {
      return {{"ok", true},
              {"role", "crn"},
              {"implementation", udp::kImplementation},
              {"version", udp::kImplementationVersion},
              {"ops", {"hello", "queue", "stats"}}};
    }
    if (op == "stats") return {{"ok", true}, {"stats", node_.stats_json()}};
    if (op == "queue") {
      if (auto e = unknown_key(
              op, r, {"port", "occupancy", "dscp", "source", "destination", "protocol", "flows"})) {
        return *e;
      }
      Json err;
      ref::QueueObservation o;
      const auto port = number(r, "port", 0xFFFF, std::nullopt, err);
      const auto occupancy =
          port ? number(r, "occupancy", ~std::uint64_t{0}, std::nullopt, err) : std::nullopt;
      const auto dscp = occupancy ? number(r, "dscp", 63, std::uint64_t{0}, err) : std::nullopt;
      const auto protocol =
          dscp ? number(r, "protocol", 255, std::uint64_t{17}, err) : std::nullopt;
      const auto flows =
          protocol ? number(r, "flows", 0xFFFFFFFF, std::uint64_t{1}, err) : std::nullopt;
      const auto source = flows ? address(r, "source", err) : std::nullopt;
      const auto destination = source ? address(r, "destination", err) : std::nullopt;
      if (!destination) return err;
      o.port = static_cast<std::uint16_t>(*port);
      o.occupancy = *occupancy;
      o.dscp = static_cast<std::uint8_t>(*dscp);
      o.flow.source = *source;
      o.flow.destination = *destination;
      o.flow.protocol = static_cast<std::uint8_t>(*protocol);
      o.flows_in_queue = static_cast<std::uint32_t>(*flows);
      node_.observe(o);
      return {{"ok", true}};
    }
    if (is_sender_op(op) || op == "restart") {
      return error("unsupported", "op " + op + " is not a CRN's");
    }
    return error("bad_request", "'op' \"" + op + "\" is not one of hello, queue, stats");
  }

  udp::CrnNode& node_;
};

// ---- rdcc crn -----------------------------------------------------------------------------

struct CrnOptions {
  Common c;
  std::string listen, forward_to;
  std::uint32_t reporter_id = 0;
  std::uint32_t service_rate = 0, queue_capacity = 0, queue_threshold = 0;
  std::uint32_t per_flow_interval = 50, per_port_interval = 5;
  std::vector<unsigned> unscheduled_dscp;
  bool no_suggest_rate = false;
  std::uint64_t ecn_threshold = 0;
  std::string upper_tester;
};

void run_crn(const CrnOptions& o) {
  udp::CrnNodeConfig cfg;
  cfg.crn.name = o.c.name;
  cfg.crn.local = parse_ip("--address", o.c.address, 0);
  cfg.crn.rdcc_port = o.c.rdcc_port;
  cfg.crn.reporter_id = o.reporter_id;
  if (o.queue_threshold >= o.queue_capacity) {
    invalid("--queue-threshold", std::to_string(o.queue_threshold) +
                                     " is not below --queue-capacity " +
                                     std::to_string(o.queue_capacity));
  }
  cfg.crn.queue_threshold = o.queue_threshold;
  cfg.crn.queue_capacity = o.queue_capacity;
  cfg.crn.service_rate_mbps = o.service_rate;
  cfg.crn.per_flow_interval = ref::microseconds(o.per_flow_interval);
  cfg.crn.per_port_interval = ref::microseconds(o.per_port_interval);
  for (unsigned d : o.unscheduled_dscp) {
    if (d > 63) invalid("--unscheduled-dscp", std::to_string(d) + " is not a DSCP (0..63)");
    cfg.crn.unscheduled_dscps.insert(static_cast<std::uint8_t>(d));
  }
  cfg.crn.suggest_rate = !o.no_suggest_rate;
  cfg.crn.control_dscp = static_cast<std::uint8_t>(o.c.control_dscp);
  apply_variant_option(o.c.variant, ref::VariantRole::Crn, cfg.crn, cfg.policy);
  cfg.policy =
      testing::crn_policy(parse_mutants(o.c.mutants, testing::MutantRole::Crn), cfg.policy);
  cfg.listen = parse_address("--listen", o.listen);
  cfg.forward_to = parse_address("--forward-to", o.forward_to);
  cfg.ecn_threshold = o.ecn_threshold;

  auto events = open_events(o.c);
  udp::EventLoop loop;
  udp::CrnNode node(loop, cfg, events.get());
  Signals signals(loop, [&] { return node.stats_json(); });
  std::unique_ptr<CrnUpperTester> upper;
  if (!o.upper_tester.empty()) {
    if (o.upper_tester != "stdio")
      invalid("--upper-tester", "'" + o.upper_tester + "': a CRN serves stdio only");
    upper = std::make_unique<CrnUpperTester>(loop, node);
  }
  print_line({{"event", "ready"}, {"role", "crn"}, {"listen", node.listen_address().to_string()}});
  loop.run();
  const std::string reason = upper && upper->ended() ? "end of input" : signals.reason();
  print_line({{"event", "exit"}, {"reason", reason}, {"stats", node.stats_json()}});
}

void add_crn(CLI::App& app) {
  auto o = std::make_shared<CrnOptions>();
  CLI::App* sub = app.add_subcommand(
      "crn", "run a store-and-forward switch port with the reference CRN on UDP sockets");
  add_common(*sub, o->c, "crn");
  sub->add_option("--listen", o->listen, "data ingress address (senders' --data-via)")->required();
  sub->add_option("--forward-to", o->forward_to, "the receiver's data address")->required();
  sub->add_option("--reporter-id", o->reporter_id, "Reporter ID, unique in the domain")->required();
  sub->add_option("--service-rate", o->service_rate, "egress service rate, Mbit/s")
      ->required()
      ->check(CLI::Range(1U, 0xFFFFFFFFU));
  sub->add_option("--queue-capacity", o->queue_capacity, "Q_max, octets; beyond it: tail drop")
      ->required()
      ->check(CLI::Range(1U, 0xFFFFFFFFU));
  sub->add_option("--queue-threshold", o->queue_threshold, "B_th, octets")->required();
  sub->add_option("--per-flow-interval", o->per_flow_interval, "one report per flow per, us")
      ->default_val(50);
  sub->add_option("--per-port-interval", o->per_port_interval, "one report per port per, us")
      ->default_val(5);
  sub->add_option("--unscheduled-dscp", o->unscheduled_dscp,
                  "DSCP of unscheduled traffic: report to the sender (repeat)")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  sub->add_option("--crn", o->c.crn, "ignored (for a shared --config)");
  sub->add_flag("--no-suggest-rate", o->no_suggest_rate, "leave Suggested Rate zero");
  sub->add_option("--ecn-threshold", o->ecn_threshold, "mark ECT data CE above, octets (0: never)")
      ->default_val(0);
  sub->add_option("--upper-tester", o->upper_tester,
                  "serve the upper tester on stdio: queue observations made up by a tester "
                  "(docs/upper-tester.md)");
  sub->callback([o] { run_crn(*o); });
}

std::string json_value_text(const std::string& file, const std::string& key, const Json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number() || v.is_boolean()) return v.dump();
  throw std::invalid_argument(file + ": key '" + key + "': " + v.dump() +
                              " is not a string, number or boolean");
}

}  // namespace

void add_node_commands(CLI::App& app, int& status) {
  add_receiver(app);
  add_sender(app, status);
  add_crn(app);
}

void expand_node_config(CLI::App& app, std::vector<std::string>& args) {
  if (args.empty() || (args[0] != "receiver" && args[0] != "sender" && args[0] != "crn")) return;
  CLI::App* sub = app.get_subcommand(args[0]);
  std::string file;
  for (std::size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "--config" && i + 1 < args.size()) {
      file = args[i + 1];
      args.erase(args.begin() + static_cast<std::ptrdiff_t>(i),
                 args.begin() + static_cast<std::ptrdiff_t>(i + 2));
      break;
    }
    if (args[i].rfind("--config=", 0) == 0) {
      file = args[i].substr(9);
      args.erase(args.begin() + static_cast<std::ptrdiff_t>(i));
      break;
    }
  }
  if (file.empty()) return;
  std::string text;  // "-": standard input
  try {
    text = read_text(file);
  } catch (const InputError&) {
    throw std::invalid_argument(file + ": cannot open the --config file");
  }
  Json j;
  try {
    j = Json::parse(text);
  } catch (const Json::parse_error& e) {
    throw std::invalid_argument(file + ": not JSON: " + e.what());
  }
  if (!j.is_object())
    throw std::invalid_argument(file + ": the --config file must hold a JSON object");
  std::vector<std::string> extra;
  for (const auto& item : j.items()) {
    const std::string key = item.key();  // not a structured binding: the lambda below uses it
    const Json& value = item.value();
    const CLI::Option* opt = key == "config" ? nullptr : sub->get_option_no_throw("--" + key);
    if (opt == nullptr) {
      throw std::invalid_argument(file + ": key '" + key + "' is not an option of rdcc " + args[0] +
                                  " (keys are long option names without dashes)");
    }
    const bool flag = opt->get_expected_min() == 0;
    const auto add = [&](const Json& v) {
      if (flag) {
        if (!v.is_boolean()) {
          throw std::invalid_argument(file + ": key '" + key + "': " + v.dump() +
                                      " is not true or false (--" + key + " is a flag)");
        }
        if (v.get<bool>()) extra.push_back("--" + key);
        return;
      }
      extra.push_back("--" + key + "=" + json_value_text(file, key, v));
    };
    if (value.is_array()) {
      for (const auto& v : value) add(v);
    } else {
      add(value);
    }
  }
  // Before the command line's own options, which win (MultiOptionPolicy::TakeLast).
  args.insert(args.begin() + 1, extra.begin(), extra.end());
}

}  // namespace rdcc::tools
