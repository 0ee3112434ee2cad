#include "synth/population.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "synth/random.h"

namespace kbdata::synth {
namespace {

// What a user does between two submissions to the same leaderboard.
constexpr double kResubmit = 0.16;   // the same code again (re-measure, other runner, retry)
constexpr double kSmallEdit = 0.68;  // a new version of the current kernel: a near-duplicate
// the rest: a rewrite (a new lineage)
constexpr double kStarter = 0.10;  // a user's first submission is the public starter code

constexpr const char* kSyllables[] = {
    "ka",  "ri",  "to", "ne", "zu",  "mi", "lo", "sa",  "dev", "ax", "gpu", "byte", "warp",
    "ker", "nel", "vo", "qi", "ran", "jo", "el", "tri", "ton", "cu", "da",  "hip",  "flux"};

std::string user_name(Rng& rng) {
  std::string s;
  int parts = static_cast<int>(rng.range(2, 3));
  for (int i = 0; i < parts; ++i) s += rng.pick(kSyllables);
  if (rng.chance(0.35)) s += std::to_string(rng.range(1, 9999));
  if (rng.chance(0.15)) s = "_" + s;
  return s;
}

// A Discord-style snowflake: milliseconds since 2015-01-01 in the high bits.
std::string snowflake(Rng& rng) {
  const int64_t ms = rng.range(int64_t{40} * 365 * 86'400'000 / 10, int64_t{10} * 365 * 86'400'000);
  const uint64_t id = (static_cast<uint64_t>(ms) << 22) | rng.below(uint64_t{1} << 22);
  return std::to_string(id);
}

Language pick_language(const LeaderboardModel& m, Rng& rng) {
  if (m.cuda_file) return Language::CUDA_FILE;
  // The first language is the most common; the weights halve down the list.
  double u = rng.uniform();
  double w = 0.5;
  for (Language l : m.languages) {
    if (u < w) return l;
    u -= w;
    w /= 2;
  }
  return m.languages.front();
}

}  // namespace

bool stored_as_hex_escape(const CodeKey& key) {
  return mix64(key.lineage ^ (uint64_t{key.version} * 0x9E37)) % 12 == 5;
}

bool has_invalid_utf8(const CodeKey& key) {
  return key.language != Language::CUDA_FILE &&
         mix64(key.lineage + 77 * uint64_t{key.version} + 13) % 40 == 7;
}

Population make_population(std::span<const LeaderboardModel> models, int users, uint64_t seed,
                           int64_t first_submission_id, int64_t first_code_id,
                           bool legacy_storage) {
  Population p;
  Rng user_rng(derive(seed, 100));
  std::vector<double> activity;
  for (int u = 0; u < users; ++u) {
    User user;
    user.id = snowflake(user_rng);
    user.name = user_rng.chance(0.03) ? "" : user_name(user_rng);
    p.users.push_back(std::move(user));
    // Heavy tail: a few users make most submissions.
    activity.push_back(std::min(user_rng.pareto(1.0, 1.1), 300.0));
  }

  for (uint32_t lb = 0; lb < models.size(); ++lb) {
    const LeaderboardModel& m = models[lb];
    Rng rng(derive(seed, 200, static_cast<uint64_t>(m.id)));
    Rng secret_rng(derive(seed, 201, static_cast<uint64_t>(m.id)));
    // Participants: a share of the pool, each with their activity weight.
    std::vector<uint32_t> who;
    double total = 0;
    for (uint32_t u = 0; u < p.users.size(); ++u) {
      if (rng.chance(0.6)) {
        who.push_back(u);
        total += activity[u];
      }
    }
    if (who.empty()) who.push_back(0), total = activity[0];
    const double window = static_cast<double>(m.deadline_us - m.start_us);
    const uint64_t starter = derive(seed, 300, static_cast<uint64_t>(m.id));
    int64_t made = 0;
    for (size_t w = 0; w < who.size() && made < m.submissions; ++w) {
      const uint32_t u = who[w];
      int64_t count = std::max<int64_t>(
          1, std::llround(static_cast<double>(m.submissions) * activity[u] / total));
      count = std::min(count, m.submissions - made);
      if (w + 1 == who.size()) count = m.submissions - made;
      made += count;
      // The user's active stretch of the window, denser near the deadline.
      double begin = rng.uniform() * 0.8;
      double end = std::min(1.0, begin + 0.1 + rng.uniform() * 0.9);
      std::vector<double> times;
      for (int64_t i = 0; i < count; ++i) {
        times.push_back(begin + (end - begin) * std::pow(rng.uniform(), 0.7));
      }
      std::sort(times.begin(), times.end());
      const double skill = 0.3 + 0.7 * rng.uniform();
      CodeKey code;
      uint32_t next_lineage = 0;
      // A lineage's highest version and its quality: how fast its first version runs, relative
      // to the problem's base score. Users write better kernels as the competition goes on (by
      // their skill), so later lineages start faster; each version is a little faster still.
      struct LineageState {
        uint32_t version = 0;
        double quality = 1.0;
      };
      std::unordered_map<uint64_t, LineageState> lineages;
      lineages[starter] = {0, 1.3};
      double progress = 0;
      auto new_lineage = [&] {
        code.lineage = derive(seed, derive(static_cast<uint64_t>(m.id), u), next_lineage++);
        code.version = 0;
        code.language = pick_language(m, rng);
        lineages[code.lineage] = {
            0, std::exp(-std::log(m.improvement) * skill * progress + 0.35 * rng.normal())};
      };
      for (int64_t i = 0; i < count; ++i) {
        progress = times[static_cast<size_t>(i)];
        if (i == 0) {
          if (rng.chance(kStarter)) {
            code = CodeKey{starter, 0, m.cuda_file ? Language::CUDA_FILE : Language::PYTORCH};
          } else {
            new_lineage();
          }
        } else {
          double r = rng.uniform();
          if (r < kResubmit) {
            // same code
          } else if (r < kResubmit + kSmallEdit && code.lineage != starter) {
            code.version = ++lineages[code.lineage].version;
          } else {
            new_lineage();
          }
        }
        Submission s;
        s.time_us = m.start_us + static_cast<int64_t>(times[static_cast<size_t>(i)] * window) +
                    rng.range(0, 999'999);
        s.leaderboard = lb;
        s.user = u;
        s.code = code;
        // Users fail less as they go on.
        const double pass = std::min(0.97, m.pass_rate * (0.75 + 0.5 * progress));
        double r = rng.uniform();
        if (legacy_storage && has_invalid_utf8(code)) {
          s.outcome = Outcome::ERROR;
        } else if (r < pass) {
          s.outcome = rng.chance(0.004) ? Outcome::HACKED : Outcome::SCORED;
        } else if (r < pass + 0.003) {
          s.outcome = Outcome::PENDING;
        } else {
          double f = rng.uniform();
          s.outcome = f < 0.3    ? Outcome::FAILED_CHECK
                      : f < 0.75 ? Outcome::ERROR
                                 : Outcome::TEST_ONLY;
        }
        // Runners: one, or (mixed-hardware leaderboards) sometimes several.
        s.runner_mask = 1;
        if (m.runners.size() > 1) {
          s.runner_mask = static_cast<uint8_t>(1u << rng.below(m.runners.size()));
          if (rng.chance(0.3))
            s.runner_mask |= static_cast<uint8_t>(1u << rng.below(m.runners.size()));
        }
        // Score: the problem's base times the code's own speed (its lineage's quality, a little
        // better per version; a pure function of the code), then the runner's measurement noise.
        const double version_factor = std::exp(-0.015 * std::min<double>(code.version, 40));
        const double code_factor = lineages[code.lineage].quality * version_factor;
        const double sigma = m.noise + (progress > 0.5 ? m.late_noise : 0.0);
        s.sigma = sigma;
        for (size_t k = 0; k < m.runners.size(); ++k) {
          const double runner_factor = 1.0 + 0.6 * static_cast<double>(k);
          const double speed = m.base_score * runner_factor * code_factor;
          // Nanosecond resolution, as the tester reports nanoseconds / 1e9.
          s.scores[k] = std::round(speed * std::exp(sigma * rng.normal()) * 1e9) / 1e9;
          s.secret_scores[k] =
              std::round(speed * std::exp(sigma * secret_rng.normal()) * 1e9) / 1e9;
        }
        p.submissions.push_back(s);
      }
    }
  }

  std::stable_sort(p.submissions.begin(), p.submissions.end(),
                   [](const Submission& a, const Submission& b) { return a.time_us < b.time_us; });
  Rng ids(derive(seed, 400));
  int64_t next_id = first_submission_id;
  int64_t next_code = first_code_id;
  std::unordered_map<uint64_t, int64_t> code_ids;
  for (Submission& s : p.submissions) {
    next_id += 1 + static_cast<int64_t>(ids.below(3));  // other configs' submissions in between
    s.id = next_id;
    uint64_t key = mix64(s.code.lineage ^ mix64(s.code.version));
    auto [it, inserted] = code_ids.try_emplace(key, 0);
    if (inserted) {
      next_code += 1 + static_cast<int64_t>(ids.below(2));
      it->second = next_code;
    }
    s.code_id = it->second;
  }
  return p;
}

}  // namespace kbdata::synth
