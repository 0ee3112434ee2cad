#include "common/malloc_tuning.h"

#include <malloc.h>

namespace kbdata {

void tune_malloc_for_readers() {
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
}

}  // namespace kbdata
