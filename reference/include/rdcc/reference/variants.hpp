// Conforming variants: named behaviours that the spec permits and the default reference does
// not choose, the dual of the mutants (rdcc/testing/mutants.hpp). The conformance suite proves
// it never fails wrongly by passing every variant of a role (`rdcc-conform --variant-matrix`).
//
// A variant is a behaviour policy injected at construction (policy.hpp), possibly with
// configuration of its own (a Lifetime, an idle time, the capabilities advertised); it is
// never a flag tested inside rule code. `rdcc receiver|sender|crn --variant NAME` and
// `rdcc-conform --iut reference --variant NAME` start an endpoint with one.
#pragma once

#include <memory>
#include <span>
#include <string_view>

#include "rdcc/reference/policy.hpp"

namespace rdcc::ref {

struct ReceiverConfig;
struct SenderConfig;
struct CrnConfig;

enum class VariantRole : unsigned char { Receiver, Sender, Crn };

[[nodiscard]] constexpr std::string_view to_string(VariantRole r) noexcept {
  switch (r) {
    case VariantRole::Receiver: return "receiver";
    case VariantRole::Sender: return "sender";
    case VariantRole::Crn: return "crn";
  }
  return "?";
}

struct VariantInfo {
  std::string_view name;  // the command-line name, e.g. "grant-whole-message"
  VariantRole role;
  std::string_view description;  // what the endpoint does differently from the default
  // The spec sentence that permits it, quoted as written; empty where that sentence is a
  // requirement of the catalog: then `requirement` names it, and its text is the catalog's
  // (each spec sentence is in the code base once, in conformance/catalog/requirements.json).
  std::string_view permits;
  std::string_view section;        // the section heading it sits under
  std::string_view requirement{};  // the catalog ID whose sentence permits it, or empty
};

// Every variant: receiver, then sender, then CRN.
[[nodiscard]] std::span<const VariantInfo> variants();
[[nodiscard]] const VariantInfo* find_variant(std::string_view name);

// Applies variant `name` to an endpoint of its role: sets its configuration and, where it
// decides differently from the default, its policy. False when `name` is no variant of
// that role (the caller reports it).
bool apply_variant(std::string_view name, ReceiverConfig& config,
                   std::shared_ptr<const ReceiverPolicy>& policy);
bool apply_variant(std::string_view name, SenderConfig& config,
                   std::shared_ptr<const SenderPolicy>& policy);
bool apply_variant(std::string_view name, CrnConfig& config,
                   std::shared_ptr<const CrnPolicy>& policy);

}  // namespace rdcc::ref
