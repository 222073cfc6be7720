// The subcommands of `rdcc`. Each registers itself on the CLI11 app and runs when chosen.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace rdcc::tools {

void add_decode_command(CLI::App& app);
void add_encode_command(CLI::App& app);
void add_pcap_command(CLI::App& app);  // dump, stats, check
// receiver, sender, crn: the reference endpoints on UDP sockets. `status` receives the exit
// status a node's run chose (sender: 1 when a --send message did not complete).
void add_node_commands(CLI::App& app, int& status);
// sim: the reference endpoints on the deterministic simulator (docs/sim.md); `status` as above.
void add_sim_command(CLI::App& app, int& status);
// `rdcc receiver|sender|crn --config FILE.json`: the file's keys become options placed before
// the command line's (which win). Throws std::invalid_argument naming the file and key.
void expand_node_config(CLI::App& app, std::vector<std::string>& args);

}  // namespace rdcc::tools
