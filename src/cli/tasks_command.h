// `kbdata tasks`: the evaluation tasks of a data folder, one per (leaderboard, runner), with the
// human distribution a model's kernel is measured against, the harness epochs and their noise,
// chosen by date and decontaminated against a training set (query/tasks.h, docs/evaluation.md),
// in every output format; with --out, a card beside the file says how they were chosen.
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/data_options.h"
#include "pairs/decontaminate.h"

namespace kbdata::cli {

struct TasksOptions {
  DataOptions data;
  std::vector<std::string> problems;  // -p, repeatable
  std::optional<std::string> runner;
  std::optional<std::string> after;          // --after DATE
  std::optional<std::string> decontaminate;  // --decontaminate PATH
  pairs::DecontaminationOptions decontamination;
  std::optional<std::string> exclude_flagged;
  std::string format;
  std::optional<std::string> out;
};

void run_tasks(const TasksOptions& options, std::FILE* out, std::FILE* err);

// Adds `tasks` to `app`.
void add_tasks_command(CLI::App& app, Commands& commands);

}  // namespace kbdata::cli
