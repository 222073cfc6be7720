// Every registry of the spec ("IANA Considerations", "RDCC Registries") and the message-type
// table ("RDCC Message Types"), defined once. Encode, decode, JSON, text output, the dissector
// tests and the fuzz dictionary all read these tables.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace rdcc {

// "Common Header": Version (4 bits) is 1.
inline constexpr std::uint8_t kVersion = 1;
inline constexpr std::size_t kHeaderSize = 16;

enum class MessageType : std::uint8_t {
  AssocRequest = 0x01,
  AssocAccept = 0x02,
  CreditRequest = 0x03,
  CreditGrant = 0x04,
  SenderStatus = 0x05,
  CongestionReport = 0x06,
  MsgDone = 0x07,
  Cancel = 0x08,
  CreditReturn = 0x09,
  Error = 0x0A,
};

// Who may originate a message type ("RDCC Message Types", Direction column).
enum class Originator : std::uint8_t { Sender, Receiver, Crn, SenderOrReceiver, Any };

struct MessageTypeInfo {
  MessageType type;
  std::string_view name;   // spec name, e.g. "CREDIT_GRANT"; also the JSON "type" value
  std::uint16_t size;      // the size defined for the type (CONGESTION_REPORT: IPv4 form)
  std::uint16_t max_size;  // CONGESTION_REPORT: IPv6 form; otherwise == size
  Originator originator;
  std::string_view direction;  // as the spec's table writes it
};

// "RDCC Message Types". Index i holds type i + 1.
inline constexpr std::array<MessageTypeInfo, 10> kMessageTypes{{
    {MessageType::AssocRequest, "ASSOC_REQUEST", 48, 48, Originator::Sender, "S to R"},
    {MessageType::AssocAccept, "ASSOC_ACCEPT", 48, 48, Originator::Receiver, "R to S"},
    {MessageType::CreditRequest, "CREDIT_REQUEST", 56, 56, Originator::Sender, "S to R"},
    {MessageType::CreditGrant, "CREDIT_GRANT", 40, 40, Originator::Receiver, "R to S"},
    {MessageType::SenderStatus, "SENDER_STATUS", 32, 32, Originator::Sender, "S to R"},
    {MessageType::CongestionReport, "CONGESTION_REPORT", 48, 72, Originator::Crn, "CRN to R or S"},
    {MessageType::MsgDone, "MSG_DONE", 32, 32, Originator::Receiver, "R to S"},
    {MessageType::Cancel, "CANCEL", 28, 28, Originator::SenderOrReceiver, "S to R or R to S"},
    {MessageType::CreditReturn, "CREDIT_RETURN", 32, 32, Originator::Sender, "S to R"},
    {MessageType::Error, "ERROR", 28, 28, Originator::Any, "any"},
}};

inline constexpr std::uint16_t kCongestionReportSizeIpv4 = 48;
inline constexpr std::uint16_t kCongestionReportSizeIpv6 = 72;
inline constexpr std::uint16_t kMaxMessageSize = 72;

[[nodiscard]] constexpr const MessageTypeInfo* find_message_type(std::uint8_t raw) noexcept {
  if (raw == 0 || raw > kMessageTypes.size()) return nullptr;
  return &kMessageTypes[raw - 1U];
}
[[nodiscard]] constexpr const MessageTypeInfo& info(MessageType type) noexcept {
  return kMessageTypes[static_cast<std::size_t>(type) - 1U];
}
[[nodiscard]] std::optional<MessageType> message_type_from_name(std::string_view name) noexcept;

// A registry entry: a numeric value and its spec name.
struct NamedValue {
  std::uint32_t value;
  std::string_view name;
};

// "RDCC Reason Codes" (16 bits). CANCEL and ERROR use the same codes.
enum class ReasonCode : std::uint16_t {
  NoError = 0x0000,
  AssocRefused = 0x0001,
  UnknownAssociation = 0x0002,
  BudgetExhausted = 0x0003,
  UnsupportedType = 0x0004,
  MessageTooLarge = 0x0005,
  ApplicationAbort = 0x0006,
  UnsupportedBinding = 0x0007,
};
inline constexpr std::array<NamedValue, 8> kReasonCodes{{
    {0x0000, "NO_ERROR"},
    {0x0001, "ASSOC_REFUSED"},
    {0x0002, "UNKNOWN_ASSOCIATION"},
    {0x0003, "BUDGET_EXHAUSTED"},
    {0x0004, "UNSUPPORTED_TYPE"},
    {0x0005, "MESSAGE_TOO_LARGE"},
    {0x0006, "APPLICATION_ABORT"},
    {0x0007, "UNSUPPORTED_BINDING"},
}};

// "RDCC Service Hints" (8 bits).
enum class ServiceHint : std::uint8_t { None = 0, LatencySensitive = 1, ThroughputOriented = 2 };
inline constexpr std::array<NamedValue, 3> kServiceHints{{
    {0, "NONE"},
    {1, "LATENCY_SENSITIVE"},
    {2, "THROUGHPUT_ORIENTED"},
}};

// "RDCC Binding Kinds" (8 bits).
enum class BindingKind : std::uint8_t { Reserved = 0, RoCEv2 = 1, Opaque = 2 };
inline constexpr std::array<NamedValue, 3> kBindingKinds{{
    {0, "RESERVED"},
    {1, "ROCEV2"},
    {2, "OPAQUE"},
}};

// "RDCC Capability Bits" (32-bit Capabilities field).
namespace capability {
inline constexpr std::uint32_t kPool = 0x00000001;
inline constexpr std::uint32_t kStatus = 0x00000002;
inline constexpr std::uint32_t kCrn = 0x00000004;
}  // namespace capability
inline constexpr std::array<NamedValue, 3> kCapabilities{{
    {capability::kPool, "POOL"},
    {capability::kStatus, "STATUS"},
    {capability::kCrn, "CRN"},
}};

// "RDCC Message Flags": one entry per bit and message type.
namespace flag {
inline constexpr std::uint16_t kParameterUpdate = 0x0001;       // ASSOC_ACCEPT
inline constexpr std::uint16_t kUpdateAcknowledgment = 0x0002;  // ASSOC_REQUEST
inline constexpr std::uint16_t kPool = 0x0001;                  // CREDIT_GRANT
inline constexpr std::uint16_t kFinal = 0x0002;                 // CREDIT_GRANT
}  // namespace flag
struct FlagInfo {
  MessageType type;
  std::uint16_t bit;
  std::string_view name;
};
inline constexpr std::array<FlagInfo, 4> kMessageFlags{{
    {MessageType::AssocAccept, flag::kParameterUpdate, "PARAMETER_UPDATE"},
    {MessageType::AssocRequest, flag::kUpdateAcknowledgment, "UPDATE_ACKNOWLEDGMENT"},
    {MessageType::CreditGrant, flag::kPool, "POOL"},
    {MessageType::CreditGrant, flag::kFinal, "FINAL"},
}};
// The flag bits the spec defines for a type; the rest are "undefined flags".
[[nodiscard]] constexpr std::uint16_t defined_flags(MessageType type) noexcept {
  std::uint16_t mask = 0;
  for (const auto& f : kMessageFlags) {
    if (f.type == type) mask = static_cast<std::uint16_t>(mask | f.bit);
  }
  return mask;
}

// CONGESTION_REPORT Direction and AF fields.
enum class ReportDirection : std::uint8_t { ToReceiver = 1, ToSender = 2 };
inline constexpr std::array<NamedValue, 2> kReportDirections{{
    {1, "TO_RECEIVER"},
    {2, "TO_SENDER"},
}};
enum class AddressFamily : std::uint8_t { IPv4 = 4, IPv6 = 6 };
inline constexpr std::array<NamedValue, 2> kAddressFamilies{{
    {4, "IPV4"},
    {6, "IPV6"},
}};

// "Traffic Classes and Pool Credit": eight classes, 0..7.
inline constexpr std::uint8_t kMaxTrafficClass = 7;

// Looks a value up in a registry table; empty when the value is unregistered.
[[nodiscard]] constexpr std::string_view name_of(std::span<const NamedValue> table,
                                                 std::uint32_t value) noexcept {
  for (const auto& entry : table) {
    if (entry.value == value) return entry.name;
  }
  return {};
}
// Reverse look-up, case-insensitive.
[[nodiscard]] std::optional<std::uint32_t> value_of(std::span<const NamedValue> table,
                                                    std::string_view name) noexcept;

}  // namespace rdcc
