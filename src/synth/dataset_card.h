// The dataset card (README.md) of a synthetic data set: YAML front matter mapping each config to
// its file, the license, then per config its file size and row count as written, its leaderboards
// with their reliability notes from the registry, and how the data was made.
#pragma once

#include <string>
#include <vector>

#include "synth/synth.h"

namespace kbdata::synth {

struct CardConfig {
  WrittenFile file;
  const dataset::ConfigInfo* config = nullptr;
  std::vector<LeaderboardModel> leaderboards;
};

[[nodiscard]] std::string dataset_card(const std::vector<CardConfig>& configs,
                                       const SynthOptions& options);

}  // namespace kbdata::synth
