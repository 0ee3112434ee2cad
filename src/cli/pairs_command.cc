#include "cli/pairs_command.h"

#include <algorithm>
#include <filesystem>
#include <memory>
#include <utility>
#include <vector>

#include "cli/decontaminate_options.h"
#include "cli/embedded.h"
#include "cli/flag_exclusion.h"
#include "cli/progress.h"
#include "cli/summary_text.h"
#include "cli/threads.h"
#include "common/error.h"
#include "common/sha256.h"
#include "dataset/dataset_card.h"
#include "dataset/leaderboards_file.h"
#include "dataset/loader.h"
#include "query/pairs.h"
#include "report/text.h"
#include "result/table.h"

namespace kbdata::cli {
namespace {

namespace fs = std::filesystem;

// The data set's license from the card (README.md) of a local data folder; nullopt without one.
std::optional<std::string> folder_license(const dataset::DataDir& dir) {
  const fs::path card = fs::path(dir.path) / "README.md";
  std::error_code ec;
  if (!fs::is_regular_file(card, ec)) return std::nullopt;  // never a FIFO or a device
  std::unique_ptr<RandomAccessFile> file = LocalFile::open(card.string());
  const uint64_t size = std::min<uint64_t>(file->size(), uint64_t{1} << 20);
  std::string text(size, '\0');
  file->read_at(0, {reinterpret_cast<uint8_t*>(text.data()), text.size()});
  return dataset::card_license(text);
}

// The files the load reads, each with its SHA-256, with progress.
std::vector<pairs::SourceFile> source_files(const dataset::DataDir& dir,
                                            const dataset::Filter& filter, std::FILE* err) {
  std::vector<pairs::SourceFile> out;
  const std::vector<const dataset::DataFile*> files = dataset::files_for(dir, filter);
  uint64_t total = 0;
  std::vector<std::unique_ptr<RandomAccessFile>> opened;
  for (const dataset::DataFile* f : files) {
    opened.push_back(dir.open(*f));
    total += opened.back()->size();
  }
  Progress progress(err, "hashing the sources");
  uint64_t done = 0;
  std::vector<uint8_t> buffer(size_t{8} << 20);
  for (size_t i = 0; i < files.size(); ++i) {
    RandomAccessFile& file = *opened[i];
    Sha256 hash;
    const uint64_t size = file.size();
    for (uint64_t at = 0; at < size;) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(buffer.size(), size - at));
      file.read_at(at, {buffer.data(), n});
      hash.update(buffer.data(), n);
      at += n;
      done += n;
      progress.update(done >> 20, "MB", total >> 20);
    }
    out.push_back({files[i]->name, files[i]->num_rows, size, hash.hex_digest()});
  }
  return out;
}

// One stderr line when the filters dropped more than half of the candidates: what dropped them,
// the largest reason first, so that a filter that took most of the data (a benchmark set that
// overlaps everything, say) is seen, not found later in an almost empty file.
std::string most_dropped_warning(const pairs::PairsSummary& s, const PairsCommandOptions& options) {
  const uint64_t dropped = s.candidates - s.written;
  if (s.candidates == 0 || dropped * 2 <= s.candidates) return "";
  std::string set = options.decontaminate ? *options.decontaminate : "";
  std::vector<std::pair<uint64_t, std::string>> reasons = {
      {s.dropped_min_speedup, "below --min-speedup"},
      {s.dropped_max_gap, "beyond --max-gap-days"},
      {s.dropped_not_significant, "not above the noise (--significant)"},
      {s.dropped_no_change, "no real change"},
      {s.dropped_ngram, "n-gram overlap with " + set + " (more than " +
                            report::double_text(options.decontamination.ngram_share) +
                            " of a code's " + std::to_string(options.decontamination.ngram) +
                            "-grams; --ngram-share)"},
      {s.dropped_minhash, "a MinHash near-copy of an item of " + set +
                              " (--decontaminate-threshold " +
                              report::double_text(options.decontamination.threshold) + ")"}};
  std::stable_sort(reasons.begin(), reasons.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string text;
  for (const auto& [n, why] : reasons) {
    if (n > 0) text += (text.empty() ? ": " : ", ") + std::to_string(n) + " " + why;
  }
  const char* unit = options.trajectories ? "trajectories" : "pairs";
  return "kbdata: warning: " + std::to_string(dropped) + " of " + std::to_string(s.candidates) +
         " candidate " + unit + " dropped (" +
         std::to_string((dropped * 100 + s.candidates / 2) / s.candidates) + "%)" + text + "\n";
}

// The summary for people: a line per count the run made (those of no use hidden when zero), then
// (`with_files`) the output and its card.
std::string pairs_summary_text(result::ResultTable& summary, bool with_files) {
  const SummaryRow row(summary);
  constexpr size_t kWidth = 34;
  const std::string unit = row.text("kind").value_or("pairs");
  std::string text;
  const auto line = [&](const std::string& label, const char* column, bool unless_zero = false) {
    const std::optional<int64_t> n = row.count(column);
    if (n && !(unless_zero && *n == 0)) text += summary_line(label, kWidth, std::to_string(*n));
  };
  line("rows read", "rows");
  line("versions", "versions");
  line("qualifying rows without code", "without_code", /*unless_zero=*/true);
  line("lineages", "lineages");
  line("candidate " + unit, "candidates");
  line("dropped: below --min-speedup", "dropped_min_speedup");
  line("dropped: beyond --max-gap-days", "dropped_max_gap");
  line("dropped: not above the noise", "dropped_not_significant");
  line("dropped: no real change", "dropped_no_change");
  line("dropped: n-gram overlap", "dropped_ngram");
  line("dropped: MinHash near-copy", "dropped_minhash");
  line(unit + " written", "written");
  line("significant (above the noise)", "significant");
  line("without a noise estimate", "significance_unknown", /*unless_zero=*/true);
  if (!with_files) return text;
  text += summary_line(
      "out", kWidth,
      row.text("out").value_or("") + " (" +
          dataset::megabytes(static_cast<uint64_t>(row.count("bytes").value_or(0))) + ")");
  text += summary_line("card", kWidth, row.text("card").value_or(""));
  return text;
}

// The builder's options that the flags give (no data read yet): the output, the rules, the
// versions chosen and the selection the card names, the decontamination set.
pairs::PairsOptions pairs_options(const PairsCommandOptions& options, const std::string& card) {
  pairs::PairsOptions p;
  // Embedded (the Python module): the rows are the answer, handed over as a result table; no
  // file is written.
  p.keep_rows = embedded_run() != nullptr;
  if (options.out.empty() && !p.keep_rows) {
    throw UsageError("--out FILE is required: where the rows go (.jsonl or .parquet)");
  }
  p.out = options.out;
  p.card = card;
  if (options.format) {
    p.format = pairs::parse_format(*options.format);
  } else {
    p.format = pairs::format_of_name(options.out).value_or(pairs::Format::JSONL);
  }
  p.trajectories = options.trajectories;
  p.all_pairs = options.all_pairs;
  p.same_epoch = options.same_epoch;
  p.min_speedup = options.min_speedup;
  p.significant_only = options.significant;
  p.max_gap_days = options.max_gap_days;
  p.lineage.link_similarity = options.link_similarity;
  p.lineage.lookback = options.lookback;
  p.threads = command_threads(options.data.threads);
  p.command_line = invoked_command_line();
  pairs::check_options(p);

  // The user and the time range choose the versions.
  p.versions.user = options.rows.user;
  set_time_range(p.versions, options.rows.since, options.rows.until);
  for (const auto& [flag, value] :
       {std::pair<const char*, std::optional<std::string>>{"--problem", options.rows.problem},
        {"--leaderboard", options.leaderboard
                              ? std::optional<std::string>(std::to_string(*options.leaderboard))
                              : std::nullopt},
        {"--runner", options.rows.runner},
        {"--user", options.rows.user},
        {"--since", options.rows.since},
        {"--until", options.rows.until}}) {
    if (value) p.selection.push_back(std::string(flag) + " " + *value);
  }

  const std::shared_ptr<const pairs::BenchmarkSet> benchmarks =
      load_decontamination_set(options.decontaminate, options.decontamination);
  if (benchmarks) {
    p.benchmarks = benchmarks;
    p.benchmarks_path = *options.decontaminate;
  }
  return p;
}

}  // namespace

void run_pairs(const PairsCommandOptions& options, std::FILE* out, std::FILE* err) {
  // Named after OUT, so that two outputs in one folder never share (and replace) one card.
  const std::string card = options.card.value_or(pairs::default_card_path(options.out));
  pairs::PairsOptions p = pairs_options(options, card);

  // The load reads whole series (leaderboard, runner): they all feed the noise estimates.
  dataset::LoadOptions load;
  load.threads = command_threads(options.data.threads);
  load.filter.problem = options.rows.problem;
  load.filter.leaderboard_id = options.leaderboard;
  load.filter.runner = options.rows.runner;

  const dataset::DataDir dir = open_data_dir(options.data, err);
  resolve_filter(dir, load.filter);
  p.data_label = dir.path;
  p.license = folder_license(dir);
  for (const dataset::DataFile* f : dataset::leaderboards_files(dir)) {
    for (const dataset::LeaderboardEntry& e : dataset::read_leaderboards(dir, *f)) {
      if (e.id && e.description) p.descriptions.emplace(*e.id, *e.description);
    }
  }
  if (options.exclude_flagged) {
    exclude_flagged(options.exclude_flagged, dir, load, err);
    p.flagged_level = *options.exclude_flagged == "cheat" ? "cheat" : "suspicious";
    p.flagged_left_out = load.filter.excluded ? load.filter.excluded->size() : 0;
  }
  p.sources = source_files(dir, load.filter, err);

  const bool keep_rows = p.keep_rows;
  pairs::PairsBuilder builder(std::move(p));
  load.with_code = true;
  load.with_details = true;
  load.with_runs = true;     // legacy: the noise's secret runs
  load.with_results = true;  // legacy: the noise's benchmark errors
  load.prepare = [&builder](dataset::Submission& s, std::optional<std::string_view> code) {
    builder.prepare(s, code);
  };
  load.code_wanted = pairs::PairsBuilder::wants_code;
  load_submissions(
      dir, options.data, load, "reading versions",
      [&](dataset::Submission&& s) { builder.add(std::move(s)); }, err);

  Progress progress(err, "pairs");
  const pairs::PairsSummary s = builder.finish(progress.callback());
  progress.finish();
  if (s.versions == 0) {
    report::write_all(err, "kbdata: no qualifying submissions with code" +
                               why_empty(dir, load.filter) + " in " + dir.path + "\n");
  }

  result::ResultTable summary =
      query::pairs_summary(s, {.trajectories = options.trajectories,
                               .significant = options.significant,
                               .decontaminate = options.decontaminate.has_value(),
                               .out = options.out,
                               .card = card});
  report::write_all(err, most_dropped_warning(s, options));
  if (keep_rows) {
    // The rows, with the counts as the table's summary lines.
    result::ResultTable rows = builder.take_rows();
    const std::string text = pairs_summary_text(summary, /*with_files=*/false);
    for (size_t at = 0; at < text.size();) {
      const size_t end = std::min(text.find('\n', at), text.size());
      rows.summary(text.substr(at, end - at));
      at = end + 1;
    }
    (void)hand_over(std::move(rows));
    return;
  }
  report::write_all(out, pairs_summary_text(summary, /*with_files=*/true));
}

void add_pairs_command(CLI::App& app, Commands& commands) {
  auto options = std::make_shared<PairsCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "pairs",
      "Training data: per user, problem and runner, the kernel's lineages (split where the code\n"
      "is rewritten), their (slower, faster) pairs of new bests with both codes, the speedup, a\n"
      "unified diff and its significance against the measured noise, or whole trajectories;\n"
      "filtered, decontaminated, with a card (docs/pairs.md)");
  add_data_options(*cmd, options->data);
  add_row_selection_options(*cmd, options->rows);
  cmd->add_option("--leaderboard", options->leaderboard, "Only this leaderboard id");
  // Required on the command line (run_pairs says so); embedded, the rows are the answer.
  cmd->add_option("--out,-o", options->out, "File to write (.jsonl or .parquet); required");
  cmd->add_option("--format,-f", options->format,
                  "jsonl, parquet, chat (messages) or preference (prompt, chosen, rejected); "
                  "default: from --out's name, else jsonl");
  cmd->add_option("--card", options->card,
                  "Where the card goes (default: OUT.card.md, named after --out)");
  cmd->add_flag("--trajectories", options->trajectories,
                "One row per lineage with every version, instead of pairs");
  cmd->add_flag("--all-pairs", options->all_pairs,
                "Every improving pair of a lineage, not only each new best with the best before");
  cmd->add_flag("--significant", options->significant,
                "Only pairs whose speedup stands above the measured noise (significant true)");
  cmd->add_flag("--same-epoch", options->same_epoch,
                "Never compare scores across a change of the harness (lineages cut there)");
  cmd->add_option("--min-speedup", options->min_speedup,
                  "Drop pairs whose baseline/improved score ratio is below this")
      ->capture_default_str();
  cmd->add_option("--max-gap-days", options->max_gap_days,
                  "Drop pairs whose versions are more days apart (trajectories: cut there)");
  cmd->add_option("--link-similarity", options->link_similarity,
                  "Estimated Jaccard similarity (5-byte shingles) at or above which a version "
                  "continues a lineage")
      ->capture_default_str();
  cmd->add_option("--lookback", options->lookback,
                  "Lineages (the most recently continued) a version is compared with")
      ->capture_default_str();
  add_exclude_flagged_option(*cmd, options->exclude_flagged);
  add_decontaminate_options(*cmd, options->decontaminate, options->decontamination,
                            "Drop rows whose code overlaps this benchmark set: a folder of files, "
                            "a file, or a Parquet file's code column");
  cmd->footer(
      "\nExamples:\n"
      "  kbdata pairs --out pairs.jsonl\n"
      "  kbdata pairs -p nvfp4_gemm --out gemm-pairs.parquet --exclude-flagged --same-epoch\n"
      "  kbdata pairs --out chat.jsonl --format chat --significant\n"
      "  kbdata pairs --out dpo.jsonl --format preference --max-gap-days 7\n"
      "  kbdata pairs --out trajectories.jsonl --trajectories\n"
      "  kbdata pairs --out clean.jsonl --decontaminate data/sample/leaderboards.parquet \\\n"
      "      --decontaminate-column reference\n"
      "\nExit status: 0 success, 1 the input could not be read or the output written, 2 wrong "
      "usage.");
  commands.push_back({cmd, [options] { run_pairs(*options, stdout, stderr); }});
}

}  // namespace kbdata::cli
