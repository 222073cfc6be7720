// Writes the seed corpora (corpus/<target>/) and the dictionary (rdcc.dict) from the codec's
// test vectors and tables, so that both are reproducible and cannot drift from the codec:
//
//   fuzz_make_seeds write <fuzz-dir>   regenerate (cmake --build <build> --target fuzz_seeds)
//   fuzz_make_seeds check <fuzz-dir>   exit 1 if what is committed differs (a ctest test)
//
// Seeds: every boundary vector and appendix encoding; every decode error in each form the
// decoder tells apart; octets between a type's size and Length and after Length; JSON with
// registry names, flag lists, "0x" strings and RoCEv2 objects, and every JSON error; hex text
// with each separator and every hex error; cursor programs for fuzz_bytes.
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
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
#include "rdcc/testing/vectors.hpp"

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

Files generated() {
  Files files;
  const auto wire = datagrams();
  for (const auto& [name, o] : wire) files["corpus/fuzz_decode/" + name] = as_text(o);
  for (const auto& [name, doc] : json_documents())
    files["corpus/fuzz_json/" + name + ".json"] = doc;
  for (const auto& [name, text] : hex_texts(wire))
    files["corpus/fuzz_text/" + name + ".hex"] = text;
  // fuzz_bytes reads its input as cursor operations: every operation once, and a message.
  Octets every_operation;
  for (unsigned op = 0; op < 256; ++op) every_operation.push_back(static_cast<std::byte>(op));
  files["corpus/fuzz_bytes/every_operation"] = as_text(every_operation);
  files["corpus/fuzz_bytes/appendix_credit_request"] = as_text(wire.at("appendix_credit_request"));
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
  const Files files = generated();
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
