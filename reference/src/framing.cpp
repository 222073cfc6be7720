// A declarative opaque data framing (framing.hpp).
#include "rdcc/reference/framing.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <set>

#include <nlohmann/json.hpp>

#include "rdcc/codec/json_input.hpp"

namespace rdcc::ref {
namespace {

// The largest header a framing may describe: far above any real transport's, and small enough
// that a datagram can still carry a payload.
constexpr std::size_t kMaxHeaderLength = 1024;

Failure<BindingError> error(BindingErrorCode code, std::size_t offset, std::string_view field,
                            std::uint64_t actual = 0, std::uint64_t expected = 0) {
  return fail(BindingError{code, offset, field, actual, expected});
}

// Reads a framing file's JSON; every error names the file and the field.
class FramingReader {
 public:
  FramingReader(const std::string& name, const nlohmann::json& doc) : name_(name), doc_(doc) {}

  [[noreturn]] void fail_at(std::string_view field, const std::string& what) const {
    throw FramingError(name_ + ": field \"" + excerpt(field) + "\": " + what);
  }

  std::uint64_t number(const nlohmann::json& v, std::string_view field, std::uint64_t max) const {
    if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<std::int64_t>() >= 0)) {
      fail_at(field, "expected a non-negative integer, found " + excerpt(v));
    }
    const auto n = v.get<std::uint64_t>();
    if (n > max) fail_at(field, std::to_string(n) + " is above " + std::to_string(max));
    return n;
  }

  const nlohmann::json& required(std::string_view key) const {
    const auto it = doc_.find(key);
    if (it == doc_.end()) fail_at(key, "missing");
    return *it;
  }

  // {"offset": N, "size": S} within the header, S in [min_size, 8].
  DataFraming::Field field(const nlohmann::json& v, std::string_view key, std::size_t header,
                           std::size_t min_size, std::size_t max_size) const {
    if (!v.is_object()) fail_at(key, "expected {\"offset\": N, \"size\": S}, found " + excerpt(v));
    for (const auto& [k, value] : v.items()) {
      if (k != "offset" && k != "size") {
        fail_at(std::string(key) + "." + k, "unknown key (expected offset, size)");
      }
    }
    const auto at = v.find("offset");
    if (at == v.end()) fail_at(std::string(key) + ".offset", "missing");
    const auto size = v.find("size");
    if (size == v.end()) fail_at(std::string(key) + ".size", "missing");
    DataFraming::Field f;
    f.at = number(*at, std::string(key) + ".offset", kMaxHeaderLength);
    f.size = number(*size, std::string(key) + ".size", 8);
    if (f.size < min_size || f.size > max_size) {
      fail_at(std::string(key) + ".size",
              std::to_string(f.size) + " octets; expected " +
                  (min_size == max_size
                       ? std::to_string(min_size)
                       : std::to_string(min_size) + " to " + std::to_string(max_size)));
    }
    if (f.at + f.size > header) {
      fail_at(key, "octets " + std::to_string(f.at) + ".." + std::to_string(f.at + f.size) +
                       " lie beyond the header_length " + std::to_string(header));
    }
    return f;
  }

 private:
  const std::string& name_;
  const nlohmann::json& doc_;
};

const std::set<std::string, std::less<>> kKeys = {
    "name",   "header_length",  "byte_order", "binding_value",
    "offset", "payload_length", "constants"};

}  // namespace

DataFraming DataFraming::load(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw FramingError(path.string() + ": cannot open: " + std::strerror(errno));
  std::string text;
  if (!read_at_most(in, kJsonMaxDocument, text)) {
    throw FramingError(path.string() + ": " + too_long(kJsonMaxDocument, "the file").describe());
  }
  return parse(text, path.string());
}

DataFraming DataFraming::parse(std::string_view text, const std::string& name) {
  const auto read = parse_json<nlohmann::json>(text);
  if (!read) throw FramingError(name + ": not valid JSON: " + read.error().describe());
  const nlohmann::json& doc = *read;
  if (!doc.is_object())
    throw FramingError(name + ": expected a JSON object, found " + doc.type_name());
  const FramingReader r(name, doc);
  for (const auto& [key, value] : doc.items()) {
    if (kKeys.count(key) == 0) {
      r.fail_at(key,
                "unknown key (expected name, header_length, byte_order, binding_value, "
                "offset, payload_length, constants)");
    }
  }
  DataFraming f;
  f.custom_ = true;
  f.name_ = name;
  if (const auto n = doc.find("name"); n != doc.end()) {
    if (!n->is_string() || n->get<std::string>().empty())
      r.fail_at("name", "expected a non-empty string");
    f.name_ = n->get<std::string>();
  }
  f.header_length_ = r.number(r.required("header_length"), "header_length", kMaxHeaderLength);
  if (f.header_length_ == 0) r.fail_at("header_length", "0: the header must carry the fields");
  const nlohmann::json& order = r.required("byte_order");
  if (order != "big" && order != "little") {
    r.fail_at("byte_order", "expected \"big\" or \"little\", found " + excerpt(order));
  }
  f.little_endian_ = order == "little";
  // "The Binding Value is a 64-bit message identifier": all of its 64 bits.
  f.binding_value_ = r.field(r.required("binding_value"), "binding_value", f.header_length_, 8, 8);
  f.offset_ = r.field(r.required("offset"), "offset", f.header_length_, 1, 8);
  const nlohmann::json& length = r.required("payload_length");
  if (length != "rest") {
    if (!length.is_object()) {
      r.fail_at(
          "payload_length",
          "expected {\"offset\": N, \"size\": S} or \"rest\" (the rest of the datagram), found " +
              excerpt(length));
    }
    f.payload_length_ = r.field(length, "payload_length", f.header_length_, 1, 8);
  }
  if (const auto c = doc.find("constants"); c != doc.end()) {
    if (!c->is_array())
      r.fail_at("constants", "expected an array of {\"offset\", \"size\", \"value\"}");
    for (std::size_t i = 0; i < c->size(); ++i) {
      const std::string key = "constants[" + std::to_string(i) + "]";
      const nlohmann::json& e = (*c)[i];
      if (!e.is_object() || !e.contains("value"))
        r.fail_at(key, "expected {\"offset\", \"size\", \"value\"}");
      nlohmann::json place = e;
      place.erase("value");
      Constant k;
      k.field = r.field(place, key, f.header_length_, 1, 8);
      k.value = r.number(e["value"], key + ".value", std::numeric_limits<std::uint64_t>::max());
      if (k.field.size < 8 && k.value >> (8 * k.field.size) != 0) {
        r.fail_at(key + ".value", std::to_string(k.value) + " does not fit " +
                                      std::to_string(k.field.size) + " octets");
      }
      f.constants_.push_back(k);
    }
  }
  // No two fields may share an octet.
  std::vector<std::pair<std::string, Field>> placed = {{"binding_value", f.binding_value_},
                                                       {"offset", f.offset_}};
  if (f.payload_length_) placed.emplace_back("payload_length", *f.payload_length_);
  for (std::size_t i = 0; i < f.constants_.size(); ++i) {
    placed.emplace_back("constants[" + std::to_string(i) + "]", f.constants_[i].field);
  }
  for (std::size_t i = 0; i < placed.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      const Field a = placed[i].second;
      const Field b = placed[j].second;
      if (a.at < b.at + b.size && b.at < a.at + a.size) {
        r.fail_at(placed[i].first, "overlaps " + placed[j].first);
      }
    }
  }
  return f;
}

std::uint64_t DataFraming::read(std::span<const std::byte> b, Field f) const noexcept {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < f.size; ++i) {
    const std::size_t at = little_endian_ ? f.at + f.size - 1 - i : f.at + i;
    v = (v << 8U) | std::to_integer<std::uint64_t>(b[at]);
  }
  return v;
}

void DataFraming::write(std::span<std::byte> b, Field f, std::uint64_t v) const noexcept {
  for (std::size_t i = 0; i < f.size; ++i) {
    const std::size_t at = little_endian_ ? f.at + i : f.at + f.size - 1 - i;
    b[at] = static_cast<std::byte>(v & 0xFFU);
    v >>= 8U;
  }
}

Result<std::size_t, BindingError> DataFraming::encode(const OpaqueHeader& h,
                                                      std::span<const std::byte> payload,
                                                      std::span<std::byte> out) const noexcept {
  if (!custom_) return encode_opaque(h, payload, out);
  if (payload.size() != h.payload_length) {
    return error(BindingErrorCode::FieldOutOfRange, payload_length_ ? payload_length_->at : 0,
                 "payload_length", h.payload_length, payload.size());
  }
  const auto fits = [](Field f, std::uint64_t v) { return f.size == 8 || v >> (8 * f.size) == 0; };
  if (!fits(offset_, h.offset)) {
    return error(BindingErrorCode::FieldOutOfRange, offset_.at, "offset", h.offset);
  }
  if (payload_length_ && !fits(*payload_length_, h.payload_length)) {
    return error(BindingErrorCode::FieldOutOfRange, payload_length_->at, "payload_length",
                 h.payload_length);
  }
  const std::size_t total = header_length_ + payload.size();
  if (out.size() < total)
    return error(BindingErrorCode::BufferTooSmall, 0, "packet", out.size(), total);
  std::fill(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(header_length_), std::byte{0});
  for (const Constant& k : constants_) write(out, k.field, k.value);
  write(out, binding_value_, h.message_identifier);
  write(out, offset_, h.offset);
  if (payload_length_) write(out, *payload_length_, h.payload_length);
  if (!payload.empty()) std::memcpy(out.data() + header_length_, payload.data(), payload.size());
  return total;
}

Result<OpaquePacket, BindingError> DataFraming::decode(
    std::span<const std::byte> udp_payload) const noexcept {
  if (!custom_) return decode_opaque(udp_payload);
  if (udp_payload.size() < header_length_) {
    return error(BindingErrorCode::Truncated, udp_payload.size(), "header", udp_payload.size(),
                 header_length_);
  }
  for (const Constant& k : constants_) {
    if (const std::uint64_t v = read(udp_payload, k.field); v != k.value) {
      return error(BindingErrorCode::BadMagic, k.field.at, "constant", v, k.value);
    }
  }
  OpaquePacket p;
  p.header.magic = 0;
  p.header.version = 0;
  p.header.message_identifier = read(udp_payload, binding_value_);
  p.header.offset = read(udp_payload, offset_);
  const std::size_t rest = udp_payload.size() - header_length_;
  const std::uint64_t length = payload_length_ ? read(udp_payload, *payload_length_) : rest;
  if (length > rest) {
    return error(BindingErrorCode::PayloadBeyondPacket, payload_length_->at, "payload_length",
                 length, rest);
  }
  if (p.header.offset > std::numeric_limits<std::uint64_t>::max() - length) {
    return error(BindingErrorCode::OffsetOverflow, offset_.at, "offset", p.header.offset);
  }
  if (length > std::numeric_limits<std::uint32_t>::max()) {
    return error(BindingErrorCode::FieldOutOfRange, payload_length_ ? payload_length_->at : 0,
                 "payload_length", length, std::numeric_limits<std::uint32_t>::max());
  }
  p.header.payload_length = static_cast<std::uint32_t>(length);
  p.payload = udp_payload.subspan(header_length_, length);
  p.trailing = rest - length;
  return p;
}

}  // namespace rdcc::ref
