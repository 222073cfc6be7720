// rdcc-dissector-check: compares what tshark printed (`tshark -T json --no-duplicate-keys`)
// with what the codec decodes from the same capture, so that the dissectors are held to the
// codec's reading of every field, and to an independent statement of where expert info and
// request/grant/done links belong.
//
//   rdcc-dissector-check compare PCAP TSHARK_JSON   fields, expert info and links per frame;
//                                                   no RDCC layer on any other frame
//   rdcc-dissector-check agree JSON_A JSON_B        two dissectors' RDCC layers, item for item
//   rdcc-dissector-check claims PCAP TSHARK_JSON [--none]
//                                                   a heuristic-only run claimed exactly the
//                                                   frames that are whole RDCC messages (with
//                                                   --none: and there are none)
//
// Exit status 0 when everything matches, 1 with one line per difference, 2 on bad usage or
// unreadable input.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "rdcc/codec/codec.hpp"
#include "rdcc/codec/json.hpp"
#include "rdcc/codec/rocev2.hpp"
#include "rdcc/codec/serial.hpp"
#include "rdcc/wire/frame.hpp"
#include "rdcc/wire/pcap.hpp"

namespace rdcc::dissector_check {
namespace {

using json = nlohmann::ordered_json;

// The RDCC layer of one frame as tshark printed it: (name, value) in document order.
using Items = std::vector<std::pair<std::string, std::string>>;

void flatten(const json& node, Items& out) {
  for (const auto& entry : node.items()) {
    const std::string& key = entry.key();
    const json& value = entry.value();
    auto one = [&](const json& v) {
      if (v.is_string()) {
        out.emplace_back(key, v.get<std::string>());
      } else if (v.is_object()) {
        flatten(v, out);
      }
    };
    if (value.is_array()) {
      for (const auto& v : value) one(v);
    } else {
      one(value);
    }
  }
}

// One entry per frame; nullopt where tshark found no RDCC layer.
std::vector<std::optional<Items>> read_tshark(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  json doc;
  try {
    doc = json::parse(in);
  } catch (const json::parse_error& e) {
    throw std::runtime_error(path + " is not tshark's JSON: " + e.what());
  }
  if (!doc.is_array()) throw std::runtime_error(path + ": expected a JSON array of packets");
  std::vector<std::optional<Items>> frames;
  for (const auto& packet : doc) {
    const auto layers = packet.value("/_source/layers"_json_pointer, json::object());
    const auto it = layers.find("rdcc");
    if (it == layers.end()) {
      frames.emplace_back(std::nullopt);
      continue;
    }
    if (!it->is_object()) throw std::runtime_error(path + ": more than one RDCC layer in a frame");
    Items items;
    flatten(*it, items);
    frames.emplace_back(std::move(items));
  }
  return frames;
}

// The RDCC port the tests configure in tshark (tshark_test.sh): a frame to or from it is RDCC.
constexpr std::uint16_t kRdccPort = 50000;

// One UDP datagram of a capture, as far as the capture holds it.
struct UdpDatagram {
  wire::Address src;
  wire::Address dst;
  std::vector<std::byte> payload;  // the captured part of the UDP payload
  bool truncated = false;          // the snap length cut the payload
};

struct Frame {
  std::int64_t time_us = 0;
  UdpDatagram datagram;
  std::optional<Message> message;  // nullopt: the codec rejects the datagram
  std::optional<DecodeError> error;

  // A whole RDCC message: what the heuristic must claim, and nothing else.
  [[nodiscard]] bool whole() const {
    return message && !datagram.truncated && header_of(*message).length == datagram.payload.size();
  }
  // What a dissector must show as RDCC with the RDCC port set: the port's traffic, and whole
  // RDCC messages elsewhere (the heuristic). Data packets (the opaque transport, RoCEv2) and
  // other UDP are not RDCC.
  [[nodiscard]] bool rdcc() const {
    return datagram.src.port == kRdccPort || datagram.dst.port == kRdccPort || whole();
  }
};

std::vector<Frame> read_frames(const std::string& path) {
  std::vector<Frame> frames;
  wire::CaptureReader reader;
  std::string error;
  if (!reader.open(path, error)) throw std::runtime_error(error);
  wire::CapturedFrame captured;
  std::vector<std::byte> filled;
  while (reader.next(captured, error)) {
    Frame f;
    f.time_us = captured.time_ns / 1000;
    const wire::ParsedFrame p = wire::parse_zero_filled(captured, reader.link_type(), filled);
    if (p.kind != wire::FrameKind::Udp) {
      throw std::runtime_error(path + " frame " + std::to_string(captured.number) + ": " +
                               (p.kind == wire::FrameKind::Other ? "not UDP over IPv4 or IPv6"
                                                                 : wire::describe_malformed(p)));
    }
    f.datagram.src = p.source;
    f.datagram.dst = p.destination;
    // A frame read zero-filled: only the octets before the cut are the datagram's.
    const std::size_t kept =
        p.zero_filled
            ? std::min(p.payload.size(),
                       captured.data.size() - std::min(p.payload_offset, captured.data.size()))
            : p.payload.size();
    f.datagram.payload.assign(p.payload.begin(),
                              p.payload.begin() + static_cast<std::ptrdiff_t>(kept));
    f.datagram.truncated = kept < p.payload.size();
    auto decoded = decode(f.datagram.payload);
    if (decoded) {
      f.message = *decoded;
    } else {
      f.error = decoded.error();
    }
    frames.push_back(std::move(f));
  }
  if (!error.empty()) throw std::runtime_error(error);
  return frames;
}

std::string endpoint_key(const wire::Address& e) {
  return e.to_string();
}

std::optional<std::uint64_t> parse_number(const std::string& text) {
  try {
    std::size_t used = 0;
    const bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
    const auto v = std::stoull(hex ? text.substr(2) : text, &used, hex ? 16 : 10);
    if (used != text.size() - (hex ? 2 : 0)) return std::nullopt;
    return v;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::string seconds(std::int64_t micros) {
  char text[32];
  std::snprintf(text, sizeof text, "%lld.%09lld", static_cast<long long>(micros / 1000000),
                static_cast<long long>((micros % 1000000) * 1000));
  return text;
}

std::uint64_t message_id_of(const Message& m) {
  if (const auto* r = std::get_if<CreditRequest>(&m)) return r->message_id;
  if (const auto* g = std::get_if<CreditGrant>(&m)) return g->pool() ? 0 : g->message_id;
  if (const auto* d = std::get_if<MsgDone>(&m)) return d->message_id;
  return 0;
}

// The generated fields and expert info one frame must carry, from the whole capture.
struct Expectation {
  std::multiset<std::string> experts;
  std::map<std::string, std::string> generated;  // rdcc.request_in -> "4", ...
};

// The expert info named after a decode error is the codec's own name for it.
std::string expert_for(DecodeErrorCode code) {
  return std::string(to_string(code));
}

// Stateless findings: reserved bits, suspicious values, unregistered registry values, octets
// beyond the body or after Length.
struct ValueFindings {
  std::multiset<std::string>& out;
  template <class T>
  void operator()(const FieldSpec& f, const T& v) {
    if (f.unit == Unit::Reserved && v != 0) out.insert("reserved_nonzero");
    if (f.unit == Unit::Enum && name_of(f.names, static_cast<std::uint32_t>(v)).empty())
      out.insert("unregistered_value");
  }
  void address(const FieldSpec&, const IpAddress&, std::size_t) {}
};

void stateless_findings(const Frame& f, std::multiset<std::string>& out) {
  const Message& m = *f.message;
  const Header& h = header_of(m);
  if (h.rsv != 0) out.insert("reserved_nonzero");
  if ((h.flags & ~defined_flags(type_of(m))) != 0) out.insert("undefined_flags");
  std::visit(
      [&out](const auto& body) {
        ValueFindings v{out};
        std::decay_t<decltype(body)>::describe(body, v);
      },
      m);
  if (const auto* r = std::get_if<CreditRequest>(&m)) {
    if (r->message_id == 0) out.insert("message_id_zero");
    if (r->traffic_class > kMaxTrafficClass) out.insert("class_above_7");
    if (r->weight == 0) out.insert("weight_zero");
  }
  if (const auto* g = std::get_if<CreditGrant>(&m)) {
    if (g->pool() && g->message_id != 0) out.insert("pool_message_id");
    if (!g->pool() && g->message_id == 0) out.insert("message_id_zero");
    if (g->pacing_rate == 0) out.insert("pacing_rate_zero");
  }
  if (h.length > defined_size(m)) out.insert("extension_octets");
  if (f.datagram.payload.size() > h.length) out.insert("trailing_octets");
}

bool sequence_exempt(const Message& m) {
  const auto t = type_of(m);
  if (t == MessageType::AssocRequest || t == MessageType::AssocAccept ||
      t == MessageType::CongestionReport) {
    return true;
  }
  const auto* e = std::get_if<ErrorMessage>(&m);
  return e != nullptr && e->reason == static_cast<std::uint16_t>(ReasonCode::UnknownAssociation);
}

std::vector<Expectation> expectations(const std::vector<Frame>& frames) {
  struct Links {
    std::size_t request = 0, grant = 0, done = 0;  // frame numbers, 0 = none
  };
  auto message_key = [&](const Frame& f, const Message& m) {
    auto a = endpoint_key(f.datagram.src), b = endpoint_key(f.datagram.dst);
    if (b < a) std::swap(a, b);
    return a + " " + b + " " + std::to_string(header_of(m).association_id) + " " +
           std::to_string(message_id_of(m));
  };
  std::map<std::string, Links> links;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    const auto& f = frames[i];
    if (!f.rdcc() || !f.message || message_id_of(*f.message) == 0) continue;
    auto& l = links[message_key(f, *f.message)];
    const auto t = type_of(*f.message);
    std::size_t& slot = t == MessageType::CreditRequest ? l.request
                        : t == MessageType::CreditGrant ? l.grant
                                                        : l.done;
    if (slot == 0) slot = i + 1;
  }

  std::vector<Expectation> out(frames.size());
  std::map<std::string, std::uint32_t> newest;
  std::map<std::string, std::uint64_t> requested_length;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    const auto& f = frames[i];
    auto& e = out[i];
    const std::size_t number = i + 1;
    if (!f.rdcc()) continue;
    if (!f.message) {
      e.experts.insert(expert_for(f.error->code));
      continue;
    }
    const Message& m = *f.message;
    const Header& h = header_of(m);
    stateless_findings(f, e.experts);

    if (!sequence_exempt(m)) {
      const auto key = endpoint_key(f.datagram.src) + " " + endpoint_key(f.datagram.dst) + " " +
                       std::to_string(h.association_id) + " " + std::to_string(h.epoch);
      const auto it = newest.find(key);
      if (it == newest.end() || serial_newer(h.sequence_number, it->second)) {
        newest[key] = h.sequence_number;
      } else {
        e.experts.insert("sequence_not_newer");
      }
    }
    if (message_id_of(m) == 0) continue;
    const auto key = message_key(f, m);
    const Links& l = links[key];
    if (const auto* r = std::get_if<CreditRequest>(&m)) {
      requested_length[key] = r->message_length;
      if (l.grant != 0) e.generated["rdcc.grant_in"] = std::to_string(l.grant);
      if (l.done != 0) e.generated["rdcc.done_in"] = std::to_string(l.done);
      if (l.request == number && l.grant > number) {
        e.generated["rdcc.grant_delay"] =
            seconds(frames[l.grant - 1].time_us - frames[l.request - 1].time_us);
      }
      continue;
    }
    if (const auto* g = std::get_if<CreditGrant>(&m)) {
      const auto it = requested_length.find(key);
      if (it != requested_length.end()) {
        if (g->grant_limit > it->second) {
          e.experts.insert("grant_beyond_length");
        } else if (g->final() && g->grant_limit < it->second) {
          e.experts.insert("final_below_length");
        } else if (!g->final() && g->grant_limit == it->second) {
          e.experts.insert("final_missing");
        }
      }
    }
    if (l.request == 0 || l.request >= number) continue;
    e.generated["rdcc.request_in"] = std::to_string(l.request);
    if (type_of(m) == MessageType::MsgDone && l.grant != 0 && l.grant < number) {
      e.generated["rdcc.grant_in"] = std::to_string(l.grant);
    }
    e.generated["rdcc.time_since_request"] = seconds(f.time_us - frames[l.request - 1].time_us);
  }
  return out;
}

class Report {
 public:
  explicit Report(std::string file) : file_(std::move(file)) {}
  void diff(std::size_t frame, const std::string& what) {
    std::cout << file_ << " frame " << frame << ": " << what << '\n';
    ++differences_;
  }
  [[nodiscard]] int finish(const std::string& summary) const {
    if (differences_ == 0) {
      std::cout << file_ << ": OK, " << summary << '\n';
      return 0;
    }
    std::cout << file_ << ": " << differences_ << " difference(s)\n";
    return 1;
  }

 private:
  std::string file_;
  std::size_t differences_ = 0;
};

// Items that are neither a codec field nor compared elsewhere: generated links and the octets
// outside the defined body.
const std::set<std::string> kGenerated{"rdcc.request_in", "rdcc.grant_in", "rdcc.done_in",
                                       "rdcc.grant_delay", "rdcc.time_since_request"};
const std::set<std::string> kNotCodecFields{"rdcc.extension", "rdcc.trailing"};

// Bit fields and the RoCEv2 subfields, as the codec reads the value they belong to.
std::map<std::string, std::uint64_t> expected_subfields(const Message& m) {
  std::map<std::string, std::uint64_t> sub;
  const Header& h = header_of(m);
  for (const auto& fl : kMessageFlags) {
    if (fl.type != type_of(m)) continue;
    std::string name(fl.name);
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    sub["rdcc.flags." + name] = (h.flags & fl.bit) != 0 ? 1 : 0;
  }
  std::uint32_t caps = 0;
  bool has_caps = false;
  if (const auto* a = std::get_if<AssocRequest>(&m)) caps = a->capabilities, has_caps = true;
  if (const auto* a = std::get_if<AssocAccept>(&m)) caps = a->capabilities, has_caps = true;
  if (has_caps) {
    sub["rdcc.capabilities.pool"] = (caps & capability::kPool) != 0 ? 1 : 0;
    sub["rdcc.capabilities.status"] = (caps & capability::kStatus) != 0 ? 1 : 0;
    sub["rdcc.capabilities.crn"] = (caps & capability::kCrn) != 0 ? 1 : 0;
  }
  if (const auto* r = std::get_if<CreditRequest>(&m);
      r && r->binding_kind == static_cast<std::uint8_t>(BindingKind::RoCEv2)) {
    const auto b = unpack_rocev2(r->binding_value);
    sub["rdcc.binding_value.destination_qpn"] = b.destination_qpn;
    sub["rdcc.binding_value.first_msn"] = b.first_msn;
    sub["rdcc.binding_value.message_count"] = b.message_count;
  }
  return sub;
}

std::optional<std::uint64_t> parse_flag(const std::string& v) {
  if (v == "True" || v == "true") return 1;
  if (v == "False" || v == "false") return 0;
  return parse_number(v);
}

// The dissectors' name for a codec JSON key: the report's addresses have one field per address
// family (rdcc.source_address_ipv4 / _ipv6), so that a display filter is typed.
std::string dissector_key(const Message& m, const std::string& key) {
  const auto* r = std::get_if<CongestionReport>(&m);
  if (r == nullptr || (key != "source_address" && key != "destination_address")) return key;
  return key + (r->address_family == 6 ? "_ipv6" : "_ipv4");
}

void compare_fields(Report& report, std::size_t number, const Message& m, const Items& items,
                    std::size_t& compared) {
  const json codec = to_json(m);
  std::map<std::string, std::vector<std::string>> seen;
  for (const auto& [k, v] : items) {
    if (k.rfind("rdcc.", 0) == 0 && k.rfind("rdcc.expert.", 0) != 0) seen[k].push_back(v);
  }
  for (const auto& [key, value] : codec.items()) {
    const std::string name = "rdcc." + dissector_key(m, key);
    const auto it = seen.find(name);
    if (it == seen.end()) {
      report.diff(number, name + " is missing (codec: " + value.dump() + ")");
      continue;
    }
    if (it->second.size() != 1) {
      report.diff(number, name + " appears " + std::to_string(it->second.size()) + " times");
    }
    const std::string& actual = it->second.front();
    ++compared;
    if (key == "type") {
      const auto t = message_type_from_name(value.get<std::string>());
      const auto a = parse_number(actual);
      if (!t || !a || *a != static_cast<std::uint64_t>(*t)) {
        report.diff(number, std::string(name)
                                .append(": tshark '")
                                .append(actual)
                                .append("', codec ")
                                .append(value.dump()));
      }
    } else if (value.is_string()) {
      if (actual != value.get<std::string>()) {
        report.diff(number, std::string(name)
                                .append(": tshark '")
                                .append(actual)
                                .append("', codec ")
                                .append(value.dump()));
      }
    } else if (value.is_number_unsigned()) {
      const auto a = parse_number(actual);
      if (!a || *a != value.get<std::uint64_t>()) {
        report.diff(number, std::string(name)
                                .append(": tshark '")
                                .append(actual)
                                .append("', codec ")
                                .append(value.dump()));
      }
    } else {
      report.diff(number, name + ": codec value " + value.dump() + " has no tshark form");
    }
  }
  const auto sub = expected_subfields(m);
  for (const auto& [name, values] : seen) {
    const std::string key = name.substr(5);
    if (key.find('.') != std::string::npos) {
      const auto it = sub.find(name);
      if (it == sub.end()) {
        report.diff(number, "unexpected subfield " + name);
      } else if (parse_flag(values.front()) != it->second) {
        report.diff(number, name + ": tshark '" + values.front() + "', codec " +
                                std::to_string(it->second));
      }
      ++compared;
      continue;
    }
    bool codec_field = false;
    for (const auto& c : codec.items())
      codec_field = codec_field || dissector_key(m, c.key()) == key;
    if (!codec_field && kGenerated.count(name) == 0 && kNotCodecFields.count(name) == 0) {
      report.diff(number, "unexpected field " + name + " = '" + values.front() + "'");
    }
  }
  for (const auto& [name, value] : sub) {
    if (seen.count(name) == 0) report.diff(number, name + " is missing");
  }
}

std::string join(const std::multiset<std::string>& s) {
  std::string out;
  for (const auto& x : s) out += (out.empty() ? "" : ",") + x;
  return out.empty() ? "(none)" : out;
}

int compare(const std::string& pcap, const std::string& tshark_json) {
  const auto frames = read_frames(pcap);
  const auto layers = read_tshark(tshark_json);
  Report report(pcap);
  if (layers.size() != frames.size()) {
    report.diff(0, "tshark printed " + std::to_string(layers.size()) + " frames, the pcap has " +
                       std::to_string(frames.size()));
    return report.finish("");
  }
  const auto expected = expectations(frames);
  std::size_t fields = 0, experts = 0, links = 0, other = 0;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    const std::size_t number = i + 1;
    if (!frames[i].rdcc()) {
      ++other;
      if (layers[i]) report.diff(number, "an RDCC layer on a frame that is not RDCC");
      continue;
    }
    if (!layers[i]) {
      report.diff(number, "no RDCC layer");
      continue;
    }
    const Items& items = *layers[i];
    std::multiset<std::string> actual_experts;
    std::map<std::string, std::string> actual_generated;
    for (const auto& [k, v] : items) {
      if (k.rfind("rdcc.expert.", 0) == 0) actual_experts.insert(k.substr(12));
      if (kGenerated.count(k) != 0) actual_generated[k] = v;
    }
    if (actual_experts != expected[i].experts) {
      report.diff(number, "expert info: tshark " + join(actual_experts) + ", expected " +
                              join(expected[i].experts));
    }
    experts += expected[i].experts.size();
    if (actual_generated != expected[i].generated) {
      std::string a, e;
      for (const auto& [k, v] : actual_generated) a.append(" ").append(k).append("=").append(v);
      for (const auto& [k, v] : expected[i].generated)
        e.append(" ").append(k).append("=").append(v);
      report.diff(number, "links: tshark" + (a.empty() ? " (none)" : a) + ", expected" +
                              (e.empty() ? " (none)" : e));
    }
    links += expected[i].generated.size();
    if (frames[i].message) compare_fields(report, number, *frames[i].message, items, fields);
  }
  return report.finish(std::to_string(frames.size()) + " frames (" + std::to_string(other) +
                       " not RDCC), " + std::to_string(fields) + " fields, " +
                       std::to_string(experts) + " expert infos, " + std::to_string(links) +
                       " links");
}

int agree(const std::string& a_path, const std::string& b_path) {
  const auto a = read_tshark(a_path);
  const auto b = read_tshark(b_path);
  Report report(a_path + " vs " + b_path);
  if (a.size() != b.size()) {
    report.diff(0, std::to_string(a.size()) + " frames against " + std::to_string(b.size()));
    return report.finish("");
  }
  std::size_t items = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].has_value() != b[i].has_value()) {
      report.diff(i + 1,
                  a[i] ? "only the first has an RDCC layer" : "only the second has an RDCC layer");
      continue;
    }
    if (!a[i]) continue;
    const Items& x = *a[i];
    const Items& y = *b[i];
    for (std::size_t k = 0; k < std::max(x.size(), y.size()); ++k) {
      if (k >= x.size() || k >= y.size() || x[k] != y[k]) {
        auto show = [](const Items& it, std::size_t n) {
          return n < it.size() ? it[n].first + " = '" + it[n].second + "'" : "(end)";
        };
        report.diff(i + 1,
                    "item " + std::to_string(k + 1) + ": " + show(x, k) + " against " + show(y, k));
        break;
      }
    }
    items += x.size();
  }
  return report.finish(std::to_string(a.size()) + " frames, " + std::to_string(items) +
                       " items identical");
}

int claims(const std::string& pcap, const std::string& tshark_json, bool none) {
  const auto frames = read_frames(pcap);
  const auto layers = read_tshark(tshark_json);
  Report report(pcap + " (heuristic)");
  if (layers.size() != frames.size()) {
    report.diff(0, "tshark printed " + std::to_string(layers.size()) + " frames, the pcap has " +
                       std::to_string(frames.size()));
    return report.finish("");
  }
  std::size_t claimed = 0, whole = 0;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    const auto& f = frames[i];
    const bool is_whole = f.whole();
    if (is_whole) ++whole;
    if (layers[i]) ++claimed;
    if (none && is_whole) report.diff(i + 1, "is a whole RDCC message in an ordinary capture");
    if (is_whole && !layers[i]) report.diff(i + 1, "a whole RDCC message was not claimed");
    if (!is_whole && layers[i]) report.diff(i + 1, "claimed, but it is not a whole RDCC message");
  }
  return report.finish("claimed " + std::to_string(claimed) + " of " +
                       std::to_string(frames.size()) + " frames (" + std::to_string(whole) +
                       " whole RDCC messages)");
}

int run(const std::vector<std::string>& args) {
  if (args.size() == 3 && args[0] == "compare") return compare(args[1], args[2]);
  if (args.size() == 3 && args[0] == "agree") return agree(args[1], args[2]);
  if ((args.size() == 3 || (args.size() == 4 && args[3] == "--none")) && args[0] == "claims") {
    return claims(args[1], args[2], args.size() == 4);
  }
  std::cerr << "usage: rdcc-dissector-check compare PCAP TSHARK_JSON\n"
               "       rdcc-dissector-check agree JSON_A JSON_B\n"
               "       rdcc-dissector-check claims PCAP TSHARK_JSON [--none]\n";
  return 2;
}

}  // namespace
}  // namespace rdcc::dissector_check

int main(int argc, char** argv) {
  try {
    return rdcc::dissector_check::run(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const std::exception& e) {
    std::cerr << "rdcc-dissector-check: " << e.what() << '\n';
    return 2;
  }
}
