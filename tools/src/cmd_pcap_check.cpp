// rdcc pcap check: a passive conformance check of a capture. Every RDCC control message is
// fed to the reference InvariantChecker (sent and delivered at the same moment: a single
// capture point), which holds every rule of the protocol's messages; the two rules below the
// messages, which only the capture's octets show, are checked here: UDP checksums (RDCC-FMT-01)
// and malformed messages (RDCC-ERR-09). Findings are named by catalog ID, and their text is
// the catalog's (built in: Catalog::built_in).
//
// Data packets, where the capture holds them: the opaque transport on --data-port
// (docs/data-transport.md) and RoCEv2 on --rocev2-port (4791), related to their RDCC messages
// by the Binding Value of the CREDIT_REQUESTs (RoCEv2: through the reference Rocev2Responder,
// QPN and MSN) and fed to the same InvariantChecker as observed segments and arrivals. Where a
// message's data is not in the capture, its octets count as received when MSG_DONE states them.
#include <algorithm>
#include <array>
#include <cassert>
#include <functional>
#include <iostream>
#include <memory>
#include <set>
#include <span>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "data_packets.hpp"
#include "pcap_commands.hpp"
#include "pcap_common.hpp"
#include "rdcc/checker/dense_index.hpp"
#include "rdcc/checker/invariants.hpp"
#include "rdcc/codec/format.hpp"
#include "rdcc/codec/json.hpp"
#include "rdcc/conformance/catalog.hpp"
#include "rdcc/reference/bindings.hpp"
#include "rdcc/wire/annotate.hpp"

namespace rdcc::tools {
namespace {

// The rules of the capture's octets, which the InvariantChecker (fed decoded messages) cannot
// see.
constexpr std::string_view kUdpChecksum = "RDCC-FMT-01";
constexpr std::string_view kMalformed = "RDCC-ERR-09";

// Notes (malformed frames, undecodable data, messages of another version) shown: a damaged
// capture can hold millions, each printed on standard error as found; past this many they are
// only counted, and the count is printed at the end.
constexpr std::uint64_t kShownNotes = 1000;

// A violation's ID, from the checker's table (static: a Finding keeps it).
std::string_view rule_id(const checker::Violation& v) {
  const checker::InvariantRule* r = checker::invariant_rule(v.rule);
  assert(r != nullptr);
  return r->id;
}

struct CheckOptions {
  CaptureOptions capture;
  std::string budget;
  std::int64_t d_max_us = 0;
  std::optional<std::int64_t> slack_us;  // --capture-slack; default 2 * D_max
  std::optional<std::uint16_t> data_port;
  std::string data_framing;  // --data-framing FILE; empty: the project's framing
  std::uint16_t rocev2_port = ref::kRocev2Port;  // 0: RoCEv2 not read
  std::optional<std::uint8_t> unscheduled_dscp;
  bool network_effects = false;  // the capture point sees the path's loss, reordering, copies
  bool json = false;
  std::string annotate;  // --annotate OUT.pcapng: the capture with a comment per flagged frame
};

struct Finding {
  std::string_view rule;
  std::vector<std::uint64_t> frames;
  std::int64_t time_ns = 0;
  std::string detail;
};

// What a capture shows per message, to name the frames a finding concerns.
struct MessageFrames {
  std::uint64_t request = 0;        // first CREDIT_REQUEST
  std::uint64_t grant = 0;          // grant with the highest Grant Limit
  std::uint64_t latest_grant = 0;   // the latest grant (it sets the Lifetime)
  std::uint64_t delivered = 0;      // octets that MSG_DONE said arrived, fed to the checker
  std::uint64_t data_end = 0;       // highest octet offset (exclusive) of data seen
  std::uint64_t highest_grant = 0;  // the Grant Limit of `grant`
};

// What the capture shows per association (receiver, sender, Association ID).
struct AssociationState {
  bool unsched_requested = false;
  std::uint64_t unsched_request = 0;  // the last unscheduled request's frame
  bool pool_reported = false;         // RDCC-GRANT-08 reported for it
};

// (receiver, sender, Association ID), and (association number, Message ID).
struct AssocId {
  AddrKey rx;
  AddrKey tx;
  std::uint32_t association = 0;
  friend bool operator==(const AssocId&, const AssocId&) = default;
};
struct AssocIdHash {
  std::uint64_t operator()(const AssocId& k) const {
    return ref::hash_mix(ref::hash_mix(ref::hash_mix(0, k.rx), k.tx), k.association);
  }
};
// (association number, Message ID)
using MsgId = checker::OwnedMessageKey;

class Checker {
 public:
  Checker(const CheckOptions& o, std::uint64_t budget)
      : roles_(o.capture.port),
        budget_(budget),
        d_max_(ref::microseconds(o.d_max_us)),
        data_port_(o.data_port),
        data_(o.data_port, o.rocev2_port, o.unscheduled_dscp),
        network_effects_(o.network_effects) {
    invariants_.set_timing_tolerance(o.slack_us ? ref::microseconds(*o.slack_us) : d_max_ * 2);
    // A capture shows when a grant passed, not when the sender read it: its Lifetime runs from
    // the first data only it authorizes (docs/spec-notes.md, "A tester on real sockets does not
    // see when a grant was read").
    invariants_.set_grant_reception_unseen(true);
    invariants_.set_discard_stale(network_effects_);
    if (network_effects_) data_.keep_early();
    data_.set_framing(data_framing_of(o.data_framing));
    invariants_.on_retire([this](const checker::InvariantChecker::Retired& r) { forget(r); });
  }

  // A UDP datagram that is not RDCC: a data packet if it goes to the data port or RoCEv2's.
  void data(const CapturedFrame& f, const ParsedFrame& u) {
    if (!data_.reads(u)) return;
    drop_forgotten();
    DataPackets::Read r = data_.read(f, u);
    switch (r.kind) {
      case DataPackets::Read::Kind::Undecodable: note(r.text); return;
      case DataPackets::Read::Kind::Retransmission: return;
      case DataPackets::Read::Kind::Unrequested: unrequested(f, u, r.text); return;
      case DataPackets::Read::Kind::Message:
        segment(f, r.message, r.offset, r.length, r.marked_unscheduled);
        return;
    }
  }

  [[nodiscard]] std::uint64_t data_packets() const { return data_.packets(); }
  [[nodiscard]] std::uint64_t unattributed() const { return unattributed_; }

  void packet(const RdccPacket& p) {
    drop_forgotten();
    if (!p.decoded) {
      malformed_message(p);
      return;
    }
    const Message& m = *p.decoded;
    const auto sides = roles_.sides(m, p.udp.source, p.udp.destination);
    if (!p.udp.source.ipv6 && p.udp.udp_checksum == 0)
      zero_checksum(p, m, sides.has_value() && !sides->from_receiver);
    if (!sides) return;  // CONGESTION_REPORT: exempt and associationless
    const AddrKey rx = key_of(sides->receiver);
    if (!(have_last_known_ && last_known_ == rx)) {
      if (known_.insert(rx).second) invariants_.add_receiver(sides->receiver, budget_, d_max_);
      have_last_known_ = true;
      last_known_ = rx;
    }
    const std::uint32_t a = assoc_number(rx, key_of(sides->sender), header_of(m).association_id);
    bookkeeping(p, m, *sides, a);
    // A copy or a reordered message under --network-effects: its receiver discards it, and so
    // does the checker (set_discard_stale).
    if (!feed(p, m, *sides, a)) return;
    if (const auto* req = std::get_if<CreditRequest>(&m); req != nullptr && network_effects_) {
      credit_early(p, *req, *sides);
    }
  }

  // An IPv4 RDCC datagram with UDP checksum zero (not set): "Senders MUST set the UDP
  // checksum" binds RDCC senders (the spec's defined term; docs/spec-notes.md 34), so one from a
  // receiver or a CRN is a note, not a finding.
  void zero_checksum(const RdccPacket& p, const Message& m, bool from_sender) {
    const std::string what =
        "UDP checksum is zero (not set) on " + std::string(info(type_of(m)).name);
    if (from_sender) {
      add(kUdpChecksum, {p.frame.number}, p.frame.relative_ns, what);
      return;
    }
    note("frame " + std::to_string(p.frame.number) + ": " + what + " from " +
         (type_of(m) == MessageType::CongestionReport ? "a CRN" : "the receiver") +
         ": \"Senders MUST set the UDP checksum\" binds RDCC senders (docs/spec-notes.md 34); "
         "not a finding");
  }

  void malformed(const CapturedFrame& f, const ParsedFrame& parsed) {
    note("frame " + std::to_string(f.number) + ": malformed frame: " + describe_malformed(parsed));
  }

  [[nodiscard]] std::uint64_t findings() const { return findings_; }
  // Called with each finding and each note as it is found, and neither is kept: the output
  // streams (a live capture piped in is reported as its packets arrive), and what the check
  // holds does not grow with what it finds (a damaged capture of 67 million empty records
  // gives as many notes).
  void on_finding(std::function<void(const Finding&)> f) { on_finding_ = std::move(f); }
  void on_note(std::function<void(const std::string&)> f) { on_note_ = std::move(f); }
  [[nodiscard]] std::uint64_t suppressed() const { return suppressed_; }
  [[nodiscard]] std::uint64_t pool_suppressed() const { return pool_suppressed_; }
  [[nodiscard]] std::uint64_t stale() const { return invariants_.stale_count(); }

 private:
  // The association's number (added if new); the last one is kept, as consecutive messages
  // are mostly of one association.
  std::uint32_t assoc_number(const AddrKey& rx, const AddrKey& tx, std::uint32_t association) {
    const AssocId k{rx, tx, association};
    if (last_assoc_ != kNone && last_assoc_key_ == k) return last_assoc_;
    const auto [index, added] = assoc_index_.insert(k);
    if (added) assocs_.emplace_back();
    last_assoc_key_ = k;
    last_assoc_ = index;
    return index;
  }
  std::uint32_t assoc_number(const MessageRef& r) {
    return assoc_number(key_of(r.receiver), key_of(r.sender), r.association_id);
  }
  // What the capture shows of a message (added if new).
  MessageFrames& frames_of(std::uint32_t assoc, std::uint64_t message_id) {
    const MsgId k{assoc, message_id};
    if (last_msg_ != nullptr && last_msg_key_ == k) return *last_msg_;
    last_msg_key_ = k;
    last_msg_ = &msgs_[k];
    return *last_msg_;
  }
  // The checker forgot a message that ended (InvariantChecker::on_retire): so does this, once
  // the packet in hand is done with (its record may be in use). What the capture shows of it
  // later starts a fresh record (findings then name fewer frames).
  void forget(const checker::InvariantChecker::Retired& r) {
    const std::uint32_t a = assoc_index_.find({r.receiver, r.sender, r.association_id});
    if (a != kNone) forgotten_.push_back({a, r.message_id});
  }
  void drop_forgotten() {
    for (const MsgId& k : forgotten_) {
      if (last_msg_ != nullptr && last_msg_key_ == k) last_msg_ = nullptr;
      msgs_.erase(k);
    }
    forgotten_.clear();
  }

  void add(std::string_view id, std::vector<std::uint64_t> frames, std::int64_t t,
           std::string detail) {
    ++findings_;
    if (on_finding_) on_finding_(Finding{id, std::move(frames), t, std::move(detail)});
  }
  void note(const std::string& text) {
    if (on_note_) on_note_(text);
  }

  // ---- data packets -----------------------------------------------------------------------

  // Under --network-effects, data (opaque or RoCEv2) seen before its CREDIT_REQUEST (which the
  // path lost and the sender retransmitted, or delayed) is judged once the request is in: as
  // if it had arrived with it, like the receiver's own early data (spec-notes 69, 70).
  // Beyond the window the request announces it is then data beyond the credit.
  void credit_early(const RdccPacket& p, const CreditRequest& req, const Roles::Sides& s) {
    for (const DataPackets::Early& k : data_.early(req, s)) {
      CapturedFrame f = p.frame;
      f.number = k.frame;  // findings name the data's frame, at the request's time
      --unattributed_;
      segment(f, k.read.message, k.read.offset, k.read.length, k.read.marked_unscheduled);
    }
  }

  // Data no CREDIT_REQUEST in the capture names: a finding where the two hosts established
  // an association in the capture (so its requests would be in it), otherwise counted only.
  void unrequested(const CapturedFrame& f, const ParsedFrame& u, const std::string& what) {
    ++unattributed_;
    if (network_effects_) return;  // its request may have been lost before the capture point
    if (!accepted_hosts_.count({ip_of(u.source), ip_of(u.destination)})) return;
    if (!unrequested_reported_.insert({ip_of(u.source), ip_of(u.destination)}).second) return;
    add(checker::rule::kSenderCredit, {f.number}, f.relative_ns,
        "data " + u.source.to_string() + " \u2192 " + u.destination.to_string() + " for " + what +
            ", which no CREDIT_REQUEST in the capture names, between hosts that established an "
            "association in it (later such packets are not reported)");
  }

  // One observed data packet of a known message: to the InvariantChecker, sent and arrived
  // at the same moment. The first finding of each rule per message is reported.
  void segment(const CapturedFrame& f, const MessageRef& r, std::uint64_t offset,
               std::uint32_t length, bool marked_unscheduled) {
    const ref::Time t{f.relative_ns};
    MessageFrames& m = frames_of(assoc_number(r), r.message_id);
    ref::DataSegment s;
    s.receiver = r.receiver;
    s.association_id = r.association_id;
    s.message_id = r.message_id;
    s.offset = offset;
    s.length = length;
    s.unscheduled = marked_unscheduled;
    invariants_.on_segment_observed(r.sender, s, t);
    // Octets arrive once: a retransmission below the highest offset seen adds nothing.
    const std::uint64_t end = offset + length;
    if (end > m.data_end) {
      invariants_.on_data_delivered(r.receiver, r.sender, r.message_id, end - m.data_end, t);
      m.data_end = end;
    }
    report_violations(f, r, &m);
  }

  // The checker's violations are taken after each packet (every call into it is followed by a
  // take), so every one is seen however many a capture holds (it keeps at most 1,000 between
  // takes).
  void report_violations(const CapturedFrame& f, const MessageRef& r, const MessageFrames* m) {
    const auto v = invariants_.take_violations();
    for (std::size_t i = 0; i < v.size(); ++i) {
      const std::string_view id = rule_id(v[i]);
      if (!data_reported_.insert({std::string(id), msg_key(r)}).second) {
        ++suppressed_;
        continue;
      }
      std::vector<std::uint64_t> frames;
      if (m != nullptr && m->request != 0) frames.push_back(m->request);
      if (m != nullptr) {
        const std::uint64_t g = id == checker::rule::kGrantExpired ? m->latest_grant : m->grant;
        if (g != 0 && (id == checker::rule::kGrantExpired || id == checker::rule::kSenderCredit ||
                       id == checker::rule::kPacing)) {
          frames.push_back(g);
        }
      }
      frames.push_back(f.number);
      std::string detail = v[i].detail;
      detail += id == checker::rule::kBudget
                    ? " at " + r.receiver.to_string()
                    : " (" + r.sender.to_string() + " \u2192 " + r.receiver.to_string() +
                          ", association " + format_hex(r.association_id) + ")";
      add(id, std::move(frames), f.relative_ns, std::move(detail));
    }
  }

  void malformed_message(const RdccPacket& p) {
    const DecodeError& e = p.decoded.error();
    const std::string where =
        " [frame offset " + std::to_string(p.udp.payload_offset + e.offset) + "]";
    if (e.code == DecodeErrorCode::UnknownType || e.code == DecodeErrorCode::BadVersion) {
      // Discarded by receivers, but not a fault: a later version or a Private Use type.
      note("frame " + std::to_string(p.frame.number) + ": " + e.describe() + where);
      return;
    }
    add(kMalformed, {p.frame.number}, p.frame.relative_ns,
        p.udp.source.to_string() + " \u2192 " + p.udp.destination.to_string() + ": " +
            e.describe() + where);
  }

  // What the capture keeps to relate data and findings to frames: hosts that established an
  // association, the binding values of requests, each message's first request.
  void bookkeeping(const RdccPacket& p, const Message& m, const Roles::Sides& s,
                   std::uint32_t assoc) {
    if (std::holds_alternative<AssocAccept>(m)) {
      accepted_hosts_.insert({ip_of(s.sender), ip_of(s.receiver)});
    } else if (const auto* req = std::get_if<CreditRequest>(&m)) {
      data_.bind(*req, s);
      MessageFrames& f = frames_of(assoc, req->message_id);
      if (f.request == 0) f.request = p.frame.number;
    }
  }

  // To the InvariantChecker: one capture point, so sent and delivered are the same moment.
  // False when the checker discarded the message as stale (--network-effects).
  bool feed(const RdccPacket& p, const Message& m, const Roles::Sides& s, std::uint32_t assoc) {
    const Header& h = header_of(m);
    const ref::Time t{p.frame.relative_ns};
    if (const auto* done = std::get_if<MsgDone>(&m)) {
      // Without the message's data in the capture, MSG_DONE says how many octets arrived.
      const MessageRef r{s.receiver, s.sender, h.association_id, done->message_id};
      MessageFrames& f = frames_of(assoc, done->message_id);
      if (!data_.in_capture(r) && done->octets_received > f.delivered) {
        invariants_.on_data_delivered(s.receiver, s.sender, done->message_id,
                                      done->octets_received - f.delivered, t);
        f.delivered = done->octets_received;
      }
    }
    if (!invariants_.on_control_observed(p.udp.source, p.udp.destination, m, t, p.frame.number)) {
      return false;
    }
    const auto v = invariants_.take_violations();
    std::vector<std::string_view> seen;  // rules reported for this message (few: no set)
    for (std::size_t i = 0; i < v.size(); ++i) {
      const std::string_view id = rule_id(v[i]);
      if (std::find(seen.begin(), seen.end(), id) != seen.end()) continue;
      seen.push_back(id);
      if (id == checker::rule::kPoolUnadvertised) {
        // The first per association: a receiver that does it, does it often.
        if (assocs_[assoc].pool_reported) {
          ++pool_suppressed_;
          continue;
        }
        assocs_[assoc].pool_reported = true;
      }
      add(id, frames_of_violation(v[i], id, p, m, assoc), p.frame.relative_ns,
          detail_of(v[i], id, p, s));
    }
    if (const auto* req = std::get_if<CreditRequest>(&m);
        req != nullptr && req->unscheduled_sent != 0) {
      AssociationState& a = assocs_[assoc];
      a.unsched_requested = true;
      if (std::find(seen.begin(), seen.end(), checker::rule::kUnscheduledOutstanding) ==
          seen.end()) {
        a.unsched_request = p.frame.number;
      }
    }
    if (const auto* g = std::get_if<CreditGrant>(&m); g != nullptr && !g->pool()) {
      MessageFrames& f = frames_of(assoc, g->message_id);
      if (f.grant == 0 || g->grant_limit > f.highest_grant) {
        f.grant = p.frame.number;
        f.highest_grant = g->grant_limit;
      }
      f.latest_grant = p.frame.number;
    }
    return true;
  }

  // The frames a violation found at a control message concerns, this one last.
  std::vector<std::uint64_t> frames_of_violation(const checker::Violation& v, std::string_view id,
                                                 const RdccPacket& p, const Message& m,
                                                 std::uint32_t assoc) {
    std::vector<std::uint64_t> frames;
    if (id == checker::rule::kSequence || id == checker::rule::kPoolUnadvertised) {
      if (v.related != 0) frames.push_back(v.related);
    } else if (id == checker::rule::kUnscheduledOutstanding &&
               std::holds_alternative<CreditRequest>(m)) {
      if (assocs_[assoc].unsched_requested) frames.push_back(assocs_[assoc].unsched_request);
    } else if (id != checker::rule::kPoolGrantId && id != checker::rule::kUnsupportedTypeReply &&
               id != checker::rule::kUnknownAssociationReply) {
      if (const auto message = message_id_of(m)) {
        const MessageFrames& f = frames_of(assoc, *message);
        if (f.request != 0) frames.push_back(f.request);
      }
    }
    frames.push_back(p.frame.number);
    return frames;
  }

  std::string detail_of(const checker::Violation& v, std::string_view id, const RdccPacket& p,
                        const Roles::Sides& s) const {
    std::string detail = v.detail;
    if (id == checker::rule::kBudget) {
      detail += " at " + s.receiver.to_string();
      if (!data_port_ || data_.packets() == 0) {
        detail +=
            " (octets of messages whose data is not in the capture count as received "
            "when MSG_DONE states them)";
      }
    } else if (id == checker::rule::kSequence || id == checker::rule::kPoolUnadvertised ||
               id == checker::rule::kPoolGrantId || id == checker::rule::kUnsupportedTypeReply ||
               id == checker::rule::kUnknownAssociationReply || id == checker::rule::kMsgDone) {
      detail += " (" + p.udp.source.to_string() + " \u2192 " + p.udp.destination.to_string() + ")";
    }
    return detail;
  }

  Roles roles_;
  std::uint64_t budget_;
  ref::Duration d_max_;
  std::optional<std::uint16_t> data_port_;
  DataPackets data_;
  bool network_effects_;
  checker::InvariantChecker invariants_;
  // Hashed maps keyed by packed addresses: each RDCC packet looks several of them up, and a
  // capture holds millions (none is iterated, so their order shows nowhere).
  template <class K, class V>
  using Map = std::unordered_map<K, V, KeyHash>;
  template <class K>
  using Set = std::unordered_set<K, KeyHash>;
  Set<std::pair<IpKey, IpKey>> accepted_hosts_;  // (sender, receiver) with an ASSOC_ACCEPT
  Set<std::pair<IpKey, IpKey>> unrequested_reported_;
  std::set<std::pair<std::string, MsgKey>> data_reported_;
  std::uint64_t unattributed_ = 0;
  std::uint64_t suppressed_ = 0;
  std::uint64_t pool_suppressed_ = 0;  // later pool grants of an association already reported
  Set<AddrKey> known_;                 // receivers added to invariants_
  bool have_last_known_ = false;
  AddrKey last_known_;
  // Associations and messages, numbered (DenseIndex): each RDCC packet looks its own up once.
  static constexpr std::uint32_t kNone = checker::DenseIndex<AssocId, AssocIdHash>::kNone;
  checker::DenseIndex<AssocId, AssocIdHash> assoc_index_;
  std::vector<AssociationState> assocs_;
  AssocId last_assoc_key_;
  std::uint32_t last_assoc_ = kNone;
  // Per message until the checker forgets it (forget): as many as are live, not every one seen.
  // A node map: a record's reference stays valid while others come and go.
  std::unordered_map<MsgId, MessageFrames, checker::OwnedMessageKeyHash> msgs_;
  MsgId last_msg_key_;
  MessageFrames* last_msg_ = nullptr;
  std::vector<MsgId> forgotten_;  // retired during the packet in hand (forget)
  std::uint64_t findings_ = 0;
  std::function<void(const Finding&)> on_finding_;
  std::function<void(const std::string&)> on_note_;
};

std::string frames_text(const std::vector<std::uint64_t>& frames) {
  std::string s = frames.size() == 1 ? "frame " : "frames ";
  for (std::size_t i = 0; i < frames.size(); ++i) {
    if (i != 0) s += ",";
    s += std::to_string(frames[i]);
  }
  return s;
}

// One finding, as a line (and the spec's sentence) or a JSON object; flushed where standard
// output is a pipe (line-buffered: main).
void print_finding(const Finding& f, const conformance::Catalog& catalog, bool json) {
  // Every rule's ID is in the catalog (rules_test; pcap_test for the two of this file).
  const conformance::Requirement* r = catalog.find(f.rule);
  if (json) {
    nlohmann::ordered_json j{{"rule", f.rule},
                             {"level", r ? to_string(r->level) : "?"},
                             {"frames", f.frames},
                             {"time", static_cast<double>(f.time_ns) / 1e9},
                             {"detail", f.detail}};
    if (r != nullptr) {
      j["section"] = r->section;
      if (!r->clause.empty()) j["clause"] = r->clause;
      j["spec"] = r->text;
    }
    std::cout << j.dump() << '\n';
  } else {
    std::cout << f.rule << ' ' << frames_text(f.frames) << " (t=" << format_seconds(f.time_ns)
              << "): " << f.detail << '\n';
    if (r != nullptr) {
      std::cout << "  spec (" << r->section << (r->clause.empty() ? "" : ", " + r->clause) << "; "
                << to_string(r->level) << "): \"" << r->text << "\"\n";
    }
  }
}

int run_check(const CheckOptions& o) {
  const auto budget = parse_octets(o.budget);
  if (!budget) {
    throw CLI::ValidationError("--budget", "'" + o.budget +
                                               "' is not a number of octets (e.g. 4194304, "
                                               "4MiB, 256KiB)");
  }
  Checker checker(o, *budget);
  const conformance::Catalog& catalog = conformance::Catalog::built_in();
  // --annotate: a comment per flagged frame (the rule's ID, level and sentence, then what this
  // frame showed), written into a copy of the capture at the end; the one thing kept per finding.
  wire::FrameComments comments;
  checker.on_finding([&](const Finding& f) {
    print_finding(f, catalog, o.json);
    if (o.annotate.empty()) return;
    const conformance::Requirement* r = catalog.find(f.rule);
    std::string comment(f.rule);
    if (r != nullptr) comment += " " + std::string(to_string(r->level)) + ": \"" + r->text + "\"";
    comment += " (" + f.detail + ")";
    for (const auto frame : f.frames) comments[frame].push_back(comment);
  });
  // Notes as found, on standard error, the first kShownNotes of them; the rest are counted.
  std::uint64_t notes = 0;
  checker.on_note([&](const std::string& n) {
    if (++notes <= kShownNotes) std::cerr << "rdcc pcap check: note: " << n << '\n';
  });
  ScanHandlers h;
  h.packet = [&](const RdccPacket& p) { checker.packet(p); };
  h.malformed = [&](const CapturedFrame& f, const ParsedFrame& parsed) {
    checker.malformed(f, parsed);
  };
  if (o.data_port || o.rocev2_port != 0) {
    h.other_udp = [&](const CapturedFrame& f, const ParsedFrame& parsed) {
      checker.data(f, parsed);
    };
  }
  CaptureOptions capture = o.capture;
  capture.data_port = o.data_port;
  const auto unshown_notes = [&] {
    if (notes <= kShownNotes) return;
    std::cerr << "rdcc pcap check: note: " << notes - kShownNotes
              << " later notes not shown (the first " << kShownNotes << " are)\n";
  };
  ScanSummary summary;
  try {
    summary = scan_capture(capture, h);
  } catch (const FileError&) {  // a capture damaged after its good frames: exit 2
    unshown_notes();
    throw;
  }
  // The findings were printed as found; --annotate writes them into a copy of the capture.
  if (!o.annotate.empty()) {
    if (auto error = wire::annotate_capture(o.capture.file, o.annotate, comments)) {
      throw FileError("--annotate " + o.annotate + ": " + *error);
    }
    std::cerr << "rdcc pcap check: " << o.annotate << ": " << comments.size()
              << " frames annotated (Wireshark: frame.comment)\n";
  }
  unshown_notes();
  if (checker.suppressed() != 0) {
    std::cerr << "rdcc pcap check: note: " << checker.suppressed()
              << " later data-packet findings of the same rule and message not shown\n";
  }
  if (checker.pool_suppressed() != 0) {
    std::cerr << "rdcc pcap check: note: " << checker.pool_suppressed()
              << " later pool grants on associations already reported ("
              << checker::rule::kPoolUnadvertised
              << ") "
                 "not shown\n";
  }
  if (checker.stale() != 0) {
    std::cerr << "rdcc pcap check: note: " << checker.stale()
              << " control messages not newer than their originator's last (copies or reordered "
                 "on the path) discarded, as their receivers do (--network-effects)\n";
  }
  std::cerr << "rdcc pcap check: " << capture_name(o.capture) << ": " << checker.findings()
            << " findings in " << summary.rdcc_packets << " RDCC packets and "
            << checker.data_packets() << " data packets (" << checker.unattributed()
            << " not related to a request), " << summary.nacks << " NACKs, of " << summary.frames
            << " frames (" << summary.malformed_frames << " malformed frames)\n";
  return checker.findings() == 0 ? 0 : 1;
}

}  // namespace

void add_pcap_check_command(CLI::App& pcap) {
  auto o = std::make_shared<CheckOptions>();
  auto* cmd = pcap.add_subcommand(
      "check",
      "Check a capture against the spec's invariants; exit 0 if nothing is found, 1 "
      "with findings, 2 for bad usage or an unreadable file");
  add_capture_options(*cmd, o->capture);
  cmd->add_option("-G,--budget", o->budget,
                  "The receivers' credit budget G in octets "
                  "(4194304, 4MiB, 256KiB)")
      ->required();
  cmd->add_option("--d-max", o->d_max_us,
                  "D_max, the domain's maximum one-way delay, in "
                  "microseconds (default 0)")
      ->check(CLI::Range(0, 1000000000));
  cmd->add_option("--capture-slack", o->slack_us,
                  "How much later than at the sender the capture may see data relative to the "
                  "grants, in microseconds: data is allowed up to Lifetime + slack after the "
                  "first data only that grant authorizes (when the sender had it at the latest), "
                  "and pacing the rate's worth of it more (default 2 * D_max, "
                  "right for a capture at the receiver; 0 for one at the sender)")
      ->check(CLI::Range(0, 1000000000));
  cmd->add_option("--data-port", o->data_port,
                  "The UDP port of the opaque data transport (docs/data-transport.md); no "
                  "default: without it opaque data is not read")
      ->check(CLI::Range(1, 65535));
  add_data_framing_option(*cmd, o->data_framing);
  cmd->add_option("--rocev2-port", o->rocev2_port,
                  "The UDP port of RoCEv2 data (default 4791; 0: not read)")
      ->check(CLI::Range(0, 65535));
  cmd->add_option("--unscheduled-dscp", o->unscheduled_dscp,
                  "The DSCP the domain configures for unscheduled data, where there is one")
      ->check(CLI::Range(0, 63));
  cmd->add_flag("--network-effects", o->network_effects,
                "The capture point sees what the path does to packets (a tap or mirror port): a "
                "control message not newer than its originator's last is discarded as its "
                "receiver would, not reported, and data whose CREDIT_REQUEST is not in the "
                "capture is counted, not reported");
  cmd->add_flag("--json", o->json, "One JSON object per finding");
  cmd->add_option("--annotate", o->annotate,
                  "Write the capture as pcapng to this file with a packet comment on every "
                  "flagged frame: the rule's ID and sentence and the finding (Wireshark: "
                  "frame.comment; written by Wireshark's editcap)");
  cmd->callback([o] {
    require_port_or_heuristic(o->capture, "rdcc pcap check");
    if (!o->annotate.empty() && o->capture.file == "-") {
      throw CLI::ValidationError("--annotate",
                                 "reads the capture a second time: give a file, "
                                 "not standard input");
    }
    run_pcap_command("check", [o] { return run_check(*o); });
  });
}

}  // namespace rdcc::tools
