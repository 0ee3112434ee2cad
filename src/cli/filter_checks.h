// The data commands' selection (--problem, --leaderboard, --runner) checked against the folder
// before anything is read, and the reason an empty result gives on stderr.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/command.h"
#include "dataset/data_dir.h"
#include "dataset/filter.h"

namespace kbdata::cli {

// --problem, --user, --runner, --since and --until of the commands that go through a folder's
// submission rows one by one (audit, techniques).
struct RowSelection {
  std::optional<std::string> problem;
  std::optional<std::string> user;
  std::optional<std::string> runner;
  std::optional<std::string> since;
  std::optional<std::string> until;
};
void add_row_selection_options(CLI::App& cmd, RowSelection& selection);
// The filter they make. UsageError for a time that does not parse, or --since not before --until.
[[nodiscard]] dataset::Filter row_selection_filter(const RowSelection& selection);

// --since and --until into `filter` (UTC times as dataset::parse_utc_time reads them); UsageError
// for a time that does not parse, or --since not before --until.
void set_time_range(dataset::Filter& filter, const std::optional<std::string>& since,
                    const std::optional<std::string>& until);

// Checks `filter` against `dir` before a load:
//  - --runner is shown with its known spelling (dataset::canonical_runner: `--runner h100` is
//    H100; runners compare ignoring case whatever it is);
//  - --problem with a --leaderboard whose rows in the folder's files name another problem is a
//    conflict (UsageError naming both and what the leaderboard is). Reads the files' metadata
//    columns (dataset::read_contents) only when both are given;
//  - --epoch negative, or above the epochs of every leaderboard of the selection
//    (dataset/epochs.h), is a UsageError naming the epochs there are ("no epoch 99 in problem
//    nvfp4_gemm: ...").
void resolve_filter(const dataset::DataDir& dir, dataset::Filter& filter);

// Why a load of `dir` with `filter` found nothing, as a clause to append to a message ("; ..."),
// or "" when no single reason is known, from what the files hold (dataset::read_contents, read
// again: this is for empty results only):
//  - a --leaderboard no file of the folder holds;
//  - a --runner no file holds for the selected problem or leaderboard (with the closest one and
//    the runners it has).
[[nodiscard]] std::string why_empty(const dataset::DataDir& dir, const dataset::Filter& filter);

}  // namespace kbdata::cli
