// How a command joins the command line: a function adds its subcommand (options, help) to the
// app and returns what runs it once the arguments are parsed. main.cc lists the commands; each
// command's file owns its options.
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

// --format table|csv|json|jsonl|parquet (default table) and --out FILE (for parquet).
void add_format_options(CLI::App& cmd, std::string& format, std::optional<std::string>& out);

// Adds `kbdata pull` (pull_command.h): declared here so main.cc needs no header of its own for it.
void add_pull_command(CLI::App& app, Commands& commands);

}  // namespace kbdata::cli
