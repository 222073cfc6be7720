// "Association Establishment": which ASSOC_ACCEPT a sender takes, and the incarnation and
// parameters it then holds.
#include "impl.hpp"

namespace rdcc::checker {

// An ASSOC_ACCEPT reached the sender (pair `p`, association `ai`): the incarnation it starts or
// the parameters it updates, where the sender takes it.
void InvariantChecker::Impl::accept_got(std::uint32_t p, std::uint32_t ai, const Header& h,
                                        const AssocAccept& acc) {
  AssocModel& a = assocs[ai];
  // "A sender accepts a new Epoch only from an ASSOC_ACCEPT that echoes its current Sender
  // Nonce" and then "resets the newest processed Sequence Number"; the same incarnation's
  // parameters change only by a fresh Parameter Update (Association Establishment).
  PeerModel& pm = peers[p];
  if (pm.has_sender_nonce && pm.sender_nonce != acc.sender_nonce) {
    if (!a.sender_accepted) {
      a.refused_only = true;
      a.refused_nonce = acc.sender_nonce;
    }
    return;
  }
  // "assigns a non-zero Association ID": the sender refuses an accept of zero as it refuses
  // a wrong nonce (docs/spec-notes.md, 88).
  if (h.association_id == 0) return;
  // An ASSOC_ACCEPT echoing a newer nonce than the incarnation's (the sender associated
  // again) starts one too, even with the same Epoch: it carries the association's parameters.
  const bool new_nonce = pm.has_sender_nonce && a.accepted_nonce != acc.sender_nonce;
  // So does one naming another association than the sender's current one, even an earlier
  // incarnation the checker holds with this Epoch (docs/spec-notes.md, 88).
  const bool other = pm.has_sender_current && pm.sender_current != ai;
  const bool incarnation = !a.sender_accepted || a.sender_epoch != h.epoch || new_nonce || other;
  if (incarnation) {
    // Known only where the checker saw the nonce: without it, an accept the sender refused
    // could not be told from one it took, and each association keeps its own Epoch (162).
    pm.has_sender_current = pm.has_sender_nonce;
    pm.sender_current = ai;
    a.sender_accepted = true;
    a.status_bounded = a.status_bounded || pm.has_sender_nonce;
    a.sender_epoch = h.epoch;
    a.accepted_nonce = acc.sender_nonce;
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
    if (!acc.parameter_update()) return;
  }
  a.u = std::max(a.u, acc.unscheduled_limit);
  a.lifetime_us = acc.grant_lifetime;
  a.credit_unit = acc.credit_unit;
}

// A sender sent `m` naming association `ai` (pair `p`): an association that only ASSOC_ACCEPTs
// it had to refuse named is one it took from an accept that did not echo its current Sender
// Nonce. Seen on the wire whenever the message comes, however late: the scenario's windows do
// not bound it.
void InvariantChecker::Impl::refused_used(std::uint32_t p, std::uint32_t ai, const Message& m,
                                          Time t) {
  AssocModel& a = assocs[ai];
  if (!a.refused_only || a.sender_accepted || !keeping()) return;
  a.refused_only = false;
  violate(t, rule::kRefusedAccept,
          "the sender uses association " + format_hex(header_of(m).association_id) +
              ", which only an ASSOC_ACCEPT echoing Sender Nonce " + format_hex(a.refused_nonce) +
              " named, not its current Sender Nonce " + format_hex(peers[p].sender_nonce) + ": " +
              format_line(m));
}

// The receiver sent ASSOC_ACCEPT (pair `p`, association `ai`): it holds the association, with
// these parameters, and the U it must account (the larger of the old and new until an update is
// acknowledged).
void InvariantChecker::Impl::accept_sent(std::uint32_t p, std::uint32_t ai, const Header& h,
                                         const AssocAccept& acc, Time t) {
  AssocModel& a = assocs[ai];
  a.u = std::max(a.u, acc.unscheduled_limit);
  a.last_traffic = t;
  if (!a.accepted) {
    // Once: an association the receiver forgot (spec-notes 93) may be accepted again.
    std::vector<std::uint32_t>& accepted = peers[p].accepted;
    if (std::find(accepted.begin(), accepted.end(), ai) == accepted.end()) accepted.push_back(ai);
  }
  if (!a.accepted || acc.parameter_update()) {
    a.u_accounted =
        a.accepted ? std::max(a.u_accounted, acc.unscheduled_limit) : acc.unscheduled_limit;
  }
  a.accepted = true;
  a.established = true;
  if (const PeerModel& pm = peers[p]; pm.has_sender_nonce && pm.sender_nonce == acc.sender_nonce) {
    a.capabilities_known = true;
    a.pool_advertised = (pm.sender_capabilities & capability::kPool) != 0;
    a.offer_tag = pm.offer_tag;
  }
  a.epoch = h.epoch;
  a.nonce = acc.sender_nonce;
  a.u_current = acc.unscheduled_limit;
  a.j = acc.start_jitter;
  a.lifetime_us = acc.grant_lifetime;
  a.credit_unit = acc.credit_unit;
}

}  // namespace rdcc::checker
