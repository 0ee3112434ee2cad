// The submission model: one view of both schema families (docs/dataset.md §4.1 flat, §4.2 legacy
// per-run). docs/data-model.md maps every field to the columns of each family and says how the
// fields the legacy files lack appear.
#pragma once

#include <any>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kbdata::dataset {

// One benchmark of a legacy run's result: the tester's flat keys `benchmark.N.mean`, `.std`,
// `.err`, `.runs`, `.best`, `.worst` of the run_result struct (stored as text or numbers), in
// nanoseconds; `runs` is the number of timed calls. A key the file lacks, or a null, is nullopt.
struct BenchmarkResult {
  std::optional<double> mean;
  std::optional<double> std_dev;  // `std`
  std::optional<double> err;
  std::optional<int64_t> runs;
  std::optional<double> best;
  std::optional<double> worst;
};

// One run of a legacy per-run file (docs/dataset.md §4.2). Flat files carry no runs. Of the nested
// structs only run_result's benchmark keys are part of the model (`benchmarks`); run_compilation,
// run_meta, run_system_info and run_result's other keys are not (`kbdata cat --columns run_meta`
// prints them).
struct Run {
  int64_t run_id = 0;
  std::optional<int64_t> start_time;  // µs since the epoch, UTC
  std::optional<int64_t> end_time;    // µs since the epoch, UTC
  std::string mode;                   // test, benchmark, leaderboard, profile.N
  std::optional<double> score;        // seconds
  std::optional<bool> passed;
  // benchmark.0, benchmark.1, ... up to the highest N the result holds; only when the load asked
  // for results (LoadOptions::with_results).
  std::vector<BenchmarkResult> benchmarks;
};

// One submission row of the model. A flat file gives one per row (a submission scored on several
// runners appears once per runner); a legacy file gives one per submission_id.
struct Submission {
  int64_t submission_id = 0;
  int64_t leaderboard_id = 0;
  // Legacy: the leaderboard's name from the folder's leaderboards file, else the registry, else
  // "leaderboard-ID" (leaderboard_directory.h).
  std::string problem_name;
  std::string user_id;                   // legacy: the anonymised integer in decimal
  std::optional<std::string> user_name;  // legacy: nullopt (not published)
  // Null where the file holds a null (a pandas-written id column with a gap), or where the load
  // asked for no details.
  std::optional<int64_t> code_id;
  std::optional<std::string> file_name;  // null where the file holds a null
  int64_t submission_time = 0;           // µs since the epoch, UTC
  std::string status;
  std::optional<double> score;  // seconds, lower is better
  std::optional<bool> passed;
  std::optional<std::string> mode;
  // As shown (hardware.h canonical_runner). Legacy: chosen from the leaderboard's gpu_types by the
  // run's run_system_info.gpu (legacy_runner); null when no run records its GPU.
  std::optional<std::string> runner;
  std::optional<std::string> code;  // only when the load asked for code; decoded (code_text.h)
  // Only when the load asked for code sizes: the decoded code's size in bytes (its text is not
  // kept); nullopt for a null code.
  std::optional<uint64_t> code_bytes;
  std::vector<Run> runs;  // legacy only, and only when the load asked for runs
  // Legacy only, when the load asked for results: the benchmarks of the run that gave `score`.
  // nullopt for flat files (which publish no run results) and for unscored submissions.
  std::optional<std::vector<BenchmarkResult>> benchmarks;
  // What LoadOptions::prepare left for the sink (its type is the preparer's); empty otherwise.
  std::any prepared;
};

// The platform's qualification of a row for a ranking (docs/dataset.md §3), the one statement of it
// for every ranking, record, count and check: a score that measures something, passed, not marked
// hacked. A score measures something when it is a positive normal number of seconds: NaN,
// infinities and negatives are no time, and a GPU kernel timed at 0 s or at a subnormal number of
// seconds (below 2.2e-308, far under any timer's resolution) was not timed.
[[nodiscard]] inline bool valid_score(double score) { return std::isnormal(score) && score > 0; }
[[nodiscard]] inline bool qualifies(const Submission& s) {
  return s.score.has_value() && valid_score(*s.score) && s.passed.value_or(false) &&
         s.status != "hacked";
}

}  // namespace kbdata::dataset
