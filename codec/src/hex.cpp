#include "rdcc/codec/hex.hpp"

#include <array>
#include <cstdint>
#include <utility>

#include "rdcc/codec/format.hpp"

namespace rdcc {
namespace {

// Each character's class, looked up once per character: a hex digit's value (0-15), a
// separator, or neither.
constexpr std::int8_t kNotHex = -1;
constexpr std::int8_t kSeparator = -2;

consteval std::array<std::int8_t, 256> make_classes() {
  std::array<std::int8_t, 256> classes{};
  for (auto& c : classes) c = kNotHex;
  for (int c = '0'; c <= '9'; ++c)
    classes[static_cast<std::size_t>(c)] = static_cast<std::int8_t>(c - '0');
  for (int c = 'a'; c <= 'f'; ++c) {
    const int upper = c - 'a' + 'A';
    classes[static_cast<std::size_t>(c)] = static_cast<std::int8_t>(c - 'a' + 10);
    classes[static_cast<std::size_t>(upper)] = static_cast<std::int8_t>(c - 'a' + 10);
  }
  for (const char c : {' ', '\t', '\n', '\r', ':', '-'}) {
    classes[static_cast<unsigned char>(c)] = kSeparator;
  }
  return classes;
}
constexpr auto kClasses = make_classes();

bool separator(char c) noexcept {
  return kClasses[static_cast<unsigned char>(c)] == kSeparator;
}

HexError lone_digit(std::size_t column) {
  return HexError{column, "lone hex digit: octets are written as two digits"};
}

HexError not_a_digit(std::size_t column, char c) {
  std::string what = "'?' is not a hex digit";
  what[1] = c;
  return HexError{column, std::move(what)};
}

}  // namespace

// Two passes: the first checks the text and counts its octets, so that text that is not hex
// costs no allocation and hex text exactly one; the second reads the octets. Each looks a
// character's class up once, and steps over an octet's two digits at a time.
Result<std::vector<std::byte>, HexError> parse_hex(std::string_view text) {
  const std::size_t n = text.size();
  std::size_t start = 0;
  while (start < n && separator(text[start])) ++start;
  if (n - start >= 2 && text[start] == '0' && (text[start + 1] == 'x' || text[start + 1] == 'X')) {
    start += 2;
  }
  // Each character's class, indexed directly (a lambda here was not inlined in the sanitizer
  // builds: a call per character).
  const auto* chars = reinterpret_cast<const unsigned char*>(text.data());
  const std::int8_t* classes = kClasses.data();
  std::size_t count = 0;
  std::size_t i = start;
  while (i + 1 < n) {  // two characters or more left
    const int hi = classes[chars[i]];
    if (hi == kSeparator) {
      ++i;
      continue;
    }
    if (hi < 0) return fail(not_a_digit(i, text[i]));
    const int lo = classes[chars[i + 1]];
    if (lo < 0) {
      if (lo != kSeparator) return fail(not_a_digit(i + 1, text[i + 1]));
      return fail(lone_digit(i));
    }
    ++count;
    i += 2;
  }
  if (i < n) {  // the last character
    const int last = classes[chars[i]];
    if (last != kSeparator) {
      if (last < 0) return fail(not_a_digit(i, text[i]));
      return fail(lone_digit(i));
    }
  }
  std::vector<std::byte> out(count);
  for (std::size_t at = start, k = 0; k < count;) {
    const int hi = classes[chars[at]];
    if (hi == kSeparator) {
      ++at;
      continue;
    }
    out[k++] = static_cast<std::byte>(hi * 16 + classes[chars[at + 1]]);
    at += 2;
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
  std::string out;
  out.reserve(what.size() + 32);  // " (column " and the number: one allocation
  out += what;
  out += " (column ";
  append_decimal(out, column + 1);
  out += ')';
  return out;
}

}  // namespace rdcc
