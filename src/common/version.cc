#include "common/version.h"

namespace kbdata {

// KBDATA_VERSION is project(VERSION) of the top CMakeLists.txt (src/common/CMakeLists.txt).
const char* const kVersion = KBDATA_VERSION;

}  // namespace kbdata
