#include "common/malloc_tuning.h"

#include <malloc.h>
#include <sys/mman.h>

#include <cstdint>

namespace kbdata {

void tune_malloc_for_readers() {
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
}

void advise_huge_pages(void* data, size_t bytes) {
  constexpr uintptr_t kHuge = uintptr_t{2} << 20;
  const auto begin = reinterpret_cast<uintptr_t>(data);
  const uintptr_t first = (begin + kHuge - 1) & ~(kHuge - 1);
  const uintptr_t last = (begin + bytes) & ~(kHuge - 1);
  if (data == nullptr || last <= first) return;
  // Advice only: an error (no THP in this kernel) leaves the buffer as it was.
  [[maybe_unused]] const int ignored =
      ::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
}

}  // namespace kbdata
