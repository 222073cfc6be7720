// A deterministic discrete-event network in virtual time (ARCHITECTURE.md, "sim/").
//
// Topology: a star. Every host has one NIC link to one switch; the switch has one egress port
// per host, each with a strict-priority pair of FIFO queues (control above data), a capacity
// with tail drop and an optional ECN marking threshold, and an optional CRN that observes
// every data dequeue. Links serialize at their rate and then add their propagation delay.
//
// The endpoints are driven exactly as io.hpp documents: after any on_* call the simulator
// drains poll_transmit(), calls the sender's poll_data() only while the host's NIC is free,
// and re-arms the endpoint's timer from next_timeout(). Every control datagram sent and
// delivered, every segment sent and every data arrival is shown to one InvariantChecker.
//
// Same seed, same run: every random draw comes from SeededRandom instances derived from the
// seed, events at the same instant run in the order they were scheduled, and trace_hash()
// covers every delivered packet and every endpoint event.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rdcc/checker/invariants.hpp"
#include "rdcc/reference/bindings.hpp"
#include "rdcc/reference/crn.hpp"
#include "rdcc/reference/events.hpp"
#include "rdcc/reference/receiver.hpp"
#include "rdcc/reference/sender.hpp"

namespace rdcc::sim {

using ref::Address;
using ref::Duration;
using ref::Time;

struct LinkConfig {
  std::uint32_t rate_mbps = 100000;
  Duration delay = ref::microseconds(1);  // propagation, each way, host <-> switch
};

struct QueueConfig {
  std::uint64_t capacity = 4U << 20U;          // octets per queue; tail drop beyond
  std::optional<std::uint64_t> ecn_threshold;  // mark CE on ECT packets enqueued above it
};

// Per-packet impairments, drawn independently for each packet from the network's generator.
struct Impairments {
  double loss = 0;       // probability a packet is dropped
  double duplicate = 0;  // probability a second copy is sent
  double reorder = 0;    // probability a packet is held back by reorder_delay
  Duration reorder_delay = ref::microseconds(5);
  double delay = 0;  // probability of an extra delay uniform in (0, max_extra_delay]
  Duration max_extra_delay = ref::microseconds(10);
};

struct NetworkConfig {
  std::uint64_t seed = 1;
  std::uint16_t rdcc_port = 50000;  // "MUST NOT assume a default port": the sim picks one
  std::uint16_t data_port = 50001;  // opaque data transport (docs/data-transport.md)
  QueueConfig queue;
  Impairments control;                // RDCC datagrams, including CRN reports
  Impairments data;                   // data packets
  std::optional<ref::CrnConfig> crn;  // queue_threshold/capacity/service rate filled if 0
  std::optional<std::uint8_t> unscheduled_dscp;
  std::uint8_t control_dscp = 46;
  bool ecn_capable = true;                        // data packets sent ECT(0)
  std::uint64_t rdma_message_size = 256U << 10U;  // RoCEv2 split when the spec leaves it 0
  std::uint32_t rocev2_pmtu = 4096;
  bool record_packets = true;
  std::size_t snap_length = 256;  // octets kept per recorded packet (orig_length keeps the size)
  bool record_events = true;      // keep endpoint events in the log (benchmarks turn it off)
  // Every sender timer fires this much after the time next_timeout() asked for: the late
  // wake-ups of real timers on a loaded host (the paced sender makes them up, within rule 4).
  Duration sender_timer_lateness{};
  // The RDCC port of a sender on a host that already has a receiver (0: rdcc_port + 2): the
  // invariant checker tells the roles apart by address, so the two need not share one.
  std::uint16_t dual_role_sender_port = 0;
  // How many finished messages status() answers for beyond those still open: the oldest
  // finished ones are forgotten first (status() then says nullopt, as Sender::status does for
  // a retired handle). Every one by default; a long soak bounds it so that what the simulator
  // keeps grows with the live messages, not with every message submitted.
  std::size_t finished_status_capacity = std::numeric_limits<std::size_t>::max();
};

// The configuration of a CRN at `local` in a network described by `cfg` (which must hold a
// `crn`): what the description leaves 0 or empty is taken from the network, the RDCC port, the
// queue's capacity (and a quarter of it as the threshold) and the unscheduled DSCP. Both
// engines (this simulator and the ns-3 one) place their CRNs with it.
ref::CrnConfig crn_config_at(const NetworkConfig& cfg, Address local);

using HostId = std::size_t;

// One packet on the wire, for the golden pcaps: full IPv4/UDP addressing, DSCP and ECN.
struct PacketRecord {
  enum class Point : std::uint8_t { Sent, Delivered, Dropped };
  Time time;
  Point point = Point::Sent;
  Address from;  // IP and UDP source port
  Address to;    // IP and UDP destination port
  std::uint8_t dscp = 0;
  std::uint8_t ecn = 0;
  bool control = false;
  std::uint32_t orig_length = 0;  // the whole IPv4 packet
  std::vector<std::byte> bytes;   // the IPv4 packet, up to snap_length octets
};

struct NetworkStats {
  std::uint64_t control_sent = 0;
  std::uint64_t control_delivered = 0;
  std::uint64_t control_lost = 0;
  std::uint64_t control_duplicated = 0;
  std::uint64_t control_reordered = 0;
  std::uint64_t control_delayed = 0;
  std::uint64_t data_packets_sent = 0;
  std::uint64_t data_packets_delivered = 0;
  std::uint64_t data_octets_delivered = 0;  // payload
  std::uint64_t data_lost = 0;
  std::uint64_t data_duplicated = 0;
  std::uint64_t tail_drops = 0;
  std::uint64_t ecn_marked = 0;
  std::uint64_t decode_failures = 0;
  std::uint64_t nacks_sent = 0;  // opaque transport NACKs (docs/data-transport.md)
  std::uint64_t nacks_delivered = 0;
  std::uint64_t data_octets_sent = 0;    // payload octets of opaque data segments
  std::uint64_t resent_octets_sent = 0;  // of which resent after a NACK
  std::uint64_t events_processed = 0;
};

// A message submitted through the simulator (index into its table).
using SubmitId = std::size_t;

class Network {
 public:
  explicit Network(std::uint64_t seed);
  explicit Network(NetworkConfig config);
  ~Network();
  Network(const Network&) = delete;
  Network& operator=(const Network&) = delete;

  // Hosts. Host i has IPv4 address 10.0.x.y; its endpoints use the RDCC port.
  HostId add_host(LinkConfig link = {});
  // A new host with one endpoint. The simulator sets `local` (and adds the CRN address to
  // `crn_addresses` when a CRN is configured).
  // `policy`: the endpoint's (policy.hpp: a conforming variant's, a mutant's); null: the
  // reference's. A restarted receiver keeps it.
  HostId add_receiver(ref::ReceiverConfig config, LinkConfig link = {},
                      std::shared_ptr<const ref::ReceiverPolicy> policy = nullptr);
  HostId add_sender(ref::SenderConfig config, LinkConfig link = {},
                    std::shared_ptr<const ref::SenderPolicy> policy = nullptr);
  // A host may carry both: attach the receiver first, the sender then takes
  // dual_role_sender_port.
  void attach_receiver(HostId host, ref::ReceiverConfig config,
                       std::shared_ptr<const ref::ReceiverPolicy> policy = nullptr);
  void attach_sender(HostId host, ref::SenderConfig config,
                     std::shared_ptr<const ref::SenderPolicy> policy = nullptr);

  [[nodiscard]] Address address(HostId host) const;  // the host's RDCC address
  [[nodiscard]] std::size_t host_count() const;

  // The application: hand `spec` to the host's Sender at time `at`. spec.receiver is kept if
  // set, else filled from `to`. A RoCEv2 message whose binding_value is 0 is planned by the
  // simulator's queue pair toward that receiver (binding value and post unit set).
  SubmitId submit(HostId sender, ref::MessageSpec spec, Time at);
  SubmitId submit(HostId sender, HostId receiver, std::uint64_t length, Time at,
                  rdcc::BindingKind binding = rdcc::BindingKind::Opaque);
  // The application abandons a submitted message (Sender::cancel: CANCEL) or gives back its
  // credit beyond `new_limit` (Sender::return_credit: CREDIT_RETURN) at `at`.
  void cancel(SubmitId id, Time at);
  void return_credit(SubmitId id, std::uint64_t new_limit, Time at);
  [[nodiscard]] std::optional<ref::MessageStatus> status(SubmitId id) const;
  [[nodiscard]] std::size_t submitted() const;
  [[nodiscard]] bool all_done() const;      // every submitted message is DONE
  [[nodiscard]] bool all_finished() const;  // every submitted message is DONE or ABORTED

  // A receiver that loses its state: replaced at `at` by a fresh Receiver with `epoch`.
  void restart_receiver(HostId host, std::uint16_t epoch, Time at);
  // A raw UDP datagram from `from` (its RDCC address, or `from_port`) to `to` at `at`, through
  // the NIC, link, switch and impairments like any packet: for link and queue tests, and for
  // peers that are not reference endpoints. `control` selects the control queue and impairments.
  void inject(HostId from, const Address& to, std::vector<std::byte> udp_payload, Time at,
              bool control, std::uint8_t dscp = 0, std::uint8_t ecn = 0);
  // Arbitrary code at a virtual time (cancel, return credit, change impairments ...).
  void at(Time t, std::function<void(Network&)> action);

  void run_until(Time t);
  // Until every submitted message is finished and no packet is in flight, or `limit`.
  // Returns true if the messages finished.
  bool run_until_done(Time limit);
  // Until no event is left, or `limit`.
  void run_until_idle(Time limit);
  [[nodiscard]] Time now() const;

  [[nodiscard]] checker::InvariantChecker& checker();
  [[nodiscard]] const ref::EventLog& events() const;
  [[nodiscard]] const std::vector<PacketRecord>& packets() const;
  [[nodiscard]] const NetworkStats& stats() const;
  [[nodiscard]] NetworkConfig& config();
  // FNV-1a over every delivered packet (time, addresses, octets) and every event's JSON.
  [[nodiscard]] std::uint64_t trace_hash() const;

  [[nodiscard]] ref::Sender* sender(HostId host);
  [[nodiscard]] ref::Receiver* receiver(HostId host);
  [[nodiscard]] ref::Crn* crn();
  [[nodiscard]] const ref::Rocev2Responder* rocev2_responder(HostId host) const;
  // Peak occupancy (octets) of the data queue of the switch port toward `host`.
  [[nodiscard]] std::uint64_t peak_queue(HostId host) const;
  // Its occupancy now (octets), for plots.
  [[nodiscard]] std::uint64_t queue_octets(HostId host) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rdcc::sim
