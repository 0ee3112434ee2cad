#include "cli/place_command.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <variant>

#include "cli/embedded.h"
#include "cli/filter_checks.h"
#include "cli/flag_exclusion.h"
#include "cli/threads.h"
#include "common/closest_name.h"
#include "common/error.h"
#include "common/file.h"
#include "dataset/filter.h"
#include "dataset/hardware.h"
#include "dataset/leaderboards_file.h"
#include "dataset/loader.h"
#include "report/writer.h"

namespace kbdata::cli {
namespace {

// A results file larger than this is not a list of model scores.
constexpr uint64_t kMaxResultsBytes = uint64_t{256} << 20;

const std::vector<std::string>& results_fields() {
  static const std::vector<std::string> fields = {"problem", "runner", "score", "label", "epoch"};
  return fields;
}

// One CSV record of one line (RFC 4180 quoting within the line); nullopt for an unbalanced quote.
std::optional<std::vector<std::string>> csv_fields(std::string_view line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        out.back() += c;
      }
    } else if (c == '"' && out.back().empty()) {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  if (quoted) return std::nullopt;
  return out;
}

// A placement from its fields by name; throws FormatError at `where`.
query::Placement placement_of(const std::map<std::string, std::optional<std::string>>& fields,
                              const std::optional<double>& numeric_score,
                              const std::string& where) {
  query::Placement p;
  for (const char* required : {"problem", "runner", "score"}) {
    const auto f = fields.find(required);
    if (f == fields.end() || !f->second || dataset::trim_blanks(*f->second).empty()) {
      if (std::string(required) == "score" && numeric_score) continue;
      throw FormatError(where + ": no " + required + " (each row needs problem, runner, score)");
    }
  }
  p.problem = std::string(dataset::trim_blanks(*fields.at("problem")));
  p.runner = std::string(dataset::trim_blanks(*fields.at("runner")));
  if (numeric_score) {
    if (!dataset::valid_score(*numeric_score)) {
      throw FormatError(where + ": " +
                        query::score_text_error(report::double_text(*numeric_score)));
    }
    p.score = *numeric_score;
  } else {
    const std::optional<double> score = query::parse_score_text(*fields.at("score"));
    if (!score) throw FormatError(where + ": " + query::score_text_error(*fields.at("score")));
    p.score = *score;
  }
  if (const auto l = fields.find("label"); l != fields.end() && l->second && !l->second->empty()) {
    p.label = *l->second;
  }
  if (const auto e = fields.find("epoch"); e != fields.end() && e->second) {
    const std::string_view text = dataset::trim_blanks(*e->second);
    if (!text.empty()) {
      int epoch = -1;
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), epoch);
      if (ec != std::errc() || end != text.data() + text.size() || epoch < 0) {
        throw FormatError(where + ": epoch '" + report::terminal_text(*e->second, false) +
                          "': not a harness epoch (0, 1, 2, ...)");
      }
      p.epoch = epoch;
    }
  }
  return p;
}

void check_field_name(const std::string& name, const std::string& where) {
  const std::vector<std::string>& known = results_fields();
  if (std::find(known.begin(), known.end(), name) != known.end()) return;
  throw FormatError(where + ": unknown field '" + report::terminal_text(name, false) + "'" +
                    did_you_mean(name, known) + " (fields: problem, runner, score, label, epoch)");
}

std::vector<query::Placement> read_results_jsonl(const std::string& path,
                                                 const std::vector<std::string>& lines) {
  std::vector<query::Placement> out;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (dataset::trim_blanks(lines[i]).empty()) continue;
    const std::string where = path + ":" + std::to_string(i + 1);
    nlohmann::json row;
    try {
      row = nlohmann::json::parse(lines[i]);
    } catch (const nlohmann::json::exception&) {
      throw FormatError(where + ": not a JSON object (JSON Lines: one object per line)");
    }
    if (!row.is_object()) throw FormatError(where + ": not a JSON object");
    std::map<std::string, std::optional<std::string>> fields;
    std::optional<double> numeric_score;
    for (const auto& [key, value] : row.items()) {
      check_field_name(key, where);
      if (value.is_null()) {
        fields[key] = std::nullopt;
      } else if (value.is_string()) {
        fields[key] = value.get<std::string>();
      } else if (key == "score" && value.is_number()) {
        numeric_score = value.get<double>();
      } else if (key == "epoch" && value.is_number_integer()) {
        fields[key] = std::to_string(value.get<int64_t>());
      } else {
        throw FormatError(where + ": field '" + key + "' is " + std::string(value.type_name()) +
                          ": " + report::terminal_text(value.dump(), false));
      }
    }
    out.push_back(placement_of(fields, numeric_score, where));
  }
  return out;
}

std::vector<query::Placement> read_results_csv(const std::string& path,
                                               const std::vector<std::string>& lines) {
  std::vector<query::Placement> out;
  std::vector<std::string> header;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (dataset::trim_blanks(line).empty()) continue;
    const std::string where = path + ":" + std::to_string(i + 1);
    std::optional<std::vector<std::string>> values = csv_fields(line);
    if (!values) throw FormatError(where + ": a quote is not closed on its line");
    if (header.empty()) {
      for (std::string& name : *values) {
        name = std::string(dataset::trim_blanks(name));
        check_field_name(name, where);
      }
      header = std::move(*values);
      continue;
    }
    if (values->size() != header.size()) {
      throw FormatError(where + ": " + std::to_string(values->size()) + " fields, the header has " +
                        std::to_string(header.size()));
    }
    std::map<std::string, std::optional<std::string>> fields;
    for (size_t c = 0; c < header.size(); ++c) fields[header[c]] = (*values)[c];
    out.push_back(placement_of(fields, std::nullopt, where));
  }
  if (header.empty()) throw FormatError(path + ": no header line (problem,runner,score[,label])");
  return out;
}

// The table for people: what a reader compares (the machine formats carry every column).
const std::vector<std::string>& place_people_names() {
  static const std::vector<std::string> names = {
      "label",         "problem_name",  "runner",     "score",      "epoch",
      "users",         "rank",          "rank_best",  "rank_worst", "percentile",
      "factor_record", "factor_median", "p_faster_1", "refused"};
  return names;
}

std::string share_text(const report::Cell& share, const report::Cell& of) {
  if (!std::holds_alternative<double>(share)) return "n/a";
  return report::double_text(std::round(std::get<double>(share) * 1000) / 10) + "% of " +
         std::to_string(std::get<int64_t>(of));
}

}  // namespace

std::vector<query::Placement> read_results_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw UsageError("--results " + path + ": not a regular file");
  }
  const std::unique_ptr<LocalFile> file = LocalFile::open(path);
  if (file->size() > kMaxResultsBytes) {
    throw UsageError("--results " + path + ": " + std::to_string(file->size()) +
                     " bytes; a results file holds at most " + std::to_string(kMaxResultsBytes) +
                     " (one row per model kernel)");
  }
  std::string text(file->size(), '\0');
  file->read_at(0, {reinterpret_cast<uint8_t*>(text.data()), text.size()});
  std::vector<std::string> lines;
  for (size_t at = 0; at <= text.size();) {
    const size_t end = std::min(text.find('\n', at), text.size());
    lines.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  const std::string name = std::filesystem::path(path).filename().string();
  const size_t first = text.find_first_not_of(" \t\r\n");
  const bool jsonl = name.ends_with(".jsonl") || name.ends_with(".json") ||
                     (first != std::string::npos && text[first] == '{');
  std::vector<query::Placement> out =
      jsonl ? read_results_jsonl(path, lines) : read_results_csv(path, lines);
  if (out.empty()) throw FormatError(path + ": no scores");
  return out;
}

void run_place(const PlaceOptions& options, std::FILE* out, std::FILE* err) {
  std::vector<query::Placement> placements;
  if (options.results) {
    if (!options.scores.empty()) throw UsageError("give SCORE... or --results FILE, not both");
    if (options.problem || options.runner || options.label) {
      throw UsageError(
          "--results FILE names the problem, runner and label of each score: -p, --runner and "
          "--label go with SCORE...");
    }
  } else {
    if (options.scores.empty()) throw UsageError("place needs SCORE... or --results FILE");
    if (!options.problem || !options.runner) {
      throw UsageError("place SCORE... needs --problem NAME and --runner RUNNER");
    }
    for (const std::string& text : options.scores) {
      const std::optional<double> score = query::parse_score_text(text);
      if (!score) throw UsageError(query::score_text_error(text));
      placements.push_back({*options.problem, *options.runner, *score, options.label, {}});
    }
  }
  if (options.epoch && *options.epoch < 0) {
    throw UsageError("--epoch " + std::to_string(*options.epoch) +
                     ": epochs are 0 (before the first change), 1, 2, ...");
  }
  query::PlaceRequest request;
  if (options.at) request.at = dataset::parse_utc_time(*options.at, "--at");
  request.epoch = options.epoch;
  const report::Format format = report::output_format(options.format, options.out);
  if (options.results) placements = read_results_file(*options.results);

  const dataset::DataDir dir = open_data_dir(options.data, err);
  const std::vector<report::Column> columns =
      options.aggregate ? query::place_aggregate_columns() : query::place_columns();
  const result::Projection people(query::place_columns(), place_people_names());
  const bool narrow = format == report::Format::TABLE && !options.aggregate;
  report::Writer writer(format, narrow ? people.columns() : columns, out, err, options.out,
                        options.aggregate ? query::kPlaceAggregateRule : query::kPlaceRule,
                        command_threads(options.data.threads));
  for (const dataset::DataFile* f : dataset::leaderboards_files(dir)) {
    for (const dataset::LeaderboardEntry& e : dataset::read_leaderboards(dir, *f)) {
      if (e.id && e.deadline) request.deadlines.emplace(*e.id, *e.deadline);
    }
  }

  // The qualifying candidates of every problem (a problem the data lacks is data: nothing ranks
  // there), of the one runner asked on the command line.
  dataset::LoadOptions load;
  load.threads = command_threads(options.data.threads);
  load.filter.runner = options.runner;
  load.filter.scored_only = true;  // as place_scores reads: what --exclude-flagged audits
  load.filter.passed_only = true;
  resolve_filter(dir, load.filter);
  exclude_flagged(options.exclude_flagged, dir, load, err);
  query::PlaceQuery place(std::move(request), std::move(placements));
  result::ResultTable answer =
      query::place_scores(place, dir, load, query_loader(dir, options.data, err));
  if (options.aggregate) {
    result::ResultTable by_label = place.aggregate();
    if (!hand_over(by_label)) writer.write(by_label);
  } else if (narrow) {
    if (options.results) {
      result::ResultTable by_label = place.aggregate();
      by_label.visit([](const std::string&) {},
                     [&](std::vector<report::Cell>&& c, const result::ResultTable::Leaderboard*) {
                       const auto* label = std::get_if<std::string>(&c[0]);
                       std::string line = (label ? *label : std::string("(no label)")) + ": " +
                                          std::to_string(std::get<int64_t>(c[1])) + " placed";
                       line += "; faster than the median human in " + share_text(c[2], c[3]);
                       line += ", than the 10th in " + share_text(c[4], c[5]);
                       line += ", than the record in " + share_text(c[6], c[7]);
                       if (const auto* g = std::get_if<double>(&c[8])) {
                         line += "; geometric mean factor against the median ×" +
                                 report::double_text(std::round(*g * 100) / 100);
                       }
                       answer.summary(line);
                     });
    }
    result::ResultTable shown = people.table(answer);
    writer.write(shown);
  } else {
    if (!hand_over(answer)) writer.write(answer);
  }
  writer.finish();
}

void add_place_command(CLI::App& app, Commands& commands) {
  auto options = std::make_shared<PlaceOptions>();
  CLI::App* cmd = app.add_subcommand(
      "place",
      "Where a model's kernel would have ranked among the humans of the same problem and runner, "
      "given its score: rank (SQL RANK()), percentile, factors against the record and the median, "
      "a rank interval from the noise (docs/evaluation.md)");
  add_data_options(*cmd, options->data);
  cmd->add_option("scores", options->scores,
                  "Scores to place: seconds, or with a unit (15us, 0.015ms, 1.5e-05)");
  cmd->add_option("--problem,-p", options->problem, "The problem (leaderboard) name");
  cmd->add_option("--runner", options->runner, "The runner the score was measured on, e.g. B200");
  cmd->add_option("--label", options->label, "A label for the scores (the model's name)");
  cmd->add_option("--results", options->results,
                  "A file of scores instead: JSON Lines or CSV with problem, runner, score and "
                  "optionally label and epoch");
  cmd->add_option("--at", options->at,
                  "Compare with the users' bests as of this UTC time (default: the leaderboard's "
                  "deadline, else its last submission)");
  cmd->add_option("--epoch", options->epoch,
                  "The harness epoch the scores were measured in (default: the one in force at "
                  "--at); humans of other epochs are not compared");
  cmd->add_flag("--aggregate", options->aggregate,
                "One row per label: the shares of tasks beating the median, the 10th and the "
                "record, and the geometric mean factor against the median");
  add_exclude_flagged_option(*cmd, options->exclude_flagged);
  add_format_options(*cmd, options->format, options->out);
  cmd->footer(
      "\nA score is compared with the users' best qualifying scores (scored, passed, not hacked)\n"
      "of its problem and runner in one harness epoch; an equal score shares the rank. A results\n"
      "file (--results) is JSON Lines or CSV with the fields problem, runner, score and "
      "optionally\n"
      "label and epoch, one row per model kernel (docs/evaluation.md).\n"
      "\nExamples:\n"
      "  kbdata place -p nvfp4_gemm --runner NVIDIA 20us 1.2e-05\n"
      "  kbdata place -p trimul --runner H100 --at 2025-09-01 --label my-model 3ms\n"
      "  kbdata place -p nvfp4_dual_gemm --runner NVIDIA --epoch 4 30us -f json\n"
      "\nExit status: 0 success (a score that cannot be placed says why in `refused`), 1 the\n"
      "input could not be read, 2 wrong usage.");
  commands.push_back({cmd, [options] { run_place(*options, command_out(), command_err()); }});
}

}  // namespace kbdata::cli
