// How a command joins the command line, the one way: its file's add_X_command adds the
// subcommand (options, help, examples) to the app and appends what runs it once the arguments
// are parsed; commands.cc lists the commands in the order `kbdata --help` shows them.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace kbdata::cli {

struct Command {
  CLI::App* app;              // the subcommand
  std::function<void()> run;  // called when it was parsed; throws kbdata errors
};

using Commands = std::vector<Command>;

struct DataOptions;

// --data, --verbose, --skip-bad and --threads, as every data command has them.
void add_data_options(CLI::App& cmd, DataOptions& data);

// --threads N (1 to kMaxThreads), for every command that reads Parquet.
void add_threads_option(CLI::App& cmd, std::optional<int>& threads);

// --format table|csv|json|jsonl|parquet and --out FILE (any format; docs/cli.md, "Output files"):
// `format` is left "" when --format is not given, for report::output_format to decide.
void add_format_options(CLI::App& cmd, std::string& format, std::optional<std::string>& out);

// Adds every command to `app` (commands.cc).
void add_all_commands(CLI::App& app, Commands& commands);

// The command line as typed ("kbdata" and the arguments, space-separated), which commands record
// in the provenance of files they write (kbdata.command); set by run_command_line (cli/app.h).
[[nodiscard]] const std::string& invoked_command_line();
void set_invoked_command_line(std::string line);

}  // namespace kbdata::cli
