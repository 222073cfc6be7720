// The lossy incast of issue 18, for its test (reference/sim/test/loss_recovery_test.cpp) and
// its benchmark (sim_loss_bench): N senders each send one message to one receiver at once
// (docs/examples/sim/incast-8.json: 100 Gbit/s links of 1 us, G = 2 MiB, G_u = 512 KiB), with
// data packets lost and control packets lost or reordered. Opaque data recovers by NACK
// (docs/data-transport.md, "Loss recovery").
#pragma once

#include <cstdint>
#include <string>

#include "rdcc/sim/network.hpp"

namespace rdcc::sim {

struct LossIncast {
  std::uint64_t seed = 1;
  int senders = 8;
  std::uint64_t length = 4U << 20U;
  double data_loss = 0;
  double control_loss = 0;
  double reorder = 0;                // of data and control packets
  Duration limit = ref::seconds(2);  // virtual time the run may take
};

struct LossIncastResult {
  bool done = false;  // every message DONE within the limit
  Duration last{};    // when the last one was done
  Duration ideal{};   // every octet through the receiver's link, plus four link delays
  std::uint64_t violations = 0;
  std::string first_violation;
  NetworkStats network;
  ref::ReceiverStats receiver;
};

// The cases of issue 18: data loss alone, with 1% control loss, or with 10% reordering.
enum class LossMix : std::uint8_t { DataOnly, ControlLoss, Reordering };
[[nodiscard]] LossIncast loss_case(double data_loss, LossMix mix);
[[nodiscard]] const char* to_string(LossMix mix);

[[nodiscard]] LossIncastResult run_loss_incast(const LossIncast& scenario);

}  // namespace rdcc::sim
