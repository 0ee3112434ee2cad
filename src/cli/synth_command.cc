#include "cli/synth_command.h"

#include <memory>
#include <string>
#include <vector>

#include "cli/progress.h"
#include "cli/threads.h"
#include "common/error.h"
#include "report/text.h"
#include "synth/seed_database.h"
#include "synth/synth.h"

namespace kbdata::cli {

void run_synth(const SynthCommandOptions& options, std::FILE* out, std::FILE* progress) {
  synth::SynthOptions s;
  s.out_dir = options.out;
  s.force = options.force;
  s.seed = options.seed;
  s.threads = command_threads(std::nullopt);
  if (options.scale == "small")
    s.scale = synth::Scale::SMALL;
  else if (options.scale == "medium")
    s.scale = synth::Scale::MEDIUM;
  else if (options.scale == "full")
    s.scale = synth::Scale::FULL;
  else
    throw UsageError("unknown --scale '" + options.scale + "'; use small, medium or full");
  if (options.family == "flat")
    s.family = synth::Family::FLAT;
  else if (options.family == "legacy")
    s.family = synth::Family::LEGACY;
  else if (options.family == "both")
    s.family = synth::Family::BOTH;
  else
    throw UsageError("unknown --family '" + options.family + "'; use flat, legacy or both");
  if (options.layout == "published")
    s.layout = synth::Layout::PUBLISHED;
  else if (options.layout == "kbdata")
    s.layout = synth::Layout::KBDATA;
  else
    throw UsageError("unknown --layout '" + options.layout + "'; use published or kbdata");
  if (options.leaderboards == "published")
    s.leaderboards = synth::LeaderboardRows::PUBLISHED;
  else if (options.leaderboards == "all")
    s.leaderboards = synth::LeaderboardRows::ALL;
  else
    throw UsageError("unknown --leaderboards '" + options.leaderboards + "'; use published or all");

  if (options.db.empty() == options.out.empty()) {
    throw UsageError("give exactly one of --out DIR (Parquet files) and --db URL (a database)");
  }
  if (!options.db.empty()) {
    synth::SeedOptions seed;
    seed.url = options.db;
    seed.scale = s.scale;
    seed.seed = s.seed;
    Progress line(progress, "synth: seeding");
    seed.progress = line.callback();
    const std::vector<synth::SeedCounts> counts = synth::seed_database(seed);
    line.finish();
    std::vector<std::vector<std::string>> rows = {{"table", "rows"}};
    for (const synth::SeedCounts& c : counts) {
      rows.push_back({"leaderboard." + c.table, std::to_string(c.rows)});
    }
    report::write_all(out, report::format_table(rows, {false, true}));
    return;
  }
  // A small set is written in a moment: no progress line.
  Progress line(progress, "synth");
  if (s.scale != synth::Scale::SMALL) s.progress = line.callback();
  std::vector<synth::WrittenFile> files = synth::run_synth(s);
  line.finish();
  std::vector<std::vector<std::string>> rows = {{"config", "file", "rows", "bytes"}};
  for (const synth::WrittenFile& f : files) {
    rows.push_back({f.config, f.file, std::to_string(f.rows), std::to_string(f.bytes)});
  }
  report::write_all(out, report::format_table(rows, {false, false, true, true}));
}

void add_synth_command(CLI::App& app, Commands& commands) {
  auto options = std::make_shared<SynthCommandOptions>();
  CLI::App* cmd =
      app.add_subcommand("synth",
                         "Write a synthetic KernelBot data set: configs of both schema families, "
                         "leaderboards.parquet\n"
                         "and a dataset card, deterministic by seed (docs/synth.md)");
  CLI::Option* synth_out = cmd->add_option(
      "--out,-o", options->out,
      "Folder to write into (created if missing; if it exists, empty or made by synth)");
  cmd->add_flag("--force", options->force,
                "Write into a non-empty folder synth did not make (its files of the same "
                "names are replaced)");
  cmd->add_option("--db", options->db,
                  "Instead of files, create the platform's tables (src/platform/schema.sql) in "
                  "this empty PostgreSQL database (URL, e.g. postgresql://user@host:5432/db) and "
                  "seed them; --scale and --seed apply")
      ->excludes(synth_out);
  cmd->add_option("--scale", options->scale,
                  "small (a few MB), medium (tens of MB) or full (the NVFP4 config's "
                  "shape: about 200,000 rows, 1.4 GB)")
      ->check(CLI::IsMember({"small", "medium", "full"}))
      ->capture_default_str();
  cmd->add_option("--seed", options->seed, "Seed: the same seed writes the same bytes")
      ->capture_default_str();
  cmd->add_option("--family", options->family,
                  "flat (current configs), legacy (AMD per-run files) or both")
      ->check(CLI::IsMember({"flat", "legacy", "both"}))
      ->capture_default_str();
  cmd->add_option("--layout", options->layout,
                  "published (as the hub's files: snappy, dictionary, one row group, no "
                  "page index) or kbdata (kbdata's writer defaults)")
      ->check(CLI::IsMember({"published", "kbdata"}))
      ->capture_default_str();
  cmd->add_option("--leaderboards", options->leaderboards,
                  "Rows of leaderboards.parquet: published (the first AMD competition's only, as "
                  "the published file has held) or all (every leaderboard of the data set)")
      ->check(CLI::IsMember({"published", "all"}))
      ->capture_default_str();
  commands.push_back({cmd, [options] { run_synth(*options, stdout, stderr); }});
}

}  // namespace kbdata::cli
