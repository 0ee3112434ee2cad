#include "analysis/near_duplicates.h"

#include "similarity/sketch.h"

namespace kbdata::analysis {

dataset::PrepareStep near_duplicate_step() {
  dataset::PrepareStep step;
  step.key = "near-duplicates";
  step.prepare = [](dataset::Submission& s, std::optional<std::string_view> code) {
    if (code && !code->empty()) s.prepared = similarity::byte_sketch(*code);
  };
  step.bytes = [](const std::any& v) {
    const auto* sketch = std::any_cast<similarity::ByteSketch>(&v);
    return sketch == nullptr ? size_t{0} : sizeof(similarity::ByteSketch) + sketch->capacity();
  };
  return step;
}

}  // namespace kbdata::analysis
