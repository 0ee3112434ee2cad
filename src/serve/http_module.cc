// kbdata-http.so: the HTTP transport (serve/http_backend.h) on cpp-httplib. Nothing here decides
// what is answered: every request goes to kbdata's handler as it came.
//
// cpp-httplib serves each connection on one of its threads and drops a client only after a
// silence of its read timeout, so a client that sends one byte of its headers every few seconds
// holds a thread for ever: a few such connections left no thread to answer anyone. Here a
// connection's requests are read through DeadlineStream instead: each request's line and headers
// must have arrived in full within BackendLimits::header_timeout_s of the moment the server was
// ready for them (the connection accepted, or the previous answer sent), however the bytes are
// spaced; past that the connection is closed.
#include <httplib.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "serve/http_backend.h"

namespace kbdata::serve {
namespace {

using Clock = std::chrono::steady_clock;

// `sock`'s address (getpeername or getsockname) as a numeric host and a port.
template <typename GetName>
void address_of(int sock, GetName get_name, std::string& ip, int& port) {
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  if (get_name(sock, reinterpret_cast<sockaddr*>(&address), &length) != 0) return;
  char host[NI_MAXHOST];
  char service[NI_MAXSERV];
  if (::getnameinfo(reinterpret_cast<sockaddr*>(&address), length, host, sizeof host, service,
                    sizeof service, NI_NUMERICHOST | NI_NUMERICSERV) == 0) {
    ip = host;
    port = std::atoi(service);
  }
}

// One connection's socket, for httplib's request reader and answer writer. Reads end at the
// deadline of the request being read (set_deadline); each write waits at most `write_timeout`
// for room. Bytes read ahead are kept for the next request (a pipelined one).
class DeadlineStream final : public httplib::Stream {
 public:
  DeadlineStream(int sock, std::chrono::milliseconds write_timeout)
      : sock_(sock), write_timeout_(write_timeout) {}

  void set_deadline(Clock::time_point deadline) { deadline_ = deadline; }

  // Waits until the next request's first byte is there (or buffered), the deadline passes or
  // `stopping` says the server stops; true in the first case (or when the client closed: the
  // request reader then sees the end).
  template <typename Stopping>
  bool wait_for_request(Stopping stopping) {
    while (buffered_ == consumed_) {
      if (stopping()) return false;
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - Clock::now());
      if (left.count() <= 0) return false;
      // In slices, so that a stopping server does not wait for idle connections.
      const int ready = wait(POLLIN, std::min<int64_t>(left.count(), 100));
      if (ready < 0) return false;
      if (ready > 0) return true;
    }
    return true;
  }

  bool is_readable() const override {
    if (buffered_ > consumed_) return true;
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - Clock::now());
    if (left.count() > 0 && wait(POLLIN, static_cast<int>(left.count())) > 0) return true;
    timed_out_ = true;
    return false;
  }

  // A read ended at the deadline: the connection is not to serve another request.
  [[nodiscard]] bool timed_out() const { return timed_out_; }

  bool is_writable() const override {
    return wait(POLLOUT, static_cast<int>(write_timeout_.count())) > 0;
  }

  ssize_t read(char* ptr, size_t size) override {
    if (buffered_ == consumed_) {
      if (!is_readable()) return -1;
      ssize_t n;
      do {
        n = ::recv(sock_, buffer_, sizeof buffer_, 0);
      } while (n < 0 && errno == EINTR);
      if (n <= 0) return n;
      buffered_ = static_cast<size_t>(n);
      consumed_ = 0;
    }
    const size_t n = std::min(size, buffered_ - consumed_);
    std::memcpy(ptr, buffer_ + consumed_, n);
    consumed_ += n;
    return static_cast<ssize_t>(n);
  }

  ssize_t write(const char* ptr, size_t size) override {
    if (!is_writable()) return -1;
    ssize_t n;
    do {
      n = ::send(sock_, ptr, size, MSG_NOSIGNAL);
    } while (n < 0 && errno == EINTR);
    return n;
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    address_of(sock_, ::getpeername, ip, port);
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    address_of(sock_, ::getsockname, ip, port);
  }
  socket_t socket() const override { return sock_; }

 private:
  // poll()'s answer for `events` within `timeout_ms`, EINTR retried.
  int wait(short events, int timeout_ms) const {
    pollfd fd{sock_, events, 0};
    int ready;
    do {
      ready = ::poll(&fd, 1, std::max(timeout_ms, 0));
    } while (ready < 0 && errno == EINTR);
    return ready;
  }

  int sock_;
  std::chrono::milliseconds write_timeout_;
  Clock::time_point deadline_ = Clock::now();
  mutable bool timed_out_ = false;
  char buffer_[4096];
  size_t buffered_ = 0;
  size_t consumed_ = 0;
};

class DeadlineServer final : public httplib::Server {
 public:
  void set_header_timeout(std::chrono::seconds timeout) { header_timeout_ = timeout; }

 private:
  // httplib's own loop (keep-alive, at most keep_alive_max_count_ requests), read through a
  // DeadlineStream: each request's line and headers within header_timeout_.
  bool process_and_close_socket(socket_t sock) override {
    DeadlineStream stream(sock, std::chrono::duration_cast<std::chrono::milliseconds>(
                                    std::chrono::seconds(write_timeout_sec_) +
                                    std::chrono::microseconds(write_timeout_usec_)));
    bool ok = true;
    for (size_t left = keep_alive_max_count_; left > 0; --left) {
      stream.set_deadline(Clock::now() + header_timeout_);
      if (!stream.wait_for_request([this] { return svr_sock_ == INVALID_SOCKET; })) break;
      bool closed = false;
      ok = process_request(stream, left == 1, closed, nullptr);
      if (!ok || closed || stream.timed_out()) break;
    }
    ::shutdown(sock, SHUT_RDWR);
    ::close(sock);
    return ok;
  }

  std::chrono::seconds header_timeout_{5};
};

class HttplibBackend final : public HttpBackend {
 public:
  int bind(const std::string& host, int port, const BackendLimits& limits) override {
    const size_t threads = limits.threads;
    server_.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
    server_.set_payload_max_length(limits.max_body);
    server_.set_header_timeout(std::chrono::seconds(limits.header_timeout_s));
    server_.set_write_timeout(limits.write_timeout_s, 0);
    server_.set_keep_alive_max_count(limits.keep_alive_max);
    if (port == 0) return server_.bind_to_any_port(host);
    return server_.bind_to_port(host, port) ? port : -1;
  }

  bool run(HttpHandler handler) override {
    handler_ = std::move(handler);
    // Every method, every path: the handler answers them all, refusals included.
    server_.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
      HttpRequest in;
      in.method = req.method;
      in.target = req.target;
      in.path = req.path;
      for (const auto& [k, v] : req.params) in.params.emplace(k, v);
      for (const auto& [k, v] : req.headers) in.headers.emplace(k, v);
      in.remote_addr = req.remote_addr;
      HttpResponse out;
      handler_(in, out);
      res.status = out.status;
      for (const auto& [k, v] : out.headers) res.set_header(k, v);
      res.set_content(out.body, out.content_type);
      return httplib::Server::HandlerResponse::Handled;
    });
    return server_.listen_after_bind();
  }

  void stop() override { server_.stop(); }

 private:
  DeadlineServer server_;
  HttpHandler handler_;
};

}  // namespace
}  // namespace kbdata::serve

extern "C" __attribute__((visibility("default"))) kbdata::serve::HttpBackend*
kbdata_make_http_backend() {
  return new kbdata::serve::HttplibBackend();
}
