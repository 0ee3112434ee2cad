// Files of a hub data set read remotely, with HTTP range requests (docs/hub.md, "Reading
// remotely"):
//
//   RemoteSession  what the remote files of one command share: the hub client and its retry
//                  budget, one libcurl multi handle every range goes through, the cache of fetched
//                  ranges (bounded), and the counts --verbose reports
//   RemoteFile     a RandomAccessFile over one file of the commit: read_at() serves cached bytes
//                  and fetches what is missing (with some read-ahead); will_read() fetches the
//                  hinted ranges at once, coalesced and in parallel
//
// A range is a transfer of the hub's one engine (transfer.h: redirects, the identity headers, the
// checks of a 206 or a 200, expired signed URLs, retries); the URL that answered a file's range
// (a signed URL) is kept for its later ranges. A range that cannot be fetched fails with
// NetworkError naming the file and the range. Bytes cannot be hashed range by range: a remote read
// trusts the sizes (checked) and the server's answers to the ranges asked for.
#pragma once

#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "common/file.h"
#include "hub/client.h"

namespace kbdata::hub {

class TransferEngine;

// What the remote reads of one command cost, for --verbose.
struct RemoteStats {
  uint64_t requests = 0;     // HTTP requests, redirects and retries included
  uint64_t ranges = 0;       // ranges fetched
  uint64_t round_trips = 0;  // batches of ranges fetched together
  uint64_t bytes = 0;        // body bytes received
  int retries = 0;
};

class RemoteSession {
 public:
  // Fetched ranges kept in memory, across the files of the session, before the least recently
  // used are dropped.
  static constexpr uint64_t kCacheBytes = uint64_t{256} << 20;
  // Ranges closer than this are fetched as one; a range longer than kMaxPiece is fetched in
  // pieces, in parallel; at most kParallel requests are in flight at once.
  static constexpr uint64_t kGap = uint64_t{1} << 20;
  static constexpr uint64_t kMaxPiece = uint64_t{8} << 20;
  static constexpr int kParallel = 8;
  // A read of missing bytes fetches at least this much (the page indexes, read one chunk at a
  // time, lie side by side); while misses follow each other (a long chunk read beyond what was
  // hinted), twice as much each time, up to kMaxReadAhead.
  static constexpr uint64_t kReadAhead = uint64_t{256} << 10;
  static constexpr uint64_t kMaxReadAhead = uint64_t{32} << 20;
  // Opening a file fetches its first 4 bytes and its last kFooterGuess (the footer, most often
  // whole) in one round trip.
  static constexpr uint64_t kFooterGuess = uint64_t{64} << 10;

  // `commit` is what every file is read at. `log`, when not null, gets one line per round trip
  // and the totals when the session ends (--verbose).
  RemoteSession(HubEnvironment environment, std::string repo, std::string commit, std::FILE* log);
  ~RemoteSession();
  RemoteSession(const RemoteSession&) = delete;
  RemoteSession& operator=(const RemoteSession&) = delete;

  [[nodiscard]] HubClient& client() { return client_; }
  [[nodiscard]] const std::string& commit() const { return commit_; }

  // Opens `file` of the commit as `name` (for messages); every opening of one path shares its
  // fetched bytes. The session must outlive the file.
  [[nodiscard]] std::unique_ptr<RandomAccessFile> open(const TreeFile& file, std::string name);

  // Fetches the head and the footer guess of each file (opened by open()) in one round trip.
  void prefetch_footers(const std::vector<RandomAccessFile*>& files);

  [[nodiscard]] RemoteStats stats();

  // The state of one remote file; RemoteFile holds one (remote_file.cc).
  struct FileState;

 private:
  friend class RemoteFile;
  struct Want {
    FileState* file;
    ByteRange range;
  };
  struct Block {
    std::shared_ptr<const std::vector<uint8_t>> bytes;
    size_t start = 0;  // of these bytes in `bytes`
    uint64_t length = 0;
    uint64_t used = 0;  // use counter at the last read
  };
  using Key = std::pair<const FileState*, uint64_t>;  // file, offset

  void read(FileState& file, uint64_t offset, std::span<uint8_t> out);
  void will_read(FileState& file, std::span<const ByteRange> ranges);
  // Copies the cached bytes of [offset, offset + out.size()) into `out`; returns the ranges of it
  // that are not cached. REQUIRES: cache_mutex_ held.
  std::vector<ByteRange> copy_cached(const FileState& file, uint64_t offset,
                                     std::span<uint8_t> out);
  // The parts of `range` not in the cache. REQUIRES: cache_mutex_ held.
  std::vector<ByteRange> uncached(const FileState& file, ByteRange range) const;
  // Fetches `wants` (in parallel) and caches them; returns their bytes, in order. REQUIRES:
  // fetch_mutex_ held.
  std::vector<std::shared_ptr<const std::vector<uint8_t>>> fetch(const std::vector<Want>& wants);
  // Adds what of [offset, offset + bytes->size()) is not cached yet. REQUIRES: cache_mutex_ held.
  void insert(const FileState& file, uint64_t offset,
              const std::shared_ptr<const std::vector<uint8_t>>& bytes);
  void evict();  // REQUIRES: cache_mutex_ held

  HubEnvironment environment_;
  RetryBudget budget_;
  HubClient client_;
  std::string commit_;
  std::FILE* log_;
  std::vector<std::unique_ptr<FileState>> files_;

  std::mutex fetch_mutex_;  // one fetch at a time; guards the engine and the files' URLs
  std::unique_ptr<TransferEngine> engine_;  // made on the first fetch

  std::mutex cache_mutex_;  // guards the members below
  std::map<Key, Block> cache_;
  uint64_t cached_bytes_ = 0;
  uint64_t use_counter_ = 0;
  RemoteStats stats_;
};

}  // namespace kbdata::hub
