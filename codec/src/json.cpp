#include "rdcc/codec/json.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <type_traits>
#include <vector>

#include "rdcc/codec/constants.hpp"
#include "rdcc/codec/json_input.hpp"

namespace rdcc {
namespace {

using json = nlohmann::ordered_json;

constexpr std::array<std::string_view, 8> kHeaderKeys{
    "type", "version", "rsv", "length", "association_id", "epoch", "flags", "sequence_number"};

// The flag names defined for one message type.
std::vector<NamedValue> flag_names(MessageType type) {
  std::vector<NamedValue> names;
  for (const auto& f : kMessageFlags) {
    if (f.type == type) names.push_back({f.bit, f.name});
  }
  return names;
}

std::string known_names(std::span<const NamedValue> names) {
  std::string out;
  for (const auto& n : names) {
    if (!out.empty()) out += ", ";
    out += n.name;
  }
  return out;
}

Result<std::uint64_t, JsonError> parse_number_text(std::string_view key, std::string_view s) {
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    s.remove_prefix(2);
    base = 16;
  }
  std::uint64_t v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc{} || ptr != s.data() + s.size() || s.empty()) {
    return fail(JsonError{std::string(key), "'" + excerpt(s) + "' is not a number"});
  }
  return v;
}

// One scalar: an unsigned number, a "0x.." or decimal string, or a registry name.
Result<std::uint64_t, JsonError> read_scalar(std::string_view key, const json& v,
                                             std::span<const NamedValue> names) {
  if (v.is_number_unsigned()) return v.get<std::uint64_t>();
  if (v.is_number_integer()) return fail(JsonError{std::string(key), "must not be negative"});
  if (v.is_number_float()) return fail(JsonError{std::string(key), "must be a whole number"});
  if (v.is_string()) {
    const auto& s = v.get_ref<const std::string&>();
    if (auto named = value_of(names, s)) return std::uint64_t{*named};
    if (!s.empty() && (std::isdigit(static_cast<unsigned char>(s[0])) != 0)) {
      return parse_number_text(key, s);
    }
    std::string what = "unknown name '" + excerpt(s) + "'";
    if (!names.empty()) what += " (known: " + known_names(names) + ")";
    return fail(JsonError{std::string(key), what});
  }
  return fail(JsonError{std::string(key), std::string("must be a number, not ") + v.type_name()});
}

// A scalar, or for bit sets an array of names and numbers OR-ed together.
Result<std::uint64_t, JsonError> read_value(std::string_view key, const json& v,
                                            std::span<const NamedValue> names, bool bitset,
                                            std::uint64_t max) {
  std::uint64_t value = 0;
  if (bitset && v.is_array()) {
    for (const auto& item : v) {
      auto bit = read_scalar(key, item, names);
      if (!bit) return bit;
      value |= *bit;
    }
  } else {
    auto scalar = read_scalar(key, v, names);
    if (!scalar) return scalar;
    value = *scalar;
  }
  if (value > max) {
    return fail(JsonError{std::string(key), "value " + std::to_string(value) +
                                                " is larger than the field's " + "maximum " +
                                                std::to_string(max)});
  }
  return value;
}

// The members are appended in order into room reserved for all of them (the keys are
// distinct: operator[]'s search for an existing key, and the vector's regrowth, per member
// were most of to_json's allocations and time).
struct BodyToJson {
  json::object_t& out;
  template <class T>
  void operator()(const FieldSpec& f, const T& value) {
    out.emplace_back(std::string(f.name), value);
  }
  void address(const FieldSpec& f, const IpAddress& a, std::size_t n) {
    if (n == 0) {
      out.emplace_back(std::string(f.name), nullptr);
    } else {
      out.emplace_back(std::string(f.name), address_to_string(a, n == 16));
    }
  }
};

// How many fields a body has.
struct FieldCounter {
  std::size_t n = 0;
  template <class T>
  void operator()(const FieldSpec&, const T&) {
    ++n;
  }
  void address(const FieldSpec&, const IpAddress&, std::size_t) { ++n; }
};

// Text written at a cursor into room made beforehand (no per-character string appends): the
// members BodyToJson would set, as dump() writes them.
struct JsonCursor {
  char* p;
  void put(char c) { *p++ = c; }
  void put(std::string_view s) {
    std::memcpy(p, s.data(), s.size());
    p += s.size();
  }
  template <class T>
  void number(T v) {
    static_assert(std::is_unsigned_v<T>, "every field of the wire format is unsigned");
    if (v < 10) {  // most header and body fields: 0, 1, small codes
      *p++ = static_cast<char>('0' + v);
      return;
    }
    p = std::to_chars(p, p + 24, v).ptr;
  }
  void key(std::string_view k) {
    put(',');
    put('"');
    put(k);
    put('"');
    put(':');
  }
};

struct BodyToText {
  JsonCursor& at;
  template <class T>
  void operator()(const FieldSpec& f, const T& value) {
    at.key(f.name);
    at.number(value);
  }
  void address(const FieldSpec& f, const IpAddress& a, std::size_t n) {
    at.key(f.name);
    if (n == 0) {
      at.put("null");
    } else {
      at.put('"');
      at.put(address_to_string(a, n == 16));
      at.put('"');
    }
  }
};

// Room for any message's members: fewer than 24 fields, each a key of at most 24 characters
// and a value of at most 41 (an IPv6 address in quotes), and the type's name.
constexpr std::size_t kMaxJsonMembers = 2048;

struct BodyFromJson {
  const json& in;
  std::optional<JsonError> error;

  template <class T>
  void operator()(const FieldSpec& f, T& value) {
    if (error) return;
    const auto it = in.find(f.name);  // a string_view: no key string built per field
    if (it == in.end()) return;
    if (f.name == "binding_value" && it->is_object()) {
      read_rocev2(f.name, *it, value);
      return;
    }
    auto v =
        read_value(f.name, *it, f.names, f.unit == Unit::Bitmask, std::numeric_limits<T>::max());
    if (!v) {
      error = v.error();
      return;
    }
    value = static_cast<T>(*v);
  }
  void address(const FieldSpec& f, IpAddress& a, std::size_t n) {
    if (error) return;
    const auto it = in.find(f.name);
    if (it == in.end() || it->is_null()) return;
    if (n == 0) {
      error = JsonError{std::string(f.name), "address_family must be 4 or 6 to carry addresses"};
    } else if (!it->is_string() || !address_from_string(it->get<std::string>(), n == 16, a)) {
      error =
          JsonError{std::string(f.name), std::string("must be an ") + (n == 16 ? "IPv6" : "IPv4") +
                                             " address in text form, as address_family says"};
    }
  }

  template <class T>
  void read_rocev2(std::string_view key, const json& obj, T& value) {
    std::uint64_t parts[3] = {0, 0, 0};
    constexpr std::array<std::string_view, 3> kParts{"destination_qpn", "first_msn",
                                                     "message_count"};
    constexpr std::array<std::uint64_t, 3> kMax{0xFFFFFF, 0xFFFFFF, 0xFFFF};
    for (const auto& [k, v] : obj.items()) {
      std::size_t i = 0;
      while (i < kParts.size() && kParts[i] != k) ++i;
      if (i == kParts.size()) {
        error = JsonError{std::string(key) + "." + excerpt(k),
                          "unknown key (known: destination_qpn, first_msn, message_count)"};
        return;
      }
      auto part = read_value(std::string(key) + "." + k, v, {}, false, kMax[i]);
      if (!part) {
        error = part.error();
        return;
      }
      parts[i] = *part;
    }
    value = static_cast<T>((parts[0] << 40) | (parts[1] << 16) | parts[2]);
  }
};

template <class T>
Result<Message, JsonError> body_from_json(const json& j, const Header& header) {
  T m;
  m.header = header;
  BodyFromJson reader{j, std::nullopt};
  T::describe(m, reader);
  if (reader.error) return fail(*reader.error);
  return Message{m};
}

// Every key of the object must be a header key or a field of the type: a typo must not pass
// silently as a default.
struct KeyCollector {
  std::vector<std::string_view> keys;
  template <class T>
  void operator()(const FieldSpec& f, const T&) {
    keys.push_back(f.name);
  }
  void address(const FieldSpec& f, const IpAddress&, std::size_t) { keys.push_back(f.name); }
};

template <class T>
std::optional<JsonError> check_keys(const json& j) {
  static const std::vector<std::string_view> body_keys = [] {  // the type's fields, once
    KeyCollector c;
    const T empty{};
    T::describe(empty, c);
    return c.keys;
  }();
  for (const auto& [key, value] : j.items()) {
    bool known = false;
    for (auto k : kHeaderKeys) known = known || k == key;
    for (auto k : body_keys) known = known || k == key;
    if (!known) {
      return JsonError{excerpt(key), "is not a field of " + std::string(info(T::kType).name)};
    }
  }
  return std::nullopt;
}

template <class T>
Result<Message, JsonError> typed_from_json(const json& j) {
  if (auto bad = check_keys<T>(j)) return fail(*bad);
  Header h;
  struct HeaderField {
    const char* key;
    std::uint64_t max;
    std::span<const NamedValue> names;
    bool bitset;
  };
  static const std::vector<NamedValue> flags = flag_names(T::kType);  // once per type
  const std::array<HeaderField, 7> fields{{{"version", 0x0F, {}, false},
                                           {"rsv", 0x0F, {}, false},
                                           {"length", 0xFFFF, {}, false},
                                           {"association_id", 0xFFFFFFFF, {}, false},
                                           {"epoch", 0xFFFF, {}, false},
                                           {"flags", 0xFFFF, flags, true},
                                           {"sequence_number", 0xFFFFFFFF, {}, false}}};
  std::array<std::uint64_t, 7> values{h.version, h.rsv,   h.length,         h.association_id,
                                      h.epoch,   h.flags, h.sequence_number};
  for (std::size_t i = 0; i < fields.size(); ++i) {
    const auto it = j.find(fields[i].key);
    if (it == j.end()) continue;
    auto v = read_value(fields[i].key, *it, fields[i].names, fields[i].bitset, fields[i].max);
    if (!v) return fail(v.error());
    values[i] = *v;
  }
  h.version = static_cast<std::uint8_t>(values[0]);
  h.rsv = static_cast<std::uint8_t>(values[1]);
  h.length = static_cast<std::uint16_t>(values[2]);
  h.association_id = static_cast<std::uint32_t>(values[3]);
  h.epoch = static_cast<std::uint16_t>(values[4]);
  h.flags = static_cast<std::uint16_t>(values[5]);
  h.sequence_number = static_cast<std::uint32_t>(values[6]);
  return body_from_json<T>(j, h);
}

using FromJson = Result<Message, JsonError> (*)(const json&);
template <std::size_t... I>
constexpr std::array<FromJson, sizeof...(I)> make_from_json(std::index_sequence<I...>) {
  return {&typed_from_json<std::variant_alternative_t<I, Message>>...};
}
constexpr auto kFromJson = make_from_json(std::make_index_sequence<std::variant_size_v<Message>>{});

// The registry's type names, built once.
const std::vector<NamedValue>& type_names() {
  static const std::vector<NamedValue> names = [] {
    std::vector<NamedValue> v;
    v.reserve(kMessageTypes.size());
    for (const auto& t : kMessageTypes) v.push_back({static_cast<std::uint32_t>(t.type), t.name});
    return v;
  }();
  return names;
}

}  // namespace

nlohmann::ordered_json to_json(const Message& m) {
  const Header& h = header_of(m);
  json j = json::object();
  auto& members = j.get_ref<json::object_t&>();
  std::visit(
      [&members](const auto& body) {
        FieldCounter count;
        std::decay_t<decltype(body)>::describe(body, count);
        members.reserve(kHeaderKeys.size() + count.n);
      },
      m);
  members.emplace_back("type", info(type_of(m)).name);
  members.emplace_back("version", h.version);
  members.emplace_back("rsv", h.rsv);
  members.emplace_back("length", h.length != 0 ? h.length : defined_size(m));
  members.emplace_back("association_id", h.association_id);
  members.emplace_back("epoch", h.epoch);
  members.emplace_back("flags", h.flags);
  members.emplace_back("sequence_number", h.sequence_number);
  std::visit(
      [&members](const auto& body) {
        BodyToJson writer{members};
        std::decay_t<decltype(body)>::describe(body, writer);
      },
      m);
  return j;
}

void append_json_members(const Message& m, std::string& out) {
  const Header& h = header_of(m);
  char text[kMaxJsonMembers];  // written here and appended once (no zero-filled room in `out`)
  JsonCursor at{text};
  at.put("\"type\":\"");
  at.put(info(type_of(m)).name);
  at.put('"');
  at.key("version");
  at.number(h.version);
  at.key("rsv");
  at.number(h.rsv);
  at.key("length");
  at.number(h.length != 0 ? h.length : defined_size(m));
  at.key("association_id");
  at.number(h.association_id);
  at.key("epoch");
  at.number(h.epoch);
  at.key("flags");
  at.number(h.flags);
  at.key("sequence_number");
  at.number(h.sequence_number);
  std::visit(
      [&at](const auto& body) {
        BodyToText writer{at};
        std::decay_t<decltype(body)>::describe(body, writer);
      },
      m);
  out.append(text, static_cast<std::size_t>(at.p - text));
}

namespace {

// Significant digits `d` (no leading or trailing zero, 1 to 17 of them) times 10^exponent, the
// exponent of the first digit (d[0].d[1..] e exponent), in append_json_double's layout, written
// at `p` (room for kMaxJsonNumber characters); returns the end.
char* write_json_digits(char* p, std::string_view d, int exponent) {
  const auto k = static_cast<int>(d.size());
  const int n = exponent + 1;  // where the decimal point lies, counted from the first digit
  constexpr int kMinExp = -4;
  constexpr int kMaxExp = std::numeric_limits<double>::digits10;
  const auto put = [&p](std::string_view s) {
    std::memcpy(p, s.data(), s.size());
    p += s.size();
  };
  const auto zeros = [&p](int count) {
    for (int i = 0; i < count; ++i) *p++ = '0';
  };
  if (k <= n && n <= kMaxExp) {
    put(d);
    zeros(n - k);
    put(".0");
  } else if (0 < n && n <= kMaxExp) {
    put(d.substr(0, static_cast<std::size_t>(n)));
    *p++ = '.';
    put(d.substr(static_cast<std::size_t>(n)));
  } else if (kMinExp < n && n <= 0) {
    put("0.");
    zeros(-n);
    put(d);
  } else {
    *p++ = d[0];
    if (k > 1) {
      *p++ = '.';
      put(d.substr(1));
    }
    const int x = n - 1;
    put(x < 0 ? "e-" : "e+");
    const int ax = x < 0 ? -x : x;
    if (ax < 10) *p++ = '0';
    p = std::to_chars(p, p + 8, ax).ptr;
  }
  return p;
}

}  // namespace

char* write_json_double(char* p, double v) {
  if (!std::isfinite(v)) {
    return std::copy_n("null", 4, p);
  }
  if (std::signbit(v)) {
    *p++ = '-';
    v = -v;
  }
  if (v == 0) {
    return std::copy_n("0.0", 3, p);
  }
  // The shortest digits and their decimal exponent, from d.ddde[+-]x.
  char sci[32];
  const char* sci_end = std::to_chars(sci, sci + sizeof sci, v, std::chars_format::scientific).ptr;
  const char* e = std::find(static_cast<const char*>(sci), sci_end, 'e');
  char digits[24];
  std::size_t k = 0;
  for (const char* c = sci; c != e; ++c) {
    if (*c != '.') digits[k++] = *c;
  }
  int exponent = 0;
  std::from_chars(e + 1 + (e[1] == '+' ? 1 : 0), sci_end, exponent);
  return write_json_digits(p, std::string_view(digits, k), exponent);
}

void append_json_double(std::string& out, double v) {
  char text[kMaxJsonNumber];
  out.append(text, static_cast<std::size_t>(write_json_double(text, v) - text));
}

char* write_json_seconds(char* p, std::int64_t ns) {
  // Below 10^15 ns the digits of ns, without its trailing zeros, are at most 15 significant
  // ones: no other decimal as short reads back as the same double, so they are the shortest.
  constexpr std::int64_t kExact = 1'000'000'000'000'000;
  if (ns == 0 || ns <= -kExact || ns >= kExact)
    return write_json_double(p, static_cast<double>(ns) / 1e9);
  if (ns < 0) *p++ = '-';
  char digits[24];
  const char* end = std::to_chars(digits, digits + sizeof digits, ns < 0 ? -ns : ns).ptr;
  const int exponent = static_cast<int>(end - digits) - 1 - 9;
  while (end[-1] == '0') --end;
  return write_json_digits(p, std::string_view(digits, static_cast<std::size_t>(end - digits)),
                           exponent);
}

void append_json_seconds(std::string& out, std::int64_t ns) {
  char text[kMaxJsonNumber];
  out.append(text, static_cast<std::size_t>(write_json_seconds(text, ns) - text));
}

Result<Message, JsonError> message_from_json(const nlohmann::ordered_json& j) {
  if (!j.is_object()) {
    return fail(
        JsonError{"", std::string("a message must be a JSON object, not ") + j.type_name()});
  }
  const auto it = j.find("type");
  if (it == j.end()) return fail(JsonError{"type", "is missing"});
  const auto& names = type_names();
  auto type = read_value("type", *it, names, false, 0xFF);
  if (!type) return fail(type.error());
  if (*type == 0 || *type > kMessageTypes.size()) {
    return fail(JsonError{"type", std::to_string(*type) +
                                      " is not an RDCC message type "
                                      "(known: " +
                                      known_names(names) + ")"});
  }
  return kFromJson[*type - 1U](j);
}

std::string address_to_string(const IpAddress& a, bool ipv6) {
  char text[INET6_ADDRSTRLEN] = {};
  inet_ntop(ipv6 ? AF_INET6 : AF_INET, a.data(), text, sizeof text);
  return text;
}

bool address_from_string(std::string_view text, bool ipv6, IpAddress& out) {
  const std::string s(text);
  IpAddress a{};
  if (inet_pton(ipv6 ? AF_INET6 : AF_INET, s.c_str(), a.data()) != 1) return false;
  out = a;
  return true;
}

std::string JsonError::describe() const {
  if (key.empty()) return what;
  return "field '" + key + "': " + what;
}

}  // namespace rdcc
