// rdcc: the RDCC toolkit's command line.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <string>
#include <system_error>
#include <vector>

#include "commands.hpp"
#include "input.hpp"
#include "rdcc/version.h"

int main(int argc, char** argv) {
  rdcc::tools::buffer_stdout_by_line_if_streamed();
  CLI::App app{"rdcc: RDCC (Receiver-Driven Credit Control) packet tooling", "rdcc"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "rdcc " RDCC_VERSION);
  rdcc::tools::add_decode_command(app);
  rdcc::tools::add_encode_command(app);
  rdcc::tools::add_pcap_command(app);
  int status = 0;
  rdcc::tools::add_node_commands(app, status);
  rdcc::tools::add_sim_command(app, status);
  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    rdcc::tools::expand_node_config(app, args);
  } catch (const std::invalid_argument& e) {
    std::cerr << "rdcc: " << e.what() << '\n';
    return 2;
  }
  std::reverse(args.begin(), args.end());  // CLI11 takes the arguments last first
  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    // Exit status: 0 success (and --help), 1 bad input (named on stderr), 2 bad usage.
    const int parse_status = app.exit(e);
    if (parse_status == 0 || dynamic_cast<const CLI::RuntimeError*>(&e) != nullptr) {
      return parse_status;
    }
    return 2;
  } catch (const std::system_error& e) {
    // A socket that cannot be bound (address in use, not local) and the like.
    std::cerr << "rdcc: " << e.what() << '\n';
    return 1;
  }
  return status;
}
