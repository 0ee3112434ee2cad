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
  EXPECT_EQ(closest_name("topp", kCommands), "top");
  EXPECT_EQ(closest_name("tpo", kCommands), "top");  // one transposition in three characters
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

// A name is close only when it takes at most one edit per three characters of the longer name:
// "foo" is two edits from "top" (two of its three characters), which is no hint but noise.
TEST(ClosestName, SaysNothingForNamesThatShareTooLittle) {
  EXPECT_EQ(closest_name("foo", kCommands), std::nullopt);
  EXPECT_EQ(closest_name("bar", kCommands), std::nullopt);
  EXPECT_EQ(closest_name("cut", kCommands), "cat");   // one edit in three characters
  EXPECT_EQ(closest_name("shw", kCommands), "show");  // one edit in four
  const std::vector<std::string> runners = {"A100", "B200", "H100", "L4"};
  EXPECT_EQ(closest_name("T4", runners), std::nullopt);  // one edit in two characters
  EXPECT_EQ(closest_name("H10", runners), "H100");       // a prefix
  EXPECT_EQ(closest_name("H1000", runners), "H100");     // one edit in five
  EXPECT_EQ(closest_name("X900", runners), std::nullopt);
  const std::vector<std::string> options = {"--limit", "--top", "--format"};
  EXPECT_EQ(closest_name("--foo", options), std::nullopt);  // two edits in five
  EXPECT_EQ(closest_name("--limt", options), "--limit");
  EXPECT_EQ(closest_name("--fromat", options), "--format");
}

TEST(DidYouMean, IsASuffixOrNothing) {
  EXPECT_EQ(did_you_mean("sho", kCommands), "; did you mean 'show'?");
  EXPECT_EQ(did_you_mean("qqqqqqq", kCommands), "");
}

}  // namespace
}  // namespace kbdata
