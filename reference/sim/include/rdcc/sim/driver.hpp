// What every driver of the reference endpoints on a simulated network shares (reference/sim's
// Network and the ns-3 engine's, ns3/): the seeds of the endpoints' generators, which endpoint
// of a host with both roles a control datagram goes to, and the trace hash.
#pragma once

#include <cstddef>
#include <cstdint>

#include "rdcc/codec/messages.hpp"
#include "rdcc/reference/events.hpp"

namespace rdcc::sim {

// Derives independent, reproducible seeds (the SplitMix64 finalizer).
[[nodiscard]] std::uint64_t mix(std::uint64_t x) noexcept;
// The seed of host `host`'s sender, and of its receiver in `epoch`: the same on every engine,
// so that the same description draws the same nonces.
[[nodiscard]] std::uint64_t sender_seed(std::uint64_t seed, std::uint64_t host) noexcept;
[[nodiscard]] std::uint64_t receiver_seed(std::uint64_t seed, std::uint64_t host,
                                          std::uint16_t epoch) noexcept;

// The RDCC port of a sender on a host with a receiver (NetworkConfig::dual_role_sender_port).
[[nodiscard]] std::uint16_t dual_role_sender_port(std::uint16_t configured,
                                                  std::uint16_t rdcc_port) noexcept;

// FNV-1a, the trace hash of a run: every delivered packet, then every event's JSON.
inline constexpr std::uint64_t kFnvOffset = 0xcbf29ce484222325ULL;
void fnv(std::uint64_t& h, const void* data, std::size_t n) noexcept;
inline void fnv_u64(std::uint64_t& h, std::uint64_t v) noexcept {
  fnv(h, &v, sizeof v);
}
// The packets' hash folded with every event's JSON.
[[nodiscard]] std::uint64_t trace_hash(std::uint64_t packets, const ref::EventLog& log);

struct Recipients {
  bool sender = false;
  bool receiver = false;
};
// A host with both roles hands a datagram to the role that may receive its type ("RDCC
// Message Types"); CANCEL, ERROR and what does not decode go to both, each ignoring what is
// not its own. `m` is null when the datagram did not decode.
[[nodiscard]] Recipients recipients_of(const Message* m, bool has_sender,
                                       bool has_receiver) noexcept;

}  // namespace rdcc::sim
