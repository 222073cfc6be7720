// One identity per rule: the InvariantChecker's rules (rdcc/checker/rules.hpp) are catalog
// IDs whose role is the one the table binds, the catalog built into the programs is the file,
// and no sentence of the catalog is copied anywhere else in the code base.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "rdcc/checker/rules.hpp"
#include "rdcc/conformance/catalog.hpp"
#include "rdcc/conformance/variant_matrix.hpp"
#include "rdcc/reference/variants.hpp"

namespace rdcc::conformance {
namespace {

const Catalog& file_catalog() {
  static const Catalog c = Catalog::load(RDCC_CATALOG_PATH);
  return c;
}

Role role_of(checker::Binds b) {
  switch (b) {
    case checker::Binds::Sender: return Role::Sender;
    case checker::Binds::Receiver: return Role::Receiver;
    case checker::Binds::Originator: return Role::Any;
  }
  return Role::Operator;
}

TEST(InvariantRules, EachIsACatalogEntry_BindingTheCatalogsRole) {
  std::set<std::string_view> seen;
  for (const checker::InvariantRule& r : checker::kInvariantRules) {
    EXPECT_TRUE(seen.insert(r.id).second) << r.id << " twice in kInvariantRules";
    const Requirement* q = file_catalog().find(r.id);
    ASSERT_NE(q, nullptr) << r.id << " is not in the catalog";
    EXPECT_EQ(q->role, role_of(r.binds))
        << r.id << ": the catalog's role is " << to_string(q->role);
    EXPECT_NE(q->testing, Testing::Untestable) << r.id << ": the checker tests it";
    // A rule without a key word is cited as such (level RULE), never under another MUST.
    const bool prohibitive =
        q->level == Level::Must || q->level == Level::MustNot || q->level == Level::Rule;
    EXPECT_TRUE(prohibitive) << r.id << " is " << to_string(q->level);
  }
  EXPECT_EQ(checker::invariant_rule("RDCC-NOT-A-RULE"), nullptr);
  EXPECT_EQ(checker::invariant_rule(checker::rule::kBudget)->binds, checker::Binds::Receiver);
}

TEST(BuiltInCatalog, IsTheFile) {
  const Catalog& built_in = Catalog::built_in();
  ASSERT_EQ(built_in.size(), file_catalog().size());
  for (const Requirement& r : file_catalog().all()) {
    const Requirement* b = built_in.find(r.id);
    ASSERT_NE(b, nullptr) << r.id;
    EXPECT_EQ(b->text, r.text) << r.id;
    EXPECT_EQ(b->level, r.level) << r.id;
    EXPECT_EQ(b->role, r.role) << r.id;
  }
}

// Whitespace runs made one space.
std::string collapse(std::string_view text) {
  std::string out;
  bool space = false;
  for (const char c : text) {
    if (std::isspace(static_cast<unsigned char>(c)) != 0) {
      space = true;
      continue;
    }
    if (space && !out.empty()) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

// The comment marker of a line in a file of this extension.
std::string_view line_comment(const std::filesystem::path& p) {
  const std::string e = p.extension().string();
  if (e == ".lua") return "--";
  if (e == ".sh" || e == ".py" || e == ".cmake" || e == ".scn" ||
      p.filename() == "CMakeLists.txt") {
    return "#";
  }
  return "//";
}

// A source file's code and string literals as prose: comments removed (a comment that quotes
// the spec cites it, the house style for code that implements a rule; what a program prints
// or compares is what must come from the catalog), the joints of adjacent string literals
// across lines removed, whitespace runs made one space, so that a sentence split over lines is
// found.
std::string as_prose(const std::string& code, std::string_view comment, bool block_comments) {
  std::string joined;
  std::istringstream lines(code);
  std::string line;
  bool in_block = false;
  while (std::getline(lines, line)) {
    std::string kept;
    char quote = 0;
    for (std::size_t i = 0; i < line.size(); ++i) {
      const char c = line[i];
      if (in_block) {
        if (c == '*' && i + 1 < line.size() && line[i + 1] == '/') {
          in_block = false;
          ++i;
        }
        continue;
      }
      if (quote != 0) {
        kept += c;
        if (c == '\\' && i + 1 < line.size()) {
          kept += line[++i];
        } else if (c == quote) {
          quote = 0;
        }
        continue;
      }
      if (line.compare(i, comment.size(), comment) == 0) break;
      if (block_comments && c == '/' && i + 1 < line.size() && line[i + 1] == '*') {
        in_block = true;
        ++i;
        continue;
      }
      if (c == '"' || c == '\'') quote = c;
      kept += c;
    }
    std::string_view rest = kept;
    while (!rest.empty() && std::isspace(static_cast<unsigned char>(rest.front())) != 0) {
      rest.remove_prefix(1);
    }
    while (!rest.empty() && std::isspace(static_cast<unsigned char>(rest.back())) != 0) {
      rest.remove_suffix(1);
    }
    // "... the " followed on the next line by "limit ...": one literal.
    if (!joined.empty() && joined.back() == '"' && !rest.empty() && rest.front() == '"') {
      joined.pop_back();
      rest.remove_prefix(1);
    } else {
      joined += ' ';
    }
    joined += rest;
  }
  return collapse(joined);
}

// Code: what is compiled, run or read as a program (scenarios, dissectors, scripts), not the
// catalog, the documents (docs/requirements.md is generated from the catalog) or data.
bool is_code(const std::filesystem::path& p) {
  static const std::set<std::string> kExtensions = {".cpp", ".hpp", ".cc", ".h",   ".c",    ".in",
                                                    ".lua", ".sh",  ".py", ".scn", ".cmake"};
  return kExtensions.count(p.extension().string()) != 0 || p.filename() == "CMakeLists.txt";
}

TEST(CatalogSentences, AppearInTheCodeBaseOnlyInTheCatalog) {
  const std::filesystem::path root = RDCC_SOURCE_DIR;
  std::vector<std::pair<std::string, std::string>> files;  // path, prose
  for (auto it = std::filesystem::recursive_directory_iterator(root);
       it != std::filesystem::recursive_directory_iterator(); ++it) {
    const std::string name = it->path().filename().string();
    if (it->is_directory() && (name == "build" || name.starts_with("."))) {
      it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file() || !is_code(it->path())) continue;
    std::ifstream in(it->path(), std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    const bool c_like = line_comment(it->path()) == "//";
    files.emplace_back(std::filesystem::relative(it->path(), root).string(),
                       as_prose(text.str(), line_comment(it->path()), c_like));
  }
  ASSERT_GT(files.size(), 100U) << "the walk found too few source files under " << root;
  std::set<std::string> texts;
  for (const Requirement& r : file_catalog().all()) texts.insert(collapse(r.text));
  for (const std::string& text : texts) {
    for (const auto& [path, prose] : files) {
      EXPECT_EQ(prose.find(text), std::string::npos)
          << path << " copies a sentence of the catalog (read it from the catalog instead):\n  "
          << text;
    }
  }
}

// A conforming variant permitted by a requirement of the catalog names its ID (its text is the
// catalog's); one permitted by another sentence quotes it; never both, never neither.
TEST(CatalogSentences, EachVariantNamesItsCatalogRequirementOrQuotesAnotherSentence) {
  const Catalog& c = Catalog::built_in();
  std::size_t by_id = 0;
  for (const auto& v : ref::variants()) {
    EXPECT_NE(v.permits.empty(), v.requirement.empty()) << v.name;
    if (!v.requirement.empty()) {
      ++by_id;
      const Requirement* r = c.find(v.requirement);
      ASSERT_NE(r, nullptr) << v.name << ": " << v.requirement;
      EXPECT_EQ(permits_text(v), r->text) << v.name;
    } else {
      EXPECT_EQ(permits_text(v), v.permits) << v.name;
    }
  }
  EXPECT_GE(by_id, 15U);
}

// The test can fail: a sentence split over string literals is found; one in a comment is not.
TEST(CatalogSentences, AsProse_JoinsLiteralsAndDropsComments) {
  const std::string code =
      "  // A widget MUST be painted blue.\n"
      "  /* A gizmo MUST\n     hum. */\n"
      "  x = \"The gadget MUST NOT hum \"  // a comment\n      \"above the limit.\";\n"
      "  y = 'it isn''t // a comment';\n";
  const std::string prose = as_prose(code, "//", true);
  EXPECT_NE(prose.find("The gadget MUST NOT hum above the limit."), std::string::npos) << prose;
  EXPECT_NE(prose.find("// a comment';"), std::string::npos) << prose;
  EXPECT_EQ(prose.find("widget"), std::string::npos) << prose;
  EXPECT_EQ(prose.find("gizmo"), std::string::npos) << prose;
  EXPECT_EQ(prose.find("hum."), std::string::npos) << prose;
}

}  // namespace
}  // namespace rdcc::conformance
