// What a folder knows of its leaderboards besides their rows (docs/data-model.md, "Leaderboards"):
// a leaderboards file's names and gpu_types first, then the registry, then `leaderboard-ID`.
#include "dataset/leaderboard_directory.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kbdata::dataset {
namespace {

LeaderboardEntry entry(int64_t id, std::string name, std::vector<std::string> gpus = {}) {
  LeaderboardEntry e;
  e.id = id;
  e.name = std::move(name);
  e.gpu_types = std::move(gpus);
  return e;
}

TEST(LeaderboardDirectory, NamesComeFromTheFileThenTheRegistryThenTheId) {
  const LeaderboardDirectory registry_only;
  EXPECT_EQ(registry_only.name_of(399), "amd-fp8-mm");
  EXPECT_EQ(registry_only.name_of(999), "leaderboard-999");

  const LeaderboardDirectory dir(
      {entry(399, "amd-fp8-mm-renamed"), entry(999, "future_problem"), entry(1000, "")});
  EXPECT_EQ(dir.name_of(399), "amd-fp8-mm-renamed");  // the file is the truth
  EXPECT_EQ(dir.name_of(999), "future_problem");
  EXPECT_EQ(dir.name_of(1000), "leaderboard-1000");  // a row without a name adds none
  EXPECT_EQ(dir.name_of(398), "amd-identity");       // not in the file: the registry's
}

TEST(LeaderboardDirectory, IdsOfANameAreThoseNamedSo) {
  const LeaderboardDirectory dir({entry(399, "renamed"), entry(999, "future_problem")});
  EXPECT_EQ(dir.ids_named("renamed"), std::vector<int64_t>{399});
  EXPECT_TRUE(dir.ids_named("amd-fp8-mm").empty());  // the file renamed it
  EXPECT_EQ(dir.ids_named("amd-identity"), std::vector<int64_t>{398});
  EXPECT_EQ(dir.ids_named("future_problem"), std::vector<int64_t>{999});
  EXPECT_EQ(dir.ids_named("leaderboard-1234"), std::vector<int64_t>{1234});
  EXPECT_TRUE(dir.ids_named("leaderboard-999").empty());  // 999 has a name
  EXPECT_TRUE(dir.ids_named("leaderboard-").empty());
  EXPECT_TRUE(dir.ids_named("leaderboard-12x").empty());
  EXPECT_TRUE(dir.ids_named("nothing").empty());
}

TEST(LeaderboardDirectory, RunnersComeFromGpuTypesThenTheRegistry) {
  const LeaderboardDirectory dir({entry(399, "amd-fp8-mm", {"MI300", "MI300x8"}), entry(998, "x")});
  EXPECT_EQ(dir.gpu_types(399), (std::vector<std::string>{"MI300", "MI300x8"}));
  EXPECT_EQ(dir.gpu_types(563), std::vector<std::string>{"MI300x8"});  // registry
  EXPECT_TRUE(dir.gpu_types(998).empty());
  EXPECT_TRUE(dir.gpu_types(12345).empty());
  ASSERT_NE(dir.detail(998), nullptr);
  EXPECT_EQ(dir.detail(12345), nullptr);
}

}  // namespace
}  // namespace kbdata::dataset
