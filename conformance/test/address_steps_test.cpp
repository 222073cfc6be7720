// The language's packet addresses and raw variables on real runs of the reference receiver:
// send ... from=IP:PORT, expect ... to=IP:PORT, and $name:N in send raw.
#include <gtest/gtest.h>

#include "rdcc/conformance/suite.hpp"

namespace rdcc::conformance {
namespace {

const char* kPrologue = R"(scenario t
role receiver
checks RDCC-ALLOC-04
send ASSOC_REQUEST sender_nonce=0x77 capabilities=STATUS line_rate=100000
expect ASSOC_ACCEPT within 1ms -> assoc=association_id epoch=epoch
defaults association_id=$assoc epoch=$epoch
)";

std::variant<Scenario, ParseError> parse(const std::string& steps) {
  return parse_scenario(std::string(kPrologue) + steps, "t.scn", {});
}

ScenarioResult run(const std::string& steps) {
  auto s = parse(steps);
  if (auto* e = std::get_if<ParseError>(&s)) {
    ADD_FAILURE() << e->describe();
    return {};
  }
  SuiteOptions o;
  o.adapter = std::get<AdapterSpec>(parse_adapter_spec("reference:receiver"));
  return run_one(std::get<Scenario>(s), o);
}

// The reference answers a CREDIT_REQUEST for the association from another address with ERROR
// (UNKNOWN_ASSOCIATION) to that address (docs/spec-notes.md, 15).
TEST(AddressSteps, SendFromAnotherAddress_ReachesTheIutFromThere) {
  const auto pass =
      run("send CREDIT_REQUEST from=10.0.0.3:50000 message_id=1 message_length=4096 "
          "binding_kind=OPAQUE binding_value=1\n"
          "expect ERROR within 1ms reason=UNKNOWN_ASSOCIATION to=10.0.0.3:50000 "
          "from=10.0.0.1:50000\n");
  EXPECT_EQ(pass.verdict, Verdict::Pass) << pass.reason;
  const auto fail =
      run("send CREDIT_REQUEST from=10.0.0.3:50000 message_id=1 message_length=4096 "
          "binding_kind=OPAQUE binding_value=1\n"
          "expect ERROR within 1ms to!=10.0.0.3:50000\n");
  EXPECT_EQ(fail.verdict, Verdict::Fail);
  EXPECT_NE(fail.reason.find("to was 10.0.0.3:50000, wanted != 10.0.0.3:50000"), std::string::npos)
      << fail.reason;
}

TEST(AddressSteps, RawVariables_AreWrittenBigEndianInTheirWidth) {
  // An unknown Type naming the association of a peer that has spoken (a CREDIT_REQUEST): the
  // reference answers UNSUPPORTED_TYPE (to a peer never heard it answers nothing: no reflection).
  const auto pass =
      run("send CREDIT_REQUEST message_id=1 message_length=4096 binding_kind=OPAQUE "
          "binding_value=1\n"
          "expect CREDIT_GRANT within 1ms message_id=1\n"
          "send raw 10 0b 00 10 $assoc:4 $epoch:2 0000 00000009\n"
          "expect ERROR within 1ms reason=UNSUPPORTED_TYPE association_id=$assoc\n");
  EXPECT_EQ(pass.verdict, Verdict::Pass) << pass.reason;
  // The same with a wrong Association ID: no association, no reply.
  const auto silent = run("send raw 10 0b 00 10 $assoc+1:4 $epoch:2 0000 00000009\nsilence 1ms\n");
  EXPECT_EQ(silent.verdict, Verdict::Pass) << silent.reason;
  const auto too_big = run("send raw 10 0b 00 10 $assoc:1 $epoch:2 0000 00000009\n");
  EXPECT_EQ(too_big.verdict, Verdict::Inconclusive);
  EXPECT_NE(too_big.reason.find("does not fit 1 octets"), std::string::npos) << too_big.reason;
}

TEST(AddressSteps, BadUses_AreParseErrorsNamingTheColumn) {
  const struct {
    const char* step;
    const char* what;
  } cases[] = {
      {"send CREDIT_REQUEST to=10.0.0.3:50000 message_id=1\n", "'to=' belongs to expect"},
      {"send CREDIT_REQUEST from=10.0.0.3 message_id=1\n", "takes IP:PORT"},
      {"expect ERROR to<10.0.0.3:50000\n", "compares with = or != only"},
      {"send raw 10 0b $assoc:9\n", "N octets from 1 to 8"},
      {"send raw 10 0b $assoc\n", "N octets from 1 to 8"},
      {"send raw 10 zz\n", "expected hex octets: "},
  };
  for (const auto& c : cases) {
    auto s = parse(c.step);
    ASSERT_TRUE(std::holds_alternative<ParseError>(s)) << c.step;
    const auto& e = std::get<ParseError>(s);
    EXPECT_NE(e.what.find(c.what), std::string::npos) << c.step << " -> " << e.describe();
    EXPECT_EQ(e.where.line, 7) << c.step;
    EXPECT_GT(e.where.column, 1) << c.step;
  }
}

}  // namespace
}  // namespace rdcc::conformance
