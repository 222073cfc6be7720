// The reference receiver's rules of "Receiver Credit Budget": when credit is released without its
// data: a message released, an expired grant reclaimed (Lifetime + 2 * D_max after it was sent),
// a cancelled message reclaimed (2 * D_max after the CANCEL).
//
// Receiver::Impl's member functions (receiver_impl.hpp); receiver.cpp dispatches to them. Section
// names in comments are the spec's headings; docs/reference.md maps each heading to its file.
#include "receiver_impl.hpp"

namespace rdcc::ref {

void Receiver::Impl::set_unsched(Msg& m, std::uint64_t value) {
  ledger.set_unscheduled(assocs.at(m.association), m, value);
}

// Releases every credit the message holds; `forget` drops it from the association.
void Receiver::Impl::release_message(Assoc& a, Msg& m, Time now, bool forget) {
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

// "the credit of a cancelled message no earlier than 2 * D_max after it sent or received the
// CANCEL": its reclamation timer fired.
void Receiver::Impl::reclaim_cancelled(Assoc& a, Msg& m, Time now) {
  remember_done(a, m, std::nullopt);
  release_message(a, m, now, true);
}

void Receiver::Impl::reclaim(Assoc& a, Msg& m, Time now) {
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

}  // namespace rdcc::ref
