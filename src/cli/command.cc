#include "cli/command.h"

#include "cli/submission_output.h"

namespace kbdata::cli {

void add_data_options(CLI::App& cmd, DataOptions& data) {
  cmd.add_option("--data", data.data,
                 "Data folder of config files (default: $KBDATA_DATA, else the bundled sample)");
  cmd.add_flag("--verbose,-v", data.verbose,
               "Report files, row groups read and pruned, bytes read and code repairs on stderr");
  cmd.add_flag("--skip-bad", data.skip_bad,
               "Read the folder without its unreadable *.parquet files (each named in a warning); "
               "without it an unreadable file is an error");
}

void add_format_options(CLI::App& cmd, std::string& format, std::optional<std::string>& out) {
  cmd.add_option("--format,-f", format,
                 "Output format: table (scores as µs/ms/s), csv, json, jsonl, parquet (scores in "
                 "seconds)")
      ->check(CLI::IsMember({"table", "csv", "json", "jsonl", "parquet"}))
      ->capture_default_str();
  cmd.add_option("--out,-o", out, "Output file for --format parquet (written atomically)");
}

}  // namespace kbdata::cli
