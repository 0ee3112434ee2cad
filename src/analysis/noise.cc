#include "analysis/noise.h"

#include <algorithm>
#include <any>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <tuple>

#include "analysis/ranking.h"
#include "dataset/run_result.h"

namespace kbdata::analysis {
namespace {

constexpr double kZ95 = 1.959963984540054;
constexpr double kMadToSigma = 1.482602218505602;  // 1 / Phi^-1(3/4)
constexpr double kMadRelativeError = 1.1664;       // sqrt(n) x relative sd of the MAD, normal data

double median_of(std::vector<double>& v) {
  const size_t n = v.size();
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(n / 2);
  std::nth_element(v.begin(), mid, v.end());
  if (n % 2 == 1) return *mid;
  const double upper = *mid;
  const double lower = *std::max_element(v.begin(), mid);
  return (lower + upper) / 2;
}

// The z with P(Z > z) = p for a standard normal Z, 0 < p < 0.5, by bisection on erfc.
double upper_normal_quantile(double p) {
  double lo = 0, hi = 40;
  for (int i = 0; i < 200; ++i) {
    const double mid = (lo + hi) / 2;
    if (0.5 * std::erfc(mid / std::sqrt(2.0)) > p) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return (lo + hi) / 2;
}

// The log(public) - log(secret) of a legacy submission, when it has both runs.
std::optional<double> public_secret_difference(const dataset::Submission& s) {
  if (!s.score || s.runs.empty()) return std::nullopt;
  const dataset::RankingBy ranking = dataset::ranking_by_of(s.leaderboard_id);
  const dataset::Run* public_run = nullptr;
  for (const dataset::Run& r : s.runs) {
    if (r.mode == "leaderboard" && r.passed == true && r.score == s.score) {
      public_run = &r;
      break;
    }
  }
  if (public_run == nullptr) return std::nullopt;
  for (const dataset::Run& r : s.runs) {
    if (&r == public_run || r.mode != "leaderboard" || r.passed != true) continue;
    std::optional<double> secret = r.score;
    if (!secret) secret = dataset::score_from_benchmarks(r.benchmarks, ranking);
    if (secret && valid_score(*secret)) {  // *s.score qualifies: valid too
      return std::log(*s.score) - std::log(*secret);
    }
  }
  return std::nullopt;
}

std::vector<NoisePoint> windows_of(std::vector<TimedDifference> pairs, size_t window) {
  std::sort(pairs.begin(), pairs.end(), [](const TimedDifference& a, const TimedDifference& b) {
    return a.time_us < b.time_us;
  });
  if (window == 0) window = std::max<size_t>(20, pairs.size() / 20);
  std::vector<NoisePoint> out;
  for (size_t at = 0; at + window <= pairs.size(); at += window) {
    // A short tail joins the last window.
    const size_t end = pairs.size() - (at + window) < window ? pairs.size() : at + window;
    std::vector<double> values;
    for (size_t i = at; i < end; ++i) values.push_back(pairs[i].value);
    if (auto e = pair_estimate(NoiseSource::COMBINED, values)) {
      out.push_back({pairs[at + (end - at) / 2].time_us, e->sigma, end - at});
    }
    if (end == pairs.size()) break;
  }
  return out;
}

}  // namespace

const char* to_string(NoiseSource source) {
  switch (source) {
    case NoiseSource::HARNESS_ERR:
      return "harness_err";
    case NoiseSource::PUBLIC_SECRET:
      return "public_secret";
    case NoiseSource::SAME_CODE:
      return "same_code";
    case NoiseSource::NEAR_IDENTICAL:
      return "near_identical";
    case NoiseSource::COMBINED:
      return "combined";
  }
  return "?";
}

std::optional<double> sigma_at(const SeriesNoise& series, int64_t time_us) {
  if (series.change) {
    return time_us < series.change->time_us ? series.change->before.sigma
                                            : series.change->after.sigma;
  }
  if (series.combined) return series.combined->sigma;
  return std::nullopt;
}

std::optional<NoiseEstimate> pair_estimate(NoiseSource source, std::vector<double> differences) {
  const size_t n = differences.size();
  if (n < 2) return std::nullopt;
  const double m = median_of(differences);
  for (double& d : differences) d = std::abs(d - m);
  const double mad = median_of(differences);
  NoiseEstimate e;
  e.source = source;
  e.pairs = n;
  e.shift = m;
  e.sigma = kMadToSigma * mad / std::sqrt(2.0);
  const double spread = std::exp(kZ95 * kMadRelativeError / std::sqrt(static_cast<double>(n)));
  e.sigma_lo = e.sigma / spread;
  e.sigma_hi = e.sigma * spread;
  return e;
}

std::optional<NoiseEstimate> harness_estimate(const std::vector<double>& variances) {
  const size_t n = variances.size();
  if (n < 2) return std::nullopt;
  const double mean =
      std::accumulate(variances.begin(), variances.end(), 0.0) / static_cast<double>(n);
  double ss = 0;
  for (double v : variances) ss += (v - mean) * (v - mean);
  const double se = std::sqrt(ss / static_cast<double>(n - 1) / static_cast<double>(n));
  NoiseEstimate e;
  e.source = NoiseSource::HARNESS_ERR;
  e.pairs = n;
  e.sigma = std::sqrt(mean);
  e.sigma_lo = std::sqrt(std::max(0.0, mean - kZ95 * se));
  e.sigma_hi = std::sqrt(mean + kZ95 * se);
  return e;
}

std::optional<double> run_log_variance(const std::vector<dataset::BenchmarkResult>& benchmarks,
                                       dataset::RankingBy ranking) {
  if (benchmarks.empty()) return std::nullopt;
  double sum_relative = 0, sum_err = 0, sum_mean = 0;
  double last_relative = 0;
  for (const dataset::BenchmarkResult& b : benchmarks) {
    if (!b.mean || !(*b.mean > 0) || !std::isfinite(*b.mean)) return std::nullopt;
    std::optional<double> err = b.err;
    if (!err && b.std_dev && b.runs && *b.runs > 0) {
      err = *b.std_dev / std::sqrt(static_cast<double>(*b.runs));
    }
    if (!err || !std::isfinite(*err) || *err < 0) return std::nullopt;
    const double r = *err / *b.mean;
    sum_relative += r * r;
    sum_err += *err * *err;
    sum_mean += *b.mean;
    last_relative = r * r;
  }
  const auto n = static_cast<double>(benchmarks.size());
  switch (ranking) {
    case dataset::RankingBy::GEOM:
      return sum_relative / (n * n);
    case dataset::RankingBy::MEAN:
      return sum_err / (sum_mean * sum_mean);
    case dataset::RankingBy::LAST:
      return last_relative;
  }
  return std::nullopt;
}

std::optional<NoiseEstimate> combine(const std::vector<NoiseEstimate>& sources) {
  double weights = 0, weighted = 0;
  uint64_t pairs = 0;
  for (const NoiseEstimate& e : sources) {
    if (!(e.sigma > 0) || !(e.sigma_lo > 0)) continue;
    const double se = (std::log(e.sigma_hi) - std::log(e.sigma_lo)) / (2 * kZ95);
    if (!(se > 0)) continue;
    const double w = 1 / (se * se);
    weights += w;
    weighted += w * std::log(e.sigma);
    pairs += e.pairs;
  }
  if (!(weights > 0)) return std::nullopt;
  NoiseEstimate c;
  c.source = NoiseSource::COMBINED;
  c.pairs = pairs;
  c.sigma = std::exp(weighted / weights);
  const double se = 1 / std::sqrt(weights);
  c.sigma_lo = c.sigma * std::exp(-kZ95 * se);
  c.sigma_hi = c.sigma * std::exp(kZ95 * se);
  return c;
}

std::optional<ChangePoint> find_change_point(std::vector<TimedDifference> pairs,
                                             size_t min_segment) {
  const size_t n = pairs.size();
  min_segment = std::max({min_segment, size_t{2}, n / 20});
  if (n < 2 * min_segment) return std::nullopt;
  std::stable_sort(
      pairs.begin(), pairs.end(),
      [](const TimedDifference& a, const TimedDifference& b) { return a.time_us < b.time_us; });
  // y = log(d^2), with d floored at a millionth of the typical |d| (a pair of equal scores would
  // give -inf).
  std::vector<double> magnitudes;
  for (const TimedDifference& p : pairs) magnitudes.push_back(std::abs(p.value));
  const double floor = std::max(median_of(magnitudes) * 1e-6, 1e-300);
  std::vector<double> y(n), prefix(n + 1, 0), prefix_sq(n + 1, 0);
  for (size_t i = 0; i < n; ++i) {
    const double d = std::max(std::abs(pairs[i].value), floor);
    y[i] = std::log(d * d);
    prefix[i + 1] = prefix[i] + y[i];
    prefix_sq[i + 1] = prefix_sq[i] + y[i] * y[i];
  }
  double best = -1;
  size_t best_k = 0;
  for (size_t k = min_segment; k + min_segment <= n; ++k) {
    // Splits only between distinct times: pairs of one instant stay together.
    if (pairs[k].time_us == pairs[k - 1].time_us) continue;
    const auto n1 = static_cast<double>(k);
    const auto n2 = static_cast<double>(n - k);
    const double s1 = prefix[k], s2 = prefix[n] - prefix[k];
    const double q1 = prefix_sq[k], q2 = prefix_sq[n] - prefix_sq[k];
    const double m1 = s1 / n1, m2 = s2 / n2;
    const double within = (q1 - n1 * m1 * m1) + (q2 - n2 * m2 * m2);
    const double pooled = std::sqrt(std::max(within, 0.0) / (n1 + n2 - 2));
    if (!(pooled > 0)) continue;
    const double t = std::abs(m1 - m2) / (pooled * std::sqrt(1 / n1 + 1 / n2));
    if (t > best) {
      best = t;
      best_k = k;
    }
  }
  if (best_k == 0) return std::nullopt;
  const double critical = upper_normal_quantile(0.01 / (2.0 * static_cast<double>(n - 1)));
  if (!(best > critical)) return std::nullopt;
  std::vector<double> before, after;
  for (size_t i = 0; i < n; ++i) (i < best_k ? before : after).push_back(pairs[i].value);
  ChangePoint c;
  c.time_us = pairs[best_k].time_us;
  c.before = *pair_estimate(NoiseSource::COMBINED, std::move(before));
  c.after = *pair_estimate(NoiseSource::COMBINED, std::move(after));
  c.statistic = best;
  c.critical = critical;
  return c;
}

std::vector<RankUncertainty> rank_uncertainty(const Ranking& ranking, const SeriesNoise* noise,
                                              const std::vector<int64_t>& measurements) {
  std::vector<RankUncertainty> out(ranking.entries.size());
  for (size_t i = 0; i < ranking.entries.size(); ++i) {
    const RankedEntry& e = ranking.entries[i];
    RankUncertainty& u = out[i];
    u.measurements = std::max<int64_t>(1, i < measurements.size() ? measurements[i] : 1);
    if (noise) u.sigma = sigma_at(*noise, e.submission_time);
    const double half =
        u.sigma ? kZ95 * *u.sigma / std::sqrt(static_cast<double>(u.measurements)) : 0;
    u.lo = e.score * std::exp(-half);
    u.hi = e.score * std::exp(half);
  }
  for (size_t i = 0; i < out.size(); ++i) {
    int64_t certainly = 0, possibly = 0;
    for (size_t j = 0; j < out.size(); ++j) {
      if (j == i) continue;
      if (out[j].hi < out[i].lo) ++certainly;
      if (out[j].lo < out[i].hi) ++possibly;
    }
    out[i].rank_best = 1 + certainly;
    out[i].rank_worst = 1 + possibly;
    const bool above = i > 0 && out[i - 1].hi >= out[i].lo;
    const bool below = i + 1 < out.size() && out[i].hi >= out[i + 1].lo;
    out[i].tied = above || below;
  }
  return out;
}

NoiseBuilder::NoiseBuilder(NoiseOptions options) : options_(options) {}

NoiseBuilder::~NoiseBuilder() = default;

namespace {

// Whether a row takes part in the estimates: it qualifies (its score is a positive normal number,
// so its log exists).
bool measured(const dataset::Submission& s) { return qualifies(s); }

}  // namespace

bool NoiseBuilder::wants_code(const dataset::Submission& s) { return measured(s); }

dataset::PrepareStep NoiseBuilder::prepare_step() {
  dataset::PrepareStep step;
  step.key = "noise";
  step.code_wanted = wants_code;
  step.prepare = prepare;
  step.bytes = [](const std::any& v) {
    const auto* sketch = std::any_cast<similarity::CodeSketch>(&v);
    return sketch == nullptr
               ? 0
               : sizeof(similarity::CodeSketch) + sketch->capacity() * sizeof(uint32_t);
  };
  return step;
}

void NoiseBuilder::prepare(dataset::Submission& s, std::optional<std::string_view> code) {
  if (measured(s) && code && !code->empty()) s.prepared = similarity::code_sketch(*code);
}

const uint32_t* NoiseBuilder::sketch_of(int64_t index) const {
  return sketches_[static_cast<size_t>(index)].data();
}

uint32_t NoiseBuilder::series_index(const dataset::Submission& s) {
  SeriesKey key{s.leaderboard_id, s.runner};
  auto [it, inserted] = series_by_key_.try_emplace(key, static_cast<uint32_t>(series_.size()));
  if (inserted) series_.push_back({std::move(key), s.problem_name, {}, {}});
  return it->second;
}

const uint32_t* NoiseBuilder::add(dataset::Submission&& s) {
  Row row;
  row.series = series_index(s);
  const std::string user_key = std::to_string(s.leaderboard_id) + "/" + s.user_id;
  row.user = users_.try_emplace(user_key, static_cast<uint32_t>(users_.size())).first->second;
  row.time_us = s.submission_time;
  row.submission_id = s.submission_id;
  row.code_id = s.code_id;
  row.qualifies = measured(s);
  if (row.qualifies) {
    row.log_score = std::log(*s.score);
    // The sketch is moved, not copied: made on a worker, its memory was touched there.
    similarity::CodeSketch* prepared = std::any_cast<similarity::CodeSketch>(&s.prepared);
    if (prepared != nullptr && !prepared->empty()) {
      row.sketch = static_cast<int64_t>(sketches_.size());
      sketches_.push_back(std::move(*prepared));
    } else if (prepared == nullptr && s.code && !s.code->empty()) {
      row.sketch = static_cast<int64_t>(sketches_.size());
      sketches_.push_back(similarity::code_sketch(*s.code));
    }
    SeriesData& data = series_[row.series];
    if (s.benchmarks) {
      const dataset::RankingBy ranking = dataset::ranking_by_of(s.leaderboard_id);
      if (auto v = run_log_variance(*s.benchmarks, ranking)) data.harness.push_back(*v);
    }
    if (auto d = public_secret_difference(s)) data.secret.push_back({s.submission_time, *d});
  }
  rows_.push_back(row);
  // A sketch's values stay where they are while sketches_ grows (a vector moves its buffer).
  return row.sketch < 0 ? nullptr : sketch_of(row.sketch);
}

// same_code: the qualifying rows of one code on one series, consecutive in time; their
// differences, by series.
void NoiseBuilder::same_code_pairs(std::vector<std::vector<TimedDifference>>& same_code) const {
  std::vector<uint32_t> order;
  for (uint32_t i = 0; i < rows_.size(); ++i) {
    if (rows_[i].qualifies && rows_[i].code_id.has_value()) order.push_back(i);
  }
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    const Row& x = rows_[a];
    const Row& y = rows_[b];
    return std::tie(x.series, x.code_id, x.time_us, x.submission_id) <
           std::tie(y.series, y.code_id, y.time_us, y.submission_id);
  });
  for (size_t i = 1; i < order.size(); ++i) {
    const Row& a = rows_[order[i - 1]];
    const Row& b = rows_[order[i]];
    if (a.series != b.series || a.code_id != b.code_id) continue;
    same_code[b.series].push_back({b.time_us, b.log_score - a.log_score});
  }
}

// near_identical: a user's consecutive submissions to a leaderboard (whatever their outcome), on
// the same runner, both qualifying, different but near-identical code; their differences, by
// series.
void NoiseBuilder::near_identical_pairs(std::vector<std::vector<TimedDifference>>& near) const {
  std::vector<uint32_t> order(rows_.size());
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    const Row& x = rows_[a];
    const Row& y = rows_[b];
    return std::tie(x.user, x.time_us, x.submission_id, x.series) <
           std::tie(y.user, y.time_us, y.submission_id, y.series);
  });
  // [begin, end) of the previous submission's rows.
  size_t prev_begin = 0, prev_end = 0;
  size_t at = 0;
  while (at < order.size()) {
    size_t end = at + 1;
    while (end < order.size() && rows_[order[end]].user == rows_[order[at]].user &&
           rows_[order[end]].submission_id == rows_[order[at]].submission_id) {
      ++end;
    }
    const bool same_user =
        prev_end > prev_begin && rows_[order[prev_begin]].user == rows_[order[at]].user;
    if (same_user) {
      for (size_t j = at; j < end; ++j) {
        const Row& b = rows_[order[j]];
        if (!b.qualifies || b.sketch < 0) continue;
        for (size_t i = prev_begin; i < prev_end; ++i) {
          const Row& a = rows_[order[i]];
          if (a.series != b.series || !a.qualifies || a.sketch < 0 || a.code_id == b.code_id) {
            continue;
          }
          const uint32_t* sa = sketch_of(a.sketch);
          const uint32_t* sb = sketch_of(b.sketch);
          if (similarity::sketch_similarity(sa, sb) >= options_.similarity) {
            near[b.series].push_back({b.time_us, b.log_score - a.log_score});
          }
        }
      }
    }
    prev_begin = at;
    prev_end = end;
    at = end;
  }
}

std::vector<SeriesNoise> NoiseBuilder::finish() {
  const size_t count = series_.size();
  std::vector<std::vector<TimedDifference>> same_code(count), near(count);

  same_code_pairs(same_code);
  near_identical_pairs(near);

  std::vector<SeriesNoise> out;
  for (uint32_t i = 0; i < count; ++i) {
    const SeriesData& data = series_[i];
    SeriesNoise noise;
    noise.leaderboard_id = data.key.leaderboard_id;
    noise.problem_name = data.problem_name;
    noise.runner = data.key.runner;
    std::vector<TimedDifference> centred;
    if (auto e = harness_estimate(data.harness)) noise.sources.push_back(*e);
    auto add_pairs = [&](NoiseSource source, const std::vector<TimedDifference>& pairs) {
      std::vector<double> values;
      for (const TimedDifference& p : pairs) values.push_back(p.value);
      const std::optional<NoiseEstimate> e = pair_estimate(source, values);
      if (!e) return;
      noise.sources.push_back(*e);
      for (const TimedDifference& p : pairs) centred.push_back({p.time_us, p.value - e->shift});
    };
    add_pairs(NoiseSource::PUBLIC_SECRET, data.secret);
    add_pairs(NoiseSource::SAME_CODE, same_code[i]);
    add_pairs(NoiseSource::NEAR_IDENTICAL, near[i]);
    if (noise.sources.empty()) continue;
    // The harness's errors measure the spread within one run, a lower bound of the spread between
    // runs: they are combined only when no repeat measurement gives an estimate.
    std::vector<NoiseEstimate> repeats;
    for (const NoiseEstimate& e : noise.sources) {
      if (e.source != NoiseSource::HARNESS_ERR) repeats.push_back(e);
    }
    noise.combined = combine(repeats.empty() ? noise.sources : repeats);
    noise.change = find_change_point(centred, options_.min_segment);
    noise.over_time = windows_of(std::move(centred), options_.window);
    out.push_back(std::move(noise));
  }
  std::sort(out.begin(), out.end(), [](const SeriesNoise& a, const SeriesNoise& b) {
    return SeriesKey{a.leaderboard_id, a.runner} < SeriesKey{b.leaderboard_id, b.runner};
  });
  return out;
}

}  // namespace kbdata::analysis
