// The reference receiver's state: Receiver::Impl, private to reference/src/receiver/. Its member
// functions are defined in the file of the spec heading whose rules each one holds
// (reference/src/receiver/<heading>.cpp, named as docs/reference.md names them); receiver.cpp
// dispatches what arrives to them. Not a heading of the spec: the glue's header.
//
// Its units, each named after the spec heading whose rules it holds, with unit tests of its own
// (reference/test/receiver/, same names):
// - receiver_credit_budget.hpp: what is counted per message, per association and over all, and
//   the budget decision for a grant (CreditLedger::fit). Scheduled credit never exceeds
//   G_s = G - G_u, and unscheduled credit never exceeds the sum of U, which never exceeds G_u.
// - credit_allocation.hpp: the grant queue and the grant pass (which messages, how much), and
//   the rates (the Pacing Rates within the link, the Suggested Rate cap, AIMD).
// - credit_requests_and_grants.hpp: the Grant Limit a grant may carry, when a message is
//   complete; credit_grant.hpp: the grant's fields and Lifetime.
// - unscheduled_transmission.hpp, sender_backlog_indication_and_suggested_rates.hpp,
//   congestion_control_considerations.hpp (the circuit breaker), error_handling_and_recovery.hpp
//   (data beyond the credit), security_considerations.hpp (the caps).
// - transport_bindings.hpp: arriving data related to its message and counted.
// - association_establishment.hpp: the associations by ID, by request and by address.
// - ../timer_list.hpp: the armed timers; ../transmit_queue.hpp: what poll_transmit hands out
//   (mechanisms, not rules: shared with the CRN); ../due_list.hpp: the associations the next
//   update interval of the rate controller updates (a mechanism too).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

#include "association_establishment.hpp"
#include "congestion_control_considerations.hpp"
#include "credit_allocation.hpp"
#include "credit_grant.hpp"
#include "credit_requests_and_grants.hpp"
#include "due_list.hpp"
#include "error_handling_and_recovery.hpp"
#include "rdcc/codec/codec.hpp"
#include "rdcc/codec/rocev2.hpp"
#include "rdcc/reference/bindings.hpp"
#include "rdcc/reference/range_set.hpp"
#include "rdcc/reference/receiver.hpp"
#include "receiver_credit_budget.hpp"
#include "security_considerations.hpp"
#include "sender_backlog_indication_and_suggested_rates.hpp"
#include "timer_list.hpp"
#include "transmit_queue.hpp"
#include "transport_bindings.hpp"
#include "unscheduled_transmission.hpp"

namespace rdcc::ref {

struct Receiver::Impl {
  static constexpr std::size_t kDoneMemory = 4096;  // completed messages remembered per association
  // A finished message as remembered: its ID and transport identity (binding, opaque Binding
  // Value or RoCEv2 destination queue pair number).
  struct Finished {
    std::uint64_t id = 0;
    BindingKind binding = BindingKind::Opaque;
    std::uint64_t key = 0;
  };
  // Parameter Updates sent in one round (1 ms, doubling: the sender's eight ASSOC_REQUEST
  // attempts); a round starts when U changes and again when the peer is next heard.
  static constexpr int kUpdateAttempts = 8;

  enum class MsgState : std::uint8_t { Active, Dormant, Complete, Cancelled, Misbehaving };

  // A message: its offsets and credit counted (MessageCredit, "Receiver Credit Budget"), and
  // what the grant scheduler and the rate allocation know of it.
  struct Msg : MessageCredit {
    std::uint32_t association = 0;
    std::uint64_t id = 0;
    std::uint64_t received_at_grant = 0;  // received() when the latest grant was issued
    Time granted_at{};                    // when the latest grant was issued
    std::uint32_t rate = 0;               // Pacing Rate of the live grant, counted in rate_sum
    std::uint64_t generation = 0;         // invalidates older timers
    std::uint8_t traffic_class = 0;
    std::uint8_t weight = 1;
    bool has_deadline = false;
    Time deadline{};
    BindingKind binding = BindingKind::Opaque;
    std::uint64_t binding_value = 0;
    Rocev2Binding rocev2{};
    std::uint64_t post_unit = 0;  // RoCEv2: octets of one RDMA message (length / count, rounded up)
    MsgState state = MsgState::Active;
    // Its scheduled credit is the association's pool's: the pool itself is the Msg with ID 0
    // (reserved for messages), granted with pool grants, whose length is the scheduled octets
    // of every pooled message announced.
    bool pooled = false;
    bool told_exhausted = false;  // ERROR (BUDGET_EXHAUSTED) sent since its last grant
    std::uint64_t pass = 0;
    bool queued = false;
    // Distinct octet ranges received (opaque binding: data carries offsets, and a retransmitted
    // octet must not be counted twice: "those octets remain within the existing Grant Limit,
    // because the receiver has not counted them as received").
    RangeSet ranges;
  };

  // An association; its part of the credit totals is the ledger's (AssociationCredit), its
  // sender's rate the rate controller's (SenderRate).
  struct Assoc : AssociationCredit, SenderRate {
    std::uint32_t id = 0;
    Address peer;
    std::uint64_t nonce = 0;
    std::uint32_t capabilities = 0;
    std::uint32_t line_rate = 0;
    bool pool_grants = false;  // its scheduled messages share one pool grant (Msg 0)
    std::uint32_t u = 0;       // U in force (advertised)
    bool update_pending = false;
    Duration update_backoff{};
    std::uint64_t update_generation = 0;
    int update_attempts_left = 0;  // of the round of Parameter Updates under way (none: 0)
    // A message of the association passed its checks since it was accepted: its peer is at the
    // address bound and received our ASSOC_ACCEPT. Only then is it sent anything unprompted
    // (docs/spec-notes.md, "Parameter Updates go to a peer that has answered").
    bool peer_heard = false;
    std::uint32_t seq_out = 1;
    bool have_seq_in = false;
    std::uint32_t newest_seq_in = 0;
    std::map<std::uint64_t, Msg> msgs;
    std::uint64_t highest_id = 0;
    // Finished message -> octets received, or nothing for a cancelled one (it is not complete:
    // a late request for it gets no MSG_DONE).
    std::map<std::uint64_t, std::optional<std::uint64_t>> done;
    // Their Message IDs and transport identities in the order they finished: the newest
    // kDoneMemory, a ring from done_oldest once full.
    std::vector<Finished> done_order;
    std::size_t done_oldest = 0;
    // The transport identity of each message remembered in `done` -> its Message ID: data
    // naming it is late data of a finished message (a resend that crossed the octets it
    // replaced, or the original that crossed its resend), not data of no message.
    std::map<std::pair<BindingKind, std::uint64_t>, std::uint64_t> done_identities;
    Time last_activity{};
    std::size_t active = 0;  // messages in Active or Dormant state
    BindingIndex binding;    // its messages by transport identity
    // Its data said that its sender resends what a NACK names (docs/data-transport.md, "Loss
    // recovery"): only such a sender is sent NACKs.
    bool peer_recovers = false;
    // Its messages wait out of the grant queue: its credit is at its cap (capped_assocs).
    bool capped = false;
  };

  // A message in the grant queue, as the grant pass reaches it (association table nodes and
  // message map nodes stay put; a message leaves the queue before it is released).
  struct Queued {
    Assoc* assoc = nullptr;
    Msg* msg = nullptr;
  };

  enum class TimerKind : std::uint8_t {
    Reclaim,
    UnschedRelease,
    CancelReclaim,
    ParameterUpdate,
    Aimd,
    Idle,
    Breaker
  };

  struct Timer {
    Time at;
    TimerKind kind;
    std::uint32_t association;
    std::uint64_t message;
    std::uint64_t generation;
  };

  ReceiverConfig cfg;
  std::shared_ptr<const ReceiverPolicy> policy;  // the choices the spec leaves to the receiver
  EventSink events;
  ReceiverStats stats;
  SeededRandom own_random;
  RandomSource* random;
  TransmitQueue out;               // what poll_transmit() hands out
  std::vector<DataNack> nacks;     // what poll_nack() hands out, oldest first
  AssociationTable<Assoc> assocs;  // "Association Establishment"
  // Octets that preceded their CREDIT_REQUEST, by the host they came from (port zero): no
  // association's until a request names their identity.
  std::unordered_map<Address, EarlyData, AddressHash> early_by_host;
  GrantQueue<Queued> queue;  // "Credit Allocation": who is served next
  TimerList<Timer> timers;
  CreditLedger ledger;  // "Receiver Credit Budget"
  // "Credit Allocation", rule 1, for the packets on the wire: Pacing Rates count message
  // octets (docs/spec-notes.md, 72).
  LinkRates rates{payload_capacity_mbps(cfg)};
  std::size_t active_assocs = 0;
  std::size_t pending = 0;
  bool aimd_armed = false;
  bool idle_armed = false;
  CircuitBreaker breaker;  // "Congestion Control Considerations"
  bool breaker_armed = false;
  // The grants polled since the last sent() (ReceiverConfig::reports_sends): the message, the
  // generation the grant gave it, when it was polled, and when its credit is reclaimed.
  struct UnsentGrant {
    std::uint32_t association;
    std::uint64_t message;
    std::uint64_t generation;
    Time polled;
    Time reclaim;
  };
  std::vector<UnsentGrant> unsent_grants;

  Impl(ReceiverConfig c, Observer* o, RandomSource* r, std::shared_ptr<const ReceiverPolicy> p)
      : cfg(std::move(c)),
        policy(p != nullptr ? std::move(p) : std::make_shared<const ReceiverPolicy>()),
        events(cfg.name, o),
        own_random(0x5244434300000000ULL ^ cfg.epoch),
        random(r != nullptr ? r : &own_random) {
    if (cfg.aimd_alpha_mbps == 0)
      cfg.aimd_alpha_mbps = std::max<std::uint32_t>(1, cfg.link_capacity_mbps / 100);
    if (cfg.unscheduled_budget > cfg.budget) cfg.unscheduled_budget = cfg.budget;
    // Room for the usual few datagrams and timers up front, not grown one by one.
    out.reserve(4);
    timers.reserve(16);
  }

  [[nodiscard]] std::uint64_t scheduled_budget() const {
    return cfg.budget - cfg.unscheduled_budget;
  }
  [[nodiscard]] Duration lifetime() const { return microseconds(cfg.grant_lifetime_us); }
  void arm(Time at, TimerKind kind, std::uint32_t assoc = 0, std::uint64_t msg = 0,
           std::uint64_t generation = 0) {
    timers.arm(Timer{at, kind, assoc, msg, generation});
  }

  template <class T>
  void send(Assoc& a, T body, Time now) {
    body.header.association_id = a.id;
    body.header.epoch = cfg.epoch;
    body.header.sequence_number = a.seq_out++;
    send_to(a.peer, Message{body}, now);
  }

  // ---- receiver.cpp: the glue ------------------------------------------------------------

  void send_to(const Address& to, Message m, Time now);
  void on_control(const Address& from, std::span<const std::byte> datagram, Time now);
  void dispatch_association_message(Assoc& a, const Message& m, Time now);
  Msg* timer_message(const Timer& t);
  void fire(const Timer& t, Time now);
  void on_timeout(Time now);
  void confirm_sends(Time at);

  // ---- association_establishment.cpp: "Association Establishment"
  AssocAccept accept_for(const Assoc& a) const;
  void on_assoc_request(const Address& from, const AssocRequest& req, Time now);
  void update_u(Assoc& a, std::uint32_t u, Time now);
  void start_parameter_update(Assoc& a, Time now);
  void send_parameter_update(Assoc& a, Time now);
  void idle_check(Time now);
  void remove_association(Assoc& a, Time now, const char* why);

  // ---- unscheduled_transmission.cpp: "Unscheduled Transmission"
  std::uint32_t choose_u(std::uint32_t own = 0) const;
  void count_early_data(const Assoc& a, Msg& m);
  void release_unscheduled(Msg& m);
  void accept_unscheduled(Assoc& a, Msg& m, std::uint64_t announced, Time now);
  void convert_unscheduled(Assoc& a, Msg& m, std::uint64_t sent);

  // ---- credit_requests_and_grants.cpp: "Credit Requests and Grants"
  void complete(Assoc& a, Msg& m, Time now);
  void on_credit_request(Assoc& a, const CreditRequest& r, Time now);
  Msg& pool_of(Assoc& a);
  void pool_data(Assoc& a, std::uint64_t above, Time now);
  void update_message(Assoc& a, Msg& m, const CreditRequest& r, Time now);
  void answer_live_rerequest(Assoc& a, Msg& m, Time now);
  void issue_grant(Assoc& a, Msg& m, std::uint64_t limit, std::uint32_t rate, std::uint64_t moved,
                   Time now);
  void on_cancel(Assoc& a, const Cancel& cancel, Time now);
  void on_credit_return(Assoc& a, const CreditReturn& ret, Time now);

  // ---- receiver_credit_budget.cpp: "Receiver Credit Budget"
  void set_unsched(Msg& m, std::uint64_t value);
  void release_message(Assoc& a, Msg& m, Time now, bool forget);
  void reclaim_cancelled(Assoc& a, Msg& m, Time now);
  void reclaim(Assoc& a, Msg& m, Time now);

  // ---- credit_allocation.cpp: "Credit Allocation"
  [[nodiscard]] std::uint64_t window_of(const Msg& m) const;
  [[nodiscard]] std::uint64_t grant_window() const;
  void set_rate(Msg& m, std::uint32_t rate);
  void dequeue(Msg& m);
  static GrantOrder key_of(const Msg& m);
  void requeue(Assoc&, Msg& m);
  // "Receivers SHOULD cap the credit ... per association": the cap (0: none), and whether the
  // association has less than a grant's worth of room under it (docs/spec-notes.md 132).
  [[nodiscard]] std::uint64_t association_cap() const;
  // The cap an association's credit is held to with the default window (0: none).
  [[nodiscard]] std::uint64_t association_bound() const;
  [[nodiscard]] std::uint64_t least_new(std::uint64_t window, std::uint64_t bound) const;
  [[nodiscard]] bool association_full(const Assoc& a) const;
  // Associations whose messages wait out of the queue for room under the cap: at each grant
  // pass, those with room again have their messages queued.
  std::vector<std::uint32_t> capped_assocs;
  void mark_capped(Assoc& a);
  void release_capped();
  void stop_waiting(Assoc& a, Msg& m);
  [[nodiscard]] double sender_rate(const Assoc& a, Time now) const;
  [[nodiscard]] double min_rate() const;
  std::uint32_t rate_for(const Assoc& a, const Msg& m, Time now) const;
  void lower_holders(const Msg& m, double want, Time now);
  struct GrantPassHost;
  void grant_pass(Time now);
  void ensure_aimd(Time now);
  void aimd_tick(Time now);
  // The Association IDs the next update interval updates: the others with messages are at rest
  // (aimd_tick).
  DueList<std::uint32_t> aimd_due;
  void aimd_wake(const Assoc& a);
  // Of the configuration alone, worked out once (the grant pass asks for them for each message
  // it looks at): the receiver's own window (grant_window), R_min (min_rate), and the bound on
  // an association's credit with the least new credit of a grant under it (association_full).
  // Each is worked out from those above it and `cfg` as constructed.
  std::uint64_t own_window =
      default_window(cfg.grant_window, cfg.base_rtt, cfg.link_capacity_mbps, cfg.credit_unit);
  double own_min_rate = ref::min_rate(cfg.credit_unit, cfg.base_rtt);
  std::uint64_t own_bound = association_bound();
  std::uint64_t own_least_new = least_new(own_window, own_bound);
  Assoc* association_of(const Address& from, const Header& h);
  bool names_live_association(const Header& h);

  // ---- sender_backlog_indication_and_suggested_rates.cpp: "Sender Backlog Indication and
  // Suggested Rates"
  void on_sender_status(Assoc& a, const SenderStatus& status, Time now);

  // ---- on_path_congestion_reporting.cpp: "On-Path Congestion Reporting"
  void on_report(const Address& from, const CongestionReport& r, Time now);

  // ---- transport_bindings.cpp: "Transport Bindings"
  bool binding_supported(std::uint8_t kind) const;
  void nack_missing(Assoc& a, Msg& m, Time now);
  Msg* find_message(Assoc& a, const DataObservation& d);
  std::pair<Assoc*, Msg*> data_owner(const DataObservation& d);
  EarlyData& early_of(const Address& from) {
    return early_by_host[AssociationTable<Assoc>::host_of(from)];
  }
  void on_data(const DataObservation& d, Time now);

  // ---- error_handling_and_recovery.cpp: "Error Handling and Recovery"
  void send_error(Assoc& a, ReasonCode reason, std::uint64_t message_id, Time now);
  void out_of_budget(Assoc& a, Msg& m, Time now);
  void misbehaving(Assoc& a, Msg& m, std::uint64_t data_end, Time now);
  void on_undecodable(const Address& from, const DecodeError& e, Time now);
  void answer_unknown_association(const Address& from, const Header& h, Time now);

  // ---- common_header.cpp: "Common Header"
  bool fresh(Assoc& a, const Header& h, Time now);

  // ---- sender_message_state_machine.cpp: "Sender Message State Machine"
  void answer_finished(Assoc& a, std::uint64_t message_id,
                       const std::optional<std::uint64_t>& octets, Time now);
  void remember_done(Assoc& a, const Msg& m, std::optional<std::uint64_t> octets);
  bool names_finished(const DataObservation& d) const;

  // ---- congestion_control_considerations.cpp: "Congestion Control Considerations"
  void ensure_breaker(Time now);
  void breaker_tick(Time now);
};

}  // namespace rdcc::ref
