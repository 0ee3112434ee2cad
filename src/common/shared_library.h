// Libraries loaded on first use with dlopen (libpq for export, libcurl for pull), so that the
// commands that never need them start without them (tests/cli/startup_test.cc checks it).
#pragma once

#include <string>

namespace kbdata {

// An opened library, never closed: its functions are called until exit.
class SharedLibrary {
 public:
  // Opens the file the environment variable `override_env` names when it is set and not empty,
  // else `default_name` (found the usual way). On failure throws IoError "cannot load LABEL
  // (dlerror's reason); NEEDED", `label` naming the library and `needed` what provides it.
  SharedLibrary(const char* override_env, const char* default_name, std::string label,
                std::string needed);

  // Sets `fn`, whose type is the declared type of the function `name`, or throws as above.
  template <typename Function>
  void resolve(const char* name, Function& fn) const {
    fn = reinterpret_cast<Function>(symbol(name));
  }

 private:
  [[nodiscard]] void* symbol(const char* name) const;
  [[noreturn]] void fail() const;

  void* handle_ = nullptr;
  const char* path_ = nullptr;
  std::string label_;
  std::string needed_;
};

}  // namespace kbdata
