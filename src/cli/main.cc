// kbdata's command line: parses arguments, runs a command, and turns errors into one-line
// messages and exit codes (0 success, 1 failed on the input, 2 wrong usage).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>

#include "cli/cat_command.h"
#include "cli/inspect_command.h"
#include "common/error.h"

namespace {

constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "kbdata: the KernelBot GPU-kernel competition data, read from and written to Parquet.\n"
      "Run 'kbdata COMMAND --help' for a command's options."};
  app.name("kbdata");
  app.require_subcommand(1, 1);
  app.set_version_flag("--version", "kbdata 0.1.0");
  app.footer(
      "\nExamples:\n"
      "  kbdata inspect submissions.parquet\n"
      "  kbdata cat submissions.parquet --columns problem_name,user_name,score --limit 10 "
      "--format table\n"
      "  kbdata cat submissions.parquet --offset 1000 --limit 100 --format csv > rows.csv\n"
      "  kbdata cat submissions.parquet --where 'score < 0.5' --where 'user_name = alice'\n"
      "\nExit status: 0 success, 1 the input could not be read, 2 wrong usage.");

  kbdata::cli::InspectOptions inspect;
  CLI::App* inspect_cmd = app.add_subcommand(
      "inspect", "Describe a Parquet file: schema, row groups, column chunks, statistics");
  inspect_cmd->add_option("FILE", inspect.path, "Parquet file")->required();
  inspect_cmd->add_flag("--json", inspect.json, "Print the description as JSON");
  inspect_cmd->add_flag("--pages", inspect.pages,
                        "Also print each column chunk's pages from its page index");

  kbdata::cli::CatOptions cat;
  std::string format = "jsonl";
  CLI::App* cat_cmd = app.add_subcommand("cat", "Print the rows of a Parquet file");
  cat_cmd->add_option("FILE", cat.path, "Parquet file")->required();
  cat_cmd->add_option("--columns,-c", cat.columns,
                      "Columns to print, comma-separated, in this order (default: all)")
      ->delimiter(',');
  cat_cmd->add_option("--limit,-n", cat.limit, "Print at most N rows")
      ->check(CLI::NonNegativeNumber);
  cat_cmd->add_option("--offset", cat.offset, "Skip the first N rows")
      ->check(CLI::NonNegativeNumber);
  cat_cmd->add_option("--format,-f", format, "Output format")
      ->check(CLI::IsMember({"jsonl", "csv", "table"}))
      ->capture_default_str();
  cat_cmd->add_option("--where,-w", cat.where,
                      "Print only rows where COL OP VALUE holds (OP: = != < <= > >=), or "
                      "'COL is null' / 'COL is not null'; repeatable, all must hold")
      ->allow_extra_args(false);
  cat_cmd->add_flag("--verify-checksums", cat.verify_checksums,
                    "Check the CRC of every page that has one; a mismatch is an error");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "kbdata: %s\nRun 'kbdata --help' for usage.\n", e.what());
    return kExitUsage;
  }

  try {
    if (inspect_cmd->parsed()) {
      kbdata::cli::run_inspect(inspect, stdout);
    } else if (cat_cmd->parsed()) {
      cat.format = format == "csv"     ? kbdata::tabular::Format::CSV
                   : format == "table" ? kbdata::tabular::Format::TABLE
                                       : kbdata::tabular::Format::JSONL;
      kbdata::cli::run_cat(cat, stdout);
    }
  } catch (const kbdata::UsageError& e) {
    std::fprintf(stderr, "kbdata: %s\n", e.what());
    return kExitUsage;
  } catch (const kbdata::Error& e) {
    std::fprintf(stderr, "kbdata: %s\n", e.what());
    return kExitFailure;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "kbdata: out of memory\n");
    return kExitFailure;
  }
  return 0;
}
