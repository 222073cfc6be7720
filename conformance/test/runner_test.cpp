// The runner on the in-process reference endpoints: scenarios that must pass pass, and a
// wrong expectation fails with the expected pattern and the actual message.
#include <gtest/gtest.h>

#include <deque>
#include <set>

#include "../src/steps/weight_share.hpp"
#include "rdcc/codec/codec.hpp"
#include "rdcc/conformance/catalog.hpp"
#include "rdcc/conformance/html_report.hpp"
#include "rdcc/conformance/report.hpp"
#include "rdcc/conformance/runner.hpp"
#include "rdcc/conformance/suite.hpp"
#include "rdcc/udp/socket.hpp"
#include "rdcc/udp/upper_tester_ops.hpp"

namespace rdcc::conformance {
namespace {

ScenarioResult run_text(const std::string& text, const RunOptions& run = {}) {
  auto parsed = parse_scenario(text, "t.scn", {});
  if (auto* e = std::get_if<ParseError>(&parsed)) {
    ADD_FAILURE() << e->describe();
    return {};
  }
  const auto& s = std::get<Scenario>(parsed);
  SuiteOptions o;
  o.run = run;
  o.adapter.any_role = true;
  return run_one(s, o);
}

const std::string kAssociate =
    "send ASSOC_REQUEST sender_nonce=0x1122334455667788 capabilities=STATUS line_rate=100000\n"
    "expect ASSOC_ACCEPT within 1ms sender_nonce=0x1122334455667788 -> assoc=association_id "
    "epoch=epoch\n"
    "defaults association_id=$assoc epoch=$epoch\n";

std::string receiver(const std::string& steps) {
  return "scenario t\nrole receiver\nchecks RDCC-GRANT-07\n" + kAssociate + steps;
}

TEST(Runner, GrantWithinLength_Passes_AndRecordsEveryPacket) {
  const auto r = run_text(receiver(
      "send CREDIT_REQUEST message_id=1 message_length=8192 binding_kind=OPAQUE binding_value=1\n"
      "expect CREDIT_GRANT within 1ms message_id=1 grant_limit=8192 flags&FINAL pacing_rate!=0\n"));
  EXPECT_EQ(r.verdict, Verdict::Pass) << r.reason << "\n" << r.expected << "\n" << r.actual;
  ASSERT_EQ(r.trace.size(), 4U);
  EXPECT_TRUE(r.trace[0].from_tester);
  EXPECT_FALSE(r.trace[1].from_tester);
  EXPECT_EQ(r.trace[1].packet.from.to_string(), "10.0.0.1:50000");
  EXPECT_EQ(r.trace[1].packet.to.to_string(), "10.0.0.2:50000");
  EXPECT_TRUE(r.violations.empty());
  // The reference receiver's own events are in the log beside the tester's.
  bool receiver_event = false;
  for (const auto& e : r.events) receiver_event = receiver_event || e["endpoint"] == "receiver";
  EXPECT_TRUE(receiver_event);
}

TEST(Runner, WrongExpectation_FailsWithExpectedAndActual) {
  const auto r = run_text(receiver(
      "send CREDIT_REQUEST message_id=1 message_length=8192 binding_kind=OPAQUE binding_value=1\n"
      "expect CREDIT_GRANT within 1ms message_id=1 grant_limit=4096\n"));
  EXPECT_EQ(r.verdict, Verdict::Fail);
  EXPECT_EQ(r.reason, "grant_limit was 8192, wanted = 4096");
  EXPECT_EQ(r.expected, "CREDIT_GRANT message_id=1 grant_limit=4096 within 1ms");
  EXPECT_NE(r.actual.find("\"type\":\"CREDIT_GRANT\""), std::string::npos) << r.actual;
  EXPECT_NE(r.actual.find("\"grant_limit\":8192"), std::string::npos) << r.actual;
  EXPECT_EQ(r.where.line, 8);
}

// seen: a packet an earlier step ignored or consumed still counts, its fields captured; one that
// never came fails by a `by`, is inconclusive past a `within`; one still to come is waited for,
// and the packets read meanwhile are kept for the next steps.
TEST(Runner, Seen_FindsAnyPacketSinceTheStart_OrWaitsForIt) {
  const std::string grant =
      "send CREDIT_REQUEST message_id=1 message_length=8192 binding_kind=OPAQUE "
      "binding_value=1\n"
      "expect CREDIT_GRANT within 1ms message_id=1\n";
  auto r = run_text(receiver(grant + "seen ASSOC_ACCEPT by 1ms sender_nonce=0x1122334455667788 "
                                     "-> again=association_id\n"
                                     "seen CREDIT_GRANT by 1ms message_id=1 grant_limit=$again\n"));
  EXPECT_EQ(r.verdict, Verdict::Fail) << r.reason;  // $again is the Association ID
  r = run_text(receiver(grant +
                        "seen ASSOC_ACCEPT by 1ms association_id=$assoc -> again=association_id\n"
                        "seen CREDIT_GRANT by 1ms message_id=1 association_id=$again\n"));
  EXPECT_EQ(r.verdict, Verdict::Pass) << r.reason << "\n" << r.expected;
  r = run_text(receiver(grant + "seen CREDIT_GRANT by 2ms message_id=2\n"));
  EXPECT_EQ(r.verdict, Verdict::Fail);
  EXPECT_EQ(r.reason, "none arrived since the scenario began, nor by 2ms, a time the spec states");
  EXPECT_EQ(r.expected, "seen CREDIT_GRANT message_id=2 by 2ms");
  r = run_text(receiver(grant + "seen CREDIT_GRANT within 2ms message_id=2\n"));
  EXPECT_EQ(r.verdict, Verdict::Inconclusive);
  // Not yet come: waited for; the packets read on the way stay for the next expect.
  r = run_text(receiver(
      "send CREDIT_REQUEST message_id=1 message_length=8192 binding_kind=OPAQUE binding_value=1\n"
      "send CREDIT_REQUEST message_id=2 message_length=8192 binding_kind=OPAQUE binding_value=2\n"
      "seen CREDIT_GRANT by 1ms message_id=2\n"
      "expect CREDIT_GRANT within 1ms message_id=1\n"));
  EXPECT_EQ(r.verdict, Verdict::Pass) << r.reason << "\n" << r.expected << "\n" << r.actual;
}

// The verdict cites the frame of the message that did not match (1-based, the trace's order,
// which is the pcap's), and the ladder highlights that frame and draws the expected message.
TEST(Runner, Fail_CitesTheFrameOfTheActualMessage_AndTheLadderHighlightsIt) {
  const auto r = run_text(receiver(
      "send CREDIT_REQUEST message_id=1 message_length=8192 binding_kind=OPAQUE binding_value=1\n"
      "expect CREDIT_GRANT within 1ms message_id=1 grant_limit=4096\n"));
  ASSERT_EQ(r.verdict, Verdict::Fail);
  ASSERT_EQ(r.frames, std::vector<std::size_t>{4});
  EXPECT_FALSE(r.trace[3].from_tester);
  EXPECT_EQ(display_filter(r.frames), "frame.number in {4}");
  const std::string svg = ladder_svg(r);
  EXPECT_NE(svg.find("<g class=\"msg cited\" data-frame=\"4\">"), std::string::npos) << svg;
  EXPECT_EQ(svg.find("class=\"msg cited\" data-frame=\"3\""), std::string::npos);
  EXPECT_NE(svg.find("expected: CREDIT_GRANT message_id=1 grant_limit=4096"), std::string::npos);
  EXPECT_NE(svg.find(">IUT (receiver)</text>"), std::string::npos);
  // Passing: nothing cited, nothing highlighted.
  const auto ok = run_text(receiver(
      "send CREDIT_REQUEST message_id=1 message_length=8192 binding_kind=OPAQUE binding_value=1\n"
      "expect CREDIT_GRANT within 1ms message_id=1 grant_limit=8192\n"));
  EXPECT_TRUE(ok.frames.empty());
  EXPECT_EQ(ladder_svg(ok).find("cited"), std::string::npos);
}

// Nothing arrived (inconclusive past the patience): the frame left unanswered, the tester's
// last, is cited, and the ladder draws the expected message at the end.
TEST(Runner, NothingArrives_CitesTheLastFrameSent) {
  const auto r = run_text(receiver("expect CREDIT_GRANT within 2ms\n"));
  ASSERT_EQ(r.verdict, Verdict::Inconclusive);
  ASSERT_EQ(r.trace.size(), 2U);
  EXPECT_EQ(r.frames, std::vector<std::size_t>{1});
  const std::string svg = ladder_svg(r);
  EXPECT_NE(svg.find("<g class=\"msg cited\" data-frame=\"1\">"), std::string::npos) << svg;
  EXPECT_NE(svg.find("(none)</text>"), std::string::npos) << svg;
}

// A long run is drawn with its ends and the rows around the cited frame; the rest is named.
TEST(Ladder, LongRun_ElidesTheMiddle_KeepsTheCitedFrame) {
  std::string steps;
  for (int m = 1; m <= 20; ++m) {
    const std::string id = std::to_string(m);
    // The receiver shares its rate anew among the messages: re-grants of the earlier ones.
    steps.append("ignore CREDIT_GRANT message_id<").append(id).append("\n");
    steps.append("send CREDIT_REQUEST message_id=")
        .append(id)
        .append(" message_length=4096 binding_kind=OPAQUE binding_value=")
        .append(id)
        .append(
            "\n"
            "expect CREDIT_GRANT within 1ms message_id=")
        .append(id)
        .append("\n");
  }
  steps +=
      "send CREDIT_REQUEST message_id=21 message_length=4096 binding_kind=OPAQUE binding_value=21\n"
      "expect CREDIT_GRANT within 1ms message_id=21 grant_limit=1\n";
  const auto r = run_text(receiver(steps));
  ASSERT_EQ(r.verdict, Verdict::Fail);
  ASSERT_EQ(r.frames.size(), 1U) << r.reason;
  ASSERT_GE(r.frames[0], 44U) << r.reason << " " << r.actual;
  const std::string svg = ladder_svg(r, 20);
  EXPECT_NE(svg.find("class=\"msg cited\" data-frame=\"" + std::to_string(r.frames[0]) + "\""),
            std::string::npos);
  EXPECT_NE(svg.find("data-frame=\"1\""), std::string::npos);
  EXPECT_EQ(svg.find("data-frame=\"15\""), std::string::npos);
  EXPECT_NE(svg.find("not drawn"), std::string::npos) << svg;
  EXPECT_EQ(ladder_svg(r).find("not drawn"), std::string::npos);  // they fit the default 240 rows
}

TEST(Runner, WrongType_FailsNamingBoth) {
  const auto r = run_text(receiver(
      "send CREDIT_REQUEST message_id=1 message_length=8192 binding_kind=OPAQUE binding_value=1\n"
      "expect ERROR within 1ms\n"));
  EXPECT_EQ(r.verdict, Verdict::Fail);
  EXPECT_EQ(r.reason, "CREDIT_GRANT arrived, not ERROR");
}

TEST(Runner, NothingArrivesWithinThePatience_IsInconclusive) {
  // The spec sets no deadline for a grant: a `within` shorter than the patience (100 ms by
  // default) waits the patience, and nothing arriving proves nothing about the IUT.
  const auto r = run_text(receiver("expect CREDIT_GRANT within 2ms\n"));
  EXPECT_EQ(r.verdict, Verdict::Inconclusive);
  EXPECT_EQ(r.reason,
            "no CREDIT_GRANT within the tester's patience of 100ms (the spec sets no deadline)");
  EXPECT_EQ(r.actual, "nothing");
  // Virtual time: the patience passed, not a wall-clock wait.
  EXPECT_EQ(r.elapsed, ref::milliseconds(100));
  // A longer `within` is the patience itself; RunOptions::patience sets the least one.
  RunOptions o;
  o.patience = ref::milliseconds(5);
  const auto longer = run_text(receiver("expect one of within 20ms\n  | ERROR\n  | MSG_DONE\n"), o);
  EXPECT_EQ(longer.verdict, Verdict::Inconclusive);
  EXPECT_EQ(
      longer.reason,
      "no ERROR or MSG_DONE within the tester's patience of 20ms (the spec sets no deadline)");
  EXPECT_EQ(longer.elapsed, ref::milliseconds(20));
}

TEST(Runner, ALateReplyWithinThePatience_IsJudgedByItsContent) {
  // A grant later than the scenario's `within` but within the patience passes: the receiver
  // (its association's start jitter aside) may take its time.
  const auto r = run_text(receiver(
      "wait 1ms\n"
      "send CREDIT_REQUEST message_id=1 message_length=8192 binding_kind=OPAQUE binding_value=1\n"
      "expect CREDIT_GRANT within 1ns message_id=1\n"));
  EXPECT_EQ(r.verdict, Verdict::Pass) << r.reason;
}

TEST(Runner, AStatedBoundExceeded_Fails) {
  // `by D` is a time the spec states: nothing by it fails, whatever the patience.
  const auto r = run_text(receiver("expect CREDIT_GRANT by 2ms\n"));
  EXPECT_EQ(r.verdict, Verdict::Fail);
  EXPECT_EQ(r.reason, "nothing arrived by 2ms, a time the spec states");
  EXPECT_EQ(r.expected, "CREDIT_GRANT by 2ms");
  EXPECT_EQ(r.actual, "nothing");
  EXPECT_EQ(r.elapsed, ref::milliseconds(2));
}

TEST(Runner, Silence_PassesWhenQuiet_FailsOnAMessage) {
  EXPECT_EQ(run_text(receiver("send raw 20 01 00 30\nsilence 5ms\n")).verdict, Verdict::Pass);
  const auto r = run_text(receiver(
      "send CREDIT_REQUEST message_id=1 message_length=8192 binding_kind=OPAQUE binding_value=1\n"
      "silence 1ms\n"));
  EXPECT_EQ(r.verdict, Verdict::Fail);
  EXPECT_EQ(r.reason, "expected silence for 1ms");
  EXPECT_NE(r.actual.find("CREDIT_GRANT"), std::string::npos);
}

TEST(Runner, OneOf_AcceptsAnyAlternative_AndSilenceAlternative) {
  const auto pass = run_text(receiver(
      "send CREDIT_REQUEST message_id=1 message_length=8192 binding_kind=OPAQUE binding_value=1\n"
      "expect one of within 1ms\n"
      "  | ERROR reason=BUDGET_EXHAUSTED\n"
      "  | CREDIT_GRANT message_id=1 grant_limit<=8192\n"));
  EXPECT_EQ(pass.verdict, Verdict::Pass) << pass.reason;
  const auto quiet = run_text(receiver("expect one of within 1ms\n  | ERROR\n  | silence\n"));
  EXPECT_EQ(quiet.verdict, Verdict::Pass) << quiet.reason;
  const auto fail = run_text(receiver(
      "send CREDIT_REQUEST message_id=1 message_length=8192 binding_kind=OPAQUE binding_value=1\n"
      "expect one of within 1ms\n"
      "  | ERROR reason=BUDGET_EXHAUSTED\n"
      "  | CREDIT_GRANT message_id=2\n"));
  EXPECT_EQ(fail.verdict, Verdict::Fail);
  EXPECT_EQ(fail.reason, "CREDIT_GRANT arrived, not ERROR; message_id was 1, wanted = 2");
  EXPECT_EQ(fail.expected, "ERROR reason=BUDGET_EXHAUSTED | CREDIT_GRANT message_id=2 within 1ms");
}

TEST(Runner, Captures_CarryValuesWithArithmetic) {
  const auto pass = run_text(receiver(
      "send CREDIT_REQUEST message_id=1 message_length=8192 binding_kind=OPAQUE binding_value=1\n"
      "expect CREDIT_GRANT within 1ms -> limit=grant_limit\n"
      "send data message=1 offset=0 length=$limit last=1\n"
      "expect MSG_DONE within 1ms message_id=1 octets_received=$limit\n"
      "send CREDIT_REQUEST message_id=2 message_length=$limit+4096 binding_kind=OPAQUE "
      "binding_value=2\n"
      "expect CREDIT_GRANT within 1ms message_id=2 grant_limit=$limit+4096\n"));
  EXPECT_EQ(pass.verdict, Verdict::Pass) << pass.reason << pass.actual;
  const auto fail = run_text(receiver(
      "send CREDIT_REQUEST message_id=1 message_length=8192 binding_kind=OPAQUE binding_value=1\n"
      "expect CREDIT_GRANT within 1ms -> limit=grant_limit\n"
      "send CREDIT_REQUEST message_id=1 message_length=8192 binding_kind=OPAQUE binding_value=1\n"
      "wait 1100us\n"
      "send CREDIT_REQUEST message_id=1 message_length=8192 binding_kind=OPAQUE binding_value=1\n"
      "expect CREDIT_GRANT within 1ms grant_limit=$limit-1\n"));
  EXPECT_EQ(fail.verdict, Verdict::Fail);
  EXPECT_EQ(fail.reason, "grant_limit was 8192, wanted = $limit-1 (8191)");
}

TEST(Runner, AfterBound_AnEarlyMessageFails) {
  const auto r = run_text(receiver(
      "send CREDIT_REQUEST message_id=1 message_length=8192 binding_kind=OPAQUE binding_value=1\n"
      "expect CREDIT_GRANT after 100us within 1ms\n"));
  EXPECT_EQ(r.verdict, Verdict::Fail);
  EXPECT_EQ(r.reason, "arrived 0ms after the step began, earlier than 100us");
}

TEST(Runner, UnknownVariable_IsInconclusive) {
  const auto r = run_text(receiver("send CREDIT_REQUEST message_id=$nope message_length=1\n"));
  EXPECT_EQ(r.verdict, Verdict::Inconclusive);
  EXPECT_EQ(r.reason,
            "t.scn:7:32: '$nope' has no value here (variable not captured, or not a number)");
}

TEST(Runner, ValueTooLargeForItsField_IsInconclusive) {
  const auto r = run_text(receiver("send CREDIT_REQUEST traffic_class=300\n"));
  EXPECT_EQ(r.verdict, Verdict::Inconclusive);
  EXPECT_NE(
      r.reason.find("field 'traffic_class': value 300 is larger than the field's maximum 255"),
      std::string::npos)
      << r.reason;
}

TEST(Runner, UpperOnAReceiver_IsUnsupported_BeforeTheFirstStep) {
  const auto r =
      run_text(receiver("send CREDIT_REQUEST message_id=1 message_length=8192 "
                        "binding_kind=OPAQUE binding_value=1\n"
                        "expect CREDIT_GRANT within 1ms grant_limit=1\nupper stats\n"));
  EXPECT_EQ(r.verdict, Verdict::Unsupported);
  EXPECT_EQ(r.reason,
            "needs upper stats, which the IUT's upper tester does not offer (its hello lists "
            "hello, restart)");
  EXPECT_EQ(r.where.line, 9);  // the step that needs it; the failing expect never ran
  EXPECT_TRUE(r.trace.empty());
}

// ---- needs, checked before the first step ----

// The in-process reference of `role`, with the default configuration.
AdapterSpec spec_of(Role role) {
  AdapterSpec spec;
  spec.role = role;
  return spec;
}

// The in-process reference of `spec` as an adapter that a test changes in one place: by default
// every call goes to the reference.
class Forwarding : public Adapter {
 public:
  explicit Forwarding(const AdapterSpec& spec) : inner_(make_reference_adapter(spec)) {}
  std::optional<std::string> start(const Scenario& s) override { return inner_->start(s); }
  Address iut_control() const override { return inner_->iut_control(); }
  Address iut_data() const override { return inner_->iut_data(); }
  Address tester_control() const override { return inner_->tester_control(); }
  Address tester_data() const override { return inner_->tester_data(); }
  Address other_control() const override { return inner_->other_control(); }
  bool virtual_time() const override { return true; }
  std::string describe() const override { return "changed " + inner_->describe(); }
  Time now() override { return inner_->now(); }
  void send(const Packet& p) override { inner_->send(p); }
  std::optional<Packet> receive(Time deadline) override { return inner_->receive(deadline); }
  UpperResponse upper(const nlohmann::json& r) override { return inner_->upper(r); }
  std::optional<std::string> queue(const QueueSample& q) override { return inner_->queue(q); }
  std::vector<ref::Event> take_events() override { return inner_->take_events(); }
  std::optional<std::pair<std::uint64_t, Duration>> receiver_budget() const override {
    return inner_->receiver_budget();
  }
  std::optional<std::string> unsupported() const override { return inner_->unsupported(); }
  std::optional<std::uint8_t> unscheduled_dscp() const override {
    return inner_->unscheduled_dscp();
  }

 protected:
  std::unique_ptr<Adapter> inner_;
};

// The reference adapter of `role`, with what its hello answer, unscheduled DSCP and class DSCPs
// say replaced.
class Declaring : public Forwarding {
 public:
  Declaring(Role role, std::optional<nlohmann::json> hello, std::optional<std::uint8_t> dscp,
            std::optional<ClassDscps> classes = ClassDscps{})
      : Forwarding(spec_of(role)), hello_(std::move(hello)), dscp_(dscp), classes_(classes) {}
  std::string describe() const override { return "declaring"; }
  std::optional<nlohmann::json> hello() const override { return hello_; }
  std::optional<std::uint8_t> unscheduled_dscp() const override { return dscp_; }
  std::optional<ClassDscps> class_dscps() const override { return classes_; }

 private:
  std::optional<nlohmann::json> hello_;
  std::optional<std::uint8_t> dscp_;
  std::optional<ClassDscps> classes_;
};

// The reference read late, as a loaded tester reads a real socket: it wakes `lag` after each
// deadline and finds what arrived meanwhile; each packet's `time` is when it was read, its
// kernel_time when it arrived.
class LateReader : public Forwarding {
 public:
  LateReader(Role role, Duration lag) : Forwarding(spec_of(role)), lag_(lag) {}
  Time now() override { return inner_->now() + lag_; }
  std::optional<Packet> receive(Time deadline) override {
    auto p = inner_->receive(deadline + lag_);
    if (p) {
      p->kernel_time = p->time;
      p->time = p->time + lag_;
    }
    return p;
  }

 private:
  Duration lag_;
};

ScenarioResult run_on(Adapter& a, const std::string& text) {
  auto parsed = parse_scenario(text, "t.scn", {});
  if (auto* e = std::get_if<ParseError>(&parsed)) {
    ADD_FAILURE() << e->describe();
    return {};
  }
  const auto& s = std::get<Scenario>(parsed);
  if (auto e = a.start(s)) ADD_FAILURE() << *e;
  return run_scenario(s, a, RunOptions{});
}

// The suite's scenario file at `relative` (under conformance/scenarios) against `a`, started for
// it; `known` checks its requirement IDs, `o` the run's options.
ScenarioResult run_file(Adapter& a, const std::string& relative, const KnownId& known = {},
                        const RunOptions& o = {}) {
  auto parsed = load_scenario(std::string(RDCC_SCENARIOS_DIR) + relative, known);
  if (auto* e = std::get_if<ParseError>(&parsed)) {
    ADD_FAILURE() << e->describe();
    return {};
  }
  const auto& s = std::get<Scenario>(parsed);
  if (auto e = a.start(s)) ADD_FAILURE() << *e;
  return run_scenario(s, a, o);
}

// A stated gap is measured between the two packets' arrivals, however late the tester read the
// first; one that arrived past a `by` fails even when the tester read it late
// (docs/spec-notes.md 151).
TEST(Runner, StatedGap_IsMeasuredBetweenArrivals_AndALateArrivalFails) {
  LateReader late(Role::Sender, ref::microseconds(700));
  const auto backoff = run_file(late, "/sender/assoc-backoff.scn");
  EXPECT_EQ(backoff.verdict, Verdict::Pass) << backoff.reason << "\n" << backoff.expected;
  LateReader again(Role::Sender, ref::microseconds(700));
  const auto r = run_on(again,
                        "scenario t\nrole sender\nchecks RDCC-ASSOC-09\n"
                        "upper submit length=8192 force_scheduled=true -> h=handle\n"
                        "expect ASSOC_REQUEST within 1ms -> nonce=sender_nonce\n"
                        "expect ASSOC_REQUEST by 900us sender_nonce=$nonce\n");
  EXPECT_EQ(r.verdict, Verdict::Fail);
  EXPECT_EQ(r.reason, "arrived 1ms after the step began, later than 900us, a time the spec states");
  // A step that accepts silence: what arrived after its window, though read late, is not judged
  // by it but kept for the next step.
  LateReader third(Role::Sender, ref::microseconds(700));
  const auto quiet = run_on(third,
                            "scenario t\nrole sender\nchecks RDCC-ASSOC-09\n"
                            "upper submit length=8192 force_scheduled=true -> h=handle\n"
                            "expect ASSOC_REQUEST within 1ms -> nonce=sender_nonce\n"
                            "expect one of within 900us\n"
                            "  | ASSOC_REQUEST sender_nonce=$nonce+1\n"
                            "  | silence\n"
                            "expect ASSOC_REQUEST within 1ms sender_nonce=$nonce\n");
  EXPECT_EQ(quiet.verdict, Verdict::Pass) << quiet.reason << "\n" << quiet.actual;
}

const std::string kUnscheduledSender =
    "scenario t\nrole sender\nchecks RDCC-UNSCHED-04\n"
    "upper submit length=4096 mode=unscheduled -> h=handle\n"
    "expect ASSOC_REQUEST within 1ms -> nonce=sender_nonce\n"
    "send ASSOC_ACCEPT sender_nonce=$nonce association_id=7 epoch=3 unscheduled_limit=16384 "
    "start_jitter=10 grant_lifetime=1000 credit_unit=4096\n"
    "defaults association_id=7 epoch=3\n"
    "ignore CREDIT_REQUEST\n"
    "expect data within 1ms offset=0 unscheduled=1 dscp=$unscheduled_dscp\n";

TEST(Needs, NoUnscheduledDscpConfigured_IsUnsupported_NotAFailOnTheDscp) {
  Declaring none(Role::Sender, std::nullopt, std::nullopt);
  const auto r = run_on(none, kUnscheduledSender);
  EXPECT_EQ(r.verdict, Verdict::Unsupported);
  EXPECT_EQ(
      r.reason,
      "needs the DSCP the domain configures for unscheduled data ($unscheduled_dscp), and "
      "the IUT has none configured (its hello's \"unscheduled_dscp\", or --unscheduled-dscp)");
  EXPECT_EQ(r.where.line, 9);
  EXPECT_TRUE(r.trace.empty());
  // With one configured, the same scenario passes, and the data is checked against it.
  Declaring eight(Role::Sender, std::nullopt, 8);
  EXPECT_EQ(run_on(eight, kUnscheduledSender).verdict, Verdict::Pass);
  Declaring other(Role::Sender, std::nullopt, 10);
  EXPECT_EQ(run_on(other, kUnscheduledSender).verdict, Verdict::Fail);
}

// sender-scheduled-class-dscp reads the class's DSCP as the IUT declares it ($class_dscp_2).
TEST(Needs, ClassDscps_TheDeclaredMapIsTheOneChecked_NoneIsUnsupported) {
  const auto run = [](Adapter& a) { return run_file(a, "/sender/scheduled-class-dscp.scn"); };
  // The reference's domain marks class 2 with 18: declared so, it passes.
  Declaring right(Role::Sender, std::nullopt, 8, ClassDscps{0, 10, 18, 26, 34, 12, 20, 40});
  EXPECT_EQ(run(right).verdict, Verdict::Pass);
  // Declared as DSCP 0 for every class (what the scenario assumed before), the data's 18 fails.
  Declaring zero(Role::Sender, std::nullopt, 8, ClassDscps{});
  const auto wrong = run(zero);
  EXPECT_EQ(wrong.verdict, Verdict::Fail) << wrong.reason;
  EXPECT_EQ(wrong.cited.front(), "RDCC-POOL-01") << wrong.reason;
  // None declared: unsupported before the first step, naming the class.
  Declaring none(Role::Sender, std::nullopt, 8, std::nullopt);
  const auto r = run(none);
  EXPECT_EQ(r.verdict, Verdict::Unsupported);
  EXPECT_NE(r.reason.find("needs the DSCP the domain configures for Traffic Class 2 "
                          "($class_dscp_2)"),
            std::string::npos)
      << r.reason;
  EXPECT_TRUE(r.trace.empty());
}

TEST(Needs, UnscheduledModeTheIutDoesNotOffer_IsUnsupported) {
  Declaring scheduled_only(
      Role::Sender,
      nlohmann::json{{"ok", true}, {"ops", {"hello", "submit"}}, {"modes", {"scheduled"}}}, 8);
  const auto r = run_on(scheduled_only, kUnscheduledSender);
  EXPECT_EQ(r.verdict, Verdict::Unsupported);
  EXPECT_EQ(r.reason,
            "needs a message sent in unscheduled mode, which the IUT does not offer "
            "(its hello lists modes scheduled)");
  // An IUT that does not list its modes is asked at the step; the reference sender configured
  // for scheduled mode only answers "unsupported" there.
  AdapterSpec spec;
  spec.role = Role::Sender;
  auto reference = make_reference_adapter(spec);
  const auto r2 = run_on(*reference,
                         "scenario t\nrole sender\nchecks RDCC-UNSCHED-04\n"
                         "config allow_unscheduled=0\n" +
                             kUnscheduledSender.substr(kUnscheduledSender.find("upper")));
  EXPECT_EQ(r2.verdict, Verdict::Unsupported);
  EXPECT_NE(r2.reason.find("scheduled mode"), std::string::npos) << r2.reason;
}

TEST(Needs, ReceiverWithoutTheRocev2Binding_IsUnsupported_NotAFail) {
  // It answers ERROR (UNSUPPORTED_BINDING), as Transport Bindings prescribes.
  auto parsed =
      load_scenario(std::string(RDCC_SCENARIOS_DIR) + "/receiver/rocev2-queue-pair-count.scn", {});
  auto s = std::get<Scenario>(parsed);
  s.config["rocev2_binding"] = 0;
  AdapterSpec spec;
  spec.role = Role::Receiver;
  auto adapter = make_reference_adapter(spec);
  ASSERT_FALSE(adapter->start(s));
  const auto r = run_scenario(s, *adapter, RunOptions{});
  EXPECT_EQ(r.verdict, Verdict::Unsupported) << r.reason;
  EXPECT_EQ(r.reason.rfind("the IUT declined: ERROR reason=UNSUPPORTED_BINDING message_id=1 (", 0),
            0U)
      << r.reason;
}

TEST(Needs, UpperOpTheIutDoesNotList_IsUnsupported) {
  Declaring no_cancel(Role::Sender, nlohmann::json{{"ok", true}, {"ops", {"hello", "submit"}}}, 8);
  const auto r = run_on(no_cancel,
                        "scenario t\nrole sender\nchecks RDCC-GRANT-09\n"
                        "upper submit length=4096 -> h=handle\n"
                        "expect ASSOC_REQUEST within 1ms\n"
                        "upper cancel handle=$h\n");
  EXPECT_EQ(r.verdict, Verdict::Unsupported);
  EXPECT_EQ(r.reason,
            "needs upper cancel, which the IUT's upper tester does not offer (its hello "
            "lists hello, submit)");
}

TEST(Runner, SenderIut_DataOnlyAfterCredit) {
  const auto r = run_text(
      "scenario t\nrole sender\nchecks RDCC-MODE-02\n"
      "upper submit length=8192 force_scheduled=true -> h=handle\n"
      "expect ASSOC_REQUEST within 1ms -> nonce=sender_nonce\n"
      "send ASSOC_ACCEPT sender_nonce=$nonce association_id=7 epoch=1 unscheduled_limit=0 "
      "grant_lifetime=1000 credit_unit=4096\n"
      "defaults association_id=7 epoch=1\n"
      "expect CREDIT_REQUEST within 1ms message_length=8192 -> mid=message_id "
      "bv=binding_value\n"
      "ignore CREDIT_REQUEST\n"
      "silence 1ms\n"
      // N_cu is 0 here, so the granted credit is a backlog: SENDER_STATUS may come first.
      "ignore CREDIT_REQUEST SENDER_STATUS\n"
      "send CREDIT_GRANT message_id=$mid grant_limit=4096 pacing_rate=100000 lifetime=1000\n"
      "expect data within 1ms message=$bv offset=0 length=4096\n"
      "silence 500us\n"
      "upper status handle=$h -> sent=transmitted\n");
  EXPECT_EQ(r.verdict, Verdict::Pass) << r.reason << "\n" << r.expected << "\n" << r.actual;
  bool data = false;
  for (const auto& t : r.trace) data = data || (t.packet.data && !t.from_tester);
  EXPECT_TRUE(data);
}

// `end` is offset + length: "all segments below the limit, the last one ending at it", for
// segments of any size; `require` makes a scenario unsupported when the IUT chose what the
// spec allows and the scenario cannot test, and lets it go on otherwise. `source_port` is the
// port a data packet left the IUT from.
TEST(Runner, SenderIut_DataEndMatchesAnySegmentation_RequireIsUnsupportedOnlyWhenItFails) {
  const std::string steps =
      "scenario t\nrole sender\nchecks RDCC-MODE-02\n"
      "upper submit length=16384 force_scheduled=true -> h=handle\n"
      "expect ASSOC_REQUEST within 1ms -> nonce=sender_nonce caps=capabilities\n"
      "send ASSOC_ACCEPT sender_nonce=$nonce association_id=7 epoch=1 unscheduled_limit=0 "
      "grant_lifetime=1000 credit_unit=1024\n"
      "defaults association_id=7 epoch=1\n"
      "expect CREDIT_REQUEST within 1ms message_length=16384 -> mid=message_id "
      "us=unscheduled_sent bv=binding_value\n"
      "REQUIRE\n"
      "send CREDIT_GRANT message_id=$mid grant_limit=8192 pacing_rate=100000 lifetime=1000\n"
      "ignore CREDIT_REQUEST SENDER_STATUS data message=$bv end<8192\n"
      "expect data within 1ms message=$bv end=8192 -> e=end sp=source_port\n"
      "silence 500us\n"
      "upper status handle=$h -> sent=transmitted\n"
      "require sent=$e \"never fails\"\n"
      "require sp=$iut_data_port \"the data left the reference from its data port\"\n";
  const auto with = [&](const std::string& require) {
    std::string t = steps;
    t.replace(t.find("REQUIRE"), 7, require);
    return run_text(t);
  };
  const auto pass = with("require us=0 caps&1 \"the IUT chose unscheduled mode\"");
  EXPECT_EQ(pass.verdict, Verdict::Pass) << pass.reason << "\n"
                                         << pass.expected << "\n"
                                         << pass.actual;
  const auto unsupported = with("require us=0 caps&8 \"the IUT does not advertise bit 8\"");
  EXPECT_EQ(unsupported.verdict, Verdict::Unsupported);
  EXPECT_EQ(unsupported.reason,
            "the IUT does not advertise bit 8 ($caps was 7, the scenario needs & 8)");
  const auto unknown = with("require nope=1 \"x\"");
  EXPECT_EQ(unknown.verdict, Verdict::Inconclusive) << unknown.reason;
}

TEST(Runner, SenderIut_TheTestersOwnFaultIsNotTheIuts) {
  // A grant with Pacing Rate zero breaks a receiver rule; the tester sent it, so the sender
  // IUT (which MUST ignore it) is not blamed, and sends nothing.
  const auto r = run_text(
      "scenario t\nrole sender\nchecks RDCC-MODE-02\n"
      "upper submit length=8192 force_scheduled=true\n"
      "expect ASSOC_REQUEST within 1ms -> nonce=sender_nonce\n"
      "send ASSOC_ACCEPT sender_nonce=$nonce association_id=7 epoch=1 grant_lifetime=1000 "
      "credit_unit=4096\n"
      "defaults association_id=7 epoch=1\n"
      "expect CREDIT_REQUEST within 1ms -> mid=message_id\n"
      "ignore CREDIT_REQUEST\n"
      "send CREDIT_GRANT message_id=$mid grant_limit=4096 pacing_rate=0\n"
      "silence 1ms\n");
  EXPECT_EQ(r.verdict, Verdict::Pass) << r.reason << "\n" << r.actual;
  EXPECT_TRUE(r.violations.empty());
}

TEST(Runner, CrnIut_ReportsAboveThreshold) {
  const auto r = run_text(
      "scenario t\nrole crn\nchecks RDCC-CRN-03\n"
      "queue port=1 occupancy=1000 source=10.0.0.5:40000 destination=10.0.0.9:4791\n"
      "silence 1ms\n"
      "queue port=1 occupancy=589824 dscp=8 source=10.0.0.5:40000 destination=10.0.0.9:4791\n"
      "expect CONGESTION_REPORT within 1ms direction=TO_SENDER source_address=10.0.0.5\n");
  EXPECT_EQ(r.verdict, Verdict::Pass) << r.reason << "\n" << r.actual;
  ASSERT_EQ(r.trace.size(), 1U);
  EXPECT_EQ(r.trace[0].packet.to.to_string(), "10.0.0.5:50000");
}

TEST(Runner, BuiltinVariables_AreTheAddressesOfTheRun) {
  const auto r = run_text(receiver(
      "send CREDIT_REQUEST message_id=1 message_length=4096 binding_kind=OPAQUE binding_value=1\n"
      "expect CREDIT_GRANT within 1ms message_id=1 to=$tester from=$iut\n"
      "send CREDIT_REQUEST from=$other message_id=2 message_length=4096 binding_kind=OPAQUE "
      "binding_value=2\n"
      "expect ERROR within 1ms reason=UNKNOWN_ASSOCIATION to=$other\n"));
  EXPECT_EQ(r.verdict, Verdict::Pass) << r.reason << "\n" << r.expected << "\n" << r.actual;
  ASSERT_GE(r.trace.size(), 6U);
  EXPECT_EQ(r.trace[4].packet.from.to_string(), "10.0.0.3:50000");
}

TEST(Runner, IgnoreWithMatchers_SkipsOnlyWhatMatches) {
  // The grant of message 1 is skipped when the ignore names it, and decides the expect when
  // the ignore names message 2 only.
  const std::string two =
      "send CREDIT_REQUEST message_id=1 message_length=4096 binding_kind=OPAQUE binding_value=1\n"
      "send CREDIT_REQUEST message_id=2 message_length=4096 binding_kind=OPAQUE binding_value=2\n";
  const auto pass = run_text(receiver(two + "ignore CREDIT_GRANT message_id=1\n"
                                            "expect CREDIT_GRANT within 1ms message_id=2\n"));
  EXPECT_EQ(pass.verdict, Verdict::Pass) << pass.reason;
  const auto fail = run_text(receiver(two + "ignore CREDIT_GRANT message_id=2\n"
                                            "expect CREDIT_GRANT within 1ms message_id=2\n"));
  EXPECT_EQ(fail.verdict, Verdict::Fail);
  EXPECT_EQ(fail.reason, "message_id was 1, wanted = 2");
}

// transfer sends every granted octet, whatever the windows, and keeps what arrives for the
// next steps; it fails when the credit stops coming.
TEST(Runner, Transfer_SendsTheGrantedOctetsUntilTheLength_AndKeepsThePackets) {
  const auto r =
      run_text(receiver("send CREDIT_REQUEST message_id=1 message_length=1048576 "
                        "binding_kind=OPAQUE binding_value=1\n"
                        "expect CREDIT_GRANT within 1ms message_id=1 grant_limit<1048576\n"
                        "transfer message_id=1 message=1 length=1048576 segment=16384\n"
                        "ignore CREDIT_GRANT message_id=1\n"
                        "expect MSG_DONE within 1ms message_id=1 octets_received=1048576\n"));
  EXPECT_EQ(r.verdict, Verdict::Pass) << r.reason << "\n" << r.expected << "\n" << r.actual;
  // The data of a budget-bound receiver (G_s 3 MiB): one transfer, several grants.
  std::size_t grants = 0;
  for (const auto& t : r.trace) {
    if (!t.from_tester && !t.packet.data) grants += 1;
  }
  EXPECT_GT(grants, 3U);
  const auto stuck = run_text(receiver(
      "send CREDIT_REQUEST message_id=1 message_length=1048576 binding_kind=OPAQUE "
      "binding_value=1\n"
      "expect CREDIT_GRANT within 1ms message_id=1 -> limit=grant_limit\n"
      "send data message=1 offset=$limit length=4096\n"  // beyond the limit: no more credit
      "transfer within 3ms message_id=1 message=1 offset=0 length=1048576\n"));
  // No deadline binds a grant: a receiver that stops granting is waited for the patience, and
  // that proves nothing about it.
  EXPECT_EQ(stuck.verdict, Verdict::Inconclusive);
  EXPECT_NE(stuck.reason.find("no more credit came within the tester's patience of 100ms (the "
                              "spec sets no deadline)"),
            std::string::npos)
      << stuck.reason;
}

// `-> s=stalled_us`: the longest wait for credit in a transfer. A receiver whose grants outlive
// the data's spacing keeps it continuous; one whose 50 us grants lapse (the reference
// reclaims, and grants again only when the tester asks, after 1 ms without credit) makes the
// transfer wait about a millisecond at a time.
TEST(Runner, Transfer_CapturesItsLongestWaitForCredit) {
  const auto run = [](const std::string& lifetime) {
    return run_text(
        "scenario t\nrole receiver\nchecks RDCC-GRANT-01\nconfig budget=196608 "
        "unscheduled_budget=65536 grant_lifetime_us=" +
        lifetime + "\n" + kAssociate +
        "send CREDIT_REQUEST message_id=1 message_length=1048576 "
        "binding_kind=OPAQUE binding_value=1\n"
        "expect CREDIT_GRANT within 1ms message_id=1\n"
        "transfer message_id=1 message=1 length=524288 gap_us=10 -> s=stalled_us\n"
        "require s<200 \"stalled\"\n");
  };
  const auto continuous = run("100000");
  EXPECT_EQ(continuous.verdict, Verdict::Pass) << continuous.reason;
  const auto stalled = run("50");
  EXPECT_EQ(stalled.verdict, Verdict::Unsupported) << stalled.reason;
  EXPECT_NE(stalled.reason.find("stalled ($s was 1"), std::string::npos) << stalled.reason;
}

// transfer report=1: the latest CONGESTION_REPORT again before each segment, each with the next
// Sequence Number; without a report sent before, the scenario's error (INCONCLUSIVE).
TEST(Runner, Transfer_ReportSendsTheLatestReportBeforeEachSegment) {
  const std::string report =
      "send CONGESTION_REPORT reporter_id=9 queue_depth=1048576 queue_threshold=65536 "
      "congestion_degree=255 direction=TO_RECEIVER address_family=4 protocol=17 "
      "source_port=$tester_port destination_port=$iut_data_port source_address=$tester_ip "
      "destination_address=$iut_ip\n";
  const std::string steps =
      "send CREDIT_REQUEST message_id=1 message_length=32768 binding_kind=OPAQUE "
      "binding_value=1\n"
      "expect CREDIT_GRANT within 1ms message_id=1\n";
  const std::string transfer = "transfer message_id=1 message=1 length=32768 report=1\n";
  const auto r = run_text(receiver(steps + report + transfer));
  ASSERT_EQ(r.verdict, Verdict::Pass) << r.reason;
  std::size_t segments = 0;
  std::vector<std::uint32_t> reports;
  for (const TraceEntry& e : r.trace) {
    if (!e.from_tester) continue;
    if (e.packet.data) {
      ++segments;
      continue;
    }
    const auto m = decode(e.packet.payload);
    if (!m) continue;
    if (const auto* c = std::get_if<CongestionReport>(&*m)) {
      reports.push_back(c->header.sequence_number);
      EXPECT_EQ(c->congestion_degree, 255);
    }
  }
  EXPECT_EQ(segments, 8U);
  ASSERT_EQ(reports.size(), 9U);  // the send step's and one per segment
  for (std::size_t i = 1; i < reports.size(); ++i) EXPECT_GT(reports[i], reports[i - 1]);
  const auto none = run_text(receiver(steps + transfer));
  EXPECT_EQ(none.verdict, Verdict::Inconclusive);
  EXPECT_NE(
      none.reason.find("report=1 sends again the latest CONGESTION_REPORT, and none was sent"),
      std::string::npos)
      << none.reason;
}

TEST(Runner, WatchUnscheduledSum_FailsWhenTheNonZeroUExceedIt) {
  std::string steps;
  for (int i = 1; i <= 3; ++i) {
    steps += "send ASSOC_REQUEST sender_nonce=" + std::to_string(100 + i) +
             " capabilities=STATUS line_rate=100000\nexpect ASSOC_ACCEPT within 1ms\n";
  }
  // The reference's defaults: U 64 KiB while G_u (1 MiB) lasts; the tester's association too.
  const auto pass = run_text(receiver("watch unscheduled_sum<=262144\n" + steps));
  EXPECT_EQ(pass.verdict, Verdict::Pass) << pass.reason;
  const auto fail = run_text(receiver("watch unscheduled_sum<=196607\n" + steps));
  EXPECT_EQ(fail.verdict, Verdict::Fail);
  EXPECT_EQ(fail.reason, "the non-zero U in force sum to 196608 octets") << fail.reason;
}

TEST(Runner, WatchPacingSum_FailsWhenTheRatesInForceExceedIt) {
  // The reference grants one message the payload capacity of its 100 Gbit/s link: 98556
  // Mbit/s once the data packets' headers are left room for (spec-notes 72).
  const std::string steps =
      "send CREDIT_REQUEST message_id=1 message_length=1048576 binding_kind=OPAQUE "
      "binding_value=1\n"
      "expect CREDIT_GRANT within 1ms message_id=1 pacing_rate=98556\n";
  const auto pass = run_text(receiver("watch pacing_sum<=98556\n" + steps + "silence 1ms\n"));
  EXPECT_EQ(pass.verdict, Verdict::Pass) << pass.reason;
  const auto fail = run_text(receiver("watch pacing_sum<=98555\n" + steps + "silence 1ms\n"));
  EXPECT_EQ(fail.verdict, Verdict::Fail);
  EXPECT_NE(fail.reason.find("the Pacing Rates in force sum to 98556 Mbit/s"), std::string::npos)
      << fail.reason;
  EXPECT_EQ(fail.actual, "98556 (message 1)");
}

// A CANCEL the tester sends ends its message's rate for the watch: the reference gives the
// whole link to the next message once the cancelled one's credit is released, well within the
// cancelled grant's 100 ms Lifetime (spec-notes 78).
TEST(Runner, WatchPacingSum_ARateEndsWithTheTestersCancel) {
  const auto r = run_text(
      "scenario t\nrole receiver\nchecks RDCC-ALLOC-01\nconfig grant_lifetime_us=100000\n"
      "watch pacing_sum<=98556\n" +
      kAssociate +
      "send CREDIT_REQUEST message_id=1 message_length=1048576 binding_kind=OPAQUE "
      "binding_value=1\n"
      "expect CREDIT_GRANT within 1ms message_id=1 pacing_rate=98556\n"
      "send CANCEL message_id=1 reason=APPLICATION_ABORT\n"
      "wait 1ms\n"
      "send CREDIT_REQUEST message_id=2 message_length=1048576 binding_kind=OPAQUE "
      "binding_value=2\n"
      "ignore CANCEL\n"
      "expect CREDIT_GRANT within 1ms message_id=2 pacing_rate=98556\n"
      "silence 1ms\n");
  EXPECT_EQ(r.verdict, Verdict::Pass) << r.reason;
}

// transfer ... overrun=N: data beyond the Grant Limit, then the request again. The reference
// grants the message nothing more; a receiver that keeps granting FAILs RDCC-ERR-02.
TEST(Runner, TransferOverrun_FailsFurtherCreditForTheMessage) {
  const std::string text =
      "scenario t\nrole receiver\nchecks RDCC-ERR-02\n"
      "config budget=262144 unscheduled_budget=24576 unscheduled_limit=16384\n" +
      kAssociate +
      "send CREDIT_REQUEST message_id=1 message_length=1000000 binding_kind=OPAQUE "
      "binding_value=1\n"
      "transfer within 1s message_id=1 message=1 length=1000000 segment=4096 overrun=100\n"
      "ignore ASSOC_ACCEPT CANCEL ERROR MSG_DONE CREDIT_GRANT\n"
      "silence 5ms\n";
  const auto pass = run_text(text);
  EXPECT_EQ(pass.verdict, Verdict::Pass) << pass.reason;
  auto parsed = parse_scenario(text, "t.scn", {});
  ASSERT_TRUE(std::holds_alternative<Scenario>(parsed));
  SuiteOptions o;
  o.adapter.any_role = true;
  o.adapter.mutants = {"misbehaving-sender-granted"};
  const auto fail = run_one(std::get<Scenario>(parsed), o);
  EXPECT_EQ(fail.verdict, Verdict::Fail) << fail.reason;
  EXPECT_EQ(fail.cited, (std::vector<std::string>{"RDCC-ERR-02"}));
  EXPECT_NE(fail.reason.find("after the tester sent data beyond its Grant Limit"),
            std::string::npos)
      << fail.reason;
}

// within_u=1: a message announced unscheduled only within the U the IUT gave the association;
// above it the request goes scheduled and its unscheduled data stays unsent.
TEST(Runner, WithinU_SendsUnscheduledOnlyWhereUAllows) {
  const auto run_with_u = [](const std::string& u, const std::string& expect) {
    return run_text("scenario t\nrole receiver\nchecks RDCC-GRANT-13\nconfig unscheduled_limit=" +
                    u + "\n" + kAssociate +
                    "send CREDIT_REQUEST message_id=1 message_length=4096 binding_kind=OPAQUE "
                    "binding_value=1 unscheduled_sent=4096 within_u=1\n"
                    "send data message=1 offset=0 length=4096 last=1 unscheduled=1 within_u=1\n" +
                    expect);
  };
  const auto unscheduled = run_with_u("16384", "expect MSG_DONE within 1ms message_id=1\n");
  EXPECT_EQ(unscheduled.verdict, Verdict::Pass) << unscheduled.reason;
  const auto scheduled = run_with_u(
      "0", "expect CREDIT_GRANT within 1ms message_id=1 grant_limit=4096\nsilence 1ms\n");
  EXPECT_EQ(scheduled.verdict, Verdict::Pass) << scheduled.reason;
  ASSERT_FALSE(scheduled.trace.empty());
  for (const auto& e : scheduled.trace) EXPECT_FALSE(e.packet.data) << "unscheduled data went out";
  const auto sent_data = [](const ScenarioResult& r) {
    return std::any_of(r.trace.begin(), r.trace.end(),
                       [](const TraceEntry& e) { return e.from_tester && e.packet.data; });
  };
  EXPECT_TRUE(sent_data(unscheduled));
}

TEST(Runner, RuleBinds_TheViolatingPartyOnly) {
  const auto violation = [](std::string_view rule, checker::Party party) {
    checker::Violation v;
    v.rule = std::string(rule);
    v.party = party;
    return v;
  };
  const auto credit = violation(checker::rule::kSenderCredit, checker::Party::Sender);
  EXPECT_TRUE(rule_binds(credit, Role::Sender));
  EXPECT_FALSE(rule_binds(credit, Role::Receiver));
  const auto beyond = violation(checker::rule::kGrantBeyondLength, checker::Party::Receiver);
  EXPECT_TRUE(rule_binds(beyond, Role::Receiver));
  EXPECT_FALSE(rule_binds(beyond, Role::Sender));
  EXPECT_FALSE(rule_binds(beyond, Role::Crn));
  // A rule of every endpoint binds the originator: a stale Sequence Number the tester sends
  // (playing the sender) is not held against a receiver IUT.
  EXPECT_FALSE(
      rule_binds(violation(checker::rule::kSequence, checker::Party::Sender), Role::Receiver));
  EXPECT_TRUE(
      rule_binds(violation(checker::rule::kSequence, checker::Party::Receiver), Role::Receiver));
}

// ---- receiver-association-cap: the MUST and the SHOULD of one sentence ----

// A receiver that evicts its oldest association to admit a new one: the reference receiver with
// room for one more association than the scenario configures, which from then on forgets the
// first association it accepted (its CREDIT_REQUESTs go unanswered).
class EvictingReceiver : public Forwarding {
 public:
  using Forwarding::Forwarding;
  std::optional<std::string> start(const Scenario& s) override {
    Scenario roomier = s;
    roomier.config["max_associations"] = s.config.at("max_associations") + 1;
    return inner_->start(roomier);
  }
  // The first association was evicted: a CREDIT_REQUEST of it gets what an unknown
  // association's does ("replies with ERROR (UNKNOWN_ASSOCIATION)", Error Handling and Recovery).
  void send(const Packet& p) override {
    if (auto m = decode(p.payload);
        m && accepted_ >= 3 && first_ && header_of(*m).association_id == *first_) {
      if (const auto* request = std::get_if<CreditRequest>(&*m)) {
        ErrorMessage e;
        e.header.association_id = *first_;
        e.reason = static_cast<std::uint16_t>(ReasonCode::UnknownAssociation);
        e.message_id = request->message_id;
        Packet reply;
        reply.time = inner_->now();
        reply.from = p.to;
        reply.to = p.from;
        reply.payload.resize(encoded_size(Message{e}));
        if (encode(Message{e}, reply.payload)) replies_.push_back(std::move(reply));
      }
      return;
    }
    inner_->send(p);
  }
  std::optional<Packet> receive(Time deadline) override {
    if (!replies_.empty()) {
      Packet p = std::move(replies_.front());
      replies_.pop_front();
      return p;
    }
    auto p = inner_->receive(deadline);
    if (p) {
      if (auto m = decode(p->payload); m && std::holds_alternative<AssocAccept>(*m)) {
        ++accepted_;
        if (!first_) first_ = header_of(*m).association_id;
      }
    }
    return p;
  }

 private:
  int accepted_ = 0;
  std::optional<std::uint32_t> first_;
  std::deque<Packet> replies_;
};

struct CatalogLevels {
  Catalog catalog = Catalog::load(RDCC_CATALOG_PATH);
  KnownId known() const {
    return [this](std::string_view id) { return catalog.find(id) != nullptr; };
  }
  LevelOf levels() const {
    return [this](std::string_view id) -> std::optional<std::string> {
      const auto* r = catalog.find(id);
      if (r == nullptr) return std::nullopt;
      return std::string(to_string(r->level));
    };
  }
};

ScenarioResult run_association_cap(Adapter& adapter, const CatalogLevels& c, bool strict) {
  RunOptions o;
  o.level_of = c.levels();
  o.strict = strict;
  return run_file(adapter, "/receiver/association-cap.scn", c.known(), o);
}

TEST(Verdicts, AssociationCap_EvictingReceiver_Warns_NonBoundingReceiver_Fails) {
  const CatalogLevels c;
  AdapterSpec spec;
  spec.role = Role::Receiver;
  {
    auto reference = make_reference_adapter(spec);
    const auto r = run_association_cap(*reference, c, true);
    EXPECT_EQ(r.verdict, Verdict::Pass) << r.reason;
  }
  {
    EvictingReceiver evicting(spec);
    const auto r = run_association_cap(evicting, c, false);
    EXPECT_EQ(r.verdict, Verdict::Warn) << r.reason;
    EXPECT_EQ(r.level, "SHOULD");
    EXPECT_EQ(r.cited, (std::vector<std::string>{"RDCC-SEC-04"}));
    // The ERROR (UNKNOWN_ASSOCIATION) matches neither the grant nor a receiver's declining of
    // the opaque binding (ERROR UNSUPPORTED_BINDING, which would make the scenario unsupported).
    EXPECT_EQ(r.reason,
              "ERROR arrived, not CREDIT_GRANT; reason was 2, wanted = UNSUPPORTED_BINDING");
  }
  {
    EvictingReceiver evicting(spec);
    EXPECT_EQ(run_association_cap(evicting, c, true).verdict, Verdict::Fail);
  }
  {
    spec.mutants = {"association-cap-ignored"};
    auto unbounded = make_reference_adapter(spec);
    const auto r = run_association_cap(*unbounded, c, false);
    EXPECT_EQ(r.verdict, Verdict::Fail) << r.reason;
    EXPECT_EQ(r.level, "MUST");
    EXPECT_EQ(r.cited, (std::vector<std::string>{"RDCC-SEC-03"}));
  }
  {
    // Bounded, but the request it cannot admit is dropped, not answered (N9 of the audit).
    spec.mutants = {"association-refused-silently"};
    auto silent = make_reference_adapter(spec);
    const auto r = run_association_cap(*silent, c, false);
    EXPECT_EQ(r.verdict, Verdict::Fail) << r.reason;
    EXPECT_EQ(r.level, "RULE");
    EXPECT_EQ(r.cited, (std::vector<std::string>{"RDCC-ASSOC-07"}));
  }
}

// A receiver whose controller lowers the rate of every grant after the first by a tenth, with
// or without congestion (as one that holds a round-trip-time target on a slow path would): the
// reference, its grants rewritten on the way out.
class FallingRateReceiver : public Forwarding {
 public:
  using Forwarding::Forwarding;
  std::optional<Packet> receive(Time deadline) override {
    auto p = inner_->receive(deadline);
    if (!p) return p;
    auto m = decode(p->payload);
    if (!m || !std::holds_alternative<CreditGrant>(*m)) return p;
    auto& g = std::get<CreditGrant>(*m);
    if (grants_++ > 0) g.pacing_rate = std::max<std::uint32_t>(1, g.pacing_rate / 10 * 9);
    if (!encode(*m, p->payload)) ADD_FAILURE() << "re-encoding a grant";
    return p;
  }

 private:
  int grants_ = 0;
};

TEST(Verdicts, ReportFromUnconfiguredAddress_JudgedAgainstAControl) {
  const CatalogLevels c;
  RunOptions o;
  o.level_of = c.levels();
  const auto run = [&](Adapter& adapter) {
    return run_file(adapter, "/receiver/report-from-unconfigured-address.scn", c.known(), o);
  };
  AdapterSpec spec;
  spec.role = Role::Receiver;
  {
    auto reference = make_reference_adapter(spec);
    const auto r = run(*reference);
    EXPECT_EQ(r.verdict, Verdict::Pass) << r.reason;
  }
  {
    // Its rate falls with no report at all: the forged reports cannot be judged (the old
    // scenario failed it).
    FallingRateReceiver falling(spec);
    const auto r = run(falling);
    EXPECT_EQ(r.verdict, Verdict::Unsupported) << r.reason;
    EXPECT_NE(r.reason.find("lowered its rate with no report at all"), std::string::npos)
        << r.reason;
  }
  {
    spec.mutants = {"receiver-report-from-unconfigured-crn"};
    auto violator = make_reference_adapter(spec);
    const auto r = run(*violator);
    EXPECT_EQ(r.verdict, Verdict::Fail) << r.reason;
    EXPECT_EQ(r.cited, (std::vector<std::string>{"RDCC-CRN-07"}));
  }
}

TEST(Suite, Filters_MatchNameTagOrRequirement) {
  Scenario s;
  s.name = "receiver-x";
  s.tags = {"assoc"};
  s.checks = {"RDCC-ERR-05"};
  EXPECT_TRUE(matches_filters(s, {}));
  EXPECT_TRUE(matches_filters(s, {"receiver-*"}));
  EXPECT_TRUE(matches_filters(s, {"assoc"}));
  EXPECT_TRUE(matches_filters(s, {"RDCC-ERR-*"}));
  EXPECT_FALSE(matches_filters(s, {"sender-*", "grant"}));
}

// The levels of the catalog entries these tests cite.
std::optional<std::string> test_levels(std::string_view id) {
  if (id == "RDCC-ASSOC-05") return "MAY";
  if (id == "RDCC-ASSOC-06" || id == "RDCC-SEC-04") return "SHOULD";
  if (id == "RDCC-ASSOC-01" || id == "RDCC-SEC-03") return "MUST";
  if (id == "RDCC-GRANT-07") return "MUST NOT";
  if (id == "RDCC-GRANT-12" || id == "RDCC-GRANT-13") return "RULE";
  return std::nullopt;
}

TEST(Suite, MayOnly_IsSkippedWithoutStrict_ShouldOnlyRuns) {
  Scenario s;
  s.name = "x";
  s.checks = {"RDCC-ASSOC-05"};
  const LevelOf levels = test_levels;
  EXPECT_EQ(optional_only(s, levels),
            "checks only MAY-level requirements (RDCC-ASSOC-05 MAY): behaviour the IUT may not "
            "have chosen; run with --strict");
  s.checks.emplace_back("RDCC-ASSOC-01");
  EXPECT_FALSE(optional_only(s, levels));
  s.checks = {"RDCC-ASSOC-06"};  // a SHOULD: run, a failure is a WARN
  EXPECT_FALSE(optional_only(s, levels));
  SuiteOptions o;
  o.level_of = levels;
  o.adapter.any_role = true;
  s.checks = {"RDCC-ASSOC-05"};
  EXPECT_EQ(run_one(s, o).verdict, Verdict::Skipped);
}

// The MAY of RDCC-CRN-03 makes a node a CRN; a CRN IUT's scenarios check that MAY's conditions
// and run without --strict, while a MAY-only scenario of an endpoint is still skipped.
TEST(Suite, CrnScenarios_RunWithoutStrict_EndpointMayOnlyIsSkipped) {
  Scenario s;
  s.name = "crn-x";
  s.role = Role::Crn;
  s.checks = {"RDCC-CRN-03"};
  const LevelOf levels = [](std::string_view id) -> std::optional<std::string> {
    if (id == "RDCC-CRN-03" || id == "RDCC-ASSOC-05") return "MAY";
    return std::nullopt;
  };
  EXPECT_FALSE(optional_only(s, levels));
  s.role = Role::Receiver;
  s.checks = {"RDCC-ASSOC-05"};
  EXPECT_TRUE(optional_only(s, levels));
}

// ---- level-aware verdicts ----

TEST(Verdicts, FailedCheck_TakesTheLevelOfItsRequirements) {
  std::string level;
  const LevelOf levels = test_levels;
  EXPECT_EQ(verdict_of_failure({"RDCC-SEC-04"}, levels, false, level), Verdict::Warn);
  EXPECT_EQ(level, "SHOULD");
  EXPECT_EQ(verdict_of_failure({"RDCC-SEC-04"}, levels, true, level), Verdict::Fail);
  EXPECT_EQ(level, "SHOULD");
  EXPECT_EQ(verdict_of_failure({"RDCC-SEC-04", "RDCC-SEC-03"}, levels, false, level),
            Verdict::Fail);
  EXPECT_EQ(level, "MUST");
  EXPECT_EQ(verdict_of_failure({"RDCC-GRANT-12"}, levels, false, level), Verdict::Fail);
  EXPECT_EQ(level, "RULE");
  // MAY: the IUT chose the behaviour, and it is checked for correctness.
  EXPECT_EQ(verdict_of_failure({"RDCC-ASSOC-05"}, levels, false, level), Verdict::Fail);
  EXPECT_EQ(level, "MAY");
  // A requirement the catalog lacks, or no catalog: nothing softens the failure.
  EXPECT_EQ(verdict_of_failure({"RDCC-SEC-04", "RDCC-XYZ-01"}, levels, false, level),
            Verdict::Fail);
  EXPECT_EQ(verdict_of_failure({"RDCC-SEC-04"}, {}, false, level), Verdict::Fail);
}

TEST(Verdicts, InvariantRules_AreTheirCatalogRequirement) {
  // The checker names every rule by its catalog ID (rdcc/checker/rules.hpp).
  for (const checker::InvariantRule& r : checker::kInvariantRules) {
    EXPECT_EQ(requirement_of_rule(r.id), std::string(r.id));
  }
  EXPECT_EQ(requirement_of_rule("budget"), "");  // a name, not an ID
}

// A receiver bounded to one association that evicts nothing and refuses the second: the
// scenario's SHOULD step and MUST step, each failing in turn against a wrong expectation.
std::string two_levels(const std::string& should_step, const std::string& must_step) {
  return "scenario t\nrole receiver\nchecks RDCC-SEC-03 RDCC-SEC-04\n" + kAssociate + should_step +
         must_step;
}

ScenarioResult run_with_levels(const std::string& text, bool strict) {
  auto parsed = parse_scenario(text, "t.scn", {});
  if (auto* e = std::get_if<ParseError>(&parsed)) {
    ADD_FAILURE() << e->describe();
    return {};
  }
  SuiteOptions o;
  o.adapter.any_role = true;
  o.level_of = test_levels;
  o.strict = strict;
  return run_one(std::get<Scenario>(parsed), o);
}

TEST(Verdicts, FailedShouldStep_IsAWarn_AFailUnderStrict) {
  const std::string text = two_levels(
      "send CREDIT_REQUEST message_id=1 message_length=8192 binding_kind=OPAQUE binding_value=1\n"
      "expect CREDIT_GRANT within 1ms message_id=1 grant_limit=4096 checks RDCC-SEC-04\n",
      "");
  const auto warn = run_with_levels(text, false);
  EXPECT_EQ(warn.verdict, Verdict::Warn) << warn.reason;
  EXPECT_EQ(warn.level, "SHOULD");
  EXPECT_EQ(warn.cited, (std::vector<std::string>{"RDCC-SEC-04"}));
  EXPECT_EQ(warn.reason, "grant_limit was 8192, wanted = 4096");
  const auto fail = run_with_levels(text, true);
  EXPECT_EQ(fail.verdict, Verdict::Fail);
  EXPECT_EQ(fail.level, "SHOULD");
}

TEST(Verdicts, UnannotatedStep_TakesTheScenarioChecks_TheStrongestDecides) {
  const auto r = run_with_levels(
      two_levels("send CREDIT_REQUEST message_id=1 message_length=8192 binding_kind=OPAQUE "
                 "binding_value=1\n",
                 "expect CREDIT_GRANT within 1ms message_id=1 grant_limit=4096\n"),
      false);
  EXPECT_EQ(r.verdict, Verdict::Fail);
  EXPECT_EQ(r.level, "MUST");
  EXPECT_EQ(r.cited, (std::vector<std::string>{"RDCC-SEC-03", "RDCC-SEC-04"}));
}

TEST(Verdicts, Silence_AndWatch_CarryTheirAnnotation) {
  const auto silence = run_with_levels(
      two_levels("send CREDIT_REQUEST message_id=1 message_length=8192 binding_kind=OPAQUE "
                 "binding_value=1\n",
                 "silence 1ms checks RDCC-SEC-04\n"),
      false);
  EXPECT_EQ(silence.verdict, Verdict::Warn) << silence.reason;
  const auto watch = run_with_levels(
      two_levels("watch pacing_sum<=1 checks RDCC-SEC-04\n",
                 "send CREDIT_REQUEST message_id=1 message_length=8192 binding_kind=OPAQUE "
                 "binding_value=1\nwait 1ms\n"),
      false);
  EXPECT_EQ(watch.verdict, Verdict::Warn) << watch.reason;
  EXPECT_EQ(watch.cited, (std::vector<std::string>{"RDCC-SEC-04"}));
}

TEST(Adapter, ConfigOptions_AreTheNodeOptionsOfEachKey) {
  const std::map<std::string, std::uint64_t> config{{"budget", 262144},
                                                    {"capabilities", 2},
                                                    {"idle_timeout_ms", 10000},
                                                    {"max_pending_per_association", 2},
                                                    {"rocev2_binding", 0}};
  const auto o = node_config_options(Role::Receiver, config);
  ASSERT_TRUE(std::holds_alternative<std::vector<std::string>>(o));
  EXPECT_EQ(
      std::get<std::vector<std::string>>(o),
      (std::vector<std::string>{"--budget", "262144", "--capabilities", "STATUS", "--idle-timeout",
                                "10000", "--max-pending", "2", "--bindings", "opaque"}));
  EXPECT_EQ(config_keys_text(config),
            "budget=262144 capabilities=2 idle_timeout_ms=10000 max_pending_per_association=2 "
            "rocev2_binding=0");
  // No capability at all is an empty list the node parses to 0, not an option without a value.
  EXPECT_EQ(std::get<std::vector<std::string>>(
                node_config_options(Role::Receiver, {{"capabilities", 0}})),
            (std::vector<std::string>{"--capabilities", ","}));
  EXPECT_EQ(
      std::get<std::vector<std::string>>(node_config_options(Role::Crn, {{"suggest_rate", 0}})),
      (std::vector<std::string>{"--no-suggest-rate"}));
}

// The configuration's one description (config_schema.hpp): a scenario key reaches the member
// its node option and JSON key reach (tools/test/node_test.sh holds those to the same key).
TEST(Adapter, ConfigKey_ReachesTheReferenceIutsMember) {
  const auto r = run_text(
      "scenario t\nrole receiver\nchecks RDCC-GRANT-07\n"
      "config credit_unit=1024 grant_lifetime_us=777\n" +
      kAssociate);
  EXPECT_EQ(r.verdict, Verdict::Pass) << r.reason << "\n" << r.expected << "\n" << r.actual;
  ASSERT_GE(r.trace.size(), 2U);
  const auto accept = decode(r.trace[1].packet.payload);
  ASSERT_TRUE(accept);
  const auto& a = std::get<AssocAccept>(*accept);
  EXPECT_EQ(a.credit_unit, 1024U);
  EXPECT_EQ(a.grant_lifetime, 777U);
  // The in-process reference's defaults where a scenario leaves a key out.
  EXPECT_EQ(reference_config_default(Role::Crn, "queue_threshold"),
            std::vector<std::uint64_t>{65536});
  EXPECT_EQ(reference_config_default(Role::Sender, "unscheduled_dscp"),
            std::vector<std::uint64_t>{8});
}

TEST(Adapter, ConfigKeysTable_NamesUnitDefaultRangeAndOption) {
  const std::string t = config_keys_table();
  for (const char* want :
       {"receiver\n", "sender\n", "crn\n", "seed", "credit_unit", "1..65507", "--credit-unit",
        "--scheduled-only (for false)", "--bindings opaque", "--no-suggest-rate (for false)"}) {
    EXPECT_NE(t.find(want), std::string::npos) << want << "\n" << t;
  }
}

TEST(Adapter, QueueRequest_HasTheTablesKeys) {
  QueueSample q;
  const auto j = queue_request(q);
  std::set<std::string> keys;
  for (const auto& [key, value] : j.items()) {
    if (key != "op") keys.insert(key);
  }
  std::set<std::string> table;
  for (const auto& a : udp::find_upper_op("queue")->args) table.emplace(a.key);
  EXPECT_EQ(j["op"], "queue");
  EXPECT_EQ(keys, table);
}

TEST(Adapter, ConfigKeyWithoutANodeOption_IsNamed) {
  const auto o = node_config_options(Role::Receiver, {{"seed", 7}});
  ASSERT_TRUE(std::holds_alternative<std::string>(o));
  EXPECT_EQ(std::get<std::string>(o),
            "config seed has no option of `rdcc receiver` (use {config_keys} and map it yourself)");
}

TEST(Adapter, ConfigCapabilityBitsWithoutAName_AreNamed_NotDropped) {
  const auto o = node_config_options(Role::Sender, {{"capabilities", 0x9}});
  ASSERT_TRUE(std::holds_alternative<std::string>(o));
  EXPECT_EQ(std::get<std::string>(o),
            "config capabilities=0x9 has bits `rdcc sender --capabilities` cannot name (it knows "
            "POOL, STATUS, CRN; use {config_keys} and map it yourself)");
}

TEST(Adapter, UdpSpec_TakesDataAndRocev2Ports) {
  const auto spec =
      std::get<AdapterSpec>(parse_adapter_spec("udp:127.0.0.1:5000,rocev2=4791,data=5001"));
  EXPECT_EQ(spec.port, 5000);
  EXPECT_EQ(spec.data_port, 5001);
  EXPECT_EQ(spec.rocev2_port, 4791);
  EXPECT_EQ(std::get<std::string>(parse_adapter_spec("udp:127.0.0.1:5000,roce=4791")),
            "--iut udp:HOST:PORT[,data=PORT][,rocev2=PORT][,upper=tcp:HOST:PORT][,tester_data=PORT]"
            "[,fresh][,budget=N][,unscheduled_budget=N][,d_max=US][,link=MBPS][,KEY=N for a "
            "scenario config key the IUT runs with]: expected one of these after ',', not "
            "'roce=4791'");
  EXPECT_FALSE(spec.declared.budget);
  EXPECT_TRUE(spec.upper.empty());
  EXPECT_FALSE(spec.fresh);
}

TEST(Adapter, UdpSpec_TakesTheUpperTesterTheDataPortTheConfigurationAndFresh) {
  const auto spec = std::get<AdapterSpec>(parse_adapter_spec(
      "udp:127.0.0.1:5000,upper=tcp:127.0.0.1:7000,tester_data=5002,fresh,max_associations=2,"
      "budget=262144,d_max=20"));
  EXPECT_EQ(spec.upper, "127.0.0.1:7000");
  EXPECT_EQ(spec.tester_data_port, 5002);
  EXPECT_TRUE(spec.fresh);
  // The declared parameters are the configuration keys they name too.
  const std::map<std::string, std::uint64_t> configured{
      {"budget", 262144}, {"d_max_us", 20}, {"max_associations", 2}};
  EXPECT_EQ(spec.configured, configured);
  EXPECT_EQ(spec.declared.budget, 262144U);
  EXPECT_EQ(std::get<AdapterSpec>(parse_adapter_spec("udp:[::1]:5000,upper=[::1]:7000")).upper,
            "[::1]:7000");
  EXPECT_EQ(std::get<std::string>(parse_adapter_spec("udp:127.0.0.1:5000,upper=tcp:localhost")),
            "--iut udp:...,upper=tcp:HOST:PORT: expected the upper tester's TCP address, not "
            "'tcp:localhost'");
  // Not a configuration key of any role: named.
  EXPECT_TRUE(
      std::holds_alternative<std::string>(parse_adapter_spec("udp:127.0.0.1:5000,max_assocs=2")));
}

TEST(Adapter, UdpSpec_TakesTheDeclaredParameters) {
  const auto spec = std::get<AdapterSpec>(parse_adapter_spec(
      "udp:127.0.0.1:5000,budget=4194304,unscheduled_budget=1048576,d_max=20,link=100000"));
  EXPECT_EQ(spec.declared.budget, 4194304U);
  EXPECT_EQ(spec.declared.unscheduled_budget, 1048576U);
  EXPECT_EQ(spec.declared.d_max, ref::microseconds(20));
  EXPECT_EQ(spec.declared.link_capacity_mbps, 100000U);
  EXPECT_TRUE(
      std::holds_alternative<std::string>(parse_adapter_spec("udp:127.0.0.1:5000,budget=x")));
}

TEST(Adapter, ExecSpec_DeclaresWhatTheNodesOptionsSay) {
  const auto spec = std::get<AdapterSpec>(parse_adapter_spec(
      "exec:rdcc receiver --budget 4194304 --d-max=20 --link-capacity 100000 {config}"));
  EXPECT_EQ(spec.declared.budget, 4194304U);
  EXPECT_EQ(spec.declared.d_max, ref::microseconds(20));
  EXPECT_EQ(spec.declared.link_capacity_mbps, 100000U);
  EXPECT_FALSE(spec.declared.unscheduled_budget);
}

TEST(Adapter, CommandWithMutant_PlaceholderOrAppended) {
  EXPECT_EQ(command_with_mutant("rdcc sender {mutant} --x", "sender-ignores-pacing"),
            "rdcc sender --mutant sender-ignores-pacing --x");
  EXPECT_EQ(command_with_mutant("rdcc sender {mutant} --x", ""), "rdcc sender  --x");
  EXPECT_EQ(command_with_mutant("rdcc sender --x", "no-start-jitter"),
            "rdcc sender --x --mutant no-start-jitter");
  EXPECT_EQ(command_with_mutant("rdcc sender --x", ""), "rdcc sender --x");
}

TEST(Runner, SendRocev2_IsCountedOnItsQueuePairOnly) {
  const std::string request =
      "send CREDIT_REQUEST message_id=1 message_length=4096 binding_kind=ROCEV2 "
      "binding_value=0x0000070000000001\n"  // QP 7, first MSN 0, one RDMA message
      "expect CREDIT_GRANT within 1ms message_id=1 grant_limit=4096\n"
      "ignore CREDIT_GRANT\n";
  auto r = run_text(receiver(request +
                             "send rocev2 qp=8 length=4096\nsilence 1ms\n"
                             "send rocev2 qp=7 psn=9 opcode=RDMA_WRITE_FIRST length=2048 "
                             "dma_length=4096\n"
                             "send rocev2 qp=7 opcode=RDMA_WRITE_LAST length=2048\n"
                             "expect MSG_DONE within 1ms message_id=1 octets_received=4096\n"));
  EXPECT_EQ(r.verdict, Verdict::Pass) << r.reason << " " << r.actual;
  // The second packet on QP 7 continued its PSN.
  ASSERT_FALSE(r.trace.empty());
  const auto& last_sent = r.trace[r.trace.size() - 2].packet;
  EXPECT_TRUE(last_sent.rocev2);
  EXPECT_EQ(std::to_integer<int>(last_sent.payload[11]), 10);
  EXPECT_EQ(last_sent.to.port, 4791);
  // The First packet's RETH states the whole RDMA WRITE (DMA Length, its last four octets).
  const auto& first = r.trace[r.trace.size() - 3].packet;
  ASSERT_TRUE(first.rocev2);
  ASSERT_GE(first.payload.size(), 12U + 16U);
  EXPECT_EQ(std::to_integer<int>(first.payload[0]), 6);
  std::uint32_t dma = 0;
  for (std::size_t i = 24; i < 28; ++i)
    dma = (dma << 8U) | std::to_integer<std::uint32_t>(first.payload[i]);
  EXPECT_EQ(dma, 4096U);
}

TEST(Runner, SendRocev2_WithoutARocev2Port_IsUnsupported_BeforeTheFirstStep) {
  // The expect before the RoCEv2 step would fail (nothing answers on port 9): it is never played.
  auto parsed = parse_scenario(
      "scenario t\nrole receiver\nchecks RDCC-BIND-01\n"
      "send ASSOC_REQUEST sender_nonce=1 capabilities=STATUS line_rate=100000\n"
      "expect ASSOC_ACCEPT within 1ms\nsend rocev2 qp=7 length=4096\n",
      "r.scn", {});
  const auto& sc = std::get<Scenario>(parsed);
  const auto spec = std::get<AdapterSpec>(parse_adapter_spec("udp:127.0.0.1:9"));
  auto adapter = make_adapter(spec);
  ASSERT_FALSE(adapter->start(sc));
  const auto r = run_scenario(sc, *adapter, RunOptions{});
  EXPECT_EQ(r.verdict, Verdict::Unsupported);
  EXPECT_NE(r.reason.find("has no RoCEv2 port for the IUT"), std::string::npos) << r.reason;
  EXPECT_EQ(r.where.line, 6);
  EXPECT_TRUE(r.trace.empty());
}

// On real sockets the datagrams of consecutive sends leave together, when the runner next waits
// (one sendmmsg): a tester descheduled between two sendto calls spread a burst the scenario
// wrote back to back (a CRN's queue then never reached its threshold).
TEST(Adapter, Udp_ConsecutiveSends_LeaveTogetherWhenTheRunnerNextWaits) {
  udp::UdpSocket iut(wire::Address::v4(127, 0, 0, 1, 0));
  const auto spec = std::get<AdapterSpec>(parse_adapter_spec("udp:" + iut.local().to_string()));
  auto adapter = make_adapter(spec);
  auto parsed =
      parse_scenario("scenario t\nrole receiver\nchecks RDCC-BIND-01\nwait 1ms\n", "t.scn", {});
  ASSERT_TRUE(std::holds_alternative<Scenario>(parsed));
  ASSERT_FALSE(adapter->start(std::get<Scenario>(parsed)));
  for (std::uint8_t i = 0; i < 3; ++i) {
    Packet p;
    p.from = adapter->tester_control();
    p.to = adapter->iut_control();
    p.payload = {std::byte{i}, std::byte{0x5a}};
    adapter->send(p);
  }
  EXPECT_TRUE(iut.receive().empty()) << "a send left before the runner waited";
  (void)adapter->receive(adapter->now());  // a wait that ends at once
  const auto got = iut.receive();
  ASSERT_EQ(got.size(), 3U);
  for (std::size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i].bytes.size(), 2U);
    EXPECT_EQ(got[i].bytes[0], std::byte(i)) << "in the order sent";
    EXPECT_EQ(got[i].from, adapter->tester_control());
  }
  (void)adapter->finish();
}

TEST(Report, SummaryAndConsoleLines) {
  std::vector<ScenarioResult> rs(6);
  rs[0].verdict = Verdict::Pass;
  rs[1].verdict = Verdict::Fail;
  rs[2].verdict = Verdict::Fail;
  rs[3].verdict = Verdict::Skipped;
  rs[4].verdict = Verdict::Unsupported;
  rs[5].verdict = Verdict::Warn;
  EXPECT_EQ(summary_line(count(rs)),
            "1 passed, 1 warned, 2 failed, 0 inconclusive, 1 unsupported, 1 skipped");
  rs[1].name = "receiver-x";
  rs[1].reason = "nothing arrived within 1ms";
  rs[1].where = {"x.scn", 7, 1};
  rs[1].step = "expect ERROR within 1ms";
  rs[1].expected = "ERROR within 1ms";
  rs[1].actual = "nothing";
  EXPECT_EQ(console_line(rs[1], 2, 10),
            "[ 2/10] FAIL         receiver-x: nothing arrived within 1ms\n"
            "      at x.scn:7:1: expect ERROR within 1ms\n"
            "      expected: ERROR within 1ms\n"
            "      actual:   nothing");
  // With the catalog, a failing verdict quotes the sentences it checks, and names its pcap.
  rs[1].checks = {"RDCC-ERR-05", "RDCC-NOT-IN-CATALOG"};
  const std::vector<RequirementRow> catalog{
      {"RDCC-ERR-05", "Error Handling and Recovery", "MUST", "receiver", "wire",
       "Messages of an unknown Version MUST be dropped (test text)."}};
  EXPECT_EQ(console_line(rs[1], 2, 10, catalog, "r/scenarios/receiver-x.pcap"),
            "[ 2/10] FAIL         receiver-x: nothing arrived within 1ms\n"
            "      at x.scn:7:1: expect ERROR within 1ms\n"
            "      expected: ERROR within 1ms\n"
            "      actual:   nothing\n"
            "      checks:   RDCC-ERR-05 MUST, Error Handling and Recovery: \"Messages of an "
            "unknown Version MUST be dropped (test text).\"\n"
            "                RDCC-NOT-IN-CATALOG\n"
            "      pcap:     r/scenarios/receiver-x.pcap");
  // The clause says which part of the sentence, or which rule.
  EXPECT_EQ(
      citation("RDCC-ERR-08",
               {{"RDCC-ERR-08", "Error Handling and Recovery", "MUST NOT", "receiver", "wire",
                 "Messages with an unknown Type MUST be discarded; ... "
                 "and it MUST NOT reply otherwise.",
                 "it MUST NOT reply otherwise"}}),
      "RDCC-ERR-08 MUST NOT, Error Handling and Recovery: \"Messages with an unknown Type MUST "
      "be discarded; ... and it MUST NOT reply otherwise.\" (the part \"it MUST NOT reply "
      "otherwise\")");
  EXPECT_EQ(
      citation("RDCC-GRANT-07",
               {{"RDCC-GRANT-07", "Credit Requests and Grants", "MUST NOT", "receiver", "wire",
                 "The receiver MUST NOT grant past the length (test text).", "rule 5"}}),
      "RDCC-GRANT-07 MUST NOT, Credit Requests and Grants, rule 5: \"The receiver MUST NOT "
      "grant past the length (test text).\"");
  // A warn names its level and cites the requirement of the step that warned, not all the
  // scenario checks.
  rs[5].name = "receiver-cap";
  rs[5].reason = "ERROR arrived, not CREDIT_GRANT";
  rs[5].level = "SHOULD";
  rs[5].checks = {"RDCC-SEC-03", "RDCC-SEC-04"};
  rs[5].cited = {"RDCC-SEC-04"};
  rs[5].where = {"c.scn", 9, 1};
  rs[5].step = "expect CREDIT_GRANT checks RDCC-SEC-04";
  EXPECT_EQ(console_line(rs[5], 6, 10),
            "[ 6/10] WARN         receiver-cap: ERROR arrived, not CREDIT_GRANT [SHOULD]\n"
            "      at c.scn:9:1: expect CREDIT_GRANT checks RDCC-SEC-04\n"
            "      checks:   RDCC-SEC-04");
  // A passing verdict stays one line.
  EXPECT_EQ(console_line(rs[0], 1, 10, catalog, "r/scenarios/x.pcap").find('\n'),
            std::string::npos);
  EXPECT_EQ(xml_escape("a<b & \"c\">'"), "a&lt;b &amp; &quot;c&quot;&gt;&apos;");
}

// watch weight_share (docs/spec-notes.md 191): the lighter message's second turn while the
// heavier waits fails; turns taken in alternation, a grant while the heavier holds unsent credit,
// and grants after the heavier is granted to its end do not.
TEST(WeightShare, SecondTurnOfTheLighterWhileTheHeavierWaits_Fails) {
  WeightShare w(3, 2, 65536, 0, 0);
  EXPECT_FALSE(w.grant(2, 16384, 0));
  const auto why = w.grant(2, 32768, 0);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("granted twice (up to 16384, then 32768)"), std::string::npos) << *why;
}

TEST(WeightShare, TurnsInAlternation_Pass) {
  WeightShare w(3, 2, 65536, 0, 0);
  EXPECT_FALSE(w.grant(2, 16384, 0));
  EXPECT_FALSE(w.grant(3, 16384, 0));
  EXPECT_FALSE(w.grant(2, 32768, 16384));
  EXPECT_FALSE(w.grant(3, 32768, 16384));
  EXPECT_FALSE(w.grant(2, 49152, 32768));
  // A grant that restates a limit is no turn.
  EXPECT_FALSE(w.grant(2, 49152, 32768));
}

TEST(WeightShare, TheHeavierHoldingUnsentCredit_DoesNotWait) {
  WeightShare w(3, 2, 65536, 0, 0);
  EXPECT_FALSE(w.grant(3, 16384, 0));
  EXPECT_FALSE(w.grant(2, 16384, 0));  // message 3 holds 16384 unsent: not waiting
  EXPECT_FALSE(w.grant(2, 32768, 8192));
  EXPECT_FALSE(w.grant(2, 49152, 16384));             // its first turn while message 3 waits
  EXPECT_TRUE(w.grant(2, 65536, 16384).has_value());  // the second
}

TEST(WeightShare, TheHeavierGrantedToItsEnd_NoLongerWaits) {
  WeightShare w(3, 2, 16384, 0, 0);
  EXPECT_FALSE(w.grant(3, 16384, 0));
  EXPECT_FALSE(w.grant(2, 16384, 16384));
  EXPECT_FALSE(w.grant(2, 32768, 16384));
}

}  // namespace
}  // namespace rdcc::conformance
