// The simulator's golden captures (sim_captures.hpp). Each scenario runs to completion with a
// fixed seed; the generator refuses to write a capture whose run left a message unfinished,
// broke an invariant, or lacks what its INDEX.md section promises.
#include "sim_captures.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <vector>

#include "rdcc/codec/codec.hpp"
#include "rdcc/codec/format.hpp"
#include "rdcc/sim/network.hpp"
#include "rdcc/wire/frame.hpp"
#include "rdcc/wire/pcap.hpp"

namespace rdcc::pcaps {
namespace {

using wire::ethernet_frame;
using wire::kEpochMicros;
using wire::PcapWriter;

using ref::microseconds;
using ref::Time;
using sim::HostId;
using sim::Network;
using sim::NetworkConfig;
using sim::PacketRecord;
using sim::SubmitId;

constexpr std::uint64_t kKiB = 1U << 10U;
constexpr std::uint8_t kUnscheduledDscp = 8;  // CS1: the domain's unscheduled DSCP
// Octets of each IPv4 packet kept: every RDCC message whole (at most 28 + 72), and the IP,
// UDP and data transport headers of data packets (opaque 24, RoCEv2 BTH + RETH 28).
constexpr std::size_t kSnapLength = 128;

// One frame of a capture, as the index describes it.
struct Frame {
  std::size_t number = 0;
  Time time;
  std::string kind;  // the RDCC type name, "data (opaque)" or "data (RoCEv2)"
  std::optional<Message> message;
  std::uint8_t dscp = 0;
};

// "3-7, 12, 15-20"
std::string ranges(const std::vector<std::size_t>& frames) {
  std::string out;
  std::size_t shown = 0;
  for (std::size_t i = 0; i < frames.size();) {
    std::size_t j = i;
    while (j + 1 < frames.size() && frames[j + 1] == frames[j] + 1) ++j;
    if (shown == 8) {
      out += ", …";
      break;
    }
    out += (out.empty() ? "" : ", ") + std::to_string(frames[i]);
    if (j > i) out += "–" + std::to_string(frames[j]);
    ++shown;
    i = j + 1;
  }
  return out;
}

NetworkConfig base_config(std::uint64_t seed) {
  NetworkConfig cfg;
  cfg.seed = seed;
  cfg.rdcc_port = kRdccPort;
  cfg.snap_length = kSnapLength;
  return cfg;
}

ref::ReceiverConfig receiver_config() {
  ref::ReceiverConfig rc;
  rc.budget = 512 * kKiB;
  rc.unscheduled_budget = 128 * kKiB;
  rc.unscheduled_limit = 32 * kKiB;
  rc.base_rtt = microseconds(6);
  rc.d_max = microseconds(20);
  rc.grant_lifetime_us = 200;
  return rc;
}

ref::SenderConfig sender_config(const std::string& name) {
  ref::SenderConfig sc;
  sc.name = name;
  return sc;
}

class SimCapture {
 public:
  SimCapture(std::string name, std::string summary)
      : name_(std::move(name)), summary_(std::move(summary)) {}

  // Runs `net` to completion and keeps every delivered packet.
  void run(Network& net, Time limit) {
    if (!net.run_until_done(limit)) throw std::runtime_error(name_ + ": the run did not finish");
    if (!net.checker().ok()) {
      const auto& v = net.checker().violations().front();
      throw std::runtime_error(name_ + ": invariant violation " + v.rule + ": " + v.detail);
    }
    net.run_until_idle(net.now() + ref::milliseconds(1));  // the last MSG_DONEs and reports
    for (const auto& p : net.packets()) {
      if (p.point != PacketRecord::Point::Delivered) continue;
      records_.push_back(&p);
      Frame f;
      f.number = records_.size();
      f.time = p.time;
      f.dscp = p.dscp;
      if (p.control) {
        if (p.orig_length != p.bytes.size()) {
          throw std::runtime_error(name_ + ": a control packet is longer than the snap length");
        }
        auto ip = ref::decode_ipv4_udp(p.bytes);
        if (!ip) throw std::runtime_error(name_ + ": the simulator sent a bad IPv4/UDP packet");
        auto m = decode(ip->payload);
        if (!m) throw std::runtime_error(name_ + ": the simulator sent an undecodable datagram");
        f.message = *m;
        f.kind = std::string(info(type_of(*m)).name);
      } else {
        f.kind = p.to.port == ref::kRocev2Port ? "data (RoCEv2)" : "data (opaque)";
      }
      frames_.push_back(std::move(f));
    }
  }

  void write(const std::string& dir) const {
    PcapWriter w(dir + "/" + name_);
    for (const PacketRecord* p : records_) {
      w.write(kEpochMicros + p->time.ns / 1000, ethernet_frame(p->bytes),
              static_cast<std::uint32_t>(14 + p->orig_length));
    }
  }

  [[nodiscard]] const std::vector<Frame>& frames() const { return frames_; }

  // A row of the index: the frames that match, which must exist.
  void note(const std::string& what, const std::function<bool(const Frame&)>& match) {
    std::vector<std::size_t> numbers;
    for (const auto& f : frames_) {
      if (match(f)) numbers.push_back(f.number);
    }
    if (numbers.empty()) throw std::runtime_error(name_ + ": no frame shows " + what);
    notes_.emplace_back(what, std::move(numbers));
  }
  template <class T>
  void note_type(const std::string& what, const std::function<bool(const T&)>& match) {
    note(what, [&](const Frame& f) {
      const T* m = f.message ? std::get_if<T>(&*f.message) : nullptr;
      return m != nullptr && match(*m);
    });
  }

  void index(std::ostream& out) const {
    out << "## " << name_ << "\n\n" << summary_ << " " << frames_.size() << " frames.\n\n";
    out << "| frames | what they show |\n| --- | --- |\n";
    for (const auto& [what, numbers] : notes_)
      out << "| " << ranges(numbers) << " | " << what << " |\n";
    std::map<std::string, std::vector<std::size_t>> by_kind;
    for (const auto& f : frames_) by_kind[f.kind].push_back(f.number);
    out << "\n| kind | count | frames |\n| --- | --- | --- |\n";
    for (const auto& [kind, numbers] : by_kind) {
      out << "| " << kind << " | " << numbers.size() << " | " << ranges(numbers) << " |\n";
    }
    out << '\n';
  }

 private:
  std::string name_;
  std::string summary_;
  std::vector<const PacketRecord*> records_;
  std::vector<Frame> frames_;
  std::vector<std::pair<std::string, std::vector<std::size_t>>> notes_;
};

bool is_error(const Frame& f, ReasonCode reason) {
  const auto* e = f.message ? std::get_if<ErrorMessage>(&*f.message) : nullptr;
  return e != nullptr && e->reason == static_cast<std::uint16_t>(reason);
}

// Every message type in one run: association, unscheduled and scheduled messages, a CRN
// report that converts an unscheduled message, SENDER_STATUS, CANCEL, CREDIT_RETURN, ERROR.
void all_types(const std::string& dir, std::ostream& index) {
  NetworkConfig cfg = base_config(102);
  cfg.unscheduled_dscp = kUnscheduledDscp;
  cfg.queue.capacity = 256 * kKiB;
  cfg.crn = ref::CrnConfig{.queue_threshold = 8 * kKiB};
  Network net(cfg);
  ref::ReceiverConfig rc = receiver_config();
  rc.link_capacity_mbps = 25000;
  rc.budget = 1024 * kKiB;
  rc.unscheduled_budget = 256 * kKiB;
  rc.unscheduled_limit = 64 * kKiB;
  rc.grant_window = 128 * kKiB;
  rc.backlog_threshold = 16 * kKiB;    // N_cu: senders holding more report SENDER_STATUS
  rc.max_message_length = 512 * kKiB;  // a larger message gets ERROR (MESSAGE_TOO_LARGE)
  const HostId r = net.add_receiver(rc, {.rate_mbps = 25000});
  const HostId a = net.add_sender(sender_config("sender-a"));
  const HostId b = net.add_sender(sender_config("sender-b"));
  ref::SenderConfig slow = sender_config("sender-c");
  slow.line_rate_mbps = 10000;
  const HostId c = net.add_sender(slow, {.rate_mbps = 10000});
  net.submit(a, r, 64 * kKiB, Time{0});
  net.submit(b, r, 64 * kKiB, Time{0});
  net.submit(a, r, 128 * kKiB, Time{microseconds(1).ns});
  net.submit(b, r, 1024 * kKiB, Time{microseconds(1).ns});
  const SubmitId cancelled = net.submit(b, r, 256 * kKiB, Time{microseconds(2).ns});
  const SubmitId returned = net.submit(c, r, 256 * kKiB, Time{0});
  net.cancel(cancelled, Time{microseconds(20).ns});
  net.return_credit(returned, 64 * kKiB, Time{microseconds(40).ns});
  net.cancel(returned, Time{microseconds(200).ns});
  SimCapture cap("sim_all_types.pcap",
                 "Every RDCC message type in one simulated run (seed 102): three senders and a "
                 "receiver behind a 25 Gbit/s switch port (G = 1 MiB, U = 64 KiB, N_cu = 16 "
                 "KiB, largest message 512 KiB) whose CRN reports above B_th = 8 KiB. Senders a "
                 "and b each start a 64 KiB unscheduled message (DSCP 8) at once; the burst "
                 "crosses B_th, the CRN tells the senders (Direction 2) and the rest of a "
                 "message is converted to scheduled mode. Sender b's 1 MiB message is refused "
                 "and its 256 KiB message cancelled at 20 µs; sender c (10 Gbit/s) holds more "
                 "unused credit than N_cu, returns the credit beyond 64 KiB at 40 µs and "
                 "cancels the message at 200 µs.");
  cap.run(net, Time{ref::seconds(1).ns});
  cap.note_type<AssocRequest>("ASSOC_REQUEST of each sender", [](const auto&) { return true; });
  cap.note_type<AssocAccept>("ASSOC_ACCEPT: U = 64 KiB, J = 10 µs, N_cu = 16 KiB, lifetime 200 µs",
                             [](const auto&) { return true; });
  cap.note_type<CreditRequest>(
      "CREDIT_REQUEST of an unscheduled message (Unscheduled Sent = length)",
      [](const auto& m) { return m.unscheduled_sent == m.message_length; });
  cap.note("unscheduled data (DSCP 8)",
           [](const Frame& f) { return !f.message && f.dscp == kUnscheduledDscp; });
  cap.note_type<CongestionReport>(
      "CONGESTION_REPORT to a sender (Direction 2): its unscheduled flow crossed B_th",
      [](const auto& m) { return m.direction == 2; });
  cap.note_type<CreditRequest>(
      "CREDIT_REQUEST of a converted message: Unscheduled Sent states the octets sent",
      [](const auto& m) {
        return m.unscheduled_sent != 0 && m.unscheduled_sent < m.message_length;
      });
  cap.note("ERROR MESSAGE_TOO_LARGE for sender b's 1 MiB message",
           [](const Frame& f) { return is_error(f, ReasonCode::MessageTooLarge); });
  cap.note_type<SenderStatus>("SENDER_STATUS: unused credit above N_cu",
                              [](const auto&) { return true; });
  cap.note_type<Cancel>("CANCEL (APPLICATION_ABORT): sender b's 256 KiB message, then sender c's",
                        [](const auto&) { return true; });
  cap.note_type<CreditReturn>("CREDIT_RETURN: sender c gives back credit beyond 64 KiB",
                              [](const auto& m) { return m.new_limit == 64 * kKiB; });
  cap.note_type<CreditGrant>("CREDIT_GRANT with FINAL", [](const auto& m) { return m.final(); });
  cap.note_type<MsgDone>("MSG_DONE", [](const auto&) { return true; });
  std::map<MessageType, bool> seen;
  for (const auto& f : cap.frames()) {
    if (f.message) seen[type_of(*f.message)] = true;
  }
  if (seen.size() != kMessageTypes.size()) {
    throw std::runtime_error("sim_all_types.pcap: " + std::to_string(seen.size()) +
                             " message types, not all " + std::to_string(kMessageTypes.size()));
  }
  cap.write(dir);
  cap.index(index);
}

// "when four accelerators on each of two servers send to one accelerator on a third server,
// eight flows converge on one receiver port (an 8-to-1 incast)" (Problem Statement).
void incast(const std::string& dir, std::ostream& index) {
  NetworkConfig cfg = base_config(8);
  cfg.queue.capacity = 1024 * kKiB;
  cfg.crn = ref::CrnConfig{.queue_threshold = 16 * kKiB};
  Network net(cfg);
  const HostId r = net.add_receiver(receiver_config());
  std::vector<HostId> senders;
  senders.reserve(8);
  for (int i = 0; i < 8; ++i)
    senders.push_back(net.add_sender(sender_config("sender-" + std::to_string(i))));
  for (HostId s : senders) net.submit(s, r, 96 * kKiB, Time{0});
  SimCapture cap("sim_incast_crn.pcap",
                 "An 8-to-1 incast in the simulator (seed 8): eight senders each send a 96 KiB "
                 "scheduled message at time 0 to one receiver (G = 512 KiB) through a switch "
                 "port whose CRN reports above B_th = 16 KiB of a 1 MiB queue. The receiver "
                 "grants a window to each, the grants' Pacing Rates share the link, and the "
                 "CRN's reports (Direction 1, to the receiver) name each flow whose packets "
                 "leave the queue above B_th.");
  cap.run(net, Time{ref::seconds(1).ns});
  cap.note_type<AssocRequest>("ASSOC_REQUEST of the eight senders",
                              [](const auto&) { return true; });
  cap.note_type<CreditRequest>("CREDIT_REQUEST of the eight 96 KiB messages",
                               [](const auto&) { return true; });
  cap.note_type<CreditGrant>(
      "each message's first CREDIT_GRANT: a window, at a share of the link",
      [seen = std::set<std::pair<std::uint32_t, std::uint64_t>>()](const auto& g) mutable {
        return seen.emplace(g.header.association_id, g.message_id).second;
      });
  cap.note_type<CongestionReport>(
      "CONGESTION_REPORT to the receiver (Direction 1), one per flow per 50 µs",
      [](const auto& m) { return m.direction == 1; });
  cap.note_type<CreditGrant>("CREDIT_GRANT with FINAL", [](const auto& g) { return g.final(); });
  cap.note_type<MsgDone>("MSG_DONE of each message", [](const auto&) { return true; });
  cap.write(dir);
  cap.index(index);
}

// A RoCEv2-bound transfer: the request's Binding Value packs the queue pair, first MSN and
// RDMA message count; data is RDMA WRITE on UDP 4791, posted in whole RDMA messages.
void rocev2(const std::string& dir, std::ostream& index) {
  Network net(base_config(4791));
  ref::ReceiverConfig rc = receiver_config();
  rc.grant_window = 64 * kKiB;  // one RDMA message per window
  const HostId r = net.add_receiver(rc);
  const HostId s = net.add_sender(sender_config("sender"));
  ref::MessageSpec spec;
  spec.receiver = net.address(r);
  spec.length = 256 * kKiB;
  spec.traffic_class = 2;
  spec.weight = 4;
  spec.binding = BindingKind::RoCEv2;
  spec.post_unit = 64 * kKiB;
  net.submit(s, spec, Time{0});
  SimCapture cap("sim_rocev2.pcap",
                 "A RoCEv2-bound transfer in the simulator (seed 4791): one 256 KiB message, "
                 "class 2, posted as four 64 KiB RDMA WRITE messages (PMTU 4096) on UDP port "
                 "4791; the receiver counts payload octets per queue pair and grants one RDMA "
                 "message per window. The data packets are cut at 128 octets of IP (BTH and "
                 "RETH kept); RDCC's heuristic must not claim them.");
  cap.run(net, Time{ref::seconds(1).ns});
  cap.note_type<CreditRequest>(
      "CREDIT_REQUEST with the RoCEv2 binding (QPN, first MSN, 4 RDMA messages)",
      [](const auto& m) { return m.binding_kind == 1; });
  cap.note_type<CreditGrant>("CREDIT_GRANTs, one 64 KiB RDMA message each",
                             [](const auto&) { return true; });
  cap.note("RDMA WRITE packets (BTH, RETH on First) to UDP 4791",
           [](const Frame& f) { return f.kind == "data (RoCEv2)"; });
  cap.note_type<MsgDone>("MSG_DONE: 262144 octets counted on the queue pair",
                         [](const auto&) { return true; });
  cap.write(dir);
  cap.index(index);
}

// "A receiver that loses its state (for example, after a restart) MUST use a different Epoch."
void restart(const std::string& dir, std::ostream& index) {
  Network net(base_config(5));
  const HostId r = net.add_receiver(receiver_config());
  const HostId a = net.add_sender(sender_config("sender-a"));
  const HostId b = net.add_sender(sender_config("sender-b"));
  net.submit(a, r, 192 * kKiB, Time{0});
  net.submit(b, r, 192 * kKiB, Time{0});
  const Time at{microseconds(20).ns};
  net.restart_receiver(r, 2, at);
  SimCapture cap("sim_restart.pcap",
                 "A receiver restart in the simulator (seed 5): two senders each send 192 KiB; "
                 "at 20 µs the receiver loses its state and comes back with Epoch 2. The "
                 "senders' requests under the old association get ERROR UNKNOWN_ASSOCIATION; "
                 "they drop their credit, re-establish (a new nonce and Association ID, Epoch "
                 "2) and request credit again for the remainder.");
  cap.run(net, Time{ref::seconds(1).ns});
  cap.note_type<AssocAccept>("ASSOC_ACCEPT, Epoch 1",
                             [](const auto& m) { return m.header.epoch == 1; });
  cap.note("frames after the restart at 20 µs", [&](const Frame& f) { return f.time.ns >= at.ns; });
  cap.note("ERROR UNKNOWN_ASSOCIATION from the restarted receiver",
           [](const Frame& f) { return is_error(f, ReasonCode::UnknownAssociation); });
  cap.note("ASSOC_REQUEST re-establishing (after the restart)", [&](const Frame& f) {
    return f.time.ns >= at.ns && f.message && std::holds_alternative<AssocRequest>(*f.message);
  });
  cap.note_type<AssocAccept>("ASSOC_ACCEPT, Epoch 2",
                             [](const auto& m) { return m.header.epoch == 2; });
  cap.note_type<MsgDone>("MSG_DONE under Epoch 2",
                         [](const auto& m) { return m.header.epoch == 2; });
  cap.write(dir);
  cap.index(index);
}

}  // namespace

void write_simulated(const std::string& dir, std::ostream& index) {
  all_types(dir, index);
  incast(dir, index);
  rocev2(dir, index);
  restart(dir, index);
}

}  // namespace rdcc::pcaps
