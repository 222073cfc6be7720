// rdcc: the RDCC toolkit's command line.
#include <CLI/CLI.hpp>
#include <iostream>

#include "commands.hpp"

int main(int argc, char** argv) {
  CLI::App app{"rdcc: RDCC (Receiver-Driven Credit Control) packet tooling", "rdcc"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "rdcc 0.1.0");
  rdcc::tools::add_decode_command(app);
  rdcc::tools::add_encode_command(app);
  rdcc::tools::add_pcap_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // Exit status: 0 success (and --help), 1 bad input (named on stderr), 2 bad usage.
    const int status = app.exit(e);
    if (status == 0 || dynamic_cast<const CLI::RuntimeError*>(&e) != nullptr) return status;
    return 2;
  }
  return 0;
}
