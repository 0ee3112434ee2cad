// Downloading files of a commit into the cache, several at once over one libcurl multi handle
// (docs/hub.md, "Downloading").
//
// Each file goes through: resolve on the hub (redirects followed by hand: a relative one stays on
// the hub and keeps the token, a 302 to a CDN drops it) -> GET of the bytes into a locked
// temporary in blobs/, hashed while they stream (sha256 for LFS files, git blob sha1 for the
// others) and counted against the tree's size -> rename to blobs/<etag> once size and hash match
// -> snapshots/<commit>/<path> linked to it. A broken transfer resumes with a Range request (a
// 200 answering it starts again from byte 0); an expired signed URL (a 403 from another host than
// the hub) is resolved again; 408/429/5xx and transport errors are retried (client.h).
//
// A file larger than the part size (64 MiB; $KBDATA_HUB_PART_BYTES for tests) is fetched as
// ranges of that size, each a transfer of its own (its own resolve, retries and resume after its
// last byte), written in place into the file's one temporary; a 206 must answer exactly the part,
// and a 200 answering it (the whole file) is read until the part has passed, and cut there. Once
// every part is in, the assembled temporary is hashed as a whole before it is renamed.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "hub/cache.h"
#include "hub/client.h"

namespace kbdata::hub {

struct DownloadTotals {
  uint64_t bytes = 0;  // bytes received, retried ones included
  int files = 0;
};

// Downloads `files` (none of them in the cache yet) of `commit` into `cache`, at most `jobs` at
// once (transfers: a split file's parts count one each). `progress(done, total)` is called as bytes
// arrive, `on_done(file)` when a file is in blobs/, verified. Files must have distinct etags (one
// temporary per blob). Throws Error, one line naming the file, on the first file that fails for
// good; the files not finished leave nothing behind (their temporaries are removed), finished ones
// stay in the cache, verified.
DownloadTotals download_files(HubClient& client, const RepoCache& cache, const std::string& commit,
                              const std::vector<TreeFile>& files, int jobs,
                              const std::function<void(uint64_t, uint64_t)>& progress,
                              const std::function<void(const TreeFile&)>& on_done);

}  // namespace kbdata::hub
