// Hex text <-> octets, for the command line, tests and scenario files.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rdcc/codec/result.hpp"

namespace rdcc {

struct HexError {
  std::size_t column;  // 0-based character offset into the text
  std::string what;
  [[nodiscard]] std::string describe() const;
};

// Accepts pairs of hex digits separated by nothing, spaces, tabs, newlines, ':' or '-'; an
// optional leading "0x". A lone digit or any other character is an error naming its column.
[[nodiscard]] Result<std::vector<std::byte>, HexError> parse_hex(std::string_view text);
// "10 03 00 38 ..." (separator between octets; none if empty).
[[nodiscard]] std::string to_hex(std::span<const std::byte> data, std::string_view sep = " ");

}  // namespace rdcc
