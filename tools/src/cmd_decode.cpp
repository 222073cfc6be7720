// rdcc decode: datagrams in, the message (or a precise error naming field and offset) out.
// A datagram is given as hex (one per line, or as `xxd -p` writes it), as a hex dump (Wireshark,
// tshark -x, xxd, hexdump -C: hexdump.hpp) or as raw octets; a whole Ethernet or IP frame is taken
// apart and its UDP payload decoded.
#include <iostream>
#include <memory>
#include <optional>

#include <pcap/dlt.h>

#include "commands.hpp"
#include "hexdump.hpp"
#include "input.hpp"
#include "rdcc/codec/codec.hpp"
#include "rdcc/codec/format.hpp"
#include "rdcc/codec/hex.hpp"
#include "rdcc/codec/json.hpp"
#include "rdcc/wire/frame.hpp"

namespace rdcc::tools {
namespace {

using wire::FrameKind;
using wire::parse_frame;
using wire::ParsedFrame;

struct DecodeOptions {
  std::vector<std::string> hex;
  std::string input;
  bool binary = false;
  bool json = false;
  bool line = false;
};

struct Datagram {
  std::string source;  // "argument 1", "FILE line 3", "FILE"
  std::vector<std::byte> bytes;
};

class Decoder {
 public:
  explicit Decoder(const DecodeOptions& o) : opts_(o) {}

  void hex_text(const std::string& source, std::size_t line, const std::string& text) {
    auto parsed = parse_hex(text);
    const std::string where = line == 0 ? source : source + " line " + std::to_string(line);
    if (!parsed) {
      report_input_error(where, parsed.error().describe());
      return;
    }
    octets({where, std::move(*parsed)});
  }

  void hex_dump(const std::string& source, const std::string& text) {
    const HexDumpResult dump = parse_hex_dump(text);
    for (const HexDumpBlock& b : dump.blocks) {
      if (!dump.errors.empty() && &b == &dump.blocks.back()) break;  // cut by the error
      octets({source + " dump at line " + std::to_string(b.line), b.octets});
    }
    for (const HexDumpError& e : dump.errors) {
      report_input_error(source + " line " + std::to_string(e.line),
                         e.what + " (column " + std::to_string(e.column) + ")");
    }
  }

  // Octets that are an Ethernet or IP frame carrying UDP are decoded as their UDP payload;
  // anything else as an RDCC datagram. (An RDCC datagram starts with Version 1 in its first
  // four bits, an IP packet with 4 or 6: raw IP is never mistaken; an Ethernet frame must
  // parse down to UDP.)
  void octets(const Datagram& d) {
    const auto payload = [&](int link_type) -> std::optional<Datagram> {
      const ParsedFrame f = parse_frame(d.bytes, link_type);
      if (f.kind != FrameKind::Udp) return std::nullopt;
      Datagram u{d.source + " (UDP payload of " +
                     (link_type == DLT_EN10MB ? "an Ethernet frame" : "an IP packet") + ", " +
                     f.source.to_string() + " \u2192 " + f.destination.to_string() +
                     ", frame offset " + std::to_string(f.payload_offset) + ")",
                 std::vector<std::byte>(f.payload.begin(), f.payload.end())};
      return u;
    };
    const auto first = d.bytes.empty() ? 0U : std::to_integer<unsigned>(d.bytes[0]) >> 4U;
    std::optional<Datagram> inner;
    if (first == 4 || first == 6) inner = payload(DLT_RAW);
    if (!inner && d.bytes.size() >= 42) inner = payload(DLT_EN10MB);
    datagram(inner ? *inner : d);
  }

  void datagram(const Datagram& d) {
    auto r = decode(d.bytes);
    if (!r) {
      report_decode_error(d, r.error());
      return;
    }
    const std::size_t length = header_of(*r).length;
    const std::size_t trailing = d.bytes.size() - length;
    if (opts_.json) {
      std::cout << to_json(*r).dump() << '\n';
    } else if (opts_.line) {
      std::cout << format_line(*r) << '\n';
    } else {
      if (count_++ > 0) std::cout << '\n';
      std::cout << "# " << d.source << ": " << d.bytes.size() << " octets\n" << format_detail(*r);
      if (trailing > 0) {
        std::cout << "  [" << trailing << " octets after Length are not part of the message]\n";
      }
    }
  }

  [[nodiscard]] bool failed() const { return failed_; }

 private:
  void report_input_error(const std::string& where, const std::string& what) {
    failed_ = true;
    std::cerr << "rdcc decode: " << where << ": " << what << '\n';
    if (opts_.json) {
      nlohmann::ordered_json j{{"source", where}, {"error", "bad_input"}, {"message", what}};
      std::cout << j.dump() << '\n';
    }
  }

  void report_decode_error(const Datagram& d, const DecodeError& e) {
    failed_ = true;
    std::cerr << "rdcc decode: " << d.source << ": " << e.describe() << '\n';
    if (opts_.json) {
      nlohmann::ordered_json j{{"source", d.source}, {"error", to_string(e.code)},
                               {"field", e.field},   {"offset", e.offset},
                               {"actual", e.actual}, {"message", e.describe()}};
      std::cout << j.dump() << '\n';
    }
  }

  const DecodeOptions& opts_;
  bool failed_ = false;
  std::size_t count_ = 0;
};

void run_decode(const DecodeOptions& opts) {
  Decoder decoder(opts);
  if (!opts.hex.empty() && !opts.input.empty()) {
    throw InputError("give the datagram as hex arguments or with --input, not both");
  }
  const bool stdin_argument = opts.hex.size() == 1 && opts.hex.front() == "-";
  if (!opts.hex.empty() && !stdin_argument) {
    std::string all;
    for (const auto& part : opts.hex) all += part + " ";
    decoder.hex_text("argument", 0, all);
  } else {
    const std::string path = opts.input.empty() ? "-" : opts.input;
    const std::string name = path == "-" ? "stdin" : path;
    const auto content = read_all(path);
    if (opts.binary || !looks_like_text(content)) {
      decoder.octets({name, content});
    } else {
      std::string text(content.size(), '\0');
      for (std::size_t i = 0; i < content.size(); ++i) text[i] = static_cast<char>(content[i]);
      if (looks_like_hex_dump(text)) {
        decoder.hex_dump(name, text);
        if (decoder.failed()) throw CLI::RuntimeError(1);
        return;
      }
      const auto lines = join_xxd_plain_lines(hex_lines(text));
      if (lines.empty()) throw InputError(name + ": no datagram (expected hex, one per line)");
      for (const auto& l : lines) decoder.hex_text(name, l.line, l.text);
    }
  }
  if (decoder.failed()) throw CLI::RuntimeError(1);
}

}  // namespace

void add_decode_command(CLI::App& app) {
  auto opts = std::make_shared<DecodeOptions>();
  auto* cmd = app.add_subcommand(
      "decode",
      "Decode RDCC datagrams. Input: hex arguments; or --input FILE (or standard input, also "
      "'rdcc decode -') holding hex text, one datagram per line with '#' comments, a hex dump "
      "with offsets and an ASCII column (Wireshark 'Copy as Hex Dump', tshark -x, xxd, "
      "hexdump -C; one datagram per dump from offset 0), plain hex as xxd -p writes it (a line "
      "of 60 hex digits continues on the next), or one raw binary datagram. A whole "
      "Ethernet or IP frame is taken apart and its UDP payload decoded.");
  cmd->add_option("hex", opts->hex,
                  "The datagram in hex (octets may be separated by spaces, "
                  "':' or '-'); '-' alone: read standard input");
  cmd->add_option("-i,--input", opts->input, "Read from FILE ('-' = standard input)");
  cmd->add_flag("--binary", opts->binary, "The input is one raw binary datagram");
  auto* json = cmd->add_flag("--json", opts->json, "One JSON object per datagram (JSON lines)");
  cmd->add_flag("--line", opts->line, "One line per datagram")->excludes(json);
  cmd->callback([opts] {
    try {
      run_decode(*opts);
    } catch (const InputError& e) {
      std::cerr << "rdcc decode: " << e.what() << '\n';
      throw CLI::RuntimeError(1);
    }
  });
}

}  // namespace rdcc::tools
