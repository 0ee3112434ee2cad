// common/malloc_tuning.h: the heap the tuning leaves behind, as the kernel reports it.
#include "common/malloc_tuning.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace kbdata {
namespace {

// The sanitizers' allocators leave glibc's heap alone (g++ names them by macros, clang by
// __has_feature).
#if defined(__has_feature)
#define KBDATA_CLANG_SANITIZER (__has_feature(address_sanitizer) || __has_feature(thread_sanitizer))
#else
#define KBDATA_CLANG_SANITIZER 0
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || KBDATA_CLANG_SANITIZER
constexpr bool kOwnMalloc = true;
#else
constexpr bool kOwnMalloc = false;
#endif

struct HeapPart {
  uint64_t bytes = 0;
  bool huge = false;  // VmFlags has hg (MADV_HUGEPAGE)
};

// The parts of the [heap] mapping in /proc/self/smaps (madvise splits it).
std::vector<HeapPart> heap_parts() {
  std::ifstream smaps("/proc/self/smaps");
  std::vector<HeapPart> out;
  std::string line;
  bool in_heap = false;
  while (std::getline(smaps, line)) {
    // A field line is `Name: value`; any other line starts a mapping: `begin-end perms ... [path]`.
    const size_t colon = line.find(':');
    const size_t space = line.find(' ');
    if (colon != std::string::npos && colon < space) {
      if (in_heap && line.starts_with("VmFlags:")) {
        out.back().huge = (line.substr(8) + " ").find(" hg ") != std::string::npos;
      }
      continue;
    }
    in_heap = line.ends_with(" [heap]");
    if (in_heap) {
      std::istringstream range(line);
      uint64_t begin = 0, end = 0;
      char dash = 0;
      range >> std::hex >> begin >> dash >> end;
      out.push_back({end - begin, false});
    }
  }
  return out;
}

TEST(MallocTuning, TheHeapsFirstGrowthIsAdvisedForHugePages) {
  if (kOwnMalloc) GTEST_SKIP() << "a sanitizer's allocator replaces glibc's heap";
  if (!std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled")) {
    GTEST_SKIP() << "this kernel has no transparent huge pages";
  }
  tune_malloc_for_readers();
  uint64_t huge = 0;
  for (const HeapPart& p : heap_parts()) huge += p.huge ? p.bytes : 0;
  // 32 MiB grown, advised on whole 2 MiB pages: at least 30 MiB of it.
  EXPECT_GE(huge, uint64_t{30} << 20) << "no part of [heap] carries the hg flag";
}

}  // namespace
}  // namespace kbdata
