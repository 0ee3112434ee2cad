// The labelled set of tests/data/techniques/ (written for these tests from public descriptions
// of such kernels; README.md there): each kernel's language, technologies, feature tags, autotune
// configurations, kernels and shape branches as expected.jsonl gives them.
#include <gtest/gtest.h>

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
  while (std::getline(expected, line)) {
    if (line.empty()) continue;
    const auto e = nlohmann::json::parse(line);
    const std::string file = e["file"];
    listed.insert(file);
    const Techniques t = classify(read(dir / file), file);
    ++kernels;
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
  EXPECT_GE(kernels, 30U);
  EXPECT_EQ(languages.size(), kLanguages - 1);
  EXPECT_EQ(features.size(), kFeatures);
}

}  // namespace
}  // namespace kbdata::techniques
