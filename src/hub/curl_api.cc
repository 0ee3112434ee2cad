#include "hub/curl_api.h"

#include <dlfcn.h>

#include <cstdlib>
#include <string>

#include "common/error.h"

namespace kbdata::hub {
namespace {

constexpr const char* kDefaultLibrary = "libcurl.so.4";

[[noreturn]] void fail(const char* library) {
  const char* reason = ::dlerror();
  std::string message = "cannot load libcurl (";
  message += reason != nullptr ? reason : library;
  message += "); kbdata pull needs the libcurl4 package";
  throw IoError(message);
}

// Resolves `name` into `fn`, whose type is the declared type of that libcurl function.
template <typename Function>
void resolve(void* handle, const char* library, const char* name, Function& fn) {
  ::dlerror();  // clear a stale message
  void* symbol = ::dlsym(handle, name);
  if (symbol == nullptr) fail(library);
  fn = reinterpret_cast<Function>(symbol);
}

CurlApi load() {
  const char* override_path = std::getenv("KBDATA_LIBCURL");
  const char* library =
      override_path != nullptr && *override_path != '\0' ? override_path : kDefaultLibrary;
  // Never closed: libcurl's functions are called until exit.
  void* handle = ::dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) fail(library);
  CurlApi api{};
#define KBDATA_RESOLVE(name) resolve(handle, library, #name, api.name)
  KBDATA_RESOLVE(curl_global_init);
  KBDATA_RESOLVE(curl_easy_init);
  KBDATA_RESOLVE(curl_easy_setopt);
  KBDATA_RESOLVE(curl_easy_getinfo);
  KBDATA_RESOLVE(curl_easy_cleanup);
  KBDATA_RESOLVE(curl_easy_perform);
  KBDATA_RESOLVE(curl_easy_strerror);
  KBDATA_RESOLVE(curl_slist_append);
  KBDATA_RESOLVE(curl_slist_free_all);
  KBDATA_RESOLVE(curl_multi_init);
  KBDATA_RESOLVE(curl_multi_add_handle);
  KBDATA_RESOLVE(curl_multi_remove_handle);
  KBDATA_RESOLVE(curl_multi_perform);
  KBDATA_RESOLVE(curl_multi_poll);
  KBDATA_RESOLVE(curl_multi_info_read);
  KBDATA_RESOLVE(curl_multi_cleanup);
  KBDATA_RESOLVE(curl_multi_strerror);
  KBDATA_RESOLVE(curl_getdate);
#undef KBDATA_RESOLVE
  if (api.curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
    throw IoError("libcurl could not initialise (curl_global_init failed)");
  }
  return api;
}

}  // namespace

const CurlApi& curl() {
  // A throwing initializer leaves the static uninitialized; the next call runs load() again.
  static const CurlApi api = load();
  return api;
}

}  // namespace kbdata::hub
