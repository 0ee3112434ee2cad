#include "cli/flag_exclusion.h"

#include <array>

#include "audit/folder_audit.h"
#include "cli/progress.h"
#include "common/closest_name.h"
#include "common/error.h"
#include "report/text.h"

namespace kbdata::cli {

void add_exclude_flagged_option(CLI::App& cmd, std::optional<std::string>& level) {
  cmd.add_flag("--exclude-flagged{suspicious}", level,
               "Leave out the rows kbdata audit flags: alone every flagged row (suspicious and "
               "cheat), =cheat the cheats only (reads the code to audit it)");
}

void exclude_flagged(const std::optional<std::string>& level, const dataset::DataDir& dir,
                     dataset::LoadOptions& load, std::FILE* err) {
  if (!level) return;
  const std::array<std::string, 2> levels = {"suspicious", "cheat"};
  const std::optional<audit::Verdict> verdict = audit::parse_verdict(*level);
  if (!verdict || *verdict == audit::Verdict::CLEAN) {
    throw UsageError("--exclude-flagged=" + *level +
                     ": expected suspicious (every flagged row) or cheat" +
                     did_you_mean(*level, levels));
  }
  Progress progress(err, "auditing for --exclude-flagged");
  const audit::FlaggedRows flagged =
      audit::flag_rows(dir, load, *verdict, [&](uint64_t n) { progress.update(n, "rows"); });
  progress.finish();
  load.filter.excluded = flagged.rows;
  std::string note = "kbdata: --exclude-flagged: left out " + grouped(flagged.rows->size()) +
                     " of the " + grouped(flagged.audited) + " rows audited (";
  if (*verdict == audit::Verdict::SUSPICIOUS) {
    note += grouped(flagged.cheat) + " cheat, " + grouped(flagged.suspicious) + " suspicious";
  } else {
    note += "the cheats; " + grouped(flagged.suspicious) + " suspicious rows stay";
  }
  note += "; kbdata audit --min-verdict " + *level + " lists them)\n";
  report::write_all(err, note);
}

}  // namespace kbdata::cli
