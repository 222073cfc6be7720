// The reference sender's state (Sender::Impl), private to reference/src/sender/. Its member
// functions are defined, by spec heading, in the file named after the heading whose rules they
// hold (docs/reference.md, "The sender's units"); the declarations below are grouped by file.
// sender.cpp is the glue: the public API, and the dispatch of what arrives and of the timers
// to the units.
#pragma once

#include "credit_requests_and_grants.hpp"
#include "finished_store.hpp"
#include "transmit_queue.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <queue>
#include <set>
#include <span>
#include <utility>
#include <vector>

#include "rdcc/codec/codec.hpp"
#include "rdcc/codec/json.hpp"
#include "rdcc/reference/bindings.hpp"
#include "rdcc/reference/range_set.hpp"
#include "rdcc/reference/sender.hpp"

namespace rdcc::ref {

struct AddressLess {
  bool operator()(const Address& a, const Address& b) const {
    // The order of (family, IP octets, port) in integer compares, not memcmp (address.hpp).
    return key_of(a) < key_of(b);
  }
};

struct Sender::Impl {
  using json = nlohmann::ordered_json;
  enum class Phase : std::uint8_t { Idle, Connecting, Established, WithoutRdcc };
  struct Msg;

  struct Assoc {
    Address receiver;
    Phase phase = Phase::Idle;
    std::uint64_t nonce = 0;
    int attempts = 0;
    // An ERROR (ASSOC_REFUSED) came while connecting: the messages are aborted when the attempts
    // end unaccepted (docs/spec-notes.md, "ASSOC_REFUSED ends the association procedure, not
    // the first time it arrives").
    bool refused = false;
    bool was_established = false;  // the receiver has accepted an association before
    Time last_attempt{};
    Time retx_at = Time::never();
    std::uint64_t retx_confirmed = 0;  // the sent() that last moved retx_at
    Duration retx_timeout{};
    std::uint32_t association_id = 0;
    std::uint16_t epoch = 0;
    AssocAccept params;
    std::uint32_t next_seq = 0;
    std::optional<std::uint32_t> newest_seq;
    std::uint64_t next_message_id = 1;  // "zero is reserved"
    std::optional<MessageHandle> unsched_outstanding;
    Time unsched_blocked_until{};
    std::optional<Duration> srtt;
    Duration rttvar{};
    // Pool credit ("Traffic Classes and Pool Credit").
    std::uint64_t pool_limit = 0;
    std::uint64_t pool_sent = 0;
    Time pool_valid_until{};
    std::uint32_t pool_rate = 0;
    bool pool_expiry_handled = true;
    Pacer pool_pacer;
    std::array<std::uint64_t, 8> class_vclock{};
    // SENDER_STATUS episode.
    bool status_in_episode = false;
    Time status_next{};
    // update_backlog's sums (sum_backlog): unused credit, valid when unused_stamp is the
    // sum's; and, kept as messages come and go, the Service Hints' share of the live
    // messages sent with RDCC (a latency-sensitive one weighs 2, any other 1) and the live
    // messages by Service Hint (dominant_hint).
    std::uint64_t unused = 0;
    std::uint64_t unused_stamp = 0;
    std::uint64_t hint_weight = 0;
    std::array<std::uint64_t, 3> hint_count{};
    // The live messages by Message ID (find_msg).
    std::multimap<std::uint64_t, Msg*> by_id;
    // The live messages of this association in handle order (for_each_msg): a list through
    // Msg::prev_in_assoc / next_in_assoc, appended by submit(), unlinked by sweep().
    Msg* first_msg = nullptr;
    Msg* last_msg = nullptr;
  };

  struct Msg {
    MessageHandle handle = 0;
    MessageSpec spec;
    // spec.binding_value is the sender's draw, not the application's: a new one is drawn when
    // the message starts over in a new association (rerequest).
    bool binding_drawn = false;
    // The association of spec.receiver (submit() sets it; map nodes stay put and an Assoc is
    // never erased): the lookup by address was most of the scheduler's time.
    Assoc* assoc = nullptr;
    std::uint64_t id = 0;
    MessageState state = MessageState::New;
    bool without_rdcc = false;
    std::uint64_t transmitted = 0;
    std::uint64_t announced_unsched = 0;  // Unscheduled Sent of the next CREDIT_REQUEST
    Time start_at{};
    std::uint64_t limit = 0;
    Time valid_until{};
    std::uint32_t rate = 0;
    bool granted = false;
    bool expiry_handled = true;
    bool in_credit_holders = false;  // listed in Impl::credit_holders
    std::optional<std::uint64_t>
        ceiling;                    // CREDIT_RETURN: "beyond which the sender will not transmit"
    bool request_deferred = false;  // SenderPolicy::request_before_unscheduled_data false
    std::uint64_t pool_end = 0;     // octets below it are reserved from the pool
    std::uint64_t vtime = 0;
    Time request_sent{};
    bool rtt_sample_pending = false;
    Duration rto{};
    Time retx_at = Time::never();
    std::uint64_t retx_confirmed = 0;  // the sent() that last moved retx_at
    Pacer pacer;
    Time submitted{};
    Time finished{};
    std::uint16_t abort_reason = 0;
    // Octets a receiver's NACK named that are still to be sent again (docs/data-transport.md,
    // "Loss recovery"): all below `transmitted`.
    RangeSet resend;
    // The association's list of its live messages (Assoc::first_msg).
    Msg* prev_in_assoc = nullptr;
    Msg* next_in_assoc = nullptr;

    [[nodiscard]] std::uint8_t cls() const {
      return std::min(spec.traffic_class, kMaxTrafficClass);
    }
    [[nodiscard]] std::uint8_t weight() const {
      return spec.weight == 0 ? std::uint8_t{1} : spec.weight;
    }
    [[nodiscard]] std::uint64_t end() const {  // octets it may ever transmit
      return ceiling ? std::min(*ceiling, spec.length) : spec.length;
    }
    [[nodiscard]] bool terminal() const {
      return state == MessageState::Done || state == MessageState::Aborted;
    }
    // The RDMA message (post unit) holding the next octet: [start, end).
    [[nodiscard]] std::pair<std::uint64_t, std::uint64_t> unit() const {
      if (spec.post_unit == 0) return {transmitted, spec.length};
      const std::uint64_t start = transmitted - transmitted % spec.post_unit;
      return {start, std::min(start + spec.post_unit, spec.length)};
    }
  };

  // A segment poll_data could emit.
  struct Plan {
    Msg* msg = nullptr;
    std::uint64_t len = 0;
    bool unscheduled = false;
    bool from_pool = false;
    std::uint64_t reserve_to = 0;  // pool: new pool_end
    std::uint64_t rate = 0;
    std::uint64_t cu = 0;
    Pacer* pacer = nullptr;
    // A second pace the segment must also keep (a message's own grant while it sends octets
    // reserved from the pool), or none.
    Pacer* also = nullptr;
    std::uint64_t also_rate = 0;
    Time ready{};
    bool resend = false;  // octets of m.resend, from `offset`
    std::uint64_t offset = 0;
  };

  SenderConfig config;
  RandomSource& random;
  // The default opaque Binding Values' own stream (transport_bindings.cpp): a CSPRNG where
  // `random` is one, and drawing from it shifts none of `random`'s draws.
  std::unique_ptr<RandomSource> binding_random;
  std::shared_ptr<const SenderPolicy> policy;  // never null: SenderPolicy's defaults
  EventSink events;
  SenderStats stats;
  TransmitQueue out;  // what poll_transmit() hands out
  // The associations by address. No event walks them all: the timers, the pool holders and
  // the backlog sums have indexes of their own (below), so a new association costs submit()
  // O(log n) (rebuilding a list of them on every new association was half of all the time of
  // a 1,024-host all-to-all on ns-3, whose senders open a thousand associations each).
  std::map<Address, Assoc, AddressLess> assocs;
  // The live messages (not yet DONE or ABORTED, or finished since the last sweep), in handle
  // order, which every walk keeps: a message finished retires at the next event (sweep), so
  // the walks on every event cost what is live, never what was ever submitted. Map nodes stay
  // put: Plan and the held pacers hold their addresses.
  std::map<MessageHandle, Msg> live;
  std::vector<MessageHandle> retiring;  // finished since the last sweep
  FinishedStore finished;               // the final status of retired messages, bounded
  MessageHandle next_handle = 1;
  bool episode = false;
  Time clock{};
  // Traffic sent at line rate (unscheduled without a grant, and without RDCC) shares the link.
  Pacer line_pacer;
  // What the last poll_data that found nothing ready saw at the clock `at`: when the first
  // planned segment becomes ready. Every event resets it (advance(), poll_data).
  struct Planned {
    Time at;
    std::optional<Time> earliest;
  };
  std::optional<Planned> planned;
  // ---- the indexes that make each event cost O(log n) in the live state ----
  // Timers: each time a timer is armed (retransmission, Lifetime, random start, association
  // attempt, pool Lifetime, SENDER_STATUS repeat) an entry goes into a heap; an entry whose
  // timer has since been re-armed or disarmed is dropped when it comes to the top (lazy
  // deletion: every arming pushes, so the heap always holds the current time of each armed
  // timer). advance() takes the due ones from the top and serves them in the order the old
  // walks did (associations by address, messages by handle), so decisions do not change.
  struct MsgTimer {
    Time at;
    MessageHandle handle;
  };
  struct AssocTimer {
    Time at;
    Assoc* assoc;
  };
  struct Later {
    bool operator()(const MsgTimer& x, const MsgTimer& y) const { return x.at > y.at; }
    bool operator()(const AssocTimer& x, const AssocTimer& y) const { return x.at > y.at; }
  };
  std::priority_queue<MsgTimer, std::vector<MsgTimer>, Later> msg_timers;
  std::priority_queue<AssocTimer, std::vector<AssocTimer>, Later> assoc_timers;
  std::priority_queue<AssocTimer, std::vector<AssocTimer>, Later> status_timers;
  std::vector<MessageHandle> due_msgs;  // advance()'s scratch
  std::vector<Assoc*> due_assocs;       // advance()'s scratch
  // The messages that may have a segment of their own to plan (plan_own), in handle order:
  // every change that can give a message something to send puts it here (mark_may_send), and
  // a walk that finds it has nothing, and cannot have anything until such a change, drops it.
  // ready_plan and earliest_plan walk these, not every live message.
  struct HandleLess {
    bool operator()(const Msg* x, const Msg* y) const { return x->handle < y->handle; }
  };
  std::set<Msg*, HandleLess> may_send;
  // The associations that may hold a live pool grant (plan_pool), in address order.
  struct AssocLess {
    bool operator()(const Assoc* x, const Assoc* y) const {
      return AddressLess{}(x->receiver, y->receiver);
    }
  };
  std::set<Assoc*, AssocLess> pool_holders;
  // SENDER_STATUS: the messages that may hold unused credit of their own (a grant lists
  // them; sum_backlog drops those that cannot until another grant); the Backlog Thresholds of
  // the established associations and the sum of their hint weights; the associations marked
  // in the current episode; the associations sum_backlog found holding unused credit.
  std::vector<MessageHandle> credit_holders;
  std::multiset<std::uint64_t> established_thresholds;
  std::uint64_t established_weight = 0;
  std::vector<Assoc*> in_episode;
  std::vector<Assoc*> backlog_assocs;
  std::uint64_t backlog_stamp = 0;
  std::vector<Pacer*> held;      // ready_plan's scratch: the pacers holding a segment back
  std::vector<Pacer*> was_held;  // the pacers ready_plan marked held last (pacers never move)
  Plan scratch;                  // the segment ready_plan found
  // Polled since the last sent() (SenderConfig::reports_sends), each with the time it was
  // polled at, oldest first: the messages whose CREDIT_REQUEST and the associations whose
  // ASSOC_REQUEST went out, and the pacers that recorded a segment. A pacer leaves with its
  // message (sweep).
  std::vector<std::pair<MessageHandle, Time>> unsent_requests;
  std::vector<std::pair<Assoc*, Time>> unsent_assoc_requests;
  std::vector<std::pair<Pacer*, Time>> unsent_segments;
  std::uint64_t sends_confirmed = 0;  // sent() calls so far

  Impl(SenderConfig c, RandomSource& r, Observer* o, std::shared_ptr<const SenderPolicy> p)
      : config(std::move(c)),
        random(r),
        binding_random(r.split()),
        policy(p ? std::move(p) : std::make_shared<const SenderPolicy>()),
        events(config.name, o),
        finished(config.finished_status_capacity) {
    out.reserve(8);
    held.reserve(8);
    was_held.reserve(8);
  }

  std::uint64_t available_rate() const {
    return config.available_rate_mbps != 0 ? config.available_rate_mbps : config.line_rate_mbps;
  }
  std::uint64_t credit_unit(const Assoc& a) const {
    if (a.phase == Phase::Established && a.params.credit_unit != 0) return a.params.credit_unit;
    return config.default_credit_unit;
  }
  Assoc& assoc_of(const Msg& m) { return *m.assoc; }
  const Assoc& assoc_of(const Msg& m) const { return *m.assoc; }
  Msg* msg_of(MessageHandle handle) {
    auto it = live.find(handle);
    return it == live.end() ? nullptr : &it->second;
  }
  const Msg* msg_of(MessageHandle handle) const {
    auto it = live.find(handle);
    return it == live.end() ? nullptr : &it->second;
  }
  // The live message of `a` with Message ID `id` (the one submitted first if a fault made two
  // share it); retired messages are not found, as a finished one ignores what names it.
  Msg* find_msg(const Assoc& a, std::uint64_t id) {
    if (id == 0) return nullptr;
    Msg* found = nullptr;
    for (auto [it, end] = a.by_id.equal_range(id); it != end; ++it) {
      if (found == nullptr || it->second->handle < found->handle) found = it->second;
    }
    return found;
  }
  // Message IDs index the live messages of their association (find_msg).
  void set_id(Msg& m, std::uint64_t id) {
    unindex(m);
    m.id = id;
    if (id != 0) m.assoc->by_id.emplace(id, &m);
  }
  void unindex(Msg& m) {
    if (m.id == 0) return;
    for (auto [it, end] = m.assoc->by_id.equal_range(m.id); it != end; ++it) {
      if (it->second == &m) {
        m.assoc->by_id.erase(it);
        return;
      }
    }
  }
  // The live messages of `a` not yet finished, in handle order: its own list, not every
  // message of the sender. `f` may finish a message (it stays linked until the sweep).
  template <class F>
  void for_each_msg(const Assoc& a, F&& f) {
    for (Msg* m = a.first_msg; m != nullptr; m = m->next_in_assoc) {
      if (!m->terminal()) f(*m);
    }
  }
  template <class F>
  void for_each_msg(const Assoc& a, F&& f) const {
    for (const Msg* m = a.first_msg; m != nullptr; m = m->next_in_assoc) {
      if (!m->terminal()) f(*m);
    }
  }
  void link(Assoc& a, Msg& m) {
    m.assoc = &a;
    m.prev_in_assoc = a.last_msg;
    (a.last_msg != nullptr ? a.last_msg->next_in_assoc : a.first_msg) = &m;
    a.last_msg = &m;
  }
  static void unlink(Msg& m) {
    Assoc& a = *m.assoc;
    (m.prev_in_assoc != nullptr ? m.prev_in_assoc->next_in_assoc : a.first_msg) = m.next_in_assoc;
    (m.next_in_assoc != nullptr ? m.next_in_assoc->prev_in_assoc : a.last_msg) = m.prev_in_assoc;
  }
  static MessageStatus status_of(const Msg& m) {
    MessageStatus st;
    st.handle = m.handle;
    st.message_id = m.id;
    st.state = m.state;
    st.length = m.spec.length;
    st.transmitted = m.transmitted;
    st.grant_limit = m.limit;
    st.without_rdcc = m.without_rdcc;
    st.abort_reason = m.abort_reason;
    st.submitted = m.submitted;
    st.finished = m.finished;
    return st;
  }

  void set_phase(Assoc& a, Phase p) {
    if (a.phase == Phase::Established) {
      established_thresholds.erase(established_thresholds.find(a.params.backlog_threshold));
      established_weight -= a.hint_weight;
    }
    a.phase = p;
    if (p == Phase::Established) {
      established_thresholds.insert(a.params.backlog_threshold);
      established_weight += a.hint_weight;
    }
  }
  static std::uint64_t hint_weight_of(const Msg& m) {
    return m.spec.service_hint == ServiceHint::LatencySensitive ? 2U : 1U;
  }
  // m (live, not without RDCC) joins (+1) or leaves (-1) its association's hint weight.
  void count_hint_weight(const Msg& m, int sign) {
    Assoc& a = *m.assoc;
    const std::uint64_t w = hint_weight_of(m);
    if (sign > 0) {
      a.hint_weight += w;
      if (a.phase == Phase::Established) established_weight += w;
    } else {
      a.hint_weight -= w;
      if (a.phase == Phase::Established) established_weight -= w;
    }
  }
  void count_hint(const Msg& m, int sign) {
    const auto i = static_cast<std::size_t>(m.spec.service_hint);
    if (i < m.assoc->hint_count.size()) m.assoc->hint_count[i] += static_cast<std::uint64_t>(sign);
  }

  void arm_retx(Msg& m, Time at) {
    m.retx_at = at;
    msg_timers.push({at, m.handle});
  }
  void arm_expiry(Msg& m, Time at) {
    m.valid_until = at;
    m.expiry_handled = false;
    msg_timers.push({at, m.handle});
  }
  void arm_start(Msg& m, Time at) {
    m.start_at = at;
    msg_timers.push({at, m.handle});
  }
  void arm_assoc_retx(Assoc& a, Time at) {
    a.retx_at = at;
    assoc_timers.push({at, &a});
  }
  void arm_pool_expiry(Assoc& a, Time at) {
    a.pool_valid_until = at;
    a.pool_expiry_handled = false;
    assoc_timers.push({at, &a});
  }
  void arm_status(Assoc& a, Time at) {
    a.status_next = at;
    status_timers.push({at, &a});
  }
  // m may have something of its own to send (sendable).
  void mark_may_send(Msg& m) {
    if (!m.terminal()) may_send.insert(&m);
  }

  // The first time on top of a timer heap that still counts (wakes_at); entries that no
  // longer do are dropped on the way (a timer re-armed has an entry of its own).
  template <class Heap, class Counts>
  static Time first_live(Heap& heap, Counts&& counts) {
    while (!heap.empty()) {
      if (counts(heap.top())) return heap.top().at;
      heap.pop();
    }
    return Time::never();
  }

  // sender.cpp:
  void sweep();
  void confirm_sends(Time at);
  void note_segment(Pacer* pacer, Time now) {
    if (!config.reports_sends) return;
    if (unsent_segments.empty() || unsent_segments.back() != std::pair{pacer, now}) {
      unsent_segments.emplace_back(pacer, now);
    }
  }
  bool msg_wakes_at(const Msg& m, Time at) const;
  bool assoc_wakes_at(const Assoc& a, Time at) const;
  bool status_wakes_at(const Assoc& a, Time at) const;
  void advance(Time now);
  void on_control(const Address& from, std::span<const std::byte> bytes, Time now);
  std::optional<Time> next_timeout();

  // association_establishment.cpp, "Association Establishment":
  void send_assoc_request(Assoc& a, bool update_ack, Time now);
  void start_establishment(Assoc& a, Time now);
  void assoc_attempt(Assoc& a, Time now);
  void assoc_timeout(Assoc& a, Time now);
  void go_without_rdcc(Msg& m, Time now);
  void apply_params(Assoc& a, const AssocAccept& acc);
  static json with_params(json fields, const AssocAccept& acc);
  void establish(Assoc& a, const AssocAccept& acc, bool sample_rtt, Time now);
  void acknowledge_update(Assoc& a, const AssocAccept& acc, Time now);
  void drop_association_credit(Assoc& a, Time now);
  void begin_reestablishment(Assoc& a, const char* why, Time now);
  void rerequest(Msg& m, Time now);
  void on_accept(Assoc& a, const AssocAccept& acc, Time now);

  // transmission_mode_selection.cpp, "Transmission Mode Selection":
  void select_mode(Msg& m, Time now);

  // unscheduled_transmission.cpp, "Unscheduled Transmission":
  void convert(Msg& m, const char* why, Time now);
  void on_link_pause(Time now);

  // credit_requests_and_grants.cpp, "Credit Requests and Grants":
  std::uint64_t segment_length(std::uint64_t cu, std::uint64_t sendable) const;
  Duration initial_rto(const Assoc& a) const;
  Duration srtt_or_default(const Assoc& a) const;
  void rtt_sample(Assoc& a, Duration r, Time now);
  void request_anew(Msg& m, Time now);
  void retransmit_request(Msg& m, Time now);
  void send_credit_request(Msg& m, bool retransmission, Time now);
  bool own_valid(const Msg& m, Time t) const;
  std::uint64_t own_limit(const Msg& m) const;
  bool holds_credit(const Msg& m, Time t) const;
  void on_grant(Assoc& a, const CreditGrant& g, Time now);
  void expire_own(Msg& m, Time now);
  bool plan_own(Msg& m, Time t, Plan& p);
  bool pace(Plan& p) const;
  Plan* ready_plan(Time t);
  bool ready_or_held(const Plan& p, Time t, std::optional<Time>& earliest);
  std::set<Msg*, HandleLess>::iterator drop_unsendable(std::set<Msg*, HandleLess>::iterator it,
                                                       Time t);
  std::set<Assoc*, AssocLess>::iterator drop_poolless(std::set<Assoc*, AssocLess>::iterator it,
                                                      Time t);
  std::optional<Time> earliest_plan(Time t);
  DataSegment emit_resend(Plan& p, Time now);
  DataSegment emit(Plan& p, Time now);
  void after_transmission(Msg& m, const Plan& p, Time now);
  void check_segment(const Msg& m, const Plan& p, Time now);
  void cancel(Msg& m, Time now);

  // traffic_classes_and_pool_credit.cpp, "Traffic Classes and Pool Credit":
  bool pool_valid(const Assoc& a, Time t) const;
  std::uint64_t pool_reserved(const Assoc& a) const;
  std::uint64_t pool_remaining(const Assoc& a) const;
  static bool pool_member(const Msg& m);
  void refresh_pool_members(Assoc& a, Time now);
  void expire_pool(Assoc& a, Time now);
  bool plan_pool(Assoc& a, Time t, Plan& p);
  void use_pool_credit(Msg& m, Assoc& a, const Plan& p);

  // sender_backlog_indication_and_suggested_rates.cpp, "Sender Backlog Indication and Suggested
  // Rates":
  void update_backlog(Time now);
  std::uint64_t sum_backlog(Time t);
  std::uint64_t unused_of(const Assoc& a) const;

  // on_path_congestion_reporting.cpp, "On-Path Congestion Reporting":
  void on_report(const Address& from, const CongestionReport& r, Time now);

  // error_handling_and_recovery.cpp, "Error Handling and Recovery":
  void on_error(Assoc& a, const ErrorMessage& e, Time now);

  // common_header.cpp, "Common Header":
  void send(Assoc& a, Message m, Time now);
  bool accept_header(Assoc& a, const Message& msg, Time now);

  // credit_request.cpp, "CREDIT_REQUEST":
  CreditRequest credit_request(const Msg& m, Time now) const;

  // credit_grant.cpp, "CREDIT_GRANT":
  bool ignores_grant_rate(const CreditGrant& g, Time now);

  // sender_status.cpp, "SENDER_STATUS":
  std::uint8_t dominant_hint(const Assoc& a) const;
  void send_status(Assoc& a, std::uint64_t unused, std::uint8_t level, std::uint64_t rate,
                   Time now);

  // msg_done_cancel_credit_return_and_error.cpp, "MSG_DONE, CANCEL, CREDIT_RETURN, and ERROR":
  void return_credit(Msg& m, std::uint64_t new_limit, Time now);

  // transport_bindings.cpp, "Transport Bindings":
  std::uint64_t binding_value(const Msg& m) const;
  void default_binding_value(Msg& m);
  bool may_post(const Msg& m, std::uint64_t limit) const;

  // sender_message_state_machine.cpp, "Sender Message State Machine":
  void set_state(Msg& m, MessageState s, Time now);
  void enter(Msg& m, SenderTransition t, Time now);
  void fire(Msg& m, SenderTransition t, Time now);
  void row_new_unscheduled(Msg& m, Time now);
  void row_new_scheduled(Msg& m, Time now);
  void row_unsched_drained(Msg& m, Time now);
  void row_unsched_stopped(Msg& m, Time now);
  void row_waiting_granted(Msg& m, Time now);
  void row_waiting_request_timeout(Msg& m, Time now);
  void row_scheduled_limit_reached(Msg& m, Time now);
  void row_scheduled_lifetime_elapsed(Msg& m, Time now);
  void row_scheduled_drained(Msg& m, Time now);
  void row_drained_done(Msg& m, Time now);
  void row_drained_request_timeout(Msg& m, Time now);
  void row_aborted(Msg& m, Time now);
  void row_waiting_budget_exhausted(Msg& m, Time now);
  void row_without_rdcc(Msg& m, Time now);
  void row_without_rdcc_done(Msg& m, Time now);
  void row_credit_dropped(Msg& m, Time now);
  void row_waiting_drained(Msg& m, Time now);
  void start_drained_timer(Msg& m, Time now);
  void drained(Msg& m, Time now);
  void refresh_state(Msg& m, Time now);
  void request_timeout(Msg& m, Time now);
  bool plan_resend(Msg& m, Time t, Plan& p);
  void probe_tail(Msg& m, Time now);
  void abort(Msg& m, std::uint16_t reason, Time now);
  void on_msg_done(Assoc& a, const MsgDone& d, Time now);
  void on_nack(const Address& from, std::uint64_t key, std::span<const OctetRange> ranges,
               Time now);
};

}  // namespace rdcc::ref
