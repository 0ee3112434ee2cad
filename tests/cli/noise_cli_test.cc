// kbdata noise, top --uncertainty, --epoch and the epoch markers of the plots, run as a user would
// on the medium synthetic set (docs/noise.md).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "support/oracle.h"
#include "support/run_kbdata.h"

namespace kbdata::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr int64_t kDay = 86'400'000'000LL;
constexpr int64_t k598Start = 20423 * kDay;  // 2025-12-01
constexpr int64_t kNov30 = 20422 * kDay;     // the first NVIDIA harness change

std::string data_arg() { return " --data " + medium_data(); }

fs::path temp_path(const std::string& name) {
  return fs::temp_directory_path() / ("kbdata-noise-" + std::to_string(::getpid()) + "-" + name);
}

int64_t micros(const std::string& iso) {
  // "YYYY-MM-DDTHH:MM:SS.ffffffZ" through kbdata's own reading would be circular; days suffice.
  const int y = std::stoi(iso.substr(0, 4)), m = std::stoi(iso.substr(5, 2)),
            d = std::stoi(iso.substr(8, 2));
  const int yy = y - (m <= 2 ? 1 : 0);
  const int era = yy / 400;
  const int yoe = yy - era * 400;
  const int doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  const int64_t days = int64_t{era} * 146097 + doe - 719468;
  const int64_t seconds = std::stoi(iso.substr(11, 2)) * 3600 + std::stoi(iso.substr(14, 2)) * 60 +
                          std::stoi(iso.substr(17, 2));
  return days * kDay + seconds * 1'000'000;
}

TEST(NoiseCli, ReportsEverySourceAndTheChangeOf598) {
  Result r = run("noise -p nvfp4_dual_gemm -f json" + data_arg());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json rows = json::parse(r.out);
  bool combined = false, near = false;
  for (const json& row : rows) {
    EXPECT_EQ(row["leaderboard_id"], 598);
    EXPECT_EQ(row["runner"], "NVIDIA");  // the on-premise B200 machines
    EXPECT_TRUE(row.contains("note"));   // 598's reliability note
    EXPECT_LE(row["sigma_lo"].get<double>(), row["sigma"].get<double>());
    EXPECT_GE(row["sigma_hi"].get<double>(), row["sigma"].get<double>());
    if (row["source"] == "near_identical") {
      near = true;
      EXPECT_GE(row["pairs"].get<int64_t>(), 200);
      EXPECT_TRUE(row["change_time"].is_null());
    }
    if (row["source"] == "combined") {
      combined = true;
      ASSERT_FALSE(row["change_time"].is_null());
      const int64_t at = micros(row["change_time"].get<std::string>());
      EXPECT_LT(std::abs(at - (k598Start + 25 * kDay)), 50 * kDay / 20);
      EXPECT_NEAR(row["sigma_before"].get<double>(), 0.04, 0.01);
      EXPECT_NEAR(row["sigma_after"].get<double>(), 0.39, 0.0975);
    }
  }
  EXPECT_TRUE(combined);
  EXPECT_TRUE(near);
  // The table says what the note gains.
  Result table = run("noise -p nvfp4_dual_gemm" + data_arg());
  ASSERT_EQ(table.exit_code, 0);
  EXPECT_NE(table.out.find("noise x"), std::string::npos);
  EXPECT_NE(table.out.find("measured here"), std::string::npos);
}

TEST(NoiseCli, LegacyRowsHaveTheHarnessAndSecretSources) {
  Result r = run("noise -p amd-fp8-mm -f jsonl" + data_arg());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::set<std::string> sources;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    const json row = json::parse(line);
    EXPECT_EQ(row["runner"], "MI300");  // from the runs' machine, an MI300X
    sources.insert(row["source"].get<std::string>());
    if (row["source"] == "harness_err" || row["source"] == "public_secret") {
      EXPECT_NEAR(row["sigma"].get<double>(), 0.03, 0.0075) << line;
    }
  }
  EXPECT_TRUE(sources.count("harness_err"));
  EXPECT_TRUE(sources.count("public_secret"));
  EXPECT_TRUE(sources.count("combined"));
}

TEST(NoiseCli, PlotShowsTheNoiseOverTimeWithEpochsAndTheChange) {
  const fs::path svg = temp_path("dual.svg");
  Result r = run("noise -p nvfp4_dual_gemm --plot " + svg.string() + data_arg());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string text = read_file(svg.string());
  EXPECT_NE(text.find("data-style=\"line\""), std::string::npos);
  // 598's window (2025-12-01 to 2026-01-20) holds the changes of 12-02, 12-03, 12-23, 01-13.
  EXPECT_NE(text.find(">input generators</text>"), std::string::npos);
  EXPECT_NE(text.find(">evaluation</text>"), std::string::npos);
  EXPECT_NE(text.find(">noise x"), std::string::npos);
  fs::remove(svg);
  // progression and records plots mark the epochs too.
  const fs::path records = temp_path("records.svg");
  r = run("records -p nvfp4_dual_gemm --plot " + records.string() + data_arg());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(read_file(records.string()).find("class=\"marker\""), std::string::npos);
  fs::remove(records);
}

TEST(NoiseCli, EpochKeepsOneEpoch) {
  Result r = run("top -p nvfp4_gemm -n 0 --epoch 0 -f json" + data_arg());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json before = json::parse(r.out);
  ASSERT_FALSE(before.empty());
  for (const json& row : before) {
    EXPECT_LT(micros(row["submission_time"].get<std::string>()), kNov30);
  }
  r = run("top -p nvfp4_gemm -n 0 --epoch 1 -f json" + data_arg());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const json& row : json::parse(r.out)) {
    const int64_t t = micros(row["submission_time"].get<std::string>());
    EXPECT_GE(t, kNov30);
    EXPECT_LT(t, kNov30 + 2 * kDay);
  }
}

TEST(NoiseCli, EpochFiltersRecordsAndFastestToo) {
  // 2025-12-03 to 2025-12-23: epoch 3 of the NVIDIA problems.
  for (const std::string& command : {std::string("records -p nvfp4_dual_gemm --epoch 3 -f json"),
                                     std::string("fastest -p nvfp4_dual_gemm --epoch 3 -f json")}) {
    Result r = run(command + data_arg());
    ASSERT_EQ(r.exit_code, 0) << command << ": " << r.err;
    const json rows = json::parse(r.out);
    ASSERT_FALSE(rows.empty()) << command;
    for (const json& row : rows) {
      const int64_t t = micros(row["submission_time"].get<std::string>());
      EXPECT_GE(t, kNov30 + 3 * kDay) << command;
      EXPECT_LT(t, kNov30 + 23 * kDay) << command;
    }
  }
}

TEST(NoiseCli, TopWithUncertainty) {
  Result r = run("top -p nvfp4_gemm -n 0 --uncertainty -f json" + data_arg());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json rows = json::parse(r.out);
  ASSERT_GT(rows.size(), 10u);
  size_t tied = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const json& row = rows[i];
    const double score = row["score"], lo = row["score_lo"], hi = row["score_hi"];
    EXPECT_LT(lo, score);
    EXPECT_GT(hi, score);
    EXPECT_NEAR(std::log(hi / score),
                1.959963984540054 * row["sigma"].get<double>() /
                    std::sqrt(row["measurements"].get<double>()),
                1e-9);
    EXPECT_LE(row["rank_best"].get<int64_t>(), row["rank"].get<int64_t>());
    EXPECT_GE(row["rank_worst"].get<int64_t>(), row["rank"].get<int64_t>());
    const bool above = i > 0 && rows[i - 1]["score_hi"].get<double>() >= lo;
    const bool below = i + 1 < rows.size() && hi >= rows[i + 1]["score_lo"].get<double>();
    EXPECT_EQ(row["tied"].get<bool>(), above || below) << i;
    tied += row["tied"].get<bool>() ? 1 : 0;
  }
  EXPECT_GT(tied, 0u);  // with sigma 0.03 some neighbours always overlap
  // A limit shows the first ranks with the intervals of the whole ranking.
  Result top3 = run("top -p nvfp4_gemm -n 3 --uncertainty -f json" + data_arg());
  ASSERT_EQ(top3.exit_code, 0) << top3.err;
  const json three = json::parse(top3.out);
  ASSERT_GE(three.size(), 3u);
  for (size_t i = 0; i < three.size(); ++i) {
    EXPECT_EQ(three[i]["rank_worst"], rows[i]["rank_worst"]);
    EXPECT_EQ(three[i]["tied"], rows[i]["tied"]);
  }
}

TEST(NoiseCli, UsageErrors) {
  EXPECT_EQ(run("noise --similarity 1.5" + data_arg()).exit_code, 2);
  EXPECT_EQ(run("noise --plot out.png" + data_arg()).exit_code, 2);
}

// An epoch no leaderboard of the selection has is named as such, not answered with "no pairs"
// (the NVIDIA problems have 6 recorded changes: epochs 0 to 6; trimul none: epoch 0 only).
TEST(NoiseCli, AnEpochThatDoesNotExistIsNamed) {
  Result r = run("noise --epoch 99 -p nvfp4_gemm" + data_arg());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "kbdata: --epoch 99: no epoch 99 in problem nvfp4_gemm: nvfp4_gemm (597) has epochs 0 "
            "to 6 (docs/noise.md) (see 'kbdata noise --help')\n");
  EXPECT_EQ(r.out, "");
  r = run("noise --epoch 1 -p trimul" + data_arg());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no epoch 1 in problem trimul: trimul (496) has epoch 0 only"),
            std::string::npos)
      << r.err;
  r = run("noise --epoch 7" + data_arg());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no leaderboard has an epoch 7: those with recorded changes of their "
                       "harness have epochs 0 to 6"),
            std::string::npos)
      << r.err;
  r = run("top --leaderboard 597 --epoch -1" + data_arg());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--epoch -1: must be 0"), std::string::npos) << r.err;
  // Every command with --epoch says the same.
  for (const std::string command :
       {"top -p nvfp4_gemm", "records -p nvfp4_gemm", "fastest -p nvfp4_gemm",
        "progression -u tonda -p nvfp4_gemm"}) {
    r = run(command + " --epoch 99" + data_arg());
    EXPECT_EQ(r.exit_code, 2) << command;
    EXPECT_NE(r.err.find("no epoch 99 in problem nvfp4_gemm"), std::string::npos) << r.err;
  }
  // The last epoch that exists is answered.
  EXPECT_EQ(run("noise --epoch 6 -p nvfp4_gemm" + data_arg()).exit_code, 0);
}

}  // namespace
}  // namespace kbdata::testing
