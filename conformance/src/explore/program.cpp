// The model of what the tester may send a receiver IUT, and the programs drawn from it
// (explore.hpp). The tester plays conforming senders (docs/explore.md, "What explore sends"):
// several associations, messages of unaligned lengths with every class and weight, data for
// whatever is granted, cancels, credit returns, SENDER_STATUS, Sequence Numbers that jump across
// the wrap, and histories the spec gives an answer for (a request for a completed message) or
// forbids acting on (a stale or equal Sequence Number, a wrong Epoch, an unknown association).
// Where the spec demands an answer and states no time, the answer is proven missing by order: a
// retransmitted ASSOC_REQUEST sent after the stimulus is always answered (RDCC-ASSOC-01).
#include <algorithm>
#include <array>
#include <cstdio>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "models.hpp"
#include "rdcc/conformance/explore.hpp"
#include "rdcc/reference/random.hpp"

namespace rdcc::conformance {
namespace {

// The receiver's messages to a sender, all skipped by an expect but the ones it names.
constexpr const char* kAllReplies = "CREDIT_GRANT MSG_DONE ERROR CANCEL";
// The same, to the address the association is bound to only (a stimulus from $other).
constexpr const char* kToBound =
    "CREDIT_GRANT to=$tester MSG_DONE to=$tester CANCEL to=$tester ERROR to=$tester";

struct Message {
  std::size_t requested = 0, completed = 0;  // the stimuli that requested and transferred it
  std::uint64_t id = 0, length = 0, binding = 0;
  unsigned klass = 0, weight = 1, hint = 0;
  std::uint64_t deadline = 0;
  bool transferred = false, abandoned = false;
  bool unscheduled = false;
};

struct Association {
  std::size_t made = 0;  // the stimulus that established it
  std::string a, e;      // the variables its ASSOC_ACCEPT is captured into
  std::uint64_t nonce = 0;
  std::string caps;
  std::uint64_t line_rate = 0;
  std::uint64_t next_id = 1;
  bool unscheduled_sent = false;  // one unscheduled message per association and episode
  std::vector<Message> messages;
};

class ReceiverModel {
 public:
  ReceiverModel(std::uint64_t seed, std::size_t episode)
      : rng_(seed * 0x9E3779B97F4A7C15ULL + episode + 1),
        odd_(episode % 2 == 1),
        other_address_(episode % 3 == 1),
        budget_(episode % 3 == 2) {}

  Stimulus next() {
    Stimulus s = draw();
    ++index_;
    return explore_model::with_sorted_needs(std::move(s));
  }

 private:
  Stimulus draw() {
    if (assocs_.empty()) return associate();
    for (;;) {
      const auto pick = below(112);
      if (pick < 6 && assocs_.size() < 3) return associate();
      if (pick < 26) return request(any_assoc());
      if (pick < 30) return big_request();
      if (pick < 50) {
        if (auto s = transfer()) return *s;
        continue;
      }
      if (pick < 56) {
        if (auto s = msg_done_again()) return *s;
        continue;
      }
      if (pick < 61) return unknown_association();
      if (pick < 65) return unsupported_binding();
      if (pick < 70) return wrong_epoch();
      if (pick < 76) return stale_sequence();
      if (pick < 80) return jump_sequence();
      if (pick < 84) {
        if (auto s = cancel()) return *s;
        continue;
      }
      if (pick < 88) {
        if (auto s = credit_return()) return *s;
        continue;
      }
      if (pick < 90) return sender_status();
      if (pick < 92) return retransmit();
      if (pick < 94) return malformed();
      if (pick < 96) return suggested_rate();
      if (pick < 98) {
        if (auto s = unscheduled(budget_ && below(2) == 0)) return *s;
        continue;
      }
      if (pick < 100) return wait();
      if (pick < 103) return unknown_type();
      if (pick < 106) {
        if (other_address_) return foreign_request();
        continue;
      }
      if (pick < 109) {
        if (auto s = overrun()) return *s;
        continue;
      }
      if (auto s = unscheduled(true)) return *s;
    }
  }

  std::uint64_t below(std::uint64_t n) { return rng_.uniform(n - 1); }
  std::uint64_t in(std::uint64_t lo, std::uint64_t hi) { return lo + rng_.uniform(hi - lo); }
  Association& any_assoc() { return assocs_[below(assocs_.size())]; }

  std::string head(const Association& as) const {
    return "association_id=$" + as.a + " epoch=$" + as.e;
  }

  Stimulus associate() {
    Association as;
    const auto k = std::to_string(assocs_.size() + 1);
    as.a = "a" + k;
    as.e = "e" + k;
    as.nonce = rng_.next_u64() | 1U;
    static constexpr std::array<const char*, 4> kCaps = {"0", "POOL", "STATUS", "POOL|STATUS"};
    as.caps = kCaps[below(kCaps.size())];
    as.line_rate = std::array<std::uint64_t, 4>{1000, 25000, 100000, 400000}[below(4)];
    as.next_id = 1 + below(4) * 1000;
    as.made = index_;
    Stimulus s{"associate", {}};
    // The first association of an odd episode starts the tester's numbering just below the
    // 32-bit wrap, so that the episode's messages cross it.
    std::string seq;
    if (assocs_.empty() && odd_) {
      anchor_ = 0x100000000ULL - in(1, 300);
      sent_ = 1;
      seq = " sequence_number=" + std::to_string(anchor_);
    }
    if (!assocs_.empty()) drain(s);  // answers to earlier probes are not this one's
    s.lines.push_back(assoc_request(as, seq));
    // Parameter Updates of the other associations may cross it; any other ASSOC_ACCEPT must
    // echo this nonce.
    s.lines.push_back(std::string("ignore ") + kAllReplies + " ASSOC_ACCEPT flags&1");
    s.lines.push_back("expect ASSOC_ACCEPT within 10ms sender_nonce=" + format_hex(as.nonce) +
                      " -> " + as.a + "=association_id " + as.e + "=epoch checks RDCC-ASSOC-01");
    ++sent_;
    assocs_.push_back(std::move(as));
    if (assocs_.size() == 1) first_request(s);
    return s;
  }

  // The episode's first message: a small one in the opaque binding, which the receiver grants
  // (its own grant or a pool grant) or declines the way the spec prescribes for a binding it
  // does not support (ERROR UNSUPPORTED_BINDING: the episode is then unsupported, as the
  // scenarios are, since every message explore sends is opaque).
  void first_request(Stimulus& s) {
    Association& as = assocs_.back();
    Message m = new_message(as);
    m.length = in(1, 4096);
    m.requested = index_;
    const std::string id = std::to_string(m.id);
    s.lines.emplace_back("ignore MSG_DONE CANCEL ASSOC_ACCEPT ERROR reason!=UNSUPPORTED_BINDING");
    s.lines.push_back(request_line(as, m, 2, ""));
    ++sent_;
    s.lines.emplace_back("expect one of within 10ms");
    s.lines.push_back("| CREDIT_GRANT message_id=" + id);
    s.lines.emplace_back("| CREDIT_GRANT message_id=0");
    s.lines.push_back("| unsupported ERROR reason=UNSUPPORTED_BINDING message_id=" + id);
    s.lines.push_back(std::string("ignore ") + kAllReplies + " ASSOC_ACCEPT flags&1");
    as.messages.push_back(m);
  }

  static std::string assoc_request(const Association& as, const std::string& seq) {
    return "send ASSOC_REQUEST sender_nonce=" + format_hex(as.nonce) + " capabilities=" + as.caps +
           " line_rate=" + std::to_string(as.line_rate) + seq;
  }

  // A length: unaligned mostly, aligned to 4096 at times, from 1 octet to 400 KiB.
  std::uint64_t length() {
    switch (below(5)) {
      case 0: return in(1, 4096);
      case 1: return in(4097, 65536);
      case 2: return in(65537, 409600);
      case 3: return 4096 * in(1, 64);
      default: {
        const std::uint64_t units = in(1, 16);  // one draw per statement (sender_status)
        return 4096 * units + in(1, 4095);
      }
    }
  }

  std::string request_line(const Association& as, const Message& m, unsigned kind,
                           const std::string& extra) const {
    return "send CREDIT_REQUEST " + head(as) + " message_id=" + std::to_string(m.id) +
           " message_length=" + std::to_string(m.length) +
           " traffic_class=" + std::to_string(m.klass) + " weight=" + std::to_string(m.weight) +
           " service_hint=" + std::to_string(m.hint) + " deadline=" + std::to_string(m.deadline) +
           " binding_kind=" + std::to_string(kind) + " binding_value=" + format_hex(m.binding) +
           extra;
  }

  Message new_message(Association& as) {
    Message m;
    m.id = as.next_id;
    const std::uint64_t gap = below(3);   // one draw per statement (sender_status)
    as.next_id += 1 + gap * below(1000);  // Message IDs increase, with gaps at times
    m.length = length();
    m.binding = ++bindings_ * 0x10001ULL;
    m.klass = static_cast<unsigned>(below(10));    // above 7 is treated as 7
    m.weight = static_cast<unsigned>(below(256));  // zero is treated as 1
    m.hint = static_cast<unsigned>(below(3));
    m.deadline = below(3) == 0 ? in(1, 100000) : 0;
    return m;
  }

  Stimulus request(Association& as) {
    Message m = new_message(as);
    Stimulus s{"request", {request_line(as, m, 2, "")}, {as.made}};
    ++sent_;
    m.requested = index_;
    as.messages.push_back(m);
    return s;
  }

  // Messages of every association that `pred` accepts.
  template <class Pred>
  std::optional<std::pair<Association*, Message*>> pick_message(Pred pred) {
    std::vector<std::pair<Association*, Message*>> all;
    for (auto& as : assocs_) {
      for (auto& m : as.messages) {
        if constexpr (std::is_invocable_v<Pred, const Association&, const Message&>) {
          if (pred(as, m)) all.emplace_back(&as, &m);
        } else {
          if (pred(m)) all.emplace_back(&as, &m);
        }
      }
    }
    if (all.empty()) return std::nullopt;
    return all[below(all.size())];
  }

  // Data for a message of the newest association only: the tester's data all comes from one
  // address, and a receiver relates it to the association last accepted from there
  // (docs/spec-notes.md 89); an older association's messages are requested, never sent.
  std::optional<Stimulus> transfer() {
    const Association* newest = &assocs_.back();
    auto got = pick_message([&](const Association& as, const Message& m) {
      return &as == newest && !m.transferred && !m.abandoned;
    });
    if (!got) return std::nullopt;
    auto& [as, m] = *got;
    m->transferred = true;
    m->completed = index_;
    const std::uint64_t segment = std::array<std::uint64_t, 4>{4096, 1000, 1460, 8999}[below(4)];
    Stimulus s{"transfer", {"defaults " + head(*as)}, {as->made, m->requested}};
    s.lines.push_back("transfer within 1s message_id=" + std::to_string(m->id) + " message=" +
                      format_hex(m->binding) + " length=" + std::to_string(m->length) +
                      " segment=" + std::to_string(segment) + (below(6) == 0 ? " ce=1" : ""));
    // "When the receiver has received all octets of a message it sends MSG_DONE": owed now,
    // proven missing by order (the probe's answer, then the tester's patience).
    s.lines.push_back(
        "ignore CREDIT_GRANT ERROR CANCEL MSG_DONE message_id!=" + std::to_string(m->id) +
        " ASSOC_ACCEPT sender_nonce!=" + format_hex(as->nonce));
    by_order(s, *as, "RDCC-GRANT-13",
             "MSG_DONE association_id=$" + as->a + " message_id=" + std::to_string(m->id) +
                 " octets_received=" + std::to_string(m->length));
    return s;
  }

  // Skips what has arrived so far (none of it is judged by the expect that follows; the checker
  // saw it as it came), so that an answer to an earlier probe is not taken for a later one's.
  static void drain(Stimulus& s) {
    s.lines.push_back(std::string("ignore ") + kAllReplies + " ASSOC_ACCEPT");
    s.lines.emplace_back("silence 1ms");
  }

  // The probe: the association's ASSOC_REQUEST again (same nonce); the receiver answers it
  // with the same Association ID (RDCC-ASSOC-01), after whatever the tester sent before it.
  std::string probe(const Association& as, const std::string& seq = "") {
    ++sent_;
    return assoc_request(as, seq);
  }
  // The same Association ID: "A receiver MUST treat a retransmitted ASSOC_REQUEST with the same
  // nonce as idempotent and return the same Association ID" (RDCC-ASSOC-01).
  static std::string probe_fields(const Association& as) {
    return "sender_nonce=" + format_hex(as.nonce) + " association_id=$" + as.a;
  }
  static std::string probe_answer(const Association& as) {
    return "ASSOC_ACCEPT " + probe_fields(as);
  }
  // The probe, and its answer awaited: a reply the step's ignore line does not skip, before
  // it, fails `checks`.
  void answered_probe(Stimulus& s, const Association& as, const std::string& checks,
                      const std::string& seq = "") {
    s.lines.push_back(probe(as, seq));
    s.lines.push_back("expect ASSOC_ACCEPT within 10ms " + probe_fields(as) + " checks " + checks +
                      " RDCC-ASSOC-01");
  }
  // The probe, then `answer` (owed for what the tester sent before it) or, proof by order, the
  // probe's answer first and `answer` within the tester's patience after it.
  void by_order(Stimulus& s, const Association& as, const std::string& checks,
                const std::string& answer) {
    s.lines.push_back(probe(as));
    s.lines.push_back("expect one of within 10ms checks " + checks + " RDCC-ASSOC-01");
    s.lines.push_back("| " + answer);
    s.lines.push_back("| later " + probe_answer(as));
  }

  // A request for a completed message gets MSG_DONE again (Sender Message State Machine).
  std::optional<Stimulus> msg_done_again() {
    auto got = pick_message([](const Message& m) { return m.transferred; });
    if (!got) return std::nullopt;
    auto& [as, m] = *got;
    Stimulus s{"msg-done-again", {}, {as->made, m->requested, m->completed}};
    drain(s);
    s.lines.push_back(
        "ignore CREDIT_GRANT ERROR CANCEL MSG_DONE message_id!=" + std::to_string(m->id) +
        " ASSOC_ACCEPT sender_nonce!=" + format_hex(as->nonce));
    s.lines.push_back(request_line(*as, *m, 2, ""));
    ++sent_;
    by_order(s, *as, "RDCC-SM-01",
             "MSG_DONE " + head(*as) + " message_id=" + std::to_string(m->id) +
                 " octets_received=" + std::to_string(m->length));
    return s;
  }

  // A message larger than the budget allows at once (512 KiB to 6 MiB): requested, never sent
  // (its grants expire and are reclaimed), so that the demand exceeds G.
  Stimulus big_request() {
    Association& as = any_assoc();
    Message m = new_message(as);
    m.length = in(512 * 1024, 6 * 1024 * 1024);
    m.abandoned = true;
    m.requested = index_;
    ++sent_;
    Stimulus s{"big-request", {request_line(as, m, 2, "")}, {as.made}};
    as.messages.push_back(m);
    return s;
  }

  // A short message in unscheduled mode on the newest association (its data comes from the
  // tester's one address): the request with Unscheduled Sent = the length, then the data.
  // `late`: a message larger than the budget is requested before the unscheduled data comes,
  // 200 us after the announcement (within the window a start delay of up to J and the data's
  // way may take): the announced octets still count against G ("sum over a of (Granted(a) +
  // Unsched(a)) <= G") while the receiver grants the large message.
  std::optional<Stimulus> unscheduled(bool late) {
    Association& as = assocs_.back();
    if (as.unscheduled_sent) return std::nullopt;
    as.unscheduled_sent = true;
    Message m = new_message(as);
    m.length = in(1, late ? 16384 : 4096);
    // Not "transferred": the receiver's U for the association may be smaller than the message
    // (zero too), and then it need not count the data, so no MSG_DONE is owed for it.
    m.unscheduled = m.abandoned = true;
    m.requested = m.completed = index_;
    ++sent_;
    // Unscheduled only within the U the receiver gave the association (within_u=1: a sender
    // beyond it would misbehave, and a receiver may stop granting it); else scheduled.
    Stimulus s{
        late ? "unscheduled-late" : "unscheduled",
        {request_line(as, m, 2, " unscheduled_sent=" + std::to_string(m.length) + " within_u=1")},
        {as.made}};
    as.messages.push_back(m);
    if (late) {
      Message big = new_message(as);
      big.length = in(512 * 1024, 6 * 1024 * 1024);
      big.abandoned = true;
      big.requested = index_;
      ++sent_;
      s.lines.push_back(request_line(as, big, 2, ""));
      s.lines.emplace_back("wait 200us");
      as.messages.push_back(big);
    }
    s.lines.push_back("send data message=" + format_hex(m.binding) + " offset=0 length=" +
                      std::to_string(m.length) + " last=1 unscheduled=1 within_u=1");
    return s;
  }

  // A message of unknown Type: outside any association (Association ID 0 or one never
  // assigned) it gets no reply; naming an association from another address, at most ERROR
  // (UNSUPPORTED_TYPE) to the address bound to the association ("if the message belongs to an
  // established association, the receiver MAY reply with ERROR (UNSUPPORTED_TYPE) to the
  // address bound to that association, and it MUST NOT reply otherwise"; docs/spec-notes.md
  // 58). Proof by order: a reply before the probe's answer fails.
  Stimulus unknown_type() {
    Association& as = any_assoc();
    const auto type = static_cast<unsigned>(in(0x0B, 0xFF));
    Stimulus s{"unknown-type", {}, {as.made}};
    drain(s);
    std::array<char, 160> b{};
    std::optional<std::uint32_t> renumbered;  // the probe's number, past the message's
    if (other_address_ && below(2) == 0) {
      s.kind = "unknown-type-other-address";
      const auto [x, after] = unprocessed_number();
      renumbered = after;
      s.lines.push_back(std::string("ignore ") + kToBound +
                        " ASSOC_ACCEPT sender_nonce!=" + format_hex(as.nonce) + " to=$tester");
      std::snprintf(b.data(), b.size(), "send raw from=$other 10 %02x 00 10 $%s:4 $%s:2 0000 %08x",
                    type, as.a.c_str(), as.e.c_str(), x);
    } else {
      s.lines.push_back(
          "ignore CREDIT_GRANT MSG_DONE CANCEL ERROR reason!=UNSUPPORTED_TYPE ASSOC_ACCEPT "
          "sender_nonce!=" +
          format_hex(as.nonce));
      const std::uint64_t id = below(2) == 0 ? 0 : in(0x40000000ULL, 0xFFFFFFFFULL);
      const std::uint64_t epoch = below(0x10000);
      std::snprintf(b.data(), b.size(), "send raw 10 %02x 00 10 %08llx %04llx 0000 %08llx", type,
                    static_cast<unsigned long long>(id), static_cast<unsigned long long>(epoch),
                    static_cast<unsigned long long>(below(0x100000000ULL)));
    }
    s.lines.emplace_back(b.data());
    answered_probe(s, as, "RDCC-ERR-06 RDCC-ERR-08",
                   renumbered ? " sequence_number=" + std::to_string(*renumbered) : "");
    if (renumbered) resync(s, *renumbered);
    return s;
  }

  // A CREDIT_REQUEST naming an association, from another address: nothing to that address but
  // ERROR (UNKNOWN_ASSOCIATION) ("receivers send all other messages only to the address bound
  // when the association was accepted", Security Considerations; docs/spec-notes.md 58), and
  // anything to the bound address (a grant too: the spec names no source check among the
  // protections against blind injection). No later stimulus names the message.
  Stimulus foreign_request() {
    Association& as = any_assoc();
    const Message m = new_message(as);
    Stimulus s{"foreign-request", {}, {as.made}};
    drain(s);
    s.lines.push_back(std::string("ignore ") + kToBound +
                      " ERROR reason=UNKNOWN_ASSOCIATION to=$other ASSOC_ACCEPT sender_nonce!=" +
                      format_hex(as.nonce) + " to=$tester");
    std::string forged = request_line(as, m, 2, "");
    forged.insert(std::string("send CREDIT_REQUEST").size(), " from=$other");
    s.lines.push_back(forged);
    ++sent_;
    answered_probe(s, as, "RDCC-ALLOC-04");
    return s;
  }

  // The tester as a misbehaving sender: a message larger than most budgets, its granted octets
  // sent, then octets beyond its Grant Limit (transfer overrun=N, docs/scenario-language.md):
  // "The receiver ... MUST NOT grant further credit to the association for that message"
  // (RDCC-ERR-02), judged to the end of the episode. On the newest association, whose data the
  // receiver relates to it.
  std::optional<Stimulus> overrun() {
    Association& as = assocs_.back();
    Message m = new_message(as);
    m.length = in(300 * 1024, 2 * 1024 * 1024);
    m.abandoned = true;
    m.requested = m.completed = index_;
    ++sent_;
    const std::uint64_t segment = std::array<std::uint64_t, 3>{4096, 1460, 8999}[below(3)];
    const std::uint64_t beyond = in(1, 4096);
    Stimulus s{"overrun",
               {request_line(as, m, 2, ""), "defaults " + head(as),
                "transfer within 1s message_id=" + std::to_string(m.id) +
                    " message=" + format_hex(m.binding) + " length=" + std::to_string(m.length) +
                    " segment=" + std::to_string(segment) + " overrun=" + std::to_string(beyond)},
               {as.made}};
    as.messages.push_back(m);
    return s;
  }

  // A SENDER_STATUS with a Suggested Rate, then a new message: its grant's Pacing Rate is at
  // most that rate (RDCC-ALLOC-03; the status is the most recent).
  Stimulus suggested_rate() {
    Association& as = any_assoc();
    const std::uint64_t rate = in(1000, 50000);
    Message m = new_message(as);
    m.requested = index_;
    Stimulus s{"suggested-rate", {}, {as.made}};
    drain(s);
    // The grant for the message, or a pool grant (Message ID 0) of a receiver that uses them.
    const std::string id = std::to_string(m.id);
    // Grants of the other associations (their pool grants too) are not this one's.
    s.lines.push_back("ignore CREDIT_GRANT association_id!=$" + as.a + " CREDIT_GRANT message_id>" +
                      id + " CREDIT_GRANT message_id<" + id +
                      " message_id!=0 MSG_DONE ERROR CANCEL ASSOC_ACCEPT");
    const std::uint64_t unused = length();  // one draw per statement (sender_status)
    const std::uint64_t level = below(256);
    s.lines.push_back("send SENDER_STATUS " + head(as) + " unused_credit=" +
                      std::to_string(unused) + " congestion_level=" + std::to_string(level) +
                      " service_hint=0 suggested_rate=" + std::to_string(rate));
    s.lines.push_back(request_line(as, m, 2, ""));
    sent_ += 2;
    // Judged only within 100 us: "A receiver ignores a Suggested Rate from a SENDER_STATUS
    // received more than four default Grant Lifetimes ago" (at least 100 us each), and a
    // receiver short of budget may grant the message much later, at any rate.
    s.lines.emplace_back("expect one of within 100us checks RDCC-ALLOC-03");
    s.lines.push_back("| CREDIT_GRANT message_id=" + id + " pacing_rate<=" + std::to_string(rate));
    s.lines.push_back("| CREDIT_GRANT association_id=$" + as.a +
                      " message_id=0 pacing_rate<=" + std::to_string(rate));
    s.lines.emplace_back("| silence");
    as.messages.push_back(m);
    return s;
  }

  // A CREDIT_REQUEST for a new message with Version 2, or with a Length field smaller than 56:
  // the receiver discards it (RDCC-ERR-05, RDCC-ERR-09), so it grants nothing for the message.
  // Its Sequence Number is newer than any sent, so that only the fault discards nothing.
  Stimulus malformed() {
    Association& as = any_assoc();
    const Message m = new_message(as);
    const bool version = below(2) == 0;
    const auto [x, after] = unprocessed_number();
    std::array<char, 256> b{};
    std::snprintf(b.data(), b.size(),
                  "send raw %s 03 00 %s $%s:4 $%s:2 0000 %08x %016llx %016llx 0000000000000000 "
                  "%02x%02x%02x02 %08llx %016llx",
                  version ? "20" : "10", version ? "38" : "30", as.a.c_str(), as.e.c_str(), x,
                  static_cast<unsigned long long>(m.id), static_cast<unsigned long long>(m.length),
                  m.klass, m.weight, m.hint, static_cast<unsigned long long>(m.deadline),
                  static_cast<unsigned long long>(m.binding));
    Stimulus s = must_not_grant(version ? "bad-version" : "length-too-small", as, m, b.data(),
                                " sequence_number=" + std::to_string(after),
                                version ? "RDCC-ERR-05" : "RDCC-ERR-09");
    resync(s, after);
    return s;
  }

  // A request on an association the receiver never assigned gets ERROR UNKNOWN_ASSOCIATION.
  Stimulus unknown_association() {
    Association& as = any_assoc();
    Stimulus s{"unknown-association", {}, {as.made}};
    drain(s);
    s.lines.push_back(
        "ignore CREDIT_GRANT MSG_DONE CANCEL ERROR reason!=UNKNOWN_ASSOCIATION "
        "ASSOC_ACCEPT sender_nonce!=" +
        format_hex(as.nonce));
    const std::uint64_t id = in(0x40000000ULL, 0xFFFFFFFFULL);
    s.lines.push_back("send CREDIT_REQUEST association_id=" + format_hex(id) + " epoch=$" + as.e +
                      " message_id=1 message_length=" + std::to_string(length()) +
                      " binding_kind=OPAQUE binding_value=" + format_hex(++bindings_ * 0x10001ULL));
    ++sent_;
    by_order(s, as, "RDCC-ERR-10",
             "ERROR reason=UNKNOWN_ASSOCIATION association_id=" + format_hex(id));
    return s;
  }

  // Binding Kind 9 (none is registered) gets ERROR UNSUPPORTED_BINDING for the message.
  Stimulus unsupported_binding() {
    Association& as = any_assoc();
    Message m = new_message(as);
    Stimulus s{"unsupported-binding", {}, {as.made}};
    drain(s);
    s.lines.push_back("ignore CREDIT_GRANT MSG_DONE CANCEL ERROR message_id!=" +
                      std::to_string(m.id) + " ASSOC_ACCEPT sender_nonce!=" + format_hex(as.nonce));
    s.lines.push_back(request_line(as, m, 9, ""));
    ++sent_;
    by_order(s, as, "RDCC-BIND-02",
             "ERROR reason=UNSUPPORTED_BINDING message_id=" + std::to_string(m.id));
    return s;
  }

  // What the receiver must not act on: a grant for message `m` before the probe's answer
  // fails (the receiver read the forged request first, and granted it).
  Stimulus must_not_grant(const char* kind, Association& as, const Message& m,
                          const std::string& forged, const std::string& probe_seq,
                          const char* checks) {
    Stimulus s{kind, {}, {as.made}};
    drain(s);
    s.lines.push_back("ignore CREDIT_GRANT message_id!=" + std::to_string(m.id) +
                      " MSG_DONE ERROR CANCEL ASSOC_ACCEPT sender_nonce!=" + format_hex(as.nonce));
    s.lines.push_back(forged);
    answered_probe(s, as, checks, probe_seq);
    return s;
  }

  // A request that names the association with an Epoch it does not have (off path).
  Stimulus wrong_epoch() {
    Association& as = any_assoc();
    const Message m = new_message(as);
    std::string forged = request_line(as, m, 2, "");
    forged.replace(forged.find("epoch=$" + as.e), 7 + as.e.size(), "epoch=$" + as.e + "+1");
    ++sent_;
    return must_not_grant("wrong-epoch", as, m, forged, "", "RDCC-ALLOC-04");
  }

  // The tester's Sequence Number jumps ahead (past every number the runner may have used since
  // the last one the model set: retransmitted requests included), on every association: newer
  // in serial number arithmetic, across the 32-bit wrap at times. By a few thousand, no more: a
  // receiver may discard a number far ahead as well (the rule names what must be discarded, not
  // all that must be processed; docs/spec-notes.md, "A Sequence Number far ahead is discarded,
  // not processed"), and no sender's numbering jumps further than its lost messages. Returns the
  // number sent on `as`.
  std::uint32_t jump(Stimulus& s, const Association& as) {
    const std::uint64_t at = (anchor_ + sent_ + kSequenceMargin + below(4096)) & 0xFFFFFFFFULL;
    std::uint32_t on_as = 0;
    std::uint32_t n = static_cast<std::uint32_t>(at);
    for (const auto& other : assocs_) {
      if (&other == &as) on_as = n;
      s.lines.push_back("send SENDER_STATUS " + head(other) +
                        " unused_credit=0 congestion_level=0 suggested_rate=0 sequence_number=" +
                        std::to_string(n++));
    }
    anchor_ = n;
    sent_ = 1;
    return on_as;
  }

  // The number of a message the receiver must not process: newer than every number the runner
  // may have used since the model last set one (so that only the fault it carries makes it
  // discarded), and the number after it, which the tester goes on from (anchor_).
  std::pair<std::uint32_t, std::uint32_t> unprocessed_number() {
    const auto x = static_cast<std::uint32_t>(anchor_ + sent_ + kSequenceMargin + below(4096));
    const auto after = x + 1000U;
    anchor_ = after;
    sent_ = 1;
    return {x, after};
  }

  // After a stimulus whose numbered message the receiver does not process (malformed, of
  // unknown Type), numbered `after` and beyond: a SENDER_STATUS on every association carries the
  // numbering on, so that no association's newest processed number falls behind by more than
  // one such jump (several in a row would put the next message far ahead of it, which a
  // receiver may discard).
  void resync(Stimulus& s, std::uint32_t after) {
    std::uint32_t n = after + 1;
    for (const auto& as : assocs_) {
      s.lines.push_back("send SENDER_STATUS " + head(as) +
                        " unused_credit=0 congestion_level=0 suggested_rate=0 sequence_number=" +
                        std::to_string(n++));
    }
    anchor_ = n;
    sent_ = 1;
    const auto all = made_all();
    s.needs.insert(s.needs.end(), all.begin(), all.end());
  }

  Stimulus jump_sequence() {
    Stimulus s{"sequence-jump", {}, made_all()};
    jump(s, any_assoc());
    return s;
  }

  // After a jump to X, a request for a new message numbered X - d (d = 0: equal; else older by
  // up to 2^31 - 1) must be discarded (RDCC-FMT-06). The probe puts the numbering past X.
  Stimulus stale_sequence() {
    Association& as = any_assoc();
    Stimulus pre{"stale-sequence", {}, made_all()};
    const std::uint32_t x = jump(pre, as);
    const Message m = new_message(as);
    const std::uint64_t d = std::array<std::uint64_t, 3>{0, 1, in(2, (1ULL << 31) - 1)}[below(3)];
    const std::uint32_t stale = x - static_cast<std::uint32_t>(d);
    const auto after = static_cast<std::uint32_t>(anchor_ + 1000);
    anchor_ = after;
    sent_ = 1;
    Stimulus s = must_not_grant("stale-sequence", as, m,
                                request_line(as, m, 2, " sequence_number=" + std::to_string(stale)),
                                " sequence_number=" + std::to_string(after), "RDCC-FMT-06");
    s.lines.insert(s.lines.begin(), pre.lines.begin(), pre.lines.end());
    s.needs.insert(s.needs.end(), pre.needs.begin(), pre.needs.end());
    return s;
  }

  std::optional<Stimulus> cancel() {
    auto got = pick_message([](const Message& m) { return !m.transferred && !m.abandoned; });
    if (!got) return std::nullopt;
    auto& [as, m] = *got;
    m->abandoned = true;
    ++sent_;
    return Stimulus{"cancel",
                    {"wait 1ms", "send CANCEL " + head(*as) + " message_id=" +
                                     std::to_string(m->id) + " reason=APPLICATION_ABORT"},
                    {as->made, m->requested}};
  }

  // "New Limit MUST NOT be smaller than the octets already transmitted": 0 for a message the
  // tester has sent nothing of; it sends none of it afterwards.
  std::optional<Stimulus> credit_return() {
    auto got = pick_message([](const Message& m) { return !m.transferred && !m.abandoned; });
    if (!got) return std::nullopt;
    auto& [as, m] = *got;
    m->abandoned = true;
    ++sent_;
    // The wait first: the checker learns the IUT's grants when the tester reads them, and a
    // grant it read after the CREDIT_RETURN would count as issued after it (spec-notes 121).
    return Stimulus{"credit-return",
                    {"wait 1ms", "send CREDIT_RETURN " + head(*as) +
                                     " message_id=" + std::to_string(m->id) + " new_limit=0"},
                    {as->made, m->requested}};
  }

  Stimulus sender_status() {
    Association& as = any_assoc();
    const std::uint64_t rate = below(3) == 0 ? 0 : in(1000, 100000);
    ++sent_;
    // One draw per statement: the operands of + are evaluated in no fixed order, so two draws
    // in one expression could give other stimuli from the same seed in another build.
    const std::uint64_t unused = length();
    const std::uint64_t level = below(256);
    const std::uint64_t hint = below(3);
    return {"sender-status",
            {"send SENDER_STATUS " + head(as) + " unused_credit=" + std::to_string(unused) +
             " congestion_level=" + std::to_string(level) +
             " service_hint=" + std::to_string(hint) + " suggested_rate=" + std::to_string(rate)},
            {as.made}};
  }

  // A retransmitted request of a message still in flight.
  Stimulus retransmit() {
    auto got = pick_message([](const Message& m) { return !m.transferred && !m.abandoned; });
    if (!got) return request(any_assoc());
    auto& [as, m] = *got;
    ++sent_;
    return {"retransmit", {request_line(*as, *m, 2, "")}, {as->made, m->requested}};
  }

  Stimulus wait() {
    const std::uint64_t us = std::array<std::uint64_t, 4>{10, 150, 1200, 5000}[below(4)];
    return {"wait", {"wait " + std::to_string(us) + "us"}};
  }

  // Every association's: a jump of the Sequence Number goes to each.
  std::vector<std::size_t> made_all() const {
    std::vector<std::size_t> out;
    for (const auto& as : assocs_) out.push_back(as.made);
    return out;
  }

  ref::SeededRandom rng_;
  std::size_t index_ = 0;  // the stimulus being drawn
  std::vector<Association> assocs_;
  std::uint64_t bindings_ = 0;
  bool odd_ = false;
  // Messages from another address ($other: a udp: IUT off this host may make the episode
  // unsupported, so only every third episode sends them).
  bool other_address_ = false;
  bool budget_ = false;       // the episode's configuration has a small budget (generate_program)
  std::uint64_t anchor_ = 0;  // the last Sequence Number the tester set
  // How far past the numbers the tester used a jump lands at least: more than the runner sends
  // between two stimuli (retransmitted requests of a transfer included).
  static constexpr std::uint64_t kSequenceMargin = 2000;
  std::uint64_t sent_ = 1;  // sends since (the runner numbers them on from there)
};

}  // namespace

Program generate_program(Role role, std::uint64_t seed, std::size_t episode, std::size_t count) {
  if (role == Role::Sender) return explore_model::sender_program(seed, episode, count);
  if (role == Role::Crn) return explore_model::crn_program(seed, episode, count);
  Program p;
  p.role = role;
  p.name = "explore-" + std::to_string(seed) + "-" + std::to_string(episode);
  // Every third episode a small budget, so that demand exceeds G, with G_u for one and a half
  // associations' U (a second association must get less: "the sum of U over all associations
  // with a non-zero U does not exceed G_u") and an access link below the senders' line rates
  // ("The sum of the Pacing Rates the receiver issues MUST NOT exceed the capacity of its
  // access link"): both held by watches over the whole episode.
  // Every episode configures the link (the reference's default, 100 Gbit/s) and watches the
  // Pacing Rates in force against it: a grant's rate may break rule 1 in any episode (a
  // finished message granted again, at a rate the link no longer has for it), not only where G
  // is short.
  p.config = "link_capacity_mbps=100000";
  p.preamble = {"watch pacing_sum<=100000 checks RDCC-ALLOC-01"};
  if (episode % 3 == 2) {
    p.config =
        "budget=262144 unscheduled_budget=24576 unscheduled_limit=16384 link_capacity_mbps=100000";
    p.preamble = {"watch unscheduled_sum<=24576 checks RDCC-UNSCHED-06",
                  "watch pacing_sum<=100000 checks RDCC-ALLOC-01"};
  }
  ReceiverModel model(seed, episode);
  for (std::size_t i = 0; i < count; ++i) p.stimuli.push_back(model.next());
  return p;
}

std::vector<std::size_t> with_needs(const Program& p, std::vector<std::size_t> keep) {
  std::vector<bool> in(p.stimuli.size(), false);
  for (const auto i : keep) in[i] = true;
  // Needs point backwards: one pass from the end closes the set.
  for (std::size_t i = p.stimuli.size(); i-- > 0;) {
    if (!in[i]) continue;
    for (const auto n : p.stimuli[i].needs) in[n] = true;
  }
  keep.clear();
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (in[i]) keep.push_back(i);
  }
  return keep;
}

std::string render(const Program& p, const std::vector<std::size_t>& keep) {
  // The scenario checks what its steps check, and what the invariant checker watches: the
  // budget of a receiver, the credit a sender sends under.
  std::set<std::string> ids{p.role == Role::Sender ? "RDCC-GRANT-03"
                            : p.role == Role::Crn  ? "RDCC-CRN-03"
                                                   : "RDCC-BUDGET-01"};
  const auto cited = [&](const std::string& l) {
    const auto at = l.find(" checks ");
    if (at == std::string::npos) return;
    std::istringstream words(l.substr(at + 8));
    for (std::string id; words >> id;) ids.insert(id);
  };
  for (const auto& l : p.preamble) cited(l);
  for (const auto i : keep) {
    for (const auto& l : p.stimuli[i].lines) cited(l);
  }
  std::string checks;
  for (const auto& id : ids) checks += " " + id;
  std::string out = "scenario " + p.name + "\nrole " + std::string(to_string(p.role)) + "\nchecks" +
                    checks +
                    "\ntags explore\n"
                    "description \"Generated by rdcc-conform --explore (docs/explore.md)\"\n" +
                    (p.config.empty() ? "" : "config " + p.config + "\n") + "\n";
  for (const auto& l : p.preamble) out += l + "\n";
  for (const auto i : keep) {
    const auto& s = p.stimuli[i];
    out += "# " + std::to_string(i + 1) + ": " + s.kind + "\n";
    for (const auto& l : s.lines) out += l + "\n";
  }
  return out;
}

std::string render(const Program& p) {
  std::vector<std::size_t> all(p.stimuli.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  return render(p, all);
}

}  // namespace rdcc::conformance
