// The reference endpoints on ns-3 (docs/ns3.md): the same Sender, Receiver and Crn as
// reference/sim, driven the same way (io.hpp: after any on_* call drain poll_transmit(), poll
// data only while the host's NIC is idle, re-arm the timer from next_timeout()), but as ns-3
// Applications over ns-3 UDP sockets, on ns-3 point-to-point links and queue discs: one switch
// (a star, as reference/sim) or a leaf-spine fabric with ECMP. The opaque data transport is
// UDP; ECN marks come from ns-3's RED queue disc; a CRN on every switch observes the data
// leaving each port's queue disc. One InvariantChecker sees every packet, as in reference/sim.
//
// The interface follows rdcc::sim::Network, so `rdcc sim --engine ns3` runs the same
// descriptions. Differences (docs/ns3.md): no impairments, no RoCEv2, no raw injection; the
// pcap is written by ns-3 as it runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "rdcc/checker/invariants.hpp"
#include "rdcc/reference/events.hpp"
#include "rdcc/reference/receiver.hpp"
#include "rdcc/reference/sender.hpp"
#include "rdcc/sim/network.hpp"

namespace rdcc::ns3sim {

using ref::Address;
using ref::Duration;
using ref::Time;
using sim::HostId;
using sim::LinkConfig;
using sim::SubmitId;

struct Topology {
  enum class Kind : std::uint8_t { Star, LeafSpine };
  Kind kind = Kind::Star;
  std::size_t leaves = 0;  // leaf-spine: hosts fill the leaves in order, h per leaf
  std::size_t spines = 0;
  std::size_t hosts_per_leaf = 0;
  LinkConfig fabric_link;  // every leaf <-> spine link
  bool ecmp = true;        // spray packets over the equal-cost paths (ns-3 global routing)
  // Switches forward through ns-3's IPv4 stack (Ipv4L3Protocol, whose traces then fire) rather
  // than the fabric's own forwarding plane: the same packets, at a higher cost per hop.
  bool stack_forwarding = false;
};

class Network {
 public:
  // config: as reference/sim's, less the impairments and RoCEv2 (refused: std::invalid_argument).
  Network(sim::NetworkConfig config, Topology topology);
  ~Network();
  Network(const Network&) = delete;
  Network& operator=(const Network&) = delete;

  // Hosts, in order: host i has the first address of the i-th /30 of 10.0.0.0/8. A host takes
  // a receiver, a sender or both (the receiver first; the sender then takes
  // dual_role_sender_port).
  HostId add_host(LinkConfig link = {});
  // `policy`: the endpoint's (policy.hpp); null: the reference's. A restarted receiver keeps it.
  void attach_receiver(HostId host, ref::ReceiverConfig config,
                       std::shared_ptr<const ref::ReceiverPolicy> policy = nullptr);
  void attach_sender(HostId host, ref::SenderConfig config,
                     std::shared_ptr<const ref::SenderPolicy> policy = nullptr);
  [[nodiscard]] Address address(HostId host) const;
  [[nodiscard]] std::size_t host_count() const;

  SubmitId submit(HostId sender, ref::MessageSpec spec, Time at);
  void cancel(SubmitId id, Time at);
  [[nodiscard]] std::optional<ref::MessageStatus> status(SubmitId id) const;
  [[nodiscard]] std::size_t submitted() const;
  [[nodiscard]] bool all_finished() const;
  void restart_receiver(HostId host, std::uint16_t epoch, Time at);
  void at(Time t, std::function<void(Network&)> action);

  // Every packet delivered to a host, written by ns-3 (raw IPv4) while the run goes.
  void write_pcap(const std::string& file);

  // The ns-3 topology is built at the first run, from the hosts added so far.
  bool run_until_done(Time limit);
  void run_until_idle(Time limit);
  [[nodiscard]] Time now() const;

  [[nodiscard]] checker::InvariantChecker& checker();
  [[nodiscard]] const ref::EventLog& events() const;
  [[nodiscard]] const sim::NetworkStats& stats() const;
  [[nodiscard]] sim::NetworkConfig& config();
  [[nodiscard]] std::uint64_t trace_hash() const;
  [[nodiscard]] ref::Receiver* receiver(HostId host);
  [[nodiscard]] std::uint64_t peak_queue(HostId host) const;
  [[nodiscard]] std::uint64_t queue_octets(HostId host) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rdcc::ns3sim
