#include "cli/decontaminate_options.h"

#include "common/error.h"

namespace kbdata::cli {

void add_decontaminate_options(CLI::App& cmd, std::optional<std::string>& path,
                               pairs::DecontaminationOptions& options, const std::string& what) {
  cmd.add_option("--decontaminate", path, what);
  cmd.add_option("--decontaminate-column", options.column,
                 "The set's Parquet column of code (default: code)");
  cmd.add_option("--ngram", options.ngram,
                 "Tokens (identifiers and literals; punctuation is none) per n-gram of the "
                 "overlap test")
      ->capture_default_str();
  cmd.add_option("--ngram-share", options.ngram_share,
                 "A code overlaps when more than this share of its distinct n-grams is in the set "
                 "(0: any one)")
      ->capture_default_str();
  cmd.add_option("--decontaminate-threshold", options.threshold,
                 "Estimated Jaccard similarity to an item of the set at or above which a code "
                 "overlaps it")
      ->capture_default_str();
}

std::shared_ptr<const pairs::BenchmarkSet> load_decontamination_set(
    const std::optional<std::string>& path, const pairs::DecontaminationOptions& options) {
  if (path) {
    return std::make_shared<const pairs::BenchmarkSet>(pairs::BenchmarkSet::load(*path, options));
  }
  if (const pairs::DecontaminationOptions defaults;
      options.column || options.ngram != defaults.ngram ||
      options.ngram_share != defaults.ngram_share || options.threshold != defaults.threshold) {
    throw UsageError(
        "--decontaminate-column, --ngram, --ngram-share and --decontaminate-threshold tune "
        "--decontaminate PATH: give it");
  }
  return nullptr;
}

}  // namespace kbdata::cli
