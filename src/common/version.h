// kbdata's version: printed by --version and written into every file kbdata creates. Its one
// source is the top CMakeLists.txt's project(VERSION), compiled into version.cc.
#pragma once

namespace kbdata {

extern const char* const kVersion;

}  // namespace kbdata
