// The checker's state and the declarations of its rules (invariants.hpp): one struct, its
// functions defined one file per spec heading, as the endpoints' rules are
// (reference/src/receiver).
#pragma once

#include <cassert>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model.hpp"

namespace rdcc::checker {

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
  bool request_backoff = false;    // set_request_backoff
  // The latest input to a sender: on_sender_input, and every delivery to a sender.
  std::optional<Time> sender_input;
  void note_sender_input(Time t) { sender_input = sender_input ? std::max(*sender_input, t) : t; }
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

  void forget_receivers_asked() { receiver_asked.fill({AddrKey{}, kAsked}); }

  // The message's number, added if new: a fresh model, or for a retired message one that
  // remembers how it ended (resurrect).
  std::uint32_t msg(std::uint32_t assoc_number, std::uint64_t message_id) {
    return lookup(assoc_number, message_id, true);
  }
  // The message's number, or kNone; a retired message's model is made again (resurrect).
  [[nodiscard]] std::uint32_t find_msg(std::uint32_t assoc_number, std::uint64_t message_id) {
    return lookup(assoc_number, message_id, false);
  }
  std::uint32_t touch(std::uint32_t index) {
    msgs[index].touched = now;
    return index;
  }

  void schedule(std::uint32_t msg_number, Time at) {
    expiries.push(at, msg_number, msgs[msg_number].generation);
  }

  // Violations kept, look-ups, the expiry clock (checker.cpp)
  void violate(Time t, std::string_view rule, std::string detail, std::uint64_t related = 0);
  void violate_by(Time t, std::string_view rule, Party party, std::string detail,
                  std::uint64_t related = 0);
  std::uint32_t receiver_of(const AddrKey& a);
  std::uint32_t peer(const AddrKey& rx, const AddrKey& tx);
  std::uint32_t assoc(std::uint32_t peer_number, std::uint32_t association);
  [[nodiscard]] std::uint32_t find_assoc(std::uint32_t peer_number,
                                         std::uint32_t association) const;
  std::uint32_t lookup(std::uint32_t assoc_number, std::uint64_t message_id, bool add);
  std::uint32_t add_msg(std::uint32_t assoc_number, std::uint64_t message_id);
  void expire_until(Time t);
  void widen_send_time_tolerance(Duration to);

  // A message's end and retirement (model.cpp: "When the invariant checker forgets a message")
  std::uint32_t resurrect(std::uint32_t assoc_number, std::uint64_t message_id);
  void schedule_retirement(std::uint32_t index);
  [[nodiscard]] Time retire_due(const MsgModel& m) const;
  void retire_check(std::uint32_t index, Time at);
  void retire(std::uint32_t index);
  void done_sent(std::uint32_t index);
  void done_delivered(std::uint32_t ai, std::uint64_t message_id);
  PeerMsgModel& peer_msg(std::uint32_t peer_number, std::uint64_t message_id);

  // "Association Establishment" (association_establishment.cpp)
  void accept_got(std::uint32_t p, std::uint32_t ai, const Header& h, const AssocAccept& acc);
  void refused_used(std::uint32_t p, std::uint32_t ai, const Message& m, Time t);
  void accept_sent(std::uint32_t p, std::uint32_t ai, const Header& h, const AssocAccept& acc,
                   Time t);

  // "Common Header": Sequence Numbers, and where a control message goes (common_header.cpp)
  bool control_sent(const AddrKey& f, const AddrKey& d, std::uint32_t from_receiver,
                    const Message& m, Time t);
  bool sequenced(const AddrKey& f, const AddrKey& d, std::uint32_t from_receiver, const Message& m,
                 Time t);
  void control_delivered(const AddrKey& f, const AddrKey& d, std::uint32_t from_receiver,
                         std::uint32_t to_receiver, const Message& m, Time t);

  // "Receiver Credit Budget": what the receiver holds out, RDCC-BUDGET-01
  // (receiver_credit_budget.cpp)
  static std::uint64_t exposure_of(const MsgModel& m, Time t);
  void refresh(std::uint32_t msg_number, Time t);
  void confirm_held(std::uint32_t ai, Time t);
  void forget_association(std::uint32_t ai, std::uint16_t epoch, Time t);
  void cancel_seen(std::uint32_t ai, std::uint64_t message_id, Duration d_max, Time t);
  void receiver_got(std::uint32_t r, const AddrKey& rx, const AddrKey& tx, const Message& m,
                    Time t);
  void update_acknowledged(std::uint32_t p, const AssocRequest& q);

  // "Credit Requests and Grants": grants sent and held, data under them
  // (credit_requests_and_grants.cpp)
  static bool miscounted(std::uint64_t octets_received, const MsgModel& m);
  void receiver_sent(std::uint32_t r, const AddrKey& rx, const AddrKey& tx, const Message& m,
                     Time t);
  void done_rules(std::uint32_t ai, const MsgDone& done, Time t);
  void sender_got(const AddrKey& tx, const AddrKey& rx, const Message& m, Time t);
  void grant_got(std::uint32_t ai, const CreditGrant& g, Time t);
  void pend(MsgModel& msg, const CreditGrant& g, Duration life, Time t);
  void set_rate(MsgModel& msg, std::uint32_t rate);
  void take_pending(MsgModel& msg, Time t);
  void segment(const AddrKey& tx, const DataSegment& s, Time t);
  void uncovered(const MsgModel& msg, const DataSegment& s, std::uint64_t end, Time t);

  // "Credit Requests and Grants", rule 4: the Pacing Rate (credit_requests_and_grants.cpp)
  static Duration pacing_window(std::uint32_t rate, const AssocModel& a);
  [[nodiscard]] std::uint64_t pacing_allowance(std::uint32_t rate, const AssocModel& a,
                                               std::uint64_t last) const;
  bool pool_instead(MsgModel& msg, AssocModel& a, const DataSegment& s, Time t);
  void check_pacing(MsgModel& msg, const AssocModel& a, const DataSegment& s, Time t);
  void check_pool_pacing(MsgModel& msg, const AssocModel& a, const DataSegment& s, Time t);
  void paced(std::vector<std::pair<Time, std::uint32_t>>& recent, std::uint32_t rate,
             const AssocModel& a, const DataSegment& s, Time t, const char* under);

  // "Traffic Classes and Pool Credit" (traffic_classes_and_pool_credit.cpp)
  void pool_rules(const AssocModel& a, const CreditGrant& g, Time t);
  static void take_pool_pending(AssocModel& a, Time t);

  // "Error Handling and Recovery" (error_handling_and_recovery.cpp)
  void error_rules(const AssocModel& a, const ErrorMessage& e, Time t);
  void refused(std::uint32_t ai, const ErrorMessage& e, Time t);
  void discard_sender_credit(std::uint32_t ai, Time at);

  // "Unscheduled Transmission", and what the sender sends (unscheduled_transmission.cpp)
  std::uint64_t live_windows(AssocModel& a, std::uint32_t except, Time t);
  void announce_window(std::uint32_t r, AssocModel& a, std::uint32_t mi, const CreditRequest& req,
                       Time t);
  void sender_sent(const AddrKey& tx, const AddrKey& rx, const Message& m, Time t);
  void end_unscheduled(std::uint32_t ai, const Message& m);
  void request_backoff_rule(MsgModel& msg, const AssocModel& a, const CreditRequest& req, Time t);
  bool inferred_unscheduled(const AddrKey& tx, const DataSegment& s, Time t);
  void unscheduled_segment(const MsgModel& msg, const AssocModel& a, const DataSegment& s,
                           std::uint64_t end, Time t);

  // "SENDER_STATUS": the Unused Credit it may report (sender_status.cpp)
  static void set_unused_term(AssocModel& a, MsgModel& m, std::uint64_t granted,
                              std::uint64_t sent);
  void status_sent(std::uint32_t ai, const SenderStatus& st, Time t);
};

}  // namespace rdcc::checker
