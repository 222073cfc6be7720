// rdcc sim: runs the reference endpoints on the deterministic simulator from a JSON
// description (docs/sim.md) and reports completion times against the ideal, the peak queue and
// credit against G, the network's counters and every invariant violation; optionally the pcap
// of every delivered packet, the endpoints' events as JSON lines, an SVG plot and a page.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "commands.hpp"
#include "plot.hpp"
#include "rdcc/codec/constants.hpp"
#include "rdcc/reference/bindings.hpp"
#include "rdcc/sim/network.hpp"
#include "rdcc/testing/sender_mutants.hpp"
#include "rdcc/udp/nodes.hpp"
#include "rdcc/wire/pcap.hpp"
#include "sim_config.hpp"
#ifdef RDCC_HAVE_NS3
#include "rdcc/ns3/network.hpp"
#endif

namespace rdcc::tools {
namespace {

using Json = nlohmann::ordered_json;
using sim::HostId;

struct SimOptions {
  std::string config;
  std::string engine = "sim";
  std::optional<std::uint64_t> seed;
  std::string pcap;
  std::string events;
  std::string svg;
  std::string html;
  bool json = false;
  [[nodiscard]] bool plots() const { return !svg.empty() || !html.empty(); }
};

struct Sample {
  ref::Time t;
  std::uint64_t credit = 0;
  std::uint64_t queue = 0;
};

struct ReceiverRun {
  HostId host = 0;
  std::string name;
  std::uint64_t budget = 0;
  std::uint32_t rate_mbps = 0;
  ref::Duration delay{};
  std::uint64_t octets = 0;  // submitted toward it
  ref::Time first = ref::Time::never();
  std::vector<Sample> samples;
};

struct Submission {
  sim::SubmitId id = 0;
  std::string sender;
  std::size_t receiver = 0;
  std::uint64_t length = 0;
  const char* binding = "opaque";
};

// Beyond this many messages the summary lists the first ones only (an all-to-all of 1,024
// hosts submits a million); it always counts them all.
constexpr std::size_t kMessagesListed = 10000;

double us(ref::Time t) {
  return static_cast<double>(t.ns) / 1000.0;
}
double us(ref::Duration d) {
  return static_cast<double>(d.ns) / 1000.0;
}

// "ideal": every octet toward the receiver through its link at line rate, from the first
// submission, plus one base round trip (four link delays: request out and grant back).
double ideal_us(const ReceiverRun& r) {
  return us(r.first) + static_cast<double>(r.octets) * 8.0 / r.rate_mbps + 4.0 * us(r.delay);
}

// The deterministic simulator: one switch.
std::unique_ptr<sim::Network> make_network(std::type_identity<sim::Network> /*engine*/,
                                           const SimConfig& c, const sim::NetworkConfig& nc,
                                           const SimOptions& /*o*/) {
  if (c.topology.kind != SimTopology::Kind::Star) {
    throw std::invalid_argument("topology: a leaf-spine needs --engine ns3");
  }
  return std::make_unique<sim::Network>(nc);
}

#ifdef RDCC_HAVE_NS3
std::unique_ptr<ns3sim::Network> make_network(std::type_identity<ns3sim::Network> /*engine*/,
                                              const SimConfig& c, const sim::NetworkConfig& nc,
                                              const SimOptions& o) {
  ns3sim::Topology t;
  if (c.topology.kind == SimTopology::Kind::LeafSpine) t.kind = ns3sim::Topology::Kind::LeafSpine;
  t.leaves = c.topology.leaves;
  t.spines = c.topology.spines;
  t.hosts_per_leaf = c.topology.hosts_per_leaf;
  t.fabric_link = c.topology.fabric_link;
  t.ecmp = c.topology.ecmp;
  std::size_t hosts = c.receivers.size();
  for (const auto& s : c.senders) {
    if (!s.first.with_receiver) ++hosts;
  }
  if (t.kind == ns3sim::Topology::Kind::LeafSpine && hosts > t.leaves * t.hosts_per_leaf) {
    throw std::invalid_argument("topology: " + std::to_string(hosts) + " hosts do not fit " +
                                std::to_string(t.leaves) + " leaves of " +
                                std::to_string(t.hosts_per_leaf));
  }
  auto net = std::make_unique<ns3sim::Network>(nc, t);
  if (!o.pcap.empty()) net->write_pcap(o.pcap);
  return net;
}
#endif

template <class Network>
class Run {
 public:
  Run(const SimConfig& c, const SimOptions& o) : c_(c), o_(o) {
    sim::NetworkConfig nc = c.network;
    if (o.seed) nc.seed = *o.seed;
    // The plot marks CRN reports (events) and drops (packet records).
    nc.record_packets = !o.pcap.empty() || o.plots();
    nc.record_events = !o.events.empty() || o.plots();
    net_ = make_network(std::type_identity<Network>{}, c, nc, o);
    for (const auto& [host, rc] : c.receivers) {
      ReceiverRun r;
      r.host = net_->add_host(host.link);
      net_->attach_receiver(r.host, rc, host.receiver_policy);
      r.name = host.name;
      r.budget = rc.budget;
      r.rate_mbps = host.link.rate_mbps;
      r.delay = host.link.delay;
      receivers_.push_back(std::move(r));
    }
    for (const auto& [host, sc] : c.senders) {
      if (host.with_receiver) {
        net_->attach_sender(receivers_[*host.with_receiver].host, sc,
                            testing::sender_policy(host.mutants));
        senders_.push_back(receivers_[*host.with_receiver].host);
      } else {
        senders_.push_back(net_->add_host(host.link));
        net_->attach_sender(senders_.back(), sc, testing::sender_policy(host.mutants));
      }
    }
    for (const auto& m : c.messages) {
      for (std::size_t k = 0; k < m.count; ++k) {
        const ref::Time at{(m.at + m.interval * static_cast<std::int64_t>(k)).ns};
        for (std::size_t s : m.senders) {
          ref::MessageSpec spec = m.spec;
          ReceiverRun& r = receivers_[m.receiver];
          spec.receiver = net_->address(r.host);
          Submission sub;
          sub.id = net_->submit(senders_[s], spec, at);
          sub.sender = c.senders[s].first.name;
          sub.receiver = m.receiver;
          sub.length = m.spec.length;
          sub.binding = m.spec.binding == BindingKind::RoCEv2 ? "rocev2" : "opaque";
          submissions_.push_back(sub);
          r.octets += m.spec.length;
          r.first = std::min(r.first, at);
        }
      }
    }
    for (const auto& a : c.actions) {
      const ref::Time at{a.at.ns};
      if (a.kind == SimAction::Kind::RestartReceiver) {
        net_->restart_receiver(receivers_[a.receiver].host, a.epoch, at);
      } else {
        net_->cancel(submissions_.at(a.message).id, at);
      }
    }
  }

  // True when the run finished, no invariant broke, and no message was ABORTED but by the
  // description's own cancel actions.
  bool run() {
    const auto start = std::chrono::steady_clock::now();
    if (o_.plots()) {
      interval_ = c_.sample.ns > 0 ? c_.sample : ref::microseconds(1);
      sample(ref::Time{});
    }
    finished_ = net_->run_until_done(ref::Time{c_.limit.ns});
    // The last MSG_DONEs and reports, as a capture would show them.
    if (finished_) net_->run_until_idle(net_->now() + ref::milliseconds(1));
    wall_s_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    bool unexpected_abort = false;
    for (const auto& sub : submissions_) {
      const auto st = net_->status(sub.id);
      unexpected_abort =
          unexpected_abort ||
          (st && st->state == ref::MessageState::Aborted &&
           st->abort_reason != static_cast<std::uint16_t>(ReasonCode::ApplicationAbort));
    }
    return finished_ && net_->checker().ok() && !unexpected_abort;
  }

  void write_outputs() const {
    // ns-3 writes its capture as it runs.
    if constexpr (std::is_same_v<Network, sim::Network>) {
      if (!o_.pcap.empty()) {
        wire::PcapWriter w(o_.pcap);
        for (const auto& p : net_->packets()) {
          if (p.point != sim::PacketRecord::Point::Delivered) continue;
          w.write(wire::kEpochMicros + p.time.ns / 1000, wire::ethernet_frame(p.bytes),
                  static_cast<std::uint32_t>(14 + p.orig_length));
        }
      }
    }
    if (!o_.events.empty()) {
      std::ofstream out(o_.events);
      if (!out) throw std::runtime_error(o_.events + ": cannot be written");
      for (const auto& e : net_->events().events()) out << e.to_json().dump() << '\n';
      if (!out) throw std::runtime_error(o_.events + ": write failed");
    }
    if (!o_.svg.empty()) plot::write_svg(figure(), o_.svg);
    if (!o_.html.empty()) write_html();
  }

  [[nodiscard]] Json summary() const {
    Json j;
    j["config"] = c_.file;
    j["engine"] = o_.engine;
    j["seed"] = net_->config().seed;
    j["finished"] = finished_;
    ref::Time last_finished{};
    for (const auto& sub : submissions_) {
      if (const auto st = net_->status(sub.id))
        last_finished = std::max(last_finished, st->finished);
    }
    j["last_finished_us"] = us(last_finished);
    j["virtual_time_us"] = us(net_->now());
    // Per receiver: its messages, those DONE and when the last was (one pass: an all-to-all
    // has a million messages toward a thousand receivers).
    struct Tally {
      std::size_t total = 0;
      std::size_t done = 0;
      ref::Time last{};
    };
    std::vector<Tally> tally(receivers_.size());
    for (const auto& s : submissions_) {
      Tally& t = tally[s.receiver];
      ++t.total;
      const auto st = net_->status(s.id);
      if (st && st->state == ref::MessageState::Done) {
        ++t.done;
        t.last = std::max(t.last, st->finished);
      }
    }
    j["outcome"] = outcome();
    Json rs = Json::array();
    for (std::size_t i = 0; i < receivers_.size(); ++i) {
      const ReceiverRun& r = receivers_[i];
      const ref::Time last = tally[i].last;
      const std::size_t done = tally[i].done;
      const std::size_t total = tally[i].total;
      Json x;
      x["name"] = r.name;
      x["address"] = net_->address(r.host).to_string();
      x["messages"] = total;
      x["done"] = done;
      x["octets"] = r.octets;
      x["last_done_us"] = us(last);
      x["ideal_us"] = ideal_us(r);
      x["ratio"] = done == total && total > 0 ? us(last) / ideal_us(r) : 0.0;
      x["peak_credit"] = net_->checker().peak_outstanding(net_->address(r.host));
      x["budget"] = r.budget;
      x["peak_queue"] = net_->peak_queue(r.host);
      rs.push_back(x);
    }
    j["receivers"] = rs;
    Json ms = Json::array();
    for (const auto& s : submissions_) {
      if (ms.size() == kMessagesListed) break;
      const auto st = net_->status(s.id);
      Json x;
      x["index"] = s.id;
      x["sender"] = s.sender;
      x["receiver"] = receivers_[s.receiver].name;
      x["length"] = s.length;
      x["binding"] = s.binding;
      if (st) {
        x.update(udp::to_json(*st));  // as the real-network sender reports it
        x["submitted_us"] = us(st->submitted);
        x["finished_us"] = us(st->finished);
      }
      ms.push_back(x);
    }
    j["messages"] = ms;
    j["message_count"] = submissions_.size();  // the first kMessagesListed are listed
    const auto& n = net_->stats();
    j["network"] = {
        {"control_sent", n.control_sent},
        {"control_delivered", n.control_delivered},
        {"control_lost", n.control_lost},
        {"control_duplicated", n.control_duplicated},
        {"control_reordered", n.control_reordered},
        {"control_delayed", n.control_delayed},
        {"data_packets_sent", n.data_packets_sent},
        {"data_packets_delivered", n.data_packets_delivered},
        {"data_octets_delivered", n.data_octets_delivered},
        {"data_lost", n.data_lost},
        {"tail_drops", n.tail_drops},
        {"ecn_marked", n.ecn_marked},
        // Loss recovery (docs/data-transport.md): opaque data octets sent, of
        // which resent after a NACK, and that share of all octets sent.
        {"data_octets_sent", n.data_octets_sent},
        {"resent_octets", n.resent_octets_sent},
        {"resent_share", n.data_octets_sent == 0 ? 0.0
                                                 : static_cast<double>(n.resent_octets_sent) /
                                                       static_cast<double>(n.data_octets_sent)},
        {"nacks_sent", n.nacks_sent},
        {"nacks_delivered", n.nacks_delivered}};
    Json vs = Json::array();
    for (const auto& v : net_->checker().violations()) {
      vs.push_back({{"time_us", us(v.time)},
                    {"rule", v.rule},
                    {"party", v.party == checker::Party::Sender ? "sender" : "receiver"},
                    {"detail", v.detail}});
    }
    j["violations"] = vs;
    // The checker keeps the first 1,000; it counts them all.
    j["violation_count"] = net_->checker().violation_count();
    j["trace_hash"] = net_->trace_hash();
    // What the run cost (not part of the trace): for the engines' benchmark.
    j["events"] = n.events_processed;
    j["wall_s"] = wall_s_;
    j["events_per_s"] = wall_s_ > 0 ? static_cast<double>(n.events_processed) / wall_s_ : 0.0;
    return j;
  }

 private:
  // How the messages ended: counts by state, and the ABORTED ones by reason and receiver with
  // what caused it (the receiver's cap that refused them, or the description's cancel).
  [[nodiscard]] Json outcome() const {
    std::size_t done = 0;
    std::size_t aborted = 0;
    std::size_t unfinished = 0;
    std::map<std::pair<std::uint16_t, std::size_t>, std::size_t> aborts;  // (reason, receiver)
    for (const auto& sub : submissions_) {
      const auto st = net_->status(sub.id);
      if (st && st->state == ref::MessageState::Done) {
        ++done;
      } else if (st && st->state == ref::MessageState::Aborted) {
        ++aborted;
        ++aborts[{st->abort_reason, sub.receiver}];
      } else {
        ++unfinished;
      }
    }
    Json reasons = Json::array();
    for (const auto& [key, count] : aborts) {
      const auto name = name_of(kReasonCodes, key.first);
      reasons.push_back({{"reason", name.empty() ? std::to_string(key.first) : std::string(name)},
                         {"receiver", receivers_[key.second].name},
                         {"messages", count},
                         {"cause", abort_cause(key.first, key.second)}});
    }
    return {{"messages", submissions_.size()},
            {"done", done},
            {"aborted", aborted},
            {"unfinished", unfinished},
            {"aborts", reasons}};
  }

  // What made the receiver's reason happen, in the description's words (its keys).
  [[nodiscard]] std::string abort_cause(std::uint16_t reason, std::size_t receiver) const {
    const ReceiverRun& r = receivers_[receiver];
    const ref::ReceiverConfig& rc = c_.receivers[receiver].second;
    const ref::Receiver* rx = net_->receiver(r.host);
    const std::string who = "receiver " + r.name + " ";
    switch (static_cast<ReasonCode>(reason)) {
      case ReasonCode::AssocRefused:
        return who + "refused " + std::to_string(rx ? rx->stats().associations_refused : 0) +
               " ASSOC_REQUESTs at its caps max_associations = " +
               std::to_string(rc.max_associations) +
               ", max_associations_per_host = " + std::to_string(rc.max_associations_per_host);
      case ReasonCode::MessageTooLarge:
        return who + "takes messages up to max_message_length = " +
               std::to_string(rc.max_message_length) + " octets";
      case ReasonCode::BudgetExhausted:
        return who + "holds at most max_pending_per_association = " +
               std::to_string(rc.max_pending_per_association) + " pending messages per association";
      case ReasonCode::UnsupportedBinding:
        return who + "does not take the message's binding (rocev2_binding / opaque_binding)";
      case ReasonCode::ApplicationAbort: return "cancelled by the description's actions";
      default: return who + "ended them with this reason";
    }
  }

  // Reads the state every interval while anything is left to do; only reads, so the run is
  // the same with or without a plot.
  void sample(ref::Time t) {
    net_->at(t, [this](Network& net) {
      for (ReceiverRun& r : receivers_) {
        const ref::Receiver* rx = net.receiver(r.host);
        r.samples.push_back(
            {net.now(), rx != nullptr ? rx->outstanding_credit() : 0, net.queue_octets(r.host)});
      }
      if (!net.all_finished() && net.now().ns + interval_.ns <= c_.limit.ns) {
        sample(net.now() + interval_);
      }
    });
  }

  // Per receiver a panel of its outstanding credit against G and one of the switch queue
  // toward it; restarts, CRN reports and drops marked across them (plot.hpp).
  [[nodiscard]] plot::Figure figure() const {
    plot::Figure f;
    f.title = "rdcc sim: " + c_.file + ", seed " + std::to_string(net_->config().seed);
    for (const ReceiverRun& r : receivers_) {
      if (!r.samples.empty()) f.end_ns = std::max(f.end_ns, r.samples.back().t.ns);
    }
    for (const ReceiverRun& r : receivers_) {
      const std::string who = r.name + " (" + net_->address(r.host).to_string() + ")";
      plot::Series credit{"credit outstanding", "#1f77b4", {}, false};
      plot::Series queue{"switch queue toward it", "#ff7f0e", {}, false};
      for (const Sample& x : r.samples) {
        credit.points.push_back({x.t.ns, static_cast<double>(x.credit)});
        queue.points.push_back({x.t.ns, static_cast<double>(x.queue)});
      }
      f.panels.push_back({who + ": credit outstanding against G",
                          plot::Unit::Octets,
                          {credit},
                          {{static_cast<double>(r.budget), "G", "#d62728"}}});
      f.panels.push_back({who + ": switch queue", plot::Unit::Octets, {queue}, {}});
    }
    // Goodput per sender (the ten that delivered most, and the rest together).
    plot::Panel goodput = plot::goodput_panel("goodput per sender (message data delivered)",
                                              delivered_by_sender(), f.end_ns, 100);
    if (!goodput.series.empty()) f.panels.push_back(std::move(goodput));
    for (const auto& a : c_.actions) {
      if (a.kind != SimAction::Kind::RestartReceiver) continue;
      f.markers.push_back(
          {a.at.ns, plot::Marker::Kind::Line,
           "restart " + receivers_[a.receiver].name + " (epoch " + std::to_string(a.epoch) + ")",
           "#9467bd"});
    }
    for (const auto& e : net_->events().events()) {
      if (e.name == "report_sent") {
        f.markers.push_back({e.time.ns, plot::Marker::Kind::Tick, "CRN report", "#8c564b"});
      }
    }
    // The deterministic simulator keeps a record of every packet (ns-3 writes its capture as it
    // runs, and keeps none): drops are marked from it.
    if constexpr (std::is_same_v<Network, sim::Network>) {
      for (const auto& p : net_->packets()) {
        if (p.point == sim::PacketRecord::Point::Dropped) {
          f.markers.push_back({p.time.ns, plot::Marker::Kind::Tick, "drop", "#d62728"});
        }
      }
    }
    return f;
  }

  // The octets of message data each sender delivered, as (time, octets) per sender: from the
  // delivered data packets (opaque: Payload Length; RoCEv2: the packet less its IPv4, UDP, BTH,
  // RETH, pad and ICRC). None under ns-3, which keeps no packet record.
  [[nodiscard]] std::map<std::string, std::vector<plot::Point>> delivered_by_sender() const {
    std::map<std::string, std::vector<plot::Point>> out;
    if constexpr (std::is_same_v<Network, sim::Network>) {
      std::map<std::string, std::string> names;  // sender host (IP) -> name
      const auto host = [](const ref::Address& a) {
        const std::string s = a.to_string();
        return s.substr(0, s.rfind(':'));
      };
      for (std::size_t i = 0; i < senders_.size(); ++i) {
        names[host(net_->address(senders_[i]))] = c_.senders[i].first.name;
      }
      for (const auto& p : net_->packets()) {
        if (p.point != sim::PacketRecord::Point::Delivered || p.control) continue;
        const auto it = names.find(host(p.from));
        if (it == names.end()) continue;
        const auto octet = [&p](std::size_t i) {
          return i < p.bytes.size() ? std::to_integer<std::uint32_t>(p.bytes[i]) : 0U;
        };
        const std::size_t ip = (octet(0) & 0x0FU) * 4;
        const std::size_t udp = ip + 8;
        std::uint64_t payload = 0;
        if (p.to.port == ref::kRocev2Port) {
          const std::uint32_t opcode = octet(udp);
          const std::uint32_t pad = (octet(udp + 1) >> 4U) & 3U;
          const std::uint64_t headers =
              udp + 12 + 4 + pad + (opcode == 0x06 || opcode == 0x0A ? 16 : 0);
          payload = p.orig_length > headers ? p.orig_length - headers : 0;
        } else {
          payload = (octet(udp + 4) << 24U) | (octet(udp + 5) << 16U) | (octet(udp + 6) << 8U) |
                    octet(udp + 7);
        }
        out[it->second].push_back({p.time.ns, static_cast<double>(payload)});
      }
    }
    return out;
  }

  // rdcc sim --html: the summary's tables and the figure on one self-contained page.
  void write_html() const {
    const Json j = summary();
    const Json& o = j["outcome"];
    std::vector<plot::Table> tables;
    plot::Table messages{"Messages", {"messages", "DONE", "ABORTED", "unfinished"}, {}};
    messages.rows.push_back({std::to_string(o["messages"].get<std::size_t>()),
                             std::to_string(o["done"].get<std::size_t>()),
                             std::to_string(o["aborted"].get<std::size_t>()),
                             std::to_string(o["unfinished"].get<std::size_t>())});
    tables.push_back(messages);
    if (!o["aborts"].empty()) {
      plot::Table aborts{"ABORTED messages", {"reason", "receiver", "messages", "cause"}, {}};
      for (const auto& a : o["aborts"]) {
        aborts.rows.push_back({a["reason"].get<std::string>(), a["receiver"].get<std::string>(),
                               std::to_string(a["messages"].get<std::size_t>()),
                               a["cause"].get<std::string>()});
      }
      tables.push_back(aborts);
    }
    plot::Table rx{"Receivers",
                   {"receiver", "address", "messages", "done", "last done", "ideal", "peak credit",
                    "G", "peak queue"},
                   {}};
    for (const auto& r : j["receivers"]) {
      rx.rows.push_back({r["name"].get<std::string>(), r["address"].get<std::string>(),
                         std::to_string(r["messages"].get<std::size_t>()),
                         std::to_string(r["done"].get<std::size_t>()),
                         plot::duration(r["last_done_us"].get<double>() * 1000),
                         plot::duration(r["ideal_us"].get<double>() * 1000),
                         plot::octets(static_cast<double>(r["peak_credit"].get<std::uint64_t>())),
                         plot::octets(static_cast<double>(r["budget"].get<std::uint64_t>())),
                         plot::octets(static_cast<double>(r["peak_queue"].get<std::uint64_t>()))});
    }
    tables.push_back(rx);
    plot::Table tx{"Senders: message data delivered (retransmissions included)",
                   {"sender", "octets", "first", "last"},
                   {}};
    for (const auto& [name, points] : delivered_by_sender()) {
      double sum = 0;
      for (const plot::Point& p : points) sum += p.value;
      tx.rows.push_back({name, plot::octets(sum),
                         plot::duration(static_cast<double>(points.front().t_ns)),
                         plot::duration(static_cast<double>(points.back().t_ns))});
    }
    tables.push_back(tx);
    plot::write_html("rdcc sim: " + c_.file + ", seed " + std::to_string(net_->config().seed),
                     tables, figure(), o_.html);
  }

  const SimConfig& c_;
  const SimOptions& o_;
  std::unique_ptr<Network> net_;
  std::vector<ReceiverRun> receivers_;
  std::vector<HostId> senders_;
  std::vector<Submission> submissions_;
  ref::Duration interval_{};
  bool finished_ = false;
  double wall_s_ = 0;
};

void print_table(const Json& j) {
  const Json& o = j["outcome"];
  const auto n = [&o](const char* key) {
    return static_cast<unsigned long long>(o[key].get<std::size_t>());
  };
  std::printf(
      "rdcc sim: %s, seed %llu: %llu messages: %llu DONE, %llu ABORTED, %llu unfinished "
      "(the last ended at %.3f us of virtual time)\n",
      j["config"].get<std::string>().c_str(),
      static_cast<unsigned long long>(j["seed"].get<std::uint64_t>()), n("messages"), n("done"),
      n("aborted"), n("unfinished"), j["last_finished_us"].get<double>());
  for (const auto& a : o["aborts"]) {
    std::printf("  ABORTED %llu (%s): %s\n",
                static_cast<unsigned long long>(a["messages"].get<std::size_t>()),
                a["reason"].get<std::string>().c_str(), a["cause"].get<std::string>().c_str());
  }
  std::printf("\n%-14s %-22s %5s %5s %12s %12s %12s %7s %10s %10s %10s\n", "receiver", "address",
              "msgs", "done", "octets", "last_us", "ideal_us", "ratio", "peak_cred", "G",
              "peak_queue");
  for (const auto& r : j["receivers"]) {
    char ratio[16] = "-";  // only when every message toward it is DONE
    if (r["ratio"].get<double>() > 0)
      std::snprintf(ratio, sizeof ratio, "%.3f", r["ratio"].get<double>());
    std::printf("%-14s %-22s %5zu %5zu %12llu %12.1f %12.1f %7s %10llu %10llu %10llu\n",
                r["name"].get<std::string>().c_str(), r["address"].get<std::string>().c_str(),
                r["messages"].get<std::size_t>(), r["done"].get<std::size_t>(),
                static_cast<unsigned long long>(r["octets"].get<std::uint64_t>()),
                r["last_done_us"].get<double>(), r["ideal_us"].get<double>(), ratio,
                static_cast<unsigned long long>(r["peak_credit"].get<std::uint64_t>()),
                static_cast<unsigned long long>(r["budget"].get<std::uint64_t>()),
                static_cast<unsigned long long>(r["peak_queue"].get<std::uint64_t>()));
  }
  std::printf("\n%5s %-14s %-14s %10s %7s %10s %12s %12s %12s\n", "index", "sender", "receiver",
              "length", "binding", "state", "submitted_us", "finished_us", "took_us");
  for (const auto& m : j["messages"]) {
    const double sub = m.value("submitted_us", 0.0);
    const double fin = m.value("finished_us", 0.0);
    std::printf(
        "%5zu %-14s %-14s %10llu %7s %10s %12.1f %12.1f %12.1f%s\n", m["index"].get<std::size_t>(),
        m["sender"].get<std::string>().c_str(), m["receiver"].get<std::string>().c_str(),
        static_cast<unsigned long long>(m["length"].get<std::uint64_t>()),
        m["binding"].get<std::string>().c_str(), m.value("state", std::string("?")).c_str(), sub,
        fin, fin > 0 ? fin - sub : 0.0, m.value("without_rdcc", false) ? "  (without RDCC)" : "");
  }
  const auto listed = j["messages"].size();
  if (j["message_count"].get<std::size_t>() > listed) {
    std::printf("  ... the first %zu of %zu messages\n", listed,
                j["message_count"].get<std::size_t>());
  }
  std::printf("\nnetwork:");
  for (const auto& [k, v] : j["network"].items()) {
    if (v.is_number_float()) {
      std::printf(" %s=%.4f", k.c_str(), v.get<double>());
    } else {
      std::printf(" %s=%llu", k.c_str(), static_cast<unsigned long long>(v.get<std::uint64_t>()));
    }
  }
  const auto& vs = j["violations"];
  const auto count = j["violation_count"].get<std::uint64_t>();
  std::string said = count == 0 ? "no violation" : std::to_string(count) + " violations";
  if (count > vs.size()) said += " (the first " + std::to_string(vs.size()) + " kept)";
  std::printf("\ninvariants: %s\n", said.c_str());
  std::size_t shown = 0;
  for (const auto& v : vs) {
    if (shown++ == 20) {
      std::printf("  ... (--json lists those kept)\n");
      break;
    }
    std::printf("  %.3f us %s: %s\n", v["time_us"].get<double>(),
                v["rule"].get<std::string>().c_str(), v["detail"].get<std::string>().c_str());
  }
}

template <class Network>
int run_on(const SimConfig& c, const SimOptions& o) {
  std::optional<Run<Network>> run;
  try {
    run.emplace(c, o);
  } catch (const std::invalid_argument& e) {
    std::cerr << "rdcc sim: " << c.file << ": " << e.what() << '\n';
    return 2;
  }
  const bool ok = run->run();
  run->write_outputs();
  const Json j = run->summary();
  if (o.json) {
    std::cout << j.dump(2) << '\n';
  } else {
    print_table(j);
  }
  return ok ? 0 : 1;
}

int run_sim(const SimOptions& o) {
  SimConfig c;
  try {
    c = load_sim_config(o.config);
  } catch (const std::invalid_argument& e) {
    std::cerr << "rdcc sim: " << e.what() << '\n';
    return 2;
  }
  if (o.engine == "ns3") {
#ifdef RDCC_HAVE_NS3
    return run_on<ns3sim::Network>(c, o);
#else
    std::cerr
        << "rdcc sim: --engine ns3: this rdcc was built without ns-3 (scripts/setup.sh installs "
           "ns3, libns3-dev and libgsl-dev; then configure and build again)\n";
    return 2;
#endif
  }
  return run_on<sim::Network>(c, o);
}

}  // namespace

void add_sim_command(CLI::App& app, int& status) {
  auto o = std::make_shared<SimOptions>();
  auto* cmd = app.add_subcommand(
      "sim",
      "Run the reference sender, receiver and CRN on the deterministic simulator from a "
      "JSON description (docs/sim.md): completion against the ideal, peak credit against G, "
      "peak queue, invariant violations. Exit 0: every message finished and no invariant "
      "broke; 1: not so; 2: the description is wrong (named with its key)");
  cmd->add_option("config", o->config, "The simulation, as JSON (docs/sim.md)")->required();
  cmd->add_option("--seed", o->seed, "Override the description's seed");
  cmd->add_option("--pcap", o->pcap, "Write every delivered packet to FILE (pcap, Ethernet)");
  cmd->add_option("--events", o->events, "Write the endpoints' events to FILE as JSON lines");
  cmd->add_option("--svg", o->svg,
                  "Write a plot of each receiver's outstanding credit against G, "
                  "of the switch queue toward it and of each sender's goodput "
                  "to FILE");
  cmd->add_option("--html", o->html,
                  "Write a self-contained page (nothing loaded from the "
                  "network) with the summary's tables and the plot to FILE");
  cmd->add_flag("--json", o->json, "Print the summary as one JSON document");
  cmd->add_option("--engine", o->engine,
                  "sim: the deterministic simulator (default); ns3: the same endpoints as ns-3 "
                  "Applications on ns-3 links and queue discs (docs/ns3.md)")
      ->check(CLI::IsMember({"sim", "ns3"}));
  cmd->callback([o, &status] {
    try {
      status = run_sim(*o);
    } catch (const std::runtime_error& e) {
      std::cerr << "rdcc sim: " << e.what() << '\n';
      status = 1;
    }
  });
}

}  // namespace rdcc::tools
