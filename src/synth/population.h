// The people and events behind the synthetic files: users with heavy-tailed activity, the
// submissions they make to each leaderboard over its competition window, how each one's code
// relates to their previous one (resubmission, small edit, rewrite), its outcome and its scores.
//
// Everything here is metadata (a few dozen bytes per submission); code text is regenerated from
// each submission's CodeKey by the writers.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "dataset/registry.h"
#include "synth/code_generator.h"

namespace kbdata::synth {

// Runners one leaderboard can have (Submission::runner_mask is a byte).
constexpr size_t kMaxRunners = 8;

// How one leaderboard is modelled.
struct LeaderboardModel {
  int64_t id = 0;  // the registry's id; synthetic (see synth.h) where the registry has none
  std::string name;
  std::string note;                  // the registry's reliability note
  std::vector<std::string> runners;  // a scored submission runs on one or more of these (at most
                                     // kMaxRunners)
  int64_t start_us = 0;              // competition window, microseconds since the Unix epoch (UTC)
  int64_t deadline_us = 0;
  double base_score = 1e-4;  // seconds: a typical early score
  double improvement = 5.0;  // how many times faster the best late kernels are than early ones
  double noise = 0.03;       // log-normal sigma of one measurement
  double late_noise = 0.0;   // extra sigma after the window's midpoint (598's unreliable runner)
  double pass_rate = 0.5;    // share of submissions that get a qualifying score
  bool cuda_file = false;    // a "cu" leaderboard: CUDA C++ files, not Python
  std::vector<Language> languages;  // what users write, most common first
  int64_t submissions = 0;          // how many to generate
};

enum class Outcome : uint8_t {
  SCORED,        // leaderboard run on every runner in runner_mask, passed, scored
  FAILED_CHECK,  // leaderboard run on the first runner of the mask, did not pass
  ERROR,         // crashed or did not compile: no leaderboard run
  TEST_ONLY,     // only test/benchmark runs
  HACKED,        // scored, then marked hacked by the organisers
  PENDING        // never finished (done = false)
};

struct User {
  std::string id;    // snowflake-like platform id
  std::string name;  // "" for unknown
};

struct Submission {
  int64_t id = 0;
  int64_t code_id = 0;
  int64_t time_us = 0;
  uint32_t leaderboard = 0;  // index into the models
  uint32_t user = 0;         // index into Population::users
  CodeKey code;
  Outcome outcome = Outcome::ERROR;
  uint8_t runner_mask = 0;                   // bit i: runners[i] got a leaderboard run
  std::array<double, kMaxRunners> scores{};  // per runner, seconds, when scored
  // Per runner: the secret run's score, the same code measured again with its own noise (drawn
  // from a stream of its own, so that the public scores do not depend on it).
  std::array<double, kMaxRunners> secret_scores{};
  double sigma = 0;  // the log-normal sigma of this submission's measurements
};

struct Population {
  std::vector<User> users;
  std::vector<Submission> submissions;  // by time; ids and code ids increase with time
};

// The code keys that are stored oddly in the legacy files (docs/dataset.md §4.2), a pure function
// of the key so that every row with that code agrees:
//   hex escape: about 1 code in 12 of the first AMD competition was stored as a Postgres hex
//     escape (`\x` + hex of the UTF-8 source) in both legacy files;
//   invalid UTF-8: about 1 Python code in 40 has a Latin-1 byte in its note line; Python refuses
//     such a source, so those submissions always fail (outcome ERROR) and appear only in
//     submissions.parquet, whose `code` column is binary.
[[nodiscard]] bool stored_as_hex_escape(const CodeKey& key);
[[nodiscard]] bool has_invalid_utf8(const CodeKey& key);

// Generates users and submissions for `models` (one config) from `seed`. `users` is the size of the
// config's user pool; submission and code ids start above the given bases. With `legacy_storage`
// (the first AMD competition), codes with has_invalid_utf8() fail.
[[nodiscard]] Population make_population(std::span<const LeaderboardModel> models, int users,
                                         uint64_t seed, int64_t first_submission_id,
                                         int64_t first_code_id, bool legacy_storage);

}  // namespace kbdata::synth
