#include "hub/remote_file.h"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstring>
#include <deque>
#include <thread>

#include "common/error.h"
#include "common/text.h"
#include "hub/transfer.h"

namespace kbdata::hub {

namespace {
using Clock = std::chrono::steady_clock;
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

// One range of a file: its bytes go to a buffer of the range's size, its failure names the file
// and the range.
class RangeTransfer final : public Transfer {
 public:
  RangeTransfer(RemoteSession::FileState& file, ByteRange range, uint64_t& ranges)
      : Transfer(file.file, file.resolve_url, file.data_url, range.offset, range.length,
                 Ask::range),
        state_(file),
        bytes_(std::make_shared<std::vector<uint8_t>>(static_cast<size_t>(range.length))),
        ranges_(ranges) {}

  void write(uint64_t offset, std::span<const uint8_t> bytes) override {
    std::memcpy(bytes_->data() + (offset - start()), bytes.data(), bytes.size());
  }
  void complete() override {
    state_.data_url = url();  // the file's later ranges go straight there
    ++ranges_;
  }
  [[noreturn]] void fail(const std::string& reason) const override {
    NetworkError error("reading bytes " + std::to_string(start()) + "-" +
                       std::to_string(start() + length() - 1) + " remotely: " + reason);
    error.locate_file(state_.name);
    throw error;
  }

  std::shared_ptr<std::vector<uint8_t>>& bytes() { return bytes_; }

 private:
  RemoteSession::FileState& state_;
  std::shared_ptr<std::vector<uint8_t>> bytes_;
  uint64_t& ranges_;
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
  uint64_t ranges = 0;
  std::vector<std::unique_ptr<RangeTransfer>> transfers;
  std::deque<Transfer*> queue;
  for (const Want& w : wants) {
    transfers.push_back(std::make_unique<RangeTransfer>(*w.file, w.range, ranges));
    queue.push_back(transfers.back().get());
  }
  const auto start = Clock::now();
  const uint64_t bytes_before = stats_.bytes;
  if (!engine_) engine_ = std::make_unique<TransferEngine>(client_, commit_);
  // The counts are the engine's, whether the round trip succeeds or fails.
  const auto count = [&] {
    std::lock_guard<std::mutex> lock(cache_mutex_);
    stats_.requests = engine_->requests();
    stats_.bytes = engine_->body_bytes();
    stats_.ranges += ranges;
  };
  try {
    engine_->run(std::move(queue), kParallel);
  } catch (...) {
    count();
    throw;
  }
  count();
  {
    std::lock_guard<std::mutex> lock(cache_mutex_);
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
    std::shared_ptr<const std::vector<uint8_t>> bytes = std::move(transfers[i]->bytes());
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
