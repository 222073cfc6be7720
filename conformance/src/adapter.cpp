#include "rdcc/conformance/adapter.hpp"

#include <charconv>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <optional>

#include "rdcc/codec/constants.hpp"
#include "rdcc/reference/config_schema.hpp"
#include "rdcc/reference/receiver.hpp"

namespace rdcc::conformance {
namespace {

std::optional<std::uint64_t> number_of(std::string_view s) {
  std::uint64_t v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || ptr != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

// The receiver configuration key a udp: option or a reference node option names: the key
// itself, the flag of its setting (--link-capacity), or udp:'s short forms d_max and link.
std::string receiver_key(std::string_view key) {
  if (key == "d_max") return "d_max_us";
  if (key == "link") return "link_capacity_mbps";
  if (key.substr(0, 2) == "--") {
    for (const auto& s : *ref::config_settings("receiver")) {
      if (s.field.flag == key) return std::string(s.field.key);
    }
  }
  return std::string(key);
}

// Sets one declared parameter from KEY=VALUE (udp: options) or a node option; false when the
// key is not one of them or the value is not one in the setting's range.
bool declare(DeclaredParameters& d, std::string_view option, std::string_view value) {
  const std::string key = receiver_key(option);
  if (key != "budget" && key != "unscheduled_budget" && key != "d_max_us" &&
      key != "link_capacity_mbps") {
    return false;
  }
  ref::ReceiverConfig c;
  const auto v = number_of(value);
  if (!v || ref::set_config(c, key, *v)) return false;
  if (key == "budget") d.budget = c.budget;
  if (key == "unscheduled_budget") d.unscheduled_budget = c.unscheduled_budget;
  if (key == "d_max_us") d.d_max = c.d_max;
  if (key == "link_capacity_mbps") d.link_capacity_mbps = c.link_capacity_mbps;
  return true;
}

std::optional<std::uint16_t> port_of(std::string_view s) {
  unsigned v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || ptr != s.data() + s.size() || v == 0 || v > 65535) return std::nullopt;
  return static_cast<std::uint16_t>(v);
}

// A key of a scenario's `config` line (docs/scenario-language.md, "config").
bool is_config_key(const std::string& key) {
  for (const Role role : {Role::Receiver, Role::Sender, Role::Crn}) {
    const auto keys = config_keys(role);
    if (std::find(keys.begin(), keys.end(), key) != keys.end()) return true;
  }
  return false;
}

}  // namespace

std::string IutExit::describe() const {
  if (signal != 0) {
    const char* name = ::sigabbrev_np(signal);
    return "was killed by signal " + std::to_string(signal) +
           (name == nullptr ? std::string() : " (SIG" + std::string(name) + ")");
  }
  std::string out = "exited with status " + std::to_string(status);
  // What a shell (or timeout --preserve-status) exits with when the command it ran was killed.
  constexpr int kShellSignalBase = 128;
  if (const char* name =
          status > kShellSignalBase ? ::sigabbrev_np(status - kShellSignalBase) : nullptr) {
    out += " (a shell's status for a command killed by signal " +
           std::to_string(status - kShellSignalBase) + ", SIG" + name + ")";
  }
  return out;
}

std::variant<std::vector<std::string>, std::string> node_config_options(
    Role role, const std::map<std::string, std::uint64_t>& config) {
  std::map<std::string, std::vector<std::uint64_t>> values;
  for (const auto& [key, v] : config) values[key] = {v};
  auto out = ref::config_node_arguments(to_string(role), values);
  if (auto* words = std::get_if<std::vector<std::string>>(&out)) return std::move(*words);
  const auto& e = std::get<ref::ConfigArgumentsError>(out);
  const std::string node = "`rdcc " + std::string(to_string(role));
  if (e.kind == ref::ConfigArgumentsError::Kind::NoOption) {
    return "config " + e.key + " has no option of " + node +
           "` (use {config_keys} and map it yourself)";
  }
  char bits[24];
  std::snprintf(bits, sizeof bits, "0x%llx", static_cast<unsigned long long>(config.at(e.key)));
  return "config " + e.key + "=" + bits + " has bits " + node + " " +
         std::string(ref::find_config_setting(to_string(role), e.key)->field.flag) +
         "` cannot name (it knows POOL, STATUS, CRN; use {config_keys} and map it yourself)";
}

nlohmann::json queue_request(const QueueSample& q) {
  return {{"op", "queue"},
          {"port", q.port},
          {"occupancy", q.occupancy},
          {"dscp", q.dscp},
          {"source", q.source.to_string()},
          {"destination", q.destination.to_string()},
          {"protocol", q.protocol},
          {"flows", q.flows}};
}

std::string config_keys_table() {
  std::string out;
  const auto row = [&out](std::string_view key, std::string_view unit, const std::string& dflt,
                          const std::string& range, std::string_view option, std::string_view doc) {
    char line[160];
    std::snprintf(line, sizeof line, "  %-28.*s %-10.*s %-16s %-24s %-28.*s ",
                  static_cast<int>(key.size()), key.data(), static_cast<int>(unit.size()),
                  unit.data(), dflt.c_str(), range.c_str(), static_cast<int>(option.size()),
                  option.data());
    out += line;
    out += std::string(doc) + "\n";
  };
  for (const Role role : {Role::Receiver, Role::Sender, Role::Crn}) {
    out += std::string(to_string(role)) + "\n";
    row("key", "unit", "default", "range", "rdcc " + std::string(to_string(role)) + " option", "");
    row("seed", "number", "1", "0.." + std::to_string(~std::uint64_t{0}), "(none)",
        "the in-process reference IUT's random seed");
    for (const auto& s : *ref::config_settings(to_string(role))) {
      const auto value = reference_config_default(role, s.field.key);
      std::string option(s.field.flag);
      if (s.field.flag_kind == ref::FlagKind::SetsFalse) option += " (for false)";
      if (s.field.flag_kind == ref::FlagKind::ListItem) option += " " + std::string(s.field.item);
      row(s.field.key, ref::to_string(s.field.unit),
          value.empty() ? "none"
          : s.field.unit == ref::ConfigUnit::Bool
              ? std::to_string(value.front())
              : ref::format_config_value(s, value).value_or("?"),
          ref::config_range_text(s), option, s.field.doc);
    }
  }
  return out;
}

std::string config_keys_text(const std::map<std::string, std::uint64_t>& config) {
  std::string out;
  for (const auto& [key, v] : config) {
    out += (out.empty() ? "" : " ") + key + "=" + std::to_string(v);
  }
  return out;
}

std::optional<std::string> parse_class_dscps(std::string_view text,
                                             std::optional<ClassDscps>& out) {
  if (text == "none") {
    out = std::nullopt;
    return std::nullopt;
  }
  ClassDscps map{};
  std::size_t n = 0;
  std::string_view rest = text;
  while (true) {
    const auto cut = rest.find(',');
    const auto item = rest.substr(0, cut);
    unsigned v = 0;
    const auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (n == map.size()) {
      return "takes eight DSCPs (class 0 to 7) or none: '" + std::string(text) + "' has more";
    }
    if (item.empty() || ec != std::errc{} || ptr != item.data() + item.size() || v > 63) {
      return "takes DSCPs 0..63: item " + std::to_string(n + 1) + " (class " + std::to_string(n) +
             ") of '" + std::string(text) + "' is '" + std::string(item) + "'";
    }
    map.at(n++) = static_cast<std::uint8_t>(v);
    if (cut == std::string_view::npos) break;
    rest = rest.substr(cut + 1);
  }
  if (n != map.size()) {
    return "takes eight DSCPs (class 0 to 7) or none: '" + std::string(text) + "' has " +
           std::to_string(n);
  }
  out = map;
  return std::nullopt;
}

std::variant<AdapterSpec, std::string> parse_adapter_spec(const std::string& text) {
  AdapterSpec spec;
  const auto colon = text.find(':');
  const std::string kind = text.substr(0, colon);
  const std::string rest = colon == std::string::npos ? "" : text.substr(colon + 1);
  if (kind == "reference") {
    spec.kind = AdapterSpec::Kind::Reference;
    if (rest.empty() && colon == std::string::npos) {
      spec.any_role = true;
    } else if (rest == "receiver") {
      spec.role = Role::Receiver;
    } else if (rest == "sender") {
      spec.role = Role::Sender;
    } else if (rest == "crn") {
      spec.role = Role::Crn;
    } else {
      return "--iut reference[:ROLE]: ROLE must be receiver, sender or crn, not '" + rest + "'";
    }
    return spec;
  }
  if (kind == "udp") {
    spec.kind = AdapterSpec::Kind::Udp;
    std::string addr = rest.substr(0, rest.find(','));
    // Options after the address: data=PORT (the opaque data port), rocev2=PORT (RoCEv2).
    for (auto comma = rest.find(','); comma != std::string::npos;) {
      const auto next = rest.find(',', comma + 1);
      const std::string opt =
          rest.substr(comma + 1, next == std::string::npos ? std::string::npos : next - comma - 1);
      comma = next;
      const auto eq = opt.find('=');
      const std::uint16_t port =
          eq == std::string::npos ? 0 : port_of(opt.substr(eq + 1)).value_or(std::uint16_t{0});
      const std::string key = opt.substr(0, eq);
      if (port != 0 && key == "data") {
        spec.data_port = port;
      } else if (port != 0 && key == "rocev2") {
        spec.rocev2_port = port;
      } else if (port != 0 && key == "tester_data") {
        spec.tester_data_port = port;
      } else if (key == "fresh" && eq == std::string::npos) {
        spec.fresh = true;
      } else if (key == "upper" && eq != std::string::npos) {
        // upper=tcp:HOST:PORT (as `rdcc sender --upper-tester` takes it) or upper=HOST:PORT.
        std::string where = opt.substr(eq + 1);
        if (where.rfind("tcp:", 0) == 0) where = where.substr(4);
        const auto port_colon = where.rfind(':');
        if (port_colon == std::string::npos || port_colon == 0 ||
            !port_of(where.substr(port_colon + 1))) {
          return "--iut udp:...,upper=tcp:HOST:PORT: expected the upper tester's TCP address, not "
                 "'" +
                 opt.substr(eq + 1) + "'";
        }
        spec.upper = where;
      } else if (eq != std::string::npos && declare(spec.declared, key, opt.substr(eq + 1))) {
        // Declared parameters are the configuration keys they name too.
        const std::uint64_t v = *number_of(opt.substr(eq + 1));
        spec.configured[key == "d_max"  ? "d_max_us"
                        : key == "link" ? "link_capacity_mbps"
                                        : key] = v;
      } else if (eq != std::string::npos && is_config_key(key) && number_of(opt.substr(eq + 1))) {
        spec.configured[key] = *number_of(opt.substr(eq + 1));
      } else {
        return "--iut "
               "udp:HOST:PORT[,data=PORT][,rocev2=PORT][,upper=tcp:HOST:PORT][,tester_data=PORT][,"
               "fresh]"
               "[,budget=N][,unscheduled_budget=N][,d_max=US][,link=MBPS][,KEY=N for a scenario "
               "config key the IUT runs with]: expected one of these after ',', not '" +
               opt + "'";
      }
    }
    const auto last = addr.rfind(':');
    if (last == std::string::npos || last == 0 || !port_of(addr.substr(last + 1))) {
      return "--iut udp:HOST:PORT[,data=PORT][,rocev2=PORT]: expected HOST:PORT, not '" + addr +
             "'";
    }
    spec.host = addr.substr(0, last);
    if (spec.host.size() > 2 && spec.host.front() == '[' && spec.host.back() == ']') {
      spec.host = spec.host.substr(1, spec.host.size() - 2);
    }
    spec.port = *port_of(addr.substr(last + 1));
    return spec;
  }
  if (kind == "exec") {
    spec.kind = AdapterSpec::Kind::Exec;
    spec.command = rest;
    if (spec.command.empty()) return std::string("--iut exec:COMMAND: the command is empty");
    spec.declared = declared_from_command(spec.command);
    return spec;
  }
  return "--iut must be reference:receiver|sender|crn, udp:HOST:PORT[,data=PORT] or "
         "exec:COMMAND, not '" +
         text + "'";
}

DeclaredParameters declared_from_command(const std::string& command) {
  DeclaredParameters d;
  std::vector<std::string> words;
  for (std::size_t at = 0; at < command.size();) {
    const auto start = command.find_first_not_of(" \t", at);
    if (start == std::string::npos) break;
    const auto end = command.find_first_of(" \t", start);
    words.push_back(
        command.substr(start, end == std::string::npos ? std::string::npos : end - start));
    at = end == std::string::npos ? command.size() : end;
  }
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (w.rfind("--", 0) != 0) continue;
    const auto eq = w.find('=');
    if (eq != std::string::npos) {
      (void)declare(d, w.substr(0, eq), w.substr(eq + 1));
    } else if (i + 1 < words.size() && declare(d, w, words[i + 1])) {
      ++i;
    }
  }
  return d;
}

std::string command_with_mutant(const std::string& command, const std::string& mutant) {
  const std::string option = mutant.empty() ? "" : "--mutant " + mutant;
  const std::string placeholder = "{mutant}";
  std::string out = command;
  if (out.find(placeholder) == std::string::npos) return option.empty() ? out : out + " " + option;
  for (auto at = out.find(placeholder); at != std::string::npos;
       at = out.find(placeholder, at + option.size())) {
    out.replace(at, placeholder.size(), option);
  }
  return out;
}

std::unique_ptr<Adapter> make_adapter(const AdapterSpec& spec) {
  switch (spec.kind) {
    case AdapterSpec::Kind::Reference: return make_reference_adapter(spec);
    case AdapterSpec::Kind::Udp:
    case AdapterSpec::Kind::Exec: return make_socket_adapter(spec);
  }
  return make_reference_adapter(spec);
}

}  // namespace rdcc::conformance
