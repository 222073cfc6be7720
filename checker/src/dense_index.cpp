// advise_huge_pages (dense_index.hpp): the system call stays out of the public header.
#include "rdcc/checker/dense_index.hpp"

#include <sys/mman.h>

#include <bit>
#include <cstdint>

namespace rdcc::checker {

void advise_huge_pages(void* p, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr std::size_t kHuge = std::size_t{2} << 20;
  const std::size_t misalignment = std::bit_cast<std::uintptr_t>(p) % kHuge;
  const std::size_t skip = misalignment == 0 ? 0 : kHuge - misalignment;
  if (bytes < skip + kHuge) return;
  const std::size_t whole = (bytes - skip) / kHuge * kHuge;
  madvise(static_cast<char*>(p) + skip, whole, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

}  // namespace rdcc::checker
