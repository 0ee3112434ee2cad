#include "cli/synth_command.h"

#include <string>
#include <vector>

#include "cli/output.h"
#include "common/error.h"
#include "synth/seed_database.h"
#include "synth/synth.h"

namespace kbdata::cli {

void run_synth(const SynthCommandOptions& options, std::FILE* out, std::FILE* progress) {
  synth::SynthOptions s;
  s.out_dir = options.out;
  s.force = options.force;
  s.seed = options.seed;
  s.progress = progress;
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

  if (options.db.empty() == options.out.empty()) {
    throw UsageError("give exactly one of --out DIR (Parquet files) and --db URL (a database)");
  }
  if (!options.db.empty()) {
    synth::SeedOptions seed;
    seed.url = options.db;
    seed.scale = s.scale;
    seed.seed = s.seed;
    seed.progress = progress;
    std::vector<std::vector<std::string>> rows = {{"table", "rows"}};
    for (const synth::SeedCounts& c : synth::seed_database(seed)) {
      rows.push_back({"leaderboard." + c.table, std::to_string(c.rows)});
    }
    write_all(out, format_table(rows, {false, true}));
    return;
  }
  std::vector<synth::WrittenFile> files = synth::run_synth(s);
  std::vector<std::vector<std::string>> rows = {{"config", "file", "rows", "bytes"}};
  for (const synth::WrittenFile& f : files) {
    rows.push_back({f.config, f.file, std::to_string(f.rows), std::to_string(f.bytes)});
  }
  write_all(out, format_table(rows, {false, false, true, true}));
}

}  // namespace kbdata::cli
