// The rules of `rdcc pcap check`: a stable CHK-* ID, the spec's section, the sentence it
// checks, and the requirement catalog's IDs (conformance/catalog/requirements.json) whose text
// holds that sentence. check_rules_test holds the IDs and sentences to the catalog.
#pragma once

#include <span>
#include <string_view>
#include <vector>

namespace rdcc::tools {

struct CheckRule {
  std::string_view id;
  std::string_view section;
  std::string_view sentence;      // quoted exactly as the catalog (and the spec) has it
  std::string_view requirements;  // catalog IDs, space-separated; empty where the sentence
                                  // has no BCP 14 key word (so no catalog entry)
};

[[nodiscard]] std::span<const CheckRule> check_rules();
// The rule with this ID; the first rule if there is none (IDs come from this table).
[[nodiscard]] const CheckRule& check_rule(std::string_view id);
[[nodiscard]] std::vector<std::string_view> requirement_ids(const CheckRule& rule);
// The rule a violation of the reference InvariantChecker (its Violation::rule) shows; empty
// for a name it does not know (check_rules_test holds every kInvariantRules name to one).
[[nodiscard]] std::string_view check_rule_for_violation(std::string_view invariant_rule);

}  // namespace rdcc::tools
