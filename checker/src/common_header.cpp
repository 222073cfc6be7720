// "Common Header": Sequence Numbers (RDCC-FMT-06), and where each control message goes.
#include "impl.hpp"

namespace rdcc::checker {

// A control message from `f` to `d` put on the wire, and delivered; `from_receiver` and
// `to_receiver` are their numbers as receivers (receiver_of: kNone for any other address).
// What reaches neither a receiver nor a sender from one (a CRN's report to a sender) is not
// judged on delivery. on_control_sent, _delivered and _observed all come through here.
// False when the message was discarded as stale (set_discard_stale).
bool InvariantChecker::Impl::control_sent(const AddrKey& f, const AddrKey& d,
                                          std::uint32_t from_receiver, const Message& m, Time t) {
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
bool InvariantChecker::Impl::sequenced(const AddrKey& f, const AddrKey& d,
                                       std::uint32_t from_receiver, const Message& m, Time t) {
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

void InvariantChecker::Impl::control_delivered(const AddrKey& f, const AddrKey& d,
                                               std::uint32_t from_receiver,
                                               std::uint32_t to_receiver, const Message& m,
                                               Time t) {
  if (to_receiver != kNone) {
    receiver_got(to_receiver, d, f, m, t);
  } else if (from_receiver != kNone) {
    note_sender_input(t);
    sender_got(d, f, m, t);
  }
}

}  // namespace rdcc::checker
