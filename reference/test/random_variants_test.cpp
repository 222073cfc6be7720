// Random conforming variants (rdcc/testing/random_variants.hpp): the same seed and index give the
// same draws, an id gives the variant back, shrinking keeps the draws named, each choice quotes
// the spec word for word, and a drawn policy changes what the receiver grants.
#include "rdcc/testing/random_variants.hpp"

#include <gtest/gtest.h>

#include <set>

#include "rdcc/testing/spec_file.hpp"
#include "receiver_harness.hpp"

namespace rdcc::testing {
namespace {

TEST(RandomVariants, SameSeedAndIndex_SameDraws_OtherIndex_OtherDraws) {
  const auto a = draw_random_variant(7, 3);
  const auto b = draw_random_variant(7, 3);
  const auto c = draw_random_variant(7, 4);
  EXPECT_EQ(a.values(), b.values());
  EXPECT_NE(a.values(), c.values());
  EXPECT_EQ(a.draws.size(), random_choices().size());
  EXPECT_EQ(a.id(), "7:3");
}

TEST(RandomVariants, Id_ParsesBack_ShrunkToTheNamedDraws) {
  const auto v = draw_random_variant(1, 0);
  const auto shrunk = keep_only(v, {"receiver.credit_unit", "receiver.budget"});
  EXPECT_EQ(shrunk.id(), "1:0:receiver.credit_unit,receiver.budget");
  EXPECT_EQ(shrunk.draws.size(), 2U);
  std::string error;
  const auto back = parse_random_variant(shrunk.id(), &error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(back->values(), shrunk.values());
  EXPECT_EQ(back->value("receiver.credit_unit"), v.value("receiver.credit_unit"));
  EXPECT_FALSE(back->value("receiver.epoch"));
  EXPECT_EQ(keep_only(v, {}).id(), "1:0:-");
  EXPECT_EQ(parse_random_variant("1:0:-", &error)->draws.size(), 0U);
  EXPECT_FALSE(parse_random_variant("1:0:no.such", &error));
  EXPECT_NE(error.find("no.such"), std::string::npos);
  EXPECT_FALSE(parse_random_variant("x:1", &error));
}

TEST(RandomVariants, Choices_NamesAreUniqueAndEachQuotesTheSpecWordForWord) {
  std::set<std::string_view> names;
  for (const auto& c : random_choices()) {
    EXPECT_TRUE(names.insert(c.name).second) << c.name;
    EXPECT_EQ(find_random_choice(c.name), &c);
    EXPECT_FALSE(c.section.empty()) << c.name;
    EXPECT_TRUE(!c.permits.empty() || c.requirement.starts_with("RDCC-")) << c.name;
  }
  const SpecFile spec_file(RDCC_SPEC_PATH);
  if (!spec_file.text()) GTEST_SKIP() << spec_file.reason();
  std::string spec;
  for (char ch : *spec_file.text()) {
    const bool space = ch == ' ' || ch == '\n' || ch == '\t' || ch == '\r';
    if (space && (spec.empty() || spec.back() == ' ')) continue;
    spec += space ? ' ' : ch;
  }
  for (const auto& c : random_choices()) {
    if (c.permits.empty()) continue;
    EXPECT_NE(spec.find(std::string(c.permits)), std::string::npos)
        << c.name << " quotes what the spec does not say: " << c.permits;
  }
}

// A Credit Unit of 1460 and a window of two of them: the first grant of a long message is 2920
// octets, where the reference grants one BDP.
TEST(RandomVariants, DrawnReceiver_GrantsItsOwnWindow) {
  RandomVariant w = keep_only(draw_random_variant(1, 0), {});
  w.draws = {{find_random_choice("receiver.credit_unit"), 1460},
             {find_random_choice("receiver.grant_window_cu"), 2}};
  ref::ReceiverConfig c = ref::ReceiverHarness::default_config();
  apply_config(w, c);
  std::shared_ptr<const ref::ReceiverPolicy> policy;
  apply_policy(
      w, [](std::string_view) { return false; }, c, policy);
  ASSERT_NE(policy, nullptr);
  EXPECT_EQ(c.credit_unit, 1460U);
  ref::ReceiverHarness h(c, policy);
  const ref::Address s = ref::ReceiverHarness::sender(1);
  const auto a = h.associate(s, 1);
  const auto g = ref::only<CreditGrant>(h.deliver(s, h.request(a, 1, 1U << 20U)));
  ASSERT_EQ(g.size(), 1U);
  EXPECT_EQ(g.front().grant_limit, 2920U);
  for (const auto& violation : h.checker().violations()) ADD_FAILURE() << violation.rule;
}

}  // namespace
}  // namespace rdcc::testing
