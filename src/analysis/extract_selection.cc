#include "analysis/extract_selection.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#include "analysis/ranking.h"

namespace kbdata::analysis {
namespace {

using dataset::Submission;

// (leaderboard, runner) order of the rankings: runner-less last.
bool runner_before(const std::optional<std::string>& a, const std::optional<std::string>& b) {
  if (a.has_value() != b.has_value()) return a.has_value();
  return a < b;
}

// The row a duplicate group keeps: lowest score (unscored last), earliest, lowest id.
bool keep_before(const Submission& a, const Submission& b) {
  if (a.score.has_value() != b.score.has_value()) return a.score.has_value();
  if (a.score && *a.score != *b.score) return *a.score < *b.score;
  return std::tie(a.submission_time, a.submission_id) <
         std::tie(b.submission_time, b.submission_id);
}

std::vector<ExtractEntry> top_entries(const std::vector<Submission>& rows, int64_t k) {
  RankingBuilder builder;
  for (const Submission& s : rows) builder.add(s);
  // The ranking names each entry by submission id; find the row of that (id, runner).
  std::map<std::pair<int64_t, std::optional<std::string>>, const Submission*> by_key;
  for (const Submission& s : rows) by_key.emplace(std::make_pair(s.submission_id, s.runner), &s);
  std::vector<ExtractEntry> out;
  for (const Ranking& r : builder.finish(k)) {
    for (const RankedEntry& e : r.entries) {
      const Submission* s = by_key.at({e.submission_id, r.runner});
      out.push_back(ExtractEntry{*s, e.rank, 0});
    }
  }
  return out;
}

std::vector<ExtractEntry> every_entry(const std::vector<Submission>& rows) {
  std::vector<ExtractEntry> out;
  out.reserve(rows.size());
  for (const Submission& s : rows) out.push_back(ExtractEntry{s, std::nullopt, 0});
  std::stable_sort(out.begin(), out.end(), [](const ExtractEntry& a, const ExtractEntry& b) {
    const Submission& x = a.row;
    const Submission& y = b.row;
    if (x.leaderboard_id != y.leaderboard_id) return x.leaderboard_id < y.leaderboard_id;
    if (x.runner != y.runner) return runner_before(x.runner, y.runner);
    return std::tie(x.submission_time, x.submission_id) <
           std::tie(y.submission_time, y.submission_id);
  });
  return out;
}

}  // namespace

std::vector<ExtractEntry> select_for_extract(const std::vector<Submission>& rows,
                                             const ExtractRequest& request) {
  std::vector<ExtractEntry> entries =
      request.top > 0 ? top_entries(rows, request.top) : every_entry(rows);
  if (!request.dedup_exact) return entries;

  // A row without a code_id (a null in the file) shares its code with no other it can be told of.
  std::map<int64_t, size_t> keeper;  // code_id -> index in entries
  for (size_t i = 0; i < entries.size(); ++i) {
    if (!entries[i].row.code_id) continue;
    auto [it, inserted] = keeper.try_emplace(*entries[i].row.code_id, i);
    if (!inserted && keep_before(entries[i].row, entries[it->second].row)) it->second = i;
  }
  const auto keeper_of = [&](size_t i) {
    return entries[i].row.code_id ? keeper.at(*entries[i].row.code_id) : i;
  };
  for (size_t i = 0; i < entries.size(); ++i) {
    const size_t k = keeper_of(i);
    if (k != i) ++entries[k].duplicates_dropped;
  }
  std::vector<ExtractEntry> kept;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (keeper_of(i) == i) kept.push_back(std::move(entries[i]));
  }
  return kept;
}

}  // namespace kbdata::analysis
