// The dataset card (README.md) of an export: YAML front matter (license, `configs:` mapping each
// config to its file), then per config its file's size and row count as written, its
// leaderboards with deadline and runners from the database and the registry's reliability
// notes, how the export was made, and the citation of the KernelBot paper.
//
// The sentence "exported from its database by `kbdata export`" and the `data_files: "NAME"` lines
// are how a later export recognises the card and the files it listed (export_folder.h, --force).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kbdata::platform {

struct CardConfig {
  std::string name;
  std::string file;
  int64_t rows = 0;
  uint64_t bytes = 0;
  std::vector<int64_t> leaderboards;
  bool legacy = false;
  bool passing_only = false;
};

struct CardLeaderboard {
  int64_t id = 0;
  std::string name;
  std::string deadline;  // "YYYY-MM-DD HH:MM UTC"
  std::vector<std::string> runners;
};

struct CardOptions {
  std::string license;
  bool is_private = false;
  std::vector<int64_t> open_leaderboards;        // deadline in the future (private exports only)
  std::vector<int64_t> non_public_leaderboards;  // visibility not 'public' (private exports only)
  std::string source;                            // kbdata.source of the files
};

[[nodiscard]] std::string dataset_card(const std::vector<CardConfig>& configs,
                                       const std::vector<CardLeaderboard>& leaderboards,
                                       const CardOptions& options);

}  // namespace kbdata::platform
