#include "cli/submission_output.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "cli/output.h"
#include "cli/progress.h"
#include "common/error.h"
#include "common/file.h"
#include "common/text.h"
#include "dataset/flat_file_writer.h"
#include "dataset/flat_schema.h"
#include "dataset/registry.h"
#include "hub/remote_data.h"
#include "tabular/value_format.h"

namespace kbdata::cli {
namespace {

using dataset::Submission;

using enum dataset::FlatColumn;

// Rows reach the Parquet writer 1,024 at a time.
constexpr parquet::RowBatchLimits kParquetBatch{.rows = 1024, .bytes = SIZE_MAX};
constexpr size_t kFlushBytes = size_t{64} * 1024;  // output handed to stdio in blocks

// The field beyond the flat schema's columns: a legacy submission's benchmark results.
constexpr int kBenchmarks = dataset::kFlatColumnCount;

// A number of a JSON object: seconds or nanoseconds as double_text, null for none, a string for
// NaN and ±inf (which JSON cannot hold as numbers).
void append_json_number(std::string& out, const std::optional<double>& v) {
  if (!v) {
    out += "null";
  } else if (std::isfinite(*v)) {
    out += double_text(*v);
  } else {
    append_json_string(out, double_text(*v));
  }
}

// The JSON array of `benchmarks`: one object per benchmark with mean, std, err, runs, best, worst
// (nanoseconds; null where the run result lacks the key).
std::string benchmarks_json(const std::vector<dataset::BenchmarkResult>& benchmarks) {
  std::string out = "[";
  for (size_t i = 0; i < benchmarks.size(); ++i) {
    const dataset::BenchmarkResult& b = benchmarks[i];
    if (i > 0) out += ',';
    out += "{\"mean\":";
    append_json_number(out, b.mean);
    out += ",\"std\":";
    append_json_number(out, b.std_dev);
    out += ",\"err\":";
    append_json_number(out, b.err);
    out += ",\"runs\":";
    out += b.runs ? std::to_string(*b.runs) : "null";
    out += ",\"best\":";
    append_json_number(out, b.best);
    out += ",\"worst\":";
    append_json_number(out, b.worst);
    out += '}';
  }
  return out + "]";
}

// The text of one field (CSV and tables), nullopt for null. `human`: scores via format_score.
std::optional<std::string> field_text(const Submission& s, int field, bool human) {
  switch (field) {
    case kBenchmarks:
      if (!s.benchmarks) return std::nullopt;
      return benchmarks_json(*s.benchmarks);
    case SUBMISSION_ID:
      return std::to_string(s.submission_id);
    case LEADERBOARD_ID:
      return std::to_string(s.leaderboard_id);
    case PROBLEM_NAME:
      return s.problem_name;
    case USER_ID:
      return s.user_id;
    case USER_NAME:
      return s.user_name;
    case CODE_ID:
      return std::to_string(s.code_id);
    case FILE_NAME:
      return s.file_name;
    case SUBMISSION_TIME:
      return time_text(s.submission_time);
    case STATUS:
      return s.status;
    case SCORE:
      if (!s.score) return std::nullopt;
      return human ? format_score(*s.score) : double_text(*s.score);
    case PASSED:
      if (!s.passed) return std::nullopt;
      return *s.passed ? "true" : "false";
    case MODE:
      return s.mode;
    case RUNNER:
      return s.runner;
    case CODE:
      return s.code;
    default:
      return std::nullopt;
  }
}

bool is_numeric_field(int field) {
  return field == SUBMISSION_ID || field == LEADERBOARD_ID || field == CODE_ID || field == SCORE;
}

}  // namespace

const std::vector<std::string>& submission_fields() { return dataset::flat_column_names(); }

const std::vector<std::string>& selectable_submission_fields() {
  static const std::vector<std::string> kFields = [] {
    std::vector<std::string> all = dataset::flat_column_names();
    all.push_back("benchmarks");
    return all;
  }();
  return kFields;
}

struct SubmissionWriter::Parquet {
  Parquet(const std::string& path, const std::vector<dataset::FlatFileColumn>& columns,
          const parquet::Provenance& provenance)
      : file(path, columns, parquet::WriterOptions{}, provenance, kParquetBatch),
        benchmarks(std::find(columns.begin(), columns.end(),
                             dataset::FlatFileColumn(dataset::AddedColumn::BENCHMARKS)) !=
                   columns.end()) {}
  dataset::FlatFileWriter file;
  const bool benchmarks;  // the file has the benchmarks column
};

SubmissionWriter::SubmissionWriter(SubmissionFormat format, std::vector<std::string> fields,
                                   std::FILE* out, std::FILE* notes,
                                   std::optional<std::string> parquet_path)
    : format_(format), out_(out), notes_(notes) {
  const auto& all = selectable_submission_fields();
  for (const std::string& name : fields) {
    int index = -1;
    for (size_t i = 0; i < all.size(); ++i) {
      if (all[i] == name) index = static_cast<int>(i);
    }
    if (index < 0) {
      std::string known;
      for (const auto& f : all) known += (known.empty() ? "" : ", ") + f;
      throw UsageError("no field '" + name + "'; the fields are: " + known);
    }
    fields_.push_back(index);
  }
  if (format_ == SubmissionFormat::PARQUET) {
    if (!parquet_path) throw UsageError("--format parquet needs --out FILE");
    std::vector<dataset::FlatFileColumn> columns;
    for (int f : fields_) {
      if (f == kBenchmarks) {
        // The benchmarks as JSON text: the flat schema has no column for them.
        columns.emplace_back(dataset::AddedColumn::BENCHMARKS);
      } else {
        columns.emplace_back(static_cast<dataset::FlatColumn>(f));
      }
    }
    parquet::Provenance provenance;
    provenance.rule =
        "kbdata submissions: the submission model in the flat schema (docs/dataset.md §4.1), "
        "docs/data-model.md";
    parquet_ = std::make_unique<Parquet>(*parquet_path, columns, provenance);
  } else if (parquet_path) {
    throw UsageError("--out is for --format parquet only");
  }
  if (format_ == SubmissionFormat::JSON) buffer_ = "[";
  if (format_ == SubmissionFormat::CSV) {
    for (size_t i = 0; i < fields_.size(); ++i) {
      if (i > 0) buffer_ += ',';
      buffer_ += all[static_cast<size_t>(fields_[i])];
    }
    buffer_ += '\n';
  }
  if (format_ == SubmissionFormat::TABLE) {
    table_rows_.emplace_back();
    for (int f : fields_) table_rows_.back().push_back(all[static_cast<size_t>(f)]);
  }
}

SubmissionWriter::~SubmissionWriter() = default;

void SubmissionWriter::note_seen(const Submission& s) {
  if (!noted_.insert(s.leaderboard_id).second) return;
  std::string_view note = dataset::note_for(s.leaderboard_id);
  if (note.empty()) return;
  std::string line = "note: " + s.problem_name + " (" + std::to_string(s.leaderboard_id) +
                     "): " + std::string(note);
  switch (format_) {
    case SubmissionFormat::TABLE:
      table_notes_.push_back(line);
      break;
    case SubmissionFormat::CSV:
    case SubmissionFormat::PARQUET:
      write_all(notes_, "kbdata: " + line + "\n");
      break;
    default:
      break;  // JSON: a field of each object
  }
}

void SubmissionWriter::append_json_object(std::string& out, const Submission& s) const {
  const auto& all = selectable_submission_fields();
  out += '{';
  bool first = true;
  for (int f : fields_) {
    if (!first) out += ',';
    first = false;
    append_json_string(out, all[static_cast<size_t>(f)]);
    out += ':';
    std::optional<std::string> text = field_text(s, f, false);
    if (!text) {
      out += "null";
    } else if (f == SCORE) {
      append_json_number(out, s.score);
    } else if (f == kBenchmarks) {
      out += *text;  // a JSON array
    } else if (is_numeric_field(f) || f == PASSED) {
      out += *text;
    } else {
      append_json_text(out, *text);
    }
  }
  std::string_view note = dataset::note_for(s.leaderboard_id);
  if (!note.empty()) {
    out += first ? "" : ",";
    out += "\"note\":";
    append_json_text(out, note);
  }
  if (!s.runs.empty()) {
    out += first && note.empty() ? "" : ",";
    out += "\"runs\":[";
    for (size_t i = 0; i < s.runs.size(); ++i) {
      const dataset::Run& run = s.runs[i];
      if (i > 0) out += ',';
      out += "{\"run_id\":" + std::to_string(run.run_id) + ",\"mode\":";
      append_json_text(out, run.mode);
      out += ",\"score\":";
      append_json_number(out, run.score);
      out += ",\"passed\":";
      out += run.passed ? (*run.passed ? "true" : "false") : "null";
      out += ",\"start_time\":";
      if (run.start_time) {
        append_json_string(out, time_text(*run.start_time));
      } else {
        out += "null";
      }
      out += ",\"end_time\":";
      if (run.end_time) {
        append_json_string(out, time_text(*run.end_time));
      } else {
        out += "null";
      }
      if (!run.benchmarks.empty()) out += ",\"benchmarks\":" + benchmarks_json(run.benchmarks);
      out += '}';
    }
    out += ']';
  }
  out += '}';
}

void SubmissionWriter::write(const Submission& s) {
  note_seen(s);
  ++rows_;
  switch (format_) {
    case SubmissionFormat::TABLE: {
      std::vector<std::string> row;
      for (int f : fields_) {
        std::optional<std::string> text = field_text(s, f, true);
        row.push_back(text ? table_cell(*text) : "null");
      }
      table_rows_.push_back(std::move(row));
      return;
    }
    case SubmissionFormat::CSV:
      for (size_t i = 0; i < fields_.size(); ++i) {
        if (i > 0) buffer_ += ',';
        append_csv_field(buffer_, field_text(s, fields_[i], false));
      }
      buffer_ += '\n';
      break;
    case SubmissionFormat::JSON:
      buffer_ += rows_ == 1 ? "\n" : ",\n";
      append_json_object(buffer_, s);
      break;
    case SubmissionFormat::JSONL:
      append_json_object(buffer_, s);
      buffer_ += '\n';
      break;
    case SubmissionFormat::PARQUET: {
      dataset::AddedValues added;
      if (parquet_->benchmarks && s.benchmarks)
        added.benchmarks_json = benchmarks_json(*s.benchmarks);
      parquet_->file.write(s, added);
      return;
    }
  }
  if (buffer_.size() >= kFlushBytes) {
    write_all(out_, buffer_);
    buffer_.clear();
  }
}

void SubmissionWriter::finish() {
  switch (format_) {
    case SubmissionFormat::TABLE: {
      std::string text;
      for (const std::string& note : table_notes_) text += note + "\n";
      if (!table_notes_.empty()) text += "\n";
      std::vector<bool> right;
      for (int f : fields_) right.push_back(is_numeric_field(f));
      text += format_table(table_rows_, right);
      text += "(" + std::to_string(rows_) + (rows_ == 1 ? " row)\n" : " rows)\n");
      write_all(out_, text);
      break;
    }
    case SubmissionFormat::JSON:
      buffer_ += rows_ == 0 ? "]\n" : "\n]\n";
      write_all(out_, buffer_);
      break;
    case SubmissionFormat::CSV:
    case SubmissionFormat::JSONL:
      write_all(out_, buffer_);
      break;
    case SubmissionFormat::PARQUET:
      parquet_->file.commit();
      break;
  }
  buffer_.clear();
  std::fflush(out_);
}

dataset::DataDir scan_data(const std::string& path, std::FILE* log) {
  if (!hub::is_hf_url(path)) return dataset::scan_data_dir(path);
  hub::RemoteData remote = hub::open_remote_data(path, {.log = log});
  if (remote.folder) return dataset::scan_data_dir(*remote.folder);
  return dataset::scan_data_files(remote.label, remote.paths, remote.source);
}

dataset::DataDir open_data_dir(const DataOptions& options, std::FILE* err, bool list_unreadable) {
  dataset::DataDirChoice choice =
      dataset::choose_data_dir(options.data, std::getenv("KBDATA_DATA"));
  if (choice.bundled_sample) {
    write_all(err, "kbdata: no --data or KBDATA_DATA given; using the bundled sample in " +
                       choice.path + "\n");
  }
  dataset::DataDir dir = scan_data(choice.path, options.verbose ? err : nullptr);
  for (const dataset::SkippedFile& f : dir.skipped) {
    if (!f.unreadable) {
      write_all(err, "kbdata: note: " + (std::filesystem::path(dir.path) / f.name).string() +
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
    write_all(err, "kbdata: warning: skipping an unreadable file (--skip-bad): " + f.reason + "\n");
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
  write_all(err, line);
  if (s.code.values > 0) {
    std::snprintf(line, sizeof line,
                  "kbdata: code: %" PRIu64 " value(s) decoded, %" PRIu64 " repaired (%" PRIu64
                  " \\x hex escape(s) decoded, %" PRIu64 " invalid \\x hex kept as stored, %" PRIu64
                  " with invalid UTF-8 replaced by U+FFFD, %" PRIu64 " from a binary column)\n",
                  s.code.values, s.code.repaired, s.code.hex_decoded, s.code.hex_invalid,
                  s.code.utf8_repaired, s.code.from_binary);
    write_all(err, line);
  }
}

}  // namespace

void report_load(const DataOptions& options, const dataset::LoadStats& stats, std::FILE* err) {
  for (const dataset::LoadStats::Repeats& r : stats.repeats) {
    write_all(err, "kbdata: warning: " + r.file + " repeats " + std::to_string(r.rows) +
                       " submission(s) of " + r.earlier_file +
                       " (same submission_id and runner); counted once, from " + r.earlier_file +
                       "\n");
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
