// IDs gathered between two rounds of work and taken whole at each round: adding one is a push
// (a repeat of the last one added is dropped, so a run of adds for the same ID costs one entry),
// taking them sorts them and drops the other repeats. The receiver's rate controller keeps the
// associations its next update interval updates in one (aimd_tick), so that an interval costs
// the associations it can change, not all of them.
// Private to the reference endpoints; reference/test/due_list_test.cpp tests it.
#pragma once

#include <algorithm>
#include <vector>

namespace rdcc::ref {

template <class Id>
class DueList {
 public:
  void add(Id id) {
    if (ids_.empty() || ids_.back() != id) ids_.push_back(id);
  }
  [[nodiscard]] bool empty() const { return ids_.empty(); }
  // The IDs added since the last take, each once, in increasing order; IDs added from now on
  // go to the next take. The list returned stays valid until the next take.
  const std::vector<Id>& take() {
    taken_.clear();
    taken_.swap(ids_);
    std::sort(taken_.begin(), taken_.end());
    taken_.erase(std::unique(taken_.begin(), taken_.end()), taken_.end());
    return taken_;
  }

 private:
  std::vector<Id> ids_;
  std::vector<Id> taken_;
};

}  // namespace rdcc::ref
