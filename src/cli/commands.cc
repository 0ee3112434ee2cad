// Every kbdata command, in the order `kbdata --help` lists them: reading Parquet files, the data
// model, making data, the analyses (docs/analyses.md), the hub, deduplication.
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
#include "cli/noise_command.h"
#include "cli/pairs_command.h"
#include "cli/place_command.h"
#include "cli/progression_command.h"
#include "cli/pull_command.h"
#include "cli/records_command.h"
#include "cli/serve_command.h"
#include "cli/show_command.h"
#include "cli/stats_command.h"
#include "cli/submissions_command.h"
#include "cli/synth_command.h"
#include "cli/tasks_command.h"
#include "cli/techniques_command.h"
#include "cli/top_command.h"

namespace kbdata::cli {

void add_all_commands(CLI::App& app, Commands& commands) {
  add_inspect_command(app, commands);
  add_cat_command(app, commands);
  add_convert_command(app, commands);
  add_submissions_command(app, commands);
  add_show_command(app, commands);
  add_configs_command(app, commands);
  add_synth_command(app, commands);
  add_export_command(app, commands);
  add_top_command(app, commands);
  add_progression_command(app, commands);
  add_records_command(app, commands);
  add_fastest_command(app, commands);
  add_stats_command(app, commands);
  add_noise_command(app, commands);
  add_tasks_command(app, commands);
  add_place_command(app, commands);
  add_extract_command(app, commands);
  add_audit_command(app, commands);
  add_techniques_command(app, commands);
  add_pairs_command(app, commands);
  add_serve_command(app, commands);
  add_pull_command(app, commands);
  add_dedup_command(app, commands);
}

}  // namespace kbdata::cli
