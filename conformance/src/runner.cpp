#include "rdcc/conformance/runner.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <deque>
#include <limits>
#include <map>
#include <set>

#include "rdcc/codec/codec.hpp"
#include "rdcc/codec/format.hpp"
#include "rdcc/codec/hex.hpp"
#include "rdcc/codec/json.hpp"
#include "rdcc/codec/rocev2.hpp"
#include "rdcc/reference/bindings.hpp"
#include "rdcc/udp/upper_tester_ops.hpp"
#include "steps/crn_reports.hpp"
#include "steps/order_proof.hpp"
#include "steps/weight_share.hpp"

namespace rdcc::conformance {
namespace {

using json = nlohmann::ordered_json;

// The DSCP the tester marks its own unscheduled data with when the IUT has none configured
// (a receiver classifies nothing by it): the reference domain's (docs/scenario-language.md).
constexpr std::uint8_t kUnscheduledDscp = 8;

// Whether `v` is the variable `name`.
bool is_variable(const Value& v, std::string_view name) {
  return v.kind == Value::Kind::Variable && v.text == name;
}

bool pattern_uses(const Pattern& p, std::string_view name) {
  return std::any_of(p.matchers.begin(), p.matchers.end(),
                     [&](const Matcher& m) { return is_variable(m.value, name); });
}

// Whether the step `st` reads the variable `name`.
bool step_uses(const Step& st, std::string_view name) {
  const auto in = [&](const std::vector<Pattern>& ps) {
    return std::any_of(ps.begin(), ps.end(),
                       [&](const Pattern& p) { return pattern_uses(p, name); });
  };
  return pattern_uses(st.pattern, name) || in(st.alternatives) || in(st.ignore_patterns) ||
         std::any_of(st.raw_fields.begin(), st.raw_fields.end(),
                     [&](const RawField& f) { return is_variable(f.value, name); });
}

// The names a JSON array of strings holds, or none when it is not one.
std::optional<std::set<std::string>> names_in(const nlohmann::json& hello, const char* key) {
  const auto it = hello.find(key);
  if (it == hello.end() || !it->is_array()) return std::nullopt;
  std::set<std::string> out;
  for (const auto& v : *it) {
    if (v.is_string()) out.insert(v.get<std::string>());
  }
  return out;
}

std::string joined(const std::set<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// A step's outcome when it ends the scenario.
struct Stop {
  Verdict verdict;
  std::string reason;
  std::string expected;
  std::string actual;
  // A Fail decided away from its step (an invariant, a watch): the requirements it concerns.
  std::vector<std::string> checks{};
  // Inconclusive because the IUT stayed silent for the tester's patience.
  bool patience = false;
  // The frames of the trace (1-based) the verdict cites (ScenarioResult::frames).
  std::vector<std::size_t> frames{};
};

std::string describe_duration(Duration d) {
  if (d.ns % 1000000 == 0) return std::to_string(d.ns / 1000000) + "ms";
  if (d.ns % 1000 == 0) return std::to_string(d.ns / 1000) + "us";
  return std::to_string(d.ns) + "ns";
}

// How long transfer waits for credit before it asks again.
constexpr ref::Duration kTransferRetry = ref::milliseconds(1);
// The longest `wait $VAR us|ms` the tester plays: ten seconds (a Lifetime is at most 2^32 us).
constexpr ref::Duration kMaxVariableWait = ref::milliseconds(10000);
// transfer overrun=N: how long after its data beyond the Grant Limit a grant may still have
// been sent before that data arrived (widened on real sockets), and how long after the repeated
// request the tester waits for a grant the receiver must not send.
constexpr ref::Duration kOverrunSlack = ref::microseconds(100);
constexpr ref::Duration kOverrunWatch = ref::milliseconds(4);

struct DataView {
  std::uint64_t message = 0, offset = 0, length = 0, last = 0, unscheduled = 0, ce = 0, dscp = 0;
  std::uint64_t source_port = 0;  // the UDP port it left the IUT from
};

// A message a transfer plays: its ID, its data, its length, and the offset it has sent to.
struct Play {
  std::uint64_t mid = 0;
  DataView dv;
  std::uint64_t length = 0;
  std::uint64_t at = 0;
};

class Run {
 public:
  Run(const Scenario& s, Adapter& a, const RunOptions& o) : s_(s), a_(a), o_(o) {}

  ScenarioResult go() {
    const auto wall_start = std::chrono::steady_clock::now();
    ScenarioResult r = not_run(s_, Verdict::Pass, "");
    start_ = a_.now();
    set_builtins();
    if (s_.role == Role::Receiver) {
      if (auto b = a_.receiver_budget()) {
        checker_.add_receiver(a_.iut_control(), b->first, b->second);
      }
    } else if (s_.role == Role::Sender) {
      // The tester plays the receiver: its grants are the scenario's, never a violation of
      // the IUT (rule_binds filters them); a budget that cannot be exceeded.
      checker_.add_receiver(a_.tester_control(), std::numeric_limits<std::uint64_t>::max() / 4,
                            ref::microseconds(20));
    }
    if (auto need = missing_need()) {
      r.verdict = Verdict::Unsupported;
      r.reason = need->second;
      r.where = need->first->where;
      r.step = need->first->text;
      r.elapsed = a_.now() - start_;
      r.wall_seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
      return r;
    }
    // The tester plays every receiver of a sender IUT and drives its upper tester: it sees all
    // that reaches the sender, so the sender's request retransmissions can be held to their
    // timeout (RDCC-GRANT-15 from below; feed_checker and upper() report each input).
    checker_.set_request_backoff(s_.role == Role::Sender);
    if (!a_.virtual_time()) {
      // On real sockets the tester sees the IUT's packets a little after the IUT decided to
      // send them, and never sees when the IUT read the tester's: the checker allows the one
      // (data after a Lifetime, pacing, a receiver's reclamation) and does not assume the
      // other (a grant's Lifetime runs from the first data only it authorizes).
      tolerance_ = o_.checker_tolerance;
      // Where the tester cannot see a boundary the IUT acts on (explore's episodes, the read of
      // an ERROR below): the window tolerance and at least 2 ms.
      const Duration boundary_slack =
          std::max({tolerance_, o_.tolerance_abs, Duration{ref::milliseconds(2)}});
      // Explore's episodes are not timing scenarios: their short Lifetimes and high rates put
      // a real IUT's sends at a boundary many times per episode, where a host's scheduling
      // delay between the IUT's decision and its send would be judged a violation. On real
      // sockets they judge timing with the window tolerance and at least 2 ms (limits, Sequence
      // Numbers and unscheduled rules stay exact); in process, exactly (docs/explore.md).
      if (std::find(s_.tags.begin(), s_.tags.end(), "explore") != s_.tags.end()) {
        tolerance_ = boundary_slack;
      }
      checker_.set_timing_tolerance(tolerance_);
      checker_.set_grant_reception_unseen(true);
      checker_.set_send_time_tolerance(tolerance_);
      // When the sender read an ERROR (UNKNOWN_ASSOCIATION) has no proof like a grant's first
      // data: an IUT that reads its control socket between batches of data may send under the
      // credit it must discard for a while (RDCC-ASSOC-04 allows the window tolerance and at
      // least 2 ms; a sender that ignores the ERROR sends on for the grant's whole Lifetime).
      checker_.set_discard_slack(boundary_slack);
    }
    if (s_.role == Role::Crn) {
      crn_reports_.emplace(s_.config, a_.unscheduled_dscp(), a_.tester_control().port,
                           a_.virtual_time() ? Duration{} : tolerance_);
    }
    // On real sockets the steps are followed by a linger (after the last one): what the IUT
    // sent before the scenario ended may reach the tester after it, and is judged too.
    const bool linger = !a_.virtual_time() && !s_.steps.empty() && s_.role != Role::Crn;
    for (std::size_t i = 0; i < s_.steps.size() + (linger ? 1 : 0); ++i) {
      const bool tail = i == s_.steps.size();
      const Step& step = tail ? s_.steps.back() : s_.steps[i];
      origin_ = std::exchange(matched_at_, std::nullopt);
      std::optional<Stop> stop = tail ? linger_after_steps() : play(step);
      collect_events();
      // A broken invariant or watch is a failure even where the step itself ended undecided
      // (a transfer that got no more credit after a MSG_DONE that came early).
      if (!stop || stop->verdict == Verdict::Inconclusive) {
        if (auto v = check_invariants()) stop = std::move(v);
      }
      if (!stop || stop->verdict == Verdict::Inconclusive) {
        if (auto w = std::exchange(watch_failure_, std::nullopt)) stop = std::move(w);
      }
      if (!stop && a_.unsupported()) stop = Stop{Verdict::Unsupported, *a_.unsupported(), "", ""};
      if (stop) {
        if (stop->verdict == Verdict::Fail) {
          r.cited = !stop->checks.empty()  ? stop->checks
                    : !step.checks.empty() ? step.checks
                                           : s_.checks;
          stop->verdict = verdict_of_failure(r.cited, o_.level_of, o_.strict, r.level);
        }
        if (stop->patience) {
          // Silence for the patience proves nothing (no deadline), so never a Fail, not even
          // under --strict. Where the step checks only recommendations (SHOULD), the IUT may
          // simply have declined one: a Warn, as the failure of a SHOULD is.
          auto cited = !step.checks.empty() ? step.checks : s_.checks;
          std::string level;
          if (verdict_of_failure(cited, o_.level_of, false, level) == Verdict::Warn) {
            stop->verdict = Verdict::Warn;
            r.cited = std::move(cited);
            r.level = level;
          }
        }
        r.verdict = stop->verdict;
        r.reason = stop->reason;
        r.expected = stop->expected;
        r.actual = stop->actual;
        r.patience_elapsed = stop->patience;
        r.where = step.where;
        r.step = step.text;
        r.frames = std::move(stop->frames);
        // Nothing arrived: the last frame the tester sent is the one left unanswered.
        if (r.frames.empty() && r.actual == "nothing") r.frames = last_sent_frame();
        break;
      }
    }
    if (!a_.virtual_time()) {
      r.checker_tolerance = tolerance_;
      r.wake_jitter = a_.wake_jitter();
    }
    r.hosts = hosts();
    r.trace = std::move(trace_);
    r.events = std::move(events_);
    const auto& found = checker_.violations();
    for (std::size_t i = 0; i < found.size(); ++i) {
      if (!rule_binds(found[i], s_.role)) continue;
      r.violations.push_back(found[i]);
      r.violation_frames.push_back(i < violation_frames_.size() ? violation_frames_[i] : 0);
    }
    r.elapsed = a_.now() - start_;
    r.wall_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    return r;
  }

 private:
  // What the scenario needs that this IUT or adapter lacks, checked before the first step so
  // that a missing optional feature is "unsupported", never a failure of an earlier step: the
  // step that needs it and why.
  std::optional<std::pair<const Step*, std::string>> missing_need() const {
    const auto first = [&](auto pred) -> const Step* {
      const auto it = std::find_if(s_.steps.begin(), s_.steps.end(), pred);
      return it == s_.steps.end() ? nullptr : &*it;
    };
    if (a_.iut_rocev2().port == 0) {
      if (const Step* st = first([](const Step& x) { return x.kind == Step::Kind::SendRocev2; })) {
        return std::pair{st, a_.describe() +
                                 " has no RoCEv2 port for the IUT (exec: put "
                                 "{rocev2_port} in the command; udp: add ,rocev2=PORT)"};
      }
    }
    // The first step that reads the variable (none: the scenario does not use it).
    const auto step_using = [&](const std::string& name) {
      return first([&](const Step& x) { return step_uses(x, name); });
    };
    if (!a_.unscheduled_dscp()) {
      if (const Step* st = step_using("unscheduled_dscp")) {
        return std::pair{st,
                         "needs the DSCP the domain configures for unscheduled data "
                         "($unscheduled_dscp), and the IUT has none configured (its hello's "
                         "\"unscheduled_dscp\", or --unscheduled-dscp)"};
      }
    }
    if (!a_.class_dscps()) {
      for (std::size_t c = 0; c < ClassDscps{}.size(); ++c) {
        const std::string name = "class_dscp_" + std::to_string(c);
        if (const Step* st = step_using(name)) {
          return std::pair{st, "needs the DSCP the domain configures for Traffic Class " +
                                   std::to_string(c) + " ($" + name +
                                   "), and the IUT declares none (its hello's \"class_dscp\" "
                                   "is null, or --class-dscp none)"};
        }
      }
    }
    const auto hello = a_.hello();
    if (!hello) return std::nullopt;
    if (const auto ops = names_in(*hello, "ops")) {
      for (const auto& st : s_.steps) {
        if (st.kind == Step::Kind::Upper && ops->count(st.upper_op) == 0) {
          return std::pair{&st, "needs upper " + st.upper_op +
                                    ", which the IUT's upper tester "
                                    "does not offer (its hello lists " +
                                    joined(*ops) + ")"};
        }
      }
    }
    if (const auto modes = names_in(*hello, "modes")) {
      for (const auto& st : s_.steps) {
        for (const auto& m : st.pattern.matchers) {
          if (st.kind != Step::Kind::Upper || m.field != "mode" || m.value.names.empty()) continue;
          if (modes->count(m.value.names.front()) == 0) {
            return std::pair{&st,
                             "needs a message sent in " + m.value.names.front() +
                                 " mode, which the IUT does not offer (its hello lists modes " +
                                 joined(*modes) + ")"};
          }
        }
      }
    }
    return std::nullopt;
  }

  // After the last step, on real sockets: the packets that arrive within the window tolerance
  // go to the invariant checker (a sender's data under a stale or forged grant, answered late
  // on a loaded host, breaks its rules whenever it comes), never to the steps, and not to the
  // watches, which held for the steps (a rate may rise again once the scenario is over).
  std::optional<Stop> linger_after_steps() {
    watches_.clear();
    weight_share_.reset();
    const Time until = a_.now() + widen(Duration{});
    while (next(until)) {
    }
    return std::nullopt;
  }

  std::optional<Stop> play(const Step& step) {
    switch (step.kind) {
      case Step::Kind::Send: return send_message(step);
      case Step::Kind::SendRaw: return send_raw(step);
      case Step::Kind::SendData: return send_data(step);
      case Step::Kind::SendRocev2: return send_rocev2(step);
      case Step::Kind::Expect: return step.seen ? seen(step) : expect(step);
      case Step::Kind::Silence: return silence(step);
      case Step::Kind::Ignore: ignored_ = step.ignore_patterns; return std::nullopt;
      case Step::Kind::Set:
        for (const auto& m : step.pattern.matchers) {
          auto v = resolve(m.value);
          if (!v) return unresolved(m.value);
          vars_[m.field] = *v;
        }
        return std::nullopt;
      case Step::Kind::Defaults:
        for (const auto& m : step.pattern.matchers) {
          auto v = resolve(m.value);
          if (!v) return unresolved(m.value);
          defaults_[m.field] = *v;
        }
        return std::nullopt;
      case Step::Kind::Upper: return upper(step);
      case Step::Kind::Queue: return queue(step);
      case Step::Kind::Wait: {
        if (step.pattern.matchers.empty()) return wait(step.within);
        // wait $VAR us|ms: the variable's value in the step's unit.
        auto v = resolve(step.pattern.matchers.front().value);
        if (!v) return unresolved(step.pattern.matchers.front().value);
        if (*v > static_cast<std::uint64_t>(kMaxVariableWait.ns / step.within.ns)) {
          return Stop{Verdict::Inconclusive,
                      step.where.to_string() + ": a wait of " + std::to_string(*v) +
                          (step.within == ref::microseconds(1) ? " us" : " ms") +
                          " is longer than the tester waits (" +
                          describe_duration(kMaxVariableWait) + ")",
                      step.text, ""};
        }
        return wait(step.within * static_cast<std::int64_t>(*v));
      }
      case Step::Kind::Transfer: return transfer(step);
      case Step::Kind::Watch: {
        const auto& field = step.pattern.matchers.front().field;
        if (field == kWeightShare) return watch_weight_share(step);
        auto v = resolve(step.pattern.matchers.front().value);
        if (!v) return unresolved(step.pattern.matchers.front().value);
        watches_[field] = Watch{step.pattern.matchers.front().op, *v, step.text,
                                step.checks.empty() ? s_.checks : step.checks};
        return field == kPacingSum ? check_watch(a_.now()) : check_unscheduled_watch();
      }
      case Step::Kind::Require: return require(step);
      case Step::Kind::Spread: return spread(step);
    }
    return std::nullopt;
  }

  // ---- values ----

  // require VAR OP VALUE ... "reason": unsupported, with the reason, unless all hold.
  std::optional<Stop> require(const Step& step) {
    for (const auto& m : step.pattern.matchers) {
      const auto it = vars_.find(m.field);
      if (it == vars_.end()) {
        return Stop{Verdict::Inconclusive,
                    m.where.to_string() + ": '" + m.field +
                        "' has no value here (variable not "
                        "captured, or not a number)",
                    "", ""};
      }
      auto want = resolve(m.value);
      if (!want) return unresolved(m.value);
      if (!compare(it->second, m.op, *want)) {
        return Stop{Verdict::Unsupported,
                    step.reason + " ($" + m.field + " was " + std::to_string(it->second) +
                        ", the scenario needs " + to_string(m.op) + " " + m.value.to_string() + ")",
                    "", ""};
      }
    }
    return std::nullopt;
  }

  // The built-in variables (scenario.hpp): the addresses of this run.
  void set_builtins() {
    const auto ip_of = [](Address a) {
      const std::string t = a.to_string();
      const auto colon = t.rfind(':');
      std::string ip = t.substr(0, colon);
      if (!ip.empty() && ip.front() == '[') ip = ip.substr(1, ip.size() - 2);
      return ip;
    };
    const auto put = [&](const std::string& name, const Address& a) {
      text_vars_[name] = a.to_string();
      text_vars_[name + "_ip"] = ip_of(a);
    };
    // A CRN IUT is reached at its RDCC address; the tester is the domain's configured CRN.
    put("tester", a_.tester_control());
    put("iut", a_.iut_control());
    put("crn", a_.tester_control());
    text_vars_["tester_data"] = a_.tester_data().to_string();
    text_vars_["iut_data"] = a_.iut_data().to_string();
    if (a_.other_control().port != 0) put("other", a_.other_control());
    vars_["tester_port"] = a_.tester_control().port;
    vars_["tester_data_port"] = a_.tester_data().port;
    vars_["iut_port"] = a_.iut_control().port;
    vars_["iut_data_port"] = a_.iut_data().port;
    if (a_.iut_rocev2().port != 0) {
      text_vars_["iut_rocev2"] = a_.iut_rocev2().to_string();
      vars_["iut_rocev2_port"] = a_.iut_rocev2().port;
    }
    if (auto d = a_.unscheduled_dscp()) vars_["unscheduled_dscp"] = *d;
    if (auto map = a_.class_dscps()) {
      for (std::size_t c = 0; c < map->size(); ++c) {
        vars_["class_dscp_" + std::to_string(c)] = map->at(c);
      }
    }
  }

  // An address or IP as text: written in the scenario, or a built-in variable.
  std::optional<std::string> resolve_text(const Value& v) const {
    if (v.kind == Value::Kind::Text) return v.text;
    if (v.kind != Value::Kind::Variable) return std::nullopt;
    const auto it = text_vars_.find(v.text);
    if (it == text_vars_.end()) return std::nullopt;
    return it->second;
  }

  std::optional<std::uint64_t> resolve(const Value& v) const {
    if (v.kind == Value::Kind::Number) return v.number;
    if (v.kind != Value::Kind::Variable) return std::nullopt;
    const auto it = vars_.find(v.text);
    if (it == vars_.end()) return std::nullopt;
    // x * m / d without the intermediate overflowing (m and d are below 2^31).
    const std::uint64_t x = it->second;
    const std::uint64_t scaled = x / v.divide * v.multiply + x % v.divide * v.multiply / v.divide;
    return scaled + static_cast<std::uint64_t>(v.offset);
  }

  Stop unresolved(const Value& v) const {
    return {Verdict::Inconclusive,
            v.where.to_string() + ": '" + v.to_string() +
                "' has no value here (variable not "
                "captured, or not a number)",
            "", ""};
  }

  // A value as the codec's JSON mapping takes it.
  std::optional<json> to_json_value(const Value& v) const {
    switch (v.kind) {
      case Value::Kind::Number: return json(v.number);
      case Value::Kind::Names:
        if (v.names.size() == 1) return json(v.names[0]);
        return json(v.names);
      case Value::Kind::Text: return json(v.text);
      case Value::Kind::Variable:
        if (auto t = resolve_text(v)) return json(*t);
        if (auto n = resolve(v)) return json(*n);
        return std::nullopt;
    }
    return std::nullopt;
  }

  // The expected value of a matcher on a message field, with registry names resolved.
  std::optional<std::uint64_t> expected_number(const Matcher& m,
                                               const std::optional<FieldInfo>& f) const {
    if (m.value.kind == Value::Kind::Names && f) {
      std::uint64_t bits = 0;
      for (const auto& n : m.value.names) {
        auto v = value_of(f->names, n);
        if (!v) return std::nullopt;
        bits |= *v;
      }
      return bits;
    }
    return resolve(m.value);
  }

  // ---- sending ----

  std::optional<Stop> send_message(const Step& step) {
    const Pattern& p = step.pattern;
    json j;
    j["type"] = info(p.type).name;
    const bool in_association =
        p.type != MessageType::AssocRequest && p.type != MessageType::CongestionReport;
    if (in_association) {
      for (const auto& [k, v] : defaults_) j[k] = v;
    }
    j["sequence_number"] = next_sequence_;
    bool within_u = false;
    for (const auto& m : p.matchers) {
      if (m.field == kFromField) continue;  // the packet's source, not a field
      if (m.field == kWithinUField) {
        within_u = true;
        continue;
      }
      auto v = to_json_value(m.value);
      if (!v) return unresolved(m.value);
      j[m.field] = *v;
    }
    if (within_u && j.contains("unscheduled_sent") && j["unscheduled_sent"].is_number() &&
        j.contains("association_id") && j["association_id"].is_number()) {
      const auto u = u_in_force_.find(j["association_id"].get<std::uint32_t>());
      const std::uint64_t allowed = u == u_in_force_.end() ? 0 : u->second;
      if (j["unscheduled_sent"].get<std::uint64_t>() > allowed) {
        j["unscheduled_sent"] = std::uint64_t{0};
        if (j.contains("binding_value") && j["binding_value"].is_number()) {
          scheduled_instead_.insert(j["binding_value"].get<std::uint64_t>());
        }
      }
    }
    if (auto stop = no_source(step)) return stop;
    auto msg = message_from_json(j);
    if (!msg) {
      return Stop{Verdict::Inconclusive,
                  step.where.to_string() + ": cannot build the message: " + msg.error().describe(),
                  "", ""};
    }
    next_sequence_ = header_of(*msg).sequence_number + 1U;
    std::array<std::byte, 256> buf{};
    auto n = encode(*msg, buf);
    if (!n) {
      return Stop{Verdict::Inconclusive,
                  step.where.to_string() + ": cannot encode the message: " + n.error().describe(),
                  "", ""};
    }
    if (const auto* report = std::get_if<CongestionReport>(&*msg)) {
      last_report_ = LastReport{*report, source(p)};
    }
    if (const auto* cr = std::get_if<CreditRequest>(&*msg)) {
      last_request_[{cr->header.association_id, cr->message_id}] = *cr;
      message_of_binding_[cr->binding_value] = cr->message_id;
      if (cr->binding_kind == static_cast<std::uint8_t>(BindingKind::RoCEv2)) {
        auto& q = rocev2_messages_[unpack_rocev2(cr->binding_value).destination_qpn];
        const bool known = std::any_of(
            q.begin(), q.end(), [&](const Rocev2Message& m) { return m.id == cr->message_id; });
        if (!known) q.push_back({cr->message_id, cr->message_length, 0});
      }
    }
    return send_bytes(std::span<const std::byte>(buf.data(), *n), false, {}, source(p));
  }

  // The latest CONGESTION_REPORT again, with the next Sequence Number, from the address it named.
  std::optional<Stop> resend_report() {
    CongestionReport r = last_report_->report;
    r.header.sequence_number = next_sequence_++;
    return send_own(Message{r}, "CONGESTION_REPORT", last_report_->from);
  }

  // The address a send names with from=, if any.
  std::optional<Address> source(const Pattern& p) const {
    for (const auto& m : p.matchers) {
      Address a;
      const auto text = resolve_text(m.value);
      if (m.field == kFromField && text && Address::parse(*text, a)) return a;
    }
    return std::nullopt;
  }

  // A from= the adapter cannot send from ($other on an adapter without another host).
  std::optional<Stop> no_source(const Step& step) const {
    const auto& m = step.pattern.matchers;
    const bool named =
        std::any_of(m.begin(), m.end(), [](const Matcher& x) { return x.field == kFromField; });
    if (!named || source(step.pattern)) return std::nullopt;
    return Stop{Verdict::Unsupported,
                step.where.to_string() + ": " + a_.describe() + " cannot send from that address",
                "", ""};
  }

  // send raw: the octets, with each $name:N written big-endian.
  std::optional<Stop> send_raw(const Step& step) {
    if (auto stop = no_source(step)) return stop;
    std::vector<std::byte> bytes = step.raw;
    for (const auto& f : step.raw_fields) {
      auto v = resolve(f.value);
      if (!v) return unresolved(f.value);
      if (f.width < 8 && *v >> (8 * f.width) != 0) {
        return Stop{Verdict::Inconclusive,
                    f.value.where.to_string() + ": " + f.value.to_string() + " = " +
                        std::to_string(*v) + " does not fit " + std::to_string(f.width) + " octets",
                    "", ""};
      }
      for (std::size_t i = 0; i < f.width; ++i) {
        bytes[f.offset + i] = static_cast<std::byte>((*v >> (8 * (f.width - 1 - i))) & 0xFFU);
      }
    }
    return send_bytes(bytes, false, {}, source(step.pattern));
  }

  std::optional<Stop> send_bytes(std::span<const std::byte> bytes, bool data, DataView dv,
                                 std::optional<Address> from = std::nullopt) {
    Packet p;
    p.time = a_.now();
    p.data = data;
    // Data leaves from the RDCC address (`rdcc sender` sends it from a port of its own; the
    // scenarios' flows name the tester's RDCC port), so that the IUT
    // relates it to the association by its source (docs/spec-notes.md 55).
    p.from = from ? *from : a_.tester_control();
    p.to = data ? a_.iut_data() : a_.iut_control();
    p.payload.assign(bytes.begin(), bytes.end());
    if (data) {
      p.dscp = static_cast<std::uint8_t>(dv.unscheduled != 0 ? unscheduled_dscp() : dv.dscp);
      p.ce = dv.ce != 0;
    }
    a_.send(p);
    record(p, true);
    return std::nullopt;
  }

  std::optional<Stop> send_data(const Step& step) {
    if (crn_reports_) crn_reports_->data_sent();
    DataView dv;
    std::map<std::string, std::uint64_t*> slots{
        {"message", &dv.message}, {"offset", &dv.offset},           {"length", &dv.length},
        {"last", &dv.last},       {"unscheduled", &dv.unscheduled}, {"ce", &dv.ce},
        {"dscp", &dv.dscp}};
    bool within_u = false;
    for (const auto& m : step.pattern.matchers) {
      if (m.field == kWithinUField) {
        within_u = true;
        continue;
      }
      auto v = resolve(m.value);
      if (!v) return unresolved(m.value);
      *slots.at(m.field) = *v;
    }
    // The message went scheduled (U too small for it): no unscheduled octet of it.
    if (within_u && dv.unscheduled != 0 && scheduled_instead_.count(dv.message) != 0) {
      return std::nullopt;
    }
    if (dv.length > 65000) {
      return Stop{Verdict::Inconclusive,
                  step.where.to_string() + ": data length " + std::to_string(dv.length) +
                      " does not fit a datagram",
                  "", ""};
    }
    return send_opaque(step, dv);
  }

  // One opaque data packet (docs/data-transport.md) from the tester's data port to the IUT's.
  std::optional<Stop> send_opaque(const Step& step, const DataView& dv) {
    sent_[dv.message] = std::max(sent_[dv.message], dv.offset + dv.length);
    ref::OpaqueHeader h;
    h.message_identifier = dv.message;
    h.offset = dv.offset;
    h.payload_length = static_cast<std::uint32_t>(dv.length);
    h.flags = static_cast<std::uint8_t>((dv.last != 0 ? ref::opaque_flag::kLast : 0) |
                                        (dv.unscheduled != 0 ? ref::opaque_flag::kUnscheduled : 0));
    std::vector<std::byte> zeros(dv.length);
    std::vector<std::byte> out(a_.data_framing().header_length() + dv.length);
    auto n = a_.data_framing().encode(h, zeros, out);
    if (!n) {
      return Stop{Verdict::Inconclusive, step.where.to_string() + ": " + n.error().describe(), "",
                  ""};
    }
    out.resize(*n);
    return send_bytes(out, true, dv);
  }

  // transfer: the tester plays a conforming sender of one scheduled message: whatever Grant
  // Limits the IUT chooses (a window of one Credit Unit, the whole message, anything between),
  // it sends every granted octet, from the highest offset it has sent so far, and waits for
  // more credit until `length` octets are sent. Every packet that arrives meanwhile, the
  // grants included, is kept, in order, for the next steps.
  std::optional<Stop> transfer(const Step& step) {
    std::uint64_t mid = 0;
    DataView dv;
    std::uint64_t length = 0;
    std::uint64_t segment = 4096;
    std::optional<std::uint64_t> offset;
    std::uint64_t overrun = 0;
    std::uint64_t gap_us = 0;
    std::uint64_t report = 0;
    std::vector<std::uint64_t> with;
    for (const auto& m : step.pattern.matchers) {
      auto v = resolve(m.value);
      if (!v) return unresolved(m.value);
      if (m.field == "gap_us") gap_us = *v;
      if (m.field == "report") report = *v;
      if (m.field == "message_id") mid = *v;
      if (m.field == "message") dv.message = *v;
      if (m.field == "length") length = *v;
      if (m.field == "segment") segment = *v;
      if (m.field == "ce") dv.ce = *v;
      if (m.field == "offset") offset = *v;
      if (m.field == "overrun") overrun = *v;
      if (m.field == "with") with.push_back(*v);
    }
    if (segment == 0 || segment > 65000) {
      return Stop{
          Verdict::Inconclusive,
          step.where.to_string() + ": segment " + std::to_string(segment) + " is not 1..65000", "",
          ""};
    }
    if (report != 0 && !last_report_) {
      return Stop{Verdict::Inconclusive,
                  step.where.to_string() +
                      ": report=1 sends again the latest CONGESTION_REPORT, and none was sent "
                      "before (the scenario's error)",
                  "", ""};
    }
    const std::uint64_t assoc = default_association();
    // The messages the tester plays: the step's, and each with=ID's, whose Binding Value and
    // length are its latest CREDIT_REQUEST's, from the end of what the tester has sent of it.
    std::vector<Play> plays{{mid, dv, length, offset.value_or(sent_[dv.message])}};
    for (const std::uint64_t other : with) {
      const auto r = last_request_.find({assoc, other});
      if (r == last_request_.end()) {
        return Stop{Verdict::Inconclusive,
                    step.where.to_string() + ": with=" + std::to_string(other) +
                        ": the tester sent no CREDIT_REQUEST for that message on association " +
                        std::to_string(assoc) + " (the scenario's error)",
                    "", ""};
      }
      DataView w = dv;
      w.message = r->second.binding_value;
      plays.push_back({other, w, r->second.message_length, sent_[w.message]});
    }
    // No deadline binds the receiver's grants: the wait for credit is the tester's patience.
    const Duration window = std::max(step.within, o_.patience);
    const Time deadline = a_.now() + widen(window);
    std::deque<Packet> kept;
    const auto keep = [&] { held_.insert(held_.begin(), kept.begin(), kept.end()); };
    // Since when the transfer has had no credit, and the longest such wait (stalled_us).
    std::optional<Time> starved_since;
    Duration longest_stall{};
    // Sends every octet the IUT has granted `play` (its own grants, then the pool's).
    const auto send_granted = [&](Play& play) -> std::optional<Stop> {
      const std::uint64_t limit = std::min(play.length, granted(assoc, play.mid));
      // Octets the message's own grants allow, then what the association's pool grants (Message
      // ID 0, POOL: "the Grant Limit counts octets across those messages") have left.
      const auto pool = granted_.find({assoc, 0});
      std::uint64_t& pool_used = pool_used_[assoc];
      DataView& d = play.dv;
      for (; play.at < play.length; play.at += d.length) {
        const std::uint64_t pool_left =
            pool == granted_.end() || pool->second <= pool_used ? 0 : pool->second - pool_used;
        const bool own = play.at < limit;
        if (!own && pool_left == 0) break;
        d.offset = play.at;
        d.length =
            std::min(segment, own ? limit - play.at : std::min(pool_left, play.length - play.at));
        d.last = play.at + d.length == play.length ? 1 : 0;
        if (!own) pool_used += d.length;
        if (starved_since) {
          longest_stall = std::max(longest_stall, a_.now() - *starved_since);
          starved_since.reset();
        }
        // report=1: a CRN on the path that reports the congestion each packet meets.
        if (report != 0) {
          if (auto stop = resend_report()) return stop;
        }
        if (auto stop = send_opaque(step, d)) return stop;
        // gap_us: the data spread over time, as a sender paced well below the Pacing Rate sends
        // it, so that every interval of a receiver's controller sees some of it.
        if (gap_us != 0 && play.at + d.length < play.length) {
          const Time until = a_.now() + ref::microseconds(static_cast<std::int64_t>(gap_us));
          while (auto p = next(until)) kept.push_back(std::move(*p));
        }
      }
      return std::nullopt;
    };
    for (;;) {
      const std::size_t kept_before = kept.size();
      bool all_sent = true;
      for (Play& play : plays) {
        if (auto stop = send_granted(play)) {
          keep();
          return stop;
        }
        all_sent = all_sent && play.at >= play.length;
      }
      if (all_sent) break;
      if (!starved_since) starved_since = a_.now();
      // What came while the tester spaced its segments (credit, perhaps) is read before it
      // waits again.
      if (kept.size() != kept_before) continue;
      Play& first = plays.front();
      if (overrun != 0 && first.at > 0) {
        if (auto done =
                overrun_beyond(step, assoc, mid, first.dv, first.length, segment, overrun)) {
          keep();
          return *done;
        }
        // Not here: the sender gives the message up (CANCEL), so that its credit is released
        // and the rest of the scenario meets a receiver whose budget holds no unfinished
        // message of the tester's.
        keep();
        return cancel_message(assoc, mid);
      }
      // No credit for a while: the grant may have expired before its octets arrived (a loaded
      // host), and a sender then asks again, as a sender does when its Lifetime has elapsed
      // (Credit Requests and Grants, rule 3).
      const Time retry_at = a_.now() + widen(kTransferRetry);
      auto p = next(std::min(deadline, retry_at));
      if (!p && a_.now() < deadline) {
        for (const Play& play : plays) {
          if (play.at >= play.length) continue;
          if (auto stop = rerequest(assoc, play.mid)) {
            keep();
            return stop;
          }
        }
        continue;
      }
      if (!p) {
        keep();
        std::string stalled;
        for (const Play& play : plays) {
          if (play.at >= play.length) continue;
          stalled += (stalled.empty() ? "message " : ", message ") + std::to_string(play.mid) +
                     " had credit up to offset " + std::to_string(play.at) + " of its " +
                     std::to_string(play.length) + " octets";
        }
        return Stop{Verdict::Inconclusive,
                    stalled + ", and no more credit came within the tester's patience of " +
                        describe_duration(window) + " (the spec sets no deadline)",
                    step.text,
                    "nothing",
                    {},
                    true};
      }
      kept.push_back(std::move(*p));
    }
    keep();
    for (const auto& c : step.pattern.captures) {
      vars_[c.variable] =
          static_cast<std::uint64_t>(std::max<std::int64_t>(0, longest_stall.micros()));
    }
    return std::nullopt;
  }

  // transfer ... overrun=N: the tester plays a misbehaving sender. "Data received for a
  // message beyond its Grant Limit and outside its unscheduled window indicates a misbehaving
  // sender. The receiver MAY discard such data, MUST NOT grant further credit to the
  // association for that message" (Error Handling and Recovery). Once the first credit is
  // used, the tester waits until nothing has arrived for a while (every grant the IUT sent for
  // those octets is in), then sends N octets at the highest Grant Limit it holds (or at U, the
  // largest the association was given, if that is higher) and, after a while, the message's
  // request again, as a sender asks once its Lifetime has elapsed. From then on, to the end of
  // the scenario, a grant for the message above that limit fails (RDCC-ERR-02). A higher limit
  // read within the slack of the overrun was on its way before the octets arrived, which then
  // prove nothing. Not where the association has pool grants (they may cover the octets), nor
  // where the limit or U already reaches the length: then (nullopt) the transfer goes on as a
  // conforming sender's. Otherwise the step's end: a Stop, or none.
  std::optional<std::optional<Stop>> overrun_beyond(const Step& step, std::uint64_t assoc,
                                                    std::uint64_t mid, DataView dv,
                                                    std::uint64_t length, std::uint64_t segment,
                                                    std::uint64_t octets) {
    std::deque<Packet> kept;
    const auto keep = [&] { held_.insert(held_.begin(), kept.begin(), kept.end()); };
    while (auto p = next(a_.now() + widen(kTransferRetry))) kept.push_back(std::move(*p));
    const std::uint64_t limit = std::min(granted(assoc, mid), length);
    const auto u = u_largest_.find(static_cast<std::uint32_t>(assoc));
    const std::uint64_t from =
        std::max<std::uint64_t>(limit, u == u_largest_.end() ? 0 : u->second);
    if (granted_.count({assoc, 0}) != 0 || from >= length) {
      keep();
      return std::nullopt;
    }
    dv.offset = from;
    dv.length = std::min({octets, segment, length - from});
    dv.last = from + dv.length == length ? 1 : 0;
    if (auto stop = send_opaque(step, dv)) {
      keep();
      return stop;
    }
    // On real sockets a loaded host may hold a grant the IUT decided before the overrun arrived
    // for longer than the quiet wait: the slack is twice that wait there.
    const Duration slack =
        a_.virtual_time() ? kOverrunSlack : widen(kOverrunSlack) + widen(kTransferRetry) * 2;
    overruns_[{assoc, mid}] = Overrun{limit, a_.now() + slack, step.where.to_string()};
    const Time rerequest_at = a_.now() + slack + widen(kTransferRetry);
    const Time end = rerequest_at + widen(kOverrunWatch);
    bool asked = false;
    while (!watch_failure_) {
      auto p = next(asked ? end : rerequest_at);
      if (p) {
        kept.push_back(std::move(*p));
        continue;
      }
      if (asked) break;
      asked = true;
      if (auto stop = rerequest(assoc, mid)) {
        keep();
        return stop;
      }
    }
    keep();
    return std::optional<Stop>{};
  }

  // CANCEL (APPLICATION_ABORT) for the message, with the next Sequence Number.
  std::optional<Stop> cancel_message(std::uint64_t assoc, std::uint64_t mid) {
    Cancel c;
    c.header.association_id = static_cast<std::uint32_t>(assoc);
    const auto e = last_request_.find({assoc, mid});
    if (e != last_request_.end()) c.header.epoch = e->second.header.epoch;
    c.header.sequence_number = next_sequence_++;
    c.message_id = mid;
    c.reason = static_cast<std::uint16_t>(ReasonCode::ApplicationAbort);
    return send_own(Message{c}, "CANCEL");
  }

  // The message's last CREDIT_REQUEST again, with the next Sequence Number.
  std::optional<Stop> rerequest(std::uint64_t assoc, std::uint64_t mid) {
    const auto it = last_request_.find({assoc, mid});
    if (it == last_request_.end()) return std::nullopt;
    CreditRequest r = it->second;
    r.header.sequence_number = next_sequence_++;
    return send_own(Message{r}, "CREDIT_REQUEST");
  }

  // A message the tester makes itself (a transfer's CREDIT_REQUEST again, its CANCEL, a
  // report again), sent from its RDCC address or `from`.
  std::optional<Stop> send_own(const Message& m, std::string_view type,
                               std::optional<Address> from = std::nullopt) {
    std::array<std::byte, 256> buf{};
    auto n = encode(m, buf);
    if (!n) {
      return Stop{Verdict::Inconclusive,
                  "cannot encode a " + std::string(type) + ": " + n.error().describe(), "", ""};
    }
    return send_bytes(std::span<const std::byte>(buf.data(), *n), false, {}, std::move(from));
  }

  // send rocev2: one RC RDMA WRITE packet (BTH, RETH on First/Only, payload, pad, ICRC) to the
  // IUT's RoCEv2 port, from the tester's RDCC address. The ICRC covers the IP and UDP headers
  // the kernel writes, as a receiver rebuilds them from the datagram (docs/data-transport.md).
  // The DSCP of the tester's own unscheduled data.
  std::uint8_t unscheduled_dscp() const { return a_.unscheduled_dscp().value_or(kUnscheduledDscp); }

  // The IUT's RoCEv2 port exists (missing_need).
  std::optional<Stop> send_rocev2(const Step& step) {
    std::uint64_t qp = 0, length = 0, ce = 0, dscp = 0, unscheduled = 0;
    std::optional<std::uint64_t> psn, dma_length;
    std::uint64_t opcode = static_cast<std::uint64_t>(ref::Rocev2Opcode::WriteOnly);
    for (const auto& m : step.pattern.matchers) {
      std::optional<std::uint64_t> v;
      if (m.field == "opcode" && m.value.kind == Value::Kind::Names) {
        v = rocev2_opcode(m.value.names.front());
      } else {
        v = resolve(m.value);
      }
      if (!v) return unresolved(m.value);
      if (m.field == "qp") qp = *v;
      if (m.field == "psn") psn = *v;
      if (m.field == "length") length = *v;
      if (m.field == "dma_length") dma_length = *v;
      if (m.field == "opcode") opcode = *v;
      if (m.field == "ce") ce = *v;
      if (m.field == "dscp") dscp = *v;
      if (m.field == "unscheduled") unscheduled = *v;
    }
    const auto inconclusive = [&](const std::string& why) {
      return Stop{Verdict::Inconclusive, step.where.to_string() + ": " + why, "", ""};
    };
    const auto op = static_cast<ref::Rocev2Opcode>(opcode);
    if (opcode != 0x06 && opcode != 0x07 && opcode != 0x08 && opcode != 0x0A) {
      return inconclusive("opcode " + std::to_string(opcode) +
                          " is not an RC RDMA WRITE (0x06, "
                          "0x07, 0x08, 0x0A)");
    }
    if (length > 65000)
      return inconclusive("length " + std::to_string(length) + " does not fit a datagram");
    if (qp > kMax24) return inconclusive("qp " + std::to_string(qp) + " does not fit 24 bits");
    const std::uint64_t the_psn = psn.value_or(next_psn_[static_cast<std::uint32_t>(qp)]);
    if (the_psn > kMax24)
      return inconclusive("psn " + std::to_string(the_psn) + " does not fit 24 bits");
    next_psn_[static_cast<std::uint32_t>(qp)] = static_cast<std::uint32_t>((the_psn + 1) & kMax24);

    const Address from = a_.tester_control();
    const Address to = a_.iut_rocev2();
    ref::Rocev2Packet rp;
    rp.ipv6 = to.ipv6;
    rp.ip.source = from.ip;
    rp.ip.destination = to.ip;
    rp.ip.source_port = from.port;
    rp.ip.destination_port = ref::kRocev2Port;
    rp.ip.dscp = static_cast<std::uint8_t>(unscheduled != 0 ? unscheduled_dscp() : dscp);
    rp.ip.ecn = ce != 0 ? ref::kEcnCe : ref::kEcnEct0;
    rp.bth.opcode = op;
    rp.bth.destination_qp = static_cast<std::uint32_t>(qp);
    rp.bth.psn = static_cast<std::uint32_t>(the_psn);
    // The RETH states the length of the whole RDMA WRITE: an Only packet's own length, a First
    // packet's dma_length (InfiniBand's DMA Length).
    if (ref::has_reth(op)) {
      if (op == ref::Rocev2Opcode::WriteFirst && !dma_length) {
        return inconclusive(
            "RDMA_WRITE_FIRST needs dma_length= (the length of the whole RDMA WRITE)");
      }
      const std::uint64_t dma = dma_length.value_or(length);
      if (dma > 0xFFFFFFFFULL)
        return inconclusive("dma_length " + std::to_string(dma) + " does not fit 32 bits");
      rp.reth = ref::Reth{0, 0, static_cast<std::uint32_t>(dma)};
    } else if (dma_length) {
      return inconclusive(
          "dma_length belongs to RDMA_WRITE_FIRST and RDMA_WRITE_ONLY (their RETH)");
    }
    const std::vector<std::byte> zeros(length);
    rp.payload = zeros;
    std::vector<std::byte> ip_packet(ref::rocev2_packet_size(op, length, rp.ipv6));
    auto n = ref::encode_rocev2(rp, ip_packet);
    if (!n) return inconclusive(n.error().describe());
    // The socket carries what follows the UDP header.
    const std::size_t headers =
        (rp.ipv6 ? ref::kIpv6HeaderSize : ref::kIpv4HeaderSize) + ref::kUdpHeaderSize;
    Packet p;
    p.time = a_.now();
    p.data = true;
    p.rocev2 = true;
    p.from = from;
    p.to = to;
    p.dscp = rp.ip.dscp;
    p.ce = ce != 0;
    p.payload.assign(ip_packet.begin() + static_cast<std::ptrdiff_t>(headers), ip_packet.end());
    a_.send(p);
    record(p, true);
    return std::nullopt;
  }

  // What a RoCEv2 packet the tester sent carries, for the record.
  static std::optional<json> rocev2_view(const Packet& p) {
    // A BTH (12 octets), then what the opcode says; the payload is the rest but pad and ICRC.
    if (p.payload.size() < ref::kBthSize + ref::kIcrcSize) return std::nullopt;
    const auto u8 = [&](std::size_t i) { return std::to_integer<std::uint32_t>(p.payload[i]); };
    const auto op = static_cast<ref::Rocev2Opcode>(u8(0));
    const std::size_t head = ref::kBthSize + (ref::has_reth(op) ? ref::kRethSize : 0);
    const std::size_t pad = (u8(1) >> 4U) & 3U;
    if (p.payload.size() < head + pad + ref::kIcrcSize) return std::nullopt;
    json j;
    j["opcode"] = std::string(ref::to_string(op));
    j["qp"] = (u8(5) << 16U) | (u8(6) << 8U) | u8(7);
    j["psn"] = (u8(9) << 16U) | (u8(10) << 8U) | u8(11);
    j["length"] = p.payload.size() - head - pad - ref::kIcrcSize;
    j["ce"] = p.ce ? 1 : 0;
    j["dscp"] = p.dscp;
    return j;
  }

  // ---- receiving ----

  // When the packet reached the tester: its kernel's timestamp on real sockets, where the IUT's
  // timing is judged (the tester may read it later).
  static Time arrival(const Packet& p) { return p.kernel_time.value_or(p.time); }

  // The next packet: one held by a wait, or a new one before `deadline`.
  std::optional<Packet> next(Time deadline) {
    if (!held_.empty()) {
      Packet p = std::move(held_.front());
      held_.pop_front();
      return p;
    }
    auto p = a_.receive(deadline);
    if (p) record(*p, false);
    return p;
  }

  // Ignored: the packet matches one of the ignore step's patterns (type and field matchers).
  bool is_ignored(const Packet& p) {
    for (const auto& pat : ignored_) {
      json fields;
      if (std::holds_alternative<std::monostate>(match(pat, p, fields))) return true;
    }
    return false;
  }

  Duration widen(Duration d) const {
    if (a_.virtual_time()) return d;
    return d + o_.tolerance_abs +
           Duration{static_cast<std::int64_t>(static_cast<double>(d.ns) * o_.tolerance_rel)};
  }
  Duration narrow(Duration d) const {
    if (a_.virtual_time() || d.ns == 0) return d;
    const Duration n =
        d - o_.tolerance_abs -
        Duration{static_cast<std::int64_t>(static_cast<double>(d.ns) * o_.tolerance_rel)};
    return n.ns < 0 ? Duration{} : n;
  }

  // A data packet as the IUT's framing reads it (the project's, or --data-framing).
  std::optional<DataView> data_view(const Packet& p) const {
    auto op = a_.data_framing().decode(p.payload);
    if (!op) return std::nullopt;
    DataView dv;
    dv.message = op->header.message_identifier;
    dv.offset = op->header.offset;
    dv.length = op->header.payload_length;
    dv.last = op->header.last() ? 1 : 0;
    dv.unscheduled = (op->header.flags & ref::opaque_flag::kUnscheduled) != 0 ? 1 : 0;
    dv.ce = p.ce ? 1 : 0;
    dv.dscp = p.dscp;
    dv.source_port = p.from.port;
    return dv;
  }

  static json data_json(const DataView& dv) {
    json j;
    j["message"] = dv.message;
    j["offset"] = dv.offset;
    j["length"] = dv.length;
    j["last"] = dv.last;
    j["unscheduled"] = dv.unscheduled;
    j["ce"] = dv.ce;
    j["dscp"] = dv.dscp;
    j["end"] = dv.offset + dv.length;   // derived: the offset after the segment
    j["source_port"] = dv.source_port;  // the packet's, not the framing's
    return j;
  }

  // What arrived, for the report.
  std::string describe(const Packet& p) const {
    if (p.rocev2) {
      if (auto j = rocev2_view(p)) return "rocev2 " + j->dump();
      return "RoCEv2 packet: " + to_hex(p.payload);
    }
    if (p.data) {
      if (auto dv = data_view(p)) return "data " + data_json(*dv).dump();
      auto op = a_.data_framing().decode(p.payload);
      return "undecodable data packet (" + op.error().describe() + "): " + to_hex(p.payload);
    }
    auto m = decode(p.payload);
    if (!m) return "undecodable datagram (" + m.error().describe() + "): " + to_hex(p.payload);
    return to_json(*m).dump();
  }

  // A gap measured on real sockets, moved toward `want` by the window tolerance (as `after` and
  // `by` are) or the checker's timing tolerance, which grows with the wake-up jitter measured in
  // the run (widen_tolerance, on every packet read, the matched one included: a late timer of
  // the IUT lengthens one gap and, relative to it, shortens the next): a comparison fails only
  // by more than the host's timing allows.
  std::uint64_t gap_toward(std::uint64_t gap_us, Op op, std::uint64_t want_us) const {
    if (a_.virtual_time()) return gap_us;
    const Duration want{static_cast<std::int64_t>(want_us) * 1000};
    const auto slack =
        static_cast<std::uint64_t>(std::max(widen(want) - want, tolerance_).micros());
    if (op == Op::Gt || op == Op::Ge) return gap_us + slack;
    if (op == Op::Lt || op == Op::Le) return gap_us > slack ? gap_us - slack : 0;
    return gap_us;
  }

  static bool compare(std::uint64_t actual, Op op, std::uint64_t want) {
    switch (op) {
      case Op::Eq: return actual == want;
      case Op::Ne: return actual != want;
      case Op::Lt: return actual < want;
      case Op::Le: return actual <= want;
      case Op::Gt: return actual > want;
      case Op::Ge: return actual >= want;
      case Op::AllBits: return (actual & want) == want;
      case Op::NoBits: return (actual & want) == 0;
    }
    return false;
  }

  // Empty: matched. Else why not. `fields` is the packet's JSON (message or data).
  std::variant<std::monostate, std::string, Stop> match(const Pattern& pat, const Packet& p,
                                                        json& fields) {
    if (pat.data != p.data) {
      return std::string(p.data ? "a data packet arrived, not " + std::string(info(pat.type).name)
                                : "an RDCC message arrived, not a data packet");
    }
    if (p.data) {
      auto dv = data_view(p);
      if (!dv) return std::string("the data packet does not decode");
      fields = data_json(*dv);
    } else {
      auto m = decode(p.payload);
      if (!m) return std::string("the datagram does not decode: " + m.error().describe());
      if (type_of(*m) != pat.type) {
        return std::string(info(type_of(*m)).name) + " arrived, not " +
               std::string(info(pat.type).name);
      }
      fields = to_json(*m);
    }
    if (origin_) {
      fields[std::string(kGapField)] =
          static_cast<std::uint64_t>(std::max<std::int64_t>(0, (arrival(p) - *origin_).micros()));
    }
    for (const auto& mt : pat.matchers) {
      if (mt.field == kGapField && !origin_) {
        return Stop{Verdict::Inconclusive,
                    "gap_us needs a packet matched by the step before (the scenario's error)",
                    pat.to_string(), describe(p)};
      }
      if (mt.field == kFromField || mt.field == kToField) {
        const Address& a = mt.field == kToField ? p.to : p.from;
        Address want;
        const auto text = resolve_text(mt.value);
        if (!text) return unresolved(mt.value);
        const bool eq = Address::parse(*text, want) && a == want;
        if (eq != (mt.op == Op::Eq)) {
          return mt.field + " was " + a.to_string() + ", wanted " + to_string(mt.op) + " " +
                 mt.value.to_string();
        }
        continue;
      }
      const json& actual = fields[mt.field];
      if (actual.is_string() || actual.is_null()) {  // an address
        const std::string a = actual.is_string() ? actual.get<std::string>() : "none";
        const auto text = resolve_text(mt.value);
        const bool eq = text && a == *text;
        if ((mt.op == Op::Eq && !eq) || (mt.op == Op::Ne && eq) ||
            (mt.op != Op::Eq && mt.op != Op::Ne)) {
          return mt.field + " was " + a + ", wanted " + to_string(mt.op) + " " +
                 mt.value.to_string();
        }
        continue;
      }
      const auto info_of = p.data ? std::nullopt : message_field(pat.type, mt.field);
      auto want = expected_number(mt, info_of);
      if (!want) return unresolved(mt.value);
      const auto a = actual.get<std::uint64_t>();
      if (!compare(mt.field == kGapField ? gap_toward(a, mt.op, *want) : a, mt.op, *want)) {
        std::string w = mt.value.to_string();
        if (mt.value.kind == Value::Kind::Variable) w += " (" + std::to_string(*want) + ")";
        return mt.field + " was " + std::to_string(a) + ", wanted " + to_string(mt.op) + " " + w;
      }
    }
    return std::monostate{};
  }

  // expect: the answers to later messages it saw (`| later`) stay for the steps that follow.
  std::optional<Stop> expect(const Step& step) {
    std::deque<Packet> later;
    auto stop = expect_until(step, later);
    held_.insert(held_.begin(), later.begin(), later.end());
    return stop;
  }

  // The captures of `alt` from the packet `p` it matched (its decoded `fields`): each into its
  // variable; inconclusive when a field is not a number, or since_submit_us has no submit.
  std::optional<Stop> capture(const Pattern& alt, const Packet& p, const json& fields,
                              const std::string& expected) {
    for (const auto& c : alt.captures) {
      if (c.field == kSinceSubmitField) {
        if (!last_submit_) {
          return Stop{Verdict::Inconclusive,
                      "cannot capture '" + c.field + "': no upper submit before", expected,
                      describe(p)};
        }
        const Duration since = arrival(p) - *last_submit_;
        vars_[c.variable] = static_cast<std::uint64_t>(std::max<std::int64_t>(0, since.micros()));
        continue;
      }
      const auto v = fields.find(c.field);
      if (v == fields.end() || !v->is_number_unsigned()) {
        return Stop{Verdict::Inconclusive, "cannot capture '" + c.field + "': not a number",
                    expected, describe(p)};
      }
      vars_[c.variable] = v->get<std::uint64_t>();
    }
    return std::nullopt;
  }

  // seen: a packet from the IUT that matches, received at any time since the scenario began
  // (ignored, kept or consumed by another step); else the first to arrive within the step's
  // window, every packet read meanwhile kept for the steps that follow.
  std::optional<Stop> seen(const Step& step) {
    const Pattern& want = step.alternatives.front();
    const auto matches = [&](const Packet& p) -> std::variant<bool, Stop> {
      json fields;
      auto m = match(want, p, fields);
      if (auto* stop = std::get_if<Stop>(&m)) return *stop;
      if (std::holds_alternative<std::string>(m)) return false;
      if (auto stop = capture(want, p, fields, want.to_string())) return *stop;
      return true;
    };
    for (const auto& [p, from_tester] : trace_) {
      if (from_tester) continue;
      auto m = matches(p);
      if (auto* stop = std::get_if<Stop>(&m)) return *stop;
      if (std::get<bool>(m)) return std::nullopt;
    }
    const Duration window = step.bound ? step.within : std::max(step.within, o_.patience);
    const Time deadline = a_.now() + widen(window);
    std::deque<Packet> later;
    std::optional<Stop> stop;
    for (;;) {
      auto p = next(deadline);
      if (!p) {
        const std::string expected = "seen " + want.to_string() +
                                     (step.bound ? " by " : " within ") +
                                     describe_duration(step.within);
        stop = step.bound ? Stop{Verdict::Fail,
                                 "none arrived since the scenario began, nor by " +
                                     describe_duration(step.within) + ", a time the spec states",
                                 expected, "nothing"}
                          : Stop{Verdict::Inconclusive,
                                 "none arrived since the scenario began, nor within the "
                                 "tester's patience of " +
                                     describe_duration(window) + " (the spec sets no deadline)",
                                 expected,
                                 "nothing",
                                 {},
                                 true};
        break;
      }
      later.push_back(*p);
      auto m = matches(*p);
      if (auto* s = std::get_if<Stop>(&m)) {
        stop = *s;
        break;
      }
      if (std::get<bool>(m)) break;
    }
    held_.insert(held_.begin(), later.begin(), later.end());
    return stop;
  }

  std::optional<Stop> expect_until(const Step& step, std::deque<Packet>& later) {
    // The window starts when the step starts, or, right after an expect, when the packet it
    // matched arrived: the gap between two packets of the IUT is the IUT's, however late the
    // tester read the first ("starting at 1 ms and doubling", `sender-assoc-backoff`).
    const Time t0 = origin_ ? std::min(a_.now(), *origin_) : a_.now();
    const Time earliest = t0 + narrow(step.after);
    std::string expected;
    std::string types;  // what the step waits for, for the reason of an inconclusive wait
    bool silence_ok = false;
    for (const auto& alt : step.alternatives) {
      if (!expected.empty()) expected += " | ";
      expected += alt.to_string();
      silence_ok = silence_ok || alt.silence;
      if (alt.silence || alt.later) continue;
      if (!types.empty()) types += " or ";
      types += alt.data ? std::string("data") : std::string(info(alt.type).name);
    }
    // Where the spec states no deadline, `within` is the tester's patience, and at least
    // RunOptions::patience: a conforming IUT may take its time, and the wait ends as soon as
    // the message arrives. A step that accepts silence listens for exactly its window; a `by`
    // is the spec's own bound.
    const Duration window =
        silence_ok || step.bound ? step.within : std::max(step.within, o_.patience);
    const Time deadline = t0 + widen(window);
    expected += (step.bound ? " by " : " within ") + describe_duration(step.within);
    if (step.after.ns != 0) expected += " after " + describe_duration(step.after);
    OrderProof order;
    for (;;) {
      auto p = next(order.deadline(deadline, widen(o_.patience)));
      if (!p) {
        if (silence_ok) return std::nullopt;
        if (order.proven()) {
          return Stop{Verdict::Fail,
                      order.reason(types, widen(o_.patience)),
                      expected,
                      "nothing",
                      {},
                      false,
                      order.frames()};
        }
        if (step.bound) {
          return Stop{
              Verdict::Fail,
              "nothing arrived by " + describe_duration(step.within) + ", a time the spec states",
              expected, "nothing"};
        }
        return Stop{Verdict::Inconclusive,
                    "no " + types + " within the tester's patience of " +
                        describe_duration(window) + " (the spec sets no deadline)",
                    expected,
                    "nothing",
                    {},
                    true};
      }
      if (answers_later(step, *p, order)) {
        later.push_back(std::move(*p));
        continue;
      }
      if (is_ignored(*p)) continue;
      // Read late, but it arrived after the window: a step that accepts silence had a silent
      // window, and the packet is for the steps that follow.
      if (silence_ok && arrival(*p) > deadline) {
        later.push_back(std::move(*p));
        return std::nullopt;
      }
      std::vector<std::string> why;
      for (const auto& alt : step.alternatives) {
        if (alt.silence || alt.later) continue;
        json fields;
        auto m = match(alt, *p, fields);
        if (auto* stop = std::get_if<Stop>(&m)) return *stop;
        if (auto* w = std::get_if<std::string>(&m)) {
          why.push_back(*w);
          continue;
        }
        // A real-time window narrowed to nothing checks nothing (a packet read before the
        // step began, from another socket, is not "too early").
        if (alt.declines) {
          return Stop{Verdict::Unsupported,
                      "the IUT declined: " + alt.to_string() + " (" + describe(*p) + ")", "", ""};
        }
        const Time at = arrival(*p);
        if (narrow(step.after).ns != 0 && at < earliest) {
          return Stop{Verdict::Fail,
                      "arrived " + describe_duration(at - t0) + " after the step began, " +
                          "earlier than " + describe_duration(step.after),
                      expected,
                      describe(*p),
                      {},
                      false,
                      frame_of(*p)};
        }
        // A packet the tester read late can still have arrived past a stated bound.
        if (step.bound && at > deadline) {
          return Stop{Verdict::Fail,
                      "arrived " + describe_duration(at - t0) + " after the step began, " +
                          "later than " + describe_duration(step.within) +
                          ", a time the spec states",
                      expected,
                      describe(*p),
                      {},
                      false,
                      frame_of(*p)};
        }
        matched_at_ = at;
        return capture(alt, *p, fields, expected);
      }
      std::string reason;
      for (const auto& w : why) reason += (reason.empty() ? "" : "; ") + w;
      return Stop{Verdict::Fail, reason, expected, describe(*p), {}, false, frame_of(*p)};
    }
  }

  // The packet matches a `| later` alternative of the step: the IUT answered a message sent
  // after the awaited one (it counts as proof once; every such packet is kept).
  bool answers_later(const Step& step, const Packet& p, OrderProof& order) {
    for (const auto& alt : step.alternatives) {
      json fields;
      if (!alt.later || !std::holds_alternative<std::monostate>(match(alt, p, fields))) continue;
      order.witness(p.time, frame_of(p), describe(p));
      return true;
    }
    return false;
  }

  std::optional<Stop> silence(const Step& step) {
    const Time deadline = a_.now() + step.within;
    for (;;) {
      auto p = next(deadline);
      if (!p) return std::nullopt;
      if (is_ignored(*p)) continue;
      return Stop{Verdict::Fail,
                  "expected silence for " + describe_duration(step.within),
                  "silence for " + describe_duration(step.within),
                  describe(*p),
                  {},
                  false,
                  frame_of(*p)};
    }
  }

  std::optional<Stop> wait(Duration d) {
    const Time deadline = a_.now() + d;
    std::deque<Packet> got;
    while (auto p = a_.receive(deadline)) {
      record(*p, false);
      got.push_back(std::move(*p));
    }
    for (auto& p : got) held_.push_back(std::move(p));
    return std::nullopt;
  }

  // ---- the upper tester and the CRN's queue ----

  std::optional<Stop> upper(const Step& step) {
    json req;
    req["op"] = step.upper_op;
    // The op's arguments as the table has them (upper_tester_ops.hpp): an address a scenario
    // does not give is the tester's (submit's receiver); a Bool is true or false.
    const udp::UpperOp& op = *udp::find_upper_op(step.upper_op);
    for (const auto& a : op.args) {
      if (!a.in_scenario && a.kind == udp::UpperArgKind::Address) {
        req[std::string(a.key)] = a_.tester_control().to_string();
      }
    }
    for (const auto& m : step.pattern.matchers) {
      auto v = to_json_value(m.value);
      if (!v) return unresolved(m.value);
      if (udp::find_upper_arg(op, m.field)->kind == udp::UpperArgKind::Bool) {
        req[m.field] = v->is_number() && v->get<std::uint64_t>() != 0;
      } else {
        req[m.field] = *v;
      }
    }
    if (step.upper_op == "submit") last_submit_ = a_.now();
    const auto resp = a_.upper(nlohmann::json::parse(req.dump()));
    if (s_.role == Role::Sender) checker_.on_sender_input(a_.now());
    log_tester(a_.now(), "upper", json{{"request", req}, {"response", json::parse(resp.dump())}});
    if (!resp.is_object() || !resp.value("ok", false)) {
      const std::string error = resp.is_object() ? resp.value("error", std::string("?")) : "?";
      const std::string detail = resp.is_object() ? resp.value("detail", std::string()) : "";
      if (error == "unsupported") {
        return Stop{Verdict::Unsupported,
                    "the IUT does not support upper " + step.upper_op +
                        (detail.empty() ? "" : ": " + detail),
                    "", ""};
      }
      return Stop{Verdict::Inconclusive,
                  "the upper tester refused " + step.upper_op + ": " + error +
                      (detail.empty() ? "" : " (" + detail + ")"),
                  req.dump(), resp.dump()};
    }
    for (const auto& c : step.pattern.captures) {
      const auto it = resp.find(c.field);
      if (it == resp.end() || !it->is_number_unsigned()) {
        return Stop{Verdict::Inconclusive,
                    "the upper tester's answer has no number '" + c.field + "'", req.dump(),
                    resp.dump()};
      }
      vars_[c.variable] = it->get<std::uint64_t>();
    }
    return std::nullopt;
  }

  // spread $V... over D: samples of a uniform draw from [0, D] ("a random duration drawn
  // uniformly from [0, J]"). All N in the lowest quarter, or all in the highest, happens to a
  // uniform draw with probability 4^-N: a failure. On real sockets a sample is late by the
  // host's delays, so the highest quarter begins that much later.
  std::optional<Stop> spread(const Step& step) {
    std::vector<std::uint64_t> v;
    for (const auto& name : step.samples) {
      const auto it = vars_.find(name);
      if (it == vars_.end()) {
        return Stop{Verdict::Inconclusive,
                    "the sample $" + name +
                        " was never captured (the step that captures it "
                        "did not run to its end)",
                    "", ""};
      }
      v.push_back(it->second);
    }
    const std::uint64_t d = static_cast<std::uint64_t>(step.within.micros());
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    const std::uint64_t late = static_cast<std::uint64_t>(widen(step.within).micros()) - d;
    const auto list = [&] {
      std::string out;
      for (const auto x : v) out += (out.empty() ? "" : ", ") + std::to_string(x);
      return out + " us";
    }();
    const double p = std::pow(0.25, static_cast<double>(v.size()));
    char chance[32];
    std::snprintf(chance, sizeof chance, "%.1e", p);
    const std::string expected = "samples spread over [0, " + std::to_string(d) + " us]";
    if (*hi < d / 4) {
      return Stop{Verdict::Fail,
                  "all " + std::to_string(v.size()) + " samples lie below " +
                      std::to_string(d / 4) + " us, the lowest quarter of [0, " +
                      std::to_string(d) + " us]: a uniform draw does that with probability " +
                      chance,
                  expected, list};
    }
    if (*lo > 3 * d / 4 + late) {
      return Stop{Verdict::Fail,
                  "all " + std::to_string(v.size()) + " samples lie above " +
                      std::to_string(3 * d / 4 + late) + " us, the highest quarter of [0, " +
                      std::to_string(d) + " us]" +
                      (late != 0 ? " and the window tolerance" : std::string()) +
                      ": a uniform draw does that with probability " + chance,
                  expected, list};
    }
    log_tester(a_.now(), "spread", json{{"samples_us", v}, {"over_us", d}});
    return std::nullopt;
  }

  std::optional<Stop> queue(const Step& step) {
    QueueSample q;
    for (const auto& m : step.pattern.matchers) {
      if (m.field == "source" || m.field == "destination") {
        // IP:PORT as written, or an address variable ($tester: the flow's side the tester
        // plays, so that a real CRN's report to it reaches the tester).
        Address a;
        const auto text = resolve_text(m.value);
        if (!text || !Address::parse(*text, a)) {
          return Stop{Verdict::Inconclusive,
                      m.value.where.to_string() + ": '" + m.value.to_string() + "' is not IP:PORT",
                      "", ""};
        }
        (m.field == "source" ? q.source : q.destination) = a;
        continue;
      }
      auto v = resolve(m.value);
      if (!v) return unresolved(m.value);
      if (m.field == "port") q.port = static_cast<std::uint16_t>(*v);
      if (m.field == "occupancy") q.occupancy = *v;
      if (m.field == "dscp") q.dscp = static_cast<std::uint8_t>(*v);
      if (m.field == "protocol") q.protocol = static_cast<std::uint8_t>(*v);
      if (m.field == "flows") q.flows = static_cast<std::uint32_t>(*v);
    }
    if (auto e = a_.queue(q)) return Stop{Verdict::Unsupported, *e, "", ""};
    if (crn_reports_) crn_reports_->observed(q, a_.now());
    return std::nullopt;
  }

  // ---- the record: trace, events, invariants ----

  void record(const Packet& p, bool from_tester) {
    trace_.push_back({p, from_tester});
    json f;
    f["from"] = p.from.to_string();
    f["to"] = p.to.to_string();
    f["data"] = p.data;
    // When the tester's kernel took it in (real time): what the invariant checker judges by.
    if (p.kernel_time) f["kernel_time_ns"] = p.kernel_time->ns;
    if (p.rocev2) {
      if (auto j = rocev2_view(p)) f["rocev2"] = *j;
    } else if (p.data) {
      if (auto dv = data_view(p)) f["packet"] = data_json(*dv);
    } else if (auto m = decode(p.payload)) {
      f["message"] = to_json(*m);
    } else {
      f["undecodable"] = to_hex(p.payload);
    }
    log_tester(p.time, from_tester ? "sent" : "received", std::move(f));
    feed_checker(p, from_tester);
    // What the checker found on seeing this packet is about this frame.
    while (violation_frames_.size() < checker_.violations().size())
      violation_frames_.push_back(trace_.size());
    if (!from_tester && !p.data) track_rates(p);
    if (!from_tester && !p.data && crn_reports_) judge_report(p);
    if (from_tester && !p.data) end_rates(p);
  }

  // Every report of a CRN IUT, judged against the tester's queue observations
  // (steps/crn_reports.hpp): a wrong one fails the step it arrives in.
  void judge_report(const Packet& p) {
    auto m = decode(p.payload);
    const auto* r = m ? std::get_if<CongestionReport>(&*m) : nullptr;
    if (r == nullptr || watch_failure_) return;
    if (auto f = crn_reports_->report(*r, p.to, arrival(p))) {
      watch_failure_ =
          Stop{Verdict::Fail, f->reason, f->expected, rdcc::format_line(*m), {"RDCC-CRN-03"}};
      watch_failure_->frames = {trace_.size()};
    }
  }

  // A CANCEL or CREDIT_RETURN the tester sends ends the message's rate for the pacing_sum
  // watch: the sender gives up the credit (CREDIT_RETURN: "the offset beyond which the sender
  // will not transmit"), and a receiver may give the rate to another message at once. The
  // watch then counts less, never more.
  void end_rates(const Packet& p) {
    auto m = decode(p.payload);
    if (!m) return;
    const auto& h = header_of(*m);
    if (const auto* c = std::get_if<Cancel>(&*m)) {
      rates_.erase({h.association_id, c->message_id});
    } else if (const auto* r = std::get_if<CreditReturn>(&*m)) {
      rates_.erase({h.association_id, r->message_id});
    }
  }

  // ---- watch pacing_sum<=N: the Pacing Rates in force, summed (Credit Allocation, rule 1) ----

  struct Watch {
    Op op = Op::Le;
    std::uint64_t limit = 0;
    std::string text;
    std::vector<std::string> checks;  // the requirements the watch checks
  };
  struct RateInForce {
    std::uint64_t rate = 0;
    std::uint64_t limit = 0;    // the grant's Grant Limit
    std::optional<Time> until;  // the grant's Lifetime; none: lifetime unknown, until MSG_DONE
  };

  // Every message the IUT granted has its latest grant's rate in force until MSG_DONE, CANCEL
  // or the grant's Lifetime (its own, or the association's default from ASSOC_ACCEPT).
  void track_rates(const Packet& p) {
    auto m = decode(p.payload);
    if (!m) return;
    const auto& h = header_of(*m);
    if (const auto* e = std::get_if<ErrorMessage>(&*m);
        e != nullptr && e->reason == static_cast<std::uint16_t>(ReasonCode::UnknownAssociation)) {
      // The IUT has no such association (an idle one it removed): no U of it is in force.
      u_in_force_.erase(h.association_id);
      return;
    }
    if (const auto* a = std::get_if<AssocAccept>(&*m)) {
      default_lifetime_[h.association_id] = a->grant_lifetime;
      u_in_force_[h.association_id] = a->unscheduled_limit;
      auto& largest = u_largest_[h.association_id];
      largest = std::max(largest, a->unscheduled_limit);
      if (!watch_failure_) {
        watch_failure_ = check_unscheduled_watch();
        if (watch_failure_) watch_failure_->frames = {trace_.size()};
      }
      return;
    }
    const auto key = [&](std::uint64_t message_id) {
      return std::pair<std::uint64_t, std::uint64_t>{h.association_id, message_id};
    };
    if (const auto* g = std::get_if<CreditGrant>(&*m)) {
      if (g->pacing_rate == 0) return;  // ignored by the sender; the checker flags it
      auto& granted = granted_[{h.association_id, g->message_id}];
      granted = std::max(granted, g->grant_limit);
      if (weight_share_ && weight_share_->association == h.association_id && !watch_failure_) {
        const std::uint64_t heavier_sent =
            tester_sent({h.association_id, weight_share_->share.heavier()});
        if (auto why = weight_share_->share.grant(g->message_id, g->grant_limit, heavier_sent)) {
          watch_failure_ = Stop{Verdict::Fail, *why, weight_share_->text, rdcc::format_line(*m),
                                weight_share_->checks};
          watch_failure_->frames = {trace_.size()};
        }
      }
      if (const auto o = overruns_.find({h.association_id, g->message_id});
          o != overruns_.end() && g->grant_limit > o->second.limit) {
        if (p.time <= o->second.from) {
          // On its way when the overrun left: the octets may not have been beyond the
          // receiver's limit when they arrived, so they prove nothing.
          overruns_.erase(o);
        } else if (!watch_failure_) {
          watch_failure_ = Stop{Verdict::Fail,
                                "a grant for message " + std::to_string(g->message_id) + " up to " +
                                    std::to_string(g->grant_limit) +
                                    " after the tester sent data beyond its Grant Limit " +
                                    std::to_string(o->second.limit) + " (" + o->second.where + ")",
                                "no further credit for the message",
                                rdcc::format_line(*m),
                                {"RDCC-ERR-02"}};
          watch_failure_->frames = {trace_.size()};
        }
      }
      std::uint32_t lifetime = g->lifetime;
      if (lifetime == 0) {
        const auto it = default_lifetime_.find(h.association_id);
        if (it != default_lifetime_.end()) lifetime = it->second;
      }
      RateInForce r{g->pacing_rate, g->grant_limit, std::nullopt};
      // Real time: the IUT measures from when it sent the grant, the tester from when it read
      // it, later by however long a loaded host took; the tolerance covers that. Where the
      // tester's kernel stamped the grant's arrival (on loopback, within the IUT's send), the
      // Lifetime runs from there, less the checker's tolerance only.
      if (lifetime != 0 && p.kernel_time) {
        const Duration life = ref::microseconds(lifetime) - o_.checker_tolerance;
        r.until = *p.kernel_time + (life.ns > 0 ? life : Duration{});
      } else if (lifetime != 0) {
        r.until = p.time + narrow(ref::microseconds(lifetime));
      }
      rates_[key(g->message_id)] = r;
      if (!watch_failure_) {
        watch_failure_ = check_watch(arrival(p));
        if (watch_failure_) watch_failure_->frames = {trace_.size()};
      }
    } else if (const auto* d = std::get_if<MsgDone>(&*m)) {
      rates_.erase(key(d->message_id));
    } else if (const auto* c = std::get_if<Cancel>(&*m)) {
      rates_.erase(key(c->message_id));
    }
  }

  // watch weight_share heavier=H lighter=L (steps/weight_share.hpp): from the Grant Limits the
  // two messages of the default association hold now, and H's length from the tester's latest
  // CREDIT_REQUEST for it.
  std::optional<Stop> watch_weight_share(const Step& step) {
    std::uint64_t heavier = 0;
    std::uint64_t lighter = 0;
    for (const auto& m : step.pattern.matchers) {
      if (m.field == kWeightShare) continue;
      auto v = resolve(m.value);
      if (!v) return unresolved(m.value);
      (m.field == "heavier" ? heavier : lighter) = *v;
    }
    const std::uint64_t assoc = default_association();
    const auto request = last_request_.find({assoc, heavier});
    if (request == last_request_.end()) {
      return Stop{Verdict::Inconclusive,
                  step.where.to_string() + ": the tester sent no CREDIT_REQUEST for message " +
                      std::to_string(heavier) + " on association " + std::to_string(assoc) +
                      " (the scenario's error): its length is not known",
                  "", ""};
    }
    weight_share_ =
        WeightShareWatch{WeightShare(heavier, lighter, request->second.message_length,
                                     granted(assoc, heavier), granted(assoc, lighter)),
                         assoc, step.text, step.checks.empty() ? s_.checks : step.checks};
    return std::nullopt;
  }

  std::optional<Stop> check_watch(Time now) {
    const auto it = watches_.find(std::string(kPacingSum));
    if (it == watches_.end()) return std::nullopt;
    const Watch& watch = it->second;
    std::uint64_t sum = 0;
    std::string parts;
    for (const auto& [k, r] : rates_) {
      if (r.until && *r.until < now) continue;
      // Every octet up to its Grant Limit sent (a pool grant's: the octets the tester spent of
      // the association's pool): the grant carries no more data.
      if (k.second != 0 && tester_sent(k) >= r.limit) continue;
      if (const auto pool = pool_used_.find(k.first);
          k.second == 0 && pool != pool_used_.end() && pool->second >= r.limit) {
        continue;
      }
      sum += r.rate;
      parts += (parts.empty() ? "" : " + ") + std::to_string(r.rate) + " (message " +
               std::to_string(k.second) + ")";
    }
    if (compare(sum, watch.op, watch.limit)) return std::nullopt;
    return Stop{Verdict::Fail,
                "the Pacing Rates in force sum to " + std::to_string(sum) + " Mbit/s at " +
                    ref::format_time(now),
                watch.text, parts, watch.checks};
  }

  // The association the scenario's sends name by default (`defaults association_id=`), 0 for none.
  std::uint64_t default_association() const {
    const auto d = defaults_.find("association_id");
    return d == defaults_.end() ? 0 : d->second;
  }

  // The highest Grant Limit the IUT granted message (association, message ID), 0 for none.
  std::uint64_t granted(std::uint64_t assoc, std::uint64_t mid) const {
    const auto g = granted_.find({assoc, mid});
    return g == granted_.end() ? 0 : g->second;
  }

  // The end of the octets the tester sent of message (association, message ID): of the data of
  // the Binding Value its latest request named.
  std::uint64_t tester_sent(const std::pair<std::uint64_t, std::uint64_t>& key) const {
    const auto r = last_request_.find(key);
    if (r == last_request_.end()) return 0;
    const auto s = sent_.find(r->second.binding_value);
    return s == sent_.end() ? 0 : s->second;
  }

  // "the sum of U over all associations with a non-zero U does not exceed G_u": each
  // association's latest ASSOC_ACCEPT.
  std::optional<Stop> check_unscheduled_watch() {
    const auto it = watches_.find(std::string(kUnscheduledSum));
    if (it == watches_.end()) return std::nullopt;
    std::uint64_t sum = 0;
    std::string parts;
    for (const auto& [assoc, u] : u_in_force_) {
      if (u == 0) continue;
      sum += u;
      parts += (parts.empty() ? "" : " + ") + std::to_string(u) + " (association " +
               std::to_string(assoc) + ")";
    }
    if (compare(sum, it->second.op, it->second.limit)) return std::nullopt;
    return Stop{Verdict::Fail, "the non-zero U in force sum to " + std::to_string(sum) + " octets",
                it->second.text, parts, it->second.checks};
  }

  // On real sockets the host's scheduling delays the IUT's sends as it delays the tester's
  // wake-ups: packets the IUT paced can reach the tester's kernel bunched by as much. The
  // checker's timing tolerance grows to three times the latest wake-up the tester measured so
  // far in the run, when that is more than the configured one (issue 28, item 4); the report
  // prints both.
  void widen_tolerance() {
    if (a_.virtual_time()) return;
    const Duration wanted = a_.wake_jitter() * 3;
    if (wanted.ns <= tolerance_.ns) return;
    tolerance_ = wanted;
    checker_.set_timing_tolerance(tolerance_);
    checker_.set_send_time_tolerance(tolerance_);
  }

  void feed_checker(const Packet& p, bool from_tester) {
    widen_tolerance();
    if (from_tester && s_.role == Role::Sender) checker_.on_sender_input(arrival(p));
    if (!p.data) {
      auto m = decode(p.payload);
      if (!m) return;
      const Time t = arrival(p);
      if (from_tester) {
        learn_iut_association(*m);
      } else {
        learn_iut_binding(*m);
      }
      // A message the tester sends a sender IUT from another address ($other) naming the
      // association: the spec names no source check among a sender's protections against
      // injection (docs/spec-notes.md 140), so the sender may take it for its receiver's. The
      // checker counts it as the receiver's: credit the sender may hold, never credit it must
      // not use.
      Address from = p.from;
      if (from_tester && s_.role == Role::Sender && a_.other_control().port != 0 &&
          from == a_.other_control()) {
        from = a_.tester_control();
      }
      checker_.on_control_sent(from, p.to, *m, t);
      checker_.on_control_delivered(from, p.to, *m, t);
      return;
    }
    if (from_tester && p.rocev2) {
      // RoCEv2 counters say how many octets arrived on the queue pair, in order: they belong
      // to its oldest requested message that has not had all its octets.
      const auto view = rocev2_view(p);
      if (!view) return;
      auto q = rocev2_messages_.find((*view)["qp"].get<std::uint32_t>());
      if (q == rocev2_messages_.end()) return;
      std::uint64_t left = (*view)["length"].get<std::uint64_t>();
      for (auto& m : q->second) {
        if (left == 0) break;
        const std::uint64_t take = std::min(left, m.length - m.counted);
        if (take == 0) continue;
        m.counted += take;
        left -= take;
        checker_.on_data_delivered(a_.iut_control(), a_.tester_control(), m.id, take, p.time);
      }
    } else if (from_tester) {  // data to a receiver IUT
      auto dv = data_view(p);
      if (!dv) return;
      const auto it = message_of_binding_.find(dv->message);
      const std::uint64_t id = it != message_of_binding_.end() ? it->second : dv->message;
      checker_.on_data_delivered(a_.iut_control(), a_.tester_control(), id, dv->length, p.time);
    } else if (p.segment) {  // data from a sender IUT, as the reference released it
      checker_.on_segment_sent(a_.iut_control(), *p.segment, p.time);
      checker_.on_data_delivered(a_.tester_control(), a_.iut_control(), p.segment->message_id,
                                 p.segment->length, p.time);
    } else if (s_.role == Role::Sender) {  // data from a sender IUT, as the tester received it
      observe_iut_data(p);
    }
  }

  // ---- a sender IUT's data on real sockets: related to its messages as `rdcc pcap check`
  // relates a capture's (the Binding Values of its CREDIT_REQUESTs) and shown to the checker as
  // an observer's segments ----

  struct IutMessage {
    std::uint32_t association = 0;
    std::uint64_t id = 0;
    std::uint64_t counted = 0;  // RoCEv2: octets counted for it so far
    std::uint64_t end = 0;      // the highest offset (exclusive) seen: octets arrive once
  };

  // A sender IUT has an association once the tester accepts its current nonce: data naming no
  // request is then a message's under RDCC (and judged); before it, data goes without RDCC
  // ("if none is answered, the sender concludes that the receiver does not support RDCC and
  // sends without it", Association Establishment) and is the checker's to ignore.
  void learn_iut_association(const Message& m) {
    const auto* a = std::get_if<AssocAccept>(&m);
    if (a == nullptr || s_.role != Role::Sender || a->parameter_update()) return;
    if (iut_nonce_ && a->sender_nonce == *iut_nonce_) iut_association_ = a->header.association_id;
  }

  void learn_iut_binding(const Message& m) {
    if (s_.role != Role::Sender) return;
    if (const auto* q = std::get_if<AssocRequest>(&m);
        q != nullptr && !q->update_acknowledgment()) {
      iut_nonce_ = q->sender_nonce;
      return;
    }
    const auto* r = std::get_if<CreditRequest>(&m);
    if (r == nullptr) return;
    iut_association_ = r->header.association_id;
    const bool rocev2 = r->binding_kind == static_cast<std::uint8_t>(BindingKind::RoCEv2);
    // Opaque data names its message by the Binding Value, RoCEv2 data through the responder.
    auto& known = rocev2 ? iut_rocev2_[r->message_id] : iut_messages_[r->binding_value];
    if (known.id != r->message_id || known.association != r->header.association_id) {
      known = IutMessage{r->header.association_id, r->message_id, 0, 0};
    }
    if (rocev2) iut_responder_.register_message(r->binding_value, r->message_id);
  }

  void observe_iut_data(const Packet& p) {
    const Time t = arrival(p);
    ref::DataSegment s;
    s.receiver = a_.tester_control();
    IutMessage* m = nullptr;
    if (auto op = a_.data_framing().decode(p.payload)) {
      const auto it = iut_messages_.find(op->header.message_identifier);
      if (it != iut_messages_.end()) {
        m = &it->second;
      } else {
        // Data no CREDIT_REQUEST named (yet): judged as a message of the IUT's association
        // numbered by its identifier, which has no credit and no window.
        auto& guess = unnamed_[op->header.message_identifier];
        guess.association = iut_association_;
        guess.id = op->header.message_identifier;
        m = &guess;
      }
      s.offset = op->header.offset;
      s.length = op->header.payload_length;
      s.unscheduled =
          (op->header.flags & ref::opaque_flag::kUnscheduled) != 0 || iut_unscheduled_dscp(p);
    } else if (auto rp = rocev2_from(p)) {
      const auto counted = iut_responder_.count(*rp, a_.iut_control(), iut_unscheduled_dscp(p));
      const auto it = iut_rocev2_.find(counted.message_id);
      if (counted.message_id == 0 || it == iut_rocev2_.end()) return;
      m = &it->second;
      s.offset = m->counted;
      s.length = counted.observation.octets;
      s.unscheduled = counted.observation.unscheduled_dscp;
      m->counted += s.length;
    } else {
      return;
    }
    s.association_id = m->association;
    s.message_id = m->id;
    checker_.on_segment_observed(a_.iut_control(), s, t);
    const std::uint64_t end = s.offset + s.length;
    if (end > m->end) {
      checker_.on_data_delivered(a_.tester_control(), a_.iut_control(), m->id, end - m->end, t);
      m->end = end;
    }
  }

  // The packet carries the DSCP the IUT marks unscheduled data with, where it has one.
  bool iut_unscheduled_dscp(const Packet& p) const {
    const auto d = a_.unscheduled_dscp();
    return d && p.dscp == *d;
  }

  // A RoCEv2 packet the IUT sent to the tester's data port: the IP and UDP headers rebuilt
  // from the datagram (the ICRC is not checked: the tester counts what arrived).
  static std::optional<ref::Rocev2Packet> rocev2_from(const Packet& p) {
    if (p.from.ipv6 || p.payload.size() < ref::kBthSize + ref::kIcrcSize) return std::nullopt;
    ref::Ipv4Udp h;
    h.source = p.from.ip;
    h.destination = p.to.ip;
    h.source_port = p.from.port;
    h.destination_port = ref::kRocev2Port;
    h.dscp = p.dscp;
    h.ecn = p.ce ? ref::kEcnCe : ref::kEcnEct0;
    std::vector<std::byte> ip_packet(ref::kIpv4HeaderSize + ref::kUdpHeaderSize + p.payload.size());
    if (!ref::encode_ipv4_udp(h, p.payload, ip_packet)) return std::nullopt;
    auto rp = ref::decode_rocev2(ip_packet, false);
    if (!rp) return std::nullopt;
    return *rp;
  }

  std::optional<Stop> check_invariants() {
    const auto& v = checker_.violations();
    for (; violations_seen_ < v.size(); ++violations_seen_) {
      const auto& x = v[violations_seen_];
      if (!rule_binds(x, s_.role)) continue;
      const std::string id = requirement_of_rule(x.rule);
      const std::string timing = a_.virtual_time()
                                     ? ""
                                     : " (timing tolerance " + describe_duration(tolerance_) +
                                           ", the tester's wake-up jitter " +
                                           describe_duration(a_.wake_jitter()) + ")";
      return Stop{Verdict::Fail,
                  "invariant '" + x.rule + "' violated at " + ref::format_time(x.time) + timing,
                  "the invariant '" + x.rule + "' holds",
                  x.detail,
                  {id.empty() ? x.rule : id},
                  false,
                  frame_of_violation(violations_seen_)};
    }
    return std::nullopt;
  }

  // ---- frame numbers: the trace's order is the pcap's (report.cpp write_pcap) ----

  // The frame of a packet the runner received (recorded in the trace when it was read).
  std::vector<std::size_t> frame_of(const Packet& p) const {
    for (std::size_t i = trace_.size(); i-- > 0;) {
      const Packet& q = trace_[i].packet;
      if (!trace_[i].from_tester && q.time == p.time && q.from == p.from && q.to == p.to &&
          q.payload == p.payload) {
        return {i + 1};
      }
    }
    return {};
  }

  // The frame on whose arrival the checker found its violation number `i`.
  std::vector<std::size_t> frame_of_violation(std::size_t i) const {
    if (i < violation_frames_.size()) return {violation_frames_[i]};
    return {};
  }

  std::vector<std::size_t> last_sent_frame() const {
    for (std::size_t i = trace_.size(); i-- > 0;) {
      if (trace_[i].from_tester) return {i + 1};
    }
    return {};
  }

  // The run's addresses by lifeline. The tester's CRN address ($crn) is its control address.
  std::vector<std::pair<std::string, std::string>> hosts() const {
    std::vector<std::pair<std::string, std::string>> out;
    const auto add = [&](const Address& a, const char* name) {
      if (a.port == 0) return;
      const std::string text = a.to_string();
      for (const auto& h : out) {
        if (h.first == text) return;
      }
      out.emplace_back(text, name);
    };
    add(a_.tester_control(), "tester");
    add(a_.tester_data(), "tester data");
    add(a_.iut_control(), "iut");
    add(a_.iut_data(), "iut data");
    add(a_.iut_rocev2(), "iut rocev2");
    add(a_.other_control(), "other");
    return out;
  }

  void log_tester(Time t, const char* name, json fields) {
    ref::Event e{t, "tester", name, std::move(fields)};
    events_.push_back(e.to_json());
  }

  void collect_events() {
    for (const auto& e : a_.take_events()) events_.push_back(e.to_json());
  }

  const Scenario& s_;
  Adapter& a_;
  const RunOptions& o_;
  Time start_{};
  checker::InvariantChecker checker_;
  Duration tolerance_{};  // the checker's timing tolerance now (widen_tolerance)
  std::size_t violations_seen_ = 0;
  std::vector<std::size_t> violation_frames_;  // per violation of checker_, its frame (1-based)
  std::map<std::string, std::uint64_t> vars_;
  std::map<std::string, std::uint64_t> defaults_;
  std::vector<Pattern> ignored_;
  std::map<std::string, std::string> text_vars_;
  std::map<std::string, Watch, std::less<>> watches_;  // by field: pacing_sum, unscheduled_sum
  struct WeightShareWatch {
    WeightShare share;
    std::uint64_t association = 0;
    std::string text;
    std::vector<std::string> checks;
  };
  std::optional<WeightShareWatch> weight_share_;       // watch weight_share
  std::map<std::uint32_t, std::uint32_t> u_in_force_;  // association -> its latest U
  std::map<std::uint32_t, std::uint32_t> u_largest_;   // association -> the largest U it had
  // (association, message) -> the tester sent data beyond the Grant Limit (transfer overrun=N).
  struct Overrun {
    std::uint64_t limit = 0;  // the highest Grant Limit the IUT had granted
    Time from{};              // grants read after this were sent after the data arrived
    std::string where;        // the transfer step
  };
  std::map<std::pair<std::uint64_t, std::uint64_t>, Overrun> overruns_;
  // (association, message) -> the highest Grant Limit the IUT granted (transfer).
  std::map<std::pair<std::uint64_t, std::uint64_t>, std::uint64_t> granted_;
  std::map<std::uint64_t, std::uint64_t> sent_;  // opaque message -> end of the data sent
  std::map<std::uint64_t, std::uint64_t>
      pool_used_;  // association -> octets sent under pool grants
  // (association, message) -> its latest CREDIT_REQUEST, which transfer repeats.
  std::map<std::pair<std::uint64_t, std::uint64_t>, CreditRequest> last_request_;
  // The latest CONGESTION_REPORT a send step sent, and the address it named (transfer report=1
  // sends it again before each segment).
  struct LastReport {
    CongestionReport report;
    std::optional<Address> from;
  };
  std::optional<LastReport> last_report_;
  std::optional<Stop> watch_failure_;
  std::optional<CrnReportJudge> crn_reports_;  // role crn: every report against the queue
  std::optional<Time> last_submit_;            // the latest upper submit (since_submit_us)
  std::map<std::pair<std::uint64_t, std::uint64_t>, RateInForce> rates_;
  std::map<std::uint32_t, std::uint32_t> default_lifetime_;
  std::deque<Packet> held_;
  // When the packet the last step matched arrived, and so where the window of the step after
  // it starts (expect_until) and what its gap_us counts from.
  std::optional<Time> matched_at_;
  std::optional<Time> origin_;
  std::uint32_t next_sequence_ = 1;
  std::map<std::uint64_t, std::uint64_t> message_of_binding_;
  // Binding Values of messages a `within_u=1` request sent scheduled (U below their length).
  std::set<std::uint64_t> scheduled_instead_;
  // A sender IUT's messages by the Binding Value of its requests (opaque), by Message ID
  // (RoCEv2, through the responder), and data that named none; its latest association.
  std::map<std::uint64_t, IutMessage> iut_messages_;
  std::map<std::uint64_t, IutMessage> iut_rocev2_;
  std::map<std::uint64_t, IutMessage> unnamed_;
  ref::Rocev2Responder iut_responder_;
  std::uint32_t iut_association_ = 0;       // 0: none accepted; its data is sent without RDCC
  std::optional<std::uint64_t> iut_nonce_;  // the Sender Nonce of its latest ASSOC_REQUEST
  // RoCEv2: the messages requested on each queue pair, oldest first, and the PSN to send next.
  struct Rocev2Message {
    std::uint64_t id = 0;
    std::uint64_t length = 0;
    std::uint64_t counted = 0;
  };
  std::map<std::uint32_t, std::vector<Rocev2Message>> rocev2_messages_;
  std::map<std::uint32_t, std::uint32_t> next_psn_;
  std::vector<TraceEntry> trace_;
  std::vector<json> events_;
};

}  // namespace

const char* to_string(Verdict v) {
  switch (v) {
    case Verdict::Pass: return "pass";
    case Verdict::Warn: return "warn";
    case Verdict::Fail: return "fail";
    case Verdict::Inconclusive: return "inconclusive";
    case Verdict::Unsupported: return "unsupported";
    case Verdict::Skipped: return "skipped";
    case Verdict::Flaky: return "flaky";
  }
  return "?";
}

Verdict verdict_of_failure(const std::vector<std::string>& ids, const LevelOf& level_of,
                           bool strict, std::string& level) {
  level.clear();
  std::string warn_level;
  for (const auto& id : ids) {
    const auto text = level_of ? level_of(id) : std::nullopt;
    const auto known = text ? level_from_string(*text) : std::nullopt;
    if (!known) return Verdict::Fail;  // a requirement the catalog lacks: no reason to soften
    if (severity_of(*known) == Severity::Fail) {
      level = *text;
      return Verdict::Fail;
    }
    if (warn_level.empty()) warn_level = *text;
  }
  if (warn_level.empty()) return Verdict::Fail;
  level = warn_level;
  return strict ? Verdict::Fail : Verdict::Warn;
}

std::string requirement_of_rule(std::string_view rule) {
  // The InvariantChecker names its rules by catalog ID (rdcc/checker/rules.hpp).
  return is_well_formed_id(rule) ? std::string(rule) : std::string();
}

bool rule_binds(const checker::Violation& v, Role iut_role) {
  // The party comes from the one table (rdcc/checker/rules.hpp, held to the catalog's roles
  // by rules_test): a rule of one role is held against that role, a rule of every endpoint
  // ("any") against the endpoint that originated the message.
  switch (iut_role) {
    case Role::Sender: return v.party == checker::Party::Sender;
    case Role::Receiver: return v.party == checker::Party::Receiver;
    case Role::Crn:
    case Role::Any:
    case Role::Operator: return false;
  }
  return false;
}

ScenarioResult not_run(const Scenario& s, Verdict v, std::string reason) {
  ScenarioResult r;
  r.name = s.name;
  r.file = s.where.file;
  r.role = s.role;
  r.checks = s.checks;
  r.tags = s.tags;
  r.description = s.description;
  r.source = s.source;
  r.verdict = v;
  r.reason = std::move(reason);
  return r;
}

ScenarioResult run_scenario(const Scenario& s, Adapter& adapter, const RunOptions& options) {
  Run run(s, adapter, options);
  return run.go();
}

}  // namespace rdcc::conformance
