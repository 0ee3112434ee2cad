// `--data hf://...` and `cat`/`inspect hf://...` against the fake hub (fake_hub.js): the data
// commands read the data set remotely with range requests, or from the hub's cache when it holds
// the files, and print exactly what they print on the same files in a local folder; every fault
// ends in a successful retry or a one-line error, never in wrong rows.
#include <gtest/gtest.h>

#include "hub/hub_fixture.h"
#include "support/cli_expect.h"
#include "support/http_client.h"

namespace {

using namespace kbdata::testing;

const std::string kAddress = std::string("hf://datasets/") + kRepo;

class Remote : public HubTest {
 protected:
  void SetUp() override {
    HubTest::SetUp();
    files_.clear();
    for (const char* name : {"leaderboards.parquet", "nvidia_nvfp4_submissions.parquet",
                             "trimul_submissions.parquet"}) {
      files_.push_back({name, sample(name), true});
    }
    files_.push_back({"README.md", "# kernelbot-data\n", false});
    files_.push_back({"extra/leaderboards.parquet", sample("leaderboards.parquet"), true});
    // The same files in a local folder: what every remote command must print.
    local_ = root_ / "local";
    fs::create_directories(local_);
    for (const HubFile& f : files_) {
      if (f.path.find('/') == std::string::npos && f.path != "README.md") {
        std::ofstream(local_ / f.path, std::ios::binary) << f.bytes;
      }
    }
  }

  static std::string sample(const std::string& name) {
    return read_file(std::string(KBDATA_SOURCE_DIR) + "/data/sample/" + name);
  }

  Result kbdata(const std::vector<std::string>& args, const Launch& launch = {}) {
    return wait_kbdata(spawn_kbdata(args, launch));
  }

  // The same command on the local folder.
  Result local(std::vector<std::string> args) {
    for (std::string& a : args) {
      if (a == kAddress) a = local_.string();
    }
    Result r = kbdata(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r;
  }

  // Body bytes the CDN was asked for by Range requests, and how many such requests.
  uint64_t cdn_range_bytes(int* count = nullptr) const {
    uint64_t bytes = 0;
    int n = 0;
    for (const nlohmann::json& r : requests()) {
      if (r["server"] != "cdn" || r["range"].is_null()) continue;
      unsigned long long first = 0;
      unsigned long long last = 0;
      if (std::sscanf(r["range"].get<std::string>().c_str(), "bytes=%llu-%llu", &first, &last) ==
          2) {
        bytes += last - first + 1;
      }
      ++n;
    }
    if (count != nullptr) *count = n;
    return bytes;
  }

  // Every request to the CDN asked for a range; nothing was written to the cache.
  void expect_ranges_only() {
    for (const nlohmann::json& r : requests()) {
      if (r["server"] == "cdn") {
        EXPECT_FALSE(r["range"].is_null()) << r.dump();
      }
    }
    EXPECT_FALSE(fs::exists(repo_folder() / "blobs"));
    EXPECT_FALSE(fs::exists(repo_folder() / "snapshots"));
  }

  // `args` on the data set with the fake hub configured by `hub`: the output is the local
  // folder's, byte for byte.
  void expect_same_as_local(const std::vector<std::string>& args,
                            const nlohmann::json& hub = nlohmann::json::object()) {
    start_hub(hub);
    Result r = kbdata(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    stop_hub();
    Result l = local(args);
    EXPECT_EQ(r.out, l.out);
    EXPECT_FALSE(r.out.empty());
    expect_ranges_only();
  }

  fs::path local_;
};

const std::vector<std::string> kTop = {"top",  "-p",     "nvfp4_gemm", "--format",
                                       "json", "--data", kAddress};

TEST_F(Remote, TopPrintsWhatItPrintsOnTheLocalFiles) {
  expect_same_as_local(kTop);
  // The revision once, the tree once, then ranges by commit.
  EXPECT_EQ(count_requests("hub", "/revision/main"), 1);
  EXPECT_EQ(count_requests("hub", "/tree/"), 1);
  EXPECT_EQ(count_requests("hub", "/resolve/main"), 0);
  // Far fewer bytes than the files: the footers and the columns top reads.
  uint64_t total = 0;
  for (const HubFile& f : files_) total += f.bytes.size();
  EXPECT_LT(cdn_range_bytes(), total / 2);
}

TEST_F(Remote, SubmissionsStatsAndRecordsPrintWhatTheyPrintLocally) {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"submissions", "-p", "nvfp4_gemm", "--format", "csv", "--data", kAddress},
           {"stats", "--format", "json", "--data", kAddress},
           {"records", "-p", "nvfp4_gemm", "--format", "json", "--data", kAddress}}) {
    SCOPED_TRACE(args[0]);
    expect_same_as_local(args);
    fs::remove(root_ / "hub.log");
  }
}

// The audit and pairs read the data set's leaderboards.parquet (references, task texts) through
// the same source as its configs.
TEST_F(Remote, AuditAndPairsReadTheLeaderboardsRemotely) {
  // amd-fp8-mm's rows: the legacy config (its leaderboard is one the files must hold).
  files_.push_back({"submissions.parquet", sample("submissions.parquet"), true});
  std::ofstream(local_ / "submissions.parquet", std::ios::binary) << files_.back().bytes;
  // The published leaderboards file holds the first AMD competition's leaderboards.
  expect_same_as_local({"audit", "-p", "amd-fp8-mm", "--format", "jsonl", "--data", kAddress});
  fs::remove(root_ / "hub.log");
  const std::string remote_out = (root_ / "remote.jsonl").string();
  const std::string local_out = (root_ / "local.jsonl").string();
  start_hub();
  Result r = kbdata({"pairs", "-p", "amd-fp8-mm", "--format", "chat", "--data", kAddress, "--out",
                     remote_out, "--card", (root_ / "remote-card.md").string()});
  stop_hub();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  local({"pairs", "-p", "amd-fp8-mm", "--format", "chat", "--data", kAddress, "--out", local_out,
         "--card", (root_ / "local-card.md").string()});
  const std::string chat = read_file(remote_out);
  EXPECT_EQ(chat, read_file(local_out));
  EXPECT_NE(chat.find("Implement amd-fp8-mm as fast as you can"), std::string::npos);
}

// kbdata serve over the data set, read remotely: its index is built from the ranges read, and its
// pages are what the commands print on the local files.
TEST_F(Remote, ServeAnswersWhatTheCommandsPrintLocally) {
  start_hub();
  pid_t server = spawn_kbdata({"serve", "--data", kAddress, "--port", "0"});
  // Stopped however the test ends (an assertion returns early, a parse throws).
  struct Stop {
    pid_t& pid;
    ~Stop() {
      if (pid > 0) {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, nullptr, 0);
      }
    }
  } stop{server};
  int port = 0;
  for (int i = 0; i < 300 && port == 0; ++i) {
    const std::string out = read_file((root_ / "stdout").string());
    const size_t at = out.find(" at http://127.0.0.1:");
    if (at != std::string::npos) port = std::atoi(out.c_str() + at + 21);
    if (port == 0) ::usleep(100'000);
  }
  ASSERT_GT(port, 0) << read_file((root_ / "stderr").string());
  nlohmann::json status;
  for (int i = 0; i < 600; ++i) {
    status = nlohmann::json::parse(get(port, "/api/status").body);
    if (status["index"] != "building" && status["index"] != "warming") break;
    ::usleep(100'000);
  }
  EXPECT_EQ(status["index"], "ready") << status.dump();
  EXPECT_EQ(status["data"].get<std::string>().rfind(kAddress + "@", 0), 0u) << status.dump();
  const nlohmann::json twin = nlohmann::json::parse(get(port, "/api/leaderboard/597").body);
  const Answer page = get(port, "/leaderboard/597");
  // The data set's listing reads no file: the home page and the search take the leaderboards of
  // the configs it holds from the registry.
  const Answer home = get(port, "/");
  const Answer search = get(port, "/api/search?q=nvfp4_gemm");
  const nlohmann::json submission = nlohmann::json::parse(
      get(port, "/api/submission/" + twin["top"][0]["submission_id"].dump()).body);
  ::kill(server, SIGTERM);
  const Result stopped = wait_kbdata(server);
  server = -1;
  stop_hub();
  EXPECT_EQ(stopped.exit_code, 0) << stopped.err;
  EXPECT_EQ(page.status, 200);
  EXPECT_NE(page.body.find("<tr class=\"rank-row\">"), std::string::npos);
  EXPECT_NE(home.body.find("<a href=\"/leaderboard/597\">nvfp4_gemm</a>"), std::string::npos)
      << home.body;
  EXPECT_EQ(nlohmann::json::parse(search.body)["leaderboards"][0]["id"], 597) << search.body;
  EXPECT_EQ(twin["top"],
            nlohmann::json::parse(local({"top", "--leaderboard", "597", "-n", "0", "--uncertainty",
                                         "-f", "json", "--data", kAddress})
                                      .out));
  EXPECT_EQ(twin["flags"],
            nlohmann::json::parse(local({"audit", "-p", "nvfp4_gemm", "--min-verdict", "suspicious",
                                         "-f", "json", "--data", kAddress})
                                      .out));
  EXPECT_EQ(submission["rows"],
            nlohmann::json::parse(local({"show", twin["top"][0]["submission_id"].dump(), "-f",
                                         "json", "--data", kAddress})
                                      .out));
}

TEST_F(Remote, KbdataDataIsReadLikeData) {
  start_hub();
  Result r = kbdata({"top", "-p", "nvfp4_gemm", "--format", "json"},
                    with_env({{"KBDATA_DATA", kAddress}}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  stop_hub();
  EXPECT_EQ(r.out, local(kTop).out);
}

TEST_F(Remote, CatAndInspectReadOneFile) {
  const std::string file = kAddress + "/nvidia_nvfp4_submissions.parquet";
  const std::string local_file = (local_ / "nvidia_nvfp4_submissions.parquet").string();
  start_hub();
  Result cat =
      kbdata({"cat", file, "--columns", "submission_id,user_name,score", "--format", "csv"});
  Result where =
      kbdata({"cat", file, "--where", "score < 0.0001", "--columns", "submission_id,score"});
  Result inspect = kbdata({"inspect", file, "--json"});
  Result nested = kbdata({"cat", kAddress + "/extra/leaderboards.parquet"});
  stop_hub();
  ASSERT_EQ(cat.exit_code, 0) << cat.err;
  EXPECT_EQ(cat.out, kbdata({"cat", local_file, "--columns", "submission_id,user_name,score",
                             "--format", "csv"})
                         .out);
  ASSERT_EQ(where.exit_code, 0) << where.err;
  EXPECT_EQ(where.out, kbdata({"cat", local_file, "--where", "score < 0.0001", "--columns",
                               "submission_id,score"})
                           .out);
  ASSERT_EQ(inspect.exit_code, 0) << inspect.err;
  const Result local_inspect = kbdata({"inspect", local_file, "--json"});
  // The description names the file; everything else is the same.
  auto without_names = [](std::string text, const std::string& name) {
    for (size_t at = text.find(name); at != std::string::npos; at = text.find(name)) {
      text.replace(at, name.size(), "FILE");
    }
    return text;
  };
  EXPECT_EQ(without_names(inspect.out, std::string("hf://datasets/") + kRepo + "@" + kCommit +
                                           "/nvidia_nvfp4_submissions.parquet"),
            without_names(local_inspect.out, local_file));
  ASSERT_EQ(nested.exit_code, 0) << nested.err;
  EXPECT_EQ(nested.out, kbdata({"cat", (local_ / "leaderboards.parquet").string()}).out);
  expect_ranges_only();
}

TEST_F(Remote, AFolderOfTheDataSetIsADataFolder) {
  start_hub();
  Result r = kbdata({"configs", "--format", "json", "--data", kAddress + "/extra"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"file\":\"leaderboards.parquet\",\"family\":\"leaderboards\","
                       "\"present\":true"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("nvidia_nvfp4_submissions.parquet\",\"family\":\"flat\",\"present\":true"),
            std::string::npos)
      << r.out;
}

TEST_F(Remote, ConfigsListsTheTreesSizesWithoutReadingAFile) {
  start_hub();
  Result r = kbdata({"configs", "--data", kAddress});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(std::string("data: hf://datasets/") + kRepo + "@" + kCommit),
            std::string::npos)
      << r.out;
  const std::string size = std::to_string(files_[1].bytes.size());
  std::string grouped_size;
  for (size_t i = 0; i < size.size(); ++i) {
    if (i > 0 && (size.size() - i) % 3 == 0) grouped_size += ',';
    grouped_size += size[i];
  }
  EXPECT_NE(r.out.find(grouped_size), std::string::npos) << r.out;
  // Only the files directly in the folder, as in a local data folder.
  EXPECT_EQ(r.out.find("extra/"), std::string::npos) << r.out;
  Result json = kbdata({"configs", "--format", "json", "--data", kAddress});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_NE(json.out.find("\"present\":true,\"size\":" + size), std::string::npos) << json.out;
  // The revision and the tree; no file was asked for.
  EXPECT_EQ(count_requests("hub", "/resolve/"), 0);
  EXPECT_EQ(count_requests("cdn", "/"), 0);
}

TEST_F(Remote, ACompleteCachedSnapshotCostsOnlyTheRevision) {
  start_hub();
  ASSERT_EQ(pull({}).exit_code, 0);
  const size_t before = requests().size();
  Result r = kbdata(kTop);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(requests().size(), before + 1);
  EXPECT_NE(requests().back()["url"].get<std::string>().find("/revision/main"), std::string::npos);
  EXPECT_EQ(r.out, local(kTop).out);
}

TEST_F(Remote, CachedBlobsAreReadLocallyAndTheRestRemotely) {
  start_hub();
  ASSERT_EQ(pull({"--config", "nvidia_nvfp4_submissions"}).exit_code, 0);
  const size_t before = requests().size();
  const int trees = count_requests("hub", "/tree/");
  Result r = kbdata(kTop);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  stop_hub();
  EXPECT_EQ(r.out, local(kTop).out);
  EXPECT_EQ(count_requests("hub", "/tree/"), trees + 1);
  // The pulled file is never asked for again.
  const std::vector<nlohmann::json> all = requests();
  for (const nlohmann::json& q : std::vector<nlohmann::json>(all.begin() + before, all.end())) {
    EXPECT_EQ(q["url"].get<std::string>().find("nvidia_nvfp4"), std::string::npos) << q.dump();
  }
}

TEST_F(Remote, OfflineReadsTheCachedSnapshotWithoutARequest) {
  start_hub();
  ASSERT_EQ(pull({}).exit_code, 0);
  const size_t before = requests().size();
  Result r = kbdata(kTop, with_env({{"HF_HUB_OFFLINE", "1"}}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, local(kTop).out);
  EXPECT_EQ(requests().size(), before);
}

// Offline with a partial snapshot (one config pulled): a problem of a config the snapshot lacks
// is not "unknown": the message names the config's file and the pull that fetches it.
TEST_F(Remote, OfflineWithAPartialSnapshotNamesTheConfigToPull) {
  start_hub();
  ASSERT_EQ(pull({"--config", "trimul_submissions"}).exit_code, 0);
  Result r = kbdata(kTop, with_env({{"HF_HUB_OFFLINE", "1"}}));
  expect_one_line_error(r, 2, "unknown problem 'nvfp4_gemm' in ");
  EXPECT_NE(r.err.find("the registry places it in nvidia_nvfp4_submissions.parquet (`kbdata pull "
                       "GPUMODE/kernelbot-data --revision " +
                       std::string(kCommit) +
                       " --config nvidia_nvfp4_submissions` fetches it), which the folder lacks"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("(its problems: trimul)"), std::string::npos) << r.err;
}

TEST_F(Remote, OfflineWithoutTheCacheIsOneLine) {
  start_hub();
  Result r = kbdata(kTop, with_env({{"HF_HUB_OFFLINE", "1"}}));
  expect_one_line_error(r, 1, "offline (HF_HUB_OFFLINE is set)");
  Result cat =
      kbdata({"cat", kAddress + "/leaderboards.parquet"}, with_env({{"HF_HUB_OFFLINE", "1"}}));
  expect_one_line_error(cat, 1, "offline");
  EXPECT_TRUE(requests().empty());
}

TEST_F(Remote, VerboseReportsRequestsAndBytes) {
  start_hub();
  Result r = kbdata({"top", "-p", "nvfp4_gemm", "--verbose", "--data", kAddress});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("kbdata: hub: GPUMODE/kernelbot-data@main is commit"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("read remotely"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("range(s) in"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("bytes fetched"), std::string::npos) << r.err;
}

TEST_F(Remote, TheTokenGoesToTheHubOnly) {
  start_hub({{"token", "hf_secret"}});
  Result r = kbdata(kTop, with_env({{"HF_TOKEN", "hf_secret"}}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("hf_secret"), std::string::npos);
  for (const nlohmann::json& q : requests()) {
    EXPECT_EQ(q["auth"].get<bool>(), q["server"] == "hub") << q.dump();
  }
}

TEST_F(Remote, BadAddressesAreUsageErrors) {
  start_hub();
  expect_one_line_error(kbdata({"top", "-p", "x", "--data", "hf://models/a/b"}), 2,
                        "not a data set address");
  expect_one_line_error(kbdata({"top", "-p", "x", "--data", "hf://datasets/a"}), 2,
                        "names no data set");
  expect_one_line_error(kbdata({"top", "-p", "x", "--data", "hf://datasets/a b/c"}), 2,
                        "names no data set");
  expect_one_line_error(kbdata({"top", "-p", "x", "--data", "hf://datasets/a/b@.."}), 2,
                        "is not a revision name");
  expect_one_line_error(kbdata({"cat", kAddress}), 2, "not one of its files");
  expect_one_line_error(kbdata({"cat", kAddress + "/missing.parquet"}), 2, "has no file");
}

// Faults during the remote reads: each a successful retry (the same output as the local files)
// or a one-line error, never other rows.
struct FaultCase {
  const char* name;
  nlohmann::json faults;
};

// The transfer faults both users of the engine share (hub_fixture.h): each a successful retry
// (the local folder's output) or a one-line error naming the file, never other rows.
TEST_F(Remote, EveryTransferFaultEndsInARetryOrOneLine) {
  for (const TransferFault& f : transfer_faults(files_[1].bytes.size())) {
    SCOPED_TRACE(f.name);
    if (f.recovers) {
      expect_same_as_local(kTop, f.hub);
    } else {
      start_hub(f.hub);
      Result r = kbdata(kTop);
      expect_one_line_error(r, 1, f.message);
      EXPECT_NE(r.err.find("remotely: "), std::string::npos) << r.err;
      EXPECT_TRUE(r.out.empty()) << r.out;
      stop_hub();
      expect_ranges_only();
    }
    fs::remove(root_ / "hub.log");
  }
}

TEST_F(Remote, A200AnsweringARangeIsCutAtTheRange) {
  expect_same_as_local(kTop, {{"faults", {{{"on", "cdn"}, {"kind", "ignore_range"}}}}});
  // The answer was read to the end of the range asked for, not to the end of the file.
  int cdn_done = 0;
  for (const nlohmann::json& e : events()) {
    if (e["server"] == "cdn" && e.contains("done")) ++cdn_done;
  }
  EXPECT_GE(cdn_done, 1);
}

// A fake hub whose tree gives the NVFP4 file `delta` bytes more than it has.
nlohmann::json lying_size(int64_t delta) {
  const int64_t size =
      static_cast<int64_t>(fs::file_size(std::string(KBDATA_SOURCE_DIR) +
                                         "/data/sample/nvidia_nvfp4_submissions.parquet")) +
      delta;
  nlohmann::json overrides = nlohmann::json::object();
  overrides["nvidia_nvfp4_submissions.parquet"] = {{"tree_size", size}};
  nlohmann::json hub = nlohmann::json::object();
  hub["file_overrides"] = overrides;
  return hub;
}

TEST_F(Remote, TreeFaultsAreOneLine) {
  struct Failing {
    const char* name;
    nlohmann::json hub;
    const char* message;
  };
  const std::vector<Failing> cases = {
      {"a tree page that links to itself",
       {{"page_size", 2},
        {"faults", {{{"on", "tree"}, {"kind", "link_to"}, {"page", 1}, {"target", 1}}}}},
       "page 3: the page before links back to"},
      {"a tree page over the size cap",
       {{"faults", {{{"on", "tree"}, {"kind", "huge"}, {"bytes", (64 << 20) + 1}}}}},
       "passes 64 MiB, the most kbdata reads of one JSON answer"},
      {"a tree that lies about a size (smaller)", lying_size(-50000), "nvidia_nvfp4_submissions"},
  };
  for (const Failing& c : cases) {
    SCOPED_TRACE(c.name);
    start_hub(c.hub);
    Result r = kbdata(kTop);
    expect_one_line_error(r, 1, c.message);
    EXPECT_TRUE(r.out.empty()) << r.out;
    stop_hub();
    expect_ranges_only();
    fs::remove(root_ / "hub.log");
  }
}

TEST_F(Remote, ALimitedCatFetchesLittle) {
  // kbdata's own layout (row groups and page indexes): cat --limit reads the footer, the page
  // index and the first pages.
  const fs::path synth = root_ / "synth";
  Result made =
      run("synth --scale small --family flat --seed 3 --layout kbdata --out " + synth.string());
  ASSERT_EQ(made.exit_code, 0) << made.err;
  const std::string name = "nvidia_nvfp4_submissions.parquet";
  files_ = {{name, read_file((synth / name).string()), true}};
  start_hub();
  Result r = kbdata({"cat", kAddress + "/" + name, "--limit", "3", "--columns",
                     "submission_id,score", "--verbose"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  stop_hub();
  EXPECT_EQ(r.out, kbdata({"cat", (synth / name).string(), "--limit", "3", "--columns",
                           "submission_id,score"})
                       .out);
  EXPECT_LT(cdn_range_bytes(), files_[0].bytes.size() / 4) << r.err;
}

// A footer longer than the 64 KiB fetched at opening (54 row groups of 10 rows, each with a page
// index): the rest of it is fetched, and every command reads the file as it reads it locally.
TEST_F(Remote, AFooterLongerThanTheGuessIsCompleted) {
  const fs::path many = local_ / "nvidia_nvfp4_submissions.parquet";
  const fs::path source = root_ / "sample-nvfp4.parquet";
  fs::rename(many, source);
  Result made = run("convert " + source.string() + " " + many.string() + " --row-group-size 10");
  ASSERT_EQ(made.exit_code, 0) << made.err;
  Result footer = run("inspect --json " + many.string());
  ASSERT_NE(footer.out.find("\"num_row_groups\": 54"), std::string::npos) << footer.out;
  files_[1].bytes = read_file(many.string());
  const std::string file = kAddress + "/nvidia_nvfp4_submissions.parquet";
  start_hub();
  Result cat = kbdata({"cat", file, "--format", "csv", "--verbose"});
  Result where = kbdata({"cat", file, "--where", "score < 0.0001", "--columns", "submission_id"});
  Result top = kbdata(kTop);
  stop_hub();
  ASSERT_EQ(cat.exit_code, 0) << cat.err;
  EXPECT_EQ(cat.out, kbdata({"cat", many.string(), "--format", "csv"}).out);
  // The first 4 bytes and the last 64 KiB, then the rest of the footer.
  EXPECT_NE(cat.err.find("hub: 2 range(s), 65,540 bytes"), std::string::npos) << cat.err;
  ASSERT_EQ(where.exit_code, 0) << where.err;
  EXPECT_EQ(where.out, kbdata({"cat", many.string(), "--where", "score < 0.0001", "--columns",
                               "submission_id"})
                           .out);
  ASSERT_EQ(top.exit_code, 0) << top.err;
  EXPECT_EQ(top.out, local(kTop).out);
  expect_ranges_only();
}

}  // namespace
