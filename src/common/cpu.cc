#include "common/cpu.h"

#include <cstdlib>
#include <cstring>

namespace kbdata {

bool use_avx2() {
  static const bool yes = [] {
    const char* env = std::getenv("KBDATA_SIMD");
    if (env != nullptr && std::strcmp(env, "0") == 0) return false;
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") &&
           __builtin_cpu_supports("popcnt");
  }();
  return yes;
}

}  // namespace kbdata
