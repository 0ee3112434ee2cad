// The web explorer's site (docs/serve.md): its routes, its pages and their JSON twins, over one
// data folder, answered by the queries (query/) directly: a twin is the answers rendered by the
// one writer (report::json_text), a page reads the same answers as typed rows. What was worked out
// from the files (the leaderboards' pages, their list, the users) is kept until the files change.
//
//   Site          the routes (add_routes), the index's status, the folder's watch (data_changed)
//   SiteOptions   how the site opens the folder, and the configs listing (an hf:// data set's
//                 comes from the hub, which the site does not know)
//   IndexStatus   what /api/status says of the in-memory index (dataset/resident.h)
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "dataset/data_dir.h"
#include "dataset/resident.h"
#include "serve/http_server.h"

namespace kbdata::serve {

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

struct SiteOptions {
  std::string folder;  // the data's path as opened (a folder, or an hf:// address)
  int threads = 1;     // each load's (dataset::LoadOptions::threads)
  // Scans the folder afresh, as every answer does (a file may have changed). Throws what a scan
  // throws (an unreadable file, unless the command was told to skip such files).
  std::function<dataset::DataDir()> open;
  // /api/configs: the configs query's answer (query/configs.h) as one JSON document, as `kbdata
  // configs --format json` prints it: a folder's, or an hf:// data set's from the hub's tree,
  // which the site cannot list itself.
  std::function<std::string()> configs_json;
};

class Site {
 public:
  explicit Site(SiteOptions options);
  ~Site();
  Site(const Site&) = delete;
  Site& operator=(const Site&) = delete;

  void set_status(const IndexStatus& status);
  // Loads from now on read `resident` where it serves them (not once the data changed).
  void set_resident(std::shared_ptr<const dataset::Resident> resident, const IndexStatus& status);
  [[nodiscard]] bool stale() const;

  // Asked before every answer (ServerOptions::data_changed): whether the folder's files changed
  // since the last call. The first change drops the index (loads read the files; the status says
  // "stale"); every change drops what was worked out from the old files (the leaderboards' pages,
  // their list, the users' list), and the server drops its cached answers.
  bool data_changed();

  void add_routes(Server& server);

  // Works out every leaderboard's pages (after the index is ready, so that no page waits for
  // them), until `stop`. Returns the bytes the memo holds.
  uint64_t warm(const std::atomic<bool>& stop);

 private:
  struct Board;
  struct UserEntry;
  struct Computed;
  struct SubmissionAnswer;
  struct UserAnswer;
  struct SearchAnswer;
  struct PlaceAnswer;
  // The folder, opened afresh, with the index once built (and not stale).
  [[nodiscard]] dataset::DataDir dir() const;
  std::string page(std::string_view title, std::string_view kind, std::string_view body) const;
  [[nodiscard]] std::string status_json() const;

  std::shared_ptr<const std::vector<Board>> boards();
  [[nodiscard]] bool is_board(int64_t id);
  std::string problem_of(int64_t id);
  std::shared_ptr<const std::vector<UserEntry>> users();

  template <typename Compute>
  std::shared_ptr<const Computed> remembered(
      std::map<int64_t, std::shared_ptr<const Computed>>& memo, int64_t id, Compute compute);
  std::shared_ptr<const Computed> leaderboard_answer(int64_t id);
  std::shared_ptr<const Computed> trend_answer(int64_t id);
  [[nodiscard]] std::shared_ptr<Computed> compute_leaderboard(int64_t id);
  [[nodiscard]] std::shared_ptr<Computed> compute_trend(int64_t id);
  SubmissionAnswer submission_answer(int64_t id);
  UserAnswer user_answer(int64_t leaderboard, const std::string& user, const HttpRequest& request,
                         std::string* svg = nullptr);
  SearchAnswer search_answer(const std::string& q);
  std::optional<PlaceAnswer> place_answer(int64_t id, const HttpRequest& request,
                                          const std::vector<std::string>& runners);
  std::string search_json(const std::string& q);

  HttpResponse home();
  HttpResponse leaderboard(int64_t id, const HttpRequest& request);
  HttpResponse leaderboard_twin(int64_t id, const HttpRequest& request);
  HttpResponse trend(int64_t id);
  HttpResponse submission(int64_t id);
  HttpResponse user(int64_t leaderboard, const std::string& user_id, const HttpRequest& request);
  HttpResponse search(const std::string& q);

  SiteOptions options_;
  // What was worked out from the files, dropped when they change (generation_ counts the
  // changes: what was made across one is not kept).
  std::mutex memo_mutex_;
  uint64_t generation_ = 0;
  std::shared_ptr<const std::vector<Board>> boards_;
  std::map<int64_t, std::shared_ptr<const Computed>> leaderboards_;
  std::map<int64_t, std::shared_ptr<const Computed>> trends_;
  uint64_t memo_bytes_ = 0;
  std::shared_ptr<const std::vector<UserEntry>> users_;
  mutable std::mutex data_mutex_;
  std::shared_ptr<const dataset::Resident> resident_;
  IndexStatus status_;
  FolderStamp stamp_;   // the folder's files when last looked at
  bool stale_ = false;  // the files changed since the server started
  // One computation at a time: the queries load the folder with every core.
  std::mutex mutex_;
};

}  // namespace kbdata::serve
