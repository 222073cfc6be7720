// The sender's upper tester (docs/upper-tester.md) on any octets a tester may send: split into
// request lines as its channel splits them (a line longer than the bound refused, never held
// whole; the bound is lowered here so that inputs reach it), each answered by
// handle_upper_tester_request against a real sender node on loopback (a fresh one per input).
// Every answer is a JSON object whose "ok" is true or false, that dumps as strict UTF-8 (what
// the channel writes), whose refusal names its error with a detail of bounded length, and that
// carries the request's "id" when the request has one. A request naming a receiver off this
// host is not handed on: the harness sends nothing beyond loopback.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "rdcc/codec/json_input.hpp"
#include "rdcc/testing/fuzz.hpp"
#include "rdcc/udp/upper_tester.hpp"

namespace {

using Json = nlohmann::ordered_json;
using rdcc::udp::Address;

constexpr std::size_t kMaxLine = 1024;
// A detail quotes at most an excerpt of the request, beside the names of the op's keys.
constexpr std::size_t kMaxDetail = 1024;

// The request as parsed, when it is a JSON object (to check its id and where it sends).
std::optional<Json> request_of(std::string_view line) {
  auto r = rdcc::parse_json<Json>(line, {kMaxLine, rdcc::kJsonMaxDepth});
  if (!r || !r->is_object()) return std::nullopt;
  return std::move(*r);
}

bool off_host(const Json& request) {
  const auto it = request.find("receiver");
  Address a;
  return it != request.end() && it->is_string() && Address::parse(it->get<std::string>(), a) &&
         !a.is_loopback();
}

void check_answer(const Json& answer, const std::optional<Json>& request) {
  std::string text;
  try {
    text = answer.dump();  // strict: throws on a string that is not UTF-8
  } catch (const Json::type_error&) {
    ::rdcc::testing::property_violated("the answer dumps as UTF-8", __FILE__, __LINE__);
  }
  RDCC_FUZZ_CHECK(answer.is_object() && answer.contains("ok") && answer["ok"].is_boolean());
  if (!answer["ok"].get<bool>()) {
    RDCC_FUZZ_CHECK(answer.contains("error") && answer["error"].is_string());
    RDCC_FUZZ_CHECK(answer.contains("detail") && answer["detail"].is_string() &&
                    answer["detail"].get<std::string>().size() <= kMaxDetail);
  }
  if (request && request->contains("id") && !(*request)["id"].is_null()) {
    RDCC_FUZZ_CHECK(answer.contains("id") && answer["id"] == (*request)["id"]);
  }
  if (!request) RDCC_FUZZ_CHECK(answer.value("error", std::string()) == "bad_request");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  rdcc::udp::EventLoop loop;
  rdcc::udp::SenderNodeConfig config;
  config.endpoint.local = Address::v4(127, 0, 0, 1, 0);
  config.data_port = 9;
  rdcc::udp::SenderNode node(loop, config);
  rdcc::LineSplitter lines(kMaxLine);
  const auto answer = [&](rdcc::LineSplitter::Line&& line) {
    if (line.too_long != 0) {
      RDCC_FUZZ_CHECK(line.text.empty() && line.too_long > kMaxLine);
      return;
    }
    const auto request = request_of(line.text);
    if (line.text.empty() || (request && off_host(*request))) return;
    const auto now = rdcc::udp::monotonic_now();
    auto out = rdcc::udp::handle_upper_tester_request(node, line.text, now);
    if (auto* wait = std::get_if<rdcc::udp::PendingWait>(&out)) {
      // Past its deadline a wait is answered: the message's status, or a timeout.
      const auto done = rdcc::udp::complete_wait(node, *wait, wait->deadline);
      RDCC_FUZZ_CHECK(done.has_value());
      check_answer(*done, request);
    } else {
      check_answer(std::get<Json>(out), request);
    }
  };
  lines.feed(std::string_view(reinterpret_cast<const char*>(data), size), answer);  // NOLINT
  lines.finish(answer);
  return 0;
}
