// The active automatic mutant (rdcc/automut.hpp): one per process, chosen before the endpoints
// run, read by every mutation site.
#include "rdcc/automut.hpp"

#include <atomic>

namespace rdcc::automut {
namespace {
std::atomic<std::uint32_t> g_active{0};
}  // namespace

void set_active(std::uint32_t id) {
  g_active.store(id, std::memory_order_relaxed);
}

std::uint32_t active() {
  return g_active.load(std::memory_order_relaxed);
}

}  // namespace rdcc::automut
