// The crn's conforming variants (variants.hpp): each with the spec sentence that permits it.
#include "rdcc/reference/crn.hpp"
#include "variants_table.hpp"

namespace rdcc::ref::detail {

std::span<const CrnVariant> crn_variants() { return {}; }

}  // namespace rdcc::ref::detail
