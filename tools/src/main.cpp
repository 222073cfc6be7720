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
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  return 0;
}
