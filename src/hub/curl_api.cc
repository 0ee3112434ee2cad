#include "hub/curl_api.h"

#include "common/error.h"
#include "common/shared_library.h"

namespace kbdata::hub {
namespace {

CurlApi load() {
  const SharedLibrary library("KBDATA_LIBCURL", "libcurl.so.4", "libcurl",
                              "kbdata pull needs the libcurl4 package");
  CurlApi api{};
#define KBDATA_RESOLVE(name) library.resolve(#name, api.name)
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
  KBDATA_RESOLVE(curl_multi_wakeup);
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

bool transient_failure(CURLcode code) {
  switch (code) {
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_CONNECT:
    case CURLE_HTTP2:
    case CURLE_PARTIAL_FILE:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_HTTP2_STREAM:
    case CURLE_HTTP3:
    case CURLE_QUIC_CONNECT_ERROR:
      return true;
    default:
      return false;
  }
}

void set_transfer_options(CURL* handle, const char* url, curl_slist* headers, void* owner,
                          CurlCallback on_body, CurlCallback on_header) {
  const CurlApi& api = curl();
  api.curl_easy_setopt(handle, CURLOPT_URL, url);
  api.curl_easy_setopt(handle, CURLOPT_HTTPHEADER, headers);
  api.curl_easy_setopt(handle, CURLOPT_PRIVATE, owner);
  api.curl_easy_setopt(handle, CURLOPT_NOSIGNAL, 1L);
  api.curl_easy_setopt(handle, CURLOPT_PROTOCOLS_STR, "http,https");
  api.curl_easy_setopt(handle, CURLOPT_USERAGENT, "kbdata");
  api.curl_easy_setopt(handle, CURLOPT_CONNECTTIMEOUT, 30L);
  api.curl_easy_setopt(handle, CURLOPT_LOW_SPEED_LIMIT, 1L);
  api.curl_easy_setopt(handle, CURLOPT_LOW_SPEED_TIME, 60L);
  api.curl_easy_setopt(handle, CURLOPT_BUFFERSIZE, 512L * 1024);
  api.curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, on_body);
  api.curl_easy_setopt(handle, CURLOPT_WRITEDATA, owner);
  api.curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, on_header);
  api.curl_easy_setopt(handle, CURLOPT_HEADERDATA, owner);
}

}  // namespace kbdata::hub
