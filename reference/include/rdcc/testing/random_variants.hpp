// Random conforming variants: every free choice of the reference endpoints (the receiver's
// Credit Unit, budget, U, J, N_cu, Grant Lifetime, Epoch, grant windows, rate shares and
// controller, re-request answers, pool grants; the sender's segment sizes, pacing bursts,
// transmission mode, Message ID steps, request timeout, capabilities, Backlog Threshold; the
// CRN's report interval and Suggested Rate) drawn at random within what the spec allows, from a
// seed and an index. The named variants (rdcc/reference/variants.hpp) are choices somebody
// thought of; a random variant is a choice nobody chose. The conformance suite must pass every
// one (`rdcc-conform --iut reference --random-variants N --seed S`): a FAIL is a false failure.
//
// A random variant is a list of draws, each one free choice with its value and the spec
// sentence that leaves it free. A draw left out of the list is the reference's own choice, so
// a failure is shrunk by dropping draws (`keep_only`) while it still fails. The id
// `SEED:INDEX[:NAME,NAME...]` reproduces a variant, or a shrunk one.
//
// Applying one follows the named variants: configuration, then the scenario's own `config`
// (what a tester configures wins), then a policy built from the draws and the final
// configuration (policy.hpp); the rule code still enforces every MUST around it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rdcc/reference/crn.hpp"
#include "rdcc/reference/policy.hpp"
#include "rdcc/reference/receiver.hpp"
#include "rdcc/reference/sender.hpp"
#include "rdcc/reference/variants.hpp"

namespace rdcc::testing {

// One free choice: its name ("receiver.credit_unit"), the role it belongs to, what it means,
// and what the spec says that leaves it free (quoted; or a catalog ID whose text says it).
struct RandomChoice {
  std::string_view name;
  ref::VariantRole role;
  std::string_view meaning;  // what the value is, with its unit
  std::string_view permits;  // the spec's sentence, quoted as written, or empty
  std::string_view section;
  std::string_view requirement{};  // a catalog ID whose sentence permits it, or empty
};

// Every free choice a random variant draws, in drawing order.
[[nodiscard]] std::span<const RandomChoice> random_choices();
[[nodiscard]] const RandomChoice* find_random_choice(std::string_view name);

struct RandomDraw {
  const RandomChoice* choice = nullptr;
  std::uint64_t value = 0;
};

struct RandomVariant {
  std::uint64_t seed = 0;
  std::uint64_t index = 0;
  bool shrunk = false;            // some draws were dropped (keep_only)
  std::vector<RandomDraw> draws;  // in random_choices() order

  // `SEED:INDEX`, or `SEED:INDEX:NAME,NAME` for a shrunk variant: what parse_random_variant
  // takes back.
  [[nodiscard]] std::string id() const;
  // "receiver.credit_unit=1460 receiver.grant_window_cu=2 ...": the drawn values.
  [[nodiscard]] std::string values() const;
  [[nodiscard]] std::optional<std::uint64_t> value(std::string_view name) const;
  // The draws of one role.
  [[nodiscard]] std::vector<RandomDraw> of_role(ref::VariantRole role) const;
};

// The variant number `index` of `seed`: every choice drawn (the same seed and index, the same
// values, on every machine).
[[nodiscard]] RandomVariant draw_random_variant(std::uint64_t seed, std::uint64_t index);
// `v` with only the draws named (the others back to the reference's own choice).
[[nodiscard]] RandomVariant keep_only(const RandomVariant& v,
                                      const std::vector<std::string>& names);
// `SEED:INDEX[:NAME,...]`; the error names what is wrong.
[[nodiscard]] std::optional<RandomVariant> parse_random_variant(std::string_view id,
                                                                std::string* error);

// Applies a random variant to an endpoint of its role. `set_by_scenario(key)` tells whether the
// scenario's `config` sets that key: apply_config before the scenario's config, then
// apply_policy after it (derived values such as G_u follow the final G unless the scenario set
// them).
using SetByScenario = std::function<bool(std::string_view key)>;
void apply_config(const RandomVariant& v, ref::ReceiverConfig& c);
void apply_config(const RandomVariant& v, ref::SenderConfig& c);
void apply_config(const RandomVariant& v, ref::CrnConfig& c);
void apply_policy(const RandomVariant& v, const SetByScenario& set_by_scenario,
                  ref::ReceiverConfig& c, std::shared_ptr<const ref::ReceiverPolicy>& policy);
void apply_policy(const RandomVariant& v, const SetByScenario& set_by_scenario,
                  ref::SenderConfig& c, std::shared_ptr<const ref::SenderPolicy>& policy);
void apply_policy(const RandomVariant& v, const SetByScenario& set_by_scenario, ref::CrnConfig& c,
                  std::shared_ptr<const ref::CrnPolicy>& policy);

}  // namespace rdcc::testing
