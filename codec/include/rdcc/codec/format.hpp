// Human-readable text for messages: one line per message (pcap dumps, logs) and a detailed
// multi-line form (rdcc decode). Values are shown raw; units and registry names are added
// beside them, and values the spec says to treat otherwise are flagged.
#pragma once

#include <charconv>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string>

#include "rdcc/codec/messages.hpp"

namespace rdcc {

// An integer in decimal, appended to `out` with std::to_chars (no temporary string): the text
// and JSON writers of messages and the capture tools' lines.
template <std::integral T>
void append_decimal(std::string& out, T v) {
  char text[24];
  const char* end = std::to_chars(text, text + sizeof text, v).ptr;
  out.append(text, static_cast<std::size_t>(end - text));
}

// An integer as "0x" and its lower-case hexadecimal digits, no leading zeros ("0x5a17c0de"), as
// format_line writes identifiers: appended to `out`, or as a string.
void append_hex(std::string& out, std::uint64_t v);
[[nodiscard]] std::string format_hex(std::uint64_t v);

// "CREDIT_GRANT assoc=0x5a17c0de epoch=3 seq=42 flags=0x0000 message_id=0x101 ..."
[[nodiscard]] std::string format_line(const Message& m);
// The same line appended to `out` (no other allocation: for dumping many messages).
void append_line(const Message& m, std::string& out);
// A header line, then one "  name: value" line per field.
[[nodiscard]] std::string format_detail(const Message& m);
// 100000 -> "100 Gbit/s", 1500 -> "1.5 Gbit/s", 10 -> "10 Mbit/s".
[[nodiscard]] std::string format_rate(std::uint64_t mbps);
// The names of the set flags, "POOL|FINAL", with undefined bits as hex ("0x0100").
[[nodiscard]] std::string format_flags(MessageType type, std::uint16_t flags);
// The names of the set capability bits, unknown bits as hex.
[[nodiscard]] std::string format_capabilities(std::uint32_t capabilities);

}  // namespace rdcc
