// The scenario parser: what it accepts, and every error with file:line:column and what was
// expected there.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "rdcc/conformance/scenario.hpp"

namespace rdcc::conformance {
namespace {

const std::string kHead =
    "scenario s1\n"
    "role receiver\n"
    "checks RDCC-ASSOC-01\n";

Scenario parse_ok(const std::string& text) {
  auto r = parse_scenario(text, "t.scn", {});
  if (auto* e = std::get_if<ParseError>(&r)) {
    ADD_FAILURE() << e->describe();
    return {};
  }
  return std::get<Scenario>(r);
}

// The error text for `text`, "" if it parsed.
std::string error_of(const std::string& text, const KnownId& known = {}) {
  auto r = parse_scenario(text, "t.scn", known);
  if (auto* e = std::get_if<ParseError>(&r)) return e->describe();
  return "";
}

TEST(Parser, StepAnnotation_NamesTheRequirementsOfThatStep) {
  const auto s = parse_ok(
      "scenario s1\nrole receiver\nchecks RDCC-SEC-03 RDCC-SEC-04\n"
      "send ASSOC_REQUEST sender_nonce=0x11\n"
      "expect ASSOC_ACCEPT within 1ms -> a=association_id checks RDCC-SEC-03\n"
      "expect one of within 1ms checks RDCC-SEC-04\n"
      "  | ERROR reason=ASSOC_REFUSED\n"
      "  | silence\n"
      "silence 2ms checks RDCC-SEC-03 RDCC-SEC-04\n"
      "watch pacing_sum<=100 checks RDCC-SEC-04\n");
  ASSERT_EQ(s.steps.size(), 5U);
  EXPECT_TRUE(s.steps[0].checks.empty());
  EXPECT_EQ(s.steps[1].checks, (std::vector<std::string>{"RDCC-SEC-03"}));
  ASSERT_EQ(s.steps[1].alternatives.size(), 1U);
  ASSERT_EQ(s.steps[1].alternatives[0].captures.size(), 1U);  // the annotation is not a capture
  EXPECT_EQ(s.steps[2].checks, (std::vector<std::string>{"RDCC-SEC-04"}));
  EXPECT_EQ(s.steps[2].alternatives.size(), 2U);
  EXPECT_EQ(s.steps[3].checks, (std::vector<std::string>{"RDCC-SEC-03", "RDCC-SEC-04"}));
  EXPECT_EQ(s.steps[4].checks, (std::vector<std::string>{"RDCC-SEC-04"}));
  EXPECT_EQ(s.steps[4].checks_where.to_string(), "t.scn:10:23");
}

TEST(Parser, SetAndDeclinedAlternative) {
  const auto s = parse_ok(kHead +
                          "set a3=0 e3=$a3+1\n"
                          "expect one of within 1ms\n"
                          "  | CREDIT_GRANT message_id=1\n"
                          "  | unsupported ERROR reason=UNSUPPORTED_BINDING message_id=1\n");
  ASSERT_EQ(s.steps.size(), 2U);
  EXPECT_EQ(s.steps[0].kind, Step::Kind::Set);
  ASSERT_EQ(s.steps[0].pattern.matchers.size(), 2U);
  EXPECT_EQ(s.steps[0].pattern.matchers[1].value.to_string(), "$a3+1");
  ASSERT_EQ(s.steps[1].alternatives.size(), 2U);
  EXPECT_FALSE(s.steps[1].alternatives[0].declines);
  EXPECT_TRUE(s.steps[1].alternatives[1].declines);
  EXPECT_EQ(s.steps[1].alternatives[1].type, MessageType::Error);
}

TEST(Parser, WaitForAVariable_TakesItsUnit) {
  const auto s = parse_ok(kHead + "set life=250\nwait $life+50 us\nwait $life ms\nwait 2ms\n");
  ASSERT_EQ(s.steps.size(), 4U);
  EXPECT_EQ(s.steps[1].kind, Step::Kind::Wait);
  ASSERT_EQ(s.steps[1].pattern.matchers.size(), 1U);
  EXPECT_EQ(s.steps[1].pattern.matchers[0].value.to_string(), "$life+50");
  EXPECT_EQ(s.steps[1].within, ref::microseconds(1));
  EXPECT_EQ(s.steps[2].within, ref::milliseconds(1));
  EXPECT_TRUE(s.steps[3].pattern.matchers.empty());
  EXPECT_EQ(s.steps[3].within, ref::milliseconds(2));
}

TEST(Parser, StepAnnotation_UnknownId_IsAnErrorAtItsColumn) {
  const KnownId known = [](std::string_view id) { return id == "RDCC-SEC-03"; };
  EXPECT_EQ(error_of("scenario s1\nrole receiver\nchecks RDCC-SEC-03\n"
                     "silence 1ms checks RDCC-SEC-03 RDCC-SEC-09\n",
                     known),
            "t.scn:4:32: unknown requirement ID 'RDCC-SEC-09' (not in the catalog)");
  EXPECT_EQ(
      error_of("scenario s1\nrole receiver\nchecks RDCC-SEC-03 RDCC-SEC-09\nsilence 1ms\n", known),
      "t.scn:3:20: unknown requirement ID 'RDCC-SEC-09' (not in the catalog)");
}

TEST(Parser, FullScenario_AllStepKinds) {
  const auto s = parse_ok(
      kHead +
      "tags assoc grant\n"
      "description \"a # not a comment\"\n"
      "config budget=65536 capabilities=POOL|STATUS\n"
      "# a comment\n"
      "\n"
      "send ASSOC_REQUEST sender_nonce=0x11 capabilities=POOL|STATUS\n"
      "expect ASSOC_ACCEPT after 1us within 5ms association_id!=0 -> a=association_id e=epoch\n"
      "defaults association_id=$a epoch=$e\n"
      "send CREDIT_REQUEST message_id=1 message_length=8192 binding_kind=OPAQUE\n"
      "expect one of within 2ms\n"
      "  | CREDIT_GRANT grant_limit<=$a+4096 flags&FINAL\n"
      "  | ERROR reason=BUDGET_EXHAUSTED\n"
      "  | silence\n"
      "send raw 10 0b 00 10  # trailing comment\n"
      "send data message=1 offset=0 length=4096 last=1\n"
      "expect data within 1ms message=1 offset<8192\n"
      "ignore SENDER_STATUS data\n"
      "silence 2ms\n"
      "wait 100us\n");
  EXPECT_EQ(s.name, "s1");
  EXPECT_EQ(s.role, Role::Receiver);
  ASSERT_EQ(s.tags.size(), 2U);
  EXPECT_EQ(s.description, "a # not a comment");
  EXPECT_EQ(s.config.at("budget"), 65536U);
  EXPECT_EQ(s.config.at("capabilities"), 3U);
  ASSERT_EQ(s.steps.size(), 11U);
  EXPECT_EQ(s.steps[0].kind, Step::Kind::Send);
  EXPECT_EQ(s.steps[0].pattern.type, MessageType::AssocRequest);
  const Step& e = s.steps[1];
  EXPECT_EQ(e.kind, Step::Kind::Expect);
  EXPECT_EQ(e.within, ref::milliseconds(5));
  EXPECT_EQ(e.after, ref::microseconds(1));
  ASSERT_EQ(e.alternatives.size(), 1U);
  EXPECT_EQ(e.alternatives[0].matchers[0].op, Op::Ne);
  ASSERT_EQ(e.alternatives[0].captures.size(), 2U);
  EXPECT_EQ(e.alternatives[0].captures[1].variable, "e");
  const Step& one_of = s.steps[4];
  ASSERT_EQ(one_of.alternatives.size(), 3U);
  EXPECT_EQ(one_of.alternatives[0].matchers[0].value.kind, Value::Kind::Variable);
  EXPECT_EQ(one_of.alternatives[0].matchers[0].value.offset, 4096);
  EXPECT_EQ(one_of.alternatives[0].matchers[1].op, Op::AllBits);
  EXPECT_TRUE(one_of.alternatives[2].silence);
  EXPECT_EQ(s.steps[5].raw.size(), 4U);
  EXPECT_EQ(s.steps[6].kind, Step::Kind::SendData);
  EXPECT_TRUE(s.steps[7].alternatives[0].data);
  EXPECT_EQ(s.steps[8].ignore.size(), 2U);
  EXPECT_EQ(s.steps[10].within, ref::microseconds(100));
}

TEST(Parser, ExpectWithoutWithin_HasTheDefaultWindow) {
  const auto s = parse_ok(kHead + "expect ERROR reason=UNKNOWN_ASSOCIATION\n");
  EXPECT_EQ(s.steps[0].within, kDefaultWindow);
}

TEST(Parser, AfterEqualToBy_IsAnExactStatedTime) {
  // "starting at 1 ms and doubling": the packet is due at 1 ms, neither before nor after.
  const auto s = parse_ok(kHead + "expect ERROR after 1ms by 1ms\n");
  EXPECT_TRUE(s.steps[0].bound);
  EXPECT_EQ(s.steps[0].after, ref::milliseconds(1));
  EXPECT_EQ(s.steps[0].within, ref::milliseconds(1));
}

TEST(Parser, GapUs_IsMatchedAndCapturedOnAnExpect) {
  const auto s = parse_ok(kHead +
                          "expect ERROR within 1ms\n"
                          "expect ERROR within 1ms gap_us>0 -> g=gap_us\n");
  ASSERT_EQ(s.steps[1].alternatives.front().matchers.size(), 1U);
  EXPECT_EQ(s.steps[1].alternatives.front().matchers[0].field, "gap_us");
  EXPECT_EQ(s.steps[1].alternatives.front().captures[0].field, "gap_us");
}

// "doubling on each retransmission": a gap compared with a multiple of the one before.
TEST(Parser, VariableArithmetic_MultipliesDividesThenAdds) {
  const auto s = parse_ok(kHead +
                          "expect ERROR within 1ms -> g=gap_us\n"
                          "expect ERROR within 1ms gap_us>$g*3/2-5 gap_us<$g*5/2\n");
  const auto& m = s.steps[1].alternatives.front().matchers;
  ASSERT_EQ(m.size(), 2U);
  EXPECT_EQ(m[0].value.multiply, 3U);
  EXPECT_EQ(m[0].value.divide, 2U);
  EXPECT_EQ(m[0].value.offset, -5);
  EXPECT_EQ(m[0].value.to_string(), "$g*3/2-5");
  EXPECT_EQ(m[1].value.divide, 2U);
  EXPECT_EQ(m[1].value.to_string(), "$g*5/2");
  // An offset keeps its whole range; only the factors are bounded.
  const auto big = parse_ok(kHead + "send ERROR message_id=$a+3000000000\n");
  EXPECT_EQ(big.steps[0].pattern.matchers[0].value.offset, 3000000000);
}

TEST(Parser, Transfer_CapturesItsLongestStall) {
  const auto s =
      parse_ok(kHead + "transfer message_id=1 message=1 length=4096 gap_us=10 -> s=stalled_us\n");
  ASSERT_EQ(s.steps[0].pattern.captures.size(), 1U);
  EXPECT_EQ(s.steps[0].pattern.captures[0].variable, "s");
  EXPECT_EQ(s.steps[0].pattern.captures[0].field, "stalled_us");
}

TEST(Parser, Seen_IsAnExpectOverTheWholeScenario) {
  const auto s =
      parse_ok(kHead + "seen ERROR by 2ms reason=UNKNOWN_ASSOCIATION -> a=association_id\n");
  EXPECT_EQ(s.steps[0].kind, Step::Kind::Expect);
  EXPECT_TRUE(s.steps[0].seen);
  EXPECT_TRUE(s.steps[0].bound);
  EXPECT_EQ(s.steps[0].within, ref::milliseconds(2));
  EXPECT_EQ(s.steps[0].alternatives.size(), 1U);
  EXPECT_FALSE(parse_ok(kHead + "expect ERROR within 1ms\n").steps[0].seen);
}

TEST(Parser, UpperAndQueue_ForTheirRoles) {
  const auto s = parse_ok(
      "scenario s\nrole sender\nchecks RDCC-MODE-02\n"
      "upper submit length=4096 class=2 service_hint=LATENCY_SENSITIVE -> h=handle\n"
      "upper cancel handle=$h\n");
  EXPECT_EQ(s.steps[0].upper_op, "submit");
  EXPECT_EQ(s.steps[0].pattern.captures[0].field, "handle");
  const auto c = parse_ok(
      "scenario c\nrole crn\nchecks RDCC-CRN-03\n"
      "queue port=1 occupancy=100000 source=10.0.0.5:40000 destination=10.0.0.9:4791\n");
  EXPECT_EQ(c.steps[0].kind, Step::Kind::Queue);
}

TEST(Parser, SendRocev2_TakesQueuePairPsnLengthAndOpcode) {
  const auto s =
      parse_ok(kHead +
               "send rocev2 qp=0x123 psn=100 opcode=RDMA_WRITE_FIRST length=2048 dma_length=4096\n"
               "send rocev2 qp=$qp length=4096 opcode=10 ce=1 dscp=26\n");
  ASSERT_EQ(s.steps.size(), 2U);
  EXPECT_EQ(s.steps[0].kind, Step::Kind::SendRocev2);
  ASSERT_EQ(s.steps[0].pattern.matchers.size(), 5U);
  EXPECT_EQ(s.steps[0].pattern.matchers[4].field, "dma_length");
  EXPECT_EQ(s.steps[0].pattern.matchers[0].value.number, 0x123U);
  EXPECT_EQ(s.steps[0].pattern.matchers[2].value.names[0], "RDMA_WRITE_FIRST");
  EXPECT_EQ(s.steps[1].pattern.matchers[0].value.kind, Value::Kind::Variable);
  EXPECT_EQ(rocev2_opcode("RDMA_WRITE_ONLY"), std::uint8_t{0x0A});
  EXPECT_FALSE(rocev2_opcode("RDMA_READ"));
}

struct ErrorCase {
  const char* name;
  std::string text;
  std::string error;  // the whole describe() text
};

class ParserErrors : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(ParserErrors, NameFileLineColumnAndWhatWasExpected) {
  EXPECT_EQ(error_of(GetParam().text), GetParam().error);
}

INSTANTIATE_TEST_SUITE_P(
    All, ParserErrors,
    ::testing::Values(
        ErrorCase{
            "UnknownKeyword", kHead + "sned ERROR\n",
            "t.scn:4:1: expected a step (send, expect, seen, silence, ignore, defaults, upper, "
            "queue, wait, watch, set, transfer, spread) or a header item (scenario, role, checks, "
            "tags, description, config), found 'sned'"},
        ErrorCase{"UnknownType", kHead + "send CREDIT_GRUNT message_id=1\n",
                  "t.scn:4:6: expected a message type (ASSOC_REQUEST, ASSOC_ACCEPT, "
                  "CREDIT_REQUEST, CREDIT_GRANT, SENDER_STATUS, CONGESTION_REPORT, MSG_DONE, "
                  "CANCEL, CREDIT_RETURN, ERROR), found 'CREDIT_GRUNT'"},
        ErrorCase{"UnknownField", kHead + "send ERROR reason=NO_ERROR mesage_id=1\n",
                  "t.scn:4:28: unknown field 'mesage_id' of ERROR (known: version, rsv, length, "
                  "association_id, epoch, flags, sequence_number, reason, reserved, message_id)"},
        ErrorCase{"UnknownName", kHead + "expect ERROR reason=UNKNOWN_ASSOC\n",
                  "t.scn:4:21: unknown name 'UNKNOWN_ASSOC' for field 'reason' (known: NO_ERROR, "
                  "ASSOC_REFUSED, UNKNOWN_ASSOCIATION, BUDGET_EXHAUSTED, UNSUPPORTED_TYPE, "
                  "MESSAGE_TOO_LARGE, APPLICATION_ABORT, UNSUPPORTED_BINDING)"},
        ErrorCase{"UnknownFlag", kHead + "expect CREDIT_GRANT flags&FINALE\n",
                  "t.scn:4:27: unknown name 'FINALE' for field 'flags' (known: POOL, FINAL)"},
        ErrorCase{"NamesListOnEnum", kHead + "expect ERROR reason=NO_ERROR|ASSOC_REFUSED\n",
                  "t.scn:4:21: field 'reason' takes one name, not a '|' list"},
        ErrorCase{"MissingOperator", kHead + "expect ERROR reason\n",
                  "t.scn:4:20: expected an operator (=, !=, <, <=, >, >=, &, !&) after 'reason'"},
        ErrorCase{"MatcherInSend", kHead + "send ERROR message_id<3\n",
                  "t.scn:4:22: expected '=' after 'message_id' (a send assigns values; matchers "
                  "belong to expect)"},
        ErrorCase{"BadNumber", kHead + "send ERROR message_id=12x\n",
                  "t.scn:4:23: expected a number (decimal or 0x hex), not '12x'"},
        ErrorCase{"BadVariable", kHead + "send ERROR message_id=$a%2\n",
                  "t.scn:4:23: expected '*', '/', '+' or '-' (in that order) after $a"},
        ErrorCase{"TransferCapturesOnlyItsStall",
                  kHead + "transfer message_id=1 message=1 length=4096 -> g=gap_us\n",
                  "t.scn:4:48: a transfer captures only stalled_us, not 'gap_us'"},
        ErrorCase{"VariableOpsOutOfOrder", kHead + "send ERROR message_id=$a+1*2\n",
                  "t.scn:4:23: expected '*', '/', '+' or '-' (in that order) after $a"},
        ErrorCase{"VariableDividedByZero", kHead + "send ERROR message_id=$a/0\n",
                  "t.scn:4:23: expected a number after '/' (1 to 2147483647)"},
        ErrorCase{"BadDuration", kHead + "silence 2 ms\n",
                  "t.scn:4:11: expected one duration (e.g. 2ms, 500us)"},
        ErrorCase{"BadDurationUnit", kHead + "wait 2min\n",
                  "t.scn:4:6: expected a duration such as 2ms, 500us, 1s or 100ns, found '2min'"},
        ErrorCase{"WithinWithoutDuration", kHead + "expect ERROR within\n",
                  "t.scn:4:20: expected a duration after 'within'"},
        ErrorCase{"AfterNotBeforeWithin", kHead + "expect ERROR after 2ms within 1ms\n",
                  "t.scn:4:8: 'after' must be shorter than 'within' (or at most 'by')"},
        ErrorCase{"AfterEqualToWithin", kHead + "expect ERROR after 1ms within 1ms\n",
                  "t.scn:4:8: 'after' must be shorter than 'within' (or at most 'by')"},
        ErrorCase{"AfterPastBy", kHead + "expect ERROR after 2ms by 1ms\n",
                  "t.scn:4:8: 'after' must be shorter than 'within' (or at most 'by')"},
        ErrorCase{"GapUsSent", kHead + "send ERROR gap_us=3\n",
                  "t.scn:4:12: 'gap_us' is measured on an expect, not sent"},
        ErrorCase{"OneAlternative", kHead + "expect one of\n  | ERROR\nsilence 1ms\n",
                  "t.scn:4:1: expected two or more '| ...' alternatives on the lines after "
                  "'expect one of'"},
        ErrorCase{"OneOfAtEnd", kHead + "expect one of\n",
                  "t.scn:4:1: expected two or more '| ...' alternatives on the lines after "
                  "'expect one of'"},
        ErrorCase{"StrayAlternative", kHead + "| ERROR\n",
                  "t.scn:4:1: '|' alternative outside 'expect one of'"},
        ErrorCase{"BadHex", kHead + "send raw 10 0g\n",
                  "t.scn:4:14: expected hex octets: 'g' is not a hex digit"},
        ErrorCase{"RawFieldTooWide", kHead + "send raw 10 0b $a:9\n",
                  "t.scn:4:16: expected $name:N with N octets from 1 to 8, found '$a:9'"},
        ErrorCase{"AddressNotIpPort", kHead + "expect ERROR to=somewhere\n",
                  "t.scn:4:17: 'to' takes IP:PORT (10.0.0.3:50000, [2001:db8::3]:50000), not "
                  "'somewhere'"},
        ErrorCase{"ToOnASend", kHead + "send ERROR to=10.0.0.1:5\n",
                  "t.scn:4:12: a send goes to the IUT: 'to=' belongs to expect"},
        ErrorCase{"UnknownDataField", kHead + "send data message=1 length=4 offfset=0\n",
                  "t.scn:4:30: unknown data field 'offfset' (known: message, offset, length, "
                  "last, unscheduled, ce, dscp, end, source_port)"},
        ErrorCase{"DataEndOnASend", kHead + "send data message=1 length=4 end=4\n",
                  "t.scn:4:30: data field 'end' is offset + length: an expect or ignore matches "
                  "it, send data gives offset and length"},
        ErrorCase{"DataSourcePortOnASend", kHead + "send data message=1 length=4 source_port=9\n",
                  "t.scn:4:30: data field 'source_port' is the port a packet left the IUT from: "
                  "an expect or ignore matches it, send data goes from the tester's data port"},
        ErrorCase{"RequireWithoutReason", kHead + "require us=4096\n",
                  "t.scn:4:9: expected require VAR OP VALUE ... \"reason\" (the reason quoted, "
                  "last)"},
        ErrorCase{"RequireWithAName", kHead + "require caps&STATUS \"why\"\n",
                  "t.scn:4:14: require compares with a number or $variable"},
        ErrorCase{"DataWithoutLength", kHead + "send data message=1\n",
                  "t.scn:4:20: expected length=... in send data"},
        ErrorCase{"UnknownRocev2Field", kHead + "send rocev2 qp=1 length=4 opcod=6\n",
                  "t.scn:4:27: unknown rocev2 field 'opcod' (known: qp, psn, length, dma_length, "
                  "opcode, ce, dscp, unscheduled)"},
        ErrorCase{
            "Rocev2FirstWithoutDmaLength",
            kHead + "send rocev2 qp=1 length=4 opcode=RDMA_WRITE_FIRST\n",
            "t.scn:4:50: expected dma_length=... (the length of the whole RDMA WRITE, for its "
            "RETH) in send rocev2 opcode=RDMA_WRITE_FIRST"},
        ErrorCase{"Rocev2LastWithDmaLength",
                  kHead + "send rocev2 qp=1 length=4 opcode=RDMA_WRITE_LAST dma_length=8\n",
                  "t.scn:4:50: dma_length belongs to RDMA_WRITE_FIRST and RDMA_WRITE_ONLY (their "
                  "RETH); RDMA_WRITE_LAST has none"},
        ErrorCase{"Rocev2WithoutLength", kHead + "send rocev2 qp=1\n",
                  "t.scn:4:17: expected length=... in send rocev2"},
        ErrorCase{"UnknownRocev2Opcode", kHead + "send rocev2 qp=1 length=4 opcode=RDMA_READ\n",
                  "t.scn:4:34: unknown opcode 'RDMA_READ' (known: RDMA_WRITE_FIRST, "
                  "RDMA_WRITE_MIDDLE, RDMA_WRITE_LAST, RDMA_WRITE_ONLY, or a number)"},
        ErrorCase{"Rocev2ToASender",
                  "scenario s\nrole sender\nchecks RDCC-MODE-02\nsend rocev2 qp=1 length=4\n",
                  "t.scn:4:6: send rocev2 needs a receiver IUT (role receiver)"},
        ErrorCase{"BadCapture", kHead + "expect ERROR -> x\n",
                  "t.scn:4:17: expected a capture name=field, found 'x'"},
        ErrorCase{"CaptureUnknownField", kHead + "expect ERROR -> x=grant_limit\n",
                  "t.scn:4:19: unknown field 'grant_limit' to capture (known: version, rsv, "
                  "length, association_id, epoch, flags, sequence_number, reason, reserved, "
                  "message_id)"},
        ErrorCase{"UnclosedQuote", "scenario s\ndescription \"abc\n",
                  "t.scn:2:13: expected a closing '\"'"},
        ErrorCase{"BadRole", "scenario s\nrole switch\n",
                  "t.scn:2:6: expected a role (receiver, sender, crn), found 'switch'"},
        ErrorCase{"BadId", "scenario s\nrole receiver\nchecks ASSOC-1\n",
                  "t.scn:3:8: expected a requirement ID of the form RDCC-<AREA>-<NN>, found "
                  "'ASSOC-1'"},
        ErrorCase{"StepBeforeHeader", "send ERROR\n",
                  "t.scn:1:1: expected 'scenario NAME' and 'role ...' before the first step, "
                  "found 'send'"},
        ErrorCase{"NoChecks", "scenario s\nrole receiver\nwait 1ms\n",
                  "t.scn:4:1: expected a 'checks RDCC-...' line naming the requirements"},
        ErrorCase{"NoSteps", kHead, "t.scn:4:1: expected at least one step"},
        ErrorCase{"NoScenario", "", "t.scn:1:1: expected a 'scenario NAME' line"},
        ErrorCase{"UnknownConfig", kHead + "config budgett=1\n",
                  "t.scn:4:8: unknown config key 'budgett' for role receiver (known: seed, "
                  "epoch, budget, unscheduled_budget, link_capacity_mbps, unscheduled_limit, "
                  "start_jitter_us, backlog_threshold, grant_lifetime_us, credit_unit, d_max_us, "
                  "base_rtt_us, rtt_target_us, grant_window, max_associations, "
                  "max_associations_per_host, max_pending_per_association, "
                  "max_credit_per_association, max_message_length, "
                  "idle_timeout_ms, capabilities, opaque_binding, rocev2_binding, control_dscp, "
                  "loss_threshold_ppm, loss_window_ms)"},
        // The range comes from the configuration's one description (config_schema.hpp).
        ErrorCase{"ConfigOutOfRange", kHead + "config credit_unit=0\n",
                  "t.scn:4:20: config key 'credit_unit': 0 is outside 1..65507"},
        ErrorCase{"ConfigBoolOutOfRange", kHead + "config budget=1 rocev2_binding=2\n",
                  "t.scn:4:32: config key 'rocev2_binding': 2 is outside 0..1"},
        ErrorCase{"ConfigUnknownCapability", kHead + "config capabilities=POOL|FAST\n",
                  "t.scn:4:21: config key 'capabilities': 'FAST' is not one of POOL, STATUS, "
                  "CRN"},
        ErrorCase{"UpperOnReceiver", kHead + "upper submit length=1\n",
                  "t.scn:4:7: upper submit needs a sender IUT (role sender)"},
        ErrorCase{
            "UnknownUpperKey",
            "scenario s\nrole sender\nchecks RDCC-MODE-02\nupper submit lenght=1\n",
            "t.scn:4:14: unknown key 'lenght' for upper submit (known: length, class, "
            "weight, service_hint, deadline_us, binding, binding_value, force_scheduled, mode)"},
        ErrorCase{
            "BadSubmitMode",
            "scenario s\nrole sender\nchecks RDCC-MODE-02\nupper submit length=1 mode=eager\n",
            "t.scn:4:28: expected mode=scheduled or mode=unscheduled"},
        ErrorCase{"SetBuiltin", kHead + "set tester_port=1\n",
                  "t.scn:4:5: $tester_port is a built-in variable; set another name"},
        ErrorCase{"SetName", kHead + "set a=POOL\n",
                  "t.scn:4:7: expected a number or $variable for 'a'"},
        ErrorCase{"DeclineWithoutPattern", kHead + "expect one of\n  | unsupported\n  | silence\n",
                  "t.scn:5:16: expected the pattern the IUT declines with"},
        ErrorCase{"AnnotationOnSend", kHead + "send ERROR reason=NO_ERROR checks RDCC-ASSOC-01\n",
                  "t.scn:4:28: a 'checks' annotation belongs on a step that can fail (expect, "
                  "seen, silence, watch, spread), not on 'send'"},
        ErrorCase{"SeenOneOf", kHead + "seen one of\n  | ERROR\n",
                  "t.scn:4:6: 'seen' takes one pattern, not 'one of'"},
        ErrorCase{"SeenAfter", kHead + "seen ERROR after 1ms by 2ms\n",
                  "t.scn:4:12: 'seen' takes no 'after' (the packet may have come at any time)"},
        ErrorCase{"AnnotationWithoutIds", kHead + "expect ERROR within 1ms checks\n",
                  "t.scn:4:25: expected one or more requirement IDs after 'checks'"},
        ErrorCase{"AnnotationBadId", kHead + "silence 1ms checks RDCC-ASSOC-1\n",
                  "t.scn:4:20: expected a requirement ID of the form RDCC-<AREA>-<NN>, found "
                  "'RDCC-ASSOC-1'"},
        ErrorCase{"AnnotationNotInHeader", kHead + "silence 1ms checks RDCC-ASSOC-02\n",
                  "t.scn:4:13: 'RDCC-ASSOC-02' is not on the scenario's 'checks' line "
                  "(RDCC-ASSOC-01)"},
        ErrorCase{"QueueOnReceiver", kHead + "queue occupancy=1\n",
                  "t.scn:4:1: 'queue' needs a CRN IUT (role crn)"},
        ErrorCase{"DefaultsOtherField", kHead + "defaults flags=1\n",
                  "t.scn:4:10: defaults sets association_id and epoch only, not 'flags'"},
        ErrorCase{"IgnoreUnknown", kHead + "ignore GRANT\n",
                  "t.scn:4:8: expected a message type (ASSOC_REQUEST, ASSOC_ACCEPT, "
                  "CREDIT_REQUEST, CREDIT_GRANT, SENDER_STATUS, CONGESTION_REPORT, MSG_DONE, "
                  "CANCEL, CREDIT_RETURN, ERROR), 'data', 'none' or a field matcher after a "
                  "type, found 'GRANT'"},
        ErrorCase{"IgnoreUnknownField", kHead + "ignore CREDIT_GRANT colour=1\n",
                  "t.scn:4:21: unknown field 'colour' of CREDIT_GRANT (known: version, rsv, "
                  "length, association_id, epoch, flags, sequence_number, message_id, "
                  "grant_limit, pacing_rate, lifetime)"},
        ErrorCase{"IgnoreMatcherFirst", kHead + "ignore message_id=1\n",
                  "t.scn:4:8: expected a message type (ASSOC_REQUEST, ASSOC_ACCEPT, "
                  "CREDIT_REQUEST, CREDIT_GRANT, SENDER_STATUS, CONGESTION_REPORT, MSG_DONE, "
                  "CANCEL, CREDIT_RETURN, ERROR), 'data', 'none' or a field matcher after a "
                  "type, found 'message_id=1'"},
        ErrorCase{"AddressVariableInNumberField",
                  kHead + "send CREDIT_REQUEST message_id=$tester\n",
                  "t.scn:4:32: field 'message_id' cannot take $tester (not a number)"},
        ErrorCase{"PortVariableAsAddress", kHead + "expect ERROR to=$tester_port\n",
                  "t.scn:4:17: 'to' takes IP:PORT or an address variable ($tester, $iut, "
                  "$other, ...), not '$tester_port'"},
        ErrorCase{"AddressVariableInIpField",
                  kHead + "send CONGESTION_REPORT source_address=$tester\n",
                  "t.scn:4:39: field 'source_address' cannot take $tester (an address field "
                  "takes an IP variable such as $tester_ip)"},
        ErrorCase{"CaptureIntoBuiltin", kHead + "expect ERROR -> tester=reason\n",
                  "t.scn:4:17: $tester is a built-in variable; capture into another name"},
        ErrorCase{"WatchOther", kHead + "watch pacing_rate<=5\n",
                  "t.scn:4:7: expected pacing_sum<=N or pacing_sum<N (N in Mbit/s), or "
                  "unscheduled_sum<=N or unscheduled_sum<N (N in octets); N a number or $variable; "
                  "found 'pacing_rate<=5'"},
        ErrorCase{"WithinUOnAnExpect", kHead + "expect CREDIT_GRANT within_u=1\n",
                  "t.scn:4:21: 'within_u' belongs to send CREDIT_REQUEST and send data only"},
        ErrorCase{"WithinUOnAGrant", kHead + "send CREDIT_GRANT message_id=1 within_u=1\n",
                  "t.scn:4:32: 'within_u' belongs to send CREDIT_REQUEST and send data only"},
        ErrorCase{"WithinUTwo", kHead + "send data message=1 offset=0 length=1 within_u=2\n",
                  "t.scn:4:39: 'within_u' takes only =1"},
        ErrorCase{"SpreadFewSamples", kHead + "spread $a $b $c over 1ms\n",
                  "t.scn:4:17: expected at least 8 samples (fewer prove nothing: all of N uniform "
                  "draws fall in one quarter with probability 4^-N), found 3"},
        ErrorCase{"SpreadNotAVariable", kHead + "spread $a b $c $d $e $f $g $h over 1ms\n",
                  "t.scn:4:11: expected a $variable holding a sample, found 'b'"},
        ErrorCase{"SpreadWithoutOver", kHead + "spread $a $b $c $d $e $f $g $h\n",
                  "t.scn:4:29: expected spread $VAR ... over DURATION (the samples, then the D of "
                  "[0, D] they are drawn from)"},
        ErrorCase{"SpreadBadDuration", kHead + "spread $a $b $c $d $e $f $g $h over soon\n",
                  "t.scn:4:37: expected a duration such as 100ms, found 'soon'"},
        ErrorCase{"CaptureUnknownDataField", kHead + "expect data -> d=since_send_us\n",
                  "t.scn:4:18: unknown field 'since_send_us' to capture (known: message, offset, "
                  "length, last, unscheduled, ce, dscp, end, source_port)"},
        ErrorCase{"TransferWithoutLength", kHead + "transfer message_id=1 message=1\n",
                  "t.scn:4:1: transfer needs length="},
        ErrorCase{"WaitVariableWithoutUnit", kHead + "wait $life s\n",
                  "t.scn:4:12: expected the unit of $life (us or ms), found 's'"},
        ErrorCase{"WaitVariableBadName", kHead + "wait $ us\n",
                  "t.scn:4:6: expected a variable name after '$'"},
        ErrorCase{"TransferUnknownField",
                  kHead + "transfer message_id=1 message=1 length=8 flags=1\n",
                  "t.scn:4:42: transfer takes message_id=, message=, length=, offset=, segment=, "
                  "ce=, gap_us=, report=, overrun= and with=, not 'flags'"},
        ErrorCase{"TransferWithAndOverrun",
                  kHead + "transfer message_id=1 message=1 length=8 with=2 overrun=1\n",
                  "t.scn:4:1: a transfer with= plays two conforming senders' messages: no "
                  "overrun="},
        ErrorCase{"WatchWeightShareOneMessage", kHead + "watch weight_share heavier=3\n",
                  "t.scn:4:20: expected watch weight_share heavier=ID lighter=ID"},
        ErrorCase{"WatchWeightShareOtherField", kHead + "watch weight_share heavier=3 weight=2\n",
                  "t.scn:4:30: expected watch weight_share heavier=ID lighter=ID (message IDs: "
                  "numbers or $variables); found 'weight=2'"},
        ErrorCase{"WatchWeightShareTwice", kHead + "watch weight_share lighter=3 lighter=2\n",
                  "t.scn:4:30: 'lighter' given twice"},
        ErrorCase{"TransferReportTwice",
                  kHead + "transfer message_id=1 message=1 length=8 report=1 report=1\n",
                  "t.scn:4:51: 'report' given twice"}),
    [](const ::testing::TestParamInfo<ErrorCase>& p) { return std::string(p.param.name); });

TEST(Parser, IgnoreWithFieldMatchers_AndBuiltinVariables) {
  auto r =
      parse_scenario(kHead +
                         "ignore ASSOC_ACCEPT flags&PARAMETER_UPDATE CREDIT_GRANT message_id=1 "
                         "grant_limit<=$limit data offset<4096\n"
                         "send raw from=$other 10 0b 00 10\n"
                         "expect ERROR to=$tester\n"
                         "watch pacing_sum<=100000\n",
                     "t.scn", {});
  ASSERT_TRUE(std::holds_alternative<Scenario>(r)) << std::get<ParseError>(r).describe();
  const auto& st = std::get<Scenario>(r).steps;
  ASSERT_EQ(st[0].ignore_patterns.size(), 3U);
  EXPECT_EQ(st[0].ignore_patterns[0].type, MessageType::AssocAccept);
  EXPECT_EQ(st[0].ignore_patterns[0].matchers.size(), 1U);
  EXPECT_EQ(st[0].ignore_patterns[1].matchers.size(), 2U);
  EXPECT_TRUE(st[0].ignore_patterns[2].data);
  EXPECT_EQ(st[1].pattern.matchers[0].value.kind, Value::Kind::Variable);
  EXPECT_EQ(st[3].kind, Step::Kind::Watch);
  EXPECT_NE(find_builtin("tester_data_port"), nullptr);
  EXPECT_EQ(find_builtin("nonce"), nullptr);
}

// watch weight_share and a transfer of several messages (docs/spec-notes.md 191).
TEST(Parser, WeightShareWatch_AndTransferWithOtherMessages) {
  auto r = parse_scenario(kHead +
                              "watch weight_share lighter=2 heavier=$h\n"
                              "transfer message_id=1 message=1 length=8 with=2 with=3\n",
                          "t.scn", {});
  ASSERT_TRUE(std::holds_alternative<Scenario>(r)) << std::get<ParseError>(r).describe();
  const auto& st = std::get<Scenario>(r).steps;
  ASSERT_EQ(st.size(), 2U);
  EXPECT_EQ(st[0].kind, Step::Kind::Watch);
  ASSERT_EQ(st[0].pattern.matchers.size(), 3U);
  EXPECT_EQ(st[0].pattern.matchers[0].field, "weight_share");
  EXPECT_EQ(st[0].pattern.matchers[1].field, "lighter");
  EXPECT_EQ(st[0].pattern.matchers[2].value.kind, Value::Kind::Variable);
  std::size_t with = 0;
  for (const auto& m : st[1].pattern.matchers) with += m.field == "with" ? 1U : 0U;
  EXPECT_EQ(with, 2U);
}

// spread $V... over D, and the since_submit_us capture it reads.
TEST(Parser, Spread_TakesSamplesAndTheirRange) {
  auto r = parse_scenario(kHead +
                              "expect data -> d1=since_submit_us\n"
                              "spread $d1 $d2 $d3 $d4 $d5 $d6 $d7 $d8 over 100ms checks "
                              "RDCC-ASSOC-01\n",
                          "t.scn", {});
  ASSERT_TRUE(std::holds_alternative<Scenario>(r)) << std::get<ParseError>(r).describe();
  const auto& st = std::get<Scenario>(r).steps;
  EXPECT_EQ(st[0].alternatives[0].captures[0].field, kSinceSubmitField);
  EXPECT_EQ(st[1].kind, Step::Kind::Spread);
  EXPECT_EQ(st[1].samples.size(), 8U);
  EXPECT_EQ(st[1].samples[7], "d8");
  EXPECT_EQ(st[1].within.micros(), 100000);
}

// require VAR OP VALUE ... "reason": conditions on captured variables, and why the scenario
// cannot test an IUT for which one does not hold.
TEST(Parser, Require_TakesConditionsOnVariablesAndAQuotedReason) {
  auto r = parse_scenario(kHead +
                              "require us=4096 caps&2 n<=$limit+1 \"scheduled mode\"\n"
                              "expect data end<=$limit -> e=end\n",
                          "t.scn", {});
  ASSERT_TRUE(std::holds_alternative<Scenario>(r)) << std::get<ParseError>(r).describe();
  const auto& st = std::get<Scenario>(r).steps;
  ASSERT_EQ(st[0].kind, Step::Kind::Require);
  ASSERT_EQ(st[0].pattern.matchers.size(), 3U);
  EXPECT_EQ(st[0].pattern.matchers[0].field, "us");
  EXPECT_EQ(st[0].pattern.matchers[1].op, Op::AllBits);
  EXPECT_EQ(st[0].pattern.matchers[2].value.kind, Value::Kind::Variable);
  EXPECT_EQ(st[0].reason, "scheduled mode");
  EXPECT_EQ(st[1].alternatives[0].matchers[0].field, "end");
  EXPECT_EQ(st[1].alternatives[0].captures[0].field, "end");
}

TEST(Parser, UnknownRequirementId_NamesTheId) {
  const KnownId known = [](std::string_view id) { return id == "RDCC-ASSOC-01"; };
  EXPECT_EQ(
      error_of("scenario s\nrole receiver\nchecks RDCC-ASSOC-01 RDCC-ASSOC-99\nwait 1ms\n", known),
      "t.scn:3:22: unknown requirement ID 'RDCC-ASSOC-99' (not in the catalog)");
  EXPECT_EQ(error_of("scenario s\nrole receiver\nchecks RDCC-ASSOC-01\nwait 1ms\n", known), "");
}

TEST(Parser, UnreadableFile_IsAnErrorNamingIt) {
  auto r = load_scenario("/nonexistent/x.scn", {});
  ASSERT_TRUE(std::holds_alternative<ParseError>(r));
  EXPECT_EQ(std::get<ParseError>(r).describe(), "/nonexistent/x.scn:0:0: cannot read the file");
}

TEST(Parser, Durations) {
  EXPECT_EQ(parse_duration("100ns"), ref::nanoseconds(100));
  EXPECT_EQ(parse_duration("500us"), ref::microseconds(500));
  EXPECT_EQ(parse_duration("2ms"), ref::milliseconds(2));
  EXPECT_EQ(parse_duration("1s"), ref::seconds(1));
  EXPECT_FALSE(parse_duration("ms"));
  EXPECT_FALSE(parse_duration("1h"));
  EXPECT_FALSE(parse_duration("99999999999999999999s"));
}

// docs/scenario-language.md ("The reference IUT") lists each role's `config` keys: exactly
// config_keys(role), the configuration's one description.
TEST(Parser, Document_ListsEachRolesConfigKeys) {
  std::ifstream in(RDCC_SOURCE_DIR "/docs/scenario-language.md");
  ASSERT_TRUE(in);
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  for (const Role role : {Role::Receiver, Role::Sender, Role::Crn}) {
    const std::string head = "- " + std::string(to_string(role)) + ": `";
    const auto at = doc.find(head);
    ASSERT_NE(at, std::string::npos) << head;
    const auto end = doc.find('`', at + head.size());
    std::istringstream words(doc.substr(at + head.size(), end - at - head.size()));
    std::vector<std::string> listed;
    for (std::string w; words >> w;) listed.push_back(w);
    EXPECT_EQ(listed, config_keys(role)) << to_string(role);
  }
}

}  // namespace
}  // namespace rdcc::conformance
