#include "input.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>

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

}  // namespace rdcc::tools
