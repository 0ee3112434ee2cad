// A row's identity in a data folder, (submission_id, runner): a flat file gives a submission one
// row per runner, a legacy row has no runner. The one key every map of rows by identity uses (the
// loader's repeats and files already read, the rows a load leaves out, the audit's records faced).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

namespace kbdata::dataset {

// The runner is a number a RunnerNumbers gave: keys compare only when made with the same one.
struct RowKey {
  static constexpr int32_t kNoRunner = -1;

  int64_t submission_id = 0;
  int32_t runner = kNoRunner;

  friend bool operator==(const RowKey&, const RowKey&) = default;
};

struct RowKeyHash {
  size_t operator()(const RowKey& k) const noexcept {
    // Fibonacci hashing of the id with the runner in its top bits: ids are dense, runners few.
    const uint64_t runner = static_cast<uint32_t>(k.runner);
    return static_cast<size_t>((static_cast<uint64_t>(k.submission_id) ^ (runner << 40)) *
                               0x9E3779B97F4A7C15ULL);
  }
};

// Runner spellings (exact bytes) as the small numbers RowKeys hold, in order of first sight.
class RunnerNumbers {
 public:
  // `runner`'s number, given it on first sight; RowKey::kNoRunner for none.
  [[nodiscard]] int32_t number(const std::optional<std::string>& runner);
  // `runner`'s number when it was given one, else nullopt (no key holds it).
  [[nodiscard]] std::optional<int32_t> find(const std::optional<std::string>& runner) const;

  [[nodiscard]] RowKey key(int64_t submission_id, const std::optional<std::string>& runner) {
    return RowKey{submission_id, number(runner)};
  }

 private:
  std::unordered_map<std::string, int32_t> numbers_;
};

}  // namespace kbdata::dataset
