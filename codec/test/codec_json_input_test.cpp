// JSON from outside: the depth and length bounds, errors with their position and a short
// excerpt, the bounded stream read, and the line splitter.
#include <sstream>
#include <string>
#include <vector>

#include "rdcc/codec/json_input.hpp"
#include "test_util.hpp"

namespace rdcc {
namespace {

using json = nlohmann::json;
using ordered = nlohmann::ordered_json;

std::string nested(std::size_t depth) {
  return std::string(depth, '[') + std::string(depth, ']');
}

TEST(JsonInput, NestingAtTheBound_Parses) {
  const auto j = parse_json<json>(nested(kJsonMaxDepth));
  ASSERT_TRUE(j.has_value()) << j.error().describe();
  EXPECT_TRUE(j->is_array());
}

TEST(JsonInput, NestingBeyondTheBound_IsRefusedAtTheBracket) {
  const auto j = parse_json<ordered>("{\"a\":\n " + nested(kJsonMaxDepth) + "}");
  ASSERT_FALSE(j.has_value());
  EXPECT_EQ(j.error().line, 2U);
  EXPECT_EQ(j.error().column, kJsonMaxDepth + 1);  // the 64th '[' is level 65 with the object
  EXPECT_EQ(j.error().describe(), "line 2, column 65: nesting deeper than 64 levels");
}

TEST(JsonInput, NestingAMillionDeep_IsRefusedWithoutACrash) {
  for (const std::string& text :
       {nested(1000000), std::string(1000000, '['), std::string(500000, '{') + "}"}) {
    const auto j = parse_json<json>(text);
    ASSERT_FALSE(j.has_value());
    EXPECT_EQ(j.error().what, "nesting deeper than 64 levels");
  }
}

TEST(JsonInput, BracketsInStrings_DoNotCount) {
  const std::string brackets(1000, '[');
  const auto j = parse_json<json>(R"({"a":"\")" + brackets + R"(\\","b":[1]})");
  ASSERT_TRUE(j.has_value()) << j.error().describe();
  EXPECT_EQ((*j)["a"].get<std::string>().size(), brackets.size() + 2);
}

TEST(JsonInput, TextLongerThanTheLimit_IsRefused) {
  const auto j = parse_json<json>("[1,2,3]", JsonLimits{6, kJsonMaxDepth});
  ASSERT_FALSE(j.has_value());
  EXPECT_EQ(j.error().describe(), "the input is longer than the limit of 6 octets");
  EXPECT_TRUE(parse_json<json>("[1,2,3]", JsonLimits{7, kJsonMaxDepth}).has_value());
}

TEST(JsonInput, SyntaxError_NamesLineAndColumnAndCutsTheToken) {
  const std::string token(200000, 'x');
  const auto j = parse_json<json>("{\"a\": 1,\n \"b\": \"" + token);
  ASSERT_FALSE(j.has_value());
  EXPECT_EQ(j.error().line, 2U);
  EXPECT_LT(j.error().describe().size(), 300U) << j.error().describe();
  EXPECT_NE(j.error().what.find("octets)"), std::string::npos) << j.error().what;
}

TEST(JsonInput, SyntaxErrorOnBinary_IsPrintableAscii) {
  const auto j = parse_json<json>(std::string("[\"\xff\xfe\x01", 5));
  ASSERT_FALSE(j.has_value());
  for (const char c : j.error().describe()) {
    EXPECT_TRUE(c >= 0x20 && c < 0x7F) << j.error().describe();
  }
}

TEST(JsonInput, ReadJson_StopsAfterTheLimit) {
  std::istringstream big(std::string(1000, ' ') + "1");
  const auto j = read_json<json>(big, JsonLimits{100, kJsonMaxDepth});
  ASSERT_FALSE(j.has_value());
  EXPECT_EQ(j.error().line, 0U);
  std::istringstream small(" {\"a\": [1]} ");
  const auto k = read_json<ordered>(small);
  ASSERT_TRUE(k.has_value());
  EXPECT_EQ((*k)["a"][0], 1);
}

TEST(JsonInput, ReadAtMost_ReadsToTheEndOrRefuses) {
  std::string out;
  std::istringstream exact("abcd");
  EXPECT_TRUE(read_at_most(exact, 4, out));
  EXPECT_EQ(out, "abcd");
  std::istringstream more("abcde");
  EXPECT_FALSE(read_at_most(more, 4, out));
  EXPECT_TRUE(out.empty());
}

TEST(JsonInput, Excerpt_CutsAndEscapes) {
  EXPECT_EQ(excerpt("short"), "short");
  EXPECT_EQ(excerpt(std::string(100, 'a'), 10), "aaaaaaaaaa ... (100 octets)");
  EXPECT_EQ(excerpt(std::string("a\nb\xff", 4)), "a\\x0ab\\xff");
  EXPECT_EQ(excerpt(json::parse(R"({"k":"v"})")), R"({"k":"v"})");
  EXPECT_EQ(excerpt(ordered(std::string(500, 'z')), 5), "\"zzzz ... (502 octets)");
  // A string that is not UTF-8 (built from raw input, not parsed) dumps without throwing.
  EXPECT_EQ(excerpt(json(std::string("\xff", 1))), "\"\\xef\\xbf\\xbd\"");
}

std::vector<LineSplitter::Line> split(LineSplitter& s, const std::vector<std::string>& chunks,
                                      bool finish) {
  std::vector<LineSplitter::Line> out;
  for (const auto& c : chunks) s.feed(c, [&](LineSplitter::Line&& l) { out.push_back(l); });
  if (finish) s.finish([&](LineSplitter::Line&& l) { out.push_back(l); });
  return out;
}

TEST(LineSplitter, LinesAcrossChunks_ComeWhole) {
  LineSplitter s(16);
  const auto lines = split(s, {"ab", "c\r\nde", "f\n\ngh"}, true);
  ASSERT_EQ(lines.size(), 4U);
  EXPECT_EQ(lines[0].text, "abc");
  EXPECT_EQ(lines[1].text, "def");
  EXPECT_EQ(lines[2].text, "");
  EXPECT_EQ(lines[3].text, "gh");
  for (const auto& l : lines) EXPECT_EQ(l.too_long, 0U);
}

TEST(LineSplitter, LongLine_IsDroppedAsItComesAndReportedAtItsEnd) {
  LineSplitter s(8);
  std::vector<LineSplitter::Line> out;
  const auto emit = [&](LineSplitter::Line&& l) { out.push_back(l); };
  s.feed("0123456", emit);
  EXPECT_EQ(s.held(), 7U);
  for (int i = 0; i < 1000; ++i) s.feed(std::string(1000, 'x'), emit);
  EXPECT_EQ(s.held(), 0U);  // nothing of the long line kept
  EXPECT_TRUE(out.empty());
  s.feed("y\nok\n", emit);
  ASSERT_EQ(out.size(), 2U);
  EXPECT_EQ(out[0].too_long, 7U + 1000000U + 1U);
  EXPECT_EQ(out[0].text, "");
  EXPECT_EQ(out[1].text, "ok");
  EXPECT_EQ(line_too_long(out[0].too_long, 8),
            "the line is 1000008 octets, longer than the limit of 8");
}

TEST(LineSplitter, LineOfExactlyTheLimit_IsKept) {
  LineSplitter s(4);
  const auto lines = split(s, {"abcd\nabcde\n"}, false);
  ASSERT_EQ(lines.size(), 2U);
  EXPECT_EQ(lines[0].text, "abcd");
  EXPECT_EQ(lines[1].too_long, 5U);
}

TEST(LineSplitter, UnterminatedLastLine_ComesAtTheEnd) {
  LineSplitter s(4);
  EXPECT_TRUE(split(s, {}, true).empty());
  const auto lines = split(s, {"ab\ncdefgh"}, true);
  ASSERT_EQ(lines.size(), 2U);
  EXPECT_EQ(lines[0].text, "ab");
  EXPECT_EQ(lines[1].too_long, 6U);
}

}  // namespace
}  // namespace rdcc
