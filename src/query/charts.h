// The answers' pictures: SVG charts (plot/) of a progression, a record curve and the techniques'
// weekly trend, for the commands' --plot and the web explorer's pages alike.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "analysis/progression.h"
#include "analysis/records.h"
#include "analysis/technique_trend.h"
#include "plot/small_multiples.h"
#include "plot/svg_chart.h"

namespace kbdata::query {

// Score over time on a log axis: per runner, the qualifying scores (dots), the running best (a
// step line) and the improvements (marked, labelled with the factor over the previous best). The
// leaderboard's reliability note is the subtitle. Throws Error when nothing qualifies.
[[nodiscard]] plot::TimeChart progression_chart(const analysis::Progression& progression);

// The record curve: per runner, the record as a step line and each new record marked and
// labelled with who set it. The notes of the leaderboards shown are the subtitle. Throws Error
// when no record score is positive.
[[nodiscard]] plot::TimeChart records_chart(const std::vector<analysis::RecordSeries>& series);

// Adds a marker per harness change (dataset/epochs.h) of the leaderboards `leaderboard_ids`, once
// per time: "evaluation" or "input generators".
void add_epoch_markers(plot::TimeChart& chart, const std::vector<int64_t>& leaderboard_ids);

// The trend of the first leaderboard of `rows` (not empty) as small multiples: a panel per tag,
// the shares of submissions, users and the top `top` users' best kernels.
[[nodiscard]] plot::SmallMultiples techniques_trend_chart(
    const std::vector<analysis::TrendRow>& rows, size_t top);

}  // namespace kbdata::query
