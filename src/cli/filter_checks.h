// The data commands' selection (--problem, --leaderboard, --runner) checked against the folder
// before anything is read, and the reason an empty result gives on stderr.
#pragma once

#include <string>
#include <vector>

#include "dataset/data_dir.h"
#include "dataset/filter.h"

namespace kbdata::cli {

// The runners the registry knows for the configs `dir` holds, in registry order.
[[nodiscard]] std::vector<std::string> known_runners(const dataset::DataDir& dir);

// Checks `filter` against `dir` and the registry, before a load:
//  - --problem with a --leaderboard the registry places on other problems is a conflict
//    (UsageError naming both and what the leaderboard is);
//  - --runner equal, ignoring ASCII case, to a runner of known_runners(dir) is rewritten to its
//    spelling (`--runner h100` reads H100).
void resolve_filter(const dataset::DataDir& dir, dataset::Filter& filter);

// Why a load of `dir` with `filter` found nothing, as a clause to append to a message ("; ..."),
// or "" when no single reason is known:
//  - a --leaderboard no file of the folder holds;
//  - a --runner when the files read are legacy per-run files, which record no runner;
//  - a --runner the folder's configs do not know (with the closest one).
// May read the folder again (only the leaderboard column, pushed down).
[[nodiscard]] std::string why_empty(const dataset::DataDir& dir, const dataset::Filter& filter);

}  // namespace kbdata::cli
