// Files: random-access input with read accounting, and output that appears only when complete.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "common/malloc_tuning.h"
#include "common/output_target.h"

namespace kbdata {

// A byte range of a file: [offset, offset + length).
struct ByteRange {
  uint64_t offset = 0;
  uint64_t length = 0;
};

// A file read by absolute offset. read_at() may be called from several threads at once (the
// loader decodes columns of one file on two threads); every implementation here allows it.
class RandomAccessFile {
 public:
  virtual ~RandomAccessFile() = default;

  [[nodiscard]] virtual uint64_t size() const = 0;

  // Reads exactly out.size() bytes at `offset` into `out`. Throws FormatError if the range lies
  // past the end of the file (the file is truncated), IoError if the system refuses.
  virtual void read_at(uint64_t offset, std::span<uint8_t> out) = 0;

  // A hint that `ranges` (sorted by offset, disjoint) will be read soon, roughly in that order.
  // A file whose reads cost a round trip each (a remote file) may fetch them ahead, coalesced and
  // in parallel; reads are correct without the hint, and a range hinted but never read costs at
  // most its bytes. Readers call it once for the bytes of a unit of work (the column chunks or
  // pages of a row group) before reading them. The default ignores it.
  virtual void will_read(std::span<const ByteRange> ranges) { (void)ranges; }

  // True when each read costs a round trip to another machine (a file read over HTTP): readers
  // then avoid many small reads, such as walking a chunk's page headers one by one.
  [[nodiscard]] virtual bool remote() const { return false; }

  // The name used in error messages.
  [[nodiscard]] virtual const std::string& name() const = 0;
};

// A file on the local file system, read with pread().
class LocalFile final : public RandomAccessFile {
 public:
  // Throws IoError naming the path if it cannot be opened or is not a regular file.
  static std::unique_ptr<LocalFile> open(const std::string& path);
  ~LocalFile() override;
  LocalFile(const LocalFile&) = delete;
  LocalFile& operator=(const LocalFile&) = delete;

  [[nodiscard]] uint64_t size() const override { return size_; }
  void read_at(uint64_t offset, std::span<uint8_t> out) override;
  [[nodiscard]] const std::string& name() const override { return path_; }

 private:
  LocalFile(std::string path, int fd, uint64_t size)
      : path_(std::move(path)), fd_(fd), size_(size) {}

  std::string path_;
  int fd_;
  uint64_t size_;
};

// An in-memory file; `bytes` is copied.
class MemoryFile final : public RandomAccessFile {
 public:
  MemoryFile(std::string name, std::vector<uint8_t> bytes)
      : name_(std::move(name)), bytes_(std::move(bytes)) {}

  [[nodiscard]] uint64_t size() const override { return bytes_.size(); }
  void read_at(uint64_t offset, std::span<uint8_t> out) override;
  [[nodiscard]] const std::string& name() const override { return name_; }

 private:
  std::string name_;
  std::vector<uint8_t> bytes_;
};

// Wraps a file and records every range read from it (for tests and benchmarks of projection).
class RecordingFile final : public RandomAccessFile {
 public:
  using Range = ByteRange;
  // `inner` is borrowed and must outlive this object.
  explicit RecordingFile(RandomAccessFile& inner) : inner_(inner) {}

  [[nodiscard]] uint64_t size() const override { return inner_.size(); }
  void read_at(uint64_t offset, std::span<uint8_t> out) override;
  void will_read(std::span<const ByteRange> ranges) override { inner_.will_read(ranges); }
  [[nodiscard]] bool remote() const override { return inner_.remote(); }
  [[nodiscard]] const std::string& name() const override { return inner_.name(); }

  // Read these only while no read is in progress.
  [[nodiscard]] const std::vector<Range>& ranges() const { return ranges_; }
  [[nodiscard]] uint64_t bytes_read() const { return bytes_read_; }

 private:
  RandomAccessFile& inner_;
  std::mutex mutex_;  // guards ranges_ and bytes_read_
  std::vector<Range> ranges_;
  uint64_t bytes_read_ = 0;
};

// Owns a file and counts the bytes read from it (for --verbose reports of what a load read).
class CountingFile final : public RandomAccessFile {
 public:
  explicit CountingFile(std::unique_ptr<RandomAccessFile> inner) : inner_(std::move(inner)) {}

  [[nodiscard]] uint64_t size() const override { return inner_->size(); }
  void read_at(uint64_t offset, std::span<uint8_t> out) override {
    inner_->read_at(offset, out);
    bytes_read_.fetch_add(out.size(), std::memory_order_relaxed);
  }
  void will_read(std::span<const ByteRange> ranges) override { inner_->will_read(ranges); }
  [[nodiscard]] bool remote() const override { return inner_->remote(); }
  [[nodiscard]] const std::string& name() const override { return inner_->name(); }
  [[nodiscard]] uint64_t bytes_read() const { return bytes_read_.load(std::memory_order_relaxed); }

 private:
  std::unique_ptr<RandomAccessFile> inner_;
  std::atomic<uint64_t> bytes_read_{0};
};

// Opens files by name: where a data folder's files come from. The local file system
// (LocalFileSource), or a data set on the hub read remotely (hub/remote_source.h); a data folder
// holds one so that the readers above it never know which. open() may be called from several
// threads at once.
class FileSource {
 public:
  virtual ~FileSource() = default;
  // Throws IoError naming `path` if it cannot be opened.
  [[nodiscard]] virtual std::unique_ptr<RandomAccessFile> open(const std::string& path) const = 0;
};

// LocalFile::open.
class LocalFileSource final : public FileSource {
 public:
  [[nodiscard]] std::unique_ptr<RandomAccessFile> open(const std::string& path) const override {
    return LocalFile::open(path);
  }
};

// A sequential byte sink (the Parquet writer's output).
class OutputSink {
 public:
  virtual ~OutputSink() = default;
  // Appends `bytes`. Throws IoError on failure.
  virtual void write(std::span<const uint8_t> bytes) = 0;
};

// Output kept in memory (tests, small files).
class MemorySink final : public OutputSink {
 public:
  void write(std::span<const uint8_t> bytes) override {
    reserve_for_append(bytes_, bytes.size());
    bytes_.insert(bytes_.end(), bytes.begin(), bytes.end());
  }
  [[nodiscard]] const std::vector<uint8_t>& bytes() const { return bytes_; }
  [[nodiscard]] std::vector<uint8_t> take() { return std::move(bytes_); }

 private:
  std::vector<uint8_t> bytes_;
};

// Output that appears at its destination only when commit() succeeds: bytes go to a temporary file
// in the destination's folder (named by temporary_template(), output_target.h), which commit()
// flushes, syncs, gives its final mode and renames over the destination. Destroyed without
// commit(), it removes the temporary file, so a failure leaves no partial output.
//
// The destination is checked first (check_output_file): a folder, a device, a FIFO, a socket or
// an input is never replaced; a symlink is followed and the file it names is replaced. A replaced
// file keeps its mode (and owner, where the system allows); a new one gets 0666 minus the umask,
// or 0600 when PRIVATE.
//
// While it exists, its temporary file is registered for remove_temporary_files_on_signals() (an
// interrupted process removes it) and holds a lock; a temporary left by SIGKILL or a power loss is
// removed the next time the same destination is written (remove_stale_temporaries).
class AtomicOutputFile final : public OutputSink {
 public:
  // Checks `path` (check_output_file) and creates the temporary. Throws UsageError for a
  // destination that must not be replaced, IoError naming the folder if the temporary file cannot
  // be created.
  explicit AtomicOutputFile(const std::string& path);
  explicit AtomicOutputFile(OutputTarget target);
  ~AtomicOutputFile();
  AtomicOutputFile(const AtomicOutputFile&) = delete;
  AtomicOutputFile& operator=(const AtomicOutputFile&) = delete;

  // Appends at the end of what write() wrote. Every kWritebackBytes appended, the kernel is asked
  // to start writing them to disk (start_writeback): a large output is then on its way to the disk
  // while the rest is made, and sync() waits only for its tail (kbdata dedup's 1.28 GB output
  // waited 1.37 s in fsync when all of it was still in the page cache).
  // Throws IoError naming the path on failure.
  void write(std::span<const uint8_t> bytes) override;
  void write(std::string_view text) {
    write(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
  }
  // Writes `bytes` at `offset` of the temporary, wherever write() is (pieces of one file that
  // arrive out of order: the parallel ranges of a download). Throws IoError naming the path.
  void write_at(uint64_t offset, std::span<const uint8_t> bytes);
  // Reads back `out.size()` bytes at `offset` of the temporary (to hash a file assembled from
  // pieces). Throws IoError naming the path, also for bytes never written past the end.
  void read_at(uint64_t offset, std::span<uint8_t> out);
  // Asks the kernel to start writing `length` bytes at `offset` to disk now, without waiting, so
  // that sync() later waits for less (a large download). Best effort: a failure here is left to
  // sync() to report.
  void start_writeback(uint64_t offset, uint64_t length);
  static constexpr uint64_t kWritebackBytes = uint64_t{16} << 20;
  // Bytes appended by write() whose writeback has been started, a multiple of kWritebackBytes.
  [[nodiscard]] uint64_t writeback_started() const { return writeback_from_; }
  // Flushes and syncs the temporary file and closes it; nothing more may be written. commit()
  // then only renames. Lets a caller sync several outputs before renaming any (kbdata export).
  // Throws IoError naming the path on failure.
  void sync();
  void commit();

  [[nodiscard]] const OutputTarget& target() const { return target_; }

 private:
  OutputTarget target_;
  std::string claim_;  // claim_output()'s key, released on destruction
  std::string temp_path_;
  int fd_ = -1;
  uint64_t appended_ = 0;        // bytes write() wrote since the start
  uint64_t writeback_from_ = 0;  // where the next automatic writeback starts
  bool committed_ = false;
  bool synced_ = false;
  int signal_slot_ = -1;  // registration for remove_temporary_files_on_signals(), or -1
};

// Installs handlers for SIGINT, SIGTERM and SIGHUP that remove the temporary files of every live
// AtomicOutputFile and every registered temporary folder (with everything in it), then end the
// process with the signal's default action (so the exit status still says which signal it was).
// Call once, early in main().
void remove_temporary_files_on_signals();

// Registers `path`, a temporary folder this process fills (kbdata extract's), for those handlers:
// a signal removes it with everything in it (up to 16 levels deep). Returns the registration for
// unregister_temporary_folder, -1 when none is free (64 live temporaries at once).
[[nodiscard]] int register_temporary_folder(const std::string& path);
// Ends a registration (-1: none), before the folder is renamed into place or removed.
void unregister_temporary_folder(int registration);

}  // namespace kbdata
