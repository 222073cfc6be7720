// rdcc pcap check: a passive conformance check of a capture. Every RDCC control message is
// fed to the reference InvariantChecker (sent and delivered at the same moment: a single
// capture point), and the rules only a capture shows are checked here: sequence numbers,
// MSG_DONE after the request, where ERROR may be sent, UDP checksums, malformed messages.
//
// Data packets, where the capture holds them: the opaque transport on --data-port
// (docs/data-transport.md) and RoCEv2 on --rocev2-port (4791), related to their RDCC messages
// by the Binding Value of the CREDIT_REQUESTs (RoCEv2: through the reference Rocev2Responder,
// QPN and MSN) and fed to the same InvariantChecker as observed segments and arrivals. Where a
// message's data is not in the capture, its octets count as received when MSG_DONE states them.
#include <algorithm>
#include <array>
#include <cstdio>
#include <iostream>
#include <memory>
#include <set>
#include <span>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "check_rules.hpp"
#include "data_packets.hpp"
#include "pcap_common.hpp"
#include "pcap_commands.hpp"
#include "rdcc/codec/format.hpp"
#include "rdcc/codec/json.hpp"
#include "rdcc/codec/serial.hpp"
#include "rdcc/reference/bindings.hpp"
#include "rdcc/reference/dense_index.hpp"
#include "rdcc/reference/invariants.hpp"

namespace rdcc::tools {
namespace {

struct CheckOptions {
  CaptureOptions capture;
  std::string budget;
  std::int64_t d_max_us = 0;
  std::optional<std::int64_t> slack_us;  // --capture-slack; default 2 * D_max
  std::optional<std::uint16_t> data_port;
  std::uint16_t rocev2_port = ref::kRocev2Port;  // 0: RoCEv2 not read
  std::optional<std::uint8_t> unscheduled_dscp;
  bool network_effects = false;  // the capture point sees the path's loss, reordering, copies
  bool json = false;
};

struct Finding {
  std::string_view rule;
  std::vector<std::uint64_t> frames;
  std::int64_t time_ns = 0;
  std::string detail;
};

// What a capture shows per message, to name the frames a finding concerns.
struct MessageFrames {
  std::uint64_t request = 0;       // first CREDIT_REQUEST
  std::uint64_t grant = 0;         // grant with the highest Grant Limit
  std::uint64_t latest_grant = 0;  // the latest grant (it sets the Lifetime)
  std::uint64_t delivered = 0;     // octets that MSG_DONE said arrived, fed to the checker
  std::uint64_t data_end = 0;      // highest octet offset (exclusive) of data seen
  std::uint64_t highest_grant = 0; // the Grant Limit of `grant`
};

std::string hex(std::uint64_t v) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(v));
  return text;
}

// The newest message of one originator on an association ("Common Header").
struct Originated {
  bool seen = false;
  std::uint32_t newest = 0;
  std::uint64_t frame = 0;
  // Its UDP payload, to tell an identical copy: in place up to the largest message (every
  // message's is kept, so no allocation), else in `longer`.
  std::size_t size = 0;
  std::array<std::byte, kMaxMessageSize> bytes{};
  std::vector<std::byte> longer;

  void keep(std::span<const std::byte> payload) {
    size = payload.size();
    if (size <= bytes.size()) {
      std::copy(payload.begin(), payload.end(), bytes.begin());
    } else {
      longer.assign(payload.begin(), payload.end());
    }
  }
  [[nodiscard]] std::span<const std::byte> payload() const {
    if (size <= bytes.size()) return std::span<const std::byte>(bytes).first(size);
    return longer;
  }
};

// What the capture shows per association (receiver, sender, Association ID).
struct AssociationState {
  bool accepted = false;      // its ASSOC_ACCEPT is in the capture
  ref::Address bound;         // where the accepted ASSOC_REQUEST came from
  std::uint16_t epoch = 0;
  Originated originated[2];   // from the sender, from the receiver
  bool requested = false;     // a CREDIT_REQUEST of it is in the capture
  bool unsched_requested = false;
  std::uint64_t unsched_request = 0;  // the last unscheduled request's frame
  // Whether the sender advertised POOL, where the ASSOC_REQUEST this association's
  // ASSOC_ACCEPT answered (the same Sender Nonce) is in the capture.
  bool capabilities_known = false;
  bool pool_advertised = false;
  std::uint64_t assoc_request = 0;  // that request's frame
  bool pool_reported = false;       // CHK-POOL-UNADVERTISED reported for it
};

// A sender's latest ASSOC_REQUEST to a receiver: what its ASSOC_ACCEPT will answer.
struct Offered {
  std::uint64_t nonce = 0;
  std::uint32_t capabilities = 0;
  std::uint64_t frame = 0;
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
using MsgId = ref::OwnedMessageKey;

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
    if (network_effects_) data_.keep_early();
  }

  // A UDP datagram that is not RDCC: a data packet if it goes to the data port or RoCEv2's.
  void data(const CapturedFrame& f, const ParsedFrame& u) {
    if (!data_.reads(u)) return;
    DataPackets::Read r = data_.read(f, u);
    switch (r.kind) {
      case DataPackets::Read::Kind::Undecodable:
        notes_.push_back(std::move(r.text));
        return;
      case DataPackets::Read::Kind::Retransmission:
        return;
      case DataPackets::Read::Kind::Unrequested:
        unrequested(f, u, r.text);
        return;
      case DataPackets::Read::Kind::Message:
        segment(f, r.message, r.offset, r.length, r.marked_unscheduled);
        return;
    }
  }

  [[nodiscard]] std::uint64_t data_packets() const { return data_.packets(); }
  [[nodiscard]] std::uint64_t unattributed() const { return unattributed_; }

  void packet(const RdccPacket& p) {
    if (!p.decoded) {
      malformed_message(p);
      return;
    }
    const Message& m = *p.decoded;
    if (!p.udp.source.ipv6 && p.udp.udp_checksum == 0) {
      add("CHK-UDP-CHECKSUM", {p.frame.number}, p.frame.relative_ns,
          "UDP checksum is zero (not set) on " + std::string(info(type_of(m)).name));
    }
    const auto sides = roles_.sides(m, p.udp.source, p.udp.destination);
    if (!sides) return;  // CONGESTION_REPORT: exempt and associationless
    const AddrKey rx = key_of(sides->receiver);
    if (!(have_last_known_ && last_known_ == rx)) {
      if (known_.insert(rx).second) invariants_.add_receiver(sides->receiver, budget_, d_max_);
      have_last_known_ = true;
      last_known_ = rx;
    }
    const std::uint32_t a = assoc_number(rx, key_of(sides->sender), header_of(m).association_id);
    if (!sequence(p, m, *sides, a) && network_effects_) {
      // A copy or a reordered message: its receiver discards it, and so does the check.
      ++stale_;
      return;
    }
    capture_rules(p, m, *sides, a);
    feed(p, m, *sides, a);
    if (const auto* req = std::get_if<CreditRequest>(&m); req != nullptr && network_effects_) {
      credit_early(p, *req, *sides);
    }
  }

  void note(const CapturedFrame& f, const ParsedFrame& parsed) {
    notes_.push_back("frame " + std::to_string(f.number) + ": malformed frame: " +
                     describe_malformed(parsed));
  }

  [[nodiscard]] const std::vector<Finding>& findings() const { return findings_; }
  [[nodiscard]] const std::vector<std::string>& notes() const { return notes_; }
  [[nodiscard]] std::uint64_t suppressed() const { return suppressed_; }
  [[nodiscard]] std::uint64_t pool_suppressed() const { return pool_suppressed_; }
  [[nodiscard]] std::uint64_t stale() const { return stale_; }

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
    if (last_msg_ != kNone && last_msg_key_ == k) return msgs_[last_msg_];
    const auto [index, added] = msg_index_.insert(k);
    if (added) msgs_.emplace_back();
    last_msg_key_ = k;
    last_msg_ = index;
    return msgs_[index];
  }

  void add(std::string_view id, std::vector<std::uint64_t> frames, std::int64_t t,
           std::string detail) {
    findings_.push_back({check_rule(id).id, std::move(frames), t, std::move(detail)});
  }

  // ---- data packets -----------------------------------------------------------------------

  // Under --network-effects, data (opaque or RoCEv2) seen before its CREDIT_REQUEST (which the
  // path lost and the sender retransmitted, or delayed) is judged once the request is in: as
  // if it had arrived with it, like the receiver's own early data (spec-notes 261, 262).
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
    add("CHK-SENDER-CREDIT", {f.number}, f.relative_ns,
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
  void report_violations(const CapturedFrame& f, const MessageRef& r,
                         const MessageFrames* m) {
    const auto v = invariants_.take_violations();
    for (std::size_t i = 0; i < v.size(); ++i) {
      const std::string_view id = check_rule_for_violation(v[i].rule);
      if (id.empty()) {  // check_rules_test keeps this from happening
        notes_.push_back("InvariantChecker rule " + v[i].rule + " has no CHK-* rule: " + v[i].detail);
        continue;
      }
      if (!data_reported_.insert({std::string(id), msg_key(r)}).second) {
        ++suppressed_;
        continue;
      }
      std::vector<std::uint64_t> frames;
      if (m != nullptr && m->request != 0) frames.push_back(m->request);
      if (m != nullptr) {
        const std::uint64_t g = id == "CHK-GRANT-EXPIRED" ? m->latest_grant : m->grant;
        if (g != 0 && (id == "CHK-GRANT-EXPIRED" || id == "CHK-SENDER-CREDIT" || id == "CHK-PACING")) {
          frames.push_back(g);
        }
      }
      frames.push_back(f.number);
      std::string detail = v[i].detail;
      detail += id == "CHK-BUDGET" ? " at " + r.receiver.to_string()
                                   : " (" + r.sender.to_string() + " \u2192 " +
                                         r.receiver.to_string() + ", association " +
                                         hex(r.association_id) + ")";
      add(id, std::move(frames), f.relative_ns, std::move(detail));
    }
  }

  void malformed_message(const RdccPacket& p) {
    const DecodeError& e = p.decoded.error();
    const std::string where = " [frame offset " + std::to_string(p.udp.payload_offset + e.offset) + "]";
    if (e.code == DecodeErrorCode::UnknownType || e.code == DecodeErrorCode::BadVersion) {
      // Discarded by receivers, but not a fault: a later version or a Private Use type.
      notes_.push_back("frame " + std::to_string(p.frame.number) + ": " + e.describe() + where);
      return;
    }
    add("CHK-MALFORMED", {p.frame.number}, p.frame.relative_ns,
        p.udp.source.to_string() + " \u2192 " + p.udp.destination.to_string() + ": " +
            e.describe() + where);
  }

  // "Common Header": per originator and association, each Sequence Number is newer than the
  // last. ASSOC_REQUEST, ASSOC_ACCEPT and ERROR (UNKNOWN_ASSOCIATION) are exempt; a new Epoch
  // in ASSOC_ACCEPT restarts the receiver's numbers. False for a message that is not newer:
  // a finding, unless the capture point sees the path's copies and reordering
  // (--network-effects, spec-notes 262).
  bool sequence(const RdccPacket& p, const Message& m, const Roles::Sides& s, std::uint32_t assoc) {
    const Header& h = header_of(m);
    AssociationState& a = assocs_[assoc];
    if (std::holds_alternative<AssocAccept>(m)) {
      if (a.accepted && a.epoch != h.epoch) {
        a.originated[0].seen = false;
        a.originated[1].seen = false;
      }
      return true;
    }
    if (std::holds_alternative<AssocRequest>(m)) return true;
    if (const auto* e = std::get_if<ErrorMessage>(&m);
        e != nullptr && e->reason == static_cast<std::uint16_t>(ReasonCode::UnknownAssociation)) {
      return true;
    }
    Originated& o = a.originated[s.from_receiver ? 1 : 0];
    const bool fresh = !o.seen;
    o.seen = true;
    if (!fresh && !serial_newer(h.sequence_number, o.newest)) {
      if (network_effects_) return false;
      const std::span<const std::byte> kept = o.payload();
      const bool duplicate =
          std::equal(kept.begin(), kept.end(), p.udp.payload.begin(), p.udp.payload.end());
      add("CHK-SEQ", {o.frame, p.frame.number}, p.frame.relative_ns,
          "Sequence Number " + std::to_string(h.sequence_number) + " from " +
              (s.from_receiver ? s.receiver : s.sender).to_string() +
              " is not newer than " + std::to_string(o.newest) + " (frame " +
              std::to_string(o.frame) + ")" +
              (duplicate ? ", an identical copy of that frame" : "") + ": " + format_line(m));
      return false;
    }
    o.newest = h.sequence_number;
    o.frame = p.frame.number;
    o.keep(p.udp.payload);
    return true;
  }

  void capture_rules(const RdccPacket& p, const Message& m, const Roles::Sides& s,
                     std::uint32_t assoc) {
    const Header& h = header_of(m);
    AssociationState& a = assocs_[assoc];
    if (const auto* ar = std::get_if<AssocRequest>(&m); ar != nullptr && !s.from_receiver) {
      offered_[{key_of(s.receiver), key_of(s.sender)}] = {ar->sender_nonce, ar->capabilities,
                                                         p.frame.number};
      return;
    }
    if (const auto* acc = std::get_if<AssocAccept>(&m)) {
      a.accepted = true;
      a.bound = s.sender;
      a.epoch = h.epoch;
      accepted_hosts_.insert({ip_of(s.sender), ip_of(s.receiver)});
      const auto o = offered_.find({key_of(s.receiver), key_of(s.sender)});
      if (o != offered_.end() && o->second.nonce == acc->sender_nonce) {
        a.capabilities_known = true;
        a.pool_advertised = (o->second.capabilities & capability::kPool) != 0;
        a.assoc_request = o->second.frame;
      }
      return;
    }
    if (const auto* g = std::get_if<CreditGrant>(&m); g != nullptr && s.from_receiver) {
      pool_rules(p, *g, s, a);
      return;
    }
    if (const auto* req = std::get_if<CreditRequest>(&m)) {
      data_.bind(*req, s);
      MessageFrames& f = frames_of(assoc, req->message_id);
      if (f.request == 0) f.request = p.frame.number;
      a.requested = true;
      return;
    }
    if (const auto* done = std::get_if<MsgDone>(&m)) {
      // Only where the association began in the capture: otherwise the request may predate it.
      if (a.accepted && frames_of(assoc, done->message_id).request == 0) {
        add("CHK-DONE-UNREQUESTED", {p.frame.number}, p.frame.relative_ns,
            "MSG_DONE for a message whose CREDIT_REQUEST is not in the capture, on an "
            "association established in it: " + format_line(m));
      }
      return;
    }
    const auto* e = std::get_if<ErrorMessage>(&m);
    if (e == nullptr || !s.from_receiver) return;
    if (e->reason == static_cast<std::uint16_t>(ReasonCode::UnsupportedType)) {
      if (!a.accepted) {
        add("CHK-ERROR-UNSUPPORTED-TYPE", {p.frame.number}, p.frame.relative_ns,
            "ERROR (UNSUPPORTED_TYPE) to " + s.sender.to_string() +
                ", which has no association accepted in the capture with this Association ID: " +
                format_line(m));
      } else if (!(a.bound == s.sender)) {
        add("CHK-ERROR-UNSUPPORTED-TYPE", {p.frame.number}, p.frame.relative_ns,
            "ERROR (UNSUPPORTED_TYPE) to " + s.sender.to_string() +
                ", not the association's bound address " + a.bound.to_string() + ": " +
                format_line(m));
      }
    } else if (e->reason == static_cast<std::uint16_t>(ReasonCode::UnknownAssociation)) {
      if (!a.requested) {
        add("CHK-ERROR-UNKNOWN-ASSOCIATION", {p.frame.number}, p.frame.relative_ns,
            "ERROR (UNKNOWN_ASSOCIATION) with no CREDIT_REQUEST from " + s.sender.to_string() +
                " for this Association ID before it: " + format_line(m));
      }
    }
  }

  // "A grant with Message ID zero and the POOL flag set is a pool grant" (the flag: "Message ID
  // is zero"), and "A receiver MUST NOT use pool grants with a sender that did not advertise
  // the POOL capability." (Credit Requests and Grants)
  void pool_rules(const RdccPacket& p, const CreditGrant& g, const Roles::Sides& s,
                  AssociationState& a) {
    if (g.pool() != (g.message_id == 0)) {
      add("CHK-GRANT-POOL-ID", {p.frame.number}, p.frame.relative_ns,
          std::string(g.pool() ? "the POOL flag with Message ID " + hex(g.message_id)
                               : "Message ID zero without the POOL flag") +
              ": the sender ignores the grant (" + s.receiver.to_string() + " \u2192 " +
              s.sender.to_string() + "): " + format_line(g));
    } else if (g.pool() && a.capabilities_known && !a.pool_advertised) {
      if (a.pool_reported) {  // the first per association: a receiver that does it, does it often
        ++pool_suppressed_;
        return;
      }
      a.pool_reported = true;
      add("CHK-POOL-UNADVERTISED", {a.assoc_request, p.frame.number}, p.frame.relative_ns,
          "pool grant to " + s.sender.to_string() + ", whose ASSOC_REQUEST (frame " +
              std::to_string(a.assoc_request) + ") did not advertise POOL: " + format_line(g));
    }
  }

  // To the InvariantChecker: one capture point, so sent and delivered are the same moment.
  void feed(const RdccPacket& p, const Message& m, const Roles::Sides& s, std::uint32_t assoc) {
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
    invariants_.on_control_observed(p.udp.source, p.udp.destination, m, t);
    const auto v = invariants_.take_violations();
    std::vector<std::string_view> seen;  // rules reported for this message (few: no set)
    for (std::size_t i = 0; i < v.size(); ++i) {
      const std::string_view id = check_rule_for_violation(v[i].rule);
      if (id.empty()) {  // check_rules_test keeps this from happening
        notes_.push_back("InvariantChecker rule " + v[i].rule + " has no CHK-* rule: " + v[i].detail);
        continue;
      }
      if (std::find(seen.begin(), seen.end(), id) != seen.end()) continue;
      seen.push_back(id);
      std::vector<std::uint64_t> frames;
      const auto id_opt = message_id_of(m);
      if (id_opt) {
        const MessageFrames& f = frames_of(assoc, *id_opt);
        if (f.request != 0) frames.push_back(f.request);
      }
      const auto* req = std::get_if<CreditRequest>(&m);
      if (id == "CHK-UNSCHED-OUTSTANDING" && req != nullptr) {
        frames = {};
        if (assocs_[assoc].unsched_requested) frames.push_back(assocs_[assoc].unsched_request);
      }
      frames.push_back(p.frame.number);
      std::string detail = v[i].detail;
      if (id == "CHK-BUDGET") {
        detail += " at " + s.receiver.to_string();
        if (!data_port_ || data_.packets() == 0) {
          detail += " (octets of messages whose data is not in the capture count as received "
                    "when MSG_DONE states them)";
        }
      }
      add(id, std::move(frames), p.frame.relative_ns, std::move(detail));
    }
    if (const auto* req = std::get_if<CreditRequest>(&m); req != nullptr && req->unscheduled_sent != 0) {
      AssociationState& a = assocs_[assoc];
      a.unsched_requested = true;
      if (std::find(seen.begin(), seen.end(), "CHK-UNSCHED-OUTSTANDING") == seen.end()) {
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
  }

  Roles roles_;
  std::uint64_t budget_;
  ref::Duration d_max_;
  std::optional<std::uint16_t> data_port_;
  DataPackets data_;
  bool network_effects_;
  ref::InvariantChecker invariants_;
  // Hashed maps keyed by packed addresses: each RDCC packet looks several of them up, and a
  // capture holds millions (none is iterated, so their order shows nowhere).
  template <class K, class V>
  using Map = std::unordered_map<K, V, KeyHash>;
  template <class K>
  using Set = std::unordered_set<K, KeyHash>;
  Set<std::pair<IpKey, IpKey>> accepted_hosts_;  // (sender, receiver) with an ASSOC_ACCEPT
  Set<std::pair<IpKey, IpKey>> unrequested_reported_;
  Map<std::pair<AddrKey, AddrKey>, Offered> offered_;  // (receiver, sender)
  std::set<std::pair<std::string, MsgKey>> data_reported_;
  std::uint64_t unattributed_ = 0;
  std::uint64_t stale_ = 0;  // messages not newer, discarded under --network-effects
  std::uint64_t suppressed_ = 0;
  std::uint64_t pool_suppressed_ = 0;  // later pool grants of an association already reported
  Set<AddrKey> known_;  // receivers added to invariants_
  bool have_last_known_ = false;
  AddrKey last_known_;
  // Associations and messages, numbered (DenseIndex): each RDCC packet looks its own up once.
  static constexpr std::uint32_t kNone = ref::DenseIndex<AssocId, AssocIdHash>::kNone;
  ref::DenseIndex<AssocId, AssocIdHash> assoc_index_;
  std::vector<AssociationState> assocs_;
  AssocId last_assoc_key_;
  std::uint32_t last_assoc_ = kNone;
  ref::MessageIndex msg_index_;
  ref::StableVector<MessageFrames> msgs_;
  MsgId last_msg_key_;
  std::uint32_t last_msg_ = kNone;
  std::vector<Finding> findings_;
  std::vector<std::string> notes_;
};

std::string frames_text(const std::vector<std::uint64_t>& frames) {
  std::string s = frames.size() == 1 ? "frame " : "frames ";
  for (std::size_t i = 0; i < frames.size(); ++i) {
    if (i != 0) s += ",";
    s += std::to_string(frames[i]);
  }
  return s;
}

int run_check(const CheckOptions& o) {
  const auto budget = parse_octets(o.budget);
  if (!budget) {
    throw CLI::ValidationError("--budget", "'" + o.budget +
                                               "' is not a number of octets (e.g. 4194304, "
                                               "4MiB, 256KiB)");
  }
  Checker checker(o, *budget);
  ScanHandlers h;
  h.packet = [&](const RdccPacket& p) { checker.packet(p); };
  h.malformed = [&](const CapturedFrame& f, const ParsedFrame& parsed) { checker.note(f, parsed); };
  if (o.data_port || o.rocev2_port != 0) {
    h.other_udp = [&](const CapturedFrame& f, const ParsedFrame& parsed) { checker.data(f, parsed); };
  }
  const ScanSummary summary = scan_capture(o.capture, h);
  for (const Finding& f : checker.findings()) {
    const CheckRule& r = check_rule(f.rule);
    const std::vector<std::string_view> ids = requirement_ids(r);
    if (o.json) {
      nlohmann::ordered_json j{{"rule", r.id},
                               {"requirements", ids},
                               {"frames", f.frames},
                               {"time", static_cast<double>(f.time_ns) / 1e9},
                               {"detail", f.detail},
                               {"section", r.section},
                               {"spec", r.sentence}};
      std::cout << j.dump() << '\n';
    } else {
      std::cout << r.id << ' ';
      if (!ids.empty()) std::cout << '[' << r.requirements << "] ";
      std::cout << frames_text(f.frames) << " (t=" << format_seconds(f.time_ns)
                << "): " << f.detail << "\n  spec (" << r.section << "): \"" << r.sentence
                << "\"\n";
    }
  }
  for (const std::string& n : checker.notes()) std::cerr << "rdcc pcap check: note: " << n << '\n';
  if (checker.suppressed() != 0) {
    std::cerr << "rdcc pcap check: note: " << checker.suppressed()
              << " later data-packet findings of the same rule and message not shown\n";
  }
  if (checker.pool_suppressed() != 0) {
    std::cerr << "rdcc pcap check: note: " << checker.pool_suppressed()
              << " later pool grants on associations already reported (CHK-POOL-UNADVERTISED) "
                 "not shown\n";
  }
  if (checker.stale() != 0) {
    std::cerr << "rdcc pcap check: note: " << checker.stale()
              << " control messages not newer than their originator's last (copies or reordered "
                 "on the path) discarded, as their receivers do (--network-effects)\n";
  }
  std::cerr << "rdcc pcap check: " << o.capture.file << ": " << checker.findings().size()
            << " findings in " << summary.rdcc_packets << " RDCC packets and "
            << checker.data_packets() << " data packets (" << checker.unattributed()
            << " not related to a request) of " << summary.frames << " frames ("
            << summary.malformed_frames << " malformed frames)\n";
  return checker.findings().empty() ? 0 : 1;
}

}  // namespace

void add_pcap_check_command(CLI::App& pcap) {
  auto o = std::make_shared<CheckOptions>();
  auto* cmd = pcap.add_subcommand(
      "check", "Check a capture against the spec's invariants; exit 0 if nothing is found, 1 "
               "with findings, 2 for bad usage or an unreadable file");
  add_capture_options(*cmd, o->capture);
  cmd->add_option("-G,--budget", o->budget, "The receivers' credit budget G in octets "
                                            "(4194304, 4MiB, 256KiB)")
      ->required();
  cmd->add_option("--d-max", o->d_max_us, "D_max, the domain's maximum one-way delay, in "
                                          "microseconds (default 0)")
      ->check(CLI::Range(0, 1000000000));
  cmd->add_option("--capture-slack", o->slack_us,
                  "How much later than at the sender the capture may see data relative to the "
                  "grants, in microseconds: data is allowed up to Lifetime + slack after the "
                  "grant was seen, and pacing the rate's worth of it more (default 2 * D_max, "
                  "right for a capture at the receiver; 0 for one at the sender)")
      ->check(CLI::Range(0, 1000000000));
  cmd->add_option("--data-port", o->data_port,
                  "The UDP port of the opaque data transport (docs/data-transport.md); no "
                  "default: without it opaque data is not read")
      ->check(CLI::Range(1, 65535));
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
  cmd->callback([o] {
    require_port_or_heuristic(o->capture, "rdcc pcap check");
    run_pcap_command("check", [o] { return run_check(*o); });
  });
}

}  // namespace rdcc::tools
