// The spill of compressed code (src/dataset/code_spill.h): every text read back as written, from
// several threads at once, and nothing left in the folder.
#include "dataset/code_spill.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <thread>
#include <vector>

#include "common/error.h"
#include "support/temp_dir.h"

namespace kbdata::dataset {
namespace {

TEST(CodeSpill, ReadsBackEveryTextFromAnyThreadAndLeavesNoFile) {
  testing::TempDir dir("spill");
  std::vector<std::string> texts = {"", "x", std::string(100000, 'a')};
  std::mt19937 rng(3);
  for (int i = 0; i < 200; ++i) {
    std::string t(rng() % 5000, '\0');
    for (char& c : t) c = static_cast<char>(rng() % 256);
    texts.push_back(std::move(t));
  }
  std::vector<CodeSpill::Entry> entries;
  {
    CodeSpill spill(dir.path());
    EXPECT_TRUE(dir.empty());  // unlinked at once
    std::vector<uint8_t> compressed;
    for (const std::string& t : texts) {
      CodeSpill::compress(t, compressed);
      entries.push_back(spill.append(compressed, t.size()));
    }
    std::vector<std::thread> threads;
    std::vector<int> wrong(4, 0);
    for (int w = 0; w < 4; ++w) {
      threads.emplace_back([&, w] {
        std::vector<uint8_t> scratch;
        std::string text;
        for (size_t i = static_cast<size_t>(w); i < texts.size(); i += 4) {
          spill.read(entries[i], scratch, text);
          wrong[static_cast<size_t>(w)] += text != texts[i];
        }
      });
    }
    for (auto& t : threads) t.join();
    for (int w : wrong) EXPECT_EQ(w, 0);
  }
  EXPECT_TRUE(dir.empty());
}

TEST(CodeSpill, AFolderThatCannotHoldItIsAnErrorNamingIt) {
  testing::TempDir dir("spill");
  try {
    CodeSpill spill(dir.file("missing"));
    FAIL() << "no error";
  } catch (const IoError& e) {
    EXPECT_NE(std::string(e.what()).find(dir.file("missing")), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kbdata::dataset
