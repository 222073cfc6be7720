// Hex dumps as people paste them: an offset column, the octets, and an ASCII column.
//
//   Wireshark "Copy Bytes as Hex + ASCII Dump" and `tshark -x`:
//       0000   10 04 00 28 5a 17 c0 de 00 03 00 00 00 00 00 2a   ...(Z..........*
//   xxd:
//       00000000: 1004 0028 5a17 c0de 0003 0000 0000 002a  ...(Z..........*
//   hexdump -C (a "*" line repeats the line above up to the next offset; the last line is the
//   length alone):
//       00000000  10 04 00 28 5a 17 c0 de  00 03 00 00 00 00 00 2a  |...(Z..........*|
//
// A dump is recognised by its first line: an offset of zero written with 4 to 8 digits,
// followed by ':' or two spaces. Each dump starting at offset zero is one datagram (or frame);
// `tshark -x` of several frames gives several. Every line's offset must be the count of octets
// read before it, so that an offset column is never read as octets and a line lost in pasting
// is an error, not a shifted message.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "input.hpp"

namespace rdcc::tools {

struct HexDumpBlock {
  std::size_t line = 0;  // 1-based line of its offset 0
  std::vector<std::byte> octets;
};

struct HexDumpError {
  std::size_t line = 0;    // 1-based
  std::size_t column = 0;  // 1-based
  std::string what;
};

// True if `text` starts (after blank lines and '#' comments) like a hex dump.
[[nodiscard]] bool looks_like_hex_dump(std::string_view text);

// The dumps in `text`, or the first error (line, column, what).
struct HexDumpResult {
  std::vector<HexDumpBlock> blocks;
  std::vector<HexDumpError> errors;  // empty, or the one error that stopped the reading
};
[[nodiscard]] HexDumpResult parse_hex_dump(std::string_view text);

// `xxd -p` (plain hex, no offsets) writes a datagram as lines of 60 hex digits (30 octets), the
// last shorter: a line of exactly kXxdPlainLineDigits hex digits, nothing else, is continued
// by the line right after it when that line is plain hex digits too. A blank or comment line
// ends a datagram; so does any shorter line. (A datagram that is a multiple of 30 octets long
// would run into the next one: separate such datagrams by a blank line.)
inline constexpr std::size_t kXxdPlainLineDigits = 60;
[[nodiscard]] std::vector<HexLine> join_xxd_plain_lines(const std::vector<HexLine>& lines);

}  // namespace rdcc::tools
