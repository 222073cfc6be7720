// What the `rdcc pcap` subcommands share: the capture options, finding the RDCC datagrams
// of a capture (by port or heuristically), and who is the receiver of a message.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <unordered_set>
#include <utility>

#include "rdcc/codec/codec.hpp"
#include "rdcc/reference/address.hpp"
#include "rdcc/reference/framing.hpp"
#include "rdcc/wire/pcap.hpp"
#include "rdcc/wire/reassembly.hpp"

namespace rdcc::tools {

using wire::CapturedFrame;
using wire::CaptureReader;
using wire::FrameKind;
using wire::link_type_name;
using wire::parse_frame;
using wire::ParsedFrame;

struct CaptureOptions {
  std::string file;
  std::optional<std::uint16_t> port;  // the RDCC port; the spec forbids a default
  bool heuristic = false;
  // The opaque data port, where one is read: a datagram to it is data even when it leaves
  // from the RDCC port (the conformance tester sends data from its RDCC address,
  // docs/spec-notes.md 55), unless the data port is the RDCC port too.
  std::optional<std::uint16_t> data_port;
};

// The capture's name for messages: its path, or "standard input" for "-".
[[nodiscard]] inline std::string capture_name(const CaptureOptions& opts) {
  return opts.file == "-" ? "standard input" : opts.file;
}

// Adds FILE, --port and --heuristic to a subcommand.
void add_capture_options(CLI::App& cmd, CaptureOptions& opts);
// --data-framing FILE of `rdcc pcap check` and `stats` (docs/data-transport.md, "A vendor's
// framing"), and the framing it names: the project's for an empty name; a file that cannot be
// used is bad usage (exit 2), its error naming the file and the field.
void add_data_framing_option(CLI::App& cmd, std::string& file);
[[nodiscard]] ref::DataFraming data_framing_of(const std::string& file);
// Bad usage (exit 2) unless exactly one of --port and --heuristic was given.
void require_port_or_heuristic(const CaptureOptions& opts, const std::string& command);

// The heuristic of --heuristic: version 1, a known type, Length equal to the UDP payload and
// not below the type's size, and for CONGESTION_REPORT an AF of 4 or 6 matching Length.
[[nodiscard]] bool looks_like_rdcc(std::span<const std::byte> payload) noexcept;
// Whether a UDP payload is a NACK of the opaque data transport (docs/data-transport.md, "The
// NACK packet"): a receiver sends it to the sender's RDCC address, and its first octets (the
// Magic 0x52 0x44) tell it from every RDCC message (Version 1).
[[nodiscard]] bool is_data_nack(std::span<const std::byte> payload) noexcept;

// One RDCC datagram of the capture, decoded or not.
struct RdccPacket {
  const CapturedFrame& frame;
  const ParsedFrame& udp;
  const Result<Message, DecodeError>& decoded;
};

struct ScanHandlers {
  std::function<void(const RdccPacket&)> packet;
  // A UDP datagram that is not RDCC (data packets, other traffic); optional. One the snap
  // length cut comes filled up with zeros to its length on the wire (zero_filled).
  std::function<void(const CapturedFrame&, const ParsedFrame&)> other_udp;
  // A frame that could not be read (link, IP or UDP layer).
  std::function<void(const CapturedFrame&, const ParsedFrame&)> malformed;
};

struct ScanSummary {
  std::uint64_t frames = 0;
  std::uint64_t rdcc_packets = 0;
  std::uint64_t malformed_frames = 0;
  std::uint64_t decode_errors = 0;
  std::uint64_t nacks = 0;  // the opaque data transport's NACKs (on the RDCC port, not RDCC)
  std::uint64_t reassembled_packets = 0;  // IP packets put together from fragments
  std::int64_t first_time_ns = 0;
  std::int64_t last_time_ns = 0;
  std::string link_type;
};

// Reads the whole capture, calling the handlers in frame order. IPv4 and IPv6 fragments are
// reassembled (wire::Reassembler): the datagram is handled with the frame of the fragment that
// completed it; packets given up on are malformed frames named by their first fragment, handed
// over when they are given up (incomplete ones at the end of the capture). Throws FileError if the
// file cannot be opened or is damaged (the frames before the damage have been handled).
struct FileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
ScanSummary scan_capture(const CaptureOptions& opts, const ScanHandlers& handlers);

// Seconds, as "12.000123456".
[[nodiscard]] std::string format_seconds(std::int64_t ns);

// Appends "12.000123456" to `out` (format_seconds without a temporary string).
void append_seconds(std::string& out, std::int64_t ns);

// An address as a key: ordered as (family, IP, port), and hashed (ref::AddressKeyHash).
using AddrKey = ref::AddressKey;
using ref::key_of;

// A hash for keys made of AddrKeys, numbers, and pairs and tuples of them (the unordered maps
// of `check`). Not noexcept, so that the containers keep each node's hash (AddressKeyHash).
struct KeyHash {
  template <class T>
  [[nodiscard]] std::size_t operator()(const T& key) const {
    return static_cast<std::size_t>(mix(0, key));
  }

 private:
  static std::uint64_t mix(std::uint64_t h, const AddrKey& k) noexcept {
    return ref::hash_mix(h, k);
  }
  template <class T>
  requires std::is_integral_v<T>
  static std::uint64_t mix(std::uint64_t h, T v) noexcept {
    return ref::hash_mix(h, static_cast<std::uint64_t>(v));
  }
  template <class A, class B>
  static std::uint64_t mix(std::uint64_t h, const std::pair<A, B>& k) noexcept {
    return mix(mix(h, k.first), k.second);
  }
  template <class... T>
  static std::uint64_t mix(std::uint64_t h, const std::tuple<T...>& k) noexcept {
    std::apply([&h](const auto&... v) { ((h = mix(h, v)), ...); }, k);
    return h;
  }
};

// Who is the receiver of a message seen on the wire. Types the spec gives one direction
// (RDCC Message Types) decide; CANCEL and ERROR go by what is already known of the two
// addresses, then by the RDCC port. CONGESTION_REPORT has no association: nullopt.
class Roles {
 public:
  explicit Roles(std::optional<std::uint16_t> port) : port_(port) {}
  // {receiver, sender}, and whether the message travels from the receiver.
  struct Sides {
    ref::Address receiver;
    ref::Address sender;
    bool from_receiver = false;
  };
  [[nodiscard]] std::optional<Sides> sides(const Message& m, const ref::Address& from,
                                           const ref::Address& to);
  [[nodiscard]] bool is_receiver(const ref::Address& a) const {
    return receivers_.count(key_of(a)) != 0;
  }

 private:
  std::optional<std::uint16_t> port_;
  std::unordered_set<AddrKey, ref::AddressKeyHash> receivers_;
  std::optional<AddrKey> last_receiver_;  // the one inserted last
};

}  // namespace rdcc::tools
