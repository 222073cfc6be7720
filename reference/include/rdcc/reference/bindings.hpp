// Transport bindings ("Transport Bindings"): how RDCC messages map onto the data transport.
//
//  - opaque (Binding Kind 2): the project's own small UDP data transport, specified in
//    docs/data-transport.md. Its header carries the Binding Value as the message identifier.
//  - rocev2 (Binding Kind 1): an RDCC message split into RDMA WRITE messages, each posted only
//    when credit covers all of its octets; real BTH/RETH/ICRC packets over UDP port 4791; and
//    the responder side, which counts payload octets per queue pair as an RNIC's counters do.
//
// Also here: the IPv4/UDP header both bindings (and the simulator's packet record) put in
// front of their payloads. Decoders are strict and report the first failing field with its
// offset, like the codec's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rdcc/codec/result.hpp"
#include "rdcc/reference/io.hpp"
#include "rdcc/wire/crc.hpp"
#include "rdcc/wire/ip.hpp"

namespace rdcc::ref {

// ---- errors -------------------------------------------------------------------------------

enum class BindingErrorCode : std::uint8_t {
  Truncated,            // the packet ends inside the named field
  BadMagic,             // opaque: Magic is not 0x5244 ("RD")
  BadVersion,           // opaque: Version is not 1; IP: version is not 4 (or 6 for RoCEv2)
  PayloadBeyondPacket,  // a length field names more octets than the packet holds
  OffsetOverflow,       // opaque: Offset + Payload Length exceeds 2^64 - 1
  BadHeaderLength,      // IPv4: IHL other than 5 (options are not used by either binding)
  NotUdp,               // IPv4: Protocol is not 17; IPv6: Next Header is not 17
  BadTransportVersion,  // BTH: TVer is not 0
  UnsupportedOpcode,    // BTH: not an RC RDMA WRITE First/Middle/Last/Only
  BadPadCount,          // BTH: PadCnt makes the payload negative
  BadIcrc,              // the ICRC field does not match the packet
  BufferTooSmall,       // encode: the caller's buffer cannot hold the packet
  FieldOutOfRange,      // encode: a value does not fit its field (QPN, PSN: 24 bits)
};
[[nodiscard]] std::string_view to_string(BindingErrorCode code) noexcept;

struct BindingError {
  BindingErrorCode code;
  std::size_t offset = 0;      // octet offset of the field concerned
  std::string_view field;      // e.g. "payload_length"
  std::uint64_t actual = 0;    // the offending value
  std::uint64_t expected = 0;  // what was needed; 0 if not applicable
  [[nodiscard]] std::string describe() const;
};

// ---- IPv4 + UDP ---------------------------------------------------------------------------

inline constexpr std::size_t kIpv4HeaderSize = wire::kIpv4HeaderSize;
inline constexpr std::size_t kUdpHeaderSize = wire::kUdpHeaderSize;
inline constexpr std::uint8_t kEcnNotEct = 0;
inline constexpr std::uint8_t kEcnEct0 = 2;
inline constexpr std::uint8_t kEcnCe = 3;

struct Ipv4Udp {
  IpAddress source{};       // first four octets
  IpAddress destination{};  // first four octets
  std::uint16_t source_port = 0;
  std::uint16_t destination_port = 0;
  std::uint8_t dscp = 0;  // 6 bits
  std::uint8_t ecn = 0;   // 2 bits
  std::uint8_t ttl = 64;
  std::uint16_t identification = 0;
  std::uint16_t total_length = 0;  // filled by encode, checked by decode
  std::uint16_t ip_checksum = 0;   // filled by encode
  std::uint16_t udp_checksum = 0;  // filled by encode (over the payload given)
};

// Writes IPv4 + UDP headers (28 octets) in front of `payload` into `out`, with both checksums.
[[nodiscard]] Result<std::size_t, BindingError> encode_ipv4_udp(Ipv4Udp h,
                                                                std::span<const std::byte> payload,
                                                                std::span<std::byte> out) noexcept;
// Reads the headers; the UDP payload is the rest up to the IPv4 Total Length.
struct Ipv4UdpPacket {
  Ipv4Udp header;
  std::span<const std::byte> payload;
};
[[nodiscard]] Result<Ipv4UdpPacket, BindingError> decode_ipv4_udp(
    std::span<const std::byte> packet) noexcept;

// ---- opaque (docs/data-transport.md) ------------------------------------------------------

inline constexpr std::uint16_t kOpaqueMagic = 0x5244;  // "RD"
inline constexpr std::uint8_t kOpaqueVersion = 1;
inline constexpr std::size_t kOpaqueHeaderSize = 24;
namespace opaque_flag {
inline constexpr std::uint8_t kLast = 0x01;         // the payload ends the message
inline constexpr std::uint8_t kUnscheduled = 0x02;  // sent in unscheduled mode (informative)
inline constexpr std::uint8_t kRecovers = 0x04;     // its sender resends octets a NACK names
inline constexpr std::uint8_t kNack = 0x08;         // a NACK: receiver to sender, ranges missing
}  // namespace opaque_flag
// A NACK names at most this many ranges (16 octets each); the next names the rest.
inline constexpr std::size_t kMaxNackRanges = 256;

struct OpaqueHeader {
  std::uint16_t magic = kOpaqueMagic;
  std::uint8_t version = kOpaqueVersion;
  std::uint8_t flags = 0;  // undefined bits are kept, not rejected
  std::uint32_t payload_length = 0;
  std::uint64_t message_identifier = 0;  // the CREDIT_REQUEST's Binding Value
  std::uint64_t offset = 0;              // octet offset of the payload within the message
  [[nodiscard]] bool last() const noexcept { return (flags & opaque_flag::kLast) != 0; }
  friend bool operator==(const OpaqueHeader&, const OpaqueHeader&) = default;
};

struct OpaquePacket {
  OpaqueHeader header;
  std::span<const std::byte> payload;  // exactly payload_length octets
  std::size_t trailing = 0;            // octets after the payload (not part of the packet)
};

// Header for one segment a sender released (io.hpp DataSegment).
[[nodiscard]] OpaqueHeader opaque_header_for(const DataSegment& s) noexcept;
// Writes header + payload; payload.size() must equal h.payload_length.
[[nodiscard]] Result<std::size_t, BindingError> encode_opaque(const OpaqueHeader& h,
                                                              std::span<const std::byte> payload,
                                                              std::span<std::byte> out) noexcept;
// Checks, in order: Magic, Version, Payload Length against the datagram, Offset overflow.
[[nodiscard]] Result<OpaquePacket, BindingError> decode_opaque(
    std::span<const std::byte> udp_payload) noexcept;
// A NACK packet: the header (flag NACK, the Binding Value, Offset 0) and one (start, end)
// pair of 64-bit offsets per range as its payload.
[[nodiscard]] std::vector<std::byte> encode_opaque_nack(const DataNack& nack);
// The ranges of a packet decode_opaque accepted with the NACK flag: Payload Length a multiple
// of 16 (PayloadBeyondPacket otherwise), every range non-empty (FieldOutOfRange), at most
// kMaxNackRanges of them.
[[nodiscard]] Result<std::vector<OctetRange>, BindingError> decode_opaque_nack(
    const OpaquePacket& packet);
// What the receiver's binding counted for one opaque packet.
[[nodiscard]] DataObservation observe_opaque(const OpaqueHeader& h, const Address& sender_rdcc,
                                             bool ce, bool unscheduled_dscp) noexcept;

// ---- RoCEv2 (Binding Kind 1) --------------------------------------------------------------

inline constexpr std::uint16_t kRocev2Port = 4791;
inline constexpr std::size_t kBthSize = wire::kBthSize;
inline constexpr std::size_t kRethSize = 16;
inline constexpr std::size_t kIcrcSize = wire::kIcrcSize;

// What a data packet carries on the wire besides its payload, over IPv4: the larger of the
// opaque transport's (IPv4, UDP, opaque header: 52) and RoCEv2's (IPv4, UDP, BTH, RETH, ICRC:
// 60). The receiver's default for ReceiverConfig::data_packet_overhead.
inline constexpr std::size_t kMaxDataPacketOverheadIpv4 =
    kIpv4HeaderSize + kUdpHeaderSize +
    (kOpaqueHeaderSize > kBthSize + kRethSize + kIcrcSize ? kOpaqueHeaderSize
                                                          : kBthSize + kRethSize + kIcrcSize);
inline constexpr std::uint16_t kDefaultPKey = 0xFFFF;

// RC RDMA WRITE opcodes (InfiniBand Architecture, BTH OpCode, RC transport 000).
enum class Rocev2Opcode : std::uint8_t {
  WriteFirst = 0x06,
  WriteMiddle = 0x07,
  WriteLast = 0x08,
  WriteOnly = 0x0A,
};
[[nodiscard]] std::string_view to_string(Rocev2Opcode op) noexcept;
[[nodiscard]] constexpr bool has_reth(Rocev2Opcode op) noexcept {
  return op == Rocev2Opcode::WriteFirst || op == Rocev2Opcode::WriteOnly;
}
[[nodiscard]] constexpr bool ends_message(Rocev2Opcode op) noexcept {
  return op == Rocev2Opcode::WriteLast || op == Rocev2Opcode::WriteOnly;
}

struct Bth {
  Rocev2Opcode opcode = Rocev2Opcode::WriteOnly;
  bool solicited = false;
  bool mig_req = true;
  std::uint8_t pad_count = 0;  // 2 bits; set by encode from the payload size
  std::uint8_t tver = 0;       // 4 bits
  std::uint16_t p_key = kDefaultPKey;
  bool fecn = false;
  bool becn = false;
  std::uint32_t destination_qp = 0;  // 24 bits
  bool ack_request = false;
  std::uint32_t psn = 0;  // 24 bits
  friend bool operator==(const Bth&, const Bth&) = default;
};

struct Reth {
  std::uint64_t virtual_address = 0;
  std::uint32_t r_key = 0;
  std::uint32_t dma_length = 0;
  friend bool operator==(const Reth&, const Reth&) = default;
};

inline constexpr std::size_t kIpv6HeaderSize = wire::kIpv6HeaderSize;

struct Rocev2Packet {
  // Addresses, DSCP/ECN, ports (destination 4791). Over IPv6 (`ipv6`) the addresses take all
  // 16 octets, DSCP and ECN are the Traffic Class and `ttl` is the Hop Limit.
  Ipv4Udp ip;
  bool ipv6 = false;
  Bth bth;
  std::optional<Reth> reth;  // present exactly for WRITE First/Only
  std::span<const std::byte> payload;
  std::uint32_t icrc = 0;  // as carried (decode) or computed (encode)
};

// Size of the IP packet encode_rocev2 writes for a payload of `payload_size` octets.
[[nodiscard]] std::size_t rocev2_packet_size(Rocev2Opcode op, std::size_t payload_size,
                                             bool ipv6 = false) noexcept;
// Writes IPv4 or IPv6 (`p.ipv6`) + UDP + BTH (+ RETH) + payload + pad + ICRC; pad count and
// lengths are computed. The UDP checksum is zero over IPv4, as RoCEv2 permits (the ICRC
// protects the packet), and computed over IPv6, where UDP requires it.
[[nodiscard]] Result<std::size_t, BindingError> encode_rocev2(const Rocev2Packet& p,
                                                              std::span<std::byte> out) noexcept;
// Decodes a whole IPv4 packet, or an IPv6 packet whose Next Header is UDP (its version field
// says which). With `check_icrc`, a mismatching ICRC is BadIcrc.
[[nodiscard]] Result<Rocev2Packet, BindingError> decode_rocev2(std::span<const std::byte> ip_packet,
                                                               bool check_icrc = true) noexcept;

// Sender side: how an RDCC message is split into RDMA messages.
struct Rocev2Plan {
  std::uint64_t post_unit = 0;      // RDMA message size (the last one may be shorter)
  std::uint16_t message_count = 0;  // RDMA messages
  std::uint64_t binding_value = 0;  // packed QPN / first MSN / count (codec/rocev2.hpp)
  std::uint32_t first_msn = 0;
};
// Splits `length` octets into RDMA messages of at most `rdma_message_size` octets (enlarged if
// more than 65535 messages would be needed: the count field is 16 bits). A zero-length
// message is one zero-length RDMA WRITE Only. FieldOutOfRange if the QPN or MSN exceed 24 bits.
[[nodiscard]] Result<Rocev2Plan, BindingError> plan_rocev2(std::uint64_t length,
                                                           std::uint64_t rdma_message_size,
                                                           std::uint32_t destination_qpn,
                                                           std::uint32_t first_msn) noexcept;
[[nodiscard]] std::vector<std::uint64_t> rdma_message_sizes(std::uint64_t length,
                                                            std::uint64_t post_unit);

// The requester (sending) side of one RC queue pair: PSNs and the MSNs its RDMA messages will
// be given by the responder. "Because messages on a queue pair are processed in order, the
// sender knows these numbers when it posts the messages."
class Rocev2Requester {
 public:
  Rocev2Requester(std::uint32_t destination_qp, std::uint32_t first_psn, std::uint32_t r_key,
                  std::uint64_t base_va, std::uint32_t pmtu);

  // Plans the next RDCC message on this queue pair and reserves its MSNs.
  [[nodiscard]] Result<Rocev2Plan, BindingError> plan_message(std::uint64_t length,
                                                              std::uint64_t rdma_message_size);

  // One packet's headers (no payload) for octets [offset, offset + length) of an RDCC message
  // planned with `plan`. A segment never crosses an RDMA message: `packetize` splits it.
  struct PacketHeaders {
    Bth bth;
    std::optional<Reth> reth;
    std::uint64_t offset = 0;  // within the RDCC message
    std::uint32_t length = 0;
  };
  [[nodiscard]] std::vector<PacketHeaders> packetize(const Rocev2Plan& plan, std::uint64_t length,
                                                     std::uint64_t offset,
                                                     std::uint32_t segment_length);

  [[nodiscard]] std::uint32_t next_msn() const { return next_msn_; }
  [[nodiscard]] std::uint32_t next_psn() const { return next_psn_; }

 private:
  std::uint32_t qp_;
  std::uint32_t next_psn_;
  std::uint32_t next_msn_ = 0;
  std::uint32_t r_key_;
  std::uint64_t base_va_;
  std::uint32_t pmtu_;
};

// The responder (receiving) side: per-queue-pair payload octet counters and MSNs, as an
// RNIC keeps them (RDMA WRITEs produce no completion at the responder), and the attribution
// of counted octets to RDCC messages by the first MSN and count of their Binding Value.
class Rocev2Responder {
 public:
  struct Counters {
    std::uint64_t payload_octets = 0;
    std::uint64_t packets = 0;
    std::uint32_t msn = 0;           // RDMA messages completed (24 bits, wraps)
    std::uint32_t expected_psn = 0;  // informative: the next PSN in order
    std::uint64_t out_of_order = 0;  // packets whose PSN was not the expected one
    bool started = false;
  };
  // One counted packet: the observation for the Receiver and the RDCC message it belongs to.
  struct Counted {
    DataObservation observation;
    std::uint32_t msn = 0;         // MSN of the RDMA message the packet belongs to
    std::uint64_t message_id = 0;  // 0: no registered RDCC message covers that MSN
  };

  // A CREDIT_REQUEST with the RoCEv2 binding was seen for `message_id`.
  void register_message(std::uint64_t binding_value, std::uint64_t message_id);
  // Counts one decoded packet from the sender whose RDCC address is `sender_rdcc`.
  [[nodiscard]] Counted count(const Rocev2Packet& p, const Address& sender_rdcc,
                              bool unscheduled_dscp);
  [[nodiscard]] const Counters* counters(std::uint32_t qpn) const;
  // The RDCC message owning MSN `msn` on queue pair `qpn`, or 0.
  [[nodiscard]] std::uint64_t attribute(std::uint32_t qpn, std::uint32_t msn) const;

 private:
  struct Span {
    std::uint32_t first_msn;
    std::uint16_t count;
    std::uint64_t message_id;
  };
  std::map<std::uint32_t, Counters> qps_;
  std::map<std::uint32_t, std::vector<Span>> spans_;
};

}  // namespace rdcc::ref
