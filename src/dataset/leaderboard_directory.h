// What kbdata knows of a folder's leaderboards besides their rows: the rows of the folder's
// leaderboards files (description, deadline, reference, gpu_types) and the registry. A legacy
// per-run file names a leaderboard by its id alone; its problem name and the runners its runs
// chose among come from here (docs/data-model.md, "Leaderboards"). Neither source is required:
// a leaderboard both lack is named `leaderboard-ID`.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "dataset/data_dir.h"
#include "dataset/leaderboards_file.h"

namespace kbdata::dataset {

class LeaderboardDirectory {
 public:
  // The registry only.
  LeaderboardDirectory() = default;
  // The registry, and `entries` (rows of leaderboards files; for an id given twice, the first).
  explicit LeaderboardDirectory(std::vector<LeaderboardEntry> entries);

  // The registry and every leaderboards file of `dir`, read whole (small files). Throws as
  // read_leaderboards does.
  [[nodiscard]] static LeaderboardDirectory of(const DataDir& dir);

  // The problem name of leaderboard `id` where a file records only the id: a leaderboards file's
  // name, else the registry's, else unnamed_leaderboard(id).
  [[nodiscard]] std::string name_of(int64_t id) const;

  // The ids name_of() gives `name` for: the leaderboards files' and the registry's ids of that
  // name, and the id of an unnamed_leaderboard spelling. Sorted, unique.
  [[nodiscard]] std::vector<int64_t> ids_named(std::string_view name) const;

  // The runners leaderboard `id` ran on: a leaderboards file's gpu_types, else the registry's
  // runners; empty when neither knows.
  [[nodiscard]] std::vector<std::string> gpu_types(int64_t id) const;

  // The leaderboards file's row of `id`, or nullptr.
  [[nodiscard]] const LeaderboardEntry* detail(int64_t id) const;

  // Every leaderboards file row, in the files' order.
  [[nodiscard]] const std::vector<LeaderboardEntry>& entries() const { return entries_; }

 private:
  std::vector<LeaderboardEntry> entries_;
};

// "leaderboard-ID": the name of a leaderboard no file and no registry names.
[[nodiscard]] std::string unnamed_leaderboard(int64_t id);

}  // namespace kbdata::dataset
