// Prints every codec test vector as "NAME HEX", one per line: the boundary vectors
// (rdcc::testing::boundary_vectors(), the one source of the unit tests, fuzz seeds and golden
// pcaps) for the Python package's tests, which must see the same vectors, not a copy.
#include <iostream>
#include <vector>

#include "rdcc/codec/codec.hpp"
#include "rdcc/codec/hex.hpp"
#include "rdcc/testing/vectors.hpp"

int main() {
  for (const auto& v : rdcc::testing::boundary_vectors()) {
    std::vector<std::byte> wire(rdcc::encoded_size(v.message));
    if (!rdcc::encode(v.message, wire)) {
      std::cerr << "vectors_dump: " << v.name << " does not encode\n";
      return 1;
    }
    std::cout << v.name << ' ' << rdcc::to_hex(wire) << '\n';
  }
  return 0;
}
