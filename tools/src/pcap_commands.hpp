// The `rdcc pcap` subcommands and the small helpers they share.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "rdcc/codec/messages.hpp"

namespace rdcc::tools {

void add_pcap_dump_command(CLI::App& pcap);
void add_pcap_stats_command(CLI::App& pcap);
void add_pcap_check_command(CLI::App& pcap);

// Runs a subcommand body and turns its status and file errors into exit statuses: the body's
// status (0, or 1 for findings), 2 for a file that cannot be read (named on standard error).
void run_pcap_command(const std::string& name, const std::function<int()>& body);

// "0x5a17c0de" or "1511506142".
[[nodiscard]] std::optional<std::uint64_t> parse_number(std::string_view text);
// "CREDIT_GRANT", "credit_grant", "4" or "0x04".
[[nodiscard]] std::optional<MessageType> parse_message_type(std::string_view text);
// "4194304", "4MiB", "256KiB", "1M" (M = 10^6, MiB = 2^20).
[[nodiscard]] std::optional<std::uint64_t> parse_octets(std::string_view text);
// The Message ID a message carries, if its type has one.
[[nodiscard]] std::optional<std::uint64_t> message_id_of(const Message& m);

}  // namespace rdcc::tools
