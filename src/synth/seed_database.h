// `kbdata synth --db URL`: creates the platform's tables (src/platform/schema.sql) in an empty
// database and fills them with synth's population (the same users, submissions, code and scores
// model as `kbdata synth --out`), stored the way the platform stores it, with every case the export
// rules distinguish (docs/export.md, "Seeded data"). It is synth's second output: synth uses the
// platform's connection and tables, the platform knows nothing of synth.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "synth/synth.h"

namespace kbdata::synth {

// The leaderboard added beside the registry's: open, its deadline far in the future, so that a
// public export must refuse it.
inline constexpr int64_t kOpenLeaderboardId = 990;
inline constexpr const char* kOpenLeaderboardName = "open_practice_softmax";

struct SeedOptions {
  std::string url;
  Scale scale = Scale::SMALL;
  uint64_t seed = 1;
  // Once per config, before its rows are inserted: the config's name as the stage and its
  // submissions (may be empty).
  ProgressFn progress;
};

struct SeedCounts {
  std::string table;
  int64_t rows = 0;
};

// Seeds the database in one transaction: on any failure nothing is left of it. Throws
// DatabaseError if the database cannot be reached or already holds a `leaderboard` schema.
std::vector<SeedCounts> seed_database(const SeedOptions& options);

}  // namespace kbdata::synth
