// `kbdata noise` as a query (analysis/noise.h, docs/noise.md): what measuring noise reads (`kbdata
// noise`, top's --uncertainty and the web explorer's rankings load the same way), and the measured
// noise as a result table.
#pragma once

#include <map>
#include <vector>

#include "analysis/noise.h"
#include "dataset/filter.h"
#include "dataset/loader.h"
#include "query/load.h"
#include "result/table.h"

namespace kbdata::query {

// The rows of `filter` whatever their outcome (consecutive versions are consecutive whatever the
// outcome), with code (near-identical versions), a legacy row's runs (the secret runs) and
// benchmark results (their errors), the code sketched on the scan's workers
// (analysis::NoiseBuilder::prepare_step). Each loaded row goes to NoiseBuilder::add.
[[nodiscard]] dataset::LoadOptions noise_load_options(const dataset::Filter& filter, int threads);

// The noise of the rows of `filter` (noise_load_options), read by `loader`: `similarity` is the
// least similarity of near-identical consecutive versions (analysis::NoiseOptions).
[[nodiscard]] std::vector<analysis::SeriesNoise> measure_noise(const dataset::Filter& filter,
                                                               int threads, double similarity,
                                                               const Loader& loader);

// The same, each harness epoch (dataset/epochs.h) of each series estimated apart, from one load: a
// pair or run counts in the epoch of its row's submission time. Epochs without an estimate have
// an empty vector or no entry.
[[nodiscard]] std::map<int, std::vector<analysis::SeriesNoise>> measure_noise_by_epoch(
    const dataset::Filter& filter, int threads, double similarity, const Loader& loader);

// What the rows are (Parquet's kbdata.rule).
extern const char* const kNoiseRule;

// leaderboard_id, problem_name, runner, source, pairs, sigma, sigma_lo, sigma_hi, shift,
// change_time, sigma_before, sigma_after.
[[nodiscard]] std::vector<result::Column> noise_columns();

// One section per series (series_text), each leaderboard shown by its rows: a row per source of
// pairs (shift only for the sources of pairs), then the combined estimate with the change of level
// found in the series, if any; a summary line per change (measured_change).
[[nodiscard]] result::ResultTable noise_table(const std::vector<analysis::SeriesNoise>& series);

}  // namespace kbdata::query
