// The association table (reference/src/receiver/association_establishment.hpp): "Association
// Establishment".
#include "receiver/association_establishment.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "rdcc/reference/random.hpp"

namespace rdcc::ref {
namespace {

struct A {
  std::uint32_t id = 0;
  Address peer;
  std::uint64_t nonce = 0;
};

const Address kS1 = Address::v4(192, 0, 2, 1, 40000);
const Address kS2 = Address::v4(192, 0, 2, 2, 40000);

TEST(AssociationTable, SameNonceFromSameAddress_FindsTheSameAssociation) {
  AssociationTable<A> t;
  A& a = t.add(7, kS1, 0xABCD);
  EXPECT_EQ(t.of_request(0xABCD, kS1), &a);
  EXPECT_EQ(t.of_request(0xABCD, kS2), nullptr);  // the nonce binds the request's address too
  EXPECT_EQ(t.of_request(0xABCE, kS1), nullptr);
  EXPECT_EQ(t.find(7), &a);
  EXPECT_EQ(t.find(8), nullptr);
  EXPECT_TRUE(t.contains(7));
  EXPECT_EQ(t.size(), 1U);
}

TEST(AssociationTable, OfHost_EveryAssociationOfAnyPortOfTheHost_OldestFirst) {
  AssociationTable<A> t;
  t.add(1, kS1, 1);
  t.add(2, kS2, 2);
  t.add(3, Address::v4(192, 0, 2, 1, 40001), 3);  // a second sender on the first host
  EXPECT_EQ(t.of_host(Address::v4(192, 0, 2, 1, 4791)), (std::vector<std::uint32_t>{1, 3}));
  EXPECT_EQ(t.of_host(kS2), (std::vector<std::uint32_t>{2}));
  EXPECT_TRUE(t.of_host(Address::v4(192, 0, 2, 3, 40000)).empty());
}

TEST(AssociationTable, Remove_ForgetsEveryIndex) {
  AssociationTable<A> t;
  A& a = t.add(1, kS1, 1);
  t.add(2, kS2, 2);
  t.remove(a);
  EXPECT_EQ(t.find(1), nullptr);
  EXPECT_EQ(t.of_request(1, kS1), nullptr);
  EXPECT_TRUE(t.of_host(kS1).empty());
  EXPECT_EQ(t.size(), 1U);
  std::size_t visited = 0;
  for (auto& [id, assoc] : t) {
    EXPECT_EQ(id, assoc.id);
    ++visited;
  }
  EXPECT_EQ(visited, 1U);
}

// A source that repeats 0 and then an ID in use before a free one.
class Scripted final : public RandomSource {
 public:
  std::uint64_t next_u64() override { return values_[i_++ % 3]; }
  [[nodiscard]] std::unique_ptr<RandomSource> split() const override {
    return std::make_unique<Scripted>();
  }

 private:
  std::uint64_t values_[3] = {0, 5, 9};
  std::size_t i_ = 0;
};

TEST(AssociationTable, NewId_IsNonZeroAndUnused) {
  AssociationTable<A> t;
  t.add(5, kS1, 1);
  Scripted random;
  EXPECT_EQ(t.new_id(random), 9U);
}

}  // namespace
}  // namespace rdcc::ref
