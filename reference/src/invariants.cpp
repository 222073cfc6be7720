// The invariant checker (invariants.hpp). It keeps its own model of every message from what
// crossed the wire and never asks an endpoint.
#include "rdcc/reference/invariants.hpp"

#include <algorithm>
#include <array>
#include <cassert>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "rdcc/codec/format.hpp"
#include "rdcc/codec/serial.hpp"
#include "rdcc/reference/dense_index.hpp"

namespace rdcc::ref {
namespace {

using AddrKey = AddressKey;
constexpr std::uint32_t kNone = ~std::uint32_t{0};

// The checker numbers what it keeps densely (DenseIndex) and keeps each in a vector: a capture
// check feeds it millions of messages, and each control message is looked up several times.
// (receiver, sender): a pair of peers.
struct PeerKey {
  AddrKey rx;
  AddrKey tx;
  friend bool operator==(const PeerKey&, const PeerKey&) = default;
};
struct PeerKeyHash {
  std::uint64_t operator()(const PeerKey& k) const { return hash_mix(hash_mix(0, k.rx), k.tx); }
};

// An association of a pair: (pair number, Association ID).
struct AssocKey {
  std::uint32_t peer = 0;
  std::uint32_t association = 0;
  friend bool operator==(const AssocKey&, const AssocKey&) = default;
};
struct AssocKeyHash {
  std::uint64_t operator()(const AssocKey& k) const {
    return hash_mix(0, (std::uint64_t{k.peer} << 32) | k.association);
  }
};

// A message: (association number, Message ID), or (pair number, Message ID) for what data
// names without the association.
using MsgKey = OwnedMessageKey;

struct AddrKeyHash {
  std::uint64_t operator()(const AddrKey& k) const { return hash_mix(0, k); }
};

// Records that some messages need (MsgModel::paced, early, pending), numbered and reused once
// their message lets go of one: as many are kept as are held at once, not as were ever held.
template <class T>
class Slots {
 public:
  std::uint32_t take() {
    if (!free_.empty()) {
      const std::uint32_t i = free_.back();
      free_.pop_back();
      items_[i] = T{};
      return i;
    }
    items_.emplace_back();
    return static_cast<std::uint32_t>(items_.size() - 1);
  }
  // Lets go of `i` (kNone: nothing held) and sets it to kNone.
  void give(std::uint32_t& i) {
    if (i == kNone) return;
    free_.push_back(i);
    i = kNone;
  }
  T& operator[](std::uint32_t i) { return items_[i]; }
  const T& operator[](std::uint32_t i) const { return items_[i]; }

 private:
  std::vector<T> items_;
  std::vector<std::uint32_t> free_;
};

// Credit of a TiB or more: beyond any SENDER_STATUS ceiling the checker keeps (status_sent).
constexpr std::uint64_t kUnboundedCredit = std::uint64_t{1} << 40U;

struct MsgModel {
  std::uint32_t assoc = 0;  // its association's number (kNone: a free slot)
  std::uint32_t rate = 0;   // its Pacing Rate (sender side)
  std::uint64_t id = 0;     // its Message ID
  // Counts the models this slot has held: an expiry scheduled for an earlier one is void.
  std::uint32_t generation = 0;
  // Its segments within the pacing window: a number in Impl::pacing_windows once it has any
  // (a capture check keeps a model for many messages at once, most never paced).
  std::uint32_t paced = kNone;
  // Its segments sent under its association's pool grant within that grant's pacing window
  // (a number in Impl::pacing_windows), and the pool's Pacing Rate they were judged at: rule 4
  // binds "the message" to "the Pacing Rate", and a pool grant carries one too.
  std::uint32_t pool_paced = kNone;
  std::uint32_t pool_rate = 0;
  // A grant that reached the sender before it showed it holds the message: a number in
  // Impl::early_grants (docs/spec-notes.md, 94).
  std::uint32_t early = kNone;
  // Grants delivered to the sender that it has not yet shown it received, where the observer
  // cannot see reception (set_grant_reception_unseen): a number in Impl::pending_grants.
  std::uint32_t pending = kNone;
  bool length_known = false;
  bool windowed = false;  // listed in its association's `windowed`
  bool cancelled = false;
  bool unsched_ended = false;  // MSG_DONE, a CREDIT_GRANT, CANCEL or ERROR reached the sender
  // The sender has shown it holds the message: it sent a CREDIT_REQUEST, data or a CANCEL for
  // it. Before that, a grant (or MSG_DONE, CANCEL, ERROR) naming it may be for a Message ID the
  // sender has not used yet, which it ignores (docs/spec-notes.md, 94).
  bool sender_knows = false;
  bool requested = false;  // a CREDIT_REQUEST for it reached the receiver
  // Its end (docs/spec-notes.md, "When the invariant checker forgets a message"): the receiver
  // sent MSG_DONE once every octet had arrived, and a MSG_DONE reached the sender; a retirement
  // check is scheduled.
  bool done_sent = false;
  bool done_delivered = false;
  bool retire_scheduled = false;
  // A model made again for a retired message: every octet of it arrived, though its length is
  // forgotten (until a request names it again).
  bool complete = false;
  Time touched{};  // the latest event that named it
  std::uint64_t length = 0;
  // Sender side: one past the highest octet sent on pool credit. Octets below it sent again
  // (loss recovery) stay within the pool's Grant Limit, which counted them once
  // (docs/spec-notes.md, "Resent octets: under which grant, counted how, and when a receiver
  // asks for them").
  std::uint64_t pool_sent_end = 0;
  // Sender side: one past the highest octet of it the sender transmitted (a CREDIT_RETURN's
  // floor).
  std::uint64_t sent_end = 0;
  // Sender side: the highest Grant Limit any grant for it carried to the sender (held, pending or
  // early), for the bound on the Unused Credit its SENDER_STATUS may report (unused_bound).
  std::uint64_t granted_max = 0;
  // Receiver side.
  std::uint64_t limit_sent = 0;  // highest Grant Limit the receiver sent
  Time grant_live_until{};       // Lifetime + 2 * D_max after the latest grant was sent
  std::uint64_t window = 0;      // unscheduled octets announced (as delivered)
  // Announced to an association the receiver may have removed as idle (AssocModel::
  // maybe_removed): not counted until the receiver shows it still holds the association.
  bool window_unconfirmed = false;
  Time window_live_until{};    // J + Lifetime + 2 * D_max after the request arrived
  std::uint64_t received = 0;  // octets delivered to the receiver
  std::uint64_t exposure = 0;  // counted in the receiver's budget now
  // The lowest New Limit of the CREDIT_RETURNs the receiver processed since its latest grant:
  // "the offset beyond which the sender will not transmit" (docs/spec-notes.md, 65).
  std::uint64_t returned_limit = ~std::uint64_t{0};
  // 2 * D_max after the receiver first sent or processed a CANCEL for it (since its latest
  // grant): from then on it may reclaim all of its credit ("Receiver Credit Budget").
  Time cancel_reclaim_from{};
  // Sender side.
  std::uint64_t held_limit = 0;  // highest usable Grant Limit delivered to the sender
  Time held_valid_until{};       // reception + Lifetime of the latest such grant
  // That grant was cut short by an ERROR (UNKNOWN_ASSOCIATION) (discard_sender_credit), and no
  // grant has come since.
  bool discarded = false;
  std::uint64_t announced_unsched = 0;  // Unscheduled Sent of the requests the sender sent
};

struct AssocModel {
  std::uint32_t peer = 0;  // its pair's number
  std::uint32_t u = 0;     // the largest U advertised (what a sender may have used)
  // Receiver side: what the receiver processes from this sender ("Common Header": Sequence
  // Number; "Credit Allocation" rule 4), and the U it must account ("Association
  // Establishment": the larger of the old and new U until the update is acknowledged).
  bool accepted = false;  // the receiver sent ASSOC_ACCEPT for it to this sender
  std::uint16_t epoch = 0;
  std::uint64_t nonce = 0;
  std::uint32_t u_current = 0;
  std::uint32_t u_accounted = 0;
  bool have_seq_in = false;
  std::uint32_t newest_seq_in = 0;
  // The latest CREDIT_REQUEST naming it from its sender named this incarnation's Epoch.
  bool request_in_incarnation = false;
  std::uint32_t j = 0;
  std::uint32_t lifetime_us = 0;
  std::uint32_t credit_unit = 0;
  bool sender_accepted = false;      // the sender got an ASSOC_ACCEPT it accepts for it
  std::uint16_t sender_epoch = 0;    // of that incarnation
  std::uint64_t accepted_nonce = 0;  // the Sender Nonce that incarnation's ASSOC_ACCEPT echoed
  bool have_seq = false;
  std::uint32_t newest_seq = 0;  // newest delivered from the receiver to the sender
  std::uint64_t pool_limit = 0;
  Time pool_valid_until{};
  std::uint64_t pool_used = 0;
  std::uint32_t pool_rate = 0;  // the Pacing Rate of the pool grant in force
  // Pool grants delivered and not yet shown received (set_grant_reception_unseen).
  bool pool_pending = false;
  std::uint32_t pool_pending_rate = 0;
  std::uint64_t pool_pending_limit = 0;
  Duration pool_pending_life{};
  Time pool_pending_from{};
  // The unscheduled message the sender has outstanding ("Unscheduled Transmission", item 3).
  bool unsched_outstanding = false;
  std::uint64_t unsched_message = 0;
  // The messages (numbers) given an unscheduled window, for the sum over its windows.
  std::vector<std::uint32_t> windowed;
  // What the receiver's replies are judged by ("Error Handling and Recovery", "Credit Requests
  // and Grants"): it sent an ASSOC_ACCEPT for it (ever: an association it removed was still
  // accepted), and a message of the sender naming it reached it.
  bool established = false;
  bool requested = false;
  // Its ASSOC_ACCEPT or the last message of its sender the receiver processed: what the
  // receiver's idle time runs from at the latest (data keeps it alive too; the checker does
  // not count that, and so only ever sees it idle longer). A request after kIdleUnseen of that may
  // reach a receiver that has removed it
  // ("A receiver MAY remove an association that has carried no traffic for a locally
  // configured idle time ..."), which the checker cannot see: until the receiver sends
  // something else than ERROR (UNKNOWN_ASSOCIATION) naming it, such a request's window is not
  // the receiver's (maybe_removed, MsgModel::window_unconfirmed).
  Time last_traffic{};
  bool maybe_removed = false;
  // The POOL capability of the ASSOC_REQUEST its ASSOC_ACCEPT answered (same Sender Nonce),
  // where the checker saw that request, and the request's tag.
  bool capabilities_known = false;
  bool pool_advertised = false;
  // The most credit its sender can hold unused (SENDER_STATUS, "carries the Unused Credit on
  // that association"): over its modelled messages, the highest Grant Limit delivered beyond the
  // octets sent, plus the highest pool Grant Limit delivered. Only an upper bound (expired
  // grants count, pool octets do not), so never a false finding; kept as grants and data come.
  // Judged only where the checker saw the incarnation's ASSOC_REQUEST (status_bounded): a
  // capture that starts later misses grants.
  std::uint64_t unused_bound = 0;
  // The same without the octets sent (each message's highest Grant Limit): the ceiling where
  // the observer sees the sender in real time (a timing tolerance), since a status composed
  // before a burst may leave any time after it on a loaded host.
  std::uint64_t granted_sum = 0;
  std::uint32_t unbounded_terms = 0;  // messages whose term is 2^40 or more: no ceiling at all
  std::uint64_t pool_granted = 0;
  bool status_bounded = false;
  // The octets its messages' sends advanced in the latest instant, `recent_at`: a status the
  // sender composed before that burst may go out after it, so they are excused to a status of
  // the same instant (in virtual time; in real time no octet sent is counted, status_sent).
  std::uint64_t recent_sent = 0;
  Time recent_at{};
  std::uint64_t offer_tag = 0;
  // The Sequence Numbers each originator sent on it ("Common Header"): [0] the sender's, [1]
  // the receiver's, with the message and its tag (to name an identical copy). The Epoch of the
  // ASSOC_ACCEPT that started the numbering.
  struct Sent {
    bool seen = false;
    std::uint32_t newest = 0;
    std::uint64_t tag = 0;
    Message message;
  };
  std::array<Sent, 2> sent;
  bool numbered_epoch_known = false;
  std::uint16_t numbered_epoch = 0;
  // Its retired messages (docs/spec-notes.md, "When the invariant checker forgets a message"):
  // every Message ID from the lowest retired one to the highest that is not modelled now. "Message
  // IDs MUST increase", so an ID in that span that the checker never saw is none a sender may
  // still use for a new message.
  std::uint64_t retired_lo = 0;
  std::uint64_t retired_hi = 0;  // exclusive; equal to retired_lo: none
  [[nodiscard]] bool retired(std::uint64_t id) const { return id >= retired_lo && id < retired_hi; }
  void retire(std::uint64_t id) {
    if (retired_lo == retired_hi) {
      retired_lo = id;
      retired_hi = id + 1;
      return;
    }
    retired_lo = std::min(retired_lo, id);
    retired_hi = std::max(retired_hi, id + 1);
  }
};

struct PeerModel {
  std::uint32_t receiver = kNone;  // the receiver's number, where `rx` is one
  // Every association (number) the receiver accepted for that sender: data for a message
  // counts for each of them that knows it (spec-notes 89); empty before the first accept.
  std::vector<std::uint32_t> accepted;
  // The Sender Nonce of the sender's newest ASSOC_REQUEST.
  bool has_sender_nonce = false;
  std::uint64_t sender_nonce = 0;
  std::uint32_t sender_capabilities = 0;  // of that request
  std::uint64_t offer_tag = 0;            // and its tag
  // The association whose incarnation the sender accepted last: the only one it takes credit
  // from (docs/spec-notes.md, 88).
  bool has_sender_current = false;
  std::uint32_t sender_current = 0;
};

// What the checker knows of a Message ID between a pair, without the association.
struct PeerMsgModel {
  // The association of the latest request that named it (data names no association).
  bool has_association = false;
  std::uint32_t association = 0;
  std::uint64_t early = 0;  // octets delivered before the checker saw its request (reordering)
};

struct ReceiverModel {
  std::uint64_t budget = 0;
  Duration d_max{};
  std::uint64_t outstanding = 0;
  std::uint64_t peak = 0;
};

// "12.5 us", for the details of violations.
std::string format_duration(Duration d) {
  const std::int64_t tenths = d.ns / 100;
  return std::to_string(tenths / 10) + "." +
         std::to_string(tenths < 0 ? -(tenths % 10) : tenths % 10) + " us";
}

// Octets a link of `mbps` Mbit/s carries in `d`.
std::uint64_t octets_in(Duration d, std::uint32_t mbps) {
  return d.ns <= 0 ? 0 : static_cast<std::uint64_t>(d.ns) * mbps / 8000U;
}

struct Expiry {
  Time at;
  std::uint64_t order = 0;       // when it was scheduled: expiries of one moment come in that order
  std::uint32_t msg = 0;         // its number
  std::uint32_t generation = 0;  // of the model it was scheduled for (MsgModel::generation)
  bool retire = false;           // a retirement check, not a lapse of credit
};

// The expiries to come, earliest first, those of one moment in the order they were scheduled.
// Most are scheduled in time order (a grant's Lifetime and 2 * D_max after the grant): those
// join a sorted run in constant time, and only the others a heap (a capture check schedules
// millions).
class ExpiryQueue {
 public:
  void push(Time at, std::uint32_t msg, std::uint32_t generation, bool retire = false) {
    const Expiry e{at, next_++, msg, generation, retire};
    if (head_ == run_.size() || !(at < run_.back().at)) {
      if (head_ == run_.size()) {
        run_.clear();
        head_ = 0;
      }
      run_.push_back(e);
      return;
    }
    heap_.push_back(e);
    std::push_heap(heap_.begin(), heap_.end(), later);
  }
  // The earliest expiry, if it is due at `t`.
  [[nodiscard]] std::optional<Expiry> pop_due(Time t) {
    const bool in_run = head_ != run_.size();
    const bool in_heap = !heap_.empty();
    if (!in_run && !in_heap) return std::nullopt;
    if (in_run && (!in_heap || later(heap_.front(), run_[head_]))) {
      if (t < run_[head_].at) return std::nullopt;
      const Expiry e = run_[head_++];
      if (head_ >= kCompactAt && head_ * 2 >= run_.size()) {
        run_.erase(run_.begin(), run_.begin() + static_cast<std::ptrdiff_t>(head_));
        head_ = 0;
      }
      return e;
    }
    if (t < heap_.front().at) return std::nullopt;
    std::pop_heap(heap_.begin(), heap_.end(), later);
    const Expiry e = heap_.back();
    heap_.pop_back();
    return e;
  }

 private:
  static bool later(const Expiry& a, const Expiry& b) {
    return b.at < a.at || (a.at == b.at && b.order < a.order);
  }
  static constexpr std::size_t kCompactAt = 4096;

  std::vector<Expiry> run_;  // sorted; [head_, end) still to come
  std::size_t head_ = 0;
  std::vector<Expiry> heap_;
  std::uint64_t next_ = 0;
};

// The most violations kept: enough to diagnose; a broken run must not exhaust memory.
constexpr std::size_t kMaxViolations = 1000;

}  // namespace

struct InvariantChecker::Impl {
  DenseIndex<AddrKey, AddrKeyHash> receiver_index;
  std::vector<ReceiverModel> receivers;
  DenseIndex<PeerKey, PeerKeyHash> peer_index;
  std::vector<PeerModel> peers;
  DenseIndex<AssocKey, AssocKeyHash> assoc_index;
  std::vector<AssocModel> assocs;
  // The messages modelled now, (association, Message ID) to a slot of `msgs`: live ones, and
  // finished ones not yet retired (retire_check). A retired message's slot is reused, so both
  // hold as many as are modelled at once, not every message ever seen.
  std::unordered_map<MsgKey, std::uint32_t, OwnedMessageKeyHash> msg_index;
  StableVector<MsgModel> msgs;
  std::vector<std::uint32_t> free_msgs;
  // Segments within the pacing window per paced message (MsgModel::paced): a vector, as a
  // deque allocates even when empty.
  Slots<std::vector<std::pair<Time, std::uint32_t>>> pacing_windows;
  // Grants that reached the sender for a message before it showed it holds it (MsgModel::early):
  // the highest Grant Limit and the Lifetime of the latest.
  struct EarlyGrant {
    std::uint64_t limit = 0;
    Time valid_until{};
  };
  Slots<EarlyGrant> early_grants;
  // Grants delivered to the sender whose reception the observer cannot see (MsgModel::pending):
  // the highest Grant Limit, the longest Lifetime and the latest Pacing Rate of those delivered
  // since `from`, the first delivery.
  struct PendingGrant {
    std::uint64_t limit = 0;
    Duration life{};
    std::uint32_t rate = 0;
    Time from{};
  };
  Slots<PendingGrant> pending_grants;
  bool reception_unseen = false;   // set_grant_reception_unseen
  Duration send_time_tolerance{};  // set_send_time_tolerance
  Duration discard_slack{};        // set_discard_slack
  // (pair, Message ID) to a slot of `peer_msgs`; a message's entry goes when it retires.
  std::unordered_map<MsgKey, std::uint32_t, OwnedMessageKeyHash> peer_msg_index;
  Slots<PeerMsgModel> peer_msgs;
  ExpiryQueue expiries;
  Time now{};                       // of the event being checked (expire_until)
  std::uint64_t retired_count = 0;  // messages retired (retire)
  std::uint64_t resurrected = 0;    // models made again for retired messages (resurrect)
  std::function<void(const Retired&)> retire_observer;  // on_retire
  std::vector<Violation> violations;
  std::uint64_t violation_count = 0;
  Duration tolerance{};               // set_timing_tolerance
  bool discard_stale = false;         // set_discard_stale
  std::uint32_t sequence_window = 0;  // set_sequence_window; 0: none
  // Whether an endpoint processes a message numbered `seq` after `newest` ("Common Header").
  [[nodiscard]] bool processed(std::uint32_t seq, std::uint32_t newest) const {
    return serial_newer(seq, newest) &&
           (sequence_window == 0 || static_cast<std::uint32_t>(seq - newest) <= sequence_window);
  }
  std::uint64_t stale = 0;
  std::uint64_t tag = 0;  // of the message being observed (on_control_observed)
  // The pair looked up last: a capture's consecutive messages are mostly of one pair.
  PeerKey last_peer_key;
  std::uint32_t last_peer = kNone;
  static constexpr std::uint32_t kAsked = kNone - 1;  // an empty entry of receiver_asked
  // How long an association carries no control message before the checker allows that its
  // receiver removed it unseen (AssocModel::last_traffic): a tenth of the idle time the spec
  // says SHOULD be at least 10 seconds, so a receiver configured below that is judged fairly too;
  // the windows deferred so are judged as soon as the receiver shows it holds the association.
  static constexpr Duration kIdleUnseen = seconds(1);
  std::array<std::pair<AddrKey, std::uint32_t>, 2> receiver_asked{
      {{AddrKey{}, kAsked}, {AddrKey{}, kAsked}}};
  // Likewise the association added or looked up last (a message's two ends name it), and the
  // message looked up last (a message's grants and MSG_DONE are looked up on both
  // sides).
  AssocKey last_assoc_key;
  std::uint32_t last_assoc = kNone;
  MsgKey last_msg_key;
  std::uint32_t last_msg = kNone;

  // Room for a few of each up front: a run of the fuzz harnesses has two receivers and a
  // handful of pairs and associations, and growing from one element allocated three times.
  Impl() {
    receivers.reserve(4);
    peers.reserve(4);
    assocs.reserve(8);
  }

  // Asked once a violation is found, just before violate(): whether it will be kept (its
  // detail is formatted only then). One that is not kept is counted here.
  [[nodiscard]] bool keeping() {
    if (violations.size() < kMaxViolations) return true;
    ++violation_count;
    return false;
  }

  // A violation of a rule that binds one role (rules.hpp), held against that role.
  void violate(Time t, std::string_view rule, std::string detail, std::uint64_t related = 0) {
    const InvariantRule* r = invariant_rule(rule);
    assert(r != nullptr && r->binds != Binds::Originator);
    violate_by(t, rule, r->binds == Binds::Sender ? Party::Sender : Party::Receiver,
               std::move(detail), related);
  }
  void violate_by(Time t, std::string_view rule, Party party, std::string detail,
                  std::uint64_t related = 0) {
    assert(invariant_rule(rule) != nullptr);
    ++violation_count;
    if (violations.size() < kMaxViolations) {
      violations.push_back({t, std::string(rule), party, std::move(detail), related});
    }
  }

  // The receiver's number, or kNone. The last two addresses asked about are kept: a message's
  // two ends are asked about on sending and on delivery.
  std::uint32_t receiver_of(const AddrKey& a) {
    for (const auto& [k, r] : receiver_asked) {
      if (r != kAsked && k == a) return r;
    }
    const std::uint32_t r = receiver_index.find(a);
    receiver_asked[1] = receiver_asked[0];
    receiver_asked[0] = {a, r};
    return r;
  }
  void forget_receivers_asked() { receiver_asked.fill({AddrKey{}, kAsked}); }

  // The pair's number (added if new).
  std::uint32_t peer(const AddrKey& rx, const AddrKey& tx) {
    if (last_peer != kNone && last_peer_key.rx == rx && last_peer_key.tx == tx) return last_peer;
    const PeerKey k{rx, tx};
    const auto [index, added] = peer_index.insert(k);
    if (added) {
      peers.emplace_back();
      peers.back().receiver = receiver_of(rx);
    }
    last_peer_key = k;
    last_peer = index;
    return index;
  }

  std::uint32_t assoc(std::uint32_t peer_number, std::uint32_t association) {
    const AssocKey k{peer_number, association};
    if (last_assoc != kNone && last_assoc_key == k) return last_assoc;
    const auto [index, added] = assoc_index.insert(k);
    if (added) {
      assocs.emplace_back();
      assocs.back().peer = peer_number;
    }
    last_assoc_key = k;
    last_assoc = index;
    return index;
  }

  // The association's number, or kNone.
  [[nodiscard]] std::uint32_t find_assoc(std::uint32_t peer_number,
                                         std::uint32_t association) const {
    const AssocKey k{peer_number, association};
    if (last_assoc != kNone && last_assoc_key == k) return last_assoc;
    return assoc_index.find(k);
  }

  // The message's number, added if new: a fresh model, or for a retired message one that
  // remembers how it ended (resurrect).
  std::uint32_t msg(std::uint32_t assoc_number, std::uint64_t message_id) {
    return lookup(assoc_number, message_id, true);
  }
  // The message's number, or kNone; a retired message's model is made again (resurrect).
  [[nodiscard]] std::uint32_t find_msg(std::uint32_t assoc_number, std::uint64_t message_id) {
    return lookup(assoc_number, message_id, false);
  }
  std::uint32_t lookup(std::uint32_t assoc_number, std::uint64_t message_id, bool add) {
    const MsgKey k{assoc_number, message_id};
    if (last_msg != kNone && last_msg_key == k) return touch(last_msg);
    std::uint32_t index = kNone;
    if (const auto it = msg_index.find(k); it != msg_index.end()) {
      index = it->second;
    } else if (assocs[assoc_number].retired(message_id)) {
      index = resurrect(assoc_number, message_id);
    } else if (add) {
      index = add_msg(assoc_number, message_id);
    } else {
      return kNone;
    }
    last_msg_key = k;
    last_msg = index;
    return touch(index);
  }
  std::uint32_t touch(std::uint32_t index) {
    msgs[index].touched = now;
    return index;
  }

  // A fresh model in a free slot (or a new one).
  std::uint32_t add_msg(std::uint32_t assoc_number, std::uint64_t message_id) {
    std::uint32_t index = 0;
    if (free_msgs.empty()) {
      index = static_cast<std::uint32_t>(msgs.size());
      msgs.emplace_back();
    } else {
      index = free_msgs.back();
      free_msgs.pop_back();
      const std::uint32_t generation = msgs[index].generation + 1;
      msgs[index] = MsgModel{};
      msgs[index].generation = generation;
    }
    MsgModel& m = msgs[index];
    m.assoc = assoc_number;
    m.id = message_id;
    msg_index.emplace(MsgKey{assoc_number, message_id}, index);
    return index;
  }

  // A message named again after it retired: what its end established still holds (a request
  // reached the receiver, which had every octet, and the sender knew it and got MSG_DONE);
  // its credit had lapsed, so the sender holds none, and its length is learned again from a
  // request. It retires again once quiet (docs/spec-notes.md, "When the invariant checker
  // forgets a message").
  std::uint32_t resurrect(std::uint32_t assoc_number, std::uint64_t message_id) {
    const std::uint32_t index = add_msg(assoc_number, message_id);
    MsgModel& m = msgs[index];
    m.requested = true;
    m.sender_knows = true;
    m.unsched_ended = true;
    m.complete = true;
    m.done_sent = true;
    m.done_delivered = true;
    m.touched = now;
    ++resurrected;
    schedule_retirement(index);
    return index;
  }

  // Once the message has ended on both sides: a check when it may retire.
  void schedule_retirement(std::uint32_t index) {
    MsgModel& m = msgs[index];
    if (!m.done_sent || !m.done_delivered || m.retire_scheduled) return;
    m.retire_scheduled = true;
    expiries.push(retire_due(m), index, m.generation, true);
  }

  // The earliest moment the message may retire: nothing named it for the longest that any of
  // its credit can stay live (J + Lifetime + 2 * D_max, and the observer's timing tolerance),
  // and every moment its model still counts toward has passed.
  [[nodiscard]] Time retire_due(const MsgModel& m) const {
    const AssocModel& a = assocs[m.assoc];
    const std::uint32_t r = peers[a.peer].receiver;
    const Duration d_max = r == kNone ? Duration{} : receivers[r].d_max;
    const Duration quiet = microseconds(a.j) + microseconds(a.lifetime_us) + d_max * 2 + tolerance;
    Time due = m.touched + quiet;
    due = std::max({due, m.held_valid_until + tolerance, m.grant_live_until, m.window_live_until});
    if (m.cancelled) due = std::max(due, m.cancel_reclaim_from);
    if (m.early != kNone) due = std::max(due, early_grants[m.early].valid_until + tolerance);
    return due;
  }

  void retire_check(std::uint32_t index, Time at) {
    const Time due = retire_due(msgs[index]);
    if (at < due) {
      expiries.push(due, index, msgs[index].generation, true);
      return;
    }
    retire(index);
  }

  // Forgets the message: its ID joins its association's retired ones, its slots are free.
  void retire(std::uint32_t index) {
    MsgModel& m = msgs[index];
    AssocModel& a = assocs[m.assoc];
    if (m.exposure != 0) {  // none: every octet arrived; kept exact all the same
      const std::uint32_t r = peers[a.peer].receiver;
      if (r != kNone) receivers[r].outstanding -= m.exposure;
    }
    if (m.windowed) std::erase(a.windowed, index);
    set_unused_term(a, m, 0, 0);
    pacing_windows.give(m.paced);
    pacing_windows.give(m.pool_paced);
    early_grants.give(m.early);
    pending_grants.give(m.pending);
    const std::uint32_t association = assoc_index.key(m.assoc).association;
    if (const auto it = peer_msg_index.find(MsgKey{a.peer, m.id});
        it != peer_msg_index.end() && peer_msgs[it->second].early == 0 &&
        (!peer_msgs[it->second].has_association ||
         peer_msgs[it->second].association == association)) {
      std::uint32_t slot = it->second;
      peer_msgs.give(slot);
      peer_msg_index.erase(it);
    }
    a.retire(m.id);
    if (retire_observer) {
      const PeerKey& pk = peer_index.key(a.peer);
      retire_observer(Retired{pk.rx, pk.tx, association, m.id});
    }
    msg_index.erase(MsgKey{m.assoc, m.id});
    if (last_msg == index) last_msg = kNone;
    m.assoc = kNone;
    free_msgs.push_back(index);
    ++retired_count;
  }

  // The receiver sent MSG_DONE for the message: its end, where every octet had arrived.
  void done_sent(std::uint32_t index) {
    MsgModel& m = msgs[index];
    if (!m.requested || !(m.complete || (m.length_known && m.received >= m.length))) return;
    m.done_sent = true;
    schedule_retirement(index);
  }
  // A MSG_DONE the sender processed reached it, for a message it holds.
  void done_delivered(std::uint32_t ai, std::uint64_t message_id) {
    const std::uint32_t index = find_msg(ai, message_id);
    if (index == kNone || !msgs[index].sender_knows) return;
    msgs[index].done_delivered = true;
    schedule_retirement(index);
  }

  PeerMsgModel& peer_msg(std::uint32_t peer_number, std::uint64_t message_id) {
    const auto [it, added] = peer_msg_index.try_emplace(MsgKey{peer_number, message_id}, kNone);
    if (added) it->second = peer_msgs.take();
    return peer_msgs[it->second];
  }

  // Octets the receiver has authorized and not yet received.
  static std::uint64_t exposure_of(const MsgModel& m, Time t) {
    if (m.complete) return 0;
    std::uint64_t authorized = 0;
    if (t < m.grant_live_until) authorized = m.limit_sent;
    if (t < m.window_live_until && !m.window_unconfirmed)
      authorized = std::max(authorized, m.window);
    if (m.length_known) authorized = std::min(authorized, m.length);
    authorized = std::min(authorized, m.returned_limit);
    if (m.cancelled && t >= m.cancel_reclaim_from) authorized = 0;
    return authorized > m.received ? authorized - m.received : 0;
  }

  void refresh(std::uint32_t msg_number, Time t) {
    MsgModel& m = msgs[msg_number];
    const std::uint32_t r_number = peers[assocs[m.assoc].peer].receiver;
    if (r_number == kNone) return;
    ReceiverModel& r = receivers[r_number];
    const std::uint64_t now_exposure = exposure_of(m, t);
    r.outstanding = r.outstanding - m.exposure + now_exposure;
    m.exposure = now_exposure;
    r.peak = std::max(r.peak, r.outstanding);
    if (r.outstanding > r.budget && keeping()) {
      violate(t, rule::kBudget,
              "receiver outstanding credit " + std::to_string(r.outstanding) +
                  " exceeds G = " + std::to_string(r.budget));
    }
  }

  void expire_until(Time t) {
    now = t;
    while (const std::optional<Expiry> e = expiries.pop_due(t)) {
      const MsgModel& m = msgs[e->msg];
      if (m.assoc == kNone || m.generation != e->generation) continue;  // retired since
      if (e->retire) {
        retire_check(e->msg, e->at);
      } else {
        refresh(e->msg, e->at);
      }
    }
  }

  void schedule(std::uint32_t msg_number, Time at) {
    expiries.push(at, msg_number, msgs[msg_number].generation);
  }

  // The send-time tolerance becomes `to`. A wider one holds for the grants already seen too: a
  // run on real sockets widens it when the tester measures a longer scheduling delay
  // (rdcc-conform's widen_tolerance), and the grant whose send that delay held back was seen
  // before the delay was measured. Each grant still counted is made reclaimable that much
  // earlier (a receiver's scheduling delay between deciding on a grant and sending it, two
  // grants apart, made the later one look like credit reclaimed 1 ms early).
  void widen_send_time_tolerance(Duration to) {
    const Duration by = to - send_time_tolerance;
    send_time_tolerance = to;
    if (by.ns <= 0) return;
    for (std::uint32_t mi = 0; mi < msgs.size(); ++mi) {
      MsgModel& m = msgs[mi];
      if (m.assoc == kNone || !(now < m.grant_live_until)) continue;
      m.grant_live_until = std::max(now + Duration{1}, m.grant_live_until - by);
      schedule(mi, m.grant_live_until);
    }
  }

  // A control message from `f` to `d` put on the wire, and delivered; `from_receiver` and
  // `to_receiver` are their numbers as receivers (receiver_of: kNone for any other address).
  // What reaches neither a receiver nor a sender from one (a CRN's report to a sender) is not
  // judged on delivery. on_control_sent, _delivered and _observed all come through here.
  // False when the message was discarded as stale (set_discard_stale).
  bool control_sent(const AddrKey& f, const AddrKey& d, std::uint32_t from_receiver,
                    const Message& m, Time t) {
    if (!sequenced(f, d, from_receiver, m, t)) return false;
    if (from_receiver != kNone) {
      receiver_sent(from_receiver, f, d, m, t);
    } else {
      sender_sent(f, d, m, t);
    }
    return true;
  }

  // "Common Header": each message an originator sends on an association is numbered newer
  // than the one before ("Incremented by one for each message the originator sends on the
  // association ..., including retransmissions"); one that is not is discarded by its receiver
  // ("An endpoint MUST discard ..."), a fault of the originator. ASSOC_REQUEST, ASSOC_ACCEPT and
  // ERROR (UNKNOWN_ASSOCIATION) are exempt, and a new Epoch in ASSOC_ACCEPT restarts the
  // numbers; CONGESTION_REPORT is numbered per reporting port, not per association. False for
  // a message not newer that the observer discards (set_discard_stale).
  bool sequenced(const AddrKey& f, const AddrKey& d, std::uint32_t from_receiver, const Message& m,
                 Time t) {
    if (std::holds_alternative<CongestionReport>(m) || std::holds_alternative<AssocRequest>(m)) {
      return true;
    }
    if (const auto* e = std::get_if<ErrorMessage>(&m);
        e != nullptr && e->reason == static_cast<std::uint16_t>(ReasonCode::UnknownAssociation)) {
      return true;
    }
    const Header& h = header_of(m);
    // Association IDs are non-zero ("assigns a non-zero Association ID"): a message with ID 0,
    // such as the ERROR (ASSOC_REFUSED) to a request that was not admitted, belongs to no
    // association, so no Sequence Number of one binds it.
    if (h.association_id == 0) return true;
    // The originator's side: a receiver the checker knows, or else the message type's.
    bool from_rx = from_receiver != kNone;
    if (!from_rx && receiver_of(d) == kNone) {
      from_rx = info(type_of(m)).originator == Originator::Receiver ||
                std::holds_alternative<AssocAccept>(m);
    }
    const std::uint32_t ai =
        from_rx ? assoc(peer(f, d), h.association_id) : assoc(peer(d, f), h.association_id);
    AssocModel& a = assocs[ai];
    if (std::holds_alternative<AssocAccept>(m)) {
      if (a.numbered_epoch_known && a.numbered_epoch != h.epoch) {
        a.sent[0].seen = false;
        a.sent[1].seen = false;
      }
      a.numbered_epoch_known = true;
      a.numbered_epoch = h.epoch;
      return true;
    }
    AssocModel::Sent& o = a.sent[from_rx ? 1 : 0];
    if (o.seen && !serial_newer(h.sequence_number, o.newest)) {
      if (discard_stale) {
        ++stale;
        return false;
      }
      if (keeping()) {
        violate_by(t, rule::kSequence, from_rx ? Party::Receiver : Party::Sender,
                   "Sequence Number " + std::to_string(h.sequence_number) + " from the " +
                       (from_rx ? "receiver" : "sender") + " is not newer than " +
                       std::to_string(o.newest) + ", which it sent before" +
                       (o.message == m ? " (an identical copy)" : "") + ": " + format_line(m),
                   o.tag);
      }
      return true;
    }
    o.seen = true;
    o.newest = h.sequence_number;
    o.tag = tag;
    o.message = m;
    return true;
  }
  void control_delivered(const AddrKey& f, const AddrKey& d, std::uint32_t from_receiver,
                         std::uint32_t to_receiver, const Message& m, Time t) {
    if (to_receiver != kNone) {
      receiver_got(to_receiver, d, f, m, t);
    } else if (from_receiver != kNone) {
      sender_got(d, f, m, t);
    }
  }

  // The receiver (number `r`) sent a control message.
  void receiver_sent(std::uint32_t r, const AddrKey& rx, const AddrKey& tx, const Message& m,
                     Time t) {
    const Header& h = header_of(m);
    const std::uint32_t p = peer(rx, tx);
    const std::uint32_t ai = assoc(p, h.association_id);
    AssocModel& a = assocs[ai];
    // Anything but an ERROR (UNKNOWN_ASSOCIATION) naming it says the receiver holds it now (its
    // idle time may still run: only an ASSOC_ACCEPT, which makes it, restarts the checker's).
    if (const auto* e = std::get_if<ErrorMessage>(&m);
        a.maybe_removed &&
        (e == nullptr || e->reason != static_cast<std::uint16_t>(ReasonCode::UnknownAssociation))) {
      confirm_held(ai, t);
    }
    if (const auto* acc = std::get_if<AssocAccept>(&m)) {
      a.u = std::max(a.u, acc->unscheduled_limit);
      a.last_traffic = t;
      if (!a.accepted) {
        // Once: an association the receiver forgot (spec-notes 93) may be accepted again.
        std::vector<std::uint32_t>& accepted = peers[p].accepted;
        if (std::find(accepted.begin(), accepted.end(), ai) == accepted.end())
          accepted.push_back(ai);
      }
      if (!a.accepted || acc->parameter_update()) {
        a.u_accounted =
            a.accepted ? std::max(a.u_accounted, acc->unscheduled_limit) : acc->unscheduled_limit;
      }
      a.accepted = true;
      a.established = true;
      if (const PeerModel& pm = peers[p];
          pm.has_sender_nonce && pm.sender_nonce == acc->sender_nonce) {
        a.capabilities_known = true;
        a.pool_advertised = (pm.sender_capabilities & capability::kPool) != 0;
        a.offer_tag = pm.offer_tag;
      }
      a.epoch = h.epoch;
      a.nonce = acc->sender_nonce;
      a.u_current = acc->unscheduled_limit;
      a.j = acc->start_jitter;
      a.lifetime_us = acc->grant_lifetime;
      a.credit_unit = acc->credit_unit;
    } else if (const auto* g = std::get_if<CreditGrant>(&m)) {
      if (g->pacing_rate == 0 && keeping()) {
        violate(t, rule::kPacingRateZero, "receiver issued Pacing Rate 0: " + format_line(m));
      }
      pool_rules(a, *g, t);
      if (g->pool()) return;
      const std::uint32_t mi = msg(ai, g->message_id);
      MsgModel& msg = msgs[mi];
      if (msg.length_known && g->grant_limit > msg.length && keeping()) {
        violate(t, rule::kGrantBeyondLength,
                "Grant Limit " + std::to_string(g->grant_limit) + " beyond the length " +
                    std::to_string(msg.length) + ": " + format_line(m));
      }
      if (msg.length_known && g->final() != (g->grant_limit == msg.length) && keeping()) {
        violate(t, rule::kFinal,
                std::string(g->final() ? "FINAL set below" : "FINAL missing at") +
                    " the message length: " + format_line(m));
      }
      // A Grant Limit below an earlier one is no fault: it "only refreshes the Lifetime and Pacing
      // Rate; it never reduces credit" (Credit Requests and Grants, rule 1). The sender still holds
      // the largest limit, for a new Lifetime, and the budget counts that (docs/spec-notes.md,
      // "What the catalog counts as a requirement").
      msg.limit_sent = std::max(msg.limit_sent, g->grant_limit);
      // A grant after a CREDIT_RETURN or CANCEL is credit the receiver issued anew.
      msg.returned_limit = ~std::uint64_t{0};
      msg.cancelled = false;
      const Duration life = microseconds(g->effective_lifetime(a.lifetime_us));
      // An observer that sees the grant leave a little after the receiver decided to send it
      // allows the receiver that much earlier a reclamation (set_send_time_tolerance); the
      // grant always counts at the moment it is sent.
      const Duration live = life + receivers[r].d_max * 2 - send_time_tolerance;
      msg.grant_live_until = t + (live.ns > 0 ? live : Duration{1});
      schedule(mi, msg.grant_live_until);
      refresh(mi, t);
    } else if (const auto* c = std::get_if<Cancel>(&m)) {
      cancel_seen(ai, c->message_id, receivers[r].d_max, t);
    } else if (const auto* e = std::get_if<ErrorMessage>(&m)) {
      error_rules(a, *e, t);
      refused(ai, *e, t);
    } else if (const auto* done = std::get_if<MsgDone>(&m)) {
      const std::uint32_t mi = find_msg(ai, done->message_id);
      if (a.established && (mi == kNone || !msgs[mi].requested) && keeping()) {
        // Only where the association was accepted in view: otherwise its request may predate
        // what the checker saw.
        violate(t, rule::kMsgDone,
                "MSG_DONE for a message no CREDIT_REQUEST of which reached the receiver, on an "
                "association it accepted: " +
                    format_line(m));
      } else if (mi != kNone && !msgs[mi].complete && msgs[mi].length_known &&
                 msgs[mi].received < msgs[mi].length && keeping()) {
        violate(t, rule::kMsgDone,
                "MSG_DONE after " + std::to_string(msgs[mi].received) + " of " +
                    std::to_string(msgs[mi].length) + " octets: " + format_line(m));
      }
      if (mi != kNone) done_sent(mi);
    }
  }

  // "A grant with Message ID zero and the POOL flag set is a pool grant" (the flag: "Message ID
  // is zero"); and a pool grant only to a sender that advertised POOL ("Credit Requests and
  // Grants").
  void pool_rules(const AssocModel& a, const CreditGrant& g, Time t) {
    if (g.pool() != (g.message_id == 0)) {
      if (keeping()) {
        violate(
            t, rule::kPoolGrantId,
            std::string(g.pool() ? "the POOL flag with Message ID " + std::to_string(g.message_id)
                                 : "Message ID zero without the POOL flag") +
                ": the sender ignores the grant: " + format_line(g));
      }
    } else if (g.pool() && a.capabilities_known && !a.pool_advertised && keeping()) {
      violate(
          t, rule::kPoolUnadvertised,
          "pool grant to a sender whose ASSOC_REQUEST did not advertise POOL: " + format_line(g),
          a.offer_tag);
    }
  }

  // Where the receiver may send ERROR ("Error Handling and Recovery"): UNSUPPORTED_TYPE only on
  // an established association (to its bound address: the pair's sender), UNKNOWN_ASSOCIATION
  // only in answer to a message of the sender naming that Association ID.
  void error_rules(const AssocModel& a, const ErrorMessage& e, Time t) {
    const auto reason = static_cast<ReasonCode>(e.reason);
    if (reason == ReasonCode::UnsupportedType && !a.established && keeping()) {
      violate(t, rule::kUnsupportedTypeReply,
              "ERROR (UNSUPPORTED_TYPE) to a sender with no association accepted with this "
              "Association ID: " +
                  format_line(e));
    } else if (reason == ReasonCode::UnknownAssociation && !a.requested && keeping()) {
      violate(t, rule::kUnknownAssociationReply,
              "ERROR (UNKNOWN_ASSOCIATION) with no message from the sender naming this "
              "Association ID before it: " +
                  format_line(e));
    }
  }

  // A request the receiver refused ("Transport Bindings", "Security Considerations"): it holds
  // nothing for that message, so its window and length are forgotten.
  void refused(std::uint32_t ai, const ErrorMessage& e, Time t) {
    const auto reason = static_cast<ReasonCode>(e.reason);
    if (reason == ReasonCode::UnknownAssociation) {
      forget_association(ai, e.header.epoch, t);
      return;
    }
    if (reason != ReasonCode::UnsupportedBinding && reason != ReasonCode::MessageTooLarge &&
        reason != ReasonCode::BudgetExhausted) {
      return;
    }
    const std::uint32_t mi = find_msg(ai, e.message_id);
    if (mi == kNone || msgs[mi].limit_sent != 0) return;
    msgs[mi].window = 0;
    msgs[mi].length_known = false;
    refresh(mi, t);
  }

  // The receiver sent a message naming an association the checker thought it may have removed
  // as idle (AssocModel::maybe_removed): it holds it, and the windows announced meanwhile
  // count.
  void confirm_held(std::uint32_t ai, Time t) {
    assocs[ai].maybe_removed = false;
    for (const std::uint32_t mi : assocs[ai].windowed) {
      if (!msgs[mi].window_unconfirmed) continue;
      msgs[mi].window_unconfirmed = false;
      refresh(mi, t);
    }
  }

  // The receiver answered ERROR (UNKNOWN_ASSOCIATION) to a request of an association it had
  // accepted, naming its Epoch: it has removed it ("A receiver MAY remove an association that has
  // carried no traffic for a locally configured idle time ...; it reclaims all credit of that
  // association when doing so"), which the checker cannot see happen. What the association's
  // messages held is released, and what its sender sends later is not the receiver's (spec-notes
  // 93).
  void forget_association(std::uint32_t ai, std::uint16_t epoch, Time t) {
    AssocModel& a = assocs[ai];
    if (!a.accepted || a.epoch != epoch || !a.request_in_incarnation) return;
    a.accepted = false;
    a.u_accounted = 0;
    a.maybe_removed = false;
    for (std::uint32_t mi = 0; mi < msgs.size(); ++mi) {  // a rare message: a walk will do
      MsgModel& m = msgs[mi];
      if (m.assoc != ai) continue;
      m.grant_live_until = std::min(m.grant_live_until, t);
      m.window_live_until = std::min(m.window_live_until, t);
      refresh(mi, t);
    }
  }

  // "the credit of a cancelled message no earlier than 2 * D_max after it sent or received
  // the CANCEL" ("Receiver Credit Budget"): the first CANCEL starts the delay.
  void cancel_seen(std::uint32_t ai, std::uint64_t message_id, Duration d_max, Time t) {
    const std::uint32_t mi = find_msg(ai, message_id);
    if (mi == kNone || msgs[mi].cancelled) return;
    msgs[mi].cancelled = true;
    msgs[mi].cancel_reclaim_from = t + d_max * 2;
    schedule(mi, msgs[mi].cancel_reclaim_from);
  }

  // Octets of unscheduled windows of the association's messages still counted at `t`. A window
  // that has lapsed leaves the list (a new request for its message lists it again): the walk
  // covers the live windows, not every unscheduled message the association ever had, which made
  // `rdcc pcap check` quadratic in them. Time runs forward here; a capture whose timestamps step
  // back could only see fewer windows, and so judge more leniently, never falsely.
  std::uint64_t live_windows(AssocModel& a, std::uint32_t except, Time t) {
    std::uint64_t sum = 0;
    std::vector<std::uint32_t>& listed = a.windowed;
    for (std::size_t i = 0; i < listed.size();) {
      const std::uint32_t mi = listed[i];
      MsgModel& m = msgs[mi];
      if (t >= m.window_live_until) {
        m.windowed = false;
        listed[i] = listed.back();
        listed.pop_back();
        continue;
      }
      if (mi != except && !m.complete) sum += m.window > m.received ? m.window - m.received : 0;
      ++i;
    }
    return sum;
  }

  // A receiver (number `r`) got a control message from a sender. It counts what the receiver
  // must process: messages of an association it accepted for that address, with its Epoch and
  // a Sequence Number newer than the newest processed ("Common Header"). Anything else the
  // receiver discards, or answers with ERROR (UNKNOWN_ASSOCIATION), and holds no credit for.
  void receiver_got(std::uint32_t r, const AddrKey& rx, const AddrKey& tx, const Message& m,
                    Time t) {
    const Header& h = header_of(m);
    const std::uint32_t p = peer(rx, tx);
    if (const auto* q = std::get_if<AssocRequest>(&m)) {
      update_acknowledged(p, *q);
      return;
    }
    if (std::holds_alternative<CongestionReport>(m)) return;
    {
      // What the receiver's ERROR (UNKNOWN_ASSOCIATION) and MSG_DONE may answer, processed or
      // not (error_rules, receiver_sent): any message naming the association (the spec has the
      // reply answer a CREDIT_REQUEST and forbids it nowhere else), a request for the message.
      const std::uint32_t asked = assoc(p, h.association_id);
      assocs[asked].requested = true;
      if (const auto* req = std::get_if<CreditRequest>(&m)) {
        msgs[msg(asked, req->message_id)].requested = true;
      }
    }
    const std::uint32_t ai = find_assoc(p, h.association_id);
    if (ai == kNone) return;
    if (std::holds_alternative<CreditRequest>(m)) {
      // Whether an ERROR (UNKNOWN_ASSOCIATION) that answers it says the receiver removed the
      // association, or only that this request named another Epoch (spec-notes 93).
      assocs[ai].request_in_incarnation = assocs[ai].accepted && assocs[ai].epoch == h.epoch;
    }
    if (!assocs[ai].accepted || assocs[ai].epoch != h.epoch) return;
    AssocModel& a = assocs[ai];
    if (a.have_seq_in && !processed(h.sequence_number, a.newest_seq_in)) return;
    // Only what the receiver processes keeps the association alive for the checker: it may
    // only ever see it idle longer than the receiver does.
    if (t - a.last_traffic >= kIdleUnseen) a.maybe_removed = true;
    a.last_traffic = t;
    a.have_seq_in = true;
    a.newest_seq_in = h.sequence_number;
    if (const auto* c = std::get_if<Cancel>(&m)) {
      cancel_seen(ai, c->message_id, receivers[r].d_max, t);
      return;
    }
    if (const auto* ret = std::get_if<CreditReturn>(&m)) {
      // The sender will not transmit beyond New Limit: the receiver may release the rest at
      // once (docs/spec-notes.md, 65).
      if (const std::uint32_t mi = find_msg(ai, ret->message_id); mi != kNone) {
        msgs[mi].returned_limit = std::min(msgs[mi].returned_limit, ret->new_limit);
        refresh(mi, t);
      }
      return;
    }
    const auto* req = std::get_if<CreditRequest>(&m);
    if (req == nullptr || req->message_id == 0) return;  // "zero is reserved"
    const std::uint32_t mi = msg(ai, req->message_id);
    MsgModel& msg = msgs[mi];
    if (!msg.length_known) {  // a message's length is the one its first request announced
      msg.length = req->message_length;
      msg.length_known = true;
    }
    // The request's association, for data that arrives without one; once the receiver has
    // accepted an association for this sender, data is counted for that one instead (and
    // always will be), so the request's need not be kept.
    if (const auto known = peer_msg_index.find(MsgKey{p, req->message_id});
        known != peer_msg_index.end() || peers[p].accepted.empty()) {
      PeerMsgModel& pm =
          known != peer_msg_index.end() ? peer_msgs[known->second] : peer_msg(p, req->message_id);
      pm.has_association = true;
      pm.association = h.association_id;
      msg.received += pm.early;
      pm.early = 0;
    }
    if (req->unscheduled_sent != 0 && msg.window == 0) {
      // Announced octets count up to the U the receiver accounts for the association, less
      // what its other messages still hold: beyond that they are data beyond the credit
      // ("Error Handling and Recovery"), not credit the receiver issued.
      const std::uint64_t others = live_windows(a, mi, t);
      const std::uint64_t allowed = a.u_accounted > others ? a.u_accounted - others : 0;
      msg.window = std::min({req->unscheduled_sent, msg.length, allowed});
      msg.window_unconfirmed = a.maybe_removed;
      msg.window_live_until =
          t + microseconds(a.j) + microseconds(a.lifetime_us) + receivers[r].d_max * 2;
      schedule(mi, msg.window_live_until);
      if (!msg.windowed) {
        msg.windowed = true;
        a.windowed.push_back(mi);
      }
    } else if (req->unscheduled_sent < msg.window) {
      msg.window = req->unscheduled_sent;  // converted: the octets actually transmitted
    }
    refresh(mi, t);
  }

  // ASSOC_REQUEST with Update Acknowledgment: the receiver may account the new U alone.
  void update_acknowledged(std::uint32_t p, const AssocRequest& q) {
    if (!q.update_acknowledgment()) return;
    for (AssocModel& a : assocs) {  // a rare message: a walk over all associations will do
      if (a.peer == p && a.accepted && a.nonce == q.sender_nonce) a.u_accounted = a.u_current;
    }
  }

  // A sender got a control message from a receiver: the credit it may use.
  void sender_got(const AddrKey& tx, const AddrKey& rx, const Message& m, Time t) {
    const Header& h = header_of(m);
    const std::uint32_t p = peer(rx, tx);
    const std::uint32_t ai = assoc(p, h.association_id);
    AssocModel& a = assocs[ai];
    if (const auto* acc = std::get_if<AssocAccept>(&m)) {
      // "A sender accepts a new Epoch only from an ASSOC_ACCEPT that echoes its current Sender
      // Nonce" and then "resets the newest processed Sequence Number"; the same incarnation's
      // parameters change only by a fresh Parameter Update (Association Establishment).
      PeerModel& pm = peers[p];
      if (pm.has_sender_nonce && pm.sender_nonce != acc->sender_nonce) return;
      // "assigns a non-zero Association ID": the sender refuses an accept of zero as it refuses
      // a wrong nonce (docs/spec-notes.md, 88).
      if (h.association_id == 0) return;
      // An ASSOC_ACCEPT echoing a newer nonce than the incarnation's (the sender associated
      // again) starts one too, even with the same Epoch: it carries the association's parameters.
      const bool new_nonce = pm.has_sender_nonce && a.accepted_nonce != acc->sender_nonce;
      // So does one naming another association than the sender's current one, even an earlier
      // incarnation the checker holds with this Epoch (docs/spec-notes.md, 88).
      const bool other = pm.has_sender_current && pm.sender_current != ai;
      const bool incarnation =
          !a.sender_accepted || a.sender_epoch != h.epoch || new_nonce || other;
      if (incarnation) {
        // Known only where the checker saw the nonce: without it, an accept the sender refused
        // could not be told from one it took, and each association keeps its own Epoch (162).
        pm.has_sender_current = pm.has_sender_nonce;
        pm.sender_current = ai;
        a.sender_accepted = true;
        a.status_bounded = a.status_bounded || pm.has_sender_nonce;
        a.sender_epoch = h.epoch;
        a.accepted_nonce = acc->sender_nonce;
        a.u = 0;
        // The accept is the first message processed in the incarnation: what is numbered at or
        // before it is not newer (docs/spec-notes.md, 85).
        a.have_seq = true;
        a.newest_seq = h.sequence_number;
        a.pool_limit = 0;
        a.pool_used = 0;
        a.pool_valid_until = Time{};
        a.pool_pending = false;
        a.pool_pending_limit = 0;
        a.pool_pending_life = Duration{};
        // A new incarnation's receiver knows nothing of the old one's unscheduled message, and
        // the sender re-requests it in scheduled mode ("drop credit; re-establish; send
        // CREDIT_REQUEST", Sender Message State Machine): it is no longer outstanding.
        a.unsched_outstanding = false;
      } else if (a.have_seq && !processed(h.sequence_number, a.newest_seq)) {
        return;
      } else {
        // Within the incarnation the accept is sequence-checked like any other message and,
        // when newer, processed: a repeated accept without Parameter Update changes nothing
        // but its Sequence Number is the newest processed (docs/spec-notes.md, 87).
        a.have_seq = true;
        a.newest_seq = h.sequence_number;
        if (!acc->parameter_update()) return;
      }
      a.u = std::max(a.u, acc->unscheduled_limit);
      a.lifetime_us = acc->grant_lifetime;
      a.credit_unit = acc->credit_unit;
      return;
    }
    // ERROR (UNKNOWN_ASSOCIATION) is exempt from the sequence check and gives no credit, but
    // ends the association's unscheduled message; anything else counts only within the
    // incarnation the sender accepted.
    if (const auto* e = std::get_if<ErrorMessage>(&m);
        e != nullptr && e->reason == static_cast<std::uint16_t>(ReasonCode::UnknownAssociation)) {
      discard_sender_credit(ai, t);
      end_unscheduled(ai, m);
      return;
    }
    // A sender processes only these types from a receiver; any other (SENDER_STATUS,
    // CREDIT_REQUEST, ...) it discards unprocessed, so its Sequence Number is not "the newest
    // one it has already processed" (docs/spec-notes.md, 75).
    if (!std::holds_alternative<CreditGrant>(m) && !std::holds_alternative<MsgDone>(m) &&
        !std::holds_alternative<Cancel>(m) && !std::holds_alternative<ErrorMessage>(m)) {
      return;
    }
    if (!a.sender_accepted || h.epoch != a.sender_epoch) return;
    if (const PeerModel& pm = peers[p]; pm.has_sender_current && pm.sender_current != ai) return;
    // The sender must discard what is not newer; it may use only what it may accept.
    if (a.have_seq && !processed(h.sequence_number, a.newest_seq)) return;
    a.have_seq = true;
    a.newest_seq = h.sequence_number;
    end_unscheduled(ai, m);
    if (const auto* done = std::get_if<MsgDone>(&m)) done_delivered(ai, done->message_id);
    const auto* g = std::get_if<CreditGrant>(&m);
    if (g == nullptr || !g->usable()) return;
    // "A grant with Message ID zero and the POOL flag set is a pool grant"; the POOL flag with
    // a Message ID, or Message ID zero without it, is neither that nor a grant for a message:
    // it gives no credit and refreshes no Lifetime (docs/spec-notes.md, 81).
    if (g->pool() != (g->message_id == 0)) return;
    const Duration life = microseconds(g->effective_lifetime(a.lifetime_us));
    const Time valid_until = t + life;
    if (g->pool()) {
      a.pool_granted = std::max(a.pool_granted, g->grant_limit);
      if (reception_unseen) {
        if (!a.pool_pending) a.pool_pending_from = t;
        a.pool_pending = true;
        a.pool_pending_limit = std::max(a.pool_pending_limit, g->grant_limit);
        a.pool_pending_life = std::max(a.pool_pending_life, life);
        // As for a message's grant (pend): the higher rate until reception is shown.
        a.pool_pending_rate = g->pacing_rate;
        a.pool_rate = std::max(a.pool_rate, g->pacing_rate);
        return;
      }
      a.pool_limit = std::max(a.pool_limit, g->grant_limit);
      a.pool_valid_until = valid_until;
      a.pool_rate = g->pacing_rate;
      return;
    }
    MsgModel& msg = msgs[this->msg(ai, g->message_id)];
    set_unused_term(a, msg, std::max(msg.granted_max, g->grant_limit), msg.sent_end);
    if (!msg.sender_knows) {
      // A grant for a message the sender has not shown it holds (a Message ID it has not used
      // yet): the sender may have ignored it as for an unknown message, and send the message,
      // once it exists, under the pool or a later grant. Neither its Grant Limit nor its Pacing
      // Rate binds how those octets are judged; it only excuses octets that nothing else covers
      // (docs/spec-notes.md, 94).
      if (msg.early == kNone) msg.early = early_grants.take();
      EarlyGrant& e = early_grants[msg.early];
      e.limit = std::max(e.limit, g->grant_limit);
      e.valid_until = valid_until;
      return;
    }
    if (reception_unseen) {
      pend(msg, *g, life, t);
      return;
    }
    msg.held_limit = std::max(msg.held_limit, g->grant_limit);
    msg.held_valid_until = valid_until;
    msg.discarded = false;
    set_rate(msg, g->pacing_rate);
  }

  // "A sender that receives ERROR (UNKNOWN_ASSOCIATION) carrying its Association ID MUST
  // discard all credit held for that association": every grant of its messages and its pool
  // lapses at `at` (data after it, beyond the timing tolerance, breaks RDCC-ASSOC-04), and what
  // was pending is dropped. Credit comes again only from grants of the association it
  // re-establishes.
  void discard_sender_credit(std::uint32_t ai, Time at) {
    AssocModel& a = assocs[ai];
    if (!a.sender_accepted) return;
    // Data of the same instant is not after it: a sender may have sent it (a burst) before it
    // read the ERROR; an observer that does not see the sender read it allows the slack.
    const Time t = at + Duration{1} + discard_slack;
    a.pool_valid_until = std::min(a.pool_valid_until, t);
    a.pool_pending = false;
    a.pool_pending_limit = 0;
    a.pool_pending_life = Duration{};
    for (const auto& [key, index] : msg_index) {
      if (key.owner != ai) continue;
      MsgModel& msg = msgs[index];
      if (msg.pending != kNone) {
        // A grant no data has yet shown received may have reached the sender before the ERROR
        // (it was sent first): the sender held that credit too, for its Lifetime from when it
        // read it and until it read the ERROR (the slack covers both reads).
        const PendingGrant& p = pending_grants[msg.pending];
        if (p.from <= at) {
          msg.held_limit = std::max(msg.held_limit, p.limit);
          msg.held_valid_until = std::max(msg.held_valid_until, p.from + p.life + (t - at));
        }
        pending_grants.give(msg.pending);
        msg.pending = kNone;
      }
      if (msg.held_valid_until > t) {
        msg.held_valid_until = t;
        msg.discarded = true;
      }
      if (msg.early != kNone) {
        EarlyGrant& e = early_grants[msg.early];
        e.valid_until = std::min(e.valid_until, t);
      }
    }
  }

  // A grant delivered where its reception is unseen: kept pending until data shows it was
  // received. Until then the message is paced against the higher of its old and new rates (the
  // sender may already send at the new one); a lower rate binds from the proof on.
  void pend(MsgModel& msg, const CreditGrant& g, Duration life, Time t) {
    if (msg.pending == kNone) {
      msg.pending = pending_grants.take();
      pending_grants[msg.pending].from = t;
    }
    PendingGrant& p = pending_grants[msg.pending];
    p.limit = std::max(p.limit, g.grant_limit);
    p.life = std::max(p.life, life);
    p.rate = g.pacing_rate;
    if (g.pacing_rate > msg.rate) set_rate(msg, g.pacing_rate);
  }

  void set_rate(MsgModel& msg, std::uint32_t rate) {
    // A new rate binds what is sent after the grant's reception: the octets sent under the
    // old rate are not judged against it (docs/spec-notes.md, 42).
    if (rate != msg.rate && msg.paced != kNone) pacing_windows[msg.paced].clear();
    msg.rate = rate;
  }

  // Data at `t` that the held grant does not cover: the pending grants delivered by then were
  // received by `t` at the latest, so their Lifetime runs from `t` (set_grant_reception_unseen).
  void take_pending(MsgModel& msg, Time t) {
    if (msg.pending == kNone) return;
    const PendingGrant p = pending_grants[msg.pending];
    if (t < p.from) return;
    pending_grants.give(msg.pending);
    msg.held_limit = std::max(msg.held_limit, p.limit);
    msg.held_valid_until = t + p.life;
    msg.discarded = false;
    set_rate(msg, p.rate);
  }

  static void take_pool_pending(AssocModel& a, Time t) {
    if (!a.pool_pending || t < a.pool_pending_from) return;
    a.pool_pending = false;
    a.pool_limit = std::max(a.pool_limit, a.pool_pending_limit);
    a.pool_valid_until = t + a.pool_pending_life;
    a.pool_rate = a.pool_pending_rate;
    a.pool_pending_limit = 0;
    a.pool_pending_life = Duration{};
  }

  // A message's part of its association's unused_bound: its highest Grant Limit beyond what it
  // sent. Sets both and keeps the sum.
  static void set_unused_term(AssocModel& a, MsgModel& m, std::uint64_t granted,
                              std::uint64_t sent) {
    // A part of a TiB or more bounds nothing, and summed it could wrap: counted apart; below it,
    // even 2^23 messages' parts sum below 2^63.
    const auto replace = [&a](std::uint64_t& sum, std::uint64_t before, std::uint64_t after) {
      if (before >= kUnboundedCredit) {
        --a.unbounded_terms;
      } else {
        sum -= before;
      }
      if (after >= kUnboundedCredit) {
        ++a.unbounded_terms;
      } else {
        sum += after;
      }
    };
    const auto term = [](std::uint64_t g, std::uint64_t s) { return g > s ? g - s : 0; };
    replace(a.granted_sum, m.granted_max, granted);
    replace(a.unused_bound, term(m.granted_max, m.sent_end), term(granted, sent));
    m.granted_max = granted;
    m.sent_end = sent;
  }

  // "SENDER_STATUS carries the Unused Credit on that association" (RDCC-STATUS-04): never more
  // than all credit delivered on it and not used (docs/spec-notes.md 176).
  void status_sent(std::uint32_t ai, const SenderStatus& st, Time t) {
    const AssocModel& a = assocs[ai];
    if (!a.status_bounded || !keeping()) return;
    // Each part is small (else there is no ceiling), so the sum cannot wrap.
    if (a.unbounded_terms != 0 || a.pool_granted >= kUnboundedCredit ||
        a.recent_sent >= kUnboundedCredit) {
      return;
    }
    // In virtual time (no tolerance) the octets sent before the status's instant are used;
    // in real time, none: the sender composed the status at a time the observer cannot see.
    const std::uint64_t bound =
        tolerance.ns == 0 ? a.unused_bound + a.pool_granted + (t == a.recent_at ? a.recent_sent : 0)
                          : a.granted_sum + a.pool_granted;
    if (st.unused_credit <= bound) return;
    violate(t, rule::kStatusUnused,
            "SENDER_STATUS reports " + std::to_string(st.unused_credit) +
                " octets of Unused Credit on association " +
                std::to_string(st.header.association_id) + ", more than the " +
                std::to_string(bound) +
                (tolerance.ns == 0
                     ? " octets of credit delivered on it and not yet used (every grant's highest "
                       "Grant Limit beyond the octets sent before that instant, and the pool's)"
                     : " octets of credit delivered on it (every grant's highest Grant Limit, "
                       "and the pool's)"));
  }

  void sender_sent(const AddrKey& tx, const AddrKey& rx, const Message& m, Time t) {
    if (const auto* q = std::get_if<AssocRequest>(&m);
        q != nullptr && !q->update_acknowledgment()) {
      PeerModel& pm = peers[peer(rx, tx)];
      pm.has_sender_nonce = true;
      pm.sender_nonce = q->sender_nonce;
      pm.sender_capabilities = q->capabilities;
      pm.offer_tag = tag;
      return;
    }
    if (const auto* st = std::get_if<SenderStatus>(&m)) {
      const std::uint32_t p = peer_index.find({rx, tx});
      const std::uint32_t ai = p == kNone ? kNone : find_assoc(p, st->header.association_id);
      if (ai != kNone) status_sent(ai, *st, t);
      return;
    }
    const bool cancel = std::holds_alternative<Cancel>(m);
    const auto* req = std::get_if<CreditRequest>(&m);
    const auto* ret = std::get_if<CreditReturn>(&m);
    if (!cancel && req == nullptr && ret == nullptr) return;
    const std::uint32_t ai = assoc(peer(rx, tx), header_of(m).association_id);
    if (ret != nullptr) {
      // "New Limit MUST NOT be smaller than the octets already transmitted": the octets this
      // observer saw it send before the CREDIT_RETURN (one it reads later can only hide a
      // violation, never invent one).
      const std::uint32_t mi = find_msg(ai, ret->message_id);
      if (mi != kNone && ret->new_limit < msgs[mi].sent_end && keeping()) {
        violate(t, rule::kCreditReturnFloor,
                "New Limit " + std::to_string(ret->new_limit) + " below the " +
                    std::to_string(msgs[mi].sent_end) + " octets of message " +
                    std::to_string(ret->message_id) + " already transmitted: " + format_line(m));
      }
      return;
    }
    if (cancel) {
      if (const std::uint64_t id = std::get<Cancel>(m).message_id; id != 0) {
        msgs[msg(ai, id)].sender_knows = true;
      }
      end_unscheduled(ai, m);
      return;
    }
    MsgModel& msg = msgs[this->msg(ai, req->message_id)];
    msg.sender_knows = true;
    if (!msg.length_known) msg.length = req->message_length;
    msg.announced_unsched = std::max(msg.announced_unsched, req->unscheduled_sent);
    if (req->unscheduled_sent == 0 || msg.unsched_ended) return;
    // "MUST NOT have more than one unscheduled message outstanding on an association"
    AssocModel& a = assocs[ai];
    if (a.unsched_outstanding && a.unsched_message != req->message_id) {
      if (keeping()) {
        violate(t, rule::kUnscheduledOutstanding,
                "unscheduled message " + std::to_string(req->message_id) +
                    " announced while message " + std::to_string(a.unsched_message) +
                    " is still outstanding (no MSG_DONE or CREDIT_GRANT for it yet): " +
                    format_line(m));
      }
      return;
    }
    a.unsched_outstanding = true;
    a.unsched_message = req->message_id;
  }

  // "an unscheduled message stops being outstanding when the sender receives MSG_DONE or a
  // CREDIT_GRANT for it"; also when it ends otherwise (CANCEL, ERROR for it), and all of an
  // association's on ERROR (UNKNOWN_ASSOCIATION), where the sender drops everything.
  void end_unscheduled(std::uint32_t ai, const Message& m) {
    std::uint64_t id = 0;
    if (const auto* d = std::get_if<MsgDone>(&m)) {
      id = d->message_id;
    } else if (const auto* g = std::get_if<CreditGrant>(&m);
               g != nullptr && g->usable() && !g->pool()) {
      id = g->message_id;
    } else if (const auto* c = std::get_if<Cancel>(&m)) {
      id = c->message_id;
    } else if (const auto* e = std::get_if<ErrorMessage>(&m)) {
      if (e->reason == static_cast<std::uint16_t>(ReasonCode::UnknownAssociation)) {
        assocs[ai].unsched_outstanding = false;
        return;
      }
      id = e->message_id;
    } else {
      return;
    }
    if (id == 0) return;
    // Only a message the sender holds: it ignores one for a Message ID it has not used yet, and
    // that ID's unscheduled message, once sent, is outstanding (docs/spec-notes.md, 94).
    const std::uint32_t mi = find_msg(ai, id);
    if (mi == kNone || !msgs[mi].sender_knows) return;
    msgs[mi].unsched_ended = true;
    AssocModel& a = assocs[ai];
    if (a.unsched_outstanding && a.unsched_message == id) a.unsched_outstanding = false;
  }

  void segment(const AddrKey& tx, const DataSegment& s, Time t) {
    // Association ID zero is no association ("assigns a non-zero Association ID"): data the
    // sender sends without RDCC once its attempts went unanswered ("sends without it",
    // Association Establishment), which no rule of credit binds (docs/spec-notes.md 151).
    if (s.association_id == 0) return;
    const std::uint32_t ai = assoc(peer(key_of(s.receiver), tx), s.association_id);
    MsgModel& msg = msgs[this->msg(ai, s.message_id)];
    msg.sender_knows = true;
    AssocModel& a = assocs[ai];
    const std::uint64_t end = s.offset + s.length;
    if (end > msg.sent_end) {
      if (t > a.recent_at) {
        a.recent_sent = 0;
        a.recent_at = t;
      }
      a.recent_sent = std::min(kUnboundedCredit,
                               a.recent_sent + std::min(kUnboundedCredit, end - msg.sent_end));
    }
    set_unused_term(a, msg, msg.granted_max, std::max(msg.sent_end, end));
    if (s.unscheduled) {
      // "MUST send a CREDIT_REQUEST ... no later than the first data packet, with the
      // Unscheduled Sent field set to the message length"; the message is at most U.
      if (end > msg.announced_unsched && keeping()) {
        violate(t, rule::kUnscheduledAnnounced,
                "unscheduled octets up to " + std::to_string(end) + " of message " +
                    std::to_string(s.message_id) + " without a CREDIT_REQUEST announcing them");
      }
      if (msg.announced_unsched > a.u && keeping()) {
        violate(t, rule::kUnscheduledBeyondU,
                "unscheduled message of " + std::to_string(msg.announced_unsched) +
                    " octets with U = " + std::to_string(a.u));
      }
      return;
    }
    // No credit covers octets past the message's end: a grant never goes beyond the length
    // (RDCC-GRANT-07), and pool credit covers the association's messages, not more than they
    // hold (docs/spec-notes.md 175).
    if (msg.length != 0 && end > msg.length) {
      if (keeping()) {
        violate(t, rule::kSenderCredit,
                "octets " + std::to_string(s.offset) + ".." + std::to_string(end) + " of message " +
                    std::to_string(s.message_id) + " beyond its length " +
                    std::to_string(msg.length) + " (no grant, own or pool, covers them)");
      }
      return;
    }
    if (end <= msg.held_limit && t < msg.held_valid_until + tolerance) {
      if (pool_instead(msg, a, s, t)) return;
      check_pacing(msg, a, s, t);
      return;
    }
    take_pending(msg, t);
    if (end <= msg.held_limit && t < msg.held_valid_until + tolerance) {
      check_pacing(msg, a, s, t);
      return;
    }
    if (end <= msg.pool_sent_end && t < a.pool_valid_until + tolerance) {  // a resend
      check_pool_pacing(msg, a, s, t);
      return;
    }
    if (!(t < a.pool_valid_until + tolerance && a.pool_used + s.length <= a.pool_limit)) {
      take_pool_pending(a, t);
    }
    if (t < a.pool_valid_until + tolerance && a.pool_used + s.length <= a.pool_limit) {
      a.pool_used += s.length;
      msg.pool_sent_end = std::max(msg.pool_sent_end, end);
      check_pool_pacing(msg, a, s, t);
      return;
    }
    if (msg.early != kNone) {
      const EarlyGrant& e = early_grants[msg.early];
      if (end <= e.limit && t < e.valid_until + tolerance) return;
    }
    if (!keeping()) return;
    if (end <= msg.held_limit && msg.discarded) {
      violate(t, rule::kCreditDiscarded,
              "octets " + std::to_string(s.offset) + ".." + std::to_string(end) + " of message " +
                  std::to_string(s.message_id) + " sent " +
                  format_duration(t - msg.held_valid_until) +
                  " after ERROR (UNKNOWN_ASSOCIATION) for its association reached the sender, "
                  "under the credit it had to discard (Grant Limit " +
                  std::to_string(msg.held_limit) + ")" +
                  (tolerance.ns != 0 ? " (tolerance " + format_duration(tolerance) + ")"
                                     : std::string()));
      return;
    }
    if (end <= msg.held_limit) {
      // Rule 3: "MUST NOT transmit under a grant after the Lifetime of that grant has elapsed"
      violate(t, rule::kGrantExpired,
              "octets " + std::to_string(s.offset) + ".." + std::to_string(end) + " of message " +
                  std::to_string(s.message_id) + " sent " +
                  format_duration(t - msg.held_valid_until) +
                  " after the Lifetime of its grant (Grant Limit " +
                  std::to_string(msg.held_limit) + ") had elapsed" +
                  (reception_unseen ? std::string(", counted from the first data only that grant "
                                                  "authorized")
                                    : std::string()) +
                  (tolerance.ns != 0 ? " (tolerance " + format_duration(tolerance) + ")"
                                     : std::string()));
      return;
    }
    violate(t, rule::kSenderCredit,
            "octets " + std::to_string(s.offset) + ".." + std::to_string(end) + " of message " +
                std::to_string(s.message_id) + " sent with " +
                (t < msg.held_valid_until ? "Grant Limit " + std::to_string(msg.held_limit)
                                          : std::string("no grant within its Lifetime")));
  }

  // A passive observer cannot know the sender's mode: octets no live grant covers that lie
  // within the message's announced unscheduled window were sent unscheduled.
  bool inferred_unscheduled(const AddrKey& tx, const DataSegment& s, Time t) {
    const std::uint32_t p = peer_index.find({key_of(s.receiver), tx});
    if (p == kNone) return false;
    const std::uint32_t ai = find_assoc(p, s.association_id);
    if (ai == kNone) return false;
    const std::uint32_t mi = find_msg(ai, s.message_id);
    if (mi == kNone) return false;
    const MsgModel& msg = msgs[mi];
    const std::uint64_t end = s.offset + s.length;
    if (end <= msg.held_limit && t < msg.held_valid_until + tolerance) return false;
    if (msg.pending != kNone && end <= pending_grants[msg.pending].limit) return false;
    return end <= msg.announced_unsched;
  }

  // Rule 4's interval: the transmission time of ten Credit Units at the message's rate.
  static Duration pacing_window(std::uint32_t rate, const AssocModel& a) {
    return transmission_time(10ULL * a.credit_unit, rate);
  }
  // The octets that may start within one such interval, (t - interval, t]: ten Credit Units
  // and `last`, the segment that starts at its end, t (its transmission lies after the
  // interval). An observer away from the sender may see packets closer together than they were
  // sent (set_timing_tolerance): the rate's worth of the tolerance more. (Eleven Credit Units
  // before: a sender of segments shorter than a Credit Unit could average over eleven.)
  [[nodiscard]] std::uint64_t pacing_allowance(std::uint32_t rate, const AssocModel& a,
                                               std::uint64_t last) const {
    return 10ULL * a.credit_unit + last + octets_in(tolerance, rate);
  }

  // Octets below the message's own Grant Limit that its own grant's pace would not admit now,
  // while the association's pool credit covers them: the sender may have sent them under the
  // pool (pool grants "cover all scheduled messages of the association"), for example just
  // before it read the own grant, in the same instant. Counted as pool octets; true if so.
  bool pool_instead(MsgModel& msg, AssocModel& a, const DataSegment& s, Time t) {
    if (msg.rate == 0 || a.credit_unit == 0 || msg.paced == kNone) return false;
    if (!(t < a.pool_valid_until + tolerance && a.pool_used + s.length <= a.pool_limit)) {
      return false;
    }
    const Duration window = pacing_window(msg.rate, a);
    std::uint64_t octets = s.length;
    for (const auto& [when, n] : pacing_windows[msg.paced]) {
      if (t - when < window) octets += n;
    }
    if (octets <= pacing_allowance(msg.rate, a, s.length)) return false;
    a.pool_used += s.length;
    msg.pool_sent_end = std::max(msg.pool_sent_end, s.offset + s.length);
    check_pool_pacing(msg, a, s, t);
    return true;
  }

  // "MUST NOT transmit the message faster than the Pacing Rate, averaged over any interval
  // equal to the transmission time of ten Credit Units at that rate": octets whose
  // transmission starts within one such interval may not exceed ten Credit Units plus the
  // segment that starts at its end.
  void check_pacing(MsgModel& msg, const AssocModel& a, const DataSegment& s, Time t) {
    if (msg.rate == 0 || a.credit_unit == 0) return;
    if (msg.paced == kNone) msg.paced = pacing_windows.take();
    paced(pacing_windows[msg.paced], msg.rate, a, s, t, "");
  }
  // The same for its octets sent under the pool grant, at the pool grant's Pacing Rate: each
  // message no faster than it (rule 4 names "the message"; the sender may pace the pool's
  // messages together, which keeps each within it). A new rate binds from its reception on.
  void check_pool_pacing(MsgModel& msg, const AssocModel& a, const DataSegment& s, Time t) {
    if (a.pool_rate == 0 || a.credit_unit == 0) return;
    if (msg.pool_paced == kNone) msg.pool_paced = pacing_windows.take();
    auto& recent = pacing_windows[msg.pool_paced];
    if (msg.pool_rate != a.pool_rate) {
      recent.clear();
      msg.pool_rate = a.pool_rate;
    }
    paced(recent, a.pool_rate, a, s, t, " under its association's pool grant");
  }
  void paced(std::vector<std::pair<Time, std::uint32_t>>& recent, std::uint32_t rate,
             const AssocModel& a, const DataSegment& s, Time t, const char* under) {
    const Duration window = pacing_window(rate, a);
    recent.erase(recent.begin(), std::find_if(recent.begin(), recent.end(),
                                              [&](const auto& e) { return t - e.first < window; }));
    recent.emplace_back(t, s.length);
    std::uint64_t octets = 0;
    for (const auto& [when, n] : recent) octets += n;
    if (octets > pacing_allowance(rate, a, s.length) && keeping()) {
      violate(t, rule::kPacing,
              std::to_string(octets) + " octets of message " + std::to_string(s.message_id) +
                  under + " within the transmission time of ten Credit Units at " +
                  std::to_string(rate) + " Mbit/s");
    }
  }
};

InvariantChecker::InvariantChecker() : impl_(std::make_unique<Impl>()) {}
InvariantChecker::~InvariantChecker() = default;

void InvariantChecker::add_receiver(const Address& rdcc_address, std::uint64_t budget,
                                    Duration d_max) {
  const AddrKey k = key_of(rdcc_address);
  impl_->forget_receivers_asked();
  const auto [index, added] = impl_->receiver_index.insert(k);
  if (!added) {
    impl_->receivers[index] = ReceiverModel{budget, d_max, 0, 0};
    return;
  }
  impl_->receivers.push_back(ReceiverModel{budget, d_max, 0, 0});
  for (std::uint32_t p = 0; p < impl_->peers.size(); ++p) {  // pairs seen before it was added
    if (impl_->peer_index.key(p).rx == k) impl_->peers[p].receiver = index;
  }
}

void InvariantChecker::on_control_sent(const Address& from, const Address& to, const Message& m,
                                       Time t) {
  impl_->expire_until(t);
  const AddrKey f = key_of(from);
  impl_->tag = 0;
  (void)impl_->control_sent(f, key_of(to), impl_->receiver_of(f), m, t);
}

void InvariantChecker::on_control_delivered(const Address& from, const Address& to,
                                            const Message& m, Time t) {
  impl_->expire_until(t);
  const AddrKey f = key_of(from);
  const AddrKey d = key_of(to);
  impl_->control_delivered(f, d, impl_->receiver_of(f), impl_->receiver_of(d), m, t);
}

bool InvariantChecker::on_control_observed(const Address& from, const Address& to, const Message& m,
                                           Time t, std::uint64_t tag) {
  impl_->expire_until(t);
  const AddrKey f = key_of(from);
  const AddrKey d = key_of(to);
  const std::uint32_t from_receiver = impl_->receiver_of(f);
  impl_->tag = tag;
  if (!impl_->control_sent(f, d, from_receiver, m, t)) return false;
  impl_->expire_until(t);  // what sending scheduled for `t` itself (a Lifetime of zero)
  impl_->control_delivered(f, d, from_receiver, impl_->receiver_of(d), m, t);
  return true;
}

void InvariantChecker::on_segment_sent(const Address& sender, const DataSegment& s, Time t) {
  impl_->expire_until(t);
  impl_->segment(key_of(sender), s, t);
}

void InvariantChecker::on_segment_observed(const Address& sender, DataSegment s, Time t) {
  impl_->expire_until(t);
  const AddrKey tx = key_of(sender);
  if (!s.unscheduled) s.unscheduled = impl_->inferred_unscheduled(tx, s, t);
  impl_->segment(tx, s, t);
}

void InvariantChecker::on_data_delivered(const Address& receiver, const Address& sender,
                                         std::uint64_t message_id, std::uint64_t octets, Time t) {
  impl_->expire_until(t);
  Impl& c = *impl_;
  const std::uint32_t p = c.peer(key_of(receiver), key_of(sender));
  const auto credit = [&](std::uint32_t ai) {
    const std::uint32_t mi = c.find_msg(ai, message_id);
    if (mi == kNone) return false;
    c.msgs[mi].received += octets;
    c.refresh(mi, t);
    return true;
  };
  // Every association the receiver accepted for the sender that knows the message: the
  // receiver relates the octets to one of them, which the checker cannot tell (the newest may
  // have been removed as idle, unseen), and more octets received can only hide a violation,
  // never invent one (spec-notes 89). None knows it: the octets wait as early data for a
  // request still on its way. With none accepted, the one whose request named the message.
  if (const PeerModel& pm = c.peers[p]; !pm.accepted.empty()) {
    bool counted = false;
    for (const std::uint32_t ai : pm.accepted) counted = credit(ai) || counted;
    if (counted) return;
  } else if (const auto known = c.peer_msg_index.find(MsgKey{p, message_id});
             known != c.peer_msg_index.end() && c.peer_msgs[known->second].has_association) {
    if (const std::uint32_t ai = c.find_assoc(p, c.peer_msgs[known->second].association);
        ai != kNone && credit(ai)) {
      return;
    }
  }
  c.peer_msg(p, message_id).early += octets;
}

void InvariantChecker::set_timing_tolerance(Duration tolerance) {
  impl_->tolerance = tolerance;
}
void InvariantChecker::set_grant_reception_unseen(bool unseen) {
  impl_->reception_unseen = unseen;
}
void InvariantChecker::set_send_time_tolerance(Duration tolerance) {
  impl_->widen_send_time_tolerance(tolerance);
}
void InvariantChecker::set_discard_slack(Duration slack) {
  impl_->discard_slack = slack;
}
void InvariantChecker::set_sequence_window(std::uint32_t window) {
  impl_->sequence_window = window;
}

void InvariantChecker::set_discard_stale(bool discard) {
  impl_->discard_stale = discard;
}
std::uint64_t InvariantChecker::stale_count() const {
  return impl_->stale;
}

const std::vector<Violation>& InvariantChecker::violations() const {
  return impl_->violations;
}
std::uint64_t InvariantChecker::violation_count() const {
  return impl_->violation_count;
}
std::vector<Violation> InvariantChecker::take_violations() {
  std::vector<Violation> out;
  out.swap(impl_->violations);
  return out;
}

std::size_t InvariantChecker::tracked_messages() const {
  return impl_->msg_index.size();
}
std::uint64_t InvariantChecker::retired_messages() const {
  return impl_->retired_count;
}
void InvariantChecker::on_retire(std::function<void(const Retired&)> f) {
  impl_->retire_observer = std::move(f);
}

std::uint64_t InvariantChecker::peak_outstanding(const Address& receiver) const {
  const std::uint32_t r = impl_->receiver_index.find(key_of(receiver));
  return r == kNone ? 0 : impl_->receivers[r].peak;
}

}  // namespace rdcc::ref
