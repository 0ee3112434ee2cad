// kbdata synth: a synthetic KernelBot data set with the shapes of the published one.
//
//   random.h              seeded PRNG (xoshiro256**, splitmix64) and portable distributions
//   code_generator.*      kernel source text per language, lineages and versions (near-duplicates)
//   population.*          users, heavy-tailed activity, submission timelines, outcomes, scores
//   layout.*              the two layouts' writer options and the files' provenance
//   flat_writer.*         a flat-family config (docs/dataset.md §4.1): rows, dedup, order,
//                         written by dataset::FlatFileWriter
//   legacy_writer.*       the legacy per-run AMD files (§4.2), by parquet::RowFileWriter
//   leaderboards_writer.* leaderboards.parquet (§4.3)
//   dataset_card.*        README.md with the configs, sizes, row counts, notes
//   seed_database.*       `synth --db`: the same population in the platform's PostgreSQL tables
//   synth.*               this entry point: which configs, at which scale, into which folder
//
// Everything is a function of SynthOptions (the seed above all): the same options give
// byte-identical files, whatever the folder.
//
// Rates it promises (measured over the flat configs of `small` runs, seeds 1-8; docs/synth.md):
//   exact duplicates: about 8% (6-9%) of flat rows have a code_id that an earlier row of the same
//     file (by submission_time) already had: the same code resubmitted with another outcome or on
//     another runner (a resubmission with the same outcome and runner is merged by the
//     deduplication), or the public starter code (10% of users start from it). Before
//     deduplication 16% of submissions resubmit the user's previous code unchanged.
//   near-duplicates: about 46% (43-49%) of flat rows are a new version of the user's previous
//     kernel on that problem: their code differs from it but has a 5-byte-shingle Jaccard of at
//     least 0.8 with it (a small edit: a few tuning constants and the note line). A rewrite (a new
//     kernel) has a Jaccard of about 0.2 with the previous one.
// The legacy files are per run, so every code appears once per run of its submission.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "common/progress.h"
#include "dataset/registry.h"
#include "synth/layout.h"
#include "synth/population.h"

namespace kbdata::synth {

enum class Scale { SMALL, MEDIUM, FULL };
enum class Family { FLAT, LEGACY, BOTH };
// Which leaderboards leaderboards.parquet holds: those of the first AMD competition, as the
// published file has held (PUBLISHED), or every leaderboard synth models (ALL).
enum class LeaderboardRows { PUBLISHED, ALL };

struct SynthOptions {
  // Created if missing. An existing folder must be empty or one synth made (made_by_synth), unless
  // `force`: synth never overwrites real data by accident.
  std::string out_dir;
  bool force = false;
  Scale scale = Scale::SMALL;
  uint64_t seed = 1;
  Family family = Family::BOTH;
  Layout layout = Layout::PUBLISHED;
  LeaderboardRows leaderboards = LeaderboardRows::PUBLISHED;
  int threads = 1;  // each file's compression threads (parquet::WriterOptions::threads)
  // Each file's rows as written, the file's name as the stage (may be empty).
  ProgressFn progress;
};

// Whether `dir` is a folder synth made: its README.md is synth's dataset card ("This data is
// synthetic. It was made by `kbdata synth ...`") and it holds nothing but files synth writes (the
// registry's config files and README.md) and kbdata's temporaries.
[[nodiscard]] bool made_by_synth(const std::string& dir);

struct WrittenFile {
  std::string config;  // registry config name
  std::string file;    // file name inside out_dir
  int64_t rows = 0;
  uint64_t bytes = 0;
};

// The leaderboard ids given to the PMPP practice problems, whose real ids are not published.
inline constexpr int64_t kFirstPmppId = 901;

// How the leaderboards of `config` are modelled at `scale`.
[[nodiscard]] std::vector<LeaderboardModel> config_models(const dataset::ConfigInfo& config,
                                                          Scale scale);

// The size of `config`'s user pool at `scale`.
[[nodiscard]] int config_pool_size(const dataset::ConfigInfo& config, Scale scale);

// The users and submissions `kbdata synth --seed seed` writes for `config` (modelled by `models`,
// config_models at the options' scale): what run_synth writes, without writing it.
[[nodiscard]] Population config_population(const dataset::ConfigInfo& config,
                                           std::span<const LeaderboardModel> models, Scale scale,
                                           uint64_t seed);

// The command recorded in every file's kbdata.command: the options without the folder, so the
// files do not depend on where they are written.
[[nodiscard]] std::string synth_command(const SynthOptions& options);

[[nodiscard]] const char* to_string(Scale scale);
[[nodiscard]] const char* to_string(Family family);
[[nodiscard]] const char* to_string(Layout layout);
[[nodiscard]] const char* to_string(LeaderboardRows rows);

// Writes the configs of the family, leaderboards.parquet and README.md into options.out_dir.
// Returns what was written, in the card's order. Throws IoError if the folder or a file cannot be
// written (files already complete stay).
std::vector<WrittenFile> run_synth(const SynthOptions& options);

}  // namespace kbdata::synth
