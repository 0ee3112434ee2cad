// kbdata's version: printed by --version and written into every file kbdata creates.
#pragma once

namespace kbdata {

inline constexpr const char* kVersion = "0.2.0";

}  // namespace kbdata
