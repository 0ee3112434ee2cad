// The synthetic data's kernels against the audit: every planted cheat (synth's planted_cheat) is
// flagged by the rule of its kind, and every other kernel is clean.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "audit/code_rules.h"
#include "synth/code_generator.h"

namespace kbdata::audit {
namespace {

using synth::CodeKey;
using synth::Language;
using synth::PlantedCheat;

const char* expected_rule(PlantedCheat cheat) {
  switch (cheat) {
    case PlantedCheat::CALL_COUNTER_REPLAY:
    case PlantedCheat::IDENTITY_CACHE:
      return "cached-output-replay";
    case PlantedCheat::TIMER_PATCH:
      return "timer-patch";
    case PlantedCheat::RESULT_PIPE:
      return "result-pipe";
    case PlantedCheat::UNSYNCED_STREAM:
      return "unsynced-stream";
    case PlantedCheat::OBFUSCATED_EXEC:
      return "obfuscated-exec";
    case PlantedCheat::FAKE_PRINT:
      return "fake-benchmark-line";
    case PlantedCheat::NONE:
      break;
  }
  return "";
}

TEST(SynthAudit, PlantedCheatsAreFoundAndEveryOtherKernelIsClean) {
  std::map<PlantedCheat, int> planted;
  int clean = 0;
  std::string code;
  for (Language language : {Language::TRITON, Language::CUDA_INLINE, Language::HIP_INLINE,
                            Language::CUTE_DSL, Language::PYTORCH, Language::CUDA_FILE}) {
    for (uint64_t lineage = 0; lineage < 1200; ++lineage) {
      for (uint32_t version = 0; version < 2; ++version) {
        const CodeKey key{lineage * 7919 + 13, version, language};
        code.clear();
        synth::generate_code(key, "nvfp4_gemm", code);
        CodeContext context;
        context.cpp_file = language == Language::CUDA_FILE;
        context.reference_float_bits = 16;  // synth's references name bfloat16
        const std::vector<Finding> findings = audit_code(code, context);
        const PlantedCheat cheat = synth::planted_cheat(key);
        std::string fired;
        for (const Finding& f : findings) fired += std::string(rule(f.rule).name) + " ";
        if (cheat == PlantedCheat::NONE) {
          EXPECT_EQ(verdict_of(findings), Verdict::CLEAN)
              << synth::to_string(language) << " " << key.lineage << "." << version
              << " fired: " << fired;
          ++clean;
        } else {
          ++planted[cheat];
          EXPECT_NE(verdict_of(findings), Verdict::CLEAN) << synth::to_string(cheat);
          EXPECT_NE(fired.find(std::string(expected_rule(cheat)) + " "), std::string::npos)
              << synth::to_string(cheat) << " fired: " << fired;
        }
      }
    }
  }
  int total = 0;
  for (const auto& [cheat, n] : planted) total += n;
  // About 1 code in 200, of every kind.
  EXPECT_GT(total, 20);
  EXPECT_LT(total, 150);
  EXPECT_EQ(planted.size(), 7U);
  std::printf("synth kernels: %d clean, %d planted cheats\n", clean, total);
}

}  // namespace
}  // namespace kbdata::audit
