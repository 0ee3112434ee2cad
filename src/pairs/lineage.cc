#include "pairs/lineage.h"

#include <cmath>

#include "similarity/sketch.h"

namespace kbdata::pairs {

double version_similarity(const Version& a, const Version& b) {
  if (a.code_id && a.code_id == b.code_id) return 1;
  if (a.sketch == nullptr || b.sketch == nullptr) return 0;
  return similarity::sketch_similarity(a.sketch, b.sketch);
}

std::vector<std::vector<uint32_t>> split_lineages(const std::vector<Version>& versions,
                                                  const LineageOptions& options) {
  std::vector<std::vector<uint32_t>> lineages;
  // The lineages by how recently they were continued, the most recent last.
  std::vector<uint32_t> recent;
  for (uint32_t v = 0; v < versions.size(); ++v) {
    std::optional<size_t> chosen;  // position in `recent`
    const size_t stop = recent.size() > options.lookback ? recent.size() - options.lookback : 0;
    for (size_t k = recent.size(); k-- > stop;) {
      const std::vector<uint32_t>& lineage = lineages[recent[k]];
      if (version_similarity(versions[lineage.back()], versions[v]) >= options.link_similarity) {
        chosen = k;
        break;
      }
    }
    if (chosen) {
      const uint32_t lineage = recent[*chosen];
      lineages[lineage].push_back(v);
      recent.erase(recent.begin() + static_cast<std::ptrdiff_t>(*chosen));
      recent.push_back(lineage);
    } else {
      recent.push_back(static_cast<uint32_t>(lineages.size()));
      lineages.push_back({v});
    }
  }
  return lineages;
}

std::vector<std::vector<uint32_t>> comparable_stretches(const std::vector<Version>& versions,
                                                        const std::vector<uint32_t>& lineage,
                                                        bool same_epoch,
                                                        std::optional<int64_t> max_gap_us) {
  std::vector<std::vector<uint32_t>> stretches;
  for (size_t k = 0; k < lineage.size(); ++k) {
    const Version& v = versions[lineage[k]];
    bool cut = k == 0;
    if (k > 0) {
      const Version& before = versions[lineage[k - 1]];
      cut = (same_epoch && v.epoch != before.epoch) ||
            (max_gap_us && v.time_us - before.time_us > *max_gap_us);
    }
    if (cut) stretches.emplace_back();
    stretches.back().push_back(lineage[k]);
  }
  return stretches;
}

std::vector<VersionPair> improvement_pairs(const std::vector<Version>& versions,
                                           const std::vector<uint32_t>& stretch, bool all_pairs) {
  std::vector<VersionPair> pairs;
  if (stretch.empty()) return pairs;
  if (all_pairs) {
    for (size_t j = 1; j < stretch.size(); ++j) {
      for (size_t i = 0; i < j; ++i) {
        if (versions[stretch[j]].score < versions[stretch[i]].score) {
          pairs.push_back({stretch[i], stretch[j]});
        }
      }
    }
    return pairs;
  }
  uint32_t best = stretch[0];
  for (size_t k = 1; k < stretch.size(); ++k) {
    if (versions[stretch[k]].score < versions[best].score) {
      pairs.push_back({best, stretch[k]});
      best = stretch[k];
    }
  }
  return pairs;
}

Significance significance(double speedup, std::optional<double> sigma_baseline,
                          std::optional<double> sigma_improved) {
  if (!sigma_baseline || !sigma_improved) return {};
  const double sd =
      std::sqrt(*sigma_baseline * *sigma_baseline + *sigma_improved * *sigma_improved);
  return {sd, std::log(speedup) > kOneSided95 * sd};
}

}  // namespace kbdata::pairs
