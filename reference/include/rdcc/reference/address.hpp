// The endpoints name their peers by the one address type of the toolkit (rdcc/wire/address.hpp).
#pragma once

#include "rdcc/wire/address.hpp"

namespace rdcc::ref {

using wire::Address;
using wire::AddressHash;
using wire::AddressKey;
using wire::AddressKeyHash;
using wire::hash_mix;
using wire::key_of;
using wire::same_octets;

}  // namespace rdcc::ref
