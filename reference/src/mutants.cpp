// The mutants' table lives in the header; here the helpers that need code.
#include "rdcc/testing/mutants.hpp"

#include <algorithm>

namespace rdcc::testing {

std::vector<const MutantInfo*> mutants_of(MutantRole role) {
  std::vector<const MutantInfo*> out;
  for (const auto& m : kMutants) {
    if (m.role == role) out.push_back(&m);
  }
  return out;
}

Result<Message, DecodeError> decode_leniently(std::span<const std::byte> datagram,
                                              bool ignore_version, bool ignore_length) {
  std::vector<std::byte> copy(datagram.begin(), datagram.end());
  if (ignore_version && !copy.empty()) {
    copy[0] =
        static_cast<std::byte>((std::to_integer<unsigned>(copy[0]) & 0x0FU) | (kVersion << 4U));
  }
  if (ignore_length && copy.size() >= 4) {
    const std::size_t length =
        (std::to_integer<std::size_t>(copy[2]) << 8U) | std::to_integer<std::size_t>(copy[3]);
    const MessageTypeInfo* type = find_message_type(std::to_integer<std::uint8_t>(copy[1]));
    if (type != nullptr && (length < type->size || length > copy.size())) {
      const auto fixed = static_cast<std::uint16_t>(std::min<std::size_t>(copy.size(), 0xFFFF));
      copy[2] = static_cast<std::byte>(fixed >> 8U);
      copy[3] = static_cast<std::byte>(fixed & 0xFFU);
    }
  }
  return decode(copy);
}

}  // namespace rdcc::testing
