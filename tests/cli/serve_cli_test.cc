// kbdata serve as a process, spoken to over raw sockets: the pages and their JSON twins (equal to
// the commands' --format json), the refusals (traversal in raw and encoded spellings, other
// methods, other hosts, long requests), planted markup that stays text, no file written, and a
// clean stop on SIGTERM.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/http_client.h"
#include "support/oracle.h"
#include "support/run_kbdata.h"
#include "support/submission_files.h"
#include "support/temp_dir.h"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using kbdata::testing::read_file;
using kbdata::testing::run;

// A running `kbdata serve`, stopped (SIGTERM) when destroyed.
class ServeProcess {
 public:
  ServeProcess(const std::string& data, const std::string& cwd,
               const std::vector<std::string>& extra = {}) {
    int out[2];
    if (::pipe(out) != 0) throw std::runtime_error("pipe");
    err_path_ = cwd + "/../serve-" + std::to_string(::getpid()) + ".err";
    std::vector<std::string> args = {KBDATA_BINARY, "serve", "--data", data, "--port", "0"};
    args.insert(args.end(), extra.begin(), extra.end());
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_addclose(&actions, out[0]);
    posix_spawn_file_actions_addopen(&actions, 2, err_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());
    if (::posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ) != 0) {
      throw std::runtime_error("spawn");
    }
    posix_spawn_file_actions_destroy(&actions);
    ::close(out[1]);
    // The first line: "kbdata: serving DIR at http://HOST:PORT/".
    std::string line;
    char c;
    while (::read(out[0], &c, 1) == 1 && c != '\n') line += c;
    ::close(out[0]);
    first_line_ = line;
    const size_t colon = line.rfind(':');
    if (colon == std::string::npos) return;
    port_ = std::atoi(line.c_str() + colon + 1);
  }
  ~ServeProcess() {
    if (pid_ > 0) stop();
    std::error_code ec;
    fs::remove(err_path_, ec);
  }
  int stop() {
    ::kill(pid_, SIGTERM);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  [[nodiscard]] int port() const { return port_; }
  [[nodiscard]] const std::string& first_line() const { return first_line_; }
  [[nodiscard]] std::string err() const { return read_file(err_path_); }

 private:
  pid_t pid_ = -1;
  int port_ = 0;
  std::string first_line_;
  std::string err_path_;
};

using kbdata::testing::Answer;
using kbdata::testing::get;
using kbdata::testing::raw;

class ServeCli : public ::testing::Test {
 protected:
  void SetUp() override {
    data_ = dir_.path() + "/data";
    cwd_ = dir_.path() + "/cwd";
    fs::create_directories(cwd_);
    fs::copy(std::string(KBDATA_SOURCE_DIR) + "/data/sample", data_);
  }
  kbdata::testing::TempDir dir_{"serve-cli"};
  std::string data_;
  std::string cwd_;
};

TEST_F(ServeCli, PagesAndTheirTwinsAsTheCommandsPrintThem) {
  ServeProcess serve(data_, cwd_);
  ASSERT_GT(serve.port(), 0) << serve.first_line() << serve.err();
  EXPECT_EQ(serve.first_line(), "kbdata: serving " + data_ +
                                    " at http://127.0.0.1:" + std::to_string(serve.port()) + "/");
  const Answer home = get(serve.port(), "/");
  EXPECT_EQ(home.status, 200);
  EXPECT_NE(home.body.find("<tr class=\"leaderboard-row\">"), std::string::npos);
  EXPECT_NE(home.headers.find("Content-Security-Policy"), std::string::npos);

  EXPECT_EQ(get(serve.port(), "/api/configs").body,
            run("configs --data " + data_ + " --format json").out);
  const auto top = run("top --data " + data_ + " --leaderboard 597 -n 0 --uncertainty -f json");
  const nlohmann::json twin = nlohmann::json::parse(get(serve.port(), "/api/leaderboard/597").body);
  EXPECT_EQ(twin["top"], nlohmann::json::parse(top.out));
  EXPECT_EQ(
      twin["records"],
      nlohmann::json::parse(run("records --data " + data_ + " --leaderboard 597 -f json").out));

  const Answer lb = get(serve.port(), "/leaderboard/597");
  EXPECT_EQ(lb.status, 200);
  EXPECT_NE(lb.body.find("<tr class=\"rank-row\">"), std::string::npos);
  EXPECT_NE(lb.body.find("<figure class=\"chart\"><svg"), std::string::npos);
  EXPECT_NE(lb.body.find("<p class=\"noise\">Measured noise: sigma 0."), std::string::npos);
  const Answer trend = get(serve.port(), "/leaderboard/597/techniques");
  EXPECT_EQ(trend.status, 200);
  EXPECT_NE(trend.body.find("<tr class=\"trend-row\">"), std::string::npos);
  EXPECT_NE(trend.body.find("class=\"kbdata-small-multiples\""), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(get(serve.port(), "/api/leaderboard/597/techniques").body),
            nlohmann::json::parse(
                run("techniques --data " + data_ + " --trend -p nvfp4_gemm -f json").out));
  EXPECT_EQ(get(serve.port(), "/leaderboard/123456/techniques").status, 404);
  const Answer user = get(serve.port(), "/user/598/995205553760407802");
  EXPECT_EQ(user.status, 200);
  EXPECT_NE(user.body.find("<table class=\"diff\">"), std::string::npos);
  EXPECT_NE(user.body.find("<tr class=\"add\">"), std::string::npos);
  const Answer split =
      get(serve.port(), "/user/598/995205553760407802?a=30000287&b=30000856&view=split");
  EXPECT_NE(split.body.find("<table class=\"diff split\">"), std::string::npos);
  EXPECT_NE(split.body.find("<a href=\"/submission/30000287\">"), std::string::npos);
  const Answer sub = get(serve.port(), "/submission/30000856");
  EXPECT_EQ(sub.status, 200);
  EXPECT_NE(sub.body.find("<pre class=\"code\">"), std::string::npos);
  const nlohmann::json sub_twin =
      nlohmann::json::parse(get(serve.port(), "/api/submission/30000856").body);
  EXPECT_EQ(sub_twin["rows"],
            nlohmann::json::parse(run("show --data " + data_ + " 30000856 --format json").out));
  const auto techniques =
      run("techniques --data " + data_ + " -p nvfp4_dual_gemm -u 995205553760407802 -f json");
  for (const nlohmann::json& t : nlohmann::json::parse(techniques.out)) {
    if (t["submission_id"] == 30000856) {
      EXPECT_EQ(sub_twin["techniques"][0], t);
    }
  }
  ASSERT_EQ(sub_twin["techniques"].size(), 1u);
  EXPECT_NE(sub.body.find("<dt>language</dt><dd>cute_dsl"), std::string::npos);
  const Answer search = get(serve.port(), "/search?q=tonda");
  EXPECT_NE(search.body.find("/user/598/995205553760407802"), std::string::npos);
  EXPECT_EQ(get(serve.port(), "/submission/1").status, 404);
  EXPECT_EQ(get(serve.port(), "/nothing").status, 404);
  EXPECT_EQ(serve.stop(), 0);
  // The server wrote nothing, where it ran or in the data.
  EXPECT_TRUE(fs::is_empty(cwd_));
}

// /api/status once the index is no longer being built (null after 60 s).
nlohmann::json settled_status(int port) {
  for (int i = 0; i < 600; ++i) {
    const Answer a = get(port, "/api/status");
    if (a.status == 200) {
      const nlohmann::json s = nlohmann::json::parse(a.body);
      if (s["index"] != "building" && s["index"] != "warming") return s;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return nullptr;
}

// Two servers of `data`, one without the index: every page type and twin, for every leaderboard,
// answers byte for byte the same once the index is ready.
void expect_index_answers_as_files(const std::string& data, const std::string& cwd) {
  ServeProcess files(data, cwd, {"--index-memory", "0"});
  ServeProcess memory(data, cwd);
  ASSERT_GT(files.port(), 0) << files.err();
  ASSERT_GT(memory.port(), 0) << memory.err();
  EXPECT_EQ(settled_status(files.port())["index"], "off");
  const nlohmann::json status = settled_status(memory.port());
  ASSERT_EQ(status["index"], "ready") << status.dump() << memory.err();
  EXPECT_GT(status["rows"].get<int64_t>(), 1000);
  EXPECT_GT(status["bytes"].get<int64_t>(), 1'000'000);
  EXPECT_GT(status["leaderboard_bytes"].get<int64_t>(), 10'000);
  EXPECT_NE(memory.err().find("kbdata: index ready: "), std::string::npos) << memory.err();

  std::vector<std::string> targets = {"/",
                                      "/api/configs",
                                      "/search?q=tonda",
                                      "/api/search?q=30000856",
                                      "/user/598/995205553760407802",
                                      "/api/user/598/995205553760407802?a=30000287&b=30000856"};
  const nlohmann::json configs = nlohmann::json::parse(get(files.port(), "/api/configs").body);
  std::set<int64_t> ids;
  for (const nlohmann::json& c : configs["configs"]) {
    for (const nlohmann::json& lb : c["leaderboards"]) {
      if (c["present"] == true && lb["id"].is_number_integer()) ids.insert(lb["id"].get<int64_t>());
    }
  }
  ASSERT_GT(ids.size(), 10U);
  for (int64_t id : ids) {
    const std::string lb = std::to_string(id);
    targets.push_back("/leaderboard/" + lb);
    targets.push_back("/api/leaderboard/" + lb + "/techniques");
    // The first ranked row's submission and user.
    const nlohmann::json twin =
        nlohmann::json::parse(get(files.port(), "/api/leaderboard/" + lb).body);
    if (twin["top"].empty()) continue;
    const nlohmann::json& first = twin["top"][0];
    targets.push_back("/api/submission/" + first["submission_id"].dump());
    targets.push_back("/user/" + lb + "/" + first["user_id"].get<std::string>());
  }
  for (const std::string& target : targets) {
    const Answer from_files = get(files.port(), target);
    const Answer from_memory = get(memory.port(), target);
    EXPECT_EQ(from_files.status, 200) << target;
    EXPECT_EQ(from_memory.status, from_files.status) << target;
    EXPECT_EQ(from_memory.body, from_files.body) << target;
  }
  EXPECT_EQ(files.stop(), 0);
  EXPECT_EQ(memory.stop(), 0);
}

TEST_F(ServeCli, TheIndexAnswersAsTheFilesDo) { expect_index_answers_as_files(data_, cwd_); }

// The same over files another writer made: DuckDB rewrote a flat and a legacy config (its own
// dictionaries, pages, types and nested run structs).
TEST_F(ServeCli, TheIndexAnswersAsTheFilesDoOverFilesDuckDbWrote) {
  for (const char* name : {"nvidia_nvfp4_submissions.parquet", "submissions.parquet"}) {
    const std::string path = data_ + "/" + name;
    const std::string copy = dir_.path() + "/duckdb-" + name;
    kbdata::testing::duckdb().run("COPY (SELECT * FROM read_parquet(" +
                                  kbdata::testing::sql_path(path) + ")) TO " +
                                  kbdata::testing::sql_path(copy) + " (FORMAT parquet)");
    fs::rename(copy, path);
  }
  expect_index_answers_as_files(data_, cwd_);
}

TEST_F(ServeCli, AnIndexOverItsBoundIsSaidAndThePagesStillAnswer) {
  ServeProcess serve(data_, cwd_, {"--index-memory", "1"});
  ASSERT_GT(serve.port(), 0) << serve.err();
  const nlohmann::json status = settled_status(serve.port());
  EXPECT_EQ(status["index"], "over the limit") << status.dump();
  EXPECT_NE(serve.err().find("the index would pass --index-memory 1 MB after "), std::string::npos)
      << serve.err();
  EXPECT_EQ(get(serve.port(), "/leaderboard/598").status, 200);
  EXPECT_EQ(serve.stop(), 0);
}

TEST_F(ServeCli, TheSubmissionPageListsItsNearDuplicates) {
  ServeProcess serve(data_, cwd_);
  ASSERT_GT(serve.port(), 0) << serve.err();
  const nlohmann::json twin =
      nlohmann::json::parse(get(serve.port(), "/api/submission/30000856").body);
  EXPECT_EQ(twin["near_duplicates"],
            nlohmann::json::parse(
                run("show --data " + data_ + " 30000856 --near-duplicates -f json").out));
  ASSERT_FALSE(twin["near_duplicates"].empty());
  const Answer page = get(serve.port(), "/submission/30000856");
  EXPECT_NE(page.body.find("<h2>Near-duplicates</h2>"), std::string::npos);
  EXPECT_NE(page.body.find("<tr class=\"near-row\"><td><a href=\"/submission/" +
                           twin["near_duplicates"][0]["submission_id"].dump() + "\">"),
            std::string::npos);
  // The same user's near-duplicates link to their diff with this one.
  EXPECT_NE(page.body.find("?a=" + twin["near_duplicates"][0]["submission_id"].dump() +
                           "&amp;b=30000856#diff\">diff</a>"),
            std::string::npos);
}

TEST_F(ServeCli, RefusalsInEverySpelling) {
  ServeProcess serve(data_, cwd_);
  const int port = serve.port();
  ASSERT_GT(port, 0) << serve.err();
  for (const char* target :
       {"/api/../etc/passwd", "/api/%2e%2e/etc/passwd", "/%2E%2E/%2E%2E/", "/static/..%2fapp.js",
        "/static%2fapp.js", "//etc/passwd", "/api/configs%00", "/static\\..\\app.js"}) {
    EXPECT_EQ(get(port, target).status, 400) << target;
  }
  EXPECT_EQ(get(port, "/", "evil.example:" + std::to_string(port)).status, 403);
  EXPECT_EQ(get(port, "/", "127.0.0.1:1").status, 403);
  for (const char* method : {"POST", "PUT", "DELETE"}) {
    const Answer a =
        raw(port, std::string(method) + " / HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) +
                      "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    EXPECT_EQ(a.status, 405) << method;
  }
  const Answer long_target = get(port, "/search?q=" + std::string(9000, 'a'));
  EXPECT_GE(long_target.status, 400);
  EXPECT_LT(long_target.status, 500);
  // Still serving after all of it.
  EXPECT_EQ(get(port, "/").status, 200);
}

TEST_F(ServeCli, PlantedMarkupStaysText) {
  kbdata::testing::FlatRow r;
  r.submission_id = 777;
  r.leaderboard_id = 597;
  r.problem_name = "nvfp4_gemm";
  r.user_id = "666";
  r.user_name = "<img src=x onerror=\"window.__xss=2\">";
  r.code_id = 1;
  r.file_name = "<svg onload=window.__xss=3>.py";
  r.submission_time = int64_t{1764000000} * 1000000;
  r.score = 1e-5;
  r.passed = true;
  r.mode = "leaderboard";
  r.runner = "B200";
  r.code = "x = 1\n</pre><script>window.__xss=1</script>\n";
  kbdata::testing::write_bytes(data_ + "/hostile_submissions.parquet",
                               kbdata::testing::flat_file({r}));
  ServeProcess serve(data_, cwd_);
  ASSERT_GT(serve.port(), 0) << serve.err();
  for (const char* target : {"/submission/777", "/user/597/666", "/search?q=666"}) {
    const Answer a = get(serve.port(), target);
    EXPECT_EQ(a.status, 200) << target << a.body;
    EXPECT_EQ(a.body.find("<script>window"), std::string::npos) << target;
    EXPECT_EQ(a.body.find("<img src=x"), std::string::npos) << target;
    EXPECT_EQ(a.body.find("<svg onload"), std::string::npos) << target;
    EXPECT_NE(a.body.find("&lt;img src=x onerror=&quot;window.__xss=2&quot;&gt;"),
              std::string::npos)
        << target;
  }
  EXPECT_NE(get(serve.port(), "/submission/777").body.find("&lt;script&gt;window.__xss="),
            std::string::npos);
}

// The files are the truth: a config file, a problem and a runner no registry lists (written by
// DuckDB beside the sample) are served like the published ones: listed on the home page, with a
// leaderboard page whose twin is what the commands print.
// Leaderboard 801 (fp8_gemm_v3 on GB300), which no registry lists: 12 rows of 4 users, whose
// bests are 80, 90, 100 and 110 µs (u0, u3, u2, u1).
void write_leaderboard_801(const std::string& data) {
  kbdata::testing::duckdb().run(
      "COPY (SELECT i::BIGINT AS submission_id, 801::BIGINT AS leaderboard_id, 'fp8_gemm_v3' AS "
      "problem_name, 'u' || (i % 4) AS user_id, 'user' || (i % 4) AS user_name, i::BIGINT AS "
      "code_id, 'submission.py' AS file_name, TIMESTAMPTZ '2026-09-01 00:00:00+00' + "
      "to_hours(i::BIGINT) AS submission_time, 'succeeded' AS status, (1e-5 * (20 - i))::DOUBLE "
      "AS score, true AS passed, 'leaderboard' AS mode, 'GB300' AS runner, 'import torch\n"
      "def custom_kernel(data):\n    return data[0] @ data[1]  # ' || i AS code FROM range(1, 13) "
      "t(i)) TO " +
      kbdata::testing::sql_path(data + "/nvidia_fp8_submissions.parquet") + " (FORMAT parquet)");
}

TEST_F(ServeCli, ALeaderboardNoRegistryListsIsServed) {
  write_leaderboard_801(data_);
  ServeProcess serve(data_, cwd_);
  ASSERT_GT(serve.port(), 0) << serve.err();
  const Answer home = get(serve.port(), "/");
  EXPECT_NE(home.body.find("<a href=\"/leaderboard/801\">fp8_gemm_v3</a>"), std::string::npos)
      << home.body;
  const Answer lb = get(serve.port(), "/leaderboard/801");
  EXPECT_EQ(lb.status, 200);
  EXPECT_NE(lb.body.find("<h2>Ranking on GB300</h2>"), std::string::npos);
  EXPECT_NE(lb.body.find("<tr class=\"rank-row\">"), std::string::npos);
  const nlohmann::json twin = nlohmann::json::parse(get(serve.port(), "/api/leaderboard/801").body);
  const auto top = run("top --data " + data_ + " --leaderboard 801 -n 0 --uncertainty -f json");
  EXPECT_EQ(twin["top"], nlohmann::json::parse(top.out));
  EXPECT_EQ(twin["top"].size(), 4u);
  // The registry's runners are shown with their GPU.
  EXPECT_NE(get(serve.port(), "/leaderboard/597").body.find("<h2>Ranking on NVIDIA (B200)</h2>"),
            std::string::npos);
  EXPECT_EQ(serve.stop(), 0);
}

// A leaderboard's page places a score as `kbdata place` does: the rank among the users' bests
// (a score equal to the 3rd best shares rank 3), a row in the ranking where the score falls, a
// line on the record curve, and the answer in the twin; a score that is none is said.
TEST_F(ServeCli, ALeaderboardPagePlacesAScore) {
  write_leaderboard_801(data_);
  ServeProcess serve(data_, cwd_);
  ASSERT_GT(serve.port(), 0) << serve.err();
  const nlohmann::json twin =
      nlohmann::json::parse(get(serve.port(), "/api/leaderboard/801?score=100us").body);
  const auto place = run("place --data " + data_ + " -p fp8_gemm_v3 --runner GB300 100us -f json");
  ASSERT_EQ(place.exit_code, 0) << place.err;
  EXPECT_EQ(twin["place"], nlohmann::json::parse(place.out));
  ASSERT_EQ(twin["place"].size(), 1u);
  EXPECT_EQ(twin["place"][0]["rank"], 3);
  EXPECT_EQ(twin["place"][0]["users"], 4);
  // The rest of the twin is the leaderboard's, as without a score.
  nlohmann::json without = twin;
  without.erase("place");
  EXPECT_EQ(without, nlohmann::json::parse(get(serve.port(), "/api/leaderboard/801").body));

  const Answer lb = get(serve.port(), "/leaderboard/801?score=95us&runner=GB300");
  EXPECT_EQ(lb.status, 200);
  EXPECT_NE(lb.body.find("<tr class=\"placed\"><td>GB300</td><td class=\"num\">3</td><td "
                         "class=\"num\">4</td>"),
            std::string::npos)
      << lb.body;
  // In the ranking, after the two faster users and before the third.
  const size_t placed = lb.body.find("<tr class=\"placed-row\">");
  ASSERT_NE(placed, std::string::npos);
  EXPECT_NE(lb.body.find("95.00 µs", placed), std::string::npos);
  const size_t second = lb.body.find("90.00 µs");
  const size_t third = lb.body.find("100.00 µs");
  EXPECT_LT(second, placed);
  EXPECT_GT(third, placed);
  EXPECT_NE(lb.body.find("data-name=\"the score placed: 95.00 µs\""), std::string::npos);
  EXPECT_NE(lb.body.find("value=\"95us\""), std::string::npos);

  // A runner nothing ran on is refused with the reason; a score that is none is said, as text.
  const Answer other = get(serve.port(), "/leaderboard/801?score=95us&runner=H100");
  EXPECT_EQ(other.status, 200);
  EXPECT_NE(other.body.find("<td colspan=\"9\" class=\"error\">"), std::string::npos);
  EXPECT_EQ(other.body.find("<tr class=\"placed-row\">"), std::string::npos);
  const Answer bad = get(serve.port(), "/leaderboard/801?score=%3Cb%3Efast");
  EXPECT_EQ(bad.status, 200);
  EXPECT_NE(bad.body.find("<p class=\"error\">score &apos;&lt;b&gt;fast&apos;: not a time"),
            std::string::npos)
      << bad.body;
  EXPECT_EQ(get(serve.port(), "/api/leaderboard/801?score=-3us").status, 400);
  EXPECT_EQ(serve.stop(), 0);
}

// A user whose name holds bytes of no UTF-8, and whose id holds characters a URL must encode.
kbdata::testing::FlatRow odd_user_row() {
  kbdata::testing::FlatRow r;
  r.submission_id = 778;
  r.leaderboard_id = 597;
  r.problem_name = "nvfp4_gemm";
  r.user_id = "a b#c?d%e&f";
  r.user_name = "odd\xff\xfename";
  r.code_id = 2;
  r.submission_time = int64_t{1764000000} * 1000000;
  r.score = 1e-6;
  r.passed = true;
  r.mode = "leaderboard";
  r.runner = "B200";
  r.code = "y = 2\n";
  return r;
}

// Search answers are JSON whatever the data's or the query's bytes: text that is no UTF-8 is
// searched and shown as U+FFFD (as the commands show it), never a JSON library's exception.
TEST_F(ServeCli, SearchAnswersWhateverTheBytes) {
  kbdata::testing::write_bytes(data_ + "/odd_submissions.parquet",
                               kbdata::testing::flat_file({odd_user_row()}));
  ServeProcess serve(data_, cwd_, {"--index-memory", "0"});
  ASSERT_GT(serve.port(), 0) << serve.err();
  const Answer found = get(serve.port(), "/api/search?q=odd");
  ASSERT_EQ(found.status, 200) << found.body;
  const nlohmann::json twin = nlohmann::json::parse(found.body);
  ASSERT_EQ(twin["users"].size(), 1u) << found.body;
  EXPECT_EQ(twin["users"][0]["user_name"], "odd\uFFFD\uFFFDname");
  EXPECT_EQ(twin["users"][0]["user_id"], "a b#c?d%e&f");
  for (const char* target :
       {"/api/search?q=%ff", "/search?q=%ff", "/api/search?q=odd%ff%fe", "/search?q=odd"}) {
    const Answer a = get(serve.port(), target);
    EXPECT_EQ(a.status, 200) << target << ": " << a.body;
    EXPECT_EQ(a.body.find("json.exception"), std::string::npos) << target;
  }
  const nlohmann::json ff = nlohmann::json::parse(get(serve.port(), "/api/search?q=%ff").body);
  EXPECT_EQ(ff["query"], "\uFFFD");
  EXPECT_EQ(ff["users"].size(), 1u);  // the repaired name holds U+FFFD
  // stderr holds notes only (the file's name is no config kbdata knows), no exception.
  std::istringstream err(serve.err());
  for (std::string line; std::getline(err, line);) {
    EXPECT_EQ(line.rfind("kbdata: note: ", 0), 0u) << line;
  }
}

// Links to a user's page carry the id percent-encoded, and lead to it.
TEST_F(ServeCli, UserLinksAreUrlEncoded) {
  kbdata::testing::write_bytes(data_ + "/odd_submissions.parquet",
                               kbdata::testing::flat_file({odd_user_row()}));
  ServeProcess serve(data_, cwd_, {"--index-memory", "0"});
  ASSERT_GT(serve.port(), 0) << serve.err();
  const std::string href = "/user/597/a%20b%23c%3Fd%25e%26f";
  for (const char* target : {"/search?q=odd", "/leaderboard/597", "/submission/778"}) {
    const Answer a = get(serve.port(), target);
    EXPECT_NE(a.body.find("<a href=\"" + href + "\">"), std::string::npos) << target;
  }
  const Answer user = get(serve.port(), href);
  EXPECT_EQ(user.status, 200) << user.body;
  EXPECT_NE(user.body.find("/submission/778"), std::string::npos);
}

// A user, submission or leaderboard the data do not hold is 404, page and twin alike.
TEST_F(ServeCli, WhatTheDataDoNotHoldIs404) {
  ServeProcess serve(data_, cwd_, {"--index-memory", "0"});
  ASSERT_GT(serve.port(), 0) << serve.err();
  for (const char* target : {"/api/user/597/nobody", "/user/597/nobody", "/api/submission/1",
                             "/submission/1", "/leaderboard/123456/techniques"}) {
    const Answer a = get(serve.port(), target);
    EXPECT_EQ(a.status, 404) << target << ": " << a.body;
  }
  EXPECT_NE(get(serve.port(), "/api/user/597/nobody").body.find("no submissions of user 'nobody'"),
            std::string::npos);
}

// When the folder's files change under a running server, no page answers from the old files:
// the status says "stale" (not "ready"), every page says the data changed, and the pages are made
// again from the files (a new submission is found, cached answers are not served).
TEST_F(ServeCli, ChangedDataAreSaidAndNoPageAnswersFromTheOldFiles) {
  ServeProcess serve(data_, cwd_);
  ASSERT_GT(serve.port(), 0) << serve.err();
  ASSERT_EQ(settled_status(serve.port())["index"], "ready") << serve.err();
  const Answer before = get(serve.port(), "/leaderboard/597");
  ASSERT_EQ(before.status, 200);
  EXPECT_EQ(before.body.find("class=\"notice\""), std::string::npos);
  EXPECT_EQ(get(serve.port(), "/api/submission/778").status, 404);
  EXPECT_EQ(get(serve.port(), "/api/search?q=odd").body.find("a b#c"), std::string::npos);

  kbdata::testing::write_bytes(data_ + "/odd_submissions.parquet",
                               kbdata::testing::flat_file({odd_user_row()}));
  const nlohmann::json status = nlohmann::json::parse(get(serve.port(), "/api/status").body);
  EXPECT_EQ(status["index"], "stale") << status.dump();
  EXPECT_NE(status["note"].get<std::string>().find("Restart kbdata serve"), std::string::npos);
  const Answer after = get(serve.port(), "/leaderboard/597");
  EXPECT_NE(after.body.find("<p class=\"notice\">The data changed since this server started"),
            std::string::npos);
  // The new user ranks first on 597 (1e-6 s), from the files, not from the kept page.
  EXPECT_NE(after.body.find("odd\xef\xbf\xbd\xef\xbf\xbdname"), std::string::npos);
  EXPECT_EQ(get(serve.port(), "/api/submission/778").status, 200);
  EXPECT_NE(get(serve.port(), "/api/search?q=odd").body.find("a b#c"), std::string::npos);
  // A file removed is a change too; the status stays "stale".
  fs::remove(data_ + "/odd_submissions.parquet");
  EXPECT_EQ(get(serve.port(), "/api/submission/778").status, 404);
  EXPECT_EQ(nlohmann::json::parse(get(serve.port(), "/api/status").body)["index"], "stale");
  EXPECT_EQ(serve.stop(), 0);
}

// Connections that trickle their headers a byte at a time (each byte sooner than any silence
// timeout) cannot hold the server's threads: each is closed once its request's headers have taken
// longer than the transport allows in all (docs/serve.md), and other requests are answered
// meanwhile.
TEST_F(ServeCli, ConnectionsThatTrickleTheirHeadersAreClosed) {
  ServeProcess serve(data_, cwd_, {"--index-memory", "0"});
  const int port = serve.port();
  ASSERT_GT(port, 0) << serve.err();
  constexpr int kTricklers = 12;  // more than the transport's 8 threads
  const std::string request =
      "GET /api/status HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) +
      "\r\nX-Slow: " + std::string(100, 'a') + "\r\n\r\n";
  std::vector<int> closed(kTricklers, 0);  // 1 when the server closed the connection
  std::vector<int> bytes_sent(kTricklers, 0);
  std::atomic<bool> stop = false;
  std::vector<std::thread> tricklers;
  for (int i = 0; i < kTricklers; ++i) {
    tricklers.emplace_back([&, i] {
      const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in addr{};
      addr.sin_family = AF_INET;
      addr.sin_port = htons(static_cast<uint16_t>(port));
      addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return;
      // One byte a second, until the server closes the connection (or the test gives up).
      for (size_t at = 0; at < request.size() && !stop; ++at) {
        if (::send(fd, &request[at], 1, MSG_NOSIGNAL) != 1) {
          closed[i] = 1;
          break;
        }
        ++bytes_sent[i];
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, 1000) > 0) {
          char buffer[1024];
          if (::recv(fd, buffer, sizeof buffer, 0) <= 0) {
            closed[i] = 1;
            break;
          }
          while (::recv(fd, buffer, sizeof buffer, 0) > 0) {  // an answer, then the close
          }
          closed[i] = 1;
          break;
        }
      }
      ::close(fd);
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  // Every thread holds a trickler now; this request is answered once they are dropped.
  const Answer status = raw(port,
                            "GET /api/status HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) +
                                "\r\nConnection: close\r\n\r\n",
                            /*timeout_s=*/60);
  const bool answered = status.status == 200;
  stop = !answered;  // (before the fix nothing answers: end the tricklers, and fail below)
  for (std::thread& t : tricklers) t.join();
  EXPECT_TRUE(answered) << "no answer while " << kTricklers << " connections trickled";
  for (int i = 0; i < kTricklers; ++i) {
    EXPECT_EQ(closed[i], 1) << "trickler " << i << " was never closed";
    EXPECT_LT(bytes_sent[i], static_cast<int>(request.size())) << i;
  }
  EXPECT_EQ(get(port, "/api/status").status, 200);
  EXPECT_EQ(serve.stop(), 0);
}

TEST_F(ServeCli, AnyAddressButLoopbackIsSaidLoudly) {
  ServeProcess serve(data_, cwd_, {"--bind", "0.0.0.0"});
  ASSERT_GT(serve.port(), 0) << serve.err();
  EXPECT_NE(serve.err().find("WARNING: serving on 0.0.0.0"), std::string::npos) << serve.err();
}

TEST_F(ServeCli, UsageErrors) {
  auto r = run("serve --data " + data_ + " --port 70000");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(kbdata::testing::lines(r.err).size(), 1u) << r.err;
  r = run("serve --data " + dir_.file("missing"));
  EXPECT_NE(r.exit_code, 0);
  r = run("serve --data " + data_ + " --index-memory -5");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--index-memory -5: expected 0 (no index) or more MB"), std::string::npos)
      << r.err;
}

}  // namespace
