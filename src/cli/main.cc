// kbdata's command line: parses arguments, runs a command, and turns errors into one-line
// messages and exit codes (0 success, 1 failed on the input, 2 wrong usage).
#include <CLI/CLI.hpp>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cli/audit_command.h"
#include "cli/cat_command.h"
#include "cli/command.h"
#include "cli/configs_command.h"
#include "cli/convert_command.h"
#include "cli/dedup_command.h"
#include "cli/export_command.h"
#include "cli/extract_command.h"
#include "cli/fastest_command.h"
#include "cli/inspect_command.h"
#include "cli/progression_command.h"
#include "cli/records_command.h"
#include "cli/show_command.h"
#include "cli/stats_command.h"
#include "cli/submissions_command.h"
#include "cli/synth_command.h"
#include "cli/top_command.h"
#include "common/closest_name.h"
#include "common/error.h"
#include "common/file.h"
#include "common/malloc_tuning.h"
#include "common/thread_pool.h"
#include "common/version.h"

namespace {

constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

// Where a usage error points: the command's help, or the program's.
std::string help_hint(const CLI::App* command) {
  return command == nullptr ? "(see 'kbdata --help')"
                            : "(see 'kbdata " + command->get_name() + " --help')";
}

// The subcommand named on the command line (argv[1]), or nullptr.
CLI::App* named_command(CLI::App& app, int argc, char** argv) {
  if (argc < 2) return nullptr;
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    if (sub->check_name(argv[1])) return sub;
  }
  return nullptr;
}

// Every long and short option name of `command`, spelled as typed ("--limit", "-n").
std::vector<std::string> option_spellings(const CLI::App& command) {
  std::vector<std::string> names;
  for (const CLI::Option* option : command.get_options()) {
    for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
    for (const std::string& name : option->get_snames()) names.push_back("-" + name);
  }
  return names;
}

bool looks_like_option(const std::string& arg) {
  return arg.size() > 1 && arg[0] == '-' && !(arg[1] >= '0' && arg[1] <= '9') && arg[1] != '.';
}

// One line for an argument CLI11 left over: an unknown option (with the closest option of the
// command) or an argument the command takes no place for.
std::string extras_message(const CLI::App& app, const CLI::App* command) {
  std::vector<std::string> extras = command != nullptr ? command->remaining() : app.remaining();
  if (extras.empty()) extras = app.remaining();
  for (const std::string& arg : extras) {
    if (!looks_like_option(arg)) continue;
    const std::string name = arg.substr(0, arg.find('='));
    return "unknown option '" + name + "'" +
           kbdata::did_you_mean(name, option_spellings(command != nullptr ? *command : app));
  }
  if (extras.empty()) return "unexpected arguments";
  return "unexpected argument '" + extras.front() + "'";
}

// Integers are read by CLI11 with strtoll/strtoull, which clamp out-of-range values, wrap "-1" to
// the largest unsigned value and take "010" as octal: every integer option first has to be a
// decimal number that fits 64 bits, and an error quotes it as typed.
CLI::Validator whole_number(bool is_signed) {
  return CLI::Validator(
      [is_signed](std::string& text) -> std::string {
        const char* begin = text.data();
        const char* end = begin + text.size();
        std::from_chars_result r{};
        std::string canonical;  // decimal, without leading zeros (CLI11 would read "010" as 8)
        if (is_signed) {
          int64_t v = 0;
          r = std::from_chars(begin, end, v);
          canonical = std::to_string(v);
        } else {
          if (!text.empty() && text[0] == '-') {
            return "'" + text + "' is negative; a number of 0 or more is expected";
          }
          uint64_t v = 0;
          r = std::from_chars(begin, end, v);
          canonical = std::to_string(v);
        }
        if (r.ec == std::errc::result_out_of_range) {
          return "'" + text + "' is out of range (" +
                 (is_signed ? "-9223372036854775808 to 9223372036854775807"
                            : "0 to 18446744073709551615") +
                 ")";
        }
        if (r.ec != std::errc() || r.ptr != end) return "'" + text + "' is not a whole number";
        text = canonical;
        return "";
      },
      "", "whole_number");
}

// Attaches whole_number to every integer option of `app` and its subcommands.
void check_whole_numbers(CLI::App& app) {
  for (CLI::Option* option : app.get_options()) {
    // "INT", or "UINT:NONNEGATIVE" with a validator's description after the type.
    const std::string full_type = option->get_type_name();
    const std::string type = full_type.substr(0, full_type.find(':'));
    if (type == "INT") option->transform(whole_number(true));
    if (type == "UINT") option->transform(whole_number(false));
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
    check_whole_numbers(*sub);
}

}  // namespace

int main(int argc, char** argv) {
  kbdata::tune_malloc_for_readers();
  CLI::App app{
      "kbdata: the KernelBot GPU-kernel competition data, read from and written to Parquet.\n"
      "Run 'kbdata COMMAND --help' for a command's options."};
  app.name("kbdata");
  app.require_subcommand(1, 1);
  app.set_version_flag("--version", std::string("kbdata ") + kbdata::kVersion);
  app.footer(
      "\nExamples:\n"
      "  kbdata inspect nvidia_nvfp4_submissions.parquet\n"
      "  kbdata cat nvidia_nvfp4_submissions.parquet --columns problem_name,user_name,score "
      "--limit 10 --format table\n"
      "  kbdata cat nvidia_nvfp4_submissions.parquet --offset 100 --limit 100 --format csv > "
      "rows.csv\n"
      "  kbdata cat nvidia_nvfp4_submissions.parquet --where 'score < 0.00005' --where "
      "'user_name = tonda'\n"
      "  kbdata convert nvidia_nvfp4_submissions.parquet small.parquet --compression zstd "
      "--level 9\n"
      "  kbdata dedup nvidia_nvfp4_submissions.parquet unique.parquet --fuzzy\n"
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
  cat_cmd
      ->add_option("--columns,-c", cat.columns,
                   "Columns to print, comma-separated, in this order (default: all)")
      ->delimiter(',');
  cat_cmd->add_option("--limit,-n", cat.limit, "Print at most N rows")
      ->check(CLI::NonNegativeNumber);
  cat_cmd->add_option("--offset", cat.offset, "Skip the first N rows")
      ->check(CLI::NonNegativeNumber);
  cat_cmd->add_option("--format,-f", format, "Output format")
      ->check(CLI::IsMember({"jsonl", "csv", "table"}))
      ->capture_default_str();
  cat_cmd
      ->add_option("--where,-w", cat.where,
                   "Print only rows where COL OP VALUE holds (OP: = != < <= > >=), or "
                   "'COL is null' / 'COL is not null'; repeatable, all must hold")
      ->allow_extra_args(false);
  cat_cmd->add_flag("--verify-checksums", cat.verify_checksums,
                    "Check the CRC of every page that has one; a mismatch is an error");
  kbdata::cli::add_threads_option(*cat_cmd, cat.threads);

  kbdata::cli::ConvertOptions convert;
  CLI::App* convert_cmd = app.add_subcommand(
      "convert",
      "Rewrite a Parquet file with kbdata's writer: page indexes, bounded row groups and pages,\n"
      "the chosen codec and encodings; same schema and values. Page checksums of IN are verified\n"
      "where present (a damaged page is an error). OUT appears only when complete.");
  convert_cmd->add_option("IN", convert.input, "Parquet file to read")->required();
  convert_cmd
      ->add_option("OUT", convert.output,
                   "Parquet file to write (a regular file it replaces keeps its mode; never "
                   "IN, a folder or a special file)")
      ->required();
  convert_cmd
      ->add_option("--compression,-z", convert.compression,
                   "Codec: none, snappy, gzip, zstd, lz4_raw, brotli (lz4_raw decompresses "
                   "fastest; snappy for readers older than 2022)")
      ->capture_default_str();
  convert_cmd->add_option("--level", convert.level,
                          "Compression level (zstd 1..22, default 3; gzip 1..9, default 6; "
                          "brotli 0..11, default 8)");
  convert_cmd->add_option("--row-group-size", convert.row_group_size,
                          "Rows per row group (100000), or bytes with a unit (64MB, 128MiB); "
                          "default: 100000 rows and 64 MiB, whichever comes first");
  convert_cmd->add_option("--page-size", convert.page_size,
                          "Data page size in bytes before compression, with an optional unit "
                          "(default 1MiB; a page also holds at most 20000 rows)");
  convert_cmd->add_option("--page-version", convert.page_version, "Data page version: 1 or 2")
      ->check(CLI::IsMember({1, 2}))
      ->capture_default_str();
  convert_cmd
      ->add_option("--encoding", convert.encoding,
                   "auto (dictionary, falling back to plain), plain, or delta "
                   "(DELTA_BINARY_PACKED integers, DELTA_LENGTH_BYTE_ARRAY strings)")
      ->capture_default_str();
  convert_cmd->add_flag("--checksums", convert.checksums, "Store a CRC-32 in every page header");
  kbdata::cli::add_threads_option(*convert_cmd, convert.threads);

  // The data model's commands: submissions, show, configs (docs/cli.md, docs/data-model.md).

  kbdata::cli::SubmissionsOptions submissions;
  CLI::App* submissions_cmd = app.add_subcommand(
      "submissions",
      "List the submissions of a data folder (flat and legacy files in one model), filtered");
  kbdata::cli::add_data_options(*submissions_cmd, submissions.data);
  submissions_cmd->footer(
      "\nExamples:\n"
      "  kbdata submissions --data ~/kernelbot -p nvfp4_gemm --scored --since 2025-10-01\n"
      "  kbdata submissions -p amd-fp8-mm --user-id 17 --with-code -f jsonl\n"
      "  kbdata submissions --runner B200 --passed -f parquet -o passing.parquet --with-code\n"
      "\nExit status: 0 success, 1 the input could not be read, 2 wrong usage (an unknown\n"
      "problem lists the folder's problems).");
  submissions_cmd->add_option("--problem,-p", submissions.problem, "Problem (leaderboard) name");
  submissions_cmd->add_option("--leaderboard", submissions.leaderboard, "Leaderboard id");
  submissions_cmd->add_option("--user-id", submissions.user_id,
                              "Platform user id (legacy: the anonymised integer)");
  submissions_cmd->add_option("--user-name", submissions.user_name, "User name");
  submissions_cmd->add_option("--runner", submissions.runner, "Runner (GPU), e.g. B200");
  submissions_cmd->add_flag("--passed", submissions.passed, "Only submissions whose run passed");
  submissions_cmd->add_flag("--scored", submissions.scored, "Only submissions with a score");
  submissions_cmd->add_option("--since", submissions.since,
                              "Submitted at or after this UTC time (YYYY-MM-DD[THH:MM[:SS]])");
  submissions_cmd->add_option("--until", submissions.until, "Submitted before this UTC time");
  submissions_cmd
      ->add_option("--columns,-c", submissions.columns,
                   "Fields to print, comma-separated, in this order")
      ->delimiter(',');
  submissions_cmd->add_flag("--with-code", submissions.with_code, "Also read and print the code");
  submissions_cmd->add_option("--format,-f", submissions.format, "Output format")
      ->check(CLI::IsMember({"table", "csv", "json", "jsonl", "parquet"}))
      ->capture_default_str();
  submissions_cmd->add_option("--out,-o", submissions.out, "Output file for --format parquet");

  kbdata::cli::ShowOptions show;
  CLI::App* show_cmd =
      app.add_subcommand("show", "Print one submission: its metadata, its code, its runs");
  show_cmd->add_option("SUBMISSION_ID", show.submission_id, "Submission id")->required();
  kbdata::cli::add_data_options(*show_cmd, show.data);
  show_cmd->footer(
      "\nExamples:\n  kbdata show 30000569\n  kbdata show 30000569 --format json\n"
      "\nExit status: 0 success, 1 no such submission or unreadable input, 2 wrong usage.");
  show_cmd->add_option("--format,-f", show.format, "Output format")
      ->check(CLI::IsMember({"table", "json", "jsonl"}))
      ->capture_default_str();

  kbdata::cli::ConfigsOptions configs;
  CLI::App* configs_cmd = app.add_subcommand(
      "configs", "List the known configs, which files a data folder holds, and their rows");
  kbdata::cli::add_data_options(*configs_cmd, configs.data);
  configs_cmd->footer(
      "\nExamples:\n  kbdata configs --data ~/kernelbot\n  kbdata configs --format json\n"
      "\nExit status: 0 success, 1 unreadable input, 2 wrong usage.");
  configs_cmd->add_option("--format,-f", configs.format, "Output format")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();

  // kbdata synth
  kbdata::cli::SynthCommandOptions synth;
  CLI::App* synth_cmd =
      app.add_subcommand("synth",
                         "Write a synthetic KernelBot data set: configs of both schema families, "
                         "leaderboards.parquet\n"
                         "and a dataset card, deterministic by seed (docs/synth.md)");
  CLI::Option* synth_out = synth_cmd->add_option(
      "--out,-o", synth.out,
      "Folder to write into (created if missing; if it exists, empty or made by synth)");
  synth_cmd->add_flag("--force", synth.force,
                      "Write into a non-empty folder synth did not make (its files of the same "
                      "names are replaced)");
  synth_cmd
      ->add_option("--db", synth.db,
                   "Instead of files, create the platform's tables (src/platform/schema.sql) in "
                   "this empty PostgreSQL database (URL, e.g. postgresql://user@host:5432/db) and "
                   "seed them; --scale and --seed apply")
      ->excludes(synth_out);
  synth_cmd
      ->add_option("--scale", synth.scale,
                   "small (a few MB), medium (tens of MB) or full (the NVFP4 config's "
                   "shape: about 200,000 rows, 1.4 GB)")
      ->check(CLI::IsMember({"small", "medium", "full"}))
      ->capture_default_str();
  synth_cmd->add_option("--seed", synth.seed, "Seed: the same seed writes the same bytes")
      ->capture_default_str();
  synth_cmd
      ->add_option("--family", synth.family,
                   "flat (current configs), legacy (AMD per-run files) or both")
      ->check(CLI::IsMember({"flat", "legacy", "both"}))
      ->capture_default_str();
  synth_cmd
      ->add_option("--layout", synth.layout,
                   "published (as the hub's files: snappy, dictionary, one row group, no "
                   "page index) or kbdata (kbdata's writer defaults)")
      ->check(CLI::IsMember({"published", "kbdata"}))
      ->capture_default_str();

  // kbdata export
  kbdata::cli::ExportCommandOptions export_options;
  CLI::App* export_cmd = app.add_subcommand(
      "export",
      "Export the platform database (PostgreSQL) to configs, leaderboards.parquet and a dataset\n"
      "card, read-only and streaming; nothing in DIR changes unless everything succeeded\n"
      "(docs/export.md)");
  export_cmd->add_option("--db", export_options.db,
                         "PostgreSQL URL, e.g. postgresql://user:password@host:5432/kernelbot "
                         "(or PG* environment variables with a key=value string); required");
  export_cmd->add_option("--out,-o", export_options.out,
                         "Output folder (created if missing, in an existing folder); afterwards "
                         "it holds exactly the files the card lists; required");
  export_cmd
      ->add_option("--config", export_options.configs,
                   "A flat-schema config NAME=ID,ID,... (leaderboard ids); repeatable. A "
                   "registered NAME gets its published file name, else NAME.parquet")
      ->allow_extra_args(false);
  export_cmd
      ->add_option("--legacy", export_options.legacy,
                   "A legacy per-run config NAME=ID,... (anonymised user ids, run_* "
                   "structs); amd_successful_submissions keeps passing runs only")
      ->allow_extra_args(false);
  export_cmd->add_flag("--private", export_options.is_private,
                       "Allow leaderboards whose deadline is in the future or whose visibility "
                       "is not public, mark the card private, make the files 0600 and DIR 0700 "
                       "(a public export refuses such leaderboards)");
  export_cmd->add_flag("--force", export_options.force,
                       "Remove files in DIR that the new card does not list, when an earlier "
                       "kbdata export made or listed them (without it such files are refused)");
  export_cmd
      ->add_option("--jobs,-j", export_options.jobs,
                   "Configs written in parallel, one database connection each, all on "
                   "one snapshot")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  export_cmd->add_flag("--show-sql", export_options.show_sql,
                       "Print each config's query (what the export streams) and exit without "
                       "connecting");
  export_cmd->add_option("--license", export_options.license, "License id for the card")
      ->capture_default_str();
  export_cmd
      ->add_option("--test-permutation-seed", export_options.test_permutation_seed,
                   "Tests only: seed the anonymisation permutation")
      ->group("");
  export_cmd->footer(
      "\nExamples:\n"
      "  kbdata export --db postgresql://reader@db/kernelbot --out hub \\\n"
      "      --config nvidia_nvfp4_submissions=595,597,598,697,730 --config "
      "trimul_submissions=496\n"
      "  kbdata export --db $URL --out amd --legacy amd_submissions=398,399,430,463,563,564,565\n"
      "\nExit status: 0 success, 1 the database or folder failed or a leaderboard is still open\n"
      "or not public, 2 wrong usage (DIR holding files the card would not list included).");
  // The analyses (docs/analyses.md): each command file adds its own subcommand.
  kbdata::cli::Commands commands;
  kbdata::cli::add_top_command(app, commands);
  kbdata::cli::add_progression_command(app, commands);
  kbdata::cli::add_records_command(app, commands);
  kbdata::cli::add_fastest_command(app, commands);
  kbdata::cli::add_stats_command(app, commands);
  kbdata::cli::add_extract_command(app, commands);
  kbdata::cli::add_audit_command(app, commands);
  kbdata::cli::add_pull_command(app, commands);
  // kbdata dedup (docs/dedup.md)
  kbdata::cli::DedupCommandOptions dedup;
  CLI::App* dedup_cmd = app.add_subcommand(
      "dedup",
      "Deduplicate a submissions file (flat or legacy per-run) into a flat file: the platform's\n"
      "exact rule (--exact), or that and near-duplicate clusters by MinHash LSH (--fuzzy).\n"
      "OUT appears only when complete (docs/dedup.md)");
  dedup_cmd->add_option("IN", dedup.dedup.input, "Submissions Parquet file (flat or legacy)")
      ->required();
  dedup_cmd
      ->add_option("OUT", dedup.dedup.output,
                   "Parquet file to write: the flat schema plus cluster_id and cluster_size "
                   "(replaced if it exists; not IN)")
      ->required();
  dedup_cmd->add_flag("--exact", dedup.exact,
                      "One row per (leaderboard_id, user_id, code_id, runner): the lowest score "
                      "(nulls last), then the earliest, then the lowest submission_id");
  dedup_cmd->add_flag("--fuzzy", dedup.fuzzy,
                      "The exact rule, then one row per cluster of near-duplicate code (Jaccard "
                      "of byte shingles >= --threshold), kept by the same order");
  dedup_cmd
      ->add_option("--threshold", dedup.dedup.threshold,
                   "Jaccard similarity at or above which two codes are near-duplicates")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            char* end = nullptr;
            const double v = std::strtod(text.c_str(), &end);
            if (text.empty() || *end != '\0') return "'" + text + "' is not a number";
            if (!(v > 0.0 && v <= 1.0)) return "'" + text + "' is not in (0, 1]";
            return "";
          },
          "(0,1]", "threshold"))
      ->capture_default_str();
  dedup_cmd
      ->add_option("--shingle-bytes", dedup.dedup.shingle_bytes,
                   "Shingle length in bytes (of the ASCII-lower-cased code), 1..64")
      ->capture_default_str();
  dedup_cmd->add_flag("--across-users", dedup.dedup.across_users,
                      "Cluster near-duplicates across users of a leaderboard (default: within "
                      "each (leaderboard, user))");
  dedup_cmd->add_flag("--emit-all", dedup.dedup.emit_all,
                      "Write every input row with its cluster_id and a boolean kept, instead of "
                      "the kept rows with cluster_size");
  dedup_cmd
      ->add_option("--threads,--jobs,-j", dedup.dedup.jobs,
                   "Threads reading, hashing and comparing (0: $KBDATA_THREADS, else one "
                   "per core); the output is the same whatever the threads")
      ->capture_default_str();
  dedup_cmd->footer(
      "\nExamples:\n"
      "  kbdata dedup nvidia_nvfp4_submissions.parquet nvfp4-exact.parquet --exact\n"
      "  kbdata dedup nvidia_nvfp4_submissions.parquet nvfp4-fuzzy.parquet --fuzzy\n"
      "  kbdata dedup submissions.parquet clusters.parquet --fuzzy --across-users --emit-all\n"
      "\nExit status: 0 success, 1 the input could not be read or OUT written, 2 wrong usage.");

  check_whole_numbers(app);
  // As git and cargo: no arguments prints the help; an unknown command is named with the closest.
  if (argc < 2) {
    std::fputs(app.help().c_str(), stdout);
    return 0;
  }
  CLI::App* command = named_command(app, argc, argv);
  if (command == nullptr && !looks_like_option(argv[1])) {
    std::vector<std::string> names;
    for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
      names.push_back(sub->get_name());
    }
    std::fprintf(stderr, "kbdata: unknown command '%s'%s %s\n", argv[1],
                 kbdata::did_you_mean(argv[1], names).c_str(), help_hint(nullptr).c_str());
    return kExitUsage;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ExtrasError& e) {
    std::fprintf(stderr, "kbdata: %s %s\n", extras_message(app, command).c_str(),
                 help_hint(command).c_str());
    return kExitUsage;
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "kbdata: %s %s\n", e.what(), help_hint(command).c_str());
    return kExitUsage;
  }

  kbdata::remove_temporary_files_on_signals();
  try {
    (void)kbdata::command_threads(std::nullopt);  // a bad $KBDATA_THREADS, before any work
    if (inspect_cmd->parsed()) {
      kbdata::cli::run_inspect(inspect, stdout);
    } else if (cat_cmd->parsed()) {
      cat.format = format == "csv"     ? kbdata::tabular::Format::CSV
                   : format == "table" ? kbdata::tabular::Format::TABLE
                                       : kbdata::tabular::Format::JSONL;
      kbdata::cli::run_cat(cat, stdout);
    } else if (convert_cmd->parsed()) {
      for (int i = 0; i < argc; ++i) {
        if (i > 0) convert.command_line += ' ';
        convert.command_line += i == 0 ? std::string("kbdata") : std::string(argv[i]);
      }
      kbdata::cli::run_convert(convert, stderr);
    } else if (submissions_cmd->parsed()) {
      kbdata::cli::run_submissions(submissions, stdout, stderr);
    } else if (show_cmd->parsed()) {
      kbdata::cli::run_show(show, stdout, stderr);
    } else if (configs_cmd->parsed()) {
      kbdata::cli::run_configs(configs, stdout, stderr);
    } else if (export_cmd->parsed()) {
      kbdata::cli::run_export(export_options, stdout, stderr);
    } else if (dedup_cmd->parsed()) {
      for (int i = 0; i < argc; ++i) {
        if (i > 0) dedup.dedup.command_line += ' ';
        dedup.dedup.command_line += i == 0 ? std::string("kbdata") : std::string(argv[i]);
      }
      kbdata::cli::run_dedup_command(dedup, stdout, stderr);
    } else if (synth_cmd->parsed()) {
      kbdata::cli::run_synth(synth, stdout, stderr);
    }
    for (const kbdata::cli::Command& added : commands) {
      if (added.app->parsed()) added.run();
    }
  } catch (const kbdata::UsageError& e) {
    std::fprintf(stderr, "kbdata: %s %s\n", e.what(), help_hint(command).c_str());
    return kExitUsage;
  } catch (const kbdata::Error& e) {
    std::fprintf(stderr, "kbdata: %s\n", e.what());
    return kExitFailure;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "kbdata: out of memory\n");
    return kExitFailure;
  } catch (const std::exception& e) {
    // A failure no layer turned into a kbdata error: still one line and an exit status, never an
    // abort (and a bug to report).
    std::fprintf(stderr, "kbdata: internal error: %s\n", e.what());
    return kExitFailure;
  }
  return 0;
}
