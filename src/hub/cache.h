// The hub's local cache, as huggingface_hub lays it out (docs/hub.md, "The cache"), so that files
// it downloaded are reused by kbdata and the other way round:
//
//   <root>/datasets--OWNER--NAME/
//     blobs/<etag>                    contents, named by their sha256 (LFS) or git blob sha1
//     snapshots/<commit>/<path>       relative symlinks to ../../blobs/<etag> (more ../ deeper)
//     refs/<revision>                 the commit a branch or tag pointed to, no newline
//
// Every path from the hub is checked before it names anything here (is_safe_repo_path): a tree
// entry can never write outside snapshots/<commit>/.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kbdata::hub {

// True when `path` is a relative path made of ordinary names: not empty, no leading '/', no '\',
// no empty, "." or ".." segment, no control character, at most 1024 bytes.
[[nodiscard]] bool is_safe_repo_path(std::string_view path);

// True when `text` is `length` lower-case hexadecimal digits.
[[nodiscard]] bool is_hex(std::string_view text, size_t length);

// "OWNER/NAME" by the hub's own rule (huggingface_hub's validate_repo_id): each part 1 to 96 of
// the letters, digits, '_', '-' and '.', starting and ending with a letter, digit or '_', and no
// "--" or ".." anywhere. Such a name needs no escaping in a URL or a file name. (A revision is a
// safe path instead: branches may hold '/', and it is percent-encoded.)
[[nodiscard]] bool is_valid_repo_id(std::string_view repo);

class RepoCache {
 public:
  // The cache of data set `repo` ("OWNER/NAME") under `root`; nothing is created yet.
  RepoCache(std::string root, const std::string& repo);

  [[nodiscard]] const std::string& folder() const { return folder_; }
  [[nodiscard]] std::string blob_path(const std::string& etag) const;
  [[nodiscard]] std::string snapshot_folder(const std::string& commit) const;
  [[nodiscard]] std::string snapshot_path(const std::string& commit, const std::string& path) const;

  // True when blobs/<etag> is a regular file of `size` bytes.
  [[nodiscard]] bool has_blob(const std::string& etag, uint64_t size) const;

  // Creates blobs/ (and the folders above it). Throws IoError naming the folder.
  void make_blob_folder() const;

  // Makes snapshots/<commit>/<path> a relative symlink to blobs/<etag>, replacing whatever link
  // was there, atomically (a new link renamed into place). REQUIRES: is_safe_repo_path(path),
  // is_hex(commit, 40). Throws IoError naming the path.
  void link_snapshot(const std::string& commit, const std::string& path,
                     const std::string& etag) const;

  // The commit refs/<revision> names, or nullopt when there is none (or it is not a commit).
  [[nodiscard]] std::optional<std::string> read_ref(const std::string& revision) const;
  // Writes refs/<revision> atomically. Throws IoError naming it.
  void write_ref(const std::string& revision, const std::string& commit) const;

  // The files under snapshots/<commit>/ (paths relative to it, sorted), links followed; throws
  // IoError if the folder cannot be read.
  [[nodiscard]] std::vector<std::string> snapshot_files(const std::string& commit) const;

 private:
  std::string folder_;
};

}  // namespace kbdata::hub
