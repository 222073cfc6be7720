#include "rdcc/conformance/catalog.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <utility>

#include <nlohmann/json.hpp>

#include "rdcc/codec/json_input.hpp"

namespace rdcc::conformance {

namespace {

template <class Enum, std::size_t N>
std::optional<Enum> from_string(const std::array<Enum, N>& values, std::string_view text) {
  for (const Enum value : values) {
    if (to_string(value) == text) return value;
  }
  return std::nullopt;
}

template <class Enum, std::size_t N>
std::string spellings(const std::array<Enum, N>& values) {
  std::string out;
  for (const Enum value : values) {
    if (!out.empty()) out += ", ";
    out += to_string(value);
  }
  return out;
}

std::string areas() {
  std::string out;
  for (const auto area : kAreas) {
    if (!out.empty()) out += ", ";
    out += area;
  }
  return out;
}

const std::set<std::string, std::less<>> kKeys = {"id",   "section", "level",  "role", "testing",
                                                  "text", "clause",  "reason", "refs"};

// Reads one entry of the array; every error names the file, the entry and the key.
class EntryReader {
 public:
  EntryReader(const std::filesystem::path& path, std::size_t index, const nlohmann::json& entry)
      : path_(path), index_(index), entry_(entry) {
    // Name the entry by its ID in every later message, when it has a string one.
    const auto id = entry.find("id");
    if (entry.is_object() && id != entry.end() && id->is_string()) {
      id_ = id->get<std::string>();
    }
  }

  [[noreturn]] void fail(std::string_view key, const std::string& what) const {
    std::string message = path_.string() + ": entry [" + std::to_string(index_) + "]";
    if (!id_.empty()) message += " (" + excerpt(id_) + ")";
    if (!key.empty()) message += ": key \"" + excerpt(key) + "\"";
    throw CatalogError(message + ": " + what);
  }

  Requirement read() const {
    if (!entry_.is_object()) fail("", "expected an object, found " + kind(entry_));
    for (const auto& [key, value] : entry_.items()) {
      if (kKeys.count(key) == 0) fail(key, "unknown key (expected " + keys() + ")");
    }
    Requirement r;
    r.id = required("id");
    if (!is_well_formed_id(r.id)) {
      fail("id", "\"" + excerpt(r.id) + "\" is not RDCC-<AREA>-<NN> with AREA one of " + areas() +
                     " and NN two or more digits");
    }
    r.section = required("section");
    r.level = enumerated("level", kLevels);
    r.role = enumerated("role", kRoles);
    r.testing = enumerated("testing", kTestings);
    r.text = required("text");
    r.clause = optional("clause");
    r.reason = optional("reason");
    if (r.testing == Testing::Untestable && r.reason.empty()) {
      fail("reason", "missing: an untestable requirement must say why");
    }
    r.refs = references();
    return r;
  }

 private:
  static std::string kind(const nlohmann::json& value) { return value.type_name(); }

  static std::string keys() {
    std::string out;
    for (const auto& key : kKeys) out += (out.empty() ? "" : ", ") + key;
    return out;
  }

  std::string required(std::string_view key) const {
    const auto it = entry_.find(key);
    if (it == entry_.end()) fail(key, "missing");
    return non_empty_string(key, *it);
  }

  std::string optional(std::string_view key) const {
    const auto it = entry_.find(key);
    return it == entry_.end() ? std::string() : non_empty_string(key, *it);
  }

  std::string non_empty_string(std::string_view key, const nlohmann::json& value) const {
    if (!value.is_string()) fail(key, "expected a string, found " + kind(value));
    std::string text = value.get<std::string>();
    if (std::all_of(text.begin(), text.end(),
                    [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; })) {
      fail(key, "empty");
    }
    return text;
  }

  template <class Enum, std::size_t N>
  Enum enumerated(std::string_view key, const std::array<Enum, N>& values) const {
    const std::string text = required(key);
    const auto value = from_string(values, text);
    if (!value)
      fail(key,
           "unknown value \"" + excerpt(text) + "\" (expected one of " + spellings(values) + ")");
    return *value;
  }

  std::vector<std::string> references() const {
    const auto it = entry_.find("refs");
    if (it == entry_.end()) return {};
    if (!it->is_array() || it->empty())
      fail("refs", "expected a non-empty array of section headings");
    std::vector<std::string> refs;
    for (const auto& ref : *it) refs.push_back(non_empty_string("refs", ref));
    return refs;
  }

  const std::filesystem::path& path_;
  std::size_t index_;
  const nlohmann::json& entry_;
  std::string id_;
};

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CatalogError(path.string() + ": cannot open: " + std::strerror(errno));
  std::string text;
  if (!read_at_most(in, kJsonMaxDocument, text)) {
    throw CatalogError(path.string() + ": " + too_long(kJsonMaxDocument, "the file").describe());
  }
  if (in.bad()) throw CatalogError(path.string() + ": cannot read: " + std::strerror(errno));
  return text;
}

}  // namespace

std::string_view to_string(Level level) {
  switch (level) {
    case Level::Must: return "MUST";
    case Level::MustNot: return "MUST NOT";
    case Level::Required: return "REQUIRED";
    case Level::Shall: return "SHALL";
    case Level::ShallNot: return "SHALL NOT";
    case Level::Should: return "SHOULD";
    case Level::ShouldNot: return "SHOULD NOT";
    case Level::Recommended: return "RECOMMENDED";
    case Level::NotRecommended: return "NOT RECOMMENDED";
    case Level::May: return "MAY";
    case Level::Optional: return "OPTIONAL";
    case Level::Rule: return "RULE";
  }
  return "?";
}

Severity severity_of(Level level) {
  switch (level) {
    case Level::Should:
    case Level::ShouldNot:
    case Level::Recommended:
    case Level::NotRecommended: return Severity::Warn;
    default: return Severity::Fail;
  }
}

bool is_optional(Level level) {
  return level == Level::May || level == Level::Optional;
}

std::string_view to_string(Role role) {
  switch (role) {
    case Role::Sender: return "sender";
    case Role::Receiver: return "receiver";
    case Role::Crn: return "crn";
    case Role::Any: return "any";
    case Role::Operator: return "operator";
  }
  return "?";
}

std::string_view to_string(Testing testing) {
  switch (testing) {
    case Testing::Wire: return "wire";
    case Testing::Upper: return "upper";
    case Testing::Untestable: return "untestable";
  }
  return "?";
}

std::optional<Level> level_from_string(std::string_view text) {
  return from_string(kLevels, text);
}
std::optional<Role> role_from_string(std::string_view text) {
  return from_string(kRoles, text);
}
std::optional<Testing> testing_from_string(std::string_view text) {
  return from_string(kTestings, text);
}

bool is_well_formed_id(std::string_view id) {
  constexpr std::string_view kPrefix = "RDCC-";
  if (!id.starts_with(kPrefix)) return false;
  id.remove_prefix(kPrefix.size());
  const auto dash = id.find('-');
  if (dash == std::string_view::npos) return false;
  const std::string_view area = id.substr(0, dash);
  const std::string_view number = id.substr(dash + 1);
  return std::find(kAreas.begin(), kAreas.end(), area) != kAreas.end() && number.size() >= 2 &&
         std::all_of(number.begin(), number.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string_view Requirement::area() const {
  std::string_view rest(id);
  rest.remove_prefix(std::min(rest.size(), std::string_view("RDCC-").size()));
  return rest.substr(0, rest.find('-'));
}

Catalog Catalog::load(const std::filesystem::path& path) {
  return parse(read_file(path), path);
}

Catalog Catalog::parse(std::string_view text, const std::filesystem::path& name) {
  const auto read = parse_json<nlohmann::json>(text);
  if (!read) throw CatalogError(name.string() + ": not valid JSON: " + read.error().describe());
  const nlohmann::json& document = *read;
  if (!document.is_array()) {
    throw CatalogError(name.string() + ": expected a JSON array of requirements, found " +
                       document.type_name());
  }
  Catalog catalog;
  for (std::size_t i = 0; i < document.size(); ++i) {
    const EntryReader reader(name, i, document[i]);
    Requirement r = reader.read();
    const auto [existing, inserted] = catalog.index_.emplace(r.id, i);
    if (!inserted) {
      reader.fail("id",
                  "duplicate ID, first used by entry [" + std::to_string(existing->second) + "]");
    }
    catalog.requirements_.push_back(std::move(r));
  }
  return catalog;
}

const Catalog& Catalog::built_in() {
  static const Catalog catalog = parse(built_in_catalog_json(), "requirements.json (built in)");
  return catalog;
}

const Requirement* Catalog::find(std::string_view id) const {
  const auto it = index_.find(id);
  return it == index_.end() ? nullptr : &requirements_[it->second];
}

}  // namespace rdcc::conformance
