#include "rdcc/udp/upper_tester.hpp"

#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cassert>
#include <cerrno>
#include <deque>
#include <set>
#include <stdexcept>
#include <system_error>

#include "rdcc/codec/constants.hpp"
#include "rdcc/codec/json_input.hpp"
#include "rdcc/udp/sockaddr.hpp"
#include "rdcc/udp/upper_tester_ops.hpp"

namespace rdcc::udp {

namespace {

using Json = nlohmann::ordered_json;

// A request that cannot be carried out as written; `detail` names the key and why.
struct BadRequest {
  std::string detail;
};
struct Unsupported {
  std::string detail;
};

Json error_response(const char* error, const std::string& detail) {
  return {{"ok", false}, {"error", error}, {"detail", detail}};
}

// The sender's ops (upper_tester_ops.hpp).
const UpperOp* sender_op(std::string_view name) {
  const UpperOp* op = find_upper_op(name);
  return op != nullptr && (op->roles & upper_role::kSender) != 0 ? op : nullptr;
}

std::uint64_t get_uint(const Json& r, const char* key, std::uint64_t max,
                       std::optional<std::uint64_t> fallback) {
  auto it = r.find(key);
  if (it == r.end()) {
    if (fallback) return *fallback;
    throw BadRequest{std::string("missing key '") + key + "'"};
  }
  if (!it->is_number_unsigned()) {
    throw BadRequest{std::string("'") + key + "' must be a non-negative integer, not " +
                     excerpt(*it)};
  }
  const auto v = it->get<std::uint64_t>();
  if (v > max) {
    throw BadRequest{std::string("'") + key + "' is " + std::to_string(v) + ", above " +
                     std::to_string(max)};
  }
  return v;
}

// The argument `key` of `op` as the table describes it: its bound and its default.
const UpperArg& arg(std::string_view op, std::string_view key) {
  const UpperArg* a = find_upper_arg(*find_upper_op(op), key);
  assert(a != nullptr);
  return *a;
}
std::uint64_t get_uint(const Json& r, std::string_view op, const char* key) {
  const UpperArg& a = arg(op, key);
  return get_uint(r, key, a.max, a.default_value);
}

bool get_bool(const Json& r, const char* key) {
  auto it = r.find(key);
  if (it == r.end()) return false;
  if (!it->is_boolean()) {
    throw BadRequest{std::string("'") + key + "' must be true or false, not " + excerpt(*it)};
  }
  return it->get<bool>();
}

Address get_address(const Json& r, const char* key) {
  auto it = r.find(key);
  if (it == r.end()) throw BadRequest{std::string("missing key '") + key + "'"};
  Address a;
  if (!it->is_string() || !Address::parse(it->get<std::string>(), a)) {
    throw BadRequest{std::string("'") + key + "' must be an address \"a.b.c.d:port\" or " +
                     "\"[v6]:port\", not " + excerpt(*it)};
  }
  return a;
}

std::uint32_t get_named(const Json& r, std::string_view op, const char* key) {
  const UpperArg& a = arg(op, key);
  auto it = r.find(key);
  if (it == r.end()) return static_cast<std::uint32_t>(a.default_value.value_or(0));
  if (it->is_string()) {
    if (auto v = value_of(a.names, it->get<std::string>())) return *v;
    std::string names;
    for (const auto& e : a.names) names += (names.empty() ? "" : ", ") + std::string(e.name);
    throw BadRequest{std::string("'") + key + "' is " + excerpt(*it) + ", not one of " + names};
  }
  return static_cast<std::uint32_t>(get_uint(r, key, a.max, std::nullopt));
}

ref::MessageHandle get_handle(const SenderNode& node, const Json& r) {
  const auto h = get_uint(r, "status", "handle");
  if (!node.status(h)) throw BadRequest{"'handle' " + std::to_string(h) + ": no such message"};
  return h;
}

Json submit(SenderNode& node, const Json& r) {
  ref::MessageSpec spec;
  spec.receiver = get_address(r, "receiver");
  spec.length = get_uint(r, "submit", "length");
  spec.traffic_class = static_cast<std::uint8_t>(get_uint(r, "submit", "class"));
  spec.weight = static_cast<std::uint8_t>(get_uint(r, "submit", "weight"));
  spec.service_hint = static_cast<ServiceHint>(get_named(r, "submit", "service_hint"));
  spec.deadline_us = static_cast<std::uint32_t>(get_uint(r, "submit", "deadline_us"));
  const auto binding = get_named(r, "submit", "binding");
  if (binding != static_cast<std::uint32_t>(BindingKind::Opaque) &&
      binding != static_cast<std::uint32_t>(BindingKind::RoCEv2)) {
    throw Unsupported{"'binding' " + std::to_string(binding) +
                      ": this sender carries data over OPAQUE and ROCEV2 only"};
  }
  spec.binding = static_cast<BindingKind>(binding);
  spec.binding_value = get_uint(r, "submit", "binding_value");
  spec.force_scheduled = get_bool(r, "force_scheduled");
  // mode: this message in this mode. Unscheduled mode is the sender's choice where the spec
  // allows it (a message no larger than U); a sender that uses scheduled mode for every message
  // cannot honour it (Transmission Mode Selection: "A sender MAY use scheduled mode").
  if (const auto mode = r.find("mode"); mode != r.end()) {
    if (!mode->is_string() || (*mode != "scheduled" && *mode != "unscheduled")) {
      throw BadRequest{"'mode' is " + excerpt(*mode) + ", not \"scheduled\" or \"unscheduled\""};
    }
    if (*mode == "scheduled") spec.force_scheduled = true;
    if (*mode == "unscheduled" && !node.sender().config().allow_unscheduled) {
      throw Unsupported{
          "'mode' \"unscheduled\": this sender uses scheduled mode for every message"};
    }
  }
  spec.post_unit = get_uint(r, "submit", "post_unit");
  if (spec.receiver.ipv6 != node.rdcc_address().ipv6) {
    throw BadRequest{"'receiver' " + spec.receiver.to_string() +
                     ": not the address family of this sender (" + node.rdcc_address().to_string() +
                     ")"};
  }
  try {
    return {{"ok", true}, {"handle", node.submit(spec)}};
  } catch (const std::invalid_argument& e) {
    throw Unsupported{e.what()};
  }
}

Json status_response(const ref::MessageStatus& s) {
  Json j = to_json(s);
  j.erase("handle");
  Json out{{"ok", true}, {"handle", s.handle}};
  out.update(j);
  return out;
}

UpperTesterOutcome dispatch(SenderNode& node, const std::string& op, const Json& r, Time now) {
  if (op == "hello") {
    // What this sender offers, so that a tester can see a scenario's needs before its first
    // step: the ops, the submit modes, and the domain's unscheduled and class DSCPs as
    // configured.
    Json ops_list = Json::array();
    for (const auto& name : upper_op_list(upper_role::kSender)) ops_list.push_back(name);
    const auto& config = node.sender().config();
    Json modes = config.allow_unscheduled ? Json::array({"scheduled", "unscheduled"})
                                          : Json::array({"scheduled"});
    Json dscp = config.unscheduled_dscp ? Json(*config.unscheduled_dscp) : Json(nullptr);
    return Json{{"ok", true},
                {"role", "sender"},
                {"implementation", kImplementation},
                {"version", kImplementationVersion},
                {"ops", ops_list},
                {"modes", modes},
                {"unscheduled_dscp", dscp},
                {"class_dscp", config.class_dscp}};
  }
  if (op == "submit") return submit(node, r);
  if (op == "cancel") {
    node.cancel(get_handle(node, r));
    return Json{{"ok", true}};
  }
  if (op == "return_credit") {
    const auto h = get_handle(node, r);
    node.return_credit(h, get_uint(r, "return_credit", "new_limit"));
    return Json{{"ok", true}};
  }
  if (op == "link_pause") {
    node.link_pause();
    return Json{{"ok", true}};
  }
  if (op == "status") return status_response(*node.status(get_handle(node, r)));
  if (op == "wait") {
    const auto h = get_handle(node, r);
    const auto ms = get_uint(r, "wait", "timeout_ms");
    return PendingWait{h, now + ref::milliseconds(static_cast<std::int64_t>(ms)), nullptr};
  }
  if (op == "association") {
    const Address receiver = get_address(r, "receiver");
    auto a = node.sender().association(receiver);
    if (!a) return Json{{"ok", true}, {"exists", false}};
    return Json{{"ok", true},
                {"exists", true},
                {"established", a->established},
                {"without_rdcc", a->without_rdcc},
                {"association_id", a->association_id},
                {"epoch", a->epoch},
                {"unscheduled_limit", a->unscheduled_limit},
                {"start_jitter_us", a->start_jitter_us},
                {"backlog_threshold", a->backlog_threshold},
                {"grant_lifetime_us", a->grant_lifetime_us},
                {"credit_unit", a->credit_unit},
                {"capabilities", a->capabilities}};
  }
  return Json{{"ok", true}, {"stats", node.stats_json()}};  // "stats"
}

}  // namespace

UpperTesterOutcome handle_upper_tester_request(SenderNode& node, std::string_view line, Time now) {
  // Bounded: a value nested deeper than kJsonMaxDepth is never built (its copy and dump
  // would recurse off the stack), and a line is no longer than kJsonMaxLine.
  const auto read = parse_json<Json>(line, {kJsonMaxLine, kJsonMaxDepth});
  if (!read) return error_response("bad_request", "not JSON: " + read.error().describe());
  const Json& r = *read;
  Json id;
  try {
    if (!r.is_object()) throw BadRequest{"the request must be a JSON object, not " + excerpt(r)};
    if (auto it = r.find("id"); it != r.end()) id = *it;
    auto op_it = r.find("op");
    if (op_it == r.end()) throw BadRequest{"missing key 'op'"};
    if (!op_it->is_string()) throw BadRequest{"'op' must be a string, not " + excerpt(*op_it)};
    const std::string op = op_it->get<std::string>();
    const UpperOp* spec = sender_op(op);
    if (spec == nullptr) {
      throw BadRequest{"'op' \"" + excerpt(op) + "\" is not one of " +
                       upper_op_names(upper_role::kSender)};
    }
    for (const auto& [key, value] : r.items()) {
      if (key != "op" && key != "id" && find_upper_arg(*spec, key) == nullptr) {
        std::string detail = "unknown key '";
        detail += excerpt(key);
        detail += "' for op ";
        detail += op;
        throw BadRequest{std::move(detail)};
      }
    }
    auto out = dispatch(node, op, r, now);
    if (auto* w = std::get_if<PendingWait>(&out)) {
      w->id = id;
    } else if (!id.is_null()) {
      std::get<Json>(out)["id"] = id;
    }
    return out;
  } catch (const BadRequest& e) {
    Json out = error_response("bad_request", e.detail);
    if (!id.is_null()) out["id"] = id;
    return out;
  } catch (const Unsupported& e) {
    Json out = error_response("unsupported", e.detail);
    if (!id.is_null()) out["id"] = id;
    return out;
  }
}

std::optional<nlohmann::ordered_json> complete_wait(const SenderNode& node, const PendingWait& w,
                                                    Time now) {
  const auto s = node.status(w.handle);
  Json out;
  if (s && (s->state == ref::MessageState::Done || s->state == ref::MessageState::Aborted ||
            (s->without_rdcc && s->transmitted == s->length))) {
    out = status_response(*s);
  } else if (now >= w.deadline) {
    out = error_response("timeout", "'handle' " + std::to_string(w.handle) + " still " +
                                        (s ? ref::to_string(s->state) : "?") +
                                        " when 'timeout_ms' passed");
  } else {
    return std::nullopt;
  }
  if (!w.id.is_null()) out["id"] = w.id;
  return out;
}

// ---- the channel: lines in, lines out, in order -------------------------------------------

// One tester's connection (or stdin/stdout). Answers wait in `out_` until the tester takes them:
// a socket is written without blocking, and the rest when epoll says it can take more, so a
// tester that pipelines requests without reading never blocks the node's loop. Reading stops
// while more than kMaxUnsent octets of answers are unread or kMaxQueued requests wait, and
// starts again as they drain: what a channel holds stays bounded however much a tester sends.
// A request line is at most kJsonMaxLine octets: a longer one is dropped as it arrives (never
// held whole) and answered bad_request, and the queued requests hold at most kMaxQueuedOctets.
class UpperTesterServer::Channel {
 public:
  static constexpr std::size_t kMaxUnsent = std::size_t{8} << 20U;
  static constexpr std::size_t kMaxQueued = 4096;
  static constexpr std::size_t kMaxQueuedOctets = std::size_t{8} << 20U;

  Channel(EventLoop& loop, SenderNode& node, int in_fd, int out_fd, bool own,
          std::function<void()> on_eof)
      : loop_(loop),
        node_(node),
        in_fd_(in_fd),
        out_fd_(out_fd),
        own_(own),
        on_eof_(std::move(on_eof)),
        timer_(loop, [this] { poke(); }) {
    struct stat st {};
    if (::fstat(in_fd_, &st) == 0 && S_ISREG(st.st_mode)) {
      // epoll does not take regular files: a file of requests is read whole, then served
      // from the loop (so that the owner has set its callbacks by then).
      char chunk[4096];
      for (ssize_t n = ::read(in_fd_, chunk, sizeof chunk); n > 0;
           n = ::read(in_fd_, chunk, sizeof chunk)) {
        take_lines(std::string_view(chunk, static_cast<std::size_t>(n)));
      }
      splitter_.finish([this](LineSplitter::Line&& l) { queue(std::move(l)); });
      open_ = false;
      reading_ = false;
      timer_.arm(monotonic_now());
      return;
    }
    int type = 0;
    socklen_t len = sizeof type;
    socket_out_ = ::getsockopt(out_fd_, SOL_SOCKET, SO_TYPE, &type, &len) == 0;
    loop_.add(in_fd_, [this] { on_readable(); });
  }
  ~Channel() {
    loop_.remove(in_fd_);
    if (writable_watched_ && out_fd_ != in_fd_) loop_.remove(out_fd_);
    if (own_) ::close(in_fd_);
  }
  Channel(const Channel&) = delete;
  Channel& operator=(const Channel&) = delete;

  // Still serving: reading, or with requests or answers left.
  [[nodiscard]] bool open() const {
    return open_ || pending_ || !lines_.empty() || (unsent() != 0 && !gone_);
  }

  // Progress on the node: answer a pending wait, then the requests queued behind it.
  void poke() {
    if (pending_) {
      auto answer = complete_wait(node_, *pending_, monotonic_now());
      if (!answer) return;
      pending_.reset();
      timer_.disarm();
      write(*answer);
    }
    while (!pending_ && !lines_.empty() && unsent() <= kMaxUnsent) {
      const LineSplitter::Line line = std::move(lines_.front());
      lines_.pop_front();
      queued_octets_ -= line.text.size();
      if (line.too_long != 0) {
        write(error_response("bad_request", line_too_long(line.too_long, splitter_.max_line())));
        continue;
      }
      auto out = handle_upper_tester_request(node_, line.text, monotonic_now());
      if (auto* w = std::get_if<PendingWait>(&out)) {
        pending_ = *w;
        timer_.arm(w->deadline);
        poke();
      } else {
        write(std::get<Json>(out));
      }
    }
    update_reading();
    // The input ended and every request has its answer: the tester is done.
    if (!open_ && !pending_ && lines_.empty() && on_eof_) {
      auto done = std::move(on_eof_);
      on_eof_ = nullptr;
      done();
    }
  }

 private:
  void on_readable() {
    char chunk[4096];
    const ssize_t n = ::read(in_fd_, chunk, sizeof chunk);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
    if (n <= 0) {
      loop_.watch_readable(in_fd_, nullptr);  // its answers may still be on their way out
      reading_ = false;
      open_ = false;
      splitter_.finish([this](LineSplitter::Line&& l) { queue(std::move(l)); });
      poke();
      return;
    }
    take_lines(std::string_view(chunk, static_cast<std::size_t>(n)));
    poke();
  }

  // Queues every line `chunk` completes (blank lines are skipped).
  void take_lines(std::string_view chunk) {
    splitter_.feed(chunk, [this](LineSplitter::Line&& l) { queue(std::move(l)); });
  }
  void queue(LineSplitter::Line&& line) {
    if (line.too_long == 0 && line.text.find_first_not_of(" \t") == std::string::npos) return;
    queued_octets_ += line.text.size();
    lines_.push_back(std::move(line));
  }

  // Reads while the tester's unread answers and queued requests are within their bounds.
  void update_reading() {
    const bool want = open_ && unsent() <= kMaxUnsent && lines_.size() < kMaxQueued &&
                      queued_octets_ < kMaxQueuedOctets;
    if (want == reading_) return;
    reading_ = want;
    loop_.watch_readable(
        in_fd_, want ? std::function<void()>([this] { on_readable(); }) : std::function<void()>());
  }

  [[nodiscard]] std::size_t unsent() const { return out_.size() - out_sent_; }

  void write(const Json& j) {
    if (gone_) return;
    out_ += j.dump(-1, ' ', false, Json::error_handler_t::replace);
    out_ += '\n';
    flush();
  }

  // Sends what the tester's socket takes now; the rest when it can take more (on_writable).
  // Standard output that is no socket (a pipe or file of the parent) is written as it comes.
  void flush() {
    while (unsent() != 0) {
      const char* at = out_.data() + out_sent_;
      // MSG_NOSIGNAL: a tester that went away must not kill the sender with SIGPIPE.
      const ssize_t n = socket_out_ ? ::send(out_fd_, at, unsent(), MSG_NOSIGNAL | MSG_DONTWAIT)
                                    : ::write(out_fd_, at, unsent());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
      if (n <= 0) {  // the tester went away: its answers go nowhere
        gone_ = true;
        out_.clear();
        out_sent_ = 0;
        break;
      }
      out_sent_ += static_cast<std::size_t>(n);
    }
    if (out_sent_ == out_.size() || out_sent_ >= kMaxUnsent) {  // keep the buffer compact
      out_.erase(0, out_sent_);
      out_sent_ = 0;
    }
    const bool want = unsent() != 0;
    if (want != writable_watched_) {
      writable_watched_ = want;
      loop_.watch_writable(out_fd_, want ? std::function<void()>([this] { on_writable(); })
                                         : std::function<void()>());
    }
  }

  void on_writable() {
    flush();
    if (unsent() <= kMaxUnsent) poke();  // answers the requests held back, reads again
  }

  EventLoop& loop_;
  SenderNode& node_;
  int in_fd_;
  int out_fd_;
  bool own_;
  bool open_ = true;
  std::function<void()> on_eof_;
  Timer timer_;
  LineSplitter splitter_;                 // request lines, each at most kJsonMaxLine octets
  std::deque<LineSplitter::Line> lines_;  // requests not yet answered
  std::size_t queued_octets_ = 0;         // of lines_
  std::optional<PendingWait> pending_;
  bool socket_out_ = false;  // out_fd_ is a socket: written without blocking
  bool reading_ = true;      // in_fd_ is watched for input
  std::string out_;          // answers not yet taken by the tester, from out_sent_ on
  std::size_t out_sent_ = 0;
  bool writable_watched_ = false;
  bool gone_ = false;  // the tester went away
};

UpperTesterServer::UpperTesterServer(EventLoop& loop, SenderNode& node, std::string_view where)
    : loop_(loop), node_(node) {
  if (where == "stdio") {
    channels_.push_back(
        std::make_unique<Channel>(loop_, node_, STDIN_FILENO, STDOUT_FILENO, false, [this] {
          if (on_eof_) on_eof_();
        }));
  } else if (where.substr(0, 4) == "tcp:") {
    Address a;
    if (!Address::parse(where.substr(4), a)) {
      throw std::invalid_argument("upper-tester: '" + std::string(where) + "' is not tcp:IP:PORT");
    }
    if (!a.is_loopback()) {
      throw std::invalid_argument("upper-tester: " + a.to_string() +
                                  " is not a loopback address (127.0.0.0/8 or ::1)");
    }
    listen_fd_ = ::socket(a.ipv6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const int one = 1;
    (void)::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    SockAddr sa = to_sockaddr(a);
    if (listen_fd_ < 0 || ::bind(listen_fd_, sa.get(), sa.len) != 0 ||
        ::listen(listen_fd_, 8) != 0) {
      const int err = errno;
      if (listen_fd_ >= 0) ::close(listen_fd_);
      throw std::system_error(err, std::generic_category(),
                              "upper-tester: cannot listen on TCP " + a.to_string());
    }
    SockAddr bound;
    bound.len = sizeof bound.storage;
    (void)::getsockname(listen_fd_, bound.get_mut(), &bound.len);
    tcp_address_ = from_sockaddr(bound);
    loop_.add(listen_fd_, [this] { accept(); });
  } else {
    throw std::invalid_argument("upper-tester: '" + std::string(where) +
                                "' is neither stdio nor tcp:IP:PORT");
  }
  node_.set_on_progress([this] { poke(); });
}

UpperTesterServer::~UpperTesterServer() {
  node_.set_on_progress(nullptr);
  channels_.clear();
  if (listen_fd_ >= 0) {
    loop_.remove(listen_fd_);
    ::close(listen_fd_);
  }
}

std::optional<Address> UpperTesterServer::tcp_address() const {
  return tcp_address_;
}

void UpperTesterServer::accept() {
  std::erase_if(channels_, [](const auto& c) { return !c->open(); });
  const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
  if (fd < 0) return;
  channels_.push_back(std::make_unique<Channel>(loop_, node_, fd, fd, true, nullptr));
}

void UpperTesterServer::poke() {
  for (auto& c : channels_) c->poke();
}

}  // namespace rdcc::udp
