// The spec's text, for the tests that quote it (the catalog against the spec, the variants'
// quotations). The spec is not part of the repository: it is found through the environment
// variable RDCC_SPEC_FILE, else the path CMake compiled in (the cache option RDCC_SPEC_FILE,
// default ../shared/spec/rdcc-spec.txt beside the clone). Without it those tests are skipped
// with reason(), which names the path tried and both ways to give another.
#pragma once

#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

namespace rdcc::testing {

class SpecFile {
 public:
  // `configured`: the path CMake compiled in (RDCC_SPEC_PATH).
  explicit SpecFile(std::string configured) : path_(std::move(configured)) {
    if (const char* env = std::getenv("RDCC_SPEC_FILE"); env != nullptr && *env != '\0') {
      path_ = env;
      from_env_ = true;
    }
    std::ifstream in(path_, std::ios::binary);
    if (in) {
      std::ostringstream text;
      text << in.rdbuf();
      text_ = text.str();
    }
  }

  [[nodiscard]] const std::string& path() const { return path_; }
  // The spec's text; nothing when the file cannot be read.
  [[nodiscard]] const std::optional<std::string>& text() const { return text_; }
  // Why the tests that need the spec are skipped.
  [[nodiscard]] std::string reason() const {
    return "the RDCC spec is not at " + path_ +
           (from_env_ ? " (the environment variable RDCC_SPEC_FILE)"
                      : " (the CMake option RDCC_SPEC_FILE)") +
           "; give its path with cmake -DRDCC_SPEC_FILE=PATH or the environment variable "
           "RDCC_SPEC_FILE to run this test";
  }

 private:
  std::string path_;
  bool from_env_ = false;
  std::optional<std::string> text_;
};

}  // namespace rdcc::testing
