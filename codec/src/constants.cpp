#include "rdcc/codec/constants.hpp"

#include <cctype>

namespace rdcc {
namespace {

bool iequals(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::toupper(static_cast<unsigned char>(a[i])) !=
        std::toupper(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::optional<MessageType> message_type_from_name(std::string_view name) noexcept {
  for (const auto& t : kMessageTypes) {
    if (iequals(t.name, name)) return t.type;
  }
  return std::nullopt;
}

std::optional<std::uint32_t> value_of(std::span<const NamedValue> table,
                                      std::string_view name) noexcept {
  for (const auto& entry : table) {
    if (iequals(entry.name, name)) return entry.value;
  }
  return std::nullopt;
}

}  // namespace rdcc
