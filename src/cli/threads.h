// The thread count, decided once per command line here and passed down as a positive count: the
// libraries (the loader, the scans, the writer, dedup, pairs, export) never read the environment.
// docs/cli.md, "Threads", is the one description of the rule.
#pragma once

#include <optional>

namespace kbdata::cli {

// --threads N takes 1 to kMaxThreads; so does $KBDATA_THREADS.
inline constexpr int kMaxThreads = 256;

// Decides the run's default from $KBDATA_THREADS when it is set, else the machine's cores. Called
// once per command line (run_command_line, run_embedded) before any work. Throws UsageError for a
// $KBDATA_THREADS that is not an integer from 1 to kMaxThreads.
void resolve_default_threads();

// The threads of a command: `flag` (--threads) when given, else the run's default.
[[nodiscard]] int command_threads(std::optional<int> flag);

}  // namespace kbdata::cli
