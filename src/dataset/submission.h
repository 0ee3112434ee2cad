// The submission model: one view of both schema families (DATASET.md §4.1 flat, §4.2 legacy
// per-run). docs/data-model.md maps every field to the columns of each family and says how the
// fields the legacy files lack appear.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kbdata::dataset {

// One run of a legacy per-run file (DATASET.md §4.2). Flat files carry no runs. The nested
// run_compilation / run_meta / run_result / run_system_info structs are not part of the model
// (`kbdata cat --columns run_meta ...` prints them).
struct Run {
  int64_t run_id = 0;
  std::optional<int64_t> start_time;  // µs since the epoch, UTC
  std::optional<int64_t> end_time;    // µs since the epoch, UTC
  std::string mode;                   // test, benchmark, leaderboard, profile.N
  std::optional<double> score;        // seconds
  std::optional<bool> passed;
};

// One submission row of the model. A flat file gives one per row (a submission scored on several
// runners appears once per runner); a legacy file gives one per submission_id.
struct Submission {
  int64_t submission_id = 0;
  int64_t leaderboard_id = 0;
  std::string problem_name;  // legacy: the registry's name for leaderboard_id, "" if unknown
  std::string user_id;       // legacy: the anonymised integer in decimal
  std::optional<std::string> user_name;  // legacy: nullopt (not published)
  int64_t code_id = 0;
  std::string file_name;
  int64_t submission_time = 0;  // µs since the epoch, UTC
  std::string status;
  std::optional<double> score;  // seconds, lower is better
  std::optional<bool> passed;
  std::optional<std::string> mode;
  std::optional<std::string> runner;  // legacy: nullopt (not published)
  std::optional<std::string> code;    // only when the load asked for code; decoded (code_text.h)
  std::vector<Run> runs;              // legacy only, and only when the load asked for runs
};

}  // namespace kbdata::dataset
