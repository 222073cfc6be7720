// The upper tester: the request handler against a sender node on loopback sockets, and the
// TCP channel end to end (a real TCP connection on 127.0.0.1).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>

#include "rdcc/udp/upper_tester.hpp"

namespace rdcc::udp {
namespace {

using Json = nlohmann::ordered_json;

// Appends what arrives on `fd` to `into`, from the loop.
void collect(EventLoop& loop, int fd, std::string& into) {
  loop.add(fd, [fd, &into] {
    char buf[65536];
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) into.append(buf, static_cast<std::size_t>(n));
  });
}

struct UpperTester : ::testing::Test {
  EventLoop loop;
  std::unique_ptr<ReceiverNode> receiver;
  std::unique_ptr<SenderNode> sender;

  void SetUp() override {
    ReceiverNodeConfig rc;
    rc.endpoint.local = Address::v4(127, 0, 0, 1, 0);
    rc.endpoint.link_capacity_mbps = 2000;
    rc.endpoint.grant_lifetime_us = 50000;
    rc.endpoint.d_max = ref::milliseconds(1);
    rc.endpoint.base_rtt = ref::microseconds(200);
    rc.endpoint.grant_window = 256U << 10U;
    receiver = std::make_unique<ReceiverNode>(loop, rc);
    SenderNodeConfig sc;
    sc.endpoint.local = Address::v4(127, 0, 0, 2, 0);
    sc.data_port = receiver->data_address().port;
    sender = std::make_unique<SenderNode>(loop, sc);
  }

  Json request(const std::string& line) {
    auto out = handle_upper_tester_request(*sender, line, monotonic_now());
    if (auto* w = std::get_if<PendingWait>(&out)) {
      std::optional<Json> answer;
      EXPECT_TRUE(loop.run_until(
          [&] { return (answer = complete_wait(*sender, *w, monotonic_now())).has_value(); },
          ref::seconds(20)));
      return answer.value_or(Json{});
    }
    return std::get<Json>(out);
  }

  std::string receiver_text() const { return receiver->rdcc_address().to_string(); }
};

TEST_F(UpperTester, Hello_NamesRoleImplementationAndVersion) {
  const Json r = request(R"({"op":"hello"})");
  EXPECT_EQ(r["ok"], true);
  EXPECT_EQ(r["role"], "sender");
  EXPECT_EQ(r["implementation"], "rdcc-reference");
  EXPECT_EQ(r["version"], "0.1.0");
  // What it offers, for a tester's needs check before a scenario's first step.
  EXPECT_EQ(r["ops"], Json::parse(R"(["association","cancel","hello","link_pause","return_credit",)"
                                  R"("stats","status","submit","wait"])"));
  EXPECT_EQ(r["modes"], Json::parse(R"(["scheduled","unscheduled"])"));
  EXPECT_TRUE(r["unscheduled_dscp"].is_null());  // none configured here
  EXPECT_EQ(r["class_dscp"], Json::parse("[0,0,0,0,0,0,0,0]"));
}

TEST_F(UpperTester, SubmitMode_ScheduledOnlySenderDeclinesUnscheduled) {
  SenderNodeConfig sc;
  sc.endpoint.local = Address::v4(127, 0, 0, 3, 0);
  sc.endpoint.allow_unscheduled = false;
  sc.endpoint.unscheduled_dscp = 8;
  sc.endpoint.class_dscp = {0, 10, 18, 26, 34, 12, 20, 40};
  sender = std::make_unique<SenderNode>(loop, sc);
  const Json hello = request(R"({"op":"hello"})");
  EXPECT_EQ(hello["modes"], Json::parse(R"(["scheduled"])"));
  EXPECT_EQ(hello["unscheduled_dscp"], 8);
  EXPECT_EQ(hello["class_dscp"], Json::parse("[0,10,18,26,34,12,20,40]"));
  const Json r = request(R"({"op":"submit","receiver":")" + receiver_text() +
                         R"(","length":4096,"mode":"unscheduled"})");
  EXPECT_EQ(r["ok"], false) << r.dump();
  EXPECT_EQ(r["error"], "unsupported");
  EXPECT_NE(r["detail"].get<std::string>().find("scheduled mode for every message"),
            std::string::npos);
  const Json s = request(R"({"op":"submit","receiver":")" + receiver_text() +
                         R"(","length":4096,"mode":"scheduled"})");
  EXPECT_EQ(s["ok"], true) << s.dump();
}

TEST_F(UpperTester, SubmitThenWait_MessageIsDone_StatusAndStatsAgree) {
  const Json s = request(
      R"({"op":"submit","receiver":")" + receiver_text() +
      R"(","length":262144,"class":2,"weight":4,"service_hint":"LATENCY_SENSITIVE","id":7})");
  ASSERT_EQ(s["ok"], true) << s.dump();
  EXPECT_EQ(s["id"], 7);
  const auto handle = s["handle"].get<std::uint64_t>();
  const Json w =
      request(R"({"op":"wait","handle":)" + std::to_string(handle) + R"(,"timeout_ms":15000})");
  ASSERT_EQ(w["ok"], true) << w.dump();
  EXPECT_EQ(w["state"], "DONE");
  EXPECT_EQ(w["transmitted"], 262144);
  const Json st = request(R"({"op":"status","handle":)" + std::to_string(handle) + "}");
  EXPECT_EQ(st["state"], "DONE");
  EXPECT_EQ(st["length"], 262144);
  EXPECT_NE(st["message_id"], 0);
  const Json stats = request(R"({"op":"stats"})");
  EXPECT_EQ(stats["stats"]["sender"]["messages_done"], 1);
  const Json a = request(R"({"op":"association","receiver":")" + receiver_text() + R"("})");
  EXPECT_EQ(a["established"], true);
  EXPECT_EQ(a["epoch"], receiver->receiver().config().epoch);
}

TEST_F(UpperTester, CancelReturnCreditAndLinkPause_AreAccepted) {
  const Json s = request(R"({"op":"submit","receiver":")" + receiver_text() +
                         R"(","length":1048576,"force_scheduled":true})");
  const auto h = std::to_string(s["handle"].get<std::uint64_t>());
  EXPECT_EQ(request(R"({"op":"return_credit","handle":)" + h + R"(,"new_limit":0})")["ok"], true);
  EXPECT_EQ(request(R"({"op":"link_pause"})")["ok"], true);
  EXPECT_EQ(request(R"({"op":"cancel","handle":)" + h + "}")["ok"], true);
  EXPECT_EQ(request(R"({"op":"status","handle":)" + h + "}")["state"], "ABORTED");
}

TEST_F(UpperTester, BadRequests_AnswerBadRequestNamingTheKeyAndWhy) {
  const std::string to = R"("receiver":")" + receiver_text() + "\"";
  const std::vector<std::pair<std::string, std::string>> cases{
      {"{nope", "not JSON"},
      {"[1,2]", "must be a JSON object"},
      {R"({"length":1})", "missing key 'op'"},
      {R"({"op":5})", "'op' must be a string"},
      {R"({"op":"launch"})", "\"launch\" is not one of"},
      {R"({"op":"hello","colour":"red"})", "unknown key 'colour' for op hello"},
      {R"({"op":"submit","length":10})", "missing key 'receiver'"},
      {R"({"op":"submit",)" + to + "}", "missing key 'length'"},
      {R"({"op":"submit",)" + to + R"(,"length":-1})", "'length' must be a non-negative integer"},
      {R"({"op":"submit",)" + to + R"(,"length":"10"})", "'length' must be a non-negative integer"},
      {R"({"op":"submit","receiver":"localhost","length":10})", "'receiver' must be an address"},
      {R"({"op":"submit",)" + to + R"(,"length":10,"class":256})", "'class' is 256, above 255"},
      {R"({"op":"submit",)" + to + R"(,"length":10,"service_hint":"URGENT"})",
       "'service_hint' is \"URGENT\", not one of"},
      {R"({"op":"submit",)" + to + R"(,"length":10,"force_scheduled":1})",
       "'force_scheduled' must be true or false"},
      {R"({"op":"submit",)" + to + R"(,"length":10,"mode":"eager"})",
       "'mode' is \"eager\", not \"scheduled\" or \"unscheduled\""},
      {R"({"op":"submit","receiver":"[::1]:5","length":10})", "not the address family"},
      {R"({"op":"status","handle":99})", "'handle' 99: no such message"},
      {R"({"op":"return_credit","handle":99,"new_limit":1})", "no such message"},
  };
  for (const auto& [line, detail] : cases) {
    const Json r = request(line);
    EXPECT_EQ(r["ok"], false) << line;
    EXPECT_EQ(r["error"], "bad_request") << line;
    EXPECT_NE(r["detail"].get<std::string>().find(detail), std::string::npos)
        << line << " -> " << r.dump();
  }
}

TEST_F(UpperTester, RequestsTheNodeCannotCarry_AnswerUnsupported) {
  const std::string to = R"("receiver":")" + receiver_text() + "\"";
  for (const std::string& line :
       {R"({"op":"submit",)" + to + R"(,"length":10,"binding":"RESERVED"})",
        R"({"op":"submit",)" + to + R"(,"length":10,"binding":"ROCEV2","binding_value":5})"}) {
    const Json r = request(line);
    EXPECT_EQ(r["ok"], false) << line;
    EXPECT_EQ(r["error"], "unsupported") << line;
  }
}

TEST_F(UpperTester, WaitTimesOut_WithAnErrorNamingTheState) {
  // A receiver that never answers: the message stays NEW while the association is attempted.
  const Json s = request(R"({"op":"submit","receiver":"127.0.0.9:9","length":100000})");
  const Json w = request(R"({"op":"wait","handle":)" + std::to_string(s["handle"].get<int>()) +
                         R"(,"timeout_ms":20})");
  EXPECT_EQ(w["ok"], false);
  EXPECT_EQ(w["error"], "timeout");
  EXPECT_NE(w["detail"].get<std::string>().find("still NEW"), std::string::npos) << w.dump();
}

TEST_F(UpperTester, TcpChannel_AnswersLinesInOrder_WaitHoldsLaterRequests) {
  UpperTesterServer server(loop, *sender, "tcp:127.0.0.1:0");
  ASSERT_TRUE(server.tcp_address());
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(server.tcp_address()->port);
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::connect(fd, reinterpret_cast<const sockaddr*>(&sa), sizeof sa), 0);
  const std::string requests = R"({"op":"hello","id":1})"
                               "\n"
                               R"({"op":"submit","receiver":")" +
                               receiver_text() +
                               R"(","length":65536,"id":2})"
                               "\n"
                               R"({"op":"wait","handle":1,"timeout_ms":15000,"id":3})"
                               "\n"
                               R"({"op":"status","handle":1,"id":4})"
                               "\n"
                               R"({"op":"nope","id":5})"
                               "\n";
  ASSERT_EQ(::write(fd, requests.data(), requests.size()), static_cast<ssize_t>(requests.size()));
  std::string received;
  collect(loop, fd, received);
  ASSERT_TRUE(loop.run_until(
      [&] { return std::count(received.begin(), received.end(), '\n') == 5; }, ref::seconds(20)))
      << received;
  loop.remove(fd);
  ::close(fd);
  std::vector<Json> lines;
  std::size_t start = 0;
  for (auto nl = received.find('\n'); nl != std::string::npos; nl = received.find('\n', start)) {
    lines.push_back(Json::parse(received.substr(start, nl - start)));
    start = nl + 1;
  }
  ASSERT_EQ(lines.size(), 5U);
  for (std::size_t i = 0; i < 5; ++i) EXPECT_EQ(lines[i]["id"], i + 1) << received;
  EXPECT_EQ(lines[2]["state"], "DONE");
  EXPECT_EQ(lines[3]["state"], "DONE");  // answered after the wait, not before it
  EXPECT_EQ(lines[4]["error"], "bad_request");
}

// A TCP connection to the server's port, not blocking.
int connect_to(const UpperTesterServer& server) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(server.tcp_address()->port);
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const int rc = ::connect(fd, reinterpret_cast<const sockaddr*>(&sa), sizeof sa);
  EXPECT_TRUE(rc == 0 || errno == EINPROGRESS);
  return fd;
}

// Writes as much of `text` from `at` as the socket takes now; false once it takes nothing.
bool write_some(int fd, const std::string& text, std::size_t& at) {
  const ssize_t n = ::send(fd, text.data() + at, text.size() - at, MSG_NOSIGNAL);
  if (n <= 0) return false;
  at += static_cast<std::size_t>(n);
  return true;
}

// A tester that pipelines tens of thousands of requests and reads no answer until it has sent
// them all: the answers wait in the server, which goes on reading (a blocking write would
// hang the node's loop, and this test with it, as soon as the socket's buffers are full).
TEST_F(UpperTester, TcpChannel_TensOfThousandsOfPipelinedRequests_AreAllAnsweredInOrder) {
  UpperTesterServer server(loop, *sender, "tcp:127.0.0.1:0");
  const int fd = connect_to(server);
  constexpr int kRequests = 30000;
  std::string requests;
  for (int i = 1; i <= kRequests; ++i) {
    requests += R"({"op":"hello","id":)" + std::to_string(i) + "}\n";
  }
  std::size_t sent = 0;
  ASSERT_TRUE(loop.run_until(
      [&] {
        while (write_some(fd, requests, sent)) {
        }
        return sent == requests.size();
      },
      ref::seconds(60)))
      << sent << " of " << requests.size() << " octets of requests sent";
  std::string received;
  collect(loop, fd, received);
  // Lines counted as they come (counting the whole answer anew at every wake-up was quadratic:
  // 43 s under ASan, past ctest's timeout).
  std::size_t counted = 0;
  std::ptrdiff_t lines = 0;
  ASSERT_TRUE(loop.run_until(
      [&] {
        lines += std::count(received.begin() + static_cast<std::ptrdiff_t>(counted), received.end(),
                            '\n');
        counted = received.size();
        return lines == kRequests;
      },
      ref::seconds(60)));
  loop.remove(fd);
  ::close(fd);
  std::size_t start = 0;
  for (int i = 1; i <= kRequests; ++i) {
    const std::size_t nl = received.find('\n', start);
    const Json answer = Json::parse(received.substr(start, nl - start));
    ASSERT_EQ(answer["id"], i);
    ASSERT_EQ(answer["implementation"], kImplementation);
    start = nl + 1;
  }
}

// A tester that never reads its answers is no longer read once they pass the channel's bound
// (its requests then wait in its own socket), and the node goes on serving another tester.
TEST_F(UpperTester, TcpChannel_ATesterThatNeverReads_IsStalledOthersAreServed) {
  UpperTesterServer server(loop, *sender, "tcp:127.0.0.1:0");
  const int greedy = connect_to(server);
  std::string block;
  for (int i = 0; i < 1000; ++i)
    block += R"({"op":"hello"})"
             "\n";
  std::size_t written = 0;  // octets of requests the greedy tester got into its socket
  int stalled = 0;          // loop turns since it last could write
  std::size_t at = 0;
  constexpr std::size_t kCap = std::size_t{64} << 20U;
  while (stalled < 300 && written < kCap) {
    const std::size_t before = at;
    while (write_some(greedy, block, at)) {
      if (at == block.size()) at = 0;
    }
    const std::size_t took = at >= before ? at - before : block.size() - before + at;
    written += took;
    stalled = took == 0 ? stalled + 1 : 0;
    loop.run_once(ref::milliseconds(1));
  }
  EXPECT_LT(written, kCap) << "the server went on reading a tester that reads no answer";
  const int polite = connect_to(server);
  const std::string hello = R"({"op":"hello","id":7})"
                            "\n";
  std::size_t sent = 0;
  std::string received;
  collect(loop, polite, received);
  ASSERT_TRUE(loop.run_until(
      [&] {
        if (sent < hello.size()) (void)write_some(polite, hello, sent);
        return received.find('\n') != std::string::npos;
      },
      ref::seconds(20)));
  EXPECT_EQ(Json::parse(received.substr(0, received.find('\n')))["id"], 7);
  loop.remove(polite);
  ::close(polite);
  ::close(greedy);
}

TEST(UpperTesterServer, BadWhere_IsRejectedWithTheReason) {
  EventLoop loop;
  SenderNodeConfig sc;
  sc.endpoint.local = Address::v4(127, 0, 0, 2, 0);
  SenderNode sender(loop, sc);
  EXPECT_THROW(UpperTesterServer(loop, sender, "udp:1"), std::invalid_argument);
  EXPECT_THROW(UpperTesterServer(loop, sender, "tcp:10.0.0.1:5"), std::invalid_argument);
  EXPECT_THROW(UpperTesterServer(loop, sender, "tcp:nonsense"), std::invalid_argument);
}

}  // namespace
}  // namespace rdcc::udp
