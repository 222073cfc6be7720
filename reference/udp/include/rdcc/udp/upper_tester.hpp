// The upper tester (docs/upper-tester.md): JSON lines through which a test tool tells a
// sender what to send and reads back what happened. One request object per line, one
// response object per line, in order; over stdin/stdout or a TCP connection on loopback.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "rdcc/udp/loop.hpp"
#include "rdcc/udp/nodes.hpp"

namespace rdcc::udp {

inline constexpr const char* kImplementation = "rdcc-reference";
inline constexpr const char* kImplementationVersion = "0.1.0";

// A `wait` request whose answer comes when the message finishes or the deadline passes.
struct PendingWait {
  ref::MessageHandle handle = 0;
  Time deadline{};
  nlohmann::ordered_json id;  // the request's "id", echoed (null when it had none)
};
using UpperTesterOutcome = std::variant<nlohmann::ordered_json, PendingWait>;

// Handles one request line against `node` (no I/O: the channel below does that).
[[nodiscard]] UpperTesterOutcome handle_upper_tester_request(SenderNode& node,
                                                             std::string_view line, Time now);
// The answer to a pending wait, or nullopt while the message is still under way.
[[nodiscard]] std::optional<nlohmann::ordered_json> complete_wait(const SenderNode& node,
                                                                  const PendingWait& w, Time now);

// Serves the protocol on an EventLoop: "stdio" (stdin/stdout) or "tcp:IP:PORT" (loopback;
// port 0 picks one, see tcp_address()). Throws std::invalid_argument for a bad `where`.
class UpperTesterServer {
 public:
  UpperTesterServer(EventLoop& loop, SenderNode& node, std::string_view where);
  ~UpperTesterServer();
  UpperTesterServer(const UpperTesterServer&) = delete;
  UpperTesterServer& operator=(const UpperTesterServer&) = delete;

  [[nodiscard]] std::optional<Address> tcp_address() const;
  // Called when standard input has ended and every request on it is answered (stdio mode).
  void set_on_eof(std::function<void()> f) { on_eof_ = std::move(f); }

  class Channel;

 private:
  void accept();
  void poke();

  EventLoop& loop_;
  SenderNode& node_;
  int listen_fd_ = -1;
  std::optional<Address> tcp_address_;
  std::vector<std::unique_ptr<Channel>> channels_;
  std::function<void()> on_eof_;
};

}  // namespace rdcc::udp
