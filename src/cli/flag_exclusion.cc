#include "cli/flag_exclusion.h"

#include <array>

#include "audit/folder_audit.h"
#include "cli/progress.h"
#include "common/closest_name.h"
#include "common/error.h"
#include "report/text.h"

namespace kbdata::cli {

void add_exclude_flagged_option(CLI::App& cmd, std::optional<std::string>& level) {
  cmd.add_flag("--exclude-flagged{cheat}", level,
               "Leave out the rows kbdata audit flags: alone the cheats, =suspicious every "
               "flagged row (reads the code to audit it)");
}

void exclude_flagged(const std::optional<std::string>& level, const dataset::DataDir& dir,
                     dataset::LoadOptions& load, std::FILE* err) {
  if (!level) return;
  const std::array<std::string, 2> levels = {"cheat", "suspicious"};
  const std::optional<audit::Verdict> verdict = audit::parse_verdict(*level);
  if (!verdict || *verdict == audit::Verdict::CLEAN) {
    throw UsageError("--exclude-flagged=" + *level +
                     ": expected cheat (the default) or suspicious (every flagged row)" +
                     did_you_mean(*level, levels));
  }
  Progress progress(err, "auditing for --exclude-flagged");
  const audit::FlaggedRows flagged = audit::flag_rows(dir, load, *verdict, progress.callback());
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
  // Whose best rows went: a leader left out changes every ranking after it.
  if (!flagged.best_left_out.empty()) {
    constexpr size_t kListed = 10;
    note += "kbdata: --exclude-flagged: the best rows of these users are left out:";
    for (size_t i = 0; i < flagged.best_left_out.size() && i < kListed; ++i) {
      const audit::FlaggedBest& b = flagged.best_left_out[i];
      note += std::string(i == 0 ? " " : "; ") + b.user + " (" +
              (b.problem_name.empty() ? "leaderboard " + std::to_string(b.leaderboard_id)
                                      : b.problem_name) +
              " on " + b.runner + ", " + report::format_score(b.score) + ", " +
              audit::to_string(b.verdict) + ")";
    }
    if (flagged.best_left_out.size() > kListed) {
      note += "; and " + grouped(flagged.best_left_out.size() - kListed) + " more";
    }
    note += "\n";
  }
  report::write_all(err, note);
}

}  // namespace kbdata::cli
