// The dense numbering of keys (dense_index.hpp): DenseIndex, and MessageIndex, which must give
// the same answers as a map whatever order the keys come in.
#include "rdcc/checker/dense_index.hpp"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <utility>
#include <vector>

namespace rdcc::checker {

using wire::Address;
namespace {

// Feeds `keys` to a MessageIndex and to a map numbering them in order of first appearance,
// and checks every answer of insert() and find() against the map.
void same_as_a_map(const std::vector<OwnedMessageKey>& keys) {
  MessageIndex index;
  std::map<std::pair<std::uint32_t, std::uint64_t>, std::uint32_t> map;
  for (const OwnedMessageKey& k : keys) {
    const auto it = map.find({k.owner, k.message});
    EXPECT_EQ(index.find(k), it == map.end() ? MessageIndex::kNone : it->second)
        << k.owner << "/" << k.message;
    const auto [number, added] = index.insert(k);
    if (it == map.end()) {
      EXPECT_TRUE(added);
      EXPECT_EQ(number, map.size());
      map[{k.owner, k.message}] = number;
    } else {
      EXPECT_FALSE(added);
      EXPECT_EQ(number, it->second);
    }
    EXPECT_EQ(index.find(k), number);
  }
  EXPECT_EQ(index.size(), map.size());
  for (const auto& [k, n] : map) EXPECT_EQ(index.find({k.first, k.second}), n);
}

TEST(MessageIndex, IncreasingIdsPerOwner_AreNumberedInOrderOfFirstAppearance) {
  std::vector<OwnedMessageKey> keys;
  for (std::uint64_t id = 1; id <= 2000; ++id) {
    const auto owner = static_cast<std::uint32_t>(id % 7);
    keys.push_back({owner, id});
    keys.push_back({owner, id});                  // its grants and MSG_DONE
    if (id > 3) keys.push_back({owner, id - 3});  // a late packet of an older message
  }
  same_as_a_map(keys);
}

TEST(MessageIndex, AnyOrder_GivesTheSameNumbersAsAMap) {
  std::mt19937_64 rng(5);
  std::vector<OwnedMessageKey> keys;
  keys.reserve(20000);
  for (int i = 0; i < 20000; ++i) {
    // Few owners and IDs, so that keys repeat; decreasing, equal and reused IDs all occur.
    keys.push_back({static_cast<std::uint32_t>(rng() % 5), rng() % 3000});
  }
  same_as_a_map(keys);
  // IDs that only decrease: everything goes past the runs.
  keys.clear();
  for (std::uint64_t id = 5000; id > 0; --id)
    keys.push_back({static_cast<std::uint32_t>(id % 3), id});
  for (std::uint64_t id = 5000; id > 7; id -= 7)
    keys.push_back({static_cast<std::uint32_t>(id % 3), id});
  same_as_a_map(keys);
}

TEST(MessageIndex, UnknownOwnersAndIdsAreNotFound) {
  MessageIndex index;
  EXPECT_EQ(index.find({0, 1}), MessageIndex::kNone);
  EXPECT_EQ(index.insert({3, 10}), std::make_pair(0U, true));
  EXPECT_EQ(index.find({2, 10}), MessageIndex::kNone);  // an owner below one seen
  EXPECT_EQ(index.find({9, 10}), MessageIndex::kNone);  // an owner above
  EXPECT_EQ(index.find({3, 11}), MessageIndex::kNone);  // above the run
  EXPECT_EQ(index.find({3, 9}), MessageIndex::kNone);   // below it
  EXPECT_EQ(index.insert({3, 9}), std::make_pair(1U, true));
  EXPECT_EQ(index.insert({3, 0}), std::make_pair(2U, true));
  EXPECT_EQ(index.insert({3, ~std::uint64_t{0}}), std::make_pair(3U, true));
  EXPECT_EQ(index.find({3, 9}), 1U);
  EXPECT_EQ(index.find({3, 0}), 2U);
  EXPECT_EQ(index.find({3, 10}), 0U);
  EXPECT_EQ(index.size(), 4U);
}

TEST(StableVector, ElementsKeepTheirAddressesAndAWalkVisitsThemInTheOrderAdded) {
  StableVector<std::uint64_t> v;
  std::vector<const std::uint64_t*> addresses;
  // Across the first blocks' boundaries (16, 48, 112 elements).
  for (std::uint64_t i = 0; i < 200; ++i) {
    v.emplace_back() = i * 3;
    addresses.push_back(&v[i]);
  }
  ASSERT_EQ(v.size(), 200U);
  std::uint64_t expected = 0;
  for (std::uint64_t& x : v) {
    EXPECT_EQ(&x, addresses[expected]);
    EXPECT_EQ(x, expected * 3);
    ++expected;
  }
  EXPECT_EQ(expected, 200U);
  const StableVector<std::uint64_t>& c = v;
  std::uint64_t sum = 0;
  for (const std::uint64_t& x : c) sum += x;
  EXPECT_EQ(sum, 3U * 199U * 200U / 2U);
  // Every size up to past the third block: the walk ends exactly at the end, also where the
  // last block is full.
  for (std::size_t n = 0; n <= 113; ++n) {
    StableVector<std::uint64_t> w;
    for (std::size_t i = 0; i < n; ++i) w.emplace_back() = i;
    std::size_t seen = 0;
    for (const std::uint64_t& x : w) EXPECT_EQ(x, seen++);
    EXPECT_EQ(seen, n);
  }
}

TEST(Address, EqualityComparesFamilyEveryOctetAndPort_SameHostIgnoresThePort) {
  Address a;
  a.ipv6 = true;
  for (std::size_t i = 0; i < a.ip.size(); ++i) a.ip[i] = static_cast<std::uint8_t>(0x20 + i);
  a.port = 50000;
  EXPECT_TRUE(a == a);
  for (std::size_t i = 0; i < a.ip.size(); ++i) {
    Address b = a;
    b.ip[i] ^= 1;
    EXPECT_FALSE(a == b) << "octet " << i;
    EXPECT_FALSE(a.same_host(b)) << "octet " << i;
  }
  Address other_port = a;
  other_port.port = 50001;
  EXPECT_FALSE(a == other_port);
  EXPECT_TRUE(a.same_host(other_port));
  Address v4 = a;
  v4.ipv6 = false;
  EXPECT_FALSE(a == v4);
  EXPECT_FALSE(a.same_host(v4));
  EXPECT_TRUE(Address::v4(192, 0, 2, 1, 7) == Address::v4(192, 0, 2, 1, 7));
  EXPECT_FALSE(Address::v4(192, 0, 2, 1, 7) == Address::v4(192, 0, 2, 2, 7));
}

}  // namespace
}  // namespace rdcc::checker
