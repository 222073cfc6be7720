// The requirement catalog against the spec it quotes: every sentence with a BCP 14 key word
// has entries, one per key word; every entry quotes the spec exactly, under the right heading;
// entries of level RULE quote behaviour the spec states without a key word.
// Then the loader's errors on broken catalogs.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "rdcc/conformance/catalog.hpp"
#include "rdcc/testing/spec_file.hpp"

namespace {

using rdcc::conformance::Catalog;
using rdcc::conformance::CatalogError;
using rdcc::conformance::Level;
using rdcc::conformance::Requirement;
using rdcc::conformance::Testing;

const std::filesystem::path kCatalogPath = RDCC_CATALOG_PATH;

// Sentences with a key word that are not requirements.
struct Exclusion {
  std::string_view section;
  std::string_view text;
};
const std::vector<Exclusion> kExclusions = {
    // The BCP 14 boilerplate: it lists the key words, it does not use them.
    {"Conventions and Definitions",
     "The key words \"MUST\", \"MUST NOT\", \"REQUIRED\", \"SHALL\", \"SHALL NOT\", \"SHOULD\", "
     "\"SHOULD NOT\", \"RECOMMENDED\", \"NOT RECOMMENDED\", \"MAY\", and \"OPTIONAL\" in this "
     "document are to be interpreted as described in BCP 14 when, and only when, they appear in "
     "all capitals, as shown here."},
};

// Headings of sections without requirements. The catalog's own sections and these are all the
// headings a sentence can sit under, so that no entry is attributed across one of these.
const std::vector<std::string_view> kHeadingsWithoutRequirements = {
    "Introduction",
    "Problem Statement",
    "Protocol Overview",
    "Relationship to Other Work",
    "Conventions and Definitions",
    "Architecture",
    "Protocol Operation",
    "ASSOC_REQUEST and ASSOC_ACCEPT",
    "SENDER_STATUS",
    "CONGESTION_REPORT",
    "IANA Considerations",
    "RDCC Registries",
    "References",
    "Example Exchange and Encodings",
    "Acknowledgments",
};

std::string normalise_space(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (std::isspace(static_cast<unsigned char>(c)) != 0) {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += c;
    }
  }
  if (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// A heading's file name in a role's directory of reference/src/ (docs/reference.md): the heading
// lowercased, every run of other characters than letters and digits one '_', none at either
// end ("MSG_DONE, CANCEL, CREDIT_RETURN, and ERROR" -> "msg_done_cancel_credit_return_and_error").
std::string heading_slug(std::string_view heading) {
  std::string out;
  bool gap = false;
  for (const char c : heading) {
    if (std::isalnum(static_cast<unsigned char>(c)) != 0) {
      if (gap && !out.empty()) out += '_';
      gap = false;
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      gap = true;
    }
  }
  return out;
}

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const auto end = text.find('\n');
    lines.push_back(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return lines;
}

// "1. MUST delay ..." -> "MUST delay ...": a numbered rule is a sentence of its own.
std::string_view without_enumerator(std::string_view item) {
  std::size_t digits = 0;
  while (digits < item.size() && std::isdigit(static_cast<unsigned char>(item[digits])) != 0) {
    ++digits;
  }
  if (digits > 0 && digits + 1 < item.size() && item[digits] == '.' &&
      std::isspace(static_cast<unsigned char>(item[digits + 1])) != 0) {
    item.remove_prefix(digits + 1);
  }
  return item;
}

// The spec has one paragraph, list item or table row per line. Sentences end at ".", "!" or
// "?" followed by white space, at a bullet "•" and at the end of a line. Headings are not
// marked: a heading and the first sentence of its section share a line, and so one sentence.
std::vector<std::string> spec_sentences(std::string_view spec) {
  constexpr std::string_view kBullet = "\u2022";
  std::vector<std::string> sentences;
  const auto add = [&](std::string_view s) {
    std::string normalised = normalise_space(s);
    if (!normalised.empty()) sentences.push_back(std::move(normalised));
  };
  for (std::string_view line : lines_of(spec)) {
    while (!line.empty()) {
      const auto bullet = line.find(kBullet);
      std::string_view item = line.substr(0, bullet);
      while (!item.empty() && std::isspace(static_cast<unsigned char>(item.front())) != 0) {
        item.remove_prefix(1);
      }
      item = without_enumerator(item);
      std::size_t start = 0;
      for (std::size_t i = 0; i < item.size(); ++i) {
        const char c = item[i];
        if ((c == '.' || c == '!' || c == '?') && i + 1 < item.size() &&
            std::isspace(static_cast<unsigned char>(item[i + 1])) != 0) {
          add(item.substr(start, i + 1 - start));
          start = i + 1;
        }
      }
      add(item.substr(start));
      if (bullet == std::string_view::npos) break;
      line.remove_prefix(bullet + kBullet.size());
    }
  }
  return sentences;
}

// The key words of a sentence in order, each once ("MUST NOT" is not also a "MUST").
std::vector<Level> keywords_in(const std::string& sentence) {
  std::vector<std::string> words;
  words.reserve(std::size(rdcc::conformance::kKeyWordLevels));
  for (const Level level : rdcc::conformance::kKeyWordLevels) {
    words.emplace_back(rdcc::conformance::to_string(level));
  }
  std::sort(words.begin(), words.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  std::string alternatives;
  for (const auto& w : words) alternatives += (alternatives.empty() ? "" : "|") + w;
  const std::regex keyword("\\b(" + alternatives + ")\\b");
  std::vector<Level> found;
  for (auto it = std::sregex_iterator(sentence.begin(), sentence.end(), keyword);
       it != std::sregex_iterator(); ++it) {
    found.push_back(*rdcc::conformance::level_from_string(it->str(1)));
  }
  return found;
}

// A spec sentence is the text itself, or its section's heading followed by the text (the first
// sentence of a section).
bool quotes(std::string_view section, std::string_view text, const std::string& sentence) {
  const std::string quoted = normalise_space(text);
  return sentence == quoted || sentence == normalise_space(section) + " " + quoted;
}

class CatalogAgainstSpec : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    catalog_ = new Catalog(Catalog::load(kCatalogPath));
    spec_ = new rdcc::testing::SpecFile(RDCC_SPEC_PATH);
  }
  static void TearDownTestSuite() {
    delete catalog_;
    delete spec_;
  }
  static const Catalog& catalog() { return *catalog_; }
  // Without the spec (a clone without ../shared) the tests that read it begin with
  // `if (!has_spec()) GTEST_SKIP() << no_spec();`: skipped, saying where the spec was looked
  // for and how to give it. The catalog's own checks run regardless.
  static bool has_spec() { return spec_->text().has_value(); }
  static std::string no_spec() { return spec_->reason(); }
  static const std::string& spec() { return *spec_->text(); }
  static const std::string& spec_path() { return spec_->path(); }

  // The entries that quote `sentence`.
  // The key-word entries that quote `sentence` (RULE entries quote sentences without one).
  static std::vector<const Requirement*> entries_quoting(const std::string& sentence) {
    std::vector<const Requirement*> out;
    for (const auto& r : catalog().all()) {
      if (r.level != Level::Rule && quotes(r.section, r.text, sentence)) out.push_back(&r);
    }
    return out;
  }

  static bool excluded(const std::string& sentence) {
    return std::any_of(kExclusions.begin(), kExclusions.end(),
                       [&](const Exclusion& e) { return quotes(e.section, e.text, sentence); });
  }

  static std::vector<std::string> keyword_sentences() {
    std::vector<std::string> out;
    for (auto& s : spec_sentences(spec())) {
      if (!keywords_in(s).empty()) out.push_back(std::move(s));
    }
    return out;
  }

 private:
  static inline const Catalog* catalog_ = nullptr;
  static inline const rdcc::testing::SpecFile* spec_ = nullptr;
};

TEST_F(CatalogAgainstSpec, Spec_IsReadAndSplitIntoSentences) {
  if (!has_spec()) GTEST_SKIP() << no_spec();
  ASSERT_FALSE(spec().empty()) << "the spec at " << spec_path() << " is empty";
  const auto sentences = spec_sentences(spec());
  // Spot checks of the splitter on the forms the spec uses: a plain sentence, a numbered rule,
  // a bullet, a sentence that shares its line with the heading.
  const auto has = [&](std::string_view s) {
    return std::find(sentences.begin(), sentences.end(), s) != sentences.end();
  };
  // (The sentences are the catalog's: no sentence of the spec is copied into code.)
  const auto text = [&](std::string_view id) {
    const Requirement* r = catalog().find(id);
    return r == nullptr ? std::string() : r->text;
  };
  EXPECT_TRUE(has(text("RDCC-FMT-01")));
  EXPECT_TRUE(has(text("RDCC-UNSCHED-03")));                                // a numbered rule
  EXPECT_TRUE(has(text("RDCC-ERR-02")));                                    // a bullet
  EXPECT_TRUE(has("On-Path Congestion Reporting " + text("RDCC-CRN-01")));  // after its heading
  EXPECT_TRUE(has(text("RDCC-SCOPE-01")));
}

TEST_F(CatalogAgainstSpec, EverySentenceWithAKeyword_HasAnEntry) {
  if (!has_spec()) GTEST_SKIP() << no_spec();
  const auto sentences = keyword_sentences();
  ASSERT_FALSE(sentences.empty());
  for (const auto& s : sentences) {
    if (excluded(s)) continue;
    EXPECT_FALSE(entries_quoting(s).empty()) << "no catalog entry quotes this sentence:\n  " << s;
  }
}

TEST_F(CatalogAgainstSpec, EachSentence_HasOneEntryPerKeyword_WithThatLevel) {
  if (!has_spec()) GTEST_SKIP() << no_spec();
  for (const auto& s : keyword_sentences()) {
    if (excluded(s)) continue;
    const auto entries = entries_quoting(s);
    if (entries.empty()) continue;  // reported by EverySentenceWithAKeyword_HasAnEntry
    std::multiset<std::string_view> in_sentence;
    for (const Level level : keywords_in(s))
      in_sentence.insert(rdcc::conformance::to_string(level));
    std::multiset<std::string_view> in_entries;
    std::string ids;
    for (const auto* r : entries) {
      if (r->level == Level::Rule) continue;  // a RULE entry quotes a sentence without a key word
      in_entries.insert(rdcc::conformance::to_string(r->level));
      ids += " " + r->id;
    }
    EXPECT_EQ(in_sentence, in_entries) << "entries" << ids << " do not have one level per key "
                                       << "word of their sentence:\n  " << s;
  }
}

TEST_F(CatalogAgainstSpec, EveryEntry_QuotesASentenceOfTheSpecVerbatim) {
  if (!has_spec()) GTEST_SKIP() << no_spec();
  const auto sentences = spec_sentences(spec());
  for (const auto& r : catalog().all()) {
    EXPECT_NE(spec().find(r.text), std::string::npos)
        << r.id << ": its text does not occur verbatim in the spec:\n  " << r.text;
    EXPECT_TRUE(std::any_of(sentences.begin(), sentences.end(),
                            [&](const std::string& s) { return quotes(r.section, r.text, s); }))
        << r.id << ": its text is not a whole sentence of the spec:\n  " << r.text;
    if (r.level == Level::Rule) {
      // A RULE entry states behaviour without a key word: its sentence has none, or the clause
      // it holds has none (the part of a sentence whose other parts have their own entries:
      // RDCC-ASSOC-11, "it reclaims all credit of that association when doing so").
      const std::string& stated =
          r.clause.empty() || r.clause.starts_with("rule ") ? r.text : r.clause;
      EXPECT_TRUE(keywords_in(stated).empty())
          << r.id << ": a RULE entry states a BCP 14 key word (give it that level)";
    } else {
      EXPECT_FALSE(keywords_in(r.text).empty()) << r.id << ": its text has no BCP 14 key word";
    }
  }
}

// Behaviour the spec states without a key word has entries of level RULE, so that a verdict on
// it cites the sentence itself and never an unrelated MUST (docs/spec-notes.md, "Normative text
// without a key word: level RULE"). A RULE failure is a FAIL like a MUST's.
TEST_F(CatalogAgainstSpec, RuleEntries_QuoteTheUnkeywordedBehaviourTheVerdictsCite) {
  const auto rule_quoting = [&](std::string_view words) -> const Requirement* {
    for (const auto& r : catalog().all()) {
      if (r.level == Level::Rule && r.text.find(words) != std::string::npos) return &r;
    }
    return nullptr;
  };
  for (const std::string_view words :
       {"it never reduces credit", "It sets the FINAL flag in the grant that reaches",
        "When the receiver has received all octets of a message it sends MSG_DONE",
        "answers with MSG_DONE again", "replies with ERROR (UNKNOWN_ASSOCIATION)",
        "answers with ERROR (UNSUPPORTED_BINDING)", "answers with ERROR (reason ASSOC_REFUSED)"}) {
    const Requirement* r = rule_quoting(words);
    ASSERT_NE(r, nullptr) << "no RULE entry states \"" << words << "\"";
    EXPECT_EQ(rdcc::conformance::severity_of(r->level), rdcc::conformance::Severity::Fail) << r->id;
    EXPECT_NE(r->text.find(words), std::string::npos) << r->id;
  }
  // A clause is a part of its sentence.
  for (const auto& r : catalog().all()) {
    if (!r.clause.empty() && r.level == Level::Rule && !r.clause.starts_with("rule ")) {
      EXPECT_NE(r.text.find(r.clause), std::string::npos) << r.id << ": clause not in its text";
    }
  }
}

TEST(CatalogLevels, Severity_WarnOnlyForShouldAndRecommended) {
  using rdcc::conformance::Severity;
  using rdcc::conformance::severity_of;
  for (const Level level : rdcc::conformance::kLevels) {
    const bool warn = level == Level::Should || level == Level::ShouldNot ||
                      level == Level::Recommended || level == Level::NotRecommended;
    EXPECT_EQ(severity_of(level), warn ? Severity::Warn : Severity::Fail)
        << rdcc::conformance::to_string(level);
  }
  EXPECT_TRUE(rdcc::conformance::is_optional(Level::May));
  EXPECT_TRUE(rdcc::conformance::is_optional(Level::Optional));
  EXPECT_FALSE(rdcc::conformance::is_optional(Level::Rule));
  EXPECT_EQ(rdcc::conformance::to_string(Level::Rule), "RULE");
  EXPECT_EQ(rdcc::conformance::level_from_string("RULE"), Level::Rule);
}

TEST_F(CatalogAgainstSpec, EveryEntry_SitsUnderItsSection) {
  if (!has_spec()) GTEST_SKIP() << no_spec();
  std::set<std::string, std::less<>> headings(kHeadingsWithoutRequirements.begin(),
                                              kHeadingsWithoutRequirements.end());
  for (const auto& r : catalog().all()) headings.insert(r.section);
  // A heading is a line of its own or the start of the line of its first paragraph.
  const auto heading_of_line = [&](std::string_view line) -> std::string_view {
    std::string_view best;
    for (const auto& h : headings) {
      if ((line == h || line.starts_with(h + " ")) && h.size() > best.size()) best = h;
    }
    return best;
  };
  for (const auto& r : catalog().all()) {
    const auto at = spec().find(r.text);
    if (at == std::string::npos)
      continue;  // reported by EveryEntry_QuotesASentenceOfTheSpecVerbatim
    std::string_view current;
    for (const auto line : lines_of(std::string_view(spec()).substr(0, at))) {
      const auto heading = heading_of_line(line);
      if (!heading.empty()) current = heading;
    }
    EXPECT_EQ(current, r.section) << r.id << " sits under \"" << current << "\" in the spec";
  }
}

TEST_F(CatalogAgainstSpec, Refs_AreHeadingsOfTheSpec) {
  if (!has_spec()) GTEST_SKIP() << no_spec();
  const auto lines = lines_of(spec());
  for (const auto& r : catalog().all()) {
    for (const auto& ref : r.refs) {
      const bool heading = std::any_of(lines.begin(), lines.end(), [&](std::string_view line) {
        return line == ref || line.starts_with(ref + " ");
      });
      EXPECT_TRUE(heading) << r.id << ": refs names \"" << ref << "\", not a heading of the spec";
    }
  }
}

// docs/reference.md maps each heading of the spec to the files that hold its rules: its table
// names every heading once, in the spec's order (the catalog's sections and the headings
// without requirements are all of them), and every file it names exists.
TEST_F(CatalogAgainstSpec, ReferenceMap_NamesEveryHeadingAndExistingFiles) {
  if (!has_spec()) GTEST_SKIP() << no_spec();
  const std::filesystem::path root = RDCC_SOURCE_DIR;
  std::ifstream in(root / "docs" / "reference.md");
  ASSERT_TRUE(in) << "docs/reference.md is missing";
  std::vector<std::string> mapped;
  std::set<std::string> files;
  const std::regex path_in_backticks(R"(`([A-Za-z0-9_./-]+/[A-Za-z0-9_.-]+)`)");
  for (std::string line; std::getline(in, line);) {
    if (!line.starts_with("| ") || line.starts_with("| Heading |")) continue;
    const auto end = line.find(" |", 2);
    mapped.push_back(line.substr(2, end - 2));
    for (std::sregex_iterator it(line.begin(), line.end(), path_in_backticks), last; it != last;
         ++it) {
      files.insert((*it)[1].str());
    }
  }
  std::set<std::string, std::less<>> headings(kHeadingsWithoutRequirements.begin(),
                                              kHeadingsWithoutRequirements.end());
  for (const auto& r : catalog().all()) headings.insert(r.section);
  const auto lines = lines_of(spec());
  const auto position = [&](const std::string& h) {
    return std::find_if(
               lines.begin(), lines.end(),
               [&](std::string_view line) { return line == h || line.starts_with(h + " "); }) -
           lines.begin();
  };
  std::vector<std::string> in_spec_order(headings.begin(), headings.end());
  std::stable_sort(
      in_spec_order.begin(), in_spec_order.end(),
      [&](const std::string& a, const std::string& b) { return position(a) < position(b); });
  EXPECT_EQ(mapped, in_spec_order) << "docs/reference.md's table, against the spec's headings";
  EXPECT_FALSE(files.empty());
  for (const auto& f : files) {
    EXPECT_TRUE(std::filesystem::exists(root / f)) << "docs/reference.md names " << f;
  }
}

TEST(HeadingSlug, LowercasesAndJoinsWordsWithOneUnderscore) {
  EXPECT_EQ(heading_slug("Credit Requests and Grants"), "credit_requests_and_grants");
  EXPECT_EQ(heading_slug("On-Path Congestion Reporting"), "on_path_congestion_reporting");
  EXPECT_EQ(heading_slug("MSG_DONE, CANCEL, CREDIT_RETURN, and ERROR"),
            "msg_done_cancel_credit_return_and_error");
  EXPECT_EQ(heading_slug(" Common Header "), "common_header");
}

// The roles split by heading (docs/reference.md): reference/src/ROLE/ holds, per heading of the
// spec that binds the role, one file named after it (a .hpp and a .cpp of that name are one file
// for the map), and besides them only the glue, ROLE.cpp and ROLE_impl.hpp; reference/test/ROLE/
// holds their unit tests, HEADING_test.cpp. The map's cells that name a file of such a directory
// name that one file, in the role's column, named after the row's heading. A role not split
// (its directory absent: the map names reference/src/ROLE.cpp) is not checked. The checker's
// rules (checker/src/) are held to the same naming.
TEST_F(CatalogAgainstSpec, ReferenceMap_RoleDirectoriesHoldOneFilePerHeading) {
  if (!has_spec()) GTEST_SKIP() << no_spec();
  const std::filesystem::path root = RDCC_SOURCE_DIR;
  std::set<std::string, std::less<>> slugs;
  for (const auto h : kHeadingsWithoutRequirements) slugs.insert(heading_slug(h));
  for (const auto& r : catalog().all()) slugs.insert(heading_slug(r.section));
  const std::vector<std::string> roles = {"receiver", "sender"};
  const auto stem_of = [](const std::string& name) { return name.substr(0, name.find('.')); };

  std::ifstream in(root / "docs" / "reference.md");
  ASSERT_TRUE(in) << "docs/reference.md is missing";
  const std::regex path_in_backticks(R"(`([A-Za-z0-9_./-]+/[A-Za-z0-9_.-]+)`)");
  std::vector<std::string> columns;
  std::size_t checked_cells = 0;
  for (std::string line; std::getline(in, line);) {
    if (!line.starts_with("| ") || line.starts_with("|---")) continue;
    std::vector<std::string> cells;
    for (std::size_t at = 2; at < line.size();) {
      const auto end = line.find(" |", at);
      if (end == std::string::npos) break;
      cells.push_back(line.substr(at, end - at));
      at = end + 3;
    }
    if (line.starts_with("| Heading |")) {
      columns = cells;
      continue;
    }
    ASSERT_EQ(cells.size(), columns.size()) << line;
    const std::string& heading = cells[0];
    for (std::size_t c = 1; c < cells.size(); ++c) {
      std::vector<std::string> paths;
      for (std::sregex_iterator it(cells[c].begin(), cells[c].end(), path_in_backticks), last;
           it != last; ++it) {
        paths.push_back((*it)[1].str());
      }
      for (const auto& role : roles) {
        const std::string dir = "reference/src/" + role + "/";
        for (const auto& p : paths) {
          if (!p.starts_with(dir)) continue;
          ++checked_cells;
          EXPECT_EQ(paths.size(), 1U) << heading << ", " << columns[c] << ": a cell naming " << p
                                      << " names that file only (one file per heading)";
          EXPECT_EQ(heading_slug(columns[c]), role)
              << heading << ", " << columns[c] << ": " << p << " is the " << role << "'s";
          const std::string name = p.substr(dir.size());
          EXPECT_EQ(stem_of(name), heading_slug(heading))
              << heading << ", " << columns[c] << ": " << p << " is not named after its heading ("
              << heading_slug(heading) << ".hpp or .cpp)";
        }
      }
    }
  }
  std::size_t checked_files = 0;
  for (const auto& role : roles) {
    const auto src = root / "reference" / "src" / role;
    if (!std::filesystem::is_directory(src)) continue;
    for (const auto& entry : std::filesystem::directory_iterator(src)) {
      const std::string name = entry.path().filename().string();
      if (name == role + ".cpp" || name == role + "_impl.hpp") continue;
      ++checked_files;
      EXPECT_TRUE(entry.is_regular_file() && (name.ends_with(".hpp") || name.ends_with(".cpp")) &&
                  slugs.contains(stem_of(name)))
          << "reference/src/" << role << "/" << name
          << " is named after no heading of the spec (only " << role << ".cpp and " << role
          << "_impl.hpp are not)";
    }
    const auto test = root / "reference" / "test" / role;
    if (!std::filesystem::is_directory(test)) continue;
    for (const auto& entry : std::filesystem::directory_iterator(test)) {
      const std::string name = entry.path().filename().string();
      const std::string stem =
          name.ends_with("_test.cpp") ? name.substr(0, name.size() - 9) : std::string();
      ++checked_files;
      EXPECT_TRUE(!stem.empty() && (std::filesystem::exists(src / (stem + ".hpp")) ||
                                    std::filesystem::exists(src / (stem + ".cpp"))))
          << "reference/test/" << role << "/" << name << " tests no file of reference/src/" << role
          << "/ (HEADING_test.cpp for HEADING.hpp)";
    }
  }
  // The checker's rules (checker/src/) likewise: a file per heading, besides its glue (the API,
  // the wire model, its state, the dense index).
  const std::set<std::string, std::less<>> checker_glue = {"checker", "model", "impl",
                                                           "dense_index"};
  for (const auto& entry : std::filesystem::directory_iterator(root / "checker" / "src")) {
    const std::string name = entry.path().filename().string();
    ++checked_files;
    EXPECT_TRUE(entry.is_regular_file() && (name.ends_with(".hpp") || name.ends_with(".cpp")) &&
                (checker_glue.contains(stem_of(name)) || slugs.contains(stem_of(name))))
        << "checker/src/" << name
        << " is named after no heading of the spec (only checker, model, impl and dense_index "
           "are not)";
  }
  // Something was checked once a role is split.
  if (std::filesystem::is_directory(root / "reference" / "src" / "receiver")) {
    EXPECT_GT(checked_cells, 0U);
    EXPECT_GT(checked_files, 0U);
  }
}

TEST_F(CatalogAgainstSpec, Ids_AreWellFormedAndUnique) {
  std::set<std::string> seen;
  for (const auto& r : catalog().all()) {
    EXPECT_TRUE(rdcc::conformance::is_well_formed_id(r.id)) << r.id;
    EXPECT_TRUE(seen.insert(r.id).second) << r.id << " is used twice";
    EXPECT_EQ(catalog().find(r.id), &r) << r.id;
  }
  EXPECT_EQ(catalog().find("RDCC-ASSOC-00"), nullptr);
  EXPECT_EQ(catalog().find("rdcc-assoc-01"), nullptr);
}

TEST_F(CatalogAgainstSpec, Untestable_SayWhy) {
  for (const auto& r : catalog().all()) {
    if (r.testing == Testing::Untestable) {
      EXPECT_FALSE(r.reason.empty()) << r.id;
    }
  }
}

// The readings docs/spec-notes.md records (notes 33 to 36).
TEST_F(CatalogAgainstSpec, Readings_AreThoseOfTheSpecNotes) {
  const auto expect = [&](std::string_view id, Level level, rdcc::conformance::Role role,
                          Testing testing) {
    const Requirement* r = catalog().find(id);
    ASSERT_NE(r, nullptr) << id;
    EXPECT_EQ(r->level, level) << id;
    EXPECT_EQ(r->role, role) << id;
    EXPECT_EQ(r->testing, testing) << id;
  };
  using rdcc::conformance::Role;
  // 100: a key word in parentheses is a configured value of its own.
  expect("RDCC-CRN-04", Level::Recommended, Role::Operator, Testing::Untestable);
  expect("RDCC-CC-01", Level::Recommended, Role::Operator, Testing::Untestable);
  // Normative text without a key word is an entry of level RULE (it was none before).
  expect("RDCC-GRANT-11", Level::Rule, Role::Any, Testing::Wire);
  expect("RDCC-GRANT-12", Level::Rule, Role::Receiver, Testing::Wire);
  // 101: every originator sets the UDP checksum.
  expect("RDCC-FMT-01", Level::Must, Role::Sender, Testing::Untestable);
  // 102: every endpoint discards an unknown Type; only the receiver may answer it.
  expect("RDCC-ERR-06", Level::Must, Role::Any, Testing::Wire);
  expect("RDCC-ERR-07", Level::May, Role::Receiver, Testing::Wire);
  expect("RDCC-ERR-08", Level::MustNot, Role::Receiver, Testing::Wire);
  // 103: "an endpoint" is either side.
  expect("RDCC-FMT-06", Level::Must, Role::Any, Testing::Wire);
  expect("RDCC-CRN-02", Level::Must, Role::Any, Testing::Wire);
}

TEST(CatalogEnums, ToString_RoundTripsThroughFromString) {
  for (const auto v : rdcc::conformance::kLevels) {
    EXPECT_EQ(rdcc::conformance::level_from_string(rdcc::conformance::to_string(v)), v);
  }
  for (const auto v : rdcc::conformance::kRoles) {
    EXPECT_EQ(rdcc::conformance::role_from_string(rdcc::conformance::to_string(v)), v);
  }
  for (const auto v : rdcc::conformance::kTestings) {
    EXPECT_EQ(rdcc::conformance::testing_from_string(rdcc::conformance::to_string(v)), v);
  }
  EXPECT_EQ(rdcc::conformance::to_string(Level::MustNot), "MUST NOT");
  EXPECT_EQ(rdcc::conformance::to_string(rdcc::conformance::Role::Crn), "crn");
  EXPECT_EQ(rdcc::conformance::to_string(Testing::Untestable), "untestable");
  EXPECT_FALSE(rdcc::conformance::level_from_string("must"));
  EXPECT_FALSE(rdcc::conformance::role_from_string("Sender"));
  EXPECT_FALSE(rdcc::conformance::testing_from_string(""));
}

TEST(CatalogIds, WellFormed_NeedAKnownAreaAndTwoDigits) {
  EXPECT_TRUE(rdcc::conformance::is_well_formed_id("RDCC-ASSOC-01"));
  EXPECT_TRUE(rdcc::conformance::is_well_formed_id("RDCC-UNSCHED-123"));
  EXPECT_FALSE(rdcc::conformance::is_well_formed_id("RDCC-ASSOC-1"));
  EXPECT_FALSE(rdcc::conformance::is_well_formed_id("RDCC-FOO-01"));
  EXPECT_FALSE(rdcc::conformance::is_well_formed_id("RDCC-assoc-01"));
  EXPECT_FALSE(rdcc::conformance::is_well_formed_id("RDCC-ASSOC-0a"));
  EXPECT_FALSE(rdcc::conformance::is_well_formed_id("RDCC-ASSOC01"));
  EXPECT_FALSE(rdcc::conformance::is_well_formed_id("XDCC-ASSOC-01"));
  EXPECT_FALSE(rdcc::conformance::is_well_formed_id(""));
}

// ---- the loader's errors ----

// A fresh directory for the broken catalogs of one test.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "rdcc_catalog_XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) ADD_FAILURE() << "mkdtemp failed";
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  std::filesystem::path write(const std::string& name, const std::string& content) const {
    auto file = path_ / name;
    std::ofstream(file, std::ios::binary) << content;
    return file;
  }

 private:
  std::filesystem::path path_;
};

// Loads `file` and returns the error message; fails the test if it loads.
std::string load_error(const std::filesystem::path& file) {
  try {
    (void)Catalog::load(file);
  } catch (const CatalogError& e) {
    return e.what();
  }
  ADD_FAILURE() << file << " loaded without an error";
  return {};
}

constexpr std::string_view kGood =
    R"({"id": "RDCC-ASSOC-01", "section": "Association Establishment", "level": "MUST",
        "role": "receiver", "testing": "wire", "text": "A receiver MUST do it."})";

struct BadCatalog {
  std::string name;
  std::string second_entry;              // after one good entry, so the bad one is entry [1]
  std::vector<std::string> error_parts;  // what the message must name besides the file
};

class LoaderErrors : public ::testing::TestWithParam<BadCatalog> {};

TEST_P(LoaderErrors, NameFileEntryAndKey) {
  const TempDir dir;
  const auto file = dir.write(GetParam().name + ".json", "[\n" + std::string(kGood) + ",\n" +
                                                             GetParam().second_entry + "\n]\n");
  const std::string message = load_error(file);
  EXPECT_NE(message.find(file.string() + ": "), std::string::npos) << message;
  EXPECT_NE(message.find("entry [1]"), std::string::npos) << message;
  for (const auto& part : GetParam().error_parts) {
    EXPECT_NE(message.find(part), std::string::npos) << "\"" << part << "\" not in: " << message;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Catalog, LoaderErrors,
    ::testing::Values(
        BadCatalog{"missing_key",
                   R"({"id": "RDCC-ASSOC-02", "section": "S", "level": "MUST", "testing": "wire",
                       "text": "T MUST."})",
                   {"(RDCC-ASSOC-02)", "key \"role\"", "missing"}},
        BadCatalog{"missing_id",
                   R"({"section": "S", "level": "MUST", "role": "any", "testing": "wire",
                       "text": "T MUST."})",
                   {"key \"id\"", "missing"}},
        BadCatalog{"duplicate_id",
                   std::string(kGood),
                   {"(RDCC-ASSOC-01)", "key \"id\"", "duplicate ID, first used by entry [0]"}},
        BadCatalog{"bad_id",
                   R"({"id": "RDCC-ASSOC-2", "section": "S", "level": "MUST", "role": "any",
                       "testing": "wire", "text": "T MUST."})",
                   {"(RDCC-ASSOC-2)", "key \"id\"", "RDCC-<AREA>-<NN>"}},
        BadCatalog{"unknown_area",
                   R"({"id": "RDCC-FOO-02", "section": "S", "level": "MUST", "role": "any",
                       "testing": "wire", "text": "T MUST."})",
                   {"(RDCC-FOO-02)", "key \"id\"", "AREA one of SCOPE"}},
        BadCatalog{"unknown_level",
                   R"({"id": "RDCC-ASSOC-02", "section": "S", "level": "must", "role": "any",
                       "testing": "wire", "text": "T MUST."})",
                   {"(RDCC-ASSOC-02)", "key \"level\"", "unknown value \"must\"", "MUST NOT"}},
        BadCatalog{"unknown_role",
                   R"({"id": "RDCC-ASSOC-02", "section": "S", "level": "MUST", "role": "switch",
                       "testing": "wire", "text": "T MUST."})",
                   {"(RDCC-ASSOC-02)", "key \"role\"", "unknown value \"switch\"", "operator"}},
        BadCatalog{
            "unknown_testing",
            R"({"id": "RDCC-ASSOC-02", "section": "S", "level": "MUST", "role": "any",
                       "testing": "manual", "text": "T MUST."})",
            {"(RDCC-ASSOC-02)", "key \"testing\"", "unknown value \"manual\"", "untestable"}},
        BadCatalog{"untestable_without_reason",
                   R"({"id": "RDCC-ASSOC-02", "section": "S", "level": "MUST", "role": "any",
                       "testing": "untestable", "text": "T MUST."})",
                   {"(RDCC-ASSOC-02)", "key \"reason\"", "must say why"}},
        BadCatalog{"untestable_with_blank_reason",
                   R"({"id": "RDCC-ASSOC-02", "section": "S", "level": "MUST", "role": "any",
                       "testing": "untestable", "text": "T MUST.", "reason": "  "})",
                   {"(RDCC-ASSOC-02)", "key \"reason\"", "empty"}},
        BadCatalog{"unknown_key",
                   R"({"id": "RDCC-ASSOC-02", "section": "S", "level": "MUST", "role": "any",
                       "testing": "wire", "text": "T MUST.", "reasons": "x"})",
                   {"(RDCC-ASSOC-02)", "key \"reasons\"", "unknown key"}},
        BadCatalog{"text_not_a_string",
                   R"({"id": "RDCC-ASSOC-02", "section": "S", "level": "MUST", "role": "any",
                       "testing": "wire", "text": 7})",
                   {"(RDCC-ASSOC-02)", "key \"text\"", "expected a string, found number"}},
        BadCatalog{"refs_not_an_array",
                   R"({"id": "RDCC-ASSOC-02", "section": "S", "level": "MUST", "role": "any",
                       "testing": "wire", "text": "T MUST.", "refs": "Common Header"})",
                   {"(RDCC-ASSOC-02)", "key \"refs\"", "array"}},
        BadCatalog{"entry_not_an_object", R"(["RDCC-ASSOC-02"])", {"expected an object"}}),
    [](const ::testing::TestParamInfo<BadCatalog>& param) { return param.param.name; });

TEST(LoaderFileErrors, InvalidJson_NamesFileLineAndColumn) {
  const TempDir dir;
  const auto file = dir.write("broken.json", "[\n  {\"id\": \"RDCC-ASSOC-01\",,}\n]\n");
  const std::string message = load_error(file);
  EXPECT_NE(message.find(file.string() + ": not valid JSON"), std::string::npos) << message;
  EXPECT_NE(message.find("line 2, column"), std::string::npos) << message;
}

TEST(LoaderFileErrors, NotAnArray_NamesFile) {
  const TempDir dir;
  const auto file = dir.write("object.json", std::string(kGood));
  const std::string message = load_error(file);
  EXPECT_NE(message.find(file.string() + ": expected a JSON array of requirements, found object"),
            std::string::npos)
      << message;
}

TEST(LoaderFileErrors, MissingFile_NamesFile) {
  const std::string message = load_error("/nonexistent/requirements.json");
  EXPECT_NE(message.find("/nonexistent/requirements.json: cannot open"), std::string::npos)
      << message;
}

TEST(Loader, GoodCatalog_KeepsEveryField) {
  const TempDir dir;
  const auto file = dir.write("good.json", R"([
    {"id": "RDCC-ERR-07", "section": "Error Handling and Recovery", "level": "MAY",
     "role": "receiver", "testing": "untestable", "text": "It MAY reply.", "clause": "the reply",
     "reason": "because", "refs": ["Common Header", "Port Configuration"]},
    {"id": "RDCC-FMT-01", "section": "Message Formats", "level": "NOT RECOMMENDED",
     "role": "operator", "testing": "upper", "text": "It is NOT RECOMMENDED."}
  ])");
  const Catalog catalog = Catalog::load(file);
  ASSERT_EQ(catalog.size(), 2U);
  const Requirement* r = catalog.find("RDCC-ERR-07");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->section, "Error Handling and Recovery");
  EXPECT_EQ(r->level, Level::May);
  EXPECT_EQ(r->role, rdcc::conformance::Role::Receiver);
  EXPECT_EQ(r->testing, Testing::Untestable);
  EXPECT_EQ(r->text, "It MAY reply.");
  EXPECT_EQ(r->clause, "the reply");
  EXPECT_EQ(r->reason, "because");
  EXPECT_EQ(r->refs, (std::vector<std::string>{"Common Header", "Port Configuration"}));
  EXPECT_EQ(r->area(), "ERR");
  EXPECT_EQ(catalog.all()[1].level, Level::NotRecommended);
  EXPECT_TRUE(catalog.all()[1].clause.empty());
  EXPECT_TRUE(catalog.all()[1].refs.empty());
  EXPECT_EQ(catalog.find("RDCC-FMT-02"), nullptr);
}

}  // namespace
