#include "common/closest_name.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kbdata {
namespace {

const std::vector<std::string> kCommands = {"inspect", "cat",  "convert",     "submissions",
                                            "show",    "top",  "progression", "records",
                                            "fastest", "stats"};

TEST(EditDistance, CountsInsertionsDeletionsSubstitutionsAndTranspositions) {
  EXPECT_EQ(edit_distance("", ""), 0u);
  EXPECT_EQ(edit_distance("abc", ""), 3u);
  EXPECT_EQ(edit_distance("limt", "limit"), 1u);
  EXPECT_EQ(edit_distance("limiit", "limit"), 1u);
  EXPECT_EQ(edit_distance("lumit", "limit"), 1u);
  EXPECT_EQ(edit_distance("lmiit", "limit"), 1u);  // one transposition, not two substitutions
  EXPECT_EQ(edit_distance("H100", "h100"), 0u);    // ASCII case is folded
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
}

TEST(ClosestName, PicksTheNearestWithinTheCutoff) {
  EXPECT_EQ(closest_name("prgression", kCommands), "progression");
  EXPECT_EQ(closest_name("sow", kCommands), "show");
  EXPECT_EQ(closest_name("foo", kCommands), "top");
  EXPECT_EQ(closest_name("prog", kCommands), "progression");  // a prefix
  EXPECT_EQ(closest_name("STATS", kCommands), "stats");
  EXPECT_EQ(closest_name("xyzzy", kCommands), std::nullopt);
  EXPECT_EQ(closest_name("", kCommands), std::nullopt);
  EXPECT_EQ(closest_name("a", kCommands), std::nullopt);  // nothing is 1 edit from "a"
  const std::vector<std::string> problems = {"amd-fp8-mm", "nvfp4_gemm", "nvfp4_gemv", "trimul"};
  EXPECT_EQ(closest_name("nvfp4_gem", problems), "nvfp4_gemm");  // tie: the first
  EXPECT_EQ(closest_name("nvfp4-gemv", problems), "nvfp4_gemv");
  EXPECT_EQ(closest_name("trimull", problems), "trimul");
}

TEST(DidYouMean, IsASuffixOrNothing) {
  EXPECT_EQ(did_you_mean("sho", kCommands), "; did you mean 'show'?");
  EXPECT_EQ(did_you_mean("qqqqqqq", kCommands), "");
}

}  // namespace
}  // namespace kbdata
