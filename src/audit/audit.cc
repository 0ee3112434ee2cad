#include "audit/audit.h"

#include <cmath>
#include <cstdio>

#include "audit/code_rules.h"
#include "audit/score_rules.h"
#include "common/error.h"
#include "source/embedded.h"

namespace kbdata::audit {
namespace {

std::string seconds(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g s", v);
  return buf;
}

}  // namespace

void References::add(const dataset::LeaderboardEntry& entry) {
  if (!entry.reference) return;
  const bool cpp = entry.lang == "cu" || source::is_cpp_source(*entry.reference, "");
  Reference r{normalised_code(*entry.reference, cpp), narrowest_float_bits(*entry.reference, cpp)};
  if (entry.id) by_id_[*entry.id] = r;
  if (!entry.name.empty()) by_name_[entry.name] = std::move(r);
}

const Reference* References::find(const dataset::Submission& s) const {
  if (auto it = by_id_.find(s.leaderboard_id); it != by_id_.end()) return &it->second;
  if (auto it = by_name_.find(s.problem_name); it != by_name_.end()) return &it->second;
  return nullptr;
}

std::vector<Finding> audit_submission(const dataset::Submission& s,
                                      std::optional<std::string_view> code,
                                      const References& references) {
  std::vector<Finding> out;
  if (s.status == "hacked") out.push_back({RuleId::STATUS_HACKED, 0, "status hacked"});
  if (s.score && s.runner && !std::isnan(*s.score)) {
    const std::optional<double> floor = physical_floor(s.problem_name, *s.runner);
    if (floor && *s.score < *floor) {
      out.push_back(
          {RuleId::BELOW_PHYSICAL_FLOOR, 0,
           "score " + seconds(*s.score) + " < floor " + seconds(*floor) + " on " + *s.runner});
    }
  }
  if (!code) return out;
  const Reference* reference = references.find(s);
  CodeContext context;
  context.cpp_file = source::is_cpp_source(*code, s.file_name.value_or(""));
  if (reference != nullptr) {
    context.reference_float_bits = reference->float_bits;
    context.reference_normalised = &reference->normalised;
  }
  std::vector<Finding> found;
  try {
    found = audit_code(*code, context);
  } catch (const std::bad_alloc&) {
    throw Error("out of memory auditing the code of submission " + std::to_string(s.submission_id) +
                    " (" +
                    (s.problem_name.empty() ? "leaderboard " + std::to_string(s.leaderboard_id)
                                            : s.problem_name) +
                    (s.runner ? " on " + *s.runner : "") + ", " + std::to_string(code->size()) +
                    " bytes of code); ",
                OptionName("threads", "1"), " reads one code at a time");
  }
  // Score rules first, then the code rules in rule order.
  out.insert(out.end(), std::make_move_iterator(found.begin()),
             std::make_move_iterator(found.end()));
  return out;
}

std::string jump_text(double score, double record) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "score %.4g s < record %.4g s / %g", score, record, kJumpFactor);
  return buf;
}

}  // namespace kbdata::audit
