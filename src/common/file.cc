#include "common/file.h"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/error.h"

namespace kbdata {
namespace {

std::string system_message(int err) { return std::strerror(err); }

void require_in_bounds(const std::string& name, uint64_t file_size, uint64_t offset,
                       size_t length) {
  if (offset > file_size || length > file_size - offset) {
    FormatError error("file is truncated: reading " + std::to_string(length) + " bytes at offset " +
                      std::to_string(offset) + " but the file has " + std::to_string(file_size) +
                      " bytes");
    error.locate_file(name);
    throw error;
  }
}

// The temporary files of live AtomicOutputFiles, for the signal handler. A slot is claimed
// (kFree -> kFilling), filled, then published (kReady); the handler only reads kReady slots, and
// only async-signal-safe calls (unlink) are made there. More live outputs than slots are simply
// not cleaned up on a signal (kbdata writes a handful at a time).
constexpr int kFree = 0;
constexpr int kFilling = 1;
constexpr int kReady = 2;
struct TempSlot {
  std::atomic<int> state{kFree};
  bool folder = false;  // a temporary folder: removed with everything in it
  char path[PATH_MAX];
};
std::array<TempSlot, 64> temp_slots;

int register_temp(const std::string& path, bool folder = false) {
  if (path.size() >= PATH_MAX) return -1;
  for (size_t i = 0; i < temp_slots.size(); ++i) {
    int expected = kFree;
    if (temp_slots[i].state.compare_exchange_strong(expected, kFilling)) {
      std::memcpy(temp_slots[i].path, path.c_str(), path.size() + 1);
      temp_slots[i].folder = folder;
      temp_slots[i].state.store(kReady);
      return static_cast<int>(i);
    }
  }
  return -1;
}

void unregister_temp(int slot) {
  if (slot >= 0) temp_slots[static_cast<size_t>(slot)].state.store(kFree);
}

// The entries of getdents64 (the system call; glibc's readdir is not async-signal-safe).
struct LinuxDirent64 {
  uint64_t d_ino;
  int64_t d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[1];
};

// Removes `name` in the folder `parent_fd` and, if it is a folder, everything in it, with system
// calls only (open, getdents64, unlink, close: safe in a signal handler), never following a
// symlink. `depth` bounds the recursion (and the stack: 1 KiB a level); deeper folders stay.
// Returns whether `name` is gone.
bool remove_tree_at(int parent_fd, const char* name, int depth) {
  if (::unlinkat(parent_fd, name, 0) == 0 || errno == ENOENT) return true;  // a file or a link
  if (depth == 0) return false;
  const int fd = ::openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return false;
  alignas(8) char buffer[1024];
  // Passes until one finds nothing left to remove (removing entries while listing may skip some).
  for (bool removed = true; removed;) {
    removed = false;
    if (::lseek(fd, 0, SEEK_SET) != 0) break;
    for (;;) {
      const long n = ::syscall(SYS_getdents64, fd, buffer, sizeof buffer);
      if (n <= 0) break;
      for (long at = 0; at < n;) {
        const auto* entry = reinterpret_cast<const LinuxDirent64*>(buffer + at);
        at += entry->d_reclen;
        const char* entry_name = entry->d_name;
        if (entry_name[0] == '.' &&
            (entry_name[1] == '\0' || (entry_name[1] == '.' && entry_name[2] == '\0'))) {
          continue;
        }
        removed = remove_tree_at(fd, entry_name, depth - 1) || removed;
      }
    }
  }
  ::close(fd);
  return ::unlinkat(parent_fd, name, AT_REMOVEDIR) == 0;
}

extern "C" void remove_temps_and_reraise(int signal_number) {
  const int saved = errno;
  for (TempSlot& slot : temp_slots) {
    if (slot.state.load() != kReady) continue;
    if (slot.folder) {
      // Another thread may still be adding a file: a few rounds, until the folder is gone.
      for (int round = 0; round < 8 && !remove_tree_at(AT_FDCWD, slot.path, 16); ++round) {
      }
    } else {
      ::unlink(slot.path);
    }
  }
  errno = saved;
  ::signal(signal_number, SIG_DFL);
  ::raise(signal_number);
}

}  // namespace

int register_temporary_folder(const std::string& path) { return register_temp(path, true); }

void unregister_temporary_folder(int registration) { unregister_temp(registration); }

void remove_temporary_files_on_signals() {
  struct sigaction action {};
  action.sa_handler = remove_temps_and_reraise;
  sigemptyset(&action.sa_mask);
  for (int signal_number : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(signal_number, &action, nullptr);
}

std::unique_ptr<LocalFile> LocalFile::open(const std::string& path) {
  // O_NONBLOCK: opening a FIFO without it waits for a writer, forever; a FIFO is refused below.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    IoError error("cannot open: " + system_message(errno));
    error.locate_file(path);
    throw error;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    IoError error("cannot stat: " + system_message(err));
    error.locate_file(path);
    throw error;
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    IoError error("not a regular file (it is " + describe_file_type(st.st_mode) + ")");
    error.locate_file(path);
    throw error;
  }
  note_input(path);  // no output of this process may replace it (output_target.h)
  return std::unique_ptr<LocalFile>(new LocalFile(path, fd, static_cast<uint64_t>(st.st_size)));
}

LocalFile::~LocalFile() { ::close(fd_); }

void LocalFile::read_at(uint64_t offset, std::span<uint8_t> out) {
  require_in_bounds(path_, size_, offset, out.size());
  size_t done = 0;
  while (done < out.size()) {
    ssize_t n =
        ::pread(fd_, out.data() + done, out.size() - done, static_cast<off_t>(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      IoError error("read failed: " + system_message(errno));
      error.locate_file(path_);
      error.locate_offset(static_cast<int64_t>(offset + done));
      throw error;
    }
    if (n == 0) {
      FormatError error("file shrank while being read");
      error.locate_file(path_);
      error.locate_offset(static_cast<int64_t>(offset + done));
      throw error;
    }
    done += static_cast<size_t>(n);
  }
}

void MemoryFile::read_at(uint64_t offset, std::span<uint8_t> out) {
  require_in_bounds(name_, bytes_.size(), offset, out.size());
  if (!out.empty()) std::memcpy(out.data(), bytes_.data() + offset, out.size());
}

void RecordingFile::read_at(uint64_t offset, std::span<uint8_t> out) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ranges_.push_back({offset, out.size()});
    bytes_read_ += out.size();
  }
  inner_.read_at(offset, out);
}

AtomicOutputFile::AtomicOutputFile(const std::string& path)
    : AtomicOutputFile(check_output_file(path)) {}

AtomicOutputFile::AtomicOutputFile(OutputTarget target)
    : target_(std::move(target)), claim_(claim_output(target_)) {
  remove_stale_temporaries(target_.target);
  temp_path_ = temporary_template(target_.target);
  fd_ = ::mkostemp(temp_path_.data(), O_CLOEXEC);
  if (fd_ < 0) {
    const int err = errno;
    release_output(claim_);
    IoError error("cannot create a temporary file beside it: " + system_message(err));
    error.locate_file(target_.path);
    throw error;
  }
  signal_slot_ = register_temp(temp_path_);
  lock_temporary(fd_);
}

AtomicOutputFile::~AtomicOutputFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_) ::unlink(temp_path_.c_str());
  unregister_temp(signal_slot_);
  release_output(claim_);
}

void AtomicOutputFile::write(std::span<const uint8_t> bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      IoError error("write failed: " + system_message(errno));
      error.locate_file(target_.path);
      throw error;
    }
    done += static_cast<size_t>(n);
  }
  appended_ += bytes.size();
  if (appended_ - writeback_from_ >= kWritebackBytes) {
    const uint64_t length = (appended_ - writeback_from_) / kWritebackBytes * kWritebackBytes;
    start_writeback(writeback_from_, length);
    writeback_from_ += length;
  }
}

void AtomicOutputFile::write_at(uint64_t offset, std::span<const uint8_t> bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n =
        ::pwrite(fd_, bytes.data() + done, bytes.size() - done, static_cast<off_t>(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      IoError error("write failed: " + system_message(errno));
      error.locate_file(target_.path);
      throw error;
    }
    done += static_cast<size_t>(n);
  }
}

void AtomicOutputFile::read_at(uint64_t offset, std::span<uint8_t> out) {
  size_t done = 0;
  while (done < out.size()) {
    ssize_t n =
        ::pread(fd_, out.data() + done, out.size() - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      IoError error(n < 0 ? "cannot read the temporary back: " + system_message(errno)
                          : std::string("the temporary is shorter than what was written"));
      error.locate_file(target_.path);
      throw error;
    }
    done += static_cast<size_t>(n);
  }
}

void AtomicOutputFile::start_writeback(uint64_t offset, uint64_t length) {
  if (fd_ >= 0) {
    ::sync_file_range(fd_, static_cast<off_t>(offset), static_cast<off_t>(length),
                      SYNC_FILE_RANGE_WRITE);
  }
}

void AtomicOutputFile::sync() {
  if (synced_) return;
  if (fd_ < 0) {
    IoError error("cannot flush: an earlier flush failed");
    error.locate_file(target_.path);
    throw error;
  }
  // The final mode and owner before the file is visible under its name. A replaced file's owner
  // can be kept only by root (or its owner, for the group); otherwise the new file is the caller's.
  if (target_.owner && target_.group) {
    [[maybe_unused]] int ignored = ::fchown(fd_, *target_.owner, *target_.group);
  }
  const bool ok = ::fchmod(fd_, target_.mode) == 0 && ::fsync(fd_) == 0;
  const int err = errno;
  const bool closed = ::close(fd_) == 0;
  fd_ = -1;
  if (!ok || !closed) {
    IoError error("cannot flush: " + system_message(ok ? errno : err));
    error.locate_file(target_.path);
    throw error;
  }
  synced_ = true;
}

void AtomicOutputFile::commit() {
  sync();
  // The destination may have changed since it was checked (and inputs opened since): never
  // rename over a non-file or an input.
  struct stat st {};
  if (::lstat(target_.target.c_str(), &st) == 0) {
    if (!S_ISREG(st.st_mode)) {
      UsageError error("output is now " + describe_file_type(st.st_mode) +
                       "; kbdata writes only regular files");
      error.locate_file(target_.path);
      throw error;
    }
    if (is_noted_input({static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino)})) {
      UsageError error("output is one of the command's inputs; write to another file");
      error.locate_file(target_.path);
      throw error;
    }
  }
  if (::rename(temp_path_.c_str(), target_.target.c_str()) != 0) {
    IoError error("cannot rename the temporary file into place: " + system_message(errno));
    error.locate_file(target_.path);
    throw error;
  }
  committed_ = true;
}

}  // namespace kbdata
