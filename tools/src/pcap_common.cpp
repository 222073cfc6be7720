// The shared part of `rdcc pcap` (pcap_common.hpp).
#include "pcap_common.hpp"

#include <charconv>
#include <vector>

#include "input.hpp"
#include "rdcc/reference/bindings.hpp"

namespace rdcc::tools {

void add_capture_options(CLI::App& cmd, CaptureOptions& opts) {
  cmd.add_option("file", opts.file,
                 "The capture (pcap or pcapng); '-' reads standard input as it arrives "
                 "(dumpcap -w - | rdcc pcap check -)")
      ->required();
  cmd.add_option("-p,--port", opts.port,
                 "The RDCC UDP port (required unless --heuristic: the spec forbids a default)")
      ->check(CLI::Range(1, 65535));
  cmd.add_flag("--heuristic", opts.heuristic,
               "Find RDCC datagrams on any UDP port by their form instead of by port");
}

void require_port_or_heuristic(const CaptureOptions& opts, const std::string& command) {
  if (!opts.port && !opts.heuristic) {
    throw CLI::ValidationError(
        command,
        "give the RDCC port with --port N, or --heuristic: the spec forbids a default "
        "port (\"Implementations MUST NOT assume a default port value\", Port "
        "Configuration)");
  }
  if (opts.port && opts.heuristic) {
    throw CLI::ValidationError(command, "give --port or --heuristic, not both");
  }
}

bool looks_like_rdcc(std::span<const std::byte> payload) noexcept {
  if (payload.size() < kHeaderSize) return false;
  const auto octet = [&](std::size_t i) { return std::to_integer<std::uint8_t>(payload[i]); };
  if ((octet(0) >> 4) != kVersion) return false;
  const MessageTypeInfo* type = find_message_type(octet(1));
  if (type == nullptr) return false;
  const std::size_t length = (static_cast<std::size_t>(octet(2)) << 8) | octet(3);
  if (length != payload.size() || length < type->size) return false;
  if (type->type == MessageType::CongestionReport) {
    const std::uint8_t af = octet(30);
    if (af == 4) return length == kCongestionReportSizeIpv4;
    if (af == 6) return length == kCongestionReportSizeIpv6;
    return false;
  }
  return length == type->size;
}

bool is_data_nack(std::span<const std::byte> payload) noexcept {
  const auto packet = ref::decode_opaque(payload);
  return packet && (packet->header.flags & ref::opaque_flag::kNack) != 0;
}

namespace {

// `nack`: is_data_nack(f.payload), which the caller counts too. A receiver's NACK goes to the
// sender's RDCC address (docs/data-transport.md, "The NACK packet"): data transport, not an
// RDCC message of Version 5.
bool is_rdcc(const CaptureOptions& opts, const ParsedFrame& f, bool nack) {
  if (nack) return false;
  if (opts.data_port && f.destination.port == *opts.data_port &&
      !(opts.port && *opts.port == *opts.data_port)) {
    return false;
  }
  return opts.port ? (f.source.port == *opts.port || f.destination.port == *opts.port)
                   : looks_like_rdcc(f.payload);
}

// A frame the capture's snap length cut (captures often keep only the headers of data
// packets): read again filled up with zeros to its length on the wire, and handed to
// other_udp if it is UDP but not RDCC. An RDCC datagram cut so stays a malformed frame.
bool cut_data(const CapturedFrame& frame, int link_type, const CaptureOptions& opts,
              const ScanHandlers& handlers, ScanSummary& summary) {
  std::vector<std::byte> whole;
  const ParsedFrame parsed = wire::parse_zero_filled(frame, link_type, whole);
  if (!parsed.zero_filled) return false;
  const bool nack = is_data_nack(parsed.payload);
  if (is_rdcc(opts, parsed, nack) || (!handlers.other_udp && !nack)) return false;
  if (nack) ++summary.nacks;
  if (handlers.other_udp) handlers.other_udp(frame, parsed);
  return true;
}

// Packets the reassembler gave up on, as malformed frames named by their first fragment.
void report_dropped(wire::Reassembler& reassembler, const ScanHandlers& handlers,
                    ScanSummary& summary) {
  for (const auto& d : reassembler.take_dropped()) {
    ++summary.malformed_frames;
    if (!handlers.malformed) continue;
    const std::string what = "IP fragments of frames " + std::to_string(d.first_frame) + "-" +
                             std::to_string(d.last_frame) + " not reassembled: " + d.why;
    CapturedFrame first;
    first.number = d.first_frame;
    first.time_ns = d.first_time_ns;
    first.relative_ns = d.first_time_ns - summary.first_time_ns;
    ParsedFrame parsed;
    parsed.kind = FrameKind::Malformed;
    parsed.what = what;
    handlers.malformed(first, parsed);
  }
}

}  // namespace

ScanSummary scan_capture(const CaptureOptions& opts, const ScanHandlers& handlers) {
  CaptureReader reader;
  std::string error;
  if (!reader.open(opts.file, error)) throw FileError(error);
  ScanSummary summary;
  summary.link_type = link_type_name(reader.link_type());
  wire::Reassembler reassembler;
  CapturedFrame frame;
  // One UDP datagram of the capture (of a frame, or reassembled from fragments).
  const auto udp = [&](const ParsedFrame& parsed) {
    const bool nack = is_data_nack(parsed.payload);
    if (!is_rdcc(opts, parsed, nack)) {
      if (nack) ++summary.nacks;
      if (handlers.other_udp) handlers.other_udp(frame, parsed);
      return;
    }
    ++summary.rdcc_packets;
    const auto decoded = decode(parsed.payload);
    if (!decoded) ++summary.decode_errors;
    if (handlers.packet) handlers.packet(RdccPacket{frame, parsed, decoded});
  };
  while (reader.next(frame, error)) {
    ++summary.frames;
    if (summary.frames == 1) summary.first_time_ns = frame.time_ns;
    summary.last_time_ns = frame.time_ns;
    const ParsedFrame parsed = parse_frame(frame.data, reader.link_type());
    if (parsed.kind == FrameKind::Fragment) {
      // The datagram is handled with the frame of its last fragment, read from the whole
      // packet (its frame offsets are the packet's).
      const auto packet = reassembler.add(parsed, frame.number, frame.time_ns);
      report_dropped(reassembler, handlers, summary);
      if (!packet) continue;
      ++summary.reassembled_packets;
      const ParsedFrame whole = parse_frame(*packet, wire::kLinkTypeRawIp);
      if (whole.kind == FrameKind::Udp) udp(whole);
      continue;
    }
    if (parsed.kind == FrameKind::Malformed && parsed.snap_cut &&
        cut_data(frame, reader.link_type(), opts, handlers, summary)) {
      continue;
    }
    if (parsed.kind == FrameKind::Malformed) {
      ++summary.malformed_frames;
      if (handlers.malformed) handlers.malformed(frame, parsed);
      continue;
    }
    if (parsed.kind == FrameKind::Udp) udp(parsed);
  }
  reassembler.finish();
  report_dropped(reassembler, handlers, summary);
  if (!error.empty()) throw FileError(error);
  return summary;
}

void append_seconds(std::string& out, std::int64_t ns) {
  const bool negative = ns < 0;
  const std::uint64_t v =
      negative ? static_cast<std::uint64_t>(-ns) : static_cast<std::uint64_t>(ns);
  if (negative) out += '-';
  char text[24];
  const char* end = std::to_chars(text, text + sizeof text, v / 1000000000U).ptr;
  out.append(text, static_cast<std::size_t>(end - text));
  out += '.';
  end = std::to_chars(text, text + sizeof text, v % 1000000000U).ptr;
  out.append(9 - static_cast<std::size_t>(end - text), '0');  // nine digits, zero-padded
  out.append(text, static_cast<std::size_t>(end - text));
}

std::string format_seconds(std::int64_t ns) {
  std::string out;
  append_seconds(out, ns);
  return out;
}

std::optional<Roles::Sides> Roles::sides(const Message& m, const ref::Address& from,
                                         const ref::Address& to) {
  bool from_receiver = false;
  switch (info(type_of(m)).originator) {
    case Originator::Crn: return std::nullopt;
    case Originator::Sender: from_receiver = false; break;
    case Originator::Receiver: from_receiver = true; break;
    case Originator::SenderOrReceiver:
    case Originator::Any:
      // From a known receiver; else from the receiver unless it goes to a known receiver or
      // from another port to the receivers' port. (ERROR comes from receivers far more often; a
      // sender's CANCEL to an unknown peer is told apart by the port.)
      from_receiver = is_receiver(from) ||
                      !(is_receiver(to) || (port_ && to.port == *port_ && from.port != *port_));
      break;
  }
  Sides s{from_receiver ? from : to, from_receiver ? to : from, from_receiver};
  const AddrKey k = key_of(s.receiver);
  if (!(last_receiver_ && *last_receiver_ == k)) {  // consecutive messages share receivers
    receivers_.insert(k);
    last_receiver_ = k;
  }
  return s;
}

}  // namespace rdcc::tools

namespace rdcc::tools {

void add_data_framing_option(CLI::App& cmd, std::string& file) {
  cmd.add_option("--data-framing", file,
                 "JSON file describing the opaque data transport's header, where it is not the "
                 "project's (docs/data-transport.md, \"A vendor's framing\")");
}

ref::DataFraming data_framing_of(const std::string& file) {
  if (file.empty()) return {};
  try {
    return load_data_framing(file);
  } catch (const ref::FramingError& e) {
    throw CLI::ValidationError("--data-framing", e.what());
  }
}

}  // namespace rdcc::tools
