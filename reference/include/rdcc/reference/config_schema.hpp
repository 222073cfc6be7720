// One description of each endpoint's configuration. ReceiverConfig, SenderConfig and CrnConfig
// list every setting a person may give in `describe(config, visitor)`, once, as the codec's
// message types list their fields (codec/messages.hpp): its key, unit, range, the reference
// node's option and a line of doc; its default is the struct's. The node options (`rdcc
// receiver|sender|crn` and their `--config FILE.json`), the simulator's description (`rdcc
// sim`), the scenario language's `config` keys and exec:'s `{config}` all walk that one list,
// so that a key means one member everywhere and a value out of range gets one error.
//
// Members not described (the name, the addresses, the CRN list, the AIMD
// constants, the association timers) are set by the program that runs the endpoint or fixed
// by the reference.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "rdcc/reference/time.hpp"

namespace rdcc::ref {

// How a setting's value reads; also what it is written in.
enum class ConfigUnit : std::uint8_t {
  Number,
  Octets,
  Mbps,          // Mbit/s
  Micros,        // a duration in microseconds
  Millis,        // a duration in milliseconds
  Dscp,          // 0..63
  Bool,          // true or false (0 or 1 in a scenario)
  Capabilities,  // POOL, STATUS, CRN: names joined by ',' (or '|'), or the bits as a number
};
[[nodiscard]] std::string_view to_string(ConfigUnit u) noexcept;

// How the reference node takes a setting on its command line.
enum class FlagKind : std::uint8_t {
  Value,      // --flag VALUE
  SetsFalse,  // a Bool: the flag, given, sets it false (--scheduled-only)
  ListItem,   // a Bool: true when ConfigField::item is in the flag's comma list (--bindings)
};

inline constexpr std::uint64_t kConfigNoMax = std::numeric_limits<std::uint64_t>::max();
// The bounds several settings share: a Credit Unit fits one UDP datagram over IPv4; durations
// stay below about 12 days; counts of associations and messages below 2^24.
inline constexpr std::uint64_t kMaxCreditUnit = 65507;
inline constexpr std::uint64_t kMaxConfigMicros = std::uint64_t{1} << 40U;
inline constexpr std::uint64_t kMaxConfigCount = std::uint64_t{1} << 24U;

struct ConfigField {
  std::string_view key;  // scenario `config` key, simulator and node JSON key
  ConfigUnit unit;
  std::uint64_t min;
  std::uint64_t max;      // the member's type bounds it too
  std::string_view flag;  // the reference node's option
  std::string_view doc;   // one line, for --help and --list-config
  FlagKind flag_kind = FlagKind::Value;
  std::string_view item{};  // ListItem: this setting's name in the flag's list
};

// One setting as a program sees it: the field, what the member's type adds, and the default.
struct ConfigSetting {
  ConfigField field;
  std::uint64_t max = 0;    // min(field.max, the member's type)
  bool repeatable = false;  // a set: several values (the option repeats, JSON takes an array)
  bool optional = false;    // no value by default (none configured)
  std::vector<std::uint64_t> default_value;  // the struct's; empty: none
};

namespace config_detail {

template <class T>
struct Member;

template <class T>
requires std::is_integral_v<T>
struct Member<T> {
  static constexpr std::uint64_t kMax =
      std::is_same_v<T, bool> ? 1 : static_cast<std::uint64_t>(std::numeric_limits<T>::max());
  static constexpr bool kRepeatable = false;
  static constexpr bool kOptional = false;
  static std::vector<std::uint64_t> get(const T& m, ConfigUnit) {
    return {static_cast<std::uint64_t>(m)};
  }
  static void set(T& m, ConfigUnit, std::span<const std::uint64_t> v) {
    m = static_cast<T>(v.front());
  }
};

template <>
struct Member<Duration> {
  static constexpr std::uint64_t kMax = std::numeric_limits<std::int64_t>::max() / 1000000;
  static constexpr bool kRepeatable = false;
  static constexpr bool kOptional = false;
  static std::int64_t scale(ConfigUnit u) { return u == ConfigUnit::Millis ? 1000000 : 1000; }
  static std::vector<std::uint64_t> get(const Duration& m, ConfigUnit u) {
    return {static_cast<std::uint64_t>(m.ns / scale(u))};
  }
  static void set(Duration& m, ConfigUnit u, std::span<const std::uint64_t> v) {
    m = Duration{static_cast<std::int64_t>(v.front()) * scale(u)};
  }
};

template <>
struct Member<std::optional<std::uint8_t>> {
  static constexpr std::uint64_t kMax = 255;
  static constexpr bool kRepeatable = false;
  static constexpr bool kOptional = true;
  static std::vector<std::uint64_t> get(const std::optional<std::uint8_t>& m, ConfigUnit) {
    if (!m) return {};
    return {*m};
  }
  static void set(std::optional<std::uint8_t>& m, ConfigUnit, std::span<const std::uint64_t> v) {
    m = static_cast<std::uint8_t>(v.front());
  }
};

template <>
struct Member<std::set<std::uint8_t>> {
  static constexpr std::uint64_t kMax = 255;
  static constexpr bool kRepeatable = true;
  static constexpr bool kOptional = true;
  static std::vector<std::uint64_t> get(const std::set<std::uint8_t>& m, ConfigUnit) {
    return {m.begin(), m.end()};
  }
  static void set(std::set<std::uint8_t>& m, ConfigUnit, std::span<const std::uint64_t> v) {
    m.clear();
    for (auto x : v) m.insert(static_cast<std::uint8_t>(x));
  }
};

// The settings of a default-constructed Config, in description order.
template <class Config>
std::vector<ConfigSetting> make_settings() {
  std::vector<ConfigSetting> out;
  const Config defaults{};
  const auto visit = [&out](const ConfigField& f, const auto& member) {
    using M = Member<std::remove_cvref_t<decltype(member)>>;
    out.push_back(
        {f, std::min(f.max, M::kMax), M::kRepeatable, M::kOptional, M::get(member, f.unit)});
  };
  Config::describe(defaults, visit);
  return out;
}

}  // namespace config_detail

// The settings of ReceiverConfig, SenderConfig or CrnConfig, in description order.
template <class Config>
[[nodiscard]] const std::vector<ConfigSetting>& config_settings() {
  static const std::vector<ConfigSetting> settings = config_detail::make_settings<Config>();
  return settings;
}
// The same by the role's name ("receiver", "sender", "crn"); null for another name.
[[nodiscard]] const std::vector<ConfigSetting>* config_settings(std::string_view role);
[[nodiscard]] const ConfigSetting* find_config_setting(std::string_view role, std::string_view key);

// Whether `v` lies in the setting's range: none, or "V is outside MIN..MAX".
[[nodiscard]] std::optional<std::string> check_config_value(const ConfigSetting& s,
                                                            std::uint64_t v);
// The setting's range as an error names it: "1..65507", "0..1", "POOL, STATUS, CRN".
[[nodiscard]] std::string config_range_text(const ConfigSetting& s);
// The values of a text as the node option takes it (a number; true/false for a Bool; names
// for Capabilities; comma-separated values for a repeatable setting), each in range; or what
// is wrong ("0 is outside 1..65507", "'x' is not a number").
[[nodiscard]] std::variant<std::vector<std::uint64_t>, std::string> parse_config_text(
    const ConfigSetting& s, std::string_view text);
// The values as the node option writes them: "262144", "POOL,STATUS" ("," for none), "true",
// "8,10". None when a Capabilities value has bits without a name.
[[nodiscard]] std::optional<std::string> format_config_value(const ConfigSetting& s,
                                                             std::span<const std::uint64_t> v);

// Sets `key` of `c` to `values` (one, or any number for a repeatable setting), each checked
// against the range: none, or what is wrong (an entry point says where: the option, the file
// and key, the scenario's line).
template <class Config>
[[nodiscard]] std::optional<std::string> set_config(Config& c, std::string_view key,
                                                    std::span<const std::uint64_t> values) {
  std::optional<std::string> error = "unknown key '" + std::string(key) + "'";
  const auto visit = [&](const ConfigField& f, auto& member) {
    if (f.key != key) return;
    using M = config_detail::Member<std::remove_cvref_t<decltype(member)>>;
    const ConfigSetting s{f, std::min(f.max, M::kMax), M::kRepeatable, M::kOptional, {}};
    error.reset();
    if (values.size() != 1 && !s.repeatable) {
      error = std::to_string(values.size()) + " values given; it takes one";
      return;
    }
    for (auto v : values) {
      if ((error = check_config_value(s, v))) return;
    }
    M::set(member, f.unit, values);
  };
  Config::describe(c, visit);
  return error;
}
template <class Config>
[[nodiscard]] std::optional<std::string> set_config(Config& c, std::string_view key,
                                                    std::uint64_t value) {
  return set_config(c, key, std::span<const std::uint64_t>(&value, 1));
}
// The values of `key` in `c` (empty: none configured, or no such key).
template <class Config>
[[nodiscard]] std::vector<std::uint64_t> get_config(const Config& c, std::string_view key) {
  std::vector<std::uint64_t> out;
  const auto visit = [&](const ConfigField& f, const auto& member) {
    using M = config_detail::Member<std::remove_cvref_t<decltype(member)>>;
    if (f.key == key) out = M::get(member, f.unit);
  };
  Config::describe(c, visit);
  return out;
}

// The reference node's options that give these settings of `role` (key -> values), in key
// order: {"budget": [262144], "opaque_binding": [0]} -> --budget 262144 --bindings rocev2
// (a ListItem flag once, its other items at their defaults; a SetsFalse flag only for 0).
struct ConfigArgumentsError {
  enum class Kind : std::uint8_t { NoOption, UnnamedBits } kind;
  std::string key;
};
[[nodiscard]] std::variant<std::vector<std::string>, ConfigArgumentsError> config_node_arguments(
    std::string_view role, const std::map<std::string, std::vector<std::uint64_t>>& values);

}  // namespace rdcc::ref
