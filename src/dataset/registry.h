// The KernelBot configs, their leaderboards and reliability notes: what kbdata knows of the
// published data set (docs/dataset.md §4.4). The files are the truth: a problem, leaderboard,
// runner or config the table lacks is read, listed and ranked like any other; the table only adds
// what it knows (notes, ranking_by, runners, ids). Commands look notes up here; no command carries
// its own copy.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kbdata::dataset {

// How a config's file is laid out (docs/dataset.md §4.1, §4.2, §4.3).
enum class SchemaFamily {
  FLAT,         // one row per (leaderboard, user, code, runner) after deduplication
  LEGACY_RUNS,  // one row per run, anonymised user ids, nested run_* structs
  LEADERBOARDS  // leaderboards.parquet
};

// How a leaderboard combines benchmark means into a score (docs/dataset.md §2).
enum class RankingBy { GEOM, MEAN, LAST };

struct LeaderboardInfo {
  std::optional<int64_t> id;  // nullopt where the id is not published (PMPP v2)
  std::string name;
  std::optional<RankingBy> ranking_by;  // when known
  // Shown above every table, plot and JSON of this leaderboard's scores; empty when none.
  std::string note;
  // The runners its rows were measured on (the platform's names, dataset/hardware.h), as far as
  // known: a legacy run's runner is chosen among them (legacy_runner) when the folder has no
  // leaderboards file naming the leaderboard's gpu_types.
  std::vector<std::string> runners;
};

struct ConfigInfo {
  std::string name;  // the config name of the dataset card, e.g. "nvidia_nvfp4_submissions"
  std::string file;  // e.g. "nvidia_nvfp4_submissions.parquet"
  SchemaFamily family = SchemaFamily::FLAT;
  std::vector<LeaderboardInfo> leaderboards;  // empty for `leaderboards`: it covers all
  std::vector<std::string> hardware;          // runner names: its leaderboards' runners
  std::string description;                    // one line: what the file holds
  // A note on the whole config (e.g. "passing runs only"); leaderboard notes are separate.
  std::string note;
};

// Every config of docs/dataset.md §4.4, in its order.
[[nodiscard]] std::span<const ConfigInfo> configs();

// The config named `name` (config name or file name), or nullptr.
[[nodiscard]] const ConfigInfo* find_config(std::string_view name);

// A leaderboard and the config that holds it.
struct LeaderboardRef {
  const ConfigInfo* config = nullptr;
  const LeaderboardInfo* leaderboard = nullptr;
};

// Every config entry for leaderboard `id` (the AMD leaderboards are in two configs), in registry
// order; empty if the id is unknown.
[[nodiscard]] std::vector<LeaderboardRef> find_leaderboard(int64_t id);

// Every config entry for the problem (leaderboard) named `name`, exact match.
[[nodiscard]] std::vector<LeaderboardRef> find_problem(std::string_view name);

// The reliability note of leaderboard `id`, or "" when it has none or is unknown.
[[nodiscard]] std::string_view note_for(int64_t leaderboard_id);

// Whether the registry knows leaderboard `id`, or (for a config whose ids are not published, PMPP
// v2) the problem `name`.
[[nodiscard]] bool is_registered(int64_t leaderboard_id, std::string_view name);

// How leaderboard `id` combines its benchmark means into a score: the registry's ranking_by, else
// GEOM, which every competition problem uses (the assumption docs/data-model.md states, and the
// note on a leaderboard the registry lacks says).
[[nodiscard]] RankingBy ranking_by_of(int64_t leaderboard_id);

[[nodiscard]] const char* to_string(SchemaFamily family);
[[nodiscard]] const char* to_string(RankingBy ranking);

}  // namespace kbdata::dataset
