#include "synth/synth.h"

#include <algorithm>
#include <cinttypes>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <system_error>

#include "common/calendar.h"
#include "common/error.h"
#include "common/file.h"
#include "synth/dataset_card.h"
#include "synth/flat_writer.h"
#include "synth/leaderboards_writer.h"
#include "synth/legacy_writer.h"
#include "synth/random.h"

namespace kbdata::synth {
namespace {

// Microseconds since the Unix epoch of 00:00 UTC on the date (proleptic Gregorian).
constexpr int64_t date_us(int y, int m, int d) { return days_from_civil(y, m, d) * kMicrosPerDay; }

// The modelling parameters the registry does not hold, per leaderboard name. `full` is the number
// of submissions at full scale (the flat file keeps about 90% after deduplication).
struct Params {
  const char* name;
  int64_t start_us;
  int64_t deadline_us;
  double base_score;
  double improvement;
  double noise;
  double late_noise;
  double pass_rate;
  int64_t full;
  bool cuda_file;
};

using L = Language;

const Params kParams[] = {
    // The first AMD competition (legacy files).
    {"amd-identity", date_us(2025, 4, 20), date_us(2025, 5, 20), 20e-6, 2, 0.03, 0, 0.6, 3300,
     false},
    {"amd-fp8-mm", date_us(2025, 4, 20), date_us(2025, 6, 2), 200e-6, 8, 0.03, 0, 0.45, 13000,
     false},
    {"amd-mixture-of-experts", date_us(2025, 5, 5), date_us(2025, 6, 2), 6e-3, 6, 0.03, 0, 0.4,
     6500, false},
    {"amd-mla-decode", date_us(2025, 5, 12), date_us(2025, 6, 2), 3e-3, 5, 0.03, 0, 0.4, 5500,
     false},
    {"amd-all2all", date_us(2025, 8, 15), date_us(2025, 10, 14), 900e-6, 4, 0.05, 0, 0.35, 2200,
     false},
    {"amd-gemm-rs", date_us(2025, 8, 15), date_us(2025, 10, 14), 700e-6, 3, 0.05, 0, 0.35, 2200,
     false},
    {"amd-ag-gemm", date_us(2025, 8, 15), date_us(2025, 10, 14), 650e-6, 3, 0.05, 0, 0.35, 2200,
     false},
    // NVFP4 on B200: the real file's shape (35,559 / 48,682 / 113,353 rows, then 697 and 730).
    {"nvfp4_gemv", date_us(2025, 11, 1), date_us(2025, 11, 29), 40e-6, 3, 0.03, 0, 0.14, 39100,
     false},
    {"nvfp4_gemm", date_us(2025, 11, 15), date_us(2025, 12, 20), 60e-6, 4, 0.03, 0, 0.54, 53500,
     false},
    {"nvfp4_dual_gemm", date_us(2025, 12, 1), date_us(2026, 1, 20), 90e-6, 4, 0.04, 0.35, 0.65,
     124700, false},
    {"modal_nvfp4_dual_gemm", date_us(2026, 1, 5), date_us(2026, 1, 20), 45e-6, 2, 0.008, 0, 0.65,
     7300, false},
    {"nvfp4_group_gemm", date_us(2026, 1, 20), date_us(2026, 2, 20), 120e-6, 4, 0.03, 0, 0.5, 5500,
     false},
    // AMD $1.1M on MI355X.
    {"amd-mxfp4-mm", date_us(2026, 3, 1), date_us(2026, 4, 15), 30e-6, 4, 0.03, 0, 0.5, 22000,
     false},
    {"amd-moe-mxfp4", date_us(2026, 3, 1), date_us(2026, 4, 15), 400e-6, 5, 0.03, 0, 0.45, 22000,
     false},
    {"amd-mixed-mla", date_us(2026, 3, 1), date_us(2026, 4, 15), 150e-6, 5, 0.03, 0, 0.45, 22000,
     false},
    {"trimul", date_us(2025, 6, 1), date_us(2025, 9, 1), 5e-3, 6, 0.04, 0, 0.5, 8800, false},
    // Helion on the fragile B200_Nebius runner.
    {"causal_conv1d", date_us(2026, 6, 1), date_us(2026, 7, 15), 80e-6, 3, 0.15, 0, 0.5, 3300,
     false},
    {"fp8_quant", date_us(2026, 6, 1), date_us(2026, 7, 15), 25e-6, 3, 0.15, 0, 0.55, 3300, false},
    {"gated_deltanet_chunk_fwd_h", date_us(2026, 6, 1), date_us(2026, 7, 15), 300e-6, 4, 0.15, 0,
     0.45, 3300, false},
    {"gated_deltanet_chunk_fwd_o", date_us(2026, 6, 1), date_us(2026, 7, 15), 250e-6, 4, 0.15, 0,
     0.45, 3300, false},
    {"gated_deltanet_recompute_w_u", date_us(2026, 6, 1), date_us(2026, 7, 15), 200e-6, 4, 0.15, 0,
     0.45, 3300, false},
    // PMPP practice problems (ranking_by last).
    {"conv2d_v2", date_us(2025, 2, 1), date_us(2025, 12, 31), 2e-3, 10, 0.05, 0, 0.5, 2200, false},
    {"grayscale_v2", date_us(2025, 2, 1), date_us(2025, 12, 31), 300e-6, 5, 0.05, 0, 0.6, 2200,
     true},
    {"histogram_v2", date_us(2025, 2, 1), date_us(2025, 12, 31), 400e-6, 6, 0.05, 0, 0.55, 2200,
     true},
    {"matmul_v2", date_us(2025, 2, 1), date_us(2025, 12, 31), 1e-3, 10, 0.05, 0, 0.5, 2200, false},
    {"prefixsum_v2", date_us(2025, 2, 1), date_us(2025, 12, 31), 500e-6, 6, 0.05, 0, 0.5, 2200,
     false},
    {"sort_v2", date_us(2025, 2, 1), date_us(2025, 12, 31), 3e-3, 8, 0.05, 0, 0.45, 2200, false},
    {"vectoradd_v2", date_us(2025, 2, 1), date_us(2025, 12, 31), 200e-6, 3, 0.05, 0, 0.7, 2200,
     true},
    {"vectorsum_v2", date_us(2025, 2, 1), date_us(2025, 12, 31), 150e-6, 4, 0.05, 0, 0.6, 2200,
     false},
    // Linear algebra on B200.
    {"qr_v2", date_us(2026, 7, 15), date_us(2026, 9, 30), 2e-3, 5, 0.03, 0, 0.45, 11000, false},
    {"eigh", date_us(2026, 7, 15), date_us(2026, 9, 30), 8e-3, 4, 0.03, 0, 0.4, 11000, false},
    {"cholesky", date_us(2026, 7, 15), date_us(2026, 9, 30), 1e-3, 5, 0.03, 0, 0.5, 11000, false},
};

const Params& params_for(const std::string& name) {
  for (const Params& p : kParams) {
    if (name == p.name) return p;
  }
  throw UsageError("kbdata synth has no model for leaderboard '" + name + "'");
}

std::vector<Language> languages_for(const dataset::ConfigInfo& config) {
  const std::string& n = config.name;
  if (n == "amd_submissions" || n == "amd_successful_submissions" || n == "amd_1_1m_competition") {
    return {L::HIP_INLINE, L::TRITON, L::PYTORCH};
  }
  if (n == "nvidia_nvfp4_submissions") return {L::CUDA_INLINE, L::CUTE_DSL, L::TRITON, L::PYTORCH};
  if (n == "linalg_submissions") return {L::CUDA_INLINE, L::TRITON, L::CUTE_DSL, L::PYTORCH};
  if (n == "pmpp_v2_submissions") return {L::TRITON, L::CUDA_INLINE, L::PYTORCH};
  return {L::TRITON, L::PYTORCH, L::CUDA_INLINE};
}

int64_t scaled(int64_t full, Scale scale) {
  switch (scale) {
    case Scale::SMALL:
      return std::max<int64_t>(10, full / 400);
    case Scale::MEDIUM:
      return std::max<int64_t>(40, full / 50);
    case Scale::FULL:
      return full;
  }
  return full;
}

int pool_size(const dataset::ConfigInfo& config, Scale scale) {
  int full = config.name == "nvidia_nvfp4_submissions" ? 460
             : config.name == "amd_1_1m_competition"   ? 300
             : config.name == "amd_submissions"        ? 250
             : config.name == "pmpp_v2_submissions"    ? 200
                                                       : 110;
  switch (scale) {
    case Scale::SMALL:
      return std::max(12, full / 8);
    case Scale::MEDIUM:
      return std::max(30, full / 3);
    case Scale::FULL:
      return full;
  }
  return full;
}

// Where each config's ids start, so ids of different configs do not collide.
int64_t id_base(const dataset::ConfigInfo& config) {
  int64_t index = 0;
  for (const dataset::ConfigInfo& c : dataset::configs()) {
    if (&c == &config) break;
    ++index;
  }
  return (index + 1) * 10'000'000;
}

// A file's progress as the run's: the file's name as the stage.
ProgressFn file_progress(const SynthOptions& options, const std::string& file) {
  if (!options.progress) return {};
  return [&options, file](const ProgressStep& step) {
    options.progress({.stage = file, .done = step.done, .total = step.total, .unit = step.unit});
  };
}

}  // namespace

std::vector<LeaderboardModel> config_models(const dataset::ConfigInfo& config, Scale scale) {
  std::vector<LeaderboardModel> models;
  int pmpp_index = 0;
  for (const dataset::LeaderboardInfo& info : config.leaderboards) {
    const Params& p = params_for(info.name);
    LeaderboardModel m;
    m.id = info.id ? *info.id : kFirstPmppId + pmpp_index++;
    m.name = info.name;
    m.note = info.note;
    // The runners the registry knows for the leaderboard (NVFP4: NVIDIA, the on-premise machines,
    // for 595-598, Modal's B200 for 697, both for 730; the first AMD competition: MI300, and
    // MI300x8 for the distributed problems).
    m.runners = info.runners.empty() ? config.hardware : info.runners;
    if (m.runners.size() > kMaxRunners) {
      throw std::logic_error("synth: leaderboard " + m.name + " has more than " +
                             std::to_string(kMaxRunners) + " runners");
    }
    m.start_us = p.start_us;
    m.deadline_us = p.deadline_us;
    m.base_score = p.base_score;
    m.improvement = p.improvement;
    m.noise = p.noise;
    m.late_noise = p.late_noise;
    m.pass_rate = p.pass_rate;
    m.cuda_file = p.cuda_file;
    m.languages = languages_for(config);
    m.submissions = scaled(p.full, scale);
    models.push_back(std::move(m));
  }
  return models;
}

const char* to_string(Scale scale) {
  switch (scale) {
    case Scale::SMALL:
      return "small";
    case Scale::MEDIUM:
      return "medium";
    case Scale::FULL:
      return "full";
  }
  return "?";
}
const char* to_string(Family family) {
  switch (family) {
    case Family::FLAT:
      return "flat";
    case Family::LEGACY:
      return "legacy";
    case Family::BOTH:
      return "both";
  }
  return "?";
}
const char* to_string(Layout layout) {
  return layout == Layout::PUBLISHED ? "published" : "kbdata";
}
const char* to_string(LeaderboardRows rows) {
  return rows == LeaderboardRows::PUBLISHED ? "published" : "all";
}

int config_pool_size(const dataset::ConfigInfo& config, Scale scale) {
  return pool_size(config, scale);
}

Population config_population(const dataset::ConfigInfo& config,
                             std::span<const LeaderboardModel> models, Scale scale, uint64_t seed) {
  const bool legacy = config.family == dataset::SchemaFamily::LEGACY_RUNS;
  return make_population(models, pool_size(config, scale), derive(seed, hash_text(config.name)),
                         id_base(config), id_base(config), legacy);
}

std::string synth_command(const SynthOptions& options) {
  return std::string("kbdata synth --scale ") + to_string(options.scale) + " --seed " +
         std::to_string(options.seed) + " --family " + to_string(options.family) + " --layout " +
         to_string(options.layout) + " --leaderboards " + to_string(options.leaderboards);
}

bool made_by_synth(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::ifstream card(fs::path(dir) / "README.md", std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(card)), std::istreambuf_iterator<char>());
  if (text.find("**This data is synthetic.** It was made by `kbdata synth ") == std::string::npos) {
    return false;
  }
  for (fs::directory_iterator it(dir, ec); !ec && it != fs::directory_iterator();
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name == "README.md" || name.find(".kbdata-") != std::string::npos) continue;
    const dataset::ConfigInfo* config = dataset::find_config(name);
    if (config == nullptr || !it->is_regular_file(ec)) return false;
  }
  return !ec;
}

std::vector<WrittenFile> run_synth(const SynthOptions& options) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(options.out_dir, ec);  // a link to a folder is one
  if (fs::exists(status)) {
    if (!fs::is_directory(status)) {
      throw UsageError(OptionName("out", options.out_dir), " exists and is not a folder");
    }
    if (!options.force && !fs::is_empty(options.out_dir, ec) && !made_by_synth(options.out_dir)) {
      throw UsageError(OptionName("out", options.out_dir),
                       " is not empty and was not made by kbdata synth; synth would overwrite its "
                       "files (",
                       OptionName::flag("force"), " allows it)");
    }
  }
  std::filesystem::create_directories(options.out_dir, ec);
  if (ec) {
    IoError error("cannot create the folder: " + ec.message());
    error.locate_file(options.out_dir);
    throw error;
  }
  OutputOptions writer = output_options(options.layout, synth_command(options));
  writer.writer.threads = options.threads;
  auto path = [&](const std::string& file) {
    return (std::filesystem::path(options.out_dir) / file).string();
  };
  std::vector<CardConfig> card;
  std::vector<LeaderboardModel> all_models;
  const bool flat = options.family != Family::LEGACY;
  const bool legacy = options.family != Family::FLAT;
  for (const dataset::ConfigInfo& config : dataset::configs()) {
    if (config.family == dataset::SchemaFamily::LEADERBOARDS) continue;
    const bool is_legacy = config.family == dataset::SchemaFamily::LEGACY_RUNS;
    if (is_legacy ? !legacy : !flat) continue;
    if (config.name == "amd_successful_submissions") continue;  // written with amd_submissions
    std::vector<LeaderboardModel> models = config_models(config, options.scale);
    const uint64_t seed = derive(options.seed, hash_text(config.name));
    Population population = config_population(config, models, options.scale, options.seed);
    if (is_legacy) {
      const dataset::ConfigInfo* passed = dataset::find_config("amd_successful_submissions");
      LegacyResult r = write_legacy(path(config.file), path(passed->file), models, population, seed,
                                    writer, file_progress(options, config.file));
      card.push_back({{config.name, config.file, r.all_rows, r.all_bytes}, &config, models});
      card.push_back({{passed->name, passed->file, r.passed_rows, r.passed_bytes}, passed, models});
    } else {
      auto [rows, bytes] = write_flat(path(config.file), models, population, writer,
                                      file_progress(options, config.file));
      card.push_back({{config.name, config.file, rows, bytes}, &config, models});
    }
    all_models.insert(all_models.end(), models.begin(), models.end());
  }
  const dataset::ConfigInfo* boards = dataset::find_config("leaderboards");
  if (options.leaderboards == LeaderboardRows::PUBLISHED) {
    // The published leaderboards.parquet has held only the first AMD competition's leaderboards:
    // every other leaderboard is known by the config files alone.
    all_models = config_models(*dataset::find_config("amd_submissions"), options.scale);
  }
  auto [rows, bytes] = write_leaderboards(path(boards->file), all_models, options.seed, writer);
  card.push_back({{boards->name, boards->file, rows, bytes}, boards, {}});

  AtomicOutputFile readme(path("README.md"));
  readme.write(dataset_card(card, options));
  readme.commit();

  std::vector<WrittenFile> written;
  for (const CardConfig& c : card) written.push_back(c.file);
  return written;
}

}  // namespace kbdata::synth
