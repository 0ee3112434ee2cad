// The web server of `kbdata serve` (docs/serve.md): routes of pages and their JSON twins behind one
// request policy, over the transport module (http_backend.h, loaded with dlopen).
//
// The policy, in order, for every request (handle()):
//   1. more than max_in_flight requests at once: 503
//   2. a method other than GET or HEAD: 405 (Allow: GET, HEAD); the server never writes anything
//   3. a target longer than max_target bytes: 414
//   4. a Host header that is missing, names another port, or names a host other than localhost,
//      an IP literal or the bound address (a DNS-rebinding page's own name): 403; when bound to
//      loopback, only localhost and loopback literals
//   5. a path (as sent or decoded) holding "..", a backslash, a NUL, "//" or an encoded dot, slash
//      or backslash: 400; no route serves files, so nothing can be listed or escaped to
//   6. a route whose pattern matches the whole decoded path answers; else 404
// A route that throws NotFoundError answers 404, UsageError 400, another kbdata::Error 500 with its
// one line; any other exception (a library's: its text is no message for a reader) 500 with a
// fixed line, the exception going to ServerOptions::log.
// Answers carry Content-Security-Policy (no inline script: scripts come from the server's own
// /static/), X-Content-Type-Options: nosniff, X-Frame-Options: DENY and Referrer-Policy:
// no-referrer. Answers of routes marked cacheable are kept, by target, in a cache bounded in bytes
// (least recently used first out), until ServerOptions::data_changed says the data changed.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <regex>
#include <string>
#include <unordered_map>
#include <vector>

#include "serve/http_backend.h"

namespace kbdata::serve {

struct ServerOptions {
  std::string bind = "127.0.0.1";
  int port = 8000;  // 0: a free port
  size_t threads = 8;
  size_t max_in_flight = 32;
  size_t max_target = 4096;
  size_t cache_bytes = size_t{64} << 20;
  // Asked before every answer: true when the data changed since it was last asked; the cached
  // answers are then dropped (and answers being made from the old data are not kept). May be
  // empty: the data never change.
  std::function<bool()> data_changed;
  // Gets a line for the operator (an exception that is no kbdata::Error); may be empty.
  std::function<void(const std::string&)> log;
};

// What a route's handler answers: a status (200 unless set), a type and a body.
using RouteHandler = std::function<HttpResponse(const std::smatch& match, const HttpRequest&)>;

// Whether `address` is a loopback address or name (127.0.0.0/8, ::1, localhost).
[[nodiscard]] bool is_loopback(const std::string& address);

class Server {
 public:
  // `backend` may be null for a server that only handles requests given to handle() (tests).
  Server(ServerOptions options, std::unique_ptr<HttpBackend> backend);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Adds a route: `pattern` (ECMAScript) must match the whole decoded path.
  void route(const std::string& pattern, RouteHandler handler, bool cacheable = true);

  // Binds and returns the port. Throws IoError when the address cannot be bound.
  int bind();
  // Serves until stop(). Throws IoError when it cannot listen.
  void run();
  // Ends run() from another thread, whether run() listens yet or not (it then returns at once),
  // and returns when run() has. REQUIRES: run() is called, before or after.
  void stop();

  // The policy and the routes, for one request.
  [[nodiscard]] HttpResponse handle(const HttpRequest& request);

  // Bytes the cache holds.
  [[nodiscard]] size_t cached_bytes() const;

 private:
  struct Route {
    std::regex pattern;
    RouteHandler handler;
    bool cacheable;
  };
  [[nodiscard]] bool host_allowed(const std::string& host) const;
  [[nodiscard]] HttpResponse answer(const HttpRequest& request);
  // Keeps `response` unless the cache was dropped since `generation` (data_changed).
  void remember(const std::string& key, const HttpResponse& response, uint64_t generation);

  ServerOptions options_;
  std::unique_ptr<HttpBackend> backend_;
  std::vector<Route> routes_;
  int port_ = 0;
  std::atomic<size_t> in_flight_{0};
  std::atomic<bool> stop_requested_{false};
  std::atomic<bool> run_returned_{false};

  mutable std::mutex cache_mutex_;
  std::list<std::pair<std::string, HttpResponse>> cache_;  // most recently used first
  std::unordered_map<std::string, std::list<std::pair<std::string, HttpResponse>>::iterator>
      cache_index_;
  size_t cache_size_ = 0;
  uint64_t generation_ = 0;  // how many times the cache was dropped
};

// The page of an error, as text: "404 Not Found: ...".
[[nodiscard]] HttpResponse error_response(int status, const std::string& message);

}  // namespace kbdata::serve
