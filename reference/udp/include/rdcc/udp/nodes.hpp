// The reference endpoints on real sockets: each node owns its sockets, a timer and one
// sans-IO endpoint, and runs the loop io.hpp documents on an EventLoop: after every input,
// drain poll_transmit() (and a sender's poll_data()), send the batch, re-arm the timer from
// next_timeout().
//
// Addressing on real sockets (docs/cli.md, "Nodes on real sockets"):
//  - every node's RDCC socket is bound to its IP and the domain's RDCC port (a CRN reports to
//    that port "without prior signaling");
//  - a sender sends its data from its RDCC socket, so the receiver relates data to the
//    association by the exact source address; data that a CRN forwards keeps the sender's IP
//    but not its port, and is related by IP (so senders behind one CRN need distinct IPs);
//  - opaque data goes to the receiver's data port, RoCEv2 packets to its RoCEv2 port (4791
//    unless configured); IPv4 and IPv6 for control and opaque data, IPv4 for RoCEv2.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "rdcc/reference/bindings.hpp"
#include "rdcc/reference/crn.hpp"
#include "rdcc/reference/framing.hpp"
#include "rdcc/reference/receiver.hpp"
#include "rdcc/reference/sender.hpp"
#include "rdcc/udp/loop.hpp"
#include "rdcc/udp/socket.hpp"

namespace rdcc::udp {

// ---- receiver -----------------------------------------------------------------------------

struct ReceiverNodeConfig {
  ref::ReceiverConfig endpoint;                       // endpoint.local: the RDCC address to bind
  std::shared_ptr<const ref::ReceiverPolicy> policy;  // a conforming variant's; null: the default
  std::uint16_t data_port = 0;                        // opaque data, on endpoint.local's IP
  ref::DataFraming data_framing;             // how opaque data is framed (the project's by default)
  std::optional<std::uint16_t> rocev2_port;  // RoCEv2 emulation, when set
  std::optional<std::uint8_t> unscheduled_dscp;  // data with this DSCP is unscheduled
  bool check_icrc = true;                        // discard RoCEv2 packets whose ICRC is wrong
};

struct ReceiverNodeStats {
  std::uint64_t data_packets = 0;
  std::uint64_t data_octets = 0;     // payload octets handed to the endpoint
  std::uint64_t data_ce = 0;         // packets that arrived ECN CE
  std::uint64_t data_malformed = 0;  // opaque or RoCEv2 packets that failed to decode
  std::uint64_t rocev2_bad_icrc = 0;
  std::uint64_t rocev2_packets = 0;
  std::uint64_t nacks_sent = 0;  // opaque transport NACKs (docs/data-transport.md)
};

class ReceiverNode {
 public:
  ReceiverNode(EventLoop& loop, ReceiverNodeConfig config, ref::Observer* observer = nullptr);
  ~ReceiverNode();
  ReceiverNode(const ReceiverNode&) = delete;
  ReceiverNode& operator=(const ReceiverNode&) = delete;

  [[nodiscard]] Address rdcc_address() const { return rdcc_.local(); }
  [[nodiscard]] Address data_address() const { return data_.local(); }
  [[nodiscard]] std::optional<Address> rocev2_address() const;
  [[nodiscard]] const ref::Receiver& receiver() const { return *receiver_; }
  [[nodiscard]] const ReceiverNodeStats& stats() const { return stats_; }
  [[nodiscard]] const ref::Rocev2Responder& responder() const { return responder_; }
  // Every counter: the endpoint's, the node's, the sockets'.
  [[nodiscard]] nlohmann::ordered_json stats_json() const;
  // Loses every association, grant and message, as a restarted receiver does, and comes back
  // with `epoch` ("A receiver that loses its state ... MUST use a different Epoch"); the
  // sockets stay bound.
  void restart(std::uint16_t epoch);

 private:
  void on_control_readable();
  void on_data_readable();
  void on_rocev2_readable();
  void service();

  EventLoop& loop_;
  ReceiverNodeConfig cfg_;
  ref::Observer* observer_;
  UdpSocket rdcc_;
  UdpSocket data_;
  std::optional<UdpSocket> rocev2_;
  std::unique_ptr<ref::Receiver> receiver_;
  ref::SystemRandom random_;
  ref::Rocev2Responder responder_;
  Timer timer_;
  ReceiverNodeStats stats_;
  std::vector<ref::Datagram> out_;
};

// ---- sender -------------------------------------------------------------------------------

struct SenderNodeConfig {
  ref::SenderConfig endpoint;                       // endpoint.local: the RDCC address to bind
  std::shared_ptr<const ref::SenderPolicy> policy;  // a conforming variant's; null: the default
  std::uint16_t rdcc_port = 0;  // the domain's RDCC port (receivers listen on it)
  std::uint16_t data_port = 0;  // receivers' opaque data port
  // The port data leaves from (opaque and RoCEv2), on the RDCC address's IP: never the RDCC
  // port, so that a capture (and any observer) tells data from control by port. 0: a port
  // the system picks.
  std::uint16_t data_source_port = 0;
  ref::DataFraming data_framing;  // how opaque data is framed (the project's by default)
  std::uint16_t rocev2_port = ref::kRocev2Port;
  std::optional<Address> data_via;  // send data here (a CRN's ingress) instead of the receiver
  bool ecn = true;                  // data sent ECT(0)
  std::uint64_t rdma_message_size = 65536;  // RoCEv2 post unit unless a message names one
  std::uint32_t rocev2_pmtu = 4096;
  std::optional<std::uint32_t> rocev2_qpn;  // destination QPN; default: random per receiver
};

struct SenderNodeStats {
  std::uint64_t data_packets = 0;
  std::uint64_t data_octets = 0;  // payload octets put on the data transport
  std::uint64_t rocev2_packets = 0;
  std::uint64_t nacks_received = 0;   // opaque transport NACKs (docs/data-transport.md)
  std::uint64_t nacks_malformed = 0;  // NACK flag set, ranges not decodable
};

class SenderNode {
 public:
  SenderNode(EventLoop& loop, SenderNodeConfig config, ref::Observer* observer = nullptr);
  ~SenderNode();
  SenderNode(const SenderNode&) = delete;
  SenderNode& operator=(const SenderNode&) = delete;

  // The application side. submit throws std::invalid_argument for a message this node cannot
  // carry (RoCEv2 over IPv6, a RoCEv2 plan that does not fit its fields).
  ref::MessageHandle submit(ref::MessageSpec spec);
  void cancel(ref::MessageHandle h);
  void return_credit(ref::MessageHandle h, std::uint64_t new_limit);
  void link_pause();
  [[nodiscard]] std::optional<ref::MessageStatus> status(ref::MessageHandle h) const;

  [[nodiscard]] Address rdcc_address() const { return rdcc_.local(); }
  [[nodiscard]] Address data_address() const { return data_.local(); }
  [[nodiscard]] const ref::Sender& sender() const { return *sender_; }
  [[nodiscard]] const SenderNodeStats& stats() const { return stats_; }
  [[nodiscard]] nlohmann::ordered_json stats_json() const;
  // Called after every pass of the loop (a message may have changed state).
  void set_on_progress(std::function<void()> f) { on_progress_ = std::move(f); }

 private:
  struct RocePlan {
    ref::Rocev2Plan plan;
    std::uint64_t length = 0;
  };
  void on_control_readable();
  bool on_nack(const InPacket& p, Time now);  // false: not a NACK
  // The monotonic clock as the sender is given it: never earlier than a time given before.
  Time clock();
  void service();
  void put_segment(const ref::DataSegment& s);
  void put_rocev2(const ref::DataSegment& s, const RocePlan& plan);
  void queue(const OutPacket& p, bool data);
  void flush();
  std::vector<std::byte>& next_buffer();

  EventLoop& loop_;
  SenderNodeConfig cfg_;
  UdpSocket rdcc_;
  UdpSocket data_;  // data leaves from here (SenderNodeConfig::data_source_port)
  ref::SystemRandom random_;
  std::unique_ptr<ref::Sender> sender_;
  Timer timer_;
  SenderNodeStats stats_;
  std::map<Address, ref::Rocev2Requester, bool (*)(const Address&, const Address&)> requesters_;
  std::map<std::uint64_t, RocePlan> roce_plans_;  // by binding value
  std::deque<ref::Datagram> control_out_;
  std::vector<std::vector<std::byte>> buffers_;
  std::size_t buffers_used_ = 0;
  // Packets to send, in order: a run of one socket's (out_data_: the data socket's) at a time,
  // so that a CREDIT_REQUEST still leaves before the data it announces.
  std::vector<OutPacket> out_;
  bool out_data_ = false;
  std::function<void()> on_progress_;
  Time given_{};  // the latest time given to the sender
};

// ---- CRN: a store-and-forward switch port on loopback -------------------------------------
// Opaque data only: forwarded data leaves from another UDP source port, which a RoCEv2 ICRC
// covers, so RoCEv2 packets go to the receiver directly.

struct CrnNodeConfig {
  ref::CrnConfig crn;                            // crn.local: the address reports are sent from
  std::shared_ptr<const ref::CrnPolicy> policy;  // a conforming variant's; null: the default
  Address listen;                                // data ingress (senders send opaque data here)
  Address forward_to;                            // the receiver's data address
  std::uint64_t ecn_threshold = 0;  // mark ECT packets CE above this occupancy; 0: never
};

struct CrnNodeStats {
  std::uint64_t enqueued = 0;
  std::uint64_t forwarded = 0;
  std::uint64_t forwarded_octets = 0;  // IP packet octets
  std::uint64_t tail_drops = 0;
  std::uint64_t ce_marked = 0;
  std::uint64_t max_occupancy = 0;  // octets
};

class CrnNode {
 public:
  CrnNode(EventLoop& loop, CrnNodeConfig config, ref::Observer* observer = nullptr);
  ~CrnNode();
  CrnNode(const CrnNode&) = delete;
  CrnNode& operator=(const CrnNode&) = delete;

  [[nodiscard]] Address listen_address() const { return ingress_.local(); }
  [[nodiscard]] const CrnNodeStats& stats() const { return stats_; }
  [[nodiscard]] const ref::Crn& crn() const { return *crn_; }
  [[nodiscard]] std::uint64_t occupancy() const { return occupancy_; }
  [[nodiscard]] nlohmann::ordered_json stats_json() const;
  // A queue observation from outside the node's own queue (the upper tester's `queue`,
  // docs/upper-tester.md): the CRN judges it now, as at a dequeue, and its reports go out.
  void observe(const ref::QueueObservation& observation);

 private:
  struct Queued {
    std::vector<std::byte> bytes;
    std::uint8_t tos = 0;
    Address source;
    Address destination;
    std::uint64_t size = 0;  // IP packet octets (UDP payload + IP and UDP headers)
  };
  void on_ingress();
  // Moves every packet whose serialization has ended by `until` to `sent`, in order.
  void serve(Time until, std::vector<Queued>& sent);
  // Serves the queue up to now, forwards what left it and arms the timer for the next.
  void dequeue_due();
  void forward(std::vector<Queued>& sent);
  void send_reports();
  UdpSocket& egress_for(const Address& source);

  EventLoop& loop_;
  CrnNodeConfig cfg_;
  UdpSocket ingress_;
  UdpSocket reports_;
  std::unique_ptr<ref::Crn> crn_;
  Timer timer_;
  std::deque<Queued> queue_;
  std::uint64_t occupancy_ = 0;
  std::map<Address, std::uint32_t, bool (*)(const Address&, const Address&)> flows_;
  std::map<Address, UdpSocket, bool (*)(const Address&, const Address&)> egress_;
  Time link_free_{};     // when the egress link finishes the packet it is sending
  Time last_arrival_{};  // the latest arrival the queue has taken in
  Time crn_time_{};      // the latest time the CRN was given
  CrnNodeStats stats_;
};

// Orders addresses (family, IP, port) for maps.
[[nodiscard]] bool address_less(const Address& a, const Address& b);

// The endpoint counters as JSON objects (every field, by its name).
[[nodiscard]] nlohmann::ordered_json to_json(const ref::ReceiverStats& s);
[[nodiscard]] nlohmann::ordered_json to_json(const ref::SenderStats& s);
[[nodiscard]] nlohmann::ordered_json to_json(const ref::CrnStats& s);
[[nodiscard]] nlohmann::ordered_json to_json(const SocketStats& s);
[[nodiscard]] nlohmann::ordered_json to_json(const ref::MessageStatus& s);

}  // namespace rdcc::udp
