// Delta debugging (A. Zeller, R. Hildebrandt, "Simplifying and Isolating Failure-Inducing
// Input", 2002): ddmin over the stimuli of a failing program.
#include <algorithm>

#include "rdcc/conformance/explore.hpp"

namespace rdcc::conformance {

std::vector<std::size_t> ddmin(std::size_t n,
                               const std::function<bool(const std::vector<std::size_t>&)>& fails) {
  std::vector<std::size_t> cur(n);
  for (std::size_t i = 0; i < n; ++i) cur[i] = i;
  std::size_t parts = 2;
  while (cur.size() >= 2) {
    const std::size_t chunk = (cur.size() + parts - 1) / parts;
    bool reduced = false;
    // A part alone, then everything but a part.
    for (std::size_t start = 0; start < cur.size() && !reduced; start += chunk) {
      const auto b = cur.begin() + static_cast<std::ptrdiff_t>(start);
      const auto e = cur.begin() + static_cast<std::ptrdiff_t>(std::min(cur.size(), start + chunk));
      std::vector<std::size_t> part(b, e);
      if (parts > 2 && fails(part)) {
        cur = std::move(part);
        parts = 2;
        reduced = true;
        break;
      }
      std::vector<std::size_t> rest(cur.begin(), b);
      rest.insert(rest.end(), e, cur.end());
      if (!rest.empty() && fails(rest)) {
        cur = std::move(rest);
        parts = std::max<std::size_t>(parts - 1, 2);
        reduced = true;
      }
    }
    if (reduced) continue;
    if (parts >= cur.size()) break;
    parts = std::min(cur.size(), parts * 2);
  }
  return cur;
}

}  // namespace rdcc::conformance
