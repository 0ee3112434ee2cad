#include "cli/filter_checks.h"

#include <algorithm>
#include <set>

#include "common/closest_name.h"
#include "common/error.h"
#include "dataset/loader.h"
#include "dataset/registry.h"

namespace kbdata::cli {

void add_row_selection_options(CLI::App& cmd, RowSelection& selection) {
  cmd.add_option("--problem,-p", selection.problem, "Only this problem (leaderboard)");
  cmd.add_option("--user,-u", selection.user, "Only this user (id or name)");
  cmd.add_option("--runner", selection.runner, "Only this runner (GPU)");
  cmd.add_option("--since", selection.since, "Submitted at or after (UTC)");
  cmd.add_option("--until", selection.until, "Submitted before (UTC)");
}

dataset::Filter row_selection_filter(const RowSelection& selection) {
  dataset::Filter f;
  f.problem = selection.problem;
  f.user = selection.user;
  f.runner = selection.runner;
  set_time_range(f, selection.since, selection.until);
  return f;
}

void set_time_range(dataset::Filter& filter, const std::optional<std::string>& since,
                    const std::optional<std::string>& until) {
  if (since) filter.since = dataset::parse_utc_time(*since, "--since");
  if (until) filter.until = dataset::parse_utc_time(*until, "--until");
  if (filter.since && filter.until && *filter.since >= *filter.until) {
    throw UsageError("empty time range: --since " + *since + " is not before --until " + *until);
  }
}

std::vector<std::string> known_runners(const dataset::DataDir& dir) {
  std::vector<std::string> runners;
  for (const dataset::ConfigInfo& config : dataset::configs()) {
    const bool present =
        std::any_of(dir.files.begin(), dir.files.end(),
                    [&](const dataset::DataFile& f) { return f.config == &config; });
    if (!present) continue;
    for (const std::string& runner : config.hardware) {
      if (std::find(runners.begin(), runners.end(), runner) == runners.end()) {
        runners.push_back(runner);
      }
    }
  }
  return runners;
}

void resolve_filter(const dataset::DataDir& dir, dataset::Filter& filter) {
  if (filter.problem && filter.leaderboard_id) {
    const std::vector<dataset::LeaderboardRef> refs =
        dataset::find_leaderboard(*filter.leaderboard_id);
    const bool same = std::any_of(refs.begin(), refs.end(), [&](const dataset::LeaderboardRef& r) {
      return r.leaderboard->name == *filter.problem;
    });
    if (!refs.empty() && !same) {
      throw UsageError("--problem " + *filter.problem + " and --leaderboard " +
                       std::to_string(*filter.leaderboard_id) + " conflict: leaderboard " +
                       std::to_string(*filter.leaderboard_id) + " is " +
                       refs.front().leaderboard->name + "; give one of them");
    }
  }
  if (filter.runner) {
    for (const std::string& runner : known_runners(dir)) {
      if (equals_ignoring_case(*filter.runner, runner)) {
        filter.runner = runner;
        break;
      }
    }
  }
}

namespace {

// When a user filter matches no row of the others' selection: "; no user 'X' ...; did you mean
// 'Y'?" with the closest user id or name of those rows; empty when the user is there (the other
// filters are then why nothing matched).
std::string why_no_user(const dataset::DataDir& dir, const dataset::Filter& filter) {
  const std::optional<std::string>& typed = filter.user      ? filter.user
                                            : filter.user_id ? filter.user_id
                                                             : filter.user_name;
  if (!typed) return "";
  dataset::LoadOptions load;
  load.filter = filter;
  load.filter.user.reset();
  load.filter.user_id.reset();
  load.filter.user_name.reset();
  load.filter.excluded = nullptr;
  load.with_details = false;
  std::set<std::string> seen;
  dataset::LoadStats stats;
  dataset::load_dir(
      dir, load,
      [&](dataset::Submission&& s) {
        seen.insert(s.user_id);
        if (s.user_name && !s.user_name->empty()) seen.insert(*s.user_name);
      },
      stats);
  if (seen.count(*typed) > 0 || seen.empty()) return "";
  const std::vector<std::string> users(seen.begin(), seen.end());
  return "; no user '" + *typed + "' (as id or name) among the rows selected" +
         did_you_mean(*typed, users);
}

}  // namespace

std::string why_empty(const dataset::DataDir& dir, const dataset::Filter& filter) {
  if (const std::string user = why_no_user(dir, filter); !user.empty()) return user;
  if (filter.leaderboard_id) {
    dataset::LoadOptions load;
    load.filter.leaderboard_id = filter.leaderboard_id;
    load.with_details = false;
    dataset::LoadStats stats;
    bool held = false;
    dataset::load_dir(
        dir, load, [&](dataset::Submission&&) { held = true; }, stats);
    if (!held) {
      return "; no file of " + dir.path + " holds leaderboard " +
             std::to_string(*filter.leaderboard_id);
    }
  }
  if (filter.runner) {
    const std::vector<const dataset::DataFile*> files = dataset::files_for(dir, filter);
    const bool all_legacy =
        !files.empty() && std::all_of(files.begin(), files.end(), [](const dataset::DataFile* f) {
          return f->family == dataset::SchemaFamily::LEGACY_RUNS;
        });
    if (all_legacy) {
      std::string names;
      for (const dataset::DataFile* f : files) names += (names.empty() ? "" : ", ") + f->name;
      return "; --runner " + *filter.runner + " matches nothing in legacy per-run files (" + names +
             "), which record no runner";
    }
    const std::vector<std::string> runners = known_runners(dir);
    if (!runners.empty() &&
        std::find(runners.begin(), runners.end(), *filter.runner) == runners.end()) {
      std::string list;
      for (const std::string& r : runners) list += (list.empty() ? "" : ", ") + r;
      return "; no config of " + dir.path + " has runner '" + *filter.runner + "'" +
             did_you_mean(*filter.runner, runners) + " (its runners: " + list + ")";
    }
  }
  return "";
}

}  // namespace kbdata::cli
