// The upper tester's operations (docs/upper-tester.md), once: each op's name, the roles whose
// upper tester serves it, its request keys with their kinds, bounds and defaults, and the keys
// of its answer. The sender's server (upper_tester.cpp), the receiver's and the CRN's stdio
// testers (`rdcc receiver|crn --upper-tester stdio`), the scenario language's `upper` and
// `queue` steps, the conformance adapters' requests and docs/upper-tester.md (a test holds the
// document to this table) all take them from here.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rdcc/codec/constants.hpp"

namespace rdcc::udp {

enum class UpperArgKind : std::uint8_t {
  Uint,     // a JSON integer, 0..max
  Bool,     // true or false
  Address,  // "a.b.c.d:port" or "[v6]:port"
  Name,     // a registry name of `names`, or its number 0..max
  Mode,     // "scheduled" or "unscheduled"
};

struct UpperArg {
  std::string_view key;
  UpperArgKind kind;
  std::uint64_t max = 0;                         // Uint, Name
  std::optional<std::uint64_t> default_value{};  // none: required (Uint, Name; Bool: false)
  std::span<const NamedValue> names{};           // Name
  bool in_scenario = true;  // a scenario's step gives it (else the runner does, or no one)
};

// The roles whose upper tester serves an op (bits).
namespace upper_role {
inline constexpr std::uint8_t kSender = 1;
inline constexpr std::uint8_t kReceiver = 2;
inline constexpr std::uint8_t kCrn = 4;
inline constexpr std::uint8_t kAll = kSender | kReceiver | kCrn;
}  // namespace upper_role

struct UpperOp {
  std::string_view name;
  std::uint8_t roles;  // upper_role bits
  std::span<const UpperArg> args;
  std::span<const std::string_view> reply;  // the keys of its answer besides "ok" (and "id")
  bool upper_step = true;  // a scenario's `upper OP` step may send it (queue has its own step)
};

namespace upper_detail {
inline constexpr std::uint64_t kU64 = ~std::uint64_t{0};
inline constexpr std::array<UpperArg, 11> kSubmit{{
    {"receiver", UpperArgKind::Address, 0, {}, {}, false},  // the runner: the tester's address
    {"length", UpperArgKind::Uint, kU64},
    {"class", UpperArgKind::Uint, 255, 0},
    {"weight", UpperArgKind::Uint, 255, 1},
    {"service_hint", UpperArgKind::Name, 255, 0, kServiceHints},
    {"deadline_us", UpperArgKind::Uint, 0xFFFFFFFFU, 0},
    {"binding", UpperArgKind::Name, 255, static_cast<std::uint64_t>(BindingKind::Opaque),
     kBindingKinds},
    {"binding_value", UpperArgKind::Uint, kU64, 0},
    {"force_scheduled", UpperArgKind::Bool},
    {"post_unit", UpperArgKind::Uint, kU64, 0, {}, false},  // RoCEv2 posts: real senders only
    {"mode", UpperArgKind::Mode},
}};
inline constexpr std::array<UpperArg, 1> kHandle{{{"handle", UpperArgKind::Uint, kU64}}};
inline constexpr std::array<UpperArg, 2> kReturnCredit{
    {{"handle", UpperArgKind::Uint, kU64}, {"new_limit", UpperArgKind::Uint, kU64}}};
inline constexpr std::array<UpperArg, 2> kWait{
    {{"handle", UpperArgKind::Uint, kU64}, {"timeout_ms", UpperArgKind::Uint, 600000, 5000}}};
inline constexpr std::array<UpperArg, 1> kAssociation{{{"receiver", UpperArgKind::Address}}};
inline constexpr std::array<UpperArg, 7> kQueue{{
    {"port", UpperArgKind::Uint, 0xFFFF},
    {"occupancy", UpperArgKind::Uint, kU64},
    {"dscp", UpperArgKind::Uint, 63, 0},
    {"source", UpperArgKind::Address},
    {"destination", UpperArgKind::Address},
    {"protocol", UpperArgKind::Uint, 255, 17},
    {"flows", UpperArgKind::Uint, 0xFFFFFFFFU, 1},
}};

inline constexpr std::array<std::string_view, 6> kHelloReply{
    "role", "implementation", "version", "ops", "modes", "unscheduled_dscp"};
inline constexpr std::array<std::string_view, 1> kSubmitReply{"handle"};
inline constexpr std::array<std::string_view, 9> kStatusReply{
    "handle",      "state",        "message_id",   "length",    "transmitted",
    "grant_limit", "without_rdcc", "abort_reason", "elapsed_us"};
inline constexpr std::array<std::string_view, 11> kAssociationReply{"exists",
                                                                    "established",
                                                                    "without_rdcc",
                                                                    "association_id",
                                                                    "epoch",
                                                                    "unscheduled_limit",
                                                                    "start_jitter_us",
                                                                    "backlog_threshold",
                                                                    "grant_lifetime_us",
                                                                    "credit_unit",
                                                                    "capabilities"};
inline constexpr std::array<std::string_view, 1> kStatsReply{"stats"};
inline constexpr std::array<std::string_view, 1> kRestartReply{"epoch"};

inline constexpr std::array<UpperOp, 11> kOps{{
    {"hello", upper_role::kAll, {}, kHelloReply},
    {"submit", upper_role::kSender, kSubmit, kSubmitReply},
    {"cancel", upper_role::kSender, kHandle, {}},
    {"return_credit", upper_role::kSender, kReturnCredit, {}},
    {"link_pause", upper_role::kSender, {}, {}},
    {"status", upper_role::kSender, kHandle, kStatusReply},
    {"wait", upper_role::kSender, kWait, kStatusReply, false},
    {"association", upper_role::kSender, kAssociation, kAssociationReply, false},
    {"stats", upper_role::kAll, {}, kStatsReply},
    {"restart", upper_role::kReceiver, {}, kRestartReply},
    {"queue", upper_role::kCrn, kQueue, {}, false},
}};
}  // namespace upper_detail

// Every op, in the order docs/upper-tester.md lists them.
[[nodiscard]] constexpr std::span<const UpperOp> upper_tester_ops() {
  return upper_detail::kOps;
}
[[nodiscard]] constexpr const UpperOp* find_upper_op(std::string_view name) {
  for (const auto& op : upper_detail::kOps) {
    if (op.name == name) return &op;
  }
  return nullptr;
}
[[nodiscard]] constexpr const UpperArg* find_upper_arg(const UpperOp& op, std::string_view key) {
  for (const auto& a : op.args) {
    if (a.key == key) return &a;
  }
  return nullptr;
}
// The upper_role bit of "sender", "receiver" or "crn" (0 for another name).
[[nodiscard]] constexpr std::uint8_t upper_role_of(std::string_view role) {
  return role == "sender"     ? upper_role::kSender
         : role == "receiver" ? upper_role::kReceiver
         : role == "crn"      ? upper_role::kCrn
                              : std::uint8_t{0};
}
// The names of the ops a role serves (upper_role bits), sorted: hello's "ops".
[[nodiscard]] std::vector<std::string> upper_op_list(std::uint8_t role);
// The same joined: "hello, restart, stats".
[[nodiscard]] std::string upper_op_names(std::uint8_t role);

}  // namespace rdcc::udp
