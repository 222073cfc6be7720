#include "rdcc/reference/range_set.hpp"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace rdcc::ref {
namespace {

using Ranges = std::vector<OctetRange>;

TEST(RangeSet, Add_CountsEachOctetOnceAndSplitsAtTheWindow) {
  RangeSet s;
  EXPECT_EQ(s.add(0, 100, 50), (std::pair<std::uint64_t, std::uint64_t>{50, 50}));
  EXPECT_EQ(s.add(20, 80, 50), (std::pair<std::uint64_t, std::uint64_t>{0, 0}));  // a resend
  EXPECT_EQ(s.add(90, 150, 50), (std::pair<std::uint64_t, std::uint64_t>{0, 50}));
  EXPECT_EQ(s.add(200, 200, 0), (std::pair<std::uint64_t, std::uint64_t>{0, 0}));  // empty
  EXPECT_EQ(s.covered(), 150U);
  EXPECT_EQ(s.size(), 1U);
  EXPECT_EQ(s.end(), 150U);
}

TEST(RangeSet, Add_MergesTouchingAndBridgesGaps) {
  RangeSet s;
  s.add(0, 10);
  s.add(20, 30);
  s.add(40, 50);
  EXPECT_EQ(s.size(), 3U);
  EXPECT_EQ(s.add(10, 20).second, 10U);  // touching both neighbours: one range
  EXPECT_EQ(s.size(), 2U);
  EXPECT_EQ(s.add(5, 45).second, 10U);  // only the gap 30..40 is new
  EXPECT_EQ(s.size(), 1U);
  EXPECT_EQ(s.first(), (OctetRange{0, 50}));
}

TEST(RangeSet, Gaps_NamesWhatIsMissingLowestFirstUpToMax) {
  RangeSet s;
  s.add(10, 20);
  s.add(30, 40);
  EXPECT_EQ(s.gaps(0, 50, 10), (Ranges{{0, 10}, {20, 30}, {40, 50}}));
  EXPECT_EQ(s.gaps(15, 35, 10), (Ranges{{20, 30}}));
  EXPECT_EQ(s.gaps(0, 50, 2), (Ranges{{0, 10}, {20, 30}}));
  EXPECT_EQ(s.gaps(10, 20, 10), Ranges{});
  EXPECT_EQ(s.gaps(5, 5, 10), Ranges{});
  EXPECT_EQ(RangeSet{}.gaps(0, 7, 10), (Ranges{{0, 7}}));
}

TEST(RangeSet, Remove_CutsRangesAndKeepsTheCount) {
  RangeSet s;
  s.add(0, 100);
  s.remove(10, 20);
  s.remove(90, 200);
  s.remove(40, 40);
  EXPECT_EQ(s.covered(), 80U);
  EXPECT_EQ(s.gaps(0, 100, 10), (Ranges{{10, 20}, {90, 100}}));
  s.remove(0, 100);
  EXPECT_TRUE(s.empty());
  EXPECT_EQ(s.covered(), 0U);
}

// Against a bitmap: random adds and removes, the count, the gaps and the new octets agree.
TEST(RangeSet, RandomOperations_AgreeWithABitmap) {
  std::mt19937_64 rng(7);
  RangeSet s;
  std::vector<bool> bits(512);
  for (int i = 0; i < 4000; ++i) {
    const std::uint64_t a = rng() % 512;
    const std::uint64_t b = std::min<std::uint64_t>(512, a + rng() % 40);
    if (rng() % 3 == 0) {
      s.remove(a, b);
      for (std::uint64_t o = a; o < b; ++o) bits[o] = false;
    } else {
      std::uint64_t fresh = 0;
      for (std::uint64_t o = a; o < b; ++o) {
        if (!bits[o]) ++fresh;
        bits[o] = true;
      }
      const auto [below, above] = s.add(a, b, 256);
      ASSERT_EQ(below + above, fresh);
    }
    std::uint64_t count = 0;
    for (bool bit : bits) count += bit ? 1 : 0;
    ASSERT_EQ(s.covered(), count);
  }
  Ranges expected;
  for (std::uint64_t o = 0; o < 512; ++o) {
    if (bits[o]) continue;
    if (!expected.empty() && expected.back().hi == o) {
      ++expected.back().hi;
    } else {
      expected.push_back({o, o + 1});
    }
  }
  EXPECT_EQ(s.gaps(0, 512, 1000), expected);
}

}  // namespace
}  // namespace rdcc::ref
