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
#include "hub/transfer.h"

namespace kbdata::hub {
namespace {

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
  bool finishing_ = false;
  bool committed_ = false;
  bool stopping_ = false;
  std::string error_;

  std::thread thread_;  // last: starts once the members above exist
};

// One file's download: its parts, and the blob its bytes go to (made with the first bytes).
struct FileJob {
  explicit FileJob(const TreeFile& f) : file(f) {}
  const TreeFile& file;
  std::vector<Blob::Part> parts;  // in file order: one, or the ranges of a split file
  int parts_left = 0;
  std::unique_ptr<Blob> blob;
  bool finished = false;  // every part is in: the blob verifies and renames
};

// One part of a file (the whole file in one stream, or one of its ranges when it is split): its
// bytes go to the file's blob, its failure names the file.
class PartTransfer final : public Transfer {
 public:
  PartTransfer(FileJob& job, const std::string& resolve, uint64_t start, uint64_t length,
               size_t part, Ask ask, const RepoCache& cache, const std::function<void()>& wake,
               uint64_t& done, int& verifying)
      : Transfer(job.file, resolve, resolve, start, length, ask),
        job_(job),
        part_(part),
        cache_(cache),
        wake_(wake),
        done_(done),
        verifying_(verifying) {}

  void write(uint64_t offset, std::span<const uint8_t> bytes) override {
    blob().write(part_, offset, bytes);
    done_ += bytes.size();
  }
  void complete() override {
    if (--job_.parts_left > 0) return;
    blob().finish();
    job_.finished = true;
    ++verifying_;
  }
  [[noreturn]] void fail(const std::string& reason) const override {
    throw IoError(job_.file.path + ": " + reason);
  }

 private:
  Blob& blob() {
    if (!job_.blob) {
      job_.blob =
          std::make_unique<Blob>(job_.file, cache_.blob_path(job_.file.etag), job_.parts, wake_);
    }
    return *job_.blob;
  }

  FileJob& job_;
  size_t part_;
  const RepoCache& cache_;
  const std::function<void()>& wake_;
  uint64_t& done_;  // bytes of all files in their temporaries
  int& verifying_;  // files whose blobs verify and rename them
};

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
      : client_(client), cache_(cache), commit_(commit), engine_(client, std::move(commit)) {}
  ~Downloader() {
    jobs_.clear();  // their blobs' threads wake the engine, which outlives them
  }
  Downloader(const Downloader&) = delete;
  Downloader& operator=(const Downloader&) = delete;

  DownloadTotals run(const std::vector<TreeFile>& files, int jobs, const ProgressFn& progress,
                     const std::function<void(const TreeFile&)>& on_done) {
    // A file larger than the part size is fetched in ranges of that size, at once.
    std::deque<Transfer*> queue;
    uint64_t total = 0;
    for (const TreeFile& f : files) {
      total += f.size;
      jobs_.push_back(std::make_unique<FileJob>(f));
      FileJob& job = *jobs_.back();
      const std::string resolve = client_.resolve_url(commit_, f.path);
      // As many parts as transfers may run at once, none smaller than the part size.
      const uint64_t wanted = (f.size + part_bytes_ - 1) / part_bytes_;
      const uint64_t count = std::min<uint64_t>(wanted, static_cast<uint64_t>(jobs));
      const uint64_t length = count > 1 ? (f.size + count - 1) / count : f.size;
      const Transfer::Ask ask = count > 1 ? Transfer::Ask::range : Transfer::Ask::whole_file;
      uint64_t at = 0;
      do {
        const uint64_t part = std::min(length, f.size - at);
        job.parts.push_back({at, part, 0});
        transfers_.push_back(std::make_unique<PartTransfer>(
            job, resolve, at, part, job.parts.size() - 1, ask, cache_, wake_, done_, verifying_));
        queue.push_back(transfers_.back().get());
        ++job.parts_left;
        at += part;
      } while (at < f.size);
    }
    DownloadTotals totals;
    engine_.run(std::move(queue), jobs, [&] {
      collect_verified(totals, on_done);
      if (progress) progress({.stage = {}, .done = done_, .total = total, .unit = "bytes"});
      return verifying_ > 0;
    });
    totals.bytes = engine_.body_bytes();
    return totals;
  }

 private:
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

  HubClient& client_;
  const RepoCache& cache_;
  std::string commit_;
  TransferEngine engine_;  // before the jobs: their blobs' threads wake it
  std::function<void()> wake_ = [this] { engine_.wake(); };
  std::vector<std::unique_ptr<FileJob>> jobs_;
  std::vector<std::unique_ptr<PartTransfer>> transfers_;
  uint64_t part_bytes_ = default_part_bytes();
  uint64_t done_ = 0;
  int verifying_ = 0;
};

}  // namespace

DownloadTotals download_files(HubClient& client, const RepoCache& cache, const std::string& commit,
                              const std::vector<TreeFile>& files, int jobs,
                              const ProgressFn& progress,
                              const std::function<void(const TreeFile&)>& on_done) {
  if (files.empty()) return {};
  cache.make_blob_folder();
  Downloader downloader(client, cache, commit);
  return downloader.run(files, std::max(jobs, 1), progress, on_done);
}

}  // namespace kbdata::hub
