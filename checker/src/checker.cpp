// The invariant checker (invariants.hpp): its public face, the violations it keeps, look-ups of
// what it models, and the clock of lapses. It keeps its own model of every message from what
// crossed the wire and never asks an endpoint.
#include "impl.hpp"

namespace rdcc::checker {

// A violation of a rule that binds one role (rules.hpp), held against that role.
void InvariantChecker::Impl::violate(Time t, std::string_view rule, std::string detail,
                                     std::uint64_t related) {
  const InvariantRule* r = invariant_rule(rule);
  assert(r != nullptr && r->binds != Binds::Originator);
  violate_by(t, rule, r->binds == Binds::Sender ? Party::Sender : Party::Receiver,
             std::move(detail), related);
}

void InvariantChecker::Impl::violate_by(Time t, std::string_view rule, Party party,
                                        std::string detail, std::uint64_t related) {
  assert(invariant_rule(rule) != nullptr);
  ++violation_count;
  if (violations.size() < kMaxViolations) {
    violations.push_back({t, std::string(rule), party, std::move(detail), related});
  }
}

// The receiver's number, or kNone. The last two addresses asked about are kept: a message's
// two ends are asked about on sending and on delivery.
std::uint32_t InvariantChecker::Impl::receiver_of(const AddrKey& a) {
  for (const auto& [k, r] : receiver_asked) {
    if (r != kAsked && k == a) return r;
  }
  const std::uint32_t r = receiver_index.find(a);
  receiver_asked[1] = receiver_asked[0];
  receiver_asked[0] = {a, r};
  return r;
}

// The pair's number (added if new).
std::uint32_t InvariantChecker::Impl::peer(const AddrKey& rx, const AddrKey& tx) {
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

std::uint32_t InvariantChecker::Impl::assoc(std::uint32_t peer_number, std::uint32_t association) {
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
std::uint32_t InvariantChecker::Impl::find_assoc(std::uint32_t peer_number,
                                                 std::uint32_t association) const {
  const AssocKey k{peer_number, association};
  if (last_assoc != kNone && last_assoc_key == k) return last_assoc;
  return assoc_index.find(k);
}

std::uint32_t InvariantChecker::Impl::lookup(std::uint32_t assoc_number, std::uint64_t message_id,
                                             bool add) {
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

// A fresh model in a free slot (or a new one).
std::uint32_t InvariantChecker::Impl::add_msg(std::uint32_t assoc_number,
                                              std::uint64_t message_id) {
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

void InvariantChecker::Impl::expire_until(Time t) {
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

// The send-time tolerance becomes `to`. A wider one holds for the grants already seen too: a
// run on real sockets widens it when the tester measures a longer scheduling delay
// (rdcc-conform's widen_tolerance), and the grant whose send that delay held back was seen
// before the delay was measured. Each grant still counted is made reclaimable that much
// earlier (a receiver's scheduling delay between deciding on a grant and sending it, two
// grants apart, made the later one look like credit reclaimed 1 ms early).
void InvariantChecker::Impl::widen_send_time_tolerance(Duration to) {
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
void InvariantChecker::set_request_backoff(bool judged) {
  impl_->request_backoff = judged;
}
void InvariantChecker::on_sender_input(Time t) {
  impl_->note_sender_input(t);
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

}  // namespace rdcc::checker
