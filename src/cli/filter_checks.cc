#include "cli/filter_checks.h"

#include <algorithm>
#include <set>

#include "cli/threads.h"
#include "common/closest_name.h"
#include "common/error.h"
#include "dataset/epochs.h"
#include "dataset/hardware.h"
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

namespace {

// Throws UsageError when --epoch names a harness epoch that no leaderboard of the selection has
// (dataset/epochs.h: a leaderboard with k recorded changes has epochs 0 to k; one without, and a
// leaderboard the registry does not know, epoch 0 only), naming the epochs there are.
void check_epoch(const dataset::Filter& filter) {
  if (!filter.epoch) return;
  const int epoch = *filter.epoch;
  if (epoch < 0) {
    throw UsageError("--epoch " + std::to_string(epoch) +
                     ": must be 0 (before the first change of the harness) or more");
  }
  // The selection's leaderboards as the registry knows them: by --leaderboard, else by
  // --problem, else all (any of them may be in the folder, under any file name).
  std::vector<std::pair<int64_t, std::string>> boards;
  const auto add = [&](const dataset::LeaderboardRef& r) {
    if (!r.leaderboard->id) return;
    const std::pair<int64_t, std::string> board{*r.leaderboard->id, r.leaderboard->name};
    if (std::find(boards.begin(), boards.end(), board) == boards.end()) boards.push_back(board);
  };
  if (filter.leaderboard_id) {
    for (const dataset::LeaderboardRef& r : dataset::find_leaderboard(*filter.leaderboard_id)) {
      add(r);
    }
  } else if (filter.problem) {
    for (const dataset::LeaderboardRef& r : dataset::find_problem(*filter.problem)) add(r);
  } else {
    for (const dataset::ConfigInfo& c : dataset::configs()) {
      for (const dataset::LeaderboardInfo& l : c.leaderboards) add({&c, &l});
    }
  }
  size_t most = 0;
  for (const auto& [id, name] : boards) most = std::max(most, dataset::epoch_changes(id).size());
  if (static_cast<size_t>(epoch) <= most) return;
  const auto epochs = [](size_t k) {
    return k == 0 ? std::string("epoch 0 only") : "epochs 0 to " + std::to_string(k);
  };
  std::string what;
  if (filter.leaderboard_id || filter.problem) {
    const std::string selected = filter.leaderboard_id
                                     ? "leaderboard " + std::to_string(*filter.leaderboard_id)
                                     : "problem " + *filter.problem;
    std::string list;
    for (const auto& [id, name] : boards) {
      list += (list.empty() ? "" : ", ") + name + " (" + std::to_string(id) + ") has " +
              epochs(dataset::epoch_changes(id).size());
    }
    what = "no epoch " + std::to_string(epoch) + " in " + selected + ": " +
           (list.empty() ? "the registry records no change of its harness, so it has epoch 0 only"
                         : list);
  } else {
    what = "no leaderboard has an epoch " + std::to_string(epoch) +
           ": those with recorded changes of their harness have " + epochs(most);
  }
  throw UsageError("--epoch " + std::to_string(epoch) + ": " + what + " (docs/noise.md)");
}

}  // namespace

void resolve_filter(const dataset::DataDir& dir, dataset::Filter& filter) {
  check_epoch(filter);
  if (filter.runner) filter.runner = dataset::canonical_runner(*filter.runner);
  if (!filter.problem || !filter.leaderboard_id) return;
  std::vector<std::string> names;  // the problems leaderboard_id holds
  for (const dataset::FileContents& c : dataset::read_contents(dir)) {
    for (const dataset::FileContents::Entry& e : c.entries) {
      if (e.leaderboard_id != *filter.leaderboard_id) continue;
      if (e.problem_name == *filter.problem) return;
      if (std::find(names.begin(), names.end(), e.problem_name) == names.end()) {
        names.push_back(e.problem_name);
      }
    }
  }
  if (names.empty()) return;  // no file holds the leaderboard: an empty result says so
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
  throw UsageError("--problem " + *filter.problem + " and --leaderboard " +
                   std::to_string(*filter.leaderboard_id) + " conflict: leaderboard " +
                   std::to_string(*filter.leaderboard_id) + " is " + list +
                   " in the folder's files; give one of them");
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
  load.threads = command_threads(std::nullopt);  // the run's default
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
  if (!filter.leaderboard_id && !filter.runner) return "";
  const std::vector<dataset::FileContents> contents = dataset::read_contents(dir);
  const auto selected = [&](const dataset::FileContents::Entry& e) {
    return (!filter.leaderboard_id || e.leaderboard_id == *filter.leaderboard_id) &&
           (!filter.problem || e.problem_name == *filter.problem);
  };
  bool held = false;
  std::vector<std::string> runners;  // of the selected leaderboards, as shown
  for (const dataset::FileContents& c : contents) {
    for (const dataset::FileContents::Entry& e : c.entries) {
      if (!selected(e)) continue;
      held = true;
      if (e.runner && std::find(runners.begin(), runners.end(), *e.runner) == runners.end()) {
        runners.push_back(*e.runner);
      }
    }
  }
  if (filter.leaderboard_id && !held) {
    return "; no file of " + dir.path + " holds leaderboard " +
           std::to_string(*filter.leaderboard_id);
  }
  if (!filter.runner || runners.empty()) return "";
  for (const std::string& r : runners) {
    if (dataset::same_runner(r, *filter.runner)) return "";
  }
  std::sort(runners.begin(), runners.end());
  std::string list;
  for (const std::string& r : runners) list += (list.empty() ? "" : ", ") + r;
  const std::string what = filter.problem ? " for " + *filter.problem
                           : filter.leaderboard_id
                               ? " for leaderboard " + std::to_string(*filter.leaderboard_id)
                               : std::string();
  return "; no file of " + dir.path + " holds runner '" + *filter.runner + "'" + what +
         did_you_mean(*filter.runner, runners) + " (its runners: " + list + ")";
}

}  // namespace kbdata::cli
