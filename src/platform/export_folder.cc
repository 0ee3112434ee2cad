#include "platform/export_folder.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

#include "common/error.h"
#include "common/file.h"
#include "parquet/file_reader.h"

namespace kbdata::platform {
namespace {

namespace fs = std::filesystem;

// What every card kbdata export writes says of itself (dataset_card.cc).
constexpr std::string_view kCardMark = "exported from its database by `kbdata export`";
constexpr size_t kMaxCardBytes = size_t{4} << 20;

std::string join(const std::string& folder, const std::string& name) {
  return (fs::path(folder) / name).string();
}

std::vector<std::string> entries_of(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) {
    throw IoError(OptionName("out", dir), ": cannot list it: ", std::strerror(errno));
  }
  while (const dirent* e = ::readdir(d)) {
    const std::string_view name = e->d_name;
    if (name != "." && name != "..") names.emplace_back(name);
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

// The files a card kbdata export wrote lists (`data_files: "NAME"`), or none when `path` is not
// such a card.
std::set<std::string> files_listed_by_card(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) ||
      static_cast<size_t>(st.st_size) > kMaxCardBytes) {
    return {};
  }
  std::ifstream in(path, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (text.find(kCardMark) == std::string::npos) return {};
  std::set<std::string> files;
  const std::string key = "  data_files: \"";
  for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + 1)) {
    const size_t start = at + key.size();
    const size_t end = text.find('"', start);
    if (end == std::string::npos) break;
    files.insert(text.substr(start, end - start));
  }
  return files;
}

// A file read only for its footer. Unlike LocalFile::open it does not make the file an input of
// the process (it is about to be removed, not read for the output).
class PeekedFile final : public RandomAccessFile {
 public:
  PeekedFile(std::string path, int fd, uint64_t size)
      : path_(std::move(path)), fd_(fd), size_(size) {}
  ~PeekedFile() override { ::close(fd_); }
  PeekedFile(const PeekedFile&) = delete;
  PeekedFile& operator=(const PeekedFile&) = delete;
  [[nodiscard]] uint64_t size() const override { return size_; }
  void read_at(uint64_t offset, std::span<uint8_t> out) override {
    if (offset > size_ || out.size() > size_ - offset) throw FormatError("truncated");
    size_t done = 0;
    while (done < out.size()) {
      const ssize_t n =
          ::pread(fd_, out.data() + done, out.size() - done, static_cast<off_t>(offset + done));
      if (n <= 0) throw IoError("cannot read " + path_);
      done += static_cast<size_t>(n);
    }
  }
  [[nodiscard]] const std::string& name() const override { return path_; }

 private:
  std::string path_;
  int fd_;
  uint64_t size_;
};

// Whether `path` is a Parquet file kbdata export wrote: its footer's kbdata.source names the
// database it came from.
bool made_by_export(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return false;
  }
  auto file = std::make_unique<PeekedFile>(path, fd, static_cast<uint64_t>(st.st_size));
  try {
    std::unique_ptr<parquet::FileReader> reader = parquet::FileReader::open(std::move(file));
    for (const parquet::KeyValue& kv : reader->metadata().key_value_metadata) {
      if (kv.key == "kbdata.source" && kv.value && kv.value->rfind("PostgreSQL ", 0) == 0) {
        return true;
      }
    }
  } catch (const Error&) {
  }
  return false;
}

}  // namespace

ExportFolder::ExportFolder(const std::string& dir, const std::vector<std::string>& files,
                           bool is_private, bool force)
    : shown_(dir), files_(files), is_private_(is_private) {
  fs::path path = fs::path(dir).lexically_normal();
  if (!path.has_filename() && path.has_parent_path() && path != path.root_path()) {
    path = path.parent_path();  // "out/" names the folder out
  }
  if (dir.empty() || path.filename().empty() || path.filename() == "." || path.filename() == "..") {
    throw UsageError(OptionName("out"), " must name a folder, not '", dir, "'");
  }
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    std::error_code ec;
    const fs::path real = fs::canonical(path, ec);
    if (ec) {
      throw UsageError(OptionName("out", dir), " is a symbolic link to nothing (", ec.message(),
                       "); name a folder");
    }
    path = real;
  }
  dir_ = path.string();
  const std::string parent = path.has_parent_path() ? path.parent_path().string() : ".";
  struct stat parent_st {};
  if (::stat(parent.c_str(), &parent_st) != 0) {
    throw UsageError(OptionName("out", dir), ": its folder ", parent, " does not exist");
  }
  if (!S_ISDIR(parent_st.st_mode)) {
    throw UsageError(OptionName("out", dir), ": ", parent, " is not a folder");
  }
  if (::access(parent.c_str(), W_OK | X_OK) != 0) {
    throw IoError(OptionName("out", dir), ": cannot write into ", parent, ": ",
                  std::strerror(errno));
  }
  // Replacing DIR replaces everything in it: never an input of this process or the working folder.
  refuse_folder_holding_inputs(dir_, "out");

  exists_ = ::stat(dir_.c_str(), &st) == 0;
  if (!exists_) {
    if (errno != ENOENT) {
      throw IoError(OptionName("out", dir), ": cannot look at it: ", std::strerror(errno));
    }
    dir_mode_ = is_private ? 0700 : static_cast<mode_t>(0777 & ~process_umask());
    return;
  }
  if (!S_ISDIR(st.st_mode)) {
    throw UsageError(OptionName("out", dir), " is ", describe_file_type(st.st_mode),
                     ", not a folder");
  }
  if (st.st_dev != parent_st.st_dev) {
    throw UsageError(OptionName("out", dir),
                     " is a mount point, which kbdata export cannot replace whole; name a folder "
                     "inside it");
  }
  if (::access(dir_.c_str(), W_OK | X_OK) != 0) {
    throw IoError(OptionName("out", dir), ": cannot write into it: ", std::strerror(errno));
  }
  // In a sticky folder (/tmp) only DIR's owner, the folder's or root may rename DIR.
  const uid_t me = ::geteuid();
  if ((parent_st.st_mode & S_ISVTX) != 0 && me != 0 && me != st.st_uid && me != parent_st.st_uid) {
    throw IoError(OptionName("out", dir), ": cannot replace it: it belongs to another user and ",
                  parent, " is sticky");
  }
  dir_mode_ = is_private ? 0700 : (st.st_mode & 07777);
  dir_owner_ = st.st_uid;
  dir_group_ = st.st_gid;

  const std::set<std::string> outputs(files_.begin(), files_.end());
  std::optional<std::set<std::string>> listed;  // by the previous card, read on first need
  for (const std::string& name : entries_of(dir_)) {
    const std::string entry = join(dir_, name);
    struct stat est {};
    if (::lstat(entry.c_str(), &est) != 0) {
      throw IoError(OptionName("out", dir), ": cannot look at ", name, ": ", std::strerror(errno));
    }
    if (outputs.count(name) != 0) {
      if (!S_ISREG(est.st_mode) && !S_ISLNK(est.st_mode)) {
        throw UsageError(OptionName("out", dir), " holds ", name, ", which is ",
                         describe_file_type(est.st_mode),
                         "; kbdata export replaces only regular files");
      }
      continue;
    }
    if (!force) {
      throw UsageError(OptionName("out", dir), " holds ", name,
                       ", which the new card would not list; remove it, or ",
                       OptionName::flag("force"),
                       " removes it if an earlier kbdata export made or listed it");
    }
    if (!S_ISREG(est.st_mode)) {
      throw UsageError(OptionName("out", dir), " holds ", name, ", which is ",
                       describe_file_type(est.st_mode), "; ", OptionName::flag("force"),
                       " removes only regular files an earlier kbdata export made or listed");
    }
    if (!listed) listed = files_listed_by_card(join(dir_, "README.md"));
    if (listed->count(name) == 0 && !made_by_export(entry)) {
      throw UsageError(OptionName("out", dir), " holds ", name,
                       ", which no earlier kbdata export made or listed; ",
                       OptionName::flag("force"), " removes only such files");
    }
    removed_.push_back(name);
  }
}

ExportFolder::~ExportFolder() {
  if (lock_fd_ >= 0) ::close(lock_fd_);
  if (!committed_ && !staged_.empty()) {
    std::error_code ec;
    fs::remove_all(staged_, ec);
  }
}

void ExportFolder::stage() {
  remove_stale_temporaries(dir_);
  std::string pattern = temporary_template(dir_);
  if (::mkdtemp(pattern.data()) == nullptr) {
    IoError error("cannot create a temporary folder beside it: " +
                  std::string(std::strerror(errno)));
    error.locate_file(shown_);
    throw error;
  }
  staged_ = pattern;
  lock_fd_ = ::open(staged_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (lock_fd_ >= 0) lock_temporary(lock_fd_);
}

OutputTarget ExportFolder::target(const std::string& name) const {
  OutputTarget t;
  t.path = join(shown_, name);
  t.target = join(staged_, name);
  t.exists = false;
  t.mode = static_cast<mode_t>(0666 & ~process_umask());
  struct stat st {};
  if (exists_ && ::lstat(join(dir_, name).c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
    t.mode = st.st_mode & 0777;
    t.owner = st.st_uid;
    t.group = st.st_gid;
  }
  if (is_private_) t.mode = 0600;
  return t;
}

std::vector<std::string> ExportFolder::unexpected_entries() const {
  std::set<std::string> known(files_.begin(), files_.end());
  known.insert(removed_.begin(), removed_.end());
  std::vector<std::string> out;
  for (const std::string& name : entries_of(dir_)) {
    if (known.count(name) == 0) out.push_back(name);
  }
  return out;
}

void ExportFolder::commit() {
  struct stat st {};
  const bool exists_now = ::lstat(dir_.c_str(), &st) == 0;
  if (exists_now && exists_) {
    const std::vector<std::string> added = unexpected_entries();
    if (!added.empty()) {
      throw UsageError(OptionName("out", shown_), " gained ", added.front(),
                       " during the export; nothing was changed");
    }
  }
  if (dir_owner_ && dir_group_) {
    [[maybe_unused]] int ignored = ::chown(staged_.c_str(), *dir_owner_, *dir_group_);
  }
  if (::chmod(staged_.c_str(), dir_mode_) != 0) {
    throw IoError(OptionName("out", shown_),
                  ": cannot set the folder's mode: ", std::strerror(errno));
  }
  std::string previous;
  if (!exists_now || !exists_) {
    // A new DIR (or an empty one made meanwhile, which rename replaces).
    if (::rename(staged_.c_str(), dir_.c_str()) != 0) {
      throw IoError(OptionName("out", shown_),
                    ": cannot rename the export into place: ", std::strerror(errno));
    }
  } else if (::renameat2(AT_FDCWD, staged_.c_str(), AT_FDCWD, dir_.c_str(), RENAME_EXCHANGE) == 0) {
    previous = staged_;  // the exchange put the previous DIR at the staged folder's name
  } else if (errno == EINVAL || errno == ENOSYS || errno == ENOTSUP) {
    // No atomic exchange on this file system: move DIR aside, then the export in.
    std::string aside = temporary_template(dir_);
    if (::mkdtemp(aside.data()) == nullptr || ::rename(dir_.c_str(), aside.c_str()) != 0) {
      const int err = errno;
      ::rmdir(aside.c_str());
      throw IoError(OptionName("out", shown_), ": cannot move it aside: ", std::strerror(err));
    }
    if (::rename(staged_.c_str(), dir_.c_str()) != 0) {
      const int err = errno;
      ::rename(aside.c_str(), dir_.c_str());  // put the previous folder back
      throw IoError(OptionName("out", shown_),
                    ": cannot rename the export into place: ", std::strerror(err));
    }
    previous = aside;
  } else {
    throw IoError(OptionName("out", shown_),
                  ": cannot exchange it with the export: ", std::strerror(errno));
  }
  committed_ = true;
  if (previous.empty()) return;
  // The previous folder holds exactly what was checked: the replaced outputs and the files
  // accepted for removal.
  for (const std::vector<std::string>* names : {&files_, &removed_}) {
    for (const std::string& name : *names) ::unlink(join(previous, name).c_str());
  }
  if (::rmdir(previous.c_str()) != 0) {
    // Something was added to it during the commit: keep it, under a name no later run removes.
    const std::string keep = dir_ + ".kbdata-previous-" + std::to_string(::getpid());
    kept_previous_ = ::rename(previous.c_str(), keep.c_str()) == 0 ? keep : previous;
  }
}

}  // namespace kbdata::platform
