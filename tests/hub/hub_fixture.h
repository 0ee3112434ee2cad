// Test-only: the fake hub (fake_hub.js) started on free loopback ports, a sandbox folder for the
// cache, and kbdata run against them with a controlled environment.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "support/run_kbdata.h"

namespace kbdata::testing {

namespace fs = std::filesystem;

inline constexpr const char* kCommit = "0123456789abcdef0123456789abcdef01234567";
inline constexpr const char* kRepo = "GPUMODE/kernelbot-data";

// Deterministic bytes that do not repeat with a short period.
inline std::string pseudo_random_bytes(size_t size, uint32_t seed) {
  std::string out(size, '\0');
  uint32_t x = seed * 2654435761u + 1;
  for (char& c : out) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    c = static_cast<char>(x & 0xff);
  }
  return out;
}

struct HubFile {
  std::string path;
  std::string bytes;
  bool lfs = true;
};

// What a folder holds: every entry's kind and contents (a link's target, a file's bytes).
inline std::map<std::string, std::string> folder_state(const fs::path& root) {
  std::map<std::string, std::string> out;
  std::error_code ec;
  if (!fs::exists(root, ec)) return out;
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    const std::string rel = fs::relative(it->path(), root).generic_string();
    if (it->is_symlink()) {
      out[rel] = "link " + fs::read_symlink(it->path()).string();
    } else if (it->is_directory()) {
      out[rel] = "folder";
    } else {
      out[rel] = "file " + read_file(it->path().string());
    }
  }
  return out;
}

// The faults of one transfer (docs/hub.md, "Retries and faults"), one table for both users of the
// hub's transfer engine: pull_test runs each as a pull (the cache complete and verified, or as it
// was), remote_test as `top --data hf://...` (the local folder's output, or one line).
struct TransferFault {
  const char* name;
  nlohmann::json hub;   // added to the fake hub's configuration
  bool recovers;        // a retry or a new request recovers
  const char* message;  // part of the one-line error, when it does not
};

// `nvfp4_size`: the size of the fixture's nvidia_nvfp4_submissions.parquet.
inline std::vector<TransferFault> transfer_faults(uint64_t nvfp4_size) {
  using nlohmann::json;
  const auto faults = [](json list) { return json{{"faults", std::move(list)}}; };
  return {
      {"429 with RateLimit on the CDN",
       faults({{{"on", "cdn"}, {"kind", "rate_limit"}, {"form", "ratelimit"}, {"count", 2}}}), true,
       ""},
      {"429 with Retry-After seconds on the CDN",
       faults({{{"on", "cdn"}, {"kind", "rate_limit"}, {"form", "retry-after"}}}), true, ""},
      {"429 with a Retry-After date on resolve",
       faults({{{"on", "resolve"},
                {"kind", "rate_limit"},
                {"form", "retry-after-date"},
                {"seconds", 1}}}),
       true, ""},
      {"429 without a header on resolve",
       faults({{{"on", "resolve"}, {"kind", "rate_limit"}, {"form", "bare"}, {"count", 2}}}), true,
       ""},
      {"500 on resolve, 502 then 503 on the CDN",
       faults({{{"on", "resolve"}, {"kind", "status"}, {"status", 500}},
               {{"on", "cdn"}, {"kind", "status"}, {"status", 502}},
               {{"on", "cdn"}, {"kind", "status"}, {"status", 503}, {"after", 1}}}),
       true, ""},
      {"a connection dropped mid-body", faults({{{"on", "cdn"}, {"kind", "drop"}, {"after", 1}}}),
       true, ""},
      {"a truncated body", faults({{{"on", "cdn"}, {"kind", "truncate"}, {"after", 1}}}), true, ""},
      {"a dropped connection, then 200s answering every Range",
       faults({{{"on", "cdn"}, {"kind", "drop"}},
               {{"on", "cdn"}, {"kind", "ignore_range"}, {"count", 1000}}}),
       true, ""},
      {"an expired signed URL, twice",
       faults({{{"on", "cdn"}, {"kind", "expired"}, {"after", 1}, {"count", 2}}}), true, ""},
      {"a 429 asking for longer than the retry budget",
       faults({{{"on", "resolve"},
                {"kind", "rate_limit"},
                {"form", "ratelimit"},
                {"seconds", 100000},
                {"count", 100}}}),
       false, "retry budget"},
      {"a 503 that persists",
       faults({{{"on", "cdn"}, {"kind", "status"}, {"status", 503}, {"count", 1000}}}), false,
       "; gave up after 5 tries"},
      {"a signed URL that keeps expiring",
       faults({{{"on", "cdn"}, {"kind", "expired"}, {"count", 1000}}}), false,
       ": the signed URL from http://127.0.0.1:"},
      {"a 404 on resolve", faults({{{"on", "resolve"}, {"kind", "status"}, {"status", 404}}}),
       false, ": HTTP 404"},
      {"a resumed range that starts one byte later than asked",
       faults({{{"on", "cdn"}, {"kind", "drop"}},
               {{"on", "cdn"}, {"kind", "shift_range"}, {"count", 1000}}}),
       false, ", the server answered 'bytes "},
      {"a redirect to file://",
       faults({{{"on", "resolve"}, {"kind", "redirect"}, {"location", "file:///etc/passwd"}}}),
       false, ": a redirect to 'file:///etc/passwd', which is not an http:// or https:// URL"},
      {"a tree that gives a file 3 bytes more than the hub announces",
       {{"file_overrides",
         {{"nvidia_nvfp4_submissions.parquet", {{"tree_size", nvfp4_size + 3}}}}}},
       false,
       ": the hub announces a size of '"},
      {"an etag that disagrees with the tree",
       {{"file_overrides",
         {{"nvidia_nvfp4_submissions.parquet", {{"tree_lfs_oid", std::string(64, 'b')}}}}}},
       false,
       ": the hub announces the etag '"},
  };
}

class HubTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string templ = (fs::temp_directory_path() / "kbdata-hub-XXXXXX").string();
    ASSERT_NE(::mkdtemp(templ.data()), nullptr);
    root_ = templ;
    fs::create_directories(root_ / "home");
    fs::create_directories(root_ / "sources");
    files_ = {
        {"nvidia_nvfp4_submissions.parquet", pseudo_random_bytes(300000, 1), true},
        {"data/nested/part-0.parquet", pseudo_random_bytes(70000, 2), true},
        {"leaderboards.parquet", pseudo_random_bytes(5000, 3), true},
        {"README.md", "# kernelbot-data\nA fake card.\n", false},
    };
  }

  void TearDown() override {
    stop_hub();
    const std::string log = read_file((root_ / "hub.log").string());
    EXPECT_EQ(log.find("violation"), std::string::npos) << log;
    std::error_code ec;
    fs::remove_all(root_, ec);
  }

  // Starts the fake hub with `extra` merged into its configuration (faults, page_size, ...).
  void start_hub(const nlohmann::json& extra = nlohmann::json::object()) {
    stop_hub();  // a hub a failed assertion left running: never two, never one left behind
    nlohmann::json config = {{"repo", kRepo},
                             {"sha", kCommit},
                             {"refs", {{"main", kCommit}}},
                             {"log", (root_ / "hub.log").string()}};
    nlohmann::json files = nlohmann::json::array();
    for (size_t i = 0; i < files_.size(); ++i) {
      const fs::path source = root_ / "sources" / std::to_string(i);
      std::ofstream(source, std::ios::binary) << files_[i].bytes;
      files.push_back(
          {{"path", files_[i].path}, {"source", source.string()}, {"lfs", files_[i].lfs}});
    }
    config["files"] = files;
    for (auto& [key, value] : extra.items()) config[key] = value;
    // Per-file overrides: {"file_overrides": {"PATH": {...}}}.
    if (extra.contains("file_overrides")) {
      for (auto& f : config["files"]) {
        const std::string path = f["path"];
        if (extra["file_overrides"].contains(path)) {
          for (auto& [k, v] : extra["file_overrides"][path].items()) f[k] = v;
        }
      }
    }
    std::ofstream(root_ / "hub.json") << config.dump();

    int out[2];
    ASSERT_EQ(::pipe(out), 0);
    std::fflush(nullptr);  // or the child repeats what this process has not written yet
    hub_pid_ = ::fork();
    ASSERT_GE(hub_pid_, 0);
    if (hub_pid_ == 0) {
      ::dup2(out[1], 1);
      ::close(out[0]);
      ::close(out[1]);
      // Not the test's stderr: ctest waits for every holder of its output pipe to close it.
      const int err = ::open((root_ / "hub.stderr").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      if (err >= 0) ::dup2(err, 2);
      const std::string script = std::string(KBDATA_SOURCE_DIR) + "/tests/hub/fake_hub.js";
      const std::string conf = (root_ / "hub.json").string();
      ::execlp("node", "node", script.c_str(), conf.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(out[1]);
    std::string line;
    char c;
    while (::read(out[0], &c, 1) == 1 && c != '\n') line += c;
    ::close(out[0]);
    int hub_port = 0;
    int cdn_port = 0;
    ASSERT_EQ(std::sscanf(line.c_str(), "hub %d cdn %d", &hub_port, &cdn_port), 2)
        << "fake hub did not start: '" << line << "'";
    endpoint_ = "http://127.0.0.1:" + std::to_string(hub_port);
  }

  void stop_hub() {
    if (hub_pid_ > 0) {
      ::kill(hub_pid_, SIGTERM);
      ::waitpid(hub_pid_, nullptr, 0);
      hub_pid_ = -1;
    }
  }

  fs::path cache() const { return root_ / "home" / "hub"; }
  fs::path repo_folder() const { return cache() / "datasets--GPUMODE--kernelbot-data"; }

  // The requests the hub logged, one JSON object each.
  std::vector<nlohmann::json> requests() const {
    std::vector<nlohmann::json> out;
    for (const nlohmann::json& event : events()) {
      if (event.contains("url")) out.push_back(event);
    }
    return out;
  }
  // Requests and the ends of answers ({server, done: url}), in the order they happened.
  std::vector<nlohmann::json> events() const {
    std::vector<nlohmann::json> out;
    for (const std::string& line : lines(read_file((root_ / "hub.log").string()))) {
      out.push_back(nlohmann::json::parse(line));
    }
    return out;
  }
  // The most CDN answers in progress at once.
  int most_cdn_answers_at_once() const {
    int now = 0;
    int most = 0;
    for (const nlohmann::json& event : events()) {
      if (event["server"] != "cdn") continue;
      now += event.contains("url") ? 1 : -1;
      most = std::max(most, now);
    }
    return most;
  }
  int count_requests(const std::string& server, const std::string& part) const {
    int n = 0;
    for (const auto& r : requests()) {
      if (r["server"] == server && r["url"].get<std::string>().find(part) != std::string::npos) {
        ++n;
      }
    }
    return n;
  }

  struct Launch {
    std::map<std::string, std::string> env;  // added to (or, with value "-", removed from) ours
    std::optional<rlim_t> file_size_limit;
  };
  static Launch with_env(std::map<std::string, std::string> env) {
    Launch launch;
    launch.env = std::move(env);
    return launch;
  }

  // Starts `kbdata ARGS...` with HF_ENDPOINT at the fake hub and HF_HOME (and HOME) in the
  // sandbox; its output goes to files read by wait_kbdata().
  pid_t spawn_kbdata(const std::vector<std::string>& args, const Launch& launch = {}) {
    const std::string out_path = (root_ / "stdout").string();
    const std::string err_path = (root_ / "stderr").string();
    std::fflush(nullptr);  // or the child repeats what this process has not written yet
    const pid_t pid = ::fork();
    if (pid != 0) return pid;
    std::FILE* o = std::freopen(out_path.c_str(), "w", stdout);
    std::FILE* e = std::freopen(err_path.c_str(), "w", stderr);
    if (o == nullptr || e == nullptr) ::_exit(126);
    for (const char* name : {"HF_TOKEN", "HF_TOKEN_PATH", "HF_HUB_CACHE", "HF_HUB_OFFLINE",
                             "XDG_CACHE_HOME", "KBDATA_LIBCURL", "KBDATA_PROGRESS"}) {
      ::unsetenv(name);
    }
    ::setenv("HF_ENDPOINT", endpoint_.c_str(), 1);
    ::setenv("HF_HOME", (root_ / "home").c_str(), 1);
    ::setenv("HOME", (root_ / "home").c_str(), 1);
    ::setenv("KBDATA_HUB_BACKOFF_MS", "10", 1);
    for (const auto& [name, value] : launch.env) {
      if (value == "-") {
        ::unsetenv(name.c_str());
      } else {
        ::setenv(name.c_str(), value.c_str(), 1);
      }
    }
    if (launch.file_size_limit) {
      struct rlimit limit = {*launch.file_size_limit, *launch.file_size_limit};
      ::setrlimit(RLIMIT_FSIZE, &limit);
    }
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(KBDATA_BINARY));
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(KBDATA_BINARY, argv.data());
    ::_exit(127);
  }

  // Waits for kbdata; exit_code is -SIGNAL when a signal ended it.
  Result wait_kbdata(pid_t pid) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    Result r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
    r.out = read_file((root_ / "stdout").string());
    r.err = read_file((root_ / "stderr").string());
    return r;
  }

  Result pull(const std::vector<std::string>& args, const Launch& launch = {}) {
    std::vector<std::string> all = {"pull"};
    all.insert(all.end(), args.begin(), args.end());
    return wait_kbdata(spawn_kbdata(all, launch));
  }

  // No temporary file under blobs/ or snapshots/, and no link there that reaches nothing.
  void expect_no_partial_files() {
    std::error_code ec;
    for (const char* sub : {"blobs", "snapshots"}) {
      const fs::path folder = repo_folder() / sub;
      if (!fs::exists(folder)) continue;
      for (auto it = fs::recursive_directory_iterator(folder, ec); !ec && it != fs::end(it);
           it.increment(ec)) {
        const std::string name = it->path().filename().string();
        EXPECT_FALSE(name.find(".kbdata-") != std::string::npos ||
                     name.find(".incomplete") != std::string::npos)
            << "left behind: " << it->path();
        if (it->is_symlink()) {
          EXPECT_TRUE(fs::exists(it->path())) << "dangling link " << it->path();
        }
      }
    }
  }

  fs::path root_;
  std::vector<HubFile> files_;
  std::string endpoint_;
  pid_t hub_pid_ = -1;
};

}  // namespace kbdata::testing
