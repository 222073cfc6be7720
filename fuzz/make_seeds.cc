// Writes the seed corpora (corpus/<target>/) and the dictionary (rdcc.dict) from the codec's
// test vectors and tables, so that both are reproducible and cannot drift from the codec:
//
//   fuzz_make_seeds write <fuzz-dir>   regenerate (cmake --build <build> --target fuzz_seeds)
//   fuzz_make_seeds check <fuzz-dir>   exit 1 if what is committed differs (a ctest test)
//
// Seeds: every boundary vector and appendix encoding; every decode error in each form the
// decoder tells apart; octets between a type's size and Length and after Length; JSON with
// registry names, flag lists, "0x" strings and RoCEv2 objects, and every JSON error; hex text
// with each separator and every hex error; cursor programs for fuzz_bytes; the boundary numbers
// of the JSON number writers for fuzz_json_number; the frames of the
// golden captures (pcaps/*.pcap, read with wire's reader) for fuzz_pcap, in each link
// type, and their UDP payloads for fuzz_decode; and one step program per scenario the
// reference tests exercise for fuzz_receiver and fuzz_sender (rdcc/testing/steps.hpp).
#include <bit>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "rdcc/codec/codec.hpp"
#include "rdcc/codec/hex.hpp"
#include "rdcc/codec/json.hpp"
#include "rdcc/testing/steps.hpp"
#include "rdcc/testing/vectors.hpp"
#include "rdcc/wire/pcap.hpp"

namespace {

using Octets = std::vector<std::byte>;
using Files = std::map<std::string, std::string>;  // path below fuzz/ -> content

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "fuzz_make_seeds: %s\n", what.c_str());
  std::exit(1);
}

Octets encoded(const rdcc::Message& m) {
  Octets out(rdcc::encoded_size(m));
  const auto written = rdcc::encode(m, out);
  if (!written) die("a test vector does not encode: " + written.error().describe());
  return out;
}

Octets octets(std::initializer_list<unsigned> values) {
  Octets o;
  for (const unsigned v : values) o.push_back(static_cast<std::byte>(v));
  return o;
}

std::string as_text(const Octets& o) {
  std::string s;
  for (const auto b : o) s += static_cast<char>(std::to_integer<unsigned char>(b));
  return s;
}

void set_u16(Octets& o, std::size_t offset, std::size_t value) {
  o[offset] = static_cast<std::byte>(value >> 8U);
  o[offset + 1] = static_cast<std::byte>(value & 0xFFU);
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Octets with Length set to `length` and the datagram resized to `size` (new octets `fill`).
Octets with_length(Octets o, std::size_t length, std::size_t size, unsigned fill = 0) {
  o.resize(size, static_cast<std::byte>(fill));
  set_u16(o, 2, length);
  return o;
}

// Datagrams for fuzz_decode: each vector, and each decode outcome the decoder tells apart.
std::map<std::string, Octets> datagrams() {
  std::map<std::string, Octets> out;
  std::map<rdcc::MessageType, Octets> typical;
  for (const auto& v : rdcc::testing::boundary_vectors()) {
    out[v.name] = encoded(v.message);
    typical.emplace(rdcc::type_of(v.message), out[v.name]);
  }
  out["truncated_empty"] = {};
  out["truncated_type"] = octets({0x10});
  out["truncated_length_2_octets"] = octets({0x10, 0x04});
  out["truncated_length_3_octets"] = octets({0x1F, 0x0A, 0x00});
  out["bad_version_2_1_octet"] = octets({0x20});
  out["unknown_type_0_2_octets"] = octets({0x10, 0x00});
  out["unknown_type_11_2_octets"] = octets({0x10, 0x0B});
  const Octets grant = encoded(rdcc::testing::appendix_credit_grant());
  Octets unknown = grant;
  unknown[1] = std::byte{0xFF};  // with a whole header, which the error keeps
  out["unknown_type_255_with_header"] = unknown;
  for (const unsigned version : {0U, 2U, 15U}) {
    Octets bad = grant;
    bad[0] = static_cast<std::byte>(version << 4U);
    out["bad_version_" + std::to_string(version) + "_with_header"] = bad;
  }
  for (const auto& [type, wire] : typical) {
    const std::string name = lower(rdcc::info(type).name);
    const std::size_t size = wire.size();
    out[name + "_length_too_small"] = with_length(wire, size - 1, size);
    out[name + "_length_beyond_datagram"] = with_length(wire, size + 1, size);
    out[name + "_header_only"] = with_length(wire, size, rdcc::kHeaderSize);
    // Octets between the type's size and Length (re-encoded as zero), then octets after it.
    Octets extended = with_length(wire, size + 4, size + 4, 0xAA);
    extended.resize(size + 8, std::byte{0xBB});
    out[name + "_extended_and_trailing"] = extended;
  }
  const Octets report = typical.at(rdcc::MessageType::CongestionReport);
  constexpr std::size_t kAf = 30;
  for (const unsigned af : {0U, 5U, 255U}) {
    Octets bad = report;
    bad[kAf] = static_cast<std::byte>(af);
    out["congestion_report_bad_address_family_" + std::to_string(af)] = bad;
  }
  Octets ipv6_short = with_length(report, 48, 72);
  ipv6_short[kAf] = std::byte{6};
  out["congestion_report_ipv6_with_length_48"] = ipv6_short;
  out["congestion_report_ipv6_with_length_71"] = with_length(ipv6_short, 71, 72);
  out["congestion_report_ipv6_length_beyond_datagram"] = with_length(ipv6_short, 72, 71);
  out["congestion_report_ipv4_with_length_72"] = with_length(report, 72, 72, 0xCC);
  return out;
}

// JSON for fuzz_json: to_json of each vector, the input forms from_json accepts besides the
// raw numbers, and one document per JSON error.
std::map<std::string, std::string> json_documents() {
  std::map<std::string, std::string> out;
  for (const auto& v : rdcc::testing::boundary_vectors())
    out[v.name] = rdcc::to_json(v.message).dump();
  out["form_names_and_strings"] =
      R"({"type":"credit_grant","flags":["POOL","FINAL"],"message_id":"0x101",)"
      R"("grant_limit":"262144","pacing_rate":100000,"lifetime":"0X7D0"})";
  out["form_type_number"] = R"({"type":7,"message_id":5,"octets_received":2048})";
  out["form_type_string_number"] = R"({"type":"0x0a","reason":"unknown_association"})";
  out["form_capability_list"] =
      R"({"type":"ASSOC_ACCEPT","flags":["PARAMETER_UPDATE"],"capabilities":["POOL","STATUS","CRN",8]})";
  out["form_flag_number_in_list"] =
      R"({"type":"ASSOC_REQUEST","flags":["UPDATE_ACKNOWLEDGMENT",256]})";
  out["form_rocev2_object"] =
      R"({"type":"CREDIT_REQUEST","binding_kind":"ROCEV2","service_hint":"LATENCY_SENSITIVE",)"
      R"("binding_value":{"destination_qpn":291,"first_msn":5,"message_count":16}})";
  out["form_ipv6_report"] =
      R"({"type":"CONGESTION_REPORT","address_family":"IPV6","direction":"TO_SENDER",)"
      R"("source_address":"2001:db8::1","destination_address":"2001:db8::2"})";
  out["form_ipv4_report_null_address"] =
      R"({"type":"CONGESTION_REPORT","address_family":4,"source_address":null,"destination_address":"192.0.2.1"})";
  out["form_longer_length"] = R"({"type":"SENDER_STATUS","length":100,"reserved":1})";
  out["form_short_length"] = R"({"type":"MSG_DONE","length":20})";
  out["form_version_2"] = R"({"type":"CANCEL","version":2,"rsv":15,"reason":"APPLICATION_ABORT"})";
  out["form_report_without_layout"] = R"({"type":"CONGESTION_REPORT","address_family":5})";
  out["error_not_json"] = R"({"type":)";
  out["error_not_an_object"] = R"([{"type":"MSG_DONE"}])";
  out["error_type_missing"] = R"({"message_id":1})";
  out["error_type_unknown_name"] = R"({"type":"CREDIT_LOAN"})";
  out["error_type_zero"] = R"({"type":0})";
  out["error_type_eleven"] = R"({"type":11})";
  out["error_type_too_large"] = R"({"type":256})";
  out["error_unknown_key"] = R"({"type":"MSG_DONE","octets_recieved":1})";
  out["error_negative"] = R"({"type":"MSG_DONE","message_id":-1})";
  out["error_fraction"] = R"({"type":"MSG_DONE","message_id":1.5})";
  out["error_bad_decimal_text"] = R"({"type":"MSG_DONE","message_id":"12z"})";
  out["error_bad_hex_text"] = R"({"type":"MSG_DONE","message_id":"0xzz"})";
  out["error_bare_0x"] = R"({"type":"MSG_DONE","message_id":"0x"})";
  out["error_boolean"] = R"({"type":"MSG_DONE","message_id":true})";
  out["error_header_too_large"] = R"({"type":"MSG_DONE","epoch":65536})";
  out["error_version_too_large"] = R"({"type":"MSG_DONE","version":16})";
  out["error_header_bad_value"] = R"({"type":"MSG_DONE","sequence_number":"x"})";
  out["error_body_too_large"] = R"({"type":"CANCEL","reason":65536})";
  out["error_unknown_reason"] = R"({"type":"ERROR","reason":"NOT_A_REASON"})";
  out["error_unknown_name_no_table"] = R"({"type":"SENDER_STATUS","reserved":"x"})";
  out["error_unknown_flag"] = R"({"type":"CREDIT_GRANT","flags":["POOL","NOPE"]})";
  out["error_unknown_capability"] = R"({"type":"ASSOC_REQUEST","capabilities":["POOL",-1]})";
  out["error_rocev2_unknown_key"] = R"({"type":"CREDIT_REQUEST","binding_value":{"qpn":1}})";
  out["error_rocev2_too_large"] =
      R"({"type":"CREDIT_REQUEST","binding_value":{"first_msn":16777216}})";
  out["error_rocev2_bad_value"] =
      R"({"type":"CREDIT_REQUEST","binding_value":{"message_count":"x"}})";
  out["error_address_without_layout"] =
      R"({"type":"CONGESTION_REPORT","address_family":5,"source_address":"192.0.2.1"})";
  out["error_address_wrong_family"] = R"({"type":"CONGESTION_REPORT","source_address":"::1"})";
  out["error_address_not_text"] =
      R"({"type":"CONGESTION_REPORT","address_family":6,"destination_address":5})";
  return out;
}

// Hex text for fuzz_text: each datagram in the forms parse_hex accepts, and each hex error.
std::map<std::string, std::string> hex_texts(const std::map<std::string, Octets>& wire) {
  std::map<std::string, std::string> out;
  for (const auto& v : rdcc::testing::boundary_vectors()) {
    out[v.name] = rdcc::to_hex(encoded(v.message)) + "\n";
  }
  for (const auto& [name, o] : wire) {
    if (name.find("length") != std::string::npos || name.find("bad_") != std::string::npos ||
        name.find("unknown") != std::string::npos || name.find("truncated") != std::string::npos) {
      out["decode_" + name] = rdcc::to_hex(o, ":");
    }
  }
  const Octets grant = encoded(rdcc::testing::appendix_credit_grant());
  out["form_0x_no_separator"] = "0x" + rdcc::to_hex(grant, "");
  out["form_dashes_tabs_newlines"] = "\t" + rdcc::to_hex(grant, "-") + "\r\n";
  // A rate the detailed form writes in Tbit/s.
  const rdcc::SenderStatus tbit{.header = {.association_id = 1, .epoch = 1},
                                .congestion_level = 255,
                                .suggested_rate = 1600000};
  out["form_rate_in_tbit"] = rdcc::to_hex(encoded(tbit));
  out["form_uppercase"] =
      "10 0A 00 1C 00 00 00 01 00 01 00 00 00 00 00 00 FF F0 00 01 00 00 00 00 00 00 00 03";
  out["error_lone_digit"] = "10 0";
  out["error_lone_digit_at_end"] = "1";
  out["error_bad_first_digit"] = "10 zz";
  out["error_bad_second_digit"] = "1g 04";
  out["error_bare_0x"] = "0x";
  return out;
}

// "\x10\x04"-style escaping for the dictionary.
std::string dict_value(std::string_view raw) {
  std::string out;
  char hex[8];
  for (const char c : raw) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u >= 0x20 && u < 0x7F) {
      out += c;
    } else {
      std::snprintf(hex, sizeof hex, "\\x%02x", u);
      out += hex;
    }
  }
  return out;
}

std::string be(std::uint64_t v, std::size_t octets_wide) {
  std::string out;
  for (std::size_t i = octets_wide; i-- > 0;) out += static_cast<char>((v >> (8U * i)) & 0xFFU);
  return out;
}

// Collects the JSON keys and registry names of a message type's field list.
struct FieldNames {
  std::set<std::string> keys;
  std::set<std::string> names;
  template <class T>
  void operator()(const rdcc::FieldSpec& f, const T&) {
    keys.emplace(f.name);
    for (const auto& n : f.names) names.emplace(n.name);
  }
  void address(const rdcc::FieldSpec& f, const rdcc::IpAddress&, std::size_t) {
    keys.emplace(f.name);
  }
};

// rdcc.dict: the wire's type codes, versions, lengths, flags, capability bits, reason codes
// and boundary integers, and the JSON mapping's keys and registry names, from the tables.
std::string dictionary() {
  std::map<std::string, std::string> entries;  // value -> name; the first name wins
  const auto add = [&entries](const std::string& name, const std::string& raw) {
    entries.emplace(raw, name);
  };
  add("version_1", be(std::uint64_t{rdcc::kVersion} << 4U, 1));
  add("version_0", be(0x00, 1));
  add("version_15_rsv_15", be(0xFF, 1));
  for (const auto& t : rdcc::kMessageTypes) {
    const std::string name = lower(t.name);
    add("type_" + name, be(0x1000U | static_cast<unsigned>(t.type), 2));
    add("length_" + std::to_string(t.size), be(t.size, 2));
    add("length_" + std::to_string(t.max_size), be(t.max_size, 2));
    add("json_type_" + name, "\"" + std::string(t.name) + "\"");
  }
  for (const auto& f : rdcc::kMessageFlags) add("flag_" + lower(f.name), be(f.bit, 2));
  for (const auto& c : rdcc::kCapabilities) add("capability_" + lower(c.name), be(c.value, 4));
  for (const auto& r : rdcc::kReasonCodes) add("reason_" + lower(r.name), be(r.value, 2));
  for (const auto& a : rdcc::kAddressFamilies)
    add("address_family_" + lower(a.name), be(a.value, 1));
  for (const auto& [bits, value] :
       std::initializer_list<std::pair<unsigned, std::uint64_t>>{{8, 0xFF},
                                                                 {16, 0xFFFF},
                                                                 {16, 0x8000},
                                                                 {32, 0xFFFFFFFF},
                                                                 {32, 0x80000000},
                                                                 {32, 0x7FFFFFFF},
                                                                 {64, ~std::uint64_t{0}},
                                                                 {64, std::uint64_t{1} << 63U}}) {
    char name[40];
    std::snprintf(name, sizeof name, "u%u_0x%llx", bits, static_cast<unsigned long long>(value));
    add(name, be(value, bits / 8));
  }
  FieldNames fields;
  for (const auto& v : rdcc::testing::boundary_vectors()) {
    std::visit(
        [&fields](const auto& body) { std::decay_t<decltype(body)>::describe(body, fields); },
        v.message);
    const auto j = rdcc::to_json(v.message);
    for (const auto& [key, value] : j.items()) fields.keys.insert(key);
  }
  // The sub-keys of a RoCEv2 binding_value object (json.hpp).
  for (const char* key : {"destination_qpn", "first_msn", "message_count"})
    fields.keys.emplace(key);
  for (const auto& key : fields.keys) add("json_key_" + key, "\"" + key + "\"");
  for (const auto& name : fields.names) add("json_name_" + lower(name), "\"" + name + "\"");
  add("json_hex_prefix", "\"0x");
  std::map<std::string, std::string> by_name;
  for (const auto& [raw, name] : entries) by_name.emplace(name, raw);
  std::string out =
      "# libFuzzer dictionary for the RDCC harnesses. Generated from the codec's tables by\n"
      "# fuzz/make_seeds.cc: do not edit; regenerate with `cmake --build <build> --target "
      "fuzz_seeds`.\n";
  for (const auto& [name, raw] : by_name) out += name + "=\"" + dict_value(raw) + "\"\n";
  return out;
}

// ---- golden captures -------------------------------------------------------------------

struct CaptureSeeds {
  std::map<std::string, Octets> frames;    // fuzz_pcap
  std::map<std::string, Octets> payloads;  // fuzz_decode: RDCC datagrams not already seeded
};

// Every frame of the golden captures (at most 24 of one file), and the IP packet of each
// appendix frame under the other link types parse_frame() reads.
CaptureSeeds capture_seeds(const std::filesystem::path& pcaps,
                           const std::map<std::string, Octets>& datagrams) {
  CaptureSeeds out;
  std::set<Octets> seen;
  for (const auto& [name, o] : datagrams) seen.insert(o);
  for (const char* file : {"appendix_exchange", "boundary", "malformed", "ordinary_udp"}) {
    rdcc::wire::CaptureReader reader;
    std::string error;
    if (!reader.open((pcaps / (std::string(file) + ".pcap")).string(), error)) die(error);
    rdcc::wire::CapturedFrame frame;
    while (reader.next(frame, error) && frame.number <= 24) {
      const std::string name = std::string(file) + "_" + std::to_string(frame.number);
      const Octets bytes(frame.data.begin(), frame.data.end());
      out.frames["ethernet_" + name] = bytes;
      const auto parsed = rdcc::wire::parse_frame(frame.data, reader.link_type());
      if (parsed.kind == rdcc::wire::FrameKind::Udp &&
          seen.insert(Octets(parsed.payload.begin(), parsed.payload.end())).second) {
        out.payloads["pcap_" + name] = Octets(parsed.payload.begin(), parsed.payload.end());
      }
      if (std::string_view(file) != "appendix_exchange" || bytes.size() <= 14) continue;
      const Octets ip(bytes.begin() + 14, bytes.end());
      const bool v6 = (std::to_integer<unsigned>(ip[0]) >> 4U) == 6;
      const unsigned ethertype = v6 ? 0x86DD : 0x0800;
      out.frames["raw_" + name] = ip;
      Octets sll(16, std::byte{0});  // Linux cooked v1: protocol in the last two octets
      sll[14] = static_cast<std::byte>(ethertype >> 8U);
      sll[15] = static_cast<std::byte>(ethertype & 0xFFU);
      sll.insert(sll.end(), ip.begin(), ip.end());
      out.frames["sll_" + name] = sll;
      Octets sll2(20, std::byte{0});  // v2: protocol first
      sll2[0] = sll[14];
      sll2[1] = sll[15];
      sll2.insert(sll2.end(), ip.begin(), ip.end());
      out.frames["sll2_" + name] = sll2;
      Octets null = octets({v6 ? 30U : 2U, 0, 0, 0});  // BSD loopback, little-endian family
      null.insert(null.end(), ip.begin(), ip.end());
      out.frames["null_" + name] = null;
    }
    if (!error.empty()) die(error);
  }
  return out;
}

// ---- step programs for the stateful harnesses ---------------------------------------------

// Operands as steps.hpp reads them. A body field takes one selector: for a Message ID or a
// nonce, an index into the run's vocabulary; for octets, an index into the octet vocabulary;
// rates and durations index small tables (FieldFiller). The header selector 0x2E / 0x2B picks
// the peer's Association ID and Epoch and its next Sequence Number; its top two bits are flags.
using Steps = rdcc::testing::StepWriter;
using Rx = rdcc::testing::ReceiverHarness;
using Tx = rdcc::testing::SenderHarness;

std::string program(const Steps& w) {
  std::string s;
  for (const auto b : w.octets()) s += static_cast<char>(b);
  return s;
}

// Receiver octet vocabulary: 0, 1, 1024, 2048, U=8192, 4096, 8192, 32768, G=65536, 1 MiB.
constexpr std::uint8_t kRxLen4096 = 5, kRxLen32768 = 7;
constexpr std::uint8_t kRxHeader = 0x2E;       // association, Epoch, next Sequence Number
constexpr std::uint8_t kRxAssocHeader = 0x25;  // ASSOC_REQUEST: zeros, next Sequence Number

Steps& rx_associate(Steps& w, std::uint8_t peer, std::uint8_t nonce) {
  // ASSOC_REQUEST: nonce, capabilities POOL|STATUS, line rate 100000, four reserved words.
  return w.op(Rx::kDatagram, {peer, 0, nonce, 0x03, 5, 0, 0, 0, 0, kRxAssocHeader});
}
// CREDIT_REQUEST: id, length, unscheduled, class 2, weight 4, LATENCY_SENSITIVE, opaque,
// no deadline, binding value (the harness sets it to the Message ID).
Steps& rx_request(Steps& w, std::uint8_t peer, std::uint8_t id, std::uint8_t length,
                  std::uint8_t unscheduled, std::uint8_t header = kRxHeader) {
  return w.op(Rx::kDatagram, {peer, 2, id, length, unscheduled, 2, 4, 1, 2, 0, 0, header});
}
// Opaque data of message `id`: offset and octets as big-endian 16-bit operands (offset / 64).
Steps& rx_data(Steps& w, std::uint8_t peer, std::uint8_t id, unsigned offset, unsigned octets) {
  return w.op(Rx::kData,
              {peer, id, static_cast<std::uint8_t>(offset / 64 >> 8U),
               static_cast<std::uint8_t>(offset / 64 & 0xFFU),
               static_cast<std::uint8_t>(octets >> 8U), static_cast<std::uint8_t>(octets & 0xFFU)});
}
Steps& rx_time(Steps& w, std::uint8_t a, std::uint8_t shift) {
  return w.op(Rx::kTime, {a, shift});
}

std::map<std::string, std::string> receiver_programs() {
  std::map<std::string, std::string> out;
  {  // association + request + grants + data + MSG_DONE (grant window 4096: a grant per chunk)
    Steps w(0);
    rx_associate(w, 0, 0);
    rx_request(w, 0, 1, kRxLen32768, 0);
    for (unsigned o = 0; o < 32768; o += 4096) rx_data(w, 0, 1, o, 4096);
    rx_time(w, 0, 20);
    out["scheduled_request_grant_data_done"] = program(w);
  }
  {  // unscheduled: the window is announced, the data arrives, MSG_DONE; then one is lost
    Steps w(0);
    rx_associate(w, 1, 0);
    rx_request(w, 1, 1, kRxLen4096, kRxLen4096);
    rx_data(w, 1, 1, 0, 4096);
    rx_request(w, 1, 2, kRxLen4096, kRxLen4096);
    rx_time(w, 1, 21);  // J + Lifetime + 2 D_max: the reservation is released
    rx_time(w, 0, 30);  // the circuit breaker's one-second window
    out["unscheduled_window_done_and_lost"] = program(w);
  }
  {  // the sender restarts (a new nonce, a new association) while a message is granted;
     // a request in the old Epoch gets UNKNOWN_ASSOCIATION; reclaim, then idle removal
    Steps w(0);
    rx_associate(w, 0, 0);
    rx_request(w, 0, 1, kRxLen32768, 0);
    rx_data(w, 0, 1, 0, 4096);
    rx_associate(w, 0, 1);
    rx_request(w, 0, 1, kRxLen32768, 0);
    w.op(Rx::kDatagram, {0, 2, 2, kRxLen4096, 0, 0, 1, 0, 2, 0, 0, 0x22, 0x00, 0x07});  // Epoch 7
    rx_time(w, 0, 22);
    rx_time(w, 0xFF, 27);  // beyond the idle time
    out["sender_restart_and_unknown_association"] = program(w);
  }
  {  // two peers of one host, RoCEv2, SENDER_STATUS, CANCEL, CREDIT_RETURN, a CRN's report
    Steps w(16);
    rx_associate(w, 0, 0);
    rx_associate(w, 2, 1);
    w.op(Rx::kDatagram, {0, 2, 3, kRxLen32768, 0, 1, 1, 2, 1, 0, 0, kRxHeader, 5, 2});
    w.op(Rx::kData, {0, 0x0B, 0x10, 0x00});                   // RoCEv2, queue pair 3, 4096 octets
    w.op(Rx::kDatagram, {2, 4, 3, 200, 1, 0, 3, kRxHeader});  // SENDER_STATUS, 1000 Mbit/s
    rx_request(w, 2, 4, kRxLen32768, 0);
    w.op(Rx::kDatagram, {2, 8, 4, kRxLen4096, kRxHeader});  // CREDIT_RETURN
    w.op(Rx::kDatagram, {2, 7, 4, 6, 0, kRxHeader});        // CANCEL
    // CONGESTION_REPORT from the CRN about peer 0's flow.
    w.op(Rx::kDatagram, {3, 5, 1, 2, 3, 200, 1, 0, 17, 0, 0, 0, 0, 0, kRxHeader});
    rx_time(w, 0, 16);
    out["two_peers_rocev2_status_cancel_return_report"] = program(w);
  }
  {  // an unknown Type inside an established association, a bad Version, raw octets
    Steps w(0);
    rx_associate(w, 0, 0);
    w.op(Rx::kCorrupt, {0, 2, 1, kRxLen4096, 0, 0, 1, 0, 2, 0, 0, kRxHeader, 1, 0x0B, 0xFF});
    w.op(Rx::kCorrupt, {0, 2, 1, kRxLen4096, 0, 0, 1, 0, 2, 0, 0, kRxHeader, 0, 0x20, 0xFF});
    w.op(Rx::kRaw, {1, 4, 0x10, 0x03, 0x00, 0x38});
    out["unknown_type_bad_version_raw"] = program(w);
  }
  return out;
}

// Sender octet vocabulary: 0, 1, 1024, 4096, 8192, 65536, then each submitted length and half.
constexpr std::uint8_t kTxLen4096 = 3, kTxLen65536 = 5;
constexpr std::uint8_t kTxHeader = 0x2B;  // the peer's association and Epoch, next Sequence Number

// ASSOC_ACCEPT echoing nonce `nonce`: capabilities, U 8192, J 10 us, N_cu 65536, Lifetime
// 1000 us, Credit Unit 1024.
Steps& tx_accept(Steps& w, std::uint8_t peer, std::uint8_t nonce, std::uint8_t header = kTxHeader,
                 std::uint8_t capabilities = 0x07) {
  return w.op(Tx::kDatagram, {peer, 1, nonce, capabilities, 4, 2, kTxLen65536, 4, 2, header});
}
// CREDIT_GRANT: id, limit, 100000 Mbit/s, default Lifetime; FINAL when asked.
Steps& tx_grant(Steps& w, std::uint8_t peer, std::uint8_t id, std::uint8_t limit, bool final_flag) {
  return w.op(Tx::kDatagram, {peer, 3, id, limit, 5, 0,
                              static_cast<std::uint8_t>(kTxHeader | (final_flag ? 0x80U : 0U))});
}
Steps& tx_done(Steps& w, std::uint8_t peer, std::uint8_t id, std::uint8_t octets) {
  return w.op(Tx::kDatagram, {peer, 6, id, octets, kTxHeader});
}
// submit: receiver, length (index into 0, 1, 100, 1024, 1500, 4096, 8192, 65536, 1 MiB),
// flags (hint, RoCEv2, post units, force scheduled, deadline), class, weight.
Steps& tx_submit(Steps& w, std::uint8_t peer, std::uint8_t length, std::uint8_t flags) {
  return w.op(Tx::kSubmit, {peer, length, flags, 2, 4});
}
Steps& tx_timers(Steps& w, unsigned times) {
  for (unsigned i = 0; i < times; ++i) w.op(Tx::kRunTimers, {15});
  return w;
}

std::map<std::string, std::string> sender_programs() {
  std::map<std::string, std::string> out;
  {  // association + request + grant + data + MSG_DONE
    Steps w(0);
    tx_submit(w, 0, 7, 0x10);  // 65536 octets, scheduled
    tx_accept(w, 0, 0);
    tx_grant(w, 0, 1, kTxLen65536, true);
    tx_timers(w, 5);
    tx_done(w, 0, 1, kTxLen65536);
    out["scheduled_request_grant_data_done"] = program(w);
  }
  {  // unscheduled: jitter, the window, MSG_DONE; a second one waits for it
    Steps w(4);
    tx_submit(w, 0, 5, 0x01);  // 4096 octets, latency-sensitive
    tx_submit(w, 0, 5, 0x00);
    tx_accept(w, 0, 0);
    tx_timers(w, 2);
    tx_done(w, 0, 1, kTxLen4096);
    tx_timers(w, 2);
    out["unscheduled_window_done"] = program(w);
  }
  {  // the receiver restarts: ERROR (UNKNOWN_ASSOCIATION), a new nonce, a new Epoch, the
     // message asked for again under a new Message ID
    Steps w(0);
    tx_submit(w, 0, 7, 0x10);
    tx_accept(w, 0, 0);
    tx_grant(w, 0, 1, 4, false);
    tx_timers(w, 1);
    w.op(Tx::kDatagram, {0, 9, 2, 0, 0, kTxHeader});  // ERROR UNKNOWN_ASSOCIATION
    tx_accept(w, 0, 1, 0x27);                         // echoes the new nonce, Epoch + 1
    tx_grant(w, 0, 2, kTxLen65536, true);
    tx_timers(w, 5);
    tx_done(w, 0, 2, kTxLen65536);
    out["receiver_restart"] = program(w);
  }
  {  // a receiver that never answers: eight attempts, then without RDCC
    Steps w(0);
    tx_submit(w, 1, 6, 0x00);
    tx_timers(w, 2);
    out["no_answer_fallback"] = program(w);
  }
  {  // pool grant over two classes, RoCEv2 post units, a CRN's report stopping an unscheduled
     // message, link pause, CREDIT_RETURN, CANCEL, SENDER_STATUS above the backlog threshold
    Steps w(8);
    tx_submit(w, 0, 7, 0x10);
    w.op(Tx::kSubmit, {0, 7, 0x1C, 0, 1, 1, 3, 5});  // RoCEv2, two post units, class 0
    tx_submit(w, 0, 5, 0x00);
    tx_accept(w, 0, 0);
    w.op(Tx::kDatagram, {0, 3, 0, kTxLen65536, 5, 0, 0x6B});  // pool grant
    tx_timers(w, 1);
    // CONGESTION_REPORT from the CRN: our flow toward receiver 0.
    w.op(Tx::kDatagram, {2, 5, 1, 2, 3, 200, 2, 0, 17, 0, 0, 0, 2, 0, kTxHeader});
    w.op(Tx::kLinkPause, {});
    tx_grant(w, 0, 1, kTxLen65536, true);
    w.op(Tx::kReturnCredit, {0, kTxLen4096});
    w.op(Tx::kCancel, {1});
    tx_timers(w, 3);
    out["pool_report_pause_return_cancel_status"] = program(w);
  }
  return out;
}

// fuzz_json_number reads a double and a count of nanoseconds, 8 octets each, big-endian: the
// boundaries of the writers' forms (zero and its sign, fixed-point against exponent form, 15
// and 17 significant digits, subnormals, not finite; 10^15 ns, where write_json_seconds hands
// over to write_json_double, and the extremes of int64).
std::map<std::string, Octets> json_numbers() {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const std::pair<const char*, std::pair<double, std::int64_t>> values[] = {
      {"zero", {0.0, 0}},
      {"negative_zero", {-0.0, -1}},
      {"one_second", {1.0, 1'000'000'000}},
      {"tenth", {0.1, 100'000'000}},
      {"fixed_limits", {1e-5, 999'999'999'999'999}},
      {"exponent_forms", {1e15, 1'000'000'000'000'000}},
      {"seventeen_digits", {0.30000000000000004, -999'999'999'999'999}},
      {"subnormal", {std::numeric_limits<double>::denorm_min(), 1}},
      {"largest", {std::numeric_limits<double>::max(), std::numeric_limits<std::int64_t>::max()}},
      {"lowest", {std::numeric_limits<double>::lowest(), std::numeric_limits<std::int64_t>::min()}},
      {"not_finite", {kInf, 123'456'789}},
      {"nan", {std::numeric_limits<double>::quiet_NaN(), 1'000'000'000'000'001}},
  };
  std::map<std::string, Octets> out;
  for (const auto& [name, value] : values) {
    Octets o;
    for (const std::uint64_t bits :
         {std::bit_cast<std::uint64_t>(value.first), std::bit_cast<std::uint64_t>(value.second)}) {
      for (int shift = 56; shift >= 0; shift -= 8)
        o.push_back(static_cast<std::byte>(bits >> shift));
    }
    out[name] = o;
  }
  return out;
}

Files generated(const std::filesystem::path& root) {
  Files files;
  const auto wire = datagrams();
  for (const auto& [name, o] : wire) files["corpus/fuzz_decode/" + name] = as_text(o);
  for (const auto& [name, doc] : json_documents())
    files["corpus/fuzz_json/" + name + ".json"] = doc;
  for (const auto& [name, o] : json_numbers())
    files["corpus/fuzz_json_number/" + name] = as_text(o);
  for (const auto& [name, text] : hex_texts(wire))
    files["corpus/fuzz_text/" + name + ".hex"] = text;
  // fuzz_bytes reads its input as cursor operations: every operation once, and a message.
  Octets every_operation;
  for (unsigned op = 0; op < 256; ++op) every_operation.push_back(static_cast<std::byte>(op));
  files["corpus/fuzz_bytes/every_operation"] = as_text(every_operation);
  files["corpus/fuzz_bytes/appendix_credit_request"] = as_text(wire.at("appendix_credit_request"));
  auto fuzz_dir = std::filesystem::absolute(root).lexically_normal();
  if (!fuzz_dir.has_filename()) fuzz_dir = fuzz_dir.parent_path();
  const auto captures = capture_seeds(fuzz_dir.parent_path() / "pcaps", wire);
  for (const auto& [name, o] : captures.frames) files["corpus/fuzz_pcap/" + name] = as_text(o);
  for (const auto& [name, o] : captures.payloads) files["corpus/fuzz_decode/" + name] = as_text(o);
  for (const auto& [name, p] : receiver_programs()) files["corpus/fuzz_receiver/" + name] = p;
  for (const auto& [name, p] : sender_programs()) files["corpus/fuzz_sender/" + name] = p;
  files["rdcc.dict"] = dictionary();
  return files;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The corpus files on disk: every regular file of each corpus/<target>/ generated() names.
std::set<std::string> committed(const std::filesystem::path& root, const Files& files) {
  std::set<std::string> dirs;
  for (const auto& [path, content] : files) {
    const auto dir = std::filesystem::path(path).parent_path();
    if (!dir.empty()) dirs.insert(dir.string());
  }
  std::set<std::string> out;
  for (const auto& dir : dirs) {
    if (!std::filesystem::is_directory(root / dir)) continue;
    for (const auto& entry : std::filesystem::directory_iterator(root / dir)) {
      if (entry.is_regular_file()) out.insert(dir + "/" + entry.path().filename().string());
    }
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 || (std::string_view(argv[1]) != "write" && std::string_view(argv[1]) != "check")) {
    std::fprintf(stderr, "usage: fuzz_make_seeds write|check <fuzz-dir>\n");
    return 2;
  }
  const bool write = std::string_view(argv[1]) == "write";
  const std::filesystem::path root(argv[2]);
  const Files files = generated(root);
  std::size_t stale = 0;
  for (const auto& path : committed(root, files)) {
    if (files.count(path) != 0) continue;
    ++stale;
    if (write) {
      std::filesystem::remove(root / path);
    } else {
      std::fprintf(stderr, "fuzz_make_seeds: %s is not generated any more\n", path.c_str());
    }
  }
  std::size_t differ = 0;
  for (const auto& [path, content] : files) {
    if (std::filesystem::exists(root / path) && read_file(root / path) == content) continue;
    ++differ;
    if (write) {
      std::filesystem::create_directories((root / path).parent_path());
      std::ofstream(root / path, std::ios::binary) << content;
    } else {
      std::fprintf(stderr, "fuzz_make_seeds: %s is missing or differs\n", path.c_str());
    }
  }
  if (write) {
    std::printf("fuzz_make_seeds: %zu files, %zu written, %zu removed\n", files.size(), differ,
                stale);
    return 0;
  }
  if (differ + stale != 0) {
    std::fprintf(stderr,
                 "fuzz_make_seeds: the committed seeds are out of date; regenerate them with "
                 "`cmake --build <build> --target fuzz_seeds`\n");
    return 1;
  }
  std::printf("fuzz_make_seeds: %zu files up to date\n", files.size());
  return 0;
}
