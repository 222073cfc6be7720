// Plain host-order value types for the ten RDCC message types ("Message Formats").
//
// Raw field values are kept exactly as received: a conformance tool must be able to say
// "Class was 9". The spec's "treat as" rules are accessors (effective_class(), ...), applied by
// endpoints, never by the decoder.
//
// Each body type lists its fields once, in wire order, in `describe(message, visitor)`. Encode,
// decode, the JSON mapping and the text form all walk that one list.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <variant>

#include "rdcc/codec/constants.hpp"

namespace rdcc {

// How a field's value reads to a person; also what the dissector shows.
enum class Unit : std::uint8_t {
  Number,    // plain decimal
  Id,        // identifier, shown in hex
  Octets,    // a count or offset in octets
  Mbps,      // a rate in Mbit/s
  Micros,    // a duration in microseconds
  Enum,      // a registry value; FieldSpec::names holds the table
  Bitmask,   // capability bits; FieldSpec::names holds the table
  Reserved,  // set to zero on transmission, ignored on receipt
};

struct FieldSpec {
  std::string_view name;  // JSON key and dissector field suffix (rdcc.<name>)
  Unit unit;
  std::span<const NamedValue> names{};
};

// "Common Header". `length` 0 on encode means "the size of the type".
struct Header {
  std::uint8_t version = kVersion;  // 4 bits
  std::uint8_t rsv = 0;             // 4 bits, ignored on receipt
  std::uint16_t length = 0;
  std::uint32_t association_id = 0;
  std::uint16_t epoch = 0;
  std::uint16_t flags = 0;
  std::uint32_t sequence_number = 0;

  [[nodiscard]] constexpr bool has_flag(std::uint16_t bit) const noexcept {
    return (flags & bit) != 0;
  }
  friend constexpr bool operator==(const Header&, const Header&) = default;
};

namespace field {
inline constexpr FieldSpec kSenderNonce{"sender_nonce", Unit::Id};
inline constexpr FieldSpec kCapabilities{"capabilities", Unit::Bitmask, ::rdcc::kCapabilities};
inline constexpr FieldSpec kMessageId{"message_id", Unit::Id};
inline constexpr FieldSpec kReason{"reason", Unit::Enum, kReasonCodes};
inline constexpr FieldSpec kServiceHint{"service_hint", Unit::Enum, kServiceHints};
inline constexpr FieldSpec kSuggestedRate{"suggested_rate", Unit::Mbps};
inline constexpr FieldSpec kReserved{"reserved", Unit::Reserved};
}  // namespace field

// ASSOC_REQUEST (0x01): Sender Nonce, Capabilities, Line Rate, four reserved words that pad it
// to the size of ASSOC_ACCEPT ("ASSOC_REQUEST and ASSOC_ACCEPT").
struct AssocRequest {
  static constexpr MessageType kType = MessageType::AssocRequest;
  Header header;
  std::uint64_t sender_nonce = 0;
  std::uint32_t capabilities = 0;
  std::uint32_t line_rate = 0;  // Mbit/s
  std::array<std::uint32_t, 4> reserved{};

  [[nodiscard]] constexpr bool update_acknowledgment() const noexcept {
    return header.has_flag(flag::kUpdateAcknowledgment);
  }
  template <class Self, class V>
  static constexpr void describe(Self& m, V& v) {
    v(field::kSenderNonce, m.sender_nonce);
    v(field::kCapabilities, m.capabilities);
    v(FieldSpec{"line_rate", Unit::Mbps}, m.line_rate);
    v(FieldSpec{"reserved1", Unit::Reserved}, m.reserved[0]);
    v(FieldSpec{"reserved2", Unit::Reserved}, m.reserved[1]);
    v(FieldSpec{"reserved3", Unit::Reserved}, m.reserved[2]);
    v(FieldSpec{"reserved4", Unit::Reserved}, m.reserved[3]);
  }
  friend constexpr bool operator==(const AssocRequest&, const AssocRequest&) = default;
};

// ASSOC_ACCEPT (0x02): the association's operating parameters.
struct AssocAccept {
  static constexpr MessageType kType = MessageType::AssocAccept;
  Header header;
  std::uint64_t sender_nonce = 0;
  std::uint32_t capabilities = 0;
  std::uint32_t unscheduled_limit = 0;  // U, octets
  std::uint32_t start_jitter = 0;       // J, microseconds
  std::uint32_t backlog_threshold = 0;  // N_cu, octets
  std::uint32_t grant_lifetime = 0;     // default Grant Lifetime, microseconds
  std::uint32_t credit_unit = 0;        // octets

  [[nodiscard]] constexpr bool parameter_update() const noexcept {
    return header.has_flag(flag::kParameterUpdate);
  }
  template <class Self, class V>
  static constexpr void describe(Self& m, V& v) {
    v(field::kSenderNonce, m.sender_nonce);
    v(field::kCapabilities, m.capabilities);
    v(FieldSpec{"unscheduled_limit", Unit::Octets}, m.unscheduled_limit);
    v(FieldSpec{"start_jitter", Unit::Micros}, m.start_jitter);
    v(FieldSpec{"backlog_threshold", Unit::Octets}, m.backlog_threshold);
    v(FieldSpec{"grant_lifetime", Unit::Micros}, m.grant_lifetime);
    v(FieldSpec{"credit_unit", Unit::Octets}, m.credit_unit);
  }
  friend constexpr bool operator==(const AssocAccept&, const AssocAccept&) = default;
};

// CREDIT_REQUEST (0x03).
struct CreditRequest {
  static constexpr MessageType kType = MessageType::CreditRequest;
  Header header;
  std::uint64_t message_id = 0;
  std::uint64_t message_length = 0;
  std::uint64_t unscheduled_sent = 0;
  std::uint8_t traffic_class = 0;
  std::uint8_t weight = 0;
  std::uint8_t service_hint = 0;
  std::uint8_t binding_kind = 0;
  std::uint32_t deadline = 0;  // microseconds relative to transmission; 0 = none
  std::uint64_t binding_value = 0;

  // "Class is 0..7; values above 7 MUST be treated as 7."
  [[nodiscard]] constexpr std::uint8_t effective_class() const noexcept {
    return std::min(traffic_class, kMaxTrafficClass);
  }
  // "Weight is 1..255; zero MUST be treated as 1."
  [[nodiscard]] constexpr std::uint8_t effective_weight() const noexcept {
    return weight == 0 ? std::uint8_t{1} : weight;
  }
  [[nodiscard]] constexpr bool has_deadline() const noexcept { return deadline != 0; }

  template <class Self, class V>
  static constexpr void describe(Self& m, V& v) {
    v(field::kMessageId, m.message_id);
    v(FieldSpec{"message_length", Unit::Octets}, m.message_length);
    v(FieldSpec{"unscheduled_sent", Unit::Octets}, m.unscheduled_sent);
    v(FieldSpec{"traffic_class", Unit::Number}, m.traffic_class);
    v(FieldSpec{"weight", Unit::Number}, m.weight);
    v(field::kServiceHint, m.service_hint);
    v(FieldSpec{"binding_kind", Unit::Enum, kBindingKinds}, m.binding_kind);
    v(FieldSpec{"deadline", Unit::Micros}, m.deadline);
    v(FieldSpec{"binding_value", Unit::Id}, m.binding_value);
  }
  friend constexpr bool operator==(const CreditRequest&, const CreditRequest&) = default;
};

// CREDIT_GRANT (0x04).
struct CreditGrant {
  static constexpr MessageType kType = MessageType::CreditGrant;
  Header header;
  std::uint64_t message_id = 0;
  std::uint64_t grant_limit = 0;  // cumulative octet offset, exclusive
  std::uint32_t pacing_rate = 0;  // Mbit/s; zero is invalid and the grant is ignored
  std::uint32_t lifetime = 0;     // microseconds; 0 = the association's default

  [[nodiscard]] constexpr bool pool() const noexcept { return header.has_flag(flag::kPool); }
  [[nodiscard]] constexpr bool final() const noexcept { return header.has_flag(flag::kFinal); }
  // "Lifetime zero means the default Grant Lifetime of the association."
  [[nodiscard]] constexpr std::uint32_t effective_lifetime(
      std::uint32_t default_lifetime) const noexcept {
    return lifetime == 0 ? default_lifetime : lifetime;
  }
  // "a sender that receives a grant with Pacing Rate zero MUST ignore it."
  [[nodiscard]] constexpr bool usable() const noexcept { return pacing_rate != 0; }

  template <class Self, class V>
  static constexpr void describe(Self& m, V& v) {
    v(field::kMessageId, m.message_id);
    v(FieldSpec{"grant_limit", Unit::Octets}, m.grant_limit);
    v(FieldSpec{"pacing_rate", Unit::Mbps}, m.pacing_rate);
    v(FieldSpec{"lifetime", Unit::Micros}, m.lifetime);
  }
  friend constexpr bool operator==(const CreditGrant&, const CreditGrant&) = default;
};

// SENDER_STATUS (0x05).
struct SenderStatus {
  static constexpr MessageType kType = MessageType::SenderStatus;
  Header header;
  std::uint64_t unused_credit = 0;
  std::uint8_t congestion_level = 0;  // 0 none .. 255 saturated
  std::uint8_t service_hint = 0;
  std::uint16_t reserved = 0;
  std::uint32_t suggested_rate = 0;  // Mbit/s; 0 = no suggestion

  template <class Self, class V>
  static constexpr void describe(Self& m, V& v) {
    v(FieldSpec{"unused_credit", Unit::Octets}, m.unused_credit);
    v(FieldSpec{"congestion_level", Unit::Number}, m.congestion_level);
    v(field::kServiceHint, m.service_hint);
    v(field::kReserved, m.reserved);
    v(field::kSuggestedRate, m.suggested_rate);
  }
  friend constexpr bool operator==(const SenderStatus&, const SenderStatus&) = default;
};

// An IPv4 or IPv6 address as 16 octets; an IPv4 address uses the first four.
using IpAddress = std::array<std::uint8_t, 16>;

// CONGESTION_REPORT (0x06): 48 octets with AF 4, 72 with AF 6.
struct CongestionReport {
  static constexpr MessageType kType = MessageType::CongestionReport;
  Header header;
  std::uint32_t reporter_id = 0;
  std::uint32_t queue_depth = 0;      // octets
  std::uint32_t queue_threshold = 0;  // octets
  std::uint8_t congestion_degree = 0;
  std::uint8_t direction = 0;  // 1 to receiver, 2 to sender
  std::uint8_t address_family = static_cast<std::uint8_t>(AddressFamily::IPv4);
  std::uint8_t protocol = 0;
  std::uint16_t source_port = 0;
  std::uint16_t destination_port = 0;
  std::uint32_t suggested_rate = 0;  // Mbit/s; 0 = none
  IpAddress source_address{};
  IpAddress destination_address{};

  [[nodiscard]] constexpr bool ipv6() const noexcept {
    return address_family == static_cast<std::uint8_t>(AddressFamily::IPv6);
  }
  // Octets of one address on the wire, per AF (0 for an unknown family).
  [[nodiscard]] constexpr std::size_t address_size() const noexcept {
    if (address_family == static_cast<std::uint8_t>(AddressFamily::IPv4)) return 4;
    if (ipv6()) return 16;
    return 0;
  }

  template <class Self, class V>
  static constexpr void describe(Self& m, V& v) {
    v(FieldSpec{"reporter_id", Unit::Id}, m.reporter_id);
    v(FieldSpec{"queue_depth", Unit::Octets}, m.queue_depth);
    v(FieldSpec{"queue_threshold", Unit::Octets}, m.queue_threshold);
    v(FieldSpec{"congestion_degree", Unit::Number}, m.congestion_degree);
    v(FieldSpec{"direction", Unit::Enum, kReportDirections}, m.direction);
    v(FieldSpec{"address_family", Unit::Enum, kAddressFamilies}, m.address_family);
    v(FieldSpec{"protocol", Unit::Number}, m.protocol);
    v(FieldSpec{"source_port", Unit::Number}, m.source_port);
    v(FieldSpec{"destination_port", Unit::Number}, m.destination_port);
    v(field::kSuggestedRate, m.suggested_rate);
    v.address(FieldSpec{"source_address", Unit::Id}, m.source_address, m.address_size());
    v.address(FieldSpec{"destination_address", Unit::Id}, m.destination_address, m.address_size());
  }
  friend constexpr bool operator==(const CongestionReport&, const CongestionReport&) = default;
};

// MSG_DONE (0x07).
struct MsgDone {
  static constexpr MessageType kType = MessageType::MsgDone;
  Header header;
  std::uint64_t message_id = 0;
  std::uint64_t octets_received = 0;

  template <class Self, class V>
  static constexpr void describe(Self& m, V& v) {
    v(field::kMessageId, m.message_id);
    v(FieldSpec{"octets_received", Unit::Octets}, m.octets_received);
  }
  friend constexpr bool operator==(const MsgDone&, const MsgDone&) = default;
};

// CANCEL (0x08).
struct Cancel {
  static constexpr MessageType kType = MessageType::Cancel;
  Header header;
  std::uint64_t message_id = 0;
  std::uint16_t reason = 0;
  std::uint16_t reserved = 0;

  template <class Self, class V>
  static constexpr void describe(Self& m, V& v) {
    v(field::kMessageId, m.message_id);
    v(field::kReason, m.reason);
    v(field::kReserved, m.reserved);
  }
  friend constexpr bool operator==(const Cancel&, const Cancel&) = default;
};

// CREDIT_RETURN (0x09).
struct CreditReturn {
  static constexpr MessageType kType = MessageType::CreditReturn;
  Header header;
  std::uint64_t message_id = 0;
  std::uint64_t new_limit = 0;

  template <class Self, class V>
  static constexpr void describe(Self& m, V& v) {
    v(field::kMessageId, m.message_id);
    v(FieldSpec{"new_limit", Unit::Octets}, m.new_limit);
  }
  friend constexpr bool operator==(const CreditReturn&, const CreditReturn&) = default;
};

// ERROR (0x0A). Message ID zero: the error concerns the whole association.
struct ErrorMessage {
  static constexpr MessageType kType = MessageType::Error;
  Header header;
  std::uint16_t reason = 0;
  std::uint16_t reserved = 0;
  std::uint64_t message_id = 0;

  template <class Self, class V>
  static constexpr void describe(Self& m, V& v) {
    v(field::kReason, m.reason);
    v(field::kReserved, m.reserved);
    v(field::kMessageId, m.message_id);
  }
  friend constexpr bool operator==(const ErrorMessage&, const ErrorMessage&) = default;
};

// Alternative i holds message type i + 1, in the order of kMessageTypes.
using Message = std::variant<AssocRequest, AssocAccept, CreditRequest, CreditGrant, SenderStatus,
                             CongestionReport, MsgDone, Cancel, CreditReturn, ErrorMessage>;

[[nodiscard]] constexpr MessageType type_of(const Message& m) noexcept {
  return static_cast<MessageType>(m.index() + 1);
}
[[nodiscard]] constexpr const Header& header_of(const Message& m) noexcept {
  return std::visit([](const auto& body) -> const Header& { return body.header; }, m);
}
[[nodiscard]] constexpr Header& header_of(Message& m) noexcept {
  return std::visit([](auto& body) -> Header& { return body.header; }, m);
}
// The size the spec defines for this message (CONGESTION_REPORT: per its AF).
[[nodiscard]] constexpr std::uint16_t defined_size(const Message& m) noexcept {
  if (const auto* report = std::get_if<CongestionReport>(&m); report && report->ipv6()) {
    return kCongestionReportSizeIpv6;
  }
  return info(type_of(m)).size;
}

// Compile-time check that every body's field list adds up to its wire size.
namespace detail {
struct SizeCounter {
  std::size_t total = kHeaderSize;
  template <class T>
  constexpr void operator()(const FieldSpec&, const T&) {
    total += sizeof(T);
  }
  constexpr void address(const FieldSpec&, const IpAddress&, std::size_t n) { total += n; }
};
template <class T>
constexpr std::size_t described_size(const T& m) {
  SizeCounter c;
  T::describe(m, c);
  return c.total;
}
}  // namespace detail
// Each field list adds up to the size of the "RDCC Message Types" table.
static_assert(detail::described_size(AssocRequest{}) == info(AssocRequest::kType).size);
static_assert(detail::described_size(AssocAccept{}) == info(AssocAccept::kType).size);
static_assert(detail::described_size(CreditRequest{}) == info(CreditRequest::kType).size);
static_assert(detail::described_size(CreditGrant{}) == info(CreditGrant::kType).size);
static_assert(detail::described_size(SenderStatus{}) == info(SenderStatus::kType).size);
static_assert(detail::described_size(CongestionReport{}) == kCongestionReportSizeIpv4);
static_assert(detail::described_size(CongestionReport{.address_family = 6}) ==
              kCongestionReportSizeIpv6);
static_assert(detail::described_size(MsgDone{}) == info(MsgDone::kType).size);
static_assert(detail::described_size(Cancel{}) == info(Cancel::kType).size);
static_assert(detail::described_size(CreditReturn{}) == info(CreditReturn::kType).size);
static_assert(detail::described_size(ErrorMessage{}) == info(ErrorMessage::kType).size);

}  // namespace rdcc
