// `rdcc sim`: a simulation described in a JSON file (docs/sim.md), read strictly: an unknown
// key, a value of the wrong type or out of range is an error naming the file and the key's
// path (e.g. "incast.json: receivers[0].budget: ..."), and a JSON syntax error names the line
// and column.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rdcc/reference/crn.hpp"
#include "rdcc/reference/receiver.hpp"
#include "rdcc/reference/sender.hpp"
#include "rdcc/sim/network.hpp"
#include "rdcc/testing/mutants.hpp"

namespace rdcc::tools {

struct SimMessage {
  std::vector<std::size_t> senders;  // indexes into SimConfig::senders
  std::size_t receiver = 0;          // index into SimConfig::receivers
  ref::MessageSpec spec;             // receiver address filled by the simulator
  ref::Duration at{};
  std::size_t count = 1;  // submitted `count` times, `interval` apart
  ref::Duration interval{};
};

struct SimAction {
  ref::Duration at{};
  enum class Kind : std::uint8_t { RestartReceiver, Cancel } kind = Kind::RestartReceiver;
  std::size_t receiver = 0;  // RestartReceiver
  std::uint16_t epoch = 0;   // RestartReceiver
  std::size_t message = 0;   // Cancel: the index of the submitted message (table order)
};

struct SimHost {
  std::string name;
  sim::LinkConfig link;
  // A sender on the host of this receiver (index into SimConfig::receivers), not on its own:
  // the workloads whose hosts both send and receive.
  std::optional<std::size_t> with_receiver;
  testing::MutantSet mutants;  // the endpoint's deliberate faults ("mutants", docs/sim.md)
  // A receiver's policy: its mutants' (rdcc/testing/receiver_mutants.hpp); null: the reference.
  std::shared_ptr<const ref::ReceiverPolicy> receiver_policy;
};

// The network's shape (docs/sim.md, "topology"). The deterministic simulator is a star; the
// ns-3 engine also builds a leaf-spine, the hosts filling the leaves in order (receivers first).
struct SimTopology {
  enum class Kind : std::uint8_t { Star, LeafSpine } kind = Kind::Star;
  std::size_t leaves = 0;
  std::size_t spines = 0;
  std::size_t hosts_per_leaf = 0;
  sim::LinkConfig fabric_link;  // leaf <-> spine
  bool ecmp = true;
};

struct SimConfig {
  std::string file;  // for messages
  sim::NetworkConfig network;
  sim::LinkConfig link;  // every host's, unless the host says otherwise
  std::vector<std::pair<SimHost, ref::ReceiverConfig>> receivers;
  std::vector<std::pair<SimHost, ref::SenderConfig>> senders;
  std::vector<SimMessage> messages;
  std::vector<SimAction> actions;
  ref::Duration limit = ref::seconds(10);  // virtual time the run may take
  ref::Duration sample = {};               // plot sampling interval (0: chosen from the run)
  SimTopology topology;
  std::string workload;  // the workload's kind when one generated the tables
};

// Throws std::invalid_argument with "FILE: PATH: what is wrong". "-" reads standard input.
[[nodiscard]] SimConfig load_sim_config(const std::string& path);
[[nodiscard]] SimConfig parse_sim_config(const std::string& text, const std::string& file);

}  // namespace rdcc::tools
