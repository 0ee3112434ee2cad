// How a noise series reads for people: its name and the change of level measured in it. Shared by
// `kbdata noise` and the summary lines of top's answer with --uncertainty (docs/noise.md).
#pragma once

#include <string>

#include "analysis/noise.h"

namespace kbdata::query {

// `v` with `digits` decimals ("%.*f").
[[nodiscard]] std::string fixed_digits(double v, int digits);

// "nvfp4_dual_gemm (598) on NVIDIA"; "..., runner not recorded" for a legacy series.
[[nodiscard]] std::string series_text(const analysis::SeriesNoise& series);

// "598 on B200: noise x9.2 from 2025-12-26 (sigma 0.042 -> 0.391)": the measured figure a
// reliability note gains; "" without a change point.
[[nodiscard]] std::string measured_change(const analysis::SeriesNoise& series);

}  // namespace kbdata::query
