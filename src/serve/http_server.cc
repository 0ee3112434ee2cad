#include "serve/http_server.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <thread>

#include "common/error.h"

namespace kbdata::serve {
namespace {

const char* reason(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 414:
      return "URI Too Long";
    case 500:
      return "Internal Server Error";
    case 503:
      return "Service Unavailable";
    default:
      return "Error";
  }
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool is_ipv4(const std::string& s) {
  in_addr a{};
  return ::inet_pton(AF_INET, s.c_str(), &a) == 1;
}

bool is_ipv6(const std::string& s) {
  in6_addr a{};
  return ::inet_pton(AF_INET6, s.c_str(), &a) == 1;
}

// A path a route may see: no parent step, backslash, NUL or empty segment, as sent or decoded, and
// no encoded dot, slash or backslash as sent (an encoded step would decode into one).
bool safe_path(const std::string& target, const std::string& path) {
  const std::string raw = lower(target.substr(0, target.find('?')));
  for (const char* bad : {"%2e", "%2f", "%5c", "%00", "..", "\\", "//"}) {
    if (raw.find(bad) != std::string::npos) return false;
  }
  if (path.empty() || path[0] != '/') return false;
  if (path.find("..") != std::string::npos || path.find('\\') != std::string::npos ||
      path.find('\0') != std::string::npos || path.find("//") != std::string::npos) {
    return false;
  }
  return true;
}

void secure(HttpResponse& r) {
  r.headers.emplace("Content-Security-Policy",
                    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' "
                    "data:; connect-src 'self'; base-uri 'none'; form-action 'self'; "
                    "frame-ancestors 'none'");
  r.headers.emplace("X-Content-Type-Options", "nosniff");
  r.headers.emplace("X-Frame-Options", "DENY");
  r.headers.emplace("Referrer-Policy", "no-referrer");
}

}  // namespace

bool is_loopback(const std::string& address) {
  const std::string a = lower(address);
  if (a == "localhost" || a == "::1" || a == "[::1]") return true;
  return is_ipv4(a) && a.rfind("127.", 0) == 0;
}

HttpResponse error_response(int status, const std::string& message) {
  HttpResponse r;
  r.status = status;
  r.content_type = "text/plain; charset=utf-8";
  r.body = std::to_string(status) + " " + reason(status) + ": " + message + "\n";
  return r;
}

Server::Server(ServerOptions options, std::unique_ptr<HttpBackend> backend)
    : options_(std::move(options)), backend_(std::move(backend)) {
  port_ = options_.port;
}

Server::~Server() = default;

void Server::route(const std::string& pattern, RouteHandler handler, bool cacheable) {
  routes_.push_back({std::regex(pattern, std::regex::ECMAScript), std::move(handler), cacheable});
}

int Server::bind() {
  BackendLimits limits;
  limits.threads = options_.threads;
  const int port = backend_->bind(options_.bind, options_.port, limits);
  if (port <= 0) {
    throw IoError("cannot listen on " + options_.bind + ":" + std::to_string(options_.port) +
                  " (in use, or not an address of this machine)");
  }
  port_ = port;
  return port;
}

void Server::run() {
  struct Returned {
    std::atomic<bool>& flag;
    ~Returned() { flag = true; }
  } returned{run_returned_};
  if (stop_requested_) return;
  if (!backend_->run([this](const HttpRequest& in, HttpResponse& out) { out = handle(in); })) {
    throw IoError("cannot serve on " + options_.bind + ":" + std::to_string(port_));
  }
}

void Server::stop() {
  stop_requested_ = true;
  if (!backend_) return;
  // The transport ignores a stop that comes before it listens: asked again until run() returns.
  while (!run_returned_) {
    backend_->stop();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

bool Server::host_allowed(const std::string& host_header) const {
  std::string host = lower(host_header);
  std::string port;
  if (!host.empty() && host[0] == '[') {
    const size_t close = host.find(']');
    if (close == std::string::npos) return false;
    if (close + 1 < host.size()) {
      if (host[close + 1] != ':') return false;
      port = host.substr(close + 2);
    }
    host = host.substr(1, close - 1);
    if (!is_ipv6(host)) return false;
  } else {
    const size_t colon = host.find(':');
    if (colon != std::string::npos) {
      port = host.substr(colon + 1);
      host = host.substr(0, colon);
    }
  }
  if (!port.empty() && port != std::to_string(port_)) return false;
  if (port.empty() && port_ != 80) return false;
  if (is_loopback(options_.bind)) return is_loopback(host);
  // Bound to another address: IP literals (a rebinding page has a name) and localhost.
  return host == "localhost" || is_ipv4(host) || is_ipv6(host) || host == lower(options_.bind);
}

HttpResponse Server::handle(const HttpRequest& request) {
  struct InFlight {
    std::atomic<size_t>& n;
    explicit InFlight(std::atomic<size_t>& c) : n(c) { ++n; }
    ~InFlight() { --n; }
  } in_flight(in_flight_);
  HttpResponse r;
  if (in_flight_.load() > options_.max_in_flight) {
    r = error_response(503, "too many requests at once; try again");
  } else if (request.method != "GET" && request.method != "HEAD") {
    r = error_response(405, "only GET and HEAD: this server changes nothing");
    r.headers.emplace("Allow", "GET, HEAD");
  } else if (request.target.size() > options_.max_target) {
    r = error_response(
        414, "the request target is longer than " + std::to_string(options_.max_target) + " bytes");
  } else {
    auto host = request.headers.find("Host");
    if (host == request.headers.end()) host = request.headers.find("host");
    if (host == request.headers.end() || !host_allowed(host->second)) {
      r = error_response(
          403, "Host not allowed: this server answers only to " +
                   (is_loopback(options_.bind) ? std::string("localhost") : options_.bind) + ":" +
                   std::to_string(port_));
    } else if (!safe_path(request.target, request.path)) {
      r = error_response(400, "not a path this server serves");
    } else {
      r = answer(request);
    }
  }
  secure(r);
  if (request.method == "HEAD") r.body.clear();
  return r;
}

HttpResponse Server::answer(const HttpRequest& request) {
  const bool changed = options_.data_changed && options_.data_changed();
  uint64_t generation = 0;
  {
    std::lock_guard lock(cache_mutex_);
    if (changed) {
      cache_.clear();
      cache_index_.clear();
      cache_size_ = 0;
      ++generation_;
    }
    generation = generation_;
    auto it = cache_index_.find(request.target);
    if (it != cache_index_.end()) {
      cache_.splice(cache_.begin(), cache_, it->second);
      return it->second->second;
    }
  }
  for (const Route& route : routes_) {
    std::smatch match;
    if (!std::regex_match(request.path, match, route.pattern)) continue;
    HttpResponse r;
    try {
      r = route.handler(match, request);
    } catch (const NotFoundError& e) {
      r = error_response(404, e.what());
    } catch (const UsageError& e) {
      r = error_response(400, e.what());
    } catch (const Error& e) {
      r = error_response(500, e.what());
    } catch (const std::exception& e) {
      r = error_response(500, "kbdata failed to make this page (an internal error)");
      if (options_.log) {
        options_.log("internal error answering " + request.target + ": " + e.what());
      }
    }
    if (route.cacheable && r.status == 200) remember(request.target, r, generation);
    return r;
  }
  return error_response(404, "no page at " + request.path);
}

void Server::remember(const std::string& key, const HttpResponse& response, uint64_t generation) {
  const size_t size = key.size() + response.body.size();
  if (size > options_.cache_bytes / 4) return;  // one answer never takes most of the cache
  std::lock_guard lock(cache_mutex_);
  if (generation != generation_ || cache_index_.contains(key)) return;
  cache_.emplace_front(key, response);
  cache_index_[key] = cache_.begin();
  cache_size_ += size;
  while (cache_size_ > options_.cache_bytes && !cache_.empty()) {
    auto& last = cache_.back();
    cache_size_ -= last.first.size() + last.second.body.size();
    cache_index_.erase(last.first);
    cache_.pop_back();
  }
}

size_t Server::cached_bytes() const {
  std::lock_guard lock(cache_mutex_);
  return cache_size_;
}

}  // namespace kbdata::serve
