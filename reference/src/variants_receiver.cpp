// The receiver's conforming variants (variants.hpp): each with the spec sentence that permits it.
#include "rdcc/reference/receiver.hpp"
#include "variants_table.hpp"

namespace rdcc::ref::detail {

std::span<const ReceiverVariant> receiver_variants() { return {}; }

}  // namespace rdcc::ref::detail
