// The registry of conforming variants (variants.hpp): the three roles' tables in one list.
#include "rdcc/reference/variants.hpp"

#include <vector>

#include "variants_table.hpp"

namespace rdcc::ref {

namespace {

template <class Entry>
void append_infos(std::vector<VariantInfo>& out, std::span<const Entry> table) {
  for (const auto& e : table) out.push_back(e.info);
}

template <class Entry, class Config, class Policy>
bool apply_from(std::span<const Entry> table, std::string_view name, Config& config,
                std::shared_ptr<const Policy>& policy) {
  for (const auto& e : table) {
    if (e.info.name != name) continue;
    e.apply(config, policy);
    return true;
  }
  return false;
}

}  // namespace

std::span<const VariantInfo> variants() {
  static const std::vector<VariantInfo> all = [] {
    std::vector<VariantInfo> v;
    append_infos(v, detail::receiver_variants());
    append_infos(v, detail::sender_variants());
    append_infos(v, detail::crn_variants());
    return v;
  }();
  return all;
}

const VariantInfo* find_variant(std::string_view name) {
  for (const auto& v : variants()) {
    if (v.name == name) return &v;
  }
  return nullptr;
}

bool apply_variant(std::string_view name, ReceiverConfig& config,
                   std::shared_ptr<const ReceiverPolicy>& policy) {
  return apply_from(detail::receiver_variants(), name, config, policy);
}

bool apply_variant(std::string_view name, SenderConfig& config,
                   std::shared_ptr<const SenderPolicy>& policy) {
  return apply_from(detail::sender_variants(), name, config, policy);
}

bool apply_variant(std::string_view name, CrnConfig& config,
                   std::shared_ptr<const CrnPolicy>& policy) {
  return apply_from(detail::crn_variants(), name, config, policy);
}

}  // namespace rdcc::ref
