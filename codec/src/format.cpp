#include "rdcc/codec/format.hpp"

#include <cstdio>

#include "rdcc/codec/json.hpp"
#include "rdcc/codec/rocev2.hpp"

namespace rdcc {
namespace {

std::string hex(std::uint64_t v) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(v));
  return text;
}

std::string bit_names(std::span<const NamedValue> names, std::uint64_t bits) {
  std::string out;
  std::uint64_t known = 0;
  for (const auto& n : names) {
    if ((bits & n.value) != 0) {
      if (!out.empty()) out += '|';
      out += n.name;
    }
    known |= n.value;
  }
  if ((bits & ~known) != 0) {
    if (!out.empty()) out += '|';
    out += hex(bits & ~known);
  }
  return out.empty() ? "none" : out;
}

// "value" for a line; "value (meaning)" when detailed.
std::string render(const FieldSpec& f, std::uint64_t v, bool detailed) {
  switch (f.unit) {
    case Unit::Id: return hex(v);
    case Unit::Number:
    case Unit::Octets:
    case Unit::Reserved: return std::to_string(v);
    case Unit::Micros: return detailed ? std::to_string(v) + " us" : std::to_string(v);
    case Unit::Mbps:
      return detailed ? std::to_string(v) + " Mbit/s (" + format_rate(v) + ")" : std::to_string(v);
    case Unit::Enum: {
      const auto name = name_of(f.names, static_cast<std::uint32_t>(v));
      if (!detailed) return name.empty() ? std::to_string(v) : std::string(name);
      return std::to_string(v) + " (" + (name.empty() ? "unregistered" : std::string(name)) + ")";
    }
    case Unit::Bitmask: return hex(v) + (detailed ? " (" + bit_names(f.names, v) + ")" : "");
  }
  return std::to_string(v);
}

// What the spec says to make of a raw value, where it says to treat it otherwise.
std::string note(MessageType type, const FieldSpec& f, std::uint64_t v) {
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
    out += ' ';
    out += f.name;
    out += '=';
    out += render(f, v, false);
  }
  void address(const FieldSpec& f, const IpAddress& a, std::size_t n) {
    out += ' ';
    out += f.name;
    out += '=';
    out += n == 0 ? std::string("?") : address_to_string(a, n == 16);
  }
};

struct DetailWriter {
  std::string& out;
  MessageType type;
  const CreditRequest* request = nullptr;
  template <class T>
  void operator()(const FieldSpec& f, const T& v) {
    out += "  " + std::string(f.name) + ": " + render(f, v, true) + note(type, f, v);
    if (request != nullptr && f.name == "binding_value" &&
        request->binding_kind == static_cast<std::uint8_t>(BindingKind::RoCEv2)) {
      const auto b = unpack_rocev2(v);
      out += " (destination_qpn=" + hex(b.destination_qpn) +
             " first_msn=" + std::to_string(b.first_msn) +
             " message_count=" + std::to_string(b.message_count) + ")";
    }
    out += '\n';
  }
  void address(const FieldSpec& f, const IpAddress& a, std::size_t n) {
    out += "  " + std::string(f.name) + ": " +
           (n == 0 ? std::string("(no layout for this address family)")
                   : address_to_string(a, n == 16)) +
           '\n';
  }
};

std::string header_text(const Message& m, bool detailed) {
  const Header& h = header_of(m);
  const MessageType type = type_of(m);
  std::string out(info(type).name);
  const std::uint16_t length = h.length != 0 ? h.length : defined_size(m);
  if (detailed) {
    out += "\n  version: " + std::to_string(h.version);
    if (h.rsv != 0) out += "\n  rsv: " + std::to_string(h.rsv) + "  [non-zero: ignored on receipt]";
    out += "\n  length: " + std::to_string(length);
    if (length > defined_size(m)) {
      out += "  [" + std::to_string(length - defined_size(m)) + " octets beyond the type's size]";
    }
    out += "\n  association_id: " + hex(h.association_id);
    out += "\n  epoch: " + std::to_string(h.epoch);
    out += "\n  flags: " + hex(h.flags) + " (" + format_flags(type, h.flags) + ")";
    if ((h.flags & ~defined_flags(type)) != 0) out += "  [undefined flags: ignored on receipt]";
    out += "\n  sequence_number: " + std::to_string(h.sequence_number) + "\n";
    return out;
  }
  out += " assoc=" + hex(h.association_id) + " epoch=" + std::to_string(h.epoch) +
         " seq=" + std::to_string(h.sequence_number);
  if (h.flags != 0) out += " flags=" + format_flags(type, h.flags);
  if (length != defined_size(m)) out += " length=" + std::to_string(length);
  if (h.version != kVersion) out += " version=" + std::to_string(h.version);
  if (h.rsv != 0) out += " rsv=" + std::to_string(h.rsv);
  return out;
}

}  // namespace

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
  std::vector<NamedValue> names;
  for (const auto& f : kMessageFlags) {
    if (f.type == type) names.push_back({f.bit, f.name});
  }
  return bit_names(names, flags);
}

std::string format_capabilities(std::uint32_t capabilities) {
  return bit_names(kCapabilities, capabilities);
}

std::string format_line(const Message& m) {
  std::string out = header_text(m, false);
  std::visit(
      [&out](const auto& body) {
        LineWriter w{out};
        std::decay_t<decltype(body)>::describe(body, w);
      },
      m);
  return out;
}

std::string format_detail(const Message& m) {
  std::string out = header_text(m, true);
  std::visit(
      [&out, &m](const auto& body) {
        DetailWriter w{out, type_of(m), std::get_if<CreditRequest>(&m)};
        std::decay_t<decltype(body)>::describe(body, w);
      },
      m);
  return out;
}

}  // namespace rdcc
