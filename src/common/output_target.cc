#include "common/output_target.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string_view>

#include "common/error.h"

namespace kbdata {
namespace {

namespace fs = std::filesystem;

constexpr int kMaxSymlinks = 40;  // as the kernel's own limit
constexpr size_t kNamePrefixBytes = 64;

[[noreturn]] void refuse(const std::string& path, const std::string& why) {
  throw UsageError("output " + path + ": " + why);
}

std::string folder_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string name_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

uint32_t fnv1a(std::string_view text) {
  uint32_t h = 2166136261u;
  for (unsigned char c : text) {
    h ^= c;
    h *= 16777619u;
  }
  return h;
}

// The part of the template before the pid: ".<prefix>.<hash>.kbdata-".
std::string template_stem(const std::string& name) {
  size_t cut = std::min(name.size(), kNamePrefixBytes);
  while (cut > 0 && cut < name.size() && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80) {
    --cut;  // never split a UTF-8 sequence
  }
  char hash[9];
  std::snprintf(hash, sizeof hash, "%08x", fnv1a(name));
  return "." + name.substr(0, cut) + "." + hash + ".kbdata-";
}

struct NotedInput {
  FileId id;
  std::string real_path;  // realpath() of the input, for "is it inside this folder"
};

std::mutex noted_mutex;
std::vector<NotedInput>& noted_inputs() {
  static std::vector<NotedInput> inputs;
  return inputs;
}

std::string real_path_of(const std::string& path) {
  char* resolved = ::realpath(path.c_str(), nullptr);
  if (resolved == nullptr) return {};
  std::string out = resolved;
  std::free(resolved);
  return out;
}

// Whether `inner` (a real path) is `outer` (a real path) or lies below it.
bool is_within(const std::string& inner, const std::string& outer) {
  if (outer == "/") return true;
  return inner == outer ||
         (inner.size() > outer.size() && inner.compare(0, outer.size(), outer) == 0 &&
          inner[outer.size()] == '/');
}

std::mutex claimed_mutex;
std::vector<std::string>& claimed_outputs() {
  static std::vector<std::string> claimed;
  return claimed;
}

bool process_alive(pid_t pid) {
  if (pid == ::getpid()) return true;
  return ::kill(pid, 0) == 0 || errno == EPERM;
}

}  // namespace

std::optional<FileId> file_id(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return FileId{static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino)};
}

void note_input(const std::string& path) {
  const std::optional<FileId> id = file_id(path);
  if (!id) return;
  std::string real = real_path_of(path);
  std::lock_guard<std::mutex> lock(noted_mutex);
  for (const NotedInput& input : noted_inputs()) {
    if (input.id == *id) return;
  }
  noted_inputs().push_back({*id, std::move(real)});
}

bool is_noted_input(const FileId& id) {
  std::lock_guard<std::mutex> lock(noted_mutex);
  for (const NotedInput& input : noted_inputs()) {
    if (input.id == id) return true;
  }
  return false;
}

void refuse_folder_holding_inputs(const std::string& path, const std::string& option) {
  const std::string folder = real_path_of(path);
  if (folder.empty()) return;  // does not exist (yet): it holds nothing
  std::error_code ec;
  const std::string cwd = real_path_of(fs::current_path(ec).string());
  if (!cwd.empty() && is_within(cwd, folder)) {
    throw UsageError(OptionName(option, path),
                     " is or contains the working folder; name another folder");
  }
  std::lock_guard<std::mutex> lock(noted_mutex);
  for (const NotedInput& input : noted_inputs()) {
    if (!input.real_path.empty() && is_within(input.real_path, folder)) {
      throw UsageError(OptionName(option, path), " holds an input of this command (",
                       input.real_path, "); name another folder");
    }
  }
}

std::string describe_file_type(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISREG(mode)) return "a regular file";
  return "a special file";
}

mode_t process_umask() {
  static const mode_t mask = [] {
    // /proc/self/status has "Umask:" (Linux 4.7+); reading it changes nothing. Otherwise the
    // classic set-and-restore, done once.
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);) {
      if (line.rfind("Umask:", 0) == 0) {
        return static_cast<mode_t>(std::stoul(line.substr(6), nullptr, 8) & 0777);
      }
    }
    static std::mutex mutex;
    std::lock_guard<std::mutex> lock(mutex);
    const mode_t m = ::umask(022);
    ::umask(m);
    return m;
  }();
  return mask;
}

OutputTarget check_output_file(const std::string& path, const std::vector<FileId>& inputs,
                               OutputAccess access) {
  if (path.empty()) throw UsageError("the output path is empty");
  if (path.back() == '/') refuse(path, "names a folder; give a file name");
  OutputTarget out;
  out.path = path;
  out.target = path;
  // Follow symlinks at `path` to the file they name (which may not exist yet).
  struct stat st {};
  bool exists = false;
  for (int hops = 0;; ++hops) {
    if (::lstat(out.target.c_str(), &st) != 0) {
      if (errno != ENOENT) {
        throw IoError("output " + path + ": cannot look at " + out.target + ": " +
                      std::strerror(errno));
      }
      break;
    }
    if (!S_ISLNK(st.st_mode)) {
      exists = true;
      break;
    }
    if (hops == kMaxSymlinks) refuse(path, "too many levels of symbolic links");
    std::error_code ec;
    fs::path link = fs::read_symlink(out.target, ec);
    if (ec) throw IoError("output " + path + ": cannot read the link: " + ec.message());
    out.target =
        link.is_absolute() ? link.string() : (fs::path(folder_of(out.target)) / link).string();
  }
  const std::string shown = out.target == path ? path : path + " (a link to " + out.target + ")";
  if (exists) {
    if (!S_ISREG(st.st_mode)) {
      throw UsageError("output " + shown + " is " + describe_file_type(st.st_mode) +
                       "; kbdata writes only regular files");
    }
    const FileId id{static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino)};
    bool is_input = is_noted_input(id);
    for (const FileId& input : inputs) is_input = is_input || input == id;
    if (is_input) {
      throw UsageError("output " + shown +
                       " is one of the command's inputs; write to another file");
    }
    out.exists = true;
    out.mode = st.st_mode & 0777;
    out.owner = st.st_uid;
    out.group = st.st_gid;
  } else {
    out.mode = static_cast<mode_t>(0666 & ~process_umask());
  }
  if (access == OutputAccess::PRIVATE) out.mode = 0600;

  const std::string folder = folder_of(out.target);
  struct stat folder_st {};
  if (::stat(folder.c_str(), &folder_st) != 0) {
    refuse(path, "its folder " + folder + " does not exist");
  }
  if (!S_ISDIR(folder_st.st_mode)) refuse(path, folder + " is not a folder");
  if (::access(folder.c_str(), W_OK | X_OK) != 0) {
    throw IoError("output " + path + ": cannot write into " + folder + ": " + std::strerror(errno));
  }
  return out;
}

std::string temporary_template(const std::string& destination) {
  const std::string folder = folder_of(destination);
  std::string prefix = folder == "." && destination.find('/') == std::string::npos
                           ? std::string()
                           : (folder == "/" ? "/" : folder + "/");
  return prefix + template_stem(name_of(destination)) + std::to_string(::getpid()) + "-XXXXXX";
}

std::string claim_output(const OutputTarget& target) {
  std::string key = real_path_of(folder_of(target.target)) + "/" + name_of(target.target);
  std::lock_guard<std::mutex> lock(claimed_mutex);
  for (const std::string& c : claimed_outputs()) {
    if (c == key) refuse(target.path, "is already another output of this command");
  }
  claimed_outputs().push_back(key);
  return key;
}

void release_output(const std::string& key) {
  std::lock_guard<std::mutex> lock(claimed_mutex);
  auto& claimed = claimed_outputs();
  for (auto it = claimed.begin(); it != claimed.end(); ++it) {
    if (*it == key) {
      claimed.erase(it);
      return;
    }
  }
}

bool lock_temporary(int fd) { return ::flock(fd, LOCK_EX | LOCK_NB) == 0; }

int remove_stale_temporaries(const std::string& destination) {
  const std::string folder = folder_of(destination);
  const std::string stem = template_stem(name_of(destination));
  DIR* dir = ::opendir(folder.c_str());
  if (dir == nullptr) return 0;
  std::vector<std::string> stale;
  while (const dirent* entry = ::readdir(dir)) {
    const std::string_view name = entry->d_name;
    if (name.size() <= stem.size() + 8 || name.substr(0, stem.size()) != stem) continue;
    // "<pid>-XXXXXX" follows the stem.
    const std::string_view rest = name.substr(stem.size());
    const size_t dash = rest.find('-');
    if (dash == std::string_view::npos || rest.size() - dash - 1 != 6) continue;
    pid_t pid = 0;
    auto [end, ec] = std::from_chars(rest.data(), rest.data() + dash, pid);
    if (ec != std::errc() || end != rest.data() + dash || pid <= 0) continue;
    if (process_alive(pid)) continue;
    stale.emplace_back(name);
  }
  ::closedir(dir);
  int removed = 0;
  for (const std::string& name : stale) {
    const std::string path = folder + "/" + name;
    const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) continue;
    struct stat st {};
    const bool ours = ::fstat(fd, &st) == 0 && (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) &&
                      lock_temporary(fd);  // a live writer holds its lock
    if (ours) {
      std::error_code ec;
      if (S_ISDIR(st.st_mode)) {
        if (fs::remove_all(path, ec) > 0 && !ec) ++removed;
      } else if (::unlink(path.c_str()) == 0) {
        ++removed;
      }
    }
    ::close(fd);
  }
  return removed;
}

}  // namespace kbdata
