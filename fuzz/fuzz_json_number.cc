// Any octets, read as a double (octets 0-7) and a signed count of nanoseconds (octets 8-15),
// both big-endian (missing octets are zeros): the JSON number writers of json.hpp, which
// `rdcc pcap dump --json`, `stats --json` and `check --json` use for every time they print.
// write_json_double writes, within kMaxJsonNumber characters, "null" for what is not finite and
// otherwise the shortest digits that read back (std::from_chars) as the same value, sign
// included, in the layout nlohmann's dump() uses: the same form (fixed-point or exponent, and
// then the same exponent) and never longer than dump()'s text, which reads back as the same
// value too (dump()'s Grisu2 now and then writes more digits, or where 17 are needed another
// last one: 1018834962117039.8 is 1.0188349621170398e+15 here, 1.0188349621170397e+15 there).
// write_json_seconds writes exactly what write_json_double writes for ns / 1e9;
// append_json_double and append_json_seconds append the same text.
#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "rdcc/codec/json.hpp"
#include "rdcc/testing/fuzz.hpp"

namespace {
std::string_view written(const char* begin, const char* end) {
  return {begin, static_cast<std::size_t>(end - begin)};
}
// The whole text is a number that reads back as v, sign included.
bool reads_back(std::string_view text, double v) {
  double back = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), back);
  return error == std::errc{} && end == text.data() + text.size() && back == v &&
         std::signbit(back) == std::signbit(v);
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::array<std::byte, 16> octets{};
  const auto input = rdcc::testing::input_octets(data, size);
  std::copy_n(input.begin(), std::min(input.size(), octets.size()), octets.begin());
  const auto v = std::bit_cast<double>(rdcc::testing::load_big_endian(std::span(octets).first(8)));
  const auto ns =
      std::bit_cast<std::int64_t>(rdcc::testing::load_big_endian(std::span(octets).last(8)));

  char text[rdcc::kMaxJsonNumber];
  const std::string_view d = written(text, rdcc::write_json_double(text, v));
  RDCC_FUZZ_CHECK(d.size() <= rdcc::kMaxJsonNumber);
  const std::string theirs = nlohmann::json(v).dump();
  if (!std::isfinite(v)) {
    RDCC_FUZZ_CHECK(d == "null" && theirs == "null");
  } else {
    RDCC_FUZZ_CHECK(reads_back(d, v) && reads_back(theirs, v) && d.size() <= theirs.size());
    const auto e = d.find('e');
    const auto their_e = theirs.find('e');
    RDCC_FUZZ_CHECK((e == std::string_view::npos) == (their_e == std::string::npos));
    RDCC_FUZZ_CHECK(e == std::string_view::npos ||
                    d.substr(e) == std::string_view(theirs).substr(their_e));
  }
  std::string appended = "x";
  rdcc::append_json_double(appended, v);
  RDCC_FUZZ_CHECK(std::string_view(appended).substr(1) == d);

  char seconds[rdcc::kMaxJsonNumber];
  const std::string_view s = written(seconds, rdcc::write_json_seconds(seconds, ns));
  char as_double[rdcc::kMaxJsonNumber];
  const double ns_seconds = static_cast<double>(ns) / 1e9;
  RDCC_FUZZ_CHECK(s == written(as_double, rdcc::write_json_double(as_double, ns_seconds)));
  appended.resize(1);
  rdcc::append_json_seconds(appended, ns);
  RDCC_FUZZ_CHECK(std::string_view(appended).substr(1) == s);
  return 0;
}
