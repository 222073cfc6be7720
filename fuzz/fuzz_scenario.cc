// The conformance scenario parser (docs/scenario-language.md) on any text: it never crashes,
// gives the same answer twice, and everything it locates names a line and column inside the
// text: a parse error (at a line's characters, just after its end, or at the line after the
// last one, column 1, for what the file lacks), and in a scenario that parses every step,
// pattern, matcher and value, each step's text taken from its own line. The parser has no
// printer of whole scenarios, so there is no round trip to check; a pattern's to_string()
// renders. Requirement IDs are taken in their RDCC-<AREA>-<NN> form without the catalog, so
// the harness reads nothing but its input.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "rdcc/conformance/scenario.hpp"
#include "rdcc/testing/fuzz.hpp"

namespace {

using rdcc::conformance::Location;
using rdcc::conformance::ParseError;
using rdcc::conformance::Pattern;
using rdcc::conformance::Scenario;

constexpr std::string_view kFile = "fuzz.scn";

// The lines as the parser reads them (std::getline: a final '\n' ends the last line).
std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) {
      lines.push_back(text.substr(start));
      break;
    }
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

void check_inside(const Location& where, const std::vector<std::string_view>& lines) {
  RDCC_FUZZ_CHECK(where.file == kFile);
  const auto line = static_cast<std::size_t>(where.line);
  RDCC_FUZZ_CHECK(where.line >= 1 && line <= lines.size() + 1);
  if (line == lines.size() + 1) {
    RDCC_FUZZ_CHECK(where.column == 1);  // the end of the text: what is missing
  } else {
    RDCC_FUZZ_CHECK(where.column >= 1 &&
                    static_cast<std::size_t>(where.column) <= lines[line - 1].size() + 1);
  }
}

void check_pattern(const Pattern& p, const std::vector<std::string_view>& lines) {
  check_inside(p.where, lines);
  for (const auto& m : p.matchers) {
    RDCC_FUZZ_CHECK(!m.field.empty());
    check_inside(m.value.where, lines);
    (void)m.value.to_string();
  }
  RDCC_FUZZ_CHECK(!p.to_string().empty());
}

void check_scenario(const Scenario& s, const std::vector<std::string_view>& lines) {
  RDCC_FUZZ_CHECK(!s.name.empty() && !s.checks.empty() && !s.steps.empty());
  for (const auto& step : s.steps) {
    check_inside(step.where, lines);
    // "the step's line as written": a non-empty part of the line it was read from.
    RDCC_FUZZ_CHECK(!step.text.empty() &&
                    static_cast<std::size_t>(step.where.line) <= lines.size() &&
                    lines[static_cast<std::size_t>(step.where.line) - 1].find(step.text) !=
                        std::string_view::npos);
    // What a send, defaults, upper or queue step sets is its pattern; an expect's patterns are
    // its alternatives (one per line for "expect one of"). Kinds this harness does not know
    // (the language grows) are checked where they locate a pattern.
    using Kind = rdcc::conformance::Step::Kind;
    const Kind k = step.kind;
    if (k == Kind::Send || k == Kind::SendRaw || k == Kind::SendData || k == Kind::Defaults ||
        k == Kind::Upper || k == Kind::Queue || step.pattern.where.line != 0) {
      check_pattern(step.pattern, lines);
    } else {
      RDCC_FUZZ_CHECK(step.pattern.matchers.empty());
    }
    for (const auto& alternative : step.alternatives) check_pattern(alternative, lines);
    for (const auto& field : step.raw_fields) {
      RDCC_FUZZ_CHECK(field.width >= 1 && field.width <= 8 &&
                      field.offset + field.width <= step.raw.size());
    }
  }
}

// The same answer: the same error, or scenarios with the same steps.
bool same(const std::variant<Scenario, ParseError>& a,
          const std::variant<Scenario, ParseError>& b) {
  if (a.index() != b.index()) return false;
  if (const auto* e = std::get_if<ParseError>(&a)) {
    return e->describe() == std::get<ParseError>(b).describe();
  }
  const auto& x = std::get<Scenario>(a);
  const auto& y = std::get<Scenario>(b);
  if (x.name != y.name || x.role != y.role || x.checks != y.checks || x.config != y.config ||
      x.steps.size() != y.steps.size()) {
    return false;
  }
  for (std::size_t i = 0; i < x.steps.size(); ++i) {
    if (x.steps[i].text != y.steps[i].text || x.steps[i].kind != y.steps[i].kind ||
        x.steps[i].pattern.to_string() != y.steps[i].pattern.to_string() ||
        x.steps[i].raw != y.steps[i].raw) {
      return false;
    }
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(data, data + size);
  const std::string file(kFile);
  const auto parsed = rdcc::conformance::parse_scenario(text, file, {});
  const auto lines = lines_of(text);
  if (const auto* e = std::get_if<ParseError>(&parsed)) {
    check_inside(e->where, lines);
    RDCC_FUZZ_CHECK(!e->what.empty());
    RDCC_FUZZ_CHECK(e->describe().find(e->what) != std::string::npos);
  } else {
    check_scenario(std::get<Scenario>(parsed), lines);
  }
  RDCC_FUZZ_CHECK(same(parsed, rdcc::conformance::parse_scenario(text, file, {})));
  return 0;
}
