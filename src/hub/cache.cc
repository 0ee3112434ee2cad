#include "hub/cache.h"

#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "common/error.h"
#include "common/file.h"
#include "common/output_target.h"

namespace kbdata::hub {
namespace {

namespace fs = std::filesystem;

constexpr size_t kMaxPathBytes = 1024;

[[noreturn]] void throw_io(const std::string& what, const std::string& path, int err) {
  IoError error(what + ": " + std::strerror(err));
  error.locate_file(path);
  throw error;
}

void make_folders(const std::string& path) {
  std::error_code ec;
  fs::create_directories(path, ec);
  if (ec) {
    IoError error("cannot create the folder: " + ec.message());
    error.locate_file(path);
    throw error;
  }
}

}  // namespace

bool is_safe_repo_path(std::string_view path) {
  if (path.empty() || path.size() > kMaxPathBytes || path.front() == '/') return false;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    const std::string_view segment = path.substr(start, end - start);
    if (segment.empty() || segment == "." || segment == "..") return false;
    start = end + 1;
  }
  return std::none_of(path.begin(), path.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return c == '\\' || u < 0x20 || u == 0x7f;
  });
}

bool is_hex(std::string_view text, size_t length) {
  return text.size() == length && std::all_of(text.begin(), text.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

bool is_valid_repo_id(std::string_view repo) {
  const size_t slash = repo.find('/');
  if (slash == std::string_view::npos || repo.find("--") != std::string_view::npos ||
      repo.find("..") != std::string_view::npos) {
    return false;
  }
  auto word = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  };
  auto valid_part = [&](std::string_view part) {
    return !part.empty() && part.size() <= 96 && word(part.front()) && word(part.back()) &&
           std::all_of(part.begin(), part.end(),
                       [&](char c) { return word(c) || c == '-' || c == '.'; });
  };
  return valid_part(repo.substr(0, slash)) && valid_part(repo.substr(slash + 1));
}

RepoCache::RepoCache(std::string root, const std::string& repo) {
  // OWNER/NAME -> datasets--OWNER--NAME (names never hold "--", is_valid_repo_id).
  const size_t slash = repo.find('/');
  folder_ = std::move(root) + "/datasets--" + repo.substr(0, slash) + "--" + repo.substr(slash + 1);
}

std::string RepoCache::blob_path(const std::string& etag) const {
  return folder_ + "/blobs/" + etag;
}

std::string RepoCache::snapshot_folder(const std::string& commit) const {
  return folder_ + "/snapshots/" + commit;
}

std::string RepoCache::snapshot_path(const std::string& commit, const std::string& path) const {
  return snapshot_folder(commit) + "/" + path;
}

bool RepoCache::has_blob(const std::string& etag, uint64_t size) const {
  struct stat st {};
  return ::stat(blob_path(etag).c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
         static_cast<uint64_t>(st.st_size) == size;
}

void RepoCache::make_blob_folder() const { make_folders(folder_ + "/blobs"); }

void RepoCache::link_snapshot(const std::string& commit, const std::string& path,
                              const std::string& etag) const {
  const std::string link = snapshot_path(commit, path);
  const std::string parent = link.substr(0, link.rfind('/'));
  make_folders(parent);
  // snapshots/<commit>/a/b -> ../../../blobs/<etag>: one "../" per folder below the repo's.
  std::string target;
  for (size_t depth = 2 + std::count(path.begin(), path.end(), '/'); depth > 0; --depth) {
    target += "../";
  }
  target += "blobs/" + etag;

  char existing[4096];
  const ssize_t n = ::readlink(link.c_str(), existing, sizeof existing);
  if (n >= 0 && std::string(existing, static_cast<size_t>(n)) == target) return;

  // A new link under a temporary name, renamed over the old one: readers see the old link or the
  // new one, never none. SIGINT, SIGTERM and SIGHUP wait until the temporary is gone (renamed or
  // removed), so no signal leaves it behind.
  sigset_t blocked;
  sigset_t previous;
  sigemptyset(&blocked);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&blocked, sig);
  ::pthread_sigmask(SIG_BLOCK, &blocked, &previous);
  struct Restore {
    sigset_t* mask;
    ~Restore() { ::pthread_sigmask(SIG_SETMASK, mask, nullptr); }
  } restore{&previous};
  std::string temp = temporary_template(link);
  std::random_device random;
  const char* alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
  for (int attempt = 0;; ++attempt) {
    for (size_t i = temp.size() - 6; i < temp.size(); ++i) temp[i] = alphabet[random() % 36];
    if (::symlink(target.c_str(), temp.c_str()) == 0) break;
    if (errno != EEXIST || attempt > 100) throw_io("cannot create the snapshot link", link, errno);
  }
  if (::rename(temp.c_str(), link.c_str()) != 0) {
    const int err = errno;
    ::unlink(temp.c_str());
    throw_io("cannot put the snapshot link in place", link, err);
  }
}

std::optional<std::string> RepoCache::read_ref(const std::string& revision) const {
  std::ifstream in(folder_ + "/refs/" + revision, std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  std::string commit = text.str();
  while (!commit.empty() && (commit.back() == '\n' || commit.back() == '\r')) commit.pop_back();
  if (!is_hex(commit, 40)) return std::nullopt;
  return commit;
}

void RepoCache::write_ref(const std::string& revision, const std::string& commit) const {
  const std::string path = folder_ + "/refs/" + revision;
  make_folders(path.substr(0, path.rfind('/')));
  AtomicOutputFile out(path);
  out.write(std::string_view(commit));
  out.commit();
}

std::vector<std::string> RepoCache::snapshot_files(const std::string& commit) const {
  const std::string root = snapshot_folder(commit);
  std::vector<std::string> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind('.', 0) == 0 && name.find(".kbdata-") != std::string::npos) continue;
    if (fs::is_directory(it->path())) continue;
    out.push_back(it->path().lexically_relative(root).generic_string());
  }
  if (ec) {
    IoError error("cannot list the snapshot: " + ec.message());
    error.locate_file(root);
    throw error;
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace kbdata::hub
