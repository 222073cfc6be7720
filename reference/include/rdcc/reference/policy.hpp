// Behaviour policies: the choices the spec leaves to an implementation ("The choice of
// algorithm is local", "A sender MAY use scheduled mode for any message", ...), injected into
// an endpoint at construction. The default policy of each role is the reference's own choice;
// a conforming variant (variants.hpp) is another policy that the spec equally permits.
//
// A policy decides; the endpoint's rule code still enforces every MUST around the decision
// (the budget G, Grant Limits within the message length, the pacing bound, ...), so no
// conforming policy can make an endpoint break a rule. Policies are stateless: every hook is
// const and gets what it decides from its arguments (a policy may hold parameters of its own,
// set when it is made: a Lifetime, a divisor).
//
// The rule hooks of each role are the other seam: how the endpoint reads its input and where
// it applies a MUST. Their defaults are the spec; only the deliberate faults of the testing
// code (rdcc/testing/receiver_mutants.hpp, rdcc/testing/sender_mutants.hpp) answer otherwise,
// and rewrite_outgoing changes a message as it enters the transmit queue. The rule code itself
// has no fault switch.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "rdcc/codec/codec.hpp"
#include "rdcc/codec/serial.hpp"
#include "rdcc/reference/random.hpp"
#include "rdcc/reference/time.hpp"

namespace rdcc::ref {

// How far ahead of the newest processed Sequence Number a message is still processed. "An
// endpoint MUST discard a message of an association whose Sequence Number is not newer ...
// than the newest one it has already processed" ("Common Header"): the rule names the messages
// that must be discarded, not all that must be processed. A message further ahead than
// kSequenceWindow is discarded too and moves nothing, so one forged number cannot make the
// real peer's next messages "not newer" (docs/spec-notes.md, "A Sequence Number far ahead is
// discarded, not processed"). 2^14: more than any run of lost control messages a live
// association survives, and a blind guess lands within it once in 2^18.
inline constexpr std::uint32_t kSequenceWindow = 1U << 14U;
[[nodiscard]] constexpr bool sequence_processed(std::uint32_t seq, std::uint32_t newest) noexcept {
  return serial_newer(seq, newest) && static_cast<std::uint32_t>(seq - newest) <= kSequenceWindow;
}

// ---- receiver -------------------------------------------------------------------------------

// What the receiver knows of a message when it sizes the next grant.
struct WindowContext {
  std::uint64_t default_window = 0;      // the reference's: one BDP of the access link, >= 4 CU
  std::uint64_t length = 0;              // Message Length
  std::uint64_t scheduled_received = 0;  // scheduled octets received
  std::uint32_t credit_unit = 0;
};

// What the receiver knows when it chooses U for an association ("Unscheduled Transmission").
struct UnscheduledContext {
  std::uint32_t configured = 0;  // the U the operator configured
  std::uint64_t left = 0;        // G_u less the U of the other associations
  std::uint64_t g_u = 0;         // G_u
  std::size_t max_associations = 0;
  std::uint32_t credit_unit = 0;
};

// One update of a sender's rate by the rate controller ("Credit Allocation").
struct RateUpdate {
  double rate = 0;    // r_i now (already the granted rate when it was lower)
  double signal = 0;  // s_i in [0, 1]: the largest congestion signal of the last interval
  double r_min = 0;   // one Credit Unit per update interval
  double r_max = 0;   // the sender's line rate and Suggested Rate
  double alpha = 0;   // additive increase, Mbit/s
  double beta = 0;    // multiplicative decrease factor
};

// How the receiver answers a CREDIT_REQUEST for a message whose grant is still live.
enum class ReRequestAnswer : std::uint8_t {
  WhenCreditIsDue,  // the reference: a grant only when the message is due more credit
  Never,            // nothing until the grant's Lifetime has elapsed (docs/spec-notes.md, 52)
  Always,           // a grant restating the limit (a refreshed Lifetime and Pacing Rate)
};

// What the receiver does with a CONGESTION_REPORT naming a flow of an association's sender.
enum class ReportReaction : std::uint8_t {
  RaiseSignal,  // the reference: the sender's congestion signal s_i, never a rate increase
  Ignore,
  ResetRate,  // (a fault) the rate back to the link capacity, the Suggested Rate forgotten
};

// Hooks of the receiver. The base class is the reference's own choice of each.
class ReceiverPolicy {
 public:
  virtual ~ReceiverPolicy() = default;

  // The credit a grant may leave outstanding for a message: the window the next Grant Limit
  // reaches past the octets received. The endpoint still bounds it by the budget and the
  // message length, and a RoCEv2 message's by whole RDMA messages.
  [[nodiscard]] virtual std::uint64_t grant_window(const WindowContext& c) const {
    return c.default_window;
  }
  // The most one message is granted when `sharing` messages hold or want a rate of the
  // access link's `capacity` (message octets, Mbit/s). The endpoint still keeps the sum of
  // the rates within the capacity.
  [[nodiscard]] virtual std::uint32_t rate_share(std::uint32_t capacity,
                                                 std::size_t sharing) const {
    return static_cast<std::uint32_t>(capacity / (sharing == 0 ? 1 : sharing));
  }
  // The rate controller: r_i after one update interval. The reference is the RECOMMENDED AIMD:
  // "if congestion signal s_i > 0 ...: r_i = max(R_min, r_i * (1 - beta * s_i)) else: r_i =
  // min(R_max_i, r_i + alpha)". Any controller must lower the rate when s_i > 0 (rule 2). A
  // function of `u` alone: the receiver skips an update whose arguments are those of the last
  // one, which left the rate as it was (Receiver::Impl::aimd_tick).
  [[nodiscard]] virtual double next_rate(const RateUpdate& u) const {
    if (u.signal > 0) return std::max(u.r_min, u.rate * (1.0 - u.beta * u.signal));
    return std::min(u.r_max, u.rate + u.alpha);
  }
  // The Lifetime field of a grant, microseconds; 0 is "the default Grant Lifetime of the
  // association", what the reference sends.
  [[nodiscard]] virtual std::uint32_t grant_lifetime_us(
      std::uint32_t association_default_us) const {
    (void)association_default_us;
    return 0;
  }
  [[nodiscard]] virtual ReRequestAnswer answer_rerequest() const {
    return ReRequestAnswer::WhenCreditIsDue;
  }
  // U for an association; the endpoint sets 0 while the circuit breaker is tripped and keeps
  // the result within `left`. The reference gives the configured U while G_u has room for it,
  // then what is left if that is at least a Credit Unit, then 0.
  [[nodiscard]] virtual std::uint32_t unscheduled_limit(const UnscheduledContext& c) const {
    const std::uint64_t u = std::min<std::uint64_t>(c.configured, c.left);
    return u < c.credit_unit && u < c.configured ? 0 : static_cast<std::uint32_t>(u);
  }
  // Whether the scheduled messages of a sender that advertised POOL are granted with pool grants
  // (Message ID 0, POOL) instead of per-message grants. The endpoint never uses them with a
  // sender that did not advertise POOL ("MUST NOT").
  [[nodiscard]] virtual bool pool_grants() const { return false; }
  // Whether a message the budget cannot serve is told so with ERROR (BUDGET_EXHAUSTED), once
  // until it is granted again. The reference keeps it waiting without a word.
  [[nodiscard]] virtual bool tell_budget_exhausted() const { return false; }
  // When the receiver next looks for idle associations, given the least recent activity
  // among them; the reference looks every quarter of the idle time (removal within
  // [idle, 1.25 * idle]).
  [[nodiscard]] virtual Time next_idle_check(Time now, Time least_recent_activity,
                                             Duration idle_timeout) const {
    (void)least_recent_activity;
    return now + idle_timeout / 4;
  }

  // ---- Rule hooks: the spec's answer by default (see the header comment) ----------------------

  // Every control message as it enters the transmit queue.
  virtual void rewrite_outgoing(Message& m) const { (void)m; }
  // A received datagram: "Messages carrying an unknown Version MUST be discarded"; a Length
  // smaller than the type's size or larger than the UDP payload "MUST be discarded".
  [[nodiscard]] virtual Result<Message, DecodeError> decode_control(
      std::span<const std::byte> datagram) const {
    return decode(datagram);
  }
  // Whether Sequence Number `seq` is newer than `newest` ("Common Header": serial arithmetic)
  // and within kSequenceWindow of it.
  [[nodiscard]] virtual bool sequence_fresh(std::uint32_t seq, std::uint32_t newest) const {
    return sequence_processed(seq, newest);
  }
  // "The receiver MUST NOT grant credit to an association whose Epoch ... it does not recognize."
  [[nodiscard]] virtual bool recognizes_epoch(std::uint16_t epoch, std::uint16_t own) const {
    return epoch == own;
  }
  // Whether a message of an association from another address rebinds it to that address
  // ("receivers send all other messages only to the address bound when the association was
  // accepted": no).
  [[nodiscard]] virtual bool follow_request_source() const { return false; }
  // The Sequence Number of an association's first message ("Incremented by one for each
  // message the originator sends on the association": where it starts is the receiver's).
  [[nodiscard]] virtual std::uint32_t first_sequence_number() const { return 1; }
  // Whether a message of an association from another address is processed as the
  // association's (its answers still go to the bound address): the spec names the Sender
  // Nonce, the Association ID, the Epoch and the Sequence Numbers as the protections against
  // blind injection, not the source address. The reference discards it (docs/spec-notes.md 58).
  [[nodiscard]] virtual bool accept_from_any_address() const { return false; }
  // "A receiver MUST treat a retransmitted ASSOC_REQUEST with the same nonce as idempotent".
  [[nodiscard]] virtual bool same_nonce_same_association() const { return true; }
  // "Receivers MUST bound the number of associations and of pending messages": the bounds in
  // force, given the configured ones.
  [[nodiscard]] virtual std::size_t association_cap(std::size_t configured) const {
    return configured;
  }
  [[nodiscard]] virtual std::size_t pending_cap(std::size_t configured) const { return configured; }
  // The G_u the sum of U is kept within ("Unscheduled Transmission").
  [[nodiscard]] virtual std::uint64_t unscheduled_pool(std::uint64_t g_u) const { return g_u; }
  // The bound of scheduled credit: G_s = G - G_u ("Receiver Credit Budget").
  [[nodiscard]] virtual std::uint64_t scheduled_pool(std::uint64_t g, std::uint64_t g_s) const {
    (void)g;
    return g_s;
  }
  // Whether a grant waits for room in G_s (the invariant of "Receiver Credit Budget").
  [[nodiscard]] virtual bool enforce_budget() const { return true; }
  // Whether G_s bounds each association's credit alone instead of the sum over associations: a
  // fault ("sum over a of ( Granted(a) + Unsched(a) ) <= G", "Receiver Credit Budget").
  [[nodiscard]] virtual bool budget_per_association() const { return false; }
  // Whether the Pacing Rates issued are kept within the link ("Credit Allocation", rule 1).
  [[nodiscard]] virtual bool enforce_rate_sum() const { return true; }
  // Whether a sender that did not advertise POOL is also sent a pool grant with each grant
  // ("MUST NOT use pool grants with a sender that did not advertise the POOL capability").
  [[nodiscard]] virtual bool pool_grant_without_capability() const { return false; }
  // "MUST NOT grant further credit to the association for that message" (data beyond the
  // Grant Limit: "Error Handling and Recovery").
  [[nodiscard]] virtual bool stop_granting_misbehaving() const { return true; }
  // Whether a holder re-granted at a lower Pacing Rate for a new message is given a lower Grant
  // Limit as well and its credit counted down to it: a fault, since such a grant "never reduces
  // credit" ("Credit Requests and Grants", rule 1).
  [[nodiscard]] virtual bool lower_grant_reclaims() const { return false; }
  // Whether a CREDIT_RETURN that may have crossed its message's latest grant (it arrives within
  // 2 * D_max of it) releases credit as any other return does: a fault, since the sender takes
  // that grant's credit when it arrives (docs/spec-notes.md 187).
  [[nodiscard]] virtual bool return_releases_crossed_grant() const { return false; }
  // The octets received at which a message is complete and MSG_DONE is sent.
  [[nodiscard]] virtual std::uint64_t completion_octets(std::uint64_t length) const {
    return length;
  }
  // "When the receiver has received all octets of a message it sends MSG_DONE"
  [[nodiscard]] virtual bool send_msg_done() const { return true; }
  // "a receiver that receives CREDIT_REQUEST for a completed message answers with MSG_DONE again"
  [[nodiscard]] virtual bool answer_done_again() const { return true; }
  // "replies with ERROR (UNKNOWN_ASSOCIATION)"
  [[nodiscard]] virtual bool answer_unknown_association() const { return true; }
  // A CREDIT_REQUEST naming a live association from another address than the bound one: the
  // request of an association unknown to that source, answered with ERROR
  // (UNKNOWN_ASSOCIATION) to it (default), or the association's message from the wrong
  // address, discarded silently (docs/spec-notes.md 15, 58: both readings keep the words).
  [[nodiscard]] virtual bool answer_request_from_other_address() const { return true; }
  // "A receiver that cannot admit a new association answers with ERROR (reason ASSOC_REFUSED)"
  [[nodiscard]] virtual bool answer_refusal() const { return true; }
  // "a receiver that observes a loss rate of unscheduled data above a configured threshold ...
  // MUST set U to zero for all associations"
  [[nodiscard]] virtual bool circuit_breaker() const { return true; }
  // An unknown Type outside an established association: "it MUST NOT reply otherwise".
  // `association_exists`: the Association ID is one of ours (from another address or Epoch).
  [[nodiscard]] virtual bool answer_unsupported_type_unbound(bool association_exists) const {
    (void)association_exists;
    return false;
  }
  // "An endpoint MUST ignore reports whose source address is not within the set of CRN
  // addresses configured for the domain."
  [[nodiscard]] virtual bool accept_report(bool from_configured_crn) const {
    return from_configured_crn;
  }
  // "A CONGESTION_REPORT can only cause a receiver to reduce the rate it grants".
  [[nodiscard]] virtual ReportReaction report_reaction() const {
    return ReportReaction::RaiseSignal;
  }
  // The Suggested Rate a SENDER_STATUS states, as the receiver takes it (rule 3).
  [[nodiscard]] virtual std::uint32_t suggested_rate(std::uint32_t stated) const { return stated; }
  // RoCEv2: a queue pair's octets count for that queue pair's messages only ("Transport
  // Bindings").
  [[nodiscard]] virtual bool match_queue_pair() const { return true; }
};

// ---- sender ---------------------------------------------------------------------------------

// Hooks of the sender: transmission mode, segment size and bursts, Message IDs and nonces on
// re-establishment, capabilities advertised, CREDIT_RETURN. The defaults are the reference's
// own choices. The sender's rule code decides whether a choice is open at all (unscheduled
// mode only for a message no larger than U with no other one outstanding, no octet beyond
// the credit held or its Lifetime, the ten-Credit-Unit pacing window, ...) and clamps what a
// hook answers to it.
class SenderPolicy {
 public:
  virtual ~SenderPolicy() = default;

  // "Transmission Mode Selection": whether a message that may go in unscheduled mode does.
  // Asked only when unscheduled mode is allowed ("A sender MAY use scheduled mode for any
  // message").
  [[nodiscard]] virtual bool use_unscheduled(std::uint64_t /*length*/) const { return true; }

  // The octets of the next data segment: `sendable` octets may go now (credit, the post unit
  // and the message end already applied, and at most the ten Credit Units one pacing window
  // allows), `credit_unit` is the association's. The sender clamps the answer to [1, sendable].
  // Default: one Credit Unit.
  [[nodiscard]] virtual std::uint64_t segment_length(std::uint64_t credit_unit,
                                                     std::uint64_t sendable) const {
    return std::min(credit_unit, sendable);
  }

  // Whether paced segments are spaced by their own transmission time at the Pacing Rate
  // (default), or go in bursts that only rule 4's window (ten Credit Units in any interval of
  // their transmission time) bounds.
  [[nodiscard]] virtual bool space_segments() const { return true; }

  // The first Message ID of an association the sender re-establishes with a receiver, given
  // the next one the previous association would have used. Default: go on counting, so no
  // Message ID is ever used twice toward one receiver. The sender never goes below 1.
  [[nodiscard]] virtual std::uint64_t first_message_id_on_reestablishment(
      std::uint64_t next) const {
    return next;
  }

  // Whether re-establishing an association draws a new Sender Nonce (default) or keeps the
  // current one. Retransmissions of one ASSOC_REQUEST always keep it.
  [[nodiscard]] virtual bool fresh_nonce_on_reestablishment() const { return true; }
  // Whether an ASSOC_ACCEPT of the current incarnation (the Association ID and Epoch the
  // sender holds) is checked by Sequence Number (default: the exemption's reason), or exempt
  // as every accept that echoes the current nonce is by the exemption's words
  // (docs/spec-notes.md 25, 87).
  [[nodiscard]] virtual bool check_sequence_of_current_accept() const { return true; }

  // Whether SENDER_STATUS carries a Suggested Rate computed from the Service Hints (default),
  // or zero: "Suggested Rate zero means that the sender makes no suggestion."
  [[nodiscard]] virtual bool suggest_rate() const { return true; }

  // Whether the sender gives back credit it will not use with CREDIT_RETURN when the
  // application says so (default), or keeps silent and simply never transmits beyond the
  // New Limit.
  [[nodiscard]] virtual bool send_credit_return() const { return true; }

  // ---- the rules' own decisions ---------------------------------------------------------
  // Each hook below answers what a MUST of the spec decides, and its default is the only
  // conforming answer. They are seams, not choices: a conformance test injects a deliberate
  // fault (a mutant, built by rdcc/testing) by overriding one at construction, so that no
  // fault is a switch inside the rule code. A conforming policy leaves them alone.

  // Decoding of a received datagram ("Common Header": version, lengths).
  [[nodiscard]] virtual Result<Message, DecodeError> decode_control(
      std::span<const std::byte> datagram) const {
    return decode(datagram);
  }
  // Whether a Sequence Number is newer than the newest processed one (serial number
  // arithmetic) and within kSequenceWindow of it; what is not is discarded.
  [[nodiscard]] virtual bool newer_sequence(std::uint32_t seq, std::uint32_t newest) const {
    return sequence_processed(seq, newest);
  }
  // Whether an ASSOC_ACCEPT echoes the current Sender Nonce.
  [[nodiscard]] virtual bool nonce_echoed(std::uint64_t echoed, std::uint64_t current) const {
    return echoed == current;
  }
  // Whether a control message from an address with no association is matched to an
  // association by its Association ID (never: the receiver's address binds it).
  [[nodiscard]] virtual bool match_unknown_peer_by_association_id() const { return false; }
  // The Sequence Number of the first message toward a receiver (where it starts is the
  // sender's; it then counts on across re-establishments).
  [[nodiscard]] virtual std::uint32_t first_sequence_number() const { return 0; }
  // Whether ERROR (UNKNOWN_ASSOCIATION) carrying our Association ID discards our credit and
  // re-establishes the association.
  [[nodiscard]] virtual bool honour_unknown_association() const { return true; }
  // Whether a CONGESTION_REPORT is taken from its source (`configured`: the source is a
  // configured CRN address).
  [[nodiscard]] virtual bool trust_report_source(bool configured) const { return configured; }
  // Whether a report addressed to us stops unscheduled transmission.
  [[nodiscard]] virtual bool act_on_report() const { return true; }
  // Whether a grant with this Pacing Rate is used (zero: ignored).
  [[nodiscard]] virtual bool use_grant(std::uint32_t pacing_rate) const { return pacing_rate != 0; }
  // Whether a grant whose Grant Limit is not larger than the held one lowers it (rule 1:
  // never; it only refreshes Lifetime and Pacing Rate).
  [[nodiscard]] virtual bool lower_limit_lowers_credit() const { return false; }
  // Until when a grant received at `now` with `lifetime` may be used.
  [[nodiscard]] virtual Time grant_valid_until(Time now, Duration lifetime) const {
    return now + lifetime;
  }
  // The offset scheduled octets of a message may reach under its own grant, given the Grant
  // Limit held (within the message), the Credit Unit and the message's end.
  [[nodiscard]] virtual std::uint64_t transmit_limit(std::uint64_t limit,
                                                     std::uint64_t /*credit_unit*/,
                                                     std::uint64_t /*end*/) const {
    return limit;
  }
  // The rate scheduled octets are paced at, given the Pacing Rate granted and the line rate.
  [[nodiscard]] virtual std::uint64_t pacing_rate(std::uint64_t granted,
                                                  std::uint64_t /*line_rate*/) const {
    return granted;
  }
  // Whether a scheduled message may send its first Credit Unit before any grant (never).
  [[nodiscard]] virtual bool send_before_credit() const { return false; }
  // How far the association's next Message ID moves on for each new message (Message IDs
  // "MUST increase").
  [[nodiscard]] virtual std::uint64_t message_id_step() const { return 1; }
  // Whether at most one unscheduled message per association is outstanding.
  [[nodiscard]] virtual bool one_unscheduled_outstanding() const { return true; }
  // The DSCP of a class's data: "the DSCP that the domain configures for that class" (`map`).
  [[nodiscard]] virtual std::uint8_t class_dscp(const std::array<std::uint8_t, 8>& map,
                                                std::uint8_t traffic_class) const {
    return map.at(traffic_class % map.size());
  }
  // The random start delay of an unscheduled message, ns: uniform in [0, max_ns].
  [[nodiscard]] virtual std::uint64_t start_delay_ns(std::uint64_t max_ns,
                                                     RandomSource& random) const {
    return random.uniform(max_ns);
  }
  // Whether an unscheduled message's CREDIT_REQUEST goes before its first data packet.
  [[nodiscard]] virtual bool request_before_unscheduled_data() const { return true; }
  // Whether the sender sends SENDER_STATUS during a backlog episode.
  [[nodiscard]] virtual bool send_sender_status() const { return true; }
  // Whether a CREDIT_RETURN may state a New Limit below the octets already transmitted.
  [[nodiscard]] virtual bool return_below_transmitted() const { return false; }
  // Every control message the sender sends, as it enters the transmit queue: the wire-only
  // faults rewrite a field here. The reference sends what its rules built.
  virtual void rewrite_outgoing(Message& /*m*/) const {}
};

// ---- CRN ------------------------------------------------------------------------------------

// Hooks of the CRN. The base class is the reference's own choice of each.
class CrnPolicy {
 public:
  virtual ~CrnPolicy() = default;

  // The optional Suggested Rate of a report, Mbit/s (0: none): the reference sends "the
  // queue's service rate divided by the number of flows the CRN observes in the queue".
  [[nodiscard]] virtual std::uint32_t suggested_rate(std::uint32_t service_rate_mbps,
                                                     std::uint32_t flows_in_queue) const {
    return flows_in_queue == 0 ? 0 : service_rate_mbps / flows_in_queue;
  }
  // The per-flow report interval in force: "at most one report per flow per configured report
  // interval" is a bound, and the reference reports as often as it allows.
  [[nodiscard]] virtual Duration report_interval(Duration configured) const { return configured; }

  // ---- the rules' own decisions (see SenderPolicy): defaults are the only conforming ones --

  // Which side a report goes to: "to the sender for unscheduled traffic", else the receiver.
  [[nodiscard]] virtual bool report_to_sender(bool unscheduled) const { return unscheduled; }
  // The Congestion Degree of a report, given the one the spec's formula gives.
  [[nodiscard]] virtual std::uint8_t congestion_degree(std::uint8_t formula, std::uint64_t /*q*/,
                                                       std::uint64_t /*b_th*/,
                                                       std::uint64_t /*q_max*/) const {
    return formula;
  }
  // The UDP port a report goes to: the RDCC port (`flow_port`: the data packet's).
  [[nodiscard]] virtual std::uint16_t report_port(std::uint16_t rdcc_port,
                                                  std::uint16_t /*flow_port*/) const {
    return rdcc_port;
  }
  // Whether a queue exactly at B_th is reported ("While Q exceeds B_th": never).
  [[nodiscard]] virtual bool report_at_threshold() const { return false; }
  // The per-port report interval in force.
  [[nodiscard]] virtual Duration port_report_interval(Duration configured) const {
    return configured;
  }
  // Every report, as it enters the transmit queue (see SenderPolicy::rewrite_outgoing).
  virtual void rewrite_outgoing(Message& /*m*/) const {}
};

}  // namespace rdcc::ref
