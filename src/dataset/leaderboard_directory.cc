#include "dataset/leaderboard_directory.h"

#include <algorithm>
#include <charconv>

#include "dataset/registry.h"

namespace kbdata::dataset {

namespace {
constexpr std::string_view kUnnamed = "leaderboard-";
}

std::string unnamed_leaderboard(int64_t id) { return std::string(kUnnamed) + std::to_string(id); }

LeaderboardDirectory::LeaderboardDirectory(std::vector<LeaderboardEntry> entries)
    : entries_(std::move(entries)) {}

LeaderboardDirectory LeaderboardDirectory::of(const DataDir& dir) {
  std::vector<LeaderboardEntry> all;
  for (const DataFile* f : leaderboards_files(dir)) {
    std::vector<LeaderboardEntry> rows = read_leaderboards(dir, *f);
    all.insert(all.end(), std::make_move_iterator(rows.begin()),
               std::make_move_iterator(rows.end()));
  }
  return LeaderboardDirectory(std::move(all));
}

const LeaderboardEntry* LeaderboardDirectory::detail(int64_t id) const {
  for (const LeaderboardEntry& e : entries_) {
    if (e.id == id) return &e;
  }
  return nullptr;
}

std::string LeaderboardDirectory::name_of(int64_t id) const {
  if (const LeaderboardEntry* e = detail(id); e != nullptr && !e->name.empty()) return e->name;
  const std::vector<LeaderboardRef> refs = find_leaderboard(id);
  if (!refs.empty()) return refs.front().leaderboard->name;
  return unnamed_leaderboard(id);
}

std::vector<int64_t> LeaderboardDirectory::ids_named(std::string_view name) const {
  std::vector<int64_t> ids;
  for (const LeaderboardEntry& e : entries_) {
    if (e.id && e.name == name) ids.push_back(*e.id);
  }
  for (const LeaderboardRef& ref : find_problem(name)) {
    if (ref.leaderboard->id) ids.push_back(*ref.leaderboard->id);
  }
  if (name.starts_with(kUnnamed)) {
    const std::string_view digits = name.substr(kUnnamed.size());
    int64_t id = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), id);
    if (ec == std::errc() && end == digits.data() + digits.size() && !digits.empty()) {
      ids.push_back(id);
    }
  }
  // Only ids name_of() really gives this name (a leaderboards file may rename a registry id).
  std::erase_if(ids, [&](int64_t id) { return name_of(id) != name; });
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

std::vector<std::string> LeaderboardDirectory::gpu_types(int64_t id) const {
  if (const LeaderboardEntry* e = detail(id); e != nullptr && !e->gpu_types.empty()) {
    return e->gpu_types;
  }
  for (const LeaderboardRef& ref : find_leaderboard(id)) {
    if (!ref.leaderboard->runners.empty()) return ref.leaderboard->runners;
  }
  return {};
}

}  // namespace kbdata::dataset
