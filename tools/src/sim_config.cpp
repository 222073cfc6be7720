#include "sim_config.hpp"

#include <fstream>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>

#include "config_json.hpp"
#include "rdcc/codec/constants.hpp"
#include "rdcc/testing/mutants.hpp"
#include "rdcc/testing/receiver_mutants.hpp"

namespace rdcc::tools {
namespace {

using Json = nlohmann::json;

// One JSON object of the file: values are taken by key, and whatever key is left untaken is
// an error (a misspelt key must not silently fall back to a default).
class Obj {
 public:
  Obj(const Json& j, std::string path, const std::string& file)
      : j_(j), path_(std::move(path)), file_(file) {
    if (!j_.is_object()) fail(path_, "expected a JSON object, got " + std::string(j_.type_name()));
  }

  [[noreturn]] void fail(const std::string& where, const std::string& what) const {
    throw std::invalid_argument(file_ + ": " + (where.empty() ? "top level" : where) + ": " + what);
  }
  [[nodiscard]] std::string at(const std::string& key) const {
    return path_.empty() ? key : path_ + "." + key;
  }

  const Json* get(const std::string& key) {
    known_.insert(key);
    auto it = j_.find(key);
    return it == j_.end() ? nullptr : &*it;
  }

  template <class T>
  void uint(const std::string& key, T& out, std::uint64_t min = 0,
            std::uint64_t max = std::numeric_limits<T>::max()) {
    const Json* v = get(key);
    if (v == nullptr) return;
    if (!v->is_number_unsigned()) {
      fail(at(key), "expected an unsigned integer, got " + excerpt(*v));
    }
    const auto x = v->get<std::uint64_t>();
    if (x < min || x > max) {
      fail(at(key),
           std::to_string(x) + " is outside " + std::to_string(min) + ".." + std::to_string(max));
    }
    out = static_cast<T>(x);
  }
  void micros(const std::string& key, ref::Duration& out) {
    std::uint64_t us = 0;
    const bool had = j_.contains(key);
    uint(key, us, 0, std::uint64_t{1} << 40U);
    if (had) out = ref::microseconds(static_cast<std::int64_t>(us));
  }
  void millis(const std::string& key, ref::Duration& out) {
    std::uint64_t ms = 0;
    const bool had = j_.contains(key);
    uint(key, ms, 1, std::uint64_t{1} << 30U);
    if (had) out = ref::milliseconds(static_cast<std::int64_t>(ms));
  }
  // Every setting of `c`'s one description (config_schema.hpp) that the object gives.
  template <class Config>
  void settings(Config& c) {
    for (const auto& s : ref::config_settings<Config>()) {
      const Json* v = get(std::string(s.field.key));
      if (v == nullptr) continue;
      auto values = config_values_of_json(s, *v);
      if (auto* e = std::get_if<std::string>(&values)) fail(at(std::string(s.field.key)), *e);
      (void)ref::set_config(c, s.field.key, std::get<std::vector<std::uint64_t>>(values));
    }
  }
  void probability(const std::string& key, double& out) {
    const Json* v = get(key);
    if (v == nullptr) return;
    if (!v->is_number() || v->get<double>() < 0 || v->get<double>() > 1) {
      fail(at(key), "expected a probability in [0, 1], got " + excerpt(*v));
    }
    out = v->get<double>();
  }
  void boolean(const std::string& key, bool& out) {
    const Json* v = get(key);
    if (v == nullptr) return;
    if (!v->is_boolean()) fail(at(key), "expected true or false, got " + excerpt(*v));
    out = v->get<bool>();
  }
  void string(const std::string& key, std::string& out) {
    const Json* v = get(key);
    if (v == nullptr) return;
    if (!v->is_string()) fail(at(key), "expected a string, got " + excerpt(*v));
    out = v->get<std::string>();
  }
  // An optional nested object.
  std::optional<Obj> object(const std::string& key) {
    const Json* v = get(key);
    if (v == nullptr) return std::nullopt;
    return Obj(*v, at(key), file_);
  }
  // An array of objects (absent: empty).
  std::vector<Obj> objects(const std::string& key) {
    std::vector<Obj> out;
    const Json* v = get(key);
    if (v == nullptr) return out;
    if (!v->is_array())
      fail(at(key), "expected an array of objects, got " + std::string(v->type_name()));
    for (std::size_t i = 0; i < v->size(); ++i) {
      out.emplace_back((*v)[i], at(key) + "[" + std::to_string(i) + "]", file_);
    }
    return out;
  }

  // Every key read: anything else in the object is an error that lists the keys there are.
  void done() const {
    for (auto it = j_.begin(); it != j_.end(); ++it) {
      if (known_.count(it.key()) != 0) continue;
      std::string list;
      for (const auto& k : known_) list += (list.empty() ? "" : ", ") + k;
      fail(at(excerpt(it.key())), "unknown key (known here: " + list + ")");
    }
  }

  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] const std::string& file() const { return file_; }

 private:
  const Json& j_;
  std::string path_;
  const std::string& file_;
  std::set<std::string> known_;
};

void read_link(Obj o, sim::LinkConfig& link) {
  o.uint("rate_mbps", link.rate_mbps, 1);
  o.micros("delay_us", link.delay);
  o.done();
}

void read_impairments(Obj o, sim::Impairments& m) {
  o.probability("loss", m.loss);
  o.probability("duplicate", m.duplicate);
  o.probability("reorder", m.reorder);
  o.micros("reorder_delay_us", m.reorder_delay);
  o.probability("delay", m.delay);
  o.micros("max_extra_delay_us", m.max_extra_delay);
  o.done();
}

testing::MutantSet read_mutants(Obj& o, testing::MutantRole role) {
  testing::MutantSet set;
  const Json* v = o.get("mutants");
  if (v == nullptr) return set;
  if (!v->is_array()) o.fail(o.at("mutants"), "expected an array of mutant names");
  for (std::size_t i = 0; i < v->size(); ++i) {
    const Json& name = (*v)[i];
    const testing::MutantInfo* m =
        name.is_string() ? testing::find_mutant(name.get<std::string>()) : nullptr;
    if (m == nullptr || m->role != role) {
      std::string known;
      for (const auto* info : testing::mutants_of(role))
        known += (known.empty() ? "" : ", ") + std::string(info->name);
      o.fail(o.at("mutants") + "[" + std::to_string(i) + "]",
             excerpt(name) + " is not a " + std::string(testing::to_string(role)) +
                 " mutant; these are: " + known);
    }
    set.add(m->id);
  }
  return set;
}

SimHost read_host(Obj& o, const sim::LinkConfig& dflt, const std::string& name) {
  SimHost h{name, dflt};
  o.string("name", h.name);
  if (auto l = o.object("link")) read_link(*l, h.link);
  return h;
}

// `policy`: its mutants' ("mutants"), or null.
ref::ReceiverConfig read_receiver(Obj& o, std::shared_ptr<const ref::ReceiverPolicy>& policy) {
  ref::ReceiverConfig c;
  o.settings(c);
  const testing::MutantSet mutants = read_mutants(o, testing::MutantRole::Receiver);
  if (c.unscheduled_budget > c.budget) {
    o.fail(o.at("unscheduled_budget"), std::to_string(c.unscheduled_budget) +
                                           " is larger than budget " + std::to_string(c.budget) +
                                           " (G = G_s + G_u)");
  }
  policy = testing::receiver_policy(mutants, c);
  return c;
}

ref::SenderConfig read_sender(Obj& o, testing::MutantSet& mutants) {
  ref::SenderConfig c;
  o.settings(c);
  mutants = read_mutants(o, testing::MutantRole::Sender);
  return c;
}

// "to": a receiver's index or name.
std::size_t read_receiver_ref(Obj& o, const SimConfig& c) {
  const Json* v = o.get("to");
  if (v == nullptr) {
    if (c.receivers.size() == 1) return 0;
    o.fail(o.at("to"), "required when there is more than one receiver");
  }
  for (std::size_t i = 0; i < c.receivers.size(); ++i) {
    if ((v->is_number_unsigned() && v->get<std::uint64_t>() == i) ||
        (v->is_string() && v->get<std::string>() == c.receivers[i].first.name)) {
      return i;
    }
  }
  o.fail(o.at("to"), excerpt(*v) + " names no receiver (an index from 0 or a name)");
}

// "from": "*" (every sender), a sender's index or name, or an array of those.
std::vector<std::size_t> read_senders_ref(Obj& o, const SimConfig& c) {
  const Json* v = o.get("from");
  if (v == nullptr)
    o.fail(o.at("from"), "required: \"*\", a sender's index or name, or an array of them");
  std::vector<std::size_t> out;
  const auto one = [&](const Json& x) {
    if (x.is_string() && x.get<std::string>() == "*") {
      for (std::size_t i = 0; i < c.senders.size(); ++i) out.push_back(i);
      return;
    }
    for (std::size_t i = 0; i < c.senders.size(); ++i) {
      if ((x.is_number_unsigned() && x.get<std::uint64_t>() == i) ||
          (x.is_string() && x.get<std::string>() == c.senders[i].first.name)) {
        out.push_back(i);
        return;
      }
    }
    o.fail(o.at("from"), excerpt(x) + " names no sender (\"*\", an index from 0 or a name)");
  };
  if (v->is_array()) {
    for (const Json& x : *v) one(x);
  } else {
    one(*v);
  }
  return out;
}

SimMessage read_message(Obj& o, const SimConfig& c) {
  SimMessage m;
  m.senders = read_senders_ref(o, c);
  m.receiver = read_receiver_ref(o, c);
  if (o.get("length") == nullptr) o.fail(o.at("length"), "required (octets)");
  o.uint("length", m.spec.length, 0, std::uint64_t{1} << 48U);
  o.uint("class", m.spec.traffic_class, 0, 7);
  o.uint("weight", m.spec.weight, 1);
  o.uint("deadline_us", m.spec.deadline_us);
  o.boolean("scheduled", m.spec.force_scheduled);
  o.micros("at_us", m.at);
  o.uint("count", m.count, 1, 1U << 20U);
  o.micros("interval_us", m.interval);
  std::string binding = "opaque";
  o.string("binding", binding);
  if (binding == "rocev2") {
    m.spec.binding = BindingKind::RoCEv2;
  } else if (binding != "opaque") {
    o.fail(o.at("binding"), "'" + binding + "' is not opaque or rocev2");
  }
  std::string hint = "NONE";
  o.string("service_hint", hint);
  const auto h = value_of(kServiceHints, hint);
  if (!h)
    o.fail(o.at("service_hint"),
           "'" + hint + "' is not NONE, LATENCY_SENSITIVE or THROUGHPUT_ORIENTED");
  m.spec.service_hint = static_cast<ServiceHint>(*h);
  o.done();
  return m;
}

SimAction read_action(Obj& o, const SimConfig& c, std::size_t submissions) {
  SimAction a;
  if (o.get("at_us") == nullptr) o.fail(o.at("at_us"), "required");
  o.micros("at_us", a.at);
  if (auto r = o.object("restart_receiver")) {
    a.kind = SimAction::Kind::RestartReceiver;
    a.receiver = read_receiver_ref(*r, c);
    if (r->get("epoch") == nullptr)
      r->fail(r->at("epoch"), "required: the new Epoch (it MUST differ)");
    r->uint("epoch", a.epoch, 1, 65535);
    if (a.epoch == c.receivers[a.receiver].second.epoch) {
      r->fail(r->at("epoch"),
              "a restarted receiver MUST use a different Epoch than " + std::to_string(a.epoch));
    }
    r->done();
  } else if (o.get("cancel") != nullptr) {
    a.kind = SimAction::Kind::Cancel;
    o.uint("cancel", a.message);
    if (a.message >= submissions) {
      o.fail(o.at("cancel"), std::to_string(a.message) + " is not a submitted message (0.." +
                                 std::to_string(submissions == 0 ? 0 : submissions - 1) + ")");
    }
  } else {
    o.fail(o.path(), "an action needs restart_receiver or cancel");
  }
  o.done();
  return a;
}

void read_topology(Obj o, SimConfig& c) {
  std::string kind = "star";
  o.string("kind", kind);
  SimTopology& t = c.topology;
  if (kind == "leaf-spine") {
    t.kind = SimTopology::Kind::LeafSpine;
    for (const char* key : {"leaves", "spines", "hosts_per_leaf"}) {
      if (o.get(key) == nullptr) o.fail(o.at(key), "required for a leaf-spine");
    }
    o.uint("leaves", t.leaves, 1, 4096);
    o.uint("spines", t.spines, 1, 1024);
    o.uint("hosts_per_leaf", t.hosts_per_leaf, 1, 4096);
    t.fabric_link = c.link;
    if (auto l = o.object("fabric_link")) read_link(*l, t.fabric_link);
    o.boolean("ecmp", t.ecmp);
  } else if (kind != "star") {
    o.fail(o.at("kind"), "'" + kind + "' is not star or leaf-spine");
  }
  o.done();
}

// A message from `senders` to receiver `to` at `at`.
SimMessage workload_message(std::vector<std::size_t> senders, std::size_t to, std::uint64_t length,
                            ref::Duration at) {
  SimMessage m;
  m.senders = std::move(senders);
  m.receiver = to;
  m.spec.length = length;
  m.at = at;
  return m;
}

// A workload fills the receivers, senders and messages (docs/sim.md, "Workloads"); every
// receiver takes the parameters of `receiver`, every sender those of `sender`.
void read_workload(Obj w, const ref::ReceiverConfig& rc,
                   const std::shared_ptr<const ref::ReceiverPolicy>& receiver_policy,
                   const ref::SenderConfig& sc, const testing::MutantSet& sender_mutants,
                   SimConfig& c) {
  w.string("kind", c.workload);
  if (w.get("length") == nullptr) w.fail(w.at("length"), "required (octets)");
  std::uint64_t length = 0;
  w.uint("length", length, 1, std::uint64_t{1} << 40U);
  ref::Duration at{};
  w.micros("at_us", at);
  const auto receiver = [&](const std::string& name) {
    ref::ReceiverConfig r = rc;
    r.name = name;
    c.receivers.emplace_back(SimHost{name, c.link, std::nullopt, {}, receiver_policy}, r);
  };
  const auto sender = [&](const std::string& name, std::optional<std::size_t> on) {
    ref::SenderConfig s = sc;
    s.name = name;
    c.senders.emplace_back(SimHost{name, c.link, on, sender_mutants}, s);
  };
  if (c.workload == "incast") {
    std::size_t n = 0;
    if (w.get("senders") == nullptr) w.fail(w.at("senders"), "required: how many senders");
    w.uint("senders", n, 1, 1U << 16U);
    std::size_t count = 1;
    w.uint("count", count, 1, 1U << 20U);
    ref::Duration interval{};
    w.micros("interval_us", interval);
    receiver("receiver");
    std::vector<std::size_t> all;
    for (std::size_t i = 0; i < n; ++i) {
      sender("sender-" + std::to_string(i), std::nullopt);
      all.push_back(i);
    }
    SimMessage m = workload_message(all, 0, length, at);
    m.count = count;
    m.interval = interval;
    c.messages.push_back(std::move(m));
  } else if (c.workload == "all-to-all") {
    // MoE expert parallelism: per layer a dispatch round (every host sends `length` to every
    // other) and a combine round (`combine_length` back), `round_interval_us` apart.
    std::size_t n = 0;
    if (w.get("hosts") == nullptr) w.fail(w.at("hosts"), "required: how many hosts take part");
    w.uint("hosts", n, 2, 1U << 16U);
    std::uint64_t combine = length;
    w.uint("combine_length", combine, 1, std::uint64_t{1} << 40U);
    std::size_t layers = 1;
    w.uint("layers", layers, 1, 1024);
    bool combine_round = true;  // false: the dispatch rounds alone
    w.boolean("combine", combine_round);
    // By default a round is given its ideal time (every host's link receiving from all the
    // others at line rate) and a quarter more.
    const std::uint64_t longest = std::max(length, combine) * (n - 1);
    ref::Duration interval = ref::microseconds(
        static_cast<std::int64_t>(longest * 8 * 5 / (4 * std::uint64_t{c.link.rate_mbps}) + 10));
    w.micros("round_interval_us", interval);
    for (std::size_t i = 0; i < n; ++i) {
      receiver("host-" + std::to_string(i));
      sender("host-" + std::to_string(i), i);
    }
    const std::size_t per_layer = combine_round ? 2 : 1;
    for (std::size_t round = 0; round < per_layer * layers; ++round) {
      const ref::Duration t = at + interval * static_cast<std::int64_t>(round);
      for (std::size_t j = 0; j < n; ++j) {
        std::vector<std::size_t> from;
        for (std::size_t i = 0; i < n; ++i) {
          if (i != j) from.push_back(i);
        }
        c.messages.push_back(
            workload_message(std::move(from), j, round % 2 == 0 ? length : combine, t));
      }
    }
  } else if (c.workload == "kv-cache") {
    // Disaggregated inference: each finished prefill moves its KV cache to a decode host,
    // prefill k % P to decode k % D, `interval_us` apart.
    std::size_t prefill = 0;
    std::size_t decode = 0;
    if (w.get("prefill") == nullptr) w.fail(w.at("prefill"), "required: how many prefill hosts");
    if (w.get("decode") == nullptr) w.fail(w.at("decode"), "required: how many decode hosts");
    w.uint("prefill", prefill, 1, 1U << 16U);
    w.uint("decode", decode, 1, 1U << 16U);
    std::size_t count = prefill;
    w.uint("count", count, 1, 1U << 20U);
    ref::Duration interval{};
    w.micros("interval_us", interval);
    for (std::size_t j = 0; j < decode; ++j) receiver("decode-" + std::to_string(j));
    for (std::size_t i = 0; i < prefill; ++i) sender("prefill-" + std::to_string(i), std::nullopt);
    for (std::size_t k = 0; k < count; ++k) {
      c.messages.push_back(workload_message({k % prefill}, k % decode, length,
                                            at + interval * static_cast<std::int64_t>(k)));
    }
  } else {
    w.fail(w.at("kind"), "'" + c.workload + "' is not incast, all-to-all or kv-cache");
  }
  w.done();
}

// The receivers, senders and messages, each listed.
void read_tables(Obj& top, SimConfig& c) {
  std::size_t index = 0;
  for (Obj& o : top.objects("receivers")) {
    SimHost h = read_host(o, c.link, "receiver-" + std::to_string(index++));
    ref::ReceiverConfig rc = read_receiver(o, h.receiver_policy);
    o.done();
    rc.name = h.name;
    c.receivers.emplace_back(std::move(h), std::move(rc));
  }
  if (c.receivers.empty()) top.fail("receivers", "required: at least one receiver");
  index = 0;
  for (Obj& o : top.objects("senders")) {
    std::size_t count = 1;
    o.uint("count", count, 1, 1U << 16U);
    SimHost h = read_host(o, c.link, "sender");
    ref::SenderConfig sc = read_sender(o, h.mutants);
    o.done();
    for (std::size_t k = 0; k < count; ++k) {
      SimHost each = h;
      if (count > 1 || o.get("name") == nullptr) each.name = h.name + "-" + std::to_string(index);
      ++index;
      sc.name = each.name;
      c.senders.emplace_back(std::move(each), sc);
    }
  }
  if (c.senders.empty()) top.fail("senders", "required: at least one sender");
  for (Obj& o : top.objects("messages")) c.messages.push_back(read_message(o, c));
  if (c.messages.empty()) top.fail("messages", "required: at least one message");
}

}  // namespace

SimConfig parse_sim_config(const std::string& text, const std::string& file) {
  const auto read = parse_json<Json>(text);
  if (!read) {
    const JsonInputError& e = read.error();
    throw std::invalid_argument(
        file + (e.line == 0 ? "" : ":" + std::to_string(e.line) + ":" + std::to_string(e.column)) +
        ": " + e.what);
  }
  const Json& j = *read;
  SimConfig c;
  c.file = file;
  Obj top(j, "", file);
  top.uint("seed", c.network.seed);
  top.millis("duration_ms", c.limit);
  top.micros("sample_us", c.sample);
  top.uint("rdcc_port", c.network.rdcc_port, 1, 65535);
  top.uint("data_port", c.network.data_port, 1, 65535);
  if (c.network.rdcc_port == c.network.data_port) top.fail("data_port", "is the RDCC port");
  if (auto l = top.object("link")) read_link(*l, c.link);
  if (auto q = top.object("queue")) {
    q->uint("capacity", c.network.queue.capacity, 1);
    std::uint64_t ecn = 0;
    if (q->get("ecn_threshold") != nullptr) {
      q->uint("ecn_threshold", ecn, 1);
      c.network.queue.ecn_threshold = ecn;
    }
    q->done();
  }
  if (auto i = top.object("impairments")) {
    if (auto ctl = i->object("control")) read_impairments(*ctl, c.network.control);
    if (auto data = i->object("data")) read_impairments(*data, c.network.data);
    i->done();
  }
  if (auto crn = top.object("crn")) {
    ref::CrnConfig cc;
    crn->settings(cc);
    crn->done();
    c.network.crn = cc;
  }
  if (auto t = top.object("topology")) read_topology(*t, c);
  if (auto w = top.object("workload")) {
    for (const char* key : {"receivers", "senders", "messages"}) {
      if (top.get(key) != nullptr)
        top.fail(key, "a description with a workload has none (the workload makes them)");
    }
    ref::ReceiverConfig rc;
    std::shared_ptr<const ref::ReceiverPolicy> receiver_policy;
    if (auto r = top.object("receiver")) {
      rc = read_receiver(*r, receiver_policy);
      r->done();
    }
    ref::SenderConfig sc;
    testing::MutantSet sender_mutants;
    if (auto s = top.object("sender")) {
      sc = read_sender(*s, sender_mutants);
      s->done();
    }
    read_workload(*w, rc, receiver_policy, sc, sender_mutants, c);
  } else {
    read_tables(top, c);
  }
  std::size_t submissions = 0;
  for (const auto& m : c.messages) submissions += m.senders.size() * m.count;
  for (Obj& o : top.objects("actions")) c.actions.push_back(read_action(o, c, submissions));
  top.done();
  return c;
}

SimConfig load_sim_config(const std::string& path) {
  std::ifstream file;
  if (path != "-") {
    file.open(path, std::ios::binary);
    if (!file) throw std::invalid_argument(path + ": cannot be read");
  }
  const std::string name = path == "-" ? "standard input" : path;
  std::string text;
  if (!read_at_most(path == "-" ? std::cin : file, kJsonMaxDocument, text)) {
    throw std::invalid_argument(name + ": " + too_long(kJsonMaxDocument, "the file").describe());
  }
  return parse_sim_config(text, name);
}

}  // namespace rdcc::tools
