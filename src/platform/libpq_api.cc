#include "platform/libpq_api.h"

#include <dlfcn.h>

#include <cstdlib>
#include <string>

#include "common/error.h"

namespace kbdata::platform {
namespace {

constexpr const char* kDefaultLibrary = "libpq.so.5";

[[noreturn]] void fail(const char* library) {
  const char* reason = ::dlerror();
  std::string message = "cannot load libpq (";
  message += reason != nullptr ? reason : library;
  message += "); kbdata export and synth --db need the libpq5 package";
  throw IoError(message);
}

// Resolves `name` into `fn`, whose type is the declared type of that libpq function.
template <typename Function>
void resolve(void* handle, const char* library, const char* name, Function& fn) {
  ::dlerror();  // clear a stale message
  void* symbol = ::dlsym(handle, name);
  if (symbol == nullptr) fail(library);
  fn = reinterpret_cast<Function>(symbol);
}

LibpqApi load() {
  const char* override_path = std::getenv("KBDATA_LIBPQ");
  const char* library =
      override_path != nullptr && *override_path != '\0' ? override_path : kDefaultLibrary;
  // Never closed: libpq's functions are called until exit.
  void* handle = ::dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) fail(library);
  LibpqApi api{};
#define KBDATA_RESOLVE(name) resolve(handle, library, #name, api.name)
  KBDATA_RESOLVE(PQconnectdbParams);
  KBDATA_RESOLVE(PQconninfoParse);
  KBDATA_RESOLVE(PQconninfoFree);
  KBDATA_RESOLVE(PQfreemem);
  KBDATA_RESOLVE(PQstatus);
  KBDATA_RESOLVE(PQerrorMessage);
  KBDATA_RESOLVE(PQfinish);
  KBDATA_RESOLVE(PQexec);
  KBDATA_RESOLVE(PQexecParams);
  KBDATA_RESOLVE(PQresultStatus);
  KBDATA_RESOLVE(PQresultErrorMessage);
  KBDATA_RESOLVE(PQclear);
  KBDATA_RESOLVE(PQgetResult);
  KBDATA_RESOLVE(PQntuples);
  KBDATA_RESOLVE(PQnfields);
  KBDATA_RESOLVE(PQgetvalue);
  KBDATA_RESOLVE(PQgetlength);
  KBDATA_RESOLVE(PQgetisnull);
  KBDATA_RESOLVE(PQputCopyData);
  KBDATA_RESOLVE(PQputCopyEnd);
#undef KBDATA_RESOLVE
  return api;
}

}  // namespace

const LibpqApi& libpq() {
  // A throwing initializer leaves the static uninitialized; the next call runs load() again.
  static const LibpqApi api = load();
  return api;
}

}  // namespace kbdata::platform
