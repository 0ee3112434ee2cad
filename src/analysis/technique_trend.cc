#include "analysis/technique_trend.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "analysis/ranking.h"
#include "analysis/stats.h"

namespace kbdata::analysis {
namespace {

constexpr int64_t kWeek = int64_t{7} * 24 * 3600 * 1000 * 1000;
constexpr int64_t kTrendGap = kTrendGapWeeks * kWeek;

// The competition of `list` (in time order): [first, last) of its largest run whose consecutive
// rows are at most kTrendGap apart; ties go to the earliest run.
std::pair<size_t, size_t> competition(const std::vector<const TechniqueRow*>& list) {
  std::pair<size_t, size_t> best{0, 0};
  size_t start = 0;
  for (size_t i = 1; i <= list.size(); ++i) {
    // As a difference of the two times (the later minus the earlier), which cannot overflow.
    const bool cut =
        i == list.size() || static_cast<uint64_t>(list[i]->row.submission_time) -
                                    static_cast<uint64_t>(list[i - 1]->row.submission_time) >
                                static_cast<uint64_t>(kTrendGap);
    if (!cut) continue;
    if (i - start > best.second - best.first) best = {start, i};
    start = i;
  }
  return best;
}

// Every tag, languages first, in docs/techniques.md's order.
std::vector<TechniqueTag> all_tags() {
  std::vector<TechniqueTag> out;
  for (size_t i = 0; i < techniques::kLanguages; ++i) out.push_back({false, i});
  for (size_t i = 0; i < techniques::kFeatures; ++i) out.push_back({true, i});
  return out;
}

// The tags some row of `rows` uses.
std::vector<TechniqueTag> tags_present(const std::vector<const TechniqueRow*>& rows) {
  std::vector<TechniqueTag> out;
  for (const TechniqueTag& tag : all_tags()) {
    if (std::any_of(rows.begin(), rows.end(),
                    [&](const TechniqueRow* r) { return tag.of(r->techniques); })) {
      out.push_back(tag);
    }
  }
  return out;
}

// The rows of each leaderboard, in time order (then id).
std::map<int64_t, std::vector<const TechniqueRow*>> by_leaderboard(
    const std::vector<TechniqueRow>& rows) {
  std::map<int64_t, std::vector<const TechniqueRow*>> out;
  for (const TechniqueRow& r : rows) out[r.row.leaderboard_id].push_back(&r);
  for (auto& [id, list] : out) {
    std::stable_sort(list.begin(), list.end(), [](const TechniqueRow* a, const TechniqueRow* b) {
      return std::tie(a->row.submission_time, a->row.submission_id) <
             std::tie(b->row.submission_time, b->row.submission_id);
    });
  }
  return out;
}

std::optional<std::string> runner_of(const std::vector<const TechniqueRow*>& rows) {
  std::map<std::string, uint64_t> counts;
  for (const TechniqueRow* r : rows) {
    if (dataset::qualifies(r->row) && r->row.runner) ++counts[*r->row.runner];
  }
  std::optional<std::string> best;
  uint64_t most = 0;
  for (const auto& [runner, n] : counts) {
    if (n > most) {
      most = n;
      best = runner;
    }
  }
  return best;
}

bool ranks_on(const TechniqueRow& r, const std::optional<std::string>& runner) {
  return r.row.runner == runner && dataset::qualifies(r.row);
}

// The entries of the one ranking `builder` holds (rank at most `limit`, ties kept; 0: all).
std::vector<RankedEntry> entries(const RankingBuilder& builder, int64_t limit) {
  std::vector<Ranking> rankings = builder.finish(limit);
  return rankings.empty() ? std::vector<RankedEntry>{} : std::move(rankings.front().entries);
}

// The median by analysis::quantile_cont (as stats gives it), or none of no value.
std::optional<double> median(std::vector<double> v) {
  if (v.empty()) return std::nullopt;
  std::sort(v.begin(), v.end());
  return quantile_cont(v, 0.5);
}

}  // namespace

std::string_view TechniqueTag::name() const {
  return feature ? techniques::to_string(static_cast<techniques::Feature>(index))
                 : techniques::to_string(static_cast<techniques::Language>(index));
}

bool TechniqueTag::of(const techniques::Techniques& t) const {
  return feature ? t.has(static_cast<techniques::Feature>(index))
                 : t.language == static_cast<techniques::Language>(index);
}

std::optional<std::string> ranking_runner(const std::vector<TechniqueRow>& rows) {
  std::vector<const TechniqueRow*> all;
  for (const TechniqueRow& r : rows) all.push_back(&r);
  return runner_of(all);
}

TechniqueTrend technique_trend(const std::vector<TechniqueRow>& rows, size_t top) {
  TechniqueTrend trend;
  std::vector<TrendRow>& out = trend.rows;
  for (const auto& [id, all] : by_leaderboard(rows)) {
    const auto [first, last] = competition(all);
    for (size_t k = 0; k < all.size(); ++k) {
      if (k >= first && k < last) continue;
      const dataset::Submission& s = all[k]->row;
      trend.outliers.push_back(
          {s.leaderboard_id, s.problem_name, s.submission_id, s.user_id, s.submission_time});
    }
    const std::vector<const TechniqueRow*> list(all.begin() + static_cast<ptrdiff_t>(first),
                                                all.begin() + static_cast<ptrdiff_t>(last));
    const std::vector<TechniqueTag> tags = tags_present(list);
    const std::optional<std::string> runner = runner_of(list);
    const int64_t start = list.front()->row.submission_time;
    RankingBuilder ranking;  // the rows on the ranking's runner up to the week's end
    std::unordered_map<int64_t, const TechniqueRow*> by_id;
    std::vector<RankedEntry> top_entries;  // the top at the end of the week before
    size_t next = 0;
    for (int64_t week = 1; next < list.size(); ++week) {
      const int64_t week_start = start + (week - 1) * kWeek;
      // A row is in the week when it is less than a week after its start (the rows left are at or
      // after it); as a difference, which cannot overflow near the end of int64's range.
      const auto in_week = [&](const TechniqueRow* r) {
        return static_cast<uint64_t>(r->row.submission_time) - static_cast<uint64_t>(week_start) <
               static_cast<uint64_t>(kWeek);
      };
      std::vector<TrendRow> rows_of_week(tags.size());
      std::vector<std::set<std::string_view>> users(tags.size());
      std::set<std::string_view> week_users;
      uint64_t week_submissions = 0;
      bool ranked = false;  // a row joined the ranking this week
      for (; next < list.size() && in_week(list[next]); ++next) {
        const TechniqueRow& r = *list[next];
        ++week_submissions;
        week_users.insert(r.row.user_id);
        for (size_t i = 0; i < tags.size(); ++i) {
          if (!tags[i].of(r.techniques)) continue;
          ++rows_of_week[i].submissions;
          users[i].insert(r.row.user_id);
        }
        if (ranks_on(r, runner)) {
          ranking.add(r.row);
          by_id[r.row.submission_id] = &r;
          ranked = true;
        }
      }
      // A week without a new ranked row keeps the top it started with.
      if (ranked) top_entries = entries(ranking, static_cast<int64_t>(top));
      const size_t top_size = top_entries.size();
      for (size_t i = 0; i < tags.size(); ++i) {
        TrendRow& t = rows_of_week[i];
        t.leaderboard_id = id;
        t.problem_name = list.front()->row.problem_name;
        t.runner = runner;
        t.week = week;
        t.week_start = week_start;
        t.tag = tags[i];
        t.week_submissions = week_submissions;
        t.users = users[i].size();
        t.week_users = week_users.size();
        t.top_size = top_size;
        for (const RankedEntry& e : top_entries) {
          t.top += tags[i].of(by_id.at(e.submission_id)->techniques) ? 1 : 0;
        }
        out.push_back(std::move(t));
      }
    }
  }
  return trend;
}

std::vector<WinnersRow> technique_winners(const std::vector<TechniqueRow>& rows, size_t top) {
  std::vector<WinnersRow> out;
  for (const auto& [id, list] : by_leaderboard(rows)) {
    const std::optional<std::string> runner = runner_of(list);
    RankingBuilder builder;
    std::unordered_map<int64_t, const TechniqueRow*> by_id;
    for (const TechniqueRow* r : list) {
      if (!ranks_on(*r, runner)) continue;
      builder.add(r->row);
      by_id[r->row.submission_id] = r;
    }
    const std::vector<RankedEntry> all = entries(builder, 0);
    if (all.empty()) continue;
    // The users' best kernels in rank order, the top's (rank at most `top`) first.
    std::vector<const TechniqueRow*> ranking;
    size_t cut = 0;
    for (const RankedEntry& e : all) {
      ranking.push_back(by_id.at(e.submission_id));
      cut += e.rank <= static_cast<int64_t>(top) ? 1 : 0;
    }
    const std::vector<TechniqueTag> tags = tags_present(ranking);
    std::vector<WinnersRow> rows_of_board;
    for (const TechniqueTag& tag : tags) {
      WinnersRow w;
      w.leaderboard_id = id;
      w.problem_name = list.front()->row.problem_name;
      w.runner = runner;
      w.tag = tag;
      std::vector<double> with;
      std::vector<double> without;
      for (size_t k = 0; k < ranking.size(); ++k) {
        const bool has = tag.of(ranking[k]->techniques);
        (k < cut ? w.top_kernels : w.rest_kernels) += 1;
        if (has) (k < cut ? w.top_with : w.rest_with) += 1;
        (has ? with : without).push_back(*ranking[k]->row.score);
      }
      w.median_with = median(std::move(with));
      w.median_without = median(std::move(without));
      rows_of_board.push_back(std::move(w));
    }
    const auto lead = [](const WinnersRow& w) {
      const double top_share =
          w.top_kernels == 0 ? 0 : static_cast<double>(w.top_with) / w.top_kernels;
      const double rest_share =
          w.rest_kernels == 0 ? 0 : static_cast<double>(w.rest_with) / w.rest_kernels;
      return top_share - rest_share;
    };
    std::stable_sort(rows_of_board.begin(), rows_of_board.end(),
                     [&](const WinnersRow& a, const WinnersRow& b) { return lead(a) > lead(b); });
    out.insert(out.end(), rows_of_board.begin(), rows_of_board.end());
  }
  return out;
}

}  // namespace kbdata::analysis
