// `hf://` addresses: a data set on the hub as a data folder, or one file of it, served from the
// hub's cache when the cache holds it, else read remotely (remote_file.h). docs/hub.md, "Reading
// hf:// paths".
//
//   hf://datasets/OWNER/NAME[@REV][/FOLDER]         a data folder: the *.parquet files directly
//                                                   in FOLDER (the data set's top level without)
//   hf://datasets/OWNER/NAME[@REV]/PATH.parquet     one file (cat, inspect)
//
// REV (default main) may be percent-encoded (refs%2Fconvert%2Fparquet); it is resolved to its
// commit once, and every later request names the commit.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/file.h"
#include "hub/client.h"

namespace kbdata::hub {

// True when `text` starts with "hf://".
[[nodiscard]] bool is_hf_url(const std::string& text);

struct HfAddress {
  std::string repo;      // OWNER/NAME
  std::string revision;  // decoded; "main" when none was given
  std::string path;      // FOLDER or PATH, "" for the top level
};

// Parses an hf:// address. Throws UsageError (one line, with the accepted forms) when it is not
// one, or names something other than a data set.
[[nodiscard]] HfAddress parse_hf_url(const std::string& url);

struct RemoteOptions {
  std::FILE* log = nullptr;  // --verbose: what was resolved, each round trip, the totals
};

class RemoteSession;

// A data set's files at one commit, opened by their hf:// address with the commit in it
// (hf://datasets/OWNER/NAME@COMMIT/PATH): a file whose blob the cache holds (with the tree's size)
// is read from there, the others remotely through one RemoteSession.
class RemoteSource final : public FileSource {
 public:
  struct Entry {
    std::string address;  // hf://datasets/OWNER/NAME@COMMIT/PATH
    TreeFile file;
    std::optional<std::string> local;  // the cached blob, when the cache holds it
  };
  RemoteSource(std::shared_ptr<RemoteSession> session, std::vector<Entry> entries);

  // Throws IoError for an address that is not one of the entries.
  [[nodiscard]] std::unique_ptr<RandomAccessFile> open(const std::string& address) const override;

  [[nodiscard]] const std::vector<Entry>& entries() const { return entries_; }

  // Fetches the head and footer of every remote entry in one round trip, so that the footers of
  // a data folder cost one round trip in all.
  void prefetch_footers() const;

 private:
  std::shared_ptr<RemoteSession> session_;
  std::vector<Entry> entries_;
};

// A data folder at an hf:// address: either a folder of the cache that holds every file (a
// complete snapshot: read as any local folder), or the files with sizes from the tree and a source
// that opens them.
struct RemoteData {
  std::string label;  // hf://datasets/OWNER/NAME@COMMIT[/FOLDER]
  std::string commit;
  std::optional<std::string> folder;     // the cached snapshot's folder, when it holds every file
  std::shared_ptr<RemoteSource> source;  // otherwise
  std::vector<std::string> paths;        // the entries' addresses, sorted (with `source`)
};

// Resolves a data folder address. Online: the revision is resolved (one request); when its answer
// lists the files and the cache's snapshot of the commit holds every *.parquet file of the folder,
// that snapshot is the folder and nothing else is asked; otherwise the tree is listed and the files
// not in the cache are read remotely. With HF_HUB_OFFLINE: refs/<REV> (or REV as a commit) and
// the snapshot, without a request, or a one-line IoError. `list_only` (kbdata configs): the tree is
// listed, and nothing is opened. Throws UsageError for a bad address, Error (one line) when the
// hub fails.
[[nodiscard]] RemoteData open_remote_data(const std::string& url, const RemoteOptions& options,
                                          bool list_only = false);

// One file at an hf:// address (cat, inspect): the snapshot's file when the cache holds it, else
// the file read remotely (its footer prefetched). Throws as open_remote_data, and UsageError when
// the commit has no such file.
[[nodiscard]] std::unique_ptr<RandomAccessFile> open_remote_file(const std::string& url,
                                                                 const RemoteOptions& options);

}  // namespace kbdata::hub
