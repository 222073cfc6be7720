// JSON from outside (files, request lines, an IUT's answers), read with a bound on depth and
// length (STYLE.md: "Every input from outside ... is read with a bound on depth, length and
// memory"). nlohmann parses without recursion but copies, compares and dumps a value
// recursively: a value nested 60,000 deep (120 KB of brackets) overflows the stack in the first
// copy or dump. The nesting is therefore counted in one pass over the text before it is parsed,
// and a value deeper than the bound is never built. Every reader of the project goes through
// here; an error names what and where (line, column), and echoes at most a short excerpt of the
// input.
#pragma once

#include <concepts>
#include <cstddef>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "rdcc/codec/result.hpp"

namespace rdcc {

// Deeper than any configuration, description, catalog or request of the project (a few
// levels), far shallower than what a recursive copy or dump can take on any thread's stack.
inline constexpr std::size_t kJsonMaxDepth = 64;
// One request or answer line of the upper tester, one JSON line of a file: 1 MiB. The longest
// request the upper tester takes is under 1 KB.
inline constexpr std::size_t kJsonMaxLine = std::size_t{1} << 20U;
// One file (a configuration, a simulation description, the catalog, a data framing): 16 MiB.
inline constexpr std::size_t kJsonMaxDocument = std::size_t{16} << 20U;

struct JsonLimits {
  std::size_t max_length = kJsonMaxDocument;  // octets of the text
  std::size_t max_depth = kJsonMaxDepth;      // arrays and objects inside one another
};

struct JsonInputError {
  std::size_t line = 0;  // 1-based; 0: the whole text (too long)
  std::size_t column = 0;
  std::string what;  // "nesting deeper than 64 levels", "syntax error ...", with no position
  // "line 3, column 17: what", or `what` alone for the whole text.
  [[nodiscard]] std::string describe() const;
};

// `text` as one JSON value, or the error: longer than limits.max_length, nested deeper than
// limits.max_depth (found before anything is parsed), or not JSON (nlohmann's reason, its
// echoed token cut to an excerpt). Json is nlohmann::json or nlohmann::ordered_json.
template <class Json>
[[nodiscard]] Result<Json, JsonInputError> parse_json(std::string_view text,
                                                      JsonLimits limits = {});

// The same over a stream read to its end (a file, standard input): at most
// limits.max_length + 1 octets are read, so a longer input costs no more memory than that.
template <class Json>
[[nodiscard]] Result<Json, JsonInputError> read_json(std::istream& in, JsonLimits limits = {});

// Reads `in` to its end into `out`; false (with `out` cleared) as soon as it holds more than
// `limit` octets.
[[nodiscard]] bool read_at_most(std::istream& in, std::size_t limit, std::string& out);

// The error for a text of more than `limit` octets ("longer than the limit of ... octets").
[[nodiscard]] JsonInputError too_long(std::size_t limit, std::string_view what = "the input");

// Where nesting passes `max_depth` in `text` (strings skipped, as JSON writes them), or none.
// parse_json's first check, for readers that parse another way.
[[nodiscard]] std::optional<JsonInputError> nesting_error(std::string_view text,
                                                          std::size_t max_depth = kJsonMaxDepth);

// Input echoed in an error: at most `max` characters, printable ASCII only (any other octet as
// \xNN, so that the message is valid UTF-8 whatever the input held), with " ... (N octets)"
// when cut.
inline constexpr std::size_t kExcerpt = 80;
[[nodiscard]] std::string excerpt(std::string_view text, std::size_t max = kExcerpt);
// A JSON value echoed in an error: its dump (what is not UTF-8 replaced), cut the same way. A
// template, so that a std::string (which nlohmann converts to a JSON value) takes the above.
template <class Json>
requires std::same_as<Json, nlohmann::json> || std::same_as<Json, nlohmann::ordered_json>
[[nodiscard]] std::string excerpt(const Json& value, std::size_t max = kExcerpt);

// Splits a byte stream into lines (without their "\n" or "\r\n") of at most `max_line` octets,
// holding no more than that: a longer line is dropped as it arrives and reported as too long
// when its end does (or the input's). Blank lines are kept (the reader decides).
class LineSplitter {
 public:
  explicit LineSplitter(std::size_t max_line = kJsonMaxLine) : max_line_(max_line) {}

  struct Line {
    std::string text;          // empty when too long
    std::size_t too_long = 0;  // the octets of a line longer than max_line (0: a line)
  };
  // Takes `chunk`; calls `emit(Line&&)` for every line it completes, in order.
  template <class Emit>
  void feed(std::string_view chunk, Emit&& emit) {
    while (!chunk.empty()) {
      const auto nl = chunk.find('\n');
      take(chunk.substr(0, nl));
      if (nl == std::string_view::npos) return;
      emit(end_line());
      chunk.remove_prefix(nl + 1);
    }
  }
  // The end of the input: the unterminated last line, if any octet of it came.
  template <class Emit>
  void finish(Emit&& emit) {
    if (seen_ != 0) emit(end_line());
  }
  // Octets held for the line in progress (at most max_line).
  [[nodiscard]] std::size_t held() const { return line_.size(); }
  [[nodiscard]] std::size_t max_line() const { return max_line_; }

 private:
  void take(std::string_view part);
  Line end_line();

  std::size_t max_line_;
  std::string line_;
  std::size_t seen_ = 0;  // octets of the line in progress, kept or not
};

// "the line is 20971520 octets, longer than the limit of 1048576": for a LineSplitter's too
// long line.
[[nodiscard]] std::string line_too_long(std::size_t octets, std::size_t limit);

}  // namespace rdcc
