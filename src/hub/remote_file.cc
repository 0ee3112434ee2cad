#include "hub/remote_file.h"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstring>
#include <deque>
#include <thread>

#include "common/error.h"
#include "common/text.h"
#include "hub/curl_api.h"

namespace kbdata::hub {

namespace {

using Clock = std::chrono::steady_clock;

constexpr int kMaxRedirects = 10;
constexpr int kMaxReresolves = 3;

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

struct RemoteSession::FileState {
  TreeFile file;
  std::string name;         // for messages
  std::string resolve_url;  // the hub's resolve URL
  std::string data_url;     // where the last range came from (a signed URL), or resolve_url
  // Read-ahead of reads that miss: doubled while the misses follow each other (a chunk read from
  // start to end), back to kReadAhead otherwise.
  uint64_t read_ahead = RemoteSession::kReadAhead;
  uint64_t missed_end = 0;  // where the last miss's fetch ended
};

namespace {

// A failure no retry can fix; its message becomes the file's error.
class Fatal : public Error {
 public:
  using Error::Error;
};

// One range request and its retries.
struct Request {
  RemoteSession::FileState* file = nullptr;
  uint64_t offset = 0;  // of the range in the file
  std::shared_ptr<std::vector<uint8_t>> bytes;
  uint64_t received = 0;  // bytes of the range in `bytes`
  uint64_t received_at_failure = 0;
  std::string url;
  int tries = 0;
  int reresolves = 0;
  int redirects = 0;
  Clock::time_point start_at;
  bool done = false;

  // The request in flight.
  CURL* easy = nullptr;
  curl_slist* list = nullptr;
  Headers headers;
  bool checked = false;
  bool is_data = false;
  bool whole_file = false;     // a 200 answering the Range: the body is the whole file
  uint64_t body_position = 0;  // of the next body byte in the file (whole_file)
  bool cut = false;            // the body was cut once the range was in (whole_file)
  std::string fatal;           // set by a callback
  uint64_t* bytes_received = nullptr;

  [[nodiscard]] uint64_t length() const { return bytes->size(); }
  [[nodiscard]] uint64_t first_wanted() const { return offset + received; }
};

// Decides, at the first body bytes, whether they are the range's; throws Fatal when the answer
// does not fit what was asked.
bool start_body(Request& r) {
  long status = 0;
  curl().curl_easy_getinfo(r.easy, CURLINFO_RESPONSE_CODE, &status);
  if (status != 200 && status != 206) return false;
  const uint64_t size = r.file->file.size;
  curl_off_t length = -1;
  curl().curl_easy_getinfo(r.easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length);
  if (status == 206) {
    // "bytes FIRST-LAST/SIZE", exactly the range asked for.
    const std::string range = r.headers.count("content-range") ? r.headers["content-range"] : "";
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
    const uint64_t total = shaped ? parse_number(range.substr(slash + 1), ok_size) : 0;
    const uint64_t want_last = r.offset + r.length() - 1;
    if (!ok_first || !ok_last || !ok_size || first != r.first_wanted() || last != want_last ||
        total != size) {
      throw Fatal("asked for bytes " + std::to_string(r.first_wanted()) + "-" +
                  std::to_string(want_last) + " of " + std::to_string(size) +
                  ", the server answered '" + printable(range) + "'");
    }
    if (length >= 0 && static_cast<uint64_t>(length) != last - first + 1) {
      throw Fatal("the server announces " + std::to_string(length) + " bytes for the range " +
                  std::to_string(first) + "-" + std::to_string(last));
    }
    return true;
  }
  // A 200: the server ignored the Range and sends the whole file, which must be the tree's size.
  if (length >= 0 && static_cast<uint64_t>(length) != size) {
    throw Fatal("the server announces " + std::to_string(length) + " bytes; the tree says " +
                std::to_string(size));
  }
  r.whole_file = true;
  r.body_position = 0;
  return true;
}

size_t on_body(char* data, size_t, size_t size, void* user) {
  auto& r = *static_cast<Request*>(user);
  try {
    if (!r.checked) {
      r.checked = true;
      r.is_data = start_body(r);
    }
    if (!r.is_data) return size;
    *r.bytes_received += size;
    const auto* bytes = reinterpret_cast<const uint8_t*>(data);
    if (r.whole_file) {
      // Keep the part of this piece that falls in the bytes still wanted.
      const uint64_t piece_start = r.body_position;
      const uint64_t piece_end = piece_start + size;
      r.body_position = piece_end;
      if (piece_end > r.file->file.size) {
        throw Fatal("the server sends more than the " + std::to_string(r.file->file.size) +
                    " bytes the tree lists");
      }
      const uint64_t from = std::max(piece_start, r.first_wanted());
      const uint64_t to = std::min(piece_end, r.offset + r.length());
      if (from < to) {
        std::memcpy(r.bytes->data() + (from - r.offset), bytes + (from - piece_start), to - from);
        r.received = to - r.offset;
      }
      if (r.received == r.length()) {
        r.cut = true;
        return 0;  // the range is in: the rest of the file is not wanted
      }
      return size;
    }
    if (r.received + size > r.length()) {
      throw Fatal("the server sends more than the " + std::to_string(r.length()) +
                  " bytes asked for");
    }
    std::memcpy(r.bytes->data() + r.received, bytes, size);
    r.received += size;
    return size;
  } catch (const Error& e) {
    r.fatal = e.what();
    return 0;  // aborts the transfer
  }
}

size_t on_header(char* data, size_t, size_t size, void* user) {
  add_header_line(data, size, static_cast<Request*>(user)->headers);
  return size;
}

// Fetches a batch of ranges over `multi`, at most RemoteSession::kParallel at once.
class Fetcher {
 public:
  Fetcher(HubClient& client, const std::string& commit, CURLM* multi, RemoteStats& stats)
      : client_(client), commit_(commit), multi_(multi), stats_(stats) {}
  ~Fetcher() {
    for (auto& r : active_) stop(*r);
  }
  Fetcher(const Fetcher&) = delete;
  Fetcher& operator=(const Fetcher&) = delete;

  void run(std::vector<std::unique_ptr<Request>>& requests) {
    std::deque<Request*> queue;
    for (auto& r : requests) queue.push_back(r.get());
    while (!queue.empty() || !active_.empty()) {
      while (static_cast<int>(active_.size()) < RemoteSession::kParallel && !queue.empty()) {
        Request* r = queue.front();
        queue.pop_front();
        r->start_at = Clock::now();
        r->bytes_received = &stats_.bytes;
        active_.push_back(r);
      }
      const Clock::time_point now = Clock::now();
      auto timeout = std::chrono::milliseconds(100);
      for (Request* r : active_) {
        if (r->easy != nullptr) continue;
        if (r->start_at <= now) {
          start(*r);
        } else {
          timeout = std::min(
              timeout, std::chrono::duration_cast<std::chrono::milliseconds>(r->start_at - now) +
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
        Request* r = nullptr;
        curl().curl_easy_getinfo(message->easy_handle, CURLINFO_PRIVATE, &r);
        finish(*r, message->data.result);
      }
      std::erase_if(active_, [](const Request* r) { return r->done; });
      if (!active_.empty()) {
        curl().curl_multi_poll(multi_, nullptr, 0, static_cast<int>(timeout.count()), nullptr);
      }
    }
  }

 private:
  void start(Request& r) {
    const CurlApi& api = curl();
    r.easy = api.curl_easy_init();
    if (r.easy == nullptr) throw NetworkError("libcurl could not create a request");
    std::vector<std::string> headers = client_.request_headers(r.url);
    headers.push_back("Range: bytes=" + std::to_string(r.first_wanted()) + "-" +
                      std::to_string(r.offset + r.length() - 1));
    for (const std::string& header : headers) {
      r.list = api.curl_slist_append(r.list, header.c_str());
    }
    r.headers.clear();
    r.checked = false;
    r.is_data = false;
    r.whole_file = false;
    r.cut = false;
    CURL* h = r.easy;
    set_transfer_options(h, r.url.c_str(), r.list, &r, &on_body, &on_header);
    api.curl_multi_add_handle(multi_, h);
    ++stats_.requests;
  }

  void stop(Request& r) {
    if (r.easy != nullptr) {
      curl().curl_multi_remove_handle(multi_, r.easy);
      curl().curl_easy_cleanup(r.easy);
      r.easy = nullptr;
    }
    if (r.list != nullptr) {
      curl().curl_slist_free_all(r.list);
      r.list = nullptr;
    }
  }

  [[noreturn]] void fail(const Request& r, const std::string& message) {
    NetworkError error("reading bytes " + std::to_string(r.offset) + "-" +
                       std::to_string(r.offset + r.length() - 1) + " remotely: " + message);
    error.locate_file(r.file->name);
    throw error;
  }

  void finish(Request& r, CURLcode code) {
    const CurlApi& api = curl();
    long status = 0;
    api.curl_easy_getinfo(r.easy, CURLINFO_RESPONSE_CODE, &status);
    char* location = nullptr;
    api.curl_easy_getinfo(r.easy, CURLINFO_REDIRECT_URL, &location);
    const std::string next = location != nullptr ? location : "";
    const std::string origin = url_origin(r.url);
    const std::string transport = code != CURLE_OK ? api.curl_easy_strerror(code) : "";
    stop(r);
    if (!r.fatal.empty()) fail(r, r.fatal);
    const TreeFile& file = r.file->file;

    if (code == CURLE_OK && status >= 300 && status < 400) {
      if (auto it = r.headers.find("x-linked-size"); it != r.headers.end()) {
        bool ok = false;
        if (parse_number(it->second, ok) != file.size || !ok) {
          fail(r, "the hub announces a size of '" + printable(it->second) + "'; the tree says " +
                      std::to_string(file.size));
        }
      }
      if (auto it = r.headers.find("x-linked-etag"); it != r.headers.end() && file.lfs) {
        if (unquote_etag(it->second) != file.etag) {
          fail(r, "the hub announces the etag '" + printable(it->second) + "'; the tree says " +
                      file.etag);
        }
      }
      if (auto it = r.headers.find("x-repo-commit"); it != r.headers.end()) {
        if (it->second != commit_) {
          fail(r, "the hub answers for commit '" + printable(it->second) + "', not " + commit_);
        }
      }
      if (next.empty() || ++r.redirects > kMaxRedirects) {
        fail(r, "too many or broken redirects (HTTP " + std::to_string(status) + " from " + origin +
                    ")");
      }
      if (const std::string refusal = redirect_refusal(next); !refusal.empty()) {
        fail(r, refusal + " (HTTP " + std::to_string(status) + " from " + origin + ")");
      }
      r.url = next;
      r.start_at = Clock::now();
      return;
    }
    if ((status == 200 || status == 206) && r.received == r.length() &&
        (code == CURLE_OK || r.is_data)) {
      r.file->data_url = r.url;  // the file's later ranges go straight there
      ++stats_.ranges;
      r.done = true;
      return;
    }
    if (code == CURLE_OK && status == 403 && !client_.is_hub_url(r.url)) {
      // An expired signed URL: ask the hub for a new one.
      if (++r.reresolves > kMaxReresolves) {
        fail(r, "the signed URL from " + origin + " still answers HTTP 403 after " +
                    std::to_string(kMaxReresolves) + " new ones");
      }
      r.url = r.file->resolve_url;
      r.file->data_url = r.file->resolve_url;
      r.redirects = 0;
      r.start_at = Clock::now();
      return;
    }
    std::string failure;
    const auto wait = client_.budget().after_failed_try(
        code != CURLE_OK, transient_failure(code), transport, status, r.received, r.length(),
        origin, r.headers, r.tries, r.received_at_failure, failure);
    if (!wait) fail(r, failure);
    r.start_at = Clock::now() + *wait;
  }

  HubClient& client_;
  const std::string& commit_;
  CURLM* multi_;
  RemoteStats& stats_;
  std::vector<Request*> active_;
};

}  // namespace

// The RandomAccessFile of one remote file; its state and cache live in the session.
class RemoteFile final : public RandomAccessFile {
 public:
  RemoteFile(RemoteSession& session, RemoteSession::FileState& state)
      : session_(session), state_(state) {}

  [[nodiscard]] uint64_t size() const override { return state_.file.size; }
  void read_at(uint64_t offset, std::span<uint8_t> out) override {
    if (offset > size() || out.size() > size() - offset) {
      FormatError error("file is truncated: reading " + std::to_string(out.size()) +
                        " bytes at offset " + std::to_string(offset) + " but the file has " +
                        std::to_string(size()) + " bytes");
      error.locate_file(state_.name);
      throw error;
    }
    if (out.empty()) return;
    session_.read(state_, offset, out);
  }
  void will_read(std::span<const ByteRange> ranges) override { session_.will_read(state_, ranges); }
  [[nodiscard]] bool remote() const override { return true; }
  [[nodiscard]] const std::string& name() const override { return state_.name; }

  [[nodiscard]] RemoteSession::FileState& state() { return state_; }

 private:
  RemoteSession& session_;
  RemoteSession::FileState& state_;
};

RemoteSession::RemoteSession(HubEnvironment environment, std::string repo, std::string commit,
                             std::FILE* log)
    : environment_(environment),
      budget_(RetryBudget::default_base(), RetryBudget::kCap),
      client_(std::move(environment), std::move(repo), budget_),
      commit_(std::move(commit)),
      log_(log) {}

RemoteSession::~RemoteSession() {
  if (multi_ != nullptr) curl().curl_multi_cleanup(static_cast<CURLM*>(multi_));
  if (log_ != nullptr && stats_.requests > 0) {
    std::fprintf(log_,
                 "kbdata: hub: %s request(s), %s range(s) in %s round trip(s), %s bytes "
                 "fetched, %d retries\n",
                 grouped(stats_.requests).c_str(), grouped(stats_.ranges).c_str(),
                 grouped(stats_.round_trips).c_str(), grouped(stats_.bytes).c_str(),
                 budget_.retries());
  }
}

std::unique_ptr<RandomAccessFile> RemoteSession::open(const TreeFile& file, std::string name) {
  std::lock_guard<std::mutex> lock(fetch_mutex_);
  for (const auto& state : files_) {
    // One state per file, so that every opening shares the bytes fetched.
    if (state->file.path == file.path) return std::make_unique<RemoteFile>(*this, *state);
  }
  auto state = std::make_unique<FileState>();
  state->file = file;
  state->name = std::move(name);
  state->resolve_url = client_.resolve_url(commit_, file.path);
  state->data_url = state->resolve_url;
  files_.push_back(std::move(state));
  return std::make_unique<RemoteFile>(*this, *files_.back());
}

RemoteStats RemoteSession::stats() {
  std::lock_guard<std::mutex> lock(cache_mutex_);
  RemoteStats out = stats_;
  out.retries = budget_.retries();
  return out;
}

std::vector<ByteRange> RemoteSession::uncached(const FileState& file, ByteRange range) const {
  std::vector<ByteRange> gaps;
  uint64_t at = range.offset;
  const uint64_t end = range.offset + range.length;
  auto it = cache_.upper_bound({&file, at});
  if (it != cache_.begin()) {
    auto before = std::prev(it);
    if (before->first.first == &file) it = before;
  }
  for (; it != cache_.end() && it->first.first == &file && at < end; ++it) {
    const uint64_t block_start = it->first.second;
    const uint64_t block_end = block_start + it->second.length;
    if (block_end <= at) continue;
    if (block_start >= end) break;
    if (block_start > at) gaps.push_back({at, block_start - at});
    at = std::max(at, block_end);
  }
  if (at < end) gaps.push_back({at, end - at});
  return gaps;
}

std::vector<ByteRange> RemoteSession::copy_cached(const FileState& file, uint64_t offset,
                                                  std::span<uint8_t> out) {
  const uint64_t end = offset + out.size();
  auto it = cache_.upper_bound({&file, offset});
  if (it != cache_.begin()) {
    auto before = std::prev(it);
    if (before->first.first == &file) it = before;
  }
  ++use_counter_;
  for (; it != cache_.end() && it->first.first == &file; ++it) {
    const uint64_t block_start = it->first.second;
    const uint64_t block_end = block_start + it->second.length;
    if (block_end <= offset) continue;
    if (block_start >= end) break;
    const uint64_t from = std::max(block_start, offset);
    const uint64_t to = std::min(block_end, end);
    std::memcpy(out.data() + (from - offset),
                it->second.bytes->data() + it->second.start + (from - block_start), to - from);
    it->second.used = use_counter_;
  }
  return uncached(file, {offset, out.size()});
}

void RemoteSession::insert(const FileState& file, uint64_t offset,
                           const std::shared_ptr<const std::vector<uint8_t>>& bytes) {
  ++use_counter_;
  for (const ByteRange& gap : uncached(file, {offset, bytes->size()})) {
    Block block;
    block.bytes = bytes;
    block.start = static_cast<size_t>(gap.offset - offset);
    block.length = gap.length;
    block.used = use_counter_;
    cache_[{&file, gap.offset}] = block;
    cached_bytes_ += gap.length;
  }
}

void RemoteSession::evict() {
  while (cached_bytes_ > kCacheBytes && !cache_.empty()) {
    auto oldest = cache_.begin();
    for (auto it = cache_.begin(); it != cache_.end(); ++it) {
      if (it->second.used < oldest->second.used) oldest = it;
    }
    cached_bytes_ -= oldest->second.length;
    cache_.erase(oldest);
  }
}

std::vector<std::shared_ptr<const std::vector<uint8_t>>> RemoteSession::fetch(
    const std::vector<Want>& wants) {
  std::vector<std::unique_ptr<Request>> requests;
  for (const Want& w : wants) {
    auto r = std::make_unique<Request>();
    r->file = w.file;
    r->offset = w.range.offset;
    r->bytes = std::make_shared<std::vector<uint8_t>>(static_cast<size_t>(w.range.length));
    r->url = w.file->data_url;
    requests.push_back(std::move(r));
  }
  const auto start = Clock::now();
  const uint64_t bytes_before = stats_.bytes;
  {
    if (multi_ == nullptr) {
      multi_ = curl().curl_multi_init();
      if (multi_ == nullptr) throw NetworkError("libcurl could not create a transfer handle");
    }
    RemoteStats counts;
    {
      std::lock_guard<std::mutex> lock(cache_mutex_);
      counts = stats_;
    }
    Fetcher fetcher(client_, commit_, static_cast<CURLM*>(multi_), counts);
    try {
      fetcher.run(requests);
    } catch (...) {
      std::lock_guard<std::mutex> lock(cache_mutex_);
      stats_ = counts;
      throw;
    }
    std::lock_guard<std::mutex> lock(cache_mutex_);
    stats_ = counts;
    ++stats_.round_trips;
  }
  if (log_ != nullptr) {
    uint64_t asked = 0;
    std::string names;
    for (const Want& w : wants) {
      asked += w.range.length;
      if (names.find(w.file->name) == std::string::npos) {
        names += (names.empty() ? "" : ", ") + w.file->name;
      }
    }
    std::fprintf(log_, "kbdata: hub: %zu range(s), %s bytes (%s received) of %s in %.3f s\n",
                 wants.size(), grouped(asked).c_str(), grouped(stats_.bytes - bytes_before).c_str(),
                 names.c_str(), std::chrono::duration<double>(Clock::now() - start).count());
  }
  std::vector<std::shared_ptr<const std::vector<uint8_t>>> out;
  std::lock_guard<std::mutex> lock(cache_mutex_);
  for (size_t i = 0; i < wants.size(); ++i) {
    std::shared_ptr<const std::vector<uint8_t>> bytes = std::move(requests[i]->bytes);
    insert(*wants[i].file, wants[i].range.offset, bytes);
    out.push_back(std::move(bytes));
  }
  return out;
}

void RemoteSession::read(FileState& file, uint64_t offset, std::span<uint8_t> out) {
  {
    std::lock_guard<std::mutex> lock(cache_mutex_);
    if (copy_cached(file, offset, out).empty()) return;
  }
  std::lock_guard<std::mutex> fetching(fetch_mutex_);
  std::vector<ByteRange> gaps;
  {
    std::lock_guard<std::mutex> lock(cache_mutex_);
    gaps = copy_cached(file, offset, out);  // another thread may have fetched them meanwhile
  }
  if (gaps.empty()) return;
  // The last gap reads ahead, up to the next cached byte.
  std::vector<Want> wants;
  for (const ByteRange& gap : gaps) wants.push_back({&file, gap});
  file.read_ahead = gaps.front().offset == file.missed_end
                        ? std::min(file.read_ahead * 2, kMaxReadAhead)
                        : kReadAhead;
  {
    ByteRange& last = wants.back().range;
    const uint64_t want_end = std::min(
        file.file.size, std::max(last.offset + last.length, last.offset + file.read_ahead));
    std::lock_guard<std::mutex> lock(cache_mutex_);
    const std::vector<ByteRange> ahead = uncached(file, {last.offset, want_end - last.offset});
    if (!ahead.empty() && ahead.front().offset == last.offset) {
      last.length = std::max(last.length, ahead.front().length);
    }
  }
  const auto fetched = fetch(wants);
  file.missed_end = wants.back().range.offset + wants.back().range.length;
  for (size_t i = 0; i < gaps.size(); ++i) {
    std::memcpy(out.data() + (gaps[i].offset - offset), fetched[i]->data(),
                static_cast<size_t>(gaps[i].length));
  }
  std::lock_guard<std::mutex> lock(cache_mutex_);
  evict();
}

void RemoteSession::will_read(FileState& file, std::span<const ByteRange> ranges) {
  std::lock_guard<std::mutex> fetching(fetch_mutex_);
  std::vector<ByteRange> gaps;
  {
    std::lock_guard<std::mutex> lock(cache_mutex_);
    for (const ByteRange& range : ranges) {
      if (range.offset >= file.file.size || range.length == 0) continue;
      const ByteRange clipped{range.offset, std::min(range.length, file.file.size - range.offset)};
      for (const ByteRange& gap : uncached(file, clipped)) gaps.push_back(gap);
    }
  }
  std::sort(gaps.begin(), gaps.end(),
            [](const ByteRange& a, const ByteRange& b) { return a.offset < b.offset; });
  // Coalesce what lies closer than kGap (the bytes between cost less than a request), then cut
  // what is longer than kMaxPiece so that the pieces come in parallel.
  std::vector<ByteRange> merged;
  for (const ByteRange& gap : gaps) {
    if (!merged.empty() && gap.offset <= merged.back().offset + merged.back().length + kGap) {
      merged.back().length =
          std::max(merged.back().offset + merged.back().length, gap.offset + gap.length) -
          merged.back().offset;
    } else {
      merged.push_back(gap);
    }
  }
  std::vector<Want> wants;
  uint64_t total = 0;
  for (const ByteRange& range : merged) {
    for (uint64_t at = range.offset; at < range.offset + range.length; at += kMaxPiece) {
      const uint64_t length = std::min(kMaxPiece, range.offset + range.length - at);
      // Hints beyond half the cache are left to be read when asked for.
      if (total + length > kCacheBytes / 2) break;
      total += length;
      wants.push_back({&file, {at, length}});
    }
  }
  if (wants.empty()) return;
  (void)fetch(wants);
  std::lock_guard<std::mutex> lock(cache_mutex_);
  evict();
}

void RemoteSession::prefetch_footers(const std::vector<RandomAccessFile*>& files) {
  std::lock_guard<std::mutex> fetching(fetch_mutex_);
  std::vector<Want> wants;
  for (RandomAccessFile* f : files) {
    auto* remote = dynamic_cast<RemoteFile*>(f);
    if (remote == nullptr) continue;
    FileState& state = remote->state();
    const uint64_t size = state.file.size;
    if (size == 0) continue;
    const uint64_t tail = std::min(size, kFooterGuess);
    std::vector<ByteRange> ranges;
    if (size - tail > 4) ranges.push_back({0, 4});
    ranges.push_back({size - tail > 4 ? size - tail : 0, size - tail > 4 ? tail : size});
    std::lock_guard<std::mutex> lock(cache_mutex_);
    for (const ByteRange& range : ranges) {
      for (const ByteRange& gap : uncached(state, range)) wants.push_back({&state, gap});
    }
  }
  if (wants.empty()) return;
  (void)fetch(wants);
  std::lock_guard<std::mutex> lock(cache_mutex_);
  evict();
}

}  // namespace kbdata::hub
