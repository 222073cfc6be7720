// A configuration setting's value in JSON (the simulator's description, a node's --config
// file): read through the setting's one description (rdcc/reference/config_schema.hpp).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <variant>
#include <vector>

#include "rdcc/codec/json_input.hpp"
#include "rdcc/reference/config_schema.hpp"

namespace rdcc::tools {

// The values of `v` for setting `s`: an unsigned integer; true or false for a Bool; names
// (an array, or a string "POOL,STATUS") for Capabilities; an array (or one value) for a
// repeatable setting. Each is checked against the range. Or what is wrong: "expected an
// unsigned integer, got \"2M\"", "0 is outside 1..65507".
template <class Json>
[[nodiscard]] std::variant<std::vector<std::uint64_t>, std::string> config_values_of_json(
    const ref::ConfigSetting& s, const Json& v) {
  using Values = std::vector<std::uint64_t>;
  const auto in_range = [&](Values out) -> std::variant<Values, std::string> {
    for (auto x : out) {
      if (auto e = ref::check_config_value(s, x)) return *e;
    }
    return out;
  };
  switch (s.field.unit) {
    case ref::ConfigUnit::Bool:
      if (!v.is_boolean()) return "expected true or false, got " + excerpt(v);
      return Values{v.template get<bool>() ? 1U : 0U};
    case ref::ConfigUnit::Capabilities: {
      std::string names;
      if (v.is_string()) names = v.template get<std::string>();
      if (!v.is_array() && !v.is_string()) {
        return "expected an array of names such as [\"POOL\", \"STATUS\"], got " + excerpt(v);
      }
      for (const auto& n : v.is_array() ? v : Json::array()) {
        if (!n.is_string()) return excerpt(n) + " is not one of " + ref::config_range_text(s);
        names += (names.empty() ? "" : ",") + n.template get<std::string>();
      }
      return ref::parse_config_text(s, names.empty() ? "," : names);
    }
    default: break;
  }
  Values out;
  if (s.repeatable && v.is_array()) {
    for (const auto& x : v) {
      if (!x.is_number_unsigned()) return "expected unsigned integers, got " + excerpt(x);
      out.push_back(x.template get<std::uint64_t>());
    }
    return in_range(std::move(out));
  }
  if (!v.is_number_unsigned()) return "expected an unsigned integer, got " + excerpt(v);
  return in_range(Values{v.template get<std::uint64_t>()});
}

}  // namespace rdcc::tools
