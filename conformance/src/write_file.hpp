// Writes a report file whole, or throws naming it: the matrices, explore and the automatic
// mutants write their text, Markdown and JSON reports through this one function.
#pragma once

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

namespace rdcc::conformance {

inline void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  out.close();
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

}  // namespace rdcc::conformance
