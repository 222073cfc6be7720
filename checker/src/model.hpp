// The wire model of the invariant checker (invariants.hpp): what the wire has shown of each
// receiver, pair of peers, association and message, numbered densely, and the queue of the
// moments at which what it holds lapses. The rules (impl.hpp: one file per spec heading) read
// and move it; nothing here judges.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rdcc/checker/dense_index.hpp"
#include "rdcc/checker/invariants.hpp"
#include "rdcc/codec/format.hpp"
#include "rdcc/codec/messages.hpp"
#include "rdcc/codec/serial.hpp"

namespace rdcc::checker {

using ref::microseconds;
using ref::seconds;
using ref::transmission_time;
using wire::hash_mix;
using wire::key_of;

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
  // The sender's latest CREDIT_REQUEST for it (set_request_backoff): when, and how many came
  // before it in the run of retransmissions the checker can judge (0: it starts a run).
  bool request_seen = false;
  std::uint8_t request_run = 0;
  Time last_request{};
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
  // Named so far only by ASSOC_ACCEPTs the sender must refuse (another Sender Nonce than its
  // current one): a message of the sender naming it took one (RDCC-ASSOC-08), reported once.
  bool refused_only = false;
  std::uint64_t refused_nonce = 0;  // the nonce the latest of them echoed
  bool have_seq = false;
  std::uint32_t newest_seq = 0;  // newest delivered from the receiver to the sender
  std::uint64_t pool_limit = 0;
  Time pool_valid_until{};
  std::optional<Time> last_data;  // when the sender last sent data on it (request_backoff_rule)
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
inline std::string format_duration(Duration d) {
  const std::int64_t tenths = d.ns / 100;
  return std::to_string(tenths / 10) + "." +
         std::to_string(tenths < 0 ? -(tenths % 10) : tenths % 10) + " us";
}

// Octets a link of `mbps` Mbit/s carries in `d`.
inline std::uint64_t octets_in(Duration d, std::uint32_t mbps) {
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

}  // namespace rdcc::checker
