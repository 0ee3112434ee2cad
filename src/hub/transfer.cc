#include "hub/transfer.h"

#include <algorithm>
#include <cstring>

#include "common/error.h"

namespace kbdata::hub {
namespace {

// A failure that no retry can fix; its message becomes the transfer's error.
class Fatal : public Error {
 public:
  using Error::Error;
};

uint64_t parse_number(const std::string& text, bool& ok) {
  uint64_t value = 0;
  ok = !text.empty() && text.size() <= 19;
  for (char c : text) {
    if (c < '0' || c > '9') ok = false;
    value = value * 10 + static_cast<uint64_t>(c - '0');
  }
  return value;
}

std::string unquote_etag(std::string etag) {
  if (etag.rfind("W/", 0) == 0) etag = etag.substr(2);
  if (etag.size() >= 2 && etag.front() == '"' && etag.back() == '"') {
    etag = etag.substr(1, etag.size() - 2);
  }
  return etag;
}

}  // namespace

Transfer::Transfer(const TreeFile& file, std::string resolve_url, std::string url, uint64_t start,
                   uint64_t length, Ask ask)
    : file_(file),
      resolve_url_(std::move(resolve_url)),
      url_(std::move(url)),
      start_(start),
      length_(length),
      ask_(ask) {}

bool Transfer::start_body(long status, int64_t content_length) {
  if (status != 200 && status != 206) return false;
  whole_body_ = false;
  if (status == 206) {
    // "bytes FIRST-LAST/SIZE": exactly the bytes asked for, of a file of the tree's size.
    const auto it = headers_.find("content-range");
    const std::string range = it != headers_.end() ? it->second : "";
    const size_t dash = range.find('-');
    const size_t slash = range.find('/');
    bool ok_first = false;
    bool ok_last = false;
    bool ok_size = false;
    const bool shaped = range.rfind("bytes ", 0) == 0 && dash != std::string::npos &&
                        slash != std::string::npos && dash < slash;
    const uint64_t first = shaped ? parse_number(range.substr(6, dash - 6), ok_first) : 0;
    const uint64_t last =
        shaped ? parse_number(range.substr(dash + 1, slash - dash - 1), ok_last) : 0;
    const uint64_t size = shaped ? parse_number(range.substr(slash + 1), ok_size) : 0;
    if (!ok_first || !ok_last || !ok_size || first != first_wanted() || last != end() - 1 ||
        size != file_.size) {
      throw Fatal("asked for bytes " + std::to_string(first_wanted()) + "-" +
                  std::to_string(end() - 1) + " of " + std::to_string(file_.size) +
                  ", the server answered '" + printable(range) + "'");
    }
    if (content_length >= 0 && static_cast<uint64_t>(content_length) != last - first + 1) {
      throw Fatal("the server announces " + std::to_string(content_length) +
                  " bytes for the range " + std::to_string(first) + "-" + std::to_string(last));
    }
    return true;
  }
  // A 200: the whole file (a Range the server ignored, or none asked), of the tree's size. Its
  // bytes before those wanted are passed over, and it is cut once they are in.
  if (content_length >= 0 && static_cast<uint64_t>(content_length) != file_.size) {
    throw Fatal("the server announces " + std::to_string(content_length) +
                " bytes; the tree says " + std::to_string(file_.size));
  }
  whole_body_ = true;
  body_position_ = 0;
  return true;
}

bool Transfer::take_body(std::span<const uint8_t> piece) {
  if (whole_body_) {
    const uint64_t piece_start = body_position_;
    const uint64_t piece_end = piece_start + piece.size();
    body_position_ = piece_end;
    if (piece_end > file_.size) {
      throw Fatal("the server sends more than the " + std::to_string(file_.size) +
                  " bytes the tree lists");
    }
    const uint64_t from = std::max(piece_start, first_wanted());
    const uint64_t to = std::min(piece_end, end());
    if (from < to) {
      write(from, piece.subspan(from - piece_start, to - from));
      received_ = to - start_;
    }
    // The bytes wanted are in: the rest of the file is not.
    return !(received_ == length_ && piece_end < file_.size);
  }
  if (received_ + piece.size() > length_) {
    throw Fatal(ask_ == Ask::whole_file ? "the server sends more than the " +
                                              std::to_string(file_.size) + " bytes the tree lists"
                                        : "the server sends more than the " +
                                              std::to_string(length_) + " bytes asked for");
  }
  write(first_wanted(), piece);
  received_ += piece.size();
  return true;
}

TransferEngine::TransferEngine(HubClient& client, std::string commit)
    : client_(client), commit_(std::move(commit)) {
  multi_ = curl().curl_multi_init();
  if (multi_ == nullptr) throw NetworkError("libcurl could not create a transfer handle");
}

TransferEngine::~TransferEngine() {
  for (Transfer* t : active_) stop(*t);
  curl().curl_multi_cleanup(multi_);
}

void TransferEngine::wake() { curl().curl_multi_wakeup(multi_); }

size_t TransferEngine::on_body(char* data, size_t, size_t size, void* owner) {
  auto& t = *static_cast<Transfer*>(owner);
  try {
    if (!t.checked_) {
      t.checked_ = true;
      long status = 0;
      curl_off_t length = -1;
      curl().curl_easy_getinfo(t.easy_, CURLINFO_RESPONSE_CODE, &status);
      curl().curl_easy_getinfo(t.easy_, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length);
      t.is_data_ = t.start_body(status, length);
    }
    if (!t.is_data_) return size;
    *t.body_bytes_ += size;
    return t.take_body(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(data), size))
               ? size
               : 0;  // ends the transfer
  } catch (const Error& e) {
    t.fatal_ = e.what();
    return 0;  // aborts the transfer
  }
}

size_t TransferEngine::on_header(char* data, size_t, size_t size, void* owner) {
  add_header_line(data, size, static_cast<Transfer*>(owner)->headers_);
  return size;
}

void TransferEngine::run(std::deque<Transfer*> queue, int parallel,
                         const std::function<bool()>& after_round) {
  using Clock = Transfer::Clock;
  parallel = std::max(parallel, 1);
  try {
    bool waiting = false;  // the caller's work after the last round
    while (!queue.empty() || !active_.empty() || waiting) {
      while (static_cast<int>(active_.size()) < parallel && !queue.empty()) {
        Transfer* t = queue.front();
        queue.pop_front();
        t->start_at_ = Clock::now();
        t->done_ = false;
        active_.push_back(t);
      }
      const Clock::time_point now = Clock::now();
      auto timeout = std::chrono::milliseconds(100);
      for (Transfer* t : active_) {
        if (t->easy_ != nullptr) continue;
        if (t->start_at_ <= now) {
          start(*t);
        } else {
          timeout = std::min(
              timeout, std::chrono::duration_cast<std::chrono::milliseconds>(t->start_at_ - now) +
                           std::chrono::milliseconds(1));
        }
      }
      int running = 0;
      const CURLMcode mcode = curl().curl_multi_perform(multi_, &running);
      if (mcode != CURLM_OK) {
        throw NetworkError(std::string("libcurl: ") + curl().curl_multi_strerror(mcode));
      }
      int left = 0;
      while (CURLMsg* message = curl().curl_multi_info_read(multi_, &left)) {
        if (message->msg != CURLMSG_DONE) continue;
        Transfer* t = nullptr;
        curl().curl_easy_getinfo(message->easy_handle, CURLINFO_PRIVATE, &t);
        finish(*t, message->data.result);
      }
      std::erase_if(active_, [](const Transfer* t) { return t->done_; });
      waiting = after_round ? after_round() : false;
      if (!active_.empty() || waiting) {
        curl().curl_multi_poll(multi_, nullptr, 0, static_cast<int>(timeout.count()), nullptr);
      }
    }
  } catch (...) {
    for (Transfer* t : active_) stop(*t);
    active_.clear();
    throw;
  }
}

void TransferEngine::start(Transfer& t) {
  const CurlApi& api = curl();
  t.easy_ = api.curl_easy_init();
  if (t.easy_ == nullptr) throw NetworkError("libcurl could not create a request");
  std::vector<std::string> headers = client_.request_headers(t.url_);
  if (t.ask_ == Transfer::Ask::range) {
    headers.push_back("Range: bytes=" + std::to_string(t.first_wanted()) + "-" +
                      std::to_string(t.end() - 1));
  } else if (t.received_ > 0) {
    headers.push_back("Range: bytes=" + std::to_string(t.first_wanted()) + "-");
  }
  for (const std::string& header : headers) {
    t.list_ = api.curl_slist_append(t.list_, header.c_str());
  }
  t.headers_.clear();
  t.checked_ = false;
  t.is_data_ = false;
  t.whole_body_ = false;
  t.fatal_.clear();
  t.body_bytes_ = &body_bytes_;
  set_transfer_options(t.easy_, t.url_.c_str(), t.list_, &t, &on_body, &on_header);
  api.curl_multi_add_handle(multi_, t.easy_);
  ++requests_;
}

void TransferEngine::stop(Transfer& t) {
  if (t.easy_ != nullptr) {
    curl().curl_multi_remove_handle(multi_, t.easy_);
    curl().curl_easy_cleanup(t.easy_);
    t.easy_ = nullptr;
  }
  if (t.list_ != nullptr) {
    curl().curl_slist_free_all(t.list_);
    t.list_ = nullptr;
  }
}

void TransferEngine::finish(Transfer& t, CURLcode code) {
  using Clock = Transfer::Clock;
  const CurlApi& api = curl();
  long status = 0;
  api.curl_easy_getinfo(t.easy_, CURLINFO_RESPONSE_CODE, &status);
  char* location = nullptr;
  api.curl_easy_getinfo(t.easy_, CURLINFO_REDIRECT_URL, &location);
  const std::string next = location != nullptr ? location : "";
  const std::string origin = url_origin(t.url_);
  const std::string transport = code != CURLE_OK ? api.curl_easy_strerror(code) : "";
  stop(t);
  if (!t.fatal_.empty()) t.fail(t.fatal_);
  const TreeFile& file = t.file_;

  if (code == CURLE_OK && status >= 300 && status < 400) {
    // The hub's identity headers must agree with the tree.
    if (auto it = t.headers_.find("x-linked-size"); it != t.headers_.end()) {
      bool ok = false;
      if (parse_number(it->second, ok) != file.size || !ok) {
        t.fail("the hub announces a size of '" + printable(it->second) + "'; the tree says " +
               std::to_string(file.size));
      }
    }
    if (auto it = t.headers_.find("x-linked-etag"); it != t.headers_.end() && file.lfs) {
      if (unquote_etag(it->second) != file.etag) {
        t.fail("the hub announces the etag '" + printable(it->second) + "'; the tree says " +
               file.etag);
      }
    }
    if (auto it = t.headers_.find("x-repo-commit"); it != t.headers_.end()) {
      if (it->second != commit_) {
        t.fail("the hub answers for commit '" + printable(it->second) + "', not " + commit_);
      }
    }
    if (next.empty() || ++t.redirects_ > kMaxRedirects) {
      t.fail("too many or broken redirects (HTTP " + std::to_string(status) + " from " + origin +
             ")");
    }
    if (const std::string refusal = redirect_refusal(next); !refusal.empty()) {
      t.fail(refusal + " (HTTP " + std::to_string(status) + " from " + origin + ")");
    }
    t.url_ = next;
    t.start_at_ = Clock::now();
    return;
  }
  // Every byte is in (a connection that broke after the last one included, or a whole file cut
  // once the bytes wanted were in).
  if ((status == 200 || status == 206) && t.received_ == t.length_ &&
      (code == CURLE_OK || t.is_data_)) {
    t.done_ = true;
    t.complete();
    return;
  }
  if (code == CURLE_OK && status == 403 && !client_.is_hub_url(t.url_)) {
    // An expired signed URL: ask the hub for a new one.
    if (++t.reresolves_ > kMaxReresolves) {
      t.fail("the signed URL from " + origin + " still answers HTTP 403 after " +
             std::to_string(kMaxReresolves) + " new ones");
    }
    t.url_ = t.resolve_url_;
    t.redirects_ = 0;
    t.start_at_ = Clock::now();
    return;
  }
  std::string failure;
  const auto wait = client_.budget().after_failed_try(
      code != CURLE_OK, transient_failure(code), transport, status, t.received_, t.length_, origin,
      t.headers_, t.tries_, t.received_at_failure_, failure);
  if (!wait) t.fail(failure);
  t.start_at_ = Clock::now() + *wait;
}

}  // namespace kbdata::hub
