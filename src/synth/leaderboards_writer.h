// leaderboards.parquet (docs/dataset.md §4.3): one row per leaderboard of the synthetic configs,
// in the schema of dataset/leaderboards_schema.h.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "synth/layout.h"
#include "synth/population.h"

namespace kbdata::synth {

// Writes one row per model (deduplicated by id, in id order); returns (rows, bytes).
std::pair<int64_t, uint64_t> write_leaderboards(const std::string& path,
                                                std::span<const LeaderboardModel> models,
                                                uint64_t seed, const OutputOptions& options);

}  // namespace kbdata::synth
