// rdcc pcap: the capture tools (dump, stats, check) and what they share.
#include <cctype>
#include <charconv>
#include <iostream>
#include <string>

#include "commands.hpp"
#include "pcap_commands.hpp"
#include "pcap_common.hpp"

namespace rdcc::tools {

void run_pcap_command(const std::string& name, const std::function<int()>& body) {
  int status = 0;
  try {
    status = body();
  } catch (const FileError& e) {
    std::cout.flush();
    std::cerr << "rdcc pcap " << name << ": " << e.what() << '\n';
    throw CLI::RuntimeError(2);
  }
  std::cout.flush();
  if (status != 0) throw CLI::RuntimeError(status);
}

std::optional<std::uint64_t> parse_number(std::string_view text) {
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    base = 16;
    text.remove_prefix(2);
  }
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v, base);
  if (ec != std::errc{} || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return v;
}

std::optional<MessageType> parse_message_type(std::string_view text) {
  std::string upper(text);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (auto t = message_type_from_name(upper)) return t;
  if (auto v = parse_number(text); v && *v <= 0xFF) {
    if (const auto* i = find_message_type(static_cast<std::uint8_t>(*v))) return i->type;
  }
  return std::nullopt;
}

std::optional<std::uint64_t> parse_octets(std::string_view text) {
  std::size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits])) != 0) {
    ++digits;
  }
  const auto value = parse_number(text.substr(0, digits));
  if (!value) return std::nullopt;
  const std::string_view unit = text.substr(digits);
  std::uint64_t scale = 1;
  if (unit.empty() || unit == "B") {
    scale = 1;
  } else if (unit == "K" || unit == "k") {
    scale = 1000;
  } else if (unit == "KiB") {
    scale = 1024;
  } else if (unit == "M") {
    scale = 1000000;
  } else if (unit == "MiB") {
    scale = 1ULL << 20;
  } else if (unit == "G") {
    scale = 1000000000;
  } else if (unit == "GiB") {
    scale = 1ULL << 30;
  } else {
    return std::nullopt;
  }
  if (*value > UINT64_MAX / scale) return std::nullopt;
  return *value * scale;
}

std::optional<std::uint64_t> message_id_of(const Message& m) {
  return std::visit(
      [](const auto& body) -> std::optional<std::uint64_t> {
        if constexpr (requires { body.message_id; }) {
          return body.message_id;
        } else {
          return std::nullopt;
        }
      },
      m);
}

void add_pcap_command(CLI::App& app) {
  auto* pcap = app.add_subcommand(
      "pcap", "Captures (pcap, pcapng): dump RDCC datagrams, summarise them, check invariants");
  pcap->require_subcommand(1);
  add_pcap_dump_command(*pcap);
  add_pcap_stats_command(*pcap);
  add_pcap_check_command(*pcap);
}

}  // namespace rdcc::tools
