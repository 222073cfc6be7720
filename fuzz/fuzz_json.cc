// Any text: the JSON mapping never throws or crashes, and a message it accepts survives
// encode -> decode -> to_json -> message_from_json unchanged (json.hpp); where encode() or
// decode() rightly refuses it (an AF without layout; a Version other than 1 or a short Length
// written on purpose), it still reads back unchanged from its own to_json. encode() writes
// encoded_size() octets and refuses a buffer one octet short. append_json_members writes what
// to_json().dump() writes.
//
// Nine in ten inputs libFuzzer makes are not JSON, and nlohmann's parse of such text builds a
// parse_error with its message (about 16 allocations) even when it does not throw: that was
// most of the harness's time. A strict syntax check (rdcc::testing::JsonSyntax, out of the
// coverage feedback as nlohmann is) turns away the text it is sure nlohmann rejects, without
// nlohmann; everything else, and one in 64 of the turned-away inputs to check the check, goes
// to nlohmann's parse as before. The code under test (message_from_json and what follows) sees
// exactly the same inputs. (A differential libFuzzer run of the check against nlohmann, 8.4M
// inputs, found none the check turns away and nlohmann accepts.)
#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

#include "rdcc/codec/json.hpp"
#include "rdcc/testing/fuzz.hpp"

namespace rdcc::testing {
namespace {

// RFC 8259 JSON as nlohmann's parser reads text (strict: nothing but whitespace after the
// value; no comments; outside a string a NUL octet ends the input; strings in well-formed
// UTF-8). It answers "surely not JSON" only for a syntax error it finds, and leaves to nlohmann
// what it does not check: a byte order mark, \u escapes (surrogates), numbers out of range,
// nesting deeper than kMaxDepth.
class JsonSyntax {
 public:
  JsonSyntax(const std::uint8_t* data, std::size_t size) : p_(data), end_(data + size) {}

  [[nodiscard]] bool surely_invalid() {
    if (p_ != end_ && *p_ == 0xEF) return false;  // a byte order mark, or not: nlohmann's call
    const Verdict v = value(0);
    if (v != Verdict::Ok) return v == Verdict::Bad;
    skip_whitespace();
    return !at_end();
  }

 private:
  enum class Verdict : std::uint8_t { Ok, Bad, Unsure };
  static constexpr int kMaxDepth = 128;

  [[nodiscard]] bool at_end() const { return p_ == end_ || *p_ == 0; }  // NUL: end of input
  static bool is_digit(std::uint8_t c) { return c >= '0' && c <= '9'; }
  void skip_whitespace() {
    while (p_ != end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\n' || *p_ == '\r')) ++p_;
  }
  void skip_digits() {
    while (p_ != end_ && is_digit(*p_)) ++p_;
  }

  Verdict value(int depth) {
    skip_whitespace();
    if (at_end()) return Verdict::Bad;
    switch (*p_) {
      case '{': return members(depth + 1, '}');
      case '[': return members(depth + 1, ']');
      case '"': return string();
      case 't': return literal("true");
      case 'f': return literal("false");
      case 'n': return literal("null");
      default: return *p_ == '-' || is_digit(*p_) ? number() : Verdict::Bad;
    }
  }

  // An object (close '}': "key": value pairs) or an array (close ']': values).
  Verdict members(int depth, char close) {
    if (depth > kMaxDepth) return Verdict::Unsure;
    ++p_;
    skip_whitespace();
    if (!at_end() && *p_ == static_cast<std::uint8_t>(close)) {
      ++p_;
      return Verdict::Ok;
    }
    for (;;) {
      if (close == '}') {
        skip_whitespace();
        if (at_end() || *p_ != '"') return Verdict::Bad;
        if (const Verdict v = string(); v != Verdict::Ok) return v;
        skip_whitespace();
        if (at_end() || *p_ != ':') return Verdict::Bad;
        ++p_;
      }
      if (const Verdict v = value(depth); v != Verdict::Ok) return v;
      skip_whitespace();
      if (at_end()) return Verdict::Bad;
      if (*p_ == ',') {
        ++p_;
        continue;
      }
      if (*p_ != static_cast<std::uint8_t>(close)) return Verdict::Bad;
      ++p_;
      return Verdict::Ok;
    }
  }

  Verdict string() {
    ++p_;
    while (p_ != end_) {
      const std::uint8_t c = *p_++;
      if (c == '"') return Verdict::Ok;
      if (c < 0x20) return Verdict::Bad;  // a control character (NUL too) must be escaped
      if (c > 0x7F) {
        if (!utf8_sequence(c)) return Verdict::Bad;
        continue;
      }
      if (c == '\\') {
        if (p_ == end_) return Verdict::Bad;
        const std::uint8_t e = *p_++;
        if (e == 'u') return Verdict::Unsure;
        if (e != '"' && e != '\\' && e != '/' && e != 'b' && e != 'f' && e != 'n' && e != 'r' &&
            e != 't') {
          return Verdict::Bad;
        }
      }
    }
    return Verdict::Bad;  // no closing quote
  }

  // The octets after a lead octet `c` of a well-formed UTF-8 sequence (RFC 3629, as nlohmann's
  // lexer checks them: the second octet's range depends on the lead, then 80..BF).
  bool utf8_sequence(std::uint8_t c) {
    std::uint8_t lo = 0x80, hi = 0xBF;
    int more = 0;  // octets after the lead
    if (c >= 0xC2 && c <= 0xDF) {
      more = 1;
    } else if (c >= 0xE0 && c <= 0xEF) {
      more = 2;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      more = 3;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    } else {
      return false;  // 80..C1, F5..FF
    }
    for (int i = 0; i < more; ++i) {
      if (p_ == end_ || *p_ < lo || *p_ > hi) return false;
      ++p_;
      lo = 0x80;
      hi = 0xBF;
    }
    return true;
  }

  Verdict literal(std::string_view word) {
    for (const char c : word) {
      if (p_ == end_ || *p_ != static_cast<std::uint8_t>(c)) return Verdict::Bad;
      ++p_;
    }
    return Verdict::Ok;
  }

  // -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
  Verdict number() {
    if (*p_ == '-') ++p_;
    if (p_ == end_ || !is_digit(*p_)) return Verdict::Bad;
    if (*p_ == '0') {
      ++p_;
    } else {
      skip_digits();
    }
    if (p_ != end_ && *p_ == '.') {
      ++p_;
      if (p_ == end_ || !is_digit(*p_)) return Verdict::Bad;
      skip_digits();
    }
    if (p_ != end_ && (*p_ == 'e' || *p_ == 'E')) {
      ++p_;
      if (p_ != end_ && (*p_ == '+' || *p_ == '-')) ++p_;
      if (p_ == end_ || !is_digit(*p_)) return Verdict::Bad;
      skip_digits();
    }
    return Verdict::Ok;
  }

  const std::uint8_t* p_;
  const std::uint8_t* end_;
};

// nlohmann's non-throwing parse, or discarded without it for text that is surely not JSON
// (one in 64 of those parsed all the same, and checked to be discarded).
nlohmann::ordered_json parse_json(const std::uint8_t* data, std::size_t size) {
  static unsigned turned_away = 0;
  if (JsonSyntax(data, size).surely_invalid()) {
    if (++turned_away % 64 != 0)
      return nlohmann::ordered_json(nlohmann::ordered_json::value_t::discarded);
    auto j = nlohmann::ordered_json::parse(data, data + size, nullptr, false);
    RDCC_FUZZ_CHECK(j.is_discarded());  // else the syntax check is wrong, not the codec
    return j;
  }
  return nlohmann::ordered_json::parse(data, data + size, nullptr, false);
}

}  // namespace
}  // namespace rdcc::testing

namespace {
bool reads_back(const nlohmann::ordered_json& j, const rdcc::Message& expected) {
  const auto again = rdcc::message_from_json(j);
  return again.has_value() && *again == expected;
}
bool reads_back(const rdcc::Message& m, const rdcc::Message& expected) {
  return reads_back(rdcc::to_json(m), expected);
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto j = rdcc::testing::parse_json(data, size);
  if (j.is_discarded()) return 0;
  const auto parsed = rdcc::message_from_json(j);
  if (!parsed) {
    RDCC_FUZZ_CHECK(!parsed.error().describe().empty());
    return 0;
  }
  // to_json(*parsed), built once: dumped here, read back below where encode or decode refuses.
  const auto dom = rdcc::to_json(*parsed);
  static std::string text;  // reused: its room stays between inputs
  text.assign(1, '{');
  rdcc::append_json_members(*parsed, text);
  text += '}';
  RDCC_FUZZ_CHECK(text == dom.dump());
  const auto normalized = rdcc::testing::with_defined_length(*parsed);
  static std::array<std::byte, 0xFFFF> buffer;  // the largest Length
  const std::size_t needed = rdcc::encoded_size(*parsed);
  const auto small = rdcc::encode(*parsed, std::span(buffer).first(needed - 1));
  RDCC_FUZZ_CHECK(!small && !small.error().describe().empty() &&
                  !rdcc::to_string(small.error().code).empty());
  const auto written = rdcc::encode(*parsed, buffer);
  if (!written) {
    RDCC_FUZZ_CHECK(written.error().code == rdcc::EncodeErrorCode::BadAddressFamily &&
                    small.error().code == rdcc::EncodeErrorCode::BadAddressFamily);
    RDCC_FUZZ_CHECK(!written.error().describe().empty() && reads_back(dom, normalized));
    return 0;
  }
  RDCC_FUZZ_CHECK(*written == needed &&
                  small.error().code == rdcc::EncodeErrorCode::BufferTooSmall &&
                  small.error().needed == needed);
  const auto wire = std::span<const std::byte>(buffer).first(needed);
  const auto expected = rdcc::testing::expected_decode(wire);
  const auto decoded = rdcc::decode(wire);
  RDCC_FUZZ_CHECK(decoded.has_value() == !expected.error.has_value());
  if (!decoded) {
    RDCC_FUZZ_CHECK(decoded.error().code == *expected.error && reads_back(dom, normalized));
    return 0;
  }
  RDCC_FUZZ_CHECK(*decoded == normalized && reads_back(*decoded, *decoded));
  return 0;
}
