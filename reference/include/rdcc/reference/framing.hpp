// How an opaque data transport frames its packets. For Binding Kind 2 "the Binding Value is a
// 64-bit message identifier that the data transport carries in its own headers, with a meaning
// agreed by configuration" ("Transport Bindings"): a vendor's transport puts it, the octet
// offset and the payload length where it likes. A DataFraming says where, from a small JSON
// file (docs/data-transport.md, "A vendor's framing"); without one, the project's own framing
// (bindings.hpp encode_opaque / decode_opaque) is used. The nodes, the conformance tester and
// `rdcc pcap` read and write data packets through it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "rdcc/codec/result.hpp"
#include "rdcc/reference/bindings.hpp"

namespace rdcc::ref {

// A framing file that cannot be used. what() names the file and the field.
class FramingError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class DataFraming {
 public:
  // Where a field sits in the transport header: `size` octets (1..8) from octet `at`.
  struct Field {
    std::size_t at = 0;
    std::size_t size = 0;
  };
  // A field whose value is fixed (a magic number, a version): written on transmission and
  // checked on receipt.
  struct Constant {
    Field field;
    std::uint64_t value = 0;
  };

  // The project's own framing (docs/data-transport.md).
  DataFraming() = default;
  // Reads and checks a framing file; throws FramingError naming the file and the field.
  [[nodiscard]] static DataFraming load(const std::filesystem::path& path);
  // The same from the file's text; errors name `name`.
  [[nodiscard]] static DataFraming parse(std::string_view text, const std::string& name);

  [[nodiscard]] bool is_project() const { return !custom_; }
  [[nodiscard]] const std::string& name() const { return name_; }
  // Octets in front of the payload.
  [[nodiscard]] std::size_t header_length() const {
    return custom_ ? header_length_ : kOpaqueHeaderSize;
  }

  // Header + payload into `out` (the header's flags are the project framing's only).
  [[nodiscard]] Result<std::size_t, BindingError> encode(const OpaqueHeader& h,
                                                         std::span<const std::byte> payload,
                                                         std::span<std::byte> out) const noexcept;
  // A UDP payload read as a data packet: the binding value (as message_identifier), offset and
  // payload length; strict, the first failing field reported with its offset.
  [[nodiscard]] Result<OpaquePacket, BindingError> decode(
      std::span<const std::byte> udp_payload) const noexcept;

 private:
  [[nodiscard]] std::uint64_t read(std::span<const std::byte> b, Field f) const noexcept;
  void write(std::span<std::byte> b, Field f, std::uint64_t v) const noexcept;

  bool custom_ = false;
  std::string name_ = "rdcc";
  std::size_t header_length_ = 0;
  bool little_endian_ = false;
  Field binding_value_;
  Field offset_;
  std::optional<Field> payload_length_;  // none: the rest of the datagram
  std::vector<Constant> constants_;
};

}  // namespace rdcc::ref
