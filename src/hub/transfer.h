// The one engine of the hub's file transfers (docs/hub.md, "Downloading" and "Reading remotely"):
// the bytes of a file of the commit, or of one range of it, fetched over one libcurl multi handle.
// `kbdata pull` (download.cc) and remote reads (remote_file.cc) are its two users; each says where
// the bytes go and what a failure becomes.
//
// A transfer starts at its URL (the file's resolve URL on the hub, or a signed URL it was
// redirected to before) and:
//   - follows redirects by hand: the hub's identity headers (X-Linked-Size, X-Linked-Etag,
//     X-Repo-Commit) must agree with the tree; a redirect to anything but http(s) fails at once;
//     the token goes to the hub's origin only (HubClient::request_headers);
//   - asks for its bytes: `Range: bytes=FIRST-LAST`, or for a whole file in one stream no Range
//     until bytes have arrived, then `Range: bytes=N-`;
//   - takes a 206 only when its Content-Range is exactly the bytes asked for, of a file of the
//     tree's size, and its length agrees;
//   - reads a 200 answering a Range (the server ignored it: the whole file, of the tree's size)
//     until the bytes wanted have passed, and cuts it there: one rule for every transfer;
//   - after a 403 from another origin than the hub (an expired signed URL) goes back to the
//     resolve URL, at most kMaxReresolves times;
//   - retries 408, 429 (waiting what the server asks), 5xx and transient transport failures
//     under the client's RetryBudget, a body cut short resuming after its last byte.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "hub/client.h"
#include "hub/curl_api.h"

namespace kbdata::hub {

class Transfer {
 public:
  using Clock = std::chrono::steady_clock;
  // How the bytes are asked for.
  enum class Ask {
    range,       // always `Range: bytes=FIRST-LAST`
    whole_file,  // [0, size): no Range until bytes arrived, then `Range: bytes=N-`
  };

  // The bytes [start, start + length) of `file`, first asked of `url`; `resolve_url` is where an
  // expired signed URL sends the transfer back. `file` must outlive the transfer.
  Transfer(const TreeFile& file, std::string resolve_url, std::string url, uint64_t start,
           uint64_t length, Ask ask);
  virtual ~Transfer() = default;
  Transfer(const Transfer&) = delete;
  Transfer& operator=(const Transfer&) = delete;

  // Takes the bytes [offset, offset + bytes.size()) of the file, which continue those taken
  // before. Throws Error to fail the transfer with its message.
  virtual void write(uint64_t offset, std::span<const uint8_t> bytes) = 0;
  // Every byte of the transfer is in (`url()` is where the last ones came from).
  virtual void complete() = 0;
  // Throws the error the transfer ends with when it fails for good with `reason` (one line).
  [[noreturn]] virtual void fail(const std::string& reason) const = 0;

  [[nodiscard]] const TreeFile& file() const { return file_; }
  [[nodiscard]] const std::string& url() const { return url_; }
  [[nodiscard]] uint64_t start() const { return start_; }
  [[nodiscard]] uint64_t length() const { return length_; }
  [[nodiscard]] uint64_t received() const { return received_; }

 private:
  friend class TransferEngine;
  [[nodiscard]] uint64_t first_wanted() const { return start_ + received_; }
  [[nodiscard]] uint64_t end() const { return start_ + length_; }
  // Whether the answer just started is the bytes wanted; throws when it cannot fit what was
  // asked. Called at its first body bytes.
  bool start_body(long status, int64_t content_length);
  // Takes a piece of the body; returns false when the rest of the body is not wanted.
  bool take_body(std::span<const uint8_t> piece);

  const TreeFile& file_;
  std::string resolve_url_;
  std::string url_;
  uint64_t start_;
  uint64_t length_;
  Ask ask_;
  uint64_t received_ = 0;  // bytes of the transfer taken so far
  uint64_t received_at_failure_ = 0;
  int tries_ = 0;  // failed tries since the last one that brought bytes
  int reresolves_ = 0;
  int redirects_ = 0;
  Clock::time_point start_at_;  // when the next request may start
  bool done_ = false;

  // The request in flight.
  CURL* easy_ = nullptr;
  curl_slist* list_ = nullptr;
  Headers headers_;
  bool checked_ = false;        // the response's first body bytes were seen
  bool is_data_ = false;        // the response's body is the file's bytes
  bool whole_body_ = false;     // a 200: the body is the whole file
  uint64_t body_position_ = 0;  // of the next body byte in the file (whole_body_)
  std::string fatal_;           // set by a callback
  uint64_t* body_bytes_ = nullptr;
};

class TransferEngine {
 public:
  static constexpr int kMaxRedirects = 10;
  static constexpr int kMaxReresolves = 3;

  // Transfers of files of `commit` through `client` (its token rule and retry budget). Throws
  // IoError if libcurl cannot be loaded, NetworkError if it cannot make a multi handle.
  TransferEngine(HubClient& client, std::string commit);
  ~TransferEngine();
  TransferEngine(const TransferEngine&) = delete;
  TransferEngine& operator=(const TransferEngine&) = delete;

  // Runs `transfers` until each is complete, at most `parallel` requests in flight. After each
  // round of the multi handle, `after_round` (when set) is called; while it returns true the
  // engine keeps polling even with no transfer left (work of the caller's that wake() ends).
  // Throws what a transfer's fail() throws (the transfers still in flight are abandoned), and
  // NetworkError when libcurl fails.
  void run(std::deque<Transfer*> transfers, int parallel,
           const std::function<bool()>& after_round = {});

  // Makes the engine's poll return; safe from any thread while the engine lives.
  void wake();

  // HTTP requests made (redirects and retries included), body bytes received (bytes passed over
  // or received again included).
  [[nodiscard]] uint64_t requests() const { return requests_; }
  [[nodiscard]] uint64_t body_bytes() const { return body_bytes_; }

 private:
  // libcurl's callbacks; `owner` is the Transfer.
  static size_t on_body(char* data, size_t one, size_t size, void* owner);
  static size_t on_header(char* data, size_t one, size_t size, void* owner);
  void start(Transfer& t);
  void stop(Transfer& t);
  // What a finished request means: the transfer complete, its next request, a retry, or its
  // failure.
  void finish(Transfer& t, CURLcode code);

  HubClient& client_;
  std::string commit_;
  CURLM* multi_ = nullptr;
  std::vector<Transfer*> active_;
  uint64_t requests_ = 0;
  uint64_t body_bytes_ = 0;
};

}  // namespace kbdata::hub
