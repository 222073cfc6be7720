// `watch weight_share heavier=H lighter=L` (docs/scenario-language.md): "Credit that becomes
// available is distributed among waiting messages by Traffic Class first (lower class number
// first) and by weight within a class" (Credit Allocation). Two messages of one class and one
// association, H of the larger Weight. H waits while the tester has sent every octet it was
// granted and its grants have not reached its length. From the step on, the lighter message may
// not be granted twice (two rises of its Grant Limit) while H waits without a grant of its own
// in between: a receiver that shares by weight serves H at least as often as L, one that ignores
// the weights takes turns, and one that serves by arrival, the shortest remainder first or the
// lighter message first serves L again and again while H waits (docs/spec-notes.md 191). What a
// turn is worth (a grant's size) is the receiver's: only the turns are judged.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace rdcc::conformance {

class WeightShare {
 public:
  // The Grant Limits each message holds when the watch begins, and H's length.
  WeightShare(std::uint64_t heavier, std::uint64_t lighter, std::uint64_t heavier_length,
              std::uint64_t heavier_limit, std::uint64_t lighter_limit);
  // A grant for `message_id` up to `limit` arrived while the tester had sent `heavier_sent`
  // octets of H: the failure's reason if it is L's second turn while H waits.
  [[nodiscard]] std::optional<std::string> grant(std::uint64_t message_id, std::uint64_t limit,
                                                 std::uint64_t heavier_sent);
  [[nodiscard]] std::uint64_t heavier() const { return heavier_; }

 private:
  std::uint64_t heavier_ = 0;
  std::uint64_t lighter_ = 0;
  std::uint64_t heavier_length_ = 0;
  std::uint64_t heavier_limit_ = 0;
  std::uint64_t lighter_limit_ = 0;
  // L's grants while H waited since H's latest grant, and the limits they gave.
  unsigned turns_ = 0;
  std::string limits_;
};

}  // namespace rdcc::conformance
