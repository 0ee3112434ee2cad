#include "cli/data_options.h"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>

#include "cli/progress.h"
#include "common/error.h"
#include "hub/remote_data.h"
#include "report/text.h"

namespace kbdata::cli {

dataset::DataDir scan_data(const std::string& path, std::FILE* log) {
  if (!hub::is_hf_url(path)) return dataset::scan_data_dir(path);
  hub::RemoteData remote = hub::open_remote_data(path, {.log = log});
  if (remote.folder) {
    // The cache's snapshot, which may lack configs (pulled with --config, or offline).
    dataset::DataDir dir = dataset::scan_data_dir(*remote.folder);
    dir.pull_command = "kbdata pull " + hub::parse_hf_url(path).repo + " --revision " +
                       remote.commit + " --config {config}";
    return dir;
  }
  return dataset::scan_data_files(remote.label, remote.paths, remote.source);
}

dataset::DataDir open_data_dir(const DataOptions& options, std::FILE* err, bool list_unreadable) {
  dataset::DataDirChoice choice =
      dataset::choose_data_dir(options.data, std::getenv("KBDATA_DATA"));
  if (choice.bundled_sample) {
    report::write_all(err, "kbdata: no --data or KBDATA_DATA given; using the bundled sample in " +
                               choice.path + "\n");
  }
  dataset::DataDir dir = scan_data(choice.path, options.verbose ? err : nullptr);
  for (const dataset::SkippedFile& f : dir.skipped) {
    if (!f.unreadable) {
      report::write_all(err,
                        "kbdata: note: " + (std::filesystem::path(dir.path) / f.name).string() +
                            " is not read: " + f.reason + "\n");
    }
  }
  for (const dataset::DataFile& f : dir.files) {
    if (f.config == nullptr && f.family != dataset::SchemaFamily::LEADERBOARDS) {
      report::write_all(
          err, "kbdata: note: " + (std::filesystem::path(dir.path) / f.name).string() +
                   " is not a config kbdata knows; read as the " + dataset::to_string(f.family) +
                   " schema its columns have\n");
    }
  }
  if (!list_unreadable) check_unreadable(dir, options, err);
  dir.resident = options.resident;
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
  report::write_all(err,
                    fmt::format("kbdata: read {} file(s) ({} skipped by the filter), {} of {} "
                                "row group(s) ({} pruned), {} row(s), {} bytes\n",
                                s.files_read, s.files_skipped, s.row_groups - s.row_groups_skipped,
                                s.row_groups, s.row_groups_skipped, s.rows_read, s.bytes_read));
  if (s.code.values > 0) {
    report::write_all(
        err, fmt::format("kbdata: code: {} value(s) decoded, {} repaired ({} \\x hex escape(s) "
                         "decoded, {} invalid \\x hex kept as stored, {} with invalid UTF-8 "
                         "replaced by U+FFFD, {} from a binary column)\n",
                         s.code.values, s.code.repaired, s.code.hex_decoded, s.code.hex_invalid,
                         s.code.utf8_repaired, s.code.from_binary));
  }
}

}  // namespace

void report_load(const DataOptions& options, const dataset::LoadStats& stats, std::FILE* err) {
  for (const dataset::LoadStats::Repeats& r : stats.repeats) {
    if (r.file == r.earlier_file) {
      report::write_all(err, "kbdata: warning: " + r.file + " gives " + std::to_string(r.rows) +
                                 " row(s) again (a submission_id and runner it already gave); "
                                 "counted once, from the first\n");
    } else {
      report::write_all(err, "kbdata: warning: " + r.file + " repeats " + std::to_string(r.rows) +
                                 " submission(s) of " + r.earlier_file +
                                 " (same submission_id and runner); counted once, from " +
                                 r.earlier_file + "\n");
    }
  }
  if (!stats.inconsistent.empty()) {
    const dataset::LoadStats::Inconsistent& first = stats.inconsistent.front();
    std::string ids;
    for (const dataset::LoadStats::Inconsistent& i : stats.inconsistent) {
      ids += (ids.empty() ? "" : ", ") + std::to_string(i.submission_id) +
             (i.runner ? " on " + *i.runner : std::string(" (no runner)"));
    }
    const uint64_t more = stats.inconsistent_rows - stats.inconsistent.size();
    report::write_all(err, "kbdata: warning: " + first.file +
                               " is inconsistent: it gives submission " + ids +
                               (more > 0 ? " (and " + std::to_string(more) + " more)" : "") +
                               " again with other fields (user, score, time, ...); the first row "
                               "of each is kept\n");
  }
  if (stats.respelled_runners + stats.respelled_statuses > 0) {
    std::string spellings;
    for (const std::string& s : stats.respellings) {
      spellings += (spellings.empty() ? "" : ", ");
      report::append_json_text(spellings, s);
    }
    report::write_all(err, "kbdata: note: " + std::to_string(stats.respelled_runners) +
                               " runner(s) and " + std::to_string(stats.respelled_statuses) +
                               " status(es) written in another spelling (" + spellings +
                               ") are compared trimmed and ignoring case, and shown in one "
                               "spelling\n");
  }
  for (const auto& [id, name] : stats.unregistered) {
    report::write_all(err, "kbdata: note: " + name + " (leaderboard " + std::to_string(id) +
                               ") is not in kbdata's registry: read as the files give it, with "
                               "no reliability note, and ranking_by geom assumed where a legacy "
                               "score is recomputed\n");
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

query::Loader query_loader(const dataset::DataDir& dir, const DataOptions& data, std::FILE* err) {
  return [&dir, &data, err](std::string_view what, const dataset::LoadOptions& load,
                            const dataset::SubmissionSink& sink) {
    load_submissions(dir, data, load, std::string(what), sink, err);
  };
}

}  // namespace kbdata::cli
