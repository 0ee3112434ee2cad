#include "common/shared_library.h"

#include <dlfcn.h>

#include <cstdlib>
#include <utility>

#include "common/error.h"

namespace kbdata {

SharedLibrary::SharedLibrary(const char* override_env, const char* default_name, std::string label,
                             std::string needed)
    : label_(std::move(label)), needed_(std::move(needed)) {
  const char* override_path = std::getenv(override_env);
  path_ = override_path != nullptr && *override_path != '\0' ? override_path : default_name;
  handle_ = ::dlopen(path_, RTLD_NOW | RTLD_LOCAL);
  if (handle_ == nullptr) fail();
}

void* SharedLibrary::symbol(const char* name) const {
  ::dlerror();  // clear a stale message
  void* symbol = ::dlsym(handle_, name);
  if (symbol == nullptr) fail();
  return symbol;
}

void SharedLibrary::fail() const {
  const char* reason = ::dlerror();
  throw IoError("cannot load " + label_ + " (" + (reason != nullptr ? reason : path_) + "); " +
                needed_);
}

}  // namespace kbdata
