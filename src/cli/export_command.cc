#include "cli/export_command.h"

#include <memory>

#include "cli/progress.h"
#include "cli/threads.h"
#include "common/closest_name.h"
#include "common/error.h"
#include "dataset/registry.h"
#include "platform/export.h"
#include "report/text.h"

namespace kbdata::cli {

void run_export(const ExportCommandOptions& options, std::FILE* out, std::FILE* progress) {
  platform::ExportOptions e;
  e.url = options.db;
  e.out_dir = options.out;
  for (const std::string& c : options.configs) {
    e.configs.push_back(platform::parse_config_spec(c, false, "--config"));
  }
  for (const std::string& c : options.legacy) {
    e.configs.push_back(platform::parse_config_spec(c, true, "--legacy"));
  }
  // Any NAME is allowed (it is written to NAME.parquet), but one a letter away from a published
  // config is most likely a typo of it: say so before the work.
  std::vector<std::string> published;
  for (const dataset::ConfigInfo& c : dataset::configs()) published.push_back(c.name);
  for (const platform::ConfigSpec& spec : e.configs) {
    if (dataset::find_config(spec.name) != nullptr) continue;
    const std::string hint = did_you_mean(spec.name, published);
    if (hint.empty()) continue;
    report::write_all(progress, "kbdata: warning: config '" + spec.name +
                                    "' is not a published config" + hint + " (it is written to " +
                                    platform::config_file_name(spec.name) + ")\n");
  }
  if (options.show_sql) {
    for (const platform::ConfigSpec& spec : e.configs) {
      std::string text = "-- " + spec.name + " (" + platform::config_file_name(spec.name) + ")\n" +
                         platform::config_query(spec) + ";\n";
      report::write_all(out, text);
    }
    return;
  }
  if (options.db.empty()) throw UsageError("export: --db URL is required");
  if (options.out.empty()) throw UsageError("export: --out DIR is required");
  e.allow_open = options.is_private;
  e.force = options.force;
  e.jobs = options.jobs;
  e.license = options.license;
  e.permutation_seed = options.test_permutation_seed;
  e.threads = command_threads(std::nullopt);
  Progress line(progress, "export");
  e.progress = line.callback();
  platform::ExportResult result = platform::run_export(e);
  line.finish();
  std::vector<std::vector<std::string>> rows = {{"config", "file", "rows", "bytes"}};
  for (const platform::ExportedFile& f : result.files) {
    rows.push_back({f.config.empty() ? "-" : f.config, f.file,
                    f.config.empty() ? "-" : std::to_string(f.rows), std::to_string(f.bytes)});
  }
  report::write_all(out, report::format_table(rows, {false, false, true, true}));
  for (const std::string& name : result.removed) {
    std::fprintf(progress,
                 "kbdata: removed %s (an earlier export's file the new card does not "
                 "list)\n",
                 name.c_str());
  }
  if (!result.kept_previous.empty()) {
    std::fprintf(progress,
                 "kbdata: warning: the previous %s gained files during the export; it was kept "
                 "as %s\n",
                 options.out.c_str(), result.kept_previous.c_str());
  }
  const dataset::CodeRepairCounts& c = result.code;
  std::fprintf(progress,
               "kbdata: code: %llu value(s) decoded, %llu repaired (%llu \\x hex escape(s) "
               "decoded, %llu invalid \\x hex kept as stored, %llu with invalid UTF-8 replaced "
               "by U+FFFD)\n",
               static_cast<unsigned long long>(c.values),
               static_cast<unsigned long long>(c.repaired),
               static_cast<unsigned long long>(c.hex_decoded),
               static_cast<unsigned long long>(c.hex_invalid),
               static_cast<unsigned long long>(c.utf8_repaired));
}

void add_export_command(CLI::App& app, Commands& commands) {
  auto options = std::make_shared<ExportCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "export",
      "Export the platform database (PostgreSQL) to configs, leaderboards.parquet and a dataset\n"
      "card, read-only and streaming; nothing in DIR changes unless everything succeeded\n"
      "(docs/export.md)");
  cmd->add_option("--db", options->db,
                  "PostgreSQL URL, e.g. postgresql://user:password@host:5432/kernelbot "
                  "(or PG* environment variables with a key=value string); required");
  cmd->add_option("--out,-o", options->out,
                  "Output folder (created if missing, in an existing folder); afterwards "
                  "it holds exactly the files the card lists; required");
  cmd->add_option("--config", options->configs,
                  "A flat-schema config NAME=ID,ID,... (leaderboard ids); repeatable. A "
                  "registered NAME gets its published file name, else NAME.parquet")
      ->allow_extra_args(false);
  cmd->add_option("--legacy", options->legacy,
                  "A legacy per-run config NAME=ID,... (anonymised user ids, run_* "
                  "structs); amd_successful_submissions keeps passing runs only")
      ->allow_extra_args(false);
  cmd->add_flag("--private", options->is_private,
                "Allow leaderboards whose deadline is in the future or whose visibility "
                "is not public, mark the card private, make the files 0600 and DIR 0700 "
                "(a public export refuses such leaderboards)");
  cmd->add_flag("--force", options->force,
                "Remove files in DIR that the new card does not list, when an earlier "
                "kbdata export made or listed them (without it such files are refused)");
  cmd->add_option("--jobs,-j", options->jobs,
                  "Configs written in parallel, one database connection each, all on "
                  "one snapshot")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  cmd->add_flag("--show-sql", options->show_sql,
                "Print each config's query (what the export streams) and exit without "
                "connecting");
  cmd->add_option("--license", options->license, "License id for the card")->capture_default_str();
  cmd->add_option("--test-permutation-seed", options->test_permutation_seed,
                  "Tests only: seed the anonymisation permutation")
      ->group("");
  cmd->footer(
      "\nExamples:\n"
      "  kbdata export --db postgresql://reader@db/kernelbot --out hub \\\n"
      "      --config nvidia_nvfp4_submissions=595,597,598,697,730 --config "
      "trimul_submissions=496\n"
      "  kbdata export --db $URL --out amd --legacy amd_submissions=398,399,430,463,563,564,565\n"
      "\nExit status: 0 success, 1 the database or folder failed or a leaderboard is still open\n"
      "or not public, 2 wrong usage (DIR holding files the card would not list included).");
  commands.push_back({cmd, [options] { run_export(*options, stdout, stderr); }});
}

}  // namespace kbdata::cli
