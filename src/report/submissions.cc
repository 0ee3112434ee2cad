#include "report/submissions.h"

#include <algorithm>
#include <any>
#include <cmath>

#include "common/error.h"
#include "common/text.h"
#include "dataset/flat_file_writer.h"
#include "dataset/flat_schema.h"
#include "parquet/write/writer_options.h"
#include "report/text.h"
#include "techniques/techniques.h"

namespace kbdata::report {
namespace {

using dataset::Submission;

using enum dataset::FlatColumn;

// Rows reach the Parquet writer 1,024 at a time.
constexpr parquet::RowBatchLimits kParquetBatch{.rows = 1024, .bytes = SIZE_MAX};

// The fields beyond the flat schema's columns: a legacy submission's benchmark results, and what
// the code uses (the submission's `prepared` techniques::Techniques).
constexpr int kBenchmarks = dataset::kFlatColumnCount;
constexpr int kLanguage = kBenchmarks + 1;
constexpr int kLanguagesAll = kBenchmarks + 2;
constexpr int kFeatures = kBenchmarks + 3;

const techniques::Techniques* techniques_of(const Submission& s) {
  return std::any_cast<techniques::Techniques>(&s.prepared);
}

constexpr const char* kRule =
    "kbdata submissions: the submission model in the flat schema (docs/dataset.md §4.1), "
    "docs/data-model.md";

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

void append_json_time(std::string& out, const std::optional<int64_t>& micros) {
  if (micros) {
    append_json_string(out, time_text(*micros));
  } else {
    out += "null";
  }
}

ColumnType field_type(int field) {
  switch (field) {
    case SUBMISSION_ID:
    case LEADERBOARD_ID:
    case CODE_ID:
      return ColumnType::INT64;
    case SUBMISSION_TIME:
      return ColumnType::TIMESTAMP;
    case SCORE:
      return ColumnType::SCORE;
    case PASSED:
      return ColumnType::BOOL;
    case kBenchmarks:
      return ColumnType::JSON;
    default:
      return ColumnType::STRING;
  }
}

// `"runs":[...]`: a legacy submission's runs, for the JSON formats; empty when it has none.
void append_runs_json(std::string& out, const Submission& s) {
  out.clear();
  if (s.runs.empty()) return;
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
    append_json_time(out, run.start_time);
    out += ",\"end_time\":";
    append_json_time(out, run.end_time);
    if (!run.benchmarks.empty()) out += ",\"benchmarks\":" + benchmarks_json(run.benchmarks);
    out += '}';
  }
  out += ']';
}

}  // namespace

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

const std::vector<std::string>& submission_fields() { return dataset::flat_column_names(); }

const std::vector<std::string>& selectable_submission_fields() {
  static const std::vector<std::string> kFields = [] {
    std::vector<std::string> all = dataset::flat_column_names();
    for (const char* added : {"benchmarks", "language", "languages_all", "features"}) {
      all.push_back(added);
    }
    return all;
  }();
  return kFields;
}

std::vector<Column> row_identity_columns() {
  std::vector<Column> columns;
  for (int f : {SUBMISSION_ID, LEADERBOARD_ID, PROBLEM_NAME, USER_ID, USER_NAME, RUNNER,
                SUBMISSION_TIME, STATUS, SCORE}) {
    columns.push_back({dataset::flat_column_names()[static_cast<size_t>(f)], field_type(f)});
  }
  return columns;
}

std::vector<Cell> row_identity_cells(const Submission& s) {
  return {s.submission_id,
          s.leaderboard_id,
          s.problem_name,
          s.user_id,
          optional_cell(s.user_name),
          optional_cell(s.runner),
          s.submission_time,
          s.status,
          optional_cell(s.score)};
}

bool wants_techniques(const std::vector<std::string>& fields) {
  return std::any_of(fields.begin(), fields.end(), [](const std::string& f) {
    return f == "language" || f == "languages_all" || f == "features";
  });
}

namespace {

// The cell of field `field` (an index into selectable_submission_fields()).
Cell field_cell(const Submission& s, int field) {
  switch (field) {
    case kBenchmarks:
      return s.benchmarks ? Cell{benchmarks_json(*s.benchmarks)} : Cell{};
    case kLanguage:
    case kLanguagesAll:
    case kFeatures: {
      const techniques::Techniques* t = techniques_of(s);
      if (t == nullptr) return Cell{};
      if (field == kLanguage) return std::string(techniques::to_string(t->language));
      return field == kLanguagesAll ? techniques::languages_text(*t)
                                    : techniques::features_text(*t);
    }
    case SUBMISSION_ID:
      return s.submission_id;
    case LEADERBOARD_ID:
      return s.leaderboard_id;
    case PROBLEM_NAME:
      return s.problem_name;
    case USER_ID:
      return s.user_id;
    case USER_NAME:
      return optional_cell(s.user_name);
    case CODE_ID:
      return s.code_id ? Cell(*s.code_id) : Cell();
    case FILE_NAME:
      return optional_cell(s.file_name);
    case SUBMISSION_TIME:
      return s.submission_time;
    case STATUS:
      return Cell{s.status};
    case SCORE:
      return optional_cell(s.score);
    case PASSED:
      return optional_cell(s.passed);
    case MODE:
      return optional_cell(s.mode);
    case RUNNER:
      return optional_cell(s.runner);
    case CODE:
      return optional_cell(s.code);
    default:
      return Cell{};
  }
}

}  // namespace

struct SubmissionWriter::Parquet {
  Parquet(const std::string& path, const std::vector<dataset::FlatFileColumn>& columns,
          const parquet::Provenance& provenance, Format format, std::FILE* err, int threads)
      : file(path, columns, parquet::writer_options_on(threads), provenance, kParquetBatch),
        benchmarks(std::find(columns.begin(), columns.end(),
                             dataset::FlatFileColumn(dataset::AddedColumn::BENCHMARKS)) !=
                   columns.end()),
        notes(format, err) {}
  dataset::FlatFileWriter file;
  const bool benchmarks;  // the file has the benchmarks column
  Notes notes;
};

namespace {

// The index of field `name` in selectable_submission_fields(); UsageError naming them all when it
// is none of them.
int field_index(const std::string& name) {
  const auto& all = selectable_submission_fields();
  const auto it = std::find(all.begin(), all.end(), name);
  if (it == all.end()) {
    std::string known;
    for (const auto& f : all) known += (known.empty() ? "" : ", ") + f;
    throw UsageError("no field '" + name + "'; the fields are: " + known);
  }
  return static_cast<int>(it - all.begin());
}

}  // namespace

SubmissionWriter::SubmissionWriter(Format format, std::vector<std::string> fields, std::FILE* out,
                                   std::FILE* notes, std::optional<std::string> out_path,
                                   int threads)
    : format_(format) {
  const auto& all = selectable_submission_fields();
  for (const std::string& name : fields) fields_.push_back(field_index(name));
  if (format_ != Format::PARQUET) {
    std::vector<Column> columns;
    for (int f : fields_) columns.push_back({all[static_cast<size_t>(f)], field_type(f)});
    writer_ =
        std::make_unique<Writer>(format_, std::move(columns), out, notes, out_path, kRule, threads);
    return;
  }
  if (!out_path)
    throw UsageError(OptionName("format", "parquet"), " needs ", OptionName("out", "FILE"));
  std::vector<dataset::FlatFileColumn> columns;
  for (int f : fields_) {
    if (f == kBenchmarks) {
      // The benchmarks as JSON text: the flat schema has no column for them.
      columns.emplace_back(dataset::AddedColumn::BENCHMARKS);
    } else if (f == kLanguage) {
      columns.emplace_back(dataset::AddedColumn::LANGUAGE);
    } else if (f == kLanguagesAll) {
      columns.emplace_back(dataset::AddedColumn::LANGUAGES_ALL);
    } else if (f == kFeatures) {
      columns.emplace_back(dataset::AddedColumn::FEATURES);
    } else {
      columns.emplace_back(static_cast<dataset::FlatColumn>(f));
    }
  }
  parquet::Provenance provenance;
  provenance.rule = kRule;
  parquet_ = std::make_unique<Parquet>(*out_path, columns, provenance, format_, notes, threads);
}

SubmissionWriter::~SubmissionWriter() = default;

Cell SubmissionWriter::cell(const Submission& s, int field) const { return field_cell(s, field); }

SubmissionCells::SubmissionCells(const std::vector<std::string>& fields) {
  for (const std::string& name : fields) {
    const int field = field_index(name);
    fields_.push_back(field);
    columns_.push_back({name, field_type(field)});
  }
}

void SubmissionCells::fill(const Submission& s, std::vector<Cell>& cells) const {
  cells.clear();
  for (int f : fields_) cells.push_back(field_cell(s, f));
}

const char* submissions_rule() { return kRule; }

void SubmissionWriter::write(const Submission& s) {
  ++rows_;
  if (parquet_) {
    parquet_->notes.seen(s.leaderboard_id, s.problem_name);
    dataset::AddedValues added;
    if (parquet_->benchmarks && s.benchmarks)
      added.benchmarks_json = benchmarks_json(*s.benchmarks);
    if (const techniques::Techniques* t = techniques_of(s)) {
      added.language = std::string(techniques::to_string(t->language));
      added.languages_all = techniques::languages_text(*t);
      added.features = techniques::features_text(*t);
    }
    parquet_->file.write(s, added);
    return;
  }
  cells_.clear();
  for (int f : fields_) cells_.push_back(cell(s, f));
  if (format_ == Format::JSON || format_ == Format::JSONL) append_runs_json(runs_json_, s);
  writer_->row(std::move(cells_), s.leaderboard_id, s.problem_name, runs_json_);
}

void SubmissionWriter::finish() {
  if (parquet_) {
    parquet_->file.commit();
    return;
  }
  if (rows_ > 0)
    writer_->table_footer("(" + std::to_string(rows_) + (rows_ == 1 ? " row)" : " rows)"));
  writer_->finish();
}

std::string submissions_json_text(const std::vector<dataset::Submission>& rows) {
  return rendered_text([&](std::FILE* out, std::FILE* notes) {
    SubmissionWriter writer(Format::JSON, submission_fields(), out, notes, std::nullopt, 1);
    for (const dataset::Submission& s : rows) writer.write(s);
    writer.finish();
  });
}

}  // namespace kbdata::report
