// The scenario parser (docs/scenario-language.md). Line-oriented: every line is one header
// item or one step, except the "| pattern" lines that follow "expect one of". Every error
// names the file, line and column, and what was expected there.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include "rdcc/codec/hex.hpp"
#include "rdcc/codec/json_input.hpp"
#include "rdcc/codec/messages.hpp"
#include "rdcc/conformance/scenario.hpp"
#include "rdcc/reference/address.hpp"
#include "rdcc/reference/config_schema.hpp"
#include "rdcc/udp/upper_tester_ops.hpp"

namespace rdcc::conformance {
namespace {

constexpr std::array<std::string_view, 7> kHeaderFields{
    "version", "rsv", "length", "association_id", "epoch", "flags", "sequence_number"};

std::string join(const std::vector<std::string>& items, std::string_view sep = ", ") {
  std::string out;
  for (const auto& i : items) {
    if (!out.empty()) out += sep;
    out += i;
  }
  return out;
}

// ---- field tables, from the codec's one description of each message ---------------------

struct FieldCollector {
  std::vector<std::pair<std::string, FieldInfo>> fields;
  template <class T>
  void operator()(const FieldSpec& f, const T&) {
    FieldInfo info;
    info.names.assign(f.names.begin(), f.names.end());
    info.bitset = f.unit == Unit::Bitmask;
    fields.emplace_back(std::string(f.name), std::move(info));
  }
  void address(const FieldSpec& f, const IpAddress&, std::size_t) {
    FieldInfo info;
    info.address = true;
    fields.emplace_back(std::string(f.name), std::move(info));
  }
};

template <std::size_t I = 0>
void collect_body(MessageType type, FieldCollector& c) {
  if constexpr (I < std::variant_size_v<Message>) {
    using T = std::variant_alternative_t<I, Message>;
    if (T::kType == type) {
      const T empty{};
      T::describe(empty, c);
      return;
    }
    collect_body<I + 1>(type, c);
  }
}

std::vector<std::pair<std::string, FieldInfo>> all_fields(MessageType type) {
  FieldCollector c;
  for (auto h : kHeaderFields) {
    FieldInfo info;
    if (h == "flags") {
      for (const auto& f : kMessageFlags) {
        if (f.type == type) info.names.push_back({f.bit, f.name});
      }
      info.bitset = true;
    }
    c.fields.emplace_back(std::string(h), std::move(info));
  }
  collect_body(type, c);
  return c.fields;
}

const std::vector<std::string> kDataFields{
    "message", "offset", "length", "last", "unscheduled", "ce", "dscp", "end", "source_port"};
// Data fields that are derived from others (end = offset + length) or the packet's own (the UDP
// port it left the IUT from): matched, never sent.
constexpr std::string_view kDataEndField = "end";
constexpr std::string_view kDataSourcePortField = "source_port";

const std::vector<std::string> kRocev2Fields{"qp",     "psn", "length", "dma_length",
                                             "opcode", "ce",  "dscp",   "unscheduled"};
constexpr std::array<std::pair<std::string_view, std::uint8_t>, 4> kRocev2Opcodes{
    {{"RDMA_WRITE_FIRST", 0x06},
     {"RDMA_WRITE_MIDDLE", 0x07},
     {"RDMA_WRITE_LAST", 0x08},
     {"RDMA_WRITE_ONLY", 0x0A}}};

// A scenario's `upper OP` keys: the op's arguments a scenario gives (upper_tester_ops.hpp).
std::vector<std::string> upper_step_keys(const udp::UpperOp& op) {
  std::vector<std::string> out;
  for (const auto& a : op.args) {
    if (a.in_scenario) out.emplace_back(a.key);
  }
  return out;
}
std::vector<std::string> queue_keys() {
  return upper_step_keys(*udp::find_upper_op("queue"));
}

// `config` keys: the role's configuration settings (config_schema.hpp), and `seed`, the
// in-process reference IUT's random seed.
constexpr std::string_view kSeedKey = "seed";

// Bounds on a scenario file: far above any scenario's (the longest line of the project's is
// under 400 octets), so that a file that is no scenario costs no more than this to refuse.
constexpr std::size_t kMaxLine = std::size_t{64} << 10U;
constexpr std::size_t kMaxFile = std::size_t{16} << 20U;

// An error's text as printed: a parse error quotes the token it concerns, and a token of
// thousands of octets (a line of parentheses, a binary file) is cut to an excerpt, control
// characters escaped (rdcc/codec/json_input.hpp, excerpt), so that the message stays a line.
std::string readable(std::string_view what) {
  std::string out;
  while (!what.empty()) {
    const std::size_t word = std::min(what.find(' '), what.size());
    const std::string_view w = what.substr(0, word);
    const bool control = std::any_of(w.begin(), w.end(), [](char c) {
      return static_cast<unsigned char>(c) < 0x20 || c == 0x7F;
    });
    if (w.size() > kExcerpt || control) {
      out += excerpt(w);
    } else {
      out += w;
    }
    if (word < what.size()) out += ' ';
    what.remove_prefix(std::min(word + 1, what.size()));
  }
  return out;
}

// ---- tokens -------------------------------------------------------------------------------

struct Token {
  std::string text;
  int column = 0;  // 1-based
  bool quoted = false;
};

class LineParser {
 public:
  LineParser(std::string file, int line, std::string_view text)
      : file_(std::move(file)), line_(line), text_(text) {}

  // Splits the line into tokens; '#' outside quotes starts a comment.
  std::optional<ParseError> tokenize() {
    std::size_t i = 0;
    while (i < text_.size()) {
      const char c = text_[i];
      if (c == ' ' || c == '\t' || c == '\r') {
        ++i;
      } else if (c == '#') {
        break;
      } else if (c == '"') {
        const std::size_t start = i++;
        std::string s;
        while (i < text_.size() && text_[i] != '"') s += text_[i++];
        if (i == text_.size()) return error(start, "a closing '\"'");
        ++i;
        tokens_.push_back({s, static_cast<int>(start) + 1, true});
      } else {
        const std::size_t start = i;
        while (i < text_.size() && text_[i] != ' ' && text_[i] != '\t' && text_[i] != '#' &&
               text_[i] != '\r') {
          ++i;
        }
        tokens_.push_back(
            {std::string(text_.substr(start, i - start)), static_cast<int>(start) + 1, false});
      }
    }
    return std::nullopt;
  }

  [[nodiscard]] const std::vector<Token>& tokens() const { return tokens_; }
  // Removes the tokens from `from` on and returns them (a step's `checks ID ...` annotation).
  std::vector<Token> split_off(std::size_t from) {
    std::vector<Token> tail(tokens_.begin() + static_cast<std::ptrdiff_t>(from), tokens_.end());
    tokens_.resize(from);
    return tail;
  }
  [[nodiscard]] Location at(int column) const { return {file_, line_, column}; }
  [[nodiscard]] Location at_token(std::size_t i) const {
    if (i < tokens_.size()) return at(tokens_[i].column);
    return at(static_cast<int>(text_.size()) + 1);
  }
  [[nodiscard]] ParseError error(std::size_t offset, const std::string& expected) const {
    return {at(static_cast<int>(offset) + 1), "expected " + expected};
  }
  [[nodiscard]] ParseError error_at(std::size_t token, const std::string& what) const {
    return {at_token(token), what};
  }
  [[nodiscard]] std::string_view text() const { return text_; }

 private:
  std::string file_;
  int line_;
  std::string_view text_;
  std::vector<Token> tokens_;
};

bool is_identifier(std::string_view s) {
  if (s.empty() || (std::isalpha(static_cast<unsigned char>(s[0])) == 0 && s[0] != '_')) {
    return false;
  }
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
  });
}

std::optional<std::uint64_t> parse_number(std::string_view s) {
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    s.remove_prefix(2);
    base = 16;
  }
  if (s.empty()) return std::nullopt;
  std::uint64_t v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc{} || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace

std::optional<ref::Duration> parse_duration(std::string_view s) {
  static constexpr std::array<std::pair<std::string_view, std::int64_t>, 4> kUnits{
      {{"ns", 1}, {"us", 1000}, {"ms", 1000000}, {"s", 1000000000}}};
  for (const auto& [unit, scale] : kUnits) {
    if (s.size() > unit.size() && s.substr(s.size() - unit.size()) == unit) {
      const auto n = parse_number(s.substr(0, s.size() - unit.size()));
      if (!n || *n > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max() / scale)) {
        return std::nullopt;
      }
      return ref::Duration{static_cast<std::int64_t>(*n) * scale};
    }
  }
  return std::nullopt;
}

namespace {

// A value token (or the value part of an assignment), starting at column `column`.
std::variant<Value, std::string> parse_value(std::string_view s, bool quoted) {
  Value v;
  if (quoted) {
    v.kind = Value::Kind::Text;
    v.text = std::string(s);
    return v;
  }
  if (s.empty()) return std::string("a value");
  if (s[0] == '$') {
    v.kind = Value::Kind::Variable;
    std::size_t end = 1;
    while (end < s.size() &&
           (std::isalnum(static_cast<unsigned char>(s[end])) != 0 || s[end] == '_')) {
      ++end;
    }
    v.text = std::string(s.substr(1, end - 1));
    if (v.text.empty()) return std::string("a variable name after '$'");
    // `*N`, then `/N`, then `+N` or `-N`, each at most once and in that order: the rank of an
    // operator character in that order, or npos for any other character.
    const auto rank_of = [](char c) { return std::string_view("*/+").find(c == '-' ? '+' : c); };
    std::size_t next_allowed = 0;
    while (end < s.size()) {
      const char op = s[end];
      const std::size_t rank = rank_of(op);
      if (rank == std::string_view::npos || rank < next_allowed) {
        return std::string("'*', '/', '+' or '-' (in that order) after $" + v.text);
      }
      std::size_t stop = end + 1;
      while (stop < s.size() && rank_of(s[stop]) == std::string_view::npos) ++stop;
      const auto n = parse_number(s.substr(end + 1, stop - end - 1));
      const bool offset = op == '+' || op == '-';
      // An offset as before (any int64); a factor from 1 to 2^31 - 1 (resolve's x * m / d).
      if (!n ||
          (offset && *n > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) ||
          (!offset && (*n == 0 || *n > static_cast<std::uint64_t>(
                                           std::numeric_limits<std::int32_t>::max())))) {
        return std::string("a number after '" + std::string(1, op) + "'" +
                           (offset ? "" : " (1 to 2147483647)"));
      }
      if (op == '*') v.multiply = *n;
      if (op == '/') v.divide = *n;
      if (offset) v.offset = static_cast<std::int64_t>(*n) * (op == '-' ? -1 : 1);
      next_allowed = rank + 1;
      end = stop;
    }
    return v;
  }
  if (std::isdigit(static_cast<unsigned char>(s[0])) != 0) {
    if (auto n = parse_number(s)) {
      v.number = *n;
      return v;
    }
    if (s.find_first_of(".:") != std::string_view::npos) {  // an address
      v.kind = Value::Kind::Text;
      v.text = std::string(s);
      return v;
    }
    return std::string("a number (decimal or 0x hex), not '" + std::string(s) + "'");
  }
  if (s[0] == '[' || s.find(':') != std::string_view::npos) {  // an IPv6 address or [v6]:port
    v.kind = Value::Kind::Text;
    v.text = std::string(s);
    return v;
  }
  if (s == "true" || s == "false") {
    v.number = s == "true" ? 1 : 0;
    return v;
  }
  v.kind = Value::Kind::Names;
  std::size_t start = 0;
  while (start <= s.size()) {
    const std::size_t bar = std::min(s.find('|', start), s.size());
    const std::string_view name = s.substr(start, bar - start);
    if (!is_identifier(name)) {
      return std::string("a name, a number or $variable, not '" + std::string(name) + "'");
    }
    v.names.emplace_back(name);
    start = bar + 1;
  }
  return v;
}

struct Assignment {
  std::string field;
  Op op = Op::Eq;
  Value value;
  int column = 0;
};

// "field OP value"; `ops_allowed` false: only '='.
std::variant<Assignment, ParseError> parse_assignment(const LineParser& lp, std::size_t index,
                                                      bool ops_allowed) {
  const Token& t = lp.tokens()[index];
  const std::string& s = t.text;
  std::size_t i = 0;
  while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) != 0 || s[i] == '_')) ++i;
  if (i == 0 || t.quoted) return lp.error_at(index, "expected a field name, found '" + s + "'");
  static constexpr std::array<std::pair<std::string_view, Op>, 8> kOps{{{"!&", Op::NoBits},
                                                                        {"<=", Op::Le},
                                                                        {">=", Op::Ge},
                                                                        {"!=", Op::Ne},
                                                                        {"&", Op::AllBits},
                                                                        {"<", Op::Lt},
                                                                        {">", Op::Gt},
                                                                        {"=", Op::Eq}}};
  Assignment a;
  a.field = s.substr(0, i);
  a.column = t.column;
  std::size_t op_len = 0;
  for (const auto& [text, op] : kOps) {
    if (s.compare(i, text.size(), text) == 0) {
      a.op = op;
      op_len = text.size();
      break;
    }
  }
  const int op_column = t.column + static_cast<int>(i);
  if (op_len == 0) {
    return ParseError{lp.at(op_column), ops_allowed
                                            ? "expected an operator (=, !=, <, <=, >, >=, &, !&) "
                                              "after '" +
                                                  a.field + "'"
                                            : "expected '=' after '" + a.field + "'"};
  }
  if (!ops_allowed && a.op != Op::Eq) {
    return ParseError{lp.at(op_column), "expected '=' after '" + a.field +
                                            "' (a send assigns values; matchers belong to expect)"};
  }
  std::string_view rest = std::string_view(s).substr(i + op_len);
  bool quoted = false;
  // A quoted value follows as its own token: name="..."
  if (rest.empty() && index + 1 < lp.tokens().size() && lp.tokens()[index + 1].quoted) {
    return ParseError{lp.at(op_column), "expected the value right after the operator"};
  }
  auto v = parse_value(rest, quoted);
  if (auto* e = std::get_if<std::string>(&v)) {
    return ParseError{lp.at(op_column + static_cast<int>(op_len)), "expected " + *e};
  }
  a.value = std::get<Value>(std::move(v));
  a.value.where = lp.at(op_column + static_cast<int>(op_len));
  return a;
}

class ScenarioParser {
 public:
  ScenarioParser(const std::string& file, const KnownId& known) : file_(file), known_(known) {
    scenario_.where = {file, 0, 0};
  }

  std::variant<Scenario, ParseError> run(const std::string& text) {
    std::istringstream in(text);
    std::string line;
    int number = 0;
    while (std::getline(in, line)) {
      ++number;
      if (line.size() > kMaxLine) {
        return ParseError{{file_, number, 1}, line_too_long(line.size(), kMaxLine)};
      }
      LineParser lp(file_, number, line);
      if (auto e = lp.tokenize()) return *e;
      if (lp.tokens().empty()) continue;
      if (auto e = line_item(lp)) return *e;
    }
    if (auto e = finish_alternatives()) return *e;
    if (auto e = check_step_annotations()) return *e;
    const Location end{file_, number + 1, 1};
    if (scenario_.name.empty()) return ParseError{end, "expected a 'scenario NAME' line"};
    if (!have_role_) return ParseError{end, "expected a 'role receiver|sender|crn' line"};
    if (scenario_.checks.empty()) {
      return ParseError{end, "expected a 'checks RDCC-...' line naming the requirements"};
    }
    if (scenario_.steps.empty()) return ParseError{end, "expected at least one step"};
    return std::move(scenario_);
  }

 private:
  std::optional<ParseError> line_item(LineParser& lp) {
    const std::string kw = lp.tokens()[0].text;
    if (kw == "|") {
      if (!open_alternatives_) {
        return lp.error_at(0, "'|' alternative outside 'expect one of'");
      }
      return alternative(lp);
    }
    if (auto e = finish_alternatives()) return e;
    if (kw == "scenario") return header_scenario(lp);
    if (kw == "role") return header_role(lp);
    if (kw == "checks") return header_checks(lp);
    if (kw == "tags") return header_tags(lp);
    if (kw == "description") return header_description(lp);
    if (kw == "config") return header_config(lp);
    if (scenario_.name.empty() || !have_role_) {
      return lp.error_at(0,
                         "expected 'scenario NAME' and 'role ...' before the first step, "
                         "found '" +
                             kw + "'");
    }
    Step step;
    step.where = lp.at_token(0);
    step.text = trimmed(lp.text());
    if (auto e = step_annotation(lp, step)) return e;
    std::optional<ParseError> e;
    if (kw == "send") {
      e = step_send(lp, step);
    } else if (kw == "expect") {
      e = step_expect(lp, step);
    } else if (kw == "seen") {
      e = step_seen(lp, step);
    } else if (kw == "wait" && lp.tokens().size() == 3 && lp.tokens()[1].text.starts_with("$")) {
      step.kind = Step::Kind::Wait;
      e = variable_duration(lp, step);
    } else if (kw == "silence" || kw == "wait") {
      step.kind = kw == "silence" ? Step::Kind::Silence : Step::Kind::Wait;
      e = single_duration(lp, step.within);
    } else if (kw == "ignore") {
      e = step_ignore(lp, step);
    } else if (kw == "watch") {
      e = step_watch(lp, step);
    } else if (kw == "require") {
      e = step_require(lp, step);
    } else if (kw == "transfer") {
      e = step_transfer(lp, step);
    } else if (kw == "defaults") {
      step.kind = Step::Kind::Defaults;
      step.pattern.where = step.where;
      e = assignments(lp, 1, step.pattern, MessageType::CreditRequest, false, false);
      if (!e) e = check_defaults(lp, step.pattern);
    } else if (kw == "upper") {
      e = step_upper(lp, step);
    } else if (kw == "set") {
      e = step_set(lp, step);
    } else if (kw == "queue") {
      e = step_queue(lp, step);
    } else if (kw == "spread") {
      e = step_spread(lp, step);
    } else {
      return lp.error_at(0,
                         "expected a step (send, expect, seen, silence, ignore, defaults, upper, "
                         "queue, wait, watch, set, transfer, spread) or a header item (scenario, "
                         "role, checks, tags, "
                         "description, config), found '" +
                             kw + "'");
    }
    if (e) return e;
    scenario_.steps.push_back(std::move(step));
    if (scenario_.steps.back().kind == Step::Kind::Expect &&
        scenario_.steps.back().alternatives.empty()) {
      open_alternatives_ = true;
    }
    return std::nullopt;
  }

  // `... checks ID ...` at the end of an expect, silence or watch line: the requirements that
  // step checks (its verdict takes their level), in place of the scenario's `checks`.
  std::optional<ParseError> step_annotation(LineParser& lp, Step& step) {
    const auto& t = lp.tokens();
    std::size_t at = 1;
    while (at < t.size() && (t[at].quoted || t[at].text != "checks")) ++at;
    if (at == t.size()) return std::nullopt;
    const std::string& kw = t[0].text;
    if (kw != "expect" && kw != "seen" && kw != "silence" && kw != "watch" && kw != "spread") {
      return lp.error_at(at,
                         "a 'checks' annotation belongs on a step that can fail (expect, seen, "
                         "silence, watch, spread), not on '" +
                             kw + "'");
    }
    step.checks_where = lp.at_token(at);
    const auto ids = lp.split_off(at);
    if (ids.size() < 2) {
      return ParseError{step.checks_where, "expected one or more requirement IDs after 'checks'"};
    }
    for (std::size_t i = 1; i < ids.size(); ++i) {
      const Location where = lp.at(ids[i].column);
      if (auto e = known_requirement(ids[i].text, where)) return e;
      step.checks.push_back(ids[i].text);
    }
    return std::nullopt;
  }

  std::optional<ParseError> known_requirement(const std::string& id, const Location& where) const {
    if (!is_well_formed_id(id)) {
      return ParseError{
          where, "expected a requirement ID of the form RDCC-<AREA>-<NN>, found '" + id + "'"};
    }
    if (known_ && !known_(id)) {
      return ParseError{where, "unknown requirement ID '" + id + "' (not in the catalog)"};
    }
    return std::nullopt;
  }

  // A step's annotation names requirements of the scenario's own `checks` line, so that the
  // scenario's list stays the whole of what it checks (coverage, --filter).
  std::optional<ParseError> check_step_annotations() const {
    for (const auto& step : scenario_.steps) {
      for (const auto& id : step.checks) {
        if (std::find(scenario_.checks.begin(), scenario_.checks.end(), id) ==
            scenario_.checks.end()) {
          return ParseError{step.checks_where, "'" + id +
                                                   "' is not on the scenario's 'checks' "
                                                   "line (" +
                                                   join(scenario_.checks, " ") + ")"};
        }
      }
    }
    return std::nullopt;
  }

  static std::string trimmed(std::string_view s) {
    const auto hash = s.find('#');
    if (hash != std::string_view::npos && s.find('"') == std::string_view::npos) {
      s = s.substr(0, hash);
    }
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())) != 0)
      s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())) != 0)
      s.remove_suffix(1);
    return std::string(s);
  }

  // ---- header ----

  std::optional<ParseError> header_scenario(const LineParser& lp) {
    const auto& t = lp.tokens();
    if (!scenario_.name.empty()) return lp.error_at(0, "a second 'scenario' line (one per file)");
    if (t.size() != 2) return lp.error_at(t.size() < 2 ? 1 : 2, "expected one scenario name");
    const auto& n = t[1].text;
    const bool ok = std::all_of(n.begin(), n.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_' || c == '.';
    });
    if (!ok) return lp.error_at(1, "expected a name of letters, digits, '-', '_' or '.'");
    scenario_.name = n;
    scenario_.where = lp.at(1);
    return std::nullopt;
  }

  std::optional<ParseError> header_role(const LineParser& lp) {
    const auto& t = lp.tokens();
    if (t.size() != 2)
      return lp.error_at(t.size() < 2 ? 1 : 2, "expected one role (receiver, sender, crn)");
    if (t[1].text == "receiver") {
      scenario_.role = Role::Receiver;
    } else if (t[1].text == "sender") {
      scenario_.role = Role::Sender;
    } else if (t[1].text == "crn") {
      scenario_.role = Role::Crn;
    } else {
      return lp.error_at(1, "expected a role (receiver, sender, crn), found '" + t[1].text + "'");
    }
    if (!scenario_.steps.empty()) return lp.error_at(0, "'role' must come before the steps");
    have_role_ = true;
    return std::nullopt;
  }

  std::optional<ParseError> header_checks(const LineParser& lp) {
    const auto& t = lp.tokens();
    if (t.size() < 2) return lp.error_at(1, "expected one or more requirement IDs (RDCC-AREA-NN)");
    for (std::size_t i = 1; i < t.size(); ++i) {
      const auto& id = t[i].text;
      if (auto e = known_requirement(id, lp.at_token(i))) return e;
      scenario_.checks.push_back(id);
    }
    return std::nullopt;
  }

  std::optional<ParseError> header_tags(const LineParser& lp) {
    const auto& t = lp.tokens();
    if (t.size() < 2) return lp.error_at(1, "expected one or more tags");
    for (std::size_t i = 1; i < t.size(); ++i) scenario_.tags.push_back(t[i].text);
    return std::nullopt;
  }

  std::optional<ParseError> header_description(const LineParser& lp) {
    const auto& t = lp.tokens();
    if (t.size() != 2 || !t[1].quoted) {
      return lp.error_at(t.size() < 2 ? 1 : (t[1].quoted ? 2 : 1),
                         "expected one quoted description: description \"...\"");
    }
    scenario_.description = t[1].text;
    return std::nullopt;
  }

  std::optional<ParseError> header_config(const LineParser& lp) {
    if (!have_role_) return lp.error_at(0, "'config' needs the 'role' line before it");
    const auto keys = config_keys(scenario_.role);
    const auto& t = lp.tokens();
    if (t.size() < 2) return lp.error_at(1, "expected key=value (known: " + join(keys) + ")");
    for (std::size_t i = 1; i < t.size(); ++i) {
      auto a = parse_assignment(lp, i, false);
      if (auto* e = std::get_if<ParseError>(&a)) return *e;
      auto& as = std::get<Assignment>(a);
      if (std::find(keys.begin(), keys.end(), as.field) == keys.end()) {
        return ParseError{lp.at(as.column), "unknown config key '" + as.field + "' for role " +
                                                std::string(to_string(scenario_.role)) +
                                                " (known: " + join(keys) + ")"};
      }
      std::uint64_t value = as.value.number;
      const ref::ConfigSetting* s = ref::find_config_setting(to_string(scenario_.role), as.field);
      if (as.value.kind == Value::Kind::Names && s != nullptr &&
          s->field.unit == ref::ConfigUnit::Capabilities) {
        auto v = ref::parse_config_text(*s, join(as.value.names, ","));
        if (auto* e = std::get_if<std::string>(&v)) {
          return ParseError{as.value.where, "config key '" + as.field + "': " + *e};
        }
        value = std::get<std::vector<std::uint64_t>>(v).front();
      } else if (as.value.kind != Value::Kind::Number) {
        return ParseError{as.value.where, "expected a number for config key '" + as.field + "'"};
      } else if (s != nullptr) {
        if (auto e = ref::check_config_value(*s, value)) {
          return ParseError{as.value.where, "config key '" + as.field + "': " + *e};
        }
      }
      scenario_.config[as.field] = value;
    }
    return std::nullopt;
  }

  // ---- steps ----

  // spread $V1 ... $VN over D: N >= kMinSpreadSamples captured samples (microseconds).
  static std::optional<ParseError> step_spread(const LineParser& lp, Step& step) {
    step.kind = Step::Kind::Spread;
    const auto& t = lp.tokens();
    std::size_t over = 1;
    while (over < t.size() && t[over].text != "over") ++over;
    if (over + 2 != t.size()) {
      return lp.error_at(std::min(over + 2, t.size() - 1),
                         "expected spread $VAR ... over DURATION (the samples, then the D of "
                         "[0, D] they are drawn from)");
    }
    for (std::size_t i = 1; i < over; ++i) {
      const auto& v = t[i].text;
      if (v.size() < 2 || v[0] != '$' || !is_identifier(v.substr(1))) {
        return lp.error_at(i, "expected a $variable holding a sample, found '" + v + "'");
      }
      step.samples.push_back(v.substr(1));
    }
    if (step.samples.size() < kMinSpreadSamples) {
      return lp.error_at(over, "expected at least " + std::to_string(kMinSpreadSamples) +
                                   " samples (fewer prove nothing: all of N uniform draws fall "
                                   "in one quarter with probability 4^-N), found " +
                                   std::to_string(step.samples.size()));
    }
    auto d = parse_duration(t[over + 1].text);
    if (!d || d->ns <= 0) {
      return lp.error_at(over + 1,
                         "expected a duration such as 100ms, found '" + t[over + 1].text + "'");
    }
    step.within = *d;
    return std::nullopt;
  }

  std::optional<ParseError> single_duration(const LineParser& lp, ref::Duration& out) {
    const auto& t = lp.tokens();
    if (t.size() != 2) {
      return lp.error_at(t.size() < 2 ? 1 : 2, "expected one duration (e.g. 2ms, 500us)");
    }
    auto d = parse_duration(t[1].text);
    if (!d)
      return lp.error_at(
          1, "expected a duration such as 2ms, 500us, 1s or 100ns, found '" + t[1].text + "'");
    out = *d;
    return std::nullopt;
  }

  // wait $VAR[+N] us|ms: a duration the scenario learnt (a grant's Lifetime), in the unit given;
  // the variable as a matcher of the step's pattern (field "duration"), the unit in `within`.
  static std::optional<ParseError> variable_duration(const LineParser& lp, Step& step) {
    const auto& t = lp.tokens();
    auto v = parse_value(t[1].text, false);
    if (auto* e = std::get_if<std::string>(&v)) return lp.error_at(1, "expected " + *e);
    if (t[2].text != "us" && t[2].text != "ms") {
      return lp.error_at(2, "expected the unit of $" + std::get<Value>(v).text +
                                " (us or ms), found '" + t[2].text + "'");
    }
    Value value = std::get<Value>(v);
    value.where = lp.at_token(1);
    step.pattern.where = lp.at_token(0);
    step.pattern.matchers.push_back({"duration", Op::Eq, value, lp.at_token(1)});
    step.within = t[2].text == "us" ? ref::microseconds(1) : ref::milliseconds(1);
    return std::nullopt;
  }

  std::optional<ParseError> message_type(const LineParser& lp, std::size_t i, MessageType& out) {
    const auto& t = lp.tokens();
    if (i >= t.size()) return lp.error_at(i, "expected a message type (" + type_list() + ")");
    auto type = message_type_from_name(t[i].text);
    if (!type) {
      return lp.error_at(
          i, "expected a message type (" + type_list() + "), found '" + t[i].text + "'");
    }
    out = *type;
    return std::nullopt;
  }

  static std::string type_list() {
    std::string out;
    for (const auto& m : kMessageTypes) {
      if (!out.empty()) out += ", ";
      out += m.name;
    }
    return out;
  }

  std::optional<ParseError> step_send(const LineParser& lp, Step& step) {
    const auto& t = lp.tokens();
    if (t.size() < 2) {
      return lp.error_at(1, "expected a message type, 'raw' or 'data' after 'send'");
    }
    step.pattern.where = lp.at_token(1);
    if (t[1].text == "raw") {
      step.kind = Step::Kind::SendRaw;
      return raw_octets(lp, step);
    }
    if (t[1].text == "data") {
      step.kind = Step::Kind::SendData;
      step.pattern.data = true;
      return data_assignments(lp, 2, step.pattern, false);
    }
    if (t[1].text == "rocev2") {
      step.kind = Step::Kind::SendRocev2;
      step.pattern.data = true;
      return rocev2_assignments(lp, step.pattern);
    }
    step.kind = Step::Kind::Send;
    if (auto e = message_type(lp, 1, step.pattern.type)) return e;
    return assignments(lp, 2, step.pattern, step.pattern.type, false);
  }

  // from=IP:PORT / to=IP:PORT: the packet's addresses. A send takes only from=; an expect
  // compares with = or !=.
  static std::optional<ParseError> address_field(const LineParser& lp, const Assignment& as,
                                                 bool matchers) {
    if (!matchers && as.field == kToField) {
      return ParseError{lp.at(as.column), "a send goes to the IUT: 'to=' belongs to expect"};
    }
    if (as.op != Op::Eq && as.op != Op::Ne) {
      return ParseError{lp.at(as.column), "'" + as.field + "' compares with = or != only"};
    }
    if (as.value.kind == Value::Kind::Variable) {
      const auto* b = find_builtin(as.value.text);
      if (b != nullptr && b->kind == BuiltinVariable::Kind::Address && as.value.offset == 0 &&
          as.value.multiply == 1 && as.value.divide == 1) {
        return std::nullopt;
      }
      return ParseError{as.value.where, "'" + as.field +
                                            "' takes IP:PORT or an address variable "
                                            "($tester, $iut, $other, ...), not '" +
                                            as.value.to_string() + "'"};
    }
    ref::Address a;
    if (as.value.kind != Value::Kind::Text || !ref::Address::parse(as.value.text, a)) {
      return ParseError{as.value.where, "'" + as.field +
                                            "' takes IP:PORT (10.0.0.3:50000, "
                                            "[2001:db8::3]:50000), not '" +
                                            as.value.to_string() + "'"};
    }
    return std::nullopt;
  }

  // send raw [from=IP:PORT] OCTETS: hex octets, and $name:N for N octets (1..8) of a variable,
  // big-endian ($assoc:4, $epoch:2, $mid+1:8).
  std::optional<ParseError> raw_octets(const LineParser& lp, Step& step) {
    const auto& t = lp.tokens();
    std::size_t i = 2;
    if (i < t.size() && t[i].text.rfind("from=", 0) == 0) {
      auto a = parse_assignment(lp, i, false);
      if (auto* e = std::get_if<ParseError>(&a)) return *e;
      auto& as = std::get<Assignment>(a);
      if (auto e = address_field(lp, as, false)) return e;
      step.pattern.matchers.push_back({as.field, as.op, as.value, lp.at(as.column)});
      ++i;
    }
    for (; i < t.size(); ++i) {
      if (t[i].text.front() == '#') break;
      if (t[i].text.front() != '$') {
        auto bytes = parse_hex(t[i].text);
        if (!bytes) {
          return ParseError{lp.at(t[i].column + static_cast<int>(bytes.error().column)),
                            "expected hex octets: " + bytes.error().what};
        }
        step.raw.insert(step.raw.end(), bytes->begin(), bytes->end());
        continue;
      }
      const auto colon = t[i].text.rfind(':');
      const auto width =
          colon == std::string::npos ? std::nullopt : parse_number(t[i].text.substr(colon + 1));
      if (!width || *width < 1 || *width > 8) {
        return lp.error_at(i,
                           "expected $name:N with N octets from 1 to 8, found '" + t[i].text + "'");
      }
      auto v = parse_value(std::string_view(t[i].text).substr(0, colon), false);
      if (auto* e = std::get_if<std::string>(&v)) return lp.error_at(i, "expected " + *e);
      RawField f;
      f.offset = step.raw.size();
      f.width = static_cast<std::size_t>(*width);
      f.value = std::get<Value>(std::move(v));
      f.value.where = lp.at_token(i);
      step.raw.resize(step.raw.size() + f.width);
      step.raw_fields.push_back(std::move(f));
    }
    if (step.raw.empty()) return lp.error_at(2, "expected at least one hex octet after 'send raw'");
    return std::nullopt;
  }

  // Field assignments or matchers for a message type, and "-> var=field" captures.
  std::optional<ParseError> assignments(const LineParser& lp, std::size_t from, Pattern& p,
                                        MessageType type, bool matchers, bool check_fields = true) {
    const auto& t = lp.tokens();
    const auto fields = message_fields(type);
    for (std::size_t i = from; i < t.size(); ++i) {
      if (t[i].text == "->") {
        if (!matchers) return lp.error_at(i, "captures ('->') belong to expect and upper steps");
        return captures(lp, i + 1, p, fields);
      }
      auto a = parse_assignment(lp, i, matchers);
      if (auto* e = std::get_if<ParseError>(&a)) return *e;
      auto& as = std::get<Assignment>(a);
      if (as.field == kFromField || as.field == kToField) {
        if (auto e = address_field(lp, as, matchers)) return e;
        p.matchers.push_back({as.field, as.op, as.value, lp.at(as.column)});
        continue;
      }
      if (as.field == kWithinUField) {
        if (auto e = within_u_field(lp, as, matchers, type == MessageType::CreditRequest)) return e;
        p.matchers.push_back({as.field, as.op, as.value, lp.at(as.column)});
        continue;
      }
      if (as.field == kGapField) {
        if (!matchers) {
          return ParseError{lp.at(as.column), "'gap_us' is measured on an expect, not sent"};
        }
        if (as.value.kind == Value::Kind::Names) {
          return ParseError{lp.at(as.column), "'gap_us' is a number of microseconds"};
        }
        p.matchers.push_back({as.field, as.op, as.value, lp.at(as.column)});
        continue;
      }
      if (check_fields) {
        auto info = message_field(type, as.field);
        if (!info) {
          return ParseError{lp.at(as.column), "unknown field '" + as.field + "' of " +
                                                  std::string(info_name(type)) +
                                                  " (known: " + join(fields) + ")"};
        }
        if (auto e = check_value(as, *info)) return e;
      }
      p.matchers.push_back({as.field, as.op, as.value, lp.at(as.column)});
    }
    return std::nullopt;
  }

  static std::string_view info_name(MessageType type) { return info(type).name; }

  static std::optional<ParseError> check_value(const Assignment& as, const FieldInfo& info) {
    if (as.value.kind == Value::Kind::Names) {
      for (const auto& n : as.value.names) {
        if (!value_of(info.names, n)) {
          std::vector<std::string> known;
          for (const auto& nv : info.names) known.emplace_back(nv.name);
          return ParseError{as.value.where, "unknown name '" + n + "' for field '" + as.field +
                                                "'" +
                                                (known.empty() ? std::string(" (it takes numbers)")
                                                               : " (known: " + join(known) + ")")};
        }
      }
      if (as.value.names.size() > 1 && !info.bitset) {
        return ParseError{as.value.where,
                          "field '" + as.field + "' takes one name, not a '|' list"};
      }
    }
    if (as.value.kind == Value::Kind::Variable) {
      const auto* b = find_builtin(as.value.text);
      const bool ip = b != nullptr && b->kind == BuiltinVariable::Kind::Ip;
      if (b != nullptr && b->kind != BuiltinVariable::Kind::Number && (!info.address || !ip)) {
        return ParseError{as.value.where, "field '" + as.field + "' cannot take $" +
                                              std::string(b->name) +
                                              (info.address ? " (an address field takes an IP "
                                                              "variable such as $tester_ip)"
                                                            : " (not a number)")};
      }
      if (ip && (as.value.offset != 0 || as.value.multiply != 1 || as.value.divide != 1)) {
        return ParseError{as.value.where, "$" + as.value.text + " takes no arithmetic"};
      }
    }
    if (as.value.kind == Value::Kind::Text && !info.address) {
      return ParseError{as.value.where, "field '" + as.field + "' takes a number or a name, not '" +
                                            as.value.text + "'"};
    }
    if ((as.op == Op::AllBits || as.op == Op::NoBits) && !info.bitset &&
        as.value.kind == Value::Kind::Names) {
      return ParseError{as.value.where, "bit tests (&, !&) need a bit-set field"};
    }
    return std::nullopt;
  }

  std::optional<ParseError> captures(const LineParser& lp, std::size_t from, Pattern& p,
                                     const std::vector<std::string>& fields) {
    const auto& t = lp.tokens();
    if (from >= t.size()) return lp.error_at(from, "expected name=field after '->'");
    for (std::size_t i = from; i < t.size(); ++i) {
      const auto& s = t[i].text;
      const auto eq = s.find('=');
      if (eq == std::string::npos || !is_identifier(s.substr(0, eq)) ||
          !is_identifier(s.substr(eq + 1))) {
        return lp.error_at(i, "expected a capture name=field, found '" + s + "'");
      }
      const std::string field = s.substr(eq + 1);
      if (field != kSinceSubmitField && field != kGapField &&
          std::find(fields.begin(), fields.end(), field) == fields.end()) {
        return ParseError{lp.at(t[i].column + static_cast<int>(eq) + 1),
                          "unknown field '" + field + "' to capture (known: " + join(fields) + ")"};
      }
      if (find_builtin(s.substr(0, eq)) != nullptr) {
        return lp.error_at(i, "$" + s.substr(0, eq) +
                                  " is a built-in variable; capture into "
                                  "another name");
      }
      p.captures.push_back({s.substr(0, eq), field});
    }
    return std::nullopt;
  }

  // within_u=1: only on a send of CREDIT_REQUEST or data (scenario.hpp, kWithinUField).
  static std::optional<ParseError> within_u_field(const LineParser& lp, const Assignment& as,
                                                  bool matchers, bool here) {
    if (matchers || !here) {
      return ParseError{lp.at(as.column),
                        "'within_u' belongs to send CREDIT_REQUEST and send data only"};
    }
    if (as.op != Op::Eq || as.value.kind != Value::Kind::Number || as.value.number != 1) {
      return ParseError{lp.at(as.column), "'within_u' takes only =1"};
    }
    return std::nullopt;
  }

  std::optional<ParseError> data_assignments(const LineParser& lp, std::size_t from, Pattern& p,
                                             bool matchers) {
    const auto& t = lp.tokens();
    for (std::size_t i = from; i < t.size(); ++i) {
      if (t[i].text == "->") {
        if (!matchers) return lp.error_at(i, "captures ('->') belong to expect and upper steps");
        return captures(lp, i + 1, p, data_fields());
      }
      auto a = parse_assignment(lp, i, matchers);
      if (auto* e = std::get_if<ParseError>(&a)) return *e;
      auto& as = std::get<Assignment>(a);
      if (matchers && (as.field == kFromField || as.field == kToField)) {
        if (auto e = address_field(lp, as, matchers)) return e;
        p.matchers.push_back({as.field, as.op, as.value, lp.at(as.column)});
        continue;
      }
      if (as.field == kWithinUField) {
        if (auto e = within_u_field(lp, as, matchers, true)) return e;
        p.matchers.push_back({as.field, as.op, as.value, lp.at(as.column)});
        continue;
      }
      if (std::find(kDataFields.begin(), kDataFields.end(), as.field) == kDataFields.end()) {
        return ParseError{lp.at(as.column), "unknown data field '" + as.field +
                                                "' (known: " + join(kDataFields) + ")"};
      }
      if (!matchers && as.field == kDataEndField) {
        return ParseError{lp.at(as.column),
                          "data field 'end' is offset + length: an expect or "
                          "ignore matches it, send data gives offset and length"};
      }
      if (!matchers && as.field == kDataSourcePortField) {
        return ParseError{
            lp.at(as.column),
            "data field 'source_port' is the port a packet left the IUT from: an "
            "expect or ignore matches it, send data goes from the tester's data port"};
      }
      if (as.value.kind == Value::Kind::Names || as.value.kind == Value::Kind::Text) {
        return ParseError{as.value.where,
                          "data field '" + as.field + "' takes a number or $variable"};
      }
      p.matchers.push_back({as.field, as.op, as.value, lp.at(as.column)});
    }
    if (!matchers) {
      for (const auto* required : {"message", "length"}) {
        const bool has = std::any_of(p.matchers.begin(), p.matchers.end(),
                                     [&](const Matcher& m) { return m.field == required; });
        if (!has)
          return lp.error_at(t.size(), std::string("expected ") + required + "=... in send data");
      }
    }
    return std::nullopt;
  }

  // send rocev2 qp=N length=N [psn=N] [opcode=NAME|N] [dma_length=N] [ce=1] [dscp=N]
  // [unscheduled=1]: one RC RDMA WRITE packet to the IUT's RoCEv2 port (a receiver IUT;
  // Binding Kind 1). The RETH of a First packet states the whole RDMA WRITE: dma_length.
  std::optional<ParseError> rocev2_assignments(const LineParser& lp, Pattern& p) {
    const auto& t = lp.tokens();
    if (scenario_.role != Role::Receiver) {
      return lp.error_at(1, "send rocev2 needs a receiver IUT (role receiver)");
    }
    for (std::size_t i = 2; i < t.size(); ++i) {
      if (t[i].text == "->")
        return lp.error_at(i, "captures ('->') belong to expect and upper steps");
      auto a = parse_assignment(lp, i, false);
      if (auto* e = std::get_if<ParseError>(&a)) return *e;
      auto& as = std::get<Assignment>(a);
      if (std::find(kRocev2Fields.begin(), kRocev2Fields.end(), as.field) == kRocev2Fields.end()) {
        return ParseError{lp.at(as.column), "unknown rocev2 field '" + as.field +
                                                "' (known: " + join(kRocev2Fields) + ")"};
      }
      if (as.value.kind == Value::Kind::Names && as.field == "opcode") {
        if (as.value.names.size() != 1 || !rocev2_opcode(as.value.names[0])) {
          return ParseError{as.value.where, "unknown opcode '" + as.value.to_string() +
                                                "' (known: RDMA_WRITE_FIRST, RDMA_WRITE_MIDDLE, "
                                                "RDMA_WRITE_LAST, RDMA_WRITE_ONLY, or a number)"};
        }
      } else if (as.value.kind == Value::Kind::Names || as.value.kind == Value::Kind::Text) {
        return ParseError{as.value.where,
                          "rocev2 field '" + as.field + "' takes a number or $variable"};
      }
      if (as.value.kind == Value::Kind::Variable) {
        const auto* b = find_builtin(as.value.text);
        if (b != nullptr && b->kind != BuiltinVariable::Kind::Number) {
          return ParseError{as.value.where, "rocev2 field '" + as.field + "' cannot take $" +
                                                std::string(b->name) + " (not a number)"};
        }
      }
      p.matchers.push_back({as.field, as.op, as.value, lp.at(as.column)});
    }
    const auto find = [&p](std::string_view field) {
      return std::find_if(p.matchers.begin(), p.matchers.end(),
                          [&](const Matcher& m) { return m.field == field; });
    };
    for (const auto* required : {"qp", "length"}) {
      if (find(required) == p.matchers.end()) {
        return lp.error_at(t.size(), std::string("expected ") + required + "=... in send rocev2");
      }
    }
    // A RETH (First, Only) carries the DMA Length of the whole RDMA WRITE; Middle and Last
    // carry none. The opcode named here decides it now; a number is checked when it is sent.
    const auto opcode = find("opcode");
    const bool named = opcode != p.matchers.end() && opcode->value.kind == Value::Kind::Names;
    const std::string name = named ? opcode->value.names.front() : "RDMA_WRITE_ONLY";
    const auto dma = find("dma_length");
    if (named && name == "RDMA_WRITE_FIRST" && dma == p.matchers.end()) {
      return lp.error_at(t.size(),
                         "expected dma_length=... (the length of the whole RDMA WRITE, "
                         "for its RETH) in send rocev2 opcode=RDMA_WRITE_FIRST");
    }
    if (named && (name == "RDMA_WRITE_MIDDLE" || name == "RDMA_WRITE_LAST") &&
        dma != p.matchers.end()) {
      return ParseError{dma->where,
                        "dma_length belongs to RDMA_WRITE_FIRST and RDMA_WRITE_ONLY "
                        "(their RETH); " +
                            name + " has none"};
    }
    return std::nullopt;
  }

  // seen [within D | by D] TYPE|data matchers [-> captures]: an expect over every packet since
  // the scenario began.
  std::optional<ParseError> step_seen(const LineParser& lp, Step& step) {
    const auto& t = lp.tokens();
    if (t.size() > 2 && t[1].text == "one" && t[2].text == "of") {
      return lp.error_at(1, "'seen' takes one pattern, not 'one of'");
    }
    for (std::size_t i = 1; i < t.size(); ++i) {
      if (!t[i].quoted && t[i].text == "after") {
        return lp.error_at(i, "'seen' takes no 'after' (the packet may have come at any time)");
      }
    }
    step.seen = true;
    return step_expect(lp, step);
  }

  // expect [one of] [after D] [within D | by D] ...
  std::optional<ParseError> step_expect(const LineParser& lp, Step& step) {
    step.kind = Step::Kind::Expect;
    step.within = kDefaultWindow;
    const auto& t = lp.tokens();
    std::size_t i = 1;
    const bool one_of = t.size() > 2 && t[1].text == "one" && t[2].text == "of";
    std::size_t pattern_at = 0;
    if (one_of) {
      i = 3;
    } else {
      if (t.size() < 2)
        return lp.error_at(1, "expected a message type, 'data' or 'one of' after 'expect'");
      pattern_at = 1;
      i = 2;
    }
    const auto window_word = [&](std::size_t k) {
      return t[k].text == "within" || t[k].text == "by" || t[k].text == "after";
    };
    bool has_within = false;
    while (i + 1 < t.size() && window_word(i)) {
      auto d = parse_duration(t[i + 1].text);
      if (!d) return lp.error_at(i + 1, "expected a duration after '" + t[i].text + "'");
      if (t[i].text == "after") {
        step.after = *d;
      } else {
        // `within D`: the tester's patience; `by D`: a time the spec states.
        if (has_within) return lp.error_at(i, "one window only: 'within' or 'by', not both");
        has_within = true;
        step.within = *d;
        step.bound = t[i].text == "by";
      }
      i += 2;
    }
    if (i < t.size() && window_word(i)) {
      return lp.error_at(i + 1, "expected a duration after '" + t[i].text + "'");
    }
    // `after D by D` is a time the spec states exactly ("starting at 1 ms and doubling"): in
    // virtual time the packet must come at D, on real sockets within the tolerance around it.
    if (step.bound ? step.after > step.within : step.after >= step.within) {
      return lp.error_at(1, "'after' must be shorter than 'within' (or at most 'by')");
    }
    if (one_of) {
      if (i < t.size()) {
        return lp.error_at(i,
                           "expected the end of the line after 'expect one of' (alternatives "
                           "follow on lines starting with '|')");
      }
      return std::nullopt;  // alternatives follow
    }
    Pattern p;
    if (auto e = pattern(lp, pattern_at, i, p)) return e;
    step.alternatives.push_back(std::move(p));
    return std::nullopt;
  }

  // TYPE|data at `type_at`, matchers from `from`.
  std::optional<ParseError> pattern(const LineParser& lp, std::size_t type_at, std::size_t from,
                                    Pattern& p) {
    const auto& t = lp.tokens();
    p.where = lp.at_token(type_at);
    if (type_at < t.size() && t[type_at].text == "data") {
      p.data = true;
      return data_assignments(lp, from, p, true);
    }
    if (auto e = message_type(lp, type_at, p.type)) return e;
    return assignments(lp, from, p, p.type, true);
  }

  std::optional<ParseError> alternative(const LineParser& lp) {
    Step& step = scenario_.steps.back();
    const auto& t = lp.tokens();
    Pattern p;
    if (t.size() == 2 && t[1].text == "silence") {
      p.silence = true;
      p.where = lp.at_token(1);
    } else if (t.size() >= 2 && t[1].text == "unsupported") {
      if (t.size() < 3) return lp.error_at(2, "expected the pattern the IUT declines with");
      p.declines = true;
      if (auto e = pattern(lp, 2, 3, p)) return e;
      if (!p.captures.empty())
        return lp.error_at(2, "an 'unsupported' alternative captures nothing");
    } else if (t.size() >= 2 && t[1].text == "later") {
      if (t.size() < 3)
        return lp.error_at(2, "expected the pattern of the answer to a later message");
      p.later = true;
      if (auto e = pattern(lp, 2, 3, p)) return e;
      if (!p.captures.empty()) return lp.error_at(2, "a 'later' alternative captures nothing");
    } else if (auto e = pattern(lp, 1, 2, p)) {
      return e;
    }
    step.alternatives.push_back(std::move(p));
    return std::nullopt;
  }

  std::optional<ParseError> finish_alternatives() {
    if (!open_alternatives_) return std::nullopt;
    open_alternatives_ = false;
    const Step& step = scenario_.steps.back();
    if (step.alternatives.size() < 2) {
      return ParseError{step.where,
                        "expected two or more '| ...' alternatives on the lines "
                        "after 'expect one of'"};
    }
    const auto count = [&](auto pred) {
      return std::count_if(step.alternatives.begin(), step.alternatives.end(), pred);
    };
    const auto later = count([](const Pattern& p) { return p.later; });
    if (later > 0 && count([](const Pattern& p) { return p.silence; }) > 0) {
      return ParseError{step.where,
                        "'| later' proves that an answer is missing, '| silence' accepts that it "
                        "is: not both in one expect"};
    }
    if (later > 0 && count([](const Pattern& p) { return !p.later; }) == 0) {
      return ParseError{step.where, "'| later' needs an alternative the step waits for"};
    }
    return std::nullopt;
  }

  std::optional<ParseError> step_ignore(const LineParser& lp, Step& step) {
    step.kind = Step::Kind::Ignore;
    const auto& t = lp.tokens();
    if (t.size() < 2) return lp.error_at(1, "expected message types, 'data' or 'none'");
    for (std::size_t i = 1; i < t.size(); ++i) {
      const auto& name = t[i].text;
      if (name == "none" && t.size() == 2) break;
      if (name.front() == '#') break;
      // A field matcher narrows the type before it: ignore ASSOC_REQUEST sender_nonce=$nonce.
      if (name.find_first_of("=<>&") != std::string::npos && !step.ignore_patterns.empty()) {
        auto a = parse_assignment(lp, i, true);
        if (auto* e = std::get_if<ParseError>(&a)) return *e;
        auto& as = std::get<Assignment>(a);
        Pattern& p = step.ignore_patterns.back();
        if (as.field == kFromField || as.field == kToField) {
          if (auto e = address_field(lp, as, true)) return e;
        } else if (p.data) {
          if (std::find(kDataFields.begin(), kDataFields.end(), as.field) == kDataFields.end()) {
            return ParseError{lp.at(as.column), "unknown data field '" + as.field +
                                                    "' (known: " + join(kDataFields) + ")"};
          }
        } else {
          auto info = message_field(p.type, as.field);
          if (!info) {
            return ParseError{lp.at(as.column), "unknown field '" + as.field + "' of " +
                                                    std::string(info_name(p.type)) + " (known: " +
                                                    join(message_fields(p.type)) + ")"};
          }
          if (auto e = check_value(as, *info)) return e;
        }
        p.matchers.push_back({as.field, as.op, as.value, lp.at(as.column)});
        continue;
      }
      const auto type = message_type_from_name(name);
      if (name != "data" && !type) {
        return lp.error_at(i, "expected a message type (" + type_list() +
                                  "), 'data', 'none' or "
                                  "a field matcher after a type, found '" +
                                  name + "'");
      }
      step.ignore.push_back(name);
      Pattern p;
      p.data = name == "data";
      if (type) p.type = *type;
      p.where = lp.at_token(i);
      step.ignore_patterns.push_back(std::move(p));
    }
    return std::nullopt;
  }

  // require VAR OP VALUE ... "reason": the scenario goes on only if every condition on the
  // variables (captures) holds; otherwise the IUT made a choice the spec allows under which
  // the scenario cannot test its requirements, and the verdict is unsupported with the reason.
  static std::optional<ParseError> step_require(const LineParser& lp, Step& step) {
    step.kind = Step::Kind::Require;
    step.pattern.where = lp.at_token(0);
    const auto& t = lp.tokens();
    if (t.size() < 3 || !t.back().quoted) {
      return lp.error_at(t.size() - 1,
                         "expected require VAR OP VALUE ... \"reason\" (the reason "
                         "quoted, last)");
    }
    for (std::size_t i = 1; i + 1 < t.size(); ++i) {
      auto a = parse_assignment(lp, i, true);
      if (auto* e = std::get_if<ParseError>(&a)) return *e;
      auto& as = std::get<Assignment>(a);
      if (as.value.kind == Value::Kind::Names || as.value.kind == Value::Kind::Text) {
        return ParseError{as.value.where, "require compares with a number or $variable"};
      }
      if (find_builtin(as.field) != nullptr &&
          find_builtin(as.field)->kind != BuiltinVariable::Kind::Number) {
        return ParseError{lp.at(as.column),
                          "require compares numbers; $" + as.field + " is an address"};
      }
      step.pattern.matchers.push_back({as.field, as.op, as.value, lp.at(as.column)});
    }
    step.reason = t.back().text;
    if (step.reason.empty()) return lp.error_at(t.size() - 1, "expected a reason in the quotes");
    return std::nullopt;
  }

  // transfer [within D] message_id=ID message=BV length=N [offset=O] [segment=S] [ce=1]: the
  // tester sends the opaque data of message ID (Binding Value BV) for every octet the IUT grants
  // it, from offset O (the end of what it has sent of the message), in segments of at most S
  // octets (4096), until it has sent up to N; what arrives meanwhile is kept for the next steps.
  // gap_us=G: G microseconds between one segment and the next. report=1: before each segment,
  // the latest CONGESTION_REPORT the scenario sent, again. `-> s=stalled_us`: the longest wait
  // for credit (kStalledField).
  std::optional<ParseError> step_transfer(const LineParser& lp, Step& step) {
    step.kind = Step::Kind::Transfer;
    step.within = kDefaultWindow;
    step.pattern.where = lp.at_token(0);
    const auto& t = lp.tokens();
    std::size_t i = 1;
    if (i + 1 < t.size() && t[i].text == "within") {
      auto d = parse_duration(t[i + 1].text);
      if (!d) return lp.error_at(i + 1, "expected a duration after 'within'");
      step.within = *d;
      i += 2;
    }
    std::set<std::string> seen;
    for (; i < t.size(); ++i) {
      if (t[i].text == "->") {
        if (auto e = captures(lp, i + 1, step.pattern, {std::string(kStalledField)})) return e;
        for (const auto& c : step.pattern.captures) {
          if (c.field != kStalledField) {
            return lp.error_at(i + 1, "a transfer captures only " + std::string(kStalledField) +
                                          ", not '" + c.field + "'");
          }
        }
        break;
      }
      auto a = parse_assignment(lp, i, false);
      if (auto* e = std::get_if<ParseError>(&a)) return *e;
      auto& as = std::get<Assignment>(a);
      if (as.field != "message_id" && as.field != "message" && as.field != "length" &&
          as.field != "offset" && as.field != "segment" && as.field != "ce" &&
          as.field != "overrun" && as.field != "gap_us" && as.field != "report" &&
          as.field != "with") {
        return lp.error_at(i,
                           "transfer takes message_id=, message=, length=, offset=, segment=, "
                           "ce=, gap_us=, report=, overrun= and with=, not '" +
                               as.field + "'");
      }
      if (as.value.kind == Value::Kind::Names || as.value.kind == Value::Kind::Text) {
        return lp.error_at(i, "'" + as.field + "' takes a number or a $variable");
      }
      // with= may be given for each message played beside the step's.
      if (!seen.insert(as.field).second && as.field != "with") {
        return lp.error_at(i, "'" + as.field + "' given twice");
      }
      step.pattern.matchers.push_back({as.field, as.op, as.value, lp.at(as.column)});
    }
    for (const char* need : {"message_id", "message", "length"}) {
      if (seen.count(need) == 0) return lp.error_at(0, std::string("transfer needs ") + need + "=");
    }
    if (seen.count("with") != 0 && seen.count("overrun") != 0) {
      return lp.error_at(0, "a transfer with= plays two conforming senders' messages: no overrun=");
    }
    return std::nullopt;
  }

  // watch pacing_sum<=N: from now on, the Pacing Rates in force must sum to at most N;
  // watch unscheduled_sum<=N: the non-zero U in force.
  static std::optional<ParseError> step_watch(const LineParser& lp, Step& step) {
    step.kind = Step::Kind::Watch;
    const auto& t = lp.tokens();
    if (t.size() >= 2 && t[1].text == kWeightShare) return step_weight_share(lp, step);
    if (t.size() != 2) {
      return lp.error_at(
          1, "expected one watch: pacing_sum<=N (Mbit/s) or unscheduled_sum<=N (octets)");
    }
    auto a = parse_assignment(lp, 1, true);
    if (auto* e = std::get_if<ParseError>(&a)) return *e;
    auto& as = std::get<Assignment>(a);
    if ((as.field != kPacingSum && as.field != kUnscheduledSum) ||
        (as.op != Op::Le && as.op != Op::Lt) || as.value.kind == Value::Kind::Names ||
        as.value.kind == Value::Kind::Text) {
      return lp.error_at(1,
                         "expected pacing_sum<=N or pacing_sum<N (N in Mbit/s), or "
                         "unscheduled_sum<=N or unscheduled_sum<N (N in octets); N a number or "
                         "$variable; found '" +
                             t[1].text + "'");
    }
    step.pattern.where = lp.at_token(1);  // located like every other step's pattern
    step.pattern.matchers.push_back({as.field, as.op, as.value, lp.at(as.column)});
    return std::nullopt;
  }

  // watch weight_share heavier=H lighter=L: two message IDs, each a number or a $variable.
  static std::optional<ParseError> step_weight_share(const LineParser& lp, Step& step) {
    const auto& t = lp.tokens();
    const char* usage = "expected watch weight_share heavier=ID lighter=ID";
    if (t.size() != 4) return lp.error_at(std::min<std::size_t>(t.size() - 1, 4), usage);
    std::set<std::string> seen;
    for (std::size_t i = 2; i < t.size(); ++i) {
      auto a = parse_assignment(lp, i, false);
      if (auto* e = std::get_if<ParseError>(&a)) return *e;
      auto& as = std::get<Assignment>(a);
      if ((as.field != "heavier" && as.field != "lighter") || as.op != Op::Eq ||
          as.value.kind == Value::Kind::Names || as.value.kind == Value::Kind::Text) {
        return lp.error_at(i, std::string(usage) +
                                  " (message IDs: numbers or $variables); found '" + t[i].text +
                                  "'");
      }
      if (!seen.insert(as.field).second) return lp.error_at(i, "'" + as.field + "' given twice");
      step.pattern.matchers.push_back({as.field, as.op, as.value, lp.at(as.column)});
    }
    step.pattern.where = lp.at_token(1);
    // The runner reads the kind of watch from the first matcher's field.
    Value kind;
    kind.where = lp.at_token(1);
    step.pattern.matchers.insert(step.pattern.matchers.begin(),
                                 {std::string(kWeightShare), Op::Eq, kind, lp.at_token(1)});
    return std::nullopt;
  }

  std::optional<ParseError> check_defaults(const LineParser& lp, const Pattern& p) {
    for (const auto& m : p.matchers) {
      if (m.field != "association_id" && m.field != "epoch") {
        return ParseError{m.where,
                          "defaults sets association_id and epoch only, not '" + m.field + "'"};
      }
    }
    if (p.matchers.empty()) return lp.error_at(1, "expected association_id=... and/or epoch=...");
    return std::nullopt;
  }

  std::optional<ParseError> step_upper(const LineParser& lp, Step& step) {
    step.kind = Step::Kind::Upper;
    const auto& t = lp.tokens();
    std::vector<std::string> ops;
    for (const auto& op : udp::upper_tester_ops()) {
      if (op.upper_step) ops.emplace_back(op.name);
    }
    if (t.size() < 2)
      return lp.error_at(1, "expected an upper-tester operation (" + join(ops) + ")");
    const udp::UpperOp* op = udp::find_upper_op(t[1].text);
    if (op == nullptr || !op->upper_step) {
      return lp.error_at(
          1, "expected an upper-tester operation (" + join(ops) + "), found '" + t[1].text + "'");
    }
    const std::string name(op->name);
    if ((op->roles & udp::upper_role_of(to_string(scenario_.role))) == 0) {
      const auto needs = (op->roles & udp::upper_role::kReceiver) != 0 ? "receiver" : "sender";
      return lp.error_at(1, "upper " + name + " needs a " + needs + " IUT (role " + needs + ")");
    }
    step.upper_op = name;
    step.pattern.where = lp.at_token(1);
    const std::vector<std::string> results(op->reply.begin(), op->reply.end());
    const auto keys = upper_step_keys(*op);
    for (std::size_t i = 2; i < t.size(); ++i) {
      if (t[i].text == "->") return captures(lp, i + 1, step.pattern, results);
      auto a = parse_assignment(lp, i, false);
      if (auto* e = std::get_if<ParseError>(&a)) return *e;
      auto& as = std::get<Assignment>(a);
      if (std::find(keys.begin(), keys.end(), as.field) == keys.end()) {
        return ParseError{lp.at(as.column), "unknown key '" + as.field + "' for upper " + name +
                                                " (known: " + (keys.empty() ? "none" : join(keys)) +
                                                ")"};
      }
      if (udp::find_upper_arg(*op, as.field)->kind == udp::UpperArgKind::Mode &&
          (as.value.kind != Value::Kind::Names || as.value.names.size() != 1 ||
           (as.value.names[0] != "scheduled" && as.value.names[0] != "unscheduled"))) {
        return ParseError{as.value.where, "expected mode=scheduled or mode=unscheduled"};
      }
      step.pattern.matchers.push_back({as.field, as.op, as.value, lp.at(as.column)});
    }
    return std::nullopt;
  }

  // set name=value ...: numbers or $variables (a value for a variable that a later alternative
  // may capture, e.g. an Association ID no association has).
  static std::optional<ParseError> step_set(const LineParser& lp, Step& step) {
    step.kind = Step::Kind::Set;
    const auto& t = lp.tokens();
    if (t.size() < 2) return lp.error_at(1, "expected name=value");
    step.pattern.where = lp.at_token(1);
    for (std::size_t i = 1; i < t.size(); ++i) {
      auto a = parse_assignment(lp, i, false);
      if (auto* e = std::get_if<ParseError>(&a)) return *e;
      auto& as = std::get<Assignment>(a);
      if (find_builtin(as.field) != nullptr) {
        return lp.error_at(i, "$" + as.field + " is a built-in variable; set another name");
      }
      if (as.value.kind != Value::Kind::Number && as.value.kind != Value::Kind::Variable) {
        return ParseError{as.value.where, "expected a number or $variable for '" + as.field + "'"};
      }
      step.pattern.matchers.push_back({as.field, as.op, as.value, lp.at(as.column)});
    }
    return std::nullopt;
  }

  std::optional<ParseError> step_queue(const LineParser& lp, Step& step) {
    step.kind = Step::Kind::Queue;
    if (scenario_.role != Role::Crn) return lp.error_at(0, "'queue' needs a CRN IUT (role crn)");
    const auto& t = lp.tokens();
    step.pattern.where = lp.at_token(0);
    for (std::size_t i = 1; i < t.size(); ++i) {
      auto a = parse_assignment(lp, i, false);
      if (auto* e = std::get_if<ParseError>(&a)) return *e;
      auto& as = std::get<Assignment>(a);
      const auto keys = queue_keys();
      if (std::find(keys.begin(), keys.end(), as.field) == keys.end()) {
        return ParseError{lp.at(as.column),
                          "unknown queue key '" + as.field + "' (known: " + join(keys) + ")"};
      }
      step.pattern.matchers.push_back({as.field, as.op, as.value, lp.at(as.column)});
    }
    for (const auto* required : {"occupancy", "source", "destination"}) {
      const bool has = std::any_of(step.pattern.matchers.begin(), step.pattern.matchers.end(),
                                   [&](const Matcher& m) { return m.field == required; });
      if (!has) return lp.error_at(t.size(), std::string("expected ") + required + "=... in queue");
    }
    return std::nullopt;
  }

  std::string file_;
  const KnownId& known_;
  Scenario scenario_;
  bool have_role_ = false;
  bool open_alternatives_ = false;
};

}  // namespace

std::string Location::to_string() const {
  return file + ":" + std::to_string(line) + ":" + std::to_string(column);
}

std::string ParseError::describe() const {
  return where.to_string() + ": " + what;
}

std::string Value::to_string() const {
  switch (kind) {
    case Kind::Number: return std::to_string(number);
    case Kind::Names: return join(names, "|");
    case Kind::Text: return text;
    case Kind::Variable: {
      std::string s = "$" + text;
      if (multiply != 1) s += "*" + std::to_string(multiply);
      if (divide != 1) s += "/" + std::to_string(divide);
      if (offset > 0) s += "+" + std::to_string(offset);
      if (offset < 0) s += std::to_string(offset);
      return s;
    }
  }
  return {};
}

const char* to_string(Op op) {
  switch (op) {
    case Op::Eq: return "=";
    case Op::Ne: return "!=";
    case Op::Lt: return "<";
    case Op::Le: return "<=";
    case Op::Gt: return ">";
    case Op::Ge: return ">=";
    case Op::AllBits: return "&";
    case Op::NoBits: return "!&";
  }
  return "?";
}

std::string Pattern::to_string() const {
  if (silence) return "silence";
  std::string s = later ? "later " : "";
  s += data ? "data" : std::string(info(type).name);
  for (const auto& m : matchers)
    s += " " + m.field + conformance::to_string(m.op) + m.value.to_string();
  return s;
}

std::vector<std::string> message_fields(MessageType type) {
  std::vector<std::string> out;
  for (auto& [name, info] : all_fields(type)) out.push_back(name);
  return out;
}

std::optional<FieldInfo> message_field(MessageType type, std::string_view name) {
  for (auto& [n, info] : all_fields(type)) {
    if (n == name) return info;
  }
  return std::nullopt;
}

const std::vector<std::string>& data_fields() {
  return kDataFields;
}

const std::vector<std::string>& rocev2_fields() {
  return kRocev2Fields;
}

std::optional<std::uint8_t> rocev2_opcode(std::string_view name) {
  for (const auto& [n, code] : kRocev2Opcodes) {
    if (n == name) return code;
  }
  return std::nullopt;
}

const std::vector<BuiltinVariable>& builtin_variables() {
  using K = BuiltinVariable::Kind;
  static const std::vector<BuiltinVariable> kBuiltins{
      {"tester", K::Address, "the tester's RDCC address (the IUT's peer)"},
      {"tester_ip", K::Ip, "the tester's IP address"},
      {"tester_port", K::Number, "the tester's RDCC port"},
      {"tester_data", K::Address, "the tester's data address"},
      {"tester_data_port", K::Number, "the tester's data port"},
      {"iut", K::Address, "the IUT's RDCC address"},
      {"iut_ip", K::Ip, "the IUT's IP address"},
      {"iut_port", K::Number, "the IUT's RDCC port"},
      {"iut_data", K::Address, "the IUT's data address"},
      {"iut_data_port", K::Number, "the IUT's data port"},
      {"iut_rocev2", K::Address, "the IUT's RoCEv2 address (UDP port 4791 on a real network)"},
      {"iut_rocev2_port", K::Number, "the IUT's RoCEv2 port"},
      {"crn", K::Address, "the CRN address the IUT is configured with (the tester's RDCC address)"},
      {"crn_ip", K::Ip, "the IP of that CRN"},
      {"other", K::Address, "a host that is neither the association's peer nor a configured CRN"},
      {"other_ip", K::Ip, "the IP of that host"},
      {"unscheduled_dscp", K::Number, "the DSCP the domain configures for unscheduled data"},
      {"class_dscp_0", K::Number, "the DSCP the domain configures for Traffic Class 0"},
      {"class_dscp_1", K::Number, "the DSCP the domain configures for Traffic Class 1"},
      {"class_dscp_2", K::Number, "the DSCP the domain configures for Traffic Class 2"},
      {"class_dscp_3", K::Number, "the DSCP the domain configures for Traffic Class 3"},
      {"class_dscp_4", K::Number, "the DSCP the domain configures for Traffic Class 4"},
      {"class_dscp_5", K::Number, "the DSCP the domain configures for Traffic Class 5"},
      {"class_dscp_6", K::Number, "the DSCP the domain configures for Traffic Class 6"},
      {"class_dscp_7", K::Number, "the DSCP the domain configures for Traffic Class 7"},
  };
  return kBuiltins;
}

const BuiltinVariable* find_builtin(std::string_view name) {
  for (const auto& b : builtin_variables()) {
    if (b.name == name) return &b;
  }
  return nullptr;
}

std::vector<std::string> config_keys(Role role) {
  std::vector<std::string> out{std::string(kSeedKey)};
  if (const auto* settings = ref::config_settings(to_string(role))) {
    for (const auto& s : *settings) out.emplace_back(s.field.key);
  }
  return out;
}

std::variant<Scenario, ParseError> parse_scenario(const std::string& text, const std::string& file,
                                                  const KnownId& known_id) {
  ScenarioParser p(file, known_id);
  auto result = p.run(text);
  if (auto* e = std::get_if<ParseError>(&result)) e->what = readable(e->what);
  return result;
}

std::variant<Scenario, ParseError> load_scenario(const std::string& path, const KnownId& known_id) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return ParseError{{path, 0, 0}, "cannot read the file"};
  std::string text;
  if (!read_at_most(in, kMaxFile, text)) {
    return ParseError{{path, 0, 0}, too_long(kMaxFile, "the file").describe()};
  }
  return parse_scenario(text, path, known_id);
}

}  // namespace rdcc::conformance
