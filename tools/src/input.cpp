#include "input.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>

#include "rdcc/codec/json_input.hpp"

namespace rdcc::tools {

std::vector<std::byte> read_all(const std::string& path) {
  std::vector<char> chars;
  if (path == "-") {
    chars.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  } else {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path + ": cannot open: " + std::strerror(errno));
    chars.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (in.bad()) throw InputError(path + ": read error");
  }
  std::vector<std::byte> out(chars.size());
  for (std::size_t i = 0; i < chars.size(); ++i) out[i] = static_cast<std::byte>(chars[i]);
  return out;
}

std::string read_text(const std::string& path) {
  const auto bytes = read_all(path);
  std::string s(bytes.size(), '\0');
  for (std::size_t i = 0; i < bytes.size(); ++i) s[i] = static_cast<char>(bytes[i]);
  return s;
}

std::string read_text(const std::string& path, std::size_t limit) {
  std::ifstream file;
  if (path != "-") {
    file.open(path, std::ios::binary);
    if (!file) throw InputError(path + ": cannot open: " + std::strerror(errno));
  }
  std::string text;
  if (!read_at_most(path == "-" ? std::cin : file, limit, text)) {
    throw InputTooLong(path == "-" ? "standard input: " + too_long(limit).describe()
                                   : path + ": " + too_long(limit, "the file").describe());
  }
  if (file.bad()) throw InputError(path + ": read error");
  return text;
}

ref::DataFraming load_data_framing(const std::string& path) {
  if (path != "-") return ref::DataFraming::load(path);
  std::string text;
  try {
    text = read_text(path, kJsonMaxDocument);
  } catch (const InputError& e) {
    throw ref::FramingError(e.what());
  }
  return ref::DataFraming::parse(text, "standard input");
}

bool looks_like_text(const std::vector<std::byte>& content) {
  for (auto b : content) {
    const auto c = std::to_integer<unsigned char>(b);
    if (c == '\n' || c == '\r' || c == '\t') continue;
    if (c < 0x20 || c > 0x7E) return false;
  }
  return true;
}

std::vector<HexLine> hex_lines(const std::string& text) {
  std::vector<HexLine> lines;
  std::size_t number = 0;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    ++number;
    std::string line = text.substr(start, end - start);
    if (const auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    if (line.find_first_not_of(" \t\r") != std::string::npos) lines.push_back({number, line});
    start = end + 1;
  }
  return lines;
}

bool stdout_is_stream() {
  static const bool stream = [] {
    struct stat st {};
    if (fstat(STDOUT_FILENO, &st) != 0) return false;
    return S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) || isatty(STDOUT_FILENO) != 0;
  }();
  return stream;
}

void buffer_stdout_by_line_if_streamed() {
  if (stdout_is_stream()) std::setvbuf(stdout, nullptr, _IOLBF, BUFSIZ);
}

}  // namespace rdcc::tools
