// Test-only: HTTP/1.1 over a raw loopback socket, for tests of kbdata serve: the request is sent
// as written (so that tests can send what no client library would) and the answer read to the end.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace kbdata::testing {

struct Answer {
  int status = 0;
  std::string headers;
  std::string body;
};

// Sends `request` as it is and reads the answer to the end (the request asks to close). With
// `timeout_s`, a server silent for that long ends the wait (an answer without a status, 0).
inline Answer raw(int port, const std::string& request, int timeout_s = 0) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (timeout_s > 0) {
    timeval timeout{timeout_s, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  }
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return {};
  }
  size_t sent = 0;
  while (sent < request.size()) {
    const ssize_t n = ::send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;
    sent += static_cast<size_t>(n);
  }
  std::string all;
  char buffer[65536];
  for (ssize_t n; (n = ::recv(fd, buffer, sizeof buffer, 0)) > 0;) all.append(buffer, n);
  ::close(fd);
  Answer a;
  if (all.size() > 12) a.status = std::atoi(all.c_str() + 9);
  const size_t split = all.find("\r\n\r\n");
  a.headers = all.substr(0, split);
  if (split != std::string::npos) a.body = all.substr(split + 4);
  return a;
}

inline Answer get(int port, const std::string& target, const std::string& host = "") {
  return raw(port, "GET " + target + " HTTP/1.1\r\nHost: " +
                       (host.empty() ? "127.0.0.1:" + std::to_string(port) : host) +
                       "\r\nConnection: close\r\n\r\n");
}

}  // namespace kbdata::testing
