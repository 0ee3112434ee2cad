// libpq, loaded when the platform database is first used rather than linked.
//
// Linking libpq makes every kbdata command pay for it at start-up: libpq pulls in some twenty
// shared libraries (Kerberos, LDAP, GnuTLS, SASL, ...) whose relocations and page faults cost
// about 20 ms, though only `kbdata export` and `kbdata synth --db` talk to a database. So kbdata
// includes <libpq-fe.h> for its types and declarations only and resolves the functions it calls
// from libpq.so.5 with dlopen/dlsym on first use. $KBDATA_LIBPQ, when set, names the library to
// load instead (a path or a soname; tests use it to prove the failure path).
//
// Every PQ* call (all in connection.cc) goes through libpq(); run_export calls it before it
// creates its output folder so a missing libpq changes nothing on disk.
#pragma once

#include <libpq-fe.h>

namespace kbdata::platform {

// The libpq functions kbdata calls; each member has the name and type of the function it points
// to, so a call reads `libpq().PQexec(conn, sql)`.
struct LibpqApi {
  decltype(&::PQconnectdbParams) PQconnectdbParams;
  decltype(&::PQconninfoParse) PQconninfoParse;
  decltype(&::PQconninfoFree) PQconninfoFree;
  decltype(&::PQfreemem) PQfreemem;
  decltype(&::PQstatus) PQstatus;
  decltype(&::PQerrorMessage) PQerrorMessage;
  decltype(&::PQfinish) PQfinish;
  decltype(&::PQexec) PQexec;
  decltype(&::PQexecParams) PQexecParams;
  decltype(&::PQresultStatus) PQresultStatus;
  decltype(&::PQresultErrorMessage) PQresultErrorMessage;
  decltype(&::PQclear) PQclear;
  decltype(&::PQgetResult) PQgetResult;
  decltype(&::PQntuples) PQntuples;
  decltype(&::PQnfields) PQnfields;
  decltype(&::PQgetvalue) PQgetvalue;
  decltype(&::PQgetlength) PQgetlength;
  decltype(&::PQgetisnull) PQgetisnull;
  decltype(&::PQputCopyData) PQputCopyData;
  decltype(&::PQputCopyEnd) PQputCopyEnd;
};

// The loaded functions. The first call loads libpq.so.5 (or $KBDATA_LIBPQ) and resolves every
// member; later calls return the same table (thread-safe: a function-local static). The library
// stays loaded for the life of the process.
// Throws IoError, one line naming the library and what the loader said, if the library cannot be
// loaded or lacks a function; the next call tries again.
[[nodiscard]] const LibpqApi& libpq();

}  // namespace kbdata::platform
