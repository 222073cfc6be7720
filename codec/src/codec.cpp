#include "rdcc/codec/codec.hpp"

#include <array>
#include <bit>
#include <cassert>
#include <cstdio>
#include <cstring>
#include <type_traits>
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

using DecodeResult = Result<Message, DecodeError>;
using EncodeResult = Result<std::size_t, EncodeError>;

// One big-endian integer at `p`, which the caller has checked is in bounds.
template <class T>
[[nodiscard]] T load_be(const std::byte* p) noexcept {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return detail::big_endian(v);
}

// Reads fields in wire order from octets whose extent decode() has already checked: the
// datagram holds at least Length octets and Length is at least the defined size of the type,
// so the body cursor needs no check per field (that one check is the bounds check).
class CheckedSpanCursor {
 public:
  explicit CheckedSpanCursor(const std::byte* p) noexcept : p_(p) {}
  template <class T>
  T read() noexcept {
    const T v = load_be<T>(p_);
    p_ += sizeof(T);
    return v;
  }
  // T's octets in wire order, not converted.
  template <class T>
  T read_native() noexcept {
    T v;
    std::memcpy(&v, p_, sizeof(T));
    p_ += sizeof(T);
    return v;
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
  // An IPv4 address is its four octets and twelve zeros. Both sizes are spelled out so that each
  // is a few fixed-size moves rather than a memset and a memcpy of run-time size.
  void address(const FieldSpec&, IpAddress& a, std::size_t n) noexcept {
    if (n == a.size()) {
      in.bytes(a.data(), a.size());
    } else if (n == 4 && std::endian::native == std::endian::little) {
      // The four octets as the low half of a little-endian 64-bit word keep their order.
      const std::uint64_t low = in.read_native<std::uint32_t>();
      const std::uint64_t high = 0;
      std::memcpy(a.data(), &low, sizeof low);
      std::memcpy(a.data() + sizeof low, &high, sizeof high);
    } else {
      a = {};
      in.bytes(a.data(), n);
    }
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
  // As in BodyReader: each size a fixed-size copy.
  void address(const FieldSpec&, const IpAddress& a, std::size_t n) noexcept {
    if (n == a.size()) {
      out.bytes(a.data(), a.size());
    } else if (n == 4) {
      out.bytes(a.data(), 4);
    } else {
      out.bytes(a.data(), n);
    }
  }
};

// Fills `h` field by field: returning a Header by value packs it into two registers, which
// costs more than the loads and stores themselves.
template <class Cursor>
[[gnu::always_inline]] inline void read_header(Cursor& in, Header& h) noexcept {
  const auto first = in.template read<std::uint8_t>();
  h.version = static_cast<std::uint8_t>(first >> 4U);
  h.rsv = static_cast<std::uint8_t>(first & 0x0FU);
  (void)in.template read<std::uint8_t>();  // Type: implied by the Message alternative
  h.length = in.template read<std::uint16_t>();
  h.association_id = in.template read<std::uint32_t>();
  h.epoch = in.template read<std::uint16_t>();
  h.flags = in.template read<std::uint16_t>();
  h.sequence_number = in.template read<std::uint32_t>();
}

// Decodes a message of type T whose extent has been checked, built in the caller's return slot
// (guaranteed elision). It is not inlined: the optimiser keeps the elision only for a result
// that is the function's own.
template <class T>
[[gnu::noinline, gnu::flatten]] DecodeResult decode_in_place(const std::byte* wire) noexcept {
  DecodeResult result(std::in_place, std::in_place_type<T>);
  T& m = *std::get_if<T>(&result.value());
  CheckedSpanCursor in(wire);
  read_header(in, m.header);
  BodyReader reader{in};
  T::describe(m, reader);
  assert(static_cast<std::size_t>(in.position() - wire) <= m.header.length);
  return result;
}

// Decodes a message of type T whose extent has been checked. A message without padding is read
// into a local, which the optimiser keeps in registers, so each field is stored once, into the
// result. One with padding (CANCEL, ERROR) would be copied through the stack, and
// CONGESTION_REPORT's addresses depend on its AF: those are decoded in place.
template <class T>
[[gnu::always_inline]] inline DecodeResult decode_body(const std::byte* wire) noexcept {
  if constexpr (std::is_same_v<T, CongestionReport> ||
                !std::has_unique_object_representations_v<T>) {
    return decode_in_place<T>(wire);
  } else {
    T m;
    CheckedSpanCursor in(wire);
    read_header(in, m.header);
    BodyReader reader{in};
    T::describe(m, reader);
    assert(static_cast<std::size_t>(in.position() - wire) <= m.header.length);
    return DecodeResult(std::in_place, std::in_place_type<T>, m);
  }
}

std::uint8_t octet(std::span<const std::byte> d, std::size_t i) noexcept {
  return std::to_integer<std::uint8_t>(d[i]);
}

[[gnu::cold]] DecodeError make_error(std::span<const std::byte> d, DecodeErrorCode code,
                                     std::size_t offset, std::string_view field,
                                     std::uint32_t actual, std::uint32_t expected) noexcept {
  DecodeError e{code, offset, field, actual, expected};
  if (d.size() > kTypeOffset) e.raw_type = octet(d, kTypeOffset);
  e.header = peek_header(d);
  return e;
}

// A datagram of fewer than 4 octets: the same checks in the same order as decode_checked(),
// for the fields that are there.
[[gnu::cold]] DecodeResult truncated(std::span<const std::byte> d) noexcept {
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

using BodyDecoder = DecodeResult (*)(const std::byte*) noexcept;
template <std::size_t... I>
constexpr std::array<BodyDecoder, sizeof...(I)> make_body_decoders(std::index_sequence<I...>) {
  return {&decode_in_place<std::variant_alternative_t<I, Message>>...};
}
constexpr auto kBodyDecoders =
    make_body_decoders(std::make_index_sequence<std::variant_size_v<Message>>{});
static_assert(kBodyDecoders.size() == kMessageTypes.size());

// Every check, one at a time, in this order, and the first that fails is reported
// (docs/spec-notes.md, "Order of decode errors"): Version, Type, Length present, Length below
// the type's size, Length beyond the datagram, then CONGESTION_REPORT's AF and its AF-dependent
// size. decode() takes this path only for a datagram its combined checks reject.
[[gnu::cold, gnu::noinline]] DecodeResult decode_checked(std::span<const std::byte> d) noexcept {
  const auto size = static_cast<std::uint32_t>(d.size());
  if (size < kLengthOffset + 2) return truncated(d);
  // Version, Rsv, Type and Length are the first 32-bit word.
  const auto word = load_be<std::uint32_t>(d.data());
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
  return kBodyDecoders[raw_type - 1U](d.data());
}

// decode() once Version and Type are known good: the Length (and AF) checks of type T as one
// test, then the body. Anything unusual goes to decode_checked(), which names the error.
template <class T>
[[gnu::always_inline]] inline DecodeResult decode_as(std::span<const std::byte> d) noexcept {
  const auto length = load_be<std::uint16_t>(d.data() + kLengthOffset);
  const auto size = static_cast<std::uint32_t>(d.size());
  bool ok = length >= info(T::kType).size && std::uint32_t{length} <= size;
  if constexpr (std::is_same_v<T, CongestionReport>) {
    const std::uint8_t af = ok ? octet(d, kAddressFamilyOffset) : 0;
    ok = af == static_cast<std::uint8_t>(AddressFamily::IPv4) ||
         (af == static_cast<std::uint8_t>(AddressFamily::IPv6) &&
          length >= kCongestionReportSizeIpv6);
  }
  if (!ok) [[unlikely]] {
    return decode_checked(d);
  }
  // Only the first Length octets are the message; octets between the type's size and Length
  // are ignored (docs/spec-notes.md, "Octets between the type's size and Length").
  return decode_body<T>(d.data());
}

// Alternative I of Message is message type I + 1 (messages.hpp); decode() has one case each.
template <std::size_t I>
using Alternative = std::variant_alternative_t<I, Message>;
static_assert(std::variant_size_v<Message> == 10);

// "Common Header": octet 0 is Version (high 4 bits) and Rsv, octet 1 is Type.
constexpr std::uint16_t kVersionTypeMask = 0xF0FF;
constexpr std::uint16_t kFirstVersionType = (kVersion << 12U) | 0x01U;

[[gnu::cold, gnu::noinline]] EncodeResult out_of_range(std::string_view field) noexcept {
  return fail(EncodeError{EncodeErrorCode::FieldOutOfRange, field});
}

// Encodes one message of type T: the checks in order (4-bit fields, AF, buffer), then header,
// body and zero padding in one pass over the field list.
template <class T>
[[gnu::always_inline]] inline EncodeResult encode_as(const T& m,
                                                     std::span<std::byte> out) noexcept {
  const Header& h = m.header;
  if ((h.version | h.rsv) > 0x0F) [[unlikely]] {
    return out_of_range(h.version > 0x0F ? "version" : "rsv");
  }
  std::uint16_t defined = info(T::kType).size;
  if constexpr (std::is_same_v<T, CongestionReport>) {
    if (m.address_size() == 0) [[unlikely]] {
      return fail(EncodeError{EncodeErrorCode::BadAddressFamily, "address_family"});
    }
    if (m.ipv6()) defined = kCongestionReportSizeIpv6;
  }
  const std::size_t size = h.length > defined ? h.length : defined;
  if (out.size() < size) [[unlikely]] {
    return fail(EncodeError{EncodeErrorCode::BufferTooSmall, "buffer", size});
  }
  CheckedSpanWriter w(out.data());
  w.write(static_cast<std::uint8_t>((h.version << 4U) | h.rsv));
  w.write(static_cast<std::uint8_t>(T::kType));
  w.write(h.length != 0 ? h.length : defined);
  w.write(h.association_id);
  w.write(h.epoch);
  w.write(h.flags);
  w.write(h.sequence_number);
  BodyWriter writer{w};
  T::describe(m, writer);
  const auto written = static_cast<std::size_t>(w.position() - out.data());
  assert(written == defined);
  // Octets between the defined size and a larger Length are written as zero.
  if (size > written) [[unlikely]] {
    std::memset(w.position(), 0, size - written);
  }
  return size;
}

}  // namespace

std::optional<Header> peek_header(std::span<const std::byte> datagram) noexcept {
  if (datagram.size() < kHeaderSize) return std::nullopt;
  ByteReader in(datagram);  // the checked cursor: nothing about the datagram is known here
  Header h;
  read_header(in, h);
  return h;
}

// The checks of decode_checked() in the same order, combined: Version and Type as one compare
// here, Length (and AF) as one in decode_as<T>. A datagram any of them rejects goes to
// decode_checked(), which reports the first failing check.
// flatten: each type's checks and field list are inlined into one switch, with no call per type.
[[gnu::flatten]] Result<Message, DecodeError> decode(std::span<const std::byte> d) noexcept {
  if (static_cast<std::uint32_t>(d.size()) < kLengthOffset + 2) [[unlikely]] {
    return decode_checked(d);
  }
  const std::uint32_t version_type = load_be<std::uint16_t>(d.data()) & kVersionTypeMask;
  switch (version_type - std::uint32_t{kFirstVersionType}) {
    case 0: return decode_as<Alternative<0>>(d);
    case 1: return decode_as<Alternative<1>>(d);
    case 2: return decode_as<Alternative<2>>(d);
    case 3: return decode_as<Alternative<3>>(d);
    case 4: return decode_as<Alternative<4>>(d);
    case 5: return decode_as<Alternative<5>>(d);
    case 6: return decode_as<Alternative<6>>(d);
    case 7: return decode_as<Alternative<7>>(d);
    case 8: return decode_as<Alternative<8>>(d);
    case 9: return decode_as<Alternative<9>>(d);
    default: return decode_checked(d);
  }
}

std::size_t encoded_size(const Message& m) noexcept {
  const std::size_t defined = defined_size(m);
  const std::size_t length = header_of(m).length;
  return length > defined ? length : defined;
}

// flatten: each type's field list is written inline, with no call per message type.
[[gnu::flatten]] Result<std::size_t, EncodeError> encode(const Message& m,
                                                         std::span<std::byte> out) noexcept {
  return std::visit([out](const auto& body) { return encode_as(body, out); }, m);
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
      std::snprintf(text, sizeof text, "length %u is larger than the datagram of %u octets", actual,
                    expected);
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
