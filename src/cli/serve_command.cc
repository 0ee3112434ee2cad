#include "cli/serve_command.h"

#include <malloc.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string_view>
#include <thread>
#include <tuple>

#include "analysis/near_duplicates.h"
#include "analysis/noise.h"
#include "audit/folder_audit.h"
#include "cli/audit_command.h"
#include "cli/configs_command.h"
#include "cli/progression_command.h"
#include "cli/records_command.h"
#include "cli/show_command.h"
#include "cli/techniques_command.h"
#include "cli/top_command.h"
#include "common/error.h"
#include "common/shared_library.h"
#include "common/text.h"
#include "dataset/hardware.h"
#include "dataset/loader.h"
#include "dataset/registry.h"
#include "dataset/resident.h"
#include "pairs/diff.h"
#include "query/techniques.h"
#include "report/text.h"
#include "serve/html.h"
#include "serve/http_server.h"

namespace kbdata::cli {
namespace {

namespace fs = std::filesystem;
// Key order kept: a twin's parts are the commands' JSON as they print it.
using json = nlohmann::ordered_json;
using serve::escape;
using serve::HttpRequest;
using serve::HttpResponse;

// ---- the transport module ----------------------------------------------------------------

// kbdata-http.so beside the binary (the build folder), else in ../lib/kbdata (an installed
// tree); $KBDATA_HTTP_MODULE overrides both.
std::unique_ptr<serve::HttpBackend> load_backend() {
  static std::string path = [] {
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    for (const fs::path& candidate :
         {exe.parent_path() / "kbdata-http.so",
          exe.parent_path() / ".." / "lib" / "kbdata" / "kbdata-http.so"}) {
      if (fs::is_regular_file(candidate, ec)) return candidate.string();
    }
    return std::string("kbdata-http.so");
  }();
  static SharedLibrary library("KBDATA_HTTP_MODULE", path.c_str(), "kbdata's HTTP module",
                               "it is built beside the kbdata binary (kbdata-http.so, which needs "
                               "Debian's libcpp-httplib)");
  serve::MakeHttpBackend make = nullptr;
  library.resolve(serve::kMakeHttpBackend, make);
  return std::unique_ptr<serve::HttpBackend>(make());
}

// ---- running a command into a string -------------------------------------------------------

// What `run` prints on its output (its notes and warnings are dropped: they are in the JSON).
template <typename Run>
std::string captured(Run run) {
  char* out_buffer = nullptr;
  size_t out_size = 0;
  char* err_buffer = nullptr;
  size_t err_size = 0;
  std::FILE* out = ::open_memstream(&out_buffer, &out_size);
  std::FILE* err = ::open_memstream(&err_buffer, &err_size);
  if (out == nullptr || err == nullptr) throw IoError("cannot allocate a memory stream");
  auto close = [&] {
    std::fclose(out);
    std::fclose(err);
    std::string text(out_buffer == nullptr ? "" : std::string(out_buffer, out_size));
    std::free(out_buffer);
    std::free(err_buffer);
    return text;
  };
  try {
    run(out, err);
  } catch (...) {
    close();
    throw;
  }
  return close();
}

HttpResponse json_response(const std::string& body) {
  HttpResponse r;
  r.content_type = "application/json; charset=utf-8";
  r.body = body;
  return r;
}

HttpResponse html_response(std::string body) {
  HttpResponse r;
  r.content_type = "text/html; charset=utf-8";
  r.body = std::move(body);
  return r;
}

std::string text_of(const json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

std::string score_cell(const json& v) {
  return v.is_number() ? report::format_score(v.get<double>()) : std::string("—");
}

std::string time_cell(const json& v) {
  std::string t = text_of(v);
  if (t.size() >= 19) t = t.substr(0, 10) + " " + t.substr(11, 8);
  return escape(t);
}

// The page of `user_id` on `leaderboard`: the id percent-encoded (any byte but '/' reaches the
// route; an id holding '/' is refused by the policy, docs/serve.md).
std::string user_href(int64_t leaderboard, const std::string& user_id) {
  std::string href = "/user/" + std::to_string(leaderboard) + "/";
  append_percent_encoded(href, user_id);
  return href;
}

std::string user_link(int64_t leaderboard, const json& row) {
  const std::string id = text_of(row["user_id"]);
  const std::string name =
      row.contains("user_name") && !row["user_name"].is_null() ? text_of(row["user_name"]) : id;
  return "<a href=\"" + escape(user_href(leaderboard, id)) + "\">" +
         escape(name.empty() ? id : name) + "</a>";
}

std::string submission_link(const json& id) {
  const std::string s = text_of(id);
  return "<a href=\"/submission/" + escape(s) + "\">" + escape(s) + "</a>";
}

// An SVG document as an element of a page: from its <svg> on (no XML declaration).
std::string inline_svg(const std::string& svg) {
  const size_t at = svg.find("<svg");
  return at == std::string::npos ? std::string() : svg.substr(at);
}

std::string note_html(const json& rows) {
  for (const json& r : rows) {
    if (r.contains("note") && r["note"].is_string() && !r["note"].get<std::string>().empty()) {
      return "<p class=\"note\">" + escape(r["note"].get<std::string>()) + "</p>";
    }
  }
  return "";
}

// Near-duplicates listed on a submission's page (its twin has them all).
constexpr size_t kNearShown = 50;

int64_t id_of(const std::ssub_match& m) {
  const std::string s = m.str();
  if (s.empty() || s.size() > 18) throw NotFoundError("no such id: " + s);
  return std::stoll(s);
}

// ---- the site --------------------------------------------------------------------------------

// What /api/status says of the index.
struct IndexStatus {
  std::string state = "off";  // off, building, warming, ready, over the limit, failed, stale
  uint64_t rows = 0;
  uint64_t bytes = 0;  // the index's
  double seconds = 0;  // since the server started
  std::string error;
  uint64_t leaderboard_bytes = 0;  // the leaderboards' answers worked out in advance
};

// A local folder's *.parquet files (names, sizes, modification times), to see that they changed.
using FolderStamp = std::vector<std::tuple<std::string, uintmax_t, int64_t>>;

FolderStamp stamp_folder(const std::string& folder) {
  FolderStamp out;
  std::error_code ec;
  for (auto it = fs::directory_iterator(folder, ec); !ec && it != fs::directory_iterator();
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.starts_with(".") || !name.ends_with(".parquet")) continue;
    std::error_code e;
    const uintmax_t size = fs::file_size(it->path(), e);  // follows links (a pulled snapshot's)
    const auto time = fs::last_write_time(it->path(), e);
    out.emplace_back(name, e ? 0 : size,
                     e ? 0 : static_cast<int64_t>(time.time_since_epoch().count()));
  }
  std::sort(out.begin(), out.end());
  return out;
}

constexpr const char* kStaleNote =
    "The data changed since this server started (a file was added, removed or rewritten): the "
    "index and the pages worked out in advance were dropped, and every page reads the files "
    "(slower). Restart kbdata serve to index the data again.";

class Site {
 public:
  explicit Site(DataOptions data) : data_(std::move(data)) {
    if (data_.data) stamp_ = stamp_folder(*data_.data);
  }

  void set_status(const IndexStatus& status) {
    std::lock_guard lock(data_mutex_);
    if (!stale_) status_ = status;
  }

  // Loads from now on read `resident` where it serves them (not once the data changed).
  void set_resident(std::shared_ptr<const dataset::Resident> resident, const IndexStatus& status) {
    std::lock_guard lock(data_mutex_);
    if (stale_) return;
    data_.resident = std::move(resident);
    status_ = status;
  }

  [[nodiscard]] bool stale() const {
    std::lock_guard lock(data_mutex_);
    return stale_;
  }

  // Asked before every answer (ServerOptions::data_changed): whether the folder's files changed
  // since the last call. The first change drops the index (loads read the files; the status says
  // "stale"); every change drops what was worked out from the old files (the leaderboards' pages,
  // their list, the users' list), and the server drops its cached answers.
  bool data_changed() {
    if (!data_.data) return false;
    FolderStamp now = stamp_folder(*data_.data);
    {
      std::lock_guard lock(data_mutex_);
      if (now == stamp_) return false;
      stamp_ = std::move(now);
      stale_ = true;
      data_.resident.reset();
      status_ = {"stale", 0, 0, status_.seconds, "", 0};
    }
    std::lock_guard lock(memo_mutex_);
    ++generation_;
    leaderboards_.clear();
    trends_.clear();
    memo_bytes_ = 0;
    boards_.reset();
    users_.reset();
    return true;
  }

  void add_routes(serve::Server& server) {
    server.route("/static/style.css", [](const std::smatch&, const HttpRequest&) {
      HttpResponse r;
      r.content_type = "text/css; charset=utf-8";
      r.body = std::string(serve::style_sheet());
      return r;
    });
    server.route("/static/app.js", [](const std::smatch&, const HttpRequest&) {
      HttpResponse r;
      r.content_type = "text/javascript; charset=utf-8";
      r.body = std::string(serve::script());
      return r;
    });
    server.route(
        "/api/status",
        [this](const std::smatch&, const HttpRequest&) {
          return json_response(status_json().dump());
        },
        /*cacheable=*/false);
    server.route("/api/configs", [this](const std::smatch&, const HttpRequest&) {
      return json_response(configs_json());
    });
    server.route("/", [this](const std::smatch&, const HttpRequest&) { return home(); });
    server.route("/api/leaderboard/([0-9]+)", [this](const std::smatch& m, const HttpRequest&) {
      return json_response(leaderboard_json(id_of(m[1]))->data.dump());
    });
    server.route("/leaderboard/([0-9]+)", [this](const std::smatch& m, const HttpRequest&) {
      return leaderboard(id_of(m[1]));
    });
    server.route("/api/leaderboard/([0-9]+)/techniques",
                 [this](const std::smatch& m, const HttpRequest&) {
                   return json_response(trend_json(id_of(m[1]))->data.dump());
                 });
    server.route("/leaderboard/([0-9]+)/techniques",
                 [this](const std::smatch& m, const HttpRequest&) { return trend(id_of(m[1])); });
    server.route("/api/submission/([0-9]+)", [this](const std::smatch& m, const HttpRequest&) {
      return json_response(submission_json(id_of(m[1])).dump());
    });
    server.route("/submission/([0-9]+)", [this](const std::smatch& m, const HttpRequest&) {
      return submission(id_of(m[1]));
    });
    server.route("/api/user/([0-9]+)/([^/]+)", [this](const std::smatch& m, const HttpRequest& r) {
      return json_response(user_json(id_of(m[1]), m[2].str(), r).dump());
    });
    server.route("/user/([0-9]+)/([^/]+)", [this](const std::smatch& m, const HttpRequest& r) {
      return user(id_of(m[1]), m[2].str(), r);
    });
    server.route("/api/search", [this](const std::smatch&, const HttpRequest& r) {
      return json_response(search_json(query(r)).dump());
    });
    server.route("/search",
                 [this](const std::smatch&, const HttpRequest& r) { return search(query(r)); });
  }

 private:
  // One computation at a time: the commands load the folder with every core.
  template <typename Run>
  std::string command(Run run) {
    std::lock_guard lock(mutex_);
    return captured(run);
  }

  json status_json() const {
    std::lock_guard lock(data_mutex_);
    json out = {{"data", data_.data ? json(*data_.data) : json()},
                {"index", status_.state},
                {"rows", status_.rows},
                {"bytes", status_.bytes},
                {"seconds", status_.seconds},
                {"leaderboard_bytes", status_.leaderboard_bytes}};
    if (!status_.error.empty()) out["error"] = status_.error;
    if (stale_) out["note"] = kStaleNote;
    return out;
  }

  // A page of the site: the notice that the data changed since the server started, if they did.
  std::string page(std::string_view title, std::string_view kind, std::string_view body) const {
    return serve::page(title, kind, body, stale() ? kStaleNote : "");
  }

  std::string configs_json() {
    ConfigsOptions o;
    o.data = data();
    o.format = "json";
    return command([&](std::FILE* out, std::FILE* err) { run_configs(o, out, err); });
  }

  // A leaderboard the folder's files hold.
  struct Board {
    int64_t id = 0;
    std::string name;         // the problem name the files give it
    std::string note;         // the leaderboard's reliability note
    std::string config;       // the config of the first file holding it, else the file's name
    std::string config_note;  // that config's note
  };

  // The leaderboards the folder's files hold (dataset::read_contents: the files are the truth,
  // whatever the registry lists), each once, in the files' order and by id. Read once, and again
  // after the data changed.
  std::shared_ptr<const std::vector<Board>> boards() {
    uint64_t generation = 0;
    {
      std::lock_guard lock(memo_mutex_);
      if (boards_) return boards_;
      generation = generation_;
    }
    auto all = std::make_shared<std::vector<Board>>();
    const DataOptions options = data();
    const dataset::DataDir dir = scan_data(*options.data, nullptr);
    std::set<int64_t> seen;
    for (const dataset::FileContents& c : dataset::read_contents(dir)) {
      const dataset::ConfigInfo* config = c.file->config;
      for (const dataset::FileContents::Entry& e : c.entries) {
        if (!seen.insert(e.leaderboard_id).second) continue;
        all->push_back({e.leaderboard_id, e.problem_name,
                        std::string(dataset::note_for(e.leaderboard_id)),
                        config != nullptr ? config->name : c.file->name,
                        config != nullptr ? config->note : std::string()});
      }
    }
    std::lock_guard lock(memo_mutex_);
    if (generation == generation_ && !boards_) boards_ = all;
    return all;
  }

  [[nodiscard]] bool is_board(int64_t id) {
    const auto all = boards();
    return std::any_of(all->begin(), all->end(), [id](const Board& b) { return b.id == id; });
  }

  HttpResponse home() {
    const json configs = json::parse(configs_json());
    std::string body =
        "<p class=\"muted\">Data: " + escape(text_of(configs.value("data", json()))) + "</p>";
    body +=
        "<h2>Leaderboards</h2><table class=\"leaderboards\"><tr><th class=\"num\">id</th>"
        "<th>problem</th><th>config</th><th>note</th></tr>";
    for (const Board& b : *boards()) {
      const std::string id = std::to_string(b.id);
      body += "<tr class=\"leaderboard-row\"><td class=\"num\">" + id +
              "</td><td><a href=\"/leaderboard/" + id + "\">" + escape(b.name) + "</a></td><td>" +
              escape(b.config) + "</td><td>" + escape(b.config_note) + "</td></tr>";
    }
    // A local folder's listing gives the rows; an hf:// data set's the bytes (from the hub's tree).
    body +=
        "</table><h2>Configs</h2><table class=\"configs\"><tr><th>config</th><th>file</th>"
        "<th>family</th><th class=\"num\">rows</th><th class=\"num\">bytes</th></tr>";
    for (const json& c : configs.value("configs", json::array())) {
      if (!c.value("present", false)) continue;
      body += "<tr><td>" + escape(text_of(c.value("config", json()))) + "</td><td>" +
              escape(text_of(c.value("file", json()))) + "</td><td>" +
              escape(text_of(c.value("family", json()))) + "</td><td class=\"num\">" +
              escape(text_of(c.value("rows", json()))) + "</td><td class=\"num\">" +
              escape(text_of(c.value("size", json()))) + "</td></tr>";
    }
    body += "</table>";
    return html_response(page("KernelBot data", "home", body));
  }

  // A leaderboard's twin and chart, worked out once: the pages of a leaderboard run the heaviest
  // commands (a ranking with intervals, the records, the problem's audit, the weekly techniques).
  struct Computed {
    json data;
    std::string svg;
  };

  // memo[id], computed by `compute` when absent; kept only for the folder's leaderboards (so that
  // the memo holds at most two answers per leaderboard, whatever ids are asked for).
  template <typename Compute>
  std::shared_ptr<const Computed> remembered(
      std::map<int64_t, std::shared_ptr<const Computed>>& memo, int64_t id, Compute compute) {
    uint64_t generation = 0;
    {
      std::lock_guard lock(memo_mutex_);
      const auto it = memo.find(id);
      if (it != memo.end()) return it->second;
      generation = generation_;
    }
    auto computed = std::make_shared<Computed>();
    computed->data = compute(id, &computed->svg);
    if (!is_board(id)) return computed;
    const size_t bytes = computed->data.dump().size() + computed->svg.size();
    std::lock_guard lock(memo_mutex_);
    if (generation != generation_) return computed;  // made across a change of the data
    const auto [it, inserted] = memo.try_emplace(id, std::move(computed));
    if (inserted) memo_bytes_ += bytes;
    return it->second;
  }

  std::shared_ptr<const Computed> leaderboard_json(int64_t id) {
    return remembered(leaderboards_, id,
                      [this](int64_t i, std::string* svg) { return compute_leaderboard(i, svg); });
  }
  std::shared_ptr<const Computed> trend_json(int64_t id) {
    return remembered(trends_, id,
                      [this](int64_t i, std::string* svg) { return compute_trend(i, svg); });
  }

 public:
  // Works out every leaderboard's pages (after the index is ready, so that no page waits for
  // them), until `stop`. Returns the bytes the memo holds.
  uint64_t warm(const std::atomic<bool>& stop) {
    for (const Board& b : *boards()) {
      const int64_t id = b.id;
      if (stop || stale()) break;
      leaderboard_json(id);
      try {
        trend_json(id);
      } catch (const Error&) {
        // a leaderboard without code: its page says so when asked
      }
    }
    std::lock_guard lock(memo_mutex_);
    return memo_bytes_;
  }

 private:
  // The twin; `svg`, when given, gets the record curve.
  json compute_leaderboard(int64_t id, std::string* svg) {
    TopOptions top;
    top.data = data();
    top.leaderboard = id;
    top.limit = 0;
    top.uncertainty = true;
    top.format = "json";
    RecordsOptions records;
    records.data = data();
    records.leaderboard = id;
    records.format = "json";
    records.svg = svg;
    json out;
    out["top"] = json::parse(command([&](std::FILE* o, std::FILE* e) { run_top(top, o, e); }));
    out["records"] =
        json::parse(command([&](std::FILE* o, std::FILE* e) { run_records(records, o, e); }));
    std::string problem;
    for (const json& r : out["top"]) problem = text_of(r["problem_name"]);
    out["flags"] = json::array();
    if (!problem.empty()) {
      AuditOptions audit;
      audit.data = data();
      audit.rows.problem = problem;
      audit.min_verdict = "suspicious";
      audit.format = "json";
      out["flags"] =
          json::parse(command([&](std::FILE* o, std::FILE* e) { run_audit(audit, o, e); }));
    }
    return out;
  }

  HttpResponse leaderboard(int64_t id) {
    const std::shared_ptr<const Computed> computed = leaderboard_json(id);
    const json& data = computed->data;
    const std::string& svg = computed->svg;
    std::map<std::string, std::string> flagged;  // submission id -> verdict
    std::map<std::string, std::string> flagged_users;
    for (const json& f : data["flags"]) {
      flagged[text_of(f["submission_id"])] = text_of(f["verdict"]);
      flagged_users[text_of(f["user_id"])] = text_of(f["verdict"]);
    }
    std::string problem = "leaderboard " + std::to_string(id);
    for (const json& r : data["top"]) problem = text_of(r["problem_name"]);
    std::string body = note_html(data["top"]);
    std::map<std::string, std::vector<const json*>> by_runner;
    for (const json& r : data["top"]) by_runner[text_of(r["runner"])].push_back(&r);
    for (const auto& [runner, rows] : by_runner) {
      // The runner is a name; its GPU, when the hardware table knows it, is shown beside it.
      const std::optional<dataset::RunnerGpu> hardware = dataset::gpu_of_runner(runner);
      const std::string gpu = hardware && hardware->gpu != runner
                                  ? " (" + std::string(hardware->gpu) + ")"
                                  : std::string();
      body += "<h2>Ranking" + (runner.empty() ? std::string() : " on " + escape(runner) + gpu) +
              "</h2><table class=\"ranking\"><tr><th class=\"num\">rank</th><th>user</th>"
              "<th class=\"num\">score</th><th class=\"num\">95% interval</th>"
              "<th class=\"num\">possible ranks</th><th>submission</th><th>submitted</th>"
              "<th>audit</th></tr>";
      if (!rows.empty() && (*rows.front())["sigma"].is_number()) {
        char sigma[64];
        std::snprintf(sigma, sizeof sigma, "%.4f", (*rows.front())["sigma"].get<double>());
        body += "<p class=\"noise\">Measured noise: sigma " + std::string(sigma) +
                " (the sd of log(score) of one measurement; kbdata noise).</p>";
      }
      for (const json* r : rows) {
        const auto flag = flagged_users.find(text_of((*r)["user_id"]));
        body += "<tr class=\"rank-row\"><td class=\"num\">" + text_of((*r)["rank"]) + "</td><td>" +
                user_link(id, *r) + "</td><td class=\"num\">" + score_cell((*r)["score"]) +
                "</td><td class=\"num\">" + score_cell((*r)["score_lo"]) + " – " +
                score_cell((*r)["score_hi"]) + "</td><td class=\"num\">" +
                text_of((*r)["rank_best"]) + "–" + text_of((*r)["rank_worst"]) + "</td><td>" +
                submission_link((*r)["submission_id"]) + "</td><td>" +
                time_cell((*r)["submission_time"]) + "</td><td>" +
                (flag == flagged_users.end()
                     ? std::string("<span class=\"verdict verdict-clean\">clean</span>")
                     : "<span class=\"verdict verdict-" + escape(flag->second) + "\">user has " +
                           escape(flag->second) + " rows</span>") +
                "</td></tr>";
      }
      body += "</table>";
    }
    if (!svg.empty())
      body += "<h2>Record curve</h2><figure class=\"chart\">" + inline_svg(svg) + "</figure>";
    body += "<p><a href=\"/leaderboard/" + std::to_string(id) +
            "/techniques\">Techniques week by week</a>: the languages and features of the week's "
            "submissions, users and top</p>";
    if (!data["flags"].empty()) {
      body +=
          "<h2>Flagged by the audit</h2><table class=\"flags\"><tr><th>submission</th>"
          "<th>user</th><th>verdict</th><th>rules</th></tr>";
      for (const json& f : data["flags"]) {
        body += "<tr><td>" + submission_link(f["submission_id"]) + "</td><td>" + user_link(id, f) +
                "</td><td><span class=\"verdict verdict-" + escape(text_of(f["verdict"])) + "\">" +
                escape(text_of(f["verdict"])) + "</span></td><td>" + escape(text_of(f["rules"])) +
                "</td></tr>";
      }
      body += "</table>";
    }
    if (data["top"].empty()) body += "<p>No qualifying submission on this leaderboard.</p>";
    return html_response(page(problem, "leaderboard", body));
  }

  // The problem name of leaderboard `id` from the configs; NotFoundError when the folder has none.
  std::string problem_of(int64_t id) {
    for (const Board& b : *boards()) {
      if (b.id == id) return b.name;
    }
    throw NotFoundError("no leaderboard " + std::to_string(id) + " in the data");
  }

  // `kbdata techniques --trend -p PROBLEM --format json`; `svg` gets its small multiples.
  json compute_trend(int64_t id, std::string* svg) {
    TechniquesOptions o;
    o.data = data();
    o.rows.problem = problem_of(id);
    o.trend = true;
    o.format = "json";
    o.svg = svg;
    return json::parse(command([&](std::FILE* f, std::FILE* e) { run_techniques(o, f, e); }));
  }

  HttpResponse trend(int64_t id) {
    const std::shared_ptr<const Computed> computed = trend_json(id);
    const json& rows = computed->data;
    const std::string& svg = computed->svg;
    std::string body = "<p><a href=\"/leaderboard/" + std::to_string(id) + "\">the ranking</a></p>";
    if (!svg.empty()) body += "<figure class=\"chart\">" + inline_svg(svg) + "</figure>";
    body +=
        "<table class=\"trend\"><tr><th class=\"num\">week</th><th>kind</th><th>tag</th>"
        "<th class=\"num\">submissions</th><th class=\"num\">users</th>"
        "<th class=\"num\">top</th></tr>";
    for (const json& r : rows) {
      auto share = [](const json& v) {
        char b[32];
        std::snprintf(b, sizeof b, "%.0f%%", v.is_number() ? 100 * v.get<double>() : 0.0);
        return std::string(b);
      };
      body += "<tr class=\"trend-row\"><td class=\"num\">" + text_of(r["week"]) + "</td><td>" +
              escape(text_of(r["kind"])) + "</td><td>" + escape(text_of(r["tag"])) +
              "</td><td class=\"num\">" + share(r["submissions_share"]) +
              "</td><td class=\"num\">" + share(r["users_share"]) + "</td><td class=\"num\">" +
              share(r["top_share"]) + "</td></tr>";
    }
    body += "</table>";
    return html_response(
        page("Techniques on " + problem_of(id) + ", week by week", "techniques", body));
  }

  // `kbdata show ID --format json`: the submission's rows, with code. NotFoundError without one.
  json show_json(int64_t id) {
    ShowOptions show;
    show.data = data();
    show.submission_id = id;
    show.format = "json";
    return json::parse(command([&](std::FILE* o, std::FILE* e) { run_show(show, o, e); }));
  }

  json submission_json(int64_t id) {
    json out;
    out["rows"] = show_json(id);
    out["audit"] = json::array();
    out["techniques"] = json::array();
    out["near_duplicates"] = json::array();
    if (!out["rows"].empty()) {
      AuditOptions audit;
      audit.data = data();
      audit.rows.problem = text_of(out["rows"][0]["problem_name"]);
      audit.rows.user = text_of(out["rows"][0]["user_id"]);
      audit.with_evidence = true;
      audit.format = "json";
      for (const json& a :
           json::parse(command([&](std::FILE*o, std::FILE*e) { run_audit(audit, o, e); }))) {
        if (a["submission_id"] == id) out["audit"].push_back(a);
      }
      TechniquesOptions techniques;
      techniques.data = data();
      techniques.rows = audit.rows;
      techniques.format = "json";
      for (const json& t : json::parse(
               command([&](std::FILE*o, std::FILE*e) { run_techniques(techniques, o, e); }))) {
        if (t["submission_id"] == id) out["techniques"].push_back(t);
      }
      ShowOptions near;
      near.data = data();
      near.submission_id = id;
      near.near_duplicates = true;
      near.format = "json";
      out["near_duplicates"] =
          json::parse(command([&](std::FILE* o, std::FILE* e) { run_show(near, o, e); }));
    }
    return out;
  }

  HttpResponse submission(int64_t id) {
    const json data = submission_json(id);
    if (data["rows"].empty()) throw NotFoundError("no submission " + std::to_string(id));
    const json& s = data["rows"][0];
    const int64_t leaderboard = s["leaderboard_id"].get<int64_t>();
    std::string body = note_html(data["rows"]) + "<dl class=\"meta\">";
    auto item = [&body](const std::string& k, const std::string& v_html) {
      body += "<dt>" + escape(k) + "</dt><dd>" + v_html + "</dd>";
    };
    item("problem", "<a href=\"/leaderboard/" + std::to_string(leaderboard) + "\">" +
                        escape(text_of(s["problem_name"])) + "</a> (" +
                        std::to_string(leaderboard) + ")");
    item("user", user_link(leaderboard, s));
    item("submitted", time_cell(s["submission_time"]));
    item("file", escape(text_of(s["file_name"])));
    item("status", escape(text_of(s["status"])));
    for (const json& r : data["rows"]) {
      item("score" + (r["runner"].is_null() ? std::string() : " on " + text_of(r["runner"])),
           escape(score_cell(r["score"])) + (r["passed"] == true ? " (passed)" : ""));
    }
    item("code_id", escape(text_of(s["code_id"])));
    std::string verdict = "clean";
    std::string rules;
    for (const json& a : data["audit"]) {
      verdict = text_of(a["verdict"]);
      rules = text_of(a["rules"]);
    }
    for (const json& t : data["techniques"]) {
      item("language", escape(text_of(t["language"])) + " <span class=\"muted\">(all: " +
                           escape(text_of(t["languages_all"])) + ")</span>");
      item("features", escape(text_of(t["features"])));
      item("size", escape(text_of(t["lines"])) + " lines, " + escape(text_of(t["kernels"])) +
                       " kernels, " + escape(text_of(t["autotune_configs"])) +
                       " autotune configs, " + escape(text_of(t["shape_branches"])) +
                       " shape branches");
      break;  // one row per runner, the same code
    }
    item("audit", "<span class=\"verdict verdict-" + escape(verdict) + "\">" + escape(verdict) +
                      "</span>" + (rules.empty() ? "" : " " + escape(rules)));
    body += "</dl>";
    for (const json& a : data["audit"]) {
      const std::string evidence = text_of(a.value("evidence", json()));
      if (evidence.empty()) continue;
      body += "<h2>Audit evidence</h2><pre class=\"evidence\">" + escape(evidence) + "</pre>";
    }
    const json& near = data["near_duplicates"];
    body += "<h2>Near-duplicates</h2>";
    if (near.empty()) {
      body +=
          "<p class=\"muted\">No other submission of this leaderboard has code estimated at least "
          "80% similar (kbdata show --near-duplicates).</p>";
    } else {
      body += "<p class=\"muted\">" + std::to_string(near.size()) +
              " submission(s) of this leaderboard whose code is estimated at least 80% similar "
              "(Jaccard of the 5-byte shingles kbdata dedup compares)" +
              (near.size() > kNearShown ? "; the " + std::to_string(kNearShown) + " most similar"
                                        : "") +
              ":</p><table class=\"near\"><tr><th>submission</th><th>user</th><th>submitted</th>"
              "<th class=\"num\">score</th><th class=\"num\">similarity</th><th></th></tr>";
      for (size_t i = 0; i < near.size() && i < kNearShown; ++i) {
        const json& r = near[i];
        char similarity[32];
        std::snprintf(similarity, sizeof similarity, "%.0f%%", 100 * r["similarity"].get<double>());
        const bool same_user = text_of(r["user_id"]) == text_of(s["user_id"]);
        body += "<tr class=\"near-row\"><td>" + submission_link(r["submission_id"]) + "</td><td>" +
                user_link(leaderboard, r) + "</td><td>" + time_cell(r["submission_time"]) +
                "</td><td class=\"num\">" + score_cell(r["score"]) + "</td><td class=\"num\">" +
                similarity + "</td><td>" +
                (same_user ? "<a href=\"" + escape(user_href(leaderboard, text_of(s["user_id"]))) +
                                 "?a=" + text_of(r["submission_id"]) +
                                 "&amp;b=" + std::to_string(id) + "#diff\">diff</a>"
                           : std::string("another user")) +
                "</td></tr>";
      }
      body += "</table>";
    }
    body += "<h2>Code</h2>" +
            (s["code"].is_string()
                 ? serve::highlighted_code(s["code"].get<std::string>(), text_of(s["file_name"]))
                 : std::string("<p class=\"muted\">No code in the data.</p>"));
    return html_response(page("Submission " + std::to_string(id), "submission", body));
  }

  // The search text, as UTF-8: bytes that are no UTF-8 (q=%ff) are searched, and echoed, as
  // U+FFFD, as the data's own text is shown.
  static std::string query(const HttpRequest& r) {
    auto it = r.params.find("q");
    const std::string raw = it == r.params.end() ? "" : it->second;
    if (raw.size() > 200) throw UsageError("a search of more than 200 bytes");
    std::string q;
    append_utf8_repaired(q, raw);
    return q;
  }

  static std::optional<int64_t> param_id(const HttpRequest& r, const char* name) {
    auto it = r.params.find(name);
    if (it == r.params.end() || it->second.empty() || it->second.size() > 18 ||
        it->second.find_first_not_of("0123456789") != std::string::npos) {
      return std::nullopt;
    }
    return std::stoll(it->second);
  }

  std::optional<std::string> code_of(int64_t submission_id, std::string* file_name) {
    for (const json& r : show_json(submission_id)) {
      if (r["code"].is_string()) {
        if (file_name != nullptr) *file_name = text_of(r["file_name"]);
        return r["code"].get<std::string>();
      }
    }
    return std::nullopt;
  }

  // The progression, and the diff between two of the user's submissions: `a` and `b` when given,
  // else the last improvement (the best before it against the new best).
  json user_json(int64_t leaderboard, const std::string& user, const HttpRequest& request,
                 std::string* svg = nullptr) {
    ProgressionOptions o;
    o.data = data();
    o.user = user;
    o.leaderboard = leaderboard;
    o.format = "json";
    o.svg = svg;
    json out;
    out["progression"] =
        json::parse(command([&](std::FILE* f, std::FILE* e) { run_progression(o, f, e); }));
    std::optional<int64_t> a = param_id(request, "a");
    std::optional<int64_t> b = param_id(request, "b");
    if (!a || !b) {
      std::vector<int64_t> bests;
      for (const json& r : out["progression"]) {
        if (r["improved"] == true) bests.push_back(r["submission_id"].get<int64_t>());
      }
      if (bests.size() >= 2) {
        a = bests[bests.size() - 2];
        b = bests.back();
      }
    }
    out["diff"] = nullptr;
    if (a && b) {
      std::string name;
      const std::optional<std::string> before = code_of(*a, nullptr);
      const std::optional<std::string> after = code_of(*b, &name);
      if (before && after) {
        out["diff"] = {{"a", *a}, {"b", *b}, {"diff", pairs::unified_diff(*before, *after, name)}};
      }
    }
    return out;
  }

  HttpResponse user(int64_t leaderboard, const std::string& user_id, const HttpRequest& request) {
    std::string svg;
    const json data = user_json(leaderboard, user_id, request, &svg);
    if (data["progression"].empty()) throw NotFoundError("no submission of that user there");
    const json& first = data["progression"][0];
    std::string name = text_of(first["user_name"]);
    if (name.empty()) name = "user " + text_of(first["user_id"]);
    std::string body = note_html(data["progression"]);
    if (!svg.empty()) body += "<figure class=\"chart\">" + inline_svg(svg) + "</figure>";
    body +=
        "<h2>Submissions</h2><table class=\"submissions\"><tr><th>submitted</th>"
        "<th>submission</th><th>runner</th><th>status</th><th class=\"num\">score</th>"
        "<th class=\"num\">best</th><th>new best</th></tr>";
    int64_t previous_best = 0;
    for (const json& r : data["progression"]) {
      const bool improved = r["improved"] == true;
      std::string diff_link;
      if (improved && previous_best != 0) {
        diff_link = " <a href=\"?a=" + std::to_string(previous_best) +
                    "&amp;b=" + text_of(r["submission_id"]) + "#diff\">diff</a>";
      }
      body += "<tr class=\"submission-row\"><td>" + time_cell(r["submission_time"]) + "</td><td>" +
              submission_link(r["submission_id"]) + "</td><td>" + escape(text_of(r["runner"])) +
              "</td><td>" + escape(text_of(r["status"])) + "</td><td class=\"num\">" +
              score_cell(r["score"]) + "</td><td class=\"num\">" + score_cell(r["best"]) +
              "</td><td>" + (improved ? "yes" + diff_link : "") + "</td></tr>";
      if (improved) previous_best = r["submission_id"].get<int64_t>();
    }
    body += "</table>";
    // Any two versions: the script submits the form when a choice changes; without it, the button.
    std::string options_a, options_b;
    const std::string a = data["diff"].is_null() ? "" : text_of(data["diff"]["a"]);
    const std::string b = data["diff"].is_null() ? "" : text_of(data["diff"]["b"]);
    for (const json& r : data["progression"]) {
      const std::string sid = text_of(r["submission_id"]);
      const std::string label =
          escape(sid + " · " + time_cell(r["submission_time"]) + " · " + score_cell(r["score"]));
      options_a += "<option value=\"" + escape(sid) + "\"" + (sid == a ? " selected" : "") + ">" +
                   label + "</option>";
      options_b += "<option value=\"" + escape(sid) + "\"" + (sid == b ? " selected" : "") + ">" +
                   label + "</option>";
    }
    body += "<form class=\"compare\" method=\"get\" action=\"#diff\">Compare <select name=\"a\">" +
            options_a + "</select> with <select name=\"b\">" + options_b +
            "</select> <button>Diff</button></form>";
    if (!data["diff"].is_null()) {
      const json& d = data["diff"];
      auto view = request.params.find("view");
      const bool split = view != request.params.end() && view->second == "split";
      const std::string pair = "?a=" + text_of(d["a"]) + "&amp;b=" + text_of(d["b"]);
      body += "<h2 id=\"diff\">Diff: " + submission_link(d["a"]) + " → " + submission_link(d["b"]) +
              "</h2><p class=\"views\">" +
              (split ? "<a href=\"" + pair + "#diff\">unified</a> · side by side"
                     : "unified · <a href=\"" + pair + "&amp;view=split#diff\">side by side</a>") +
              "</p>" +
              (split ? serve::diff_table_split(text_of(d["diff"]))
                     : serve::diff_table(text_of(d["diff"])));
    }
    return html_response(page(name + " on " + text_of(first["problem_name"]), "user", body));
  }

  // Submission and leaderboard ids equal to the text, and the leaderboards and users whose names or
  // ids hold it (ASCII case ignored), at most 50 of each.
  json search_json(const std::string& q) {
    json out = {{"query", q},
                {"submissions", json::array()},
                {"leaderboards", json::array()},
                {"users", json::array()}};
    if (q.empty()) return out;
    auto holds = [&q](const std::string& text) {
      auto it = std::search(text.begin(), text.end(), q.begin(), q.end(), [](char x, char y) {
        return std::tolower(static_cast<unsigned char>(x)) ==
               std::tolower(static_cast<unsigned char>(y));
      });
      return it != text.end();
    };
    const bool number = q.size() <= 18 && q.find_first_not_of("0123456789") == std::string::npos;
    if (number) {
      try {
        for (const json& r : show_json(std::stoll(q))) {
          out["submissions"].push_back({{"submission_id", r["submission_id"]},
                                        {"problem_name", r["problem_name"]},
                                        {"user_name", r["user_name"]},
                                        {"runner", r["runner"]}});
        }
      } catch (const NotFoundError&) {
        // no such submission: the other results only
      }
    }
    for (const Board& b : *boards()) {
      if (out["leaderboards"].size() >= 50) break;
      if (holds(b.name) || (number && std::to_string(b.id) == q)) {
        json lb = {{"id", b.id}, {"name", b.name}};
        if (!b.note.empty()) lb["note"] = b.note;
        out["leaderboards"].push_back(std::move(lb));
      }
    }
    for (const UserEntry& u : *users()) {
      if (out["users"].size() >= 50) break;
      if (holds(u.user_id) || (u.user_name && holds(*u.user_name))) {
        out["users"].push_back({{"leaderboard_id", u.leaderboard_id},
                                {"problem_name", u.problem_name},
                                {"user_id", u.user_id},
                                {"user_name", u.user_name ? json(*u.user_name) : json()}});
      }
    }
    return out;
  }

  HttpResponse search(const std::string& q) {
    const json data = search_json(q);
    std::string body = "<ul class=\"results\">";
    for (const json& s : data["submissions"]) {
      body += "<li>submission " + submission_link(s["submission_id"]) + " on " +
              escape(text_of(s["problem_name"])) + "</li>";
    }
    for (const json& lb : data["leaderboards"]) {
      body += "<li>leaderboard <a href=\"/leaderboard/" + text_of(lb["id"]) + "\">" +
              escape(text_of(lb["name"])) + "</a></li>";
    }
    for (const json& u : data["users"]) {
      body += "<li>user " + user_link(u["leaderboard_id"].get<int64_t>(), u) + " on " +
              escape(text_of(u["problem_name"])) + "</li>";
    }
    body += "</ul>";
    if (data["submissions"].empty() && data["leaderboards"].empty() && data["users"].empty()) {
      body += "<p>Nothing found.</p>";
    }
    return html_response(page("Search: " + q, "search", body));
  }

  struct UserEntry {
    int64_t leaderboard_id = 0;
    std::string problem_name;
    std::string user_id;
    std::optional<std::string> user_name;
  };

  // Every (leaderboard, user) of the folder, read once (no code) and kept, and again after the
  // data changed: about 100 bytes each. Their texts as the commands show them (ill-formed UTF-8
  // repaired), so that they can be searched and sent as JSON.
  std::shared_ptr<const std::vector<UserEntry>> users() {
    uint64_t generation = 0;
    {
      std::lock_guard lock(memo_mutex_);
      if (users_) return users_;
      generation = generation_;
    }
    std::lock_guard command_lock(mutex_);
    const DataOptions options = data();
    dataset::DataDir dir = scan_data(*options.data, nullptr);
    dir.resident = options.resident;
    dataset::LoadOptions load;
    load.threads = options.threads.value_or(0);
    load.with_details = false;
    std::set<std::pair<int64_t, std::string>> seen;
    dataset::LoadStats stats;
    auto all = std::make_shared<std::vector<UserEntry>>();
    auto shown = [](const std::string& text) {
      std::string out;
      append_utf8_repaired(out, text);
      return out;
    };
    dataset::load_dir(
        dir, load,
        [&](dataset::Submission&& s) {
          if (!seen.insert({s.leaderboard_id, s.user_id}).second) return;
          all->push_back({s.leaderboard_id, shown(s.problem_name), shown(s.user_id),
                          s.user_name ? std::optional(shown(*s.user_name)) : std::nullopt});
        },
        stats);
    std::lock_guard lock(memo_mutex_);
    if (generation == generation_ && !users_) users_ = all;
    return all;
  }

  // The options the commands get: the folder, and its index once built.
  DataOptions data() const {
    std::lock_guard lock(data_mutex_);
    return data_;
  }

  // What was worked out from the files, dropped when they change (generation_ counts the
  // changes: what was made across one is not kept).
  std::mutex memo_mutex_;
  uint64_t generation_ = 0;
  std::shared_ptr<const std::vector<Board>> boards_;
  std::map<int64_t, std::shared_ptr<const Computed>> leaderboards_;
  std::map<int64_t, std::shared_ptr<const Computed>> trends_;
  uint64_t memo_bytes_ = 0;
  std::shared_ptr<const std::vector<UserEntry>> users_;
  DataOptions data_;
  mutable std::mutex data_mutex_;
  IndexStatus status_;
  FolderStamp stamp_;   // the folder's files when last looked at
  bool stale_ = false;  // the files changed since the server started
  std::mutex mutex_;
};

// A note of the index's progress on stderr: one that cannot be written (stderr closed) is lost,
// which changes nothing else (SIGPIPE is ignored while serving).
void say(std::FILE* err, const std::string& line) {
  std::fputs(line.c_str(), err);
  std::fflush(err);
}

// ---- signals ----------------------------------------------------------------------------

// SIGINT, SIGTERM and SIGHUP blocked in every thread started after this (the server's); a thread
// of its own waits for one and stops the server.
sigset_t stop_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  return set;
}

}  // namespace

void run_serve(const ServeOptions& options, std::FILE* out, std::FILE* err) {
  if (options.index_memory_mb < 0) {
    throw UsageError("--index-memory " + std::to_string(options.index_memory_mb) +
                     ": expected 0 (no index) or more MB");
  }
  if (options.port < 0 || options.port > 65535) {
    throw UsageError("--port " + std::to_string(options.port) + ": expected 0 to 65535");
  }
  const dataset::DataDir dir = open_data_dir(options.data, err);
  DataOptions data = options.data;
  data.data = dir.path;
  Site site(data);
  serve::ServerOptions server_options;
  server_options.bind = options.bind;
  server_options.port = options.port;
  server_options.data_changed = [&site] { return site.data_changed(); };
  server_options.log = [err](const std::string& line) { say(err, "kbdata: " + line + "\n"); };
  // A closed stdout or stderr, or a client gone mid-answer, must not end the server.
  ::signal(SIGPIPE, SIG_IGN);
  const sigset_t signals = stop_signals();
  ::pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  serve::Server server(server_options, load_backend());
  site.add_routes(server);
  const int port = server.bind();
  const std::string host =
      options.bind.find(':') != std::string::npos ? "[" + options.bind + "]" : options.bind;
  if (!serve::is_loopback(options.bind)) {
    report::write_all(err, "kbdata: WARNING: serving on " + options.bind +
                               ", not only this machine: anyone who can reach it on port " +
                               std::to_string(port) +
                               " can read this data (--bind 127.0.0.1 keeps it local)\n");
  }
  report::write_all(out, "kbdata: serving " + dir.path + " at http://" + host + ":" +
                             std::to_string(port) + "/\n");
  std::fflush(out);
  // The index: built while the server already answers (from the files until it is ready).
  std::atomic<bool> stopping = false;
  std::thread indexer;
  if (options.index_memory_mb > 0) {
    site.set_status({"building", 0, 0, 0, ""});
    indexer = std::thread([&, dir] {
      const auto start = std::chrono::steady_clock::now();
      auto seconds = [&start] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      };
      const uint64_t limit = static_cast<uint64_t>(options.index_memory_mb) << 20;
      try {
        const std::vector<dataset::PrepareStep> steps = {
            analysis::NoiseBuilder::prepare_step(),
            audit::audit_step(audit::folder_references(dir)), query::techniques_step(),
            analysis::near_duplicate_step()};
        uint64_t stopped_at = 0;
        std::shared_ptr<const dataset::Resident> resident = dataset::Resident::build(
            dir, steps, data.threads.value_or(0), limit,
            [&](uint64_t rows) {
              site.set_status({"building", rows, 0, seconds(), ""});
              return !stopping.load() && !site.stale();
            },
            &stopped_at);
        if (stopping || site.stale()) return;
        if (resident == nullptr) {
          site.set_status({"over the limit", stopped_at, limit, seconds(), ""});
          say(err, "kbdata: note: the index would pass --index-memory " +
                       std::to_string(options.index_memory_mb) + " MB after " +
                       std::to_string(stopped_at) + " rows; pages read the files (slower)\n");
          return;
        }
        IndexStatus ready{"warming", resident->rows(), resident->bytes(), seconds(), ""};
        site.set_resident(std::move(resident), ready);
        ::malloc_trim(0);  // the build's batches of code, freed, go back to the system
        ready.leaderboard_bytes = site.warm(stopping);
        if (stopping || site.stale()) return;
        ready.state = "ready";
        ready.seconds = seconds();
        site.set_status(ready);
        char line[200];
        std::snprintf(line, sizeof line,
                      "kbdata: index ready: %llu rows, %.0f MB, and every leaderboard's pages "
                      "(%.1f MB), in %.1f s\n",
                      static_cast<unsigned long long>(ready.rows),
                      static_cast<double>(ready.bytes) / (1 << 20),
                      static_cast<double>(ready.leaderboard_bytes) / (1 << 20), ready.seconds);
        say(err, line);
      } catch (const std::exception& e) {
        site.set_status({"failed", 0, 0, seconds(), e.what()});
        say(err, std::string("kbdata: the index could not be built (pages read the files): ") +
                     e.what() + "\n");
      }
    });
  }
  std::thread watcher([&server, signals] {
    int signal = 0;
    ::sigwait(&signals, &signal);
    server.stop();
  });
  auto finish = [&] {
    ::pthread_kill(watcher.native_handle(), SIGTERM);  // wakes it if the server stopped by itself
    watcher.join();
    stopping = true;
    if (indexer.joinable()) indexer.join();
  };
  try {
    server.run();
  } catch (...) {
    finish();
    throw;
  }
  finish();
}

void add_serve_command(CLI::App& app, Commands& commands) {
  auto options = std::make_shared<ServeOptions>();
  CLI::App* cmd = app.add_subcommand(
      "serve",
      "A local web explorer of the data: leaderboards with their rankings, intervals, records and\n"
      "audit flags, each submission with its code, evidence and near-duplicates; every page has a\n"
      "JSON twin under /api/ (docs/serve.md). Builds an in-memory index of the folder at start-up\n"
      "(pages answer from the files until it is ready; /api/status). Runs until interrupted");
  add_data_options(*cmd, options->data);
  cmd->add_option("--port", options->port, "Port to listen on (0: a free one, printed)")
      ->capture_default_str();
  cmd->add_option("--index-memory", options->index_memory_mb,
                  "MB the in-memory index of the rows may take (every row without its code, and "
                  "what the noise, audit and techniques made of the code); 0: no index, every page "
                  "reads the files")
      ->capture_default_str();
  cmd->add_option("--bind", options->bind,
                  "Address to listen on; anything but loopback exposes the data to the network")
      ->capture_default_str();
  cmd->footer(
      "\nExamples:\n"
      "  kbdata serve\n"
      "  kbdata serve --data ~/kernelbot --port 8080\n"
      "  kbdata serve --index-memory 0\n"
      "\nExit status: 0 stopped by a signal, 1 the data could not be read or the port bound, 2 "
      "wrong usage.");
  commands.push_back({cmd, [options] { run_serve(*options, stdout, stderr); }});
}

}  // namespace kbdata::cli
