// "Transport Bindings", for the sender: the Binding Value a CREDIT_REQUEST and the data carry,
// and RoCEv2's RDMA messages (post units, Msg::unit), each posted only when the sender holds
// credit for all of its octets. The bindings' packets and counters are
// reference/src/bindings.cpp's; a pool grant's share is a whole post unit (plan_pool,
// traffic_classes_and_pool_credit.cpp), and CREDIT_RETURN does not cut a posted one
// (msg_done_cancel_credit_return_and_error.cpp).
#include "sender_impl.hpp"

#include <cstdint>

namespace rdcc::ref {

// Opaque: "a 64-bit message identifier that the data transport carries in its own headers, with
// a meaning agreed by configuration"; none configured (zero), a non-zero draw of the sender's
// generator, made when the message is submitted and again when it starts over in a new
// association (default_binding_value, rerequest: its earlier data still in flight is never
// counted for it): data and NACKs forged without it name no message (docs/spec-notes.md, "Data
// belongs to an association, never to a host").
std::uint64_t Sender::Impl::binding_value(const Msg& m) const {
  return m.spec.binding_value;
}

void Sender::Impl::default_binding_value(Msg& m) {
  if (m.spec.binding != BindingKind::Opaque || (m.spec.binding_value != 0 && !m.binding_drawn)) {
    return;
  }
  m.binding_drawn = true;
  m.spec.binding_value = 0;
  while (m.spec.binding_value == 0) m.spec.binding_value = binding_random->next_u64();
}

// RoCEv2: "posts each one only when it holds credit for all of its octets": the next RDMA
// message may start only if `limit` covers it whole.
bool Sender::Impl::may_post(const Msg& m, std::uint64_t limit) const {
  const auto [unit_start, unit_end] = m.unit();
  return !(m.spec.post_unit != 0 && m.transmitted == unit_start && unit_end > limit);
}

}  // namespace rdcc::ref
