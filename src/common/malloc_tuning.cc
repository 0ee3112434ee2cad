#include "common/malloc_tuning.h"

#include <malloc.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>

namespace kbdata {

void tune_malloc_for_readers() {
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
  // Under an address-space limit (ulimit -v) what is reserved counts, used or not: every arena
  // glibc gives a thread reserves 64 MiB, and the pad below 32 MiB of each (kbdata pairs with 8
  // threads reserved 670 MB for 185 MB resident, and failed under 400 MB). There the threads share
  // one arena and the heap grows by what it needs.
  struct rlimit limit {};
  if (::getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    mallopt(M_ARENA_MAX, 1);
    return;
  }
  // The heap grows by 32 MiB at a time (below the trim threshold: the pad alone never makes a free
  // give memory back), and its first growth, made here, is backed by huge pages.
  constexpr size_t kTopPad = size_t{32} << 20;
  mallopt(M_TOP_PAD, static_cast<int>(kTopPad));
  char* const before = static_cast<char*>(::sbrk(0));
  // A block larger than what the heap has free makes malloc extend it by the block and the pad.
  void* grow = std::malloc(size_t{1} << 20);
  asm volatile("" : : "r"(grow) : "memory");  // (the compiler would drop a block never used)
  std::free(grow);
  char* const after = static_cast<char*>(::sbrk(0));
  char* const failed = reinterpret_cast<char*>(-1);  // sbrk's error
  if (before != failed && after != failed && after > before) {
    advise_huge_pages(before, static_cast<size_t>(after - before));
  }
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
