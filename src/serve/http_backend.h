// The HTTP transport of `kbdata serve`: cpp-httplib (Debian's libcpp-httplib, which links OpenSSL)
// lives in a module of its own, kbdata-http.so, loaded with dlopen when `serve` starts, so that no
// other command maps OpenSSL at start-up (tests/cli/startup_test.cc). The module only moves bytes:
// every request is handed to kbdata's handler (serve/http_server.h), which decides everything
// (methods, hosts, paths, limits, answers). Both sides are built by the same compiler from this
// header, so they share C++ types.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>

namespace kbdata::serve {

struct HttpRequest {
  std::string method;
  std::string target;                              // as sent: path and query, percent-encoded
  std::string path;                                // decoded by the transport
  std::multimap<std::string, std::string> params;  // the query's, decoded
  std::multimap<std::string, std::string> headers;
  std::string remote_addr;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  std::multimap<std::string, std::string> headers;
};

using HttpHandler = std::function<void(const HttpRequest&, HttpResponse&)>;

struct BackendLimits {
  size_t threads = 8;      // requests served at once
  size_t max_queued = 64;  // requests waiting for a thread; more are refused
  size_t max_body = 0;     // bytes of a request body (GET has none)
  // A request's line and headers must arrive in full within this long of the server being ready
  // for them (the connection accepted, or the previous answer sent), however their bytes are
  // spaced; else the connection is closed. A client that trickles a byte now and then cannot
  // keep a thread.
  int header_timeout_s = 5;
  int write_timeout_s = 5;  // an answer's next bytes wait at most this long for room
  size_t keep_alive_max = 100;
};

class HttpBackend {
 public:
  virtual ~HttpBackend() = default;
  // Binds `host`:`port` (0: a free port) and returns the port; -1 when it cannot.
  virtual int bind(const std::string& host, int port, const BackendLimits& limits) = 0;
  // Serves every request with `handler` until stop(); returns false when it could not listen.
  virtual bool run(HttpHandler handler) = 0;
  // Ends run() (from another thread or a signal-watching thread).
  virtual void stop() = 0;
};

// The module's one entry point (extern "C", found with dlsym): a new backend.
using MakeHttpBackend = HttpBackend* (*)();
inline constexpr const char* kMakeHttpBackend = "kbdata_make_http_backend";

}  // namespace kbdata::serve
