#include "dataset/registry.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

namespace kbdata::dataset {
namespace {

TEST(Registry, HoldsEveryConfigOfTheDataSet) {
  std::set<std::string> names;
  for (const ConfigInfo& c : configs()) names.insert(c.name);
  for (const char* name :
       {"amd_submissions", "amd_successful_submissions", "nvidia_nvfp4_submissions",
        "amd_1_1m_competition", "trimul_submissions", "helion_b200_nebius", "pmpp_v2_submissions",
        "linalg_submissions", "leaderboards"}) {
    EXPECT_TRUE(names.count(name)) << name;
  }
  EXPECT_EQ(names.size(), 9u);
}

TEST(Registry, FindsLeaderboardsProblemsAndFiles) {
  auto refs = find_leaderboard(697);
  ASSERT_EQ(refs.size(), 1u);
  EXPECT_EQ(refs[0].leaderboard->name, "modal_nvfp4_dual_gemm");
  EXPECT_EQ(refs[0].config->name, "nvidia_nvfp4_submissions");
  EXPECT_EQ(find_leaderboard(399).size(), 2u);  // in both AMD legacy configs
  EXPECT_TRUE(find_leaderboard(773).empty());   // qr: excluded from the data set
  // The PMPP names are published with their `_v2`.
  EXPECT_TRUE(find_problem("histogram").empty());
  ASSERT_EQ(find_problem("histogram_v2").size(), 1u);
  EXPECT_FALSE(find_problem("histogram_v2")[0].leaderboard->id.has_value());
  EXPECT_EQ(find_problem("histogram_v2")[0].leaderboard->ranking_by, RankingBy::LAST);
  EXPECT_EQ(find_config("submissions.parquet")->family, SchemaFamily::LEGACY_RUNS);
  EXPECT_EQ(find_config("nope"), nullptr);
}

TEST(Registry, KnowsTheRunnersOfItsLeaderboards) {
  // The NVFP4 config's on-premise machines are the runner NVIDIA; Modal's are B200; 730 has both.
  EXPECT_EQ(find_leaderboard(597)[0].leaderboard->runners, std::vector<std::string>{"NVIDIA"});
  EXPECT_EQ(find_leaderboard(697)[0].leaderboard->runners, std::vector<std::string>{"B200"});
  EXPECT_EQ(find_leaderboard(730)[0].leaderboard->runners,
            (std::vector<std::string>{"NVIDIA", "B200"}));
  EXPECT_EQ(find_leaderboard(399)[0].leaderboard->runners, std::vector<std::string>{"MI300"});
  EXPECT_EQ(find_leaderboard(563)[0].leaderboard->runners, std::vector<std::string>{"MI300x8"});
}

TEST(Registry, KnowsWhatItKnowsAndAssumesGeomElsewhere) {
  EXPECT_TRUE(is_registered(597, "anything"));      // a known id
  EXPECT_TRUE(is_registered(12345, "sort_v2"));     // PMPP: ids not published, the name is known
  EXPECT_FALSE(is_registered(801, "fp8_gemm_v3"));  // neither
  EXPECT_FALSE(is_registered(12345, "sort"));       // the old invented name
  EXPECT_EQ(ranking_by_of(399), RankingBy::GEOM);
  EXPECT_EQ(ranking_by_of(801), RankingBy::GEOM);  // assumed
}

TEST(Registry, NotesSitWithTheirLeaderboards) {
  EXPECT_NE(note_for(598).find("unreliable"), std::string_view::npos);
  EXPECT_EQ(note_for(697), "");
  for (int64_t id : {766, 767, 768, 769, 770}) EXPECT_NE(note_for(id), "") << id;
  EXPECT_NE(note_for(496), "");
  EXPECT_EQ(note_for(12345), "");
}

}  // namespace
}  // namespace kbdata::dataset
