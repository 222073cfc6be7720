// The reference receiver. Section names in comments are the spec's headings; docs/reference.md
// maps each heading to the file that holds its rules.
//
// Its units, each named after the spec heading whose rules it holds, with unit tests of its own
// (reference/test/receiver/, same names):
// - receiver/receiver_credit_budget.hpp: what is counted per message, per association and over
//   all, and the budget decision for a grant (CreditLedger::fit). Scheduled credit never
//   exceeds G_s = G - G_u, and unscheduled credit never exceeds the sum of U, which never
//   exceeds G_u.
// - receiver/credit_allocation.hpp: the grant pass, the order in which messages are served, how
//   much each grant gives, and at what rate (the Pacing Rates within the link, AIMD).
// - receiver/credit_requests_and_grants.hpp (the Grant Limit, MSG_DONE), credit_grant.hpp (the
//   grant's fields and Lifetime), unscheduled_transmission.hpp, sender_backlog_indication_and_
//   suggested_rates.hpp, congestion_control_considerations.hpp (the circuit breaker),
//   error_handling_and_recovery.hpp (data beyond the credit).
// - receiver/transport_bindings.hpp: arriving data related to its message and counted.
// - receiver/association_establishment.hpp: the associations by ID, by request and by address.
// - timer_list.hpp: the armed timers; transmit_queue.hpp: what poll_transmit hands out.
// This file dispatches what arrives to them and holds the rules that tie them to the messages
// received and sent.
#include "rdcc/reference/receiver.hpp"

#include "receiver/association_establishment.hpp"
#include "receiver/congestion_control_considerations.hpp"
#include "receiver/credit_allocation.hpp"
#include "receiver/credit_grant.hpp"
#include "receiver/credit_requests_and_grants.hpp"
#include "receiver/error_handling_and_recovery.hpp"
#include "receiver/receiver_credit_budget.hpp"
#include "receiver/transport_bindings.hpp"
#include "receiver/unscheduled_transmission.hpp"
#include "timer_list.hpp"
#include "transmit_queue.hpp"

#include <algorithm>
#include <cassert>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>

#include "rdcc/codec/codec.hpp"
#include "rdcc/codec/json.hpp"
#include "rdcc/codec/rocev2.hpp"
#include "rdcc/reference/bindings.hpp"
#include "rdcc/reference/range_set.hpp"

namespace rdcc::ref {
namespace {

using json = nlohmann::ordered_json;

constexpr std::size_t kDoneMemory = 4096;  // completed messages remembered per association

enum class MsgState : std::uint8_t { Active, Dormant, Complete, Cancelled, Misbehaving };

// A message: its offsets and credit counted (MessageCredit, "Receiver Credit Budget"), and
// what the grant scheduler and the rate allocation know of it.
struct Msg : MessageCredit {
  std::uint32_t association = 0;
  std::uint64_t id = 0;
  std::uint64_t received_at_grant = 0;  // received() when the latest grant was issued
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
  std::uint32_t seq_out = 1;
  bool have_seq_in = false;
  std::uint32_t newest_seq_in = 0;
  std::map<std::uint64_t, Msg> msgs;
  std::uint64_t highest_id = 0;
  // Finished message -> octets received, or nothing for a cancelled one (it is not complete:
  // a late request for it gets no MSG_DONE).
  std::map<std::uint64_t, std::optional<std::uint64_t>> done;
  // Their Message IDs in the order they finished: the newest kDoneMemory, a ring from
  // done_oldest once full (a deque allocated on construction, for every association).
  std::vector<std::uint64_t> done_order;
  std::size_t done_oldest = 0;
  Time last_activity{};
  std::size_t active = 0;  // messages in Active or Dormant state
  EarlyData early;         // octets that preceded their CREDIT_REQUEST
  BindingIndex binding;    // its messages by transport identity
  // Its data said that its sender resends what a NACK names (docs/data-transport.md, "Loss
  // recovery"): only such a sender is sent NACKs.
  bool peer_recovers = false;
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

}  // namespace

std::uint32_t payload_capacity_mbps(const ReceiverConfig& config) {
  return payload_capacity(config.link_capacity_mbps, config.credit_unit,
                          config.data_packet_overhead);
}

struct Receiver::Impl {
  ReceiverConfig cfg;
  std::shared_ptr<const ReceiverPolicy> policy;  // the choices the spec leaves to the receiver
  EventSink events;
  ReceiverStats stats;
  SeededRandom own_random;
  RandomSource* random;
  TransmitQueue out;               // what poll_transmit() hands out
  std::vector<DataNack> nacks;     // what poll_nack() hands out, oldest first
  AssociationTable<Assoc> assocs;  // "Association Establishment"
  GrantQueue queue;                // "Credit Allocation": who is served next
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
  // A RoCEv2 message is posted in whole RDMA messages ("posts each one only when it holds
  // credit for all of its octets"): its window holds at least one of them.
  // The window itself is the policy's choice (policy.hpp).
  [[nodiscard]] std::uint64_t window_of(const Msg& m) const {
    WindowContext c;
    c.default_window = grant_window();
    c.length = m.length;
    c.scheduled_received = m.sched_received;
    c.credit_unit = cfg.credit_unit;
    return std::max({policy->grant_window(c), m.post_unit, std::uint64_t{1}});
  }
  [[nodiscard]] std::uint64_t grant_window() const {
    return default_window(cfg.grant_window, cfg.base_rtt, cfg.link_capacity_mbps, cfg.credit_unit);
  }

  void arm(Time at, TimerKind kind, std::uint32_t assoc = 0, std::uint64_t msg = 0,
           std::uint64_t generation = 0) {
    timers.arm(Timer{at, kind, assoc, msg, generation});
  }

  // ---- sending ----------------------------------------------------------------------------

  void send_to(const Address& to, Message m, Time now) {
    out.push(to, cfg.control_dscp, m, *policy);
    if (events.enabled()) {
      json f = to_json(m);
      f["to"] = to.to_string();
      if (events.enabled()) events.emit(now, "tx", std::move(f));
    }
  }

  template <class T>
  void send(Assoc& a, T body, Time now) {
    body.header.association_id = a.id;
    body.header.epoch = cfg.epoch;
    body.header.sequence_number = a.seq_out++;
    send_to(a.peer, Message{body}, now);
  }

  void send_error(Assoc& a, ReasonCode reason, std::uint64_t message_id, Time now) {
    ErrorMessage e;
    e.reason = static_cast<std::uint16_t>(reason);
    e.message_id = message_id;
    send(a, e, now);
    ++stats.errors_sent;
  }

  AssocAccept accept_for(const Assoc& a) const {
    AssocAccept acc;
    acc.sender_nonce = a.nonce;
    acc.capabilities = cfg.capabilities;
    acc.unscheduled_limit = a.u;
    acc.start_jitter = cfg.start_jitter_us;
    acc.backlog_threshold = cfg.backlog_threshold;
    acc.grant_lifetime = cfg.grant_lifetime_us;
    acc.credit_unit = cfg.credit_unit;
    return acc;
  }

  // ---- associations -----------------------------------------------------------------------

  // "The receiver MUST choose U for each association so that the sum of U over all
  // associations with a non-zero U does not exceed G_u." `own`: what the association being
  // given a new U already counts (0 for a new one).
  std::uint32_t choose_u(std::uint32_t own = 0) const {
    if (breaker.tripped()) return 0;
    const std::uint64_t left = ledger.u_room(policy->unscheduled_pool(cfg.unscheduled_budget), own);
    UnscheduledContext c;
    c.configured = cfg.unscheduled_limit;
    c.left = left;
    c.g_u = cfg.unscheduled_budget;
    c.max_associations = cfg.max_associations;
    c.credit_unit = cfg.credit_unit;
    return static_cast<std::uint32_t>(std::min<std::uint64_t>(policy->unscheduled_limit(c), left));
  }

  void on_assoc_request(const Address& from, const AssocRequest& req, Time now) {
    if (Assoc* known = assocs.of_request(req.sender_nonce, from);
        known != nullptr &&
        (policy->same_nonce_same_association() || req.update_acknowledgment())) {
      Assoc& a = *known;
      a.last_activity = now;
      if (req.update_acknowledgment()) {
        if (a.update_pending) {
          a.update_pending = false;
          ledger.set_u(a, a.u);
          if (events.enabled())
            events.emit(now, "parameter_update_acknowledged",
                        {{"association_id", a.id}, {"u", a.u}});
        }
        return;
      }
      // "A receiver MUST treat a retransmitted ASSOC_REQUEST with the same nonce as
      // idempotent and return the same Association ID."
      send(a, accept_for(a), now);
      return;
    }
    if (req.update_acknowledgment()) return;  // acknowledges nothing we know
    if (assocs.size() >= policy->association_cap(cfg.max_associations)) {
      // "SHOULD refuse new associations rather than evicting active ones"
      ErrorMessage e;
      e.header.epoch = cfg.epoch;
      e.reason = static_cast<std::uint16_t>(ReasonCode::AssocRefused);
      send_to(from, Message{e}, now);
      ++stats.errors_sent;
      ++stats.associations_refused;
      if (events.enabled()) events.emit(now, "association_refused", {{"from", from.to_string()}});
      return;
    }
    const std::uint32_t id = assocs.new_id(*random);
    // "to the address and port from which the accepted ASSOC_REQUEST came"
    Assoc& stored = assocs.add(id, from, req.sender_nonce);
    stored.capabilities = req.capabilities;
    stored.line_rate = req.line_rate;
    stored.u = choose_u();
    // "A receiver MUST NOT use pool grants with a sender that did not advertise the POOL
    // capability."
    stored.pool_grants = (req.capabilities & capability::kPool) != 0 && policy->pool_grants();
    stored.last_activity = now;
    stored.rate =
        static_cast<double>(req.line_rate != 0 ? std::min(req.line_rate, cfg.link_capacity_mbps)
                                               : cfg.link_capacity_mbps);
    ledger.open(stored);
    ledger.set_u(stored, stored.u);
    ++stats.associations_accepted;
    if (events.enabled())
      events.emit(now, "association_accepted",
                  {{"association_id", id}, {"peer", from.to_string()}, {"u", stored.u}});
    send(stored, accept_for(stored), now);
    if (!idle_armed) {
      idle_armed = true;
      arm(now + cfg.idle_timeout, TimerKind::Idle);
    }
  }

  void update_u(Assoc& a, std::uint32_t u, Time now) {
    if (a.u == u) return;
    // "Until then, the sender may still act on the old parameters, so the receiver accounts
    // for it with the larger of the old and new U."
    ledger.set_u(a, std::max(a.u_accounted, u));
    a.u = u;
    a.update_pending = true;
    a.update_backoff = milliseconds(1);
    send_parameter_update(a, now);
  }

  void send_parameter_update(Assoc& a, Time now) {
    AssocAccept acc = accept_for(a);
    acc.header.flags = flag::kParameterUpdate;
    send(a, acc, now);
    ++stats.parameter_updates_sent;
    arm(now + a.update_backoff, TimerKind::ParameterUpdate, a.id, 0, ++a.update_generation);
    a.update_backoff = std::min(a.update_backoff * 2, seconds(1));
  }

  void remove_association(Assoc& a, Time now, const char* why) {
    for (auto& [id, m] : a.msgs) release_message(a, m, now, false);
    ledger.close(a);
    if (events.enabled())
      events.emit(now, "association_removed", {{"association_id", a.id}, {"reason", why}});
    assocs.remove(a);
  }

  // ---- messages ---------------------------------------------------------------------------

  void set_unsched(Msg& m, std::uint64_t value) {
    ledger.set_unscheduled(assocs.at(m.association), m, value);
  }

  void set_rate(Msg& m, std::uint32_t rate) {
    rates.set(m.association, m.id, m.rate, rate, m.queued);
    m.rate = rate;
  }

  void dequeue(Msg& m) {
    if (!m.queued) return;
    queue.erase(key_of(m));
    m.queued = false;
    rates.dequeued(m.rate);
  }

  static GrantOrder key_of(const Msg& m) {
    return GrantOrder{m.traffic_class, !m.has_deadline, m.has_deadline ? m.deadline.ns : 0,
                      m.pass,          m.association,   m.id};
  }

  // In the grant queue exactly while the message can take more credit, or holds an expired
  // grant that its sender asked to have renewed.
  void requeue(Assoc&, Msg& m) {
    if (m.pooled) return;  // the pool (Msg 0) is queued for it
    const bool wants = m.state == MsgState::Active && (wants_more(m, window_of(m)) || m.lapsed());
    if (wants == m.queued) return;
    if (wants) {
      queue.insert(key_of(m));
      m.queued = true;
      rates.enqueued(m.rate);
    } else {
      dequeue(m);
    }
  }

  // `m` no longer waits for credit (complete, cancelled, misbehaving or released): it leaves
  // the grant queue and stops counting as pending.
  void stop_waiting(Assoc& a, Msg& m) {
    dequeue(m);
    if ((m.state == MsgState::Active || m.state == MsgState::Dormant) && m.id != 0) {
      --a.active;
      --pending;
      if (a.active == 0) --active_assocs;
    }
  }

  // Releases every credit the message holds; `forget` drops it from the association.
  void release_message(Assoc& a, Msg& m, Time now, bool forget) {
    stop_waiting(a, m);
    if (m.accounted != 0) {
      stats.credit_reclaimed += m.accounted;
      ledger.set_scheduled(a, m, 0);
    }
    set_unsched(m, 0);
    set_rate(m, 0);
    ++m.generation;
    (void)now;
    if (forget) {
      if (m.binding == BindingKind::Opaque) {
        a.binding.remove_opaque(m.binding_value, m.id);
      } else {
        a.binding.remove_queue_pair(m.rocev2.destination_qpn, m.id);
      }
      a.msgs.erase(m.id);
    }
  }

  void remember_done(Assoc& a, std::uint64_t id, std::optional<std::uint64_t> octets) {
    a.done[id] = octets;
    if (a.done_order.size() < kDoneMemory) {
      a.done_order.push_back(id);
      return;
    }
    a.done.erase(a.done_order[a.done_oldest]);
    a.done_order[a.done_oldest] = id;
    a.done_oldest = (a.done_oldest + 1) % kDoneMemory;
  }

  void complete(Assoc& a, Msg& m, Time now) {
    const std::uint64_t id = m.id;
    const std::uint64_t octets = m.received();
    release_message(a, m, now, true);
    remember_done(a, id, octets);
    MsgDone done;
    done.message_id = id;
    done.octets_received = octets;
    send(a, done, now);
    ++stats.msg_done_sent;
    if (events.enabled())
      events.emit(now, "message_complete",
                  {{"association_id", a.id}, {"message_id", id}, {"octets", octets}});
  }

  bool binding_supported(std::uint8_t kind) const {
    if (kind == static_cast<std::uint8_t>(BindingKind::RoCEv2)) return cfg.rocev2_binding;
    if (kind == static_cast<std::uint8_t>(BindingKind::Opaque)) return cfg.opaque_binding;
    return false;
  }

  void on_credit_request(Assoc& a, const CreditRequest& r, Time now) {
    ++stats.credit_requests_received;
    if (auto it = a.msgs.find(r.message_id); it != a.msgs.end() && r.message_id != 0) {
      update_message(a, it->second, r, now);
      return;
    }
    if (auto done = a.done.find(r.message_id); done != a.done.end()) {
      // "When the receiver has received all octets of a message it sends MSG_DONE": a
      // cancelled message never completed; a request for it (a duplicate the network delayed
      // past the CANCEL) is discarded.
      if (!done->second) {
        if (events.enabled())
          events.emit(now, "request_for_cancelled_message",
                      {{"association_id", a.id}, {"message_id", r.message_id}});
        return;
      }
      // "a receiver that receives CREDIT_REQUEST for a completed message answers with
      // MSG_DONE again"
      if (!policy->answer_done_again()) return;
      MsgDone d;
      d.message_id = r.message_id;
      d.octets_received = *done->second;
      send(a, d, now);
      ++stats.msg_done_sent;
      return;
    }
    if (r.message_id == 0) {
      // "Message ID is chosen by the sender ...; zero is reserved."
      if (events.enabled()) events.emit(now, "reserved_message_id", {{"association_id", a.id}});
      return;
    }
    if (!binding_supported(r.binding_kind)) {
      send_error(a, ReasonCode::UnsupportedBinding, r.message_id, now);
      return;
    }
    if (r.message_length > cfg.max_message_length) {
      send_error(a, ReasonCode::MessageTooLarge, r.message_id, now);
      return;
    }
    if (a.msgs.size() - a.msgs.count(0) >= policy->pending_cap(cfg.max_pending_per_association)) {
      // "Receivers MUST bound the number of associations and of pending messages": the
      // sender keeps the request outstanding and retries.
      send_error(a, ReasonCode::BudgetExhausted, r.message_id, now);
      return;
    }
    // "Message IDs MUST increase ..." binds the sender: a lower ID not seen before is a request
    // that was lost or overtaken, and is new (docs/spec-notes.md).
    a.highest_id = std::max(a.highest_id, r.message_id);
    Msg& m = a.msgs[r.message_id];
    m.association = a.id;
    m.id = r.message_id;
    m.length = r.message_length;
    m.traffic_class = r.effective_class();
    m.weight = r.effective_weight();
    m.has_deadline = r.has_deadline();
    m.deadline = now + microseconds(r.deadline);
    m.binding = static_cast<BindingKind>(r.binding_kind);
    m.binding_value = r.binding_value;
    m.rocev2 = unpack_rocev2(r.binding_value);
    if (m.binding == BindingKind::RoCEv2 && m.rocev2.message_count != 0) {
      m.post_unit = (m.length + m.rocev2.message_count - 1) / m.rocev2.message_count;
    }
    if (m.binding == BindingKind::Opaque) {
      a.binding.add_opaque(m.binding_value, m.id);
    } else {
      a.binding.add_queue_pair(m.rocev2.destination_qpn, m.id);
    }
    m.pass = queue.class_pass(m.traffic_class);
    if (a.active++ == 0) ++active_assocs;
    ++pending;
    accept_unscheduled(a, m, r.unscheduled_sent, now);
    if (events.enabled())
      events.emit(now, "message_announced",
                  {{"association_id", a.id},
                   {"message_id", m.id},
                   {"length", m.length},
                   {"unscheduled", m.window},
                   {"traffic_class", m.traffic_class}});
    count_early_data(a, m);
    if (m.length == 0 || m.received() >= m.length) {
      complete(a, m, now);
      return;
    }
    if (a.pool_grants) {
      m.pooled = true;
      Msg& pool = pool_of(a);
      pool.length += m.length - m.covered();
      requeue(a, pool);
    }
    requeue(a, m);
    ensure_aimd(now);
  }

  // The association's pool ("A grant with Message ID zero and the POOL flag set is a pool
  // grant: it covers all scheduled messages of the association, and the Grant Limit counts
  // octets across those messages"), made with its first message. It is no pending message.
  Msg& pool_of(Assoc& a) {
    auto [it, made] = a.msgs.try_emplace(0);
    Msg& pool = it->second;
    if (made) {
      pool.association = a.id;
      pool.pass = queue.class_pass(0);
    }
    return pool;
  }

  // A pooled message's scheduled octets arrived: they count against the pool's Grant Limit.
  void pool_data(Assoc& a, std::uint64_t above, Time now) {
    Msg& pool = a.msgs.at(0);
    pool.sched_received += above;
    if (pool.sched_received > pool.limit && pool.state != MsgState::Misbehaving &&
        policy->stop_granting_misbehaving()) {
      // "Data received for a message beyond its Grant Limit ... indicates a misbehaving
      // sender": beyond the pool's, no further pool credit.
      stats.misbehaving_data_octets += std::min(above, pool.sched_received - pool.limit);
      if (events.enabled())
        events.emit(now, "misbehaving_sender",
                    {{"association_id", a.id},
                     {"message_id", 0},
                     {"limit", pool.limit},
                     {"data_end", pool.sched_received}});
      dequeue(pool);
      pool.state = MsgState::Misbehaving;
    }
    ledger.settle(a, pool);
    if (pool.accounted == 0 && pool.rate != 0) set_rate(pool, 0);
    requeue(a, pool);
  }

  // Unscheduled data may overtake its CREDIT_REQUEST ("no later than the first data packet"
  // does not survive reordering): octets counted before the request are credited now, up to
  // the unscheduled window the request announces. Nothing beyond it can precede the request
  // of the same message: such octets belong to something else, e.g. a previous Epoch's
  // transfer still in flight when the receiver restarted (spec-notes 69). The opaque
  // binding's offsets are not kept for them, so they count from offset 0 up.
  void count_early_data(Assoc& a, Msg& m) {
    const auto early = a.early.take(
        m.binding, m.binding == BindingKind::Opaque ? m.binding_value : m.rocev2.destination_qpn);
    if (!early) return;
    const std::uint64_t octets = std::min({*early, m.length, m.window});
    const auto [below, above] = m.ranges.add(0, octets, m.window);
    m.unsched_received += below;
    m.sched_received += above;
    set_unsched(m, m.unsched_in_flight());
  }

  void accept_unscheduled(Assoc& a, Msg& m, std::uint64_t announced, Time now) {
    if (announced == 0) return;
    const std::uint64_t others = a.unsched - m.unsched_accounted;
    const std::uint64_t allowed = a.u_accounted > others ? a.u_accounted - others : 0;
    if (announced > allowed || announced > m.length) {
      // Beyond U, or a second unscheduled message outstanding: only `allowed` octets count as
      // unscheduled; the rest is data beyond the credit ("Error Handling and Recovery").
      if (events.enabled())
        events.emit(now, "unscheduled_beyond_limit",
                    {{"association_id", a.id},
                     {"message_id", m.id},
                     {"announced", announced},
                     {"allowed", allowed}});
      announced = std::min(allowed, m.length);
    }
    m.window = announced;
    set_unsched(m, announced > m.unsched_received ? announced - m.unsched_received : 0);
    stats.unscheduled_octets += announced;
    breaker.announced(announced);
    // "or when J plus the default Grant Lifetime plus 2 * D_max has elapsed after it
    // received the CREDIT_REQUEST"
    arm(unscheduled_release_at(now, microseconds(cfg.start_jitter_us), lifetime(), cfg.d_max),
        TimerKind::UnschedRelease, a.id, m.id, m.generation);
    ensure_breaker(now);
  }

  void update_message(Assoc& a, Msg& m, const CreditRequest& r, Time now) {
    if (m.state == MsgState::Cancelled || m.state == MsgState::Misbehaving) return;
    nack_missing(a, m, now);
    // A converted unscheduled message states the octets actually transmitted: the window
    // can only shrink ("Unscheduled Transmission"), and so can its reservation: one that has
    // lapsed stays released (docs/spec-notes.md, 95).
    if (r.unscheduled_sent < m.window) {
      const std::uint64_t before = m.window;
      m.window = std::max(r.unscheduled_sent, m.unsched_received);
      set_unsched(m, std::min(m.unsched_accounted, m.window - m.unsched_received));
      if (m.pooled) a.msgs.at(0).length += before - m.window;  // now scheduled, in the pool
    }
    if (m.pooled) {
      // Its credit is the pool's: the request asks for that (a lapsed pool grant is renewed).
      Msg& pool = a.msgs.at(0);
      if (pool.state == MsgState::Dormant) pool.state = MsgState::Active;
      requeue(a, pool);
      return;
    }
    // A request while the message's grant is live: no grant is owed (docs/spec-notes.md, 52);
    // whether one comes is the policy's choice. "Never" leaves the message as it is, a
    // returned one too, until the grant expires.
    const ReRequestAnswer answer =
        m.accounted != 0 ? policy->answer_rerequest() : ReRequestAnswer::WhenCreditIsDue;
    if (answer == ReRequestAnswer::Never) return;
    if (m.state == MsgState::Dormant) {
      m.state = MsgState::Active;
      if (events.enabled())
        events.emit(now, "message_woken", {{"association_id", a.id}, {"message_id", m.id}});
    }
    if (m.lapsed()) {
      // The grant expired at the sender too: it asks again; the credit is granted anew.
      m.state = MsgState::Active;
    }
    if (answer == ReRequestAnswer::Always) {
      answer_live_rerequest(a, m, now);
    } else {
      requeue(a, m);
    }
  }

  // Loss recovery on the opaque transport (docs/data-transport.md, "Loss recovery"). A sender
  // asks again when it holds no usable credit or has sent every octet, so its request says
  // that what it could send is on its way or lost. Missing octets that can no longer be on
  // their way are named in a NACK: those below the highest octet received (a later one
  // arrived), and, once the grant that allowed them has lapsed (Lifetime + 2 * D_max after it
  // was sent: "an octet transmitted just before expiry can take another D_max to arrive"),
  // every one below the Grant Limit. One NACK per request at most, so the sender's request
  // backoff bounds them. Octets without a grant (an unscheduled window) are not named: the
  // sender resends only under a live grant.
  void nack_missing(Assoc& a, Msg& m, Time now) {
    if (!a.peer_recovers || m.binding != BindingKind::Opaque) return;
    if (m.state != MsgState::Active && m.state != MsgState::Dormant) return;
    const std::uint64_t granted = m.pooled ? m.length : m.limit;
    const std::uint64_t upto =
        !m.pooled && m.accounted == 0 ? granted : std::min(granted, m.ranges.end());
    std::vector<OctetRange> gaps = m.ranges.gaps(0, upto, kMaxNackRanges);
    if (gaps.empty()) return;
    std::uint64_t octets = 0;
    for (const OctetRange& g : gaps) octets += g.hi - g.lo;
    ++stats.nacks_sent;
    stats.nacked_octets += octets;
    if (events.enabled())
      events.emit(now, "nack_sent",
                  {{"association_id", a.id},
                   {"message_id", m.id},
                   {"ranges", gaps.size()},
                   {"octets", octets},
                   {"first", gaps.front().lo}});
    nacks.push_back(DataNack{a.peer, m.binding_value, std::move(gaps)});
  }

  // A grant for a message whose grant is live: more credit if it is due some, else the same
  // Grant Limit, which "only refreshes the Lifetime and Pacing Rate" (rule 1), at the rate the
  // allocation gives it now (its own rate counts as room). Not after a CREDIT_RETURN: restating
  // the limit would give back the returned credit, which the grant pass does only with room
  // for it in G_s (spec-notes 80).
  void answer_live_rerequest(Assoc& a, Msg& m, Time now) {
    requeue(a, m);
    if (m.queued || m.returned != kNoReturn) return;  // the grant pass serves it
    const std::uint32_t rate = rate_for(a, m, now);
    if (rate == 0) return;
    issue_grant(a, m, m.limit, rate, 0, now);
  }

  // ---- grants -----------------------------------------------------------------------------

  // The rate the sender may be granted, before the link is shared (rate_controller.hpp).
  [[nodiscard]] double sender_rate(const Assoc& a, Time now) const {
    return a.cap(a.line_rate, now, lifetime());
  }

  // "R_min is one Credit Unit per update interval".
  [[nodiscard]] double min_rate() const { return ref::min_rate(cfg.credit_unit, cfg.base_rtt); }

  std::uint32_t rate_for(const Assoc& a, const Msg& m, Time now) const {
    return rates.rate_for(sender_rate(a, now), m.rate, min_rate(), *policy);
  }

  // The link's rate is held by others (LinkRates::lower_holders): a holder above the fair
  // share is re-granted at it. A grant at the Grant Limit the sender holds "only refreshes the
  // Lifetime and Pacing Rate" (docs/spec-notes.md, 42). Only active messages are re-granted: a
  // cancelled, misbehaving or dormant one gets no grant, and keeps its rate until its credit
  // is released.
  void lower_holders(const Msg& m, double want, Time now) {
    rates.lower_holders(m.rate, want, *policy,
                        [&](std::uint32_t association, std::uint64_t message, std::uint32_t share) {
                          Assoc& ha = assocs.at(association);
                          Msg& h = ha.msgs.at(message);
                          if (&h == &m || h.state != MsgState::Active) return false;
                          // Restating the limit gives back what a CREDIT_RETURN gave up
                          // (spec-notes 80): only with room for it in G_s, or the holder keeps
                          // its rate (spec-notes 92).
                          const std::uint64_t restated = h.restated();
                          const std::uint64_t taken_back =
                              restated > h.accounted ? restated - h.accounted : 0;
                          const std::uint64_t room = ledger.scheduled_room(scheduled_budget());
                          if (taken_back > room && policy->enforce_budget()) return false;
                          issue_grant(ha, h, h.limit, share, 0, now);
                          return true;
                        });
  }

  // The receiver as the grant pass (grant_scheduler.hpp) sees it, for one pass at `now`.
  struct GrantPassHost {
    Impl& r;
    Time now;
    Assoc* assoc = nullptr;  // the association of the message at the top of the queue
    std::vector<std::pair<Assoc*, Msg*>> parked;

    Msg& message(const GrantOrder& top) {
      assoc = &r.assocs.at(top.association);
      return assoc->msgs.at(top.message);
    }
    [[nodiscard]] std::uint64_t window(const Msg& m) const { return r.window_of(m); }
    [[nodiscard]] std::optional<std::uint64_t> fit(const Msg& m, std::uint64_t limit, bool renew,
                                                   std::uint64_t reserved) const {
      BudgetBounds bounds;
      bounds.scheduled_pool = r.policy->scheduled_pool(r.cfg.budget, r.scheduled_budget());
      bounds.reserved = reserved;
      bounds.association_cap = r.cfg.max_credit_per_association;
      bounds.enforce = r.policy->enforce_budget();
      return r.ledger.fit(*assoc, m, GrantAsk{limit, m.post_unit, r.cfg.credit_unit, renew},
                          bounds);
    }
    [[nodiscard]] RateOffer offer(const Msg& m) const {
      const double sender = r.sender_rate(*assoc, now);
      return RateOffer{r.rates.rate_for(sender, m.rate, r.min_rate(), *r.policy),
                       r.rates.wanted(sender, *r.policy)};
    }
    bool lower_holders(const Msg& m, double want) {
      const std::uint64_t before = r.ledger.scheduled();
      r.lower_holders(m, want, now);
      return r.ledger.scheduled() > before;
    }
    void skip(Msg& m) { r.dequeue(m); }
    void wait(Msg& m) { r.out_of_budget(*assoc, m, now); }
    // Every holder is at its share (kOvercommit of them): it waits until one drains (its rate
    // is released when its last octet arrives) or is reclaimed.
    void park(Msg& m) {
      r.dequeue(m);
      r.rates.park();
      parked.emplace_back(assoc, &m);
    }
    // A converted unscheduled message: its in-flight unscheduled octets move into the
    // scheduled accounting when it is granted (the sender then counts it as no longer
    // outstanding and may start another). So do the octets of a window whose reservation has
    // lapsed (J + Lifetime + 2 * D_max after the request) without their arrival: the grant's
    // limit covers them again and "Granted(a)" counts them until they arrive
    // (docs/spec-notes.md, 91).
    void grant(Msg& m, std::uint64_t limit, std::uint32_t rate) {
      r.issue_grant(*assoc, m, limit, rate, m.unsched_in_flight(), now);
    }
    void end_pass() {
      r.rates.end_pass();
      for (auto [a, m] : parked) r.requeue(*a, *m);
    }
  };

  void grant_pass(Time now) {
    GrantPassHost host{*this, now};
    rdcc::ref::grant_pass(queue, host);
  }

  // The budget cannot serve `m`, which waits. "If a receiver is about to run out of budget for
  // an extended period, it MAY send ERROR (BUDGET_EXHAUSTED) to senders with pending requests"
  // ("Error Handling and Recovery"): whether it does is the policy's choice; once per message
  // until it is granted, and only to one that holds no credit (it is waiting for some).
  void out_of_budget(Assoc& a, Msg& m, Time now) {
    if (m.told_exhausted || m.accounted != 0 || !policy->tell_budget_exhausted()) return;
    m.told_exhausted = true;
    send_error(a, ReasonCode::BudgetExhausted, m.id, now);
  }

  void issue_grant(Assoc& a, Msg& m, std::uint64_t limit, std::uint32_t rate, std::uint64_t moved,
                   Time now) {
    dequeue(m);
    assert(limit <= m.length);  // "The receiver MUST NOT grant beyond the message length."
    assert(limit >= m.held());
    const std::uint64_t added = limit - m.held();
    m.limit = limit;
    m.received_at_grant = m.received();
    m.returned = kNoReturn;  // a new grant gives back the right to send up to its limit
    m.told_exhausted = false;
    if (moved != 0) {
      set_unsched(m, 0);
      m.window = m.unsched_received;  // octets still in flight are now scheduled credit
    }
    ledger.set_scheduled(a, m, m.outstanding());
    set_rate(m, rate);
    a.granted_rate = rate;
    ++m.generation;
    // "Lifetime zero means the default Grant Lifetime of the association"; which one a grant
    // states is the policy's choice.
    const std::uint32_t lifetime_field = policy->grant_lifetime_us(cfg.grant_lifetime_us);
    arm(reclaim_at(now, grant_lifetime(lifetime_field, cfg.grant_lifetime_us), cfg.d_max),
        TimerKind::Reclaim, a.id, m.id, m.generation);
    m.pass = GrantQueue::advance(m.pass, added, m.weight);
    CreditGrant g = make_grant(m.id, m.length, limit, rate, lifetime_field);
    if (policy->pool_grant_without_capability() && (a.capabilities & capability::kPool) == 0) {
      CreditGrant pool = g;
      pool.message_id = 0;
      pool.header.flags = flag::kPool;
      send(a, pool, now);
    }
    send(a, g, now);
    ++stats.grants_sent;
    stats.credit_granted += added;
    requeue(a, m);
  }

  void reclaim(Assoc& a, Msg& m, Time now) {
    // Every octet the grant allowed has arrived: nothing to reclaim and nothing hoarded, so
    // the message keeps its place in the grant queue (docs/spec-notes.md, 43).
    if (m.accounted == 0 && m.limit <= m.covered()) return;
    if (m.accounted != 0) {
      stats.credit_reclaimed += m.accounted;
      if (events.enabled())
        events.emit(now, "credit_reclaimed",
                    {{"association_id", a.id}, {"message_id", m.id}, {"octets", m.accounted}});
      ledger.set_scheduled(a, m, 0);
    }
    set_rate(m, 0);
    dequeue(m);
    // A sender that hoards credit gets none back until it asks again.
    if (m.state == MsgState::Active) m.state = MsgState::Dormant;
  }

  // ---- data -------------------------------------------------------------------------------

  // The message data belongs to, by its transport identity (data_receipt.hpp).
  Msg* find_message(Assoc& a, const DataObservation& d) {
    const std::uint64_t* id = nullptr;
    if (d.binding == BindingKind::Opaque) {
      id = a.binding.opaque(d.key);
    } else {
      id = a.binding.queue_pair(static_cast<std::uint32_t>(d.key), policy->match_queue_pair(),
                                [&](std::uint64_t message) {
                                  const Msg& m = a.msgs.at(message);
                                  return m.received() < m.length;
                                });
    }
    return id == nullptr ? nullptr : &a.msgs.at(*id);
  }

  // "Data received for a message beyond its Grant Limit and outside its unscheduled window
  // indicates a misbehaving sender. The receiver MAY discard such data, MUST NOT grant further
  // credit to the association for that message, and SHOULD log the event."
  void misbehaving(Assoc& a, Msg& m, std::uint64_t data_end, Time now) {
    if (m.state == MsgState::Misbehaving) return;
    if (events.enabled())
      events.emit(now, "misbehaving_sender",
                  {{"association_id", a.id},
                   {"message_id", m.id},
                   {"limit", m.limit},
                   {"data_end", data_end}});
    stop_waiting(a, m);
    m.state = MsgState::Misbehaving;
  }

  void on_data(const DataObservation& d, Time now) {
    Assoc* ap = assocs.of_peer(d.from);
    if (ap == nullptr) {
      stats.unattributed_data_octets += d.octets;
      return;
    }
    Assoc& a = *ap;
    a.last_activity = now;
    a.observe_data(d.octets, d.ce, d.rtt, cfg.rtt_target);
    Msg* mp = find_message(a, d);
    if (mp == nullptr) {
      stats.unattributed_data_octets += d.octets;
      a.early.add(d.binding, d.key, d.octets);
      return;
    }
    Msg& m = *mp;
    const bool opaque = d.binding == BindingKind::Opaque;
    if (opaque && d.recovers) a.peer_recovers = true;
    const Receipt got =
        opaque ? count_opaque(m.ranges, m, d.offset, d.octets) : count_in_order(m, d.octets);
    stats.duplicate_octets += got.duplicate;
    // The opaque binding says where the octets are; RoCEv2 counters only say how many, which
    // arrive in order on the queue pair. A pooled message's scheduled octets are held by the
    // pool grant (pool_data).
    const std::uint64_t held = m.pooled ? m.length : m.held();
    const std::uint64_t data_end = opaque ? d.offset + d.octets : m.covered() + got.above;
    if (const auto excess = beyond_credit(held, data_end, d.octets, got.above != 0 || opaque);
        excess && policy->stop_granting_misbehaving()) {
      stats.misbehaving_data_octets += *excess;
      misbehaving(a, m, data_end, now);
    }
    m.unsched_received += got.below;
    m.sched_received += got.above;
    stats.scheduled_octets += got.above;
    if (m.pooled && got.above != 0) pool_data(a, got.above, now);
    set_unsched(m, m.unsched_accounted != 0 ? m.unsched_in_flight() : 0);
    ledger.settle(a, m);
    // A grant whose every octet has arrived no longer needs its share of the link.
    if (m.accounted == 0 && m.rate != 0) set_rate(m, 0);
    if (m.state == MsgState::Misbehaving) return;
    if (received_all(m, policy->completion_octets(m.length))) {
      complete(a, m, now);
    } else {
      requeue(a, m);
    }
    grant_pass(now);
  }

  // ---- congestion ------------------------------------------------------------------------

  void on_report(const Address& from, const CongestionReport& r, Time now) {
    // "An endpoint MUST ignore reports whose source address is not within the set of CRN
    // addresses configured for the domain."
    const bool known =
        policy->accept_report(std::any_of(cfg.crn_addresses.begin(), cfg.crn_addresses.end(),
                                          [&](const Address& c) { return c.same_host(from); }));
    if (!known) {
      ++stats.reports_ignored;
      if (events.enabled()) events.emit(now, "report_ignored", {{"from", from.to_string()}});
      return;
    }
    ++stats.reports_received;
    // "A CONGESTION_REPORT can only cause a receiver to reduce the rate it grants": it only
    // raises the sender's congestion signal, which the controller turns into decreases.
    Address flow_source;
    flow_source.ip = r.source_address;
    flow_source.ipv6 = r.ipv6();
    const ReportReaction reaction = policy->report_reaction();
    for (auto& [id, a] : assocs) {
      if (!a.peer.same_host(flow_source) || reaction == ReportReaction::Ignore) continue;
      if (reaction == ReportReaction::ResetRate) {
        a.rate = cfg.link_capacity_mbps;
        a.suggested_rate = 0;
        continue;
      }
      a.observe_report(r.congestion_degree);
    }
    if (events.enabled())
      events.emit(now, "report_received",
                  {{"from", from.to_string()}, {"congestion_degree", r.congestion_degree}});
  }

  void ensure_aimd(Time now) {
    if (aimd_armed) return;
    aimd_armed = true;
    arm(now + std::max(cfg.base_rtt, microseconds(1)), TimerKind::Aimd);
  }

  // "Every update interval T_upd ... if congestion signal s_i > 0 in the last interval:
  // r_i = max(R_min, r_i * (1 - beta * s_i)) else: r_i = min(R_max_i, r_i + alpha)"
  void aimd_tick(Time now) {
    aimd_armed = false;
    const double r_min = min_rate();
    for (auto& [id, a] : assocs) {
      if (a.active == 0) continue;
      const double r_max = a.r_max(a.line_rate, cfg.link_capacity_mbps, now, lifetime());
      a.update(*policy, r_min, r_max, cfg.aimd_alpha_mbps, cfg.aimd_beta);
    }
    if (active_assocs != 0) ensure_aimd(now);
  }

  void ensure_breaker(Time now) {
    if (breaker_armed) return;
    breaker_armed = true;
    arm(now + cfg.loss_window, TimerKind::Breaker);
  }

  // "a receiver that observes a loss rate of unscheduled data above a configured threshold
  // ... MUST set U to zero for all associations until the loss rate falls below one tenth of
  // the threshold."
  void breaker_tick(Time now) {
    breaker_armed = false;
    const double loss = breaker.loss_rate();
    switch (breaker.end_window(cfg.loss_threshold)) {
      case CircuitBreaker::Change::Tripped:
        ++stats.circuit_breaker_trips;
        if (events.enabled()) events.emit(now, "circuit_breaker_tripped", {{"loss_rate", loss}});
        for (auto& [id, a] : assocs) update_u(a, 0, now);
        break;
      case CircuitBreaker::Change::Cleared:
        if (events.enabled()) events.emit(now, "circuit_breaker_cleared", {{"loss_rate", loss}});
        // An association whose sender has not acknowledged the update to U = 0 may still act
        // on its old U: it keeps counting it (update_u takes the larger), and the U it gets
        // back comes out of what the others leave of G_u (docs/spec-notes.md, 73).
        for (auto& [id, a] : assocs) update_u(a, choose_u(a.u_accounted), now);
        break;
      case CircuitBreaker::Change::None: break;
    }
    if (breaker.tripped() || !assocs.empty()) ensure_breaker(now);
  }

  // ---- control dispatch -------------------------------------------------------------------

  Assoc* association_of(const Address& from, const Header& h) {
    Assoc* a = assocs.find(h.association_id);
    if (a == nullptr || !policy->recognizes_epoch(h.epoch, cfg.epoch)) {
      return nullptr;
    }
    if (a->peer != from && policy->follow_request_source()) a->peer = from;
    if (a->peer != from) {
      ++stats.requests_from_wrong_address;
      return nullptr;
    }
    return a;
  }

  // "An endpoint MUST discard a message of an association whose Sequence Number is not
  // newer ... than the newest one it has already processed from the same originator"
  bool fresh(Assoc& a, const Header& h, Time now) {
    if (a.have_seq_in && !policy->sequence_fresh(h.sequence_number, a.newest_seq_in)) {
      ++stats.stale_discarded;
      if (events.enabled())
        events.emit(now, "stale_discarded",
                    {{"association_id", a.id},
                     {"sequence_number", h.sequence_number},
                     {"newest", a.newest_seq_in}});
      return false;
    }
    a.have_seq_in = true;
    a.newest_seq_in = h.sequence_number;
    a.last_activity = now;
    return true;
  }

  void on_control(const Address& from, std::span<const std::byte> datagram, Time now) {
    auto decoded = policy->decode_control(datagram);
    if (!decoded) {
      const DecodeError& e = decoded.error();
      if (e.code == DecodeErrorCode::UnknownType) {
        ++stats.unknown_type_discarded;
        // "if the message belongs to an established association, the receiver MAY reply
        // with ERROR (UNSUPPORTED_TYPE) to the address bound to that association, and it
        // MUST NOT reply otherwise."
        if (e.header) {
          if (Assoc* a = association_of(from, *e.header)) {
            send_error(*a, ReasonCode::UnsupportedType, 0, now);
          } else if (policy->answer_unsupported_type_unbound(
                         assocs.contains(e.header->association_id))) {
            ErrorMessage err;
            err.header.association_id = e.header->association_id;
            err.header.epoch = cfg.epoch;
            err.reason = static_cast<std::uint16_t>(ReasonCode::UnsupportedType);
            send_to(from, Message{err}, now);
          }
        }
      } else {
        ++stats.malformed_discarded;
      }
      if (events.enabled())
        events.emit(now, "discarded", {{"from", from.to_string()}, {"reason", e.describe()}});
      return;
    }
    const Message& m = *decoded;
    if (const auto* req = std::get_if<AssocRequest>(&m)) {
      on_assoc_request(from, *req, now);
    } else if (const auto* report = std::get_if<CongestionReport>(&m)) {
      on_report(from, *report, now);  // "Messages from CRNs carry no Epoch"
    } else if (const auto* cr = std::get_if<CreditRequest>(&m)) {
      Assoc* a = association_of(from, cr->header);
      if (a == nullptr) {
        // "A receiver that receives a CREDIT_REQUEST for an unknown association replies
        // with ERROR (UNKNOWN_ASSOCIATION)"
        if (!policy->answer_unknown_association()) return;
        ErrorMessage e;
        e.header.association_id = cr->header.association_id;
        e.header.epoch = cfg.epoch;
        e.reason = static_cast<std::uint16_t>(ReasonCode::UnknownAssociation);
        send_to(from, Message{e}, now);
        ++stats.errors_sent;
        return;
      }
      if (!fresh(*a, cr->header, now)) return;
      on_credit_request(*a, *cr, now);
    } else {
      Assoc* a = association_of(from, header_of(m));
      if (a == nullptr || !fresh(*a, header_of(m), now)) return;
      dispatch_association_message(*a, m, now);
    }
    grant_pass(now);
  }

  void dispatch_association_message(Assoc& a, const Message& m, Time now) {
    if (const auto* status = std::get_if<SenderStatus>(&m)) {
      ++stats.sender_status_received;
      a.suggested_rate = policy->suggested_rate(status->suggested_rate);
      a.suggested_at = now;
      if (events.enabled())
        events.emit(now, "sender_status",
                    {{"association_id", a.id},
                     {"suggested_rate", status->suggested_rate},
                     {"congestion_level", status->congestion_level}});
    } else if (const auto* cancel = std::get_if<Cancel>(&m)) {
      auto it = a.msgs.find(cancel->message_id);
      if (it == a.msgs.end() || cancel->message_id == 0) return;
      Msg& msg = it->second;
      if (msg.pooled && msg.state != MsgState::Cancelled) {
        // Its octets still to come leave the pool's demand (never below what the pool granted).
        Msg& pool = a.msgs.at(0);
        const std::uint64_t left = msg.length - std::min(msg.length, msg.covered());
        pool.length -= std::min(left, pool.length - std::max(pool.limit, pool.sched_received));
      }
      // A repeated CANCEL keeps the first one's reclamation time: re-arming it would let a
      // sender hold its credit for as long as it repeats itself.
      if (msg.state == MsgState::Cancelled) return;
      // "the credit of a cancelled message no earlier than 2 * D_max after it sent or
      // received the CANCEL"
      stop_waiting(a, msg);
      msg.state = MsgState::Cancelled;
      ++msg.generation;
      arm(cancel_reclaim_at(now, cfg.d_max), TimerKind::CancelReclaim, a.id, msg.id,
          msg.generation);
      if (events.enabled())
        events.emit(now, "message_cancelled", {{"association_id", a.id}, {"message_id", msg.id}});
    } else if (const auto* ret = std::get_if<CreditReturn>(&m)) {
      auto it = a.msgs.find(ret->message_id);
      if (it == a.msgs.end() || it->second.pooled) return;
      Msg& msg = it->second;
      msg.returned = std::min(msg.returned, ret->new_limit);
      const std::uint64_t keep = msg.outstanding();
      if (keep < msg.accounted) {
        stats.credit_returned += msg.accounted - keep;
        ledger.set_scheduled(a, msg, keep);
      }
      if (msg.state == MsgState::Active) msg.state = MsgState::Dormant;
      dequeue(msg);
    } else {
      // ASSOC_ACCEPT, CREDIT_GRANT, MSG_DONE, ERROR: not for a receiver.
      if (events.enabled())
        events.emit(now, "unexpected_message", {{"type", info(type_of(m)).name}});
    }
  }

  // ---- timers -----------------------------------------------------------------------------

  Msg* timer_message(const Timer& t) {
    Assoc* a = assocs.find(t.association);
    if (a == nullptr) return nullptr;
    auto m = a->msgs.find(t.message);
    if (m == a->msgs.end() || m->second.generation != t.generation) return nullptr;
    return &m->second;
  }

  void fire(const Timer& t, Time now) {
    switch (t.kind) {
      case TimerKind::Reclaim:
        if (Msg* m = timer_message(t)) reclaim(assocs.at(t.association), *m, now);
        break;
      case TimerKind::UnschedRelease:
        if (Msg* m = timer_message(t); m != nullptr && m->unsched_accounted != 0) {
          breaker.lost(m->unsched_accounted);
          set_unsched(*m, 0);
        }
        break;
      case TimerKind::CancelReclaim:
        if (Msg* m = timer_message(t)) {
          Assoc& a = assocs.at(t.association);
          remember_done(a, m->id, std::nullopt);
          release_message(a, *m, now, true);
        }
        break;
      case TimerKind::ParameterUpdate: {
        Assoc* a = assocs.find(t.association);
        if (a != nullptr && a->update_pending && a->update_generation == t.generation) {
          send_parameter_update(*a, now);
        }
        break;
      }
      case TimerKind::Aimd: aimd_tick(now); break;
      case TimerKind::Breaker: breaker_tick(now); break;
      case TimerKind::Idle: {
        idle_armed = false;
        std::vector<std::uint32_t> idle;
        for (auto& [id, a] : assocs) {
          if (now - a.last_activity >= cfg.idle_timeout) idle.push_back(id);
        }
        for (auto id : idle) {
          ++stats.associations_removed_idle;
          remove_association(assocs.at(id), now, "idle");
        }
        if (!assocs.empty()) {
          Time least_recent = now;
          for (const auto& [id, a] : assocs) least_recent = std::min(least_recent, a.last_activity);
          idle_armed = true;
          arm(std::max(now + microseconds(1),
                       policy->next_idle_check(now, least_recent, cfg.idle_timeout)),
              TimerKind::Idle);
        }
        break;
      }
    }
  }

  void on_timeout(Time now) {
    while (!timers.empty() && timers.next().at <= now) {
      const Timer t = timers.next();
      timers.pop();
      fire(t, now);
    }
    grant_pass(now);
  }
};

Receiver::Receiver(ReceiverConfig config, Observer* observer, RandomSource* random,
                   std::shared_ptr<const ReceiverPolicy> policy)
    : impl_(std::make_unique<Impl>(std::move(config), observer, random, std::move(policy))) {}
Receiver::~Receiver() = default;

void Receiver::on_control(const Address& from, std::span<const std::byte> datagram, Time now) {
  impl_->on_control(from, datagram, now);
}
void Receiver::on_data(const DataObservation& data, Time now) {
  impl_->on_data(data, now);
}
void Receiver::on_timeout(Time now) {
  impl_->on_timeout(now);
}
std::optional<Time> Receiver::next_timeout() const {
  if (impl_->timers.empty()) return std::nullopt;
  return impl_->timers.next().at;
}
std::optional<Datagram> Receiver::poll_transmit() {
  return impl_->out.pop();
}
std::optional<DataNack> Receiver::poll_nack() {
  if (impl_->nacks.empty()) return std::nullopt;
  DataNack n = std::move(impl_->nacks.front());
  impl_->nacks.erase(impl_->nacks.begin());
  return n;
}
std::uint64_t Receiver::outstanding_credit() const {
  return impl_->ledger.outstanding();
}
std::size_t Receiver::association_count() const {
  return impl_->assocs.size();
}
std::size_t Receiver::pending_messages() const {
  return impl_->pending;
}
const ReceiverStats& Receiver::stats() const {
  return impl_->stats;
}
const ReceiverConfig& Receiver::config() const {
  return impl_->cfg;
}

}  // namespace rdcc::ref
