// Reading a command's input: arguments, a file, or standard input; errors name the source. And
// how standard output is buffered.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "rdcc/reference/framing.hpp"

namespace rdcc::tools {

// A failure that the command reports as "rdcc <command>: <what>" with exit status 1.
struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A file (or standard input) longer than its reader's bound.
struct InputTooLong : InputError {
  using InputError::InputError;
};

// The whole content of `path` ("-" is standard input).
[[nodiscard]] std::vector<std::byte> read_all(const std::string& path);
[[nodiscard]] std::string read_text(const std::string& path);
// The same, up to `limit` octets: InputTooLong for more, having read no more than limit + 1
// (JSON: rdcc/codec/json_input.hpp's kJsonMaxDocument).
[[nodiscard]] std::string read_text(const std::string& path, std::size_t limit);

// A --data-framing file (docs/data-transport.md), "-" for standard input. Throws
// ref::FramingError naming the file (and the field).
[[nodiscard]] ref::DataFraming load_data_framing(const std::string& path);

// True if the content is text (so it holds hex or JSON, not a raw datagram).
[[nodiscard]] bool looks_like_text(const std::vector<std::byte>& content);

// One datagram written as hex on one line of a text file; '#' starts a comment.
struct HexLine {
  std::size_t line;  // 1-based
  std::string text;
};
[[nodiscard]] std::vector<HexLine> hex_lines(const std::string& text);

// True if a reader waits on standard output as it is written (a pipe, a socket, a terminal),
// false for a file or a device such as /dev/null.
[[nodiscard]] bool stdout_is_stream();
// Makes standard output line-buffered where stdout_is_stream(), so that every line reaches
// the reader when it is complete (`dumpcap -w - | rdcc pcap check -` reports as packets
// arrive); a file keeps full buffering. Called once, before any output.
void buffer_stdout_by_line_if_streamed();

}  // namespace rdcc::tools
