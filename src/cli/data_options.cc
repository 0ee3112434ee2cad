#include "cli/data_options.h"

#include <cinttypes>
#include <cstdlib>
#include <filesystem>

#include "cli/progress.h"
#include "common/error.h"
#include "report/text.h"

namespace kbdata::cli {

dataset::DataDir open_data_dir(const DataOptions& options, std::FILE* err, bool list_unreadable) {
  dataset::DataDirChoice choice =
      dataset::choose_data_dir(options.data, std::getenv("KBDATA_DATA"));
  if (choice.bundled_sample) {
    report::write_all(err, "kbdata: no --data or KBDATA_DATA given; using the bundled sample in " +
                               choice.path + "\n");
  }
  dataset::DataDir dir = dataset::scan_data_dir(choice.path);
  for (const dataset::SkippedFile& f : dir.skipped) {
    if (!f.unreadable) {
      report::write_all(err,
                        "kbdata: note: " + (std::filesystem::path(dir.path) / f.name).string() +
                            " is not read: " + f.reason + "\n");
    }
  }
  if (!list_unreadable) check_unreadable(dir, options, err);
  return dir;
}

void check_unreadable(const dataset::DataDir& dir, const DataOptions& options, std::FILE* err) {
  for (const dataset::SkippedFile& f : dir.skipped) {
    if (!f.unreadable) continue;
    // The reason already names the file.
    if (!options.skip_bad) throw IoError(f.reason + " (--skip-bad reads the folder without it)");
    report::write_all(
        err, "kbdata: warning: skipping an unreadable file (--skip-bad): " + f.reason + "\n");
  }
}

namespace {

void report_load_details(const dataset::LoadStats& s, std::FILE* err) {
  char line[512];
  std::snprintf(line, sizeof line,
                "kbdata: read %" PRIu64 " file(s) (%" PRIu64 " skipped by the filter), %" PRIu64
                " of %" PRIu64 " row group(s) (%" PRIu64 " pruned), %" PRIu64 " row(s), %" PRIu64
                " bytes\n",
                s.files_read, s.files_skipped, s.row_groups - s.row_groups_skipped, s.row_groups,
                s.row_groups_skipped, s.rows_read, s.bytes_read);
  report::write_all(err, line);
  if (s.code.values > 0) {
    std::snprintf(line, sizeof line,
                  "kbdata: code: %" PRIu64 " value(s) decoded, %" PRIu64 " repaired (%" PRIu64
                  " \\x hex escape(s) decoded, %" PRIu64 " invalid \\x hex kept as stored, %" PRIu64
                  " with invalid UTF-8 replaced by U+FFFD, %" PRIu64 " from a binary column)\n",
                  s.code.values, s.code.repaired, s.code.hex_decoded, s.code.hex_invalid,
                  s.code.utf8_repaired, s.code.from_binary);
    report::write_all(err, line);
  }
}

}  // namespace

void report_load(const DataOptions& options, const dataset::LoadStats& stats, std::FILE* err) {
  for (const dataset::LoadStats::Repeats& r : stats.repeats) {
    report::write_all(err, "kbdata: warning: " + r.file + " repeats " + std::to_string(r.rows) +
                               " submission(s) of " + r.earlier_file +
                               " (same submission_id and runner); counted once, from " +
                               r.earlier_file + "\n");
  }
  if (options.verbose) report_load_details(stats, err);
}

void load_submissions(const dataset::DataDir& dir, const DataOptions& data,
                      const dataset::LoadOptions& load, const std::string& what,
                      const dataset::SubmissionSink& sink, std::FILE* err) {
  dataset::LoadStats stats;
  {
    Progress progress(err, what);
    dataset::load_dir(
        dir, load,
        [&](dataset::Submission&& s) {
          progress.update(stats.rows_read, "rows read");
          sink(std::move(s));
        },
        stats);
  }
  report_load(data, stats, err);
}

}  // namespace kbdata::cli
