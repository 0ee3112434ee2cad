// The labelled set of tests/data/techniques/ (written for these tests from public descriptions
// of such kernels; README.md there): each kernel's language, technologies, feature tags, autotune
// configurations, kernels and shape branches as expected.jsonl gives them; and the figures issue 44
// sets (language accuracy at least 0.95, every feature tag's F1 at least 0.85), printed.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "techniques/techniques.h"

namespace kbdata::techniques {
namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string joined(const nlohmann::json& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ",") + n.get<std::string>();
  return s;
}

TEST(TechniquesLabelledSet, EveryKernelAsLabelled) {
  const fs::path dir = fs::path(KBDATA_SOURCE_DIR) / "tests/data/techniques";
  std::ifstream expected(dir / "expected.jsonl");
  ASSERT_TRUE(expected) << dir;
  std::set<std::string> languages;
  std::set<std::string> features;
  std::set<std::string> listed;
  std::string line;
  size_t kernels = 0;
  size_t language_right = 0;
  // Per tag: true positives, false positives, false negatives.
  std::array<std::array<size_t, 3>, kFeatures> counts{};
  while (std::getline(expected, line)) {
    if (line.empty()) continue;
    const auto e = nlohmann::json::parse(line);
    const std::string file = e["file"];
    listed.insert(file);
    const Techniques t = classify(read(dir / file), file);
    ++kernels;
    if (to_string(t.language) == e["language"].get<std::string>()) ++language_right;
    for (size_t i = 0; i < kFeatures; ++i) {
      const std::string tag(to_string(static_cast<Feature>(i)));
      bool labelled = false;
      for (const auto& f : e["features"]) labelled |= f.get<std::string>() == tag;
      const bool found = t.has(static_cast<Feature>(i));
      if (found && labelled) ++counts[i][0];
      if (found && !labelled) ++counts[i][1];
      if (!found && labelled) ++counts[i][2];
    }
    EXPECT_EQ(to_string(t.language), e["language"].get<std::string>()) << file;
    EXPECT_EQ(languages_text(t), joined(e["languages_all"])) << file;
    EXPECT_EQ(features_text(t), joined(e["features"])) << file;
    EXPECT_EQ(t.autotune_configs, e["autotune_configs"].get<uint32_t>()) << file;
    EXPECT_EQ(t.kernels, e["kernels"].get<uint32_t>()) << file;
    EXPECT_EQ(t.shape_branches, e["shape_branches"].get<uint32_t>()) << file;
    languages.insert(e["language"].get<std::string>());
    for (const auto& f : e["features"]) features.insert(f.get<std::string>());
  }
  // Every kernel file is labelled, and the set covers every language but `python` and every tag.
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name == "expected.jsonl" || name == "README.md") continue;
    EXPECT_TRUE(listed.contains(name)) << name << " has no expected row";
  }
  const double accuracy = static_cast<double>(language_right) / static_cast<double>(kernels);
  std::printf("techniques labelled set: %zu kernels, language accuracy %.3f\n", kernels, accuracy);
  EXPECT_GE(accuracy, 0.95);
  for (size_t i = 0; i < kFeatures; ++i) {
    const auto [tp, fp, fn] = counts[i];
    const double f1 = tp == 0 ? 0.0 : 2.0 * tp / static_cast<double>(2 * tp + fp + fn);
    std::printf("  %-20s F1 %.3f (%zu found right, %zu wrongly, %zu missed)\n",
                std::string(to_string(static_cast<Feature>(i))).c_str(), f1, tp, fp, fn);
    EXPECT_GE(f1, 0.85) << to_string(static_cast<Feature>(i));
  }
  EXPECT_GE(kernels, 30U);
  EXPECT_EQ(languages.size(), kLanguages - 1);
  EXPECT_EQ(features.size(), kFeatures);
}

}  // namespace
}  // namespace kbdata::techniques
