// The sender's conforming variants (variants.hpp): each with the spec sentence that permits it.
#include "rdcc/reference/sender.hpp"
#include "variants_table.hpp"

namespace rdcc::ref::detail {

std::span<const SenderVariant> sender_variants() { return {}; }

}  // namespace rdcc::ref::detail
