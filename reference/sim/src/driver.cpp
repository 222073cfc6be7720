#include "rdcc/sim/driver.hpp"

#include <string>
#include <variant>

namespace rdcc::sim {

void fnv(std::uint64_t& h, const void* data, std::size_t n) noexcept {
  constexpr std::uint64_t kFnvPrime = 0x100000001b3ULL;
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= kFnvPrime;
  }
}

std::uint64_t trace_hash(std::uint64_t packets, const ref::EventLog& log) {
  for (const auto& e : log.events()) {
    const std::string s = e.to_json().dump();
    fnv(packets, s.data(), s.size());
  }
  return packets;
}

std::uint64_t mix(std::uint64_t x) noexcept {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30U)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27U)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31U);
}

std::uint64_t sender_seed(std::uint64_t seed, std::uint64_t host) noexcept {
  return mix(seed ^ mix(2 * host));
}

std::uint64_t receiver_seed(std::uint64_t seed, std::uint64_t host, std::uint16_t epoch) noexcept {
  return mix(seed ^ mix(2 * host + 1) ^ epoch);
}

std::uint16_t dual_role_sender_port(std::uint16_t configured, std::uint16_t rdcc_port) noexcept {
  return configured != 0 ? configured : static_cast<std::uint16_t>(rdcc_port + 2U);
}

Recipients recipients_of(const Message* m, bool has_sender, bool has_receiver) noexcept {
  Recipients r{has_sender, has_receiver};
  if (!has_sender || !has_receiver || m == nullptr) return r;
  switch (type_of(*m)) {
    case MessageType::AssocRequest:
    case MessageType::CreditRequest:
    case MessageType::SenderStatus:
    case MessageType::CreditReturn: r.sender = false; break;
    case MessageType::AssocAccept:
    case MessageType::CreditGrant:
    case MessageType::MsgDone: r.receiver = false; break;
    case MessageType::CongestionReport: {
      const auto& c = std::get<CongestionReport>(*m);
      r.sender = c.direction == static_cast<std::uint8_t>(ReportDirection::ToSender);
      r.receiver = !r.sender;
      break;
    }
    default: break;
  }
  return r;
}

}  // namespace rdcc::sim
