// `kbdata place`: where a model's kernel would have ranked among the people who competed on the
// same problem and runner, given its score (query/place.h, docs/evaluation.md): the scores on the
// command line, or a results file of many, with an aggregate per label; in every output format.
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/data_options.h"
#include "query/place.h"

namespace kbdata::cli {

struct PlaceOptions {
  DataOptions data;
  std::optional<std::string> problem;
  std::optional<std::string> runner;
  std::optional<std::string> at;  // --at DATE
  std::optional<int> epoch;
  std::vector<std::string> scores;     // SCORE...
  std::optional<std::string> label;    // --label, for SCORE...
  std::optional<std::string> results;  // --results FILE
  bool aggregate = false;
  std::optional<std::string> exclude_flagged;
  std::string format;
  std::optional<std::string> out;
};

void run_place(const PlaceOptions& options, std::FILE* out, std::FILE* err);

// The scores of a results file (docs/evaluation.md, "Results files"): JSON Lines (one object per
// line) when its name ends in .jsonl or .json, or its first non-blank byte is '{'; else CSV with a
// header line. Fields: problem, runner, score (seconds, or text with a unit: parse_score_text),
// and optionally label and epoch. Throws FormatError naming the file and line for a row kbdata
// cannot read (a bad score, a missing field, an unknown one with the closest name), UsageError
// for a path that is not a regular file, IoError when it cannot be read.
[[nodiscard]] std::vector<query::Placement> read_results_file(const std::string& path);

// Adds `place` to `app`.
void add_place_command(CLI::App& app, Commands& commands);

}  // namespace kbdata::cli
