// The variant tables of the three roles (variants.hpp), one source file each:
// variants_receiver.cpp, variants_sender.cpp, variants_crn.cpp.
#pragma once

#include <memory>
#include <span>

#include "rdcc/reference/variants.hpp"

namespace rdcc::ref::detail {

template <class Config, class Policy>
struct VariantEntry {
  VariantInfo info;
  // Sets the variant's configuration and policy on an endpoint of its role.
  void (*apply)(Config& config, std::shared_ptr<const Policy>& policy);
};

using ReceiverVariant = VariantEntry<ReceiverConfig, ReceiverPolicy>;
using SenderVariant = VariantEntry<SenderConfig, SenderPolicy>;
using CrnVariant = VariantEntry<CrnConfig, CrnPolicy>;

[[nodiscard]] std::span<const ReceiverVariant> receiver_variants();
[[nodiscard]] std::span<const SenderVariant> sender_variants();
[[nodiscard]] std::span<const CrnVariant> crn_variants();

}  // namespace rdcc::ref::detail
