// kbdata pairs on the `medium` synthetic set (both schema families): every pair is two rows of the
// data, of one user, problem and runner, in time order, whose score ratio is the pair's speedup;
// each significance is the one the leaderboard's measured noise (kbdata noise) gives.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "support/oracle.h"
#include "support/run_kbdata.h"
#include "support/temp_dir.h"

namespace {

using kbdata::testing::lines;
using kbdata::testing::read_file;
using kbdata::testing::run;
using nlohmann::json;

std::string runner_key(const json& j) { return j["runner"].is_null() ? "" : j["runner"]; }

TEST(PairsMedium, EveryPairIsTwoRowsOfOneSeriesAndTheirScoreRatio) {
  const std::string& data = kbdata::testing::medium_data();
  kbdata::testing::TempDir dir("pairs-medium");
  const auto r = run("pairs --data " + data + " --out " + dir.file("p.jsonl"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = run("submissions --data " + data + " -f jsonl");
  ASSERT_EQ(rows.exit_code, 0) << rows.err;
  std::map<std::pair<int64_t, std::string>, json> by_id;
  for (const std::string& line : lines(rows.out)) {
    json j = json::parse(line);
    const std::pair<int64_t, std::string> key{j["submission_id"].get<int64_t>(), runner_key(j)};
    by_id[key] = std::move(j);
  }
  const auto noise = run("noise --data " + data + " -f jsonl");
  ASSERT_EQ(noise.exit_code, 0) << noise.err;
  // sigma of the series with a combined estimate and no change of level.
  std::map<std::pair<int64_t, std::string>, double> sigma;
  for (const std::string& line : lines(noise.out)) {
    const json j = json::parse(line);
    if (j["source"] == "combined" && j["change_time"].is_null()) {
      sigma[{j["leaderboard_id"].get<int64_t>(), runner_key(j)}] = j["sigma"];
    }
  }

  size_t pairs = 0, checked_noise = 0, legacy = 0;
  std::map<std::string, size_t> users;
  for (const std::string& line : lines(read_file(dir.file("p.jsonl")))) {
    const json p = json::parse(line);
    ++pairs;
    const std::string runner = runner_key(p);
    // The first AMD competition's leaderboards: the legacy per-run file.
    const int64_t leaderboard = p["leaderboard_id"].get<int64_t>();
    legacy += leaderboard >= 398 && leaderboard <= 565 ? 1 : 0;
    const auto b = by_id.find({p["baseline_submission_id"].get<int64_t>(), runner});
    const auto i = by_id.find({p["improved_submission_id"].get<int64_t>(), runner});
    ASSERT_NE(b, by_id.end()) << line.substr(0, 300);
    ASSERT_NE(i, by_id.end()) << line.substr(0, 300);
    for (const json* row : {&b->second, &i->second}) {
      EXPECT_EQ((*row)["leaderboard_id"], p["leaderboard_id"]);
      EXPECT_EQ((*row)["problem_name"], p["problem_name"]);
      EXPECT_EQ((*row)["user_id"], p["user_id"]);
      EXPECT_EQ(runner_key(*row), runner);
      EXPECT_EQ((*row)["passed"], true);
    }
    EXPECT_EQ(b->second["code_id"], p["baseline_code_id"]);
    EXPECT_EQ(i->second["code_id"], p["improved_code_id"]);
    const double bs = b->second["score"], is = i->second["score"];
    EXPECT_EQ(p["baseline_score"].get<double>(), bs);
    EXPECT_EQ(p["improved_score"].get<double>(), is);
    EXPECT_EQ(p["speedup"].get<double>(), bs / is);
    EXPECT_GT(bs, is);
    EXPECT_LE(b->second["submission_time"].get<std::string>(),
              i->second["submission_time"].get<std::string>());
    ++users[p["user_id"].get<std::string>()];
    const auto s = sigma.find({p["leaderboard_id"].get<int64_t>(), runner});
    if (s != sigma.end()) {
      ASSERT_FALSE(p["noise_sd"].is_null()) << line.substr(0, 300);
      const double sd = p["noise_sd"];
      EXPECT_NEAR(sd, std::sqrt(2.0) * s->second, 1e-12);
      EXPECT_EQ(p["significant"].get<bool>(), std::log(bs / is) > 1.6448536269514722 * sd);
      ++checked_noise;
    }
  }
  EXPECT_GT(pairs, 1000u);
  EXPECT_GT(legacy, 20u);  // the legacy configs give pairs too (50 at seed 3)
  EXPECT_GT(users.size(), 50u);
  EXPECT_GT(checked_noise, pairs / 2);
}

// --significant keeps exactly the pairs whose `significant` is true, in the same order and with
// the same bytes, and counts the others among the dropped.
TEST(PairsMedium, SignificantKeepsExactlyThePairsAboveTheNoise) {
  const std::string& data = kbdata::testing::medium_data();
  kbdata::testing::TempDir dir("pairs-significant");
  const auto all = run("pairs --data " + data + " --out " + dir.file("all.jsonl"));
  ASSERT_EQ(all.exit_code, 0) << all.err;
  const auto some =
      run("pairs --data " + data + " --significant --out " + dir.file("significant.jsonl"));
  ASSERT_EQ(some.exit_code, 0) << some.err;
  std::vector<std::string> expected;
  size_t total = 0;
  for (const std::string& line : lines(read_file(dir.file("all.jsonl")))) {
    ++total;
    if (json::parse(line)["significant"] == true) expected.push_back(line);
  }
  const std::vector<std::string> got = lines(read_file(dir.file("significant.jsonl")));
  EXPECT_EQ(got, expected);
  ASSERT_GT(expected.size(), 10u);
  ASSERT_LT(expected.size(), total);
  // The counts add up: every candidate is written or dropped once, by the first reason that
  // applies (not_significant before no_change). The no-change pairs of the full run that are not
  // significant are not_significant here, so that count is at least the full run's others.
  auto count = [&](const std::string& label) -> size_t {
    const size_t at = some.out.find(label);
    EXPECT_NE(at, std::string::npos) << label << "\n" << some.out;
    return at == std::string::npos ? 0 : std::stoul(some.out.substr(at + label.size()));
  };
  const size_t not_significant = count("dropped: not above the noise");
  EXPECT_EQ(count("candidate pairs") - count("dropped: no real change") - not_significant,
            got.size());
  EXPECT_EQ(count("pairs written"), got.size());
  EXPECT_GE(not_significant, total - got.size());
  const std::string card = read_file(dir.file("significant.jsonl.card.md"));
  EXPECT_NE(card.find("| dropped: not above the noise | " + std::to_string(not_significant) + " |"),
            std::string::npos)
      << card;
}

}  // namespace
