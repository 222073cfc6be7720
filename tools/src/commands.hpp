// The subcommands of `rdcc`. Each registers itself on the CLI11 app and runs when chosen.
#pragma once

#include <CLI/CLI.hpp>

namespace rdcc::tools {

void add_decode_command(CLI::App& app);
void add_encode_command(CLI::App& app);
void add_pcap_command(CLI::App& app);  // dump, stats, check

}  // namespace rdcc::tools
