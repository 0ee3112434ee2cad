#include "serve/site.h"

#include <fmt/format.h>

#include <algorithm>
#include <any>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "analysis/noise.h"
#include "audit/folder_audit.h"
#include "common/error.h"
#include "common/text.h"
#include "dataset/hardware.h"
#include "dataset/leaderboards_file.h"
#include "dataset/loader.h"
#include "dataset/registry.h"
#include "pairs/diff.h"
#include "plot/small_multiples.h"
#include "plot/svg_chart.h"
#include "query/audit.h"
#include "query/charts.h"
#include "query/noise.h"
#include "query/place.h"
#include "query/progression.h"
#include "query/records.h"
#include "query/show.h"
#include "query/techniques.h"
#include "query/top.h"
#include "report/submissions.h"
#include "report/text.h"
#include "report/writer.h"
#include "serve/html.h"

namespace kbdata::serve {
namespace {

namespace fs = std::filesystem;
// The documents of the site itself (status, search, a diff); a twin's answers are the writer's.
using json = nlohmann::ordered_json;
using result::Cell;

constexpr const char* kStaleNote =
    "The data changed since this server started (a file was added, removed or rewritten): the "
    "index and the pages worked out in advance were dropped, and every page reads the files "
    "(slower). Restart kbdata serve to index the data again.";

// Near-duplicates listed on a submission's page (its twin has them all).
constexpr size_t kNearShown = 50;

// The rows of an answer as a page reads them: cells by column name. The twin is the same answer
// rendered by the writer (report::json_text).
class Rows {
 public:
  Rows() = default;
  explicit Rows(result::ResultTable& table) {
    for (size_t i = 0; i < table.columns().size(); ++i) index_[table.columns()[i].name] = i;
    table.visit([](const std::string&) {},
                [&](std::vector<Cell>&& cells, const result::ResultTable::Leaderboard* lb) {
                  rows_.push_back(std::move(cells));
                  leaderboards_.push_back(lb != nullptr ? lb->id : -1);
                });
  }
  [[nodiscard]] size_t size() const { return rows_.size(); }
  [[nodiscard]] bool empty() const { return rows_.empty(); }
  // The cell of `column` in row `row`; null for a column the answer does not have.
  [[nodiscard]] const Cell& at(size_t row, std::string_view column) const {
    static const Cell kNull;
    const auto it = index_.find(std::string(column));
    return it == index_.end() ? kNull : rows_[row][it->second];
  }
  // The leaderboard whose scores row `row` shows, -1 when it names none.
  [[nodiscard]] int64_t leaderboard(size_t row) const { return leaderboards_[row]; }

 private:
  std::unordered_map<std::string, size_t> index_;
  std::vector<std::vector<Cell>> rows_;
  std::vector<int64_t> leaderboards_;
};

// Text from the data as the writer shows it: ill-formed UTF-8 repaired (U+FFFD).
std::string shown(std::string_view text) {
  std::string out;
  append_utf8_repaired(out, text);
  return out;
}

// A cell as text: "" for null, digits for an integer, the (repaired) text of a string.
std::string text_of(const Cell& cell) {
  if (const auto* s = std::get_if<std::string>(&cell)) return shown(*s);
  if (const auto* i = std::get_if<int64_t>(&cell)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&cell)) return report::double_text(*d);
  if (const auto* b = std::get_if<bool>(&cell)) return *b ? "true" : "false";
  return "";
}

std::string optional_text(const std::optional<std::string>& text) {
  return text ? shown(*text) : std::string();
}

std::string score_cell(const std::optional<double>& v) {
  return v ? report::format_score(*v) : std::string("—");
}

std::string score_cell(const Cell& cell) {
  if (std::holds_alternative<std::monostate>(cell)) return "—";
  return html_cell(cell, {"score", result::ColumnType::SCORE});
}

// "YYYY-MM-DD HH:MM:SS" (UTC), "" for null.
std::string time_cell(std::optional<int64_t> micros) {
  return micros ? escape(report::people_time_text(*micros)) : std::string();
}

std::string time_cell(const Cell& cell) {
  return html_cell(cell, {"submission_time", result::ColumnType::TIMESTAMP});
}

HttpResponse json_response(std::string body) {
  HttpResponse r;
  r.content_type = "application/json; charset=utf-8";
  r.body = std::move(body);
  return r;
}

HttpResponse html_response(std::string body) {
  HttpResponse r;
  r.content_type = "text/html; charset=utf-8";
  r.body = std::move(body);
  return r;
}

// The page of `user_id` on `leaderboard`: the id percent-encoded (any byte but '/' reaches the
// route; an id holding '/' is refused by the policy, docs/serve.md).
std::string user_href(int64_t leaderboard, const std::string& user_id) {
  std::string href = "/user/" + std::to_string(leaderboard) + "/";
  append_percent_encoded(href, user_id);
  return href;
}

// A link to the user's page, named by the user's name, else the id (both as shown).
std::string user_link(int64_t leaderboard, const std::string& id,
                      const std::optional<std::string>& name) {
  const std::string label = name && !name->empty() ? *name : id;
  return "<a href=\"" + escape(user_href(leaderboard, id)) + "\">" + escape(label) + "</a>";
}

std::string user_link(int64_t leaderboard, const Rows& rows, size_t row) {
  const Cell& name = rows.at(row, "user_name");
  return user_link(leaderboard, text_of(rows.at(row, "user_id")),
                   std::holds_alternative<std::monostate>(name)
                       ? std::nullopt
                       : std::optional<std::string>(text_of(name)));
}

std::string submission_link(const std::string& id) {
  return "<a href=\"/submission/" + escape(id) + "\">" + escape(id) + "</a>";
}

// An SVG document as an element of a page: from its <svg> on (no XML declaration).
std::string inline_svg(const std::string& svg) {
  const size_t at = svg.find("<svg");
  return at == std::string::npos ? std::string() : svg.substr(at);
}

// The reliability note of the leaderboard the rows show (the "note" their JSON objects carry).
std::string note_html(const Rows& rows) {
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows.leaderboard(i) < 0) continue;
    const std::string_view note = dataset::note_for(rows.leaderboard(i));
    if (!note.empty()) return "<p class=\"note\">" + escape(note) + "</p>";
  }
  return "";
}

std::string note_html(const std::vector<dataset::Submission>& rows) {
  for (const dataset::Submission& s : rows) {
    const std::string_view note = dataset::note_for(s.leaderboard_id);
    if (!note.empty()) return "<p class=\"note\">" + escape(note) + "</p>";
  }
  return "";
}

int64_t id_of(const std::ssub_match& m) {
  const std::string s = m.str();
  if (s.empty() || s.size() > 18) throw NotFoundError("no such id: " + s);
  return std::stoll(s);
}

// The search text, as UTF-8: bytes that are no UTF-8 (q=%ff) are searched, and echoed, as
// U+FFFD, as the data's own text is shown.
std::string search_text(const HttpRequest& r) {
  auto it = r.params.find("q");
  const std::string raw = it == r.params.end() ? "" : it->second;
  if (raw.size() > 200) throw UsageError("a search of more than 200 bytes");
  return shown(raw);
}

std::optional<int64_t> param_id(const HttpRequest& r, const char* name) {
  auto it = r.params.find(name);
  if (it == r.params.end() || it->second.empty() || it->second.size() > 18 ||
      it->second.find_first_not_of("0123456789") != std::string::npos) {
    return std::nullopt;
  }
  return std::stoll(it->second);
}

void load(const dataset::DataDir& dir, const dataset::LoadOptions& options,
          const dataset::SubmissionSink& sink) {
  dataset::LoadStats stats;
  dataset::load_dir(dir, options, sink, stats);
}

// The queries' loader over `dir` (no progress: a page waits for its answer).
query::Loader loader_of(const dataset::DataDir& dir) {
  return [&dir](std::string_view, const dataset::LoadOptions& options,
                const dataset::SubmissionSink& sink) { load(dir, options, sink); };
}

// The model rows of submission `id`. NotFoundError when the folder has none.
std::vector<dataset::Submission> show_rows(const dataset::DataDir& dir, int64_t id, int threads) {
  query::ShowQuery show(id);
  load(dir, show.load_options(threads), [&](dataset::Submission&& s) { show.add(std::move(s)); });
  if (show.rows().empty()) {
    throw NotFoundError("no submission " + std::to_string(id) + " in " + dir.path);
  }
  return show.rows();
}

// The code of submission `id` (and its file name), if a row of it has code.
std::optional<std::string> code_of(const dataset::DataDir& dir, int64_t id, int threads,
                                   std::string* file_name) {
  for (const dataset::Submission& s : show_rows(dir, id, threads)) {
    if (s.code) {
      if (file_name != nullptr) *file_name = optional_text(s.file_name);
      return shown(*s.code);
    }
  }
  return std::nullopt;
}

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

}  // namespace

// A leaderboard the folder's files hold.
struct Site::Board {
  int64_t id = 0;
  std::string name;         // the problem name the files give it
  std::string note;         // the leaderboard's reliability note
  std::string config;       // the config of the first file holding it, else the file's name
  std::string config_note;  // that config's note
};

struct Site::UserEntry {
  int64_t leaderboard_id = 0;
  std::string problem_name;
  std::string user_id;
  std::optional<std::string> user_name;
};

// A leaderboard's answers (or its techniques' trend), worked out once: the pages of a leaderboard
// run the heaviest queries (a ranking with intervals, the records, the problem's audit, the
// weekly techniques).
struct Site::Computed {
  std::string twin;                      // the JSON twin
  std::string svg;                       // the chart
  std::optional<plot::TimeChart> chart;  // the record curve, to draw a placed score on
  Rows first;                            // the ranking (or the trend's rows)
  Rows flags;                            // the audit's flagged rows
};

struct Site::SubmissionAnswer {
  std::vector<dataset::Submission> rows;
  Rows audit;
  Rows techniques;
  Rows near;
  std::string twin;
};

struct Site::SearchAnswer {
  std::string query;
  std::vector<dataset::Submission> submissions;
  std::vector<Board> leaderboards;
  std::vector<UserEntry> users;
};

// A score asked on a leaderboard's page (`?score=15us[&runner=R]`): `kbdata place`'s answer.
struct Site::PlaceAnswer {
  std::string text;   // the score as asked
  std::string error;  // why it cannot be placed ("" when it can)
  double score = 0;
  Rows rows;         // a row per runner placed on
  std::string twin;  // the rows as the writer renders them
};

struct Site::UserAnswer {
  Rows progression;
  std::optional<int64_t> a, b;  // the versions compared, when there is a diff
  std::string diff;             // unified
  std::string twin;
};

Site::Site(SiteOptions options) : options_(std::move(options)) {
  stamp_ = stamp_folder(options_.folder);
}

Site::~Site() = default;

void Site::set_status(const IndexStatus& status) {
  std::lock_guard lock(data_mutex_);
  if (!stale_) status_ = status;
}

void Site::set_resident(std::shared_ptr<const dataset::Resident> resident,
                        const IndexStatus& status) {
  std::lock_guard lock(data_mutex_);
  if (stale_) return;
  resident_ = std::move(resident);
  status_ = status;
}

bool Site::stale() const {
  std::lock_guard lock(data_mutex_);
  return stale_;
}

bool Site::data_changed() {
  FolderStamp now = stamp_folder(options_.folder);
  {
    std::lock_guard lock(data_mutex_);
    if (now == stamp_) return false;
    stamp_ = std::move(now);
    stale_ = true;
    resident_.reset();
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

dataset::DataDir Site::dir() const {
  dataset::DataDir dir = options_.open();
  std::lock_guard lock(data_mutex_);
  dir.resident = resident_;
  return dir;
}

void Site::add_routes(Server& server) {
  server.route("/static/style.css", [](const std::smatch&, const HttpRequest&) {
    HttpResponse r;
    r.content_type = "text/css; charset=utf-8";
    r.body = std::string(style_sheet());
    return r;
  });
  server.route("/static/app.js", [](const std::smatch&, const HttpRequest&) {
    HttpResponse r;
    r.content_type = "text/javascript; charset=utf-8";
    r.body = std::string(script());
    return r;
  });
  server.route(
      "/api/status",
      [this](const std::smatch&, const HttpRequest&) { return json_response(status_json()); },
      /*cacheable=*/false);
  server.route("/api/configs", [this](const std::smatch&, const HttpRequest&) {
    std::lock_guard lock(mutex_);
    return json_response(options_.configs_json());
  });
  server.route("/", [this](const std::smatch&, const HttpRequest&) { return home(); });
  server.route("/api/leaderboard/([0-9]+)", [this](const std::smatch& m, const HttpRequest& r) {
    return leaderboard_twin(id_of(m[1]), r);
  });
  server.route("/leaderboard/([0-9]+)", [this](const std::smatch& m, const HttpRequest& r) {
    return leaderboard(id_of(m[1]), r);
  });
  server.route("/api/leaderboard/([0-9]+)/techniques",
               [this](const std::smatch& m, const HttpRequest&) {
                 return json_response(trend_answer(id_of(m[1]))->twin);
               });
  server.route("/leaderboard/([0-9]+)/techniques",
               [this](const std::smatch& m, const HttpRequest&) { return trend(id_of(m[1])); });
  server.route("/api/submission/([0-9]+)", [this](const std::smatch& m, const HttpRequest&) {
    return json_response(submission_answer(id_of(m[1])).twin);
  });
  server.route("/submission/([0-9]+)", [this](const std::smatch& m, const HttpRequest&) {
    return submission(id_of(m[1]));
  });
  server.route("/api/user/([0-9]+)/([^/]+)", [this](const std::smatch& m, const HttpRequest& r) {
    return json_response(user_answer(id_of(m[1]), m[2].str(), r).twin);
  });
  server.route("/user/([0-9]+)/([^/]+)", [this](const std::smatch& m, const HttpRequest& r) {
    return user(id_of(m[1]), m[2].str(), r);
  });
  server.route("/api/search", [this](const std::smatch&, const HttpRequest& r) {
    return json_response(search_json(search_text(r)));
  });
  server.route("/search",
               [this](const std::smatch&, const HttpRequest& r) { return search(search_text(r)); });
}

std::string Site::status_json() const {
  std::lock_guard lock(data_mutex_);
  json out = {{"data", options_.folder},    {"index", status_.state},
              {"rows", status_.rows},       {"bytes", status_.bytes},
              {"seconds", status_.seconds}, {"leaderboard_bytes", status_.leaderboard_bytes}};
  if (!status_.error.empty()) out["error"] = status_.error;
  if (stale_) out["note"] = kStaleNote;
  return out.dump();
}

// A page of the site: the notice that the data changed since the server started, if they did.
std::string Site::page(std::string_view title, std::string_view kind, std::string_view body) const {
  return serve::page(title, kind, body, stale() ? kStaleNote : "");
}

// The leaderboards the folder's files hold (dataset::read_contents: the files are the truth,
// whatever the registry lists), each once, in the files' order and by id. Read once, and again
// after the data changed.
std::shared_ptr<const std::vector<Site::Board>> Site::boards() {
  uint64_t generation = 0;
  {
    std::lock_guard lock(memo_mutex_);
    if (boards_) return boards_;
    generation = generation_;
  }
  auto all = std::make_shared<std::vector<Board>>();
  const dataset::DataDir d = options_.open();
  std::set<int64_t> seen;
  dataset::ContentsOptions contents;
  contents.threads = options_.threads;
  for (const dataset::FileContents& c : dataset::read_contents(d, contents)) {
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

bool Site::is_board(int64_t id) {
  const auto all = boards();
  return std::any_of(all->begin(), all->end(), [id](const Board& b) { return b.id == id; });
}

// The problem name of leaderboard `id` from the files; NotFoundError when the folder has none.
std::string Site::problem_of(int64_t id) {
  for (const Board& b : *boards()) {
    if (b.id == id) return b.name;
  }
  throw NotFoundError("no leaderboard " + std::to_string(id) + " in the data");
}

HttpResponse Site::home() {
  const dataset::DataDir d = options_.open();
  std::string body = "<p class=\"muted\">Data: " + escape(shown(d.path)) + "</p>";
  body +=
      "<h2>Leaderboards</h2><table class=\"leaderboards\"><tr><th class=\"num\">id</th>"
      "<th>problem</th><th>config</th><th>note</th></tr>";
  for (const Board& b : *boards()) {
    const std::string id = std::to_string(b.id);
    body += "<tr class=\"leaderboard-row\"><td class=\"num\">" + id +
            "</td><td><a href=\"/leaderboard/" + id + "\">" + escape(shown(b.name)) +
            "</a></td><td>" + escape(shown(b.config)) + "</td><td>" + escape(b.config_note) +
            "</td></tr>";
  }
  // The configs the folder holds, with the rows their footers give.
  body +=
      "</table><h2>Configs</h2><table class=\"configs\"><tr><th>config</th><th>file</th>"
      "<th>family</th><th class=\"num\">rows</th><th class=\"num\">bytes</th></tr>";
  for (const dataset::ConfigInfo& c : dataset::configs()) {
    const auto f = std::find_if(d.files.begin(), d.files.end(),
                                [&c](const dataset::DataFile& file) { return file.config == &c; });
    if (f == d.files.end()) continue;
    body += "<tr><td>" + escape(c.name) + "</td><td>" + escape(c.file) + "</td><td>" +
            escape(dataset::to_string(c.family)) + "</td><td class=\"num\">" +
            std::to_string(f->num_rows) + "</td><td class=\"num\"></td></tr>";
  }
  body += "</table>";
  return html_response(page("KernelBot data", "home", body));
}

// memo[id], computed by `compute` when absent; kept only for the folder's leaderboards (so that
// the memo holds at most two answers per leaderboard, whatever ids are asked for).
template <typename Compute>
std::shared_ptr<const Site::Computed> Site::remembered(
    std::map<int64_t, std::shared_ptr<const Computed>>& memo, int64_t id, Compute compute) {
  uint64_t generation = 0;
  {
    std::lock_guard lock(memo_mutex_);
    const auto it = memo.find(id);
    if (it != memo.end()) return it->second;
    generation = generation_;
  }
  std::shared_ptr<const Computed> computed = compute(id);
  if (!is_board(id)) return computed;
  const size_t bytes = computed->twin.size() + computed->svg.size();
  std::lock_guard lock(memo_mutex_);
  if (generation != generation_) return computed;  // made across a change of the data
  const auto [it, inserted] = memo.try_emplace(id, std::move(computed));
  if (inserted) memo_bytes_ += bytes;
  return it->second;
}

std::shared_ptr<const Site::Computed> Site::leaderboard_answer(int64_t id) {
  return remembered(leaderboards_, id, [this](int64_t i) { return compute_leaderboard(i); });
}

std::shared_ptr<const Site::Computed> Site::trend_answer(int64_t id) {
  return remembered(trends_, id, [this](int64_t i) { return compute_trend(i); });
}

uint64_t Site::warm(const std::atomic<bool>& stop) {
  for (const Board& b : *boards()) {
    const int64_t id = b.id;
    if (stop || stale()) break;
    leaderboard_answer(id);
    try {
      trend_answer(id);
    } catch (const Error&) {
      // a leaderboard without code: its page says so when asked
    }
  }
  std::lock_guard lock(memo_mutex_);
  return memo_bytes_;
}

// The ranking with intervals (`kbdata top --leaderboard ID -n 0 --uncertainty`), the records and
// their curve, and the problem's rows the audit flags suspicious or cheat.
std::shared_ptr<Site::Computed> Site::compute_leaderboard(int64_t id) {
  std::lock_guard lock(mutex_);
  const dataset::DataDir d = dir();
  const int threads = options_.threads;
  dataset::Filter filter;
  filter.leaderboard_id = id;

  query::TopQuery top({.limit = 0, .uncertainty = true});
  load(d, top.load_options(filter, threads), [&](dataset::Submission&& s) { top.add(s); });
  analysis::NoiseOptions noise_options;
  noise_options.similarity = 0.98;
  analysis::NoiseBuilder noise(noise_options);
  load(d, query::noise_load_options(filter, threads),
       [&](dataset::Submission&& s) { noise.add(std::move(s)); });
  result::ResultTable ranking = top.finish(noise.finish());

  query::RecordsQuery records;
  load(d, query::RecordsQuery::load_options(filter, threads),
       [&](dataset::Submission&& s) { records.add(s); });
  result::ResultTable record_rows = records.finish();

  auto out = std::make_shared<Computed>();
  if (!records.series().empty()) {
    out->chart = query::records_chart(records.series());
    out->svg = plot::render_svg(*out->chart);
  }
  out->twin = "{\"top\":" + report::json_text(ranking) +
              ",\"records\":" + report::json_text(record_rows) + ",\"flags\":";
  out->first = Rows(ranking);
  std::optional<std::string> problem;
  for (size_t i = 0; i < out->first.size(); ++i) {
    problem = std::get<std::string>(out->first.at(i, "problem_name"));
  }
  if (problem && !problem->empty()) {
    // `kbdata audit -p PROBLEM --min-verdict suspicious`
    dataset::LoadOptions audit_load;
    audit_load.threads = threads;
    audit_load.filter.problem = *problem;
    query::AuditQuery audit({.min_verdict = audit::Verdict::SUSPICIOUS});
    dataset::LoadStats stats;
    audit::audit_folder(
        d, audit_load, audit::folder_references(d),
        [&](const dataset::Submission& s, const std::vector<audit::Finding>& findings,
            audit::Verdict verdict) { audit.add(s, findings, verdict); },
        stats);
    result::ResultTable flags = audit.finish();
    out->twin += report::json_text(flags);
    out->flags = Rows(flags);
  } else {
    out->twin += "[]";
  }
  out->twin += "}";
  return out;
}

// The runners a ranking shows, in its order.
std::vector<std::string> runners_of(const Rows& top) {
  std::vector<std::string> out;
  for (size_t i = 0; i < top.size(); ++i) {
    std::string runner = text_of(top.at(i, "runner"));
    if (std::find(out.begin(), out.end(), runner) == out.end()) out.push_back(std::move(runner));
  }
  return out;
}

// `kbdata place -p PROBLEM --runner R SCORE` on leaderboard `id`, for its page's form: the score
// of `score=`, on the runner of `runner=`, else on each of `runners` (the ranking's). nullopt when
// no score is asked; a score that is not one gets its error, not an answer.
std::optional<Site::PlaceAnswer> Site::place_answer(int64_t id, const HttpRequest& request,
                                                    const std::vector<std::string>& runners) {
  const auto asked = request.params.find("score");
  if (asked == request.params.end() || asked->second.empty()) return std::nullopt;
  if (asked->second.size() > 100) throw UsageError("a score of more than 100 bytes");
  PlaceAnswer out;
  out.text = shown(asked->second);
  const std::optional<double> score = query::parse_score_text(asked->second);
  if (!score) {
    out.error = query::score_text_error(asked->second);
    return out;
  }
  out.score = *score;
  std::vector<std::string> on = runners;
  if (const auto r = request.params.find("runner");
      r != request.params.end() && !r->second.empty()) {
    if (r->second.size() > 200) throw UsageError("a runner of more than 200 bytes");
    on = {r->second};
  }
  if (on.empty()) {
    out.error = "nothing to compare with: no qualifying submission on this leaderboard";
    return out;
  }
  const std::string problem = problem_of(id);
  std::vector<query::Placement> placements;
  for (const std::string& runner : on) placements.push_back({problem, runner, *score, {}, {}});

  std::lock_guard lock(mutex_);
  const dataset::DataDir d = dir();
  query::PlaceRequest place_request;
  for (const dataset::DataFile* f : dataset::leaderboards_files(d)) {
    for (const dataset::LeaderboardEntry& e : dataset::read_leaderboards(d, *f)) {
      if (e.id && e.deadline) place_request.deadlines.emplace(*e.id, *e.deadline);
    }
  }
  query::PlaceQuery place(std::move(place_request), std::move(placements));
  dataset::LoadOptions load;
  load.threads = options_.threads;
  load.filter.leaderboard_id = id;
  if (on.size() == 1) load.filter.runner = on.front();
  result::ResultTable answer = query::place_scores(place, d, load, loader_of(d));
  out.twin = report::json_text(answer);
  out.rows = Rows(answer);
  return out;
}

namespace {

// The form that asks where a score would land, and the answer: per runner, the rank among the
// users' bests, the factors, the rank interval and the chances against the top 3.
std::string placement_html(int64_t id, const std::vector<std::string>& runners,
                           const HttpRequest& request, const std::optional<std::string>& text,
                           const std::string& error, const Rows& rows) {
  const auto asked = request.params.find("runner");
  const std::string runner = asked == request.params.end() ? "" : shown(asked->second);
  std::string body =
      "<h2>Where would a kernel land?</h2><form class=\"place\" method=\"get\" "
      "action=\"/leaderboard/" +
      std::to_string(id) +
      "\"><label>score <input name=\"score\" required placeholder=\"15us\" value=\"" +
      escape(text.value_or("")) + "\"></label>";
  if (runners.size() > 1) {
    body += " <label>runner <select name=\"runner\"><option value=\"\">every runner</option>";
    for (const std::string& r : runners) {
      body +=
          "<option" + std::string(r == runner ? " selected" : "") + ">" + escape(r) + "</option>";
    }
    body += "</select></label>";
  }
  body +=
      " <button>Place</button></form><p class=\"muted\">A score in seconds or with a unit (15us, "
      "0.015ms, 1.5e-05) is ranked among the users' best qualifying scores at the deadline, in "
      "the harness epoch then in force, as <code>kbdata place</code> does "
      "(docs/evaluation.md). A factor is the human's score over this one: above 1, faster.</p>";
  if (!error.empty()) return body + "<p class=\"error\">" + escape(error) + "</p>";
  if (rows.empty()) return body;
  body +=
      "<table class=\"placement\"><tr><th>runner</th><th class=\"num\">rank</th>"
      "<th class=\"num\">users</th><th class=\"num\">percentile</th>"
      "<th class=\"num\">possible ranks</th><th class=\"num\">against the record</th>"
      "<th class=\"num\">against the median</th><th class=\"num\">P(faster than #1, #2, #3)</th>"
      "<th>as of</th><th class=\"num\">epoch</th></tr>";
  for (size_t i = 0; i < rows.size(); ++i) {
    body += "<tr class=\"placed\"><td>" + escape(text_of(rows.at(i, "runner"))) + "</td>";
    const std::string refused = text_of(rows.at(i, "refused"));
    if (!refused.empty()) {
      body += "<td colspan=\"9\" class=\"error\">" + escape(refused) + "</td></tr>";
      continue;
    }
    auto factor = [&](const char* column) {
      const auto* f = std::get_if<double>(&rows.at(i, column));
      return f != nullptr ? "×" + report::double_text(std::round(*f * 100) / 100) : "—";
    };
    auto probability = [&](const char* column) {
      const auto* p = std::get_if<double>(&rows.at(i, column));
      return p != nullptr ? fmt::format("{:.2f}", *p) : std::string("—");
    };
    const auto* percentile = std::get_if<double>(&rows.at(i, "percentile"));
    body += "<td class=\"num\">" + text_of(rows.at(i, "rank")) + "</td><td class=\"num\">" +
            text_of(rows.at(i, "users")) + "</td><td class=\"num\">" +
            (percentile != nullptr ? fmt::format("{:.1f}", *percentile) : "—") +
            "</td><td class=\"num\">" + text_of(rows.at(i, "rank_best")) + "–" +
            text_of(rows.at(i, "rank_worst")) + "</td><td class=\"num\">" +
            factor("factor_record") + "</td><td class=\"num\">" + factor("factor_median") +
            "</td><td class=\"num\">" + probability("p_faster_1") + ", " +
            probability("p_faster_2") + ", " + probability("p_faster_3") + "</td><td>" +
            time_cell(rows.at(i, "at")) + "</td><td class=\"num\">" + text_of(rows.at(i, "epoch")) +
            "</td></tr>";
  }
  return body + "</table>";
}

// The placed row of `runner` in `placed`, if it has one that ranks.
std::optional<size_t> placed_row(const Rows& placed, const std::string& runner) {
  for (size_t i = 0; i < placed.size(); ++i) {
    if (text_of(placed.at(i, "runner")) == runner && text_of(placed.at(i, "refused")).empty()) {
      return i;
    }
  }
  return std::nullopt;
}

// The record curve with the placed score drawn across it.
std::string chart_with_score(plot::TimeChart chart, double score, const std::string& text) {
  int64_t first = INT64_MAX, last = INT64_MIN;
  for (const plot::Series& series : chart.series) {
    for (const plot::Point& p : series.points) {
      first = std::min(first, p.time_us);
      last = std::max(last, p.time_us);
    }
  }
  if (first > last) return plot::render_svg(chart);
  chart.series.push_back(
      {"the score placed: " + text, plot::SeriesStyle::LINE, {{first, score}, {last, score}}, {}});
  return plot::render_svg(chart);
}

}  // namespace

HttpResponse Site::leaderboard_twin(int64_t id, const HttpRequest& request) {
  const std::shared_ptr<const Computed> computed = leaderboard_answer(id);
  const std::optional<PlaceAnswer> placed = place_answer(id, request, runners_of(computed->first));
  if (!placed) return json_response(computed->twin);
  if (!placed->error.empty()) throw UsageError(placed->error);
  // The answers' object with the placement as its last member.
  std::string twin = computed->twin;
  twin.pop_back();
  return json_response(twin + ",\"place\":" + placed->twin + "}");
}

HttpResponse Site::leaderboard(int64_t id, const HttpRequest& request) {
  const std::shared_ptr<const Computed> computed = leaderboard_answer(id);
  const Rows& top = computed->first;
  const Rows& flags = computed->flags;
  const std::vector<std::string> runners = runners_of(top);
  const std::optional<PlaceAnswer> placed = place_answer(id, request, runners);
  std::map<std::string, std::string> flagged_users;  // user id -> verdict
  for (size_t i = 0; i < flags.size(); ++i) {
    flagged_users[text_of(flags.at(i, "user_id"))] = text_of(flags.at(i, "verdict"));
  }
  std::string problem = "leaderboard " + std::to_string(id);
  for (size_t i = 0; i < top.size(); ++i) problem = text_of(top.at(i, "problem_name"));
  std::string body = note_html(top);
  // Before the rankings, which may be long: the form, and where the score asked would land.
  body += placement_html(id, runners, request,
                         placed ? std::optional<std::string>(placed->text) : std::nullopt,
                         placed ? placed->error : std::string(), placed ? placed->rows : Rows());
  std::map<std::string, std::vector<size_t>> by_runner;
  for (size_t i = 0; i < top.size(); ++i) by_runner[text_of(top.at(i, "runner"))].push_back(i);
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
    if (const auto* sigma = std::get_if<double>(&top.at(rows.front(), "sigma"))) {
      body += fmt::format(
          "<p class=\"noise\">Measured noise: sigma {:.4f} (the sd of log(score) of one "
          "measurement; kbdata noise).</p>",
          *sigma);
    }
    // The placed score, shown where its score falls among the rows (after those it equals).
    std::optional<size_t> place_at;
    if (placed) place_at = placed_row(placed->rows, runner);
    auto placed_html = [&] {
      const Rows& p = placed->rows;
      return "<tr class=\"placed-row\"><td class=\"num\">" + text_of(p.at(*place_at, "rank")) +
             "</td><td>the score placed</td><td class=\"num\">" +
             escape(report::format_score(placed->score)) + "</td><td colspan=\"5\">rank " +
             text_of(p.at(*place_at, "rank")) + " of " + text_of(p.at(*place_at, "users")) +
             " users' bests as of " + time_cell(p.at(*place_at, "at")) + " (epoch " +
             text_of(p.at(*place_at, "epoch")) + ")</td></tr>";
    };
    for (size_t r : rows) {
      if (place_at) {
        const auto* score = std::get_if<double>(&top.at(r, "score"));
        if (score != nullptr && *score > placed->score) {
          body += placed_html();
          place_at.reset();
        }
      }
      const auto flag = flagged_users.find(text_of(top.at(r, "user_id")));
      body += "<tr class=\"rank-row\"><td class=\"num\">" + text_of(top.at(r, "rank")) +
              "</td><td>" + user_link(id, top, r) + "</td><td class=\"num\">" +
              score_cell(top.at(r, "score")) + "</td><td class=\"num\">" +
              score_cell(top.at(r, "score_lo")) + " – " + score_cell(top.at(r, "score_hi")) +
              "</td><td class=\"num\">" + text_of(top.at(r, "rank_best")) + "–" +
              text_of(top.at(r, "rank_worst")) + "</td><td>" +
              submission_link(text_of(top.at(r, "submission_id"))) + "</td><td>" +
              time_cell(top.at(r, "submission_time")) + "</td><td>" +
              (flag == flagged_users.end()
                   ? std::string("<span class=\"verdict verdict-clean\">clean</span>")
                   : "<span class=\"verdict verdict-" + escape(flag->second) + "\">user has " +
                         escape(flag->second) + " rows</span>") +
              "</td></tr>";
    }
    if (place_at) body += placed_html();
    body += "</table>";
  }
  if (!computed->svg.empty()) {
    const std::string svg =
        placed && placed->error.empty() && computed->chart
            ? chart_with_score(*computed->chart, placed->score, report::format_score(placed->score))
            : computed->svg;
    body += "<h2>Record curve</h2><figure class=\"chart\">" + inline_svg(svg) + "</figure>";
  }
  body += "<p><a href=\"/leaderboard/" + std::to_string(id) +
          "/techniques\">Techniques week by week</a>: the languages and features of the week's "
          "submissions, users and top</p>";
  if (!flags.empty()) {
    body +=
        "<h2>Flagged by the audit</h2><table class=\"flags\"><tr><th>submission</th>"
        "<th>user</th><th>verdict</th><th>rules</th></tr>";
    for (size_t i = 0; i < flags.size(); ++i) {
      const std::string verdict = text_of(flags.at(i, "verdict"));
      body += "<tr><td>" + submission_link(text_of(flags.at(i, "submission_id"))) + "</td><td>" +
              user_link(id, flags, i) + "</td><td><span class=\"verdict verdict-" +
              escape(verdict) + "\">" + escape(verdict) + "</span></td><td>" +
              escape(text_of(flags.at(i, "rules"))) + "</td></tr>";
    }
    body += "</table>";
  }
  if (top.empty()) body += "<p>No qualifying submission on this leaderboard.</p>";
  return html_response(page(problem, "leaderboard", body));
}

// `kbdata techniques --trend -p PROBLEM`, and its small multiples.
std::shared_ptr<Site::Computed> Site::compute_trend(int64_t id) {
  const std::string problem = problem_of(id);
  std::lock_guard lock(mutex_);
  const dataset::DataDir d = dir();
  dataset::Filter filter;
  filter.problem = problem;
  std::vector<analysis::TechniqueRow> rows;
  load(d, query::techniques_load_options(filter, options_.threads), [&](dataset::Submission&& s) {
    if (!s.prepared.has_value()) return;
    const auto t = std::any_cast<techniques::Techniques>(s.prepared);
    s.prepared.reset();
    rows.push_back({std::move(s), t});
  });
  auto out = std::make_shared<Computed>();
  if (rows.empty()) {
    result::ResultTable none(query::trend_columns(), query::kTrendRule);
    out->twin = report::json_text(none);
    return out;
  }
  constexpr size_t kTop = 10;
  query::TrendAnswer answer = query::techniques_trend(rows, kTop);
  if (!answer.trend.rows.empty()) {
    out->svg = plot::render_small_multiples(query::techniques_trend_chart(answer.trend.rows, kTop));
  }
  out->twin = report::json_text(answer.table);
  out->first = Rows(answer.table);
  return out;
}

HttpResponse Site::trend(int64_t id) {
  const std::shared_ptr<const Computed> computed = trend_answer(id);
  const Rows& rows = computed->first;
  std::string body = "<p><a href=\"/leaderboard/" + std::to_string(id) + "\">the ranking</a></p>";
  if (!computed->svg.empty()) {
    body += "<figure class=\"chart\">" + inline_svg(computed->svg) + "</figure>";
  }
  body +=
      "<table class=\"trend\"><tr><th class=\"num\">week</th><th>kind</th><th>tag</th>"
      "<th class=\"num\">submissions</th><th class=\"num\">users</th>"
      "<th class=\"num\">top</th></tr>";
  const auto share = [](const Cell& v) {
    const auto* d = std::get_if<double>(&v);
    return fmt::format("{:.0f}%", d != nullptr ? 100 * *d : 0.0);
  };
  for (size_t i = 0; i < rows.size(); ++i) {
    body += "<tr class=\"trend-row\"><td class=\"num\">" + text_of(rows.at(i, "week")) +
            "</td><td>" + escape(text_of(rows.at(i, "kind"))) + "</td><td>" +
            escape(text_of(rows.at(i, "tag"))) + "</td><td class=\"num\">" +
            share(rows.at(i, "submissions_share")) + "</td><td class=\"num\">" +
            share(rows.at(i, "users_share")) + "</td><td class=\"num\">" +
            share(rows.at(i, "top_share")) + "</td></tr>";
  }
  body += "</table>";
  return html_response(
      page("Techniques on " + problem_of(id) + ", week by week", "techniques", body));
}

// The submission's rows (`kbdata show ID`), its audit and techniques (of its user's rows of the
// problem, as `kbdata audit -p P --user U --with-evidence` and `kbdata techniques -p P --user U`
// give them) and its near-duplicates (`kbdata show ID --near-duplicates`). NotFoundError when the
// folder has no such submission.
Site::SubmissionAnswer Site::submission_answer(int64_t id) {
  std::lock_guard lock(mutex_);
  const dataset::DataDir d = dir();
  const int threads = options_.threads;
  SubmissionAnswer out;
  out.rows = show_rows(d, id, threads);
  const dataset::Submission& first = out.rows.front();
  dataset::Filter filter;
  filter.problem = first.problem_name;
  filter.user = first.user_id;

  dataset::LoadOptions audit_load;
  audit_load.threads = threads;
  audit_load.filter = filter;
  query::AuditQuery audit({.with_evidence = true});
  dataset::LoadStats stats;
  audit::audit_folder(
      d, audit_load, audit::folder_references(d),
      [&](const dataset::Submission& s, const std::vector<audit::Finding>& findings,
          audit::Verdict verdict) {
        if (s.submission_id == id) audit.add(s, findings, verdict);
      },
      stats);
  result::ResultTable audit_rows = audit.finish();

  query::TechniquesQuery techniques;
  load(d, query::techniques_load_options(filter, threads), [&](dataset::Submission&& s) {
    if (s.submission_id != id || !s.prepared.has_value()) return;
    techniques.add(s, std::any_cast<const techniques::Techniques&>(s.prepared));
  });
  result::ResultTable technique_rows = techniques.finish();

  query::NearDuplicatesQuery near(first, 0.8);
  if (near.has_code()) {
    load(d, near.load_options(threads), [&](dataset::Submission&& s) { near.add(std::move(s)); });
  }
  result::ResultTable near_rows = near.finish();

  out.twin = "{\"rows\":" + report::submissions_json_text(out.rows) +
             ",\"audit\":" + report::json_text(audit_rows) +
             ",\"techniques\":" + report::json_text(technique_rows) +
             ",\"near_duplicates\":" + report::json_text(near_rows) + "}";
  out.audit = Rows(audit_rows);
  out.techniques = Rows(technique_rows);
  out.near = Rows(near_rows);
  return out;
}

HttpResponse Site::submission(int64_t id) {
  const SubmissionAnswer data = submission_answer(id);
  const dataset::Submission& s = data.rows.front();
  const int64_t leaderboard = s.leaderboard_id;
  const std::string user_id = shown(s.user_id);
  std::string body = note_html(data.rows) + "<dl class=\"meta\">";
  auto item = [&body](const std::string& k, const std::string& v_html) {
    body += "<dt>" + escape(k) + "</dt><dd>" + v_html + "</dd>";
  };
  item("problem", "<a href=\"/leaderboard/" + std::to_string(leaderboard) + "\">" +
                      escape(shown(s.problem_name)) + "</a> (" + std::to_string(leaderboard) + ")");
  item("user",
       user_link(leaderboard, user_id,
                 s.user_name ? std::optional<std::string>(shown(*s.user_name)) : std::nullopt));
  item("submitted", time_cell(std::optional<int64_t>(s.submission_time)));
  item("file", escape(optional_text(s.file_name)));
  item("status", escape(shown(s.status)));
  for (const dataset::Submission& r : data.rows) {
    item("score" + (r.runner ? " on " + shown(*r.runner) : std::string()),
         escape(score_cell(r.score)) + (r.passed == true ? " (passed)" : ""));
  }
  item("code_id", escape(s.code_id ? std::to_string(*s.code_id) : std::string()));
  std::string verdict = "clean";
  std::string rules;
  for (size_t i = 0; i < data.audit.size(); ++i) {
    verdict = text_of(data.audit.at(i, "verdict"));
    rules = text_of(data.audit.at(i, "rules"));
  }
  const Rows& t = data.techniques;
  if (!t.empty()) {  // one row per runner, the same code
    item("language", escape(text_of(t.at(0, "language"))) + " <span class=\"muted\">(all: " +
                         escape(text_of(t.at(0, "languages_all"))) + ")</span>");
    item("features", escape(text_of(t.at(0, "features"))));
    item("size", escape(text_of(t.at(0, "lines"))) + " lines, " +
                     escape(text_of(t.at(0, "kernels"))) + " kernels, " +
                     escape(text_of(t.at(0, "autotune_configs"))) + " autotune configs, " +
                     escape(text_of(t.at(0, "shape_branches"))) + " shape branches");
  }
  item("audit", "<span class=\"verdict verdict-" + escape(verdict) + "\">" + escape(verdict) +
                    "</span>" + (rules.empty() ? "" : " " + escape(rules)));
  body += "</dl>";
  for (size_t i = 0; i < data.audit.size(); ++i) {
    const std::string evidence = text_of(data.audit.at(i, "evidence"));
    if (evidence.empty()) continue;
    body += "<h2>Audit evidence</h2><pre class=\"evidence\">" + escape(evidence) + "</pre>";
  }
  const Rows& near = data.near;
  body += "<h2>Near-duplicates</h2>";
  if (near.empty()) {
    body +=
        "<p class=\"muted\">No other submission of this leaderboard has code estimated at least "
        "80% similar (kbdata show --near-duplicates).</p>";
  } else {
    body +=
        "<p class=\"muted\">" + std::to_string(near.size()) +
        " submission(s) of this leaderboard whose code is estimated at least 80% similar "
        "(Jaccard of the 5-byte shingles kbdata dedup compares)" +
        (near.size() > kNearShown ? "; the " + std::to_string(kNearShown) + " most similar" : "") +
        ":</p><table class=\"near\"><tr><th>submission</th><th>user</th><th>submitted</th>"
        "<th class=\"num\">score</th><th class=\"num\">similarity</th><th></th></tr>";
    for (size_t i = 0; i < near.size() && i < kNearShown; ++i) {
      const std::string similarity =
          fmt::format("{:.0f}%", 100 * std::get<double>(near.at(i, "similarity")));
      const std::string other = text_of(near.at(i, "submission_id"));
      const bool same_user = text_of(near.at(i, "user_id")) == user_id;
      body += "<tr class=\"near-row\"><td>" + submission_link(other) + "</td><td>" +
              user_link(leaderboard, near, i) + "</td><td>" +
              time_cell(near.at(i, "submission_time")) + "</td><td class=\"num\">" +
              score_cell(near.at(i, "score")) + "</td><td class=\"num\">" + similarity +
              "</td><td>" +
              (same_user ? "<a href=\"" + escape(user_href(leaderboard, user_id)) + "?a=" + other +
                               "&amp;b=" + std::to_string(id) + "#diff\">diff</a>"
                         : std::string("another user")) +
              "</td></tr>";
    }
    body += "</table>";
  }
  body += "<h2>Code</h2>" + (s.code ? highlighted_code(shown(*s.code), optional_text(s.file_name))
                                    : std::string("<p class=\"muted\">No code in the data.</p>"));
  return html_response(page("Submission " + std::to_string(id), "submission", body));
}

// The progression (`kbdata progression --user USER --leaderboard ID`), and the diff between two
// of the user's submissions: `a` and `b` when given, else the last improvement (the best before
// it against the new best). `svg`, when given, gets the progression's chart.
Site::UserAnswer Site::user_answer(int64_t leaderboard, const std::string& user,
                                   const HttpRequest& request, std::string* svg) {
  std::lock_guard lock(mutex_);
  const dataset::DataDir d = dir();
  const int threads = options_.threads;
  dataset::Filter filter;
  filter.leaderboard_id = leaderboard;
  query::ProgressionQuery progression({.user = user});
  (void)progression.load(filter, threads, loader_of(d));
  if (progression.empty()) {
    throw NotFoundError("no submissions of user '" + user + "' on leaderboard " +
                        std::to_string(leaderboard));
  }
  result::ResultTable steps = progression.finish();
  if (svg != nullptr && progression.progressions().size() == 1) {
    *svg = plot::render_svg(query::progression_chart(progression.progressions().front()));
  }
  UserAnswer out;
  const std::string progression_json = report::json_text(steps);
  out.progression = Rows(steps);
  std::optional<int64_t> a = param_id(request, "a");
  std::optional<int64_t> b = param_id(request, "b");
  if (!a || !b) {
    std::vector<int64_t> bests;
    for (size_t i = 0; i < out.progression.size(); ++i) {
      if (out.progression.at(i, "improved") == Cell{true}) {
        bests.push_back(std::get<int64_t>(out.progression.at(i, "submission_id")));
      }
    }
    if (bests.size() >= 2) {
      a = bests[bests.size() - 2];
      b = bests.back();
    }
  }
  json diff = nullptr;
  if (a && b) {
    std::string name;
    const std::optional<std::string> before = code_of(d, *a, threads, nullptr);
    const std::optional<std::string> after = code_of(d, *b, threads, &name);
    if (before && after) {
      out.a = a;
      out.b = b;
      out.diff = pairs::unified_diff(*before, *after, name);
      diff = {{"a", *a}, {"b", *b}, {"diff", out.diff}};
    }
  }
  out.twin = "{\"progression\":" + progression_json + ",\"diff\":" + diff.dump() + "}";
  return out;
}

HttpResponse Site::user(int64_t leaderboard, const std::string& user_id,
                        const HttpRequest& request) {
  std::string svg;
  const UserAnswer data = user_answer(leaderboard, user_id, request, &svg);
  const Rows& rows = data.progression;
  std::string name = text_of(rows.at(0, "user_name"));
  if (name.empty()) name = "user " + text_of(rows.at(0, "user_id"));
  std::string body = note_html(rows);
  if (!svg.empty()) body += "<figure class=\"chart\">" + inline_svg(svg) + "</figure>";
  body +=
      "<h2>Submissions</h2><table class=\"submissions\"><tr><th>submitted</th>"
      "<th>submission</th><th>runner</th><th>status</th><th class=\"num\">score</th>"
      "<th class=\"num\">best</th><th>new best</th></tr>";
  std::string previous_best;
  for (size_t i = 0; i < rows.size(); ++i) {
    const bool improved = rows.at(i, "improved") == Cell{true};
    const std::string sid = text_of(rows.at(i, "submission_id"));
    std::string diff_link;
    if (improved && !previous_best.empty()) {
      diff_link = " <a href=\"?a=" + previous_best + "&amp;b=" + sid + "#diff\">diff</a>";
    }
    body += "<tr class=\"submission-row\"><td>" + time_cell(rows.at(i, "submission_time")) +
            "</td><td>" + submission_link(sid) + "</td><td>" +
            escape(text_of(rows.at(i, "runner"))) + "</td><td>" +
            escape(text_of(rows.at(i, "status"))) + "</td><td class=\"num\">" +
            score_cell(rows.at(i, "score")) + "</td><td class=\"num\">" +
            score_cell(rows.at(i, "best")) + "</td><td>" + (improved ? "yes" + diff_link : "") +
            "</td></tr>";
    if (improved) previous_best = sid;
  }
  body += "</table>";
  // Any two versions: the script submits the form when a choice changes; without it, the button.
  std::string options_a, options_b;
  const std::string a = data.a ? std::to_string(*data.a) : "";
  const std::string b = data.b ? std::to_string(*data.b) : "";
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::string sid = text_of(rows.at(i, "submission_id"));
    const std::string label = escape(sid + " · " + time_cell(rows.at(i, "submission_time")) +
                                     " · " + score_cell(rows.at(i, "score")));
    options_a += "<option value=\"" + escape(sid) + "\"" + (sid == a ? " selected" : "") + ">" +
                 label + "</option>";
    options_b += "<option value=\"" + escape(sid) + "\"" + (sid == b ? " selected" : "") + ">" +
                 label + "</option>";
  }
  body += "<form class=\"compare\" method=\"get\" action=\"#diff\">Compare <select name=\"a\">" +
          options_a + "</select> with <select name=\"b\">" + options_b +
          "</select> <button>Diff</button></form>";
  if (data.a && data.b) {
    auto view = request.params.find("view");
    const bool split = view != request.params.end() && view->second == "split";
    const std::string pair = "?a=" + a + "&amp;b=" + b;
    body += "<h2 id=\"diff\">Diff: " + submission_link(a) + " → " + submission_link(b) +
            "</h2><p class=\"views\">" +
            (split ? "<a href=\"" + pair + "#diff\">unified</a> · side by side"
                   : "unified · <a href=\"" + pair + "&amp;view=split#diff\">side by side</a>") +
            "</p>" + (split ? diff_table_split(data.diff) : diff_table(data.diff));
  }
  return html_response(page(name + " on " + text_of(rows.at(0, "problem_name")), "user", body));
}

// Submission and leaderboard ids equal to the text, and the leaderboards and users whose names or
// ids hold it (ASCII case ignored), at most 50 of each.
Site::SearchAnswer Site::search_answer(const std::string& q) {
  SearchAnswer out;
  out.query = q;
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
      std::lock_guard lock(mutex_);
      out.submissions = show_rows(dir(), std::stoll(q), options_.threads);
    } catch (const NotFoundError&) {
      // no such submission: the other results only
    }
  }
  for (const Board& b : *boards()) {
    if (out.leaderboards.size() >= 50) break;
    if (holds(shown(b.name)) || (number && std::to_string(b.id) == q))
      out.leaderboards.push_back(b);
  }
  for (const UserEntry& u : *users()) {
    if (out.users.size() >= 50) break;
    if (holds(u.user_id) || (u.user_name && holds(*u.user_name))) out.users.push_back(u);
  }
  return out;
}

std::string Site::search_json(const std::string& q) {
  const SearchAnswer data = search_answer(q);
  json out = {{"query", data.query},
              {"submissions", json::array()},
              {"leaderboards", json::array()},
              {"users", json::array()}};
  for (const dataset::Submission& s : data.submissions) {
    out["submissions"].push_back({{"submission_id", s.submission_id},
                                  {"problem_name", shown(s.problem_name)},
                                  {"user_name", s.user_name ? json(shown(*s.user_name)) : json()},
                                  {"runner", s.runner ? json(shown(*s.runner)) : json()}});
  }
  for (const Board& b : data.leaderboards) {
    json lb = {{"id", b.id}, {"name", shown(b.name)}};
    if (!b.note.empty()) lb["note"] = b.note;
    out["leaderboards"].push_back(std::move(lb));
  }
  for (const UserEntry& u : data.users) {
    out["users"].push_back({{"leaderboard_id", u.leaderboard_id},
                            {"problem_name", u.problem_name},
                            {"user_id", u.user_id},
                            {"user_name", u.user_name ? json(*u.user_name) : json()}});
  }
  return out.dump();
}

HttpResponse Site::search(const std::string& q) {
  const SearchAnswer data = search_answer(q);
  std::string body = "<ul class=\"results\">";
  for (const dataset::Submission& s : data.submissions) {
    body += "<li>submission " + submission_link(std::to_string(s.submission_id)) + " on " +
            escape(shown(s.problem_name)) + "</li>";
  }
  for (const Board& b : data.leaderboards) {
    body += "<li>leaderboard <a href=\"/leaderboard/" + std::to_string(b.id) + "\">" +
            escape(shown(b.name)) + "</a></li>";
  }
  for (const UserEntry& u : data.users) {
    body += "<li>user " + user_link(u.leaderboard_id, u.user_id, u.user_name) + " on " +
            escape(u.problem_name) + "</li>";
  }
  body += "</ul>";
  if (data.submissions.empty() && data.leaderboards.empty() && data.users.empty()) {
    body += "<p>Nothing found.</p>";
  }
  return html_response(page("Search: " + q, "search", body));
}

// Every (leaderboard, user) of the folder, read once (no code) and kept, and again after the
// data changed: about 100 bytes each. Their texts as the writer shows them (ill-formed UTF-8
// repaired), so that they can be searched and sent as JSON.
std::shared_ptr<const std::vector<Site::UserEntry>> Site::users() {
  uint64_t generation = 0;
  {
    std::lock_guard lock(memo_mutex_);
    if (users_) return users_;
    generation = generation_;
  }
  std::lock_guard command_lock(mutex_);
  const dataset::DataDir d = dir();
  dataset::LoadOptions options;
  options.threads = options_.threads;
  options.with_details = false;
  std::set<std::pair<int64_t, std::string>> seen;
  auto all = std::make_shared<std::vector<UserEntry>>();
  load(d, options, [&](dataset::Submission&& s) {
    if (!seen.insert({s.leaderboard_id, s.user_id}).second) return;
    all->push_back({s.leaderboard_id, shown(s.problem_name), shown(s.user_id),
                    s.user_name ? std::optional(shown(*s.user_name)) : std::nullopt});
  });
  std::lock_guard lock(memo_mutex_);
  if (generation == generation_ && !users_) users_ = all;
  return all;
}

}  // namespace kbdata::serve
