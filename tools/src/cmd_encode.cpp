// rdcc encode: JSON messages in (the codec's JSON mapping), hex or binary datagrams out.
#include <fstream>
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "input.hpp"
#include "rdcc/codec/codec.hpp"
#include "rdcc/codec/hex.hpp"
#include "rdcc/codec/json.hpp"
#include "rdcc/codec/json_input.hpp"

namespace rdcc::tools {
namespace {

using json = nlohmann::ordered_json;

struct EncodeOptions {
  std::string json_text;
  std::string input;
  std::string output;
  bool binary = false;
};

struct JsonItem {
  std::string where;  // "FILE", "FILE line 3", "FILE message 2"
  json value;
};

// The whole text as one JSON value (an object or an array of objects), or else JSON lines.
std::vector<JsonItem> json_items(const std::string& name, const std::string& text) {
  std::vector<JsonItem> items;
  auto whole = parse_json<json>(text);
  if (whole) {
    if (whole->is_array()) {
      for (std::size_t i = 0; i < whole->size(); ++i) {
        items.push_back({name + " message " + std::to_string(i + 1), std::move((*whole)[i])});
      }
    } else {
      items.push_back({name, std::move(*whole)});
    }
    return items;
  }
  const auto lines = hex_lines(text);  // same line splitting, '#' comments allowed
  if (lines.size() < 2) throw InputError(name + ": " + whole.error().describe());
  for (const auto& l : lines) {
    auto one = parse_json<json>(l.text, {kJsonMaxLine, kJsonMaxDepth});
    if (!one) {
      throw InputError(name + " line " + std::to_string(l.line) + ": " + one.error().describe());
    }
    items.push_back({name + " line " + std::to_string(l.line), std::move(*one)});
  }
  return items;
}

void run_encode(const EncodeOptions& opts) {
  if (!opts.json_text.empty() && !opts.input.empty()) {
    throw InputError("give the message as a JSON argument or with --input, not both");
  }
  std::string name = "argument";
  std::string text = opts.json_text;
  if (text.empty()) {
    const std::string path = opts.input.empty() ? "-" : opts.input;
    name = path == "-" ? "stdin" : path;
    text = read_text(path, kJsonMaxDocument);
  }
  const auto items = json_items(name, text);
  if (items.empty()) throw InputError(name + ": no message");
  if (opts.binary && items.size() != 1) {
    throw InputError(name + ": --binary writes one datagram, but the input holds " +
                     std::to_string(items.size()) + " messages");
  }
  std::vector<std::vector<std::byte>> datagrams;
  for (const auto& item : items) {
    auto m = message_from_json(item.value);
    if (!m) throw InputError(item.where + ": " + m.error().describe());
    std::vector<std::byte> wire(encoded_size(*m));
    auto n = encode(*m, wire);
    if (!n) throw InputError(item.where + ": " + n.error().describe());
    datagrams.push_back(std::move(wire));
  }
  std::ofstream file;
  const bool to_stdout = opts.output.empty() || opts.output == "-";
  if (!to_stdout) {
    file.open(opts.output, std::ios::binary | std::ios::trunc);
    if (!file) throw InputError(opts.output + ": cannot open for writing");
  }
  std::ostream& out = to_stdout ? std::cout : file;
  for (const auto& d : datagrams) {
    if (opts.binary) {
      out.write(reinterpret_cast<const char*>(d.data()),  // NOLINT: ostream takes char
                static_cast<std::streamsize>(d.size()));
    } else {
      out << to_hex(d) << '\n';
    }
  }
  out.flush();
  if (!out) throw InputError((opts.output.empty() ? "stdout" : opts.output) + ": write failed");
}

}  // namespace

void add_encode_command(CLI::App& app) {
  auto opts = std::make_shared<EncodeOptions>();
  auto* cmd = app.add_subcommand(
      "encode",
      "Encode RDCC messages from JSON (an object, an array of objects, or JSON lines), as "
      "`rdcc decode --json` prints them; keys left out take their defaults.");
  cmd->add_option("json", opts->json_text, "The message as a JSON object");
  cmd->add_option("-i,--input", opts->input, "Read JSON from FILE ('-' = standard input)");
  cmd->add_option("-o,--output", opts->output,
                  "Write to FILE instead of standard output ('-': standard output)");
  cmd->add_flag("--binary", opts->binary, "Write the raw datagram instead of hex");
  cmd->callback([opts] {
    try {
      run_encode(*opts);
    } catch (const InputError& e) {
      std::cerr << "rdcc encode: " << e.what() << '\n';
      throw CLI::RuntimeError(1);
    }
  });
}

}  // namespace rdcc::tools
