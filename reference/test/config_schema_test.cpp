// The one description of the endpoints' configuration (rdcc/reference/config_schema.hpp): each
// key reaches its member, in its unit; a value out of range is refused with the range; the
// node options it derives are those the nodes take.
#include "rdcc/reference/config_schema.hpp"

#include <gtest/gtest.h>

#include <set>

#include "rdcc/reference/crn.hpp"
#include "rdcc/reference/receiver.hpp"
#include "rdcc/reference/sender.hpp"

namespace rdcc::ref {
namespace {

TEST(ConfigSchema, KeysAndFlags_AreUniquePerRole) {
  for (const char* role : {"receiver", "sender", "crn"}) {
    std::set<std::string_view> keys;
    std::set<std::string_view> flags;
    for (const auto& s : *config_settings(role)) {
      EXPECT_TRUE(keys.insert(s.field.key).second) << role << " " << s.field.key;
      EXPECT_FALSE(s.field.doc.empty()) << s.field.key;
      EXPECT_EQ(s.field.flag.substr(0, 2), "--") << s.field.key;
      EXPECT_LE(s.field.min, s.max) << s.field.key;
      // Only a ListItem shares its flag (the items of one list).
      if (s.field.flag_kind != FlagKind::ListItem) {
        EXPECT_TRUE(flags.insert(s.field.flag).second) << role << " " << s.field.flag;
      }
    }
  }
  EXPECT_EQ(config_settings("operator"), nullptr);
}

TEST(ConfigSchema, Defaults_AreTheStructs) {
  const auto* budget = find_config_setting("receiver", "budget");
  ASSERT_NE(budget, nullptr);
  EXPECT_EQ(budget->default_value, std::vector<std::uint64_t>{ReceiverConfig{}.budget});
  // A Duration reads in the key's unit.
  EXPECT_EQ(find_config_setting("receiver", "d_max_us")->default_value,
            std::vector<std::uint64_t>{20});
  EXPECT_EQ(find_config_setting("receiver", "idle_timeout_ms")->default_value,
            std::vector<std::uint64_t>{10000});
  // None configured: no value.
  EXPECT_TRUE(find_config_setting("sender", "unscheduled_dscp")->default_value.empty());
  EXPECT_TRUE(find_config_setting("sender", "unscheduled_dscp")->optional);
  EXPECT_TRUE(find_config_setting("crn", "unscheduled_dscp")->repeatable);
}

TEST(ConfigSchema, SetConfig_ReachesTheMemberInItsUnit) {
  ReceiverConfig r;
  EXPECT_FALSE(set_config(r, "d_max_us", 35));
  EXPECT_EQ(r.d_max, microseconds(35));
  EXPECT_FALSE(set_config(r, "idle_timeout_ms", 12000));
  EXPECT_EQ(r.idle_timeout, milliseconds(12000));
  EXPECT_FALSE(set_config(r, "max_pending_per_association", 2));
  EXPECT_EQ(r.max_pending_per_association, 2U);
  EXPECT_FALSE(set_config(r, "rocev2_binding", 0));
  EXPECT_FALSE(r.rocev2_binding);
  EXPECT_EQ(get_config(r, "d_max_us"), std::vector<std::uint64_t>{35});

  SenderConfig s;
  EXPECT_FALSE(set_config(s, "unscheduled_dscp", 10));
  EXPECT_EQ(s.unscheduled_dscp, std::optional<std::uint8_t>{10});
  EXPECT_FALSE(set_config(s, "allow_unscheduled", 0));
  EXPECT_FALSE(s.allow_unscheduled);

  CrnConfig c;
  const std::vector<std::uint64_t> dscps{8, 10};
  EXPECT_FALSE(set_config(c, "unscheduled_dscp", dscps));
  EXPECT_EQ(c.unscheduled_dscps, (std::set<std::uint8_t>{8, 10}));
  EXPECT_FALSE(set_config(c, "per_port_interval_us", 100));
  EXPECT_EQ(c.per_port_interval, microseconds(100));
}

TEST(ConfigSchema, SetConfig_RefusesOutOfRangeWithTheRange_AndLeavesTheMember) {
  ReceiverConfig r;
  EXPECT_EQ(set_config(r, "credit_unit", 0), "0 is outside 1..65507");
  EXPECT_EQ(set_config(r, "credit_unit", 70000), "70000 is outside 1..65507");
  EXPECT_EQ(r.credit_unit, ReceiverConfig{}.credit_unit);
  // The member's type bounds it too.
  EXPECT_EQ(set_config(r, "epoch", 65536), "65536 is outside 1..65535");
  EXPECT_EQ(set_config(r, "idle_timeout_ms", 9999), "9999 is outside 10000..4294967295");
  EXPECT_EQ(set_config(r, "rocev2_binding", 2), "2 is outside 0..1");
  EXPECT_EQ(set_config(r, "budgett", 1), "unknown key 'budgett'");
  SenderConfig s;
  EXPECT_EQ(set_config(s, "unscheduled_dscp", 64), "64 is outside 0..63");
  const std::vector<std::uint64_t> two{1, 2};
  EXPECT_EQ(set_config(s, "line_rate_mbps", two), "2 values given; it takes one");
}

TEST(ConfigSchema, ParseConfigText_TakesWhatTheNodeOptionTakes) {
  const auto& caps = *find_config_setting("receiver", "capabilities");
  EXPECT_EQ(std::get<std::vector<std::uint64_t>>(parse_config_text(caps, "POOL,CRN")),
            std::vector<std::uint64_t>{capability::kPool | capability::kCrn});
  EXPECT_EQ(std::get<std::vector<std::uint64_t>>(parse_config_text(caps, "POOL|STATUS")),
            std::vector<std::uint64_t>{capability::kPool | capability::kStatus});
  EXPECT_EQ(std::get<std::vector<std::uint64_t>>(parse_config_text(caps, ",")),
            std::vector<std::uint64_t>{0});
  EXPECT_EQ(std::get<std::string>(parse_config_text(caps, "POOL,FAST")),
            "'FAST' is not one of POOL, STATUS, CRN");
  const auto& unit = *find_config_setting("receiver", "credit_unit");
  EXPECT_EQ(std::get<std::string>(parse_config_text(unit, "0")), "0 is outside 1..65507");
  EXPECT_EQ(std::get<std::string>(parse_config_text(unit, "4k")), "'4k' is not a number");
  const auto& dscps = *find_config_setting("crn", "unscheduled_dscp");
  EXPECT_EQ(std::get<std::vector<std::uint64_t>>(parse_config_text(dscps, "8,10")),
            (std::vector<std::uint64_t>{8, 10}));
  const auto& allow = *find_config_setting("sender", "allow_unscheduled");
  EXPECT_EQ(std::get<std::vector<std::uint64_t>>(parse_config_text(allow, "false")),
            std::vector<std::uint64_t>{0});
}

TEST(ConfigSchema, NodeArguments_AreTheNodeOptions) {
  const auto a = config_node_arguments(
      "receiver", {{"budget", {262144}}, {"capabilities", {2}}, {"rocev2_binding", {0}}});
  EXPECT_EQ(std::get<std::vector<std::string>>(a),
            (std::vector<std::string>{"--budget", "262144", "--capabilities", "STATUS",
                                      "--bindings", "opaque"}));
  EXPECT_EQ(std::get<std::vector<std::string>>(config_node_arguments(
                "receiver", {{"opaque_binding", {0}}, {"rocev2_binding", {0}}})),
            (std::vector<std::string>{"--bindings", ","}));
  EXPECT_EQ(std::get<std::vector<std::string>>(
                config_node_arguments("sender", {{"allow_unscheduled", {0}}})),
            std::vector<std::string>{"--scheduled-only"});
  EXPECT_TRUE(std::get<std::vector<std::string>>(
                  config_node_arguments("sender", {{"allow_unscheduled", {1}}}))
                  .empty());
  EXPECT_EQ(std::get<std::vector<std::string>>(
                config_node_arguments("crn", {{"unscheduled_dscp", {8, 10}}})),
            (std::vector<std::string>{"--unscheduled-dscp", "8", "--unscheduled-dscp", "10"}));
  const auto e = std::get<ConfigArgumentsError>(config_node_arguments("receiver", {{"seed", {7}}}));
  EXPECT_EQ(e.kind, ConfigArgumentsError::Kind::NoOption);
  EXPECT_EQ(e.key, "seed");
  EXPECT_EQ(
      std::get<ConfigArgumentsError>(config_node_arguments("sender", {{"capabilities", {0x9}}}))
          .kind,
      ConfigArgumentsError::Kind::UnnamedBits);
}

}  // namespace
}  // namespace rdcc::ref
