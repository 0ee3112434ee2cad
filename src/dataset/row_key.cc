#include "dataset/row_key.h"

namespace kbdata::dataset {

int32_t RunnerNumbers::number(const std::optional<std::string>& runner) {
  if (!runner) return RowKey::kNoRunner;
  return numbers_.try_emplace(*runner, static_cast<int32_t>(numbers_.size())).first->second;
}

std::optional<int32_t> RunnerNumbers::find(const std::optional<std::string>& runner) const {
  if (!runner) return RowKey::kNoRunner;
  const auto it = numbers_.find(*runner);
  if (it == numbers_.end()) return std::nullopt;
  return it->second;
}

}  // namespace kbdata::dataset
