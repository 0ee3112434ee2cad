#include "platform/libpq_api.h"

#include "common/error.h"
#include "common/shared_library.h"

namespace kbdata::platform {
namespace {

LibpqApi load() {
  const SharedLibrary library("KBDATA_LIBPQ", "libpq.so.5", "libpq",
                              "kbdata export and synth --db need the libpq5 package");
  LibpqApi api{};
#define KBDATA_RESOLVE(name) library.resolve(#name, api.name)
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
