// libcurl, loaded when the hub is first used rather than linked.
//
// Linking libcurl would make every kbdata command map it and its dependency tree (OpenSSL, nghttp2,
// libssh2, Kerberos, LDAP, ...) at start-up, though only `kbdata pull` talks to the network. So
// kbdata includes <curl/curl.h> for its types and declarations only and resolves the functions it
// calls from libcurl.so.4 with dlopen/dlsym on first use, as it does for libpq
// (src/platform/libpq_api.h). $KBDATA_LIBCURL, when set, names the library to load instead (tests
// use it to prove the failure path).
#pragma once

// The members below share the names of libcurl's functions; its type-checking macros of the same
// names would rewrite `api.curl_easy_setopt(...)`.
#define CURL_DISABLE_TYPECHECK
#include <curl/curl.h>

namespace kbdata::hub {

// The libcurl functions kbdata calls; each member has the name and type of the function it points
// to, so a call reads `curl().curl_easy_setopt(handle, ...)`.
struct CurlApi {
  decltype(&::curl_global_init) curl_global_init;
  decltype(&::curl_easy_init) curl_easy_init;
  decltype(&::curl_easy_setopt) curl_easy_setopt;
  decltype(&::curl_easy_getinfo) curl_easy_getinfo;
  decltype(&::curl_easy_cleanup) curl_easy_cleanup;
  decltype(&::curl_easy_perform) curl_easy_perform;
  decltype(&::curl_easy_strerror) curl_easy_strerror;
  decltype(&::curl_slist_append) curl_slist_append;
  decltype(&::curl_slist_free_all) curl_slist_free_all;
  decltype(&::curl_multi_init) curl_multi_init;
  decltype(&::curl_multi_add_handle) curl_multi_add_handle;
  decltype(&::curl_multi_remove_handle) curl_multi_remove_handle;
  decltype(&::curl_multi_perform) curl_multi_perform;
  decltype(&::curl_multi_poll) curl_multi_poll;
  decltype(&::curl_multi_wakeup) curl_multi_wakeup;
  decltype(&::curl_multi_info_read) curl_multi_info_read;
  decltype(&::curl_multi_cleanup) curl_multi_cleanup;
  decltype(&::curl_multi_strerror) curl_multi_strerror;
  decltype(&::curl_getdate) curl_getdate;
};

// The loaded functions. The first call loads libcurl.so.4 (or $KBDATA_LIBCURL), resolves every
// member and runs curl_global_init; later calls return the same table (thread-safe: a
// function-local static). The library stays loaded for the life of the process.
// Throws IoError, one line naming the library and what the loader said, if the library cannot be
// loaded or lacks a function; the next call tries again.
[[nodiscard]] const CurlApi& curl();

// Whether another try may change a transfer that failed with `code`: a name that did not resolve,
// a connection refused, dropped or timed out, a TLS handshake or an HTTP/2 stream that broke, a
// body cut short or never sent. Not: a malformed URL, a protocol kbdata does not speak, a
// certificate refused, too many redirects, or a transfer kbdata's own callback ended.
[[nodiscard]] bool transient_failure(CURLcode code);

// What receives a transfer's body and its header lines (libcurl's write and header callbacks).
using CurlCallback = size_t (*)(char* data, size_t one, size_t size, void* owner);

// Sets the options every transfer of the hub client has, the one place they are chosen: `url`,
// `headers`, `owner` as CURLOPT_PRIVATE and the callbacks' data, no signals, http(s) only, the
// user agent, 30 s to connect, a transfer with no byte for 60 s abandoned, bodies in pieces of up
// to 512 KiB (one write and one hash update a piece). The caller adds the handle to its multi
// handle.
void set_transfer_options(CURL* handle, const char* url, curl_slist* headers, void* owner,
                          CurlCallback on_body, CurlCallback on_header);

}  // namespace kbdata::hub
