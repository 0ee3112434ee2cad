// The labelled set (tests/data/audit): small kernels written for the audit from public
// descriptions of cheats and of honest kernels, each labelled in its first lines (`label: cheat` or
// `label: honest`, `expect: RULE` for the rule a cheat must fire, `reference-float-bits: N` for the
// problem's reference type). The audit must find at least 9 in 10 cheats (a verdict of suspicious
// or cheat), call no honest kernel `cheat`, and call at most 5% of them suspicious.
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
  if (at == std::string::npos || at > 300) return "";
  const size_t begin = at + key.size() + 2;
  return code.substr(begin, code.find('\n', begin) - begin);
}

TEST(LabelledSet, RecallAndFalsePositives) {
  int cheats = 0, honest = 0, found = 0, honest_cheat = 0, honest_suspicious = 0;
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
      // The screen never changes a finding.
      EXPECT_EQ(findings, audit_code_in_full(code, context)) << entry.path();
      const Verdict verdict = verdict_of(findings);
      std::string fired;
      for (const Finding& f : findings) fired += std::string(rule(f.rule).name) + " ";
      if (label == "cheat") {
        ++cheats;
        found += verdict != Verdict::CLEAN;
        const std::string expect = header_value(code, "expect");
        ASSERT_TRUE(find_rule(expect).has_value()) << entry.path() << ": " << expect;
        EXPECT_NE(fired.find(expect + " "), std::string::npos)
            << entry.path() << " fired: " << fired;
      } else {
        ++honest;
        honest_cheat += verdict == Verdict::CHEAT;
        honest_suspicious += verdict == Verdict::SUSPICIOUS;
        EXPECT_NE(verdict, Verdict::CHEAT) << entry.path() << " fired: " << fired;
        if (verdict == Verdict::SUSPICIOUS) {
          std::printf("honest and suspicious: %s (%s)\n", entry.path().filename().c_str(),
                      fired.c_str());
        }
      }
    }
  }
  EXPECT_GE(cheats, 40);
  EXPECT_GE(honest, 60);
  const double recall = double(found) / cheats;
  EXPECT_GE(recall, 0.9);
  EXPECT_EQ(honest_cheat, 0);
  EXPECT_LE(honest_suspicious, honest * 5 / 100);
  std::printf(
      "labelled set: %d cheats, %d honest; recall %.3f (%d found); honest kernels called cheat "
      "%d, suspicious %d\n",
      cheats, honest, recall, found, honest_cheat, honest_suspicious);
}

}  // namespace
}  // namespace kbdata::audit
