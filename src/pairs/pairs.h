// kbdata pairs (docs/pairs.md): training data from the submissions, clean by construction. Per
// (leaderboard, user, runner), the qualifying versions are split into lineages (lineage.h); each
// lineage gives improvement pairs, or is one trajectory; the filters drop what would mislead a
// model, each drop counted by reason; the rows are written as JSON Lines or Parquet (flat fields),
// chat or preference records (a result table written by report::Writer, the one writer of
// tables), with the data set's license and the provenance in the file's metadata and a card
// beside it.
//
//   lineage.*        lineages, comparable stretches, improvement pairs, significance
//   diff.*           unified diffs, the text "no real change" compares
//   decontaminate.*  a benchmark set's n-grams and MinHash sketches, and the check of a code
//   pairs.*          PairsBuilder: the rows of a load (the code spilled to disk), then the output
//
// Memory: per loaded row the noise estimate's 60 bytes and 1 KB sketch (similarity/sketch.h), per
// version about 100 bytes and a spill entry; the code of the versions is spilled, snappy-
// compressed, to an unlinked file beside OUT (dataset/code_spill.h) and read back a batch of
// rows at a time.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/progress.h"
#include "dataset/filter.h"
#include "dataset/submission.h"
#include "pairs/decontaminate.h"
#include "pairs/lineage.h"
#include "result/table.h"

namespace kbdata::pairs {

enum class Format { JSONL, PARQUET, CHAT, PREFERENCE };
[[nodiscard]] const char* to_string(Format format);
// --format's text; UsageError naming the closest of jsonl, parquet, chat, preference.
[[nodiscard]] Format parse_format(const std::string& text);
// The format OUT's name implies, by the one rule of report::format_of_name: .parquet PARQUET,
// .jsonl or .ndjson JSONL; else nullopt (check_options refuses .json and .csv, formats pairs does
// not write).
[[nodiscard]] std::optional<Format> format_of_name(const std::string& path);

// The card of OUT when --card does not name one: OUT's path with ".card.md" appended
// ("pairs.jsonl" -> "pairs.jsonl.card.md"), so that every output has its own.
[[nodiscard]] std::string default_card_path(const std::string& out);

// A file the rows were read from, for the provenance.
struct SourceFile {
  std::string name;
  int64_t rows = 0;
  uint64_t bytes = 0;
  std::string sha256;
};

struct PairsOptions {
  std::string out;
  std::string card;  // the card's path
  // The rows kept as a result table (PairsBuilder::take_rows) instead of written: no OUT, no card
  // (out and card are not read; the code spills to the temporary folder). For a command run
  // inside another program (the Python module), whose answer is the rows.
  bool keep_rows = false;
  Format format = Format::JSONL;
  bool trajectories = false;  // one row per lineage stretch with every version
  bool all_pairs = false;     // every improving pair of a stretch, not only the new bests
  bool same_epoch = false;    // stretches cut at harness epoch changes
  double min_speedup = 1;     // pairs (trajectories: first score / best score) below are dropped
  bool significant_only = false;       // --significant: pairs not above the noise dropped
  std::optional<double> max_gap_days;  // pairs: versions further apart dropped; trajectories cut
  LineageOptions lineage;
  std::shared_ptr<const BenchmarkSet> benchmarks;  // --decontaminate, when given
  std::string benchmarks_path;
  // Which rows of the load are versions (--user, --since, --until); every loaded row feeds the
  // noise estimates.
  dataset::Filter versions;
  int threads = 1;  // at least 1 (the command line decides: cli/threads.h)
  // Provenance: in the Parquet metadata and the card.
  std::string command_line;
  std::string data_label;              // the data folder, as named
  std::vector<std::string> selection;  // the options that chose the rows, as given
  std::optional<std::string> license;  // the data set's (its card's), when known
  std::vector<SourceFile> sources;     // the files read
  // The leaderboards' task texts (leaderboards.parquet `description`), for chat and preference.
  std::map<int64_t, std::string> descriptions;
  uint64_t flagged_left_out = 0;  // rows the audit flagged, left out (--exclude-flagged)
  std::optional<std::string> flagged_level;
};

struct PairsSummary {
  uint64_t rows = 0;          // rows loaded (they all feed the noise estimates)
  uint64_t versions = 0;      // qualifying rows with code, of the selection
  uint64_t without_code = 0;  // qualifying rows of the selection without code
  uint64_t groups = 0;        // (leaderboard, user, runner) with a version
  uint64_t lineages = 0;
  uint64_t candidates = 0;  // pairs (trajectories) before the filters
  uint64_t dropped_min_speedup = 0;
  uint64_t dropped_max_gap = 0;
  uint64_t dropped_not_significant = 0;  // --significant: not above the noise, or no estimate
  uint64_t dropped_no_change = 0;
  uint64_t dropped_ngram = 0;
  uint64_t dropped_minhash = 0;
  uint64_t written = 0;
  uint64_t significant = 0;           // written pairs whose speedup is significant
  uint64_t significance_unknown = 0;  // written pairs on a series without a noise estimate
  uint64_t bytes = 0;                 // OUT's size
};

// Usage errors of the options, before anything is read: min_speedup below 1 or not finite,
// max_gap_days not positive, link_similarity outside (0, 1], lookback 0, --all-pairs or
// --significant with --trajectories, preference with --trajectories, chat or preference into a
// .parquet name, a format other than OUT's extension implies, an OUT named .json or .csv. Throws
// UsageError.
void check_options(const PairsOptions& options);

// Accumulates a load's rows and writes the output. A load feeding add() sets
// LoadOptions::prepare to prepare() and code_wanted to wants_code, with_code, with_details,
// with_runs and with_results (the noise estimates read legacy runs and results).
class PairsBuilder {
 public:
  // Checks OUT and the card (common/output_target.h) and creates their temporaries and the spill
  // file; nothing appears at either path before finish(). Throws UsageError / IoError.
  explicit PairsBuilder(PairsOptions options);
  ~PairsBuilder();
  PairsBuilder(const PairsBuilder&) = delete;
  PairsBuilder& operator=(const PairsBuilder&) = delete;

  // The code of a row that qualifies with a positive score: its sketch, and for a version its
  // compressed text, kept in s.prepared. Safe to call from several threads at once.
  void prepare(dataset::Submission& s, std::optional<std::string_view> code) const;
  [[nodiscard]] static bool wants_code(const dataset::Submission& s);
  // On the load's thread, in load order.
  void add(dataset::Submission&& s);
  // The lineages, pairs, filters and the output; OUT and then the card committed. Call once.
  // `progress` (may be empty) gets the stages "lineages" (in groups) and "writing" (in rows).
  PairsSummary finish(const ProgressFn& progress);
  // After finish(), with PairsOptions::keep_rows: the rows, as a result table of the columns
  // OUT would have held (docs/pairs.md, "Fields"), the rule its kbdata.rule. Throws
  // std::logic_error otherwise.
  [[nodiscard]] result::ResultTable take_rows();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kbdata::pairs
