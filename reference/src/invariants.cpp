// The invariant checker (invariants.hpp). It keeps its own model of every message from what
// crossed the wire and never asks an endpoint.
#include "rdcc/reference/invariants.hpp"

#include <algorithm>
#include <cassert>
#include <map>
#include <optional>
#include <queue>
#include <unordered_map>
#include <utility>
#include <vector>

#include "rdcc/codec/format.hpp"
#include "rdcc/codec/serial.hpp"

namespace rdcc::ref {
namespace {

// A host:port as a key (packed into integers: the maps below are looked up several times per
// message, and a capture check feeds them millions).
using AddrKey = AddressKey;
AddrKey key(const Address& a) { return key_of(a); }

// One message, keyed by (receiver, sender, association, message).
struct MsgKey {
  AddrKey rx;
  AddrKey tx;
  std::uint32_t association = 0;
  std::uint64_t message = 0;
  friend bool operator==(const MsgKey&, const MsgKey&) = default;
};
struct MsgKeyHash {
  std::size_t operator()(const MsgKey& k) const {
    return hash_mix(hash_mix(hash_mix(hash_mix(0, k.rx), k.tx), k.association), k.message);
  }
};

// (receiver, sender, association).
struct AssocKey {
  AddrKey rx;
  AddrKey tx;
  std::uint32_t association = 0;
  friend bool operator==(const AssocKey&, const AssocKey&) = default;
};
struct AssocKeyHash {
  std::size_t operator()(const AssocKey& k) const {
    return hash_mix(hash_mix(hash_mix(0, k.rx), k.tx), k.association);
  }
};

// (receiver, sender, Message ID): what data names, without the association.
struct PeerMsgKey {
  AddrKey rx;
  AddrKey tx;
  std::uint64_t message = 0;
  friend bool operator==(const PeerMsgKey&, const PeerMsgKey&) = default;
};
struct PeerMsgKeyHash {
  std::size_t operator()(const PeerMsgKey& k) const {
    return hash_mix(hash_mix(hash_mix(0, k.rx), k.tx), k.message);
  }
};

struct MsgModel {
  std::uint64_t length = 0;
  bool length_known = false;
  // Receiver side.
  std::uint64_t limit_sent = 0;      // highest Grant Limit the receiver sent
  Time grant_live_until{};           // Lifetime + 2 * D_max after the latest grant was sent
  std::uint64_t window = 0;          // unscheduled octets announced (as delivered)
  bool windowed = false;             // listed in its association's `windowed`
  Time window_live_until{};          // J + Lifetime + 2 * D_max after the request arrived
  std::uint64_t received = 0;        // octets delivered to the receiver
  std::uint64_t exposure = 0;        // counted in the receiver's budget now
  // The lowest New Limit of the CREDIT_RETURNs the receiver processed since its latest grant:
  // "the offset beyond which the sender will not transmit" (docs/spec-notes.md, 160).
  std::uint64_t returned_limit = ~std::uint64_t{0};
  // 2 * D_max after the receiver first sent or processed a CANCEL for it (since its latest
  // grant): from then on it may reclaim all of its credit ("Receiver Credit Budget").
  bool cancelled = false;
  Time cancel_reclaim_from{};
  // Sender side.
  std::uint64_t held_limit = 0;      // highest usable Grant Limit delivered to the sender
  Time held_valid_until{};           // reception + Lifetime of the latest such grant
  std::uint32_t rate = 0;            // its Pacing Rate
  std::uint64_t announced_unsched = 0;  // Unscheduled Sent of the requests the sender sent
  bool unsched_ended = false;  // MSG_DONE, a CREDIT_GRANT, CANCEL or ERROR reached the sender
  // Segments within the pacing window (a vector: a deque allocates even when empty, and a
  // capture check keeps a model for each of its messages).
  std::vector<std::pair<Time, std::uint32_t>> recent;
};

struct AssocModel {
  std::uint32_t u = 0;               // the largest U advertised (what a sender may have used)
  // Receiver side: what the receiver processes from this sender ("Common Header": Sequence
  // Number; "Credit Allocation" rule 4), and the U it must account ("Association
  // Establishment": the larger of the old and new U until the update is acknowledged).
  bool accepted = false;             // the receiver sent ASSOC_ACCEPT for it to this sender
  std::uint16_t epoch = 0;
  std::uint64_t nonce = 0;
  std::uint32_t u_current = 0;
  std::uint32_t u_accounted = 0;
  bool have_seq_in = false;
  std::uint32_t newest_seq_in = 0;
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
  // The unscheduled message the sender has outstanding ("Unscheduled Transmission", item 3).
  bool unsched_outstanding = false;
  std::uint64_t unsched_message = 0;
  // The messages given an unscheduled window, for the sum over the association's windows.
  std::vector<std::uint64_t> windowed;
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
  return std::to_string(tenths / 10) + "." + std::to_string(tenths < 0 ? -(tenths % 10) : tenths % 10) + " us";
}

// Octets a link of `mbps` Mbit/s carries in `d`.
std::uint64_t octets_in(Duration d, std::uint32_t mbps) {
  return d.ns <= 0 ? 0 : static_cast<std::uint64_t>(d.ns) * mbps / 8000U;
}

// A message's entry in the checker's map (node-based: its address is stable, and no entry is
// ever erased).
using MsgEntry = std::pair<const MsgKey, MsgModel>;

struct Expiry {
  Time at;
  MsgEntry* msg;
  friend bool operator>(const Expiry& a, const Expiry& b) { return a.at > b.at; }
};

}  // namespace

struct InvariantChecker::Impl {
  std::unordered_map<AddrKey, ReceiverModel, AddressKeyHash> receivers;
  std::unordered_map<MsgKey, MsgModel, MsgKeyHash> msgs;  // never erased from (Expiry)
  std::unordered_map<AssocKey, AssocModel, AssocKeyHash> assocs;
  std::priority_queue<Expiry, std::vector<Expiry>, std::greater<>> expiries;
  std::vector<Violation> violations;
  Duration tolerance{};  // set_timing_tolerance
  // Octets delivered before the checker saw their message's request (reordering).
  std::unordered_map<PeerMsgKey, std::uint64_t, PeerMsgKeyHash> early;
  // (receiver, sender, Message ID) -> association, from the requests: data names no association.
  std::unordered_map<PeerMsgKey, std::uint32_t, PeerMsgKeyHash> association_of;
  // (receiver, sender) -> the association the receiver accepted last for that sender: the one
  // a binding counts the sender's data for.
  std::map<std::pair<AddrKey, AddrKey>, std::uint32_t> newest_association;
  // (receiver, sender) -> the Sender Nonce of the sender's newest ASSOC_REQUEST.
  std::map<std::pair<AddrKey, AddrKey>, std::uint64_t> sender_nonce;

  void violate(Time t, const char* rule, std::string detail) {
    assert(std::find(std::begin(kInvariantRules), std::end(kInvariantRules), rule) !=
           std::end(kInvariantRules));
    // Enough to diagnose; a broken run must not exhaust memory.
    if (violations.size() < 1000) violations.push_back({t, rule, std::move(detail)});
  }

  // Octets the receiver has authorized and not yet received.
  static std::uint64_t exposure_of(const MsgModel& m, Time t) {
    std::uint64_t authorized = 0;
    if (t < m.grant_live_until) authorized = m.limit_sent;
    if (t < m.window_live_until) authorized = std::max(authorized, m.window);
    if (m.length_known) authorized = std::min(authorized, m.length);
    authorized = std::min(authorized, m.returned_limit);
    if (m.cancelled && t >= m.cancel_reclaim_from) authorized = 0;
    return authorized > m.received ? authorized - m.received : 0;
  }

  void refresh(const MsgKey& k, MsgModel& m, Time t) {
    auto r = receivers.find(k.rx);
    if (r == receivers.end()) return;
    const std::uint64_t now_exposure = exposure_of(m, t);
    r->second.outstanding = r->second.outstanding - m.exposure + now_exposure;
    m.exposure = now_exposure;
    r->second.peak = std::max(r->second.peak, r->second.outstanding);
    if (r->second.outstanding > r->second.budget) {
      violate(t, "budget",
              "receiver outstanding credit " + std::to_string(r->second.outstanding) +
                  " exceeds G = " + std::to_string(r->second.budget));
    }
  }

  void expire_until(Time t) {
    while (!expiries.empty() && expiries.top().at <= t) {
      const Expiry e = expiries.top();
      expiries.pop();
      refresh(e.msg->first, e.msg->second, e.at);
    }
  }

  void schedule(MsgEntry& entry, Time at) { expiries.push({at, &entry}); }

  // The receiver sent a control message.
  void receiver_sent(const Address& rx, const Address& tx, const Message& m, Time t) {
    auto r = receivers.find(key(rx));
    if (r == receivers.end()) return;
    const Header& h = header_of(m);
    AssocModel& a = assocs[{key(rx), key(tx), h.association_id}];
    if (const auto* acc = std::get_if<AssocAccept>(&m)) {
      a.u = std::max(a.u, acc->unscheduled_limit);
      if (!a.accepted) newest_association[{key(rx), key(tx)}] = h.association_id;
      if (!a.accepted || acc->parameter_update()) {
        a.u_accounted = a.accepted ? std::max(a.u_accounted, acc->unscheduled_limit)
                                   : acc->unscheduled_limit;
      }
      a.accepted = true;
      a.epoch = h.epoch;
      a.nonce = acc->sender_nonce;
      a.u_current = acc->unscheduled_limit;
      a.j = acc->start_jitter;
      a.lifetime_us = acc->grant_lifetime;
      a.credit_unit = acc->credit_unit;
    } else if (const auto* g = std::get_if<CreditGrant>(&m)) {
      if (g->pacing_rate == 0) {
        violate(t, "pacing_rate_zero", "receiver issued Pacing Rate 0: " + format_line(m));
      }
      if (g->pool()) return;
      const MsgKey k{key(rx), key(tx), h.association_id, g->message_id};
      MsgEntry& entry = *msgs.try_emplace(k).first;
      MsgModel& msg = entry.second;
      if (g->grant_limit < msg.limit_sent) {
        violate(t, "grant_reduced",
                "Grant Limit " + std::to_string(g->grant_limit) + " below an earlier " +
                    std::to_string(msg.limit_sent) + ": " + format_line(m));
      }
      if (msg.length_known && g->grant_limit > msg.length) {
        violate(t, "grant_beyond_length",
                "Grant Limit " + std::to_string(g->grant_limit) + " beyond the length " +
                    std::to_string(msg.length) + ": " + format_line(m));
      }
      if (msg.length_known && g->final() != (g->grant_limit == msg.length)) {
        violate(t, "final_flag",
                std::string(g->final() ? "FINAL set below" : "FINAL missing at") +
                    " the message length: " + format_line(m));
      }
      msg.limit_sent = std::max(msg.limit_sent, g->grant_limit);
      // A grant after a CREDIT_RETURN or CANCEL is credit the receiver issued anew.
      msg.returned_limit = ~std::uint64_t{0};
      msg.cancelled = false;
      const Duration life = microseconds(g->effective_lifetime(a.lifetime_us));
      msg.grant_live_until = t + life + r->second.d_max * 2;
      schedule(entry, msg.grant_live_until);
      refresh(k, msg, t);
    } else if (const auto* c = std::get_if<Cancel>(&m)) {
      cancel_seen(rx, tx, h.association_id, c->message_id, r->second.d_max, t);
    } else if (const auto* e = std::get_if<ErrorMessage>(&m)) {
      refused(rx, tx, h.association_id, *e, t);
    } else if (const auto* done = std::get_if<MsgDone>(&m)) {
      const MsgKey k{key(rx), key(tx), h.association_id, done->message_id};
      auto it = msgs.find(k);
      if (it != msgs.end() && it->second.length_known && it->second.received < it->second.length) {
        violate(t, "msg_done_early",
                "MSG_DONE after " + std::to_string(it->second.received) + " of " +
                    std::to_string(it->second.length) + " octets: " + format_line(m));
      }
    }
  }

  // A request the receiver refused ("Transport Bindings", "Security Considerations"): it holds
  // nothing for that message, so its window and length are forgotten.
  void refused(const Address& rx, const Address& tx, std::uint32_t association,
               const ErrorMessage& e, Time t) {
    const auto reason = static_cast<ReasonCode>(e.reason);
    if (reason != ReasonCode::UnsupportedBinding && reason != ReasonCode::MessageTooLarge &&
        reason != ReasonCode::BudgetExhausted) {
      return;
    }
    const MsgKey k{key(rx), key(tx), association, e.message_id};
    auto it = msgs.find(k);
    if (it == msgs.end() || it->second.limit_sent != 0) return;
    it->second.window = 0;
    it->second.length_known = false;
    refresh(k, it->second, t);
  }

  // "the credit of a cancelled message no earlier than 2 * D_max after it sent or received
  // the CANCEL" ("Receiver Credit Budget"): the first CANCEL starts the delay.
  void cancel_seen(const Address& rx, const Address& tx, std::uint32_t association,
                 std::uint64_t message_id, Duration d_max, Time t) {
    const MsgKey k{key(rx), key(tx), association, message_id};
    auto it = msgs.find(k);
    if (it == msgs.end() || it->second.cancelled) return;
    it->second.cancelled = true;
    it->second.cancel_reclaim_from = t + d_max * 2;
    schedule(*it, it->second.cancel_reclaim_from);
  }

  // Octets of unscheduled windows of the association's messages still counted at `t`.
  std::uint64_t live_windows(const AssocKey& ak, const AssocModel& a, std::uint64_t except,
                             Time t) const {
    std::uint64_t sum = 0;
    for (const std::uint64_t id : a.windowed) {
      if (id == except) continue;
      const auto it = msgs.find(MsgKey{ak.rx, ak.tx, ak.association, id});
      if (it == msgs.end()) continue;
      const MsgModel& m = it->second;
      if (t >= m.window_live_until) continue;
      sum += m.window > m.received ? m.window - m.received : 0;
    }
    return sum;
  }

  // A receiver got a control message from a sender. It counts what the receiver must process:
  // messages of an association it accepted for that address, with its Epoch and a Sequence
  // Number newer than the newest processed ("Common Header"). Anything else the receiver
  // discards, or answers with ERROR (UNKNOWN_ASSOCIATION), and holds no credit for.
  void receiver_got(const Address& rx, const Address& tx, const Message& m, Time t) {
    auto r = receivers.find(key(rx));
    if (r == receivers.end()) return;
    const Header& h = header_of(m);
    if (const auto* q = std::get_if<AssocRequest>(&m)) {
      update_acknowledged(rx, tx, *q);
      return;
    }
    if (std::holds_alternative<CongestionReport>(m)) return;
    const AssocKey ak{key(rx), key(tx), h.association_id};
    auto ai = assocs.find(ak);
    if (ai == assocs.end() || !ai->second.accepted || ai->second.epoch != h.epoch) return;
    AssocModel& a = ai->second;
    if (a.have_seq_in && !serial_newer(h.sequence_number, a.newest_seq_in)) return;
    a.have_seq_in = true;
    a.newest_seq_in = h.sequence_number;
    if (const auto* c = std::get_if<Cancel>(&m)) {
      cancel_seen(rx, tx, h.association_id, c->message_id, r->second.d_max, t);
      return;
    }
    if (const auto* ret = std::get_if<CreditReturn>(&m)) {
      // The sender will not transmit beyond New Limit: the receiver may release the rest at
      // once (docs/spec-notes.md, 160).
      const MsgKey k{key(rx), key(tx), h.association_id, ret->message_id};
      if (auto it = msgs.find(k); it != msgs.end()) {
        it->second.returned_limit = std::min(it->second.returned_limit, ret->new_limit);
        refresh(k, it->second, t);
      }
      return;
    }
    const auto* req = std::get_if<CreditRequest>(&m);
    if (req == nullptr || req->message_id == 0) return;  // "zero is reserved"
    const MsgKey k{key(rx), key(tx), h.association_id, req->message_id};
    MsgEntry& entry = *msgs.try_emplace(k).first;
    MsgModel& msg = entry.second;
    if (!msg.length_known) {  // a message's length is the one its first request announced
      msg.length = req->message_length;
      msg.length_known = true;
    }
    association_of[{key(rx), key(tx), req->message_id}] = h.association_id;
    if (auto e = early.find({key(rx), key(tx), req->message_id}); e != early.end()) {
      msg.received += e->second;
      early.erase(e);
    }
    if (req->unscheduled_sent != 0 && msg.window == 0) {
      // Announced octets count up to the U the receiver accounts for the association, less
      // what its other messages still hold: beyond that they are data beyond the credit
      // ("Error Handling and Recovery"), not credit the receiver issued.
      const std::uint64_t others = live_windows(ak, a, req->message_id, t);
      const std::uint64_t allowed = a.u_accounted > others ? a.u_accounted - others : 0;
      msg.window = std::min({req->unscheduled_sent, msg.length, allowed});
      msg.window_live_until = t + microseconds(a.j) + microseconds(a.lifetime_us) +
                              r->second.d_max * 2;
      schedule(entry, msg.window_live_until);
      if (!msg.windowed) {
        msg.windowed = true;
        a.windowed.push_back(req->message_id);
      }
    } else if (req->unscheduled_sent < msg.window) {
      msg.window = req->unscheduled_sent;  // converted: the octets actually transmitted
    }
    refresh(k, msg, t);
  }

  // ASSOC_REQUEST with Update Acknowledgment: the receiver may account the new U alone.
  void update_acknowledged(const Address& rx, const Address& tx, const AssocRequest& q) {
    if (!q.update_acknowledgment()) return;
    const AddrKey r = key(rx);
    const AddrKey s = key(tx);
    for (auto& [k, a] : assocs) {  // a rare message: a walk over all associations will do
      if (k.rx == r && k.tx == s && a.accepted && a.nonce == q.sender_nonce) {
        a.u_accounted = a.u_current;
      }
    }
  }

  // A sender got a control message from a receiver: the credit it may use.
  void sender_got(const Address& tx, const Address& rx, const Message& m, Time t) {
    const Header& h = header_of(m);
    AssocModel& a = assocs[{key(rx), key(tx), h.association_id}];
    if (const auto* acc = std::get_if<AssocAccept>(&m)) {
      // "A sender accepts a new Epoch only from an ASSOC_ACCEPT that echoes its current Sender
      // Nonce" and then "resets the newest processed Sequence Number"; the same incarnation's
      // parameters change only by a fresh Parameter Update (Association Establishment).
      const auto nonce = sender_nonce.find({key(rx), key(tx)});
      if (nonce != sender_nonce.end() && nonce->second != acc->sender_nonce) return;
      // An ASSOC_ACCEPT echoing a newer nonce than the incarnation's (the sender associated
      // again) starts one too, even with the same Epoch: it carries the association's parameters.
      const bool new_nonce = nonce != sender_nonce.end() && a.accepted_nonce != acc->sender_nonce;
      const bool incarnation = !a.sender_accepted || a.sender_epoch != h.epoch || new_nonce;
      if (incarnation) {
        a.sender_accepted = true;
        a.sender_epoch = h.epoch;
        a.accepted_nonce = acc->sender_nonce;
        a.u = 0;
        // The accept is the first message processed in the incarnation: what is numbered at or
        // before it is not newer (docs/spec-notes.md, 362).
        a.have_seq = true;
        a.newest_seq = h.sequence_number;
        a.pool_limit = 0;
        a.pool_used = 0;
        a.pool_valid_until = Time{};
        // A new incarnation's receiver knows nothing of the old one's unscheduled message, and
        // the sender re-requests it in scheduled mode ("drop credit; re-establish; send
        // CREDIT_REQUEST", Sender Message State Machine): it is no longer outstanding.
        a.unsched_outstanding = false;
      } else if (!acc->parameter_update() ||
                 (a.have_seq && !serial_newer(h.sequence_number, a.newest_seq))) {
        return;
      } else {
        a.have_seq = true;
        a.newest_seq = h.sequence_number;
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
      end_unscheduled(rx, tx, m);
      return;
    }
    // A sender processes only these types from a receiver; any other (SENDER_STATUS,
    // CREDIT_REQUEST, ...) it discards unprocessed, so its Sequence Number is not "the newest
    // one it has already processed" (docs/spec-notes.md, 220).
    if (!std::holds_alternative<CreditGrant>(m) && !std::holds_alternative<MsgDone>(m) &&
        !std::holds_alternative<Cancel>(m) && !std::holds_alternative<ErrorMessage>(m)) {
      return;
    }
    if (!a.sender_accepted || h.epoch != a.sender_epoch) return;
    // The sender must discard what is not newer; it may use only what it may accept.
    if (a.have_seq && !serial_newer(h.sequence_number, a.newest_seq)) return;
    a.have_seq = true;
    a.newest_seq = h.sequence_number;
    end_unscheduled(rx, tx, m);
    const auto* g = std::get_if<CreditGrant>(&m);
    if (g == nullptr || !g->usable()) return;
    // "A grant with Message ID zero and the POOL flag set is a pool grant"; the POOL flag with
    // a Message ID, or Message ID zero without it, is neither that nor a grant for a message:
    // it gives no credit and refreshes no Lifetime (docs/spec-notes.md, 360).
    if (g->pool() != (g->message_id == 0)) return;
    const Time valid_until = t + microseconds(g->effective_lifetime(a.lifetime_us));
    if (g->pool()) {
      a.pool_limit = std::max(a.pool_limit, g->grant_limit);
      a.pool_valid_until = valid_until;
      return;
    }
    MsgModel& msg = msgs[{key(rx), key(tx), h.association_id, g->message_id}];
    msg.held_limit = std::max(msg.held_limit, g->grant_limit);
    msg.held_valid_until = valid_until;
    // A new rate binds what is sent after the grant's reception: the octets sent under the
    // old rate are not judged against it (docs/spec-notes.md, 121).
    if (g->pacing_rate != msg.rate) msg.recent.clear();
    msg.rate = g->pacing_rate;
  }

  void sender_sent(const Address& tx, const Address& rx, const Message& m, Time t) {
    if (const auto* q = std::get_if<AssocRequest>(&m); q != nullptr && !q->update_acknowledgment()) {
      sender_nonce[{key(rx), key(tx)}] = q->sender_nonce;
      return;
    }
    if (std::holds_alternative<Cancel>(m)) end_unscheduled(rx, tx, m);
    const auto* req = std::get_if<CreditRequest>(&m);
    if (req == nullptr) return;
    MsgModel& msg = msgs[{key(rx), key(tx), req->header.association_id, req->message_id}];
    if (!msg.length_known) msg.length = req->message_length;
    msg.announced_unsched = std::max(msg.announced_unsched, req->unscheduled_sent);
    if (req->unscheduled_sent == 0 || msg.unsched_ended) return;
    // "MUST NOT have more than one unscheduled message outstanding on an association"
    AssocModel& a = assocs[{key(rx), key(tx), req->header.association_id}];
    if (a.unsched_outstanding && a.unsched_message != req->message_id) {
      violate(t, "unscheduled_outstanding",
              "unscheduled message " + std::to_string(req->message_id) +
                  " announced while message " + std::to_string(a.unsched_message) +
                  " is still outstanding (no MSG_DONE or CREDIT_GRANT for it yet): " +
                  format_line(m));
      return;
    }
    a.unsched_outstanding = true;
    a.unsched_message = req->message_id;
  }

  // "an unscheduled message stops being outstanding when the sender receives MSG_DONE or a
  // CREDIT_GRANT for it"; also when it ends otherwise (CANCEL, ERROR for it), and all of an
  // association's on ERROR (UNKNOWN_ASSOCIATION), where the sender drops everything.
  void end_unscheduled(const Address& rx, const Address& tx, const Message& m) {
    AssocModel& a = assocs[{key(rx), key(tx), header_of(m).association_id}];
    std::uint64_t id = 0;
    if (const auto* d = std::get_if<MsgDone>(&m)) {
      id = d->message_id;
    } else if (const auto* g = std::get_if<CreditGrant>(&m); g != nullptr && g->usable() && !g->pool()) {
      id = g->message_id;
    } else if (const auto* c = std::get_if<Cancel>(&m)) {
      id = c->message_id;
    } else if (const auto* e = std::get_if<ErrorMessage>(&m)) {
      if (e->reason == static_cast<std::uint16_t>(ReasonCode::UnknownAssociation)) {
        a.unsched_outstanding = false;
        return;
      }
      id = e->message_id;
    } else {
      return;
    }
    if (id == 0) return;
    msgs[{key(rx), key(tx), header_of(m).association_id, id}].unsched_ended = true;
    if (a.unsched_outstanding && a.unsched_message == id) a.unsched_outstanding = false;
  }

  void segment(const Address& tx, const DataSegment& s, Time t) {
    const MsgKey k{key(s.receiver), key(tx), s.association_id, s.message_id};
    MsgModel& msg = msgs[k];
    AssocModel& a = assocs[{key(s.receiver), key(tx), s.association_id}];
    const std::uint64_t end = s.offset + s.length;
    if (s.unscheduled) {
      // "MUST send a CREDIT_REQUEST ... no later than the first data packet, with the
      // Unscheduled Sent field set to the message length"; the message is at most U.
      if (end > msg.announced_unsched) {
        violate(t, "unscheduled_unannounced",
                "unscheduled octets up to " + std::to_string(end) + " of message " +
                    std::to_string(s.message_id) + " without a CREDIT_REQUEST announcing them");
      }
      if (msg.announced_unsched > a.u) {
        violate(t, "unscheduled_beyond_u",
                "unscheduled message of " + std::to_string(msg.announced_unsched) +
                    " octets with U = " + std::to_string(a.u));
      }
      return;
    }
    if (end <= msg.held_limit && t < msg.held_valid_until + tolerance) {
      check_pacing(msg, a, s, t);
      return;
    }
    if (t < a.pool_valid_until + tolerance && a.pool_used + s.length <= a.pool_limit) {
      a.pool_used += s.length;
      return;
    }
    if (end <= msg.held_limit) {
      // Rule 3: "MUST NOT transmit under a grant after the Lifetime of that grant has elapsed"
      violate(t, "grant_expired",
              "octets " + std::to_string(s.offset) + ".." + std::to_string(end) + " of message " +
                  std::to_string(s.message_id) + " sent " +
                  format_duration(t - msg.held_valid_until) +
                  " after the Lifetime of its grant (Grant Limit " +
                  std::to_string(msg.held_limit) + ") had elapsed" +
                  (tolerance.ns != 0 ? " (tolerance " + format_duration(tolerance) + ")"
                                          : std::string()));
      return;
    }
    violate(t, "sender_credit",
            "octets " + std::to_string(s.offset) + ".." + std::to_string(end) + " of message " +
                std::to_string(s.message_id) + " sent with " +
                (t < msg.held_valid_until ? "Grant Limit " + std::to_string(msg.held_limit)
                                          : std::string("no grant within its Lifetime")));
  }

  // A passive observer cannot know the sender's mode: octets no live grant covers that lie
  // within the message's announced unscheduled window were sent unscheduled.
  bool inferred_unscheduled(const Address& tx, const DataSegment& s, Time t) {
    const auto it = msgs.find({key(s.receiver), key(tx), s.association_id, s.message_id});
    if (it == msgs.end()) return false;
    const MsgModel& msg = it->second;
    const std::uint64_t end = s.offset + s.length;
    if (end <= msg.held_limit && t < msg.held_valid_until + tolerance) return false;
    return end <= msg.announced_unsched;
  }

  // "MUST NOT transmit the message faster than the Pacing Rate, averaged over any interval
  // equal to the transmission time of ten Credit Units at that rate": octets whose
  // transmission starts within one such interval may not exceed ten Credit Units plus the
  // segment that starts at its end.
  void check_pacing(MsgModel& msg, const AssocModel& a, const DataSegment& s, Time t) {
    if (msg.rate == 0 || a.credit_unit == 0) return;
    const Duration window = transmission_time(10ULL * a.credit_unit, msg.rate);
    msg.recent.erase(msg.recent.begin(),
                     std::find_if(msg.recent.begin(), msg.recent.end(),
                                  [&](const auto& e) { return t - e.first < window; }));
    msg.recent.emplace_back(t, s.length);
    std::uint64_t octets = 0;
    for (const auto& [when, n] : msg.recent) octets += n;
    // An observer away from the sender may see packets closer together than they were sent
    // (set_timing_tolerance): the rate's worth of the tolerance more.
    const std::uint64_t allowance =
        11ULL * a.credit_unit + octets_in(tolerance, msg.rate);
    if (octets > allowance) {
      violate(t, "pacing",
              std::to_string(octets) + " octets of message " + std::to_string(s.message_id) +
                  " within the transmission time of ten Credit Units at " +
                  std::to_string(msg.rate) + " Mbit/s");
    }
  }
};

InvariantChecker::InvariantChecker() : impl_(std::make_unique<Impl>()) {}
InvariantChecker::~InvariantChecker() = default;

void InvariantChecker::add_receiver(const Address& rdcc_address, std::uint64_t budget,
                                    Duration d_max) {
  impl_->receivers[key(rdcc_address)] = ReceiverModel{budget, d_max, 0, 0};
}

void InvariantChecker::on_control_sent(const Address& from, const Address& to, const Message& m,
                                       Time t) {
  impl_->expire_until(t);
  if (impl_->receivers.count(key(from)) != 0) {
    impl_->receiver_sent(from, to, m, t);
  } else {
    impl_->sender_sent(from, to, m, t);
  }
}

void InvariantChecker::on_control_delivered(const Address& from, const Address& to,
                                            const Message& m, Time t) {
  impl_->expire_until(t);
  if (impl_->receivers.count(key(to)) != 0) {
    impl_->receiver_got(to, from, m, t);
  } else if (impl_->receivers.count(key(from)) != 0) {
    impl_->sender_got(to, from, m, t);
  }
}

void InvariantChecker::on_segment_sent(const Address& sender, const DataSegment& s, Time t) {
  impl_->expire_until(t);
  impl_->segment(sender, s, t);
}

void InvariantChecker::on_segment_observed(const Address& sender, DataSegment s, Time t) {
  impl_->expire_until(t);
  if (!s.unscheduled) s.unscheduled = impl_->inferred_unscheduled(sender, s, t);
  impl_->segment(sender, s, t);
}

void InvariantChecker::on_data_delivered(const Address& receiver, const Address& sender,
                                         std::uint64_t message_id, std::uint64_t octets, Time t) {
  impl_->expire_until(t);
  // The sender's newest association if the receiver accepted one (a request for the message
  // may still be on its way), else the one whose request named the message.
  std::optional<std::uint32_t> association;
  if (auto n = impl_->newest_association.find({key(receiver), key(sender)});
      n != impl_->newest_association.end()) {
    association = n->second;
  } else if (auto a = impl_->association_of.find({key(receiver), key(sender), message_id});
             a != impl_->association_of.end()) {
    association = a->second;
  }
  if (association) {
    const MsgKey k{key(receiver), key(sender), *association, message_id};
    if (auto it = impl_->msgs.find(k); it != impl_->msgs.end()) {
      it->second.received += octets;
      impl_->refresh(k, it->second, t);
      return;
    }
  }
  impl_->early[{key(receiver), key(sender), message_id}] += octets;
}

void InvariantChecker::set_timing_tolerance(Duration tolerance) { impl_->tolerance = tolerance; }

const std::vector<Violation>& InvariantChecker::violations() const { return impl_->violations; }

std::uint64_t InvariantChecker::peak_outstanding(const Address& receiver) const {
  auto it = impl_->receivers.find(key(receiver));
  return it == impl_->receivers.end() ? 0 : it->second.peak;
}

}  // namespace rdcc::ref
