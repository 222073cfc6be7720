// rdcc pcap dump: every RDCC datagram of a capture, one line (or one JSON object) each.
#include <charconv>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <string_view>

#include "commands.hpp"
#include "input.hpp"
#include "pcap_commands.hpp"
#include "pcap_common.hpp"
#include "rdcc/codec/format.hpp"
#include "rdcc/codec/json.hpp"

namespace rdcc::tools {
namespace {

struct DumpOptions {
  CaptureOptions capture;
  bool json = false;
  std::string association;
  std::string message;
  std::string type;
};

struct Filters {
  std::optional<std::uint32_t> association;
  std::optional<std::uint64_t> message;
  std::optional<MessageType> type;

  [[nodiscard]] bool pass(const Message& m) const {
    if (type && type_of(m) != *type) return false;
    if (association && header_of(m).association_id != *association) return false;
    if (message) {
      const auto id = message_id_of(m);
      if (!id || *id != *message) return false;
    }
    return true;
  }
};

Filters parse_filters(const DumpOptions& o) {
  Filters f;
  if (!o.association.empty()) {
    const auto v = parse_number(o.association);
    if (!v || *v > 0xFFFFFFFFU) {
      throw CLI::ValidationError("--association", "'" + o.association + "' is not a 32-bit number");
    }
    f.association = static_cast<std::uint32_t>(*v);
  }
  if (!o.message.empty()) {
    const auto v = parse_number(o.message);
    if (!v) throw CLI::ValidationError("--message", "'" + o.message + "' is not a 64-bit number");
    f.message = *v;
  }
  if (!o.type.empty()) {
    f.type = parse_message_type(o.type);
    if (!f.type) {
      throw CLI::ValidationError("--type", "'" + o.type +
                                               "' is not an RDCC message type (a name such as "
                                               "CREDIT_GRANT, or a number 1..10)");
    }
  }
  return f;
}

// "12  0.000050000  10.0.0.1:50000 → 10.0.0.2:40000  " for a line of the text form.
void append_prefix(std::string& out, const CapturedFrame& f, std::int64_t t,
                   const ParsedFrame* udp) {
  append_decimal(out, f.number);
  out += "  ";
  append_seconds(out, t);
  out += "  ";
  if (udp != nullptr) {
    udp->source.append_to(out);
    out += " \u2192 ";
    udp->destination.append_to(out);
    out += "  ";
  }
}

void run_dump(const DumpOptions& o) {
  const Filters filters = parse_filters(o);
  std::string out;
  out.reserve(1 << 20);
  // Into a pipe (a live capture read as it arrives), every line as it is complete; into a
  // file, 1 MiB at a time.
  const bool streamed = stdout_is_stream();
  const auto flush = [&out, streamed](bool force) {
    if (force || streamed || out.size() > (1U << 20) - 512U) {
      std::fwrite(out.data(), 1, out.size(), stdout);
      out.clear();
    }
  };
  const auto relative = [](const CapturedFrame& f) { return f.relative_ns; };
  ScanHandlers h;
  h.packet = [&](const RdccPacket& p) {
    const std::int64_t t = relative(p.frame);
    if (p.decoded) {
      const Message& m = *p.decoded;
      if (!filters.pass(m)) return;
      if (o.json) {
        // The members an ordered_json of these and to_json(m)'s would dump, written straight
        // into the buffer (codec/json.hpp), `time` with the shortest digits that read back the
        // same double (nlohmann's Grisu2 now and then writes more), from the integer
        // nanoseconds: a tenth of the time.
        char head[160];  // up to `"src":"`: two numbers of at most 20 digits and the time
        char* at = head;
        const auto put = [&at](std::string_view text) {
          std::memcpy(at, text.data(), text.size());
          at += text.size();
        };
        put("{\"frame\":");
        at = std::to_chars(at, at + 20, p.frame.number).ptr;
        put(",\"time\":");
        at = write_json_seconds(at, t);
        put(",\"timestamp_ns\":");
        at = std::to_chars(at, at + 20, p.frame.time_ns).ptr;
        put(",\"src\":\"");
        out.append(head, static_cast<std::size_t>(at - head));
        p.udp.source.append_to(out);
        out.append(std::string_view("\",\"dst\":\""));
        p.udp.destination.append_to(out);
        out.append(std::string_view("\","));
        append_json_members(m, out);
        out += '}';
      } else {
        append_prefix(out, p.frame, t, &p.udp);
        append_line(m, out);
      }
    } else {
      const DecodeError& e = p.decoded.error();
      if (o.json) {
        nlohmann::ordered_json j{{"frame", p.frame.number},
                                 {"time", static_cast<double>(t) / 1e9},
                                 {"timestamp_ns", p.frame.time_ns},
                                 {"src", p.udp.source.to_string()},
                                 {"dst", p.udp.destination.to_string()},
                                 {"error", to_string(e.code)},
                                 {"field", e.field},
                                 {"offset", e.offset},
                                 {"frame_offset", p.udp.payload_offset + e.offset},
                                 {"actual", e.actual},
                                 {"message", e.describe()}};
        out += j.dump();
      } else {
        append_prefix(out, p.frame, t, &p.udp);
        out += "decode error: " + e.describe() + " [frame offset " +
               std::to_string(p.udp.payload_offset + e.offset) + "]";
      }
    }
    out += '\n';
    flush(false);
  };
  h.malformed = [&](const CapturedFrame& f, const ParsedFrame& parsed) {
    const std::int64_t t = relative(f);
    if (o.json) {
      nlohmann::ordered_json j{{"frame", f.number},
                               {"time", static_cast<double>(t) / 1e9},
                               {"timestamp_ns", f.time_ns},
                               {"error", "malformed_frame"},
                               {"frame_offset", parsed.offset},
                               {"message", describe_malformed(parsed)}};
      out += j.dump();
    } else {
      append_prefix(out, f, t, nullptr);
      out += "malformed frame: ";
      append_malformed(parsed, out);
    }
    out += '\n';
    flush(false);
  };
  try {
    (void)scan_capture(o.capture, h);
  } catch (const FileError&) {
    flush(true);
    throw;
  }
  flush(true);
}

}  // namespace

void add_pcap_dump_command(CLI::App& pcap) {
  auto o = std::make_shared<DumpOptions>();
  auto* cmd = pcap.add_subcommand(
      "dump", "One line per RDCC datagram of a capture: frame, time, addresses, the message");
  add_capture_options(*cmd, o->capture);
  cmd->add_flag("--json", o->json, "One JSON object per datagram (JSON lines)");
  cmd->add_option("--association", o->association, "Only this Association ID (0x... or decimal)");
  cmd->add_option("--message", o->message, "Only this Message ID (0x... or decimal)");
  cmd->add_option("--type", o->type, "Only this message type (name or number)");
  cmd->callback([o] {
    require_port_or_heuristic(o->capture, "rdcc pcap dump");
    run_pcap_command("dump", [o] {
      run_dump(*o);
      return 0;
    });
  });
}

}  // namespace rdcc::tools
