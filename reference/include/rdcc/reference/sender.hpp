// The reference RDCC sender: sans-IO (io.hpp documents the loop). One Sender serves every
// receiver it talks to, with one association per receiver address.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "rdcc/codec/constants.hpp"
#include "rdcc/reference/config_schema.hpp"
#include "rdcc/reference/events.hpp"
#include "rdcc/reference/io.hpp"
#include "rdcc/reference/policy.hpp"
#include "rdcc/reference/random.hpp"

namespace rdcc::ref {

struct SenderConfig {
  std::string name = "sender";
  Address local;  // our RDCC address; reports name our data by its IP
  std::uint32_t line_rate_mbps = 100000;
  std::uint32_t capabilities = capability::kPool | capability::kStatus | capability::kCrn;
  std::vector<Address> crn_addresses;  // reports from any other IP are ignored (port ignored)
  std::optional<std::uint8_t> unscheduled_dscp;  // "the DSCP that the domain configures"
  std::array<std::uint8_t, 8> class_dscp{};      // Traffic Class -> DSCP, domain-wide
  std::uint8_t control_dscp = 46;
  std::uint64_t local_backlog_threshold = 0;         // 0: the smallest N_cu advertised
  std::uint32_t available_rate_mbps = 0;             // for Suggested Rate; 0: line_rate_mbps
  Duration assoc_initial_timeout = milliseconds(1);  // "starting at 1 ms and doubling"
  int assoc_max_attempts = 8;                        // "for at most eight attempts"
  Duration min_request_timeout = microseconds(100);  // "at least 100 microseconds"
  Duration max_request_timeout = milliseconds(100);  // "doubling ... up to 100 ms"
  bool allow_unscheduled = true;  // false: scheduled mode for every message ("MAY")
  // Segment size before an association has advertised its Credit Unit (without RDCC), and
  // when an ASSOC_ACCEPT advertises a Credit Unit of zero.
  std::uint32_t default_credit_unit = 4096;
  // How many finished (DONE or ABORTED) messages keep their final status for status(): the
  // most recently finished ones, the oldest forgotten first. A finished message leaves the
  // sender's live state at once; only this status remains. 0: none kept.
  std::size_t finished_status_capacity = 65536;
  // The driver calls Sender::sent() after each batch of sends (the UDP node): the timers and
  // pacing windows that count from a send then count from when it left, not from its poll.
  bool reports_sends = false;

  // The settings a person gives (config_schema.hpp), once.
  template <class Self, class V>
  static void describe(Self& c, V& v) {
    using U = ConfigUnit;
    constexpr auto kAny = kConfigNoMax;
    v({"line_rate_mbps", U::Mbps, 1, kAny, "--line-rate", "line rate advertised"},
      c.line_rate_mbps);
    v({"capabilities", U::Capabilities, 0, kAny, "--capabilities", "capabilities offered"},
      c.capabilities);
    v({"allow_unscheduled", U::Bool, 0, 1, "--scheduled-only",
       "use unscheduled mode where the spec allows it; false: scheduled mode for every message",
       FlagKind::SetsFalse},
      c.allow_unscheduled);
    v({"unscheduled_dscp", U::Dscp, 0, 63, "--unscheduled-dscp",
       "DSCP of unscheduled data (none: not marked)"},
      c.unscheduled_dscp);
    v({"default_credit_unit", U::Octets, 1, kMaxCreditUnit, "--default-credit-unit",
       "segment size before an association advertises its Credit Unit"},
      c.default_credit_unit);
    v({"local_backlog_threshold", U::Octets, 0, kAny, "--backlog-threshold",
       "local Backlog Threshold (0: the smallest N_cu advertised)"},
      c.local_backlog_threshold);
    v({"available_rate_mbps", U::Mbps, 0, kAny, "--available-rate",
       "rate for Suggested Rates (0: the line rate)"},
      c.available_rate_mbps);
    v({"control_dscp", U::Dscp, 0, 63, "--control-dscp", "DSCP of RDCC control messages"},
      c.control_dscp);
  }
};

// What the application hands to RDCC: one message toward one receiver.
struct MessageSpec {
  Address receiver;
  std::uint64_t length = 0;
  std::uint8_t traffic_class = 0;
  std::uint8_t weight = 1;
  ServiceHint service_hint = ServiceHint::None;
  std::uint32_t deadline_us = 0;  // 0: none
  BindingKind binding = BindingKind::Opaque;
  std::uint64_t binding_value = 0;  // opaque: the transport's message identifier (0: a draw);
                                    // RoCEv2: packed QPN/MSN/count (codec/rocev2.hpp)
  std::uint64_t post_unit = 0;      // RoCEv2: RDMA message size; octets are released only in
                                    // whole post units fully covered by credit (0: any octet)
  bool force_scheduled = false;
};

// "Sender Message State Machine".
enum class MessageState : std::uint8_t { New, Unsched, Waiting, Scheduled, Drained, Done, Aborted };
[[nodiscard]] const char* to_string(MessageState s);

// The rows of "Sender Message State Transitions", in the table's order, then the reference's
// own rows for what the table leaves out (docs/spec-notes.md, "The sender's state machine
// beyond the table"). sender.cpp holds the table (each row's states and next state) and one
// function per row doing the row's action (Sender::Impl::row_*, "the rows' actions"); every
// change of a message's state runs one row's function by name, and SenderStats::transitions
// counts them.
enum class SenderTransition : std::uint8_t {
  NewUnscheduled,            // NEW -> UNSCHED: length <= U, no unscheduled message outstanding
  NewScheduled,              // NEW -> WAITING: otherwise
  UnschedDrained,            // UNSCHED -> DRAINED: all octets transmitted
  UnschedStopped,            // UNSCHED -> WAITING: CONGESTION_REPORT or link pause
  WaitingGranted,            // WAITING -> SCHEDULED: CREDIT_GRANT above transmitted offset
  WaitingRequestTimeout,     // WAITING -> WAITING: request timeout, CREDIT_REQUEST again
  ScheduledLimitReached,     // SCHEDULED -> WAITING: Grant Limit reached before message end
  ScheduledLifetimeElapsed,  // SCHEDULED -> WAITING: Lifetime elapsed, CREDIT_REQUEST
  ScheduledDrained,          // SCHEDULED -> DRAINED: all octets transmitted
  DrainedDone,               // DRAINED -> DONE: MSG_DONE
  DrainedRequestTimeout,     // DRAINED -> DRAINED: request timeout, CREDIT_REQUEST again
  Aborted,                   // any but DONE or ABORTED -> ABORTED: CANCEL, ERROR
  WaitingBudgetExhausted,    // WAITING -> WAITING: ERROR (BUDGET_EXHAUSTED)
  // Beyond the table.
  WithoutRdcc,      // NEW -> SCHEDULED: no ASSOC_REQUEST answered, sent without RDCC
  WithoutRdccDone,  // SCHEDULED -> DONE: without RDCC, all octets transmitted
  CreditDropped,    // live, not NEW -> WAITING: UNKNOWN_ASSOCIATION or a new Epoch
  WaitingDrained,   // WAITING -> DRAINED: the last octets went under pool credit
};
inline constexpr std::size_t kSenderTransitionCount = 17;
[[nodiscard]] const char* to_string(SenderTransition t);

using MessageHandle = std::uint64_t;  // sender-local; never reused

struct MessageStatus {
  MessageHandle handle = 0;
  std::uint64_t message_id = 0;  // 0 until the association exists
  MessageState state = MessageState::New;
  std::uint64_t length = 0;
  std::uint64_t transmitted = 0;  // octets handed to the transport
  std::uint64_t grant_limit = 0;  // credit held (cumulative offset), whether valid now or not
  bool without_rdcc = false;      // the receiver never answered: sent without RDCC
  std::uint16_t abort_reason = 0;
  Time submitted{};
  Time finished{};  // MSG_DONE received, abort, or last octet sent without RDCC
};

// "Implementations SHOULD expose counters for: credit granted, reclaimed, and returned;
// unscheduled octets; reports received by type; and invariant violations." (Operational
// Considerations), plus what a vendor needs to debug a run.
struct SenderStats {
  std::uint64_t assoc_requests_sent = 0;
  std::uint64_t associations_established = 0;
  std::uint64_t associations_failed = 0;  // fell back to no RDCC
  std::uint64_t re_establishments = 0;
  std::uint64_t credit_requests_sent = 0;
  std::uint64_t credit_request_retransmissions = 0;
  std::uint64_t grants_received = 0;
  std::uint64_t grants_ignored = 0;   // zero Pacing Rate, unknown message, wrong association
  std::uint64_t stale_discarded = 0;  // sequence number not newer
  std::uint64_t credit_granted = 0;   // octets of credit added by grants
  std::uint64_t credit_expired = 0;   // octets of held credit lost at Lifetime expiry
  std::uint64_t credit_returned = 0;  // octets given back with CREDIT_RETURN
  std::uint64_t unscheduled_octets = 0;
  std::uint64_t scheduled_octets = 0;
  std::uint64_t reports_received = 0;
  std::uint64_t reports_ignored = 0;  // from an address not configured as a CRN
  std::uint64_t unscheduled_conversions = 0;
  std::uint64_t sender_status_sent = 0;
  std::uint64_t messages_done = 0;
  std::uint64_t messages_aborted = 0;
  std::uint64_t errors_received = 0;
  std::uint64_t malformed_discarded = 0;
  std::uint64_t invariant_violations = 0;  // our own checks on what we transmit
  std::uint64_t nonce_mismatch = 0;        // ASSOC_ACCEPT not echoing the current nonce
  std::uint64_t wrong_association = 0;     // Association ID or Epoch not the current one
  std::uint64_t unexpected_discarded = 0;  // from an unknown peer, or a type we never receive
  std::uint64_t grants_beyond_length = 0;  // receiver broke rule 5 (we never use the excess)
  std::uint64_t parameter_updates = 0;     // Parameter Updates applied (and acknowledged)
  std::uint64_t without_rdcc_octets = 0;   // octets sent after falling back to no RDCC
  // Loss recovery on the opaque transport (docs/data-transport.md, "Loss recovery").
  std::uint64_t nacks_received = 0;
  std::uint64_t resent_octets = 0;  // octets sent again because a NACK or a probe named them
  std::uint64_t tail_probes = 0;    // lapsed grants renewed with nothing added: a segment resent
  // How often each row of the state machine was taken, by SenderTransition.
  std::array<std::uint64_t, kSenderTransitionCount> transitions{};
};

// What tests and tools may read about one association.
struct AssociationStatus {
  Address receiver;
  bool established = false;
  bool without_rdcc = false;
  std::uint32_t association_id = 0;
  std::uint16_t epoch = 0;
  std::uint64_t sender_nonce = 0;
  int assoc_attempts = 0;
  std::uint32_t unscheduled_limit = 0;
  std::uint32_t start_jitter_us = 0;
  std::uint32_t backlog_threshold = 0;
  std::uint32_t grant_lifetime_us = 0;
  std::uint32_t credit_unit = 0;
  std::uint32_t capabilities = 0;
  std::optional<Duration> srtt;
  std::uint64_t pool_limit = 0;
  std::uint64_t pool_sent = 0;
};

class Sender {
 public:
  // `policy` decides what the spec leaves to the sender (policy.hpp); none: the reference's
  // own choices (SenderPolicy's defaults).
  Sender(SenderConfig config, RandomSource& random, Observer* observer = nullptr,
         std::shared_ptr<const SenderPolicy> policy = nullptr);
  ~Sender();
  Sender(const Sender&) = delete;
  Sender& operator=(const Sender&) = delete;

  // The application side.
  [[nodiscard]] MessageHandle submit(const MessageSpec& spec, Time now);
  void cancel(MessageHandle handle, Time now);  // abandon: CANCEL (APPLICATION_ABORT)
  // Give back credit beyond `new_limit` (CREDIT_RETURN); no-op below what was transmitted.
  void return_credit(MessageHandle handle, std::uint64_t new_limit, Time now);
  [[nodiscard]] std::optional<MessageStatus> status(MessageHandle handle) const;
  [[nodiscard]] std::optional<AssociationStatus> association(const Address& receiver) const;

  // The network side (io.hpp).
  void on_control(const Address& from, std::span<const std::byte> datagram, Time now);
  void on_link_pause(Time now);  // a link-layer pause indication (PFC) on the local interface
  // Opaque transport: a receiver's NACK (docs/data-transport.md, "Loss recovery"); `from` is
  // any address of the receiver's host. The octets named that the message has transmitted
  // are sent again, under a live grant that covers them.
  void on_nack(const Address& from, std::uint64_t key, std::span<const OctetRange> ranges,
               Time now);
  void on_timeout(Time now);
  [[nodiscard]] std::optional<Time> next_timeout() const;
  [[nodiscard]] std::optional<Datagram> poll_transmit();
  [[nodiscard]] std::optional<DataSegment> poll_data(Time now);
  // What poll_transmit() and poll_data() gave since the last call left by `at` (only with
  // SenderConfig::reports_sends). A process descheduled between reading its clock and its
  // send puts the datagrams on the wire later than the time they were polled at, and the
  // next ones on time: the request retransmission timers and the pacing windows that started
  // at the poll start at `at` instead, so that the wire keeps their intervals.
  void sent(Time at);

  [[nodiscard]] const SenderStats& stats() const;
  [[nodiscard]] const SenderConfig& config() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rdcc::ref
