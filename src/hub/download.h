// Downloading files of a commit into the cache, several at once over one libcurl multi handle
// (docs/hub.md, "Downloading").
//
// Each file goes through: resolve on the hub (redirects followed by hand: a relative one stays on
// the hub and keeps the token, a 302 to a CDN drops it) -> GET of the bytes into a locked
// temporary in blobs/, counted against the tree's size and hashed meanwhile on a thread of the
// file's own (sha256 for LFS files, git blob sha1 for the others) -> synced and renamed to
// blobs/<etag> on that thread once size and hash match -> snapshots/<commit>/<path> linked to
// it. The requests are the transfer engine's (transfer.h): a broken transfer resumes with a Range
// request (a 200 answering it is the whole file, its bytes already in passed over); an expired
// signed URL (a 403 from another host than the hub) is resolved again; 408/429/5xx and transport
// errors are retried (client.h).
//
// A file larger than the part size (64 MiB; $KBDATA_HUB_PART_BYTES for tests), when more than one
// transfer may run at once, is fetched as ranges: as many as `jobs`, each at least the part size,
// each a transfer of its own (its own resolve, retries and resume after its last byte), written in
// place into the file's one temporary. The assembled file is hashed
// in file order as the parts arrive (a part's bytes that came before its turn are read back) and
// checked as a whole once every part is in, before it is renamed.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/progress.h"
#include "hub/cache.h"
#include "hub/client.h"

namespace kbdata::hub {

struct DownloadTotals {
  uint64_t bytes = 0;  // bytes received, retried ones included
  int files = 0;
};

// Downloads `files` (none of them in the cache yet) of `commit` into `cache`, at most `jobs` at
// once (transfers: a split file's parts count one each). `progress` gets the bytes so far as they
// arrive (may be empty), `on_done(file)` when a file is in blobs/, verified. Files must have
// distinct etags (one temporary per blob). Throws Error, one line naming the file, on the first
// file that fails for good; the files not finished leave nothing behind (their temporaries are
// removed), finished ones stay in the cache, verified.
DownloadTotals download_files(HubClient& client, const RepoCache& cache, const std::string& commit,
                              const std::vector<TreeFile>& files, int jobs,
                              const ProgressFn& progress,
                              const std::function<void(const TreeFile&)>& on_done);

}  // namespace kbdata::hub
