// The rules of `rdcc pcap check` cite the requirement catalog: every ID must exist there and
// its text must hold the sentence the rule quotes, so that neither can drift from the other.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "check_rules.hpp"
#include "rdcc/conformance/catalog.hpp"
#include "rdcc/reference/invariants.hpp"

namespace rdcc::tools {
namespace {

const conformance::Catalog& catalog() {
  static const conformance::Catalog c = conformance::Catalog::load(RDCC_CATALOG_PATH);
  return c;
}

TEST(CheckRules, EveryCitedRequirementExists_AndHoldsTheQuotedSentence) {
  for (const CheckRule& rule : check_rules()) {
    for (std::string_view id : requirement_ids(rule)) {
      const conformance::Requirement* r = catalog().find(id);
      ASSERT_NE(r, nullptr) << rule.id << " cites " << id << ", which the catalog does not have";
      EXPECT_NE(r->text.find(rule.sentence), std::string::npos)
          << rule.id << " quotes \"" << rule.sentence << "\" but " << id << " says \"" << r->text
          << "\"";
    }
  }
}

// A rule without a catalog ID quotes a sentence without a BCP 14 key word: if the spec's
// sentence gains one, the catalog gets an entry and the rule must cite it.
TEST(CheckRules, RulesWithoutAnId_QuoteNoSentenceTheCatalogHolds) {
  for (const CheckRule& rule : check_rules()) {
    if (!requirement_ids(rule).empty()) continue;
    for (const conformance::Requirement& r : catalog().all()) {
      EXPECT_EQ(r.text.find(rule.sentence), std::string::npos)
          << rule.id << " should cite " << r.id << ", whose text holds its sentence";
    }
  }
}

// Every violation the reference InvariantChecker reports shows as a rule of the table.
TEST(CheckRules, EveryInvariantCheckerRule_MapsToARule) {
  for (std::string_view name : ref::kInvariantRules) {
    const std::string_view id = check_rule_for_violation(name);
    ASSERT_FALSE(id.empty()) << name << " has no CHK-* rule";
    EXPECT_EQ(check_rule(id).id, id) << name << " maps to " << id << ", not in the table";
  }
}

TEST(CheckRules, IdsAreUnique) {
  std::set<std::string_view> seen;
  for (const CheckRule& rule : check_rules()) EXPECT_TRUE(seen.insert(rule.id).second) << rule.id;
}

}  // namespace
}  // namespace rdcc::tools
