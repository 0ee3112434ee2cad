#include "cli/export_command.h"

#include "cli/output.h"
#include "common/closest_name.h"
#include "common/error.h"
#include "dataset/registry.h"
#include "platform/export.h"

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
    write_all(progress, "kbdata: warning: config '" + spec.name + "' is not a published config" +
                            hint + " (it is written to " + platform::config_file_name(spec.name) +
                            ")\n");
  }
  if (options.show_sql) {
    for (const platform::ConfigSpec& spec : e.configs) {
      std::string text = "-- " + spec.name + " (" + platform::config_file_name(spec.name) + ")\n" +
                         platform::config_query(spec) + ";\n";
      write_all(out, text);
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
  e.progress = progress;
  platform::ExportResult result = platform::run_export(e);
  std::vector<std::vector<std::string>> rows = {{"config", "file", "rows", "bytes"}};
  for (const platform::ExportedFile& f : result.files) {
    rows.push_back({f.config.empty() ? "-" : f.config, f.file,
                    f.config.empty() ? "-" : std::to_string(f.rows), std::to_string(f.bytes)});
  }
  write_all(out, format_table(rows, {false, false, true, true}));
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

}  // namespace kbdata::cli
