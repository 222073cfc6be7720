// The one invariant checker (STYLE.md, ARCHITECTURE.md "checker"): it watches what crosses the
// wire and recomputes, on its own, what the spec says must hold. The simulator, ns-3, the
// conformance runner, `rdcc pcap check` and the fuzz harnesses feed it. It never looks inside an
// endpoint, so a faulty endpoint (or a mutant) cannot hide from it.
//
// Each rule is named by its requirement catalog ID (rules.hpp: the table, and the role each
// binds); the catalog holds its text. Checked:
//  - RDCC-BUDGET-01: for every receiver, sum over its messages of (live Grant Limit - received)
//    plus unscheduled octets announced and not yet received never exceeds G ("Receiver Credit
//    Budget"). A grant is live until Lifetime + 2 * D_max after it was sent; a CREDIT_RETURN
//    the receiver processed caps a message at its New Limit, and a CANCEL it sent or processed
//    ends the message's credit 2 * D_max later, until a new grant (docs/spec-notes.md, 65).
//  - sender credit: every data octet a sender transmits is below the Grant Limit it held at
//    that moment (RDCC-GRANT-03) under a grant whose Lifetime had not elapsed since its
//    reception (RDCC-GRANT-04), or is part of an unscheduled message no larger than U
//    (RDCC-MODE-03), announced by a CREDIT_REQUEST first (RDCC-UNSCHED-02).
//  - credit discarded (RDCC-ASSOC-04): once ERROR (UNKNOWN_ASSOCIATION) carrying the sender's
//    Association ID reached it, no octet is sent under the credit it held for that association
//    (every grant and the pool lapse then; the re-established association's grants count).
//  - at most one unscheduled message outstanding per association (RDCC-UNSCHED-03): a
//    CREDIT_REQUEST announcing unscheduled octets of a message while another one's has had
//    neither MSG_DONE nor a usable CREDIT_GRANT (nor a CANCEL or ERROR ending it) reach the
//    sender.
//  - pacing (RDCC-GRANT-05): the octets of a message whose transmission starts within the
//    transmission time of ten Credit Units at its Pacing Rate are at most ten Credit Units plus
//    one segment.
//  - grants never beyond the message length (RDCC-GRANT-07), FINAL exactly when the limit
//    reaches the length (RDCC-GRANT-12), Pacing Rate never zero from a receiver
//    (RDCC-GRANT-06). A Grant Limit below an earlier one is no fault ("it never reduces
//    credit", rule 1: RDCC-GRANT-11 says what the sender does with it).
//  - pool grants: the POOL flag exactly with Message ID zero (RDCC-GRANT-14), and only to a
//    sender whose ASSOC_REQUEST (answered by the ASSOC_ACCEPT, same Sender Nonce) advertised
//    POOL (RDCC-GRANT-08).
//  - MSG_DONE only for a message a CREDIT_REQUEST reached the receiver for, on an association
//    it accepted, and only after every octet of it arrived (RDCC-GRANT-13).
//  - ERROR (UNSUPPORTED_TYPE) only on an association the receiver accepted (RDCC-ERR-08), and
//    ERROR (UNKNOWN_ASSOCIATION) only after a message from that sender naming that Association
//    ID reached the receiver (RDCC-ERR-10: the reply answers a CREDIT_REQUEST; the spec forbids
//    it nowhere else, so any message of the sender excuses it).
//  - Sequence Numbers (RDCC-FMT-06): every message an endpoint sends on an association is newer
//    than the one it sent before (ASSOC_REQUEST, ASSOC_ACCEPT and ERROR (UNKNOWN_ASSOCIATION)
//    exempt; a new Epoch in ASSOC_ACCEPT restarts the numbers), held against the originator.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "rdcc/checker/rules.hpp"
#include "rdcc/codec/messages.hpp"
#include "rdcc/reference/io.hpp"
#include "rdcc/reference/time.hpp"
#include "rdcc/wire/address.hpp"

namespace rdcc::checker {

// What the checker is fed: the endpoints' boundary types (reference/include: header-only, no
// endpoint code; checker/CMakeLists.txt holds the checker to those) and the toolkit's addresses.
using ref::DataSegment;
using ref::Duration;
using ref::Time;
using wire::Address;
using wire::AddressKey;

struct Violation {
  Time time;
  std::string rule;    // a catalog ID of kInvariantRules (rules.hpp), e.g. "RDCC-BUDGET-01"
  Party party{};       // whom it is held against: the endpoint whose message or data broke it
  std::string detail;  // what, with the numbers
  // The tag (on_control_observed) of the earlier message it concerns, 0 for none: the newest
  // one from the same originator (RDCC-FMT-06), the ASSOC_REQUEST that did not advertise POOL
  // (RDCC-GRANT-08).
  std::uint64_t related = 0;
};

class InvariantChecker {
 public:
  InvariantChecker();
  ~InvariantChecker();
  InvariantChecker(const InvariantChecker&) = delete;
  InvariantChecker& operator=(const InvariantChecker&) = delete;

  // A receiver to hold to its budget G, with the domain's D_max.
  void add_receiver(const Address& rdcc_address, std::uint64_t budget, Duration d_max);

  // Every control message when it is put on the wire, and when (if) it is delivered.
  void on_control_sent(const Address& from, const Address& to, const Message& m, Time t);
  void on_control_delivered(const Address& from, const Address& to, const Message& m, Time t);
  // A control message seen where it is sent and delivered at one moment (a capture point): the
  // same as on_control_sent and then on_control_delivered, with one look-up of its ends. `tag`
  // (a frame number) names it in later violations (Violation::related). False when it was
  // discarded as not newer than its originator's last (set_discard_stale).
  bool on_control_observed(const Address& from, const Address& to, const Message& m, Time t,
                           std::uint64_t tag = 0);
  // Every data segment a sender transmits, and every arrival a receiver's binding counted,
  // with the Message ID it belongs to (0 where the binding could not tell).
  void on_segment_sent(const Address& sender, const DataSegment& s, Time t);
  // A data segment seen by a passive observer (a capture), which may not know the sender's
  // mode: unless `s.unscheduled` says so, octets that no live grant covers and that lie
  // within the message's announced unscheduled window count as unscheduled.
  void on_segment_observed(const Address& sender, DataSegment s, Time t);
  void on_data_delivered(const Address& receiver, const Address& sender, std::uint64_t message_id,
                         std::uint64_t octets, Time t);

  // For an observer that sees the traffic at one point away from the sender (a capture):
  // how much later than the sender's own events it may see data relative to the grants.
  // Data is then allowed up to Lifetime + `tolerance` after the grant was seen, and each
  // pacing window admits the rate's worth of `tolerance` more octets (queues can bunch
  // packets up). Zero, the default, where the checker sees the sender's events themselves.
  void set_timing_tolerance(Duration tolerance);
  // For an observer that sees what the path does to packets (a tap): a control message not
  // newer than its originator's last (a copy or a reordered one) is discarded, as its receiver
  // would, instead of being reported (RDCC-FMT-06); stale_count() counts them.
  void set_discard_stale(bool discard);
  [[nodiscard]] std::uint64_t stale_count() const;

  // For endpoints that process a message only when its Sequence Number is newer than the
  // newest they processed by at most `window` (the reference's kSequenceWindow, policy.hpp):
  // one further ahead is discarded and moves nothing. The rule obliges an endpoint to discard
  // what is not newer, not to process all that is (docs/spec-notes.md, "A Sequence Number far
  // ahead is discarded, not processed"), so which far-ahead messages count is the endpoint's
  // choice, which the checker cannot see: it is told. 0, the default: every newer message is
  // processed, the rule's plain reading.
  void set_sequence_window(std::uint32_t window);

  // For an observer that does not see when the sender received a grant (a tester on real
  // sockets: the sender reads its socket whenever its host lets it). A grant delivered to the
  // sender is then pending: the sender received it at some moment no earlier than its delivery
  // and no later than the first data only it authorizes (octets beyond the limit held, or sent
  // after the held grant's Lifetime). Its Lifetime runs from that data, the latest moment the
  // sender can have received it, so data after that Lifetime (plus the timing tolerance) is
  // judged expired whatever the sender's reading delay; until then data is paced against the
  // higher of the old and the new Pacing Rate. Off, the default, a grant counts from its
  // delivery.
  void set_grant_reception_unseen(bool unseen);

  // For an observer that sees when a receiver's grant left (a tester's kernel timestamps) while
  // the receiver counts "Lifetime + 2 * D_max after it sent the grant" from when it decided to
  // send it, a little earlier on a loaded host: the receiver may reclaim that credit up to this
  // much before the observed send + Lifetime + 2 * D_max (the grant counts when it is sent in
  // any case). Zero, the default, where the checker sees the receiver's own events.
  void set_send_time_tolerance(Duration tolerance);

  // For an observer that does not see when the sender read an ERROR (UNKNOWN_ASSOCIATION) (a
  // tester on real sockets): the sender may go on sending under the credit it must discard
  // for this long after the ERROR was delivered (RDCC-ASSOC-04). Zero, the default: from the
  // delivery on (data of that very instant excepted).
  void set_discard_slack(Duration slack);

  // For an observer that sees everything that reaches a sender or happens at it (a tester that
  // plays every receiver and drives the sender's upper tester): the sender's retransmissions of
  // CREDIT_REQUEST are held to their request timeout ("initially twice the smoothed round-trip
  // time and at least 100 microseconds, doubling on each retransmission up to 100 ms", RDCC-
  // GRANT-15). Within a run of requests for one message, with no input to the sender
  // (on_sender_input), no data of the message and no credit held between them, the k-th comes
  // no earlier than min(100 us * 2^(k-1), 100 ms) after the one before, less the timing
  // tolerance (docs/spec-notes.md 188). Off, the default: a capture does not see what the
  // sender's host did (a link pause, its application), which may start a request anew.
  void set_request_backoff(bool judged);
  // Something reached a sender or happened at it at `t` (a datagram sent to it, a command of
  // its upper tester): a request after it may be a new one, not a retransmission. A datagram
  // the checker is fed as delivered counts by itself.
  void on_sender_input(Time t);

  // The violations kept: the first 1,000 since the last take_violations(), so that a broken
  // run cannot exhaust memory; violation_count() counts them all.
  [[nodiscard]] const std::vector<Violation>& violations() const;
  [[nodiscard]] std::uint64_t violation_count() const;
  // The violations kept so far, handed over: an observer that takes them after every event
  // (`rdcc pcap check`) sees every one, however many a capture holds.
  [[nodiscard]] std::vector<Violation> take_violations();
  [[nodiscard]] bool ok() const { return violation_count() == 0; }
  // The largest budget use seen per receiver (octets), for benchmarks and plots.
  [[nodiscard]] std::uint64_t peak_outstanding(const Address& receiver) const;

  // What the checker keeps grows with the live messages, not with every message seen: a
  // message retires once it has ended on both sides (the receiver sent MSG_DONE with every
  // octet in, and a MSG_DONE reached the sender) and nothing has named it for J + Lifetime +
  // 2 * D_max plus the timing tolerance, its credit all lapsed. Its association then keeps only
  // the span of its retired Message IDs; a message named again after that is judged as one that
  // ended so (docs/spec-notes.md, "When the invariant checker forgets a message").
  // The messages modelled now, and those retired so far.
  [[nodiscard]] std::size_t tracked_messages() const;
  [[nodiscard]] std::uint64_t retired_messages() const;
  // Called with each message as it retires: an observer that keeps records of its own per
  // message (`rdcc pcap check`) may let them go then too.
  struct Retired {
    AddressKey receiver;
    AddressKey sender;
    std::uint32_t association_id = 0;
    std::uint64_t message_id = 0;
  };
  void on_retire(std::function<void(const Retired&)> f);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rdcc::checker
