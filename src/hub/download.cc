#include "hub/download.h"

#include <nettle/sha1.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <memory>
#include <mutex>
#include <span>
#include <thread>

#include "common/error.h"
#include "common/file.h"
#include "common/sha256.h"
#include "common/text.h"
#include "hub/curl_api.h"

namespace kbdata::hub {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kMaxRedirects = 10;
constexpr int kMaxReresolves = 3;

// The file's identity as the tree states it, computed over the bytes as they stream: sha256 for
// an LFS file, the git blob sha1 ("blob SIZE\0" + bytes) for the others.
class Hasher {
 public:
  explicit Hasher(const TreeFile& file) : file_(file) { reset(); }

  void reset() {
    if (file_.lfs) {
      sha256_ = std::make_unique<Sha256>();
    } else {
      sha1_init(&sha1_);
      const std::string prefix = "blob " + std::to_string(file_.size);
      sha1_update(&sha1_, prefix.size() + 1, reinterpret_cast<const uint8_t*>(prefix.c_str()));
    }
  }
  void update(const uint8_t* data, size_t size) {
    if (file_.lfs) {
      sha256_->update(data, size);
    } else {
      sha1_update(&sha1_, size, data);
    }
  }
  [[nodiscard]] std::string hex_digest() {
    if (file_.lfs) return sha256_->hex_digest();
    uint8_t digest[SHA1_DIGEST_SIZE];
    sha1_digest(&sha1_, sizeof digest, digest);
    std::string out;
    append_hex(out, std::span<const uint8_t>(digest, sizeof digest));
    return out;
  }

 private:
  const TreeFile& file_;
  std::unique_ptr<Sha256> sha256_;
  sha1_ctx sha1_{};
};

// A failure that no retry can fix; its message becomes the file's error.
class Fatal : public Error {
 public:
  using Error::Error;
};

// A file's temporary in blobs/ and the check of its bytes. The transfer thread writes the bytes
// as they arrive and says how far each part has come; a thread of the file's own reads them back
// from the page cache in file order and hashes them meanwhile, so hashing (sha256 runs at about
// the speed loopback delivers) overlaps the receiving instead of following each piece. Memory
// stays constant in the file's size: what waits to be hashed waits in the page cache.
//
// A split file is hashed in file order while its parts arrive: the hashing frontier is the first
// part not complete; the bytes of that part in the temporary are hashed up to where they end, and
// when the part is complete the frontier moves on.
//
// finish() hands over the end: once every byte is hashed, the digest is compared with the tree's
// and the temporary synced and renamed to blobs/<etag>, still on the blob's thread, so that the
// next file's transfer need not wait for the disk. The owner polls state().
class Blob {
 public:
  struct Part {
    uint64_t start = 0;
    uint64_t length = 0;
    uint64_t received = 0;  // bytes of the part in the temporary
  };
  enum class State { working, committed, failed };

  // `parts`: the file's ranges in file order (one for a file in one part). `wake` is called from
  // the blob's thread when its state changes (the owner's poll returns).
  Blob(const TreeFile& file, const std::string& path, std::vector<Part> parts,
       std::function<void()> wake)
      : file_(file),
        out_(std::make_unique<AtomicOutputFile>(path)),
        parts_(std::move(parts)),
        hasher_(file),
        wake_(std::move(wake)),
        thread_([this] { work(); }) {}
  ~Blob() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    changed_.notify_all();
    thread_.join();
  }
  Blob(const Blob&) = delete;
  Blob& operator=(const Blob&) = delete;

  // Writes `bytes` at `offset` of the file, in part `part`: right after the part's bytes so far.
  // Throws IoError naming the file if they cannot be written, Fatal if the hashing failed.
  void write(size_t part, uint64_t offset, std::span<const uint8_t> bytes) {
    if (parts_.size() == 1) {
      out_->write(bytes);
    } else {
      out_->write_at(offset, bytes);
    }
    const uint64_t end = offset + bytes.size();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!error_.empty()) throw Fatal(error_);
      parts_[part].received = end - parts_[part].start;
    }
    changed_.notify_all();
  }
  // A file in one part starts again from byte 0 (a 200 answered its Range request).
  void restart() {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return !hashing_; });
    out_->rewind();
    hasher_.reset();
    hashed_ = 0;
    written_back_ = 0;
    parts_[0].received = 0;
  }
  // Every byte is written: verify, sync and rename (state() tells when that is done).
  void finish() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      finishing_ = true;
    }
    changed_.notify_all();
  }

  [[nodiscard]] State state() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!error_.empty()) return State::failed;
    return committed_ ? State::committed : State::working;
  }
  [[nodiscard]] std::string error() {
    std::lock_guard<std::mutex> lock(mutex_);
    return error_;
  }

 private:
  // Every 32 MiB hashed, the kernel is asked to start writing them to disk (on the blob's thread,
  // not the transfer's), so that the sync at the end waits for the last ones only.
  static constexpr uint64_t kWritebackBytes = uint64_t{32} << 20;
  static constexpr size_t kBlockBytes = size_t{1} << 20;

  // The end of the bytes in the temporary that continue the hashed ones (under the lock).
  [[nodiscard]] uint64_t hashable_end() {
    while (frontier_ < parts_.size()) {
      const Part& p = parts_[frontier_];
      if (p.received < p.length || hashed_ < p.start + p.length) return p.start + p.received;
      ++frontier_;
    }
    return hashed_;
  }

  void work() {
    std::vector<uint8_t> block(kBlockBytes);
    std::unique_lock<std::mutex> lock(mutex_);
    while (true) {
      changed_.wait(lock, [&] { return stopping_ || finishing_ || hashable_end() > hashed_; });
      if (stopping_) return;
      const uint64_t end = hashable_end();
      if (end > hashed_) {
        const uint64_t from = hashed_;
        const size_t n = static_cast<size_t>(std::min<uint64_t>(kBlockBytes, end - from));
        hashing_ = true;
        lock.unlock();
        std::string error;
        try {
          out_->read_at(from, std::span<uint8_t>(block.data(), n));
          hasher_.update(block.data(), n);
          if (from + n - written_back_ >= kWritebackBytes) {
            out_->start_writeback(written_back_, from + n - written_back_);
            written_back_ = from + n;
          }
        } catch (const Error& e) {
          error = e.what();
        }
        lock.lock();
        hashing_ = false;
        changed_.notify_all();
        if (!error.empty()) return fail(lock, error);
        hashed_ = from + n;
        continue;
      }
      // finishing_, and every byte is hashed.
      lock.unlock();
      std::string error;
      try {
        const std::string digest = hasher_.hex_digest();
        if (hashed_ != file_.size || digest != file_.etag) {
          throw Fatal(std::string("the bytes' ") + (file_.lfs ? "sha256" : "git blob sha1") +
                      " is " + digest + "; the tree says " + file_.etag + " (nothing kept)");
        }
        out_->commit();
      } catch (const Error& e) {
        error = e.what();
      }
      lock.lock();
      if (!error.empty()) return fail(lock, error);
      committed_ = true;
      lock.unlock();
      wake_();
      return;
    }
  }

  // Records the blob's error; the thread ends (the temporary goes with the blob: nothing kept).
  void fail(std::unique_lock<std::mutex>& lock, const std::string& error) {
    error_ = error;
    lock.unlock();
    wake_();
  }

  const TreeFile& file_;
  std::unique_ptr<AtomicOutputFile> out_;
  std::vector<Part> parts_;
  Hasher hasher_;
  std::function<void()> wake_;

  std::mutex mutex_;  // guards what follows
  std::condition_variable changed_;
  size_t frontier_ = 0;        // the first part not hashed to its end
  uint64_t hashed_ = 0;        // bytes of the file hashed so far, from the start
  uint64_t written_back_ = 0;  // bytes from the start whose writing to disk has begun
  bool hashing_ = false;       // the thread reads and hashes a block (outside the lock)
  bool finishing_ = false;
  bool committed_ = false;
  bool stopping_ = false;
  std::string error_;

  std::thread thread_;  // last: starts once the members above exist
};

// One file's download: its parts, and the blob its bytes go to (made by the first request).
struct FileJob {
  explicit FileJob(const TreeFile& f) : file(f) {}
  const TreeFile& file;
  std::vector<Blob::Part> parts;  // in file order: one, or the ranges of a split file
  bool split = false;             // in several ranges
  int parts_left = 0;
  std::unique_ptr<Blob> blob;
  bool finished = false;  // every part is in: the blob verifies and renames
};

// One part of a file (the whole file, or one of its ranges when it is split): its requests one
// after another.
struct Transfer {
  Transfer(FileJob& j, std::string resolve, uint64_t first, uint64_t size, size_t index = 0)
      : job(j),
        file(j.file),
        resolve_url(resolve),
        url(resolve),
        start(first),
        length(size),
        part(index) {}

  FileJob& job;
  const TreeFile& file;
  std::string resolve_url;  // the hub's resolve URL: where an expired signed URL sends us back
  std::string url;          // the next request's URL
  uint64_t start = 0;       // of the part in the file
  uint64_t length = 0;      // of the part
  size_t part = 0;          // its index in job.parts (a split file)
  uint64_t received = 0;    // bytes of the part in the temporary
  uint64_t received_at_failure = 0;
  int tries = 0;  // failed tries since the last one that brought bytes
  int reresolves = 0;
  int redirects = 0;
  Clock::time_point start_at;  // when the next request may start
  bool done = false;

  // The request in flight.
  CURL* easy = nullptr;
  curl_slist* list = nullptr;
  Headers headers;
  bool checked = false;                // the response's first body bytes were seen
  bool is_data = false;                // the response's body is the file's bytes
  bool whole_file = false;             // a part's range answered by a 200: the whole file
  uint64_t body_position = 0;          // of the next body byte in the file (whole_file)
  std::string fatal;                   // set by a callback
  uint64_t* total_done = nullptr;      // bytes of all files in their temporaries
  uint64_t* total_received = nullptr;  // bytes received, those a restart discarded included

  [[nodiscard]] Blob& blob() { return *job.blob; }
  [[nodiscard]] uint64_t first_wanted() const { return start + received; }
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

// Decides, at the first body bytes of a response, whether they are the file's, and checks that
// the response fits what was asked. Throws Fatal when it cannot.
bool start_body(Transfer& t) {
  long status = 0;
  curl().curl_easy_getinfo(t.easy, CURLINFO_RESPONSE_CODE, &status);
  if (status != 200 && status != 206) return false;
  curl_off_t length = -1;
  curl().curl_easy_getinfo(t.easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length);
  if (status == 206) {
    // "bytes FIRST-LAST/SIZE" must continue exactly where the part's bytes end, and (a part) end
    // where the part does.
    const std::string range = t.headers.count("content-range") ? t.headers["content-range"] : "";
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
    if (!ok_first || !ok_last || !ok_size || first != t.first_wanted() ||
        last != t.start + t.length - 1 || size != t.file.size) {
      throw Fatal("asked for bytes from " + std::to_string(t.first_wanted()) + " to " +
                  std::to_string(t.start + t.length - 1) + " of " + std::to_string(t.file.size) +
                  ", the server answered '" + printable(range) + "'");
    }
    if (length >= 0 && static_cast<uint64_t>(length) != last - first + 1) {
      throw Fatal("the server announces " + std::to_string(length) + " bytes for the range " +
                  std::to_string(first) + "-" + std::to_string(last));
    }
    return true;
  }
  // A 200: the whole file, which must be the tree's size.
  if (length >= 0 && static_cast<uint64_t>(length) != t.file.size) {
    throw Fatal("the server announces " + std::to_string(length) + " bytes; the tree says " +
                std::to_string(t.file.size));
  }
  if (t.job.split) {
    // A part's range answered by the whole file: its part is taken from the stream, the rest
    // passed over.
    t.whole_file = true;
    t.body_position = 0;
  } else if (t.received > 0) {
    // A 200 answering a Range request: the server sends the whole file; start again.
    t.blob().restart();
    *t.total_done -= t.received;
    t.received = 0;
  }
  return true;
}

size_t on_body(char* data, size_t, size_t size, void* user) {
  auto& t = *static_cast<Transfer*>(user);
  try {
    if (!t.checked) {
      t.checked = true;
      t.is_data = start_body(t);
    }
    if (!t.is_data) return size;
    const auto* bytes = reinterpret_cast<const uint8_t*>(data);
    *t.total_received += size;
    if (t.whole_file) {
      const uint64_t piece_start = t.body_position;
      const uint64_t piece_end = piece_start + size;
      t.body_position = piece_end;
      if (piece_end > t.file.size) {
        throw Fatal("the server sends more than the " + std::to_string(t.file.size) +
                    " bytes the tree lists");
      }
      const uint64_t from = std::max(piece_start, t.first_wanted());
      const uint64_t to = std::min(piece_end, t.start + t.length);
      if (from < to) {
        const std::span<const uint8_t> kept(bytes + (from - piece_start), to - from);
        t.blob().write(t.part, from, kept);
        *t.total_done += to - from;
        t.received = to - t.start;
      }
      return t.received == t.length ? 0 : size;  // the part is in: the rest is not wanted
    }
    if (t.received + size > t.length) {
      throw Fatal(t.job.split ? "the server sends more than the " + std::to_string(t.length) +
                                    " bytes asked for"
                              : "the server sends more than the " + std::to_string(t.file.size) +
                                    " bytes the tree lists");
    }
    t.blob().write(t.part, t.first_wanted(), std::span<const uint8_t>(bytes, size));
    t.received += size;
    *t.total_done += size;
    return size;
  } catch (const Error& e) {
    t.fatal = e.what();
    return 0;  // aborts the transfer
  }
}

size_t on_header(char* data, size_t, size_t size, void* user) {
  add_header_line(data, size, static_cast<Transfer*>(user)->headers);
  return size;
}

std::string unquote_etag(std::string etag) {
  if (etag.rfind("W/", 0) == 0) etag = etag.substr(2);
  if (etag.size() >= 2 && etag.front() == '"' && etag.back() == '"') {
    etag = etag.substr(1, etag.size() - 2);
  }
  return etag;
}

// Files larger than this are downloaded in ranges of this size, in parallel: 64 MiB, or
// $KBDATA_HUB_PART_BYTES (tests split small files).
uint64_t default_part_bytes() {
  const char* value = std::getenv("KBDATA_HUB_PART_BYTES");
  if (value != nullptr && *value != '\0') {
    char* end = nullptr;
    const unsigned long long bytes = std::strtoull(value, &end, 10);
    if (*end == '\0' && bytes >= 1) return bytes;
  }
  return uint64_t{64} << 20;
}

class Downloader {
 public:
  Downloader(HubClient& client, const RepoCache& cache, std::string commit)
      : client_(client), cache_(cache), commit_(std::move(commit)) {
    multi_ = curl().curl_multi_init();
    if (multi_ == nullptr) throw IoError("libcurl could not create a transfer handle");
  }
  ~Downloader() {
    for (auto& t : active_) stop(*t);
    jobs_.clear();  // their blobs' threads wake the multi handle
    curl().curl_multi_cleanup(multi_);
  }
  Downloader(const Downloader&) = delete;
  Downloader& operator=(const Downloader&) = delete;

  DownloadTotals run(const std::vector<TreeFile>& files, int jobs,
                     const std::function<void(uint64_t, uint64_t)>& progress,
                     const std::function<void(const TreeFile&)>& on_done) {
    // A file larger than the part size is fetched in ranges of that size, at once.
    std::deque<std::unique_ptr<Transfer>> queue;
    uint64_t total = 0;
    for (const TreeFile& f : files) {
      total += f.size;
      jobs_.push_back(std::make_unique<FileJob>(f));
      FileJob& job = *jobs_.back();
      const std::string resolve = client_.resolve_url(commit_, f.path);
      // As many parts as transfers may run at once, none smaller than the part size.
      const uint64_t wanted = (f.size + part_bytes_ - 1) / part_bytes_;
      const uint64_t count = std::min<uint64_t>(wanted, static_cast<uint64_t>(jobs));
      job.split = count > 1;
      if (!job.split) {
        job.parts.push_back({0, f.size, 0});
        queue.push_back(std::make_unique<Transfer>(job, resolve, 0, f.size));
        ++job.parts_left;
        continue;
      }
      const uint64_t length = (f.size + count - 1) / count;
      for (uint64_t at = 0; at < f.size; at += length) {
        const uint64_t part = std::min(length, f.size - at);
        job.parts.push_back({at, part, 0});
        queue.push_back(std::make_unique<Transfer>(job, resolve, at, part, job.parts.size() - 1));
        ++job.parts_left;
      }
    }
    DownloadTotals totals;
    while (!queue.empty() || !active_.empty() || verifying_ > 0) {
      while (static_cast<int>(active_.size()) < jobs && !queue.empty()) {
        std::unique_ptr<Transfer> t = std::move(queue.front());
        queue.pop_front();
        t->start_at = Clock::now();
        t->total_done = &done_;
        t->total_received = &received_;
        active_.push_back(std::move(t));
      }
      const Clock::time_point now = Clock::now();
      auto timeout = std::chrono::milliseconds(100);
      for (auto& t : active_) {
        if (t->easy != nullptr) continue;
        if (t->start_at <= now) {
          start(*t);
        } else {
          timeout = std::min(
              timeout, std::chrono::duration_cast<std::chrono::milliseconds>(t->start_at - now) +
                           std::chrono::milliseconds(1));
        }
      }
      int running = 0;
      CURLMcode mcode = curl().curl_multi_perform(multi_, &running);
      if (mcode != CURLM_OK) {
        throw IoError(std::string("libcurl: ") + curl().curl_multi_strerror(mcode));
      }
      int left = 0;
      while (CURLMsg* message = curl().curl_multi_info_read(multi_, &left)) {
        if (message->msg != CURLMSG_DONE) continue;
        Transfer* t = nullptr;
        curl().curl_easy_getinfo(message->easy_handle, CURLINFO_PRIVATE, &t);
        finish(*t, message->data.result);
      }
      std::erase_if(active_, [](const std::unique_ptr<Transfer>& t) { return t->done; });
      collect_verified(totals, on_done);
      if (progress) progress(done_, total);
      if (!active_.empty() || verifying_ > 0) {
        curl().curl_multi_poll(multi_, nullptr, 0, static_cast<int>(timeout.count()), nullptr);
      }
    }
    totals.bytes = received_;
    return totals;
  }

 private:
  // Called by a blob's thread when its file is in place or failed: curl_multi_poll returns.
  void wake() { curl().curl_multi_wakeup(multi_); }

  // The files whose blobs have verified and renamed them count as done; one that failed is the
  // download's error.
  void collect_verified(DownloadTotals& totals,
                        const std::function<void(const TreeFile&)>& on_done) {
    for (auto& job : jobs_) {
      if (!job->finished || !job->blob) continue;
      const Blob::State state = job->blob->state();
      if (state == Blob::State::working) continue;
      if (state == Blob::State::failed) {
        throw IoError(job->file.path + ": " + job->blob->error());
      }
      job->blob.reset();
      --verifying_;
      ++totals.files;
      if (on_done) on_done(job->file);
    }
  }

  void start(Transfer& t) {
    const CurlApi& api = curl();
    if (!t.job.blob) {
      t.job.blob = std::make_unique<Blob>(t.file, cache_.blob_path(t.file.etag), t.job.parts,
                                          [this] { wake(); });
    }
    t.easy = api.curl_easy_init();
    if (t.easy == nullptr) throw IoError("libcurl could not create a request");
    std::vector<std::string> headers = client_.request_headers(t.url);
    if (t.job.split) {
      headers.push_back("Range: bytes=" + std::to_string(t.first_wanted()) + "-" +
                        std::to_string(t.start + t.length - 1));
    } else if (t.received > 0) {
      headers.push_back("Range: bytes=" + std::to_string(t.received) + "-");
    }
    for (const std::string& header : headers) {
      t.list = api.curl_slist_append(t.list, header.c_str());
    }
    t.headers.clear();
    t.checked = false;
    t.is_data = false;
    t.whole_file = false;
    CURL* h = t.easy;
    set_transfer_options(h, t.url.c_str(), t.list, &t, &on_body, &on_header);
    api.curl_multi_add_handle(multi_, h);
  }

  void stop(Transfer& t) {
    if (t.easy != nullptr) {
      curl().curl_multi_remove_handle(multi_, t.easy);
      curl().curl_easy_cleanup(t.easy);
      t.easy = nullptr;
    }
    if (t.list != nullptr) {
      curl().curl_slist_free_all(t.list);
      t.list = nullptr;
    }
  }

  [[noreturn]] void fail(const Transfer& t, const std::string& message) {
    throw IoError(t.file.path + ": " + message);
  }

  // What a finished request means for its file: done, the next request, a retry, or a failure.
  void finish(Transfer& t, CURLcode code) {
    const CurlApi& api = curl();
    long status = 0;
    api.curl_easy_getinfo(t.easy, CURLINFO_RESPONSE_CODE, &status);
    char* location = nullptr;
    api.curl_easy_getinfo(t.easy, CURLINFO_REDIRECT_URL, &location);
    const std::string next = location != nullptr ? location : "";
    const std::string origin = url_origin(t.url);
    const std::string transport = code != CURLE_OK ? api.curl_easy_strerror(code) : "";
    stop(t);
    if (!t.fatal.empty()) fail(t, t.fatal);

    if (code == CURLE_OK && status >= 300 && status < 400) {
      // The hub's identity headers must agree with the tree.
      if (auto it = t.headers.find("x-linked-size"); it != t.headers.end()) {
        bool ok = false;
        if (parse_number(it->second, ok) != t.file.size || !ok) {
          fail(t, "the hub announces a size of '" + printable(it->second) + "'; the tree says " +
                      std::to_string(t.file.size));
        }
      }
      if (auto it = t.headers.find("x-linked-etag"); it != t.headers.end() && t.file.lfs) {
        if (unquote_etag(it->second) != t.file.etag) {
          fail(t, "the hub announces the etag '" + printable(it->second) + "'; the tree says " +
                      t.file.etag);
        }
      }
      if (auto it = t.headers.find("x-repo-commit"); it != t.headers.end()) {
        if (it->second != commit_) {
          fail(t, "the hub answers for commit '" + printable(it->second) + "', not " + commit_);
        }
      }
      if (next.empty() || ++t.redirects > kMaxRedirects) {
        fail(t, "too many or broken redirects (HTTP " + std::to_string(status) + " from " + origin +
                    ")");
      }
      if (const std::string refusal = redirect_refusal(next); !refusal.empty()) {
        fail(t, refusal + " (HTTP " + std::to_string(status) + " from " + origin + ")");
      }
      t.url = next;
      t.start_at = Clock::now();
      return;
    }
    // Every byte is in (a connection that broke after the last one included, or a whole-file
    // answer cut once the part was in): verify.
    if ((status == 200 || status == 206) && t.received == t.length &&
        (code == CURLE_OK || t.is_data)) {
      t.done = true;
      if (--t.job.parts_left > 0) return;
      t.job.blob->finish();
      t.job.finished = true;
      ++verifying_;
      return;
    }
    if (code == CURLE_OK && status == 403 && !client_.is_hub_url(t.url)) {
      // An expired signed URL: ask the hub for a new one.
      if (++t.reresolves > kMaxReresolves) {
        fail(t, "the signed URL from " + origin + " still answers HTTP 403 after " +
                    std::to_string(kMaxReresolves) + " new ones");
      }
      t.url = t.resolve_url;
      t.redirects = 0;
      t.start_at = Clock::now();
      return;
    }
    std::string failure;
    const auto wait = client_.budget().after_failed_try(
        code != CURLE_OK, transient_failure(code), transport, status, t.received, t.length, origin,
        t.headers, t.tries, t.received_at_failure, failure);
    if (!wait) fail(t, failure);
    t.start_at = Clock::now() + *wait;
  }

  HubClient& client_;
  const RepoCache& cache_;
  std::string commit_;
  CURLM* multi_ = nullptr;
  std::vector<std::unique_ptr<FileJob>> jobs_;
  std::vector<std::unique_ptr<Transfer>> active_;
  uint64_t part_bytes_ = default_part_bytes();
  uint64_t done_ = 0;
  uint64_t received_ = 0;
  int verifying_ = 0;  // files whose blobs verify and rename them
};

}  // namespace

DownloadTotals download_files(HubClient& client, const RepoCache& cache, const std::string& commit,
                              const std::vector<TreeFile>& files, int jobs,
                              const std::function<void(uint64_t, uint64_t)>& progress,
                              const std::function<void(const TreeFile&)>& on_done) {
  if (files.empty()) return {};
  cache.make_blob_folder();
  Downloader downloader(client, cache, commit);
  return downloader.run(files, std::max(jobs, 1), progress, on_done);
}

}  // namespace kbdata::hub
