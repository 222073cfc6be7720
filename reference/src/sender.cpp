// The reference RDCC sender: "Association Establishment", "Transmission Mode Selection",
// "Unscheduled Transmission", "Credit Requests and Grants", "Traffic Classes and Pool Credit",
// "Sender Backlog Indication and Suggested Rates" and the "Sender Message State Machine".
// Where the spec allows several behaviours this takes the safest one; docs/spec-notes.md
// lists each choice with the test that holds it.
#include "rdcc/reference/sender.hpp"

#include "transmit_queue.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <deque>
#include <functional>
#include <map>
#include <queue>
#include <set>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "rdcc/codec/codec.hpp"
#include "rdcc/codec/json.hpp"
#include "rdcc/codec/serial.hpp"
#include "rdcc/reference/bindings.hpp"
#include "rdcc/reference/dense_index.hpp"
#include "rdcc/reference/range_set.hpp"

namespace rdcc::ref {

const char* to_string(MessageState s) {
  switch (s) {
    case MessageState::New: return "NEW";
    case MessageState::Unsched: return "UNSCHED";
    case MessageState::Waiting: return "WAITING";
    case MessageState::Scheduled: return "SCHEDULED";
    case MessageState::Drained: return "DRAINED";
    case MessageState::Done: return "DONE";
    case MessageState::Aborted: return "ABORTED";
  }
  return "?";
}

const char* to_string(SenderTransition t) {
  switch (t) {
    case SenderTransition::NewUnscheduled: return "new_unscheduled";
    case SenderTransition::NewScheduled: return "new_scheduled";
    case SenderTransition::UnschedDrained: return "unsched_drained";
    case SenderTransition::UnschedStopped: return "unsched_stopped";
    case SenderTransition::WaitingGranted: return "waiting_granted";
    case SenderTransition::WaitingRequestTimeout: return "waiting_request_timeout";
    case SenderTransition::ScheduledLimitReached: return "scheduled_limit_reached";
    case SenderTransition::ScheduledLifetimeElapsed: return "scheduled_lifetime_elapsed";
    case SenderTransition::ScheduledDrained: return "scheduled_drained";
    case SenderTransition::DrainedDone: return "drained_done";
    case SenderTransition::DrainedRequestTimeout: return "drained_request_timeout";
    case SenderTransition::Aborted: return "aborted";
    case SenderTransition::WaitingBudgetExhausted: return "waiting_budget_exhausted";
    case SenderTransition::WithoutRdcc: return "without_rdcc";
    case SenderTransition::WithoutRdccDone: return "without_rdcc_done";
    case SenderTransition::CreditDropped: return "credit_dropped";
    case SenderTransition::WaitingDrained: return "waiting_drained";
  }
  return "?";
}

namespace {

using json = nlohmann::ordered_json;

// "Sender Message State Transitions", as data: each row's states of origin and next state.
// Each row's action is a function of Sender::Impl named after the row (row_new_unscheduled,
// ...; "the rows' actions" there), which Sender::Impl::fire dispatches to by the row's name.
// Rows after WaitingBudgetExhausted are the reference's own, for what the table leaves out
// (docs/spec-notes.md, "The sender's state machine beyond the table").
struct Row {
  SenderTransition id;
  std::uint8_t from;  // bit (1 << MessageState) per state the row leaves
  MessageState to;
};
constexpr std::uint8_t bit(MessageState s) {
  return static_cast<std::uint8_t>(1U << static_cast<unsigned>(s));
}
constexpr std::uint8_t kLive = bit(MessageState::New) | bit(MessageState::Unsched) |
                               bit(MessageState::Waiting) | bit(MessageState::Scheduled) |
                               bit(MessageState::Drained);
using enum MessageState;
constexpr std::array<Row, kSenderTransitionCount> kTransitions{{
    // NEW | length <= U and no unscheduled message outstanding | start random delay; send
    // CREDIT_REQUEST with Unscheduled Sent = length | UNSCHED
    {SenderTransition::NewUnscheduled, bit(New), Unsched},
    // NEW | otherwise | send CREDIT_REQUEST | WAITING
    {SenderTransition::NewScheduled, bit(New), Waiting},
    // UNSCHED | all octets transmitted | none | DRAINED
    {SenderTransition::UnschedDrained, bit(Unsched), Drained},
    // UNSCHED | CONGESTION_REPORT or link pause | stop; request credit for the remainder | WAITING
    {SenderTransition::UnschedStopped, bit(Unsched), Waiting},
    // WAITING | CREDIT_GRANT above transmitted offset | none | SCHEDULED
    {SenderTransition::WaitingGranted, bit(Waiting), Scheduled},
    // WAITING | request timeout | retransmit CREDIT_REQUEST | WAITING
    {SenderTransition::WaitingRequestTimeout, bit(Waiting), Waiting},
    // SCHEDULED | Grant Limit reached before message end | none | WAITING
    {SenderTransition::ScheduledLimitReached, bit(Scheduled), Waiting},
    // SCHEDULED | Lifetime elapsed | send CREDIT_REQUEST | WAITING (the reference also asks
    // again when unused credit of a WAITING message expires)
    {SenderTransition::ScheduledLifetimeElapsed, bit(Scheduled) | bit(Waiting), Waiting},
    // SCHEDULED | all octets transmitted | none | DRAINED
    {SenderTransition::ScheduledDrained, bit(Scheduled), Drained},
    // DRAINED | MSG_DONE | release state | DONE
    {SenderTransition::DrainedDone, bit(Drained), Done},
    // DRAINED | request timeout | retransmit CREDIT_REQUEST | DRAINED
    {SenderTransition::DrainedRequestTimeout, bit(Drained), Drained},
    // any but DONE or ABORTED | CANCEL for the message; ERROR (MESSAGE_TOO_LARGE,
    // APPLICATION_ABORT, UNSUPPORTED_BINDING) for it; or ERROR (ASSOC_REFUSED) | release state |
    // ABORTED
    {SenderTransition::Aborted, kLive, Aborted},
    // WAITING | ERROR BUDGET_EXHAUSTED | keep the request outstanding | WAITING
    {SenderTransition::WaitingBudgetExhausted, bit(Waiting), Waiting},
    // Beyond the table. NEW | no ASSOC_REQUEST answered: "sends without it" | SCHEDULED
    {SenderTransition::WithoutRdcc, bit(New), Scheduled},
    // SCHEDULED without RDCC | all octets transmitted (no MSG_DONE will come) | DONE
    {SenderTransition::WithoutRdccDone, bit(Scheduled), Done},
    // any live but NEW | ERROR (UNKNOWN_ASSOCIATION) or a new Epoch: "discard all credit ...,
    // re-establish it, and request credit again" | WAITING
    {SenderTransition::CreditDropped, kLive& static_cast<std::uint8_t>(~bit(New)), Waiting},
    // WAITING | the last octets went under pool credit reserved before | none | DRAINED
    {SenderTransition::WaitingDrained, bit(Waiting), Drained},
}};

constexpr bool table_in_order() {
  for (std::size_t i = 0; i < kTransitions.size(); ++i) {
    if (static_cast<std::size_t>(kTransitions[i].id) != i) return false;
  }
  return true;
}
static_assert(table_in_order(), "kTransitions lists every SenderTransition in order");

// Sums of credit octets: a receiver may grant up to 2^64 - 1 (a pool grant of "everything"), and
// a wrapped sum made the backlog smaller than its parts, so that sending data, which only uses
// credit up, could start a backlog episode (fuzz_sender; docs/spec-notes.md, 90).
std::uint64_t add_saturating(std::uint64_t a, std::uint64_t b) {
  return b > ~std::uint64_t{0} - a ? ~std::uint64_t{0} : a + b;
}

// "a Congestion Level from 0 (none) to 255 (saturated)": 255 * excess / total rounded up, at
// least 1; exact in integers while 255 * excess fits in 64 bits.
std::uint8_t congestion_level(std::uint64_t excess, std::uint64_t total) {
  const std::uint64_t level =
      excess <= ~std::uint64_t{0} / 255
          ? (255 * excess + total - 1) / total
          : static_cast<std::uint64_t>(
                std::ceil(255.0 * static_cast<double>(excess) / static_cast<double>(total)));
  return static_cast<std::uint8_t>(std::clamp<std::uint64_t>(level, 1, 255));
}

struct AddressLess {
  bool operator()(const Address& a, const Address& b) const {
    // The order of (family, IP octets, port) in integer compares, not memcmp (address.hpp).
    return key_of(a) < key_of(b);
  }
};

// Scale of the weighted round-robin virtual clock: octets * kWrrScale / weight.
constexpr std::uint64_t kWrrScale = 1U << 16U;

Duration clamp_duration(Duration d, Duration lo, Duration hi) {
  return std::min(std::max(d, lo), hi);
}

// The largest data segment: an opaque data packet must fit one UDP datagram (65507 octets of
// payload over IPv4) with its header.
constexpr std::uint64_t kMaxSegmentOctets = 65507 - kOpaqueHeaderSize;

// "Credit Requests and Grants", rule 4: "MUST NOT transmit the message faster than the Pacing
// Rate, averaged over any interval equal to the transmission time of ten Credit Units at that
// rate." The reading (docs/spec-notes.md, 71): the octets of the segments that start within
// any such interval never exceed ten Credit Units. The pacer is a virtual clock with that
// window as its bound:
//  - each segment is due the previous one's transmission time (at the current rate) after the
//    previous one was due: on time, that is strict spacing;
//  - when the driver comes back late for a segment poll_data held back (`held`: a timer wake-up
//    late on a loaded host), the segments that fell due meanwhile go at once, as far as the
//    window allows, and the clock keeps its schedule; lateness the window does not let it
//    make up is forgiven (the clock restarts where the window let the segment go), so one
//    late wake-up never leaves a train of bursts behind it;
//  - after idleness (nothing held back: no credit, no data) the clock restarts at the
//    segment's actual start: idle time earns nothing.
// The unit of the pacing window: a Credit Unit, but no more than one datagram's payload. A
// Credit Unit beyond a datagram (the "path MTU payload size" it should be) would let a late
// wake-up release ten of them, thousands of datagrams, at one instant; a shorter window is
// stricter than rule 4, never looser.
constexpr std::uint64_t pacing_unit(std::uint64_t cu) {
  return std::min(cu, kMaxSegmentOctets);
}

struct Pacer {
  std::optional<Time> last_due;  // when the previous segment was due on the virtual clock
  std::uint64_t last_len = 0;
  bool held = false;  // poll_data held a segment of this pacer back; the wake-up is for it
  // Actual starts within the window, oldest first: recent[first..]. A vector whose front is
  // dropped by moving `first` (a deque allocated two blocks for every pacer, even an idle
  // one; this allocates nothing until the first segment).
  std::vector<std::pair<Time, std::uint64_t>> recent;
  std::size_t first = 0;
  std::uint64_t recent_octets = 0;  // the sum of recent[first..]'s lengths

  // When a segment of `len` octets is due: the virtual clock, and the window's bound.
  // `spaced` false (SenderPolicy::space_segments): only the window bounds the segments.
  [[nodiscard]] Time ready(std::uint64_t rate, std::uint64_t cu, std::uint64_t len,
                           bool spaced = true) const {
    if (!last_due) return Time{};
    cu = pacing_unit(cu);
    Time t = spaced ? *last_due + transmission_time(last_len, rate) : Time{};
    const Duration window = transmission_time(10 * cu, rate);
    std::uint64_t sum = len + recent_octets;
    for (std::size_t i = first; i < recent.size(); ++i) {
      if (sum <= 10 * cu) break;
      sum -= recent[i].second;
      t = std::max(t, recent[i].first + window);  // it leaves the window (t - window, t]
    }
    return t;
  }
  // A segment due at `due` (ready() when it was planned, at most `now`) starts at `now`.
  void record(Time now, Time due, std::uint64_t len, std::uint64_t rate, std::uint64_t cu) {
    cu = pacing_unit(cu);
    const Duration window = transmission_time(10 * cu, rate);
    const Time start = held ? std::max(due, now - window) : now;
    last_due = start;
    last_len = len;
    held = held && start + transmission_time(len, rate) <= now;  // still behind: keep up
    if (recent.capacity() == 0) recent.reserve(16);  // a window holds about ten: one allocation
    recent.emplace_back(now, len);
    recent_octets += len;
    while (first < recent.size() && recent[first].first + window <= now) {
      recent_octets -= recent[first].second;
      ++first;
    }
    if (first == recent.size()) {
      recent.clear();
      first = 0;
    } else if (first >= 16 && 2 * first >= recent.size()) {
      recent.erase(recent.begin(), recent.begin() + static_cast<std::ptrdiff_t>(first));
      first = 0;
    }
  }
};

}  // namespace

// The final status of retired messages, for status(): the `capacity` most recently finished
// (SenderConfig::finished_status_capacity); the oldest is forgotten first.
class FinishedStore {
 public:
  explicit FinishedStore(std::size_t capacity) : capacity_(capacity) {}
  void add(const MessageStatus& st) {
    if (capacity_ == 0) return;
    if (order_.size() == capacity_) {
      by_handle_.erase(order_.front());
      order_.pop_front();
    }
    by_handle_.emplace(st.handle, st);
    order_.push_back(st.handle);
  }
  [[nodiscard]] std::optional<MessageStatus> find(MessageHandle h) const {
    auto it = by_handle_.find(h);
    if (it == by_handle_.end()) return std::nullopt;
    return it->second;
  }

 private:
  std::size_t capacity_;
  std::unordered_map<MessageHandle, MessageStatus> by_handle_;
  std::deque<MessageHandle> order_;  // oldest finished first
};

struct Sender::Impl {
  enum class Phase : std::uint8_t { Idle, Connecting, Established, WithoutRdcc };
  struct Msg;

  struct Assoc {
    Address receiver;
    Phase phase = Phase::Idle;
    std::uint64_t nonce = 0;
    int attempts = 0;
    bool was_established = false;  // the receiver has accepted an association before
    Time last_attempt{};
    Time retx_at = Time::never();
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

  Impl(SenderConfig c, RandomSource& r, Observer* o, std::shared_ptr<const SenderPolicy> p)
      : config(std::move(c)),
        random(r),
        policy(p ? std::move(p) : std::make_shared<const SenderPolicy>()),
        events(config.name, o),
        finished(config.finished_status_capacity) {
    out.reserve(8);
    held.reserve(8);
    was_held.reserve(8);
  }

  // ---- helpers ------------------------------------------------------------------------------

  std::uint64_t available_rate() const {
    return config.available_rate_mbps != 0 ? config.available_rate_mbps : config.line_rate_mbps;
  }
  // The next segment's octets out of `sendable` that may go now: the policy's choice
  // (SenderPolicy::segment_length), within one datagram and the ten Credit Units one pacing
  // window allows (rule 4), and at least one octet.
  std::uint64_t segment_length(std::uint64_t cu, std::uint64_t sendable) const {
    const std::uint64_t cap = std::min({sendable, 10 * cu, kMaxSegmentOctets});
    if (cap == 0) return 0;
    return std::clamp<std::uint64_t>(policy->segment_length(cu, cap), 1, cap);
  }
  std::uint64_t credit_unit(const Assoc& a) const {
    if (a.phase == Phase::Established && a.params.credit_unit != 0) return a.params.credit_unit;
    return config.default_credit_unit;
  }
  Assoc& assoc_of(const Msg& m) { return *m.assoc; }
  const Assoc& assoc_of(const Msg& m) const { return *m.assoc; }
  Duration initial_rto(const Assoc& a) const {
    const Duration base = a.srtt ? *a.srtt * 2 : config.min_request_timeout;
    return clamp_duration(base, config.min_request_timeout, config.max_request_timeout);
  }
  Duration srtt_or_default(const Assoc& a) const {
    return a.srtt ? *a.srtt : config.min_request_timeout;
  }
  void rtt_sample(Assoc& a, Duration r, Time now) {
    // RFC 6298, section 2.
    if (!a.srtt) {
      a.srtt = r;
      a.rttvar = r / 2;
    } else {
      const Duration diff = *a.srtt > r ? *a.srtt - r : r - *a.srtt;
      a.rttvar = (a.rttvar * 3 + diff) / 4;
      a.srtt = (*a.srtt * 7 + r) / 8;
    }
    if (events.enabled())
      events.emit(
          now, "rtt_sample",
          {{"receiver", a.receiver.to_string()}, {"sample_ns", r.ns}, {"srtt_ns", a.srtt->ns}});
  }
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
  // Finished messages leave the live set: their final status goes to the bounded store, and
  // no pacer of theirs stays marked held. Called where nothing points into them (the start of
  // every event).
  void sweep() {
    for (const MessageHandle h : retiring) {
      auto it = live.find(h);
      if (it == live.end()) continue;
      Msg& m = it->second;
      finished.add(status_of(m));
      unindex(m);
      unlink(m);
      may_send.erase(&m);
      std::erase(was_held, &m.pacer);
      live.erase(it);
    }
    retiring.clear();
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

  void set_state(Msg& m, MessageState s, Time now) {
    if (m.state == s) return;
    // The frequent events are built only for an observer (fuzz harnesses run without one).
    if (events.enabled()) {
      events.emit(now, "message_state",
                  {{"handle", m.handle},
                   {"message_id", m.id},
                   {"receiver", m.spec.receiver.to_string()},
                   {"from", to_string(m.state)},
                   {"to", to_string(s)},
                   {"transmitted", m.transmitted},
                   {"grant_limit", m.limit}});
    }
    m.state = s;
    if (s == MessageState::Done || s == MessageState::Aborted) {
      m.finished = now;
      m.retx_at = Time::never();
      if (!m.without_rdcc) count_hint_weight(m, -1);
      count_hint(m, -1);
      if (s == MessageState::Done) ++stats.messages_done;
      if (s == MessageState::Aborted) ++stats.messages_aborted;
      retiring.push_back(m.handle);
    }
  }

  // The change of state of row `t` (kTransitions): m leaves a state the row names for the
  // row's next state. Rows that keep the state (a retransmitted request) are counted too.
  // Only the rows' functions below call it.
  void enter(Msg& m, SenderTransition t, Time now) {
    const Row& row = kTransitions[static_cast<std::size_t>(t)];
    assert((row.from & bit(m.state)) != 0);
    ++stats.transitions[static_cast<std::size_t>(t)];
    set_state(m, row.to, now);
    mark_may_send(m);
  }

  // ---- the rows' actions ("Sender Message State Transitions") -------------------------------
  // One function per row of the table, named after it, each quoting its row (state | event |
  // action | next state): it does the row's action and enters the next state, in the order
  // the reference always has (what a message sends on leaving a state goes out before the
  // change of state is reported). Which row an event takes is decided where the event is
  // handled; fire() runs the row's function.

  void fire(Msg& m, SenderTransition t, Time now) {
    switch (t) {
      case SenderTransition::NewUnscheduled: row_new_unscheduled(m, now); return;
      case SenderTransition::NewScheduled: row_new_scheduled(m, now); return;
      case SenderTransition::UnschedDrained: row_unsched_drained(m, now); return;
      case SenderTransition::UnschedStopped: row_unsched_stopped(m, now); return;
      case SenderTransition::WaitingGranted: row_waiting_granted(m, now); return;
      case SenderTransition::WaitingRequestTimeout: row_waiting_request_timeout(m, now); return;
      case SenderTransition::ScheduledLimitReached: row_scheduled_limit_reached(m, now); return;
      case SenderTransition::ScheduledLifetimeElapsed:
        row_scheduled_lifetime_elapsed(m, now);
        return;
      case SenderTransition::ScheduledDrained: row_scheduled_drained(m, now); return;
      case SenderTransition::DrainedDone: row_drained_done(m, now); return;
      case SenderTransition::DrainedRequestTimeout: row_drained_request_timeout(m, now); return;
      case SenderTransition::Aborted: row_aborted(m, now); return;
      case SenderTransition::WaitingBudgetExhausted: row_waiting_budget_exhausted(m, now); return;
      case SenderTransition::WithoutRdcc: row_without_rdcc(m, now); return;
      case SenderTransition::WithoutRdccDone: row_without_rdcc_done(m, now); return;
      case SenderTransition::CreditDropped: row_credit_dropped(m, now); return;
      case SenderTransition::WaitingDrained: row_waiting_drained(m, now); return;
    }
  }

  // NEW | length <= U and no unscheduled message outstanding | start random delay; send
  // CREDIT_REQUEST with Unscheduled Sent = length | UNSCHED ("Unscheduled Transmission",
  // items 1-3)
  void row_new_unscheduled(Msg& m, Time now) {
    Assoc& a = assoc_of(m);
    a.unsched_outstanding = m.handle;
    const std::uint64_t jitter_ns =
        policy->start_delay_ns(std::uint64_t{a.params.start_jitter} * 1000U, random);
    arm_start(m, now + nanoseconds(static_cast<std::int64_t>(jitter_ns)));
    m.announced_unsched = m.spec.length;
    if (events.enabled())
      events.emit(now, "unscheduled_start",
                  {{"handle", m.handle}, {"message_id", m.id}, {"delay_ns", jitter_ns}});
    if (!policy->request_before_unscheduled_data() && m.spec.length != 0) {
      m.request_deferred = true;  // sent after the first data packet (emit)
    } else {
      send_credit_request(m, false, now);
    }
    enter(m, SenderTransition::NewUnscheduled, now);
  }
  // NEW | otherwise | send CREDIT_REQUEST | WAITING (its request timer starts)
  void row_new_scheduled(Msg& m, Time now) {
    m.announced_unsched = 0;
    send_credit_request(m, false, now);
    enter(m, SenderTransition::NewScheduled, now);
    arm_retx(m, now + m.rto);
  }
  // UNSCHED | all octets transmitted | none | DRAINED
  void row_unsched_drained(Msg& m, Time now) {
    enter(m, SenderTransition::UnschedDrained, now);
    start_drained_timer(m, now);
  }
  // UNSCHED | CONGESTION_REPORT or link pause | stop; request credit for the remainder |
  // WAITING: the new CREDIT_REQUEST states the octets actually transmitted.
  void row_unsched_stopped(Msg& m, Time now) {
    ++stats.unscheduled_conversions;
    m.announced_unsched = m.transmitted;
    enter(m, SenderTransition::UnschedStopped, now);
    request_anew(m, now);
    refresh_state(m, now);
  }
  // WAITING | CREDIT_GRANT above transmitted offset | none | SCHEDULED
  void row_waiting_granted(Msg& m, Time now) { enter(m, SenderTransition::WaitingGranted, now); }
  // WAITING | request timeout | retransmit CREDIT_REQUEST | WAITING
  void row_waiting_request_timeout(Msg& m, Time now) {
    enter(m, SenderTransition::WaitingRequestTimeout, now);
    retransmit_request(m, now);
  }
  // SCHEDULED | Grant Limit reached before message end | none | WAITING (refresh_state starts
  // the request timer)
  void row_scheduled_limit_reached(Msg& m, Time now) {
    enter(m, SenderTransition::ScheduledLimitReached, now);
  }
  // SCHEDULED | Lifetime elapsed | send CREDIT_REQUEST | WAITING (also taken when unused
  // credit of a WAITING message expires)
  void row_scheduled_lifetime_elapsed(Msg& m, Time now) {
    enter(m, SenderTransition::ScheduledLifetimeElapsed, now);
    request_anew(m, now);
  }
  // SCHEDULED | all octets transmitted | none | DRAINED
  void row_scheduled_drained(Msg& m, Time now) {
    enter(m, SenderTransition::ScheduledDrained, now);
    start_drained_timer(m, now);
  }
  // DRAINED | MSG_DONE | release state | DONE (the message retires at the next event: sweep)
  void row_drained_done(Msg& m, Time now) { enter(m, SenderTransition::DrainedDone, now); }
  // DRAINED | request timeout | retransmit CREDIT_REQUEST | DRAINED
  void row_drained_request_timeout(Msg& m, Time now) {
    enter(m, SenderTransition::DrainedRequestTimeout, now);
    retransmit_request(m, now);
  }
  // any but DONE or ABORTED | CANCEL for the message; ERROR (MESSAGE_TOO_LARGE,
  // APPLICATION_ABORT, UNSUPPORTED_BINDING) for it; or ERROR (ASSOC_REFUSED) | release state |
  // ABORTED (abort() records the reason)
  void row_aborted(Msg& m, Time now) {
    Assoc& a = assoc_of(m);
    if (a.unsched_outstanding == m.handle) {
      // The receiver releases the reservation up to J + Grant Lifetime + 2 * D_max after the
      // request; until then another unscheduled message could exceed G_u. D_max is not known
      // here, so the SRTT stands in for it.
      a.unsched_outstanding.reset();
      a.unsched_blocked_until = m.request_sent + microseconds(a.params.start_jitter) +
                                microseconds(a.params.grant_lifetime) + srtt_or_default(a) * 2;
    }
    enter(m, SenderTransition::Aborted, now);
  }
  // WAITING | ERROR BUDGET_EXHAUSTED | keep the request outstanding | WAITING (its
  // retransmission timer keeps running)
  void row_waiting_budget_exhausted(Msg& m, Time now) {
    enter(m, SenderTransition::WaitingBudgetExhausted, now);
  }
  // Beyond the table. NEW | no ASSOC_REQUEST answered | "sends without it" | SCHEDULED
  void row_without_rdcc(Msg& m, Time now) {
    count_hint_weight(m, -1);
    m.without_rdcc = true;
    m.retx_at = Time::never();
    enter(m, SenderTransition::WithoutRdcc, now);
  }
  // SCHEDULED without RDCC | all octets transmitted (no MSG_DONE will come) | none | DONE
  void row_without_rdcc_done(Msg& m, Time now) { enter(m, SenderTransition::WithoutRdccDone, now); }
  // any live but NEW | ERROR (UNKNOWN_ASSOCIATION) or a new Epoch | "discard all credit ...,
  // re-establish it, and request credit again": the message restarts from offset zero (the
  // receiver's new state knows none of its octets) | WAITING
  void row_credit_dropped(Msg& m, Time now) {
    if (events.enabled())
      events.emit(now, "credit_dropped",
                  {{"handle", m.handle},
                   {"message_id", m.id},
                   {"grant_limit", m.limit},
                   {"transmitted", m.transmitted}});
    m.limit = 0;
    m.granted = false;
    m.expiry_handled = true;
    m.ceiling.reset();
    m.pool_end = 0;
    m.vtime = 0;
    m.transmitted = 0;
    m.resend.clear();
    m.announced_unsched = 0;
    m.retx_at = Time::never();
    m.pacer = Pacer{};
    enter(m, SenderTransition::CreditDropped, now);
  }
  // WAITING | the last octets went under pool credit reserved before | none | DRAINED
  void row_waiting_drained(Msg& m, Time now) {
    enter(m, SenderTransition::WaitingDrained, now);
    start_drained_timer(m, now);
  }

  // "DRAINED | request timeout | retransmit CREDIT_REQUEST" until MSG_DONE: the timer starts.
  void start_drained_timer(Msg& m, Time now) {
    m.rto = initial_rto(assoc_of(m));
    arm_retx(m, now + m.rto);
  }
  // A new CREDIT_REQUEST (not a retransmission: its answer gives an RTT sample), the request
  // timer starting afresh.
  void request_anew(Msg& m, Time now) {
    m.rto = initial_rto(assoc_of(m));
    send_credit_request(m, false, now);
    arm_retx(m, now + m.rto);
  }
  // "doubling on each retransmission up to 100 ms"
  void retransmit_request(Msg& m, Time now) {
    m.rto = std::min(m.rto * 2, config.max_request_timeout);
    send_credit_request(m, true, now);
    arm_retx(m, now + m.rto);
  }

  // ---- association phase and the sums kept over established associations ------------------

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

  // ---- arming timers (the heaps above) ----------------------------------------------------

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
  // Whether `at` is a time next_timeout() counts for m: one of its armed timers, or its random
  // start while that is still ahead.
  bool msg_wakes_at(const Msg& m, Time at) const {
    if (m.terminal() || m.without_rdcc || m.assoc->phase != Phase::Established) return false;
    return (!m.expiry_handled && m.valid_until == at) || m.retx_at == at ||
           (m.state == MessageState::Unsched && m.start_at == at && at > clock);
  }
  bool assoc_wakes_at(const Assoc& a, Time at) const {
    return (a.phase == Phase::Connecting && a.retx_at == at) ||
           (a.phase == Phase::Established && !a.pool_expiry_handled && a.pool_valid_until == at);
  }
  bool status_wakes_at(const Assoc& a, Time at) const {
    return episode && a.status_in_episode && a.phase == Phase::Established && a.status_next == at &&
           at > clock;
  }
  // m may have something of its own to send (sendable).
  void mark_may_send(Msg& m) {
    if (!m.terminal()) may_send.insert(&m);
  }

  // ---- sending control messages -------------------------------------------------------------

  void send(Assoc& a, Message m, Time now) {
    Header& h = header_of(m);
    if (!std::holds_alternative<AssocRequest>(m)) {
      h.association_id = a.association_id;
      h.epoch = a.epoch;
    }
    // "Incremented by one for each message the originator sends on the association ...,
    // including retransmissions." Never reset, so it never goes backwards for a receiver.
    h.sequence_number = a.next_seq++;
    policy->rewrite_outgoing(m);
    out.push(a.receiver, config.control_dscp, m);
    if (events.enabled()) {
      json f = to_json(m);
      f["to"] = a.receiver.to_string();
      events.emit(now, "tx", std::move(f));
    }
  }

  void send_assoc_request(Assoc& a, bool update_ack, Time now) {
    AssocRequest r;
    r.header.flags = update_ack ? flag::kUpdateAcknowledgment : std::uint16_t{0};
    r.sender_nonce = a.nonce;
    r.capabilities = config.capabilities;
    r.line_rate = config.line_rate_mbps;
    ++stats.assoc_requests_sent;
    send(a, r, now);
  }

  void send_credit_request(Msg& m, bool retransmission, Time now) {
    Assoc& a = assoc_of(m);
    CreditRequest r;
    r.message_id = m.id;
    r.message_length = m.spec.length;
    r.unscheduled_sent = m.announced_unsched;
    // We send the values a receiver must treat them as, never out-of-range ones.
    r.traffic_class = m.cls();
    r.weight = m.weight();
    r.service_hint = static_cast<std::uint8_t>(m.spec.service_hint);
    r.binding_kind = static_cast<std::uint8_t>(m.spec.binding);
    r.binding_value = binding_value(m);
    if (m.spec.deadline_us != 0) {
      // "relative to transmission of the request": what is left of it now; a passed deadline
      // is sent as 1 us (zero would mean "none").
      const std::int64_t left =
          static_cast<std::int64_t>(m.spec.deadline_us) - (now - m.submitted).micros();
      r.deadline = static_cast<std::uint32_t>(std::max<std::int64_t>(left, 1));
    }
    ++stats.credit_requests_sent;
    if (retransmission) {
      ++stats.credit_request_retransmissions;
      m.rtt_sample_pending = false;  // Karn: a retransmitted request gives no RTT sample
    } else {
      m.rtt_sample_pending = true;
      m.request_sent = now;
    }
    send(a, r, now);
  }

  std::uint64_t binding_value(const Msg& m) const {
    if (m.spec.binding == BindingKind::Opaque && m.spec.binding_value == 0) return m.id;
    return m.spec.binding_value;
  }

  // ---- association establishment ------------------------------------------------------------

  void start_establishment(Assoc& a, Time now) {
    set_phase(a, Phase::Connecting);
    if (!a.was_established || policy->fresh_nonce_on_reestablishment()) {
      a.nonce = random.next_u64();  // "MUST be generated by a cryptographically secure" RNG
    }
    if (a.was_established) {
      // "Message IDs MUST increase with each new message of an association and MUST NOT be
      // reused within it": the new association may start anywhere above zero.
      a.next_message_id = std::max<std::uint64_t>(
          1, policy->first_message_id_on_reestablishment(a.next_message_id));
    }
    a.attempts = 0;
    a.association_id = 0;
    a.epoch = 0;
    a.retx_timeout = config.assoc_initial_timeout;
    if (events.enabled())
      events.emit(now, "association_connecting", {{"receiver", a.receiver.to_string()}});
    assoc_attempt(a, now);
  }

  void assoc_attempt(Assoc& a, Time now) {
    ++a.attempts;
    a.last_attempt = now;
    if (events.enabled()) {
      events.emit(
          now, "assoc_attempt",
          {{"receiver", a.receiver.to_string()}, {"attempt", a.attempts}, {"nonce", a.nonce}});
    }
    send_assoc_request(a, false, now);
    arm_assoc_retx(a, now + a.retx_timeout);
    a.retx_timeout = a.retx_timeout * 2;
  }

  void assoc_timeout(Assoc& a, Time now) {
    if (a.attempts < config.assoc_max_attempts) {
      assoc_attempt(a, now);
      return;
    }
    if (a.was_established) {
      // Re-establishing with a receiver that has spoken RDCC: it does support RDCC, so the
      // fallback does not apply. Sending without credit toward a receiver that lost its state
      // would be the least safe choice; keep asking, at most once a second, and hold the
      // messages in WAITING (docs/spec-notes.md).
      a.retx_timeout = std::min(a.retx_timeout, seconds(1));
      assoc_attempt(a, now);
      a.retx_timeout = std::min(a.retx_timeout, seconds(1));
      return;
    }
    // "if none is answered, the sender concludes that the receiver does not support RDCC and
    // sends without it."
    set_phase(a, Phase::WithoutRdcc);
    a.retx_at = Time::never();
    ++stats.associations_failed;
    if (events.enabled())
      events.emit(now, "association_failed",
                  {{"receiver", a.receiver.to_string()}, {"attempts", a.attempts}});
    for_each_msg(a, [&](Msg& m) { go_without_rdcc(m, now); });
  }

  void go_without_rdcc(Msg& m, Time now) {
    fire(m, SenderTransition::WithoutRdcc, now);
    if (m.spec.length == 0) fire(m, SenderTransition::WithoutRdccDone, now);
  }

  void apply_params(Assoc& a, const AssocAccept& acc) {
    if (a.phase == Phase::Established) {
      established_thresholds.erase(established_thresholds.find(a.params.backlog_threshold));
      established_thresholds.insert(acc.backlog_threshold);
    }
    a.params = acc;
  }
  // An event's fields followed by the association parameters `acc` carries.
  static json with_params(json fields, const AssocAccept& acc) {
    fields["unscheduled_limit"] = acc.unscheduled_limit;
    fields["start_jitter"] = acc.start_jitter;
    fields["backlog_threshold"] = acc.backlog_threshold;
    fields["grant_lifetime"] = acc.grant_lifetime;
    fields["credit_unit"] = acc.credit_unit;
    return fields;
  }

  void establish(Assoc& a, const AssocAccept& acc, bool sample_rtt, Time now) {
    set_phase(a, Phase::Established);
    a.was_established = true;
    a.association_id = acc.header.association_id;
    a.epoch = acc.header.epoch;
    a.newest_seq = acc.header.sequence_number;
    a.retx_at = Time::never();
    apply_params(a, acc);
    // The initial SRTT comes from the association exchange: the time since the last attempt
    // (never longer than the true round trip of whichever attempt was answered).
    if (sample_rtt) rtt_sample(a, now - a.last_attempt, now);
    ++stats.associations_established;
    if (events.enabled())
      events.emit(now, "association_established",
                  with_params({{"receiver", a.receiver.to_string()},
                               {"association_id", a.association_id},
                               {"epoch", a.epoch}},
                              acc));
    if (acc.parameter_update()) acknowledge_update(a, acc, now);
    for_each_msg(a, [&](Msg& m) {
      if (m.state == MessageState::New) {
        select_mode(m, now);
      } else {
        rerequest(m, now);
      }
      mark_may_send(m);
    });
  }

  void acknowledge_update(Assoc& a, const AssocAccept& acc, Time now) {
    apply_params(a, acc);
    ++stats.parameter_updates;
    if (events.enabled())
      events.emit(now, "parameter_update",
                  with_params({{"receiver", a.receiver.to_string()}}, acc));
    // "The sender acknowledges it by sending ASSOC_REQUEST with the same Sender Nonce and the
    // Update Acknowledgment flag."
    send_assoc_request(a, true, now);
  }

  // "MUST discard all credit held for that association": credit, pool, the unscheduled slot.
  // Pending messages restart from offset zero: the receiver's new state knows none of their
  // octets, so only a complete retransmission can let it count them all.
  void drop_association_credit(Assoc& a, Time now) {
    a.pool_limit = 0;
    a.pool_sent = 0;
    a.pool_rate = 0;
    a.pool_expiry_handled = true;
    a.pool_valid_until = Time{};
    a.pool_pacer = Pacer{};
    a.class_vclock = {};
    a.unsched_outstanding.reset();
    a.unsched_blocked_until = Time{};
    a.status_in_episode = false;
    for_each_msg(a, [&](Msg& m) {
      if (m.state != MessageState::New) fire(m, SenderTransition::CreditDropped, now);
    });
  }

  void begin_reestablishment(Assoc& a, const char* why, Time now) {
    ++stats.re_establishments;
    if (events.enabled())
      events.emit(now, "re_establishment",
                  {{"receiver", a.receiver.to_string()},
                   {"association_id", a.association_id},
                   {"epoch", a.epoch},
                   {"reason", why}});
    drop_association_credit(a, now);
    a.newest_seq.reset();
    start_establishment(a, now);
  }

  // A pending message in the new association: a new Message ID (old data still in flight is
  // never counted for it), scheduled mode, a fresh CREDIT_REQUEST.
  void rerequest(Msg& m, Time now) {
    Assoc& a = assoc_of(m);
    set_id(m, a.next_message_id++);
    m.rto = initial_rto(a);
    send_credit_request(m, false, now);
    refresh_state(m, now);
  }

  // ---- transmission mode selection ----------------------------------------------------------

  void select_mode(Msg& m, Time now) {
    Assoc& a = assoc_of(m);
    set_id(m, a.next_message_id);
    a.next_message_id += policy->message_id_step();
    m.rto = initial_rto(a);
    const std::uint32_t u = a.params.unscheduled_limit;
    const bool unscheduled =
        config.allow_unscheduled && !m.spec.force_scheduled && u > 0 && m.spec.length <= u &&
        (!a.unsched_outstanding || !policy->one_unscheduled_outstanding()) &&
        now >= a.unsched_blocked_until && policy->use_unscheduled(m.spec.length);
    if (unscheduled) {
      fire(m, SenderTransition::NewUnscheduled, now);
      if (m.spec.length == 0) drained(m, now);
      return;
    }
    fire(m, SenderTransition::NewScheduled, now);
    refresh_state(m, now);
  }

  // ---- credit -------------------------------------------------------------------------------

  bool own_valid(const Msg& m, Time t) const { return m.granted && t < m.valid_until; }
  std::uint64_t own_limit(const Msg& m) const { return std::min(m.limit, m.end()); }
  bool pool_valid(const Assoc& a, Time t) const {
    return a.pool_rate != 0 && t < a.pool_valid_until;
  }
  std::uint64_t pool_reserved(const Assoc& a) const {
    std::uint64_t r = 0;
    for_each_msg(a, [&](const Msg& m) {
      if (m.pool_end > m.transmitted) r += m.pool_end - m.transmitted;
    });
    return r;
  }
  std::uint64_t pool_remaining(const Assoc& a) const {
    const std::uint64_t used = a.pool_sent + pool_reserved(a);
    return a.pool_limit > used ? a.pool_limit - used : 0;
  }
  // Scheduled messages share a pool grant; an unscheduled one is not covered by it.
  static bool pool_member(const Msg& m) {
    return !m.without_rdcc &&
           (m.state == MessageState::Waiting || m.state == MessageState::Scheduled);
  }
  bool holds_credit(const Msg& m, Time t) const {
    if (m.transmitted >= m.end()) return false;
    if (own_valid(m, t) && own_limit(m) > m.transmitted) return true;
    const Assoc& a = assoc_of(m);
    if (!pool_valid(a, t)) return false;
    return m.pool_end > m.transmitted || pool_remaining(a) > 0;
  }
  // All octets transmitted: the row of the state m is in.
  void drained(Msg& m, Time now) {
    fire(m,
         m.state == MessageState::Unsched     ? SenderTransition::UnschedDrained
         : m.state == MessageState::Scheduled ? SenderTransition::ScheduledDrained
                                              : SenderTransition::WaitingDrained,
         now);
  }

  // WAITING <-> SCHEDULED -> DRAINED, from the credit held now.
  void refresh_state(Msg& m, Time now) {
    if (m.state != MessageState::Waiting && m.state != MessageState::Scheduled) return;
    if (m.without_rdcc) return;
    if (m.transmitted >= m.spec.length) {
      drained(m, now);
      return;
    }
    if (holds_credit(m, now)) {
      if (m.state == MessageState::Waiting) fire(m, SenderTransition::WaitingGranted, now);
      m.retx_at = Time::never();
      return;
    }
    const bool was_scheduled = m.state == MessageState::Scheduled;
    if (was_scheduled) fire(m, SenderTransition::ScheduledLimitReached, now);
    if (m.transmitted >= m.end()) {
      // Everything up to the CREDIT_RETURN offset is sent: asking for more would only make
      // the receiver issue credit this message promised not to use.
      m.retx_at = Time::never();
      return;
    }
    if (was_scheduled || m.retx_at == Time::never()) {
      arm_retx(m, now + m.rto);
    }
  }

  void refresh_pool_members(Assoc& a, Time now) {
    for_each_msg(a, [&](Msg& m) {
      if (pool_member(m)) refresh_state(m, now);
    });
  }

  void on_grant(Assoc& a, const CreditGrant& g, Time now) {
    if (!policy->use_grant(g.pacing_rate)) {
      // "a sender that receives a grant with Pacing Rate zero MUST ignore it."
      ++stats.grants_ignored;
      if (events.enabled())
        events.emit(now, "grant_ignored",
                    {{"message_id", g.message_id}, {"reason", "zero_pacing_rate"}});
      return;
    }
    const Duration lifetime = microseconds(
        g.effective_lifetime(a.params.grant_lifetime));  // "measured from its reception"
    if (g.pool() || g.message_id == 0) {
      if (!(g.pool() && g.message_id == 0 && (config.capabilities & capability::kPool) != 0)) {
        ++stats.grants_ignored;
        if (events.enabled())
          events.emit(now, "grant_ignored",
                      {{"message_id", g.message_id}, {"reason", "bad_pool_grant"}});
        return;
      }
      ++stats.grants_received;
      if (g.grant_limit > a.pool_limit) {
        stats.credit_granted += g.grant_limit - a.pool_limit;
        a.pool_limit = g.grant_limit;
      }
      arm_pool_expiry(a, now + lifetime);
      a.pool_rate = g.pacing_rate;
      pool_holders.insert(&a);
      for_each_msg(a, [&](Msg& m) { mark_may_send(m); });
      if (events.enabled())
        events.emit(
            now, "pool_grant",
            {{"limit", a.pool_limit}, {"rate", g.pacing_rate}, {"lifetime_us", lifetime.micros()}});
      refresh_pool_members(a, now);
      return;
    }
    Msg* m = find_msg(a, g.message_id);
    if (m == nullptr || m->terminal()) {
      ++stats.grants_ignored;
      if (events.enabled())
        events.emit(now, "grant_ignored",
                    {{"message_id", g.message_id}, {"reason", "unknown_message"}});
      return;
    }
    ++stats.grants_received;
    if (g.grant_limit > m->spec.length) {
      ++stats.grants_beyond_length;
      if (events.enabled())
        events.emit(now, "grant_beyond_length",
                    {{"message_id", m->id}, {"limit", g.grant_limit}, {"length", m->spec.length}});
    }
    // Whether the grant gives the message credit it cannot use now: a higher limit, or unsent
    // credit made usable again after its Lifetime elapsed. Only such a grant restarts the
    // request timeout; one that adds nothing (a receiver restating the limit while the data
    // is lost) leaves it doubling ("doubling on each retransmission up to 100 ms"), so a dead
    // data path never turns into a storm of requests (docs/spec-notes.md, "A grant that adds
    // no credit does not restart the request timeout").
    const bool adds_credit = std::min(g.grant_limit, m->end()) >
                             std::max(m->transmitted, own_valid(*m, now) ? own_limit(*m) : 0);
    // Rule 1: cumulative; a grant not larger than the held limit only refreshes Lifetime and
    // Pacing Rate and never reduces credit.
    if (g.grant_limit > m->limit) {
      stats.credit_granted +=
          std::min(g.grant_limit, m->spec.length) - std::min(m->limit, m->spec.length);
      m->limit = g.grant_limit;
    } else if (policy->lower_limit_lowers_credit()) {
      m->limit = g.grant_limit;
    } else {
      if (events.enabled())
        events.emit(now, "grant_refresh",
                    {{"message_id", m->id}, {"held", m->limit}, {"limit", g.grant_limit}});
    }
    arm_expiry(*m, policy->grant_valid_until(now, lifetime));
    m->rate = g.usable() ? g.pacing_rate : config.line_rate_mbps;
    m->granted = true;
    mark_may_send(*m);
    if (!m->in_credit_holders) {
      m->in_credit_holders = true;
      credit_holders.push_back(m->handle);
    }
    if (adds_credit) m->rto = initial_rto(a);
    if (events.enabled())
      events.emit(now, "grant",
                  {{"message_id", m->id},
                   {"limit", m->limit},
                   {"rate", m->rate},
                   {"lifetime_us", lifetime.micros()}});
    if (m->rtt_sample_pending) {
      m->rtt_sample_pending = false;
      rtt_sample(a, now - m->request_sent, now);
    }
    // "an unscheduled message stops being outstanding when the sender receives MSG_DONE or a
    // CREDIT_GRANT for it"
    if (a.unsched_outstanding == m->handle) a.unsched_outstanding.reset();
    refresh_state(*m, now);
  }

  // ---- timers -------------------------------------------------------------------------------

  void expire_own(Msg& m, Time now) {
    m.expiry_handled = true;
    const std::uint64_t lim = own_limit(m);
    if (m.state == MessageState::Drained || lim <= m.transmitted) return;
    stats.credit_expired += lim - m.transmitted;
    if (events.enabled())
      events.emit(now, "grant_expired",
                  {{"message_id", m.id}, {"limit", m.limit}, {"transmitted", m.transmitted}});
    if (m.state != MessageState::Scheduled && m.state != MessageState::Waiting) return;
    if (holds_credit(m, now)) return;  // pool credit still covers it
    fire(m, SenderTransition::ScheduledLifetimeElapsed, now);
  }

  void expire_pool(Assoc& a, Time now) {
    a.pool_expiry_handled = true;
    const std::uint64_t unused = a.pool_limit - a.pool_sent;
    stats.credit_expired += unused;
    if (events.enabled())
      events.emit(now, "pool_expired", {{"limit", a.pool_limit}, {"sent", a.pool_sent}});
    for_each_msg(a, [&](Msg& m) {
      m.pool_end = std::min(m.pool_end, m.transmitted);
      if (m.state != MessageState::Scheduled || holds_credit(m, now)) return;
      fire(m, SenderTransition::ScheduledLifetimeElapsed, now);
    });
  }

  void request_timeout(Msg& m, Time now) {
    if (m.state == MessageState::Waiting && holds_credit(m, now)) {
      m.retx_at = Time::never();
      return;
    }
    if (m.state == MessageState::Waiting) {
      fire(m, SenderTransition::WaitingRequestTimeout, now);
    } else if (m.state == MessageState::Drained) {
      fire(m, SenderTransition::DrainedRequestTimeout, now);
    } else {
      retransmit_request(m, now);  // no row names another state with its timer armed
    }
  }

  void advance(Time now) {
    planned.reset();  // every event but poll_data starts here
    sweep();
    clock = std::max(clock, now);
    // The due timers from the heaps' tops, served as a walk over every association (by
    // address), then every message (by handle), would serve them.
    due_assocs.clear();
    while (!assoc_timers.empty() && assoc_timers.top().at <= now) {
      due_assocs.push_back(assoc_timers.top().assoc);
      assoc_timers.pop();
    }
    std::sort(due_assocs.begin(), due_assocs.end(), AssocLess{});
    due_assocs.erase(std::unique(due_assocs.begin(), due_assocs.end()), due_assocs.end());
    for (Assoc* ap : due_assocs) {
      Assoc& a = *ap;
      if (a.phase == Phase::Connecting && a.retx_at <= now) assoc_timeout(a, now);
      if (a.phase == Phase::Established && !a.pool_expiry_handled && a.pool_valid_until <= now) {
        expire_pool(a, now);
      }
    }
    due_msgs.clear();
    while (!msg_timers.empty() && msg_timers.top().at <= now) {
      due_msgs.push_back(msg_timers.top().handle);
      msg_timers.pop();
    }
    std::sort(due_msgs.begin(), due_msgs.end());
    due_msgs.erase(std::unique(due_msgs.begin(), due_msgs.end()), due_msgs.end());
    for (const MessageHandle h : due_msgs) {
      Msg* found = msg_of(h);
      if (found == nullptr) continue;
      Msg& m = *found;
      if (m.terminal() || m.without_rdcc) continue;
      const Assoc& a = assoc_of(m);
      if (a.phase != Phase::Established) continue;
      if (!m.expiry_handled && m.valid_until <= now) expire_own(m, now);
      if (m.retx_at <= now) request_timeout(m, now);
    }
    update_backlog(now);
  }

  // ---- data ---------------------------------------------------------------------------------

  // The segment of m's own to plan at t, into p; false: none.
  bool plan_own(Msg& m, Time t, Plan& p) {
    if (!m.resend.empty() && plan_resend(m, t, p)) return pace(p);
    if (m.terminal() || m.transmitted >= m.spec.length) return false;
    Assoc& a = assoc_of(m);
    p = Plan{};
    p.msg = &m;
    p.cu = credit_unit(a);
    if (m.without_rdcc) {
      p.len = segment_length(p.cu, m.spec.length - m.transmitted);
      p.rate = config.line_rate_mbps;
      p.pacer = &line_pacer;
    } else if (m.state == MessageState::Unsched) {
      // "Unscheduled Transmission" item 1: nothing before the random start delay.
      if (t < m.start_at) return false;
      p.len = segment_length(p.cu, m.spec.length - m.transmitted);
      p.unscheduled = true;
      if (own_valid(m, t)) {
        p.rate = std::min<std::uint64_t>(m.rate, config.line_rate_mbps);
        p.pacer = &m.pacer;
      } else {
        p.rate = config.line_rate_mbps;
        p.pacer = &line_pacer;
      }
    } else if (m.state == MessageState::Waiting || m.state == MessageState::Scheduled) {
      if (a.phase != Phase::Established) return false;
      const auto [unit_start, unit_end] = m.unit();
      if (m.pool_end > m.transmitted && pool_valid(a, t)) {
        // The rest of a post unit already reserved from the pool.
        std::uint64_t sendable = std::min(m.pool_end - m.transmitted, unit_end - m.transmitted);
        p.from_pool = true;
        p.reserve_to = m.pool_end;
        p.rate = a.pool_rate;
        p.pacer = &a.pool_pacer;
        if (own_valid(m, t) && own_limit(m) > m.transmitted) {
          // Rule 4, "MUST NOT transmit the message faster than the Pacing Rate": the octets
          // below the Grant Limit of the message's own grant keep that grant's pace as well as
          // the pool's (docs/spec-notes.md, 82).
          sendable = std::min(sendable, own_limit(m) - m.transmitted);
          p.also = &m.pacer;
          p.also_rate = m.rate;
        }
        p.len = segment_length(p.cu, sendable);
      } else if (const std::uint64_t lim = policy->transmit_limit(own_limit(m), p.cu, m.end());
                 own_valid(m, t) && lim > m.transmitted) {
        // RoCEv2: "posts each one only when it holds credit for all of its octets".
        if (m.spec.post_unit != 0 && m.transmitted == unit_start && unit_end > lim) {
          return false;
        }
        p.len = segment_length(p.cu, std::min(lim - m.transmitted, unit_end - m.transmitted));
        p.rate = policy->pacing_rate(m.rate, config.line_rate_mbps);
        p.pacer = &m.pacer;
      } else if (policy->send_before_credit() && m.transmitted == 0 && !m.granted) {
        p.len = std::min<std::uint64_t>(p.cu, m.spec.length);
        p.rate = config.line_rate_mbps;
        p.pacer = &line_pacer;
      } else {
        return false;
      }
    } else {
      return false;
    }
    return pace(p);
  }

  // When the planned segment is ready: its pacers' due time; false if it has no octets.
  bool pace(Plan& p) const {
    if (p.len == 0) return false;
    const bool spaced = policy->space_segments();
    p.ready = p.pacer->ready(p.rate, p.cu, p.len, spaced);
    if (p.also != nullptr) {
      p.ready = std::max(p.ready, p.also->ready(p.also_rate, p.cu, p.len, spaced));
    }
    return true;
  }

  // The first octets a NACK named, under a live grant that covers them: "If the data transport
  // retransmits octets already transmitted, those octets remain within the existing Grant
  // Limit, because the receiver has not counted them as received" (Sender Message State
  // Machine). The message's own grant if it covers them, else a live pool grant (its octets
  // already count in the pool's); paced like new octets. Nothing else lets them go: no
  // unscheduled resend, and none under an expired grant (rule 3).
  bool plan_resend(Msg& m, Time t, Plan& p) {
    if (m.terminal() || m.without_rdcc) return false;
    Assoc& a = assoc_of(m);
    if (a.phase != Phase::Established) return false;
    const OctetRange r = *m.resend.first();
    p = Plan{};
    p.msg = &m;
    p.cu = credit_unit(a);
    p.resend = true;
    p.offset = r.lo;
    if (own_valid(m, t) && r.lo < own_limit(m)) {
      p.len = segment_length(p.cu, std::min(r.hi, own_limit(m)) - r.lo);
      p.rate = m.rate;
      p.pacer = &m.pacer;
    } else if (pool_valid(a, t) && !m.granted) {
      p.len = segment_length(p.cu, r.hi - r.lo);
      p.rate = a.pool_rate;
      p.pacer = &a.pool_pacer;
    } else {
      return false;
    }
    return true;
  }

  // "classes are served in strict priority order from 0 to 7, and within a class credit is
  // divided in proportion to the weights ..., using a work-conserving weighted round-robin."
  // The round-robin is start-time fair: each message carries a virtual time advanced by
  // octets / weight; the eligible message with the smallest one goes next.
  bool plan_pool(Assoc& a, Time t, Plan& p) {
    if (a.phase != Phase::Established || !pool_valid(a, t)) return false;
    const std::uint64_t remaining = pool_remaining(a);
    if (remaining == 0) return false;
    const std::uint64_t cu = credit_unit(a);
    // One walk for every class: each class's candidate is its first message with the
    // smallest virtual time.
    struct Candidate {
      Msg* msg = nullptr;
      std::uint64_t vt = 0;
      std::uint64_t chunk = 0;
    };
    std::array<Candidate, kMaxTrafficClass + 1> best{};
    for_each_msg(a, [&](Msg& m) {
      if (!pool_member(m) || m.transmitted >= m.end()) return;
      if (m.pool_end > m.transmitted) return;                       // has a reservation
      if (own_valid(m, t) && own_limit(m) > m.transmitted) return;  // uses its own credit
      const auto [unit_start, unit_end] = m.unit();
      std::uint64_t chunk = 0;
      if (m.spec.post_unit != 0) {
        if (unit_end > m.end() || unit_end - m.transmitted > remaining) return;
        chunk = unit_end - m.transmitted;
      } else {
        chunk = segment_length(cu, std::min(remaining, m.end() - m.transmitted));
      }
      const std::size_t c = m.cls();
      const std::uint64_t vt = std::max(m.vtime, a.class_vclock[c]);
      if (best[c].msg == nullptr || vt < best[c].vt) best[c] = {&m, vt, chunk};
    });
    for (const Candidate& b : best) {
      if (b.msg == nullptr) continue;
      p = Plan{};
      p.msg = b.msg;
      p.cu = cu;
      p.from_pool = true;
      p.reserve_to = b.msg->transmitted + b.chunk;
      p.len = segment_length(cu, b.chunk);
      p.rate = a.pool_rate;
      p.pacer = &a.pool_pacer;
      p.ready = p.pacer->ready(p.rate, p.cu, p.len, policy->space_segments());
      return true;  // strict priority: a lower class waits even if this one is paced
    }
    return false;
  }

  // The segment poll_data sends at t: the first message's own segment ready at t (in
  // submission order), else the first association's pool segment ready at t. Without one,
  // the pacers holding a planned segment back are the ones the next pacing wake-up is for
  // (Pacer::held; every other pacer is idle), and `planned` keeps when the first of those
  // segments becomes ready, for next_timeout(): one walk over the plans, not three.
  Plan* ready_plan(Time t) {
    held.clear();
    std::optional<Time> earliest;
    Plan& p = scratch;
    for (auto it = may_send.begin(); it != may_send.end();) {
      if (plan_own(**it, t, p)) {
        if (ready_or_held(p, t, earliest)) return &p;
        ++it;
      } else {
        it = drop_unsendable(it, t);
      }
    }
    for (auto it = pool_holders.begin(); it != pool_holders.end();) {
      if (plan_pool(**it, t, p)) {
        if (ready_or_held(p, t, earliest)) return &p;
        ++it;
      } else {
        it = drop_poolless(it, t);
      }
    }
    // Only the pacers the last such poll marked can be held (nothing else sets the flag).
    for (Pacer* h : was_held) h->held = false;
    for (Pacer* h : held) h->held = true;
    std::swap(held, was_held);
    if (t == clock) planned = Planned{clock, earliest};
    return nullptr;
  }
  // Whether the planned segment p is ready at t; if not, its pacers hold it back until p.ready.
  bool ready_or_held(const Plan& p, Time t, std::optional<Time>& earliest) {
    if (p.ready <= t) return true;
    held.push_back(p.pacer);
    if (p.also != nullptr) held.push_back(p.also);
    earliest = earliest ? std::min(*earliest, p.ready) : p.ready;
    return false;
  }

  // A message plan_own found nothing for at t leaves `may_send` unless time alone can give
  // it something (its random start is ahead); only at the clock, as an earlier t may see
  // credit that has since expired. Returns the next message.
  std::set<Msg*, HandleLess>::iterator drop_unsendable(std::set<Msg*, HandleLess>::iterator it,
                                                       Time t) {
    const Msg& m = **it;
    if (t < clock || (m.state == MessageState::Unsched && t < m.start_at)) return std::next(it);
    return may_send.erase(it);
  }
  // Likewise an association without a live pool grant leaves `pool_holders` (only a new pool
  // grant gives it one again).
  std::set<Assoc*, AssocLess>::iterator drop_poolless(std::set<Assoc*, AssocLess>::iterator it,
                                                      Time t) {
    const Assoc& a = **it;
    if (t < clock || (a.phase == Phase::Established && pool_valid(a, t))) return std::next(it);
    return pool_holders.erase(it);
  }

  // When the first planned segment becomes ready at t (none: nothing is planned).
  std::optional<Time> earliest_plan(Time t) {
    std::optional<Time> earliest;
    Plan p;
    const auto consider = [&](const Plan& q) {
      earliest = earliest ? std::min(*earliest, q.ready) : q.ready;
    };
    for (auto it = may_send.begin(); it != may_send.end();) {
      if (plan_own(**it, t, p)) {
        consider(p);
        ++it;
      } else {
        it = drop_unsendable(it, t);
      }
    }
    for (auto it = pool_holders.begin(); it != pool_holders.end();) {
      if (plan_pool(**it, t, p)) {
        consider(p);
        ++it;
      } else {
        it = drop_poolless(it, t);
      }
    }
    return earliest;
  }

  // A segment of octets sent before, which a NACK named: the message's progress, the pool's
  // use and the state are what they were.
  DataSegment emit_resend(Plan& p, Time now) {
    Msg& m = *p.msg;
    DataSegment s;
    s.receiver = m.spec.receiver;
    s.association_id = assoc_of(m).association_id;
    s.message_id = m.id;
    s.offset = p.offset;
    s.length = static_cast<std::uint32_t>(p.len);
    s.traffic_class = m.cls();
    s.dscp = config.class_dscp[m.cls()];
    s.binding = m.spec.binding;
    s.binding_value = binding_value(m);
    s.last = p.offset + p.len == m.spec.length;
    s.recovers = true;
    s.resend = true;
    m.resend.remove(p.offset, p.offset + p.len);
    p.pacer->record(now, p.ready, p.len, p.rate, p.cu);
    stats.resent_octets += p.len;
    if (events.enabled()) {
      events.emit(now, "data",
                  {{"message_id", m.id},
                   {"offset", s.offset},
                   {"length", s.length},
                   {"unscheduled", false},
                   {"pool", p.pacer != &m.pacer},
                   {"rate", p.rate},
                   {"resend", true}});
    }
    return s;
  }

  DataSegment emit(Plan& p, Time now) {
    if (p.resend) return emit_resend(p, now);
    Msg& m = *p.msg;
    Assoc& a = assoc_of(m);
    DataSegment s;
    s.receiver = m.spec.receiver;
    s.association_id = m.without_rdcc ? 0 : a.association_id;
    s.message_id = m.id;
    s.offset = m.transmitted;
    s.length = static_cast<std::uint32_t>(p.len);
    s.unscheduled = p.unscheduled;
    s.traffic_class = m.cls();
    // "MUST mark the data packets with the DSCP that the domain configures for unscheduled
    // RDCC traffic, if one is configured"; otherwise the class's DSCP.
    s.dscp = p.unscheduled && config.unscheduled_dscp ? *config.unscheduled_dscp
                                                      : config.class_dscp[m.cls()];
    s.binding = m.spec.binding;
    s.binding_value = binding_value(m);
    s.last = m.transmitted + p.len == m.spec.length;
    s.recovers = s.binding == BindingKind::Opaque;
    check_segment(m, p, now);
    if (p.from_pool) {
      if (m.pool_end < p.reserve_to) {
        const std::uint64_t chunk = p.reserve_to - m.transmitted;
        const std::uint64_t c = m.cls();
        a.class_vclock[c] = std::max(m.vtime, a.class_vclock[c]);
        m.vtime = a.class_vclock[c] + chunk * kWrrScale / m.weight();
        m.pool_end = p.reserve_to;
        mark_may_send(m);  // plan_own sends the rest of the reservation
      }
      a.pool_sent += p.len;
    }
    p.pacer->record(now, p.ready, p.len, p.rate, p.cu);
    if (p.also != nullptr) p.also->record(now, p.ready, p.len, p.also_rate, p.cu);
    m.transmitted += p.len;
    if (m.without_rdcc) {
      stats.without_rdcc_octets += p.len;
    } else if (p.unscheduled) {
      stats.unscheduled_octets += p.len;
    } else {
      stats.scheduled_octets += p.len;
    }
    if (events.enabled()) {
      events.emit(now, "data",
                  {{"message_id", m.id},
                   {"offset", s.offset},
                   {"length", s.length},
                   {"unscheduled", s.unscheduled},
                   {"pool", p.from_pool},
                   {"rate", p.rate}});
    }
    if (m.request_deferred) {
      m.request_deferred = false;
      send_credit_request(m, false, now);
    }
    after_transmission(m, p, now);
    return s;
  }

  void after_transmission(Msg& m, const Plan& p, Time now) {
    if (m.without_rdcc) {
      if (m.transmitted >= m.spec.length) fire(m, SenderTransition::WithoutRdccDone, now);
      return;
    }
    if (m.state == MessageState::Unsched) {
      if (m.transmitted >= m.spec.length) drained(m, now);
      return;
    }
    // "SCHEDULED | Grant Limit reached before message end | none | WAITING" (no message: the
    // request timer starts now).
    refresh_state(m, now);
    if (p.from_pool) refresh_pool_members(assoc_of(m), now);
  }

  // Our own invariant ("Credit Requests and Grants", rule 2): every octet is covered.
  void check_segment(const Msg& m, const Plan& p, Time now) {
    const std::uint64_t end = m.transmitted + p.len;
    bool ok = end <= m.spec.length;
    if (m.without_rdcc || p.unscheduled) {
      // Unscheduled: the request announced the whole message ("Unscheduled Sent = length").
      ok = ok && (m.without_rdcc || m.announced_unsched == m.spec.length);
    } else if (p.from_pool) {
      ok = ok && pool_valid(assoc_of(m), now) && end <= p.reserve_to &&
           assoc_of(m).pool_sent + p.len <= assoc_of(m).pool_limit;
    } else {
      ok = ok && own_valid(m, now) && end <= own_limit(m);
    }
    if (!ok) {
      ++stats.invariant_violations;
      if (events.enabled())
        events.emit(now, "invariant_violation",
                    {{"message_id", m.id}, {"offset", m.transmitted}, {"length", p.len}});
    }
  }

  // ---- unscheduled conversion ---------------------------------------------------------------

  void convert(Msg& m, const char* why, Time now) {
    if (events.enabled())
      events.emit(now, "unscheduled_converted",
                  {{"message_id", m.id}, {"transmitted", m.transmitted}, {"reason", why}});
    fire(m, SenderTransition::UnschedStopped, now);
  }

  void on_report(const Address& from, const CongestionReport& r, Time now) {
    const bool from_crn = policy->trust_report_source(
        std::any_of(config.crn_addresses.begin(), config.crn_addresses.end(),
                    [&](const Address& c) { return c.same_host(from); }));
    if (!from_crn) {
      // "An endpoint MUST ignore reports whose source address is not within the set of CRN
      // addresses configured for the domain."
      ++stats.reports_ignored;
      if (events.enabled())
        events.emit(now, "report_ignored", {{"from", from.to_string()}, {"reason", "not_a_crn"}});
      return;
    }
    ++stats.reports_received;
    const std::size_t n = r.address_size();
    const bool ours = r.ipv6() == config.local.ipv6 &&
                      std::equal(r.source_address.begin(),
                                 r.source_address.begin() + static_cast<std::ptrdiff_t>(n),
                                 config.local.ip.begin());
    if (r.direction != static_cast<std::uint8_t>(ReportDirection::ToSender) || !ours) {
      if (events.enabled())
        events.emit(now, "report_ignored",
                    {{"from", from.to_string()}, {"reason", "not_addressed_to_us"}});
      return;
    }
    if (events.enabled())
      events.emit(now, "report", {{"reporter_id", r.reporter_id}, {"degree", r.congestion_degree}});
    if (!policy->act_on_report()) return;
    // A report only ever stops unscheduled transmission: "An endpoint MUST NOT increase any
    // rate or credit in response to a CONGESTION_REPORT."
    for (auto& [address, a] : assocs) {
      if (a.receiver.ipv6 != r.ipv6() ||
          !std::equal(r.destination_address.begin(),
                      r.destination_address.begin() + static_cast<std::ptrdiff_t>(n),
                      a.receiver.ip.begin())) {
        continue;
      }
      for_each_msg(a, [&](Msg& m) {
        if (m.state == MessageState::Unsched) convert(m, "congestion_report", now);
      });
    }
  }

  // ---- incoming messages --------------------------------------------------------------------

  // Association ID, Epoch and "MUST discard a message of an association whose Sequence
  // Number is not newer, in serial number arithmetic, than the newest one it has already
  // processed from the same originator on that association."
  bool accept_header(Assoc& a, const Message& msg, Time now) {
    const Header& h = header_of(msg);
    const std::string type{info(type_of(msg)).name};
    if (a.phase != Phase::Established || h.association_id != a.association_id ||
        h.epoch != a.epoch) {
      ++stats.wrong_association;
      if (events.enabled())
        events.emit(now, "discarded",
                    {{"type", type},
                     {"reason", "wrong_association"},
                     {"association_id", h.association_id},
                     {"epoch", h.epoch}});
      return false;
    }
    const bool newer = !a.newest_seq || policy->newer_sequence(h.sequence_number, *a.newest_seq);
    if (!newer) {
      ++stats.stale_discarded;
      if (events.enabled())
        events.emit(now, "discarded",
                    {{"type", type},
                     {"reason", "stale_sequence"},
                     {"sequence_number", h.sequence_number},
                     {"newest", *a.newest_seq}});
      return false;
    }
    a.newest_seq = h.sequence_number;
    return true;
  }

  void on_accept(Assoc& a, const AssocAccept& acc, Time now) {
    const bool nonce_live = a.phase == Phase::Connecting || a.phase == Phase::Established;
    const bool nonce_ok = policy->nonce_echoed(acc.sender_nonce, a.nonce);
    if (!nonce_live || !nonce_ok || acc.header.association_id == 0) {
      ++stats.nonce_mismatch;
      if (events.enabled())
        events.emit(now, "discarded",
                    {{"type", "ASSOC_ACCEPT"},
                     {"reason", "nonce_mismatch"},
                     {"sender_nonce", acc.sender_nonce}});
      return;
    }
    if (a.phase == Phase::Connecting) {
      establish(a, acc, true, now);
      return;
    }
    if (acc.header.association_id != a.association_id || acc.header.epoch != a.epoch) {
      // "new Epoch in ASSOC_ACCEPT | drop credit; re-establish; send CREDIT_REQUEST": the
      // accept that echoes our nonce is itself the new association.
      ++stats.re_establishments;
      if (events.enabled())
        events.emit(now, "re_establishment",
                    {{"receiver", a.receiver.to_string()},
                     {"association_id", a.association_id},
                     {"epoch", a.epoch},
                     {"reason", "new_epoch"}});
      drop_association_credit(a, now);
      set_phase(a, Phase::Connecting);
      establish(a, acc, false, now);  // resets the newest processed Sequence Number
      return;
    }
    // Same incarnation: the exemption exists for a receiver that restarted its numbering, so a
    // stale copy of an earlier update is discarded like any other message.
    if (!accept_header(a, acc, now)) return;
    if (acc.parameter_update()) {
      acknowledge_update(a, acc, now);
    } else {
      if (events.enabled())
        events.emit(now, "duplicate_assoc_accept", {{"association_id", a.association_id}});
    }
  }

  void abort(Msg& m, std::uint16_t reason, Time now) {
    if (m.terminal()) return;
    m.abort_reason = reason;
    fire(m, SenderTransition::Aborted, now);
  }

  void on_error(Assoc& a, const ErrorMessage& e, Time now) {
    ++stats.errors_received;
    const auto reason = static_cast<ReasonCode>(e.reason);
    if (reason == ReasonCode::UnknownAssociation && policy->honour_unknown_association()) {
      // Exempt from the sequence check. "carrying its Association ID"
      if (a.phase != Phase::Established || e.header.association_id != a.association_id) {
        if (events.enabled())
          events.emit(now, "discarded",
                      {{"type", "ERROR"},
                       {"reason", "unknown_association_not_ours"},
                       {"association_id", e.header.association_id}});
        return;
      }
      begin_reestablishment(a, "unknown_association", now);
      return;
    }
    if (reason == ReasonCode::AssocRefused && a.phase == Phase::Connecting) {
      // The answer to our ASSOC_REQUEST: no association exists, nothing to check it against.
      if (events.enabled())
        events.emit(now, "association_refused", {{"receiver", a.receiver.to_string()}});
      for_each_msg(a, [&](Msg& m) { abort(m, e.reason, now); });
      set_phase(a, Phase::Idle);
      a.retx_at = Time::never();
      return;
    }
    if (!accept_header(a, e, now)) return;
    if (events.enabled())
      events.emit(now, "error", {{"reason", e.reason}, {"message_id", e.message_id}});
    switch (reason) {
      case ReasonCode::AssocRefused:
        if (Msg* m = find_msg(a, e.message_id)) {
          abort(*m, e.reason, now);
        } else if (e.message_id == 0) {
          for_each_msg(a, [&](Msg& m2) { abort(m2, e.reason, now); });
          drop_association_credit(a, now);
          set_phase(a, Phase::Idle);
        }
        break;
      case ReasonCode::MessageTooLarge:
      case ReasonCode::ApplicationAbort:
      case ReasonCode::UnsupportedBinding:
        if (Msg* m = find_msg(a, e.message_id)) abort(*m, e.reason, now);
        break;
      case ReasonCode::BudgetExhausted:
        // "WAITING | ERROR BUDGET_EXHAUSTED | keep the request outstanding | WAITING": the
        // retransmission timer keeps running.
        if (Msg* m = find_msg(a, e.message_id); m != nullptr && m->state == MessageState::Waiting) {
          fire(*m, SenderTransition::WaitingBudgetExhausted, now);
        }
        break;
      default:
        // Other reasons change nothing at the sender.
        break;
    }
  }

  void on_control(const Address& from, std::span<const std::byte> bytes, Time now) {
    advance(now);
    auto decoded = policy->decode_control(bytes);
    if (!decoded) {
      ++stats.malformed_discarded;
      if (events.enabled())
        events.emit(now, "malformed_discarded",
                    {{"from", from.to_string()}, {"error", decoded.error().describe()}});
      return;
    }
    const Message& msg = decoded.value();
    if (events.enabled()) {
      json f = to_json(msg);
      f["from"] = from.to_string();
      events.emit(now, "rx", std::move(f));
    }
    if (const auto* r = std::get_if<CongestionReport>(&msg)) {
      on_report(from, *r, now);
      update_backlog(now);
      return;
    }
    auto it = assocs.find(from);
    if (it == assocs.end() && policy->match_unknown_peer_by_association_id()) {
      it = std::find_if(assocs.begin(), assocs.end(), [&](const auto& entry) {
        return entry.second.association_id != 0 &&
               entry.second.association_id == header_of(msg).association_id;
      });
    }
    if (it == assocs.end()) {
      ++stats.unexpected_discarded;
      if (events.enabled())
        events.emit(now, "discarded", {{"from", from.to_string()}, {"reason", "unknown_peer"}});
      return;
    }
    Assoc& a = it->second;
    std::visit(
        [&](const auto& body) {
          using T = std::decay_t<decltype(body)>;
          if constexpr (std::is_same_v<T, AssocAccept>) {
            on_accept(a, body, now);
          } else if constexpr (std::is_same_v<T, ErrorMessage>) {
            on_error(a, body, now);
          } else if constexpr (std::is_same_v<T, CreditGrant>) {
            if (accept_header(a, msg, now)) on_grant(a, body, now);
          } else if constexpr (std::is_same_v<T, MsgDone>) {
            if (accept_header(a, msg, now)) on_msg_done(a, body, now);
          } else if constexpr (std::is_same_v<T, Cancel>) {
            if (accept_header(a, msg, now)) {
              if (Msg* m = find_msg(a, body.message_id)) abort(*m, body.reason, now);
            }
          } else {
            ++stats.unexpected_discarded;
            if (events.enabled())
              events.emit(
                  now, "discarded",
                  {{"type", std::string{info(T::kType).name}}, {"reason", "unexpected_type"}});
          }
        },
        msg);
    update_backlog(now);
  }

  void on_msg_done(Assoc& a, const MsgDone& d, Time now) {
    Msg* m = find_msg(a, d.message_id);
    if (m == nullptr || m->terminal()) {
      if (events.enabled()) events.emit(now, "msg_done_ignored", {{"message_id", d.message_id}});
      return;
    }
    if (a.unsched_outstanding == m->handle) a.unsched_outstanding.reset();
    if (m->state != MessageState::Drained) {
      // Only DRAINED leaves on MSG_DONE: octets we have not sent cannot have arrived.
      if (events.enabled())
        events.emit(now, "msg_done_unexpected",
                    {{"message_id", m->id}, {"state", to_string(m->state)}});
      return;
    }
    if (d.octets_received != m->spec.length) {
      if (events.enabled())
        events.emit(now, "msg_done_length_mismatch",
                    {{"message_id", m->id}, {"octets_received", d.octets_received}});
    }
    fire(*m, SenderTransition::DrainedDone, now);
  }

  // ---- SENDER_STATUS ------------------------------------------------------------------------

  void update_backlog(Time now) {
    if (!policy->send_sender_status()) return;
    // A sender that does not advertise STATUS ("SENDER_STATUS supported") sends none
    // (docs/spec-notes.md, "SENDER_STATUS").
    if ((config.capabilities & capability::kStatus) == 0) return;
    // The smallest Backlog Threshold of an established association.
    std::optional<std::uint64_t> threshold;
    if (!established_thresholds.empty()) threshold = *established_thresholds.begin();
    if (!threshold && !episode) return;  // no established association, no episode to end
    const std::uint64_t total = sum_backlog(now);
    const std::uint64_t weight_sum = established_weight;
    if (threshold && config.local_backlog_threshold != 0) {
      threshold = std::min(*threshold, config.local_backlog_threshold);
    }
    const bool congested = threshold && total > *threshold;
    if (congested) {
      episode = true;
      const std::uint8_t level = congestion_level(total - *threshold, total);
      // The associations holding unused credit, in address order.
      std::sort(backlog_assocs.begin(), backlog_assocs.end(), AssocLess{});
      for (Assoc* ap : backlog_assocs) {
        Assoc& a = *ap;
        // "on each association that holds such credit": the MUST makes no exception for a
        // receiver that did not advertise STATUS (docs/spec-notes.md, "SENDER_STATUS").
        const std::uint64_t unused = a.unused;
        if (unused == 0 || (a.status_in_episode && now < a.status_next)) continue;
        const std::uint64_t w = a.hint_weight;
        const std::uint64_t rate =
            w == 0 || !policy->suggest_rate()
                ? 0
                : std::max<std::uint64_t>(1, available_rate() * w / weight_sum);
        send_status(a, unused, level, rate, now);
        if (!a.status_in_episode) in_episode.push_back(&a);
        a.status_in_episode = true;
        // "once per smoothed round-trip time" (at least 1 us apart: an SRTT measured as zero
        // in a test bench must not mean "continuously").
        arm_status(a, now + std::max(srtt_or_default(a), microseconds(1)));
      }
    } else if (episode) {
      episode = false;
      // The associations marked in the episode, in address order (one marked, unmarked by a
      // re-establishment and marked again is listed twice).
      std::sort(in_episode.begin(), in_episode.end(), AssocLess{});
      in_episode.erase(std::unique(in_episode.begin(), in_episode.end()), in_episode.end());
      for (Assoc* ap : in_episode) {
        Assoc& a = *ap;
        if (!a.status_in_episode) continue;
        a.status_in_episode = false;
        // "one final SENDER_STATUS with Congestion Level zero when it ends"
        if (a.phase == Phase::Established) send_status(a, unused_of(a), 0, 0, now);
      }
      in_episode.clear();
    }
  }

  // The unused credit of every established association (valid credit held, own and pool, not
  // yet used), into Assoc::unused (unused_of), listing in backlog_assocs those that hold some;
  // returns their total. Walks the messages that may hold credit of their own and the
  // associations that may hold a pool grant, not every live message and association; one
  // that cannot hold any until its next grant leaves the list (only at the clock: an earlier
  // t may see credit since expired).
  std::uint64_t sum_backlog(Time t) {
    ++backlog_stamp;
    backlog_assocs.clear();
    std::uint64_t total = 0;
    const auto add = [&](Assoc& a, std::uint64_t octets) {
      if (a.unused_stamp != backlog_stamp) {
        a.unused_stamp = backlog_stamp;
        a.unused = 0;
        backlog_assocs.push_back(&a);
      }
      a.unused = add_saturating(a.unused, octets);
      total = add_saturating(total, octets);
    };
    for (std::size_t i = 0; i < credit_holders.size();) {
      Msg* m = msg_of(credit_holders[i]);
      const bool holds = m != nullptr && !m->terminal() && m->assoc->phase == Phase::Established &&
                         own_valid(*m, t) && own_limit(*m) > m->transmitted;
      if (holds) add(*m->assoc, own_limit(*m) - m->transmitted);
      if (holds || (m != nullptr && t < clock)) {
        ++i;
        continue;
      }
      if (m != nullptr) m->in_credit_holders = false;
      credit_holders[i] = credit_holders.back();
      credit_holders.pop_back();
    }
    for (auto it = pool_holders.begin(); it != pool_holders.end();) {
      Assoc& a = **it;
      if (a.phase == Phase::Established && pool_valid(a, t)) {
        add(a, a.pool_limit - a.pool_sent);
        ++it;
      } else {
        it = drop_poolless(it, t);
      }
    }
    return total;
  }
  std::uint64_t unused_of(const Assoc& a) const {
    return a.unused_stamp == backlog_stamp ? a.unused : 0;
  }

  std::uint8_t dominant_hint(const Assoc& a) const {
    const std::array<std::uint64_t, 3>& count = a.hint_count;
    if (count[1] != 0 && count[1] >= count[2] && count[1] >= count[0]) return 1;
    if (count[2] != 0 && count[2] >= count[0]) return 2;
    return 0;
  }

  void send_status(Assoc& a, std::uint64_t unused, std::uint8_t level, std::uint64_t rate,
                   Time now) {
    SenderStatus s;
    s.unused_credit = unused;
    s.congestion_level = level;
    s.service_hint = dominant_hint(a);
    s.suggested_rate = static_cast<std::uint32_t>(std::min<std::uint64_t>(rate, 0xFFFFFFFFU));
    ++stats.sender_status_sent;
    send(a, s, now);
  }

  // ---- timers, as the driver sees them ------------------------------------------------------

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

  std::optional<Time> next_timeout() {
    // Association attempts and pool Lifetimes; SENDER_STATUS repeats (a repeat that came due
    // while the association held no unused credit waits for the next evaluation: it is not a
    // reason to wake up again now); the messages' Lifetimes, retransmissions and random starts
    // still ahead.
    Time t = first_live(assoc_timers,
                        [&](const AssocTimer& e) { return assoc_wakes_at(*e.assoc, e.at); });
    t = std::min(t, first_live(status_timers, [&](const AssocTimer& e) {
                   return status_wakes_at(*e.assoc, e.at);
                 }));
    t = std::min(t, first_live(msg_timers, [&](const MsgTimer& e) {
                   const Msg* m = msg_of(e.handle);
                   return m != nullptr && msg_wakes_at(*m, e.at);
                 }));
    // When paced data becomes sendable: the driver calls on_timeout, then poll_data. A poll
    // that found nothing ready at this clock, with no event since, has already looked.
    const std::optional<Time> ready =
        planned && planned->at == clock ? planned->earliest : earliest_plan(clock);
    if (ready) t = std::min(t, std::max(*ready, clock));
    if (t == Time::never()) return std::nullopt;
    return t;
  }
};

// ---- the public face ----------------------------------------------------------------------

Sender::Sender(SenderConfig config, RandomSource& random, Observer* observer,
               std::shared_ptr<const SenderPolicy> policy)
    : impl_(std::make_unique<Impl>(std::move(config), random, observer, std::move(policy))) {}
Sender::~Sender() = default;

MessageHandle Sender::submit(const MessageSpec& spec, Time now) {
  Impl& s = *impl_;
  s.advance(now);
  const MessageHandle handle = s.next_handle++;
  Impl::Msg& m = s.live.try_emplace(s.live.end(), handle)->second;
  m.handle = handle;
  m.spec = spec;
  m.submitted = now;
  if (s.events.enabled()) {
    s.events.emit(now, "message_submitted",
                  {{"handle", handle},
                   {"receiver", spec.receiver.to_string()},
                   {"length", spec.length},
                   {"traffic_class", spec.traffic_class},
                   {"weight", spec.weight}});
  }
  auto [it, inserted] = s.assocs.try_emplace(spec.receiver);
  Impl::Assoc& a = it->second;
  if (inserted) a.receiver = spec.receiver;
  s.link(a, m);
  s.count_hint_weight(m, +1);
  s.count_hint(m, +1);
  switch (a.phase) {
    case Impl::Phase::Idle: s.start_establishment(a, now); break;
    case Impl::Phase::Connecting: break;  // NEW until the association exists
    case Impl::Phase::Established: s.select_mode(m, now); break;
    case Impl::Phase::WithoutRdcc: s.go_without_rdcc(m, now); break;
  }
  s.update_backlog(now);
  return handle;
}

void Sender::cancel(MessageHandle handle, Time now) {
  Impl& s = *impl_;
  s.advance(now);
  Impl::Msg* found = s.msg_of(handle);
  if (found == nullptr || found->terminal()) return;
  Impl::Msg& m = *found;
  Impl::Assoc& a = s.assoc_of(m);
  if (m.id != 0 && !m.without_rdcc && a.phase == Impl::Phase::Established) {
    Cancel c;
    c.message_id = m.id;
    c.reason = static_cast<std::uint16_t>(ReasonCode::ApplicationAbort);
    s.send(a, c, now);
  }
  s.abort(m, static_cast<std::uint16_t>(ReasonCode::ApplicationAbort), now);
  s.update_backlog(now);
}

void Sender::return_credit(MessageHandle handle, std::uint64_t new_limit, Time now) {
  Impl& s = *impl_;
  s.advance(now);
  Impl::Msg* found = s.msg_of(handle);
  if (found == nullptr || found->terminal()) return;
  Impl::Msg& m = *found;
  Impl::Assoc& a = s.assoc_of(m);
  if (m.id == 0 || m.without_rdcc || a.phase != Impl::Phase::Established) return;
  // "New Limit MUST NOT be smaller than the octets already transmitted"; an RDMA message
  // already posted is not cut either.
  if (m.spec.post_unit != 0 && m.transmitted % m.spec.post_unit != 0) {
    new_limit = std::max(new_limit, m.unit().second);
  }
  const std::uint64_t held = s.own_limit(m);
  if ((new_limit < m.transmitted && !s.policy->return_below_transmitted()) || new_limit >= held) {
    if (s.events.enabled())
      s.events.emit(now, "credit_return_skipped",
                    {{"message_id", m.id},
                     {"new_limit", new_limit},
                     {"transmitted", m.transmitted},
                     {"held", held}});
    return;
  }
  // The message never transmits beyond new_limit; whether the receiver is told is the
  // policy's choice ("SHOULD return it with CREDIT_RETURN").
  m.ceiling = new_limit;
  if (s.policy->send_credit_return()) {
    CreditReturn r;
    r.message_id = m.id;
    r.new_limit = new_limit;
    s.send(a, r, now);
    s.stats.credit_returned += held - new_limit;
  }
  if (s.events.enabled())
    s.events.emit(now, "credit_returned",
                  {{"message_id", m.id},
                   {"new_limit", new_limit},
                   {"returned", held - new_limit},
                   {"sent", s.policy->send_credit_return()}});
  s.refresh_state(m, now);
  s.update_backlog(now);
}

std::optional<MessageStatus> Sender::status(MessageHandle handle) const {
  if (const Impl::Msg* m = impl_->msg_of(handle)) return Impl::status_of(*m);
  return impl_->finished.find(handle);
}

std::optional<AssociationStatus> Sender::association(const Address& receiver) const {
  auto it = impl_->assocs.find(receiver);
  if (it == impl_->assocs.end()) return std::nullopt;
  const Impl::Assoc& a = it->second;
  AssociationStatus st;
  st.receiver = a.receiver;
  st.established = a.phase == Impl::Phase::Established;
  st.without_rdcc = a.phase == Impl::Phase::WithoutRdcc;
  st.association_id = a.association_id;
  st.epoch = a.epoch;
  st.sender_nonce = a.nonce;
  st.assoc_attempts = a.attempts;
  st.unscheduled_limit = a.params.unscheduled_limit;
  st.start_jitter_us = a.params.start_jitter;
  st.backlog_threshold = a.params.backlog_threshold;
  st.grant_lifetime_us = a.params.grant_lifetime;
  st.credit_unit = a.params.credit_unit;
  st.capabilities = a.params.capabilities;
  st.srtt = a.srtt;
  st.pool_limit = a.pool_limit;
  st.pool_sent = a.pool_sent;
  return st;
}

void Sender::on_control(const Address& from, std::span<const std::byte> datagram, Time now) {
  impl_->on_control(from, datagram, now);
}

void Sender::on_link_pause(Time now) {
  Impl& s = *impl_;
  s.advance(now);
  // "or a link-layer pause indication if the local interface supports PFC"
  for (auto& [h, m] : s.live) {
    if (m.state == MessageState::Unsched) s.convert(m, "link_pause", now);
  }
  s.update_backlog(now);
}

void Sender::on_nack(const Address& from, std::uint64_t key, std::span<const OctetRange> ranges,
                     Time now) {
  Impl& s = *impl_;
  s.advance(now);
  ++s.stats.nacks_received;
  std::uint64_t named = 0;
  for (auto& [h, m] : s.live) {
    if (m.terminal() || m.without_rdcc || m.spec.binding != BindingKind::Opaque) continue;
    if (!m.spec.receiver.same_host(from) || s.binding_value(m) != key) continue;
    // Only octets the message has transmitted in this association are sent again (a
    // re-established association starts each message over: drop_association_credit).
    for (const OctetRange& r : ranges) {
      const std::uint64_t hi = std::min(r.hi, m.transmitted);
      if (r.lo >= hi) continue;
      m.resend.add(r.lo, hi);
      named += hi - r.lo;
    }
    s.mark_may_send(m);
    if (s.events.enabled())
      s.events.emit(now, "nack",
                    {{"message_id", m.id}, {"ranges", ranges.size()}, {"octets", named}});
  }
}

void Sender::on_timeout(Time now) {
  impl_->advance(now);
}

std::optional<Time> Sender::next_timeout() const {
  // earliest_plan takes non-const pointers into the state; it does not change it.
  return const_cast<Impl&>(*impl_).next_timeout();  // NOLINT(cppcoreguidelines-pro-type-const-cast)
}

std::optional<Datagram> Sender::poll_transmit() {
  return impl_->out.pop();
}

std::optional<DataSegment> Sender::poll_data(Time now) {
  Impl& s = *impl_;
  s.clock = std::max(s.clock, now);
  s.planned.reset();
  s.sweep();
  Impl::Plan* p = s.ready_plan(now);
  if (p == nullptr) return std::nullopt;
  const DataSegment segment = s.emit(*p, now);
  // Using credit can end a backlog episode (it never starts one): its final SENDER_STATUS is
  // queued now, for the poll_transmit() that follows (io.hpp), not at the next event
  // (docs/spec-notes.md, 66).
  if (s.episode) s.update_backlog(now);
  return segment;
}

const SenderStats& Sender::stats() const {
  return impl_->stats;
}
const SenderConfig& Sender::config() const {
  return impl_->config;
}

}  // namespace rdcc::ref
