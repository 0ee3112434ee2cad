#include "cli/command.h"

#include <string>
#include <utility>

#include "cli/data_options.h"
#include "cli/threads.h"

namespace kbdata::cli {
namespace {

std::string& command_line_storage() {
  static std::string line = "kbdata";
  return line;
}

}  // namespace

const std::string& invoked_command_line() { return command_line_storage(); }

void set_invoked_command_line(std::string line) { command_line_storage() = std::move(line); }

void add_data_options(CLI::App& cmd, DataOptions& data) {
  cmd.add_option("--data", data.data,
                 "Data folder of config files, or hf://datasets/OWNER/NAME[@REV] (read from the "
                 "hub's cache or remotely; needs the network) (default: $KBDATA_DATA, else the "
                 "bundled sample)");
  cmd.add_flag("--verbose,-v", data.verbose,
               "Report files, row groups read and pruned, bytes read and code repairs on stderr "
               "(and, for hf://, the hub's requests and bytes fetched)");
  cmd.add_flag("--skip-bad", data.skip_bad,
               "Read the folder without the *.parquet files whose footer or schema cannot be read "
               "(each named in a warning); without it such a file is an error. A page found "
               "damaged later is an error either way");
  add_threads_option(cmd, data.threads);
}

void add_threads_option(CLI::App& cmd, std::optional<int>& threads) {
  cmd.add_option("--threads", threads,
                 "Threads reading and decoding (default: $KBDATA_THREADS, else every core: "
                 "docs/cli.md, \"Threads\"); the output is the same whatever the threads")
      ->check(CLI::Range(1, kMaxThreads));
}

void add_format_options(CLI::App& cmd, std::string& format, std::optional<std::string>& out) {
  cmd.add_option("--format,-f", format,
                 "Output format: table (scores as µs/ms/s), csv, json, jsonl, parquet (scores in "
                 "seconds) (default: what --out's name says, else table)")
      ->check(CLI::IsMember({"table", "csv", "json", "jsonl", "parquet"}));
  cmd.add_option("--out,-o", out,
                 "Write to this file instead of stdout, in any format, atomically (.parquet, "
                 ".csv, .json, .jsonl/.ndjson name their format; parquet needs a file)");
}

}  // namespace kbdata::cli
