// The pairs' diffs and their "no real change" text (src/pairs/diff.h). Diffs are checked by GNU
// patch, which must turn the first text into the second with each of them.
#include "pairs/diff.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <random>
#include <string>

#include "support/run_kbdata.h"
#include "support/temp_dir.h"

namespace kbdata::pairs {
namespace {

void write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// What GNU patch makes of `before` with `diff`, or "patch failed".
std::string patched(const std::string& before, const std::string& diff) {
  testing::TempDir dir("diff");
  write(dir.file("before"), before);
  write(dir.file("diff"), diff);
  const std::string command = "cd '" + dir.path() +
                              "' && patch --quiet --force --batch -o after before diff "
                              ">/dev/null 2>&1";
  if (std::system(command.c_str()) != 0) return "patch failed";
  return testing::read_file(dir.file("after"));
}

// GNU diff -u's hunks (its header lines left out) of two texts.
std::string gnu_diff(const std::string& before, const std::string& after) {
  testing::TempDir dir("gnudiff");
  write(dir.file("a"), before);
  write(dir.file("b"), after);
  const std::string command =
      "cd '" + dir.path() + "' && diff -u a b | tail -n +3 > out 2>/dev/null; true";
  if (std::system(command.c_str()) != 0) return "diff failed";
  return testing::read_file(dir.file("out"));
}

TEST(UnifiedDiff, EqualTextsHaveNone) {
  EXPECT_EQ(unified_diff("", "", "x.py"), "");
  EXPECT_EQ(unified_diff("a\nb\n", "a\nb\n", "x.py"), "");
}

TEST(UnifiedDiff, WritesWhatGnuDiffWrites) {
  const std::string before = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n";
  const std::string after = "1\n2\n3\n4\nfive\n6\n7\n8\n9\n10\n";
  EXPECT_EQ(unified_diff(before, after, "submission.py"),
            "--- a/submission.py\n+++ b/submission.py\n"
            "@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n");
  EXPECT_EQ(gnu_diff(before, after), "@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n");
  for (const auto& [x, y] :
       std::vector<std::pair<std::string, std::string>>{{"a\n", "b\n"},
                                                        {"", "x\ny\n"},
                                                        {"x\ny\n", ""},
                                                        {"a\nb\n", "a\nX\nb\n"},
                                                        {"a\nb", "a\nb\n"}}) {
    const std::string ours = unified_diff(x, y, "f");
    EXPECT_EQ(gnu_diff(x, y), ours.substr(ours.find("@@"))) << x << " -> " << y;
  }
}

TEST(UnifiedDiff, CountsOfOneAndEmptySides) {
  EXPECT_EQ(unified_diff("a\n", "b\n", "f"), "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n");
  EXPECT_EQ(unified_diff("", "x\ny\n", "f"), "--- a/f\n+++ b/f\n@@ -0,0 +1,2 @@\n+x\n+y\n");
  EXPECT_EQ(unified_diff("x\ny\n", "", "f"), "--- a/f\n+++ b/f\n@@ -1,2 +0,0 @@\n-x\n-y\n");
  EXPECT_EQ(unified_diff("a\nb\n", "a\nX\nb\n", "f"),
            "--- a/f\n+++ b/f\n@@ -1,2 +1,3 @@\n a\n+X\n b\n");
}

TEST(UnifiedDiff, MarksALastLineWithoutNewline) {
  EXPECT_EQ(unified_diff("a\nb", "a\nb\n", "f"),
            "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n");
  EXPECT_EQ(patched("a\nb", unified_diff("a\nb", "a\nc", "f")), "a\nc");
}

TEST(UnifiedDiff, FarChangesAreTwoHunksNearOnesOne) {
  std::string before, far_after, near_after;
  for (int i = 1; i <= 30; ++i) {
    before += std::to_string(i) + "\n";
    far_after += (i == 3 || i == 20 ? "x" : std::to_string(i)) + "\n";
    near_after += (i == 3 || i == 9 ? "x" : std::to_string(i)) + "\n";
  }
  const std::string far = unified_diff(before, far_after, "f");
  const std::string near = unified_diff(before, near_after, "f");
  EXPECT_NE(far.find("@@ -1,6 +1,6 @@"), std::string::npos) << far;
  EXPECT_NE(far.find("@@ -17,7 +17,7 @@"), std::string::npos) << far;
  auto hunks = [](const std::string& diff) {
    size_t n = 0;
    for (size_t at = diff.find("\n@@ "); at != std::string::npos; at = diff.find("\n@@ ", at + 1))
      ++n;
    return n;
  };
  EXPECT_EQ(hunks(far), 2u) << far;
  // Lines 4-8 between the changes: 5 kept lines, at most 6, so one hunk.
  EXPECT_EQ(hunks(near), 1u) << near;
  EXPECT_NE(near.find("@@ -1,12 +1,12 @@"), std::string::npos) << near;
  EXPECT_EQ(gnu_diff(before, far_after), far.substr(far.find("@@")));
  EXPECT_EQ(gnu_diff(before, near_after), near.substr(near.find("@@")));
  EXPECT_EQ(patched(before, far), far_after);
  EXPECT_EQ(patched(before, near), near_after);
}

TEST(UnifiedDiff, NamesAreSafeInTheHeader) {
  EXPECT_EQ(unified_diff("a\n", "b\n", "").substr(0, 34), "--- a/submission\n+++ b/submission\n");
  EXPECT_EQ(unified_diff("a\n", "b\n", "../x y\n.py").substr(0, 20), "--- a/.._x_y_.py\n+++");
}

TEST(UnifiedDiff, PatchReproducesRandomEdits) {
  std::mt19937 rng(7);
  const char* pool[] = {"a\n", "b\n", "c\n", "  x = 1\n", "}\n", "\n", "d\r\n", "e"};
  for (int round = 0; round < 150; ++round) {
    std::string before, after;
    const int n = static_cast<int>(rng() % 40);
    for (int i = 0; i < n; ++i) {
      const std::string line = pool[rng() % 7];
      before += line;
      switch (rng() % 5) {
        case 0:
          break;  // deleted
        case 1:
          after += pool[rng() % 7];  // replaced
          break;
        case 2:
          after += line + pool[rng() % 7];  // added after
          break;
        default:
          after += line;
      }
    }
    if (rng() % 4 == 0) before += "e";
    if (rng() % 4 == 0) after += "e";
    const std::string diff = unified_diff(before, after, "k.py");
    if (before == after) {
      EXPECT_EQ(diff, "");
      continue;
    }
    ASSERT_EQ(patched(before, diff), after) << "round " << round << "\n" << diff;
  }
}

TEST(UnifiedDiff, AHugeMiddleIsReplacedWholeAndStillApplies) {
  // 6,000 x 6,000 different middle lines: more than kMaxDiffCells pairs.
  std::string before = "head\n", after = "head\n";
  for (int i = 0; i < 6000; ++i) {
    before += "old " + std::to_string(i) + "\n";
    after += (i % 2 == 0 ? "old " : "new ") + std::to_string(i) + "\n";
  }
  before += "tail\n";
  after += "tail\n";
  const std::string diff = unified_diff(before, after, "f");
  EXPECT_NE(diff.find("@@ -1,6002 +1,6002 @@"), std::string::npos) << diff.substr(0, 200);
  EXPECT_EQ(patched(before, diff), after);
}

TEST(NormalisedCode, DropsPythonCommentsTrailingSpaceAndEmptyLines) {
  const std::string a = "# note v1\nimport torch  # fast\n\n\ndef f(x):   \n    return x\n";
  const std::string b = "# note v2\nimport torch\ndef f(x):\n    return x\r\n";
  EXPECT_EQ(normalised_code(a, "submission.py"), normalised_code(b, "submission.py"));
  EXPECT_EQ(normalised_code(a, "submission.py"), "import torch\ndef f(x):\n    return x\n");
}

TEST(NormalisedCode, KeepsStringsIndentationAndHashesInStrings) {
  EXPECT_NE(normalised_code("x = '#a'\n", "s.py"), normalised_code("x = '#b'\n", "s.py"));
  EXPECT_NE(normalised_code("def f():\n    '''doc 1'''\n", "s.py"),
            normalised_code("def f():\n    '''doc 2'''\n", "s.py"));
  EXPECT_NE(normalised_code("if x:\n  y\n", "s.py"), normalised_code("if x:\ny\n", "s.py"));
}

TEST(NormalisedCode, DropsCppCommentsOfFilesAndOfEmbeddedSources) {
  EXPECT_EQ(normalised_code("// v1\n#include <x>\nint a; /* tile 64 */\n", "k.cu"),
            normalised_code("// v2\n#include <x>\nint a; /* tile 128 */\n", "k.cu"));
  EXPECT_NE(normalised_code("#include <x>\nint a = 64;\n", "k.cu"),
            normalised_code("#include <x>\nint a = 128;\n", "k.cu"));
  const std::string v1 =
      "src = '''\n#include <cuda.h>\n// tile 64\n__global__ void k() {}\n'''\nload_inline(src)\n";
  const std::string v2 =
      "src = '''\n#include <cuda.h>\n// tile 128\n__global__ void k() {}\n'''\nload_inline(src)\n";
  EXPECT_EQ(normalised_code(v1, "submission.py"), normalised_code(v2, "submission.py"));
  // A string that does not read as C++ keeps its "//".
  EXPECT_NE(normalised_code("u = 'http://a'\n", "s.py"),
            normalised_code("u = 'http://b'\n", "s.py"));
  // In a Python file, '#' of a preprocessor line inside C++ is not a Python comment.
  EXPECT_NE(normalised_code("s = '''#include <a>\n__global__ void k(){}'''\n", "s.py"),
            normalised_code("s = '''#include <b>\n__global__ void k(){}'''\n", "s.py"));
}

}  // namespace
}  // namespace kbdata::pairs
