// The C API (rdcc/codec.h) over the C++ codec: each body's fields are listed once, copied in
// either direction by the same list.
#include "rdcc/codec.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "rdcc/codec/codec.hpp"
#include "rdcc/codec/format.hpp"
#include "rdcc/codec/json.hpp"

namespace rdcc {
namespace {

// `f(cpp_field, c_field)` for every field of the body, in wire order; `C` is rdcc_message,
// const when the C side is only read.
template <class C, class F>
void each(AssocRequest& m, C& c, F f) {
  auto& b = c.body.assoc_request;
  f(m.sender_nonce, b.sender_nonce);
  f(m.capabilities, b.capabilities);
  f(m.line_rate, b.line_rate);
  for (std::size_t i = 0; i < m.reserved.size(); ++i) f(m.reserved[i], b.reserved[i]);
}
template <class C, class F>
void each(AssocAccept& m, C& c, F f) {
  auto& b = c.body.assoc_accept;
  f(m.sender_nonce, b.sender_nonce);
  f(m.capabilities, b.capabilities);
  f(m.unscheduled_limit, b.unscheduled_limit);
  f(m.start_jitter, b.start_jitter);
  f(m.backlog_threshold, b.backlog_threshold);
  f(m.grant_lifetime, b.grant_lifetime);
  f(m.credit_unit, b.credit_unit);
}
template <class C, class F>
void each(CreditRequest& m, C& c, F f) {
  auto& b = c.body.credit_request;
  f(m.message_id, b.message_id);
  f(m.message_length, b.message_length);
  f(m.unscheduled_sent, b.unscheduled_sent);
  f(m.traffic_class, b.traffic_class);
  f(m.weight, b.weight);
  f(m.service_hint, b.service_hint);
  f(m.binding_kind, b.binding_kind);
  f(m.deadline, b.deadline);
  f(m.binding_value, b.binding_value);
}
template <class C, class F>
void each(CreditGrant& m, C& c, F f) {
  auto& b = c.body.credit_grant;
  f(m.message_id, b.message_id);
  f(m.grant_limit, b.grant_limit);
  f(m.pacing_rate, b.pacing_rate);
  f(m.lifetime, b.lifetime);
}
template <class C, class F>
void each(SenderStatus& m, C& c, F f) {
  auto& b = c.body.sender_status;
  f(m.unused_credit, b.unused_credit);
  f(m.congestion_level, b.congestion_level);
  f(m.service_hint, b.service_hint);
  f(m.reserved, b.reserved);
  f(m.suggested_rate, b.suggested_rate);
}
template <class C, class F>
void each(CongestionReport& m, C& c, F f) {
  auto& b = c.body.congestion_report;
  f(m.reporter_id, b.reporter_id);
  f(m.queue_depth, b.queue_depth);
  f(m.queue_threshold, b.queue_threshold);
  f(m.congestion_degree, b.congestion_degree);
  f(m.direction, b.direction);
  f(m.address_family, b.address_family);
  f(m.protocol, b.protocol);
  f(m.source_port, b.source_port);
  f(m.destination_port, b.destination_port);
  f(m.suggested_rate, b.suggested_rate);
  for (std::size_t i = 0; i < m.source_address.size(); ++i) {
    f(m.source_address[i], b.source_address[i]);
    f(m.destination_address[i], b.destination_address[i]);
  }
}
template <class C, class F>
void each(MsgDone& m, C& c, F f) {
  f(m.message_id, c.body.msg_done.message_id);
  f(m.octets_received, c.body.msg_done.octets_received);
}
template <class C, class F>
void each(Cancel& m, C& c, F f) {
  f(m.message_id, c.body.cancel.message_id);
  f(m.reason, c.body.cancel.reason);
  f(m.reserved, c.body.cancel.reserved);
}
template <class C, class F>
void each(CreditReturn& m, C& c, F f) {
  f(m.message_id, c.body.credit_return.message_id);
  f(m.new_limit, c.body.credit_return.new_limit);
}
template <class C, class F>
void each(ErrorMessage& m, C& c, F f) {
  f(m.reason, c.body.error.reason);
  f(m.reserved, c.body.error.reserved);
  f(m.message_id, c.body.error.message_id);
}

template <class C, class F>
void each_field(Message& m, C& c, F f) {
  Header& h = header_of(m);
  f(h.version, c.header.version);
  f(h.rsv, c.header.rsv);
  f(h.length, c.header.length);
  f(h.association_id, c.header.association_id);
  f(h.epoch, c.header.epoch);
  f(h.flags, c.header.flags);
  f(h.sequence_number, c.header.sequence_number);
  std::visit([&](auto& body) { each(body, c, f); }, m);
}

const auto kToC = [](const auto& cpp, auto& c) { c = cpp; };
const auto kFromC = [](auto& cpp, const auto& c) { cpp = c; };

// A default message of alternative `index` (type index + 1).
template <std::size_t I = 0>
std::optional<Message> blank(std::size_t index) {
  if constexpr (I < std::variant_size_v<Message>) {
    if (index == I) return Message(std::in_place_index<I>);
    return blank<I + 1>(index);
  } else {
    return std::nullopt;
  }
}

std::optional<Message> from_c(const rdcc_message& c) {
  if (c.type < 1) return std::nullopt;
  auto m = blank(c.type - 1U);
  if (m) each_field(*m, c, kFromC);
  return m;
}

void copy_text(char* out, std::size_t capacity, std::string_view text) {
  if (capacity == 0) return;
  const std::size_t n = std::min(text.size(), capacity - 1);
  std::memcpy(out, text.data(), n);
  out[n] = '\0';
}

template <std::size_t N>
void copy_text(char (&out)[N], std::string_view text) {
  copy_text(out, N, text);
}

int fail(rdcc_error* error, int code, std::string_view field, std::string_view message) {
  if (error != nullptr) {
    *error = rdcc_error{};
    error->code = code;
    copy_text(error->field, field);
    copy_text(error->message, message);
  }
  return code;
}

int code_of(DecodeErrorCode code) {
  switch (code) {
    case DecodeErrorCode::Truncated: return RDCC_E_TRUNCATED;
    case DecodeErrorCode::BadVersion: return RDCC_E_BAD_VERSION;
    case DecodeErrorCode::UnknownType: return RDCC_E_UNKNOWN_TYPE;
    case DecodeErrorCode::LengthTooSmall: return RDCC_E_LENGTH_TOO_SMALL;
    case DecodeErrorCode::LengthBeyondDatagram: return RDCC_E_LENGTH_BEYOND_DATAGRAM;
    case DecodeErrorCode::BadAddressFamily: return RDCC_E_BAD_ADDRESS_FAMILY;
  }
  return RDCC_E_INVALID_ARGUMENT;
}

int code_of(EncodeErrorCode code) {
  switch (code) {
    case EncodeErrorCode::BufferTooSmall: return RDCC_E_BUFFER_TOO_SMALL;
    case EncodeErrorCode::BadAddressFamily: return RDCC_E_BAD_ADDRESS_FAMILY;
    case EncodeErrorCode::FieldOutOfRange: return RDCC_E_FIELD_OUT_OF_RANGE;
  }
  return RDCC_E_INVALID_ARGUMENT;
}

// ---- rdcc_tables_json: the tables, for bindings in other languages -------------------------

using Json = nlohmann::ordered_json;

std::string_view unit_name(Unit unit) {
  switch (unit) {
    case Unit::Number: return "number";
    case Unit::Id: return "id";
    case Unit::Octets: return "octets";
    case Unit::Mbps: return "mbps";
    case Unit::Micros: return "micros";
    case Unit::Enum: return "enum";
    case Unit::Bitmask: return "bitmask";
    case Unit::Reserved: return "reserved";
  }
  return "number";
}

Json registry(std::span<const NamedValue> table) {
  Json j = Json::object();
  for (const auto& e : table) j[std::to_string(e.value)] = e.name;
  return j;
}

// The registry a field's names come from, by its table; "" for none.
std::string_view registry_of(const FieldSpec& f) {
  const auto is = [&f](std::span<const NamedValue> table) {
    return !f.names.empty() && f.names.data() == table.data();
  };
  if (is(kReasonCodes)) return "reason_codes";
  if (is(kServiceHints)) return "service_hints";
  if (is(kBindingKinds)) return "binding_kinds";
  if (is(kCapabilities)) return "capabilities";
  if (is(kReportDirections)) return "report_directions";
  if (is(kAddressFamilies)) return "address_families";
  return "";
}

// Each field of a body in wire order: name, width, unit, registry. An address is "address",
// 32 bits with AF 4 and 128 with AF 6.
struct LayoutWriter {
  Json& fields;
  template <class T>
  void operator()(const FieldSpec& f, const T&) {
    fields.push_back(Json{{"name", f.name},
                          {"bits", 8 * sizeof(T)},
                          {"unit", unit_name(f.unit)},
                          {"registry", registry_of(f)}});
  }
  void address(const FieldSpec& f, const IpAddress&, std::size_t) {
    fields.push_back(Json{{"name", f.name}, {"bits", 0}, {"unit", "address"}, {"registry", ""}});
  }
};

Json header_layout() {
  Json h = Json::array();
  const auto add = [&h](std::string_view name, int bits, std::string_view unit) {
    h.push_back(Json{{"name", name}, {"bits", bits}, {"unit", unit}, {"registry", ""}});
  };
  add("version", 4, "number");
  add("rsv", 4, "reserved");
  add("type", 8, "enum");
  add("length", 16, "octets");
  add("association_id", 32, "id");
  add("epoch", 16, "number");
  add("flags", 16, "flags");
  add("sequence_number", 32, "number");
  return h;
}

std::string tables_json() {
  Json registries = Json::object();
  Json types = Json::object();
  for (const auto& t : kMessageTypes) types[std::to_string(static_cast<unsigned>(t.type))] = t.name;
  registries["message_types"] = types;
  registries["reason_codes"] = registry(kReasonCodes);
  registries["service_hints"] = registry(kServiceHints);
  registries["binding_kinds"] = registry(kBindingKinds);
  registries["capabilities"] = registry(kCapabilities);
  registries["report_directions"] = registry(kReportDirections);
  registries["address_families"] = registry(kAddressFamilies);
  Json flags = Json::object();
  for (const auto& t : kMessageTypes) flags[t.name] = Json::object();
  for (const auto& f : kMessageFlags) flags[info(f.type).name][std::to_string(f.bit)] = f.name;
  Json errors = Json::object();
  for (int code = RDCC_E_TRUNCATED; code <= RDCC_E_BAD_JSON; ++code) {
    static constexpr std::array<std::string_view, 10> kNames{"truncated",
                                                             "bad_version",
                                                             "unknown_type",
                                                             "length_too_small",
                                                             "length_beyond_datagram",
                                                             "bad_address_family",
                                                             "buffer_too_small",
                                                             "field_out_of_range",
                                                             "invalid_argument",
                                                             "bad_json"};
    errors[std::to_string(code)] = kNames[static_cast<std::size_t>(code - 1)];
  }
  Json layouts = Json::array();
  std::size_t index = 0;
  for (const auto& t : kMessageTypes) {
    Json fields = Json::array();
    LayoutWriter writer{fields};
    auto m = blank(index++);
    std::visit([&writer](auto& body) { std::decay_t<decltype(body)>::describe(body, writer); }, *m);
    layouts.push_back(Json{{"type", static_cast<unsigned>(t.type)},
                           {"name", t.name},
                           {"size", t.size},
                           {"max_size", t.max_size},
                           {"fields", fields}});
  }
  return Json{{"message_size", sizeof(rdcc_message)},
              {"error_size", sizeof(rdcc_error)},
              {"registries", registries},
              {"message_flags", flags},
              {"error_codes", errors},
              {"header", header_layout()},
              {"types", layouts}}
      .dump();
}

}  // namespace
}  // namespace rdcc

extern "C" {

int rdcc_decode(const uint8_t* data, size_t size, rdcc_message* out, rdcc_error* error) {
  using namespace rdcc;
  if ((data == nullptr && size > 0) || out == nullptr) {
    return fail(error, RDCC_E_INVALID_ARGUMENT, "", "rdcc_decode: data or out is NULL");
  }
  auto decoded = decode(std::as_bytes(std::span(data, size)));
  if (!decoded) {
    const DecodeError& e = decoded.error();
    try {
      fail(error, code_of(e.code), e.field, e.describe());
    } catch (...) {
      fail(error, code_of(e.code), e.field, "");
    }
    if (error != nullptr) {
      error->offset = e.offset;
      error->actual = e.actual;
      error->expected = e.expected;
    }
    return code_of(e.code);
  }
  *out = rdcc_message{};
  out->type = static_cast<uint8_t>(type_of(*decoded));
  each_field(*decoded, *out, kToC);
  if (error != nullptr) *error = rdcc_error{};
  return RDCC_OK;
}

int rdcc_encode(const rdcc_message* message, uint8_t* out, size_t capacity, size_t* written,
                rdcc_error* error) {
  using namespace rdcc;
  if (message == nullptr || (out == nullptr && capacity > 0)) {
    return fail(error, RDCC_E_INVALID_ARGUMENT, "", "rdcc_encode: message or out is NULL");
  }
  const auto m = from_c(*message);
  if (!m) {
    return fail(error, RDCC_E_UNKNOWN_TYPE, "type",
                "type " + std::to_string(message->type) + " is not an RDCC message type");
  }
  auto encoded = encode(*m, std::as_writable_bytes(std::span(out, capacity)));
  if (!encoded) {
    const EncodeError& e = encoded.error();
    try {
      fail(error, code_of(e.code), e.field, e.describe());
    } catch (...) {
      fail(error, code_of(e.code), e.field, "");
    }
    if (error != nullptr) error->needed = e.needed;
    return code_of(e.code);
  }
  if (written != nullptr) *written = *encoded;
  if (error != nullptr) *error = rdcc_error{};
  return RDCC_OK;
}

size_t rdcc_format_line(const rdcc_message* message, char* out, size_t capacity) {
  if (message == nullptr) return 0;
  const auto m = rdcc::from_c(*message);
  if (!m) return 0;
  try {
    const std::string line = rdcc::format_line(*m);
    if (out != nullptr) rdcc::copy_text(out, capacity, line);
    return line.size();
  } catch (...) {
    return 0;
  }
}

size_t rdcc_to_json(const rdcc_message* message, char* out, size_t capacity) {
  if (message == nullptr) return 0;
  const auto m = rdcc::from_c(*message);
  if (!m) return 0;
  try {
    const std::string text = rdcc::to_json(*m).dump();
    if (out != nullptr) rdcc::copy_text(out, capacity, text);
    return text.size();
  } catch (...) {
    return 0;
  }
}

int rdcc_from_json(const char* text, size_t size, rdcc_message* out, rdcc_error* error) {
  using namespace rdcc;
  if ((text == nullptr && size > 0) || out == nullptr) {
    return fail(error, RDCC_E_INVALID_ARGUMENT, "", "rdcc_from_json: text or out is NULL");
  }
  // A message's JSON is a few hundred octets; the bound keeps any text's parse small.
  constexpr std::size_t kMaxJsonText = 65536;
  if (size > kMaxJsonText) {
    return fail(error, RDCC_E_BAD_JSON, "",
                "the JSON text is longer than " + std::to_string(kMaxJsonText) + " octets");
  }
  try {
    const auto j = nlohmann::ordered_json::parse(std::string_view(text, size), nullptr, false);
    if (j.is_discarded()) return fail(error, RDCC_E_BAD_JSON, "", "not a JSON text");
    const auto m = message_from_json(j);
    if (!m) return fail(error, RDCC_E_BAD_JSON, m.error().key, m.error().describe());
    *out = rdcc_message{};
    out->type = static_cast<uint8_t>(type_of(*m));
    auto copy = *m;
    each_field(copy, *out, kToC);
  } catch (...) {
    return fail(error, RDCC_E_BAD_JSON, "", "the JSON text could not be read (out of memory)");
  }
  if (error != nullptr) *error = rdcc_error{};
  return RDCC_OK;
}

const char* rdcc_tables_json(void) {
  try {
    static const std::string kTables = rdcc::tables_json();
    return kTables.c_str();
  } catch (...) {
    return nullptr;
  }
}

const char* rdcc_type_name(int type) {
  if (type < 1 || type > static_cast<int>(rdcc::kMessageTypes.size())) return nullptr;
  // The names are string literals: NUL-terminated.
  return rdcc::kMessageTypes[static_cast<std::size_t>(type - 1)].name.data();
}

const char* rdcc_version(void) {
  return RDCC_VERSION;
}

}  // extern "C"
