#include "synth/seed_database.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <map>
#include <set>

#include "common/calendar.h"
#include "common/json_writer.h"
#include "common/text.h"
#include "dataset/hardware.h"
#include "dataset/registry.h"
#include "platform/connection.h"
#include "platform/schema_sql.h"
#include "synth/legacy_writer.h"
#include "synth/population.h"
#include "synth/random.h"

namespace kbdata::synth {
namespace {

using platform::Connection;
using platform::DatabaseError;
using platform::kSchemaSql;
using platform::Result;

// COPY text format: backslash, newline, carriage return and tab escaped; \N is null.
void copy_text(std::string& out, std::string_view value) {
  for (char c : value) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        out += c;
    }
  }
}

// A bytea value in COPY text: the hex form `\x...`, its backslash escaped.
void copy_bytea(std::string& out, std::string_view bytes) {
  out += "\\\\x";
  append_hex(out, bytes);
}

std::string timestamp(int64_t us) {
  const int64_t days = floor_div(us, kMicrosPerDay);
  const int64_t micros_of_day = us - days * kMicrosPerDay;
  const int64_t seconds = micros_of_day / 1'000'000;
  const CivilDate date = civil_from_days(days);
  return fmt::format("{:04d}-{:02d}-{:02d} {:02d}:{:02d}:{:02d}.{:06d}+00", date.year, date.month,
                     date.day, seconds / 3600, seconds / 60 % 60, seconds % 60,
                     micros_of_day % 1'000'000);
}

// The payloads (the jsonb columns) are written by the one writer of JSON documents, spaced as
// PostgreSQL prints jsonb. Their measured numbers keep 9 significant digits, the precision the
// seeded benchmark means and durations have.
JsonWriter payload() { return JsonWriter(JsonWriter::Style::SPACED); }

double nine_digits(double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.9g", v);
  return std::strtod(buffer, nullptr);
}

// A score as the runs table's text (a double precision column).
std::string score_text(double v) {
  std::string out;
  append_double(out, nine_digits(v));
  return out;
}

// Rows of one table, sent with COPY in pieces of a few MB.
class CopyWriter {
 public:
  CopyWriter(Connection& connection, const std::string& copy_sql) : connection_(connection) {
    connection_.copy_begin(copy_sql);
  }
  std::string& row() { return buffer_; }
  void end_row() {
    buffer_ += '\n';
    ++rows_;
    if (buffer_.size() >= (size_t{4} << 20)) flush();
  }
  int64_t finish() {
    flush();
    connection_.copy_end();
    return rows_;
  }

 private:
  void flush() {
    if (!buffer_.empty()) connection_.copy_data(buffer_);
    buffer_.clear();
  }
  Connection& connection_;
  std::string buffer_;
  int64_t rows_ = 0;
};

bool compiles(Language language) {
  return language == Language::CUDA_INLINE || language == Language::HIP_INLINE ||
         language == Language::CUDA_FILE;
}

// The device name a run's system info reports (dataset/hardware.h); a runner the table lacks
// reports its own name.
std::string gpu_name(const std::string& runner) {
  const dataset::RunnerHardware* hardware = dataset::runner_hardware(runner);
  return std::string(hardware != nullptr ? hardware->device : runner);
}

// How a submission is marked hacked: 0 not, 1 in submission.status, 2 in the job status. The
// generator's HACKED outcome is rare (0.4% of scored ones); about 1 scored submission in 30 more
// is marked so that every leaderboard of a small seed has a few of both kinds.
int hacked_kind(const Submission& s, uint64_t h) {
  if (s.outcome == Outcome::HACKED) return h % 2 == 0 ? 1 : 2;
  if (s.outcome != Outcome::SCORED) return 0;
  const uint64_t k = (h >> 40) % 60;
  return k == 0 ? 1 : k == 1 ? 2 : 0;
}

struct RunSpec {
  const char* mode;
  bool secret = false;
  std::string runner;
  std::optional<double> score;  // seconds
  bool passed = false;
};

// The seeding of one config's population into the tables.
class Seeder {
 public:
  Seeder(Connection& connection, uint64_t seed) : connection_(connection), seed_(seed) {}

  void add(const std::vector<LeaderboardModel>& models, const Population& population,
           bool legacy_storage, std::map<std::string, int64_t>& counts);

  int64_t next_run_id = 1;

 private:
  std::vector<RunSpec> runs_of(const Submission& s, const LeaderboardModel& m, uint64_t h) const;
  std::string result_json(const RunSpec& run, const LeaderboardModel& m, uint64_t h) const;

  Connection& connection_;
  uint64_t seed_;
  std::set<std::string> users_;
  std::set<int64_t> codes_;
  int64_t hex_escapes_ = 0;
};

std::vector<RunSpec> Seeder::runs_of(const Submission& s, const LeaderboardModel& m,
                                     uint64_t h) const {
  std::vector<RunSpec> runs;
  std::vector<int> runners;
  for (size_t i = 0; i < m.runners.size() && i < kMaxRunners; ++i) {
    if (s.runner_mask & (1u << i)) runners.push_back(static_cast<int>(i));
  }
  auto score_on = [&](int r) { return s.scores[static_cast<size_t>(r)]; };
  if (runners.empty()) runners.push_back(static_cast<int>(h % m.runners.size()));
  const std::string& first = m.runners[static_cast<size_t>(runners[0])];
  switch (s.outcome) {
    case Outcome::PENDING:
      if (h % 2 == 0) runs.push_back({"test", false, first, std::nullopt, true});
      break;
    case Outcome::ERROR:
      runs.push_back({"test", false, first, std::nullopt, false});
      break;
    case Outcome::TEST_ONLY:
      runs.push_back({"test", false, first, std::nullopt, true});
      runs.push_back({"benchmark", false, first, std::nullopt, true});
      break;
    case Outcome::FAILED_CHECK:
      runs.push_back({"test", false, first, std::nullopt, true});
      runs.push_back({"leaderboard", false, first, std::nullopt, false});
      runs.push_back({"leaderboard", true, first, std::nullopt, false});
      break;
    case Outcome::SCORED:
    case Outcome::HACKED:
      runs.push_back({"test", false, first, std::nullopt, true});
      if (h % 3 == 0) runs.push_back({"benchmark", false, first, std::nullopt, true});
      for (size_t k = 0; k < runners.size(); ++k) {
        const int r = runners[k];
        const std::string& runner = m.runners[static_cast<size_t>(r)];
        runs.push_back({"leaderboard", false, runner, score_on(r), true});
        // About 1 in 25 scored submissions fails its secret run on its first runner: that
        // runner's public score must not count (docs/dataset.md §3).
        const bool secret_fails = k == 0 && (h >> 8) % 25 == 0;
        runs.push_back({"leaderboard", true, runner, std::nullopt, !secret_fails});
      }
      if ((h >> 16) % 40 == 0) runs.push_back({"profile.0", false, first, std::nullopt, true});
      break;
  }
  return runs;
}

std::string Seeder::result_json(const RunSpec& run, const LeaderboardModel& m, uint64_t h) const {
  JsonWriter j = payload();
  j.begin_object().member("check", run.passed ? "pass" : "fail");
  const std::string mode = run.mode;
  if (mode == "test" || !run.passed) {
    j.member("test-count", 2);
    for (int t = 0; t < 2; ++t) {
      const std::string k = "test." + std::to_string(t) + ".";
      j.member(k + "spec",
               "m: " + std::to_string(128 << t) + "; seed: " + std::to_string(4242 + t));
      j.member(k + "status", run.passed || t == 0 ? "pass" : "fail");
      if (!run.passed && t == 1) j.member(k + "error", "mismatch at index 17: 0.4512 vs 0.4498");
    }
  } else {
    // Benchmark means in nanoseconds whose combination by the task's ranking is the score.
    const double score = run.score.value_or(m.base_score * (1.0 + static_cast<double>(h % 7) / 10));
    const bool last = m.cuda_file || m.id >= kFirstPmppId;
    const int count = last ? 1 : 2;
    const double spread = 1.0 + static_cast<double>(h % 5) / 10.0;
    j.member("benchmark-count", count);
    for (int b = 0; b < count; ++b) {
      const double mean = count == 1 ? score * 1e9 : score * 1e9 * (b == 0 ? spread : 1 / spread);
      const std::string k = "benchmark." + std::to_string(b) + ".";
      j.member(k + "spec", "k: " + std::to_string(1024 << b) + "; seed: 9");
      j.member(k + "mean", nine_digits(mean));
      j.member(k + "err", nine_digits(mean * 0.004));
      j.member(k + "best", nine_digits(mean * 0.97));
      j.member(k + "worst", nine_digits(mean * 1.06));
    }
  }
  return j.end_object().take();
}

void Seeder::add(const std::vector<LeaderboardModel>& models, const Population& population,
                 bool legacy_storage, std::map<std::string, int64_t>& counts) {
  {
    CopyWriter users(connection_, "COPY leaderboard.user_info (id, user_name) FROM STDIN");
    for (const User& u : population.users) {
      if (!users_.insert(u.id).second) continue;
      std::string& row = users.row();
      copy_text(row, u.id);
      row += '\t';
      if (u.name.empty()) {
        row += "\\N";  // unknown: the export shows ""
      } else {
        copy_text(row, u.name);
      }
      users.end_row();
    }
    counts["user_info"] += users.finish();
  }
  {
    CopyWriter codes(connection_, "COPY leaderboard.code_files (id, old_code, code) FROM STDIN");
    std::string text;
    for (const Submission& s : population.submissions) {
      if (!codes_.insert(s.code_id).second) continue;
      const LeaderboardModel& m = models[s.leaderboard];
      std::string& row = codes.row();
      row += std::to_string(s.code_id) + '\t';
      if (legacy_storage) {
        // Before the move to bytea: text in old_code (some of it a `\x` hex escape, a few of
        // those with broken hex), `code` left empty. Code with a Latin-1 byte could not be text
        // in a UTF-8 database; it is in `code`, as the bytes were.
        text = legacy_stored_code(s.code, m.name);
        const bool valid_text = text.find('\xE9') == std::string::npos;
        if (valid_text) {
          // Every fourth hex escape has broken hex (kept as stored by the export).
          if (text.rfind("\\x", 0) == 0 && hex_escapes_++ % 4 == 3) text += "g0";
          copy_text(row, text);
          row += "\t\\\\x";
        } else {
          row += "\\N\t";
          copy_bytea(row, text);
        }
      } else {
        text.clear();
        generate_code(s.code, m.name, text);
        row += "\\N\t";
        copy_bytea(row, text);
      }
      codes.end_row();
    }
    counts["code_files"] += codes.finish();
  }
  std::vector<uint64_t> hashes(population.submissions.size());
  for (size_t i = 0; i < hashes.size(); ++i) {
    hashes[i] = derive(seed_, 0x5eed, static_cast<uint64_t>(population.submissions[i].id));
  }
  {
    CopyWriter subs(connection_,
                    "COPY leaderboard.submission (id, leaderboard_id, file_name, user_id, code_id, "
                    "submission_time, done, status) FROM STDIN");
    for (size_t i = 0; i < population.submissions.size(); ++i) {
      const Submission& s = population.submissions[i];
      const LeaderboardModel& m = models[s.leaderboard];
      const uint64_t h = hashes[i];
      const bool done = s.outcome != Outcome::PENDING;
      const bool hacked_mark = hacked_kind(s, h) == 1;
      std::string& row = subs.row();
      row += std::to_string(s.id) + '\t' + std::to_string(m.id) + '\t';
      row += m.cuda_file ? "submission.cu" : "submission.py";
      row += '\t';
      copy_text(row, population.users[s.user].id);
      row += '\t' + std::to_string(s.code_id) + '\t' + timestamp(s.time_us) + '\t';
      row += done ? "t\t" : "f\t";
      row += hacked_mark ? "hacked" : "active";
      subs.end_row();
    }
    counts["submission"] += subs.finish();
  }
  {
    CopyWriter jobs(connection_,
                    "COPY leaderboard.submission_job_status (submission_id, status, error, "
                    "created_at, updated_at) FROM STDIN");
    for (size_t i = 0; i < population.submissions.size(); ++i) {
      const Submission& s = population.submissions[i];
      const uint64_t h = hashes[i];
      const char* status = nullptr;
      const char* error = nullptr;
      switch (s.outcome) {
        case Outcome::SCORED:
          if (hacked_kind(s, h) != 0) {
            status = hacked_kind(s, h) == 1 ? "succeeded" : "hacked";
            break;
          }
          [[fallthrough]];
        case Outcome::TEST_ONLY:
          status = (h >> 24) % 31 == 0 ? nullptr : "succeeded";  // a few have no job row
          break;
        case Outcome::HACKED:
          status = hacked_kind(s, h) == 1 ? "succeeded" : "hacked";
          break;
        case Outcome::FAILED_CHECK:
          status = "failed";
          error = "check failed";
          break;
        case Outcome::ERROR:
          status = (h >> 24) % 4 == 0 ? "timed_out" : "failed";
          error = "exit code 1";
          break;
        case Outcome::PENDING:
          status = h % 3 == 0 ? nullptr : "running";
          break;
      }
      if (status == nullptr) continue;
      std::string& row = jobs.row();
      row += std::to_string(s.id) + '\t' + status + '\t';
      row += error != nullptr ? error : "\\N";
      row += '\t' + timestamp(s.time_us) + '\t' + timestamp(s.time_us + 90'000'000);
      jobs.end_row();
    }
    counts["submission_job_status"] += jobs.finish();
  }
  {
    CopyWriter runs(connection_,
                    "COPY leaderboard.runs (id, submission_id, start_time, end_time, mode, secret, "
                    "runner, score, passed, compilation, meta, result, system_info) FROM STDIN");
    for (size_t i = 0; i < population.submissions.size(); ++i) {
      const Submission& s = population.submissions[i];
      const LeaderboardModel& m = models[s.leaderboard];
      const uint64_t h = hashes[i];
      int64_t start = s.time_us + 2'000'000;
      int k = 0;
      for (const RunSpec& run : runs_of(s, m, h)) {
        const uint64_t rh = derive(h, static_cast<uint64_t>(k++));
        const int64_t duration = 3'000'000 + static_cast<int64_t>(rh % 60'000'000);
        std::string& row = runs.row();
        row += std::to_string(next_run_id++) + '\t' + std::to_string(s.id) + '\t' +
               timestamp(start) + '\t' + timestamp(start + duration) + '\t' + run.mode + '\t' +
               (run.secret ? "t" : "f") + '\t';
        copy_text(row, run.runner);
        row += '\t';
        row += run.score ? score_text(*run.score) : "\\N";
        row += run.passed ? "\tt\t" : "\tf\t";
        // compilation: compiled languages only; an empty object now and then (null in the
        // legacy struct).
        if (compiles(s.code.language)) {
          JsonWriter c = payload();
          c.begin_object()
              .member("success", run.passed || run.score.has_value())
              .member("nvcc_found", true)
              .member("nvcc_version", "12.8")
              .member("command", "hipcc -O3 --offload-arch=gfx942 submission.cpp")
              .member("stdout", "")
              .member("stderr", "")
              .member("exit_code", 0)
              .member("duration", nine_digits(static_cast<double>(rh % 40'000) / 1000.0))
              .end_object();
          copy_text(row, c.text());
        } else {
          row += rh % 9 == 0 ? "{}" : "\\N";
        }
        row += '\t';
        JsonWriter meta = payload();
        meta.begin_object()
            .member("stdout", std::string("running ") + run.mode + " on " + run.runner)
            .member("stderr", run.passed ? ""
                                         : "Traceback (most recent call last):\n  "
                                           "AssertionError: mismatch")
            .member("success", run.passed)
            .member("exit_code", run.passed ? 0 : 1)
            .member("command", std::string("python eval.py ") + run.mode)
            .member("duration", nine_digits(static_cast<double>(duration) / 1e6))
            .end_object();
        copy_text(row, meta.text());
        row += '\t';
        copy_text(row, result_json(run, m, rh));
        row += '\t';
        const dataset::RunnerHardware* hardware = dataset::runner_hardware(run.runner);
        JsonWriter system = payload();
        system.begin_object()
            .member("gpu", gpu_name(run.runner))
            .member("device_count", hardware != nullptr ? hardware->devices : 1)
            .member("cpu", "AMD EPYC 9654 96-Core Processor")
            .member("runtime", run.runner.rfind("MI", 0) == 0 ? "ROCm" : "CUDA")
            .member("platform", "Linux-6.8.0-x86_64-with-glibc2.39")
            .member("torch", "2.7.0")
            .member("hostname", "runner-" + std::to_string(rh % 16))
            .end_object();
        copy_text(row, system.text());
        runs.end_row();
        start += duration + 1'000'000;
      }
    }
    counts["runs"] += runs.finish();
  }
}

std::string task_json(const LeaderboardModel& m, uint64_t seed) {
  const bool last = m.cuda_file || m.id >= kFirstPmppId;
  JsonWriter j = payload();
  j.begin_object().member("lang", m.cuda_file ? "cu" : "py");
  j.key("files").begin_object();
  j.member(m.cuda_file ? "reference.cu" : "reference.py",
           reference_code(m.name, m.cuda_file, seed));
  j.end_object();
  j.member("ranking_by", last ? "last" : "geom");
  j.key("tests").begin_array().begin_object().member("m", 128).member("seed", 4242).end_object();
  j.end_array();
  j.key("benchmarks").begin_array().begin_object().member("k", 1024).member("seed", 9);
  j.end_object().end_array();
  return j.end_object().take();
}

}  // namespace

std::vector<SeedCounts> seed_database(const SeedOptions& options) {
  std::unique_ptr<Connection> connection = Connection::connect(options.url, "kbdata synth");
  Connection& db = *connection;
  db.exec("BEGIN");
  Result existing = db.exec("SELECT to_regnamespace('leaderboard') IS NOT NULL");
  if (existing.bytes(0, 0) == "t") {
    throw DatabaseError(db.name() +
                        ": already has a 'leaderboard' schema; kbdata synth --db seeds an empty "
                        "database only");
  }
  db.exec(kSchemaSql);

  std::map<std::string, int64_t> counts;
  Seeder seeder(db, options.seed);
  std::vector<LeaderboardModel> all_models;
  int64_t config_index = 0;
  for (const dataset::ConfigInfo& config : dataset::configs()) {
    ++config_index;
    if (config.family == dataset::SchemaFamily::LEADERBOARDS) continue;
    if (config.name == "amd_successful_submissions") continue;  // the same leaderboards
    std::vector<LeaderboardModel> models = config_models(config, options.scale);
    all_models.insert(all_models.end(), models.begin(), models.end());
  }
  // The open leaderboard: a practice problem whose deadline is far in the future.
  {
    std::vector<LeaderboardModel> pmpp =
        config_models(*dataset::find_config("pmpp_v2_submissions"), options.scale);
    LeaderboardModel open = pmpp.back();
    open.id = kOpenLeaderboardId;
    open.name = kOpenLeaderboardName;
    open.note = "";
    open.runners = {"L4", "H100"};
    all_models.push_back(open);
  }
  {
    CopyWriter boards(db,
                      "COPY leaderboard.leaderboard (id, name, deadline, task, creator_id, "
                      "forum_id, secret_seed, description, visibility) FROM STDIN");
    for (const LeaderboardModel& m : all_models) {
      const uint64_t h = derive(options.seed, 0x1eaf, static_cast<uint64_t>(m.id));
      std::string& row = boards.row();
      row += std::to_string(m.id) + '\t';
      copy_text(row, m.name);
      row += '\t';
      row += m.id == kOpenLeaderboardId ? std::string("2099-12-31 23:59:59+00")
                                        : timestamp(m.deadline_us);
      row += '\t';
      copy_text(row, task_json(m, options.seed));
      row += '\t' + std::to_string(100'000 + h % 900'000) + '\t' +
             std::to_string(1'300'000'000'000'000'000 + static_cast<int64_t>(h % 1'000'000'000)) +
             '\t' + std::to_string(static_cast<int64_t>(h >> 33)) + '\t';
      copy_text(row, "Write a fast kernel for " + m.name + ".");
      row += "\tpublic";
      boards.end_row();
    }
    counts["leaderboard"] += boards.finish();
    CopyWriter gpus(db, "COPY leaderboard.gpu_type (leaderboard_id, gpu_type) FROM STDIN");
    for (const LeaderboardModel& m : all_models) {
      for (const std::string& runner : m.runners) {
        gpus.row() += std::to_string(m.id) + '\t' + runner;
        gpus.end_row();
      }
    }
    counts["gpu_type"] += gpus.finish();
  }

  config_index = 0;
  for (const dataset::ConfigInfo& config : dataset::configs()) {
    ++config_index;
    if (config.family == dataset::SchemaFamily::LEADERBOARDS) continue;
    if (config.name == "amd_successful_submissions") continue;
    const bool legacy = config.family == dataset::SchemaFamily::LEGACY_RUNS;
    std::vector<LeaderboardModel> models = config_models(config, options.scale);
    if (config.name == "pmpp_v2_submissions") {
      models.push_back(all_models.back());  // the open leaderboard's submissions
    }
    const uint64_t seed = derive(options.seed, hash_text(config.name));
    Population population =
        make_population(models, config_pool_size(config, options.scale), seed,
                        config_index * 10'000'000, config_index * 10'000'000, legacy);
    if (options.progress) {
      options.progress({.stage = config.name,
                        .done = population.submissions.size(),
                        .total = 0,
                        .unit = "submissions"});
    }
    seeder.add(models, population, legacy, counts);
  }
  // The hash of each bytea code, as the platform keeps it; old_code rows have none.
  db.exec(
      "UPDATE leaderboard.code_files SET hash = encode(sha256(code), 'hex') WHERE old_code IS "
      "NULL");
  // The serial columns continue after the seeded ids.
  for (const char* table : {"leaderboard", "code_files", "submission", "runs"}) {
    db.exec(std::string("SELECT setval(pg_get_serial_sequence('leaderboard.") + table +
            "', 'id'), (SELECT max(id) FROM leaderboard." + table + "))");
  }
  db.exec("COMMIT");
  db.exec("ANALYZE");

  std::vector<SeedCounts> out;
  for (const char* table : {"leaderboard", "gpu_type", "user_info", "code_files", "submission",
                            "submission_job_status", "runs"}) {
    out.push_back({table, counts[table]});
  }
  return out;
}

}  // namespace kbdata::synth
