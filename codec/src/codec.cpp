#include "rdcc/codec/codec.hpp"

#include <array>
#include <cassert>
#include <cstdio>
#include <cstring>
#include <utility>

#include "rdcc/codec/bytes.hpp"

namespace rdcc {
namespace {

// Offsets of the common-header fields ("Common Header").
constexpr std::size_t kVersionOffset = 0;
constexpr std::size_t kTypeOffset = 1;
constexpr std::size_t kLengthOffset = 2;
// CONGESTION_REPORT: header, Reporter ID, Queue Depth, Queue Threshold, Degree, Direction.
constexpr std::size_t kAddressFamilyOffset = kHeaderSize + 12 + 2;

// Reads fields in wire order from octets whose extent decode() has already checked: the
// datagram holds at least Length octets and Length is at least the defined size of the type,
// so the body cursor needs no check per field (that one check is the bounds check).
class CheckedSpanCursor {
 public:
  explicit CheckedSpanCursor(const std::byte* p) noexcept : p_(p) {}
  template <class T>
  T read() noexcept {
    T v;
    std::memcpy(&v, p_, sizeof(T));
    p_ += sizeof(T);
    return detail::big_endian(v);
  }
  void bytes(std::uint8_t* out, std::size_t n) noexcept {
    std::memcpy(out, p_, n);
    p_ += n;
  }
  [[nodiscard]] const std::byte* position() const noexcept { return p_; }

 private:
  const std::byte* p_;
};

struct BodyReader {
  CheckedSpanCursor& in;
  template <class T>
  void operator()(const FieldSpec&, T& value) noexcept {
    value = in.read<T>();
  }
  void address(const FieldSpec&, IpAddress& a, std::size_t n) noexcept {
    a = {};
    in.bytes(a.data(), n);
  }
};

// Writes fields in wire order into a buffer that encode() has checked holds the whole message.
class CheckedSpanWriter {
 public:
  explicit CheckedSpanWriter(std::byte* p) noexcept : p_(p) {}
  template <class T>
  void write(T v) noexcept {
    const T wire = detail::big_endian(v);
    std::memcpy(p_, &wire, sizeof(T));
    p_ += sizeof(T);
  }
  void bytes(const std::uint8_t* in, std::size_t n) noexcept {
    std::memcpy(p_, in, n);
    p_ += n;
  }
  [[nodiscard]] std::byte* position() const noexcept { return p_; }

 private:
  std::byte* p_;
};

struct BodyWriter {
  CheckedSpanWriter& out;
  template <class T>
  void operator()(const FieldSpec&, const T& value) noexcept {
    out.write(value);
  }
  void address(const FieldSpec&, const IpAddress& a, std::size_t n) noexcept {
    out.bytes(a.data(), n);
  }
};

template <class Cursor>
Header read_header(Cursor& in) noexcept {
  Header h;
  const auto first = in.template read<std::uint8_t>();
  h.version = static_cast<std::uint8_t>(first >> 4U);
  h.rsv = static_cast<std::uint8_t>(first & 0x0FU);
  (void)in.template read<std::uint8_t>();  // Type: implied by the Message alternative
  h.length = in.template read<std::uint16_t>();
  h.association_id = in.template read<std::uint32_t>();
  h.epoch = in.template read<std::uint16_t>();
  h.flags = in.template read<std::uint16_t>();
  h.sequence_number = in.template read<std::uint32_t>();
  return h;
}

// Decodes a message of type T whose extent decode() has checked. The result is built in the
// caller's return slot (guaranteed elision): no temporary message is copied.
template <class T>
Result<Message, DecodeError> decode_as(const std::byte* wire) noexcept {
  Result<Message, DecodeError> result(std::in_place, std::in_place_type<T>);
  T& m = *std::get_if<T>(&result.value());
  CheckedSpanCursor in(wire);
  m.header = read_header(in);
  BodyReader reader{in};
  T::describe(m, reader);
  assert(in.position() - wire <= m.header.length);
  return result;
}

using BodyDecoder = Result<Message, DecodeError> (*)(const std::byte*) noexcept;
template <std::size_t... I>
constexpr std::array<BodyDecoder, sizeof...(I)> make_decoders(std::index_sequence<I...>) {
  return {&decode_as<std::variant_alternative_t<I, Message>>...};
}
constexpr auto kDecoders = make_decoders(std::make_index_sequence<std::variant_size_v<Message>>{});
static_assert(kDecoders.size() == kMessageTypes.size());

std::uint8_t octet(std::span<const std::byte> d, std::size_t i) noexcept {
  return std::to_integer<std::uint8_t>(d[i]);
}

[[gnu::cold]] DecodeError make_error(std::span<const std::byte> d, DecodeErrorCode code,
                                    std::size_t offset,
                       std::string_view field, std::uint32_t actual,
                       std::uint32_t expected) noexcept {
  DecodeError e{code, offset, field, actual, expected};
  if (d.size() > kTypeOffset) e.raw_type = octet(d, kTypeOffset);
  e.header = peek_header(d);
  return e;
}

// A datagram of fewer than 4 octets: the same checks in the same order as decode(), for the
// fields that are there.
[[gnu::cold]] Result<Message, DecodeError> truncated(std::span<const std::byte> d) noexcept {
  const auto size = static_cast<std::uint32_t>(d.size());
  if (d.empty()) {
    return fail(make_error(d, DecodeErrorCode::Truncated, kVersionOffset, "version", size, 1));
  }
  const auto version = static_cast<std::uint8_t>(octet(d, kVersionOffset) >> 4U);
  if (version != kVersion) {
    return fail(
        make_error(d, DecodeErrorCode::BadVersion, kVersionOffset, "version", version, kVersion));
  }
  if (d.size() <= kTypeOffset) {
    return fail(make_error(d, DecodeErrorCode::Truncated, kTypeOffset, "type", size, 2));
  }
  const std::uint8_t raw_type = octet(d, kTypeOffset);
  if (find_message_type(raw_type) == nullptr) {
    return fail(make_error(d, DecodeErrorCode::UnknownType, kTypeOffset, "type", raw_type, 0));
  }
  return fail(make_error(d, DecodeErrorCode::Truncated, kLengthOffset, "length", size, 4));
}

}  // namespace

std::optional<Header> peek_header(std::span<const std::byte> datagram) noexcept {
  if (datagram.size() < kHeaderSize) return std::nullopt;
  ByteReader in(datagram);  // the checked cursor: nothing about the datagram is known here
  return read_header(in);
}

// Checks run in this order, and the first that fails is reported (docs/spec-notes.md,
// "Order of decode errors"): Version, Type, Length present, Length below the type's size,
// Length beyond the datagram, then CONGESTION_REPORT's AF and its AF-dependent size.
Result<Message, DecodeError> decode(std::span<const std::byte> d) noexcept {
  const auto size = static_cast<std::uint32_t>(d.size());
  if (size < kLengthOffset + 2) return truncated(d);
  // Version, Rsv, Type and Length are the first 32-bit word.
  const std::uint32_t word = CheckedSpanCursor(d.data()).read<std::uint32_t>();
  const auto version = static_cast<std::uint8_t>(word >> 28U);
  const auto raw_type = static_cast<std::uint8_t>(word >> 16U);
  const auto length = static_cast<std::uint16_t>(word);
  if (version != kVersion) {
    return fail(
        make_error(d, DecodeErrorCode::BadVersion, kVersionOffset, "version", version, kVersion));
  }
  const MessageTypeInfo* type = find_message_type(raw_type);
  if (type == nullptr) {
    return fail(make_error(d, DecodeErrorCode::UnknownType, kTypeOffset, "type", raw_type, 0));
  }
  if (length < type->size) {
    return fail(make_error(d, DecodeErrorCode::LengthTooSmall, kLengthOffset, "length", length,
                           type->size));
  }
  if (length > size) {
    return fail(make_error(d, DecodeErrorCode::LengthBeyondDatagram, kLengthOffset, "length",
                           length, size));
  }
  if (type->type == MessageType::CongestionReport) {
    const std::uint8_t af = octet(d, kAddressFamilyOffset);
    if (af != static_cast<std::uint8_t>(AddressFamily::IPv4) &&
        af != static_cast<std::uint8_t>(AddressFamily::IPv6)) {
      return fail(make_error(d, DecodeErrorCode::BadAddressFamily, kAddressFamilyOffset,
                             "address_family", af, 0));
    }
    if (af == static_cast<std::uint8_t>(AddressFamily::IPv6) &&
        length < kCongestionReportSizeIpv6) {
      return fail(make_error(d, DecodeErrorCode::LengthTooSmall, kLengthOffset, "length", length,
                             kCongestionReportSizeIpv6));
    }
  }
  // Only the first Length octets are the message; octets between the type's size and Length
  // are ignored (docs/spec-notes.md, "Octets beyond the defined size").
  return kDecoders[raw_type - 1U](d.data());
}

std::size_t encoded_size(const Message& m) noexcept {
  const std::size_t defined = defined_size(m);
  const std::size_t length = header_of(m).length;
  return length > defined ? length : defined;
}

Result<std::size_t, EncodeError> encode(const Message& m, std::span<std::byte> out) noexcept {
  const Header& h = header_of(m);
  if (h.version > 0x0F) return fail(EncodeError{EncodeErrorCode::FieldOutOfRange, "version"});
  if (h.rsv > 0x0F) return fail(EncodeError{EncodeErrorCode::FieldOutOfRange, "rsv"});
  if (const auto* report = std::get_if<CongestionReport>(&m);
      report != nullptr && report->address_size() == 0) {
    return fail(EncodeError{EncodeErrorCode::BadAddressFamily, "address_family"});
  }
  const std::size_t size = encoded_size(m);
  if (out.size() < size) {
    return fail(EncodeError{EncodeErrorCode::BufferTooSmall, "buffer", size});
  }
  CheckedSpanWriter w(out.data());
  w.write(static_cast<std::uint8_t>((h.version << 4U) | h.rsv));
  w.write(static_cast<std::uint8_t>(type_of(m)));
  w.write(h.length != 0 ? h.length : defined_size(m));
  w.write(h.association_id);
  w.write(h.epoch);
  w.write(h.flags);
  w.write(h.sequence_number);
  std::visit(
      [&w](const auto& body) {
        BodyWriter writer{w};
        std::decay_t<decltype(body)>::describe(body, writer);
      },
      m);
  // Octets between the defined size and a larger Length are written as zero.
  const auto written = static_cast<std::size_t>(w.position() - out.data());
  std::memset(w.position(), 0, size - written);
  return size;
}

std::string_view to_string(DecodeErrorCode code) noexcept {
  switch (code) {
    case DecodeErrorCode::Truncated: return "truncated";
    case DecodeErrorCode::BadVersion: return "bad_version";
    case DecodeErrorCode::UnknownType: return "unknown_type";
    case DecodeErrorCode::LengthTooSmall: return "length_too_small";
    case DecodeErrorCode::LengthBeyondDatagram: return "length_beyond_datagram";
    case DecodeErrorCode::BadAddressFamily: return "bad_address_family";
  }
  return "unknown";
}

std::string_view to_string(EncodeErrorCode code) noexcept {
  switch (code) {
    case EncodeErrorCode::BufferTooSmall: return "buffer_too_small";
    case EncodeErrorCode::BadAddressFamily: return "bad_address_family";
    case EncodeErrorCode::FieldOutOfRange: return "field_out_of_range";
  }
  return "unknown";
}

std::string DecodeError::describe() const {
  char text[192];
  const auto at = [&] {
    return std::string(" (field ") + std::string(field) + ", offset " + std::to_string(offset) +
           ")";
  };
  switch (code) {
    case DecodeErrorCode::Truncated:
      std::snprintf(text, sizeof text, "datagram of %u octets ends before the %.*s field", actual,
                    static_cast<int>(field.size()), field.data());
      return text + at();
    case DecodeErrorCode::BadVersion:
      std::snprintf(text, sizeof text, "version %u is not %u", actual, expected);
      return text + at();
    case DecodeErrorCode::UnknownType:
      std::snprintf(text, sizeof text, "type 0x%02x is not an RDCC message type", actual);
      return text + at();
    case DecodeErrorCode::LengthTooSmall: {
      const MessageTypeInfo* t = find_message_type(raw_type);
      const std::string_view name = t != nullptr ? t->name : std::string_view("?");
      std::snprintf(text, sizeof text, "length %u is smaller than %u, the size of %.*s", actual,
                    expected, static_cast<int>(name.size()), name.data());
      return text + at();
    }
    case DecodeErrorCode::LengthBeyondDatagram:
      std::snprintf(text, sizeof text, "length %u is larger than the datagram of %u octets",
                    actual, expected);
      return text + at();
    case DecodeErrorCode::BadAddressFamily:
      std::snprintf(text, sizeof text, "address family %u is neither 4 (IPv4) nor 6 (IPv6)",
                    actual);
      return text + at();
  }
  return "unknown decode error" + at();
}

std::string EncodeError::describe() const {
  switch (code) {
    case EncodeErrorCode::BufferTooSmall:
      return "buffer too small: the message needs " + std::to_string(needed) + " octets";
    case EncodeErrorCode::BadAddressFamily:
      return "address_family must be 4 (IPv4) or 6 (IPv6) to encode a CONGESTION_REPORT";
    case EncodeErrorCode::FieldOutOfRange:
      return std::string(field) + " is a 4-bit field: its value must be at most 15";
  }
  return "unknown encode error";
}

}  // namespace rdcc
