// Test-only: a sandbox folder for the safety tests (tests/safety/), with the special files they
// need made inside it (FIFOs, sockets, device nodes when root, symlinks, read-only folders) and a
// snapshot of every file's bytes and mode, to prove that a command changed nothing it must not.
// Nothing here ever points at /dev or outside the sandbox.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "support/run_kbdata.h"

namespace kbdata::testing {

namespace fs = std::filesystem;

// `args` with each placeholder (a key of `values`, such as DATA or OUT) replaced by its value, in
// one pass over `args`: a value put in is never searched again (a sandbox's random folder name
// may hold "IN" or "OUT"). Keys are tried in the order given.
inline std::string fill_placeholders(
    const std::string& args, const std::vector<std::pair<std::string, std::string>>& values) {
  std::string out;
  for (size_t at = 0; at < args.size();) {
    bool replaced = false;
    for (const auto& [key, value] : values) {
      if (args.compare(at, key.size(), key) == 0) {
        out += value;
        at += key.size();
        replaced = true;
        break;
      }
    }
    if (!replaced) out += args[at++];
  }
  return out;
}

inline std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

// Runs `PREFIX kbdata ARGS` (through the shell, like run()) with a time limit, so that a hang fails
// the test instead of stalling the suite: `timeout` ends kbdata with SIGKILL after `seconds`
// (exit code 137 then, never a pass). PREFIX may set the working folder, the umask or the user
// ("cd D && umask 027 &&").
inline Result run_limited(const std::string& args, int seconds = 120,
                          const std::string& prefix = "") {
  static int counter = 0;
  const std::string err_path =
      fs::temp_directory_path() /
      ("kbdata-safety-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + ".err");
  const std::string command = prefix + " timeout -s KILL " + std::to_string(seconds) + " " +
                              std::string(KBDATA_BINARY) + " " + args + " 2>" + err_path;
  Result result;
  FILE* pipe = ::popen(command.c_str(), "r");
  char buffer[65536];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) result.out.append(buffer, n);
  const int status = ::pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.err = read_file(err_path);
  fs::remove(err_path);
  return result;
}

// A file system object as a test sees it.
struct Entry {
  char type = '?';  // f regular, d folder, l link, p FIFO, s socket, c/b device
  unsigned mode = 0;
  std::string content;  // bytes of a regular file, target of a link
  friend bool operator==(const Entry&, const Entry&) = default;
};

using Snapshot = std::map<std::string, Entry>;

class Sandbox {
 public:
  Sandbox() {
    std::string pattern = (fs::temp_directory_path() / "kbdata-safety-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    root_ = pattern;
  }
  ~Sandbox() {
    // Read-only folders made by a test are made writable again so that they can be removed.
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(root_, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (it->is_directory(ec) && !it->is_symlink(ec)) ::chmod(it->path().c_str(), 0755);
    }
    ::chmod(root_.c_str(), 0755);
    fs::remove_all(root_, ec);
  }
  Sandbox(const Sandbox&) = delete;
  Sandbox& operator=(const Sandbox&) = delete;

  [[nodiscard]] const fs::path& root() const { return root_; }
  [[nodiscard]] std::string path(const std::string& name) const { return (root_ / name).string(); }

  // A copy of the bundled sample (data/sample) at `name`; returns its path.
  std::string copy_sample(const std::string& name = "data") const {
    const fs::path to = root_ / name;
    fs::copy(fs::path(KBDATA_SOURCE_DIR) / "data" / "sample", to, fs::copy_options::recursive);
    return to.string();
  }
  std::string write(const std::string& name, const std::string& bytes, unsigned mode = 0644) const {
    const fs::path p = root_ / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << bytes;
    ::chmod(p.c_str(), mode);
    return p.string();
  }
  std::string fifo(const std::string& name) const {
    const std::string p = path(name);
    if (::mkfifo(p.c_str(), 0644) != 0) throw std::runtime_error("mkfifo failed");
    return p;
  }
  // A listening Unix socket's file (the socket is closed, the file stays).
  std::string socket(const std::string& name) const {
    const std::string p = path(name);
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (p.size() >= sizeof addr.sun_path) throw std::runtime_error("socket path too long");
    std::memcpy(addr.sun_path, p.c_str(), p.size() + 1);
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      ::close(fd);
      throw std::runtime_error("bind failed");
    }
    ::close(fd);
    return p;
  }
  // A character device node with the null device's numbers, made inside the sandbox; only root
  // may (the test skips otherwise). Writing to it would discard the bytes; a test checks it is
  // still a device afterwards.
  [[nodiscard]] std::optional<std::string> device(const std::string& name) const {
    if (::geteuid() != 0) return std::nullopt;
    const std::string p = path(name);
    if (::mknod(p.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0) return std::nullopt;
    return p;
  }
  std::string symlink(const std::string& target, const std::string& name) const {
    const std::string p = path(name);
    fs::create_symlink(target, p);
    return p;
  }
  std::string folder(const std::string& name, unsigned mode = 0755) const {
    const fs::path p = root_ / name;
    fs::create_directories(p);
    ::chmod(p.c_str(), mode);
    return p.string();
  }

  // Every object below `dir` (default: the whole sandbox), by path relative to the sandbox.
  [[nodiscard]] Snapshot snapshot(const std::string& dir = "") const {
    Snapshot out;
    const fs::path start = dir.empty() ? root_ : fs::path(dir);
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(start, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      struct stat st {};
      if (::lstat(it->path().c_str(), &st) != 0) continue;
      Entry e;
      e.mode = st.st_mode & 07777;
      if (S_ISREG(st.st_mode)) {
        e.type = 'f';
        e.content = read_file(it->path().string());
      } else if (S_ISDIR(st.st_mode)) {
        e.type = 'd';
      } else if (S_ISLNK(st.st_mode)) {
        e.type = 'l';
        e.content = fs::read_symlink(it->path()).string();
      } else if (S_ISFIFO(st.st_mode)) {
        e.type = 'p';
      } else if (S_ISSOCK(st.st_mode)) {
        e.type = 's';
      } else if (S_ISCHR(st.st_mode)) {
        e.type = 'c';
      } else if (S_ISBLK(st.st_mode)) {
        e.type = 'b';
      }
      out[fs::relative(it->path(), root_).string()] = e;
    }
    return out;
  }

 private:
  fs::path root_;
};

// Every entry of `before` is in `after`, unchanged (type, mode, bytes).
inline void expect_unchanged(const Snapshot& before, const Snapshot& after) {
  for (const auto& [path, entry] : before) {
    auto it = after.find(path);
    if (it == after.end()) {
      ADD_FAILURE() << path << " is gone";
      continue;
    }
    EXPECT_EQ(it->second.type, entry.type) << path;
    EXPECT_EQ(it->second.mode, entry.mode) << path;
    EXPECT_TRUE(it->second.content == entry.content) << path << " changed";
  }
}

// `after` has exactly the entries of `before`: nothing changed, nothing added.
inline void expect_same_tree(const Snapshot& before, const Snapshot& after) {
  expect_unchanged(before, after);
  for (const auto& [path, entry] : after) {
    EXPECT_TRUE(before.count(path) > 0) << path << " appeared";
  }
}

}  // namespace kbdata::testing
