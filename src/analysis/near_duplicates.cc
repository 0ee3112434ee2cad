#include "analysis/near_duplicates.h"

#include <algorithm>

#include "analysis/noise.h"

namespace kbdata::analysis {

namespace {
constexpr uint8_t kEmptyByte = 0xFF;
}  // namespace

ByteSketch byte_sketch(std::string_view code) {
  const CodeSketch full = code_sketch(code);
  ByteSketch out;
  out.reserve(full.size());
  for (uint32_t v : full) {
    out.push_back(v == kEmptySketchBin ? kEmptyByte : static_cast<uint8_t>(v % 255));
  }
  return out;
}

std::optional<double> byte_sketch_similarity(const ByteSketch& a, const ByteSketch& b) {
  if (a.size() != kSketchBins || b.size() != kSketchBins) return std::nullopt;
  size_t used = 0;
  size_t equal = 0;
  for (size_t i = 0; i < kSketchBins; ++i) {
    const bool both_empty = a[i] == kEmptyByte && b[i] == kEmptyByte;
    used += both_empty ? 0 : 1;
    equal += !both_empty && a[i] == b[i] ? 1 : 0;
  }
  if (used == 0) return std::nullopt;
  constexpr double kChance = 1.0 / 255;
  const double r = static_cast<double>(equal) / static_cast<double>(used);
  return std::clamp((r - kChance) / (1 - kChance), 0.0, 1.0);
}

dataset::PrepareStep near_duplicate_step() {
  dataset::PrepareStep step;
  step.key = "near-duplicates";
  step.prepare = [](dataset::Submission& s, std::optional<std::string_view> code) {
    if (code && !code->empty()) s.prepared = byte_sketch(*code);
  };
  step.bytes = [](const std::any& v) {
    const auto* sketch = std::any_cast<ByteSketch>(&v);
    return sketch == nullptr ? size_t{0} : sizeof(ByteSketch) + sketch->capacity();
  };
  return step;
}

}  // namespace kbdata::analysis
