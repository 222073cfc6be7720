#include "rdcc/codec/hex.hpp"

namespace rdcc {
namespace {

int digit(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool separator(char c) noexcept {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ':' || c == '-';
}

}  // namespace

Result<std::vector<std::byte>, HexError> parse_hex(std::string_view text) {
  std::vector<std::byte> out;
  out.reserve(text.size() / 2);
  std::size_t i = 0;
  while (i < text.size() && separator(text[i])) ++i;
  if (text.size() - i >= 2 && text[i] == '0' && (text[i + 1] == 'x' || text[i + 1] == 'X')) i += 2;
  while (i < text.size()) {
    if (separator(text[i])) {
      ++i;
      continue;
    }
    const int hi = digit(text[i]);
    if (hi < 0) {
      return fail(HexError{i, std::string("'") + text[i] + "' is not a hex digit"});
    }
    if (i + 1 >= text.size() || digit(text[i + 1]) < 0) {
      if (i + 1 < text.size() && !separator(text[i + 1])) {
        return fail(HexError{i + 1, std::string("'") + text[i + 1] + "' is not a hex digit"});
      }
      return fail(HexError{i, "lone hex digit: octets are written as two digits"});
    }
    out.push_back(static_cast<std::byte>(hi * 16 + digit(text[i + 1])));
    i += 2;
  }
  return out;
}

std::string to_hex(std::span<const std::byte> data, std::string_view sep) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(data.size() * (2 + sep.size()));
  for (std::size_t i = 0; i < data.size(); ++i) {
    if (i != 0) out += sep;
    const auto b = std::to_integer<unsigned>(data[i]);
    out += kDigits[b >> 4U];
    out += kDigits[b & 0x0FU];
  }
  return out;
}

std::string HexError::describe() const {
  return what + " (column " + std::to_string(column + 1) + ")";
}

}  // namespace rdcc
