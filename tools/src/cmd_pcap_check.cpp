// rdcc pcap check: a passive conformance check of a capture. Every RDCC control message is
// fed to the reference InvariantChecker (sent and delivered at the same moment: a single
// capture point), and the rules only a capture shows are checked here: sequence numbers,
// MSG_DONE after the request, where ERROR may be sent, UDP checksums, malformed messages.
//
// Without the data packets (their formats are being defined in docs/data-transport.md),
// octets count as received when MSG_DONE states them (Octets Received).
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include "pcap_common.hpp"
#include "pcap_commands.hpp"
#include "rdcc/codec/format.hpp"
#include "rdcc/codec/json.hpp"
#include "rdcc/codec/serial.hpp"
#include "rdcc/reference/invariants.hpp"

namespace rdcc::tools {
namespace {

struct CheckOptions {
  CaptureOptions capture;
  std::string budget;
  std::int64_t d_max_us = 0;
  bool json = false;
};

struct Rule {
  std::string_view id;
  std::string_view section;
  std::string_view sentence;
};

// Stable rule IDs until the conformance catalog exists (docs/cli.md).
constexpr Rule kRules[] = {
    {"CHK-BUDGET", "Receiver Credit Budget",
     "A receiver MUST maintain: sum over a of ( Granted(a) + Unsched(a) ) <= G"},
    {"CHK-GRANT-REDUCED", "Credit Requests and Grants, rule 1",
     "A grant with a Grant Limit that is not larger than the limit the sender already holds for "
     "that message only refreshes the Lifetime and Pacing Rate; it never reduces credit."},
    {"CHK-GRANT-BEYOND-LENGTH", "Credit Requests and Grants, rule 5",
     "The receiver MUST NOT grant beyond the message length."},
    {"CHK-FINAL", "Credit Requests and Grants, rule 5",
     "It sets the FINAL flag in the grant that reaches the message length."},
    {"CHK-PACING-ZERO", "Credit Requests and Grants, rule 4",
     "Receivers MUST issue a non-zero Pacing Rate."},
    {"CHK-DONE-EARLY", "Credit Requests and Grants",
     "When the receiver has received all octets of a message it sends MSG_DONE."},
    {"CHK-DONE-UNREQUESTED", "Credit Requests and Grants",
     "CREDIT_REQUEST announces a message ... When the receiver has received all octets of a "
     "message it sends MSG_DONE."},
    {"CHK-SENDER-CREDIT", "Credit Requests and Grants, rules 2 and 3",
     "The sender MUST NOT transmit an octet at offset o of a message unless o is smaller than "
     "the Grant Limit held for that message, or the octet is part of the unscheduled window"},
    {"CHK-UNSCHEDULED", "Unscheduled Transmission",
     "MUST send a CREDIT_REQUEST for the message no later than the first data packet, with the "
     "Unscheduled Sent field set to the message length"},
    {"CHK-PACING", "Credit Requests and Grants, rule 4",
     "The sender MUST NOT transmit the message faster than the Pacing Rate, averaged over any "
     "interval equal to the transmission time of ten Credit Units at that rate."},
    {"CHK-SEQ", "Common Header",
     "Sequence Number (32 bits): Incremented by one for each message the originator sends on "
     "the association ..., including retransmissions. An endpoint MUST discard a message of an "
     "association whose Sequence Number is not newer, in serial number arithmetic, than the "
     "newest one it has already processed from the same originator on that association."},
    {"CHK-ERROR-UNSUPPORTED-TYPE", "Error Handling and Recovery",
     "if the message belongs to an established association, the receiver MAY reply with ERROR "
     "(UNSUPPORTED_TYPE) to the address bound to that association, and it MUST NOT reply "
     "otherwise."},
    {"CHK-ERROR-UNKNOWN-ASSOCIATION", "Error Handling and Recovery",
     "A receiver that receives a CREDIT_REQUEST for an unknown association replies with ERROR "
     "(UNKNOWN_ASSOCIATION)"},
    {"CHK-MALFORMED", "Error Handling and Recovery",
     "A message whose Length field is smaller than the size defined for its Type, or larger "
     "than the UDP payload, MUST be discarded."},
    {"CHK-UDP-CHECKSUM", "Message Formats", "Senders MUST set the UDP checksum."},
};

const Rule& rule(std::string_view id) {
  for (const Rule& r : kRules) {
    if (r.id == id) return r;
  }
  return kRules[0];
}

// The InvariantChecker's rule names, and ours.
std::string_view rule_for_violation(std::string_view name) {
  if (name == "budget") return "CHK-BUDGET";
  if (name == "grant_reduced") return "CHK-GRANT-REDUCED";
  if (name == "grant_beyond_length") return "CHK-GRANT-BEYOND-LENGTH";
  if (name == "final_flag") return "CHK-FINAL";
  if (name == "pacing_rate_zero") return "CHK-PACING-ZERO";
  if (name == "msg_done_early") return "CHK-DONE-EARLY";
  if (name == "sender_credit") return "CHK-SENDER-CREDIT";
  if (name == "pacing") return "CHK-PACING";
  return "CHK-UNSCHEDULED";
}

struct Finding {
  std::string_view rule;
  std::vector<std::uint64_t> frames;
  std::int64_t time_ns = 0;
  std::string detail;
};

// What a capture shows per message, to name the frames a finding concerns.
struct MessageFrames {
  std::uint64_t request = 0;      // first CREDIT_REQUEST
  std::uint64_t grant = 0;        // grant with the highest Grant Limit
  std::uint64_t delivered = 0;    // octets that MSG_DONE said arrived, fed to the checker
};

struct Originated {
  std::uint32_t newest = 0;
  std::uint64_t frame = 0;
  std::vector<std::byte> bytes;
};

struct AssociationState {
  bool accepted = false;      // its ASSOC_ACCEPT is in the capture
  ref::Address bound;         // where the accepted ASSOC_REQUEST came from
  std::uint16_t epoch = 0;
};

class Checker {
 public:
  Checker(const CheckOptions& o, std::uint64_t budget)
      : roles_(o.capture.port), budget_(budget), d_max_(ref::microseconds(o.d_max_us)) {}

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
    if (known_.insert(key_of(sides->receiver)).second) {
      invariants_.add_receiver(sides->receiver, budget_, d_max_);
    }
    sequence(p, m, *sides);
    capture_rules(p, m, *sides);
    feed(p, m, *sides);
  }

  void note(const CapturedFrame& f, const ParsedFrame& parsed) {
    notes_.push_back("frame " + std::to_string(f.number) + ": malformed frame: " +
                     describe_malformed(parsed));
  }

  [[nodiscard]] const std::vector<Finding>& findings() const { return findings_; }
  [[nodiscard]] const std::vector<std::string>& notes() const { return notes_; }

 private:
  using AssocKey = std::tuple<AddrKey, AddrKey, std::uint32_t>;  // receiver, sender, assoc
  using MsgKey = std::tuple<AddrKey, AddrKey, std::uint32_t, std::uint64_t>;

  void add(std::string_view id, std::vector<std::uint64_t> frames, std::int64_t t,
           std::string detail) {
    findings_.push_back({rule(id).id, std::move(frames), t, std::move(detail)});
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
  // in ASSOC_ACCEPT restarts the receiver's numbers.
  void sequence(const RdccPacket& p, const Message& m, const Roles::Sides& s) {
    const Header& h = header_of(m);
    const AssocKey assoc{key_of(s.receiver), key_of(s.sender), h.association_id};
    if (const auto* acc = std::get_if<AssocAccept>(&m)) {
      AssociationState& a = assocs_[assoc];
      if (a.accepted && a.epoch != h.epoch) {
        originated_.erase({true, assoc});
        originated_.erase({false, assoc});
      }
      (void)acc;
      return;
    }
    if (std::holds_alternative<AssocRequest>(m)) return;
    if (const auto* e = std::get_if<ErrorMessage>(&m);
        e != nullptr && e->reason == static_cast<std::uint16_t>(ReasonCode::UnknownAssociation)) {
      return;
    }
    auto [it, fresh] = originated_.try_emplace({s.from_receiver, assoc});
    Originated& o = it->second;
    if (!fresh && !serial_newer(h.sequence_number, o.newest)) {
      const bool duplicate = std::equal(o.bytes.begin(), o.bytes.end(), p.udp.payload.begin(),
                                        p.udp.payload.end());
      add("CHK-SEQ", {o.frame, p.frame.number}, p.frame.relative_ns,
          "Sequence Number " + std::to_string(h.sequence_number) + " from " +
              (s.from_receiver ? s.receiver : s.sender).to_string() +
              " is not newer than " + std::to_string(o.newest) + " (frame " +
              std::to_string(o.frame) + ")" +
              (duplicate ? ", an identical copy of that frame" : "") + ": " + format_line(m));
      return;
    }
    o.newest = h.sequence_number;
    o.frame = p.frame.number;
    o.bytes.assign(p.udp.payload.begin(), p.udp.payload.end());
  }

  void capture_rules(const RdccPacket& p, const Message& m, const Roles::Sides& s) {
    const Header& h = header_of(m);
    const AssocKey assoc{key_of(s.receiver), key_of(s.sender), h.association_id};
    if (std::holds_alternative<AssocAccept>(m)) {
      AssociationState& a = assocs_[assoc];
      a.accepted = true;
      a.bound = s.sender;
      a.epoch = h.epoch;
      return;
    }
    if (const auto* req = std::get_if<CreditRequest>(&m)) {
      MessageFrames& f = msgs_[{key_of(s.receiver), key_of(s.sender), h.association_id, req->message_id}];
      if (f.request == 0) f.request = p.frame.number;
      last_request_[{key_of(s.receiver), key_of(s.sender), h.association_id}] = p.frame.number;
      return;
    }
    if (const auto* done = std::get_if<MsgDone>(&m)) {
      // Only where the association began in the capture: otherwise the request may predate it.
      auto a = assocs_.find(assoc);
      const MsgKey mk{key_of(s.receiver), key_of(s.sender), h.association_id, done->message_id};
      if (a != assocs_.end() && a->second.accepted &&
          (msgs_.count(mk) == 0 || msgs_[mk].request == 0)) {
        add("CHK-DONE-UNREQUESTED", {p.frame.number}, p.frame.relative_ns,
            "MSG_DONE for a message whose CREDIT_REQUEST is not in the capture, on an "
            "association established in it: " + format_line(m));
      }
      return;
    }
    const auto* e = std::get_if<ErrorMessage>(&m);
    if (e == nullptr || !s.from_receiver) return;
    if (e->reason == static_cast<std::uint16_t>(ReasonCode::UnsupportedType)) {
      auto a = assocs_.find(assoc);
      if (a == assocs_.end() || !a->second.accepted) {
        add("CHK-ERROR-UNSUPPORTED-TYPE", {p.frame.number}, p.frame.relative_ns,
            "ERROR (UNSUPPORTED_TYPE) to " + s.sender.to_string() +
                ", which has no association accepted in the capture with this Association ID: " +
                format_line(m));
      } else if (!(a->second.bound == s.sender)) {
        add("CHK-ERROR-UNSUPPORTED-TYPE", {p.frame.number}, p.frame.relative_ns,
            "ERROR (UNSUPPORTED_TYPE) to " + s.sender.to_string() +
                ", not the association's bound address " + a->second.bound.to_string() + ": " +
                format_line(m));
      }
    } else if (e->reason == static_cast<std::uint16_t>(ReasonCode::UnknownAssociation)) {
      if (last_request_.count({key_of(s.receiver), key_of(s.sender), h.association_id}) == 0) {
        add("CHK-ERROR-UNKNOWN-ASSOCIATION", {p.frame.number}, p.frame.relative_ns,
            "ERROR (UNKNOWN_ASSOCIATION) with no CREDIT_REQUEST from " + s.sender.to_string() +
                " for this Association ID before it: " + format_line(m));
      }
    }
  }

  // To the InvariantChecker: one capture point, so sent and delivered are the same moment.
  void feed(const RdccPacket& p, const Message& m, const Roles::Sides& s) {
    const Header& h = header_of(m);
    const ref::Time t{p.frame.relative_ns};
    const std::size_t before = invariants_.violations().size();
    if (const auto* done = std::get_if<MsgDone>(&m)) {
      // The data packets are not read: MSG_DONE says how many octets arrived.
      MessageFrames& f = msgs_[{key_of(s.receiver), key_of(s.sender), h.association_id, done->message_id}];
      if (done->octets_received > f.delivered) {
        invariants_.on_data_delivered(s.receiver, s.sender, done->message_id,
                                      done->octets_received - f.delivered, t);
        f.delivered = done->octets_received;
      }
    }
    invariants_.on_control_sent(p.udp.source, p.udp.destination, m, t);
    invariants_.on_control_delivered(p.udp.source, p.udp.destination, m, t);
    const auto& v = invariants_.violations();
    std::set<std::string_view> seen;
    for (std::size_t i = before; i < v.size(); ++i) {
      const std::string_view id = rule_for_violation(v[i].rule);
      if (!seen.insert(id).second) continue;
      std::vector<std::uint64_t> frames;
      const auto id_opt = message_id_of(m);
      if (id_opt) {
        auto f = msgs_.find({key_of(s.receiver), key_of(s.sender), h.association_id, *id_opt});
        if (f != msgs_.end()) {
          if (f->second.request != 0) frames.push_back(f->second.request);
          if (id == "CHK-GRANT-REDUCED" && f->second.grant != 0) frames.push_back(f->second.grant);
        }
      }
      frames.push_back(p.frame.number);
      std::string detail = v[i].detail;
      if (id == "CHK-BUDGET") {
        detail += " at " + s.receiver.to_string() +
                  " (octets count as received when MSG_DONE states them: the data packets are "
                  "not read)";
      }
      add(id, std::move(frames), p.frame.relative_ns, std::move(detail));
    }
    if (const auto* g = std::get_if<CreditGrant>(&m); g != nullptr && !g->pool()) {
      MessageFrames& f = msgs_[{key_of(s.receiver), key_of(s.sender), h.association_id, g->message_id}];
      auto& highest = grant_limit_[{key_of(s.receiver), key_of(s.sender), h.association_id, g->message_id}];
      if (f.grant == 0 || g->grant_limit > highest) {
        f.grant = p.frame.number;
        highest = g->grant_limit;
      }
    }
  }

  Roles roles_;
  std::uint64_t budget_;
  ref::Duration d_max_;
  ref::InvariantChecker invariants_;
  std::set<AddrKey> known_;
  std::map<std::pair<bool, AssocKey>, Originated> originated_;
  std::map<AssocKey, AssociationState> assocs_;
  std::map<AssocKey, std::uint64_t> last_request_;
  std::map<MsgKey, MessageFrames> msgs_;
  std::map<MsgKey, std::uint64_t> grant_limit_;
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
  const ScanSummary summary = scan_capture(o.capture, h);
  for (const Finding& f : checker.findings()) {
    const Rule& r = rule(f.rule);
    if (o.json) {
      nlohmann::ordered_json j{{"rule", r.id},
                               {"frames", f.frames},
                               {"time", static_cast<double>(f.time_ns) * 1e-9},
                               {"detail", f.detail},
                               {"section", r.section},
                               {"spec", r.sentence}};
      std::cout << j.dump() << '\n';
    } else {
      std::cout << r.id << ' ' << frames_text(f.frames) << " (t=" << format_seconds(f.time_ns)
                << "): " << f.detail << "\n  spec (" << r.section << "): \"" << r.sentence
                << "\"\n";
    }
  }
  for (const std::string& n : checker.notes()) std::cerr << "rdcc pcap check: note: " << n << '\n';
  std::cerr << "rdcc pcap check: " << o.capture.file << ": " << checker.findings().size()
            << " findings in " << summary.rdcc_packets << " RDCC packets of " << summary.frames
            << " frames (" << summary.malformed_frames << " malformed frames); data packets "
            << "not checked\n";
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
  cmd->add_flag("--json", o->json, "One JSON object per finding");
  cmd->callback([o] {
    require_port_or_heuristic(o->capture, "rdcc pcap check");
    run_pcap_command("check", [o] { return run_check(*o); });
  });
}

}  // namespace rdcc::tools
