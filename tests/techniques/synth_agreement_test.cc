// kbdata techniques against synth's own record of what it wrote (synth::CodeRecord), over every
// submission of the `medium` set of both families (`kbdata synth --scale medium`, seed 1): the
// language, the feature tags, the kernels, the autotune configurations and the shape branches of
// at least 98% of the submissions agree (issue "Techniques"; in fact all of them do).
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <string>
#include <tuple>

#include "dataset/registry.h"
#include "synth/code_generator.h"
#include "synth/population.h"
#include "synth/synth.h"
#include "techniques/techniques.h"

namespace kbdata::techniques {
namespace {

// The record's tags in docs/techniques.md's order, as features_text writes them.
std::string record_features(const synth::CodeRecord& r) {
  Techniques t;
  for (std::string_view f : r.features) {
    const std::optional<Feature> feature = parse_feature(f);
    EXPECT_TRUE(feature) << "synth records a tag docs/techniques.md does not name: " << f;
    if (feature) t.add(*feature);
  }
  return features_text(t);
}

TEST(SynthAgreement, TechniquesAgreeWithWhatSynthWroteOnTheMediumSet) {
  // Distinct (code, problem) pairs with the number of submissions holding them.
  std::map<std::tuple<uint64_t, uint32_t, synth::Language, std::string, bool>, uint64_t> codes;
  for (const dataset::ConfigInfo& config : dataset::configs()) {
    if (config.family == dataset::SchemaFamily::LEADERBOARDS) continue;
    if (config.name == "amd_successful_submissions") continue;  // amd_submissions' rows
    const std::vector<synth::LeaderboardModel> models =
        synth::config_models(config, synth::Scale::MEDIUM);
    const synth::Population population =
        synth::config_population(config, models, synth::Scale::MEDIUM, 1);
    for (const synth::Submission& s : population.submissions) {
      const synth::LeaderboardModel& m = models[s.leaderboard];
      ++codes[{s.code.lineage, s.code.version, s.code.language, m.name, m.cuda_file}];
    }
  }
  uint64_t submissions = 0;
  uint64_t agree = 0;
  std::map<std::string, uint64_t> by_language;
  std::string code;
  int shown = 0;
  for (const auto& [key, count] : codes) {
    const auto& [lineage, version, language, problem, cuda_file] = key;
    code.clear();
    synth::CodeRecord record;
    synth::generate_code({lineage, version, language}, problem, code, &record);
    const Techniques t = classify(code, cuda_file ? "submission.cu" : "submission.py");
    const std::string expected = record_features(record);
    const bool same = to_string(t.language) == record.language && features_text(t) == expected &&
                      t.kernels == record.kernels &&
                      t.autotune_configs == record.autotune_configs &&
                      t.shape_branches == record.shape_branches;
    submissions += count;
    agree += same ? count : 0;
    by_language[std::string(record.language)] += count;
    if (!same && shown++ < 5) {
      ADD_FAILURE() << "disagrees (" << count << " submissions): " << problem << " "
                    << synth::to_string(language) << " " << lineage << "." << version
                    << "\n  synth: " << record.language << " [" << expected << "] kernels "
                    << record.kernels << " configs " << record.autotune_configs << " branches "
                    << record.shape_branches << "\n  kbdata: " << to_string(t.language) << " ["
                    << features_text(t) << "] kernels " << t.kernels << " configs "
                    << t.autotune_configs << " branches " << t.shape_branches;
    }
  }
  ASSERT_GT(submissions, 5000U);
  // Every language synth writes is there.
  for (const char* l : {"triton", "cuda", "hip", "cute_dsl", "pytorch", "cuda_file"}) {
    EXPECT_GT(by_language[l], 0U) << l;
  }
  const double agreement = static_cast<double>(agree) / static_cast<double>(submissions);
  std::printf(
      "techniques agree with synth's record on %llu of %llu submissions (%.4f), %zu codes\n",
      static_cast<unsigned long long>(agree), static_cast<unsigned long long>(submissions),
      agreement, codes.size());
  EXPECT_GE(agreement, 0.98);
}

}  // namespace
}  // namespace kbdata::techniques
