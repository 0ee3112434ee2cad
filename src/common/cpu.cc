#include "common/cpu.h"

#include <cstdlib>
#include <cstring>

namespace kbdata::detail {

bool detect_avx2() {
  const char* env = std::getenv("KBDATA_SIMD");
  if (env != nullptr && std::strcmp(env, "0") == 0) return false;
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") &&
         __builtin_cpu_supports("popcnt");
}

}  // namespace kbdata::detail
