// `kbdata pull` against the fake hub (fake_hub.js): the cache layout it shares with
// huggingface_hub, the token, offline mode, and every fault of docs/hub.md, "Faults": each ends
// in a successful retry or a one-line error, with no partial file in the cache, refs/ untouched
// unless the pull completed, and nothing else in the cache changed.
#include <gtest/gtest.h>
#include <nettle/sha1.h>
#include <nettle/sha2.h>

#include "hub/hub_fixture.h"
#include "support/cli_expect.h"

namespace {

using namespace kbdata::testing;

std::string hex(const uint8_t* digest, size_t size) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < size; ++i) {
    out += digits[digest[i] >> 4];
    out += digits[digest[i] & 15];
  }
  return out;
}

std::string sha256_hex(const std::string& bytes) {
  sha256_ctx ctx;
  sha256_init(&ctx);
  sha256_update(&ctx, bytes.size(), reinterpret_cast<const uint8_t*>(bytes.data()));
  uint8_t digest[SHA256_DIGEST_SIZE];
  sha256_digest(&ctx, sizeof digest, digest);
  return hex(digest, sizeof digest);
}

std::string git_sha1_hex(const std::string& bytes) {
  const std::string object = "blob " + std::to_string(bytes.size()) + std::string(1, '\0') + bytes;
  sha1_ctx ctx;
  sha1_init(&ctx);
  sha1_update(&ctx, object.size(), reinterpret_cast<const uint8_t*>(object.data()));
  uint8_t digest[SHA1_DIGEST_SIZE];
  sha1_digest(&ctx, sizeof digest, digest);
  return hex(digest, sizeof digest);
}

class Pull : public HubTest {
 protected:
  std::string etag(const HubFile& f) const {
    return f.lfs ? sha256_hex(f.bytes) : git_sha1_hex(f.bytes);
  }

  // Every file of the data set is in the snapshot, through a relative link to its blob.
  void expect_complete_snapshot() {
    const fs::path snapshot = repo_folder() / "snapshots" / kCommit;
    for (const HubFile& f : files_) {
      const fs::path link = snapshot / f.path;
      ASSERT_TRUE(fs::is_symlink(link)) << link;
      std::string target = "../../";
      for (char c : f.path) {
        if (c == '/') target += "../";
      }
      EXPECT_EQ(fs::read_symlink(link).string(), target + "blobs/" + etag(f));
      EXPECT_EQ(read_file(link.string()), f.bytes) << f.path;
    }
    EXPECT_EQ(read_file((repo_folder() / "refs" / "main").string()), kCommit);
  }

  // A cache that already holds another data set and another revision of this one: a failing
  // pull must leave them as they are.
  void seed_unrelated_cache() {
    fs::create_directories(cache() / "datasets--other--set" / "blobs");
    std::ofstream(cache() / "datasets--other--set" / "blobs" / "abc") << "other";
    fs::create_directories(repo_folder() / "refs");
    std::ofstream(repo_folder() / "refs" / "v1") << "fedcba9876543210fedcba9876543210fedcba98";
  }

  // The checks every fault ends with. `completed`: the pull succeeded.
  void expect_cache_after(const Result& r, bool completed,
                          const std::map<std::string, std::string>& before) {
    expect_no_partial_files();
    EXPECT_EQ(read_file((repo_folder() / "refs" / "v1").string()),
              "fedcba9876543210fedcba9876543210fedcba98");
    EXPECT_EQ(read_file((cache() / "datasets--other--set" / "blobs" / "abc").string()), "other");
    if (completed) {
      EXPECT_EQ(r.exit_code, 0) << r.err;
      expect_complete_snapshot();
    } else {
      EXPECT_FALSE(fs::exists(repo_folder() / "refs" / "main"));
      // Whatever is new in the cache is a complete, verified blob or a link to one.
      for (const auto& [path, what] : folder_state(cache())) {
        if (before.count(path)) {
          EXPECT_EQ(before.at(path), what) << path;
          continue;
        }
        if (path.find("/blobs/") != std::string::npos && what.rfind("file ", 0) == 0) {
          const std::string bytes = what.substr(5);
          const std::string name = path.substr(path.rfind('/') + 1);
          EXPECT_TRUE(name == sha256_hex(bytes) || name == git_sha1_hex(bytes)) << path;
        }
      }
    }
  }

  // Large files in parallel ranges: with $KBDATA_HUB_PART_BYTES at 65,536 and --jobs 4, the
  // 300,000-byte file comes as four ranges of 75,000 bytes and the 70,000-byte one as two.
  static Launch split() { return with_env({{"KBDATA_HUB_PART_BYTES", "65536"}}); }

  struct FaultCase {
    nlohmann::json hub;   // added to the fake hub's configuration
    bool succeeds;        // a retry or a new request recovers
    std::string message;  // part of the one-line error, when it fails
  };

  Result run_fault(const FaultCase& c, const std::vector<std::string>& args = {"--jobs", "2"},
                   const Launch& launch = {}) {
    seed_unrelated_cache();
    start_hub(c.hub);
    const auto before = folder_state(cache());
    Result r = pull(args, launch);
    if (c.succeeds) {
      EXPECT_EQ(r.exit_code, 0) << r.err;
    } else {
      expect_one_line_error(r, 1, c.message);
      EXPECT_TRUE(r.out.empty()) << r.out;
    }
    expect_cache_after(r, c.succeeds, before);
    return r;
  }
};

TEST_F(Pull, DownloadsEveryFileIntoTheHubsCacheLayout) {
  start_hub();
  Result r = pull({});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, (repo_folder() / "snapshots" / kCommit).string() + "\n");
  EXPECT_NE(r.err.find("4 files (4 downloaded, 0 already in the cache)"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(", 0 retries"), std::string::npos) << r.err;
  expect_complete_snapshot();
  expect_no_partial_files();
  // The revision is resolved once; every file is then asked for by commit.
  EXPECT_EQ(count_requests("hub", "/revision/main"), 1);
  EXPECT_EQ(count_requests("hub", std::string("/resolve/") + kCommit + "/"), 4);
  EXPECT_EQ(count_requests("hub", "/resolve/main"), 0);
  EXPECT_EQ(count_requests("hub", "data/nested/part-0.parquet"), 1);
}

TEST_F(Pull, ASecondPullReusesTheCacheWithoutDownloading) {
  start_hub();
  ASSERT_EQ(pull({}).exit_code, 0);
  const auto before = folder_state(cache());
  Result r = pull({});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("4 files (0 downloaded, 4 already in the cache)"), std::string::npos)
      << r.err;
  EXPECT_EQ(count_requests("cdn", "/blobs/"), 3);  // the first pull's only
  EXPECT_EQ(folder_state(cache()), before);
}

// Blobs that huggingface_hub downloaded (named by their hash, under another snapshot) are linked,
// not downloaded again.
TEST_F(Pull, ReusesBlobsAnotherClientDownloaded) {
  fs::create_directories(repo_folder() / "blobs");
  for (const HubFile& f : files_) {
    std::ofstream(repo_folder() / "blobs" / etag(f), std::ios::binary) << f.bytes;
  }
  start_hub();
  Result r = pull({});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("(0 downloaded, 4 already in the cache)"), std::string::npos) << r.err;
  EXPECT_EQ(count_requests("hub", "/resolve/"), 0);
  expect_complete_snapshot();
}

TEST_F(Pull, FollowsEveryTreePage) {
  start_hub({{"page_size", 1}});
  Result r = pull({});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_complete_snapshot();
  // 4 files and 2 folders, one entry a page.
  EXPECT_EQ(count_requests("hub", "/tree/"), 6);
}

TEST_F(Pull, ConfigAndIncludeChooseTheFiles) {
  start_hub();
  Result r = pull({"--config", "leaderboards", "--include", "data/*"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("2 files (2 downloaded"), std::string::npos) << r.err;
  const fs::path snapshot = repo_folder() / "snapshots" / kCommit;
  EXPECT_TRUE(fs::exists(snapshot / "leaderboards.parquet"));
  EXPECT_TRUE(fs::exists(snapshot / "data/nested/part-0.parquet"));
  EXPECT_FALSE(fs::exists(snapshot / "README.md"));
  EXPECT_FALSE(fs::exists(snapshot / "nvidia_nvfp4_submissions.parquet"));
}

TEST_F(Pull, ASelectionThatMatchesNothingIsAUsageError) {
  start_hub();
  expect_one_line_error(pull({"--include", "*.csv"}), 2, "holds no file matching *.csv");
  expect_one_line_error(pull({"--config", "no_such_config"}), 2, "unknown config 'no_such_config'");
  EXPECT_FALSE(fs::exists(repo_folder() / "refs"));
}

TEST_F(Pull, BadNamesAreUsageErrors) {
  start_hub();
  expect_one_line_error(pull({"../x"}), 2, "not a data set name");
  // Names the hub itself refuses (huggingface_hub's validate_repo_id): never a request.
  for (const std::string& name : std::vector<std::string>{
           "a b/c", "a/b c", "a/b?c", "a/b#c", "a/b%2e", "\xc3\xa9/b", ".a/b", "a/b.", "a/b--c",
           "a/b..c", "a", "a/b/c", "a/" + std::string(97, 'b')}) {
    SCOPED_TRACE(name);
    expect_one_line_error(pull({name}), 2, "is not a data set name (OWNER/NAME, each of letters");
  }
  expect_one_line_error(pull({"--revision", "../../x"}), 2, "not a revision name");
  Launch bad_endpoint = with_env({{"HF_ENDPOINT", "ftp://127.0.0.1"}});
  expect_one_line_error(pull({}, bad_endpoint), 2, "HF_ENDPOINT must be an http");
  EXPECT_TRUE(requests().empty());
  // A name of every allowed character is asked for (the fake hub has no such data set).
  expect_one_line_error(pull({"a_b.c-d/E.f_9"}), 1, "HTTP 404");
  EXPECT_EQ(count_requests("hub", "/api/datasets/a_b.c-d/E.f_9/revision/main"), 1);
}

TEST_F(Pull, AnUnknownRevisionIsAnErrorNamingIt) {
  start_hub();
  expect_one_line_error(pull({"--revision", "nope"}), 1,
                        "revision 'nope' of GPUMODE/kernelbot-data");
  EXPECT_FALSE(fs::exists(repo_folder()));
}

// A revision with slashes is one path segment in the request and a nested file under refs/.
TEST_F(Pull, ARevisionWithSlashesGetsANestedRef) {
  start_hub({{"refs", {{"refs/convert/parquet", kCommit}}}});
  Result r = pull({"--revision", "refs/convert/parquet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_file((repo_folder() / "refs" / "refs" / "convert" / "parquet").string()), kCommit);
  EXPECT_EQ(count_requests("hub", "/revision/refs%2Fconvert%2Fparquet"), 1);
  EXPECT_FALSE(fs::exists(repo_folder() / "refs" / "main"));
}

TEST_F(Pull, ACommitNeedsNoRefs) {
  start_hub();
  Result r = pull({"--revision", kCommit});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(repo_folder() / "refs"));
}

// The token goes to the hub only: never to the CDN (the fake hub logs a violation, which fails
// the test), never printed.
TEST_F(Pull, TheTokenGoesToTheHubOnly) {
  const std::string token = "hf_secretsecretsecret";
  start_hub({{"token", token}});
  Result r = pull({}, with_env({{"HF_TOKEN", token}}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_complete_snapshot();
  EXPECT_EQ(r.out.find(token), std::string::npos);
  EXPECT_EQ(r.err.find(token), std::string::npos);
  int hub_requests = 0;
  for (const auto& request : requests()) {
    if (request["server"] == "hub") {
      EXPECT_TRUE(request["auth"].get<bool>()) << request.dump();
      ++hub_requests;
    } else {
      EXPECT_FALSE(request["auth"].get<bool>()) << request.dump();
    }
  }
  EXPECT_GT(hub_requests, 0);
}

TEST_F(Pull, TheTokenFileIsRead) {
  const std::string token = "hf_fromthefile";
  start_hub({{"token", token}});
  std::ofstream(root_ / "home" / "token") << token << "\n";
  Result r = pull({});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ofstream(root_ / "my-token") << "hf_wrongtoken";
  Result wrong = pull({}, with_env({{"HF_TOKEN_PATH", (root_ / "my-token").string()}}));
  expect_one_line_error(wrong, 1, "HTTP 401");
  EXPECT_EQ(wrong.err.find("hf_wrongtoken"), std::string::npos);
}

TEST_F(Pull, OfflineServesTheCachedSnapshotWithoutARequest) {
  start_hub();
  ASSERT_EQ(pull({}).exit_code, 0);
  const size_t logged = requests().size();
  Result r = pull({"--config", "leaderboards"}, with_env({{"HF_HUB_OFFLINE", "1"}}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, (repo_folder() / "snapshots" / kCommit).string() + "\n");
  EXPECT_NE(r.err.find("1 files from the cache (offline"), std::string::npos) << r.err;
  EXPECT_EQ(requests().size(), logged);
}

TEST_F(Pull, OfflineWithoutACachedRevisionFails) {
  start_hub();
  expect_one_line_error(pull({}, with_env({{"HF_HUB_OFFLINE", "true"}})), 1,
                        "offline (HF_HUB_OFFLINE is set) and the cache holds no revision 'main'");
  EXPECT_TRUE(requests().empty());
  EXPECT_FALSE(fs::exists(cache()));
}

TEST_F(Pull, CacheDirOverridesTheEnvironment) {
  start_hub();
  const fs::path elsewhere = root_ / "elsewhere";
  Result r = pull({"--cache-dir", elsewhere.string()},
                  with_env({{"HF_HUB_CACHE", (root_ / "not-this").string()}}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(
      r.out,
      (elsewhere / "datasets--GPUMODE--kernelbot-data" / "snapshots" / kCommit).string() + "\n");
  EXPECT_FALSE(fs::exists(root_ / "not-this"));
  EXPECT_FALSE(fs::exists(cache()));
  r = pull({}, with_env({{"HF_HUB_CACHE", (root_ / "hub-cache").string()}}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind((root_ / "hub-cache" / "datasets--GPUMODE--kernelbot-data").string(), 0),
            0u)
      << r.out;
}

// The snapshot folder is a data folder: the data commands read the pulled files through their
// links.
TEST_F(Pull, TheSnapshotIsADataFolder) {
  files_.clear();
  for (const char* name :
       {"leaderboards.parquet", "nvidia_nvfp4_submissions.parquet", "README.md"}) {
    files_.push_back({name, read_file(std::string(KBDATA_SOURCE_DIR) + "/data/sample/" + name),
                      std::string(name) != "README.md"});
  }
  start_hub();
  Result r = pull({});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string snapshot = r.out.substr(0, r.out.size() - 1);
  Result top = run("top -p nvfp4_gemm --format json --data " + snapshot);
  ASSERT_EQ(top.exit_code, 0) << top.err;
  Result sample = run("top -p nvfp4_gemm --format json --data " + std::string(KBDATA_SOURCE_DIR) +
                      "/data/sample");
  ASSERT_EQ(sample.exit_code, 0) << sample.err;
  EXPECT_EQ(top.out, sample.out);
  EXPECT_NE(top.out.find("score"), std::string::npos);
}

TEST_F(Pull, IdenticalFilesShareOneDownload) {
  files_.push_back({"copy/leaderboards.parquet", files_[2].bytes, true});
  start_hub();
  Result r = pull({});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("5 files (5 downloaded, 0 already in the cache)"), std::string::npos)
      << r.err;
  expect_complete_snapshot();
  EXPECT_EQ(count_requests("cdn", "/blobs/"), 3);
}

// --jobs N downloads up to N files at once (the fake hub's log shows the CDN answers overlap);
// --jobs 1, one after another.
TEST_F(Pull, JobsDownloadFilesInParallel) {
  start_hub({{"latency_ms", 30}, {"chunk_delay_ms", 20}});
  Result r = pull({"--jobs", "4"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_complete_snapshot();
  // The two larger files stream for hundreds of milliseconds each, started together.
  EXPECT_GE(most_cdn_answers_at_once(), 2);
  stop_hub();
  fs::remove_all(cache());
  fs::remove(root_ / "hub.log");
  start_hub({{"latency_ms", 30}, {"chunk_delay_ms", 5}});
  r = pull({"--jobs", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(most_cdn_answers_at_once(), 1);
}

TEST_F(Pull, ShowsProgressOnATerminal) {
  start_hub({{"chunk_delay_ms", 10}});
  Result r = pull({}, with_env({{"KBDATA_PROGRESS", "always"}}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("\rkbdata: pulling GPUMODE/kernelbot-data: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" bytes ("), std::string::npos) << r.err;
}

// --- Faults ---------------------------------------------------------------------------------

nlohmann::json fault(const std::string& on, nlohmann::json f) {
  f["on"] = on;
  return {{"faults", nlohmann::json::array({f})}};
}

TEST_F(Pull, RateLimitWithTheRateLimitHeaderIsWaitedOut) {
  Result r = run_fault(
      {fault("resolve",
             {{"kind", "rate_limit"}, {"form", "ratelimit"}, {"seconds", 0}, {"count", 2}}),
       true, ""});
  EXPECT_NE(r.err.find(", 2 retries"), std::string::npos) << r.err;
}

TEST_F(Pull, ServerErrorsAreRetried) {
  for (int status : {500, 502, 503}) {
    SCOPED_TRACE(status);
    nlohmann::json hub = {
        {"faults", nlohmann::json::array({
                       {{"on", "resolve"}, {"kind", "status"}, {"status", status}},
                       {{"on", "cdn"}, {"kind", "status"}, {"status", status}},
                       {{"on", "tree"}, {"kind", "status"}, {"status", status}},
                   })}};
    run_fault({hub, true, ""});
    stop_hub();
    std::error_code ec;
    fs::remove_all(cache(), ec);
  }
}

TEST_F(Pull, AnErrorThatNoRetryFixesFailsAtOnce) {
  run_fault(
      {fault("resolve", {{"kind", "status"}, {"status", 404}, {"path", "leaderboards.parquet"}}),
       false, "leaderboards.parquet: HTTP 404"});
  EXPECT_EQ(count_requests("hub", "/leaderboards.parquet"), 1);
}

TEST_F(Pull, AConnectionDroppedMidBodyResumesWithARange) {
  run_fault(
      {fault("cdn", {{"kind", "drop"}, {"path", "nvidia_nvfp4_submissions.parquet"}}), true, ""});
  int ranged = 0;
  for (const auto& request : requests()) {
    if (request["server"] == "cdn" && !request["range"].is_null()) {
      EXPECT_NE(request["range"].get<std::string>(), "bytes=0-");
      ++ranged;
    }
  }
  EXPECT_EQ(ranged, 1);
}

TEST_F(Pull, ATruncatedBodyResumesWithARange) {
  run_fault({fault("cdn", {{"kind", "truncate"}, {"path", "nvidia_nvfp4_submissions.parquet"}}),
             true, ""});
  int ranged = 0;
  for (const auto& request : requests()) ranged += request["range"].is_null() ? 0 : 1;
  EXPECT_EQ(ranged, 1);
}

TEST_F(Pull, ATruncatedSmallFileFromTheHubResumes) {
  run_fault({fault("resolve-body", {{"kind", "truncate"}, {"path", "README.md"}}), true, ""});
}

// The resumed request gets a 200 with the whole file: kbdata passes over the bytes it has and
// takes the rest, in the same answer.
TEST_F(Pull, A200AnsweringAResumePassesOverTheBytesItHas) {
  nlohmann::json hub =
      fault("cdn", {{"kind", "drop"}, {"path", "nvidia_nvfp4_submissions.parquet"}});
  hub["faults"].push_back(
      {{"on", "cdn"}, {"kind", "ignore_range"}, {"path", "nvidia_nvfp4_submissions.parquet"}});
  run_fault({hub, true, ""}, {"--jobs", "1"});
  EXPECT_EQ(count_requests("cdn", "/blobs/" + etag(files_[0])), 2);
}

// The transfer faults both users of the engine share (hub_fixture.h): each a successful retry or
// a one-line error naming the file, the cache complete or as it was.
TEST_F(Pull, EveryTransferFaultEndsInARetryOrOneLine) {
  for (const TransferFault& f : transfer_faults(files_[0].bytes.size())) {
    SCOPED_TRACE(f.name);
    run_fault({f.hub, f.recovers, f.message});
    stop_hub();
    std::error_code ec;
    fs::remove_all(cache(), ec);
    fs::remove(root_ / "hub.log");
  }
}

TEST_F(Pull, AnExpiredSignedUrlIsResolvedAgain) {
  run_fault({fault("cdn", {{"kind", "expired"}, {"path", "leaderboards.parquet"}}), true, ""});
  EXPECT_EQ(count_requests("hub", "/leaderboards.parquet"), 2);
}

TEST_F(Pull, WrongBytesLeaveNothingInBlobs) {
  Result r = run_fault({fault("cdn", {{"kind", "wrong_bytes"}, {"path", "leaderboards.parquet"}}),
                        false, "leaderboards.parquet: the bytes' sha256 is "});
  EXPECT_FALSE(fs::exists(repo_folder() / "blobs" / etag(files_[2])));
  EXPECT_FALSE(fs::exists(repo_folder() / "snapshots" / kCommit / "leaderboards.parquet"));
}

TEST_F(Pull, WrongBytesOfASmallFileFailTheGitHash) {
  run_fault({fault("resolve-body", {{"kind", "wrong_bytes"}, {"path", "README.md"}}), false,
             "README.md: the bytes' git blob sha1 is "});
  EXPECT_FALSE(fs::exists(repo_folder() / "blobs" / etag(files_[3])));
}

TEST_F(Pull, ATreePageThatFailsIsRetried) {
  nlohmann::json hub = fault("tree", {{"kind", "status"}, {"status", 500}, {"page", 2}});
  hub["page_size"] = 2;
  run_fault({hub, true, ""});
}

TEST_F(Pull, ATreePageThatKeepsFailingFailsBeforeAnyDownload) {
  nlohmann::json hub =
      fault("tree", {{"kind", "status"}, {"status", 500}, {"page", 2}, {"count", 100}});
  hub["page_size"] = 2;
  run_fault({hub, false, "page 3: HTTP 500"});
  EXPECT_EQ(count_requests("hub", "/resolve/"), 0);
  EXPECT_FALSE(fs::exists(repo_folder() / "blobs"));
}

// The tree's pages are followed while each brings entries not listed before: a page that links
// to itself or back to the first, an empty page that links on, and a tree of more entries than the
// commit's files and folders each fail in one line, after one request per page read (the token
// is not sent again and again).
TEST_F(Pull, ATreePageThatLinksBackFails) {
  for (int target : {1, 0}) {
    SCOPED_TRACE(target);
    nlohmann::json hub = fault("tree", {{"kind", "link_to"}, {"page", 1}, {"target", target}});
    hub["page_size"] = 2;
    run_fault({hub, false, "page 3: the page before links back to 'http://127.0.0.1:"});
    EXPECT_EQ(count_requests("hub", "/tree/"), 2);
    EXPECT_EQ(count_requests("hub", "/resolve/"), 0);
    stop_hub();
    fs::remove(root_ / "hub.log");
  }
}

TEST_F(Pull, AnEmptyTreePageThatLinksOnFails) {
  nlohmann::json hub = fault("tree", {{"kind", "empty"}, {"page", 1}, {"count", 1000}});
  hub["page_size"] = 2;
  run_fault({hub, false, "page 2: an empty page that links to another"});
  EXPECT_EQ(count_requests("hub", "/tree/"), 2);
}

TEST_F(Pull, ATreeThatNeverEndsFailsWhenItPassesTheCommitsFiles) {
  // 4 files and 2 folders (data, data/nested) by the revision: 6 entries, 3 pages of 2.
  nlohmann::json hub = fault("tree", {{"kind", "endless"}, {"page", 0}});
  hub["page_size"] = 2;
  run_fault({hub, false,
             "page 4: more entries than the commit's 4 files and 2 folders (as its revision lists "
             "them) can make"});
  EXPECT_EQ(count_requests("hub", "/tree/"), 4);
}

// Errors no retry can change fail at once: one request each.
TEST_F(Pull, ARedirectToAnotherSchemeFailsAtOnce) {
  struct Case {
    const char* on;
    const char* part;
    const char* message;
  };
  for (const Case& c : {Case{"revision", "/revision/",
                             "revision 'main' of GPUMODE/kernelbot-data: a redirect to "
                             "'file:///etc/passwd', which is not an http"},
                        Case{"tree", "/tree/", "page 1: a redirect to 'file:///etc/passwd'"},
                        Case{"resolve", "/leaderboards.parquet",
                             "leaderboards.parquet: a redirect to 'file:///etc/passwd'"}}) {
    SCOPED_TRACE(c.on);
    nlohmann::json f = {{"kind", "redirect"}, {"location", "file:///etc/passwd"}};
    if (std::string(c.on) == "resolve") f["path"] = "leaderboards.parquet";
    run_fault({fault(c.on, f), false, c.message});
    EXPECT_EQ(count_requests("hub", c.part), 1);
    stop_hub();
    fs::remove(root_ / "hub.log");
  }
}

TEST_F(Pull, ATreePageOverTheSizeCapFailsAtOnceNamingTheCap) {
  const Result r = run_fault({fault("tree", {{"kind", "huge"}, {"bytes", (64 << 20) + 4096}}),
                              false, "page 1: the answer from http://127.0.0.1:"});
  EXPECT_NE(r.err.find(" passes 64 MiB, the most kbdata reads of one JSON answer"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(count_requests("hub", "/tree/"), 1);
}

TEST_F(Pull, TreePathsThatEscapeTheCacheAreRefused) {
  for (const std::string path :
       {"../escaped.parquet", "/tmp/escaped.parquet", "..\\escaped.parquet",
        "data/../../escaped.parquet", "data//x.parquet", "./x.parquet"}) {
    SCOPED_TRACE(path);
    nlohmann::json hub = {
        {"bogus",
         nlohmann::json::array({{{"path", path}, {"size", 3}, {"oid", std::string(40, 'a')}}})}};
    run_fault({hub, false, "whose path would leave the cache's snapshot folder"});
    EXPECT_EQ(count_requests("hub", "/resolve/"), 0);
    EXPECT_FALSE(fs::exists(repo_folder() / "blobs"));
    EXPECT_FALSE(fs::exists(repo_folder() / "snapshots"));
    EXPECT_FALSE(fs::exists(repo_folder() / "escaped.parquet"));
    EXPECT_FALSE(fs::exists(cache() / "escaped.parquet"));
    stop_hub();
  }
}

TEST_F(Pull, ATreeEntryWithoutAHashIsRefused) {
  nlohmann::json hub = {
      {"bogus",
       nlohmann::json::array({{{"path", "x.parquet"}, {"size", 3}, {"oid", "../../../etc"}}})}};
  run_fault({hub, false, "'x.parquet': oid is not a git blob sha1"});
}

TEST_F(Pull, AnEtagThatDisagreesWithTheTreeFails) {
  nlohmann::json hub = {
      {"file_overrides", {{"leaderboards.parquet", {{"tree_lfs_oid", std::string(64, 'b')}}}}}};
  run_fault({hub, false, "leaderboards.parquet: the hub announces the etag"});
  EXPECT_FALSE(fs::exists(repo_folder() / "blobs" / std::string(64, 'b')));
  EXPECT_EQ(count_requests("cdn", "/blobs/" + etag(files_[2])), 0);
}

TEST_F(Pull, AServerSendingMoreThanItAnnouncedFails) {
  nlohmann::json hub = {{"file_overrides", {{"README.md", {{"tree_size", 10}}}}}};
  run_fault({hub, false, "README.md: the server announces"});
}

TEST_F(Pull, AFullDiskIsAnErrorNamingTheFile) {
  seed_unrelated_cache();
  start_hub();
  const auto before = folder_state(cache());
  Launch small_disk;
  small_disk.file_size_limit = 100000;
  Result r = pull({"--jobs", "1"}, small_disk);
  expect_one_line_error(r, 1, "nvidia_nvfp4_submissions.parquet: ");
  EXPECT_NE(r.err.find("File too large"), std::string::npos) << r.err;
  expect_cache_after(r, false, before);
}

TEST_F(Pull, SigintMidwayLeavesNoPartialFile) {
  seed_unrelated_cache();
  start_hub({{"chunk_delay_ms", 20}});
  const auto before = folder_state(cache());
  const pid_t pid = spawn_kbdata({"pull", "--jobs", "1"});
  // Waits until a download's temporary exists in blobs/ (a condition, not a time).
  bool seen = false;
  for (int i = 0; i < 3000 && !seen; ++i) {
    std::error_code ec;
    for (auto it = fs::directory_iterator(repo_folder() / "blobs", ec); !ec && it != fs::end(it);
         it.increment(ec)) {
      if (it->path().filename().string().find(".kbdata-") != std::string::npos &&
          fs::file_size(it->path(), ec) > 0) {
        seen = true;
      }
    }
    if (!seen) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_TRUE(seen);
  ::kill(pid, SIGINT);
  Result r = wait_kbdata(pid);
  EXPECT_EQ(r.exit_code, -SIGINT) << r.err;
  expect_cache_after(r, false, before);
}

TEST_F(Pull, MissingLibcurlIsOneLineAndChangesNothing) {
  start_hub();
  Result r = pull({}, with_env({{"KBDATA_LIBCURL", "/nonexistent/libcurl.so.4"}}));
  expect_one_line_error(r, 1, "cannot load libcurl (/nonexistent/libcurl.so.4: ");
  EXPECT_FALSE(fs::exists(cache()));
  EXPECT_TRUE(requests().empty());
}

// The Range headers the CDN got for `file`.
std::vector<std::string> cdn_ranges(const std::vector<nlohmann::json>& requests) {
  std::vector<std::string> out;
  for (const auto& r : requests) {
    if (r["server"] == "cdn" && !r["range"].is_null()) out.push_back(r["range"]);
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST_F(Pull, ALargeFileComesInParallelRanges) {
  // Slow bodies, so that the parts are seen in progress together.
  Result r = run_fault({{{"chunk_delay_ms", 5}}, true, ""}, {"--jobs", "4"}, split());
  const std::vector<std::string> expected = {"bytes=0-34999",       "bytes=0-74999",
                                             "bytes=150000-224999", "bytes=225000-299999",
                                             "bytes=35000-69999",   "bytes=75000-149999"};
  EXPECT_EQ(cdn_ranges(requests()), expected);
  EXPECT_GE(most_cdn_answers_at_once(), 2);
  EXPECT_NE(r.err.find("4 files (4 downloaded"), std::string::npos) << r.err;
}

TEST_F(Pull, AFaultInOneRangeResumesThatRange) {
  run_fault(
      {fault("cdn", {{"kind", "drop"}, {"path", "nvidia_nvfp4_submissions.parquet"}, {"after", 2}}),
       true, ""},
      {"--jobs", "4"}, split());
  // Five ranges of the large file: its four parts and the rest of the dropped one.
  const std::string blob = sha256_hex(files_[0].bytes);
  int ranges = 0;
  int resumed = 0;
  for (const auto& request : requests()) {
    if (request["server"] != "cdn" ||
        request["url"].get<std::string>().find(blob) == std::string::npos) {
      continue;
    }
    ASSERT_FALSE(request["range"].is_null());
    unsigned long long first = 0;
    unsigned long long last = 0;
    ASSERT_EQ(
        std::sscanf(request["range"].get<std::string>().c_str(), "bytes=%llu-%llu", &first, &last),
        2);
    ++ranges;
    if (first % 75000 != 0) ++resumed;
  }
  EXPECT_EQ(resumed, 1);
  EXPECT_EQ(ranges, 5);
}

TEST_F(Pull, A200AnsweringARangeGivesThePartFromTheWholeFile) {
  run_fault({fault("cdn", {{"kind", "ignore_range"},
                           {"path", "nvidia_nvfp4_submissions.parquet"},
                           {"count", 3}}),
             true, ""},
            {"--jobs", "4"}, split());
}

TEST_F(Pull, WrongBytesInARangeFailTheAssembledHash) {
  run_fault({fault("cdn", {{"kind", "wrong_bytes"},
                           {"path", "nvidia_nvfp4_submissions.parquet"},
                           {"count", 100}}),
             false, "nvidia_nvfp4_submissions.parquet: the bytes' sha256 is "},
            {"--jobs", "4"}, split());
}

TEST_F(Pull, ARangeAnsweredWithOtherBytesFails) {
  run_fault(
      {fault("cdn",
             {{"kind", "shift_range"}, {"path", "nvidia_nvfp4_submissions.parquet"}, {"after", 1}}),
       false, "the server answered 'bytes "},
      {"--jobs", "4"}, split());
}

TEST_F(Pull, ASplitFileSurvivesRetriesAndExpiredUrls) {
  nlohmann::json hub = {
      {"faults", nlohmann::json::array({
                     {{"on", "cdn"}, {"kind", "status"}, {"status", 503}, {"after", 1}},
                     {{"on", "cdn"}, {"kind", "expired"}, {"after", 3}},
                     {{"on", "cdn"}, {"kind", "truncate"}, {"after", 4}},
                 })}};
  run_fault({hub, true, ""}, {"--jobs", "3"}, split());
}

TEST_F(Pull, OneJobDownloadsALargeFileInOneStream) {
  run_fault({nlohmann::json::object(), true, ""}, {"--jobs", "1"}, split());
  for (const auto& request : requests()) EXPECT_TRUE(request["range"].is_null()) << request.dump();
}

}  // namespace

// A file of many hashing blocks (1 MiB) and past the first start of writing back (32 MiB): its
// bytes are hashed as they land, in one stream or in parallel ranges whose later parts are read
// back in file order, and a wrong byte anywhere in it still fails the file.
class PullLargeFile : public Pull {
 protected:
  void SetUp() override {
    Pull::SetUp();
    files_[0].bytes = pseudo_random_bytes((size_t{40} << 20) + 1234, 7);
  }
  static Launch split_large() { return with_env({{"KBDATA_HUB_PART_BYTES", "4194304"}}); }
};

TEST_F(PullLargeFile, InOneStreamIsVerified) {
  run_fault({nlohmann::json::object(), true, ""}, {"--jobs", "1"});
}

TEST_F(PullLargeFile, InParallelRangesIsVerified) {
  run_fault({{{"chunk_delay_ms", 1}}, true, ""}, {"--jobs", "4"}, split_large());
  EXPECT_EQ(cdn_ranges(requests()).size(), 4U) << "the large file in four ranges";
}

TEST_F(PullLargeFile, AWrongByteInOneStreamFailsAndKeepsNothing) {
  run_fault({fault("cdn", {{"kind", "wrong_bytes"}, {"path", "nvidia_nvfp4_submissions.parquet"}}),
             false, "nvidia_nvfp4_submissions.parquet: the bytes' sha256 is "},
            {"--jobs", "1"});
  EXPECT_FALSE(fs::exists(repo_folder() / "blobs" / etag(files_[0])));
}

TEST_F(PullLargeFile, AWrongByteInARangeFailsAndKeepsNothing) {
  run_fault({fault("cdn", {{"kind", "wrong_bytes"},
                           {"path", "nvidia_nvfp4_submissions.parquet"},
                           {"count", 100}}),
             false, "nvidia_nvfp4_submissions.parquet: the bytes' sha256 is "},
            {"--jobs", "4"}, split_large());
  EXPECT_FALSE(fs::exists(repo_folder() / "blobs" / etag(files_[0])));
}
