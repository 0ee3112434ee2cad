#include "cli/dedup_command.h"

#include <unistd.h>

#include <chrono>
#include <cinttypes>
#include <string>

#include "cli/output.h"
#include "common/error.h"

namespace kbdata::cli {

void run_dedup_command(DedupCommandOptions& options, std::FILE* out, std::FILE* err) {
  if (options.exact == options.fuzzy) {
    throw UsageError("give one of --exact (the platform's rule) or --fuzzy (near-duplicates too)");
  }
  options.dedup.mode = options.fuzzy ? dedup::Mode::FUZZY : dedup::Mode::EXACT;
  const bool tty = err != nullptr && ::isatty(::fileno(err)) == 1;
  auto last = std::chrono::steady_clock::now();
  std::string last_stage;
  dedup::ProgressFn progress;
  if (tty) {
    progress = [&](std::string_view stage, uint64_t done, uint64_t total) {
      auto now = std::chrono::steady_clock::now();
      const bool stage_changed = stage != last_stage;
      if (!stage_changed && done != total && now - last < std::chrono::milliseconds(200)) return;
      if (stage_changed && !last_stage.empty()) std::fprintf(err, "\n");
      last = now;
      last_stage = std::string(stage);
      std::fprintf(err, "\r\x1b[Kkbdata dedup: %s: %" PRIu64 " of %" PRIu64, last_stage.c_str(),
                   done, total);
      std::fflush(err);
    };
  }
  const auto start = std::chrono::steady_clock::now();
  dedup::DedupSummary s = dedup::run_dedup(options.dedup, progress);
  if (tty && !last_stage.empty()) std::fprintf(err, "\n");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  std::string text;
  auto line = [&](const char* label, uint64_t value) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "%-24s %" PRIu64 "\n", label, value);
    text += buf;
  };
  line("rows in", s.rows_in);
  line("exact duplicates", s.exact_duplicates);
  if (options.fuzzy) {
    line("near-duplicate clusters", s.near_duplicate_clusters);
    line("near-duplicates", s.near_duplicates);
  }
  line("rows out", s.rows_out);
  if (options.dedup.emit_all) line("rows written", s.rows_written);
  if (options.fuzzy) {
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "%-24s %" PRIu64 " rows hashed; LSH %d bands x %d rows; %" PRIu64
                  " candidate pairs, %" PRIu64 " verified (%" PRIu64 " shingle sets), %" PRIu64
                  " joined\n",
                  "signatures", s.signatures, s.lsh.bands, s.lsh.rows, s.candidate_pairs,
                  s.verified_pairs, s.sets_built, s.joined_pairs);
    text += buf;
  }
  char buf[256];
  if (options.fuzzy) {
    std::snprintf(buf, sizeof buf,
                  "%-24s %.1f s (metadata %.1f, hashing %.1f, clustering %.1f, writing %.1f)\n",
                  "time", seconds, s.metadata_seconds, s.hash_seconds, s.cluster_seconds,
                  s.write_seconds);
  } else {
    std::snprintf(buf, sizeof buf, "%-24s %.1f s (metadata %.1f, writing %.1f)\n", "time", seconds,
                  s.metadata_seconds, s.write_seconds);
  }
  text += buf;
  write_all(out, text);
}

}  // namespace kbdata::cli
