// rdcc receiver | sender | crn: the reference endpoints as processes on real UDP sockets
// (reference/udp), for a vendor to run against their own implementation. docs/cli.md.
#include <fcntl.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "commands.hpp"
#include "config_json.hpp"
#include "input.hpp"
#include "rdcc/codec/constants.hpp"
#include "rdcc/codec/json_input.hpp"
#include "rdcc/reference/random.hpp"
#include "rdcc/reference/variants.hpp"
#include "rdcc/testing/mutants.hpp"
#include "rdcc/testing/receiver_mutants.hpp"
#include "rdcc/testing/sender_mutants.hpp"
#include "rdcc/udp/loop.hpp"
#include "rdcc/udp/nodes.hpp"
#include "rdcc/udp/upper_tester.hpp"
#include "rdcc/udp/upper_tester_ops.hpp"

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
  std::vector<std::string> mutants;
  std::string variant;
  bool print_config = false;
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
  sub.add_option(
         "--mutant", c.mutants,
         std::string("start with this deliberate fault (repeat; rdcc/testing/mutants.hpp, ") +
             "rdcc-conform --list-mutants)")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  sub.add_option("--variant", c.variant,
                 "start with this conforming variant: a behaviour the spec permits that the "
                 "default does not choose (rdcc/reference/variants.hpp, rdcc-conform "
                 "--list-variants)");
  sub.add_flag("--print-config", c.print_config,
               "print the configuration the node would run with (its keys, a --config file) on "
               "standard output and exit");
}

// ---- the configuration's options, from its one description (config_schema.hpp) --------------

// The options of the described settings as the command line gave them.
struct ConfigOptions {
  std::map<std::string, CLI::Option*, std::less<>> options;  // by flag
  std::map<std::string, std::string, std::less<>> text;      // Value and ListItem options
  std::map<std::string, std::vector<std::string>, std::less<>> repeated;  // repeatable ones
  std::map<std::string, bool, std::less<>> flags;                         // SetsFalse flags
};

std::string_view type_name(ref::ConfigUnit u) {
  switch (u) {
    case ref::ConfigUnit::Octets: return "OCTETS";
    case ref::ConfigUnit::Mbps: return "MBPS";
    case ref::ConfigUnit::Micros: return "US";
    case ref::ConfigUnit::Millis: return "MS";
    case ref::ConfigUnit::Dscp: return "DSCP";
    case ref::ConfigUnit::Capabilities: return "NAMES";
    case ref::ConfigUnit::Number:
    case ref::ConfigUnit::Bool: break;
  }
  return "N";
}

// "Credit Unit (octets, 1..65507)": the doc line with the unit and the range.
std::string option_text(const ref::ConfigSetting& s) {
  std::string note(ref::to_string(s.field.unit));
  if (s.field.unit == ref::ConfigUnit::Capabilities) {
    note = ref::config_range_text(s) + ", comma-separated";
  } else if (s.max != ref::kConfigNoMax) {
    note += ", " + ref::config_range_text(s);
  } else if (s.field.min > 0) {
    note += ", at least " + std::to_string(s.field.min);
  }
  return std::string(s.field.doc) + " (" + note + ")";
}

// The options of every setting of Config: its unit, range and the node's default (from
// `defaults`; `shown` replaces one, e.g. "random"), or required (`required` keys).
template <class Config>
void add_config_options(CLI::App& sub, ConfigOptions& o, const Config& defaults,
                        std::initializer_list<std::string_view> required,
                        const std::map<std::string_view, std::string>& shown = {}) {
  const auto& settings = ref::config_settings<Config>();
  for (const auto& s : settings) {
    const std::string flag(s.field.flag);
    if (o.options.count(flag) != 0) continue;  // a list's option, added with its first item
    CLI::Option* opt = nullptr;
    switch (s.field.flag_kind) {
      case ref::FlagKind::SetsFalse:
        opt = sub.add_flag(
            flag, o.flags[flag],
            "sets " + std::string(s.field.key) + " false (" + std::string(s.field.doc) + ")");
        break;
      case ref::FlagKind::ListItem: {
        std::string items;
        std::string on;
        for (const auto& item : settings) {
          if (item.field.flag != s.field.flag) continue;
          items += (items.empty() ? "" : ", ") + std::string(item.field.item);
          if (ref::get_config(defaults, item.field.key) == std::vector<std::uint64_t>{1})
            on += (on.empty() ? "" : ",") + std::string(item.field.item);
        }
        opt = sub.add_option(flag, o.text[flag], "accepted, comma-separated: " + items)
                  ->type_name("NAMES")
                  ->default_str(on.empty() ? "," : on);
        break;
      }
      case ref::FlagKind::Value: {
        opt = s.repeatable ? sub.add_option(flag, o.repeated[flag], option_text(s))
                                 ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
                           : sub.add_option(flag, o.text[flag], option_text(s));
        // Checked as CLI11 parses it, so that a bad value is the error even when a required
        // option is missing too.
        const ref::ConfigSetting* setting = &s;
        opt->type_name(std::string(type_name(s.field.unit)))
            ->check(CLI::Validator(
                [setting](std::string& text) {
                  auto v = ref::parse_config_text(*setting, text);
                  const auto* e = std::get_if<std::string>(&v);
                  return e != nullptr ? *e : std::string();
                },
                ""));
        const auto value = ref::get_config(defaults, s.field.key);
        if (std::find(required.begin(), required.end(), s.field.key) != required.end()) {
          opt->required();
        } else if (const auto it = shown.find(s.field.key); it != shown.end()) {
          opt->default_str(it->second);
        } else if (!value.empty()) {
          opt->default_str(ref::format_config_value(s, value).value_or(""));
        }
        break;
      }
    }
    o.options[flag] = opt;
  }
}

// The settings the command line gave, over `c`; a value out of range or of the wrong kind is
// an error naming the option and the range.
template <class Config>
void apply_config_options(const ConfigOptions& o, Config& c) {
  for (const auto& s : ref::config_settings<Config>()) {
    const std::string flag(s.field.flag);
    if (o.options.at(flag)->count() == 0) continue;
    std::vector<std::uint64_t> values;
    if (s.field.flag_kind == ref::FlagKind::SetsFalse) {
      values = {0};
    } else if (s.field.flag_kind == ref::FlagKind::ListItem) {
      // The list names this setting's item or not; a name no item has is an error.
      const std::string& list = o.text.at(flag);
      bool on = false;
      for (std::size_t at = 0; at <= list.size();) {
        const auto comma = std::min(list.find(',', at), list.size());
        const std::string item = list.substr(at, comma - at);
        at = comma + 1;
        if (item.empty()) continue;
        std::string items;
        bool known = false;
        for (const auto& x : ref::config_settings<Config>()) {
          if (x.field.flag != flag) continue;
          items += (items.empty() ? "" : ", ") + std::string(x.field.item);
          known = known || x.field.item == item;
        }
        if (!known) invalid(flag, ("'" + item).append("' is not one of ").append(items));
        on = on || item == s.field.item;
      }
      values = {on ? 1U : 0U};
    } else {
      std::string text;
      if (s.repeatable) {
        for (const auto& v : o.repeated.at(flag)) text += (text.empty() ? "" : ",") + v;
      } else {
        text = o.text.at(flag);
      }
      auto parsed = ref::parse_config_text(s, text);
      if (auto* e = std::get_if<std::string>(&parsed)) invalid(flag, *e);
      values = std::get<std::vector<std::uint64_t>>(parsed);
    }
    if (auto e = ref::set_config(c, s.field.key, values)) invalid(flag, *e);
  }
}

// --print-config: the described settings of `c` as a JSON object by key, which --config reads
// back (a setting with no value is left out).
template <class Config>
void print_config(const Config& c) {
  Json out = Json::object();
  for (const auto& s : ref::config_settings<Config>()) {
    const auto v = ref::get_config(c, s.field.key);
    const std::string key(s.field.key);
    if (v.empty() && !s.repeatable) continue;
    if (s.field.unit == ref::ConfigUnit::Bool) {
      out[key] = v.front() != 0;
    } else if (s.field.unit == ref::ConfigUnit::Capabilities) {
      out[key] = ref::format_config_value(s, v).value_or("");
    } else if (s.repeatable) {
      out[key] = v;
    } else {
      out[key] = v.front();
    }
  }
  std::cout << out.dump() << std::endl;
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
      invalid("--mutant", ("'" + name)
                              .append("' is not a ")
                              .append(testing::to_string(role))
                              .append(" mutant; these are: ")
                              .append(known));
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
  out.reserve(list.size());
  for (const auto& t : list) out.push_back(parse_ip("--crn", t, 0));
  return out;
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
  // An error naming the first key of `r` that `op` does not take (upper_tester_ops.hpp).
  static std::optional<Json> unknown_key(const udp::UpperOp& op, const Json& r) {
    for (const auto& [key, value] : r.items()) {
      if (key == "op" || key == "id" || udp::find_upper_arg(op, key) != nullptr) continue;
      return error("bad_request",
                   "unknown key '" + excerpt(key) + "' for op " + std::string(op.name));
    }
    return std::nullopt;
  }
  // What this role answers: `hello` and the table's other ops of the role, or an error
  // ("unsupported" for another role's op).
  Json answer_op(const std::string& name, const Json& r) {
    const udp::UpperOp* op = udp::find_upper_op(name);
    if (op == nullptr) {
      return error("bad_request", "'op' \"" + excerpt(name) + "\" is not one of " +
                                      udp::upper_op_names(role_bit()));
    }
    if ((op->roles & role_bit()) == 0) {
      const std::string who = role() == "crn" ? "CRN" : std::string(role());
      return error("unsupported", "op " + name + " is not a " + who + "'s");
    }
    if (auto e = unknown_key(*op, r)) return *e;
    if (name == "hello") {
      return {{"ok", true},
              {"role", role()},
              {"implementation", udp::kImplementation},
              {"version", udp::kImplementationVersion},
              {"ops", udp::upper_op_list(role_bit())}};
    }
    return answer_role_op(name, r);
  }
  [[nodiscard]] virtual std::string_view role() const = 0;
  [[nodiscard]] std::uint8_t role_bit() const { return udp::upper_role_of(role()); }
  // The role's ops but hello; `r` takes only the op's keys.
  virtual Json answer_role_op(const std::string& op, const Json& r) = 0;

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
    // A line longer than the bound is answered bad_request once it ends, and never held whole.
    lines_.feed(std::string_view(buf, static_cast<std::size_t>(n)), [this](auto&& line) {
      if (line.too_long != 0) {
        reply(error("bad_request", line_too_long(line.too_long, lines_.max_line())));
      } else if (!line.text.empty()) {
        reply(answer(line.text));
      }
    });
  }

  static void reply(const Json& j) {
    std::cout << j.dump(-1, ' ', false, Json::error_handler_t::replace) << std::endl;
  }

  Json answer(const std::string& line) {
    const auto read = parse_json<Json>(line, {kJsonMaxLine, kJsonMaxDepth});
    if (!read) return error("bad_request", "not JSON: " + read.error().describe());
    const Json& r = *read;
    if (!r.is_object()) return error("bad_request", "not a JSON object: " + excerpt(r));
    const auto op_it = r.find("op");
    if (op_it == r.end() || !op_it->is_string()) return error("bad_request", "missing key 'op'");
    const std::string op = op_it->get<std::string>();
    Json out = answer_op(op, r);
    if (r.contains("id")) out["id"] = r["id"];
    return out;
  }

  udp::EventLoop& loop_;
  LineSplitter lines_;
  bool ended_ = false;
};

// --epoch-file PATH: the Epoch of this incarnation, one above the one the file holds (1 after
// 65535), or a random non-zero one when the file does not exist yet; stored there (written to
// PATH.tmp, synced, renamed over PATH) before the node serves anything, so a node restarted any
// number of times never takes the Epoch of the incarnation before it, nor of the 65534 before
// that ("A receiver that loses its state (for example, after a restart) MUST use a different
// Epoch"; docs/spec-notes.md, "A different Epoch after a restart, without stored state").
std::uint16_t next_epoch(const std::string& path, ref::SystemRandom& random) {
  std::uint16_t epoch = 0;
  if (std::ifstream in(path); in) {
    std::string text;
    std::getline(in, text);
    unsigned long previous = 0;
    std::size_t used = 0;
    try {
      previous = std::stoul(text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != text.size() || previous < 1 || previous > 65535) {
      invalid("--epoch-file", "'" + path + "' holds '" + text +
                                  "', not an Epoch (1..65535): remove it to start afresh");
    }
    epoch = static_cast<std::uint16_t>(previous % 65535U + 1U);
  } else if (::access(path.c_str(), F_OK) == 0) {
    invalid("--epoch-file", "'" + path + "' exists but cannot be read");
  } else {
    epoch = static_cast<std::uint16_t>(1U + random.uniform(65534));
  }
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << epoch << '\n';
    out.flush();
    if (!out) invalid("--epoch-file", "cannot write '" + tmp + "': " + std::strerror(errno));
  }
  if (const int fd = ::open(tmp.c_str(), O_RDONLY); fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    invalid("--epoch-file",
            "cannot rename '" + tmp + "' to '" + path + "': " + std::strerror(errno));
  }
  return epoch;
}

// The receiver's upper tester: `hello`, `restart` (the receiver loses its state and comes back
// with another Epoch, "A receiver that loses its state (for example, after a restart) MUST use
// a different Epoch") and `stats`.
class ReceiverUpperTester final : public StdioUpperTester {
 public:
  ReceiverUpperTester(udp::EventLoop& loop, udp::ReceiverNode& node, ref::SystemRandom& random,
                      std::string epoch_file)
      : StdioUpperTester(loop), node_(node), random_(random), epoch_file_(std::move(epoch_file)) {}

 private:
  [[nodiscard]] std::string_view role() const override { return "receiver"; }
  Json answer_role_op(const std::string& op, const Json&) override {
    if (op == "restart") {
      const std::uint16_t old = node_.receiver().config().epoch;
      // Another non-zero Epoch: the next one of --epoch-file, or one from the CSPRNG; never the
      // one before.
      auto epoch = epoch_file_.empty() ? static_cast<std::uint16_t>(1U + random_.uniform(65534))
                                       : next_epoch(epoch_file_, random_);
      if (epoch == old) epoch = static_cast<std::uint16_t>(epoch % 65535U + 1U);
      node_.restart(epoch);
      print_line({{"event", "restart"}, {"epoch", epoch}});
      return {{"ok", true}, {"epoch", epoch}};
    }
    return {{"ok", true}, {"stats", node_.stats_json()}};  // "stats"
  }

  udp::ReceiverNode& node_;
  ref::SystemRandom& random_;
  std::string epoch_file_;
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
  ConfigOptions config;
  std::uint16_t data_port = 0;
  std::string data_framing;
  bool rocev2 = false;
  std::uint16_t rocev2_port = 4791;
  bool no_icrc_check = false;
  std::optional<unsigned> unscheduled_dscp;
  std::string upper_tester;
  std::string epoch_file;
};

// The receiver node's defaults where they are not ReceiverConfig's: a real network's delays.
ref::ReceiverConfig receiver_node_defaults() {
  ref::ReceiverConfig c;
  c.base_rtt = ref::microseconds(100);
  c.rtt_target = ref::microseconds(1000);
  return c;
}

void run_receiver(const ReceiverOptions& o) {
  udp::ReceiverNodeConfig cfg;
  auto& e = cfg.endpoint;
  e = receiver_node_defaults();
  e.name = o.c.name;
  e.local = parse_ip("--address", o.c.address, o.c.rdcc_port);
  ref::SystemRandom random;
  // "A receiver that loses its state ... MUST use a different Epoch": without --epoch, a
  // random non-zero one from the CSPRNG (docs/spec-notes.md).
  e.epoch = static_cast<std::uint16_t>(1U + random.uniform(65534));
  apply_config_options(o.config, e);
  if (!o.epoch_file.empty()) {
    if (o.config.options.at("--epoch")->count() > 0) {
      invalid("--epoch-file", "given with --epoch: the file chooses the Epoch");
    }
    if (!o.c.print_config) e.epoch = next_epoch(o.epoch_file, random);
  }
  if (e.unscheduled_budget > e.budget) {
    invalid("--unscheduled-budget", std::to_string(e.unscheduled_budget) +
                                        " is larger than --budget " + std::to_string(e.budget) +
                                        " (G = G_s + G_u)");
  }
  if (e.unscheduled_limit > e.unscheduled_budget) {
    invalid("--unscheduled-limit", std::to_string(e.unscheduled_limit) +
                                       " is larger than --unscheduled-budget " +
                                       std::to_string(e.unscheduled_budget) +
                                       " (the sum of U over associations must not exceed G_u)");
  }
  if (o.data_port == o.c.rdcc_port) {
    invalid("--data-port", std::to_string(o.data_port) + " is the RDCC port");
  }
  e.crn_addresses = parse_crns(o.c.crn);
  const testing::MutantSet mutants = parse_mutants(o.c.mutants, testing::MutantRole::Receiver);
  apply_variant_option(o.c.variant, ref::VariantRole::Receiver, e, cfg.policy);
  cfg.policy = testing::receiver_policy(mutants, e, std::move(cfg.policy));
  if (o.c.print_config) return print_config(e);
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
    upper = std::make_unique<ReceiverUpperTester>(loop, node, random, o.epoch_file);
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
  add_config_options(
      *sub, o->config, receiver_node_defaults(),
      {"budget", "unscheduled_budget", "link_capacity_mbps", "unscheduled_limit", "start_jitter_us",
       "backlog_threshold", "grant_lifetime_us", "credit_unit", "d_max_us"},
      {{"epoch", "random, so that a restart changes it"}});
  sub->add_option("--crn", o->c.crn, "IP of a CRN whose reports count (repeat)");
  sub->add_option("--unscheduled-dscp", o->unscheduled_dscp, "DSCP of unscheduled data")
      ->check(CLI::Range(0U, 63U));
  sub->add_option("--upper-tester", o->upper_tester,
                  "stdio: serve the upper tester (hello, restart, stats) on stdin/stdout");
  sub->add_option("--epoch-file", o->epoch_file,
                  "keep the Epoch in this file: each start (and upper-tester restart) takes the "
                  "next one (1 after 65535), so a restarted node never repeats its Epoch");
  sub->callback([o] { run_receiver(*o); });
}

// ---- rdcc sender --------------------------------------------------------------------------

struct SenderOptions {
  Common c;
  std::uint16_t data_port = 0;
  std::uint16_t data_source_port = 0;
  std::string data_framing;
  std::optional<std::uint16_t> local_port;
  ConfigOptions config;
  std::vector<unsigned> class_dscp;
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
  apply_config_options(o.config, e);
  e.crn_addresses = parse_crns(o.c.crn);
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
  apply_variant_option(o.c.variant, ref::VariantRole::Sender, e, cfg.policy);
  cfg.policy =
      testing::sender_policy(parse_mutants(o.c.mutants, testing::MutantRole::Sender), cfg.policy);
  if (o.c.print_config) {
    print_config(e);
    return 0;
  }
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
  add_config_options(*sub, o->config, ref::SenderConfig{}, {"line_rate_mbps"});
  sub->add_option("--crn", o->c.crn, "IP of a CRN whose reports count (repeat)");
  sub->add_option("--class-dscp", o->class_dscp, "DSCP of Traffic Classes 0..7 (8 values)")
      ->delimiter(',')
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
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
  // Argument `key` of queue as the table has it: its bound, and its default or required.
  static std::optional<std::uint64_t> number(const Json& r, const char* key, Json& err) {
    const udp::UpperArg& a = *udp::find_upper_arg(*udp::find_upper_op("queue"), key);
    const auto it = r.find(key);
    if (it == r.end()) {
      if (!a.default_value) err = error("bad_request", std::string("missing key '") + key + "'");
      return a.default_value;
    }
    if (!it->is_number_unsigned()) {
      err = error("bad_request",
                  std::string("'") + key + "' must be a non-negative integer, not " + excerpt(*it));
      return std::nullopt;
    }
    const auto v = it->get<std::uint64_t>();
    if (v > a.max) {
      err = error("bad_request", std::string("'") + key + "' is " + std::to_string(v) + ", above " +
                                     std::to_string(a.max));
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
      err =
          error("bad_request", std::string("'") + key +
                                   "' must be an address \"a.b.c.d:port\" or \"[v6]:port\", not " +
                                   excerpt(*it));
      return std::nullopt;
    }
    return a;
  }

  [[nodiscard]] std::string_view role() const override { return "crn"; }
  Json answer_role_op(const std::string& op, const Json& r) override {
    if (op == "stats") return {{"ok", true}, {"stats", node_.stats_json()}};
    Json err;  // "queue"
    ref::QueueObservation o;
    const auto port = number(r, "port", err);
    const auto occupancy = port ? number(r, "occupancy", err) : std::nullopt;
    const auto dscp = occupancy ? number(r, "dscp", err) : std::nullopt;
    const auto protocol = dscp ? number(r, "protocol", err) : std::nullopt;
    const auto flows = protocol ? number(r, "flows", err) : std::nullopt;
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

  udp::CrnNode& node_;
};

// ---- rdcc crn -----------------------------------------------------------------------------

struct CrnOptions {
  Common c;
  ConfigOptions config;
  std::string listen, forward_to;
  std::uint64_t ecn_threshold = 0;
  std::string upper_tester;
};

void run_crn(const CrnOptions& o) {
  udp::CrnNodeConfig cfg;
  cfg.crn.name = o.c.name;
  cfg.crn.local = parse_ip("--address", o.c.address, 0);
  cfg.crn.rdcc_port = o.c.rdcc_port;
  apply_config_options(o.config, cfg.crn);
  if (cfg.crn.queue_threshold >= cfg.crn.queue_capacity) {
    invalid("--queue-threshold", std::to_string(cfg.crn.queue_threshold) +
                                     " is not below --queue-capacity " +
                                     std::to_string(cfg.crn.queue_capacity));
  }
  apply_variant_option(o.c.variant, ref::VariantRole::Crn, cfg.crn, cfg.policy);
  cfg.policy =
      testing::crn_policy(parse_mutants(o.c.mutants, testing::MutantRole::Crn), cfg.policy);
  if (o.c.print_config) return print_config(cfg.crn);
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
  add_config_options(*sub, o->config, ref::CrnConfig{},
                     {"reporter_id", "service_rate_mbps", "queue_capacity", "queue_threshold"});
  sub->add_option("--crn", o->c.crn, "ignored (for a shared --config)");
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
  throw std::invalid_argument(file + ": key '" + excerpt(key) + "': " + excerpt(v) +
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
    text = read_text(file, kJsonMaxDocument);
  } catch (const InputTooLong& e) {
    throw std::invalid_argument(e.what());
  } catch (const InputError&) {
    throw std::invalid_argument(file + ": cannot open the --config file");
  }
  const auto read = parse_json<Json>(text);
  if (!read) throw std::invalid_argument(file + ": not JSON: " + read.error().describe());
  const Json& j = *read;
  if (!j.is_object())
    throw std::invalid_argument(file + ": the --config file must hold a JSON object");
  std::vector<std::string> extra;
  // Keys of the role's configuration (config_schema.hpp, "budget", "link_capacity_mbps"):
  // their values, to become the settings' options.
  std::map<std::string, std::vector<std::uint64_t>> settings;
  for (const auto& item : j.items()) {
    const std::string& key = item.key();  // not a structured binding: the lambda below uses it
    const Json& value = item.value();
    const CLI::Option* opt = key == "config" ? nullptr : sub->get_option_no_throw("--" + key);
    const ref::ConfigSetting* setting =
        opt == nullptr ? ref::find_config_setting(args[0], key) : nullptr;
    if (setting != nullptr) {
      auto values = config_values_of_json(*setting, value);
      if (auto* e = std::get_if<std::string>(&values)) {
        throw std::invalid_argument(
            std::string(file).append(": key '").append(key).append("': ").append(*e));
      }
      settings[key] = std::get<std::vector<std::uint64_t>>(values);
      continue;
    }
    if (opt == nullptr) {
      throw std::invalid_argument(std::string(file)
                                      .append(": key '")
                                      .append(excerpt(key))
                                      .append("' is not an option of rdcc ")
                                      .append(args[0])
                                      .append(" (keys are long option names without dashes, or "
                                              "the configuration's keys: rdcc-conform "
                                              "--list-config)"));
    }
    const bool flag = opt->get_expected_min() == 0;
    const auto add = [&](const Json& v) {
      if (flag) {
        if (!v.is_boolean()) {
          throw std::invalid_argument(std::string(file)
                                          .append(": key '")
                                          .append(key)
                                          .append("': ")
                                          .append(excerpt(v))
                                          .append(" is not true or false (--")
                                          .append(key)
                                          .append(" is a flag)"));
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
  auto words = ref::config_node_arguments(args[0], settings);
  if (auto* e = std::get_if<ref::ConfigArgumentsError>(&words)) {
    throw std::invalid_argument(file + ": key '" + e->key + "': bits without a name");
  }
  const auto& more = std::get<std::vector<std::string>>(words);
  extra.insert(extra.end(), more.begin(), more.end());
  // Before the command line's own options, which win (MultiOptionPolicy::TakeLast).
  args.insert(args.begin() + 1, extra.begin(), extra.end());
}

}  // namespace rdcc::tools
