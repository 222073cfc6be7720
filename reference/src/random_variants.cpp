// Random conforming variants (rdcc/testing/random_variants.hpp): the table of free choices,
// how each is drawn, and the policies they make.
#include "rdcc/testing/random_variants.hpp"

#include <algorithm>
#include <array>
#include <charconv>

#include "rdcc/codec/constants.hpp"
#include "rdcc/reference/config_schema.hpp"

namespace rdcc::testing {
namespace {

using ref::VariantRole;

// SplitMix64: one independent stream per (seed, index, choice), so that a choice's value does
// not depend on which other choices exist.
class Stream {
 public:
  Stream(std::uint64_t seed, std::uint64_t index, std::size_t choice)
      : s_(seed ^ (index * 0x9E3779B97F4A7C15ULL) ^ ((choice + 1) * 0xD1B54A32D192ED03ULL)) {}
  std::uint64_t next() {
    std::uint64_t z = (s_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30U)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27U)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31U);
  }
  // Uniform in [lo, hi].
  std::uint64_t in(std::uint64_t lo, std::uint64_t hi) { return lo + next() % (hi - lo + 1); }
  // True with probability percent / 100.
  bool chance(unsigned percent) { return next() % 100 < percent; }
  // Log-uniform in [lo, hi]: small and large values alike.
  std::uint64_t log_in(std::uint64_t lo, std::uint64_t hi) {
    const unsigned bits_lo = 64U - static_cast<unsigned>(__builtin_clzll(lo));
    const unsigned bits_hi = 64U - static_cast<unsigned>(__builtin_clzll(hi));
    const auto bits = static_cast<unsigned>(in(bits_lo, bits_hi));
    const std::uint64_t top = bits >= 64 ? ~0ULL : (1ULL << bits) - 1;
    return std::clamp<std::uint64_t>(in(top / 2 + 1, top), lo, hi);
  }

 private:
  std::uint64_t s_;
};

// What a draw means for the policies: the values, by name, with the reference's own choice
// where the draw is absent.
struct Drawn {
  const RandomVariant& v;
  std::uint64_t get(std::string_view name, std::uint64_t otherwise) const {
    return v.value(name).value_or(otherwise);
  }
  bool has(std::string_view name) const { return v.value(name).has_value(); }
};

// ---- the spec's words, quoted ---------------------------------------------------------------

constexpr std::string_view kAccept =
    "In ASSOC_ACCEPT, the fields carry U (octets), J (microseconds), N_cu (octets), the default "
    "Grant Lifetime (microseconds), and the Credit Unit (octets, typically the path MTU payload).";
constexpr std::string_view kGuidance = "Parameter guidance (all values are configurable):";
constexpr std::string_view kBudget =
    "The values of G, G_s, and G_u are configured or derived locally.";
constexpr std::string_view kU =
    "U is advertised per association, so the receiver alone decides how much unscheduled data "
    "each sender may inject.";
constexpr std::string_view kEpoch =
    "The Epoch identifies an incarnation of the receiver's RDCC state.";
constexpr std::string_view kLocal =
    "The receiver decides which messages receive credit and at what rate. The choice of "
    "algorithm is local, provided that the invariant of holds and the following requirements "
    "are met:";
constexpr std::string_view kAimd =
    "beta defaults to 0.5; alpha defaults to one percent of the access link capacity;";
constexpr std::string_view kUpdate =
    "Every update interval T_upd (by default the base round-trip time) the receiver adjusts the "
    "rate r_i of each active sender i:";
constexpr std::string_view kRttTarget =
    "ECN Congestion Experienced (CE) marks on data from that sender, a CONGESTION_REPORT naming a "
    "flow from that sender, or a round-trip time above the configured target.";
constexpr std::string_view kDmax =
    "The receiver therefore reclaims the credit of an expired grant no earlier than Lifetime + 2 "
    "* D_max after it sent the grant, and the credit of a cancelled message no earlier than 2 * "
    "D_max after it sent or received the CANCEL.";
constexpr std::string_view kLifetime0 =
    "Lifetime zero means the default Grant Lifetime of the association.";
constexpr std::string_view kPool =
    "Pool grants allow a sender to divide credit among its messages according to without a round "
    "trip per message.";
constexpr std::string_view kUnschedSum =
    "The receiver MUST choose U for each association so that the sum of U over all associations "
    "with a non-zero U does not exceed G_u;";
constexpr std::string_view kFormats =
    "RDCC does not define data packet formats, does not require changes to switch forwarding "
    "hardware, and does not depend on PFC.";
constexpr std::string_view kCapabilities =
    "Capability bits: 0x00000001 POOL (pool grants supported), 0x00000002 STATUS (SENDER_STATUS "
    "supported), 0x00000004 CRN (on-path reports are processed).";
constexpr std::string_view kLineRate =
    "Before sending messages under RDCC, a sender sends ASSOC_REQUEST to the receiver's RDCC port, "
    "carrying a 64-bit random Sender Nonce, its capabilities, and its line rate.";
constexpr std::string_view kLocalThreshold =
    "A sender's Backlog Threshold is the smallest N_cu advertised by its receivers, or a smaller "
    "locally configured value.";
constexpr std::string_view kNoSuggestion =
    "Suggested Rate zero means that the sender makes no suggestion.";
constexpr std::string_view kCrnRate =
    "optionally, a Suggested Rate equal to the queue's service rate divided by the number of flows "
    "the CRN observes in the queue.";

constexpr std::string_view kSecAssoc = "Association Establishment";
constexpr std::string_view kSecAlloc = "Credit Allocation";
constexpr std::string_view kSecGrants = "Credit Requests and Grants";
constexpr std::string_view kSecOps = "Operational Considerations";

// ---- the choices ----------------------------------------------------------------------------

struct ChoiceEntry {
  RandomChoice choice;
  std::uint64_t (*draw)(Stream& s);
};

const std::array<std::uint64_t, 9> kCreditUnits{512,  1024, 1460, 1472, 2048,
                                                4096, 8192, 8960, 9000};

// A first Sequence Number: the reference's (`usual`), one just below the 32-bit wrap, or any.
std::uint64_t first_sequence(Stream& s, std::uint64_t usual) {
  if (s.chance(30)) return usual;
  if (s.chance(50)) return 0xFFFFFFFFULL - s.in(0, 20);
  return s.in(0, 0xFFFFFFFFULL);
}

const ChoiceEntry kChoices[] = {
    // Receiver: the parameters it advertises and configures.
    {{"receiver.credit_unit", VariantRole::Receiver, "Credit Unit, octets (a path MTU payload)",
      kAccept, "ASSOC_REQUEST and ASSOC_ACCEPT"},
     [](Stream& s) {
       return s.chance(60) ? kCreditUnits[s.in(0, kCreditUnits.size() - 1)] : s.in(256, 9000);
     }},
    {{"receiver.budget", VariantRole::Receiver, "G, octets", kBudget, "Receiver Credit Budget"},
     [](Stream& s) { return s.log_in(256U << 10U, 16U << 20U); }},
    {{"receiver.unscheduled_budget_pct", VariantRole::Receiver,
      "G_u as a percentage of G (guidance: at most G/4)", kBudget, "Receiver Credit Budget"},
     [](Stream& s) { return s.in(0, 25); }},
    {{"receiver.unscheduled_limit", VariantRole::Receiver, "U, octets (0: no unscheduled mode)", kU,
      "Transmission Mode Selection"},
     [](Stream& s) { return s.chance(15) ? 0 : s.log_in(512, 128U << 10U); }},
    {{"receiver.start_jitter_us", VariantRole::Receiver, "J, microseconds", kGuidance, kSecOps},
     [](Stream& s) { return s.in(0, 100); }},
    {{"receiver.backlog_threshold", VariantRole::Receiver, "N_cu, octets", kGuidance, kSecOps},
     [](Stream& s) { return s.log_in(1024, 8U << 20U); }},
    {{"receiver.grant_lifetime_us", VariantRole::Receiver, "default Grant Lifetime, microseconds",
      kGuidance, kSecOps},
     [](Stream& s) { return s.log_in(100, 10000); }},
    {{"receiver.epoch", VariantRole::Receiver, "Epoch", kEpoch, kSecAssoc},
     [](Stream& s) { return s.in(1, 0xFFFF); }},
    {{"receiver.d_max_us", VariantRole::Receiver,
      "D_max the receiver reclaims by (a larger one reclaims later), microseconds", kDmax,
      "Receiver Credit Budget"},
     [](Stream& s) { return s.in(20, 200); }},
    {{"receiver.base_rtt_us", VariantRole::Receiver,
      "T_upd, the rate update interval, microseconds", kUpdate, kSecAlloc},
     [](Stream& s) { return s.log_in(5, 200); }},
    {{"receiver.rtt_target_us", VariantRole::Receiver,
      "the round-trip time above which a path is congested, microseconds", kRttTarget, kSecAlloc},
     [](Stream& s) { return s.log_in(20, 1000); }},
    {{"receiver.aimd_beta_pct", VariantRole::Receiver, "AIMD beta, percent", kAimd, kSecAlloc},
     [](Stream& s) { return s.in(10, 90); }},
    {{"receiver.aimd_alpha_mbps", VariantRole::Receiver, "AIMD alpha, Mbit/s", kAimd, kSecAlloc},
     [](Stream& s) { return s.log_in(10, 10000); }},
    {{"receiver.max_associations", VariantRole::Receiver, "associations admitted, at most", "",
      "Security Considerations", "RDCC-SEC-03"},
     [](Stream& s) { return s.log_in(16, 4096); }},
    {{"receiver.max_pending_per_association", VariantRole::Receiver,
      "pending messages per association, at most", "", "Security Considerations", "RDCC-SEC-03"},
     [](Stream& s) { return s.log_in(16, 4096); }},
    {{"receiver.idle_timeout_ms", VariantRole::Receiver, "idle time, milliseconds (at least 10 s)",
      "", kSecAssoc, "RDCC-ASSOC-05"},
     [](Stream& s) { return s.in(10000, 60000); }},
    // Receiver: its credit allocation.
    {{"receiver.grant_window_cu", VariantRole::Receiver,
      "credit a grant leaves outstanding per message, in Credit Units (0: one BDP)", kLocal,
      kSecAlloc},
     [](Stream& s) { return s.chance(25) ? 0 : s.log_in(1, 64); }},
    {{"receiver.first_window_cu", VariantRole::Receiver,
      "the first scheduled grant of a message, in Credit Units (0: as the others)", kLocal,
      kSecAlloc},
     [](Stream& s) { return s.chance(50) ? 0 : s.in(1, 4); }},
    {{"receiver.whole_message", VariantRole::Receiver,
      "1: each grant reaches as far toward the message length as the budget allows", kLocal,
      kSecAlloc},
     [](Stream& s) { return static_cast<std::uint64_t>(s.chance(15)); }},
    {{"receiver.rate_divisor", VariantRole::Receiver,
      "Pacing Rates of at most link / k, however few messages share it", "", kSecAlloc,
      "RDCC-ALLOC-01"},
     [](Stream& s) { return s.chance(40) ? 1 : s.in(2, 16); }},
    {{"receiver.rate_controller", VariantRole::Receiver,
      "0: the RECOMMENDED AIMD; 1: a fixed fair share cut multiplicatively on congestion", "",
      kSecAlloc, "RDCC-ALLOC-05"},
     [](Stream& s) { return static_cast<std::uint64_t>(s.chance(30)); }},
    {{"receiver.grant_lifetime_field_us", VariantRole::Receiver,
      "the Lifetime a grant states, microseconds (0: Lifetime 0, the association's default; 1: "
      "the default stated)",
      kLifetime0, "CREDIT_GRANT"},
     [](Stream& s) { return s.chance(40) ? s.in(0, 1) : s.log_in(100, 10000); }},
    {{"receiver.rerequest_answer", VariantRole::Receiver,
      "a CREDIT_REQUEST while a grant is live: 0 a grant when credit is due, 1 nothing, 2 a "
      "grant restating the limit",
      "", kSecGrants, "RDCC-GRANT-15"},
     [](Stream& s) { return s.in(0, 2); }},
    {{"receiver.unscheduled_allocation", VariantRole::Receiver,
      "0: the configured U while G_u has room; 1: G_u shared evenly by the association cap",
      kUnschedSum, "Unscheduled Transmission"},
     [](Stream& s) { return static_cast<std::uint64_t>(s.chance(30)); }},
    {{"receiver.pool_grants", VariantRole::Receiver,
      "1: pool grants to a sender that advertised POOL", kPool, kSecGrants},
     [](Stream& s) { return static_cast<std::uint64_t>(s.chance(30)); }},
    {{"receiver.budget_exhausted_error", VariantRole::Receiver,
      "1: ERROR (BUDGET_EXHAUSTED) to a message the budget cannot serve", "",
      "Error Handling and Recovery", "RDCC-ERR-04"},
     [](Stream& s) { return static_cast<std::uint64_t>(s.chance(30)); }},
    {{"receiver.idle_removal_on_time", VariantRole::Receiver,
      "1: an idle association removed at the idle time exactly", "", kSecAssoc, "RDCC-ASSOC-05"},
     [](Stream& s) { return static_cast<std::uint64_t>(s.chance(30)); }},
    {{"receiver.first_sequence", VariantRole::Receiver,
      "the Sequence Number of an association's first message (often just below the wrap)", "",
      "Common Header", "RDCC-FMT-06"},
     [](Stream& s) { return first_sequence(s, 1); }},
    {{"receiver.requests_from_any_address", VariantRole::Receiver,
      "1: a request naming an association is taken from any address (answers go to the bound one)",
      "", kSecAssoc, "RDCC-ASSOC-01"},
     [](Stream& s) { return static_cast<std::uint64_t>(s.chance(20)); }},
    {{"receiver.other_address_silent", VariantRole::Receiver,
      "1: a request naming a live association from another address gets no answer (0: ERROR "
      "UNKNOWN_ASSOCIATION to its source)",
      "", "Error Handling and Recovery", "RDCC-ERR-10"},
     [](Stream& s) { return static_cast<std::uint64_t>(s.chance(30)); }},
    // Sender.
    {{"sender.segment", VariantRole::Sender,
      "data segment octets (0: one Credit Unit; 1: all the credit one pacing window allows)",
      kFormats, "Scope and Applicability"},
     [](Stream& s) { return s.chance(40) ? s.in(0, 1) : s.log_in(64, 9000); }},
    {{"sender.pacing_bursts", VariantRole::Sender,
      "1: bursts of up to ten Credit Units instead of spaced segments", "", kSecGrants,
      "RDCC-GRANT-05"},
     [](Stream& s) { return static_cast<std::uint64_t>(s.chance(40)); }},
    {{"sender.unscheduled_up_to", VariantRole::Sender,
      "unscheduled mode only for messages of at most this many octets (0: scheduled mode for "
      "every message; absent: whenever allowed)",
      "", "Transmission Mode Selection", "RDCC-MODE-04"},
     [](Stream& s) { return s.chance(20) ? 0 : s.log_in(64, 128U << 10U); }},
    {{"sender.message_id_step", VariantRole::Sender,
      "how far Message IDs increase from one message to the next", "", kSecGrants, "RDCC-GRANT-01"},
     [](Stream& s) { return s.chance(50) ? 1 : s.log_in(2, 1000); }},
    {{"sender.reestablish_ids_from_1", VariantRole::Sender,
      "1: a re-established association numbers its messages from 1", "", kSecGrants,
      "RDCC-GRANT-01"},
     [](Stream& s) { return static_cast<std::uint64_t>(s.chance(40)); }},
    {{"sender.reestablish_same_nonce", VariantRole::Sender,
      "1: re-establishing keeps the Sender Nonce", "", kSecAssoc, "RDCC-ASSOC-04"},
     [](Stream& s) { return static_cast<std::uint64_t>(s.chance(40)); }},
    {{"sender.accept_exempt_by_words", VariantRole::Sender,
      "1: an ASSOC_ACCEPT of the current association is exempt from the sequence check",
      "ASSOC_REQUEST, ASSOC_ACCEPT that echoes the sender's current nonce, ERROR with reason "
      "UNKNOWN_ASSOCIATION, and messages from CRNs are exempt",
      "Common Header"},
     [](Stream& s) { return static_cast<std::uint64_t>(s.chance(30)); }},
    {{"sender.no_suggested_rate", VariantRole::Sender, "1: SENDER_STATUS with Suggested Rate 0",
      kNoSuggestion, "SENDER_STATUS"},
     [](Stream& s) { return static_cast<std::uint64_t>(s.chance(30)); }},
    {{"sender.no_credit_return", VariantRole::Sender, "1: never sends CREDIT_RETURN", "",
      kSecGrants, "RDCC-GRANT-10"},
     [](Stream& s) { return static_cast<std::uint64_t>(s.chance(30)); }},
    {{"sender.local_backlog_threshold", VariantRole::Sender,
      "a local Backlog Threshold, octets (0: the smallest N_cu advertised)", kLocalThreshold,
      "Sender Backlog Indication and Suggested Rates"},
     [](Stream& s) { return s.chance(50) ? 0 : s.log_in(1024, 2U << 20U); }},
    {{"sender.available_rate_pct", VariantRole::Sender,
      "its own available transmission rate, percent of the line rate", "",
      "Sender Backlog Indication and Suggested Rates", "RDCC-STATUS-02"},
     [](Stream& s) { return s.in(1, 100); }},
    {{"sender.capabilities", VariantRole::Sender,
      "capabilities advertised (CRN always; POOL, STATUS drawn)", kCapabilities,
      "ASSOC_REQUEST and ASSOC_ACCEPT"},
     [](Stream& s) -> std::uint64_t {
       return capability::kCrn | (s.chance(70) ? capability::kPool : 0U) |
              (s.chance(70) ? capability::kStatus : 0U);
     }},
    {{"sender.line_rate_mbps", VariantRole::Sender, "line rate advertised, Mbit/s", kLineRate,
      kSecAssoc},
     [](Stream& s) { return s.log_in(1000, 800000); }},
    {{"sender.default_credit_unit", VariantRole::Sender,
      "segment size before a Credit Unit is advertised, octets", kFormats,
      "Scope and Applicability"},
     [](Stream& s) { return s.in(256, 9000); }},
    {{"sender.first_sequence", VariantRole::Sender,
      "the Sequence Number of the first message toward a receiver (often just below the wrap)", "",
      "Common Header", "RDCC-FMT-06"},
     [](Stream& s) { return first_sequence(s, 0); }},
    {{"sender.class_dscp", VariantRole::Sender,
      "the DSCP the domain configures for each Traffic Class: 6 bits each, class 0 lowest (0: "
      "every class 0)",
      "", "Traffic Classes and Pool Credit", "RDCC-POOL-01"},
     [](Stream& s) -> std::uint64_t {
       if (s.chance(30)) return 0;
       std::uint64_t packed = 0;
       for (unsigned c = 0; c < 8; ++c) packed |= s.in(0, 63) << (6U * c);
       return packed;
     }},
    {{"sender.grants_from_any_address", VariantRole::Sender,
      "1: a grant naming the association is taken from any address", "", kSecAssoc,
      "RDCC-ASSOC-01"},
     [](Stream& s) { return static_cast<std::uint64_t>(s.chance(20)); }},
    // CRN.
    {{"crn.no_suggested_rate", VariantRole::Crn, "1: reports without a Suggested Rate", kCrnRate,
      "On-Path Congestion Reporting"},
     [](Stream& s) { return static_cast<std::uint64_t>(s.chance(40)); }},
    {{"crn.suggested_rate_round_up", VariantRole::Crn,
      "1: the Suggested Rate is the service rate divided by the flows, rounded up (0: down)",
      kCrnRate, "On-Path Congestion Reporting"},
     [](Stream& s) { return static_cast<std::uint64_t>(s.chance(50)); }},
    {{"crn.port_interval_us", VariantRole::Crn,
      "per-port report interval, microseconds (at least the configured one)", "",
      "On-Path Congestion Reporting", "RDCC-CRN-03"},
     [](Stream& s) { return s.log_in(5, 50); }},
    {{"crn.report_interval_us", VariantRole::Crn,
      "per-flow report interval, microseconds (at least the configured one)", "",
      "On-Path Congestion Reporting", "RDCC-CRN-03"},
     [](Stream& s) { return s.log_in(50, 2000); }},
};

// ---- the policies ---------------------------------------------------------------------------

class RandomReceiverPolicy final : public ref::ReceiverPolicy {
 public:
  struct Params {
    std::uint64_t window = 0;        // octets; 0: the reference's
    std::uint64_t first_window = 0;  // octets; 0: as the others
    bool whole_message = false;
    std::uint32_t rate_divisor = 1;
    bool fixed_fair_share = false;
    std::uint32_t lifetime_us = 0;  // 0: Lifetime 0
    ref::ReRequestAnswer rerequest = ref::ReRequestAnswer::WhenCreditIsDue;
    bool even_u = false;
    bool pool = false;
    bool budget_error = false;
    bool idle_on_time = false;
    std::uint32_t first_sequence = 1;
    bool any_address = false;
    bool other_silent = false;
  };
  explicit RandomReceiverPolicy(Params p) : p_(p) {}
  [[nodiscard]] std::uint32_t first_sequence_number() const override { return p_.first_sequence; }
  [[nodiscard]] bool accept_from_any_address() const override { return p_.any_address; }
  [[nodiscard]] bool answer_request_from_other_address() const override { return !p_.other_silent; }

  [[nodiscard]] std::uint64_t grant_window(const ref::WindowContext& c) const override {
    if (p_.whole_message) return c.length;
    if (p_.first_window != 0 && c.scheduled_received == 0) return p_.first_window;
    return p_.window != 0 ? p_.window : c.default_window;
  }
  [[nodiscard]] std::uint32_t rate_share(std::uint32_t capacity,
                                         std::size_t sharing) const override {
    return std::min(capacity / p_.rate_divisor, ReceiverPolicy::rate_share(capacity, sharing));
  }
  [[nodiscard]] double next_rate(const ref::RateUpdate& u) const override {
    if (!p_.fixed_fair_share || u.signal > 0) return ReceiverPolicy::next_rate(u);
    return std::min(u.r_max, std::max(u.r_min, u.rate * 1.25));
  }
  [[nodiscard]] std::uint32_t grant_lifetime_us(std::uint32_t association_default) const override {
    return p_.lifetime_us == 1 ? association_default : p_.lifetime_us;
  }
  [[nodiscard]] ref::ReRequestAnswer answer_rerequest() const override { return p_.rerequest; }
  [[nodiscard]] std::uint32_t unscheduled_limit(const ref::UnscheduledContext& c) const override {
    if (!p_.even_u) return ReceiverPolicy::unscheduled_limit(c);
    const std::uint64_t share = c.g_u / std::max<std::size_t>(1, c.max_associations);
    return static_cast<std::uint32_t>(std::min<std::uint64_t>({c.configured, share, c.left}));
  }
  [[nodiscard]] bool pool_grants() const override { return p_.pool; }
  [[nodiscard]] bool tell_budget_exhausted() const override { return p_.budget_error; }
  [[nodiscard]] ref::Time next_idle_check(ref::Time now, ref::Time least_recent,
                                          ref::Duration idle) const override {
    return p_.idle_on_time ? least_recent + idle
                           : ReceiverPolicy::next_idle_check(now, least_recent, idle);
  }

 private:
  Params p_;
};

class RandomSenderPolicy final : public ref::SenderPolicy {
 public:
  struct Params {
    std::uint64_t segment = 0;  // 0: one Credit Unit; 1: all that may go; else octets
    bool bursts = false;
    std::optional<std::uint64_t> unscheduled_up_to;
    std::uint64_t id_step = 1;
    bool ids_from_1 = false;
    bool same_nonce = false;
    bool no_suggestion = false;
    bool no_credit_return = false;
    std::uint32_t first_sequence = 0;
    bool any_address = false;
    bool exempt_by_words = false;
  };
  explicit RandomSenderPolicy(Params p) : p_(p) {}
  [[nodiscard]] bool check_sequence_of_current_accept() const override {
    return !p_.exempt_by_words;
  }
  [[nodiscard]] std::uint32_t first_sequence_number() const override { return p_.first_sequence; }
  [[nodiscard]] bool match_unknown_peer_by_association_id() const override {
    return p_.any_address;
  }

  [[nodiscard]] bool use_unscheduled(std::uint64_t length) const override {
    return !p_.unscheduled_up_to || length <= *p_.unscheduled_up_to;
  }
  [[nodiscard]] std::uint64_t segment_length(std::uint64_t credit_unit,
                                             std::uint64_t sendable) const override {
    if (p_.segment == 0) return std::min(credit_unit, sendable);
    if (p_.segment == 1) return sendable;
    return std::min(p_.segment, sendable);
  }
  [[nodiscard]] bool space_segments() const override { return !p_.bursts; }
  [[nodiscard]] std::uint64_t first_message_id_on_reestablishment(
      std::uint64_t next) const override {
    return p_.ids_from_1 ? 1 : next;
  }
  [[nodiscard]] bool fresh_nonce_on_reestablishment() const override { return !p_.same_nonce; }
  [[nodiscard]] bool suggest_rate() const override { return !p_.no_suggestion; }
  [[nodiscard]] bool send_credit_return() const override { return !p_.no_credit_return; }
  [[nodiscard]] std::uint64_t message_id_step() const override { return p_.id_step; }

 private:
  Params p_;
};

class RandomCrnPolicy final : public ref::CrnPolicy {
 public:
  RandomCrnPolicy(bool no_rate, bool round_up, ref::Duration floor, ref::Duration port_floor)
      : no_rate_(no_rate), round_up_(round_up), floor_(floor), port_floor_(port_floor) {}
  [[nodiscard]] std::uint32_t suggested_rate(std::uint32_t service,
                                             std::uint32_t flows) const override {
    if (no_rate_) return 0;
    if (round_up_ && flows != 0) return (service + flows - 1) / flows;
    return CrnPolicy::suggested_rate(service, flows);
  }
  [[nodiscard]] ref::Duration report_interval(ref::Duration configured) const override {
    return std::max(configured, floor_);
  }
  [[nodiscard]] ref::Duration port_report_interval(ref::Duration configured) const override {
    return std::max(configured, port_floor_);
  }

 private:
  bool no_rate_;
  bool round_up_;
  ref::Duration floor_;
  ref::Duration port_floor_;
};

template <class Config>
void set(Config& c, const RandomVariant& v, std::string_view draw, std::string_view key) {
  if (auto value = v.value(draw)) (void)ref::set_config(c, key, *value);
}

std::optional<std::uint64_t> parse_number(std::string_view text) {
  std::uint64_t out = 0;
  const auto* end = text.data() + text.size();
  const auto r = std::from_chars(text.data(), end, out);
  if (r.ec != std::errc{} || r.ptr != end || text.empty()) return std::nullopt;
  return out;
}

}  // namespace

std::span<const RandomChoice> random_choices() {
  static const std::vector<RandomChoice> all = [] {
    std::vector<RandomChoice> v;
    for (const auto& e : kChoices) v.push_back(e.choice);
    return v;
  }();
  return all;
}

const RandomChoice* find_random_choice(std::string_view name) {
  for (const auto& c : random_choices()) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

std::string RandomVariant::id() const {
  std::string out = std::to_string(seed) + ":" + std::to_string(index);
  if (!shrunk) return out;
  out += ":";
  for (std::size_t i = 0; i < draws.size(); ++i) {
    out += (i == 0 ? "" : ",") + std::string(draws[i].choice->name);
  }
  return out.back() == ':' ? out + "-" : out;
}

std::string RandomVariant::values() const {
  std::string out;
  for (const auto& d : draws) {
    out += (out.empty() ? "" : " ") + std::string(d.choice->name) + "=" + std::to_string(d.value);
  }
  return out.empty() ? "(the reference's own choices)" : out;
}

std::optional<std::uint64_t> RandomVariant::value(std::string_view name) const {
  for (const auto& d : draws) {
    if (d.choice->name == name) return d.value;
  }
  return std::nullopt;
}

std::vector<RandomDraw> RandomVariant::of_role(ref::VariantRole role) const {
  std::vector<RandomDraw> out;
  for (const auto& d : draws) {
    if (d.choice->role == role) out.push_back(d);
  }
  return out;
}

RandomVariant draw_random_variant(std::uint64_t seed, std::uint64_t index) {
  RandomVariant v;
  v.seed = seed;
  v.index = index;
  const auto choices = random_choices();
  for (std::size_t i = 0; i < choices.size(); ++i) {
    Stream s(seed, index, i);
    v.draws.push_back({&choices[i], kChoices[i].draw(s)});
  }
  return v;
}

RandomVariant keep_only(const RandomVariant& v, const std::vector<std::string>& names) {
  RandomVariant out = v;
  out.shrunk = true;
  std::erase_if(out.draws, [&](const RandomDraw& d) {
    return std::find(names.begin(), names.end(), d.choice->name) == names.end();
  });
  return out;
}

std::optional<RandomVariant> parse_random_variant(std::string_view id, std::string* error) {
  const auto fail = [&](std::string why) -> std::optional<RandomVariant> {
    if (error != nullptr) *error = "random variant '" + std::string(id) + "': " + std::move(why);
    return std::nullopt;
  };
  const auto colon = id.find(':');
  if (colon == std::string_view::npos) return fail("wanted SEED:INDEX[:NAME,...]");
  const auto second = id.find(':', colon + 1);
  const auto seed = parse_number(id.substr(0, colon));
  const auto index = parse_number(id.substr(colon + 1, second - colon - 1));
  if (!seed || !index) return fail("SEED and INDEX are decimal numbers");
  RandomVariant v = draw_random_variant(*seed, *index);
  if (second == std::string_view::npos) return v;
  std::vector<std::string> names;
  std::string_view rest = id.substr(second + 1);
  while (!rest.empty() && rest != "-") {
    const auto comma = rest.find(',');
    const std::string name(rest.substr(0, comma));
    if (find_random_choice(name) == nullptr) {
      return fail("no choice named '" + name + "' (rdcc-conform --list-random-choices)");
    }
    names.push_back(name);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
  }
  return keep_only(v, names);
}

void apply_config(const RandomVariant& v, ref::ReceiverConfig& c) {
  set(c, v, "receiver.credit_unit", "credit_unit");
  set(c, v, "receiver.budget", "budget");
  set(c, v, "receiver.unscheduled_limit", "unscheduled_limit");
  set(c, v, "receiver.start_jitter_us", "start_jitter_us");
  set(c, v, "receiver.backlog_threshold", "backlog_threshold");
  set(c, v, "receiver.grant_lifetime_us", "grant_lifetime_us");
  set(c, v, "receiver.epoch", "epoch");
  set(c, v, "receiver.d_max_us", "d_max_us");
  set(c, v, "receiver.base_rtt_us", "base_rtt_us");
  set(c, v, "receiver.rtt_target_us", "rtt_target_us");
  set(c, v, "receiver.max_associations", "max_associations");
  set(c, v, "receiver.max_pending_per_association", "max_pending_per_association");
  set(c, v, "receiver.idle_timeout_ms", "idle_timeout_ms");
  if (auto beta = v.value("receiver.aimd_beta_pct")) c.aimd_beta = static_cast<double>(*beta) / 100;
  if (auto alpha = v.value("receiver.aimd_alpha_mbps"))
    c.aimd_alpha_mbps = static_cast<std::uint32_t>(*alpha);
}

void apply_config(const RandomVariant& v, ref::SenderConfig& c) {
  set(c, v, "sender.line_rate_mbps", "line_rate_mbps");
  set(c, v, "sender.capabilities", "capabilities");
  set(c, v, "sender.default_credit_unit", "default_credit_unit");
  set(c, v, "sender.local_backlog_threshold", "local_backlog_threshold");
  if (auto packed = v.value("sender.class_dscp")) {
    for (std::size_t cls = 0; cls < c.class_dscp.size(); ++cls) {
      auto d = static_cast<std::uint8_t>((*packed >> (6U * cls)) & 63U);
      // A domain tells unscheduled data from scheduled by its DSCP: no class shares it.
      if (c.unscheduled_dscp == d) d = static_cast<std::uint8_t>((d + 1U) & 63U);
      c.class_dscp.at(cls) = d;
    }
  }
}

void apply_config(const RandomVariant& /*v*/, ref::CrnConfig& /*c*/) {}

void apply_policy(const RandomVariant& v, const SetByScenario& set_by_scenario,
                  ref::ReceiverConfig& c, std::shared_ptr<const ref::ReceiverPolicy>& policy) {
  // G_u follows the final G (at most G/4), unless the scenario configured it.
  if (auto pct = v.value("receiver.unscheduled_budget_pct");
      pct && !set_by_scenario("unscheduled_budget")) {
    c.unscheduled_budget = c.budget * *pct / 100;
  }
  const Drawn d{v};
  RandomReceiverPolicy::Params p;
  p.window = d.get("receiver.grant_window_cu", 0) * c.credit_unit;
  p.first_window = d.get("receiver.first_window_cu", 0) * c.credit_unit;
  p.whole_message = d.get("receiver.whole_message", 0) != 0;
  p.rate_divisor = static_cast<std::uint32_t>(d.get("receiver.rate_divisor", 1));
  p.fixed_fair_share = d.get("receiver.rate_controller", 0) != 0;
  p.lifetime_us = static_cast<std::uint32_t>(d.get("receiver.grant_lifetime_field_us", 0));
  p.rerequest = static_cast<ref::ReRequestAnswer>(d.get("receiver.rerequest_answer", 0));
  p.even_u = d.get("receiver.unscheduled_allocation", 0) != 0;
  p.pool = d.get("receiver.pool_grants", 0) != 0;
  p.budget_error = d.get("receiver.budget_exhausted_error", 0) != 0;
  p.idle_on_time = d.get("receiver.idle_removal_on_time", 0) != 0;
  p.first_sequence = static_cast<std::uint32_t>(d.get("receiver.first_sequence", 1));
  p.any_address = d.get("receiver.requests_from_any_address", 0) != 0;
  p.other_silent = d.get("receiver.other_address_silent", 0) != 0;
  if (v.of_role(VariantRole::Receiver).empty()) return;
  policy = std::make_shared<const RandomReceiverPolicy>(p);
}

void apply_policy(const RandomVariant& v, const SetByScenario& /*set_by_scenario*/,
                  ref::SenderConfig& c, std::shared_ptr<const ref::SenderPolicy>& policy) {
  if (auto pct = v.value("sender.available_rate_pct")) {
    c.available_rate_mbps = static_cast<std::uint32_t>(c.line_rate_mbps * *pct / 100);
  }
  const Drawn d{v};
  RandomSenderPolicy::Params p;
  p.segment = d.get("sender.segment", 0);
  p.bursts = d.get("sender.pacing_bursts", 0) != 0;
  if (d.has("sender.unscheduled_up_to")) p.unscheduled_up_to = d.get("sender.unscheduled_up_to", 0);
  p.id_step = std::max<std::uint64_t>(1, d.get("sender.message_id_step", 1));
  p.ids_from_1 = d.get("sender.reestablish_ids_from_1", 0) != 0;
  p.same_nonce = d.get("sender.reestablish_same_nonce", 0) != 0;
  p.no_suggestion = d.get("sender.no_suggested_rate", 0) != 0;
  p.no_credit_return = d.get("sender.no_credit_return", 0) != 0;
  p.first_sequence = static_cast<std::uint32_t>(d.get("sender.first_sequence", 0));
  p.any_address = d.get("sender.grants_from_any_address", 0) != 0;
  p.exempt_by_words = d.get("sender.accept_exempt_by_words", 0) != 0;
  if (v.of_role(VariantRole::Sender).empty()) return;
  policy = std::make_shared<const RandomSenderPolicy>(p);
}

void apply_policy(const RandomVariant& v, const SetByScenario& /*set_by_scenario*/,
                  ref::CrnConfig& /*c*/, std::shared_ptr<const ref::CrnPolicy>& policy) {
  if (v.of_role(VariantRole::Crn).empty()) return;
  const Drawn d{v};
  policy = std::make_shared<const RandomCrnPolicy>(
      d.get("crn.no_suggested_rate", 0) != 0, d.get("crn.suggested_rate_round_up", 0) != 0,
      ref::microseconds(static_cast<std::int64_t>(d.get("crn.report_interval_us", 0))),
      ref::microseconds(static_cast<std::int64_t>(d.get("crn.port_interval_us", 0))));
}

}  // namespace rdcc::testing
