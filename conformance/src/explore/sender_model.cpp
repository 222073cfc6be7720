// The model of what the tester, playing the receiver of a sender IUT, may send it, and the
// programs drawn from it (explore.hpp, docs/explore.md, "Against a sender"). The tester accepts
// the association with parameters drawn from what the spec allows (any Credit Unit, U, J,
// default Lifetime, Epoch), submits messages of unaligned lengths through the upper tester, and
// answers them as a receiver may: grants with unaligned limits that straddle Credit Units,
// lower and equal limits (refreshes), every Pacing Rate (lowered ones too), Lifetimes from zero
// (the default) to long, pool grants, MSG_DONE. Between them, what the sender must not act on:
// a grant with Pacing Rate zero, a grant with a stale or equal Sequence Number, a grant with
// another Epoch or Association ID. Sequence Numbers are the tester's own, with gaps, across the
// 32-bit wrap in odd episodes. The oracle is the invariant checker, which sees every segment
// the sender sends against the grants it may use (the Grant Limit, the Lifetime, the Pacing
// Rate, U and the one outstanding unscheduled message), and the expects: each new message's
// Message ID is larger than the one before (RDCC-GRANT-01).
#include <algorithm>
#include <array>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "models.hpp"
#include "rdcc/reference/random.hpp"

namespace rdcc::conformance::explore_model {
namespace {

// Everything a sender sends its receiver but CREDIT_REQUEST: skipped by every expect (the
// checker judges all of it as it arrives).
constexpr const char* kSenderTraffic =
    "ASSOC_REQUEST ASSOC_ACCEPT SENDER_STATUS CANCEL CREDIT_RETURN ERROR MSG_DONE CREDIT_GRANT "
    "CONGESTION_REPORT data";

struct Message {
  std::size_t submitted = 0;  // the stimulus that submitted it (and captured its ID)
  std::string h, m;           // its variables: the upper tester's handle, the Message ID
  std::uint64_t length = 0;
  std::uint64_t held = 0;  // the highest Grant Limit the tester has granted it
  // Submitted without force_scheduled and no larger than U: the sender may send it
  // unscheduled, and then no other unscheduled message until this one is answered.
  bool maybe_unscheduled = false;
  bool answered = false;  // a usable grant or MSG_DONE was sent for it
  bool done = false;      // MSG_DONE sent
  bool cancelled = false;
  bool forced = false;      // submitted with force_scheduled
  unsigned generation = 0;  // the association (re-established ones count up) it was submitted on
};

class SenderModel {
 public:
  SenderModel(std::uint64_t seed, std::size_t episode)
      : rng_(seed * 0xD1B54A32D192ED03ULL + episode + 7),
        odd_(episode % 2 == 1),
        upper_extras_(episode % 4 == 3),
        other_address_(episode % 3 == 1) {}

  Stimulus next() {
    Stimulus s = index_ == 0 ? associate() : draw();
    ++index_;
    return explore_model::with_sorted_needs(std::move(s));
  }

 private:
  Stimulus draw() {
    for (;;) {
      const auto pick = below(100);
      if (pick < 16 && messages_.size() < 10) return submit();
      if (pick < 44) {
        if (auto s = grant()) return *s;
        continue;
      }
      if (pick < 50) {
        if (auto s = zero_rate()) return *s;
        continue;
      }
      if (pick < 56) {
        if (auto s = stale()) return *s;
        continue;
      }
      if (pick < 62) {
        if (auto s = forged()) return *s;
        continue;
      }
      if (pick < 65) {
        if (auto s = malformed()) return *s;
        continue;
      }
      if (pick < 67 && reassociations_ < 2) return unknown_association();
      if (pick < 68) return forged_accept();
      if (pick < 70) return report();
      if (pick < 74) {
        if (auto s = pool_grant()) return *s;
        continue;
      }
      if (pick < 82) {
        if (auto s = msg_done()) return *s;
        continue;
      }
      if (pick < 85 && upper_extras_) {
        if (auto s = cancel()) return *s;
        continue;
      }
      if (pick < 94 && upper_extras_) {
        if (auto s = return_credit()) return *s;
        continue;
      }
      return wait();
    }
  }

  std::uint64_t below(std::uint64_t n) { return rng_.uniform(n - 1); }
  std::uint64_t in(std::uint64_t lo, std::uint64_t hi) { return lo + rng_.uniform(hi - lo); }
  template <std::size_t N>
  std::uint64_t one_of(const std::array<std::uint64_t, N>& v) {
    return v[below(N)];
  }

  // The tester's next Sequence Number: newer than every one it sent, by one or (at times) by a
  // gap well inside the window a receiver processes (policy.hpp, kSequenceWindow).
  std::string seq() {
    if (below(4) == 0) seq_ += in(1, 3000);
    return " sequence_number=" + std::to_string(static_cast<std::uint32_t>(seq_++));
  }

  // A length no other message of the episode has (the tester tells the requests apart by it).
  std::uint64_t length() {
    for (;;) {
      std::uint64_t l = 0;
      // Small ones (no larger than U: the sender may send them unscheduled) in three of eight.
      switch (below(8)) {
        case 0: l = in(1, cu_); break;
        case 1:
        case 6:
        case 7: l = in(1, u_ == 0 ? cu_ : u_); break;
        case 2: l = in(cu_ + 1, 65536 + cu_); break;
        case 3: l = in(65537, 409600); break;
        case 4: l = cu_ * in(1, 48); break;
        default: {
          const std::uint64_t units = in(1, 16);  // one draw per statement (report)
          l = cu_ * units + in(1, cu_ - 1);
          break;
        }
      }
      if (lengths_.insert(l).second) return l;
    }
  }

  std::uint64_t rate() {
    return one_of(std::array<std::uint64_t, 8>{in(1, 100), in(100, 1000), in(1000, 10000), 10000,
                                               100000, 400000, in(1, 400000),
                                               std::max<std::uint64_t>(1, last_rate_ / 2)});
  }
  // For credit the sender must not use: fast, so that a sender that uses it shows it within the
  // stimulus's wait whatever the host's load (at 9 Mbit/s one Credit Unit of 8960 octets takes
  // 8 ms: a stale grant taken at that rate went unseen on a loaded host).
  std::uint64_t fast_rate() {
    return one_of(std::array<std::uint64_t, 4>{10000, 100000, 400000, in(10000, 400000)});
  }
  // Zero (the association's default), short enough to lapse while data is paced, long.
  std::uint64_t lifetime() {
    return one_of(std::array<std::uint64_t, 5>{0, in(20, 300), in(300, 3000), 100000, 0});
  }

  Stimulus associate() {
    cu_ = one_of(std::array<std::uint64_t, 6>{1024, 1460, 4096, 8960, in(256, 9000), 4096});
    u_ = one_of(std::array<std::uint64_t, 5>{0, cu_, in(1, 65536), 16384, 16384});
    const std::uint64_t j = one_of(std::array<std::uint64_t, 3>{0, 10, in(1, 500)});
    lifetime_ = one_of(std::array<std::uint64_t, 4>{100, 1000, in(100, 5000), 20000});
    const std::uint64_t n_cu =
        one_of(std::array<std::uint64_t, 3>{4 * cu_, 1048576, in(cu_, 4194304)});
    static constexpr std::array<const char*, 4> kCaps = {"0", "POOL", "STATUS|CRN",
                                                         "POOL|STATUS|CRN"};
    const char* caps = kCaps[below(kCaps.size())];
    assoc_ = in(1, 0xFFFFFFFFULL);
    epoch_ = below(8) == 0 ? 0 : in(1, 0xFFFF);
    // Odd episodes number the tester's messages from just below the 32-bit wrap.
    seq_ = odd_ ? 0x100000000ULL - in(1, 300) : in(0, 0x7FFFFFFFULL);
    Message first = new_message();
    Stimulus s{"associate", {submit_line(first)}};
    s.lines.emplace_back("expect ASSOC_REQUEST within 10ms -> nonce=sender_nonce");
    s.lines.emplace_back("ignore ASSOC_REQUEST sender_nonce=$nonce");
    accept_params_ =
        std::string(" capabilities=") + caps + " unscheduled_limit=" + std::to_string(u_) +
        " start_jitter=" + std::to_string(j) + " backlog_threshold=" + std::to_string(n_cu) +
        " grant_lifetime=" + std::to_string(lifetime_) + " credit_unit=" + std::to_string(cu_);
    s.lines.push_back("send ASSOC_ACCEPT" + seq() + " sender_nonce=$nonce association_id=" +
                      format_hex(assoc_) + " epoch=" + std::to_string(epoch_) + accept_params_);
    s.lines.push_back("defaults association_id=" + format_hex(assoc_) +
                      " epoch=" + std::to_string(epoch_));
    expect_request(s, first);
    messages_.push_back(first);
    return s;
  }

  Message new_message() {
    Message m;
    const auto k = std::to_string(messages_.size() + 1);
    m.h = "h" + k;
    m.m = "m" + k;
    m.length = length();
    m.forced = below(3) == 0;
    m.generation = generation_;
    m.maybe_unscheduled = !m.forced && m.length <= u_;
    m.submitted = index_;
    return m;
  }

  static std::string submit_line(const Message& m) {
    return "upper submit length=" + std::to_string(m.length) +
           (m.forced ? " force_scheduled=true" : "") + " -> " + m.h + "=handle";
  }

  // The message's CREDIT_REQUEST (which comes first, also for an unscheduled message): its
  // Message ID is captured and must be larger than the previous message's.
  void expect_request(Stimulus& s, const Message& m) {
    const std::string len = std::to_string(m.length);
    s.lines.push_back(std::string("ignore ") + kSenderTraffic +
                      " CREDIT_REQUEST message_length!=" + len);
    // Under the association the tester accepted last (a sender that took a forged
    // ASSOC_ACCEPT would name another).
    std::string line = "expect CREDIT_REQUEST within 20ms message_length=" + len +
                       " association_id=" + format_hex(assoc_) + " epoch=" + std::to_string(epoch_);
    if (associated_ < index_) s.needs.push_back(associated_);
    // Message IDs increase within an association (a re-established one may start again).
    const bool after = !messages_.empty() && messages_.back().generation == generation_;
    if (after) {
      line += " message_id>$" + messages_.back().m;
      s.needs.push_back(messages_.back().submitted);
    }
    line += " -> " + m.m + "=message_id";
    if (after) line += " checks RDCC-GRANT-01";
    s.lines.push_back(line);
    s.lines.push_back(std::string("ignore ") + kSenderTraffic + " CREDIT_REQUEST");
  }

  // A grant for `m`, numbered next unless `number` is given (a stale copy); `head` names
  // another association or Epoch (a forgery).
  std::string grant_line(const Message& m, std::uint64_t limit, std::uint64_t rate,
                         std::uint64_t life, const std::string& head = "",
                         std::optional<std::uint32_t> number = std::nullopt) {
    const std::string n = number ? " sequence_number=" + std::to_string(*number) : seq();
    return "send CREDIT_GRANT" + head + n + " message_id=$" + m.m +
           " grant_limit=" + std::to_string(limit) + " pacing_rate=" + std::to_string(rate) +
           " lifetime=" + std::to_string(life) + (limit == m.length ? " flags=FINAL" : "");
  }

  std::string pause() {
    return "wait " +
           std::to_string(one_of(std::array<std::uint64_t, 5>{50, 300, 1000, 3000, 1000})) + "us";
  }

  Stimulus submit() {
    Message m = new_message();
    Stimulus s{"submit", {submit_line(m)}, {0}};
    if (m.maybe_unscheduled) {
      // Another message that may have gone unscheduled and has had no answer: this one may
      // wait for it (one unscheduled message outstanding per association), so the tester
      // waits (a sender that sends a second unscheduled message meanwhile breaks
      // RDCC-UNSCHED-03), then answers the other with a grant for all of it.
      for (auto& other : messages_) {
        if (!other.maybe_unscheduled || other.answered) continue;
        s.lines.emplace_back("wait 2ms");
        s.lines.push_back(grant_line(other, other.length, rate(), 100000));
        other.held = other.length;
        other.answered = true;
        s.needs.push_back(other.submitted);
      }
    }
    expect_request(s, m);
    messages_.push_back(m);
    return s;
  }

  // A message the tester may still grant: requested, not done.
  template <class Pred>
  Message* pick(Pred pred) {
    std::vector<Message*> all;
    for (auto& m : messages_) {
      if (!m.done && pred(m)) all.push_back(&m);
    }
    if (all.empty()) return nullptr;
    return all[below(all.size())];
  }

  // A limit for `m`: unaligned and straddling a Credit Unit, the whole message, aligned, lower
  // than or equal to the one held (a refresh), or anywhere.
  std::uint64_t limit_for(const Message& m) {
    const std::uint64_t held = m.held;
    switch (below(6)) {
      case 0: return std::min(m.length, held + in(1, 3 * cu_));
      case 1: return m.length;
      case 2: return std::min(m.length, cu_ * in(1, 64));
      case 3: return held > 1 ? in(1, held) : std::min(m.length, held + in(1, cu_));
      case 4: return held > 0 ? held : std::min(m.length, in(1, 2 * cu_));
      default: return in(1, m.length);
    }
  }

  std::optional<Stimulus> grant() {
    Message* m = pick([](const Message&) { return true; });
    if (m == nullptr) return std::nullopt;
    const std::uint64_t limit = limit_for(*m);
    const std::uint64_t r = rate();
    last_rate_ = r;
    Stimulus s{"grant", {grant_line(*m, limit, r, lifetime()), pause()}, {0, m->submitted}};
    m->held = std::max(m->held, limit);
    m->answered = true;
    return s;
  }

  // More credit than held, with Pacing Rate zero: the sender ignores it (RDCC-FMT-10), so
  // sending beyond the limit it held breaks RDCC-GRANT-03.
  std::optional<Stimulus> zero_rate() {
    Message* m = pick([](const Message& x) { return x.held < x.length; });
    if (m == nullptr) return std::nullopt;
    const std::uint64_t limit = std::min(m->length, m->held + in(1, 8 * cu_));
    return Stimulus{
        "zero-rate-grant",
        {grant_line(*m, limit, 0, one_of(std::array<std::uint64_t, 2>{0, 100000})), "wait 1ms"},
        {0, m->submitted}};
  }

  // A refresh at a number X, then more credit numbered X - d (d = 0: equal; else older by up to
  // 2^31 - 1): the sender discards it (RDCC-FMT-06).
  std::optional<Stimulus> stale() {
    Message* m = pick([](const Message& x) { return x.held > 0 && x.held < x.length; });
    if (m == nullptr) return std::nullopt;
    Stimulus s{"stale-grant", {}, {0, m->submitted}};
    const std::uint64_t r = fast_rate();
    last_rate_ = r;
    s.lines.push_back(grant_line(*m, m->held, r, 100000));
    const auto x = static_cast<std::uint32_t>(seq_ - 1);
    // Equal, older by one, older by up to 2^31 - 1, or older and numerically larger (x + 2^31
    // + k: serial arithmetic says older, plain comparison larger).
    const std::uint64_t d = one_of(
        std::array<std::uint64_t, 4>{0, 1, in(2, (1ULL << 31) - 1), (1ULL << 31) - in(1, 1000)});
    const std::uint32_t old = x - static_cast<std::uint32_t>(d);
    const std::uint64_t more = std::min(m->length, m->held + in(1, 8 * cu_));
    s.lines.push_back(grant_line(*m, more, r, 100000, "", old));
    s.lines.emplace_back("wait 1ms");
    return s;
  }

  // More credit under another Epoch or Association ID (a blind forgery): not the sender's
  // association, so it gives no credit.
  std::optional<Stimulus> forged() {
    Message* m = pick([](const Message& x) { return x.held < x.length; });
    if (m == nullptr) return std::nullopt;
    const std::uint64_t limit = std::min(m->length, m->held + in(1, 8 * cu_));
    std::string head;
    if (other_address_ && below(3) == 0) {
      // From another host of the network: not the receiver the association was bound to.
      head = " from=$other";
    } else if (below(2) == 0) {
      head = " epoch=" + std::to_string((epoch_ + in(1, 0xFFFF)) & 0xFFFFU);
    } else {
      const std::uint64_t other = assoc_ ^ (1ULL << below(32));
      head = " association_id=" + format_hex(other == 0 ? 1 : other);
    }
    return Stimulus{"forged-grant",
                    {grant_line(*m, limit, fast_rate(), 100000, head), "wait 1ms"},
                    {0, m->submitted}};
  }

  // More credit in a message of an unknown Version (RDCC-ERR-05): discarded, so no credit.
  std::optional<Stimulus> malformed() {
    Message* m = pick([](const Message& x) { return x.held < x.length; });
    if (m == nullptr) return std::nullopt;
    const std::uint64_t limit = std::min(m->length, m->held + in(1, 8 * cu_));
    return Stimulus{"bad-version-grant",
                    {grant_line(*m, limit, fast_rate(), 100000, " version=2"), "wait 1ms"},
                    {0, m->submitted}};
  }

  // ERROR (UNKNOWN_ASSOCIATION) carrying the association's ID: the sender discards all credit
  // it holds for it (RDCC-ASSOC-04: the checker holds every later octet under that credit
  // against it), re-establishes it (its ASSOC_REQUEST, same or new nonce, is answered with a
  // new Association ID and Epoch) and requests its pending messages again, under any Message
  // IDs. The tester grants only messages submitted after it.
  Stimulus unknown_association() {
    ++reassociations_;
    ++generation_;
    const std::string k = std::to_string(generation_);
    Stimulus s{"unknown-association", {}, {0}};
    // Mostly while the sender is sending: a slow grant for the rest of a message first, so
    // that credit is in use when the ERROR comes.
    if (Message* m = pick([](const Message& x) { return x.held < x.length; });
        m != nullptr && below(4) != 0) {
      s.lines.push_back(grant_line(*m, m->length, in(1, 100), 100000));
      s.lines.emplace_back("wait 200us");
      s.needs.push_back(m->submitted);
    }
    s.lines.push_back("send ERROR" + seq() + " reason=UNKNOWN_ASSOCIATION message_id=0");
    s.lines.emplace_back(
        "ignore ASSOC_ACCEPT SENDER_STATUS CANCEL CREDIT_RETURN ERROR MSG_DONE CREDIT_GRANT "
        "CONGESTION_REPORT data CREDIT_REQUEST");
    s.lines.push_back("expect ASSOC_REQUEST within 20ms -> nonce" + k + "=sender_nonce");
    assoc_ = another_association();
    epoch_ = another_epoch();
    s.lines.push_back("ignore " + std::string(kSenderTraffic) + " CREDIT_REQUEST");
    // At times an off-path forgery first: an ASSOC_ACCEPT for another association that does
    // not echo the nonce ("A sender accepts a new Epoch only from an ASSOC_ACCEPT that echoes
    // its current Sender Nonce"); the sender's requests must name the real one.
    if (below(2) == 0) {
      s.lines.push_back(forged_accept_line("$nonce" + k));
      s.lines.emplace_back("wait 300us");
    }
    s.lines.push_back("send ASSOC_ACCEPT" + seq() + " sender_nonce=$nonce" + k +
                      " association_id=" + format_hex(assoc_) + " epoch=" + std::to_string(epoch_) +
                      accept_params_);
    associated_ = index_;
    nonce_ = "$nonce" + k;
    s.lines.push_back("defaults association_id=" + format_hex(assoc_) +
                      " epoch=" + std::to_string(epoch_));
    s.lines.emplace_back("wait 1ms");
    // Its messages are the old association's: no more grants or MSG_DONE name them.
    for (auto& m : messages_) {
      m.done = true;
      m.answered = true;
    }
    pool_ = 0;
    return s;
  }

  // A non-zero Association ID and an Epoch other than the current association's (a
  // re-established association's, or a forgery's).
  std::uint64_t another_association() {
    const std::uint64_t other = (assoc_ + in(1, 0xFFFF)) & 0xFFFFFFFFULL;
    return other == 0 ? 1 : other;
  }
  std::uint64_t another_epoch() { return (epoch_ + in(1, 0xFFFE)) & 0xFFFFU; }

  // An ASSOC_ACCEPT of another Association ID and Epoch whose Sender Nonce is not the sender's
  // (the nonce + 1): "it binds the response to the request and prevents off-path injection of
  // ASSOC_ACCEPT".
  std::string forged_accept_line(const std::string& nonce) {
    const std::uint64_t other = another_association();
    const std::uint64_t other_epoch = another_epoch();
    return "send ASSOC_ACCEPT" + seq() + " sender_nonce=" + nonce +
           "+1 association_id=" + format_hex(other) + " epoch=" + std::to_string(other_epoch) +
           accept_params_;
  }

  // A forged ASSOC_ACCEPT while the association is up, then a new message: its CREDIT_REQUEST
  // names the association the tester accepted (expect_request), not the forged one.
  Stimulus forged_accept() {
    Stimulus s{"forged-accept", {forged_accept_line(nonce_), "wait 300us"}, {0, associated_}};
    Message m = new_message();
    s.lines.push_back(submit_line(m));
    expect_request(s, m);
    messages_.push_back(m);
    return s;
  }

  // A CONGESTION_REPORT from the domain's CRN (the tester's host) naming the sender's data flow,
  // with a Suggested Rate: "An endpoint MUST NOT increase any rate or credit in response to a
  // CONGESTION_REPORT" (a faster pace than the grants' is RDCC-GRANT-05, more octets
  // RDCC-GRANT-03); it may stop unscheduled transmission (the sender requests those messages
  // again).
  Stimulus report() {
    // One draw per statement: the operands of + are evaluated in no fixed order, so two draws
    // in one expression could give other stimuli from the same seed in another build.
    const std::uint64_t r = one_of(std::array<std::uint64_t, 3>{400000, in(1, 400000), 0});
    const std::uint64_t reporter = in(1, 255);
    const std::uint64_t depth = in(65537, 4194304);
    const std::uint64_t degree = in(1, 255);
    return {"report",
            {"send CONGESTION_REPORT reporter_id=" + std::to_string(reporter) +
                 " queue_depth=" + std::to_string(depth) +
                 " queue_threshold=65536 congestion_degree=" + std::to_string(degree) +
                 " direction=TO_SENDER address_family=4 protocol=17 source_port=$iut_port "
                 "destination_port=$tester_data_port source_address=$iut_ip "
                 "destination_address=$tester_ip suggested_rate=" +
                 std::to_string(r),
             pause()},
            {0}};
  }

  // A pool grant (Message ID 0, POOL): credit across the association's scheduled messages.
  std::optional<Stimulus> pool_grant() {
    if (messages_.empty()) return std::nullopt;
    pool_ += in(1, 16 * cu_);
    const std::uint64_t r = rate();
    last_rate_ = r;
    const std::uint64_t life = lifetime();  // one draw per statement (report)
    const std::string number = seq();
    return Stimulus{"pool-grant",
                    {"send CREDIT_GRANT" + number +
                         " message_id=0 flags=POOL grant_limit=" + std::to_string(pool_) +
                         " pacing_rate=" + std::to_string(r) + " lifetime=" + std::to_string(life),
                     pause()},
                    {0}};
  }

  // MSG_DONE for a message the tester granted whole, or that may have gone unscheduled, after
  // a wait for its data (a receiver sends it when all octets arrived; one that arrives early
  // only ends the message sooner).
  std::optional<Stimulus> msg_done() {
    Message* m = pick([](const Message& x) { return x.held == x.length || x.maybe_unscheduled; });
    if (m == nullptr) return std::nullopt;
    m->done = true;
    m->answered = true;
    return Stimulus{"msg-done",
                    {"wait 2ms", "send MSG_DONE" + seq() + " message_id=$" + m->m +
                                     " octets_received=" + std::to_string(m->length)},
                    {0, m->submitted}};
  }

  std::optional<Stimulus> cancel() {
    Message* m = pick([](const Message& x) { return !x.cancelled; });
    if (m == nullptr) return std::nullopt;
    m->cancelled = true;
    return Stimulus{"cancel", {"upper cancel handle=$" + m->h, pause()}, {0, m->submitted}};
  }

  // The sender gives back what it will not use beyond the limit it holds (never below what it
  // transmitted: it holds no more than that for the message, and the pool is not drawn on).
  std::optional<Stimulus> return_credit() {
    Message* m = pick([this](const Message& x) {
      return !x.cancelled && !x.maybe_unscheduled && x.held > 0 && pool_ == 0;
    });
    if (m == nullptr) return std::nullopt;
    // At times below what it may have transmitted: "New Limit MUST NOT be smaller than the
    // octets already transmitted" (the checker holds every CREDIT_RETURN to the octets it saw).
    const std::uint64_t limit = one_of(std::array<std::uint64_t, 3>{m->held, 0, in(0, m->held)});
    return Stimulus{
        "return-credit",
        {"upper return_credit handle=$" + m->h + " new_limit=" + std::to_string(limit), pause()},
        {0, m->submitted}};
  }

  Stimulus wait() {
    return {"wait",
            {"wait " + std::to_string(one_of(std::array<std::uint64_t, 4>{10, 150, 1200, 5000})) +
             "us"}};
  }

  ref::SeededRandom rng_;
  bool odd_ = false;
  bool upper_extras_ = false;  // cancel and return_credit (ops an IUT's upper tester may lack)
  // Grants from another address ($other: a udp: IUT off this host may make the episode
  // unsupported, so only every third episode sends them).
  bool other_address_ = false;
  std::size_t index_ = 0;
  std::vector<Message> messages_;
  std::set<std::uint64_t> lengths_;
  std::uint64_t cu_ = 4096, u_ = 0, lifetime_ = 1000, assoc_ = 1, epoch_ = 1;
  std::uint64_t seq_ = 0;  // the tester's next Sequence Number (mod 2^32)
  std::uint64_t pool_ = 0;
  std::uint64_t last_rate_ = 100000;
  std::string accept_params_;     // the ASSOC_ACCEPT's parameters after its IDs
  unsigned generation_ = 0;       // associations re-established so far
  std::size_t associated_ = 0;    // the stimulus that accepted the current association
  std::string nonce_ = "$nonce";  // the variable holding its Sender Nonce
  unsigned reassociations_ = 0;
};

}  // namespace

Program sender_program(std::uint64_t seed, std::size_t episode, std::size_t count) {
  Program p;
  p.role = Role::Sender;
  p.name = "explore-sender-" + std::to_string(seed) + "-" + std::to_string(episode);
  SenderModel model(seed, episode);
  for (std::size_t i = 0; i < count; ++i) p.stimuli.push_back(model.next());
  return p;
}

}  // namespace rdcc::conformance::explore_model
