#include "hub/pull.h"

#include <fnmatch.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <map>

#include "common/error.h"
#include "hub/cache.h"
#include "hub/client.h"
#include "hub/download.h"
#include "hub/environment.h"

namespace kbdata::hub {
namespace {

bool chosen(const std::string& path, const PullOptions& options) {
  if (options.files.empty() && options.includes.empty()) return true;
  const std::string last = path.substr(path.rfind('/') + 1);
  for (const std::string& f : options.files) {
    if (path == f || last == f) return true;
  }
  for (const std::string& glob : options.includes) {
    if (::fnmatch(glob.c_str(), path.c_str(), 0) == 0) return true;
  }
  return false;
}

std::string selection_text(const PullOptions& options) {
  std::string out;
  for (const std::string& f : options.files) out += (out.empty() ? "" : ", ") + f;
  for (const std::string& g : options.includes) out += (out.empty() ? "" : ", ") + g;
  return out;
}

// HF_HUB_OFFLINE: the snapshot the cache holds for the revision, without a request.
PullResult pull_offline(const PullOptions& options, const RepoCache& cache) {
  PullResult result;
  result.offline = true;
  if (is_hex(options.revision, 40)) {
    result.commit = options.revision;
  } else if (auto commit = cache.read_ref(options.revision)) {
    result.commit = *commit;
  } else {
    throw IoError("offline (HF_HUB_OFFLINE is set) and the cache holds no revision '" +
                  options.revision + "' of " + options.repo + " (" + cache.folder() + ")");
  }
  result.snapshot = cache.snapshot_folder(result.commit);
  struct stat st {};
  if (::stat(result.snapshot.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    throw IoError("offline (HF_HUB_OFFLINE is set) and the cache holds no snapshot of " +
                  options.repo + "@" + result.commit);
  }
  for (const std::string& path : cache.snapshot_files(result.commit)) {
    if (!chosen(path, options)) continue;
    if (::stat(cache.snapshot_path(result.commit, path).c_str(), &st) != 0) {
      IoError error("offline (HF_HUB_OFFLINE is set) and its blob is missing from the cache");
      error.locate_file(cache.snapshot_path(result.commit, path));
      throw error;
    }
    ++result.files;
  }
  if (result.files == 0) {
    throw IoError("offline (HF_HUB_OFFLINE is set) and the cached snapshot of " + options.repo +
                  "@" + result.commit + " holds no file matching " +
                  (selection_text(options).empty() ? "anything" : selection_text(options)));
  }
  return result;
}

}  // namespace

PullResult pull(const PullOptions& options, const ProgressFn& progress) {
  const auto start = std::chrono::steady_clock::now();
  if (!is_valid_repo_id(options.repo)) {
    throw UsageError("'" + printable(options.repo) +
                     "' is not a data set name (OWNER/NAME, each of letters, digits, '_', '-' "
                     "and '.')");
  }
  if (!is_safe_repo_path(options.revision)) {
    throw UsageError("'" + printable(options.revision) + "' is not a revision name");
  }
  HubEnvironment environment = read_environment(options.cache_dir);
  RepoCache cache(environment.cache_root, options.repo);
  if (environment.offline) return pull_offline(options, cache);
  if (environment.token &&
      std::any_of(environment.token->begin(), environment.token->end(),
                  [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; })) {
    throw UsageError("the hub token holds control characters");
  }

  RetryBudget budget(RetryBudget::default_base(), RetryBudget::kCap);
  HubClient client(std::move(environment), options.repo, budget);
  PullResult result;
  const RevisionInfo revision = client.revision_info(options.revision);
  result.commit = revision.commit;
  result.snapshot = cache.snapshot_folder(result.commit);

  std::vector<TreeFile> files;
  for (TreeFile& file :
       client.list_tree(result.commit, revision.files ? &*revision.files : nullptr)) {
    if (chosen(file.path, options)) files.push_back(std::move(file));
  }
  if (files.empty()) {
    throw UsageError(options.repo + "@" + result.commit + " holds no file matching " +
                     (selection_text(options).empty() ? "anything" : selection_text(options)));
  }
  result.files = static_cast<int>(files.size());

  // One download per blob; every path of a blob is linked once it is in place.
  std::vector<TreeFile> missing;
  std::map<std::string, std::vector<std::string>> paths_of_blob;
  for (const TreeFile& file : files) {
    auto& paths = paths_of_blob[file.etag];
    if (paths.empty() && !cache.has_blob(file.etag, file.size)) missing.push_back(file);
    paths.push_back(file.path);
  }
  for (const TreeFile& file : files) {
    if (cache.has_blob(file.etag, file.size)) {
      cache.link_snapshot(result.commit, file.path, file.etag);
    }
  }
  const DownloadTotals totals = download_files(
      client, cache, result.commit, missing, options.jobs, progress, [&](const TreeFile& file) {
        for (const std::string& path : paths_of_blob[file.etag]) {
          cache.link_snapshot(result.commit, path, file.etag);
          ++result.downloaded;
        }
      });
  result.bytes = totals.bytes;
  result.retries = budget.retries();
  if (options.revision != result.commit) cache.write_ref(options.revision, result.commit);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace kbdata::hub
