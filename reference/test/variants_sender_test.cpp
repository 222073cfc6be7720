// The sender's conforming variants (reference/src/variants_sender.cpp): each behaves as named,
// which the default sender does not, and stays within the invariants (InvariantChecker sees
// every message and segment of the run and finds nothing).
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "rdcc/checker/invariants.hpp"
#include "rdcc/codec/codec.hpp"
#include "rdcc/reference/variants.hpp"
#include "rdcc/testing/sender_mutants.hpp"
#include "sender_harness.hpp"

namespace rdcc::ref {

using checker::InvariantChecker;
using checker::Party;
using checker::Violation;
namespace {

// A Harness around a Sender with variant `name` ("" : the default sender), and an invariant
// checker that observes everything the harness delivers and the sender sends, in order.
struct VariantRun {
  Harness h;
  InvariantChecker checker;
  std::size_t tx_seen = 0;
  std::size_t data_seen = 0;

  explicit VariantRun(const std::string& name) {
    SenderConfig c = default_config();
    std::shared_ptr<const SenderPolicy> policy;
    if (!name.empty()) {
      EXPECT_TRUE(apply_variant(name, c, policy)) << name;
      EXPECT_NE(find_variant(name), nullptr);
    }
    h.cfg = c;
    h.s = std::make_unique<Sender>(h.cfg, h.rng, &h.events, policy);
    // The fake receiver is the checker's receiver, so that the sender's credit is modelled;
    // its own rules are not what these tests hold (sender_ok looks at the sender's only).
    checker.add_receiver(kRecv, ~std::uint64_t{0} / 4, microseconds(20));
  }

  // The rules that bind a sender (rules.hpp): credit, Lifetime, the unscheduled window and U,
  // pacing, its Sequence Numbers.
  [[nodiscard]] bool sender_ok() const {
    return std::none_of(checker.violations().begin(), checker.violations().end(),
                        [](const Violation& v) { return v.party == Party::Sender; });
  }

  // What the sender sent since the last look, control before data at equal times (the order
  // in which the driver takes them, io.hpp).
  void observe() {
    std::size_t d = data_seen;
    for (; tx_seen < h.tx.size(); ++tx_seen) {
      const auto& [t, m] = h.tx[tx_seen];
      for (; d < h.data.size() && h.data[d].first < t; ++d) {
        checker.on_segment_observed(kLocal, h.data[d].second, h.data[d].first);
      }
      checker.on_control_observed(kLocal, kRecv, m, t);
    }
    for (; d < h.data.size(); ++d)
      checker.on_segment_observed(kLocal, h.data[d].second, h.data[d].first);
    data_seen = d;
  }
  void deliver(const Message& m) {
    observe();
    checker.on_control_observed(kRecv, kLocal, m, h.now);
    h.deliver(m);
    observe();
  }
  void run_for(Duration d) {
    h.run_for(d);
    observe();
  }
  MessageHandle submit(std::uint64_t length, bool scheduled = false) {
    const MessageHandle m = h.submit(length, scheduled);
    observe();
    return m;
  }
  void establish() { deliver(h.accept()); }

  [[nodiscard]] std::vector<std::uint32_t> segment_lengths() const {
    std::vector<std::uint32_t> out;
    for (const auto& [t, s] : h.data) out.push_back(s.length);
    return out;
  }
  [[nodiscard]] std::string violations() const {
    std::string out;
    for (const auto& v : checker.violations()) {
      if (v.party == Party::Sender) out += v.rule + ": " + v.detail + "\n";
    }
    if (!out.empty()) {
      for (const auto& l : h.log) out += "  " + l + "\n";
    }
    return out;
  }
};

// The checker these tests consult is live: a sender that breaks a rule (the mutants of
// rdcc/testing/mutants.hpp) is caught in the same run.
TEST(SenderVariants, TheCheckerCatchesASenderThatBreaksARule) {
  for (const testing::Mutant m :
       {testing::Mutant::SenderExceedsGrant, testing::Mutant::SenderIgnoresPacing}) {
    VariantRun r("pacing-bursts");
    std::shared_ptr<const SenderPolicy> policy;
    SenderConfig c = r.h.cfg;
    ASSERT_TRUE(apply_variant("pacing-bursts", c, policy));
    // The mutant wraps the variant's policy: the variant's choices, the mutant's fault.
    r.h.s = std::make_unique<Sender>(r.h.cfg, r.h.rng, &r.h.events,
                                     testing::sender_policy({m}, policy));
    const MessageHandle h = r.submit(1 << 20, true);
    r.establish();
    r.deliver(r.h.grant(r.h.id(h), 65536, 1000, 100000));
    r.run_for(milliseconds(2));
    EXPECT_FALSE(r.sender_ok()) << static_cast<int>(m);
  }
}

// Every sender variant is listed with its role, the sentence that permits it and its section.
TEST(SenderVariants, AreListedWithTheSentenceThatPermitsThem) {
  std::size_t n = 0;
  for (const auto& v : variants()) {
    if (v.role != VariantRole::Sender) continue;
    ++n;
    EXPECT_FALSE(v.description.empty()) << v.name;
    EXPECT_TRUE(!v.permits.empty() || !v.requirement.empty()) << v.name;
    EXPECT_FALSE(v.section.empty()) << v.name;
    SenderConfig c;
    std::shared_ptr<const SenderPolicy> p;
    EXPECT_TRUE(apply_variant(v.name, c, p)) << v.name;
  }
  EXPECT_GE(n, 12U);
  SenderConfig c;
  std::shared_ptr<const SenderPolicy> p;
  EXPECT_FALSE(apply_variant("no-such-variant", c, p));
}

// "A sender MAY use scheduled mode for any message."
TEST(SenderVariants, ScheduledOnly_RequestsCreditForAMessageNoLargerThanU) {
  for (const std::string name : {"", "scheduled-only"}) {
    VariantRun r(name);
    const MessageHandle m = r.submit(4096);  // U = 16384
    r.establish();
    r.run_for(microseconds(100));
    const auto req = r.h.last<CreditRequest>();
    if (name.empty()) {
      EXPECT_EQ(req.unscheduled_sent, 4096U) << "the default sends it unscheduled";
      continue;
    }
    EXPECT_EQ(req.unscheduled_sent, 0U);
    EXPECT_EQ(r.h.data.size(), 0U) << "no octet before credit";
    r.deliver(r.h.grant(r.h.id(m), 4096, 100000, 1000, flag::kFinal));
    r.run_for(microseconds(100));
    EXPECT_EQ(r.h.data_octets(r.h.id(m)), 4096U);
    EXPECT_FALSE(r.h.data.front().second.unscheduled);
    EXPECT_TRUE(r.sender_ok()) << r.violations();
  }
}

// Rule 4 averages over ten Credit Units: they may go at once, then the sender waits.
TEST(SenderVariants, PacingBursts_SendsTenCreditUnitsAtOnceAndKeepsTheAverage) {
  for (const std::string name : {"", "pacing-bursts"}) {
    VariantRun r(name);
    const MessageHandle m = r.submit(1 << 20, true);
    r.establish();
    r.deliver(r.h.grant(r.h.id(m), 1 << 20, 1000, 100000));  // 1 Gbit/s
    const Time t0 = r.h.now;
    r.run_for(milliseconds(3));
    std::size_t at_once = 0;
    for (const auto& [t, s] : r.h.data) at_once += t == t0 ? 1U : 0U;
    EXPECT_EQ(at_once, name.empty() ? 1U : 10U);
    // 3 ms at 1 Gbit/s is 375000 octets: the average holds either way.
    EXPECT_LE(r.h.data_octets(r.h.id(m)), 375000U + 10U * kCu);
    EXPECT_GE(r.h.data_octets(r.h.id(m)), 375000U - 2U * kCu);
    EXPECT_TRUE(r.sender_ok()) << r.violations();
  }
}

std::vector<std::uint32_t> lengths_after_grant(const std::string& name, std::uint64_t length,
                                               std::uint64_t limit, InvariantChecker** checker,
                                               std::unique_ptr<VariantRun>& keep) {
  keep = std::make_unique<VariantRun>(name);
  VariantRun& r = *keep;
  const MessageHandle m = r.submit(length, true);
  r.establish();
  r.deliver(r.h.grant(r.h.id(m), limit, 100000, 100000));
  r.run_for(milliseconds(2));
  *checker = &r.checker;
  return r.segment_lengths();
}

// "RDCC does not define data packet formats": segments of 1 KiB and of 9000 octets.
TEST(SenderVariants, FixedSegments_HaveTheirSizeWhateverTheCreditUnit) {
  std::unique_ptr<VariantRun> keep;
  InvariantChecker* checker = nullptr;
  EXPECT_EQ(lengths_after_grant("", 20000, 20000, &checker, keep),
            (std::vector<std::uint32_t>{4096, 4096, 4096, 4096, 3616}));
  EXPECT_EQ(lengths_after_grant("segments-1k", 4096, 4096, &checker, keep),
            (std::vector<std::uint32_t>{1024, 1024, 1024, 1024}));
  EXPECT_TRUE(keep->sender_ok()) << keep->violations();
  EXPECT_EQ(lengths_after_grant("segments-9000", 20000, 20000, &checker, keep),
            (std::vector<std::uint32_t>{9000, 9000, 2000}));
  EXPECT_TRUE(keep->sender_ok()) << keep->violations();
  // Credit still bounds a segment: a grant of 4096 is one segment of 4096.
  EXPECT_EQ(lengths_after_grant("segments-9000", 20000, 4096, &checker, keep),
            (std::vector<std::uint32_t>{4096}));
}

// "posts each one only when it holds credit for all of its octets": everything the credit
// and one pacing window (ten Credit Units) allow, in one segment.
TEST(SenderVariants, WholeGrantPosts_SendTheCreditInOneSegmentUpToTenCreditUnits) {
  std::unique_ptr<VariantRun> keep;
  InvariantChecker* checker = nullptr;
  EXPECT_EQ(lengths_after_grant("", 65536, 8192, &checker, keep),
            (std::vector<std::uint32_t>{4096, 4096}));
  EXPECT_EQ(lengths_after_grant("whole-grant-posts", 65536, 8192, &checker, keep),
            (std::vector<std::uint32_t>{8192}));
  EXPECT_TRUE(keep->sender_ok()) << keep->violations();
  EXPECT_EQ(lengths_after_grant("whole-grant-posts", 65536, 65536, &checker, keep),
            (std::vector<std::uint32_t>{40960, 24576}));
  EXPECT_TRUE(keep->sender_ok()) << keep->violations();
}

// The run of ERROR (UNKNOWN_ASSOCIATION) and a new association: the Message ID and nonce of
// the pending message's new request, against the old ones.
struct Reestablished {
  std::uint64_t old_id = 0, new_id = 0, old_nonce = 0, new_nonce = 0;
  bool clean = false;
  std::string violations;
};
Reestablished reestablish(const std::string& name) {
  VariantRun r(name);
  (void)r.submit(1 << 20, true);
  const MessageHandle m = r.submit(1 << 20, true);
  r.establish();
  r.deliver(r.h.grant(r.h.id(m), 65536, 100000, 100000));
  r.run_for(microseconds(10));
  Reestablished out;
  out.old_id = r.h.id(m);
  out.old_nonce = r.h.nonce();
  ErrorMessage e = r.h.error(ReasonCode::UnknownAssociation);
  e.header.sequence_number = 1;
  r.deliver(e);
  out.new_nonce = r.h.nonce();
  r.h.assoc_id = 0x0BADCAFE;
  r.h.epoch = 4;
  r.h.seq = 1;
  r.establish();
  out.new_id = r.h.id(m);
  // The re-request goes on the new association and the message restarts under new credit.
  r.deliver(r.h.grant(out.new_id, 8192, 100000, 100000));
  r.run_for(microseconds(100));
  out.clean = r.sender_ok();
  out.violations = r.violations();
  return out;
}

// "Message IDs MUST increase with each new message of an association and MUST NOT be reused
// within it": a new association may start again at 1.
TEST(SenderVariants, ReuseMessageIdOne_StartsTheNewAssociationAtOne) {
  const auto d = reestablish("");
  EXPECT_GT(d.new_id, d.old_id) << "the default goes on counting";
  const auto v = reestablish("reuse-message-id-1");
  EXPECT_EQ(v.old_id, 2U);
  EXPECT_EQ(v.new_id, 2U) << "the two pending messages get 1 and 2 again";
  EXPECT_TRUE(v.clean) << v.violations;
}

// "re-establish it": with the same Sender Nonce or a new one.
TEST(SenderVariants, ReestablishNonce_SameOrFresh) {
  const auto same = reestablish("reestablish-same-nonce");
  EXPECT_EQ(same.new_nonce, same.old_nonce);
  EXPECT_TRUE(same.clean) << same.violations;
  // reestablish-fresh-nonce states the reference's own choice as a policy: the same as the
  // default, and unlike the same-nonce variant.
  const auto fresh = reestablish("reestablish-fresh-nonce");
  EXPECT_NE(fresh.new_nonce, fresh.old_nonce);
  EXPECT_TRUE(fresh.clean) << fresh.violations;
  EXPECT_NE(reestablish("").new_nonce, reestablish("").old_nonce);
}

// "ASSOC_ACCEPT that echoes the sender's current nonce ... [is] exempt" (Common Header), read
// by its words (docs/spec-notes.md 25): a Parameter Update of the current association numbered
// below the newest is applied and acknowledged by the variant; the default discards it.
TEST(SenderVariants, AcceptExemptByWords_AppliesAnUpdateNumberedBelowTheNewest) {
  for (const std::string name : {"", "accept-exempt-by-words"}) {
    SCOPED_TRACE(name);
    VariantRun r(name);
    (void)r.submit(65536, true);
    r.establish();
    r.h.seq += 10;
    r.deliver(r.h.grant(1, 4096));  // the newest is now well above the update's number
    AssocAccept update = r.h.accept(flag::kParameterUpdate);
    update.header.sequence_number -= 5;
    update.unscheduled_limit = 0;
    const std::size_t before = r.h.count<AssocRequest>();
    r.deliver(update);
    const bool acknowledged =
        r.h.count<AssocRequest>() > before && r.h.last<AssocRequest>().update_acknowledgment();
    EXPECT_EQ(acknowledged, !name.empty());
    EXPECT_TRUE(r.sender_ok()) << r.violations();
  }
}

// "Capability bits: 0x00000001 POOL (pool grants supported), 0x00000002 STATUS (SENDER_STATUS
// supported)": a sender that advertises neither uses no pool grant and sends no SENDER_STATUS.
TEST(SenderVariants, NoPoolNoStatus_AdvertisesOnlyCrn_IgnoresPoolGrants_SendsNoStatus) {
  for (const std::string name : {"", "no-pool-no-status"}) {
    VariantRun r(name);
    r.h.params.backlog_threshold = 4096;
    const MessageHandle m = r.submit(1 << 20, true);
    EXPECT_EQ(r.h.last<AssocRequest>().capabilities,
              name.empty() ? r.h.cfg.capabilities : capability::kCrn);
    r.establish();
    r.deliver(r.h.grant(0, 65536, 1000, 100000, flag::kPool));
    r.run_for(microseconds(100));
    EXPECT_EQ(r.h.data_octets(r.h.id(m)) > 0, name.empty()) << "pool credit used";
    r.deliver(r.h.grant(r.h.id(m), 65536, 1000, 100000));
    r.run_for(microseconds(100));
    EXPECT_EQ(r.h.count<SenderStatus>() > 0, name.empty());
    if (!name.empty()) {
      EXPECT_GT(r.h.data_octets(r.h.id(m)), 0U) << "its own grant is used";
      EXPECT_TRUE(r.sender_ok()) << r.violations();
    }
  }
}

// "A sender that will not use credit it holds SHOULD return it with CREDIT_RETURN": the
// variant keeps silent, and still never transmits beyond the New Limit.
TEST(SenderVariants, NoCreditReturn_SendsNoneAndStopsAtTheNewLimit) {
  for (const std::string name : {"", "no-credit-return"}) {
    VariantRun r(name);
    const MessageHandle m = r.submit(65536, true);
    r.establish();
    r.deliver(r.h.grant(r.h.id(m), 65536, 1000, 100000));
    r.run_for(microseconds(1));
    r.h.s->return_credit(m, 16384, r.h.now);
    r.h.drain();
    r.observe();
    r.run_for(milliseconds(2));
    EXPECT_EQ(r.h.count<CreditReturn>(), name.empty() ? 1U : 0U);
    EXPECT_EQ(r.h.transmitted(m), 16384U);
    EXPECT_TRUE(r.sender_ok()) << r.violations();
  }
}

// "Suggested Rate zero means that the sender makes no suggestion."
TEST(SenderVariants, NoSuggestedRate_SenderStatusCarriesZero) {
  for (const std::string name : {"", "no-suggested-rate"}) {
    VariantRun r(name);
    r.h.params.backlog_threshold = 4096;
    const MessageHandle m = r.submit(1 << 20, true);
    r.establish();
    r.deliver(r.h.grant(r.h.id(m), 65536, 1000, 100000));
    ASSERT_GT(r.h.count<SenderStatus>(), 0U);
    const auto st = r.h.sent<SenderStatus>().front();
    EXPECT_GT(st.congestion_level, 0U);
    EXPECT_EQ(st.suggested_rate == 0, !name.empty());
    EXPECT_TRUE(r.sender_ok()) << r.violations();
  }
}

// "or a smaller locally configured value": with N_cu 1 MiB, 64 KiB of unused credit is a
// backlog only for the variant's 4 KiB.
TEST(SenderVariants, LocalBacklogThreshold_ReportsABacklogBelowTheReceiversNcu) {
  for (const std::string name : {"", "local-backlog-threshold"}) {
    VariantRun r(name);
    const MessageHandle m = r.submit(1 << 20, true);
    r.establish();  // N_cu 1 MiB
    r.deliver(r.h.grant(r.h.id(m), 65536, 1000, 100000));
    r.run_for(microseconds(50));
    EXPECT_EQ(r.h.count<SenderStatus>() > 0, !name.empty()) << name;
    EXPECT_TRUE(r.sender_ok()) << r.violations();
  }
}

}  // namespace
}  // namespace rdcc::ref
