#include "query/noise.h"

#include "dataset/epochs.h"
#include "query/noise_text.h"

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

std::vector<analysis::SeriesNoise> measure_noise(const dataset::Filter& filter, int threads,
                                                 double similarity, const Loader& loader) {
  analysis::NoiseOptions options;
  options.similarity = similarity;
  analysis::NoiseBuilder builder(options);
  loader("measuring noise", noise_load_options(filter, threads),
         [&](dataset::Submission&& s) { builder.add(std::move(s)); });
  return builder.finish();
}

std::map<int, std::vector<analysis::SeriesNoise>> measure_noise_by_epoch(
    const dataset::Filter& filter, int threads, double similarity, const Loader& loader) {
  analysis::NoiseOptions options;
  options.similarity = similarity;
  std::map<int, analysis::NoiseBuilder> builders;
  loader("measuring noise per epoch", noise_load_options(filter, threads),
         [&](dataset::Submission&& s) {
           const int epoch = dataset::epoch_of(s.leaderboard_id, s.submission_time);
           builders.try_emplace(epoch, options).first->second.add(std::move(s));
         });
  std::map<int, std::vector<analysis::SeriesNoise>> out;
  for (auto& [epoch, builder] : builders) out.emplace(epoch, builder.finish());
  return out;
}

const char* const kNoiseRule =
    "kbdata noise: per (leaderboard, runner), the sd of log(score) of one measurement from legacy "
    "harness errors, public vs secret runs, repeats of one code and near-identical consecutive "
    "versions (median-centred MAD), combined by inverse variance; one change of level searched "
    "over time (docs/noise.md)";

std::vector<result::Column> noise_columns() {
  using result::ColumnType;
  return {{"leaderboard_id", ColumnType::INT64}, {"problem_name", ColumnType::STRING},
          {"runner", ColumnType::STRING},        {"source", ColumnType::STRING},
          {"pairs", ColumnType::INT64},          {"sigma", ColumnType::DOUBLE},
          {"sigma_lo", ColumnType::DOUBLE},      {"sigma_hi", ColumnType::DOUBLE},
          {"shift", ColumnType::DOUBLE},         {"change_time", ColumnType::TIMESTAMP},
          {"sigma_before", ColumnType::DOUBLE},  {"sigma_after", ColumnType::DOUBLE}};
}

result::ResultTable noise_table(const std::vector<analysis::SeriesNoise>& series) {
  result::ResultTable table(noise_columns(), kNoiseRule);
  for (const analysis::SeriesNoise& s : series) {
    table.section(series_text(s));
    auto emit = [&](const analysis::NoiseEstimate& e, bool with_change) {
      const bool pairs_source = e.source == analysis::NoiseSource::PUBLIC_SECRET ||
                                e.source == analysis::NoiseSource::SAME_CODE ||
                                e.source == analysis::NoiseSource::NEAR_IDENTICAL;
      result::Cell change_time, before, after;
      if (with_change && s.change) {
        change_time = s.change->time_us;
        before = s.change->before.sigma;
        after = s.change->after.sigma;
      }
      table.add_row({s.leaderboard_id, s.problem_name, result::optional_cell(s.runner),
                     std::string(to_string(e.source)), static_cast<int64_t>(e.pairs), e.sigma,
                     e.sigma_lo, e.sigma_hi, pairs_source ? result::Cell{e.shift} : result::Cell{},
                     change_time, before, after},
                    s.leaderboard_id, s.problem_name);
    };
    for (const analysis::NoiseEstimate& e : s.sources) emit(e, false);
    if (s.combined) emit(*s.combined, true);
    if (s.change) table.summary(measured_change(s));
  }
  return table;
}

}  // namespace kbdata::query
