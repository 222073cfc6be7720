// The data packets of a capture, related to their RDCC messages (shared by `rdcc pcap check`
// and `rdcc pcap stats`): the opaque transport on a data port (docs/data-transport.md) by the
// Binding Value of the CREDIT_REQUESTs, and RoCEv2 (IPv4 or IPv6) on its port through the
// reference Rocev2Responder (QPN and MSN).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "pcap_common.hpp"
#include "rdcc/checker/dense_index.hpp"
#include "rdcc/reference/bindings.hpp"

namespace rdcc::tools {

// An RDCC message as the data transport names it.
struct MessageRef {
  ref::Address receiver;
  ref::Address sender;
  std::uint32_t association_id = 0;
  std::uint64_t message_id = 0;
};

// (receiver, sender, association, message).
using MsgKey = std::tuple<AddrKey, AddrKey, std::uint32_t, std::uint64_t>;
[[nodiscard]] inline MsgKey msg_key(const MessageRef& r) {
  return {key_of(r.receiver), key_of(r.sender), r.association_id, r.message_id};
}

// A host (family and IP, port 0) as a key.
using IpKey = AddrKey;
[[nodiscard]] inline IpKey ip_of(const ref::Address& a) {
  AddrKey k = key_of(a);
  k.port = 0;
  return k;
}

class DataPackets {
 public:
  DataPackets(std::optional<std::uint16_t> data_port, std::uint16_t rocev2_port,
              std::optional<std::uint8_t> unscheduled_dscp)
      : data_port_(data_port), rocev2_port_(rocev2_port), unscheduled_dscp_(unscheduled_dscp) {}

  // How opaque data is framed (the project's framing by default).
  void set_framing(ref::DataFraming framing) { framing_ = std::move(framing); }

  // Whether a UDP datagram that is not RDCC goes to the data port or RoCEv2's.
  [[nodiscard]] bool reads(const ParsedFrame& u) const {
    return (data_port_ && u.destination.port == *data_port_) ||
           (rocev2_port_ != 0 && u.destination.port == rocev2_port_);
  }

  // A CREDIT_REQUEST: its Binding Value, so that data can name its message.
  void bind(const CreditRequest& req, const Roles::Sides& s);

  struct Read {
    enum class Kind : std::uint8_t {
      Undecodable,     // `text`: why, for a note
      Retransmission,  // RoCEv2: a PSN not newer than the last on its queue pair
      Unrequested,     // `text`: what it names, which no CREDIT_REQUEST in the capture does
      Message,         // octets [offset, offset + length) of `message`
    };
    Kind kind = Kind::Undecodable;
    MessageRef message;
    std::uint64_t offset = 0;
    std::uint32_t length = 0;
    bool marked_unscheduled = false;  // the opaque UNSCHEDULED flag, or the unscheduled DSCP
    std::string text;
  };
  // One data packet (reads() is true for it). A RoCEv2 packet's offset in its RDCC message is
  // the octets counted for that message before it.
  [[nodiscard]] Read read(const CapturedFrame& f, const ParsedFrame& u);

  // Whether the capture holds data of this message's binding between its two hosts (opaque:
  // any packet from the sender host to the receiver host; RoCEv2: any to its queue pair).
  [[nodiscard]] bool in_capture(const MessageRef& r) const;
  // Data packets that decoded.
  [[nodiscard]] std::uint64_t packets() const { return packets_; }

  // Data seen before any CREDIT_REQUEST names it is kept once keep_early() is called (at most
  // kEarlyPackets per opaque Message Identifier, or per RoCEv2 queue pair); early(req, s) then
  // hands it to the message that request names, as Message reads (the frame numbers the data's
  // own; RoCEv2: the packets of the RDMA messages the request's binding covers, their offsets
  // counted in capture order), so a capture on the path judges it as the receiver does its
  // early data (spec-notes 69, 70).
  void keep_early() { keep_early_ = true; }
  struct Early {
    std::uint64_t frame;
    Read read;
  };
  [[nodiscard]] std::vector<Early> early(const CreditRequest& req, const Roles::Sides& s);
  static constexpr std::size_t kEarlyPackets = 256;

 private:
  ref::DataFraming framing_;
  Read opaque(const CapturedFrame& f, const ParsedFrame& u);
  [[nodiscard]] std::vector<Early> early_rocev2(const CreditRequest& req, const Roles::Sides& s);
  Read rocev2(const CapturedFrame& f, const ParsedFrame& u);

  struct Binding {
    std::uint8_t kind = 0;
    std::uint32_t qpn = 0;            // RoCEv2: its destination queue pair
    std::uint64_t rocev2_octets = 0;  // RoCEv2: octets counted for it so far
  };
  // What is kept per request is numbered (DenseIndex): a capture holds millions of messages.
  // (receiver, sender) addresses; (that pair's number, Association ID, Message ID); a
  // (sender host, receiver host) pair; (host pair's number, Binding Value).
  struct PeerKey {
    AddrKey rx;
    AddrKey tx;
    friend bool operator==(const PeerKey&, const PeerKey&) = default;
  };
  struct PeerKeyHash {
    std::uint64_t operator()(const PeerKey& k) const {
      return ref::hash_mix(ref::hash_mix(0, k.rx), k.tx);
    }
  };
  struct BoundKey {
    std::uint32_t peer = 0;
    std::uint32_t association = 0;
    std::uint64_t message = 0;
    friend bool operator==(const BoundKey&, const BoundKey&) = default;
  };
  struct BoundKeyHash {
    std::uint64_t operator()(const BoundKey& k) const {
      return ref::hash_mix(ref::hash_mix(0, (std::uint64_t{k.peer} << 32) | k.association),
                           k.message);
    }
  };
  struct ValueKey {
    std::uint32_t hosts = 0;
    std::uint64_t value = 0;
    friend bool operator==(const ValueKey&, const ValueKey&) = default;
  };
  struct ValueKeyHash {
    std::uint64_t operator()(const ValueKey& k) const {
      return ref::hash_mix(ref::hash_mix(0, k.hosts), k.value);
    }
  };
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};
  std::uint32_t peer_number(const ref::Address& receiver, const ref::Address& sender);
  std::uint32_t hosts_number(const ref::Address& sender, const ref::Address& receiver);
  [[nodiscard]] std::uint32_t find_message(const MessageRef& r) const;
  [[nodiscard]] MessageRef message_ref(std::uint32_t message) const;
  struct QueuePair {
    bool started = false;
    std::uint32_t last_psn = 0;
  };
  using Qp = std::pair<IpKey, std::uint32_t>;  // receiver host, destination QPN
  template <class K, class V>
  using Map = std::unordered_map<K, V, KeyHash>;
  template <class K>
  using Set = std::unordered_set<K, KeyHash>;

  std::optional<std::uint16_t> data_port_;
  std::uint16_t rocev2_port_;
  std::optional<std::uint8_t> unscheduled_dscp_;
  std::uint64_t packets_ = 0;
  checker::DenseIndex<PeerKey, PeerKeyHash> peer_index_;
  std::vector<std::pair<ref::Address, ref::Address>> peers_;  // (receiver, sender)
  checker::DenseIndex<BoundKey, BoundKeyHash> message_index_;
  std::vector<Binding> bindings_;
  checker::DenseIndex<std::pair<IpKey, IpKey>, KeyHash> hosts_index_;  // (sender, receiver) hosts
  std::vector<bool> opaque_seen_;                                      // per host pair: data seen
  // (sender host, receiver host, Binding Value) -> message number for the opaque transport;
  // per receiver host a Rocev2Responder and (receiver host, QPN, Message ID) -> message number
  // for RoCEv2.
  checker::DenseIndex<ValueKey, ValueKeyHash> opaque_index_;
  std::vector<std::uint32_t> opaque_ids_;
  Map<IpKey, ref::Rocev2Responder> responders_;
  Map<std::tuple<IpKey, std::uint32_t, std::uint64_t>, std::uint32_t> rocev2_ids_;
  Map<Qp, QueuePair> queue_pairs_;
  Set<Qp> rocev2_seen_;
  bool keep_early_ = false;
  struct EarlyRocev2 {
    std::uint64_t frame;
    std::uint32_t msn;  // of the RDMA message the packet belongs to
    std::uint32_t octets;
    bool unscheduled_dscp;
  };
  Map<Qp, std::vector<EarlyRocev2>> early_rocev2_;
  Map<std::tuple<IpKey, IpKey, std::uint64_t>, std::vector<Early>> early_;
};

}  // namespace rdcc::tools
