// `kbdata pairs`: improvement pairs and trajectories of kernel versions as training data
// (pairs/, docs/pairs.md).
#pragma once

#include <cstdio>
#include <optional>
#include <string>

#include "cli/command.h"
#include "cli/data_options.h"
#include "cli/filter_checks.h"
#include "pairs/pairs.h"

namespace kbdata::cli {

struct PairsCommandOptions {
  DataOptions data;
  RowSelection rows;  // --problem, --user, --runner, --since, --until
  std::optional<int64_t> leaderboard;
  std::string out;
  std::optional<std::string> card;    // default: OUT.card.md (pairs::default_card_path)
  std::optional<std::string> format;  // default: from --out's name, else jsonl
  bool trajectories = false;
  bool all_pairs = false;
  bool same_epoch = false;
  bool significant = false;  // --significant
  double min_speedup = 1;
  std::optional<double> max_gap_days;
  double link_similarity = 0.5;
  size_t lookback = 64;
  std::optional<std::string> exclude_flagged;  // --exclude-flagged[=suspicious|cheat]
  std::optional<std::string> decontaminate;
  pairs::DecontaminationOptions decontamination;
};

void run_pairs(const PairsCommandOptions& options, std::FILE* out, std::FILE* err);

// Adds `pairs` to `app`.
void add_pairs_command(CLI::App& app, Commands& commands);

}  // namespace kbdata::cli
