// Small shared pieces: time and address text, random sources, events.
#include <arpa/inet.h>
#include <sys/random.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>

#include "rdcc/codec/json.hpp"
#include "rdcc/reference/address.hpp"
#include "rdcc/reference/events.hpp"
#include "rdcc/reference/random.hpp"
#include "rdcc/reference/time.hpp"

namespace rdcc::ref {

std::string format_time(Time t) {
  char text[48];
  std::snprintf(text, sizeof text, "t=%.3fms", static_cast<double>(t.ns) / 1e6);
  return text;
}

std::uint64_t RandomSource::uniform(std::uint64_t bound) {
  if (bound == ~0ULL) return next_u64();
  const std::uint64_t range = bound + 1;
  // Rejection sampling: no modulo bias.
  const std::uint64_t limit = ~0ULL - (~0ULL % range);
  std::uint64_t x = next_u64();
  while (x >= limit) x = next_u64();
  return x % range;
}

namespace {
std::uint64_t splitmix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30U)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27U)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31U);
}
std::uint64_t rotl(std::uint64_t x, int k) {
  return (x << static_cast<unsigned>(k)) | (x >> static_cast<unsigned>(64 - k));
}
}  // namespace

SeededRandom::SeededRandom(std::uint64_t seed) : s_{} {
  for (auto& s : s_) s = splitmix64(seed);
}

std::uint64_t SeededRandom::next_u64() {
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17U;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

// Seeded from this state through a constant of its own: the same seed splits the same way.
std::unique_ptr<RandomSource> SeededRandom::split() const {
  return std::make_unique<SeededRandom>(s_[0] ^ rotl(s_[1], 21) ^ rotl(s_[2], 42) ^ s_[3] ^
                                        0x42696e64696e6721ULL);
}

std::unique_ptr<RandomSource> SystemRandom::split() const {
  return std::make_unique<SystemRandom>();
}

std::uint64_t SystemRandom::next_u64() {
  std::uint64_t v = 0;
  auto* p = reinterpret_cast<unsigned char*>(&v);  // NOLINT: getrandom fills raw octets
  std::size_t got = 0;
  while (got < sizeof v) {
    const ssize_t n = getrandom(p + got, sizeof v - got, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(std::string("getrandom failed: ") + std::strerror(errno));
    }
    got += static_cast<std::size_t>(n);
  }
  return v;
}

nlohmann::ordered_json Event::to_json() const {
  nlohmann::ordered_json j;
  j["time_ns"] = time.ns;
  j["endpoint"] = endpoint;
  j["event"] = name;
  for (const auto& [k, v] : fields.items()) j[k] = v;
  return j;
}

std::size_t EventLog::count(const std::string& name) const {
  std::size_t n = 0;
  for (const auto& e : events_) n += e.name == name ? 1U : 0U;
  return n;
}

}  // namespace rdcc::ref
