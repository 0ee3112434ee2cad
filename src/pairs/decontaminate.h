// Decontamination of kbdata pairs (docs/pairs.md, "Decontamination"): whether a code overlaps a
// benchmark set, so that pairs built from it can be left out of training data that a benchmark
// will later score. Two tests, in this order:
//
//   ngram    more than a share (default half) of the code's distinct token n-grams occur in the set
//            (verbatim passages, whatever their layout): tokens are the identifiers and literals;
//            punctuation and whitespace only separate them, so no run of brackets, commas and
//            operators makes an n-gram, and one shared idiom or import block is a small share
//   minhash  some item's estimated Jaccard similarity with the code, of the dedup shingles (the
//            5-byte lower-cased windows, similarity::code_sketch), is at or above the threshold (a
//            near-copy); candidates come from LSH banding of the 256-bin sketches and each is
//            verified with similarity::sketch_similarity
//
// A BenchmarkSet is built once (from a Parquet column, a folder of files, one file, or texts in
// memory) and checked against many codes, from any number of threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kbdata::pairs {

inline constexpr double kDefaultNgramShare = 0.5;

struct DecontaminationOptions {
  int ngram = 12;  // tokens per n-gram (--ngram), >= 1
  // A code is contaminated by n-grams when the share of its distinct n-grams that occur in the
  // set is more than this (--ngram-share), in [0, 1); 0: any one shared n-gram. The default, half,
  // is more than an import block or one idiom shared with the set can be of a code: it takes a
  // code copied for the most part.
  double ngram_share = kDefaultNgramShare;
  // The estimated Jaccard similarity at or above which a code is a near-copy of an item
  // (--decontaminate-threshold), in (0, 1].
  double threshold = 0.8;
  // The Parquet column holding the benchmark code; nullopt: "code".
  std::optional<std::string> column;
};

enum class Contamination : uint8_t { NONE, NGRAM, MINHASH };

// "none", "ngram", "minhash".
[[nodiscard]] const char* to_string(Contamination c);

// The tokens of `code`, views into it: its identifiers and literals. Each maximal run of
// identifier bytes (A-Z, a-z, 0-9, '_' and every byte >= 0x80, so UTF-8 words stay whole) is one
// token, and a run that starts with a digit (a number) goes on through each '.' followed by a
// digit ("0.5", "1.25e3" are one token each; "a.b" is two). Every other byte (punctuation, ASCII
// whitespace, control bytes) only separates tokens: "x+=1" and "x = 1" are both "x" "1".
[[nodiscard]] std::vector<std::string_view> code_tokens(std::string_view code);

// The hash of every window of `ngram` consecutive tokens of `code`, in text order, repeats
// included; empty when the code has fewer than `ngram` tokens. A token's hash is XXH3-64 of its
// bytes (seed kTokenSeed); a window's is splitmix64_finalize(sum of t[i] * kNgramBase^(ngram - 1 -
// i)) over its token hashes t[0..ngram) modulo 2^64 (similarity/mix.h, a bijection). Two windows
// that differ in one token never share a hash; otherwise they do with probability about 2^-64.
// REQUIRES: ngram >= 1.
[[nodiscard]] std::vector<uint64_t> ngram_hashes(std::string_view code, int ngram);

inline constexpr uint64_t kTokenSeed = 0x6b62646174614e47ULL;  // "kbdataNG"
inline constexpr uint64_t kNgramBase = 0x9e3779b97f4a7c15ULL;  // odd: powers are invertible

// LSH banding of the similarity::kSketchBins = 256 bins: kBands bands of kBandBins bins (bins
// 0..251; the last 4 are in no band). A code and an item whose sketches agree on every bin of some
// band are candidates (a band's key: similarity::band_key, lsh.h); with estimated similarity s that
// happens with probability 1 - (1 - s^7)^36 (0.9998 at s = 0.8). A band whose bins are all empty is
// never a key.
inline constexpr size_t kBands = 36;
inline constexpr size_t kBandBins = 7;

class BenchmarkSet {
 public:
  // Reads the benchmark set at `path` (symlinks followed):
  //  - a Parquet file (its first 4 bytes are "PAR1"): every non-null value of the string column
  //    options.column (default "code"; a BYTE_ARRAY leaf, STRING / ENUM / JSON or unannotated, not
  //    repeated; a dotted path for a struct's field) is one item, decoded as the data set's code
  //    column is (dataset::decode_code: "\x" hex escapes, UTF-8 repair);
  //  - a folder: every regular file under it, recursively, in sorted path order, is one item (its
  //    bytes as they are);
  //  - any other regular file: one item, its whole bytes.
  // Throws UsageError for invalid options (naming the option), a missing column (naming the file,
  // listing its string columns and the closest name) or one of another type, an entry that is
  // neither a regular file nor a folder (a FIFO, socket or device, at `path` or in the folder,
  // named), a folder without a regular file anywhere under it ("no benchmark files in PATH") or a
  // folder symlink leading back to a folder it is in; IoError naming the path when it cannot be
  // read; FormatError / UnsupportedError located at the file for a Parquet file that cannot be
  // read. Every message is one line.
  [[nodiscard]] static BenchmarkSet load(const std::string& path,
                                         const DecontaminationOptions& options);

  // The set of `items`, in memory. Throws UsageError for invalid options.
  [[nodiscard]] static BenchmarkSet from_texts(const std::vector<std::string>& items,
                                               const DecontaminationOptions& options);

  [[nodiscard]] size_t items() const { return items_; }
  // Distinct n-grams of all items.
  [[nodiscard]] size_t ngrams() const { return ngrams_.size(); }
  [[nodiscard]] const DecontaminationOptions& options() const { return options_; }
  // "312 items, 1,234,567 12-grams" (distinct n-grams), for the command's summary.
  [[nodiscard]] std::string describe() const;

  // The share of `code`'s distinct n-grams that occur in the set; nullopt when it has none (fewer
  // tokens than options().ngram). Safe to call from several threads at once.
  [[nodiscard]] std::optional<double> ngram_share(std::string_view code) const;

  // NGRAM when `code` has n-grams and more than options().ngram_share of its distinct ones (with
  // 0: any one) occur in the set (checked first); else MINHASH when `code` is not empty and some
  // non-empty item, a candidate by LSH banding, has sketch_similarity at or above
  // options().threshold; else NONE. Safe to call from several threads at once.
  [[nodiscard]] Contamination check(std::string_view code) const;

  // The distinct items LSH banding proposes for `code` before verification (0 for empty code):
  // for tests, and to see what a check costs.
  [[nodiscard]] size_t candidates(std::string_view code) const;

 private:
  struct BandEntry {
    uint64_t key = 0;     // band_key of one band of an item's sketch
    uint32_t sketch = 0;  // the item's sketch: index into sketches_ (in kSketchBins units)
  };

  explicit BenchmarkSet(const DecontaminationOptions& options) : options_(options) {}
  void add(std::string_view item);
  void finish();
  [[nodiscard]] bool has_ngram(uint64_t hash) const;
  [[nodiscard]] bool ngram_contaminated(std::string_view code) const;
  // The sketch indexes of the candidates of `sketch` (kSketchBins values), sorted, distinct.
  [[nodiscard]] std::vector<uint32_t> candidates_of(const uint32_t* sketch) const;

  DecontaminationOptions options_;
  size_t items_ = 0;
  // Sorted, distinct; ngram_directory_[b] .. ngram_directory_[b + 1] are the positions of the
  // hashes whose top ngram_bits_ bits are b (8 to 16 a bucket), so a lookup reads a cache line or
  // two.
  std::vector<uint64_t> ngrams_;
  std::vector<size_t> ngram_directory_;
  int ngram_bits_ = 0;
  std::vector<uint32_t> sketches_;  // the non-empty items' sketches, kSketchBins values each
  std::vector<BandEntry> bands_;    // sorted by key
};

}  // namespace kbdata::pairs
