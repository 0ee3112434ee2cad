// leaderboards.parquet (docs/dataset.md §4.3): one row per leaderboard of the synthetic configs.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "parquet/metadata.h"
#include "parquet/write/writer_options.h"
#include "synth/population.h"

namespace kbdata::synth {

// id, name, deadline, lang, description, reference, gpu_types (3-level LIST of STRING).
[[nodiscard]] std::vector<parquet::SchemaElement> leaderboards_schema();

// Writes one row per model (deduplicated by id, in id order); returns (rows, bytes).
std::pair<int64_t, uint64_t> write_leaderboards(const std::string& path,
                                                std::span<const LeaderboardModel> models,
                                                uint64_t seed,
                                                const parquet::WriterOptions& options);

}  // namespace kbdata::synth
