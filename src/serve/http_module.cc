// kbdata-http.so: the HTTP transport (serve/http_backend.h) on cpp-httplib. Nothing here decides
// what is answered: every request goes to kbdata's handler as it came.
#include <httplib.h>

#include <memory>

#include "serve/http_backend.h"

namespace kbdata::serve {
namespace {

class HttplibBackend final : public HttpBackend {
 public:
  int bind(const std::string& host, int port, const BackendLimits& limits) override {
    const size_t threads = limits.threads;
    server_.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
    server_.set_payload_max_length(limits.max_body);
    server_.set_read_timeout(limits.read_timeout_s, 0);
    server_.set_write_timeout(limits.read_timeout_s, 0);
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
  httplib::Server server_;
  HttpHandler handler_;
};

}  // namespace
}  // namespace kbdata::serve

extern "C" __attribute__((visibility("default"))) kbdata::serve::HttpBackend*
kbdata_make_http_backend() {
  return new kbdata::serve::HttplibBackend();
}
