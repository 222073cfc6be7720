// The appendix's CREDIT_GRANT with the installed codec's C++ API: decode, the text line, the
// JSON mapping, encode back. Exit 0 only if all agree with the appendix.
#include <rdcc/version.h>
#include <rdcc/codec/codec.hpp>
#include <rdcc/codec/format.hpp>
#include <rdcc/codec/hex.hpp>
#include <rdcc/codec/json.hpp>

#include <iostream>
#include <vector>

int main() {
  const auto wire = rdcc::parse_hex(
      "10 04 00 28 5a 17 c0 de 00 03 00 00 00 00 00 2a 00 00 00 00 00 00 01 01 "
      "00 00 00 00 00 04 00 00 00 01 86 a0 00 00 07 d0");
  if (!wire) return 1;
  const auto m = rdcc::decode(*wire);
  if (!m) {
    std::cerr << m.error().describe() << "\n";
    return 1;
  }
  const auto* grant = std::get_if<rdcc::CreditGrant>(&*m);
  std::cout << "rdcc " RDCC_VERSION ": " << rdcc::format_line(*m) << "\n"
            << rdcc::to_json(*m).dump() << "\n";
  std::vector<std::byte> back(rdcc::encoded_size(*m));
  const auto n = rdcc::encode(*m, back);
  const bool ok = grant != nullptr && grant->grant_limit == 262144 &&
                  grant->pacing_rate == 100000 && n && back == *wire;
  if (!ok) std::cerr << "FAIL: the appendix grant did not decode and encode back as printed\n";
  return ok ? 0 : 1;
}
