// The reference adapter: the in-process reference Receiver, Sender or Crn in virtual time,
// driven as io.hpp documents (drain poll_transmit and poll_data after every on_* call; time
// advances only to the endpoint's next_timeout or the runner's deadline).
#include <deque>
#include <limits>
#include <map>

#include "rdcc/codec/codec.hpp"
#include "rdcc/conformance/adapter.hpp"
#include "rdcc/reference/bindings.hpp"
#include "rdcc/reference/config_schema.hpp"
#include "rdcc/reference/crn.hpp"
#include "rdcc/reference/receiver.hpp"
#include "rdcc/reference/sender.hpp"
#include "rdcc/reference/variants.hpp"
#include "rdcc/testing/mutants.hpp"
#include "rdcc/testing/random_variants.hpp"
#include "rdcc/testing/receiver_mutants.hpp"
#include "rdcc/testing/sender_mutants.hpp"
#include "rdcc/udp/upper_tester_ops.hpp"

namespace rdcc::conformance {
namespace {

using json = nlohmann::json;

// The addresses of the in-process run (docs/scenario-language.md, "The reference IUT").
constexpr std::uint16_t kRdccPort = 50000;
constexpr std::uint16_t kDataPort = 50001;
const Address kIut = Address::v4(10, 0, 0, 1, kRdccPort);
const Address kIutData = Address::v4(10, 0, 0, 1, kDataPort);
const Address kIutRocev2 = Address::v4(10, 0, 0, 1, ref::kRocev2Port);
const Address kTester = Address::v4(10, 0, 0, 2, kRdccPort);
const Address kTesterData = Address::v4(10, 0, 0, 2, kDataPort);
const Address kOther = Address::v4(10, 0, 0, 3, kRdccPort);  // neither peer nor CRN
constexpr std::uint8_t kUnscheduledDscp = 8;
// Bounds a run whose endpoint keeps asking for the same instant (a faulty endpoint must give
// a verdict, not a hang).
constexpr int kMaxTimeoutsPerInstant = 100000;

class Collector final : public ref::Observer {
 public:
  void on_event(const ref::Event& e) override { events.push_back(e); }
  std::vector<ref::Event> events;
};

// The reference IUT's configuration before a scenario's `config`: the structs' defaults, its
// addresses, and for the CRN a switch port (docs/scenario-language.md, "The reference IUT").
ref::ReceiverConfig receiver_defaults() {
  ref::ReceiverConfig c;
  c.local = kIut;
  c.crn_addresses = {kTester};
  return c;
}
ref::SenderConfig sender_defaults() {
  ref::SenderConfig c;
  c.local = kIut;
  c.crn_addresses = {kTester};
  c.unscheduled_dscp = kUnscheduledDscp;
  // A domain whose classes are told apart (AF11, AF21, ... and CS5 for class 7), so that a
  // scenario that assumed DSCP 0 for every class would fail the reference.
  c.class_dscp = {0, 10, 18, 26, 34, 12, 20, 40};
  return c;
}
const Address kCrn = Address::v4(10, 0, 0, 254, kRdccPort);
ref::CrnConfig crn_defaults() {
  ref::CrnConfig c;
  c.local = kCrn;
  c.rdcc_port = kRdccPort;
  c.queue_threshold = 65536;
  c.queue_capacity = 1U << 20U;
  c.service_rate_mbps = 100000;
  c.unscheduled_dscps = {kUnscheduledDscp};
  return c;
}

// The scenario's `config` over the reference IUT's defaults `c`, through the role's one
// description (config_schema.hpp); `seed` is the adapter's own. An error names the key.
template <class Config>
std::optional<std::string> apply_config(const Scenario& s, Config& c) {
  for (const auto& [key, value] : s.config) {
    if (key == "seed") continue;
    if (auto e = ref::set_config(c, key, value)) return "config " + key + ": " + *e;
  }
  return std::nullopt;
}

class ReferenceAdapter final : public Adapter {
 public:
  explicit ReferenceAdapter(AdapterSpec spec) : spec_(std::move(spec)), random_(1) {}

  std::optional<std::string> start(const Scenario& s) override {
    const auto seed = s.config.find("seed");
    random_ = ref::SeededRandom(seed == s.config.end() ? 1 : seed->second);
    // --mutant: the faults of this scenario's role; those of the other roles leave it alone.
    mutants_ = testing::MutantSet{};
    for (const auto& name : spec_.mutants) {
      const auto* m = testing::find_mutant(name);
      if (m == nullptr) return "unknown mutant '" + name + "' (rdcc-conform --list-mutants)";
      if (to_string(m->role) == to_string(spec_.role)) mutants_.add(m->id);
    }
    // --variant: a conforming variant of this scenario's role; one of another role leaves it
    // alone, as a mutant does.
    variant_ = nullptr;
    if (!spec_.variant.empty()) {
      const auto* v = ref::find_variant(spec_.variant);
      if (v == nullptr)
        return "unknown variant '" + spec_.variant + "' (rdcc-conform --list-variants)";
      if (to_string(v->role) == to_string(spec_.role)) variant_ = v;
    }
    random_variant_.reset();
    if (!spec_.random_variant.empty()) {
      std::string error;
      random_variant_ = testing::parse_random_variant(spec_.random_variant, &error);
      if (!random_variant_) return error;
    }
    switch (spec_.role) {
      case Role::Receiver: return start_receiver(s);
      case Role::Sender: return start_sender(s);
      case Role::Crn: return start_crn(s);
      case Role::Any:
      case Role::Operator: break;
    }
    return "the reference plays a receiver, a sender or a CRN, not " +
           std::string(to_string(spec_.role));
  }

  [[nodiscard]] Address iut_control() const override {
    return spec_.role == Role::Crn ? crn_addr_ : kIut;
  }
  [[nodiscard]] Address iut_data() const override { return kIutData; }
  [[nodiscard]] Address iut_rocev2() const override { return receiver_ ? kIutRocev2 : Address{}; }
  [[nodiscard]] Address tester_control() const override { return kTester; }
  [[nodiscard]] Address tester_data() const override { return kTesterData; }
  [[nodiscard]] Address other_control() const override { return kOther; }
  [[nodiscard]] bool virtual_time() const override { return true; }
  [[nodiscard]] std::string describe() const override {
    return "reference:" + std::string(to_string(spec_.role));
  }
  [[nodiscard]] Time now() override { return now_; }

  void send(const Packet& p) override {
    if (p.data) {
      deliver_data(p);
    } else if (receiver_) {
      // The RDMA interface learns each RoCEv2 message's MSN span from its request, as
      // `rdcc receiver --rocev2` does (reference/udp/src/receiver_node.cpp).
      if (auto m = decode(p.payload)) {
        if (const auto* r = std::get_if<CreditRequest>(&*m);
            r != nullptr && r->binding_kind == static_cast<std::uint8_t>(BindingKind::RoCEv2)) {
          responder_.register_message(r->binding_value, r->message_id);
        }
      }
      receiver_->on_control(p.from, p.payload, now_);
    } else if (sender_) {
      sender_->on_control(p.from, p.payload, now_);
    }
    drain();
  }

  std::optional<Packet> receive(Time deadline) override {
    int same_instant = 0;
    for (;;) {
      if (!outbox_.empty()) {
        Packet p = std::move(outbox_.front());
        outbox_.pop_front();
        return p;
      }
      const auto t = next_timeout();
      if (!t || *t > deadline) break;
      same_instant = *t <= now_ ? same_instant + 1 : 0;
      if (same_instant > kMaxTimeoutsPerInstant) break;
      if (*t > now_) now_ = *t;
      if (receiver_) receiver_->on_timeout(now_);
      if (sender_) sender_->on_timeout(now_);
      if (crn_) dequeue_due();
      drain();
    }
    if (deadline > now_) now_ = deadline;
    return std::nullopt;
  }

  UpperResponse upper(const nlohmann::json& request) override {
    const std::string op = request.value("op", "");
    if (op == "hello") return *hello();
    if (op == "restart" && receiver_) {
      // The receiver loses its state and comes back with another Epoch.
      ref::ReceiverConfig c = receiver_->config();
      c.epoch = static_cast<std::uint16_t>(c.epoch % 65535U + 1U);
      receiver_ = std::make_unique<ref::Receiver>(c, &events_, &random_, receiver_policy_);
      responder_ = ref::Rocev2Responder();
      return json{{"ok", true}, {"epoch", c.epoch}};
    }
    if (!sender_) {
      return json{
          {"ok", false},
          {"error", "unsupported"},
          {"detail", op + " needs a sender; this IUT is a " + std::string(to_string(spec_.role))}};
    }
    if (op == "submit") return submit(request);
    if (op == "link_pause") {
      sender_->on_link_pause(now_);
      drain();
      return json{{"ok", true}};
    }
    const auto handle = request.value("handle", std::uint64_t{0});
    if (op == "cancel") {
      sender_->cancel(handle, now_);
      drain();
      return json{{"ok", true}};
    }
    if (op == "return_credit") {
      sender_->return_credit(handle, request.value("new_limit", std::uint64_t{0}), now_);
      drain();
      return json{{"ok", true}};
    }
    if (op == "status") {
      auto st = sender_->status(handle);
      if (!st) return json{{"ok", false}, {"error", "bad_request"}, {"detail", "no such handle"}};
      return json{{"ok", true},
                  {"state", ref::to_string(st->state)},
                  {"message_id", st->message_id},
                  {"length", st->length},
                  {"transmitted", st->transmitted},
                  {"grant_limit", st->grant_limit}};
    }
    if (op == "stats") {
      const auto& s = sender_->stats();
      return json{{"ok", true},
                  {"stats",
                   {{"credit_requests_sent", s.credit_requests_sent},
                    {"grants_received", s.grants_received},
                    {"messages_done", s.messages_done},
                    {"messages_aborted", s.messages_aborted}}}};
    }
    return json{{"ok", false}, {"error", "bad_request"}, {"detail", "unknown op '" + op + "'"}};
  }

  std::optional<std::string> queue(const QueueSample& q) override {
    if (!crn_) return std::string("queue observations need a CRN IUT");
    ref::QueueObservation o;
    o.port = q.port;
    o.occupancy = q.occupancy;
    o.dscp = q.dscp;
    o.flow.source = q.source;
    o.flow.destination = q.destination;
    o.flow.protocol = q.protocol;
    o.flows_in_queue = q.flows;
    crn_->on_dequeue(o, now_);
    drain();
    return std::nullopt;
  }

  std::vector<ref::Event> take_events() override {
    std::vector<ref::Event> out;
    out.swap(events_.events);
    return out;
  }

  [[nodiscard]] std::optional<std::pair<std::uint64_t, Duration>> receiver_budget() const override {
    if (!receiver_) return std::nullopt;
    return std::make_pair(receiver_->config().budget, receiver_->config().d_max);
  }
  [[nodiscard]] std::optional<std::string> unsupported() const override { return std::nullopt; }
  [[nodiscard]] const ref::DataFraming& data_framing() const override { return spec_.data_framing; }

  // What this IUT offers, as a real node's upper tester says it (docs/upper-tester.md).
  [[nodiscard]] std::optional<nlohmann::json> hello() const override {
    json j{{"ok", true},
           {"role", to_string(spec_.role)},
           {"implementation", "rdcc-reference"},
           {"version", "0.1.0"}};
    j["ops"] = json::array();
    for (const auto& op : udp::upper_tester_ops()) {
      if (serves(op)) j["ops"].push_back(op.name);
    }
    if (sender_) {
      j["modes"] = sender_->config().allow_unscheduled ? json::array({"scheduled", "unscheduled"})
                                                       : json::array({"scheduled"});
    }
    if (unscheduled_dscp_) {
      j["unscheduled_dscp"] = *unscheduled_dscp_;
    } else {
      j["unscheduled_dscp"] = nullptr;
    }
    if (sender_) j["class_dscp"] = sender_->config().class_dscp;
    return nlohmann::json::parse(j.dump());
  }
  [[nodiscard]] std::optional<std::uint8_t> unscheduled_dscp() const override {
    return unscheduled_dscp_;
  }
  [[nodiscard]] std::optional<ClassDscps> class_dscps() const override {
    if (sender_) return sender_->config().class_dscp;
    return ClassDscps{};
  }

 private:
  // The ops of the table (upper_tester_ops.hpp) this in-process IUT serves: those a scenario's
  // `upper` step sends, of its role; its receiver and CRN keep no counters to answer `stats`
  // with, its queue observations come through queue(), not the upper tester.
  [[nodiscard]] bool serves(const udp::UpperOp& op) const {
    const std::uint8_t role = sender_     ? udp::upper_role::kSender
                              : receiver_ ? udp::upper_role::kReceiver
                                          : udp::upper_role::kCrn;
    return op.upper_step && (op.roles & role) != 0 && (op.name != "stats" || sender_);
  }

  // Whether the scenario's `config` sets a key (a random variant's derived values follow the rest).
  static testing::SetByScenario set_by(const Scenario& s) {
    return [&s](std::string_view key) { return s.config.contains(std::string(key)); };
  }

  std::optional<std::string> start_receiver(const Scenario& s) {
    ref::ReceiverConfig c = receiver_defaults();
    if (random_variant_) testing::apply_config(*random_variant_, c);
    if (auto e = apply_config(s, c)) return e;
    std::shared_ptr<const ref::ReceiverPolicy> policy;
    if (random_variant_) testing::apply_policy(*random_variant_, set_by(s), c, policy);
    if (variant_ != nullptr) ref::apply_variant(variant_->name, c, policy);
    // Its variant and mutants, kept across an upper-tester restart.
    receiver_policy_ = testing::receiver_policy(mutants_, c, std::move(policy));
    receiver_ = std::make_unique<ref::Receiver>(c, &events_, &random_, receiver_policy_);
    return std::nullopt;
  }

  std::optional<std::string> start_sender(const Scenario& s) {
    ref::SenderConfig c = sender_defaults();
    if (random_variant_) testing::apply_config(*random_variant_, c);
    if (auto e = apply_config(s, c)) return e;
    unscheduled_dscp_ = c.unscheduled_dscp;
    std::shared_ptr<const ref::SenderPolicy> policy;
    if (random_variant_) testing::apply_policy(*random_variant_, set_by(s), c, policy);
    if (variant_ != nullptr) ref::apply_variant(variant_->name, c, policy);
    sender_ = std::make_unique<ref::Sender>(c, random_, &events_,
                                            testing::sender_policy(mutants_, policy));
    return std::nullopt;
  }

  std::optional<std::string> start_crn(const Scenario& s) {
    ref::CrnConfig c = crn_defaults();
    crn_addr_ = c.local;
    if (random_variant_) testing::apply_config(*random_variant_, c);
    if (auto e = apply_config(s, c)) return e;
    unscheduled_dscp_ = c.unscheduled_dscps.empty()
                            ? std::nullopt
                            : std::optional<std::uint8_t>(*c.unscheduled_dscps.begin());
    std::shared_ptr<const ref::CrnPolicy> policy;
    if (random_variant_) testing::apply_policy(*random_variant_, set_by(s), c, policy);
    if (variant_ != nullptr) ref::apply_variant(variant_->name, c, policy);
    crn_service_rate_ = c.service_rate_mbps;
    crn_capacity_ = c.queue_capacity;
    crn_ = std::make_unique<ref::Crn>(c, &events_, testing::crn_policy(mutants_, policy));
    return std::nullopt;
  }

  UpperResponse submit(const nlohmann::json& r) {
    ref::MessageSpec m;
    m.receiver = kTester;
    if (r.contains("receiver") && !Address::parse(r["receiver"].get<std::string>(), m.receiver)) {
      return json{{"ok", false}, {"error", "bad_request"}, {"detail", "receiver is not IP:PORT"}};
    }
    m.length = r.value("length", std::uint64_t{0});
    m.traffic_class = static_cast<std::uint8_t>(r.value("class", 0U));
    m.weight = static_cast<std::uint8_t>(r.value("weight", 1U));
    m.deadline_us = r.value("deadline_us", 0U);
    m.binding_value = r.value("binding_value", std::uint64_t{0});
    m.force_scheduled = r.value("force_scheduled", false);
    // mode: the sender uses this mode for the message; "unscheduled" only where it may (a
    // message no larger than U, Transmission Mode Selection), and never by a sender that uses
    // scheduled mode for every message.
    const std::string mode = r.value("mode", std::string());
    if (mode == "scheduled") m.force_scheduled = true;
    if (mode == "unscheduled" && !sender_->config().allow_unscheduled) {
      return json{{"ok", false},
                  {"error", "unsupported"},
                  {"detail", "this sender uses scheduled mode for every message"}};
    }
    if (r.contains("service_hint")) {
      const auto& v = r["service_hint"];
      auto n = v.is_string() ? value_of(kServiceHints, v.get<std::string>())
                             : std::optional<std::uint32_t>(v.get<std::uint32_t>());
      if (!n) return json{{"ok", false}, {"error", "bad_request"}, {"detail", "service_hint"}};
      m.service_hint = static_cast<ServiceHint>(*n);
    }
    if (r.contains("binding")) {
      const auto& v = r["binding"];
      auto n = v.is_string() ? value_of(kBindingKinds, v.get<std::string>())
                             : std::optional<std::uint32_t>(v.get<std::uint32_t>());
      if (!n) return json{{"ok", false}, {"error", "bad_request"}, {"detail", "binding"}};
      if (*n != static_cast<std::uint32_t>(BindingKind::Opaque)) {
        return json{{"ok", false},
                    {"error", "unsupported"},
                    {"detail", "the reference adapter carries the opaque binding only"}};
      }
    }
    const auto handle = sender_->submit(m, now_);
    drain();
    return json{{"ok", true}, {"handle", handle}};
  }

  void deliver_data(const Packet& p) {
    if (crn_) {
      enqueue(p);
      return;
    }
    if (!receiver_) return;
    if (p.rocev2) {
      deliver_rocev2(p);
      return;
    }
    auto op = spec_.data_framing.decode(p.payload);
    if (!op) {
      events_.on_event({now_, "adapter", "data_undecodable", {{"error", op.error().describe()}}});
      return;
    }
    const auto obs = ref::observe_opaque(op->header, kTester, p.ce, p.dscp == kUnscheduledDscp);
    receiver_->on_data(obs, now_);
  }

  // A RoCEv2 packet as `rdcc receiver --rocev2` takes it from its socket: the IP and UDP
  // headers rebuilt from the datagram's addresses (the ICRC covers them), the ICRC checked,
  // the payload octets counted on the destination queue pair as an RNIC's counters do.
  void deliver_rocev2(const Packet& p) {
    ref::Ipv4Udp h;
    h.source = p.from.ip;
    h.destination = p.to.ip;
    h.source_port = p.from.port;
    h.destination_port = ref::kRocev2Port;
    h.dscp = p.dscp;
    h.ecn = p.ce ? ref::kEcnCe : ref::kEcnEct0;
    std::vector<std::byte> ip_packet(ref::kIpv4HeaderSize + ref::kUdpHeaderSize + p.payload.size());
    if (auto n = ref::encode_ipv4_udp(h, p.payload, ip_packet); !n) {
      events_.on_event({now_, "adapter", "rocev2_undecodable", {{"error", n.error().describe()}}});
      return;
    }
    auto rp = ref::decode_rocev2(ip_packet);
    if (!rp) {
      events_.on_event({now_, "adapter", "rocev2_undecodable", {{"error", rp.error().describe()}}});
      return;
    }
    const auto counted = responder_.count(*rp, kTester, p.dscp == kUnscheduledDscp);
    receiver_->on_data(counted.observation, now_);
  }

  std::optional<Time> next_timeout() const {
    if (receiver_) return receiver_->next_timeout();
    if (sender_) return sender_->next_timeout();
    if (crn_ && !queue_.empty()) return link_free_ + head_time();
    return std::nullopt;
  }

  // ---- a CRN IUT's egress queue, fed by the data the tester sends (what `rdcc crn` does on
  // real sockets, reference/udp/src/crn_node.cpp): store and forward at the service rate, the
  // CRN observing each packet at dequeue, the data forwarded to the tester's data address ----

  struct Queued {
    Packet packet;
    std::uint64_t size = 0;  // with the IPv4 and UDP headers
  };

  [[nodiscard]] Duration head_time() const {
    return ref::transmission_time(queue_.front().size, crn_service_rate_);
  }

  void enqueue(const Packet& p) {
    Queued q{p, p.payload.size() + 28};
    if (occupancy_ + q.size > crn_capacity_) return;  // tail drop
    if (queue_.empty() && link_free_ < now_) link_free_ = now_;
    occupancy_ += q.size;
    ++flows_[p.from.to_string()];
    queue_.push_back(std::move(q));
    dequeue_due();
  }

  void dequeue_due() {
    while (!queue_.empty() && link_free_ + head_time() <= now_) {
      link_free_ = link_free_ + head_time();
      Queued q = std::move(queue_.front());
      queue_.pop_front();
      ref::QueueObservation o;
      o.port = 1;
      o.occupancy = occupancy_;  // Q at dequeue, this packet included
      o.dscp = q.packet.dscp;
      o.flow.source = q.packet.from;
      o.flow.destination = kTesterData;
      o.flows_in_queue = static_cast<std::uint32_t>(flows_.size());
      crn_->on_dequeue(o, now_);
      occupancy_ -= q.size;
      if (auto f = flows_.find(q.packet.from.to_string()); f != flows_.end() && --f->second == 0) {
        flows_.erase(f);
      }
      drain();
      q.packet.time = now_;
      q.packet.to = kTesterData;
      outbox_.push_back(std::move(q.packet));
    }
  }

  void drain() {
    auto take = [this](std::optional<ref::Datagram> d, const Address& from) {
      Packet p;
      p.time = now_;
      p.from = from;
      p.to = d->to;
      p.dscp = d->dscp;
      p.payload.assign(d->payload().begin(), d->payload().end());
      outbox_.push_back(std::move(p));
    };
    for (bool more = true; more;) {
      more = false;
      if (receiver_) {
        while (auto d = receiver_->poll_transmit()) take(d, kIut);
      }
      if (crn_) {
        while (auto d = crn_->poll_transmit()) take(d, crn_addr_);
      }
      if (sender_) {
        while (auto d = sender_->poll_transmit()) take(d, kIut);
        while (auto s = sender_->poll_data(now_)) {
          data_packet(*s);
          more = true;
        }
      }
    }
  }

  void data_packet(const ref::DataSegment& s) {
    const auto h = ref::opaque_header_for(s);
    std::vector<std::byte> zeros(s.length);
    std::vector<std::byte> out(spec_.data_framing.header_length() + s.length);
    auto n = spec_.data_framing.encode(h, zeros, out);
    if (!n) return;
    out.resize(*n);
    Packet p;
    p.time = now_;
    p.data = true;
    p.from = kIutData;  // the sender's data port, apart from its RDCC port (spec-notes 107)
    p.to = kTesterData;
    p.dscp = s.dscp;
    p.payload = std::move(out);
    p.segment = s;
    outbox_.push_back(std::move(p));
  }

  AdapterSpec spec_;
  testing::MutantSet mutants_;
  std::shared_ptr<const ref::ReceiverPolicy> receiver_policy_;
  const ref::VariantInfo* variant_ = nullptr;  // --variant, when it is of this scenario's role
  std::optional<testing::RandomVariant> random_variant_;  // --random-variant(s)
  ref::SeededRandom random_;
  Collector events_;
  Time now_{};
  Address crn_addr_;
  std::unique_ptr<ref::Receiver> receiver_;
  ref::Rocev2Responder responder_;
  std::unique_ptr<ref::Sender> sender_;
  // The unscheduled DSCP of the domain: the sender's or CRN's configured one; a receiver IUT
  // classifies nothing by it, and the tester marks its own unscheduled data with it.
  std::optional<std::uint8_t> unscheduled_dscp_ = kUnscheduledDscp;
  std::unique_ptr<ref::Crn> crn_;
  std::deque<Queued> queue_;
  std::uint64_t occupancy_ = 0;
  Time link_free_{};
  std::map<std::string, int> flows_;
  std::uint64_t crn_service_rate_ = 0;
  std::uint64_t crn_capacity_ = 0;
  std::deque<Packet> outbox_;
};

}  // namespace

std::vector<std::uint64_t> reference_config_default(Role role, std::string_view key) {
  switch (role) {
    case Role::Receiver: return ref::get_config(receiver_defaults(), key);
    case Role::Sender: return ref::get_config(sender_defaults(), key);
    case Role::Crn: return ref::get_config(crn_defaults(), key);
    case Role::Any:
    case Role::Operator: break;
  }
  return {};
}

std::unique_ptr<Adapter> make_reference_adapter(const AdapterSpec& spec) {
  return std::make_unique<ReferenceAdapter>(spec);
}

}  // namespace rdcc::conformance
