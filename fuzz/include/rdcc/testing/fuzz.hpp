// Hooks that only the fuzz harnesses and their replay tests need (STYLE.md: one rdcc/testing/
// header, never the public API): a check that survives NDEBUG, the input as octets, and an
// oracle that says what decode() must do with a datagram. The oracle is written from the
// spec's rules (docs/spec-notes.md, "Order of decode errors") and the message-type table, not
// from the decoder, so that a harness compares two independent readings of the same octets.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <span>
#include <variant>

#include "rdcc/codec/codec.hpp"

namespace rdcc::testing {

// A violated property: say which and abort, so that libFuzzer keeps the input. assert() is
// compiled out of the RelWithDebInfo fuzz build.
[[noreturn]] inline void property_violated(const char* what, const char* file, int line) {
  std::fprintf(stderr, "%s:%d: fuzz property violated: %s\n", file, line, what);
  std::abort();
}

#define RDCC_FUZZ_CHECK(condition) \
  ((condition) ? void(0) : ::rdcc::testing::property_violated(#condition, __FILE__, __LINE__))

[[nodiscard]] inline std::span<const std::byte> input_octets(const std::uint8_t* data,
                                                             std::size_t size) noexcept {
  return std::as_bytes(std::span(data, size));
}

// Octets as one big-endian unsigned integer ("network byte order"), written independently of
// the codec's cursors.
[[nodiscard]] inline std::uint64_t load_big_endian(std::span<const std::byte> octets) noexcept {
  std::uint64_t v = 0;
  for (const auto b : octets) v = v << 8U | std::to_integer<std::uint64_t>(b);
  return v;
}

// What decode() must make of a datagram: the first failing check and the offset of its field,
// or, for a datagram that decodes, the size the spec defines for it and its Length.
struct DecodeVerdict {
  std::optional<DecodeErrorCode> error;
  std::size_t offset = 0;
  std::size_t defined_size = 0;
  std::size_t length = 0;
};

[[nodiscard]] inline DecodeVerdict expected_decode(std::span<const std::byte> d) noexcept {
  constexpr std::size_t kAddressFamilyOffset = 30;  // CONGESTION_REPORT's AF octet
  const auto at = [d](std::size_t i) { return std::to_integer<std::uint8_t>(d[i]); };
  const auto error = [](DecodeErrorCode code, std::size_t offset) {
    return DecodeVerdict{code, offset};
  };
  if (d.empty()) return error(DecodeErrorCode::Truncated, 0);
  if (at(0) >> 4U != kVersion) return error(DecodeErrorCode::BadVersion, 0);
  if (d.size() < 2) return error(DecodeErrorCode::Truncated, 1);
  const MessageTypeInfo* type = find_message_type(at(1));
  if (type == nullptr) return error(DecodeErrorCode::UnknownType, 1);
  if (d.size() < 4) return error(DecodeErrorCode::Truncated, 2);
  const std::size_t length = std::size_t{at(2)} << 8U | at(3);
  if (length < type->size) return error(DecodeErrorCode::LengthTooSmall, 2);
  if (length > d.size()) return error(DecodeErrorCode::LengthBeyondDatagram, 2);
  std::size_t defined = type->size;
  if (type->type == MessageType::CongestionReport) {
    const auto af = at(kAddressFamilyOffset);
    if (af != static_cast<std::uint8_t>(AddressFamily::IPv4) &&
        af != static_cast<std::uint8_t>(AddressFamily::IPv6)) {
      return error(DecodeErrorCode::BadAddressFamily, kAddressFamilyOffset);
    }
    if (af == static_cast<std::uint8_t>(AddressFamily::IPv6)) defined = type->max_size;
    if (length < defined) return error(DecodeErrorCode::LengthTooSmall, 2);
  }
  return DecodeVerdict{std::nullopt, 0, defined, length};
}

// `m` as decode() returns it after encode(): a header.length of 0 ("the type's size") is
// written, and so read back, as the defined size.
[[nodiscard]] inline Message with_defined_length(Message m) noexcept {
  Header& h = header_of(m);
  if (h.length == 0) h.length = defined_size(m);
  return m;
}

// The spec's "treat as" rules hold for the accessors of any message (docs/spec-notes.md item 7:
// the raw values are kept, the accessors apply the rules).
[[nodiscard]] inline bool accessors_follow_the_spec(const Message& m) noexcept {
  const Header& h = header_of(m);
  const auto flag = [&h](std::uint16_t bit) { return (h.flags & bit) != 0; };
  if (const auto* r = std::get_if<CreditRequest>(&m)) {
    return r->effective_class() == (r->traffic_class > 7 ? 7 : r->traffic_class) &&
           r->effective_weight() == (r->weight == 0 ? 1 : r->weight) &&
           r->has_deadline() == (r->deadline != 0);
  }
  if (const auto* g = std::get_if<CreditGrant>(&m)) {
    return g->pool() == flag(flag::kPool) && g->final() == flag(flag::kFinal) &&
           g->usable() == (g->pacing_rate != 0) &&
           g->effective_lifetime(123) == (g->lifetime == 0 ? 123 : g->lifetime);
  }
  if (const auto* a = std::get_if<AssocAccept>(&m)) {
    return a->parameter_update() == flag(flag::kParameterUpdate);
  }
  if (const auto* q = std::get_if<AssocRequest>(&m)) {
    return q->update_acknowledgment() == flag(flag::kUpdateAcknowledgment);
  }
  return true;
}

}  // namespace rdcc::testing
