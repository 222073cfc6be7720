#include "rdcc/codec/format.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <utility>
#include <variant>

#include "rdcc/codec/json.hpp"
#include "rdcc/codec/rocev2.hpp"

namespace rdcc {
namespace {

// The one-line form is written straight into the caller's string with std::to_chars: a
// capture dump formats millions of lines, and a temporary string per field dominated it.
// Pieces are put together in a small buffer first, so that each field is one append.
class Piece {
 public:
  static constexpr std::size_t kCapacity = 128;
  void text(std::string_view s) {
    std::memcpy(at_, s.data(), s.size());
    at_ += s.size();
  }
  void text(char c) { *at_++ = c; }
  void decimal(std::uint64_t v) { at_ = std::to_chars(at_, end_, v).ptr; }
  void hex(std::uint64_t v) {
    text("0x");
    at_ = std::to_chars(at_, end_, v, 16).ptr;
  }
  void append_to(std::string& out) const {
    out.append(buffer_, static_cast<std::size_t>(at_ - buffer_));
  }

 private:
  char buffer_[kCapacity];
  char* at_ = buffer_;
  char* end_ = buffer_ + sizeof buffer_;
};
constexpr std::size_t kNumberText = 24;  // "0x" and 16 hex digits, or 20 decimal ones

// The longest field name and value name of any message type: a field's " name=value" in the
// line form always fits a Piece (checked when compiling, so LineWriter needs no way out).
struct LongestField {
  std::size_t longest = 0;
  template <class T>
  constexpr void operator()(const FieldSpec& f, const T&) {
    std::size_t value_name = 0;
    for (const NamedValue& n : f.names) value_name = std::max(value_name, n.name.size());
    longest = std::max(longest, f.name.size() + value_name);
  }
  constexpr void address(const FieldSpec&, const IpAddress&, std::size_t) {}
};
template <class T>
constexpr void visit_fields(LongestField& c) {
  const T m{};
  T::describe(m, c);
}
template <std::size_t... I>
constexpr std::size_t longest_field(std::index_sequence<I...>) {
  LongestField c;
  (visit_fields<std::variant_alternative_t<I, Message>>(c), ...);
  return c.longest;
}
static_assert(longest_field(std::make_index_sequence<std::variant_size_v<Message>>{}) +
                  kNumberText + 2 <=
              Piece::kCapacity);

template <class Names>
void append_bit_names(std::string& out, const Names& names, std::uint64_t bits) {
  const std::size_t start = out.size();
  std::uint64_t known = 0;
  for (const auto& n : names) {
    if ((bits & n.value) != 0) {
      if (out.size() != start) out += '|';
      out += n.name;
    }
    known |= n.value;
  }
  if ((bits & ~known) != 0) {
    if (out.size() != start) out += '|';
    append_hex(out, bits & ~known);
  }
  if (out.size() == start) out += "none";
}

std::string bit_names(std::span<const NamedValue> names, std::uint64_t bits) {
  std::string out;
  append_bit_names(out, names, bits);
  return out;
}

// The flags a type defines, as bit names (kMessageFlags filtered by type, in its order).
struct TypeFlags {
  MessageType type;
  struct Iterator {
    const FlagInfo* at;
    const FlagInfo* end;
    MessageType type;
    void skip() {
      while (at != end && at->type != type) ++at;
    }
    NamedValue operator*() const { return {at->bit, at->name}; }
    Iterator& operator++() {
      ++at;
      skip();
      return *this;
    }
    bool operator!=(const Iterator& o) const { return at != o.at; }
  };
  [[nodiscard]] Iterator begin() const {
    Iterator i{kMessageFlags.data(), kMessageFlags.data() + kMessageFlags.size(), type};
    i.skip();
    return i;
  }
  [[nodiscard]] Iterator end() const {
    const FlagInfo* e = kMessageFlags.data() + kMessageFlags.size();
    return Iterator{e, e, type};
  }
};

// "value (meaning)", as the detailed form shows a field, appended to `out` (the detailed form
// is built in one string, without a temporary per piece).
void append_detail_value(std::string& out, const FieldSpec& f, std::uint64_t v) {
  switch (f.unit) {
    case Unit::Id: append_hex(out, v); return;
    case Unit::Number:
    case Unit::Octets:
    case Unit::Reserved: break;
    case Unit::Micros:
      append_decimal(out, v);
      out += " us";
      return;
    case Unit::Mbps:
      append_decimal(out, v);
      out += " Mbit/s (";
      out += format_rate(v);
      out += ')';
      return;
    case Unit::Enum: {
      const auto name = name_of(f.names, static_cast<std::uint32_t>(v));
      append_decimal(out, v);
      out += " (";
      out += name.empty() ? std::string_view("unregistered") : name;
      out += ')';
      return;
    }
    case Unit::Bitmask:
      append_hex(out, v);
      out += " (";
      append_bit_names(out, f.names, v);
      out += ')';
      return;
  }
  append_decimal(out, v);
}

// What the spec says to make of a raw value, where it says to treat it otherwise.
std::string_view note(MessageType type, const FieldSpec& f, std::uint64_t v) {
  if (f.unit == Unit::Reserved && v != 0) return "  [reserved, non-zero: ignored on receipt]";
  if (type == MessageType::CreditRequest) {
    if (f.name == "traffic_class" && v > kMaxTrafficClass) return "  [above 7: treated as 7]";
    if (f.name == "weight" && v == 0) return "  [zero: treated as 1]";
    if (f.name == "deadline" && v == 0) return "  [none]";
  }
  if (type == MessageType::CreditGrant) {
    if (f.name == "pacing_rate" && v == 0) return "  [zero: a sender MUST ignore this grant]";
    if (f.name == "lifetime" && v == 0) return "  [zero: the association's default]";
  }
  if (f.name == "suggested_rate" && v == 0) return "  [no suggestion]";
  return {};
}

struct LineWriter {
  std::string& out;
  template <class T>
  void operator()(const FieldSpec& f, const T& v) {
    if (f.unit == Unit::Reserved && v == 0) return;  // only non-zero reserved fields are news
    const auto value = static_cast<std::uint64_t>(v);
    Piece piece;
    const std::string_view name =
        f.unit == Unit::Enum ? name_of(f.names, static_cast<std::uint32_t>(value)) : "";
    piece.text(' ');
    piece.text(f.name);
    piece.text('=');
    if (f.unit == Unit::Id || f.unit == Unit::Bitmask) {
      piece.hex(value);
    } else if (!name.empty()) {
      piece.text(name);
    } else {
      piece.decimal(value);
    }
    piece.append_to(out);
  }
  void address(const FieldSpec& f, const IpAddress& a, std::size_t n) {
    out += ' ';
    out += f.name;
    out += '=';
    if (n == 0) {
      out += '?';
    } else {
      out += address_to_string(a, n == 16);
    }
  }
};

struct DetailWriter {
  std::string& out;
  MessageType type;
  const CreditRequest* request = nullptr;
  template <class T>
  void operator()(const FieldSpec& f, const T& v) {
    out += "  ";
    out += f.name;
    out += ": ";
    append_detail_value(out, f, v);
    out += note(type, f, v);
    if (request != nullptr && f.name == "binding_value" &&
        request->binding_kind == static_cast<std::uint8_t>(BindingKind::RoCEv2)) {
      const auto b = unpack_rocev2(v);
      out += " (destination_qpn=";
      append_hex(out, b.destination_qpn);
      out += " first_msn=";
      append_decimal(out, b.first_msn);
      out += " message_count=";
      append_decimal(out, b.message_count);
      out += ')';
    }
    out += '\n';
  }
  void address(const FieldSpec& f, const IpAddress& a, std::size_t n) {
    out += "  ";
    out += f.name;
    out += ": ";
    if (n == 0) {
      out += "(no layout for this address family)";
    } else {
      out += address_to_string(a, n == 16);
    }
    out += '\n';
  }
};

// The header part of the one-line form: "CREDIT_GRANT assoc=0x5a17c0de epoch=3 seq=42 ...".
void append_header_line(std::string& out, const Message& m) {
  const Header& h = header_of(m);
  const MessageType type = type_of(m);
  const std::uint16_t length = h.length != 0 ? h.length : defined_size(m);
  Piece piece;
  piece.text(" assoc=");
  piece.hex(h.association_id);
  piece.text(" epoch=");
  piece.decimal(h.epoch);
  piece.text(" seq=");
  piece.decimal(h.sequence_number);
  piece.append_to(out);
  if (h.flags != 0) {
    out += " flags=";
    append_bit_names(out, TypeFlags{type}, h.flags);
  }
  if (length != defined_size(m)) {
    out += " length=";
    append_decimal(out, length);
  }
  if (h.version != kVersion) {
    out += " version=";
    append_decimal(out, h.version);
  }
  if (h.rsv != 0) {
    out += " rsv=";
    append_decimal(out, h.rsv);
  }
}

// The header part of the detailed form: the type's name, then one line per header field.
void append_header_detail(std::string& out, const Message& m) {
  const Header& h = header_of(m);
  const MessageType type = type_of(m);
  out += info(type).name;
  const std::uint16_t length = h.length != 0 ? h.length : defined_size(m);
  out += "\n  version: ";
  append_decimal(out, h.version);
  if (h.rsv != 0) {
    out += "\n  rsv: ";
    append_decimal(out, h.rsv);
    out += "  [non-zero: ignored on receipt]";
  }
  out += "\n  length: ";
  append_decimal(out, length);
  if (length > defined_size(m)) {
    out += "  [";
    append_decimal(out, length - defined_size(m));
    out += " octets beyond the type's size]";
  }
  out += "\n  association_id: ";
  append_hex(out, h.association_id);
  out += "\n  epoch: ";
  append_decimal(out, h.epoch);
  out += "\n  flags: ";
  append_hex(out, h.flags);
  out += " (";
  append_bit_names(out, TypeFlags{type}, h.flags);
  out += ')';
  if ((h.flags & ~defined_flags(type)) != 0) out += "  [undefined flags: ignored on receipt]";
  out += "\n  sequence_number: ";
  append_decimal(out, h.sequence_number);
  out += '\n';
}

}  // namespace

void append_hex(std::string& out, std::uint64_t v) {
  char text[24] = {'0', 'x'};
  const auto r = std::to_chars(text + 2, text + sizeof text, v, 16);
  out.append(text, static_cast<std::size_t>(r.ptr - text));
}

std::string format_hex(std::uint64_t v) {
  std::string out;
  append_hex(out, v);
  return out;
}

std::string format_rate(std::uint64_t mbps) {
  char text[48];
  if (mbps >= 1000000 && mbps % 10000 == 0) {
    std::snprintf(text, sizeof text, "%g Tbit/s", static_cast<double>(mbps) / 1e6);
  } else if (mbps >= 1000) {
    std::snprintf(text, sizeof text, "%g Gbit/s", static_cast<double>(mbps) / 1e3);
  } else {
    std::snprintf(text, sizeof text, "%llu Mbit/s", static_cast<unsigned long long>(mbps));
  }
  return text;
}

std::string format_flags(MessageType type, std::uint16_t flags) {
  std::string out;
  append_bit_names(out, TypeFlags{type}, flags);
  return out;
}

std::string format_capabilities(std::uint32_t capabilities) {
  return bit_names(kCapabilities, capabilities);
}

std::string format_line(const Message& m) {
  std::string out;
  append_line(m, out);
  return out;
}

void append_line(const Message& m, std::string& out) {
  out += info(type_of(m)).name;
  append_header_line(out, m);
  std::visit(
      [&out](const auto& body) {
        LineWriter w{out};
        std::decay_t<decltype(body)>::describe(body, w);
      },
      m);
}

std::string format_detail(const Message& m) {
  std::string out;
  out.reserve(1024);  // the header and up to two dozen fields: one allocation
  append_header_detail(out, m);
  std::visit(
      [&out, &m](const auto& body) {
        DetailWriter w{out, type_of(m), std::get_if<CreditRequest>(&m)};
        std::decay_t<decltype(body)>::describe(body, w);
      },
      m);
  return out;
}

}  // namespace rdcc
