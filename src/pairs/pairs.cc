#include "pairs/pairs.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <map>
#include <span>
#include <stdexcept>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <variant>

#include "analysis/noise.h"
#include "common/closest_name.h"
#include "common/error.h"
#include "common/file.h"
#include "common/output_target.h"
#include "common/text.h"
#include "common/thread_pool.h"
#include "common/version.h"
#include "dataset/code_spill.h"
#include "dataset/dataset_card.h"
#include "dataset/epochs.h"
#include "pairs/diff.h"
#include "parquet/write/row_file_writer.h"
#include "report/text.h"
#include "source/embedded.h"

namespace kbdata::pairs {
namespace {

constexpr int64_t kMicrosPerDay = int64_t{86400} * 1000000;
constexpr size_t kBatchItems = 256;

// ---- the rows' fields: one table for the JSON Lines and Parquet writers and the card ----------

enum class Type {
  INT64,
  DOUBLE,
  BOOL,
  STRING,
  TIMESTAMP,
  JSON,  // a JSON value's text: as is in JSON Lines
  INT64_LIST,
  DOUBLE_LIST,
  TIMESTAMP_LIST,
  STRING_LIST,
};

struct FieldSpec {
  const char* name;
  Type type;
  const char* meaning;  // the card's field table
};

// A row's value of a field: null or the field type's value, borrowed from the row's texts.
using Value =
    std::variant<std::monostate, int64_t, double, bool, std::string_view, std::span<const int64_t>,
                 std::span<const double>, std::span<const std::string>>;

// The fields every row starts its identity with, then the pieces the formats add.
const FieldSpec kSeries[] = {
    {"leaderboard_id", Type::INT64, "the leaderboard (problem) id"},
    {"problem_name", Type::STRING, "the problem's name"},
    {"runner", Type::STRING, "the GPU the scores were measured on (null in legacy files)"},
    {"user_id", Type::STRING, "the user (legacy files: anonymised)"},
};
const FieldSpec kUserName[] = {
    {"user_name", Type::STRING, "the user's handle (null in legacy files)"},
};
const FieldSpec kLineage[] = {
    {"lineage_id", Type::INT64, "the submission_id of the lineage's first version"},
};
const FieldSpec kFileName[] = {
    {"file_name", Type::STRING, "the file name of the improved (trajectories: the last) version"},
};
const FieldSpec kPair[] = {
    {"baseline_submission_id", Type::INT64, "the slower version's submission"},
    {"improved_submission_id", Type::INT64, "the faster version's submission"},
    {"baseline_code_id", Type::INT64, "the slower version's code_id"},
    {"improved_code_id", Type::INT64, "the faster version's code_id"},
    {"baseline_time", Type::TIMESTAMP, "when the slower version was submitted (UTC)"},
    {"improved_time", Type::TIMESTAMP, "when the faster version was submitted (UTC)"},
    {"gap_days", Type::DOUBLE, "days from the slower version to the faster"},
    {"baseline_score", Type::DOUBLE, "the slower version's score, seconds"},
    {"improved_score", Type::DOUBLE, "the faster version's score, seconds"},
    {"speedup", Type::DOUBLE, "baseline_score / improved_score (above 1)"},
    {"baseline_epoch", Type::INT64, "the harness epoch of the slower version"},
    {"improved_epoch", Type::INT64, "the harness epoch of the faster version"},
    {"similarity", Type::DOUBLE,
     "estimated Jaccard similarity of the two codes' 5-byte shingles (1: one code_id)"},
    {"noise_sd", Type::DOUBLE,
     "sd of log(speedup) from measurement noise alone (null: no noise estimate)"},
    {"significant", Type::BOOL,
     "log(speedup) > 1.6449 noise_sd: above the noise at 95% (null: no noise estimate)"},
    {"baseline_code", Type::STRING, "the slower version's code"},
    {"improved_code", Type::STRING, "the faster version's code"},
    {"diff", Type::STRING, "unified diff from baseline_code to improved_code"},
};
const FieldSpec kTrajectory[] = {
    {"versions", Type::INT64, "how many versions the trajectory holds (2 or more)"},
    {"first_score", Type::DOUBLE, "the first version's score, seconds"},
    {"best_score", Type::DOUBLE, "the best version's score, seconds"},
    {"speedup", Type::DOUBLE, "first_score / best_score"},
    {"start_time", Type::TIMESTAMP, "the first version's submission time (UTC)"},
    {"end_time", Type::TIMESTAMP, "the last version's submission time (UTC)"},
    {"submission_ids", Type::INT64_LIST, "each version's submission, in time order"},
    {"code_ids", Type::INT64_LIST, "each version's code_id"},
    {"times", Type::TIMESTAMP_LIST, "each version's submission time (UTC)"},
    {"scores", Type::DOUBLE_LIST, "each version's score, seconds"},
    {"epochs", Type::INT64_LIST, "each version's harness epoch"},
    {"codes", Type::STRING_LIST, "each version's code"},
};
// What a chat or preference pair refers to.
const FieldSpec kPairReference[] = {
    {"baseline_submission_id", Type::INT64, "the slower version's submission"},
    {"improved_submission_id", Type::INT64, "the faster version's submission"},
    {"speedup", Type::DOUBLE, "the slower version's score / the faster one's"},
    {"significant", Type::BOOL, "above the measurement noise at 95% (null: no estimate)"},
};
const FieldSpec kTrajectoryReference[] = {
    {"versions", Type::INT64, "how many versions (assistant turns)"},
    {"speedup", Type::DOUBLE, "first score / best score"},
};
const FieldSpec kChatPair[] = {
    {"messages", Type::JSON,
     "the user turn (task and baseline kernel with its time), the assistant turn (the faster "
     "kernel)"},
};
const FieldSpec kChatTrajectory[] = {
    {"messages", Type::JSON,
     "the task, then each version as an assistant turn, each followed by a user turn with its "
     "time (but the last)"},
};
const FieldSpec kPreference[] = {
    {"prompt", Type::STRING, "the task"},
    {"chosen", Type::STRING, "the faster kernel"},
    {"rejected", Type::STRING, "the slower kernel"},
};

// The fields of a format's rows, in order (the writer's values follow it).
std::vector<FieldSpec> fields_of(Format format, bool trajectories) {
  std::vector<FieldSpec> out;
  auto add = [&out](std::span<const FieldSpec> part) {
    out.insert(out.end(), part.begin(), part.end());
  };
  switch (format) {
    case Format::JSONL:
    case Format::PARQUET:
      add(kSeries);
      add(kUserName);
      add(kLineage);
      add(kFileName);
      add(trajectories ? std::span<const FieldSpec>(kTrajectory)
                       : std::span<const FieldSpec>(kPair));
      break;
    case Format::CHAT:
      add(trajectories ? kChatTrajectory : kChatPair);
      add(kSeries);
      add(kLineage);
      add(trajectories ? std::span<const FieldSpec>(kTrajectoryReference)
                       : std::span<const FieldSpec>(kPairReference));
      break;
    case Format::PREFERENCE:
      add(kPreference);
      add(kSeries);
      add(kLineage);
      add(kPairReference);
      break;
  }
  return out;
}

parquet::Field parquet_field(const FieldSpec& f) {
  using parquet::Field;
  using parquet::FieldType;
  switch (f.type) {
    case Type::INT64:
      return Field::leaf(f.name, FieldType::INT64);
    case Type::DOUBLE:
      return Field::leaf(f.name, FieldType::DOUBLE);
    case Type::BOOL:
      return Field::leaf(f.name, FieldType::BOOLEAN);
    case Type::STRING:
      return Field::leaf(f.name, FieldType::STRING);
    case Type::TIMESTAMP:
      return Field::leaf(f.name, FieldType::TIMESTAMP);
    case Type::JSON:
      return Field::leaf(f.name, FieldType::JSON);
    case Type::INT64_LIST:
      return Field::list(f.name, FieldType::INT64);
    case Type::DOUBLE_LIST:
      return Field::list(f.name, FieldType::DOUBLE);
    case Type::TIMESTAMP_LIST:
      return Field::list(f.name, FieldType::TIMESTAMP);
    case Type::STRING_LIST:
      return Field::list(f.name, FieldType::STRING);
  }
  return Field::leaf(f.name, FieldType::STRING);
}

void append_json_value(std::string& out, Type type, const Value& value);

// A list's elements as a JSON array, each rendered as a value of the scalar type `element`.
template <typename T>
void append_json_list(std::string& out, Type element, std::span<const T> values) {
  out += '[';
  for (size_t k = 0; k < values.size(); ++k) {
    if (k > 0) out += ',';
    if constexpr (std::is_same_v<T, std::string>) {
      append_json_value(out, element, std::string_view(values[k]));
    } else {
      append_json_value(out, element, values[k]);
    }
  }
  out += ']';
}

void append_json_value(std::string& out, Type type, const Value& value) {
  if (std::holds_alternative<std::monostate>(value)) {
    out += "null";
    return;
  }
  switch (type) {
    case Type::INT64:
      out += std::to_string(std::get<int64_t>(value));
      return;
    case Type::DOUBLE:
      append_json_double(out, std::get<double>(value));
      return;
    case Type::BOOL:
      out += std::get<bool>(value) ? "true" : "false";
      return;
    case Type::STRING:
      report::append_json_text(out, std::get<std::string_view>(value));
      return;
    case Type::TIMESTAMP:
      append_json_string(out, report::time_text(std::get<int64_t>(value)));
      return;
    case Type::JSON:
      out += std::get<std::string_view>(value);
      return;
    case Type::INT64_LIST:
      append_json_list(out, Type::INT64, std::get<std::span<const int64_t>>(value));
      return;
    case Type::TIMESTAMP_LIST:
      append_json_list(out, Type::TIMESTAMP, std::get<std::span<const int64_t>>(value));
      return;
    case Type::DOUBLE_LIST:
      append_json_list(out, Type::DOUBLE, std::get<std::span<const double>>(value));
      return;
    case Type::STRING_LIST:
      append_json_list(out, Type::STRING, std::get<std::span<const std::string>>(value));
      return;
  }
}

// One row's list: its elements into the list column's builder.
template <typename Builder, typename T>
void list_values(Builder& builder, std::span<const T> values) {
  builder.begin_list();
  for (const T& x : values) builder.value(x);
  builder.end_list();
}

// Rows to OUT: JSON Lines through an AtomicOutputFile, or Parquet through a RowFileWriter.
class RowOutput {
 public:
  RowOutput(const std::string& path, Format format, std::vector<FieldSpec> fields,
            const parquet::Provenance& provenance)
      : fields_(std::move(fields)) {
    if (format == Format::PARQUET) {
      std::vector<parquet::Field> schema;
      for (const FieldSpec& f : fields_) schema.push_back(parquet_field(f));
      parquet_ = std::make_unique<parquet::RowFileWriter>(path, schema, parquet::WriterOptions{},
                                                          provenance);
    } else {
      text_ = std::make_unique<AtomicOutputFile>(path);
    }
  }

  void row(const std::vector<Value>& values) {
    if (values.size() != fields_.size()) throw std::logic_error("pairs: a row of the wrong width");
    if (parquet_) {
      parquet_row(values);
    } else {
      buffer_ += '{';
      for (size_t i = 0; i < fields_.size(); ++i) {
        if (i > 0) buffer_ += ',';
        append_json_string(buffer_, fields_[i].name);
        buffer_ += ':';
        append_json_value(buffer_, fields_[i].type, values[i]);
      }
      buffer_ += "}\n";
      if (buffer_.size() >= (size_t{1} << 20)) flush();
    }
  }

  // The counts, known once every row is written: Parquet metadata.
  void add_key_value(parquet::KeyValue kv) {
    if (parquet_) parquet_->add_key_value(std::move(kv));
  }

  // Completes the file (not yet at its path) and returns its size.
  uint64_t close() {
    if (parquet_) {
      parquet_->close();
      return parquet_->bytes_written();
    }
    flush();
    text_->sync();
    return text_bytes_;
  }
  void commit() {
    if (parquet_) {
      parquet_->commit();
    } else {
      text_->commit();
    }
  }

 private:
  void flush() {
    text_->write(buffer_);
    text_bytes_ += buffer_.size();
    buffer_.clear();
  }

  void parquet_row(const std::vector<Value>& values) {
    for (size_t i = 0; i < fields_.size(); ++i) {
      const Value& v = values[i];
      parquet::ColumnBuilder& any = parquet_->column(i);
      if (std::holds_alternative<std::monostate>(v)) {
        any.null();
        continue;
      }
      switch (fields_[i].type) {
        case Type::INT64:
        case Type::TIMESTAMP:
          parquet_->column<int64_t>(i).value(std::get<int64_t>(v));
          break;
        case Type::DOUBLE:
          parquet_->column<double>(i).value(std::get<double>(v));
          break;
        case Type::BOOL:
          parquet_->column<bool>(i).value(std::get<bool>(v));
          break;
        case Type::STRING:
        case Type::JSON:
          parquet_->column<std::string_view>(i).value(std::get<std::string_view>(v));
          break;
        case Type::INT64_LIST:
        case Type::TIMESTAMP_LIST:
          list_values(parquet_->column<int64_t>(i), std::get<std::span<const int64_t>>(v));
          break;
        case Type::DOUBLE_LIST:
          list_values(parquet_->column<double>(i), std::get<std::span<const double>>(v));
          break;
        case Type::STRING_LIST:
          list_values(parquet_->column<std::string_view>(i),
                      std::get<std::span<const std::string>>(v));
          break;
      }
    }
    parquet_->end_row();
  }

  std::vector<FieldSpec> fields_;
  std::unique_ptr<parquet::RowFileWriter> parquet_;
  std::unique_ptr<AtomicOutputFile> text_;
  std::string buffer_;
  uint64_t text_bytes_ = 0;
};

// ---- texts of the chat and preference records ----------------------------------------------

// A fenced Markdown block of `code`: a fence of backticks longer than any run in the code (at
// least 3), the language after the opening one.
std::string fenced(std::string_view code, std::string_view language) {
  size_t longest = 0, run = 0;
  for (char c : code) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  const std::string fence(std::max<size_t>(3, longest + 1), '`');
  std::string out = fence;
  out += language;
  out += '\n';
  out += code;
  if (code.empty() || code.back() != '\n') out += '\n';
  out += fence;
  return out;
}

// The fence's language of a version: cuda for a .cu/.cuh file, cpp for another C++ file, else
// python.
std::string_view code_language(std::string_view code, std::string_view file_name) {
  if (!source::is_cpp_source(code, file_name)) return "python";
  return file_name.ends_with(".cu") || file_name.ends_with(".cuh") ? "cuda" : "cpp";
}

void append_message(std::string& out, std::string_view role, std::string_view content) {
  out += out.size() > 1 ? ",{\"role\":" : "{\"role\":";
  append_json_string(out, role);
  out += ",\"content\":";
  report::append_json_text(out, content);
  out += '}';
}

// ---- the versions -------------------------------------------------------------------------

// A version's file name, or "" without one (a view into the group's name).
std::string_view name_of(const std::optional<std::string>& name) {
  return name ? std::string_view(*name) : std::string_view();
}

// A row whose score can be a version's: it qualifies (a positive normal score, so every speedup
// is finite; dataset::valid_score).
bool measured(const dataset::Submission& s) { return dataset::qualifies(s); }

// What prepare() leaves in Submission::prepared.
struct Prepared {
  similarity::CodeSketch sketch;
  std::vector<uint8_t> compressed;  // a version's code (CodeSpill::compress)
  size_t raw = 0;
  bool version = false;
};

struct Group {
  int64_t leaderboard_id = 0;
  std::string problem_name;
  std::string user_id;
  std::optional<std::string> user_name;
  std::optional<std::string> runner;
  std::vector<Version> versions;
  std::vector<dataset::CodeSpill::Entry> code;  // per version
  std::vector<std::optional<std::string>> file_names;
};

// One row to write: a pair (baseline and improved) or a trajectory (a stretch).
struct Item {
  uint32_t group = 0;
  int64_t lineage_id = 0;
  std::vector<uint32_t> members;  // indices into the group's versions: [baseline, improved] or
                                  // the stretch
  double similarity = 0;
  Significance significance;  // a pair's, once the noise is known
};

// What a worker makes of an item for the writer.
struct Made {
  enum class Drop { NONE, NO_CHANGE, NGRAM, MINHASH } drop = Drop::NONE;
  std::vector<std::string> codes;  // the members' code
  std::string diff;
  std::string text;      // chat messages JSON, or the preference prompt
  std::string chosen;    // preference
  std::string rejected;  // preference
};

std::string json_text(std::string_view name, std::string_view value) {
  std::string out;
  append_json_string(out, name);
  out += ':';
  append_json_string(out, value);
  return out;
}

}  // namespace

const char* to_string(Format format) {
  switch (format) {
    case Format::JSONL:
      return "jsonl";
    case Format::PARQUET:
      return "parquet";
    case Format::CHAT:
      return "chat";
    case Format::PREFERENCE:
      return "preference";
  }
  return "jsonl";
}

Format parse_format(const std::string& text) {
  for (Format f : {Format::JSONL, Format::PARQUET, Format::CHAT, Format::PREFERENCE}) {
    if (text == to_string(f)) return f;
  }
  const std::vector<std::string> names = {"jsonl", "parquet", "chat", "preference"};
  throw UsageError("--format '" + text + "': expected jsonl, parquet, chat or preference" +
                   did_you_mean(text, names));
}

std::optional<Format> format_of_name(const std::string& path) {
  const std::optional<report::Format> named = report::format_of_name(path);
  if (named == report::Format::PARQUET) return Format::PARQUET;
  if (named == report::Format::JSONL) return Format::JSONL;
  return std::nullopt;
}

std::string default_card_path(const std::string& out) { return out + ".card.md"; }

void check_options(const PairsOptions& options) {
  if (!std::isfinite(options.min_speedup) || options.min_speedup < 1) {
    throw UsageError("--min-speedup " + report::double_text(options.min_speedup) +
                     ": must be 1 or more (the baseline's score over the improved one's)");
  }
  if (options.max_gap_days &&
      !(*options.max_gap_days > 0 && std::isfinite(*options.max_gap_days))) {
    throw UsageError("--max-gap-days " + report::double_text(*options.max_gap_days) +
                     ": must be a positive number of days");
  }
  if (!(options.lineage.link_similarity > 0 && options.lineage.link_similarity <= 1)) {
    throw UsageError("--link-similarity " + report::double_text(options.lineage.link_similarity) +
                     ": must be in (0, 1]");
  }
  if (options.lineage.lookback == 0) throw UsageError("--lookback must be at least 1");
  if (options.trajectories && options.all_pairs) {
    throw UsageError("--all-pairs is for pairs; --trajectories writes one row per lineage");
  }
  if (options.trajectories && options.significant_only) {
    throw UsageError(
        "--significant is for pairs (one speedup against the noise); --trajectories writes one "
        "row per lineage");
  }
  if (options.trajectories && options.format == Format::PREFERENCE) {
    throw UsageError(
        "--format preference is for pairs (chosen and rejected); with --trajectories use jsonl, "
        "parquet or chat");
  }
  const std::optional<report::Format> named = report::format_of_name(options.out);
  if (named == report::Format::JSON || named == report::Format::CSV) {
    throw UsageError("--out " + options.out + " names a " +
                     (named == report::Format::JSON ? "JSON (one array)" : "CSV") +
                     " file, which pairs does not write: name it .jsonl (JSON Lines: jsonl, chat, "
                     "preference) or .parquet");
  }
  const std::optional<Format> implied = format_of_name(options.out);
  if (implied == Format::PARQUET && options.format != Format::PARQUET) {
    throw UsageError("--out " + options.out + " names a Parquet file, but --format " +
                     to_string(options.format) + " writes JSON Lines (name it .jsonl)");
  }
  if (implied == Format::JSONL && options.format == Format::PARQUET) {
    throw UsageError("--out " + options.out +
                     " names a JSON Lines file, but --format parquet writes Parquet (name it "
                     ".parquet)");
  }
}

struct PairsBuilder::Impl {
  PairsOptions options;
  analysis::NoiseBuilder noise;
  std::unique_ptr<dataset::CodeSpill> spill;
  std::unique_ptr<RowOutput> output;
  std::unique_ptr<AtomicOutputFile> card;
  std::vector<Group> groups;
  std::unordered_map<std::string, uint32_t> group_index;  // "lb\0user\0runner"
  PairsSummary summary;
  std::string rule;
  bool finished = false;

  explicit Impl(PairsOptions o) : options(std::move(o)) {}

  parquet::Provenance provenance() const;
  std::string task_text(const Group& g) const;
  void make(const Item& item, Made& made, std::vector<std::atomic<uint8_t>>& contamination,
            std::vector<uint8_t>& scratch) const;
  std::string card_text(uint64_t out_bytes) const;
};

PairsBuilder::PairsBuilder(PairsOptions options)
    : impl_(std::make_unique<Impl>(std::move(options))) {
  Impl& m = *impl_;
  check_options(m.options);
  m.rule = m.options.trajectories
               ? "kbdata pairs --trajectories: per (leaderboard, user, runner), the qualifying "
                 "versions split into lineages where the code is rewritten; one row per lineage "
                 "stretch of two or more versions, every version in time order (docs/pairs.md)"
               : std::string(
                     "kbdata pairs: per (leaderboard, user, runner), the qualifying "
                     "versions split into lineages where the code is rewritten; ") +
                     (m.options.all_pairs ? "every improving pair of versions of a lineage"
                                          : "each new best of a lineage with the best before it") +
                     ", with both codes, the speedup, a unified diff and its significance "
                     "against the measured noise (docs/pairs.md)";
  std::vector<FieldSpec> fields = fields_of(m.options.format, m.options.trajectories);
  const OutputTarget out = check_output_file(m.options.out);
  const OutputTarget card = check_output_file(m.options.card);
  if (file_id(out.target) && file_id(card.target) &&
      *file_id(out.target) == *file_id(card.target)) {
    throw UsageError("--card " + m.options.card + " names the output itself");
  }
  if (out.target == card.target) throw UsageError("--card " + m.options.card + " names --out");
  m.output = std::make_unique<RowOutput>(m.options.out, m.options.format, std::move(fields),
                                         m.provenance());
  m.card = std::make_unique<AtomicOutputFile>(m.options.card);
  m.spill = std::make_unique<dataset::CodeSpill>(
      std::filesystem::path(out.target).parent_path().string());
}

PairsBuilder::~PairsBuilder() = default;

bool PairsBuilder::wants_code(const dataset::Submission& s) { return measured(s); }

void PairsBuilder::prepare(dataset::Submission& s, std::optional<std::string_view> code) const {
  if (!measured(s) || !code || code->empty()) return;
  Prepared p;
  p.sketch = similarity::code_sketch(*code);
  if (dataset::matches(impl_->options.versions, s)) {
    p.version = true;
    p.raw = code->size();
    dataset::CodeSpill::compress(*code, p.compressed);
  }
  s.prepared = std::move(p);
}

void PairsBuilder::add(dataset::Submission&& s) {
  Impl& m = *impl_;
  ++m.summary.rows;
  Prepared p;
  if (Prepared* prepared = std::any_cast<Prepared>(&s.prepared)) {
    p = std::move(*prepared);
  } else if (s.code && !s.code->empty() && measured(s)) {  // a load without the prepare step
    prepare(s, *s.code);
    if (Prepared* made = std::any_cast<Prepared>(&s.prepared)) p = std::move(*made);
  }
  const bool selected = dataset::qualifies(s) && dataset::matches(m.options.versions, s);
  if (selected && !p.version) ++m.summary.without_code;
  if (!p.version) {
    s.prepared = std::move(p.sketch);
    m.noise.add(std::move(s));
    return;
  }
  ++m.summary.versions;
  std::string key = std::to_string(s.leaderboard_id);
  key += '\0';
  key += s.user_id;
  key += '\0';
  if (s.runner) key += '\1' + *s.runner;
  auto [it, inserted] = m.group_index.try_emplace(key, static_cast<uint32_t>(m.groups.size()));
  if (inserted) {
    Group g;
    g.leaderboard_id = s.leaderboard_id;
    g.problem_name = s.problem_name;
    g.user_id = s.user_id;
    g.user_name = s.user_name;
    g.runner = s.runner;
    m.groups.push_back(std::move(g));
  }
  Group& g = m.groups[it->second];
  Version v;
  v.row = static_cast<uint32_t>(g.versions.size());
  v.submission_id = s.submission_id;
  v.code_id = s.code_id;
  v.time_us = s.submission_time;
  v.score = *s.score;
  v.epoch = dataset::epoch_of(s.leaderboard_id, s.submission_time);
  g.code.push_back(m.spill->append(p.compressed, p.raw));
  g.file_names.push_back(s.file_name);
  s.prepared = std::move(p.sketch);
  v.sketch = m.noise.add(std::move(s));
  g.versions.push_back(v);
}

parquet::Provenance PairsBuilder::Impl::provenance() const {
  parquet::Provenance p;
  p.command = options.command_line;
  p.rule = rule;
  p.source = options.data_label;
  p.more.push_back({"kbdata.pairs.license", options.license.value_or("not stated by the source")});
  std::string sources = "[";
  for (const SourceFile& f : options.sources) {
    if (sources.size() > 1) sources += ',';
    sources += "{" + json_text("file", f.name) + ",\"rows\":" + std::to_string(f.rows) +
               ",\"bytes\":" + std::to_string(f.bytes) + "," + json_text("sha256", f.sha256) + "}";
  }
  p.more.push_back({"kbdata.pairs.sources", sources + "]"});
  std::string selection = "[";
  for (const std::string& s : options.selection) {
    if (selection.size() > 1) selection += ',';
    append_json_string(selection, s);
  }
  p.more.push_back({"kbdata.pairs.selection", selection + "]"});
  std::string filters =
      "{\"trajectories\":" + std::string(options.trajectories ? "true" : "false") +
      ",\"all_pairs\":" + (options.all_pairs ? "true" : "false") +
      ",\"same_epoch\":" + (options.same_epoch ? "true" : "false") +
      ",\"significant\":" + (options.significant_only ? "true" : "false") +
      ",\"min_speedup\":" + report::double_text(options.min_speedup) + ",\"max_gap_days\":" +
      (options.max_gap_days ? report::double_text(*options.max_gap_days) : "null") +
      ",\"link_similarity\":" + report::double_text(options.lineage.link_similarity) +
      ",\"lookback\":" + std::to_string(options.lineage.lookback) + ",\"exclude_flagged\":";
  if (options.flagged_level) {
    append_json_string(filters, *options.flagged_level);
  } else {
    filters += "null";
  }
  filters += ",\"decontaminate\":";
  if (options.benchmarks) {
    const DecontaminationOptions& d = options.benchmarks->options();
    filters += "{" + json_text("path", options.benchmarks_path) +
               ",\"ngram\":" + std::to_string(d.ngram) +
               ",\"ngram_share\":" + report::double_text(d.ngram_share) +
               ",\"threshold\":" + report::double_text(d.threshold) + "}";
  } else {
    filters += "null";
  }
  p.more.push_back({"kbdata.pairs.filters", filters + "}"});
  if (options.benchmarks) {
    p.more.push_back({"kbdata.pairs.decontaminate",
                      options.benchmarks_path + " (" + options.benchmarks->describe() + ")"});
  }
  return p;
}

std::string PairsBuilder::Impl::task_text(const Group& g) const {
  std::string text = "Problem: " + g.problem_name + " (KernelBot leaderboard " +
                     std::to_string(g.leaderboard_id) + ")";
  if (g.runner) text += ", measured on " + *g.runner;
  text += ".\n";
  auto it = options.descriptions.find(g.leaderboard_id);
  if (it != options.descriptions.end() && !it->second.empty()) text += it->second + "\n";
  return text;
}

void PairsBuilder::Impl::make(const Item& item, Made& made,
                              std::vector<std::atomic<uint8_t>>& contamination,
                              std::vector<uint8_t>& scratch) const {
  const Group& g = groups[item.group];
  made.codes.resize(item.members.size());
  for (size_t k = 0; k < item.members.size(); ++k) {
    spill->read(g.code[item.members[k]], scratch, made.codes[k]);
  }
  const bool pair = !options.trajectories;
  if (pair) {
    const std::string_view name = name_of(g.file_names[item.members[1]]);
    if (normalised_code(made.codes[0], name_of(g.file_names[item.members[0]])) ==
        normalised_code(made.codes[1], name)) {
      made.drop = Made::Drop::NO_CHANGE;
      return;
    }
  }
  if (options.benchmarks) {
    // Per version of the whole output, once: 0 not yet checked, else 1 + Contamination.
    bool ngram = false, minhash = false;
    for (size_t k = 0; k < item.members.size(); ++k) {
      std::atomic<uint8_t>& known = contamination[g.versions[item.members[k]].row];
      uint8_t c = known.load(std::memory_order_relaxed);
      if (c == 0) {
        c = static_cast<uint8_t>(1 + static_cast<int>(options.benchmarks->check(made.codes[k])));
        known.store(c, std::memory_order_relaxed);
      }
      ngram |= c == 1 + static_cast<int>(Contamination::NGRAM);
      minhash |= c == 1 + static_cast<int>(Contamination::MINHASH);
    }
    if (ngram || minhash) {
      made.drop = ngram ? Made::Drop::NGRAM : Made::Drop::MINHASH;
      return;
    }
  }
  auto language = [&](size_t k) {
    return code_language(made.codes[k], name_of(g.file_names[item.members[k]]));
  };
  const Version& first = g.versions[item.members.front()];
  switch (options.format) {
    case Format::JSONL:
    case Format::PARQUET:
      if (pair) {
        made.diff =
            unified_diff(made.codes[0], made.codes[1], name_of(g.file_names[item.members[1]]));
      }
      break;
    case Format::CHAT: {
      std::string& m = made.text;
      m = "[";
      if (pair) {
        append_message(m, "user",
                       task_text(g) + "\nHere is a kernel for it that ran in " +
                           report::format_score(first.score) + ":\n\n" +
                           fenced(made.codes[0], language(0)) + "\n\nWrite a faster version.");
        append_message(m, "assistant", fenced(made.codes[1], language(1)));
      } else {
        append_message(m, "user", task_text(g) + "\nWrite a kernel for it.");
        for (size_t k = 0; k < item.members.size(); ++k) {
          append_message(m, "assistant", fenced(made.codes[k], language(k)));
          if (k + 1 < item.members.size()) {
            append_message(m, "user",
                           "It ran in " + report::format_score(g.versions[item.members[k]].score) +
                               ". Write a faster version.");
          }
        }
      }
      m += ']';
      break;
    }
    case Format::PREFERENCE:
      made.text = task_text(g) + "\nWrite a fast kernel for it.";
      made.chosen = fenced(made.codes[1], language(1));
      made.rejected = fenced(made.codes[0], language(0));
      break;
  }
}

namespace {

const char* type_name(Type type) {
  switch (type) {
    case Type::INT64:
      return "int64";
    case Type::DOUBLE:
      return "double";
    case Type::BOOL:
      return "bool";
    case Type::STRING:
      return "string";
    case Type::TIMESTAMP:
      return "timestamp (UTC)";
    case Type::JSON:
      return "list of {role, content}";
    case Type::INT64_LIST:
      return "list of int64";
    case Type::DOUBLE_LIST:
      return "list of double";
    case Type::TIMESTAMP_LIST:
      return "list of timestamp (UTC)";
    case Type::STRING_LIST:
      return "list of string";
  }
  return "";
}

// A Markdown table cell: '|' escaped, line breaks as spaces.
std::string cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n' || c == '\r') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string PairsBuilder::Impl::card_text(uint64_t out_bytes) const {
  const PairsOptions& o = options;
  const PairsSummary& s = summary;
  const std::string file = std::filesystem::path(o.out).filename().string();
  dataset::CardHeader header;
  // The hub reads `license:` as an identifier; a source without one is "other", said below.
  header.license = o.license.value_or("other");
  header.title = o.trajectories ? "KernelBot kernel trajectories (kbdata pairs)"
                                : "KernelBot improvement pairs (kbdata pairs)";
  header.tags = {"code", "gpu-kernels", "kernelbot", "kbdata"};
  dataset::CardFile card_file{"default", file, static_cast<int64_t>(s.written), out_bytes};
  std::string t = dataset::card_front_matter(header, {card_file});
  t += rule + ".\n\n";
  t += "File `" + cell(file) + "`: " + std::to_string(s.written) + " rows, " +
       std::to_string(out_bytes) + " bytes (" + dataset::megabytes(out_bytes) + "), format `" +
       to_string(o.format) + "`" +
       (o.format == Format::PARQUET ? "" : " (JSON Lines: one object per line)") + ".\n";

  t += "\n## How the rows were made\n\n";
  t += "- Data: `" + cell(o.data_label) + "`, read by kbdata " + std::string(kVersion) + ".\n";
  t += "- Command: `" + cell(o.command_line) + "`.\n";
  t += "- Selection: " +
       (o.selection.empty() ? std::string("every leaderboard, user and runner of the data")
                            : [&] {
                                std::string x;
                                for (const std::string& part : o.selection) {
                                  x += (x.empty() ? "`" : ", `") + cell(part) + "`";
                                }
                                return x;
                              }()) +
       ".\n";
  t += "- Versions: the rows that qualify for a ranking (passed, a finite score above 0 s, not "
       "marked hacked) with code, per (leaderboard, user, runner) in submission-time order.\n";
  t += "- Lineages: a version continues the most recently continued lineage (of the last " +
       std::to_string(o.lineage.lookback) +
       ") whose last version it resembles: the same code_id, or an estimated Jaccard similarity "
       "of their 5-byte shingles of at least " +
       report::double_text(o.lineage.link_similarity) + "; otherwise it starts a lineage.\n";
  if (o.trajectories) {
    t += "- Rows: each lineage stretch of two or more versions, every version";
  } else {
    t += std::string("- Rows: ") +
         (o.all_pairs ? "every version with every later one of its stretch that scores below it"
                      : "each new best of a stretch (a score below every earlier one) with the "
                        "best before it");
  }
  t += o.same_epoch ? "; stretches are cut where the harness epoch changes" : "";
  if (o.trajectories && o.max_gap_days) {
    t += "; and where two versions are more than " + report::double_text(*o.max_gap_days) +
         " days apart";
  }
  t += ".\n";
  if (o.min_speedup > 1) {
    t += "- Dropped: speedup below " + report::double_text(o.min_speedup) +
         (o.trajectories ? " (first score / best score).\n" : ".\n");
  }
  if (!o.trajectories && o.max_gap_days) {
    t += "- Dropped: pairs whose versions are more than " + report::double_text(*o.max_gap_days) +
         " days apart.\n";
  }
  if (o.significant_only) {
    t += "- Dropped: pairs whose speedup is not above the measurement noise (`significant` false, "
         "or null where no noise could be estimated).\n";
  }
  if (!o.trajectories) {
    t += "- Dropped: pairs with no real change (equal once comments, trailing spaces and empty "
         "lines are removed).\n";
    t += "- significant: log(speedup) > 1.6449 sqrt(sigma_b^2 + sigma_i^2), sigma the "
         "measured noise of one score of the leaderboard and runner at each version's time "
         "(kbdata noise); null where no noise could be estimated.\n";
  }
  if (o.benchmarks) {
    const DecontaminationOptions& d = o.benchmarks->options();
    t += "- Decontaminated against `" + cell(o.benchmarks_path) + "` (" + o.benchmarks->describe() +
         "): a row is dropped when any of its codes shares " +
         (d.ngram_share > 0 ? "more than " + report::double_text(d.ngram_share) +
                                  " of its distinct " + std::to_string(d.ngram) + "-grams"
                            : "a " + std::to_string(d.ngram) + "-gram of tokens") +
         " with the set, or has an estimated Jaccard similarity of at least " +
         report::double_text(d.threshold) + " with one of its items.\n";
  }
  if (o.flagged_level) {
    t += "- Left out before anything else: the " + std::to_string(o.flagged_left_out) +
         " rows `kbdata audit` calls " +
         (*o.flagged_level == "cheat" ? std::string("`cheat`")
                                      : "`" + *o.flagged_level + "` or `cheat`") +
         ".\n";
  }

  t += "\n## Counts\n\n| | rows |\n|---|---:|\n";
  auto line = [&](const std::string& what, uint64_t n) {
    t += "| " + what + " | " + std::to_string(n) + " |\n";
  };
  const std::string unit = o.trajectories ? "trajectories" : "pairs";
  line("rows read (all feed the noise estimates)", s.rows);
  line("versions", s.versions);
  line("qualifying rows of the selection without code (left out)", s.without_code);
  line("(leaderboard, user, runner) with versions", s.groups);
  line("lineages", s.lineages);
  line("candidate " + unit, s.candidates);
  line("dropped: below the minimum speedup", s.dropped_min_speedup);
  if (!o.trajectories) {
    line("dropped: further apart than the maximum gap", s.dropped_max_gap);
    if (o.significant_only) line("dropped: not above the noise", s.dropped_not_significant);
    line("dropped: no real change", s.dropped_no_change);
  }
  line("dropped: n-gram overlap with the benchmark set", s.dropped_ngram);
  line("dropped: MinHash near-copy of a benchmark item", s.dropped_minhash);
  line(unit + " written", s.written);
  if (!o.trajectories) {
    line("written pairs above the noise (significant)", s.significant);
    line("written pairs without a noise estimate", s.significance_unknown);
  }

  t += "\n## Fields\n\n| field | type | meaning |\n|---|---|---|\n";
  for (const FieldSpec& f : fields_of(o.format, o.trajectories)) {
    t +=
        "| `" + std::string(f.name) + "` | " + type_name(f.type) + " | " + cell(f.meaning) + " |\n";
  }
  if (o.format == Format::CHAT || o.format == Format::PREFERENCE) {
    t += "\nThe task text is the problem's name and leaderboard id, the runner, and the "
         "leaderboard's description where leaderboards.parquet gives one; code is fenced "
         "(```python, ```cuda or ```cpp) and times are written as `kbdata` writes scores.\n";
  }

  t += "\n## Sources\n\n| file | rows | bytes | sha256 |\n|---|---:|---:|---|\n";
  for (const SourceFile& f : o.sources) {
    t += "| `" + cell(f.name) + "` | " + std::to_string(f.rows) + " | " + std::to_string(f.bytes) +
         " | `" + f.sha256 + "` |\n";
  }

  t += "\n## License\n\n";
  if (o.license) {
    t += "Derived from the data above, whose card states the license `" + cell(*o.license) +
         "`; these rows carry it on.\n";
  } else {
    t += "The data above states no license on its card: ask its publisher before you share "
         "these rows (`license: other` above says only that).\n";
  }
  return t;
}

PairsSummary PairsBuilder::finish(const ProgressFn& progress) {
  Impl& m = *impl_;
  if (m.finished) throw std::logic_error("PairsBuilder::finish called twice");
  m.finished = true;
  const PairsOptions& o = m.options;

  // Groups in output order: leaderboard, user, runner (runner-less first).
  std::vector<uint32_t> order(m.groups.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    const Group& x = m.groups[a];
    const Group& y = m.groups[b];
    return std::tie(x.leaderboard_id, x.user_id, x.runner) <
           std::tie(y.leaderboard_id, y.user_id, y.runner);
  });
  m.summary.groups = m.groups.size();

  // Lineages, stretches and the items, with the filters that need no code.
  std::vector<Item> items;
  const std::optional<int64_t> max_gap_us =
      o.max_gap_days ? std::optional<int64_t>(static_cast<int64_t>(
                           *o.max_gap_days * static_cast<double>(kMicrosPerDay)))
                     : std::nullopt;
  uint64_t done = 0;
  for (uint32_t gi : order) {
    Group& g = m.groups[gi];
    // Time order (submission_time, then submission_id), rows renumbered after.
    std::vector<uint32_t> by_time(g.versions.size());
    for (uint32_t i = 0; i < by_time.size(); ++i) by_time[i] = i;
    std::sort(by_time.begin(), by_time.end(), [&](uint32_t a, uint32_t b) {
      return std::tie(g.versions[a].time_us, g.versions[a].submission_id) <
             std::tie(g.versions[b].time_us, g.versions[b].submission_id);
    });
    std::vector<Version> versions;
    std::vector<dataset::CodeSpill::Entry> code;
    std::vector<std::optional<std::string>> names;
    for (uint32_t i : by_time) {
      versions.push_back(g.versions[i]);
      code.push_back(g.code[i]);
      names.push_back(std::move(g.file_names[i]));
    }
    g.versions = std::move(versions);
    g.code = std::move(code);
    g.file_names = std::move(names);

    const std::vector<std::vector<uint32_t>> lineages = split_lineages(g.versions, o.lineage);
    m.summary.lineages += lineages.size();
    for (const std::vector<uint32_t>& lineage : lineages) {
      const int64_t lineage_id = g.versions[lineage.front()].submission_id;
      const auto stretches = comparable_stretches(g.versions, lineage, o.same_epoch,
                                                  o.trajectories ? max_gap_us : std::nullopt);
      for (const std::vector<uint32_t>& stretch : stretches) {
        if (o.trajectories) {
          if (stretch.size() < 2) continue;
          ++m.summary.candidates;
          double best = g.versions[stretch.front()].score;
          for (uint32_t v : stretch) best = std::min(best, g.versions[v].score);
          if (g.versions[stretch.front()].score / best < o.min_speedup) {
            ++m.summary.dropped_min_speedup;
            continue;
          }
          items.push_back({gi, lineage_id, stretch, 0, {}});
          continue;
        }
        for (const VersionPair& p : improvement_pairs(g.versions, stretch, o.all_pairs)) {
          ++m.summary.candidates;
          const Version& b = g.versions[p.baseline];
          const Version& i = g.versions[p.improved];
          if (b.score / i.score < o.min_speedup) {
            ++m.summary.dropped_min_speedup;
            continue;
          }
          if (max_gap_us && i.time_us - b.time_us > *max_gap_us) {
            ++m.summary.dropped_max_gap;
            continue;
          }
          items.push_back({gi, lineage_id, {p.baseline, p.improved}, version_similarity(b, i), {}});
        }
      }
    }
    if (progress) progress("lineages", ++done, order.size());
  }

  // The noise of every series (after the lineages: its sketches are released here).
  std::map<std::pair<int64_t, std::optional<std::string>>, analysis::SeriesNoise> noise;
  for (analysis::SeriesNoise& s : m.noise.finish()) {
    auto key = std::make_pair(s.leaderboard_id, s.runner);
    noise.emplace(std::move(key), std::move(s));
  }
  auto sigma = [&](const Group& g, int64_t time_us) -> std::optional<double> {
    auto it = noise.find({g.leaderboard_id, g.runner});
    if (it == noise.end()) return std::nullopt;
    return analysis::sigma_at(it->second, time_us);
  };
  if (!o.trajectories) {
    // Each pair's significance; with --significant, the pairs not above the noise go here,
    // before any code is read back.
    std::vector<Item> kept;
    kept.reserve(items.size());
    for (Item& item : items) {
      const Group& g = m.groups[item.group];
      const Version& b = g.versions[item.members[0]];
      const Version& i = g.versions[item.members[1]];
      item.significance = significance(b.score / i.score, sigma(g, b.time_us), sigma(g, i.time_us));
      if (o.significant_only && item.significance.significant != true) {
        ++m.summary.dropped_not_significant;
        continue;
      }
      kept.push_back(std::move(item));
    }
    items = std::move(kept);
  }

  // Per version (by its row number in its group, made unique over the groups), the
  // decontamination's verdict once known.
  std::vector<uint32_t> first_row(m.groups.size() + 1, 0);
  for (size_t gi = 0; gi < m.groups.size(); ++gi) {
    first_row[gi + 1] = first_row[gi] + static_cast<uint32_t>(m.groups[gi].versions.size());
  }
  for (size_t gi = 0; gi < m.groups.size(); ++gi) {
    for (uint32_t k = 0; k < m.groups[gi].versions.size(); ++k) {
      m.groups[gi].versions[k].row = first_row[gi] + k;
    }
  }
  std::vector<std::atomic<uint8_t>> contamination(o.benchmarks ? first_row.back() : 0);

  const int threads = command_threads(o.threads > 0 ? std::optional<int>(o.threads) : std::nullopt);
  std::unique_ptr<ThreadPool> pool = threads > 1 ? std::make_unique<ThreadPool>(threads) : nullptr;
  std::vector<Made> made(kBatchItems);

  std::vector<Value> values;
  std::vector<int64_t> ids, code_ids, times, epochs;
  std::vector<double> scores;
  for (size_t start = 0; start < items.size(); start += kBatchItems) {
    const size_t n = std::min(kBatchItems, items.size() - start);
    for (size_t k = 0; k < n; ++k) made[k] = Made{};
    run_all(pool.get(), n, [&](size_t k) {
      thread_local std::vector<uint8_t> buffer;  // compressed code read back, per thread
      m.make(items[start + k], made[k], contamination, buffer);
    });
    for (size_t k = 0; k < n; ++k) {
      const Item& item = items[start + k];
      Made& r = made[k];
      switch (r.drop) {
        case Made::Drop::NO_CHANGE:
          ++m.summary.dropped_no_change;
          continue;
        case Made::Drop::NGRAM:
          ++m.summary.dropped_ngram;
          continue;
        case Made::Drop::MINHASH:
          ++m.summary.dropped_minhash;
          continue;
        case Made::Drop::NONE:
          break;
      }
      const Group& g = m.groups[item.group];
      const Value runner = g.runner ? Value{std::string_view(*g.runner)} : Value{};
      const Value user_name = g.user_name ? Value{std::string_view(*g.user_name)} : Value{};
      const std::optional<std::string>& last_name = g.file_names[item.members.back()];
      const Value file_name = last_name ? Value{std::string_view(*last_name)} : Value{};
      values.clear();
      if (o.trajectories) {
        ids.clear();
        code_ids.clear();
        times.clear();
        epochs.clear();
        scores.clear();
        double best = g.versions[item.members.front()].score;
        bool all_code_ids = true;  // else the list is null: a version's code_id is not known
        for (uint32_t v : item.members) {
          const Version& x = g.versions[v];
          ids.push_back(x.submission_id);
          all_code_ids = all_code_ids && x.code_id.has_value();
          code_ids.push_back(x.code_id.value_or(0));
          times.push_back(x.time_us);
          epochs.push_back(x.epoch);
          scores.push_back(x.score);
          best = std::min(best, x.score);
        }
        const double speedup = scores.front() / best;
        if (o.format == Format::CHAT) {
          values = {std::string_view(r.text),
                    g.leaderboard_id,
                    std::string_view(g.problem_name),
                    runner,
                    std::string_view(g.user_id),
                    item.lineage_id,
                    static_cast<int64_t>(item.members.size()),
                    speedup};
        } else {
          values = {g.leaderboard_id,
                    std::string_view(g.problem_name),
                    runner,
                    std::string_view(g.user_id),
                    user_name,
                    item.lineage_id,
                    file_name,
                    static_cast<int64_t>(item.members.size()),
                    scores.front(),
                    best,
                    speedup,
                    times.front(),
                    times.back(),
                    std::span<const int64_t>(ids),
                    all_code_ids ? Value(std::span<const int64_t>(code_ids)) : Value(),
                    std::span<const int64_t>(times),
                    std::span<const double>(scores),
                    std::span<const int64_t>(epochs),
                    std::span<const std::string>(r.codes)};
        }
      } else {
        const Version& b = g.versions[item.members[0]];
        const Version& i = g.versions[item.members[1]];
        const double speedup = b.score / i.score;
        const Significance& sig = item.significance;
        if (sig.significant) {
          m.summary.significant += *sig.significant ? 1 : 0;
        } else {
          ++m.summary.significance_unknown;
        }
        const Value noise_sd = sig.noise_sd ? Value{*sig.noise_sd} : Value{};
        const Value significant = sig.significant ? Value{*sig.significant} : Value{};
        switch (o.format) {
          case Format::JSONL:
          case Format::PARQUET:
            values = {
                g.leaderboard_id,
                std::string_view(g.problem_name),
                runner,
                std::string_view(g.user_id),
                user_name,
                item.lineage_id,
                file_name,
                b.submission_id,
                i.submission_id,
                b.code_id ? Value(*b.code_id) : Value(),
                i.code_id ? Value(*i.code_id) : Value(),
                b.time_us,
                i.time_us,
                static_cast<double>(i.time_us - b.time_us) / static_cast<double>(kMicrosPerDay),
                b.score,
                i.score,
                speedup,
                static_cast<int64_t>(b.epoch),
                static_cast<int64_t>(i.epoch),
                item.similarity,
                noise_sd,
                significant,
                std::string_view(r.codes[0]),
                std::string_view(r.codes[1]),
                std::string_view(r.diff)};
            break;
          case Format::CHAT:
            values = {std::string_view(r.text),
                      g.leaderboard_id,
                      std::string_view(g.problem_name),
                      runner,
                      std::string_view(g.user_id),
                      item.lineage_id,
                      b.submission_id,
                      i.submission_id,
                      speedup,
                      significant};
            break;
          case Format::PREFERENCE:
            values = {std::string_view(r.text),
                      std::string_view(r.chosen),
                      std::string_view(r.rejected),
                      g.leaderboard_id,
                      std::string_view(g.problem_name),
                      runner,
                      std::string_view(g.user_id),
                      item.lineage_id,
                      b.submission_id,
                      i.submission_id,
                      speedup,
                      significant};
            break;
        }
      }
      m.output->row(values);
      ++m.summary.written;
    }
    if (progress) progress("writing", start + n, items.size());
  }

  const PairsSummary& s = m.summary;
  std::string counts = "{\"rows\":" + std::to_string(s.rows) +
                       ",\"versions\":" + std::to_string(s.versions) +
                       ",\"lineages\":" + std::to_string(s.lineages) +
                       ",\"candidates\":" + std::to_string(s.candidates) +
                       ",\"dropped\":{\"min_speedup\":" + std::to_string(s.dropped_min_speedup) +
                       ",\"max_gap\":" + std::to_string(s.dropped_max_gap) +
                       ",\"not_significant\":" + std::to_string(s.dropped_not_significant) +
                       ",\"no_change\":" + std::to_string(s.dropped_no_change) +
                       ",\"ngram\":" + std::to_string(s.dropped_ngram) +
                       ",\"minhash\":" + std::to_string(s.dropped_minhash) +
                       ",\"flagged_rows\":" + std::to_string(o.flagged_left_out) +
                       "},\"written\":" + std::to_string(s.written) + "}";
  m.output->add_key_value({"kbdata.pairs.counts", counts});
  m.summary.bytes = m.output->close();
  m.card->write(m.card_text(m.summary.bytes));
  m.card->sync();
  m.output->commit();
  m.card->commit();
  return m.summary;
}

}  // namespace kbdata::pairs
