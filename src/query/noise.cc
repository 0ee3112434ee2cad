#include "query/noise.h"

#include "analysis/noise.h"

namespace kbdata::query {

dataset::LoadOptions noise_load_options(const dataset::Filter& filter, int threads) {
  dataset::LoadOptions load;
  load.threads = threads;
  load.filter = filter;
  load.with_code = true;
  load.with_runs = true;
  load.with_results = true;
  load.prepare_with(analysis::NoiseBuilder::prepare_step());
  return load;
}

}  // namespace kbdata::query
