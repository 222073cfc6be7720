// rdcc pcap stats: per receiver and per association, what the control traffic of a capture
// says: messages, octets requested and granted, grant latency, credit outstanding over time,
// reports and errors. Received octets come from the data packets where the capture holds a
// message's data (opaque on --data-port, RoCEv2 on --rocev2-port: DataPackets, as `check`
// reads them), otherwise from MSG_DONE (Octets Received).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <vector>

#include "data_packets.hpp"
#include "pcap_commands.hpp"
#include "pcap_common.hpp"
#include "plot.hpp"
#include "rdcc/codec/json.hpp"

namespace rdcc::tools {
namespace {

struct StatsOptions {
  CaptureOptions capture;
  bool json = false;
  std::string svg;
  std::string html;
  std::string budget;  // --budget G: drawn against the credit outstanding
  std::optional<std::uint16_t> data_port;
  std::string data_framing;  // --data-framing FILE; empty: the project's framing
  std::uint16_t rocev2_port = ref::kRocev2Port;  // 0: RoCEv2 not read
};

struct MessageState {
  std::uint64_t length = 0;
  bool requested = false;
  std::int64_t first_request_ns = 0;
  bool granted = false;
  std::uint64_t limit = 0;
  std::uint64_t received = 0;  // the larger of the data seen and MSG_DONE's count
};

// Counters kept both per association and per receiver.
struct Counters {
  std::array<std::uint64_t, 11> packets{};  // by type
  std::uint64_t messages = 0;
  std::uint64_t octets_requested = 0;
  std::uint64_t octets_granted = 0;   // per-message grants: highest Grant Limit per message
  std::uint64_t pool_granted = 0;     // pool grants: highest pool Grant Limit per association
  std::uint64_t octets_received = 0;  // both of these
  std::uint64_t received_data = 0;    // from the data packets (highest offset seen per message)
  std::uint64_t received_done = 0;    // from MSG_DONE, where the message's data is not captured
  std::vector<std::int64_t> grant_latency_ns;
  std::uint64_t reports = 0;
  std::map<std::string, std::uint64_t> errors;  // ERROR messages by reason
};

struct Sample {
  std::int64_t t;
  std::uint64_t granted;   // cumulative
  std::uint64_t received;  // cumulative
  std::uint64_t outstanding;
};

struct AssocStats {
  ref::Address sender;
  std::uint32_t association_id = 0;
  std::uint16_t epoch = 0;
  Counters c;
  std::uint64_t pool_limit = 0;
  std::map<std::uint64_t, MessageState> messages;
  std::vector<plot::Point> delivered;  // (time, octets newly known to have arrived): goodput
};

struct ReceiverStats {
  ref::Address address;
  Counters c;
  std::uint64_t outstanding = 0;
  std::uint64_t peak = 0;
  std::int64_t peak_ns = 0;
  double outstanding_area = 0;  // octet-nanoseconds, for the time-weighted mean
  std::int64_t last_change_ns = 0;
  std::vector<Sample> series;
  std::map<std::tuple<AddrKey, std::uint32_t>, AssocStats> assocs;
  std::uint16_t epoch = 0;  // of the receiver's latest message: a new one is a restart
};

struct Stats {
  std::map<AddrKey, ReceiverStats> receivers;
  std::uint64_t reports_to_senders = 0;
  ScanSummary summary;
  std::vector<plot::Marker> markers;  // for the plot: restarts, CRN reports, ERRORs
};

void count(Counters& c, const Message& m) {
  ++c.packets[static_cast<std::size_t>(type_of(m))];
}

std::string reason_name(std::uint16_t reason) {
  const auto n = name_of(kReasonCodes, reason);
  return n.empty() ? std::to_string(reason) : std::string(n);
}

void move_outstanding(ReceiverStats& r, std::int64_t t, std::uint64_t before, std::uint64_t after) {
  r.outstanding_area +=
      static_cast<double>(r.outstanding) * static_cast<double>(t - r.last_change_ns);
  r.last_change_ns = t;
  r.outstanding = r.outstanding - before + after;
  if (r.outstanding > r.peak) {
    r.peak = r.outstanding;
    r.peak_ns = t;
  }
}

std::uint64_t outstanding_of(const MessageState& m) {
  return m.limit > m.received ? m.limit - m.received : 0;
}

void record(ReceiverStats& r, std::int64_t t) {
  r.series.push_back(
      {t, r.c.octets_granted + r.c.pool_granted, r.c.octets_received, r.outstanding});
}

// Octets of `msg` now known to have arrived (`to` of them in all), from `data` or MSG_DONE.
void receive(ReceiverStats& r, AssocStats& a, MessageState& msg, std::uint64_t to, bool data,
             std::int64_t t) {
  if (to <= msg.received) return;
  const std::uint64_t before = outstanding_of(msg);
  const std::uint64_t more = to - msg.received;
  for (Counters* c : {&r.c, &a.c}) {
    c->octets_received += more;
    (data ? c->received_data : c->received_done) += more;
  }
  msg.received = to;
  a.delivered.push_back({t, static_cast<double>(more)});
  move_outstanding(r, t, before, outstanding_of(msg));
  record(r, t);
}

// A data packet of a message whose CREDIT_REQUEST is in the capture.
void on_data(Stats& s, const DataPackets::Read& d, std::int64_t t) {
  auto r = s.receivers.find(key_of(d.message.receiver));
  if (r == s.receivers.end()) return;
  auto a = r->second.assocs.find({key_of(d.message.sender), d.message.association_id});
  if (a == r->second.assocs.end()) return;
  MessageState& msg = a->second.messages[d.message.message_id];
  receive(r->second, a->second, msg, d.offset + d.length, true, t);
}

void on_message(Stats& s, Roles& roles, DataPackets& data, const RdccPacket& p, const Message& m) {
  const std::int64_t t = p.frame.relative_ns;
  const auto sides = roles.sides(m, p.udp.source, p.udp.destination);
  if (!sides) {  // CONGESTION_REPORT
    s.markers.push_back({t, plot::Marker::Kind::Tick, "CRN report", "#8c564b"});
    auto it = s.receivers.find(key_of(p.udp.destination));
    if (roles.is_receiver(p.udp.destination) && it != s.receivers.end()) {
      ++it->second.c.reports;
      count(it->second.c, m);
    } else {
      ++s.reports_to_senders;
    }
    return;
  }
  if (const auto* req = std::get_if<CreditRequest>(&m)) data.bind(*req, *sides);
  ReceiverStats& r = s.receivers[key_of(sides->receiver)];
  r.address = sides->receiver;
  if (std::holds_alternative<AssocRequest>(m)) {  // no Association ID yet
    count(r.c, m);
    return;
  }
  const Header& h = header_of(m);
  AssocStats& a = r.assocs[{key_of(sides->sender), h.association_id}];
  a.sender = sides->sender;
  a.association_id = h.association_id;
  if (h.epoch != 0) a.epoch = h.epoch;
  if (sides->from_receiver && h.epoch != 0) {
    if (r.epoch != 0 && h.epoch != r.epoch) {
      s.markers.push_back({t, plot::Marker::Kind::Line,
                           "epoch " + std::to_string(h.epoch) + " at " + r.address.to_string(),
                           "#9467bd"});
    }
    r.epoch = h.epoch;
  }
  count(r.c, m);
  count(a.c, m);
  const auto both = [&](auto&& f) {
    f(r.c);
    f(a.c);
  };
  if (const auto* req = std::get_if<CreditRequest>(&m)) {
    MessageState& msg = a.messages[req->message_id];
    if (!msg.requested) {
      msg.requested = true;
      msg.first_request_ns = t;
      both([](Counters& c) { ++c.messages; });
      both([&](Counters& c) { c.octets_requested += req->message_length; });
    } else if (req->message_length != msg.length) {
      both([&](Counters& c) { c.octets_requested += req->message_length - msg.length; });
    }
    msg.length = req->message_length;
  } else if (const auto* g = std::get_if<CreditGrant>(&m)) {
    if (g->pool()) {
      if (g->grant_limit > a.pool_limit) {
        const std::uint64_t more = g->grant_limit - a.pool_limit;
        both([&](Counters& c) { c.pool_granted += more; });
        move_outstanding(r, t, 0, more);
        a.pool_limit = g->grant_limit;
        record(r, t);
      }
      return;
    }
    MessageState& msg = a.messages[g->message_id];
    if (!msg.granted) {
      msg.granted = true;
      if (msg.requested) {
        both([&](Counters& c) { c.grant_latency_ns.push_back(t - msg.first_request_ns); });
      }
    }
    if (g->grant_limit > msg.limit) {
      const std::uint64_t before = outstanding_of(msg);
      both([&](Counters& c) { c.octets_granted += g->grant_limit - msg.limit; });
      msg.limit = g->grant_limit;
      move_outstanding(r, t, before, outstanding_of(msg));
      record(r, t);
    }
  } else if (const auto* done = std::get_if<MsgDone>(&m)) {
    // Where the capture holds the message's data, the data says what arrived.
    const MessageRef named{sides->receiver, sides->sender, h.association_id, done->message_id};
    if (!data.in_capture(named)) {
      receive(r, a, a.messages[done->message_id], done->octets_received, false, t);
    }
  } else if (const auto* e = std::get_if<ErrorMessage>(&m)) {
    both([&](Counters& c) { ++c.errors[reason_name(e->reason)]; });
    s.markers.push_back({t, plot::Marker::Kind::Tick, "ERROR", "#d62728"});
  }
}

// Nearest-rank percentile of sorted values.
std::int64_t percentile(const std::vector<std::int64_t>& sorted, double p) {
  if (sorted.empty()) return 0;
  const auto rank =
      static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(sorted.size())));
  return sorted[std::clamp<std::size_t>(rank, 1, sorted.size()) - 1];
}

std::string micros(std::int64_t ns) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f us", static_cast<double>(ns) / 1000.0);
  return text;
}

nlohmann::ordered_json latency_json(std::vector<std::int64_t> v) {
  std::sort(v.begin(), v.end());
  return {{"count", v.size()},
          {"p50_us", static_cast<double>(percentile(v, 50)) / 1000.0},
          {"p90_us", static_cast<double>(percentile(v, 90)) / 1000.0},
          {"p99_us", static_cast<double>(percentile(v, 99)) / 1000.0},
          {"max_us", static_cast<double>(v.empty() ? 0 : v.back()) / 1000.0}};
}

nlohmann::ordered_json counters_json(const Counters& c) {
  nlohmann::ordered_json packets = nlohmann::ordered_json::object();
  for (const auto& t : kMessageTypes) {
    const std::uint64_t n = c.packets[static_cast<std::size_t>(t.type)];
    if (n != 0) packets[std::string(t.name)] = n;
  }
  nlohmann::ordered_json errors = nlohmann::ordered_json::object();
  for (const auto& [k, v] : c.errors) errors[k] = v;
  return {{"messages", c.messages},
          {"octets_requested", c.octets_requested},
          {"octets_granted", c.octets_granted},
          {"pool_octets_granted", c.pool_granted},
          {"octets_received", c.octets_received},
          {"octets_received_data", c.received_data},
          {"octets_received_msg_done", c.received_done},
          {"grant_latency", latency_json(c.grant_latency_ns)},
          {"reports_received", c.reports},
          {"errors", errors},
          {"packets", packets}};
}

double mean_outstanding(const ReceiverStats& r, std::int64_t end_ns) {
  const double area = r.outstanding_area + static_cast<double>(r.outstanding) *
                                               static_cast<double>(end_ns - r.last_change_ns);
  return end_ns > 0 ? area / static_cast<double>(end_ns) : 0.0;
}

void print_json(const Stats& s) {
  const std::int64_t span = s.summary.last_time_ns - s.summary.first_time_ns;
  nlohmann::ordered_json receivers = nlohmann::ordered_json::array();
  for (const auto& [k, r] : s.receivers) {
    nlohmann::ordered_json assocs = nlohmann::ordered_json::array();
    for (const auto& [ak, a] : r.assocs) {
      nlohmann::ordered_json j{{"association_id", a.association_id},
                               {"epoch", a.epoch},
                               {"sender", a.sender.to_string()}};
      const nlohmann::ordered_json counters = counters_json(a.c);
      for (const auto& [key, v] : counters.items()) j[key] = v;
      assocs.push_back(j);
    }
    nlohmann::ordered_json series = nlohmann::ordered_json::array();
    for (const Sample& x : plot::thin_evenly(r.series, 10000)) {
      series.push_back({static_cast<double>(x.t) / 1e9, x.granted, x.received, x.outstanding});
    }
    nlohmann::ordered_json j{{"receiver", r.address.to_string()}};
    const nlohmann::ordered_json counters = counters_json(r.c);
    for (const auto& [key, v] : counters.items()) j[key] = v;
    j["outstanding"] = {{"peak", r.peak},
                        {"peak_time", static_cast<double>(r.peak_ns) / 1e9},
                        {"mean", mean_outstanding(r, span)},
                        {"final", r.outstanding}};
    j["series_columns"] = {"time", "granted", "received", "outstanding"};
    j["series"] = series;
    j["associations"] = assocs;
    receivers.push_back(j);
  }
  const nlohmann::ordered_json out{{"capture",
                                    {{"frames", s.summary.frames},
                                     {"link_type", s.summary.link_type},
                                     {"duration", static_cast<double>(span) / 1e9},
                                     {"rdcc_packets", s.summary.rdcc_packets},
                                     {"malformed_frames", s.summary.malformed_frames},
                                     {"decode_errors", s.summary.decode_errors},
                                     {"nacks", s.summary.nacks},
                                     {"reassembled_packets", s.summary.reassembled_packets},
                                     {"reports_to_senders", s.reports_to_senders}}},
                                   {"receivers", receivers}};
  std::cout << out.dump(2) << '\n';
}

// "MSG_DONE", "data packets", or "1024 from data packets, 2048 from MSG_DONE".
std::string received_source(const Counters& c) {
  if (c.received_data == 0) return "MSG_DONE";
  if (c.received_done == 0) return "data packets";
  return std::to_string(c.received_data) + " from data packets, " +
         std::to_string(c.received_done) + " from MSG_DONE";
}

void print_counters(const Counters& c, const std::string& indent) {
  std::vector<std::int64_t> v = c.grant_latency_ns;
  std::sort(v.begin(), v.end());
  std::cout << indent << "messages " << c.messages << ", octets requested " << c.octets_requested
            << ", granted " << c.octets_granted;
  if (c.pool_granted != 0) std::cout << " (+" << c.pool_granted << " in pool grants)";
  std::cout << ", received " << c.octets_received << " (" << received_source(c) << ")\n";
  std::cout << indent << "grant latency (request to first grant): ";
  if (v.empty()) {
    std::cout << "none\n";
  } else {
    std::cout << "n=" << v.size() << " p50=" << micros(percentile(v, 50))
              << " p90=" << micros(percentile(v, 90)) << " p99=" << micros(percentile(v, 99))
              << " max=" << micros(v.back()) << '\n';
  }
  std::cout << indent << "reports received " << c.reports << ", errors ";
  if (c.errors.empty()) std::cout << "0";
  bool first = true;
  for (const auto& [k, n] : c.errors) {
    std::cout << (first ? "" : ", ") << k << " " << n;
    first = false;
  }
  std::cout << '\n' << indent << "packets:";
  for (const auto& t : kMessageTypes) {
    const std::uint64_t n = c.packets[static_cast<std::size_t>(t.type)];
    if (n != 0) std::cout << ' ' << t.name << ' ' << n;
  }
  std::cout << '\n';
}

void print_table(const Stats& s, const std::string& file) {
  const std::int64_t span = s.summary.last_time_ns - s.summary.first_time_ns;
  std::cout << file << ": " << s.summary.frames << " frames (" << s.summary.link_type << "), "
            << format_seconds(span) << " s, " << s.summary.rdcc_packets << " RDCC packets, "
            << s.summary.decode_errors << " decode errors, " << s.summary.malformed_frames
            << " malformed frames, " << s.summary.nacks << " data NACKs, " << s.reports_to_senders
            << " reports to senders\n";
  for (const auto& [k, r] : s.receivers) {
    std::cout << "\nreceiver " << r.address.to_string() << '\n';
    print_counters(r.c, "  ");
    char mean[32];
    std::snprintf(mean, sizeof mean, "%.0f", mean_outstanding(r, span));
    std::cout << "  credit outstanding: peak " << r.peak << " at " << format_seconds(r.peak_ns)
              << " s, time-weighted mean " << mean << ", at the end " << r.outstanding << '\n';
    for (const auto& [ak, a] : r.assocs) {
      char id[16];
      std::snprintf(id, sizeof id, "0x%x", a.association_id);
      std::cout << "  association " << id << " epoch " << a.epoch << ", sender "
                << a.sender.to_string() << '\n';
      print_counters(a.c, "    ");
    }
  }
}

// Per receiver a panel of the octets granted and received (cumulative) and one of the credit
// outstanding; restarts (a new epoch), CRN reports and ERRORs marked across them (plot.hpp).
plot::Figure figure(const Stats& s, const std::string& file, std::optional<std::uint64_t> budget) {
  plot::Figure f;
  f.title = "rdcc pcap stats: " + file;
  f.end_ns = std::max<std::int64_t>(1, s.summary.last_time_ns - s.summary.first_time_ns);
  for (const auto& entry : s.receivers) {
    const ReceiverStats& r = entry.second;
    plot::Series granted{"granted", "#1f77b4", {{0, 0}}, true};
    plot::Series received{std::string("received (") +
                              (r.c.received_data == 0   ? "MSG_DONE"
                               : r.c.received_done == 0 ? "data packets"
                                                        : "data packets and MSG_DONE") +
                              ")",
                          "#2ca02c",
                          {{0, 0}},
                          true};
    plot::Series outstanding{"credit outstanding", "#ff7f0e", {{0, 0}}, true};
    for (const Sample& x : r.series) {
      granted.points.push_back({x.t, static_cast<double>(x.granted)});
      received.points.push_back({x.t, static_cast<double>(x.received)});
      outstanding.points.push_back({x.t, static_cast<double>(x.outstanding)});
    }
    const std::string who = "receiver " + r.address.to_string();
    f.panels.push_back({who + ": credit granted and received (cumulative)",
                        plot::Unit::Octets,
                        {granted, received},
                        {}});
    std::vector<plot::Level> levels;
    if (budget) levels.push_back({static_cast<double>(*budget), "G", "#d62728"});
    f.panels.push_back({who + ": credit outstanding" + (budget ? " against G" : ""),
                        plot::Unit::Octets,
                        {outstanding},
                        levels});
  }
  // Goodput per sender: octets known to have arrived (data packets, else MSG_DONE), the ten
  // senders that delivered most and the rest together.
  std::map<std::string, std::vector<plot::Point>> by_sender;
  for (const auto& entry : s.receivers) {
    for (const auto& assoc : entry.second.assocs) {
      auto& v = by_sender["sender " + assoc.second.sender.to_string()];
      v.insert(v.end(), assoc.second.delivered.begin(), assoc.second.delivered.end());
    }
  }
  plot::Panel goodput = plot::goodput_panel(
      "goodput per sender (octets received: data packets, else MSG_DONE)", by_sender, f.end_ns, 50);
  if (!goodput.series.empty()) f.panels.push_back(std::move(goodput));
  f.markers = s.markers;
  return f;
}

// rdcc pcap stats --html: the capture's and each receiver's figures in tables, and the plot.
std::vector<plot::Table> tables(const Stats& s) {
  const std::int64_t span = s.summary.last_time_ns - s.summary.first_time_ns;
  std::vector<plot::Table> out;
  out.push_back(
      {"Capture",
       {"frames", "link type", "duration", "RDCC packets", "decode errors", "malformed frames",
        "reports to senders"},
       {{std::to_string(s.summary.frames), s.summary.link_type,
         plot::duration(static_cast<double>(span)), std::to_string(s.summary.rdcc_packets),
         std::to_string(s.summary.decode_errors), std::to_string(s.summary.malformed_frames),
         std::to_string(s.reports_to_senders)}}});
  plot::Table rx{"Receivers",
                 {"receiver", "associations", "messages", "requested", "granted", "received",
                  "peak outstanding", "mean outstanding", "reports", "errors"},
                 {}};
  for (const auto& entry : s.receivers) {
    const ReceiverStats& r = entry.second;
    std::uint64_t errors = 0;
    for (const auto& e : r.c.errors) errors += e.second;
    rx.rows.push_back(
        {r.address.to_string(), std::to_string(r.assocs.size()), std::to_string(r.c.messages),
         plot::octets(static_cast<double>(r.c.octets_requested)),
         plot::octets(static_cast<double>(r.c.octets_granted + r.c.pool_granted)),
         plot::octets(static_cast<double>(r.c.octets_received)),
         plot::octets(static_cast<double>(r.peak)), plot::octets(mean_outstanding(r, span)),
         std::to_string(r.c.reports), std::to_string(errors)});
  }
  out.push_back(rx);
  return out;
}

int run_stats(const StatsOptions& o) {
  std::optional<std::uint64_t> budget;
  if (!o.budget.empty()) {
    budget = parse_octets(o.budget);
    if (!budget) {
      throw CLI::ValidationError("--budget", "'" + o.budget +
                                                 "' is not a number of octets (e.g. 4194304, "
                                                 "4MiB, 256KiB)");
    }
  }
  Stats s;
  Roles roles(o.capture.port);
  DataPackets data(o.data_port, o.rocev2_port, std::nullopt);
  data.set_framing(data_framing_of(o.data_framing));
  ScanHandlers h;
  h.packet = [&](const RdccPacket& p) {
    if (p.decoded) on_message(s, roles, data, p, *p.decoded);
  };
  if (o.data_port || o.rocev2_port != 0) {
    h.other_udp = [&](const CapturedFrame& f, const ParsedFrame& u) {
      if (!data.reads(u)) return;
      const DataPackets::Read d = data.read(f, u);
      if (d.kind == DataPackets::Read::Kind::Message) on_data(s, d, f.relative_ns);
    };
  }
  CaptureOptions capture = o.capture;
  capture.data_port = o.data_port;
  s.summary = scan_capture(capture, h);
  if (o.json) {
    print_json(s);
  } else {
    print_table(s, capture_name(o.capture));
  }
  try {
    if (!o.svg.empty()) plot::write_svg(figure(s, capture_name(o.capture), budget), o.svg);
    if (!o.html.empty()) {
      plot::write_html("rdcc pcap stats: " + capture_name(o.capture), tables(s),
                       figure(s, capture_name(o.capture), budget), o.html);
    }
  } catch (const std::runtime_error& e) {
    throw FileError(e.what());
  }
  return 0;
}

}  // namespace

void add_pcap_stats_command(CLI::App& pcap) {
  auto o = std::make_shared<StatsOptions>();
  auto* cmd = pcap.add_subcommand(
      "stats",
      "Per receiver and per association: messages, octets requested and granted, "
      "grant latency, credit outstanding, reports, errors");
  add_capture_options(*cmd, o->capture);
  cmd->add_flag("--json", o->json, "One JSON document instead of the table");
  cmd->add_option("--svg", o->svg,
                  "Also write an SVG plot of granted and received credit, credit "
                  "outstanding per receiver and goodput per sender over time to "
                  "FILE");
  cmd->add_option("--html", o->html,
                  "Also write a self-contained page (nothing loaded from the "
                  "network) with the figures and the plot to FILE");
  cmd->add_option("-G,--budget", o->budget,
                  "The receivers' credit budget G (4194304, 4MiB, "
                  "256KiB): the plots draw it against the credit "
                  "outstanding");
  cmd->add_option("--data-port", o->data_port,
                  "The UDP port of the opaque data transport (docs/data-transport.md): received "
                  "octets are counted from its packets; no default")
      ->check(CLI::Range(1, 65535));
  add_data_framing_option(*cmd, o->data_framing);
  cmd->add_option("--rocev2-port", o->rocev2_port,
                  "The UDP port of RoCEv2 data, counted likewise (default 4791; 0: not read)")
      ->check(CLI::Range(0, 65535));
  cmd->callback([o] {
    require_port_or_heuristic(o->capture, "rdcc pcap stats");
    run_pcap_command("stats", [o] { return run_stats(*o); });
  });
}

}  // namespace rdcc::tools
