#include "pairs/pairs.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <map>
#include <span>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

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
#include "report/writer.h"
#include "result/table.h"
#include "techniques/techniques.h"

namespace kbdata::pairs {
namespace {

constexpr int64_t kMicrosPerDay = int64_t{86400} * 1000000;
constexpr size_t kBatchItems = 256;

// ---- the rows' fields: one table for the rows (a result table, written by report::Writer) and
// the card ---------------------------------------------------------------------------------------

using result::Cell;
using result::ColumnType;
using result::List;

struct FieldSpec {
  const char* name;
  ColumnType type;
  const char* meaning;  // the card's field table
  bool list = false;    // each value a list of `type`
};

// The fields every row starts its identity with, then the pieces the formats add.
const FieldSpec kSeries[] = {
    {"leaderboard_id", ColumnType::INT64, "the leaderboard (problem) id"},
    {"problem_name", ColumnType::STRING, "the problem's name"},
    {"runner", ColumnType::STRING, "the GPU the scores were measured on (null in legacy files)"},
    {"user_id", ColumnType::STRING, "the user (legacy files: anonymised)"},
};
const FieldSpec kUserName[] = {
    {"user_name", ColumnType::STRING, "the user's handle (null in legacy files)"},
};
const FieldSpec kLineage[] = {
    {"lineage_id", ColumnType::INT64, "the submission_id of the lineage's first version"},
};
const FieldSpec kFileName[] = {
    {"file_name", ColumnType::STRING,
     "the file name of the improved (trajectories: the last) version"},
};
const FieldSpec kPair[] = {
    {"baseline_submission_id", ColumnType::INT64, "the slower version's submission"},
    {"improved_submission_id", ColumnType::INT64, "the faster version's submission"},
    {"baseline_code_id", ColumnType::INT64, "the slower version's code_id"},
    {"improved_code_id", ColumnType::INT64, "the faster version's code_id"},
    {"baseline_time", ColumnType::TIMESTAMP, "when the slower version was submitted (UTC)"},
    {"improved_time", ColumnType::TIMESTAMP, "when the faster version was submitted (UTC)"},
    {"gap_days", ColumnType::DOUBLE, "days from the slower version to the faster"},
    {"baseline_score", ColumnType::SCORE, "the slower version's score, seconds"},
    {"improved_score", ColumnType::SCORE, "the faster version's score, seconds"},
    {"speedup", ColumnType::FACTOR, "baseline_score / improved_score (above 1)"},
    {"baseline_epoch", ColumnType::INT64, "the harness epoch of the slower version"},
    {"improved_epoch", ColumnType::INT64, "the harness epoch of the faster version"},
    {"similarity", ColumnType::DOUBLE,
     "estimated Jaccard similarity of the two codes' 5-byte shingles (1: one code_id)"},
    {"noise_sd", ColumnType::DOUBLE,
     "sd of log(speedup) from measurement noise alone (null: no noise estimate)"},
    {"significant", ColumnType::BOOL,
     "log(speedup) > 1.6449 noise_sd: above the noise at 95% (null: no noise estimate)"},
    {"baseline_code", ColumnType::STRING, "the slower version's code"},
    {"improved_code", ColumnType::STRING, "the faster version's code"},
    {"diff", ColumnType::STRING, "unified diff from baseline_code to improved_code"},
};
const FieldSpec kTrajectory[] = {
    {"versions", ColumnType::INT64, "how many versions the trajectory holds (2 or more)"},
    {"first_score", ColumnType::SCORE, "the first version's score, seconds"},
    {"best_score", ColumnType::SCORE, "the best version's score, seconds"},
    {"speedup", ColumnType::FACTOR, "first_score / best_score"},
    {"start_time", ColumnType::TIMESTAMP, "the first version's submission time (UTC)"},
    {"end_time", ColumnType::TIMESTAMP, "the last version's submission time (UTC)"},
    {"submission_ids", ColumnType::INT64, "each version's submission, in time order", true},
    {"code_ids", ColumnType::INT64, "each version's code_id", true},
    {"times", ColumnType::TIMESTAMP, "each version's submission time (UTC)", true},
    {"scores", ColumnType::SCORE, "each version's score, seconds", true},
    {"epochs", ColumnType::INT64, "each version's harness epoch", true},
    {"codes", ColumnType::STRING, "each version's code", true},
};
// What a chat or preference pair refers to.
const FieldSpec kPairReference[] = {
    {"baseline_submission_id", ColumnType::INT64, "the slower version's submission"},
    {"improved_submission_id", ColumnType::INT64, "the faster version's submission"},
    {"speedup", ColumnType::FACTOR, "the slower version's score / the faster one's"},
    {"significant", ColumnType::BOOL, "above the measurement noise at 95% (null: no estimate)"},
};
const FieldSpec kTrajectoryReference[] = {
    {"versions", ColumnType::INT64, "how many versions (assistant turns)"},
    {"speedup", ColumnType::FACTOR, "first score / best score"},
};
const FieldSpec kChatPair[] = {
    {"messages", ColumnType::JSON,
     "the user turn (task and baseline kernel with its time), the assistant turn (the faster "
     "kernel)"},
};
const FieldSpec kChatTrajectory[] = {
    {"messages", ColumnType::JSON,
     "the task, then each version as an assistant turn, each followed by a user turn with its "
     "time (but the last)"},
};
const FieldSpec kPreference[] = {
    {"prompt", ColumnType::STRING, "the task"},
    {"chosen", ColumnType::STRING, "the faster kernel"},
    {"rejected", ColumnType::STRING, "the slower kernel"},
};

// The fields of a format's rows, in order (the rows' cells follow it).
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

// The rows' columns: the result table's, as report::Writer writes them (JSON Lines: one object
// per row; Parquet: INT64, DOUBLE, BOOLEAN, UTF-8 strings, JSON and TIMESTAMP(MICROS, UTC)
// columns, lists as LISTs).
std::vector<result::Column> columns_of(Format format, bool trajectories) {
  std::vector<result::Column> columns;
  for (const FieldSpec& f : fields_of(format, trajectories)) {
    columns.push_back({.name = f.name, .type = f.type, .list = f.list});
  }
  return columns;
}

// `cells` made of `values`, each moved in (a row's texts are never copied).
template <typename... Values>
void set_cells(std::vector<Cell>& cells, Values&&... values) {
  cells.clear();
  cells.reserve(sizeof...(values));
  (cells.emplace_back(std::forward<Values>(values)), ...);
}

// The rows of a run: written to OUT by the one writer of tables (report::Writer: JSON Lines or
// Parquet), or kept as a result table (PairsOptions::keep_rows).
class RowOutput {
 public:
  RowOutput(const PairsOptions& options, const parquet::Provenance& provenance)
      : columns_(columns_of(options.format, options.trajectories)) {
    if (options.keep_rows) {
      table_.emplace(columns_, provenance.rule);
    } else {
      // Parquet: the RowFileWriter's own batches (2,048 rows or 8 MB), as pairs always wrote.
      writer_ = std::make_unique<report::Writer>(
          options.format == Format::PARQUET ? report::Format::PARQUET : report::Format::JSONL,
          columns_, nullptr, nullptr, options.out, provenance, parquet::RowBatchLimits{},
          options.threads);
    }
  }

  void row(std::vector<Cell>&& cells) {
    if (table_) {
      table_->add_row(std::move(cells));
    } else {
      writer_->row(std::move(cells));
    }
  }

  // The counts, known once every row is written: Parquet metadata.
  void add_key_value(parquet::KeyValue kv) {
    if (writer_) writer_->add_key_value(std::move(kv));
  }

  // Completes the file (not yet at its path) and returns its size (0 for rows kept).
  uint64_t close() { return writer_ ? writer_->close() : 0; }
  void commit() {
    if (writer_) writer_->commit();
  }

  // The rows kept (keep_rows).
  result::ResultTable take_table() {
    if (!table_) throw std::logic_error("pairs: the rows were written, not kept");
    result::ResultTable table = std::move(*table_);
    table_.reset();
    return table;
  }

 private:
  std::vector<result::Column> columns_;
  std::unique_ptr<report::Writer> writer_;
  std::optional<result::ResultTable> table_;
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
  throw UsageError(OptionName("format", "'" + text + "'"),
                   ": expected jsonl, parquet, chat or preference" + did_you_mean(text, names));
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
    throw UsageError(OptionName("min_speedup", report::double_text(options.min_speedup)),
                     ": must be 1 or more (the baseline's score over the improved one's)");
  }
  if (options.max_gap_days &&
      !(*options.max_gap_days > 0 && std::isfinite(*options.max_gap_days))) {
    throw UsageError(OptionName("max_gap_days", report::double_text(*options.max_gap_days)),
                     ": must be a positive number of days");
  }
  if (!(options.lineage.link_similarity > 0 && options.lineage.link_similarity <= 1)) {
    throw UsageError(
        OptionName("link_similarity", report::double_text(options.lineage.link_similarity)),
        ": must be in (0, 1]");
  }
  if (options.lineage.lookback == 0) {
    throw UsageError(OptionName("lookback", "0"), ": must be at least 1");
  }
  if (options.trajectories && options.all_pairs) {
    throw UsageError(OptionName::flag("all_pairs"), " is for pairs; ",
                     OptionName::flag("trajectories"), " writes one row per lineage");
  }
  if (options.trajectories && options.significant_only) {
    throw UsageError(OptionName::flag("significant"),
                     " is for pairs (one speedup against the noise); ",
                     OptionName::flag("trajectories"), " writes one row per lineage");
  }
  if (options.trajectories && options.format == Format::PREFERENCE) {
    throw UsageError(OptionName("format", "preference"),
                     " is for pairs (chosen and rejected); with ", OptionName::flag("trajectories"),
                     " use jsonl, parquet or chat");
  }
  const std::optional<report::Format> named = report::format_of_name(options.out);
  if (named == report::Format::JSON || named == report::Format::CSV) {
    throw UsageError(
        OptionName("out", options.out),
        " names a " + std::string(named == report::Format::JSON ? "JSON (one array)" : "CSV") +
            " file, which pairs does not write: name it .jsonl (JSON Lines: jsonl, chat, "
            "preference) or .parquet");
  }
  const std::optional<Format> implied = format_of_name(options.out);
  if (implied == Format::PARQUET && options.format != Format::PARQUET) {
    throw UsageError(OptionName("out", options.out), " names a Parquet file, but ",
                     OptionName("format", to_string(options.format)),
                     " writes JSON Lines (name it .jsonl)");
  }
  if (implied == Format::JSONL && options.format == Format::PARQUET) {
    throw UsageError(OptionName("out", options.out), " names a JSON Lines file, but ",
                     OptionName("format", "parquet"), " writes Parquet (name it .parquet)");
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
  std::string card_method() const;
  std::string card_counts() const;

  // finish()'s steps, in order.
  std::vector<Item> candidates(const ProgressFn& progress);
  void stretch_items(uint32_t gi, int64_t lineage_id, const std::vector<uint32_t>& stretch,
                     std::optional<int64_t> max_gap_us, std::vector<Item>& items);
  void judge_significance(std::vector<Item>& items);
  uint32_t number_versions();
  void write_rows(std::vector<Item>& items, std::vector<std::atomic<uint8_t>>& contamination,
                  ThreadPool* pool, const ProgressFn& progress);
  bool count_drop(Made::Drop drop);
  void trajectory_cells(const Item& item, Made& r, std::vector<Cell>& cells) const;
  void pair_cells(const Item& item, Made& r, std::vector<Cell>& cells);
  std::string counts_json() const;
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
  if (m.options.keep_rows) {
    // Nothing is written: the code spills to the temporary folder.
    m.output = std::make_unique<RowOutput>(m.options, m.provenance());
    m.spill = std::make_unique<dataset::CodeSpill>(std::filesystem::temp_directory_path().string());
    return;
  }
  const OutputTarget out = check_output_file(m.options.out);
  const OutputTarget card = check_output_file(m.options.card);
  if (file_id(out.target) && file_id(card.target) &&
      *file_id(out.target) == *file_id(card.target)) {
    throw UsageError(OptionName("card", m.options.card), " names the output itself");
  }
  if (out.target == card.target) {
    throw UsageError(OptionName("card", m.options.card), " names ", OptionName("out"));
  }
  m.output = std::make_unique<RowOutput>(m.options, m.provenance());
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
    return techniques::fence_language(
        techniques::code_file(made.codes[k], name_of(g.file_names[item.members[k]])));
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

// A field's type as the card names it.
std::string type_name(const FieldSpec& f) {
  const char* scalar = "string";
  switch (f.type) {
    case ColumnType::INT64:
      scalar = "int64";
      break;
    case ColumnType::SCORE:
    case ColumnType::FACTOR:
    case ColumnType::DOUBLE:
      scalar = "double";
      break;
    case ColumnType::BOOL:
      scalar = "bool";
      break;
    case ColumnType::STRING:
      scalar = "string";
      break;
    case ColumnType::TIMESTAMP:
      scalar = "timestamp (UTC)";
      break;
    case ColumnType::JSON:
      return "list of {role, content}";  // the chat's messages, the one JSON field
  }
  return f.list ? "list of " + std::string(scalar) : std::string(scalar);
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

// The card's "How the rows were made": the data, the command and each rule that chose or dropped
// rows.
std::string PairsBuilder::Impl::card_method() const {
  const PairsOptions& o = options;
  std::string t;
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
  return t;
}

// The card's "Counts": the rows at each step, and what each filter dropped.
std::string PairsBuilder::Impl::card_counts() const {
  const PairsOptions& o = options;
  const PairsSummary& s = summary;
  std::string t;
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
  return t;
}

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

  t += card_method();
  t += card_counts();

  t += "\n## Fields\n\n| field | type | meaning |\n|---|---|---|\n";
  for (const FieldSpec& f : fields_of(o.format, o.trajectories)) {
    t += "| `" + std::string(f.name) + "` | " + type_name(f) + " | " + cell(f.meaning) + " |\n";
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

namespace {

// A group's versions, codes and file names in time order (submission_time, then submission_id).
void sort_by_time(Group& g) {
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
}

}  // namespace

std::vector<Item> PairsBuilder::Impl::candidates(const ProgressFn& progress) {
  const PairsOptions& o = options;
  // Groups in output order: leaderboard, user, runner (runner-less first).
  std::vector<uint32_t> order(groups.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    const Group& x = groups[a];
    const Group& y = groups[b];
    return std::tie(x.leaderboard_id, x.user_id, x.runner) <
           std::tie(y.leaderboard_id, y.user_id, y.runner);
  });
  summary.groups = groups.size();

  std::vector<Item> items;
  const std::optional<int64_t> max_gap_us =
      o.max_gap_days ? std::optional<int64_t>(static_cast<int64_t>(
                           *o.max_gap_days * static_cast<double>(kMicrosPerDay)))
                     : std::nullopt;
  uint64_t done = 0;
  for (uint32_t gi : order) {
    Group& g = groups[gi];
    sort_by_time(g);
    const std::vector<std::vector<uint32_t>> lineages = split_lineages(g.versions, o.lineage);
    summary.lineages += lineages.size();
    for (const std::vector<uint32_t>& lineage : lineages) {
      const int64_t lineage_id = g.versions[lineage.front()].submission_id;
      const auto stretches = comparable_stretches(g.versions, lineage, o.same_epoch,
                                                  o.trajectories ? max_gap_us : std::nullopt);
      for (const std::vector<uint32_t>& stretch : stretches) {
        stretch_items(gi, lineage_id, stretch, max_gap_us, items);
      }
    }
    if (progress)
      progress({.stage = "lineages", .done = ++done, .total = order.size(), .unit = "groups"});
  }
  return items;
}

void PairsBuilder::Impl::stretch_items(uint32_t gi, int64_t lineage_id,
                                       const std::vector<uint32_t>& stretch,
                                       std::optional<int64_t> max_gap_us,
                                       std::vector<Item>& items) {
  const PairsOptions& o = options;
  const Group& g = groups[gi];
  if (o.trajectories) {
    if (stretch.size() < 2) return;
    ++summary.candidates;
    double best = g.versions[stretch.front()].score;
    for (uint32_t v : stretch) best = std::min(best, g.versions[v].score);
    if (g.versions[stretch.front()].score / best < o.min_speedup) {
      ++summary.dropped_min_speedup;
      return;
    }
    items.push_back({gi, lineage_id, stretch, 0, {}});
    return;
  }
  for (const VersionPair& p : improvement_pairs(g.versions, stretch, o.all_pairs)) {
    ++summary.candidates;
    const Version& b = g.versions[p.baseline];
    const Version& i = g.versions[p.improved];
    if (b.score / i.score < o.min_speedup) {
      ++summary.dropped_min_speedup;
      continue;
    }
    if (max_gap_us && i.time_us - b.time_us > *max_gap_us) {
      ++summary.dropped_max_gap;
      continue;
    }
    items.push_back({gi, lineage_id, {p.baseline, p.improved}, version_similarity(b, i), {}});
  }
}

void PairsBuilder::Impl::judge_significance(std::vector<Item>& items) {
  // The noise of every series (after the lineages: its sketches are released here).
  std::map<std::pair<int64_t, std::optional<std::string>>, analysis::SeriesNoise> series;
  for (analysis::SeriesNoise& s : noise.finish()) {
    auto key = std::make_pair(s.leaderboard_id, s.runner);
    series.emplace(std::move(key), std::move(s));
  }
  auto sigma = [&](const Group& g, int64_t time_us) -> std::optional<double> {
    auto it = series.find({g.leaderboard_id, g.runner});
    if (it == series.end()) return std::nullopt;
    return analysis::sigma_at(it->second, time_us);
  };
  std::vector<Item> kept;
  kept.reserve(items.size());
  for (Item& item : items) {
    const Group& g = groups[item.group];
    const Version& b = g.versions[item.members[0]];
    const Version& i = g.versions[item.members[1]];
    item.significance = significance(b.score / i.score, sigma(g, b.time_us), sigma(g, i.time_us));
    if (options.significant_only && item.significance.significant != true) {
      ++summary.dropped_not_significant;
      continue;
    }
    kept.push_back(std::move(item));
  }
  items = std::move(kept);
}

uint32_t PairsBuilder::Impl::number_versions() {
  std::vector<uint32_t> first_row(groups.size() + 1, 0);
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    first_row[gi + 1] = first_row[gi] + static_cast<uint32_t>(groups[gi].versions.size());
  }
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    for (uint32_t k = 0; k < groups[gi].versions.size(); ++k) {
      groups[gi].versions[k].row = first_row[gi] + k;
    }
  }
  return first_row.back();
}

bool PairsBuilder::Impl::count_drop(Made::Drop drop) {
  switch (drop) {
    case Made::Drop::NO_CHANGE:
      ++summary.dropped_no_change;
      return true;
    case Made::Drop::NGRAM:
      ++summary.dropped_ngram;
      return true;
    case Made::Drop::MINHASH:
      ++summary.dropped_minhash;
      return true;
    case Made::Drop::NONE:
      break;
  }
  return false;
}

void PairsBuilder::Impl::trajectory_cells(const Item& item, Made& r,
                                          std::vector<Cell>& cells) const {
  const Group& g = groups[item.group];
  const Cell runner = result::optional_cell(g.runner);
  List ids, code_ids, times, scores, epochs, codes;
  double best = g.versions[item.members.front()].score;
  bool all_code_ids = true;  // else the list is null: a version's code_id is not known
  for (size_t v = 0; v < item.members.size(); ++v) {
    const Version& x = g.versions[item.members[v]];
    ids.emplace_back(x.submission_id);
    all_code_ids = all_code_ids && x.code_id.has_value();
    code_ids.emplace_back(x.code_id.value_or(0));
    times.emplace_back(x.time_us);
    epochs.emplace_back(static_cast<int64_t>(x.epoch));
    scores.emplace_back(x.score);
    codes.emplace_back(std::move(r.codes[v]));
    best = std::min(best, x.score);
  }
  const Version& first = g.versions[item.members.front()];
  const Version& last = g.versions[item.members.back()];
  const double speedup = first.score / best;
  if (options.format == Format::CHAT) {
    set_cells(cells, std::move(r.text), g.leaderboard_id, g.problem_name, runner, g.user_id,
              item.lineage_id, static_cast<int64_t>(item.members.size()), speedup);
  } else {
    set_cells(cells, g.leaderboard_id, g.problem_name, runner, g.user_id,
              result::optional_cell(g.user_name), item.lineage_id,
              result::optional_cell(g.file_names[item.members.back()]),
              static_cast<int64_t>(item.members.size()), first.score, best, speedup, first.time_us,
              last.time_us, std::move(ids), all_code_ids ? Cell(std::move(code_ids)) : Cell(),
              std::move(times), std::move(scores), std::move(epochs), std::move(codes));
  }
}

void PairsBuilder::Impl::pair_cells(const Item& item, Made& r, std::vector<Cell>& cells) {
  const Group& g = groups[item.group];
  const Cell runner = result::optional_cell(g.runner);
  const Version& b = g.versions[item.members[0]];
  const Version& i = g.versions[item.members[1]];
  const double speedup = b.score / i.score;
  const Significance& sig = item.significance;
  if (sig.significant) {
    summary.significant += *sig.significant ? 1 : 0;
  } else {
    ++summary.significance_unknown;
  }
  const Cell noise_sd = result::optional_cell(sig.noise_sd);
  const Cell significant = result::optional_cell(sig.significant);
  switch (options.format) {
    case Format::JSONL:
    case Format::PARQUET:
      set_cells(cells, g.leaderboard_id, g.problem_name, runner, g.user_id,
                result::optional_cell(g.user_name), item.lineage_id,
                result::optional_cell(g.file_names[item.members.back()]), b.submission_id,
                i.submission_id, result::optional_cell(b.code_id), result::optional_cell(i.code_id),
                b.time_us, i.time_us,
                static_cast<double>(i.time_us - b.time_us) / static_cast<double>(kMicrosPerDay),
                b.score, i.score, speedup, static_cast<int64_t>(b.epoch),
                static_cast<int64_t>(i.epoch), item.similarity, noise_sd, significant,
                std::move(r.codes[0]), std::move(r.codes[1]), std::move(r.diff));
      break;
    case Format::CHAT:
      set_cells(cells, std::move(r.text), g.leaderboard_id, g.problem_name, runner, g.user_id,
                item.lineage_id, b.submission_id, i.submission_id, speedup, significant);
      break;
    case Format::PREFERENCE:
      set_cells(cells, std::move(r.text), std::move(r.chosen), std::move(r.rejected),
                g.leaderboard_id, g.problem_name, runner, g.user_id, item.lineage_id,
                b.submission_id, i.submission_id, speedup, significant);
      break;
  }
}

void PairsBuilder::Impl::write_rows(std::vector<Item>& items,
                                    std::vector<std::atomic<uint8_t>>& contamination,
                                    ThreadPool* pool, const ProgressFn& progress) {
  std::vector<Made> made(kBatchItems);
  std::vector<Cell> cells;
  for (size_t start = 0; start < items.size(); start += kBatchItems) {
    const size_t n = std::min(kBatchItems, items.size() - start);
    for (size_t k = 0; k < n; ++k) made[k] = Made{};
    run_all(pool, n, [&](size_t k) {
      thread_local std::vector<uint8_t> buffer;  // compressed code read back, per thread
      make(items[start + k], made[k], contamination, buffer);
    });
    for (size_t k = 0; k < n; ++k) {
      // The made texts move into the row's cells.
      if (count_drop(made[k].drop)) continue;
      if (options.trajectories) {
        trajectory_cells(items[start + k], made[k], cells);
      } else {
        pair_cells(items[start + k], made[k], cells);
      }
      output->row(std::move(cells));
      ++summary.written;
    }
    if (progress)
      progress({.stage = "writing", .done = start + n, .total = items.size(), .unit = "rows"});
  }
}

std::string PairsBuilder::Impl::counts_json() const {
  const PairsSummary& s = summary;
  return "{\"rows\":" + std::to_string(s.rows) + ",\"versions\":" + std::to_string(s.versions) +
         ",\"lineages\":" + std::to_string(s.lineages) +
         ",\"candidates\":" + std::to_string(s.candidates) +
         ",\"dropped\":{\"min_speedup\":" + std::to_string(s.dropped_min_speedup) +
         ",\"max_gap\":" + std::to_string(s.dropped_max_gap) +
         ",\"not_significant\":" + std::to_string(s.dropped_not_significant) +
         ",\"no_change\":" + std::to_string(s.dropped_no_change) +
         ",\"ngram\":" + std::to_string(s.dropped_ngram) +
         ",\"minhash\":" + std::to_string(s.dropped_minhash) +
         ",\"flagged_rows\":" + std::to_string(options.flagged_left_out) +
         "},\"written\":" + std::to_string(s.written) + "}";
}

PairsSummary PairsBuilder::finish(const ProgressFn& progress) {
  Impl& m = *impl_;
  if (m.finished) throw std::logic_error("PairsBuilder::finish called twice");
  m.finished = true;
  const PairsOptions& o = m.options;

  // Lineages, stretches and the items, with the filters that need no code.
  std::vector<Item> items = m.candidates(progress);
  // Each pair's significance; with --significant, the pairs not above the noise go here, before
  // any code is read back.
  if (!o.trajectories) m.judge_significance(items);
  // Per version (by its row number in its group, made unique over the groups), the
  // decontamination's verdict once known.
  const uint32_t versions = m.number_versions();
  std::vector<std::atomic<uint8_t>> contamination(o.benchmarks ? versions : 0);

  const int threads = o.threads;
  std::unique_ptr<ThreadPool> pool = threads > 1 ? std::make_unique<ThreadPool>(threads) : nullptr;
  m.write_rows(items, contamination, pool.get(), progress);

  m.output->add_key_value({"kbdata.pairs.counts", m.counts_json()});
  m.summary.bytes = m.output->close();
  if (m.card) {
    m.card->write(m.card_text(m.summary.bytes));
    m.card->sync();
  }
  m.output->commit();
  if (m.card) m.card->commit();
  return m.summary;
}

result::ResultTable PairsBuilder::take_rows() {
  if (!impl_->finished) throw std::logic_error("PairsBuilder::take_rows before finish");
  return impl_->output->take_table();
}

}  // namespace kbdata::pairs
