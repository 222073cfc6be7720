// Encode into a caller's buffer; decode from a byte span into a message or a precise error.
// No exceptions and no heap allocation on either path.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "rdcc/codec/messages.hpp"
#include "rdcc/codec/result.hpp"

namespace rdcc {

enum class DecodeErrorCode : std::uint8_t {
  Truncated,             // the datagram ends before Version, Type or Length
  BadVersion,            // Version is not 1: "MUST be discarded"
  UnknownType,           // Type is not in "RDCC Message Types"
  LengthTooSmall,        // Length is smaller than the size defined for the Type
  LengthBeyondDatagram,  // Length is larger than the UDP payload
  BadAddressFamily,      // CONGESTION_REPORT with an AF other than 4 or 6
};
[[nodiscard]] std::string_view to_string(DecodeErrorCode code) noexcept;

// A decode failure: what was wrong, at which octet offset, in which field. Where the datagram
// holds a whole common header it is kept, so that a receiver can still tell whether an
// unknown-type message belongs to an established association ("Error Handling and Recovery").
struct DecodeError {
  DecodeErrorCode code;
  std::size_t offset;          // octet offset of the field concerned
  std::string_view field;      // the field's name, e.g. "length"
  std::uint32_t actual = 0;    // the offending value (Version, Type, Length, AF, datagram size)
  std::uint32_t expected = 0;  // what was needed (e.g. the minimum Length); 0 if not applicable
  std::uint8_t raw_type = 0;   // the Type octet, when the datagram had one
  std::optional<Header> header;

  // "length 20 is smaller than 56, the size of CREDIT_REQUEST (field length, offset 2)"
  [[nodiscard]] std::string describe() const;
};

[[nodiscard]] Result<Message, DecodeError> decode(std::span<const std::byte> datagram) noexcept;

enum class EncodeErrorCode : std::uint8_t {
  BufferTooSmall,    // the caller's buffer cannot hold the message
  BadAddressFamily,  // CONGESTION_REPORT with an AF other than 4 or 6 has no defined layout
  FieldOutOfRange,   // Version or Rsv above 15 (4-bit fields)
};
[[nodiscard]] std::string_view to_string(EncodeErrorCode code) noexcept;

struct EncodeError {
  EncodeErrorCode code;
  std::string_view field;
  std::size_t needed = 0;  // BufferTooSmall: octets needed
  [[nodiscard]] std::string describe() const;
};

// Octets encode() writes for `m`: the defined size of its type, or header.length if that is
// larger (the octets between them are written as zero). A header.length of 0 means "the
// defined size"; a non-zero header.length smaller than the size is written as given, after a
// full body, so that conformance tests can produce a short Length on purpose.
[[nodiscard]] std::size_t encoded_size(const Message& m) noexcept;

// Writes `m` into `out` and returns the octets written (== encoded_size(m)). Raw field values
// are written as they are: encode never "fixes" a field.
[[nodiscard]] Result<std::size_t, EncodeError> encode(const Message& m,
                                                      std::span<std::byte> out) noexcept;

// A common header alone: the first 16 octets, without any check of Version, Type or Length.
// Returns nothing if fewer than 16 octets are given.
[[nodiscard]] std::optional<Header> peek_header(std::span<const std::byte> datagram) noexcept;

}  // namespace rdcc
