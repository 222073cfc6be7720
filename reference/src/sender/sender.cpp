// The reference RDCC sender: the glue. The public API (Sender), and the dispatch of what
// arrives (control messages, NACKs, a link pause) and of the timers to the units of
// reference/src/sender/, each named after the spec heading whose rules it holds
// (docs/reference.md); the state they share is Sender::Impl (sender_impl.hpp).
// Where the spec allows several behaviours the reference takes the safest one;
// docs/spec-notes.md lists each choice with the test that holds it.
#include "rdcc/reference/sender.hpp"

#include "sender_impl.hpp"

#include <algorithm>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <variant>

namespace rdcc::ref {

// Finished messages leave the live set: their final status goes to the bounded store, and
// no pacer of theirs stays marked held. Called where nothing points into them (the start of
// every event).
void Sender::Impl::sweep() {
  for (const MessageHandle h : retiring) {
    auto it = live.find(h);
    if (it == live.end()) continue;
    Msg& m = it->second;
    finished.add(status_of(m));
    unindex(m);
    unlink(m);
    may_send.erase(&m);
    std::erase(was_held, &m.pacer);
    std::erase_if(unsent_segments, [&](const auto& e) { return e.first == &m.pacer; });
    live.erase(it);
  }
  retiring.clear();
}

// The sends polled since the last call left by `at`: a timer armed from a request's send
// moves by how late it left, and the pacers' windows count the segments from `at`. Newest
// request first: a message (association) that asked twice moves once, from its latest send.
void Sender::Impl::confirm_sends(Time at) {
  if (unsent_requests.empty() && unsent_assoc_requests.empty() && unsent_segments.empty()) return;
  ++sends_confirmed;
  // The pacers' windows move: the cached earliest plan is stale. Only then: the node calls
  // sent() after every service, and the cache spares next_timeout() a walk over the plans.
  if (!unsent_segments.empty()) planned.reset();
  for (auto it = unsent_requests.rbegin(); it != unsent_requests.rend(); ++it) {
    const auto [h, t] = *it;
    Msg* m = msg_of(h);
    if (m == nullptr || at <= t || m->retx_confirmed == sends_confirmed) continue;
    m->retx_confirmed = sends_confirmed;
    if (m->request_sent == t) m->request_sent = at;  // the RTT sample counts from the wire
    if (m->retx_at != Time::never() && m->retx_at >= t) arm_retx(*m, m->retx_at + (at - t));
  }
  for (auto it = unsent_assoc_requests.rbegin(); it != unsent_assoc_requests.rend(); ++it) {
    const auto [a, t] = *it;
    if (at <= t || a->retx_confirmed == sends_confirmed) continue;
    a->retx_confirmed = sends_confirmed;
    if (a->last_attempt == t) a->last_attempt = at;
    if (a->phase == Phase::Connecting && a->retx_at != Time::never() && a->retx_at >= t) {
      arm_assoc_retx(*a, a->retx_at + (at - t));
    }
  }
  for (const auto& [pacer, t] : unsent_segments) {
    if (at > t) pacer->restamp(t, at);
  }
  unsent_requests.clear();
  unsent_assoc_requests.clear();
  unsent_segments.clear();
}

// Whether `at` is a time next_timeout() counts for m: one of its armed timers, or its random
// start while that is still ahead.
bool Sender::Impl::msg_wakes_at(const Msg& m, Time at) const {
  if (m.terminal() || m.without_rdcc || m.assoc->phase != Phase::Established) return false;
  return (!m.expiry_handled && m.valid_until == at) || m.retx_at == at ||
         (m.state == MessageState::Unsched && m.start_at == at && at > clock);
}

bool Sender::Impl::assoc_wakes_at(const Assoc& a, Time at) const {
  return (a.phase == Phase::Connecting && a.retx_at == at) ||
         (a.phase == Phase::Established && !a.pool_expiry_handled && a.pool_valid_until == at);
}

bool Sender::Impl::status_wakes_at(const Assoc& a, Time at) const {
  return episode && a.status_in_episode && a.phase == Phase::Established && a.status_next == at &&
         at > clock;
}

void Sender::Impl::advance(Time now) {
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

void Sender::Impl::on_control(const Address& from, std::span<const std::byte> bytes, Time now) {
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

std::optional<Time> Sender::Impl::next_timeout() {
  // Association attempts and pool Lifetimes; SENDER_STATUS repeats (a repeat that came due
  // while the association held no unused credit waits for the next evaluation: it is not a
  // reason to wake up again now); the messages' Lifetimes, retransmissions and random starts
  // still ahead.
  Time t =
      first_live(assoc_timers, [&](const AssocTimer& e) { return assoc_wakes_at(*e.assoc, e.at); });
  t = std::min(t, first_live(status_timers,
                             [&](const AssocTimer& e) { return status_wakes_at(*e.assoc, e.at); }));
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
  s.default_binding_value(m);
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
  if (inserted) {
    a.receiver = spec.receiver;
    a.next_seq = s.policy->first_sequence_number();
  }
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
  s.cancel(*found, now);
  s.update_backlog(now);
}

void Sender::return_credit(MessageHandle handle, std::uint64_t new_limit, Time now) {
  Impl& s = *impl_;
  s.advance(now);
  Impl::Msg* found = s.msg_of(handle);
  if (found == nullptr || found->terminal()) return;
  s.return_credit(*found, new_limit, now);
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
  s.on_link_pause(now);
  s.update_backlog(now);
}

void Sender::on_nack(const Address& from, std::uint64_t key, std::span<const OctetRange> ranges,
                     Time now) {
  Impl& s = *impl_;
  s.advance(now);
  s.on_nack(from, key, ranges, now);
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

void Sender::sent(Time at) {
  impl_->confirm_sends(at);
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
