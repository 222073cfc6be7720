// The requirement catalog: every normative (BCP 14) statement of the spec with a stable ID,
// its section, level, the role it binds and how the suite can test it. The catalog lives in
// conformance/catalog/requirements.json; docs/requirements.md is generated from it and says
// what each field means.
#pragma once

#include <array>
#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace rdcc::conformance {

// The BCP 14 key word of a requirement, or Rule: behaviour the spec states without a key word
// ("it never reduces credit", "it sends MSG_DONE", "answers with ERROR (...)"), which a
// conforming implementation exhibits all the same and a verdict cites as what it is, never
// under an unrelated MUST (docs/spec-notes.md, "Normative text without a key word: level RULE").
enum class Level {
  Must,
  MustNot,
  Required,
  Shall,
  ShallNot,
  Should,
  ShouldNot,
  Recommended,
  NotRecommended,
  May,
  Optional,
  Rule,
};

// Who must act for the requirement to hold.
enum class Role { Sender, Receiver, Crn, Any, Operator };

// How a tester can check it: on the wire playing the peer, with the upper tester making the
// implementation under test act, or not at all (the entry says why).
enum class Testing { Wire, Upper, Untestable };

// The eleven key words of BCP 14, in its order.
inline constexpr std::array kKeyWordLevels = {
    Level::Must,           Level::MustNot, Level::Required,  Level::Shall,
    Level::ShallNot,       Level::Should,  Level::ShouldNot, Level::Recommended,
    Level::NotRecommended, Level::May,     Level::Optional};
// Every level a catalog entry can have: the key words, then RULE.
inline constexpr std::array kLevels = {Level::Must,      Level::MustNot,     Level::Required,
                                       Level::Shall,     Level::ShallNot,    Level::Should,
                                       Level::ShouldNot, Level::Recommended, Level::NotRecommended,
                                       Level::May,       Level::Optional,    Level::Rule};

// What a failed check of a requirement makes the verdict: FAIL for MUST, MUST NOT, REQUIRED,
// SHALL, SHALL NOT and RULE, and for MAY and OPTIONAL (behaviour the IUT chose is checked for
// correctness); WARN for SHOULD, SHOULD NOT, RECOMMENDED and NOT RECOMMENDED (FAIL under
// --strict).
enum class Severity { Fail, Warn };
[[nodiscard]] Severity severity_of(Level level);
// MAY and OPTIONAL: the IUT may not have chosen the behaviour at all.
[[nodiscard]] bool is_optional(Level level);
inline constexpr std::array kRoles = {Role::Sender, Role::Receiver, Role::Crn, Role::Any,
                                      Role::Operator};
inline constexpr std::array kTestings = {Testing::Wire, Testing::Upper, Testing::Untestable};

// The <AREA> of the IDs RDCC-<AREA>-<NN> (SHARED-INTERFACES.md).
inline constexpr std::array<std::string_view, 17> kAreas = {
    "SCOPE", "ASSOC", "MODE", "UNSCHED", "GRANT", "BUDGET", "ALLOC", "POOL", "STATUS",
    "CRN",   "BIND",  "ERR",  "FMT",     "SM",    "CC",     "OPS",   "SEC"};

// The spelling in the catalog and the spec: "MUST NOT", "receiver", "untestable".
[[nodiscard]] std::string_view to_string(Level level);
[[nodiscard]] std::string_view to_string(Role role);
[[nodiscard]] std::string_view to_string(Testing testing);
[[nodiscard]] std::optional<Level> level_from_string(std::string_view text);
[[nodiscard]] std::optional<Role> role_from_string(std::string_view text);
[[nodiscard]] std::optional<Testing> testing_from_string(std::string_view text);

// RDCC-<AREA>-<NN>: a known area and two or more digits.
[[nodiscard]] bool is_well_formed_id(std::string_view id);

struct Requirement {
  std::string id;       // "RDCC-ASSOC-01"
  std::string section;  // the heading the sentence sits under
  Level level{};
  Role role{};
  Testing testing{};
  std::string text;    // the sentence, exactly as the spec has it
  std::string clause;  // which part of a sentence with several key words (may be empty)
  std::string reason;  // why it is untestable; for the others, what a test needs (may be empty)
  std::vector<std::string> refs;  // the sections its lost "()" cross-references name

  // "ASSOC" for "RDCC-ASSOC-01".
  [[nodiscard]] std::string_view area() const;
};

// A catalog that cannot be loaded. what() names the file, the entry (index and ID, when it
// has one) and the key.
class CatalogError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The text of conformance/catalog/requirements.json, embedded by the build
// (catalog_embedded.cpp.in).
[[nodiscard]] std::string_view built_in_catalog_json();

class Catalog {
 public:
  // Reads and checks the whole file; throws CatalogError on the first problem.
  [[nodiscard]] static Catalog load(const std::filesystem::path& path);
  // The same from the file's text; errors name `name`.
  [[nodiscard]] static Catalog parse(std::string_view text, const std::filesystem::path& name);
  // conformance/catalog/requirements.json as it was when this program was built (the build
  // embeds the file): where tools read a rule's text without a catalog file at hand.
  [[nodiscard]] static const Catalog& built_in();

  // nullptr when no requirement has that ID.
  [[nodiscard]] const Requirement* find(std::string_view id) const;
  // In file order.
  [[nodiscard]] std::span<const Requirement> all() const { return requirements_; }
  [[nodiscard]] std::size_t size() const { return requirements_.size(); }

 private:
  std::vector<Requirement> requirements_;
  std::map<std::string, std::size_t, std::less<>> index_;  // ID -> position
};

}  // namespace rdcc::conformance
