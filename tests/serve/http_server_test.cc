// The request policy of kbdata serve (src/serve/http_server.h), request by request without a
// socket: methods, hosts (DNS rebinding), paths (traversal, encoded steps), sizes, the cache and
// the headers every answer carries.
#include "serve/http_server.h"

#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/error.h"

namespace kbdata::serve {
namespace {

HttpRequest get(const std::string& target, const std::string& host = "127.0.0.1:8000") {
  HttpRequest r;
  r.method = "GET";
  r.target = target;
  // The transport decodes the path (as cpp-httplib does): %XX to bytes, the query cut off.
  std::string path = target.substr(0, target.find('?'));
  std::string decoded;
  for (size_t i = 0; i < path.size(); ++i) {
    if (path[i] == '%' && i + 2 < path.size()) {
      decoded += static_cast<char>(std::stoi(path.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      decoded += path[i];
    }
  }
  r.path = decoded;
  if (!host.empty()) r.headers.emplace("Host", host);
  return r;
}

std::unique_ptr<Server> make_server(ServerOptions options = {}) {
  auto s = std::make_unique<Server>(std::move(options), nullptr);
  s->route("/hello/([a-z]+)", [](const std::smatch& m, const HttpRequest&) {
    HttpResponse r;
    r.body = "hello " + m[1].str();
    return r;
  });
  s->route("/missing", [](const std::smatch&, const HttpRequest&) -> HttpResponse {
    throw NotFoundError("no such thing");
  });
  s->route("/wrong", [](const std::smatch&, const HttpRequest&) -> HttpResponse {
    throw UsageError("a bad query");
  });
  s->route("/broken", [](const std::smatch&, const HttpRequest&) -> HttpResponse {
    throw std::runtime_error("bug");
  });
  s->route("/failed", [](const std::smatch&, const HttpRequest&) -> HttpResponse {
    throw IoError("the disk said no");
  });
  return s;
}

TEST(ServerPolicy, RoutesAnswerAndOthersAre404) {
  auto s = make_server();
  EXPECT_EQ(s->handle(get("/hello/world")).body, "hello world");
  EXPECT_EQ(s->handle(get("/hello/world?x=1")).status, 200);
  EXPECT_EQ(s->handle(get("/hello/World")).status, 404);  // the pattern must match it whole
  EXPECT_EQ(s->handle(get("/hello/world/more")).status, 404);
  EXPECT_EQ(s->handle(get("/")).status, 404);
  EXPECT_EQ(s->handle(get("/missing")).status, 404);
  EXPECT_EQ(s->handle(get("/wrong")).status, 400);
  EXPECT_EQ(s->handle(get("/broken")).status, 500);
}

TEST(ServerPolicy, OnlyGetAndHead) {
  auto s = make_server();
  for (const char* method : {"POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT"}) {
    HttpRequest r = get("/hello/world");
    r.method = method;
    const HttpResponse a = s->handle(r);
    EXPECT_EQ(a.status, 405) << method;
    EXPECT_EQ(a.headers.find("Allow")->second, "GET, HEAD");
  }
  HttpRequest head = get("/hello/world");
  head.method = "HEAD";
  const HttpResponse a = s->handle(head);
  EXPECT_EQ(a.status, 200);
  EXPECT_TRUE(a.body.empty());
}

TEST(ServerPolicy, HostsOfTheLoopbackServer) {
  auto s = make_server();
  for (const char* ok :
       {"127.0.0.1:8000", "localhost:8000", "LOCALHOST:8000", "[::1]:8000", "127.0.0.2:8000"}) {
    EXPECT_EQ(s->handle(get("/hello/a", ok)).status, 200) << ok;
  }
  for (const char* bad :
       {"", "evil.example:8000", "127.0.0.1:8001", "127.0.0.1", "10.0.0.1:8000",
        "localhost.evil.example:8000", "[::1", "[::1]x", "127.0.0.1:8000:1", "attacker:8000"}) {
    EXPECT_EQ(s->handle(get("/hello/a", bad)).status, 403) << bad;
  }
}

TEST(ServerPolicy, HostsOfAServerOnAllAddresses) {
  ServerOptions o;
  o.bind = "0.0.0.0";
  auto s = make_server(o);
  for (const char* ok : {"192.168.1.20:8000", "localhost:8000", "[fe80::1]:8000"}) {
    EXPECT_EQ(s->handle(get("/hello/a", ok)).status, 200) << ok;
  }
  // A DNS-rebinding page reaches the server under its own name: refused.
  for (const char* bad : {"rebind.example:8000", "192.168.1.20:80"}) {
    EXPECT_EQ(s->handle(get("/hello/a", bad)).status, 403) << bad;
  }
}

TEST(ServerPolicy, NoTraversalWhateverTheSpelling) {
  auto s = make_server();
  for (const char* target :
       {"/hello/../hello/a", "/hello/%2e%2e/a", "/hello/%2E%2e/a", "/hello/.%2e/a", "/hello%2fa",
        "/hello%2Fa", "/hello%5ca", "/hello\\a", "//hello/a", "/hello/a%00", "/api/../etc/passwd",
        "/..", "/hello/a/..%2f"}) {
    EXPECT_EQ(s->handle(get(target)).status, 400) << target;
  }
}

TEST(ServerPolicy, LongTargetsAndTooManyRequests) {
  ServerOptions o;
  o.max_target = 64;
  auto s = make_server(o);
  EXPECT_EQ(s->handle(get("/hello/" + std::string(80, 'a'))).status, 414);
  ServerOptions busy;
  busy.max_in_flight = 0;  // this request itself is one too many
  auto t = make_server(busy);
  EXPECT_EQ(t->handle(get("/hello/a")).status, 503);
}

TEST(ServerPolicy, EveryAnswerForbidsInlineScriptAndFraming) {
  auto s = make_server();
  for (const char* target : {"/hello/a", "/nowhere", "/hello/%2e%2e"}) {
    const HttpResponse r = s->handle(get(target));
    const std::string csp = r.headers.find("Content-Security-Policy")->second;
    EXPECT_NE(csp.find("script-src 'self'"), std::string::npos) << target;
    EXPECT_EQ(csp.find("unsafe-inline"), std::string::npos) << target;
    EXPECT_EQ(r.headers.find("X-Content-Type-Options")->second, "nosniff");
    EXPECT_EQ(r.headers.find("X-Frame-Options")->second, "DENY");
  }
}

TEST(ServerPolicy, TheCacheAnswersAgainAndStaysWithinItsBytes) {
  ServerOptions o;
  o.cache_bytes = 4000;
  Server s(o, nullptr);
  int calls = 0;
  s.route("/page/([0-9]+)", [&calls](const std::smatch& m, const HttpRequest&) {
    ++calls;
    HttpResponse r;
    r.body = std::string(500, 'x') + m[1].str();
    return r;
  });
  EXPECT_EQ(s.handle(get("/page/1")).body.size(), 501u);
  EXPECT_EQ(s.handle(get("/page/1")).body.size(), 501u);
  EXPECT_EQ(calls, 1);
  for (int i = 2; i < 40; ++i) (void)s.handle(get("/page/" + std::to_string(i)));
  EXPECT_LE(s.cached_bytes(), 4000u);
  EXPECT_GT(s.cached_bytes(), 3000u);
  const int before = calls;
  (void)s.handle(get("/page/1"));  // long gone from the cache
  EXPECT_EQ(calls, before + 1);
}

// A library's exception is no message for a reader: the page says kbdata failed, the operator's
// log gets the exception; kbdata's own errors are one line meant to be read.
TEST(ServerPolicy, ALibrarysExceptionIsNeverShown) {
  std::vector<std::string> logged;
  ServerOptions o;
  o.log = [&logged](const std::string& line) { logged.push_back(line); };
  auto s = make_server(o);
  s->route("/json", [](const std::smatch&, const HttpRequest&) -> HttpResponse {
    throw std::invalid_argument("[json.exception.type_error.316] invalid UTF-8 byte at index 3");
  });
  for (const char* target : {"/broken", "/json"}) {
    const HttpResponse r = s->handle(get(target));
    EXPECT_EQ(r.status, 500) << target;
    EXPECT_EQ(r.body,
              "500 Internal Server Error: kbdata failed to make this page (an internal "
              "error)\n");
  }
  ASSERT_EQ(logged.size(), 2u);
  EXPECT_EQ(logged[1],
            "internal error answering /json: [json.exception.type_error.316] invalid UTF-8 byte "
            "at index 3");
  const HttpResponse failed = s->handle(get("/failed"));
  EXPECT_EQ(failed.status, 500);
  EXPECT_EQ(failed.body, "500 Internal Server Error: the disk said no\n");
}

// When the data change, the cached answers go: the next answer is made again.
TEST(ServerPolicy, ChangedDataDropTheCache) {
  bool changed = false;
  ServerOptions o;
  o.data_changed = [&changed] { return std::exchange(changed, false); };
  Server s(o, nullptr);
  int calls = 0;
  s.route("/page", [&calls](const std::smatch&, const HttpRequest&) {
    HttpResponse r;
    r.body = "answer " + std::to_string(++calls);
    return r;
  });
  EXPECT_EQ(s.handle(get("/page")).body, "answer 1");
  EXPECT_EQ(s.handle(get("/page")).body, "answer 1");
  changed = true;
  EXPECT_EQ(s.handle(get("/page")).body, "answer 2");
  EXPECT_EQ(s.handle(get("/page")).body, "answer 2");
  EXPECT_GT(s.cached_bytes(), 0u);
}

// An answer made while the data changed under it is not kept.
TEST(ServerPolicy, AnAnswerMadeAcrossAChangeIsNotKept) {
  bool changed = false;
  ServerOptions o;
  o.data_changed = [&changed] { return std::exchange(changed, false); };
  Server s(o, nullptr);
  Server* server = &s;
  int calls = 0;
  s.route("/page", [&](const std::smatch&, const HttpRequest&) {
    ++calls;
    if (calls == 1) {
      changed = true;  // seen by the request below, while this one is still being made
      EXPECT_EQ(server->handle(get("/other")).status, 404);
    }
    HttpResponse r;
    r.body = "answer " + std::to_string(calls);
    return r;
  });
  EXPECT_EQ(s.handle(get("/page")).body, "answer 1");
  EXPECT_EQ(s.handle(get("/page")).body, "answer 2");
}

TEST(Loopback, Addresses) {
  EXPECT_TRUE(is_loopback("127.0.0.1"));
  EXPECT_TRUE(is_loopback("127.1.2.3"));
  EXPECT_TRUE(is_loopback("::1"));
  EXPECT_TRUE(is_loopback("localhost"));
  EXPECT_FALSE(is_loopback("0.0.0.0"));
  EXPECT_FALSE(is_loopback("10.0.0.1"));
  EXPECT_FALSE(is_loopback("127.example"));
}

}  // namespace
}  // namespace kbdata::serve
