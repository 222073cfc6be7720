#include "hexdump.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>

namespace rdcc::tools {
namespace {

bool is_hex_digit(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

int digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}

std::string hex_text(std::uint64_t v) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  do {
    s.insert(s.begin(), kDigits[v & 0xFU]);
    v >>= 4U;
  } while (v != 0);
  return "0x" + s;
}

// One line of a dump: its offset, and the octets of its hex area.
struct DumpLine {
  bool repeat = false;  // hexdump's "*"
  std::uint64_t offset = 0;
  std::vector<std::byte> octets;
};

// The offset column: 4 to 16 hex digits at the start of the line (after blanks), then ':' or a
// blank. Returns where the hex area starts.
std::optional<std::size_t> read_offset(std::string_view line, std::uint64_t& offset) {
  std::size_t i = 0;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  const std::size_t start = i;
  offset = 0;
  while (i < line.size() && is_hex_digit(line[i]) && i - start < 17) {
    offset = offset * 16 + static_cast<std::uint64_t>(digit_value(line[i]));
    ++i;
  }
  const std::size_t digits = i - start;
  if (digits < 4 || digits > 16) return std::nullopt;
  if (i < line.size() && line[i] == ':') return i + 1;
  if (i == line.size() || line[i] == ' ' || line[i] == '\t') return i;
  return std::nullopt;
}

// The octets between the offset and the ASCII column: groups of hex digit pairs separated by
// single blanks; two blanks (or '|', hexdump -C) start the ASCII column.
std::optional<HexDumpError> read_octets(std::string_view line, std::size_t at, std::size_t number,
                                        std::vector<std::byte>& out) {
  std::size_t end = line.find('|', at);
  const bool pipe = end != std::string_view::npos;
  if (!pipe) end = line.size();
  std::size_t i = at;
  while (i < end && (line[i] == ' ' || line[i] == '\t')) ++i;
  while (i < end) {
    const std::size_t group = i;
    while (i < end && line[i] != ' ' && line[i] != '\t') ++i;
    for (std::size_t k = group; k < i; ++k) {
      if (!is_hex_digit(line[k])) {
        return HexDumpError{number, k + 1,
                            std::string("'") + line[k] + "' is not a hex digit in the octets"};
      }
    }
    if ((i - group) % 2 != 0) {
      return HexDumpError{number, group + 1, "a group of an odd number of hex digits"};
    }
    for (std::size_t k = group; k < i; k += 2) {
      out.push_back(static_cast<std::byte>(digit_value(line[k]) * 16 + digit_value(line[k + 1])));
    }
    std::size_t blanks = 0;
    while (i < end && (line[i] == ' ' || line[i] == '\t')) {
      ++blanks;
      ++i;
    }
    // hexdump -C puts two blanks between its two halves: its ASCII column is behind '|'.
    if (blanks >= 2 && !pipe) break;
  }
  return std::nullopt;
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

}  // namespace

bool looks_like_hex_dump(std::string_view text) {
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    const std::string_view t = trimmed(line);
    if (t.empty() || t.front() == '#') continue;
    std::uint64_t offset = 0;
    const auto at = read_offset(line, offset);
    if (!at || offset != 0) return false;
    // ':' (xxd) or two blanks (the others) after the offset: "10040028 5a17..." is hex.
    return line[*at - 1] == ':' || line.substr(*at, 2) == "  ";
  }
  return false;
}

HexDumpResult parse_hex_dump(std::string_view text) {
  HexDumpResult result;
  const auto fail = [&result](std::size_t line, std::size_t column, std::string what) {
    result.errors.push_back({line, column, std::move(what)});
    return result;
  };
  std::vector<std::byte> previous;  // the last line's octets, for hexdump's "*"
  bool repeat = false;
  std::size_t number = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const std::string_view t = trimmed(line);
    if (t.empty() || t.front() == '#') continue;
    if (t == "*") {
      if (result.blocks.empty() || previous.empty()) {
        return fail(number, 1, "'*' (hexdump: repeat the line above) before any line of octets");
      }
      repeat = true;
      continue;
    }
    std::uint64_t offset = 0;
    const auto at = read_offset(line, offset);
    if (!at)
      return fail(number, 1, "expected an offset (4 to 16 hex digits) at the start of the line");
    if (offset == 0 && !repeat) {
      result.blocks.push_back({number, {}});
      previous.clear();
    }
    if (result.blocks.empty()) {
      return fail(number, 1, "the dump starts at offset " + hex_text(offset) + ", not 0");
    }
    // A datagram or a frame is far below this: a larger offset is not a dump of one (and a
    // "*" up to it would fill memory).
    constexpr std::uint64_t kLargest = 1U << 20U;
    if (offset > kLargest) {
      return fail(number, 1, "offset " + hex_text(offset) + " is beyond any datagram (1 MiB)");
    }
    std::vector<std::byte>& octets = result.blocks.back().octets;
    if (repeat) {
      // Up to this offset, the line above again and again.
      while (octets.size() < offset && octets.size() + previous.size() <= offset) {
        octets.insert(octets.end(), previous.begin(), previous.end());
      }
      repeat = false;
    }
    if (offset != octets.size()) {
      return fail(number, 1,
                  "offset " + hex_text(offset) + ", but " + std::to_string(octets.size()) +
                      " octets were read before it (a line is missing, or repeated)");
    }
    std::vector<std::byte> here;
    if (auto e = read_octets(line, *at, number, here)) {
      result.errors.push_back(std::move(*e));
      return result;
    }
    octets.insert(octets.end(), here.begin(), here.end());
    if (!here.empty()) previous = std::move(here);
  }
  if (repeat) return fail(number, 1, "'*' at the end: the length line that ends it is missing");
  return result;
}

namespace {

bool plain_hex(const std::string& text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), is_hex_digit);
}

std::string trimmed(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r");
  const auto last = text.find_last_not_of(" \t\r");
  return first == std::string::npos ? std::string() : text.substr(first, last - first + 1);
}

}  // namespace

std::vector<HexLine> join_xxd_plain_lines(const std::vector<HexLine>& lines) {
  std::vector<HexLine> out;
  bool open = false;  // the last line out is a full xxd -p line, waiting for more
  std::size_t last_line = 0;
  for (const HexLine& l : lines) {
    const std::string t = trimmed(l.text);
    if (open && l.line == last_line + 1 && plain_hex(t)) {
      out.back().text += t;
    } else {
      out.push_back(l);
    }
    open = plain_hex(t) && t.size() == kXxdPlainLineDigits;
    last_line = l.line;
  }
  return out;
}

}  // namespace rdcc::tools
