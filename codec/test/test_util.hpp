#pragma once

#include <gtest/gtest.h>

#include <array>
#include <string_view>
#include <vector>

#include "rdcc/codec/codec.hpp"
#include "rdcc/codec/hex.hpp"

namespace rdcc::test {

inline std::vector<std::byte> bytes_of(std::string_view hex) {
  auto parsed = parse_hex(hex);
  EXPECT_TRUE(parsed.has_value());
  return parsed ? *parsed : std::vector<std::byte>{};
}

inline std::vector<std::byte> encode_to_vector(const Message& m) {
  std::vector<std::byte> out(encoded_size(m));
  auto n = encode(m, out);
  EXPECT_TRUE(n.has_value()) << (n ? "" : n.error().describe());
  return out;
}

}  // namespace rdcc::test

namespace rdcc::test {

// The message as decode() returns it: with the Length field it was encoded with.
inline Message normalized(Message m) {
  header_of(m).length = static_cast<std::uint16_t>(encoded_size(m));
  return m;
}

// Every field drawn at random (fixed seed in the caller): a generated set of messages.
template <class Rng>
struct Randomize {
  Rng& rng;
  template <class T>
  void operator()(const FieldSpec& f, T& v) {
    if (f.name == "address_family") return;
    v = static_cast<T>(rng());
  }
  void address(const FieldSpec&, IpAddress& a, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) a[i] = static_cast<std::uint8_t>(rng());
  }
};

template <class Rng>
std::vector<Message> random_messages(Rng& rng, std::size_t per_type) {
  std::vector<Message> out;
  for (std::size_t i = 0; i < per_type; ++i) {
    for (std::size_t t = 0; t < std::variant_size_v<Message>; ++t) {
      Message m = [t] {
        Message x;
        [&]<std::size_t... I>(std::index_sequence<I...>) {
          ((t == I ? (x = std::variant_alternative_t<I, Message>{}, 0) : 0), ...);
        }
        (std::make_index_sequence<std::variant_size_v<Message>>{});
        return x;
      }();
      std::visit(
          [&](auto& body) {
            body.header.version = kVersion;
            body.header.rsv = static_cast<std::uint8_t>(rng() & 0x0F);
            body.header.association_id = static_cast<std::uint32_t>(rng());
            body.header.epoch = static_cast<std::uint16_t>(rng());
            body.header.flags = static_cast<std::uint16_t>(rng());
            body.header.sequence_number = static_cast<std::uint32_t>(rng());
            if constexpr (std::is_same_v<std::decay_t<decltype(body)>, CongestionReport>) {
              body.address_family = (rng() & 1U) != 0 ? 4 : 6;
            }
            Randomize<Rng> r{rng};
            std::decay_t<decltype(body)>::describe(body, r);
          },
          m);
      out.push_back(m);
    }
  }
  return out;
}

}  // namespace rdcc::test
