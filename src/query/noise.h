// What measuring noise reads (analysis/noise.h, docs/noise.md): `kbdata noise`, top's
// --uncertainty and the web explorer's rankings load the same way.
#pragma once

#include "dataset/filter.h"
#include "dataset/loader.h"

namespace kbdata::query {

// The rows of `filter` whatever their outcome (consecutive versions are consecutive whatever the
// outcome), with code (near-identical versions), a legacy row's runs (the secret runs) and
// benchmark results (their errors), the code sketched on the scan's workers
// (analysis::NoiseBuilder::prepare_step). Each loaded row goes to NoiseBuilder::add.
[[nodiscard]] dataset::LoadOptions noise_load_options(const dataset::Filter& filter, int threads);

}  // namespace kbdata::query
