// kbdata show --near-duplicates against an oracle written here: the exact Jaccard similarity of
// the 5-byte ASCII-lower-cased shingle sets of every code of the leaderboard (what the command
// estimates from 256 one-byte MinHash bins), on the bundled sample.
#include <gtest/gtest.h>

#include <cctype>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "support/run_kbdata.h"

namespace {

using kbdata::testing::run;
using nlohmann::json;

const std::string kData = " --data " + std::string(KBDATA_SOURCE_DIR) + "/data/sample";

std::set<std::string> shingles(const std::string& code) {
  std::string lowered = code;
  for (char& c : lowered) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  std::set<std::string> out;
  if (lowered.size() < 5) {
    if (!lowered.empty()) out.insert(lowered);
    return out;
  }
  for (size_t i = 0; i + 5 <= lowered.size(); ++i) out.insert(lowered.substr(i, 5));
  return out;
}

double jaccard(const std::set<std::string>& a, const std::set<std::string>& b) {
  size_t both = 0;
  for (const std::string& s : a) both += b.count(s);
  const size_t either = a.size() + b.size() - both;
  return either == 0 ? 1.0 : static_cast<double>(both) / static_cast<double>(either);
}

TEST(NearDuplicatesCli, AgreeWithTheExactJaccardOfTheShingles) {
  const auto rows = run("submissions -p nvfp4_dual_gemm -c submission_id,code -f jsonl" + kData);
  ASSERT_EQ(rows.exit_code, 0) << rows.err;
  std::map<int64_t, std::set<std::string>> codes;
  std::istringstream lines(rows.out);
  for (std::string line; std::getline(lines, line);) {
    const json r = json::parse(line);
    if (r["code"].is_string()) codes[r["submission_id"]] = shingles(r["code"]);
  }
  ASSERT_GT(codes.size(), 50U);
  size_t checked = 0;
  for (const int64_t target : {int64_t{30000856}, int64_t{30000287}}) {
    ASSERT_TRUE(codes.contains(target));
    const auto near = run("show " + std::to_string(target) + " --near-duplicates -f json" + kData);
    ASSERT_EQ(near.exit_code, 0) << near.err;
    const json found = json::parse(near.out);
    ASSERT_FALSE(found.empty());
    std::set<int64_t> reported;
    double previous = 1;
    for (const json& r : found) {
      const int64_t id = r["submission_id"];
      EXPECT_NE(id, target);
      const double similarity = r["similarity"];
      EXPECT_LE(similarity, previous) << "most similar first";
      previous = similarity;
      EXPECT_GE(similarity, 0.8);
      ASSERT_TRUE(codes.contains(id));
      // 0.8 less four standard errors of the estimate.
      EXPECT_GE(jaccard(codes[target], codes[id]), 0.7)
          << id << " reported, estimated " << similarity;
      reported.insert(id);
    }
    for (const auto& [id, set] : codes) {
      if (id == target) continue;
      const double j = jaccard(codes[target], set);
      if (j >= 0.9) {
        EXPECT_TRUE(reported.contains(id)) << id << " has exact Jaccard " << j;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 3U);
}

TEST(NearDuplicatesCli, ThresholdOnlyWithTheFlagAndInRange) {
  EXPECT_EQ(run("show 30000856 --threshold 0.5" + kData).exit_code, 2);
  const auto high = run("show 30000856 --near-duplicates --threshold 1.5" + kData);
  EXPECT_EQ(high.exit_code, 2);
  EXPECT_NE(high.err.find("expected a similarity in (0, 1]"), std::string::npos) << high.err;
  // A higher threshold keeps a subset.
  const json all = json::parse(run("show 30000856 --near-duplicates -f json" + kData).out);
  const json strict =
      json::parse(run("show 30000856 --near-duplicates --threshold 0.99 -f json" + kData).out);
  EXPECT_LT(strict.size(), all.size());
  for (const json& r : strict) EXPECT_GE(r["similarity"].get<double>(), 0.99);
}

}  // namespace
