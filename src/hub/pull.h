// `kbdata pull`: a data set's files at one commit, into the hub's cache (docs/hub.md).
//
// The order of the work: the revision is resolved to its commit once (every later request names
// the commit, so a push in the middle cannot mix two versions); the tree is listed, every page,
// and every path checked; the chosen files whose blob is already in the cache (downloaded by
// kbdata, huggingface_hub or the datasets library) are only linked; the others are downloaded
// (download.h); refs/<revision> is written last, and only when every file is in place.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/progress.h"

namespace kbdata::hub {

struct PullOptions {
  std::string repo = "GPUMODE/kernelbot-data";
  std::string revision = "main";
  // What to pull: files whose path, or last segment, is one of `files`, and files whose path
  // matches one of `includes` (fnmatch globs, '*' crossing '/'); everything when both are empty.
  std::vector<std::string> files;
  std::vector<std::string> includes;
  int jobs = 4;
  std::optional<std::string> cache_dir;  // --cache-dir
};

struct PullResult {
  std::string snapshot;  // snapshots/<commit>/ of the data set
  std::string commit;
  bool offline = false;  // HF_HUB_OFFLINE: served from the cache without a request
  int files = 0;         // chosen files, all now in the snapshot
  int downloaded = 0;    // of which downloaded now
  uint64_t bytes = 0;    // bytes received
  int retries = 0;
  double seconds = 0;
};

// Pulls. `progress` (may be empty) gets the bytes downloaded so far of the total. Throws
// UsageError for an invalid data set name, revision or a selection that matches no file, Error
// (one line, naming the file or request) when the hub or the cache fails.
[[nodiscard]] PullResult pull(const PullOptions& options, const ProgressFn& progress);

}  // namespace kbdata::hub
