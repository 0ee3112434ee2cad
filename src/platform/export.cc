#include "platform/export.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <random>
#include <set>
#include <thread>

#include "common/file.h"
#include "common/thread_pool.h"
#include "dataset/flat_file_writer.h"
#include "dataset/leaderboards_schema.h"
#include "dataset/legacy_schema.h"
#include "dataset/registry.h"
#include "parquet/write/row_file_writer.h"
#include "parquet/write/writer_options.h"
#include "platform/connection.h"
#include "platform/dataset_card.h"
#include "platform/export_folder.h"
#include "platform/json_struct.h"
#include "platform/libpq_api.h"

namespace kbdata::platform {
namespace {

// Rows per FETCH start here and adapt so that one batch holds about kFetchBytes.
constexpr int kFirstFetchRows = 256;
constexpr size_t kFetchBytes = size_t{8} << 20;
// The writer's row groups: at most 100,000 rows or 16 MiB encoded (the writer holds one).
constexpr size_t kRowGroupBytes = size_t{16} << 20;

const char* const kFlatRule =
    "one row per (leaderboard_id, user_id, code_id, runner): per submission every public "
    "leaderboard run (not secret) on a runner where the submission has a passing and no failing "
    "secret leaderboard run, whatever its score or passed, else one row with null "
    "score/passed/mode/runner; dedup keeps the lowest score (nulls last), then the earliest "
    "submission_time, then the lowest submission_id, then the lowest run id; status hacked for "
    "a submission marked hacked (submission or job status); sorted by problem_name, score nulls "
    "last, submission_id, runner; code decoded (docs/export.md)";
const char* const kLegacyRule =
    "one row per run (secret runs included), user_id a random permutation of 1..N never written "
    "anywhere, run_* structs from the jsonb values (union of keys), code decoded; sorted by "
    "submission_id, run_id (docs/export.md)";

std::string id_array(const std::vector<int64_t>& ids) {
  std::string out = "'{";
  for (size_t i = 0; i < ids.size(); ++i) out += (i ? "," : "") + std::to_string(ids[i]);
  return out + "}'::int[]";
}

std::string micros(const std::string& column) {
  return "(extract(epoch FROM " + column + ") * 1000000)::int8";
}

// The flat config's query (docs/export.md, "Flat configs"); columns in FlatColumn order.
std::string flat_query(const std::vector<int64_t>& ids) {
  return R"(
WITH sub AS (
  SELECT s.id, s.leaderboard_id, s.user_id, s.code_id, s.file_name, s.submission_time, s.done,
         s.status, j.status AS job_status,
         s.status = 'hacked' OR j.status = 'hacked' AS hacked
  FROM leaderboard.submission s
  LEFT JOIN leaderboard.submission_job_status j ON j.submission_id = s.id
  WHERE s.leaderboard_id = ANY()" +
         id_array(ids) + R"()
), secret AS (
  SELECT r.submission_id, r.runner, bool_or(r.passed IS TRUE) AS any_passed,
         bool_or(r.passed IS NOT TRUE) AS any_failed
  FROM leaderboard.runs r JOIN sub ON sub.id = r.submission_id
  WHERE r.mode = 'leaderboard' AND r.secret IS TRUE
  GROUP BY r.submission_id, r.runner
), joined AS (
  SELECT r.id AS run_id, r.submission_id, r.runner, r.score::float8 AS score, r.passed
  FROM leaderboard.runs r
  JOIN secret x ON x.submission_id = r.submission_id AND x.runner = r.runner
  WHERE r.mode = 'leaderboard' AND r.secret IS FALSE AND x.any_passed AND NOT x.any_failed
), candidate AS (
  SELECT sub.*, j.run_id, j.runner, j.score, j.passed,
         row_number() OVER (PARTITION BY sub.leaderboard_id, sub.user_id, sub.code_id, j.runner
                            ORDER BY j.score NULLS LAST, sub.submission_time, sub.id, j.run_id)
           AS keep
  FROM sub LEFT JOIN joined j ON j.submission_id = sub.id
)
SELECT c.id::int8, c.leaderboard_id::int8, l.name, c.user_id, coalesce(u.user_name, ''),
       c.code_id::int8, c.file_name, )" +
         micros("c.submission_time") + R"(,
       CASE WHEN c.hacked THEN 'hacked'
            WHEN c.done IS TRUE AND c.score IS NOT NULL AND c.passed THEN 'succeeded'
            WHEN c.done IS TRUE THEN CASE WHEN c.job_status IS NOT NULL
                                           AND c.job_status <> 'succeeded'
                                          THEN c.job_status ELSE 'failed' END
            ELSE coalesce(c.job_status, c.status) END,
       c.score, c.passed, CASE WHEN c.run_id IS NOT NULL THEN 'leaderboard' END, c.runner,
       CASE WHEN f.old_code IS NOT NULL THEN convert_to(f.old_code, 'UTF8') ELSE f.code END
FROM candidate c
JOIN leaderboard.leaderboard l ON l.id = c.leaderboard_id
JOIN leaderboard.code_files f ON f.id = c.code_id
LEFT JOIN leaderboard.user_info u ON u.id = c.user_id
WHERE c.keep = 1
ORDER BY l.name, c.score NULLS LAST, c.id, c.runner NULLS LAST)";
}

std::string legacy_query(const ConfigSpec& spec) {
  return "SELECT s.id::int8, s.leaderboard_id::int8, s.user_id, " + micros("s.submission_time") +
         ", s.file_name, CASE WHEN f.old_code IS NOT NULL THEN convert_to(f.old_code, 'UTF8') "
         "ELSE f.code END, s.code_id::int8, r.id::int8, " +
         micros("r.start_time") + ", " + micros("r.end_time") +
         ", r.mode, r.score::float8, r.passed, r.compilation::text, r.meta::text, "
         "r.result::text, r.system_info::text "
         "FROM leaderboard.runs r JOIN leaderboard.submission s ON s.id = r.submission_id "
         "JOIN leaderboard.code_files f ON f.id = s.code_id WHERE s.leaderboard_id = ANY(" +
         id_array(spec.leaderboards) + ")" +
         (passing_runs_only(spec.name) ? " AND r.passed IS TRUE" : "") + " ORDER BY s.id, r.id";
}

std::string legacy_runs_from_where(const std::vector<int64_t>& ids, bool passed_only) {
  return "FROM leaderboard.runs r JOIN leaderboard.submission s ON s.id = r.submission_id WHERE "
         "s.leaderboard_id = ANY(" +
         id_array(ids) + ")" + (passed_only ? " AND r.passed IS TRUE" : "");
}

// One output file, kept uncommitted until the whole export succeeded.
struct PendingFile {
  std::string config;
  std::string file;
  OutputTarget target;                             // in the staged folder
  std::unique_ptr<parquet::RowFileWriter> writer;  // once its worker started it
  int64_t rows = 0;
  uint64_t bytes = 0;
};

// Shared by the workers: the progress callback (called by one worker at a time), the writers'
// threads and a stop flag once one failed.
class ExportState {
 public:
  ExportState(const ProgressFn& progress, int writer_threads)
      : threads(writer_threads), progress_(progress) {}
  // A file's rows so far: its stage is the file's name.
  void report(const std::string& file, int64_t rows) {
    if (!progress_) return;
    std::lock_guard<std::mutex> lock(mutex_);
    progress_({.stage = file, .done = static_cast<uint64_t>(rows), .total = 0, .unit = "rows"});
  }
  const int threads;  // each writer's compression threads
  std::atomic<bool> stop{false};
  std::mutex code_mutex;
  dataset::CodeRepairCounts code;

 private:
  const ProgressFn& progress_;
  std::mutex mutex_;
};

// kbdata's layout (page index, LZ4_RAW) with row groups of at most 100,000 rows or 16 MiB,
// compressed on `threads` threads.
parquet::WriterOptions writer_options(int threads) {
  parquet::WriterOptions w = parquet::writer_options_on(threads);
  w.codec = parquet::Codec::LZ4_RAW;
  w.page_index = true;
  w.row_group_bytes = kRowGroupBytes;
  w.row_group_rows = 100'000;
  return w;
}

parquet::Provenance provenance(const std::string& rule, const std::string& source) {
  parquet::Provenance p;
  p.rule = rule;
  p.source = source;
  return p;
}

// Closes `file`'s writer and records its rows and size.
void finish(PendingFile& file) {
  file.writer->close();
  file.rows = file.writer->rows();
  file.bytes = file.writer->bytes_written();
}

// Fetches `cursor` to the end, calling row(result, i) for every row; adapts the batch size.
template <typename Row>
void stream(Connection& db, const std::string& sql, ExportState& state, const std::string& file,
            const std::function<int64_t()>& rows_so_far, Row row) {
  db.exec("DECLARE export_rows NO SCROLL CURSOR FOR " + sql);
  int batch = kFirstFetchRows;
  for (;;) {
    if (state.stop) return;
    Result r = db.exec_binary("FETCH FORWARD " + std::to_string(batch) + " FROM export_rows");
    if (r.rows() == 0) break;
    size_t bytes = 0;
    for (int i = 0; i < r.rows(); ++i) {
      for (int c = 0; c < r.columns(); ++c) bytes += r.bytes(i, c).size();
      row(r, i);
    }
    const size_t per_row = std::max<size_t>(1, bytes / static_cast<size_t>(r.rows()));
    batch = static_cast<int>(std::clamp<size_t>(kFetchBytes / per_row, 16, 4096));
    state.report(file, rows_so_far());
  }
  db.exec("CLOSE export_rows");
  state.report(file, rows_so_far());
}

std::string code_text(const Result& r, int row, int column, dataset::CodeRepairCounts& counts) {
  return dataset::decode_code(r.bytes(row, column), false, counts);
}

void write_flat(Connection& db, const ConfigSpec& spec, PendingFile& file, ExportState& state,
                const std::string& source) {
  using namespace dataset;
  // Rows come from SQL, with nulls the submission model has no room for (a null status): they are
  // given column by column.
  auto writer = std::make_unique<FlatFileWriter>(file.target, flat_file_columns(),
                                                 writer_options(state.threads),
                                                 provenance(kFlatRule, source));
  FlatFileWriter& out = *writer;
  file.writer = std::move(writer);
  CodeRepairCounts counts;
  stream(
      db, flat_query(spec.leaderboards), state, file.file, [&] { return out.rows(); },
      [&](const Result& r, int i) {
        auto opt_i64 = [&](int col, FlatColumn column) {
          r.is_null(i, col) ? out.column(column).null()
                            : out.column<int64_t>(column).value(r.int64(i, col));
        };
        auto opt_text = [&](int col, FlatColumn column) {
          r.is_null(i, col) ? out.column(column).null()
                            : out.column<std::string_view>(column).value(r.bytes(i, col));
        };
        opt_i64(0, SUBMISSION_ID);
        opt_i64(1, LEADERBOARD_ID);
        opt_text(2, PROBLEM_NAME);
        opt_text(3, USER_ID);
        opt_text(4, USER_NAME);
        opt_i64(5, CODE_ID);
        opt_text(6, FILE_NAME);
        opt_i64(7, SUBMISSION_TIME);
        opt_text(8, STATUS);
        r.is_null(i, 9) ? out.column(SCORE).null()
                        : out.column<double>(SCORE).value(r.float64(i, 9));
        r.is_null(i, 10) ? out.column(PASSED).null()
                         : out.column<bool>(PASSED).value(r.boolean(i, 10));
        opt_text(11, MODE);
        opt_text(12, RUNNER);
        if (r.is_null(i, 13)) {
          out.column(CODE).null();
        } else {
          out.column<std::string_view>(CODE).value(code_text(r, i, 13, counts));
        }
        out.end_row();
      });
  if (state.stop) return;
  finish(file);
  std::lock_guard<std::mutex> lock(state.code_mutex);
  state.code += counts;
}

void write_legacy(Connection& db, const ConfigSpec& spec, PendingFile& file, ExportState& state,
                  const std::string& source, const std::map<std::string, int64_t>& anonymous) {
  const bool passed_only = passing_runs_only(spec.name);
  const std::string from_where = legacy_runs_from_where(spec.leaderboards, passed_only);
  std::vector<StructShape> shapes;
  for (auto [column, jsonb] :
       {std::pair{"run_compilation", "compilation"}, std::pair{"run_meta", "meta"},
        std::pair{"run_result", "result"}, std::pair{"run_system_info", "system_info"}}) {
    shapes.push_back(discover_struct(db, column, jsonb, from_where));
  }
  std::vector<parquet::Field> fields = dataset::legacy_run_fields({});
  for (const StructShape& shape : shapes) {
    if (std::optional<parquet::Field> field = struct_field(shape)) fields.push_back(*field);
  }

  const std::string sql = legacy_query(spec);

  file.writer = std::make_unique<parquet::RowFileWriter>(
      file.target, fields, writer_options(state.threads), provenance(kLegacyRule, source));
  parquet::RowFileWriter& out = *file.writer;
  dataset::CodeRepairCounts counts;
  // Code is decoded once per submission (rows come by submission).
  int64_t code_submission = -1;
  std::string code;
  using dataset::leaf;
  using dataset::LegacyColumn;
  stream(
      db, sql, state, file.file, [&] { return out.rows(); },
      [&](const Result& r, int i) {
        auto opt_i64 = [&](int col, LegacyColumn column) {
          r.is_null(i, col) ? out.column(leaf(column)).null()
                            : out.column<int64_t>(leaf(column)).value(r.int64(i, col));
        };
        auto opt_text = [&](int col, LegacyColumn column) {
          r.is_null(i, col) ? out.column(leaf(column)).null()
                            : out.column<std::string_view>(leaf(column)).value(r.bytes(i, col));
        };
        const int64_t submission = r.int64(i, 0);
        const int64_t run_id = r.int64(i, 7);
        opt_i64(0, LegacyColumn::SUBMISSION_ID);
        opt_i64(1, LegacyColumn::LEADERBOARD_ID);
        auto user = anonymous.find(std::string(r.bytes(i, 2)));
        if (user == anonymous.end()) {
          throw FormatError("run " + std::to_string(run_id) + ": user of submission " +
                            std::to_string(submission) + " is not in the anonymisation table");
        }
        out.column<int64_t>(leaf(LegacyColumn::USER_ID)).value(user->second);
        opt_i64(3, LegacyColumn::SUBMISSION_TIME);
        opt_text(4, LegacyColumn::FILE_NAME);
        if (submission != code_submission) {
          code = r.is_null(i, 5) ? std::string() : code_text(r, i, 5, counts);
          code_submission = submission;
        }
        r.is_null(i, 5) ? out.column(leaf(LegacyColumn::CODE)).null()
                        : out.column<std::string_view>(leaf(LegacyColumn::CODE)).value(code);
        opt_i64(6, LegacyColumn::CODE_ID);
        opt_i64(7, LegacyColumn::RUN_ID);
        opt_i64(8, LegacyColumn::RUN_START_TIME);
        opt_i64(9, LegacyColumn::RUN_END_TIME);
        opt_text(10, LegacyColumn::RUN_MODE);
        r.is_null(i, 11)
            ? out.column(leaf(LegacyColumn::RUN_SCORE)).null()
            : out.column<double>(leaf(LegacyColumn::RUN_SCORE)).value(r.float64(i, 11));
        r.is_null(i, 12) ? out.column(leaf(LegacyColumn::RUN_PASSED)).null()
                         : out.column<bool>(leaf(LegacyColumn::RUN_PASSED)).value(r.boolean(i, 12));
        size_t first = dataset::kLegacyColumnCount;
        for (size_t k = 0; k < shapes.size(); ++k) {
          const int col = 13 + static_cast<int>(k);
          std::optional<std::string_view> json;
          if (!r.is_null(i, col)) json = r.bytes(i, col);
          append_struct_value(shapes[k], json, out, first, run_id);
          first += shapes[k].fields.size();
        }
        out.end_row();
      });
  if (state.stop) return;
  finish(file);
  std::lock_guard<std::mutex> lock(state.code_mutex);
  state.code += counts;
}

void write_leaderboards(Connection& db, const std::vector<int64_t>& ids, PendingFile& file,
                        ExportState& state, const std::string& source,
                        std::vector<CardLeaderboard>& card) {
  file.writer = std::make_unique<parquet::RowFileWriter>(
      file.target, dataset::leaderboards_fields(), writer_options(state.threads),
      provenance("one row per exported leaderboard, by id", source));
  parquet::RowFileWriter& out = *file.writer;
  const std::string sql =
      "SELECT l.id::int8, l.name, " + micros("l.deadline") +
      ", l.task->>'lang', l.description, (SELECT e.value FROM jsonb_each_text(l.task->'files') e "
      "WHERE e.key LIKE 'reference%' ORDER BY e.key LIMIT 1), coalesce((SELECT "
      "string_agg(g.gpu_type, E'\\x1f' ORDER BY g.gpu_type) FROM leaderboard.gpu_type g WHERE "
      "g.leaderboard_id = l.id), ''), to_char(l.deadline AT TIME ZONE 'UTC', "
      "'YYYY-MM-DD HH24:MI \"UTC\"') FROM leaderboard.leaderboard l WHERE l.id = ANY(" +
      id_array(ids) + ") ORDER BY l.id";
  using dataset::LeaderboardColumn;
  using dataset::leaf;
  stream(
      db, sql, state, file.file, [&] { return out.rows(); },
      [&](const Result& r, int i) {
        out.column<int64_t>(leaf(LeaderboardColumn::ID)).value(r.int64(i, 0));
        out.column<std::string_view>(leaf(LeaderboardColumn::NAME)).value(r.bytes(i, 1));
        out.column<int64_t>(leaf(LeaderboardColumn::DEADLINE)).value(r.int64(i, 2));
        for (LeaderboardColumn column : {LeaderboardColumn::LANG, LeaderboardColumn::DESCRIPTION,
                                         LeaderboardColumn::REFERENCE}) {
          const int col = static_cast<int>(leaf(column));
          r.is_null(i, col) ? out.column(leaf(column)).null()
                            : out.column<std::string_view>(leaf(column)).value(r.bytes(i, col));
        }
        std::vector<std::string> gpus;
        std::string_view list = r.bytes(i, 6);
        while (!list.empty()) {
          size_t end = list.find('\x1f');
          gpus.emplace_back(list.substr(0, end));
          list = end == std::string_view::npos ? std::string_view() : list.substr(end + 1);
        }
        parquet::BytesBuilder& gpu_types =
            out.column<std::string_view>(leaf(LeaderboardColumn::GPU_TYPES));
        gpu_types.begin_list();
        for (const std::string& gpu : gpus) gpu_types.value(gpu);
        gpu_types.end_list();
        card.push_back(
            {r.int64(i, 0), std::string(r.bytes(i, 1)), std::string(r.bytes(i, 7)), gpus});
        out.end_row();
      });
  finish(file);
}

void check_options(const ExportOptions& options) {
  if (options.configs.empty()) {
    throw UsageError("nothing to export: give at least one ", OptionName("config", "NAME=IDS"),
                     " or ", OptionName("legacy", "NAME=IDS"));
  }
  if (options.jobs < 1) {
    throw UsageError(OptionName("jobs", std::to_string(options.jobs)), ": must be at least 1");
  }
  std::set<std::string> names;
  std::set<std::string> files = {"leaderboards.parquet", "README.md"};
  for (const ConfigSpec& spec : options.configs) {
    if (!names.insert(spec.name).second) {
      throw UsageError("config '" + spec.name + "' is given twice");
    }
    if (spec.name == "leaderboards") {
      throw UsageError("config name 'leaderboards' is reserved for leaderboards.parquet");
    }
    if (!files.insert(config_file_name(spec.name)).second) {
      throw UsageError("config '" + spec.name + "' would be written to " +
                       config_file_name(spec.name) + ", which another output uses");
    }
  }
}

}  // namespace

ConfigSpec parse_config_spec(std::string_view text, bool legacy, std::string_view option) {
  const std::string where = std::string(option) + " '" + std::string(text) + "'";
  const size_t eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    throw UsageError(where + ": expected NAME=ID,ID,...");
  }
  ConfigSpec spec;
  spec.name = std::string(text.substr(0, eq));
  spec.legacy = legacy;
  for (char ch : spec.name) {
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_' && ch != '-') {
      throw UsageError(where + ": a config name holds letters, digits, '_' and '-' only");
    }
  }
  std::string_view ids = text.substr(eq + 1);
  std::set<int64_t> seen;
  while (!ids.empty() || spec.leaderboards.empty()) {
    const size_t comma = ids.find(',');
    std::string_view item = ids.substr(0, comma);
    int64_t id = 0;
    bool ok = !item.empty() && item.size() <= 10;
    for (char ch : item) {
      if (ch < '0' || ch > '9')
        ok = false;
      else
        id = id * 10 + (ch - '0');
    }
    if (!ok || id <= 0 || id > INT32_MAX) {
      throw UsageError(where + ": '" + std::string(item) + "' is not a leaderboard id");
    }
    if (seen.insert(id).second) spec.leaderboards.push_back(id);
    if (comma == std::string_view::npos) break;
    ids = ids.substr(comma + 1);
    if (ids.empty()) throw UsageError(where + ": a trailing ','");
  }
  return spec;
}

std::string config_file_name(const std::string& config) {
  const dataset::ConfigInfo* info = dataset::find_config(config);
  if (info != nullptr && info->name == config) return info->file;
  return config + ".parquet";
}

std::string config_query(const ConfigSpec& spec) {
  return spec.legacy ? legacy_query(spec) : flat_query(spec.leaderboards);
}

bool passing_runs_only(const std::string& config) { return config == "amd_successful_submissions"; }

namespace {

// The leaderboards `configs` name, checked in the transaction's snapshot.
struct CheckedLeaderboards {
  std::vector<int64_t> ids;         // every leaderboard of the configs, ascending, each once
  std::vector<int64_t> open;        // those whose deadline is in the future (allow_open)
  std::vector<int64_t> not_public;  // those whose visibility is not 'public' (allow_open)
  std::string snapshot_time;        // the server's now(), UTC
};

// Every leaderboard must exist (else UsageError); unless `allow_open`, a public export refuses
// (ExportRefused) one still open or not public. A database from before the platform had
// `visibility` has only public leaderboards.
CheckedLeaderboards check_leaderboards(Connection& db, const std::vector<ConfigSpec>& configs,
                                       bool allow_open) {
  std::vector<int64_t> all_ids;
  std::map<int64_t, std::string> config_of;
  for (const ConfigSpec& spec : configs) {
    for (int64_t id : spec.leaderboards) {
      if (config_of.emplace(id, spec.name).second) all_ids.push_back(id);
    }
  }
  std::sort(all_ids.begin(), all_ids.end());
  const bool has_visibility =
      db.exec(
            "SELECT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = "
            "'leaderboard' AND table_name = 'leaderboard' AND column_name = 'visibility')")
          .bytes(0, 0) == "t";
  Result boards = db.exec(
      "SELECT l.id, l.name, l.deadline > now(), to_char(l.deadline AT TIME ZONE 'UTC', "
      "'YYYY-MM-DD HH24:MI \"UTC\"'), to_char(now() AT TIME ZONE 'UTC', "
      "'YYYY-MM-DD HH24:MI:SS \"UTC\"'), " +
      std::string(has_visibility ? "l.visibility" : "'public'") +
      " FROM leaderboard.leaderboard l WHERE l.id = ANY(" + id_array(all_ids) + ") ORDER BY l.id");
  std::set<int64_t> found;
  CheckedLeaderboards out;
  for (int i = 0; i < boards.rows(); ++i) {
    const int64_t id = std::stoll(std::string(boards.bytes(i, 0)));
    const std::string board = "leaderboard " + std::to_string(id) + " '" +
                              std::string(boards.bytes(i, 1)) + "' (config " + config_of[id] + ")";
    found.insert(id);
    if (boards.bytes(i, 2) == "t") {
      out.open.push_back(id);
      if (!allow_open) {
        throw ExportRefused(board + " is still open: its deadline " +
                                std::string(boards.bytes(i, 3)) +
                                " is in the future; a public export refuses it (",
                            OptionName::flag("private"), " allows it)");
      }
    }
    if (boards.is_null(i, 5) || boards.bytes(i, 5) != "public") {
      out.not_public.push_back(id);
      if (!allow_open) {
        const std::string visibility =
            boards.is_null(i, 5) ? "null" : "'" + std::string(boards.bytes(i, 5)) + "'";
        throw ExportRefused(board + " is not public: its visibility is " + visibility +
                                "; a public export refuses it (",
                            OptionName::flag("private"), " allows it)");
      }
    }
  }
  for (int64_t id : all_ids) {
    if (!found.count(id)) {
      throw UsageError(db.name() + ": leaderboard " + std::to_string(id) + " (config " +
                       config_of[id] + ") does not exist");
    }
  }
  out.ids = std::move(all_ids);
  out.snapshot_time = boards.rows() > 0 ? std::string(boards.bytes(0, 4)) : "";
  return out;
}

// The anonymisation of the legacy configs of `configs`: their users (ids as text) mapped to one
// permutation of 1..N, drawn from `seed` when given, else from the system's randomness.
std::map<std::string, int64_t> anonymous_users(Connection& db,
                                               const std::vector<ConfigSpec>& configs,
                                               std::optional<uint64_t> seed) {
  std::map<std::string, int64_t> anonymous;
  std::vector<int64_t> legacy_ids;
  for (const ConfigSpec& spec : configs) {
    if (spec.legacy)
      legacy_ids.insert(legacy_ids.end(), spec.leaderboards.begin(), spec.leaderboards.end());
  }
  if (!legacy_ids.empty()) {
    Result users = db.exec(
        "SELECT DISTINCT s.user_id FROM leaderboard.submission s WHERE "
        "s.leaderboard_id = ANY(" +
        id_array(legacy_ids) + ") ORDER BY 1");
    std::vector<int64_t> permutation(static_cast<size_t>(users.rows()));
    std::iota(permutation.begin(), permutation.end(), 1);
    std::mt19937_64 rng;
    if (seed) {
      rng.seed(*seed);
    } else {
      std::random_device device;
      std::seed_seq seq{device(), device(), device(), device(),
                        device(), device(), device(), device()};
      rng.seed(seq);
    }
    std::shuffle(permutation.begin(), permutation.end(), rng);
    for (int i = 0; i < users.rows(); ++i) {
      anonymous.emplace(std::string(users.bytes(i, 0)), permutation[static_cast<size_t>(i)]);
    }
  }
  return anonymous;
}

}  // namespace

ExportResult run_export(const ExportOptions& options) {
  check_options(options);
  // libpq before the output folder: a machine without it fails with nothing created.
  static_cast<void>(libpq());

  // The output folder is checked before any database work; nothing is created before the
  // leaderboards are checked.
  std::vector<std::string> names;
  for (const ConfigSpec& spec : options.configs) names.push_back(config_file_name(spec.name));
  names.push_back("leaderboards.parquet");
  names.push_back("README.md");
  ExportFolder folder(options.out_dir, names, options.allow_open, options.force);

  std::unique_ptr<Connection> main = Connection::connect(options.url, "kbdata export");
  Connection& db = *main;
  db.exec("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY");

  const CheckedLeaderboards checked = check_leaderboards(db, options.configs, options.allow_open);
  const std::vector<int64_t>& all_ids = checked.ids;

  // The outputs' temporary files, in the staged folder beside DIR.
  folder.stage();
  std::vector<PendingFile> files;
  for (size_t i = 0; i < names.size() - 1; ++i) {
    const std::string config =
        i < options.configs.size() ? options.configs[i].name : "leaderboards";
    files.push_back({config, names[i], folder.target(names[i]), nullptr, 0, 0});
  }
  AtomicOutputFile readme(folder.target("README.md"));
  uint64_t readme_bytes = 0;
  const std::string source = "PostgreSQL " + db.name() + ", schema leaderboard, snapshot of " +
                             checked.snapshot_time + (options.allow_open ? ", private export" : "");

  const std::map<std::string, int64_t> anonymous =
      anonymous_users(db, options.configs, options.permutation_seed);

  ExportState state(options.progress, options.threads);
  auto export_config = [&](Connection& conn, size_t index) {
    const ConfigSpec& spec = options.configs[index];
    if (spec.legacy) {
      write_legacy(conn, spec, files[index], state, source, anonymous);
    } else {
      write_flat(conn, spec, files[index], state, source);
    }
  };
  const int jobs = std::min<int>(options.jobs, static_cast<int>(options.configs.size()));
  if (jobs <= 1) {
    for (size_t i = 0; i < options.configs.size(); ++i) export_config(db, i);
  } else {
    // Every worker reads the main transaction's snapshot.
    Result snapshot = db.exec("SELECT pg_export_snapshot()");
    const std::string snapshot_id(snapshot.bytes(0, 0));
    std::vector<std::unique_ptr<Connection>> workers;
    for (int w = 0; w < jobs; ++w) {
      workers.push_back(Connection::connect(options.url, "kbdata export"));
      workers.back()->exec("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY");
      workers.back()->exec("SET TRANSACTION SNAPSHOT '" + snapshot_id + "'");
    }
    // One worker of the pool per connection: a worker writes its configs on its own.
    ThreadPool pool(jobs);
    run_on_workers(&pool, options.configs.size(), workers.size(), [&](size_t i, size_t worker) {
      try {
        export_config(*workers[worker], i);
      } catch (...) {
        state.stop = true;  // the other workers' cursors stop at their next fetch
        throw;
      }
    });
    for (auto& w : workers) w->exec("COMMIT");
  }

  std::vector<CardLeaderboard> card_boards;
  write_leaderboards(db, all_ids, files.back(), state, source, card_boards);
  db.exec("COMMIT");

  // The card, from the files as written.
  std::vector<CardConfig> card_configs;
  for (size_t i = 0; i < options.configs.size(); ++i) {
    card_configs.push_back({options.configs[i].name, files[i].file, files[i].rows, files[i].bytes,
                            options.configs[i].leaderboards, options.configs[i].legacy,
                            passing_runs_only(options.configs[i].name)});
  }
  card_configs.push_back({"leaderboards", "leaderboards.parquet", files.back().rows,
                          files.back().bytes, all_ids, false, false});
  CardOptions card{options.license, options.allow_open, checked.open, checked.not_public, source};
  const std::string text = dataset_card(card_configs, card_boards, card);
  readme.write(text);
  readme_bytes = text.size();

  // Everything is written: sync all, give them their names in the staged folder, then put that
  // folder in DIR's place.
  for (PendingFile& f : files) f.writer->sync();
  readme.sync();
  for (PendingFile& f : files) f.writer->commit();
  readme.commit();
  folder.commit();

  ExportResult result;
  for (const PendingFile& f : files) result.files.push_back({f.config, f.file, f.rows, f.bytes});
  result.files.push_back({"", "README.md", 0, readme_bytes});
  result.code = state.code;
  result.removed = folder.removed();
  result.kept_previous = folder.kept_previous();
  return result;
}

}  // namespace kbdata::platform
