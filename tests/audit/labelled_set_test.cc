// The labelled set (tests/data/audit): small kernels written for the audit, each labelled in its
// first lines (`label: cheat` or `label: honest`, `expect: RULE` for the rule a cheat must fire,
// `reference-float-bits: N` for the problem's reference type). The audit must reach a precision of
// 0.95 and a recall of 0.9 on it (a cheat is found when its verdict is not clean).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "audit/code_rules.h"
#include "source/embedded.h"
#include "support/run_kbdata.h"

namespace kbdata::audit {
namespace {

std::string header_value(const std::string& code, const std::string& key) {
  const size_t at = code.find(key + ": ");
  if (at == std::string::npos || at > 200) return "";
  const size_t begin = at + key.size() + 2;
  return code.substr(begin, code.find('\n', begin) - begin);
}

TEST(LabelledSet, PrecisionAndRecall) {
  int cheats = 0, honest = 0, true_pos = 0, false_pos = 0;
  for (const char* group : {"cheat", "honest"}) {
    const std::filesystem::path dir = std::filesystem::path(KBDATA_TEST_DATA) / "audit" / group;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      const std::string code = kbdata::testing::read_file(entry.path().string());
      const std::string label = header_value(code, "label");
      ASSERT_EQ(label, group) << entry.path();
      CodeContext context;
      context.cpp_file = source::is_cpp_source(code, entry.path().filename().string());
      const std::string bits = header_value(code, "reference-float-bits");
      if (!bits.empty()) context.reference_float_bits = std::stoi(bits);
      const std::vector<Finding> findings = audit_code(code, context);
      const bool flagged = verdict_of(findings) != Verdict::CLEAN;
      std::string fired;
      for (const Finding& f : findings) fired += std::string(rule(f.rule).name) + " ";
      if (label == "cheat") {
        ++cheats;
        true_pos += flagged;
        const std::string expect = header_value(code, "expect");
        ASSERT_TRUE(find_rule(expect).has_value()) << entry.path() << ": " << expect;
        EXPECT_NE(fired.find(expect + " "), std::string::npos)
            << entry.path() << " fired: " << fired;
      } else {
        ++honest;
        false_pos += flagged;
        EXPECT_FALSE(flagged) << entry.path() << " fired: " << fired;
      }
    }
  }
  EXPECT_GE(cheats, 20);
  EXPECT_GE(honest, 20);
  const double precision =
      true_pos + false_pos == 0 ? 0.0 : double(true_pos) / (true_pos + false_pos);
  const double recall = double(true_pos) / cheats;
  EXPECT_GE(precision, 0.95);
  EXPECT_GE(recall, 0.9);
  std::printf("labelled set: %d cheats, %d honest; precision %.3f, recall %.3f\n", cheats, honest,
              precision, recall);
}

}  // namespace
}  // namespace kbdata::audit
