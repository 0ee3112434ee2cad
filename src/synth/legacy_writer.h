// The legacy per-run files of the first AMD competition (docs/dataset.md §4.2): submissions.parquet
// (every run) and successful_submissions.parquet (runs with run_passed true), written in one pass.
//
// Runs per submission: a test run; for scored submissions also a benchmark run (sometimes), a
// public leaderboard run (the only one with run_score) and a secret one, indistinguishable but for
// the score; a failed check has both leaderboard runs failing; a crash has only a failing test run;
// a submission that never finished has no run and so no row.
//
// Stored code, as the real files have it:
//   - `code` is BYTE_ARRAY without annotation (binary) in submissions.parquet and STRING in
//     successful_submissions.parquet;
//   - codes with stored_as_hex_escape() (population.h; about 1 in 12) are the text `\x` followed by
//     the lower-case hex of the source, in both files;
//   - codes with has_invalid_utf8() (about 1 Python code in 40) carry the Latin-1 byte 0xE9 in
//     their note line ("caf\xE9"); their runs always fail, so they are only in submissions.parquet.
// submission_time is a naive timestamp (isAdjustedToUTC false), the run times UTC; user_id is a
// random permutation of 1..N over the config's users, as the anonymising export did.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "parquet/write/row_file_writer.h"
#include "synth/flat_writer.h"
#include "synth/layout.h"
#include "synth/population.h"

namespace kbdata::synth {

// The legacy schema as synth writes it (dataset/legacy_schema.h with a naive submission_time, then
// the four structs of the keys synth models); `binary_code`: `code` without the STRING annotation.
[[nodiscard]] std::vector<parquet::Field> legacy_fields(bool binary_code);

// The code bytes as stored for `key` (see above).
[[nodiscard]] std::string legacy_stored_code(const CodeKey& key, std::string_view problem);

struct LegacyResult {
  int64_t all_rows = 0;
  uint64_t all_bytes = 0;
  int64_t passed_rows = 0;
  uint64_t passed_bytes = 0;
};

LegacyResult write_legacy(const std::string& all_path, const std::string& passed_path,
                          std::span<const LeaderboardModel> models, const Population& population,
                          uint64_t seed, const OutputOptions& options, const ProgressFn& progress);

}  // namespace kbdata::synth
