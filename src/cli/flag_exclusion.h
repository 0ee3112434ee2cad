// --exclude-flagged[=cheat|suspicious] of top, records, fastest, extract, dedup, techniques and
// pairs: the rows kbdata audit flags left out of the load, before anything is ranked, grouped or
// written (docs/audit.md, "Leaving flagged rows out").
#pragma once

#include <cstdio>
#include <optional>
#include <string>

#include "cli/command.h"
#include "dataset/data_dir.h"
#include "dataset/loader.h"

namespace kbdata::cli {

// Adds --exclude-flagged to `cmd`: alone it means `cheat` (the rows the audit calls cheats),
// `--exclude-flagged=suspicious` leaves out every flagged row (suspicious and cheat).
void add_exclude_flagged_option(CLI::App& cmd, std::optional<std::string>& level);

// When `level` is set: audits the rows `load` selects (the verdicts of kbdata audit, over the
// same leaderboards), with progress on a terminal, sets load.filter.excluded to the rows at that
// verdict or worse and says on `err` how many rows that leaves out and whose best rows they were
// (so that a leader left out is seen). Throws UsageError for a level other than cheat or
// suspicious (naming the closest).
void exclude_flagged(const std::optional<std::string>& level, const dataset::DataDir& dir,
                     dataset::LoadOptions& load, std::FILE* err);

}  // namespace kbdata::cli
