// --decontaminate PATH and the options that tune it (--decontaminate-column, --ngram,
// --ngram-share, --decontaminate-threshold), as pairs and tasks share them: a training or
// benchmark set read once (pairs/decontaminate.h), against which codes are checked.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "cli/command.h"
#include "pairs/decontaminate.h"

namespace kbdata::cli {

// Adds the options to `cmd`; `what` is --decontaminate's help text.
void add_decontaminate_options(CLI::App& cmd, std::optional<std::string>& path,
                               pairs::DecontaminationOptions& options, const std::string& what);

// The set at `path` (BenchmarkSet::load), or null without one. Throws UsageError when a tuning
// option is given without --decontaminate, and as BenchmarkSet::load throws.
[[nodiscard]] std::shared_ptr<const pairs::BenchmarkSet> load_decontamination_set(
    const std::optional<std::string>& path, const pairs::DecontaminationOptions& options);

}  // namespace kbdata::cli
