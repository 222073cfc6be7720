#include "rdcc/conformance/adapter.hpp"

#include <charconv>
#include <cstdio>
#include <optional>

#include "rdcc/codec/constants.hpp"

namespace rdcc::conformance {
namespace {

std::optional<std::uint64_t> number_of(std::string_view s) {
  std::uint64_t v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || ptr != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

// Sets one declared parameter from KEY=VALUE (udp: options) or a node option; false when the
// key is not one of them or the value is not a number.
bool declare(DeclaredParameters& d, std::string_view key, std::string_view value) {
  const auto v = number_of(value);
  if (!v) return false;
  if (key == "budget" || key == "--budget") {
    d.budget = *v;
  } else if (key == "unscheduled_budget" || key == "--unscheduled-budget") {
    d.unscheduled_budget = *v;
  } else if (key == "d_max" || key == "--d-max") {
    d.d_max = ref::microseconds(static_cast<std::int64_t>(*v));
  } else if ((key == "link" || key == "--link-capacity") && *v <= 0xFFFFFFFFULL) {
    d.link_capacity_mbps = static_cast<std::uint32_t>(*v);
  } else {
    return false;
  }
  return true;
}

std::optional<std::uint16_t> port_of(std::string_view s) {
  unsigned v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || ptr != s.data() + s.size() || v == 0 || v > 65535) return std::nullopt;
  return static_cast<std::uint16_t>(v);
}

// The rdcc node option of each configuration key whose value it takes as it is.
const std::map<Role, std::map<std::string, std::string>> kNodeOptions{
    {Role::Receiver,
     {{"epoch", "--epoch"},
      {"budget", "--budget"},
      {"unscheduled_budget", "--unscheduled-budget"},
      {"link_capacity_mbps", "--link-capacity"},
      {"unscheduled_limit", "--unscheduled-limit"},
      {"start_jitter_us", "--start-jitter"},
      {"backlog_threshold", "--backlog-threshold"},
      {"grant_lifetime_us", "--grant-lifetime"},
      {"credit_unit", "--credit-unit"},
      {"d_max_us", "--d-max"},
      {"max_associations", "--max-associations"},
      {"max_pending_per_association", "--max-pending"},
      {"max_credit_per_association", "--max-credit-per-association"},
      {"max_message_length", "--max-message-length"},
      {"idle_timeout_ms", "--idle-timeout"}}},
    {Role::Sender, {{"line_rate_mbps", "--line-rate"}, {"unscheduled_dscp", "--unscheduled-dscp"}}},
    {Role::Crn,
     {{"reporter_id", "--reporter-id"},
      {"queue_threshold", "--queue-threshold"},
      {"queue_capacity", "--queue-capacity"},
      {"service_rate_mbps", "--service-rate"},
      {"per_flow_interval_us", "--per-flow-interval"},
      {"per_port_interval_us", "--per-port-interval"},
      {"unscheduled_dscp", "--unscheduled-dscp"}}},
};

// A key of a scenario's `config` line (docs/scenario-language.md, "config").
bool is_config_key(const std::string& key) {
  for (const Role role : {Role::Receiver, Role::Sender, Role::Crn}) {
    const auto keys = config_keys(role);
    if (std::find(keys.begin(), keys.end(), key) != keys.end()) return true;
  }
  return false;
}

// "POOL,STATUS" for the bits; "," (no item) for none; nothing for bits `--capabilities` has
// no name for (the caller says so, rather than start the node without them).
std::optional<std::string> capability_list(std::uint64_t bits) {
  std::string out;
  for (const auto& c : kCapabilities) {
    if ((bits & c.value) != 0) out += (out.empty() ? "" : ",") + std::string(c.name);
    bits &= ~std::uint64_t{c.value};
  }
  if (bits != 0) return std::nullopt;
  return out.empty() ? "," : out;
}

}  // namespace

std::variant<std::vector<std::string>, std::string> node_config_options(
    Role role, const std::map<std::string, std::uint64_t>& config) {
  std::vector<std::string> out;
  const auto roles = kNodeOptions.find(role);
  const auto value = [&](const char* key, std::uint64_t fallback) {
    const auto it = config.find(key);
    return it == config.end() ? fallback : it->second;
  };
  bool bindings_done = false;
  for (const auto& [key, v] : config) {
    if (roles != kNodeOptions.end()) {
      if (const auto o = roles->second.find(key); o != roles->second.end()) {
        out.insert(out.end(), {o->second, std::to_string(v)});
        continue;
      }
    }
    if (key == "capabilities" && role != Role::Crn) {
      const auto list = capability_list(v);
      if (!list) {
        char bits[24];
        std::snprintf(bits, sizeof bits, "0x%llx", static_cast<unsigned long long>(v));
        return "config capabilities=" + std::string(bits) + " has bits `rdcc " +
               std::string(to_string(role)) +
               " --capabilities` cannot name (it knows POOL, STATUS, CRN; use {config_keys} and "
               "map it yourself)";
      }
      out.insert(out.end(), {"--capabilities", *list});
    } else if ((key == "opaque_binding" || key == "rocev2_binding") && role == Role::Receiver) {
      if (bindings_done) continue;
      bindings_done = true;
      std::string b = value("opaque_binding", 1) != 0 ? "opaque" : "";
      if (value("rocev2_binding", 1) != 0) b += b.empty() ? "rocev2" : ",rocev2";
      out.insert(out.end(), {"--bindings", b.empty() ? "," : b});
    } else if (key == "allow_unscheduled" && role == Role::Sender) {
      if (v == 0) out.emplace_back("--scheduled-only");
    } else if (key == "suggest_rate" && role == Role::Crn) {
      if (v == 0) out.emplace_back("--no-suggest-rate");
    } else {
      return "config " + key + " has no option of `rdcc " + std::string(to_string(role)) +
             "` (use {config_keys} and map it yourself)";
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
