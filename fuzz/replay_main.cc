// The main() of a harness built without libFuzzer: calls LLVMFuzzerTestOneInput once on every
// file of the directories, and their subdirectories, (and on the files) given, as libFuzzer
// reads them, so that the seed corpus and the crash regression inputs run as ordinary ctest
// tests. Hidden files (.gitkeep) are skipped. A
// property violation or sanitizer report aborts, which fails the test.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

std::vector<std::filesystem::path> inputs_of(const std::filesystem::path& arg) {
  if (!std::filesystem::is_directory(arg)) return {arg};
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(arg)) {
    if (entry.is_regular_file() && !entry.path().filename().string().starts_with('.')) {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

// The whole file in a heap buffer of exactly its size, so that ASan sees any read past it.
std::vector<std::uint8_t> read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  const std::vector<char> text((std::istreambuf_iterator<char>(in)),
                               std::istreambuf_iterator<char>());
  std::vector<std::uint8_t> octets(text.size());
  std::transform(text.begin(), text.end(), octets.begin(),
                 [](char c) { return static_cast<std::uint8_t>(c); });
  return octets;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t replayed = 0;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path arg(argv[i]);
    if (!std::filesystem::exists(arg)) {
      std::fprintf(stderr, "replay: %s does not exist\n", arg.c_str());
      return 2;
    }
    for (const auto& path : inputs_of(arg)) {
      const auto octets = read_file(path);
      std::fprintf(stderr, "replay: %s (%zu octets)\n", path.c_str(), octets.size());
      (void)LLVMFuzzerTestOneInput(octets.data(), octets.size());
      ++replayed;
    }
  }
  std::printf("replay: %zu inputs, no finding\n", replayed);
  return 0;
}
