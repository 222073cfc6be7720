#include "rdcc/reference/config_schema.hpp"

#include <charconv>
#include <cstdio>

#include "rdcc/codec/constants.hpp"
#include "rdcc/reference/crn.hpp"
#include "rdcc/reference/receiver.hpp"
#include "rdcc/reference/sender.hpp"

namespace rdcc::ref {
namespace {

std::string capability_names() {
  std::string out;
  for (const auto& c : kCapabilities) out += (out.empty() ? "" : ", ") + std::string(c.name);
  return out;
}

std::optional<std::uint64_t> number_of(std::string_view s) {
  std::uint64_t v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc{} || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

// The items of a list written "a,b" or "a|b" (empty items skipped: "," is the empty list).
std::vector<std::string_view> items_of(std::string_view text) {
  std::vector<std::string_view> out;
  while (!text.empty()) {
    const auto cut = text.find_first_of(",|");
    const auto item = text.substr(0, cut);
    if (!item.empty()) out.push_back(item);
    text = cut == std::string_view::npos ? std::string_view{} : text.substr(cut + 1);
  }
  return out;
}

// One value's text: a number, true/false for a Bool, capability names for Capabilities.
std::variant<std::uint64_t, std::string> value_of_text(const ConfigSetting& s,
                                                       std::string_view text) {
  if (s.field.unit == ConfigUnit::Bool) {
    if (text == "true" || text == "1") return std::uint64_t{1};
    if (text == "false" || text == "0") return std::uint64_t{0};
    return "'" + std::string(text) + "' is not true or false";
  }
  if (s.field.unit == ConfigUnit::Capabilities) {
    std::uint64_t bits = 0;
    for (const auto name : items_of(text)) {
      const auto bit = value_of(kCapabilities, name);
      if (!bit) return "'" + std::string(name) + "' is not one of " + capability_names();
      bits |= *bit;
    }
    return bits;
  }
  if (auto v = number_of(text)) return *v;
  return "'" + std::string(text) + "' is not a number";
}

}  // namespace

std::string_view to_string(ConfigUnit u) noexcept {
  switch (u) {
    case ConfigUnit::Number: return "number";
    case ConfigUnit::Octets: return "octets";
    case ConfigUnit::Mbps: return "Mbit/s";
    case ConfigUnit::Micros: return "us";
    case ConfigUnit::Millis: return "ms";
    case ConfigUnit::Dscp: return "DSCP";
    case ConfigUnit::Bool: return "true/false";
    case ConfigUnit::Capabilities: return "names";
  }
  return "?";
}

const std::vector<ConfigSetting>* config_settings(std::string_view role) {
  if (role == "receiver") return &config_settings<ReceiverConfig>();
  if (role == "sender") return &config_settings<SenderConfig>();
  if (role == "crn") return &config_settings<CrnConfig>();
  return nullptr;
}

const ConfigSetting* find_config_setting(std::string_view role, std::string_view key) {
  const auto* settings = config_settings(role);
  if (settings == nullptr) return nullptr;
  for (const auto& s : *settings) {
    if (s.field.key == key) return &s;
  }
  return nullptr;
}

std::string config_range_text(const ConfigSetting& s) {
  if (s.field.unit == ConfigUnit::Capabilities) return capability_names();
  return std::to_string(s.field.min) + ".." + std::to_string(s.max);
}

std::optional<std::string> check_config_value(const ConfigSetting& s, std::uint64_t v) {
  if (v >= s.field.min && v <= s.max) return std::nullopt;
  return std::to_string(v) + " is outside " + std::to_string(s.field.min) + ".." +
         std::to_string(s.max);
}

std::variant<std::vector<std::uint64_t>, std::string> parse_config_text(const ConfigSetting& s,
                                                                        std::string_view text) {
  std::vector<std::uint64_t> out;
  const auto one = [&](std::string_view t) -> std::optional<std::string> {
    auto v = value_of_text(s, t);
    if (auto* e = std::get_if<std::string>(&v)) return *e;
    if (auto e = check_config_value(s, std::get<std::uint64_t>(v))) return e;
    out.push_back(std::get<std::uint64_t>(v));
    return std::nullopt;
  };
  if (s.repeatable) {
    for (const auto item : items_of(text)) {
      if (auto e = one(item)) return *e;
    }
  } else if (auto e = one(text)) {
    return *e;
  }
  return out;
}

std::optional<std::string> format_config_value(const ConfigSetting& s,
                                               std::span<const std::uint64_t> v) {
  std::string out;
  for (auto x : v) {
    if (!out.empty()) out += ",";
    if (s.field.unit == ConfigUnit::Bool) {
      out += x != 0 ? "true" : "false";
    } else if (s.field.unit == ConfigUnit::Capabilities) {
      std::string names;
      for (const auto& c : kCapabilities) {
        if ((x & c.value) != 0) names += (names.empty() ? "" : ",") + std::string(c.name);
        x &= ~std::uint64_t{c.value};
      }
      if (x != 0) return std::nullopt;
      out += names.empty() ? "," : names;
    } else {
      out += std::to_string(x);
    }
  }
  return out;
}

std::variant<std::vector<std::string>, ConfigArgumentsError> config_node_arguments(
    std::string_view role, const std::map<std::string, std::vector<std::uint64_t>>& values) {
  std::vector<std::string> out;
  std::set<std::string_view> lists_done;
  for (const auto& [key, v] : values) {
    const ConfigSetting* s = find_config_setting(role, key);
    if (s == nullptr || s->field.flag.empty()) {
      return ConfigArgumentsError{ConfigArgumentsError::Kind::NoOption, key};
    }
    const std::string flag(s->field.flag);
    switch (s->field.flag_kind) {
      case FlagKind::SetsFalse:
        if (!v.empty() && v.front() == 0) out.push_back(flag);
        break;
      case FlagKind::ListItem: {
        // Every item of the flag's list, from `values` or else its default.
        if (!lists_done.insert(s->field.flag).second) break;
        std::string list;
        for (const auto& other : *config_settings(role)) {
          if (other.field.flag != s->field.flag) continue;
          const auto it = values.find(std::string(other.field.key));
          const auto& on = it != values.end() ? it->second : other.default_value;
          if (!on.empty() && on.front() != 0) {
            list += (list.empty() ? "" : ",") + std::string(other.field.item);
          }
        }
        out.insert(out.end(), {flag, list.empty() ? "," : list});
        break;
      }
      case FlagKind::Value:
        // A repeatable option once per value; the others once.
        for (std::size_t i = 0; i < (s->repeatable ? v.size() : std::min<std::size_t>(v.size(), 1));
             ++i) {
          const auto text = format_config_value(*s, std::span(v).subspan(i, 1));
          if (!text) return ConfigArgumentsError{ConfigArgumentsError::Kind::UnnamedBits, key};
          out.insert(out.end(), {flag, *text});
        }
        break;
    }
  }
  return out;
}

}  // namespace rdcc::ref
