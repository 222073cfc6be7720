#include "rdcc/codec/json_input.hpp"

#include <algorithm>
#include <cstdio>
#include <istream>

namespace rdcc {
namespace {

// Line and column (1-based) of the octet at `offset`.
JsonInputError at(std::string_view text, std::size_t offset, std::string what) {
  offset = std::min(offset, text.size());
  const std::string_view before = text.substr(0, offset);
  const auto line = 1 + static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n'));
  const auto nl = before.rfind('\n');
  const std::size_t column = offset - (nl == std::string_view::npos ? 0 : nl + 1) + 1;
  return {line, column, std::move(what)};
}

// nlohmann's reason without its prefix and position ("[json.exception.parse_error.101] parse
// error at line 1, column 5: "), which `at` gives; its "last read: '...'" token cut.
std::string reason_of(const std::exception& e) {
  std::string_view what = e.what();
  if (const auto colon = what.find(": "); colon != std::string_view::npos) {
    what.remove_prefix(colon + 2);
  }
  return excerpt(what, 2 * kExcerpt);
}

}  // namespace

std::string JsonInputError::describe() const {
  if (line == 0) return what;
  return "line " + std::to_string(line) + ", column " + std::to_string(column) + ": " + what;
}

JsonInputError too_long(std::size_t limit, std::string_view what) {
  return {0, 0,
          std::string(what) + " is longer than the limit of " + std::to_string(limit) + " octets"};
}

std::optional<JsonInputError> nesting_error(std::string_view text, std::size_t max_depth) {
  std::size_t depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;  // the escaped character, a quote among them
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    switch (c) {
      case '"': in_string = true; break;
      case '[':
      case '{':
        if (++depth > max_depth) {
          return at(text, i, "nesting deeper than " + std::to_string(max_depth) + " levels");
        }
        break;
      case ']':
      case '}':
        if (depth > 0) --depth;
        break;
      default: break;
    }
  }
  return std::nullopt;
}

template <class Json>
Result<Json, JsonInputError> parse_json(std::string_view text, JsonLimits limits) {
  if (text.size() > limits.max_length) return fail(too_long(limits.max_length));
  // Up to a syntax error the parser's depth is this count (no comments: nlohmann's default),
  // so no value deeper than the bound is built, even in part.
  if (auto e = nesting_error(text, limits.max_depth)) return fail(std::move(*e));
  try {
    return Json::parse(text);
  } catch (const typename Json::parse_error& e) {
    // nlohmann's byte is 1-based: the octet it stopped at.
    return fail(at(text, e.byte == 0 ? 0 : e.byte - 1, reason_of(e)));
  }
}

template <class Json>
Result<Json, JsonInputError> read_json(std::istream& in, JsonLimits limits) {
  std::string text;
  if (!read_at_most(in, limits.max_length, text)) return fail(too_long(limits.max_length));
  return parse_json<Json>(text, limits);
}

template Result<nlohmann::json, JsonInputError> parse_json(std::string_view, JsonLimits);
template Result<nlohmann::ordered_json, JsonInputError> parse_json(std::string_view, JsonLimits);
template Result<nlohmann::json, JsonInputError> read_json(std::istream&, JsonLimits);
template Result<nlohmann::ordered_json, JsonInputError> read_json(std::istream&, JsonLimits);

bool read_at_most(std::istream& in, std::size_t limit, std::string& out) {
  out.clear();
  char chunk[65536];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    const auto n = static_cast<std::size_t>(in.gcount());
    if (out.size() + n > limit) {
      out.clear();
      out.shrink_to_fit();
      return false;
    }
    out.append(chunk, n);
  }
  return true;
}

std::string excerpt(std::string_view text, std::size_t max) {
  std::string out;
  std::size_t i = 0;
  for (; i < text.size() && out.size() < max; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7F) {
      out += static_cast<char>(c);
    } else {
      char esc[8];
      std::snprintf(esc, sizeof esc, "\\x%02x", c);
      out += esc;
    }
  }
  if (i < text.size()) out += " ... (" + std::to_string(text.size()) + " octets)";
  return out;
}

template <class Json>
requires std::same_as<Json, nlohmann::json> || std::same_as<Json, nlohmann::ordered_json>
    std::string excerpt(const Json& value, std::size_t max) {
  // Replaces what is not UTF-8 (a value built from raw input): a dump never throws.
  const std::string text = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return excerpt(std::string_view(text), max);
}
template std::string excerpt(const nlohmann::json&, std::size_t);
template std::string excerpt(const nlohmann::ordered_json&, std::size_t);

void LineSplitter::take(std::string_view part) {
  seen_ += part.size();
  if (seen_ > max_line_) {
    line_.clear();
    line_.shrink_to_fit();
    return;
  }
  line_.append(part);
}

LineSplitter::Line LineSplitter::end_line() {
  Line out;
  if (seen_ > max_line_) {
    out.too_long = seen_;
  } else {
    if (!line_.empty() && line_.back() == '\r') line_.pop_back();
    out.text = std::move(line_);
  }
  line_ = std::string();
  seen_ = 0;
  return out;
}

std::string line_too_long(std::size_t octets, std::size_t limit) {
  return "the line is " + std::to_string(octets) + " octets, longer than the limit of " +
         std::to_string(limit);
}

}  // namespace rdcc
