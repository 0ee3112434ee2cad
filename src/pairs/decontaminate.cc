#include "pairs/decontaminate.h"

#include <sys/stat.h>
#include <xxhash.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <span>
#include <utility>

#include "common/closest_name.h"
#include "common/error.h"
#include "common/file.h"
#include "common/output_target.h"
#include "common/text.h"
#include "dataset/code_text.h"
#include "dataset/column_types.h"
#include "parquet/file_reader.h"
#include "parquet/table_scan.h"
#include "similarity/lsh.h"
#include "similarity/mix.h"
#include "similarity/sketch.h"

namespace kbdata::pairs {
namespace {

namespace fs = std::filesystem;

static_assert(kBands * kBandBins <= similarity::kSketchBins);

// ---- Tokens ----

constexpr std::array<bool, 256> word_bytes() {
  std::array<bool, 256> out{};
  for (int b = 0; b < 256; ++b) {
    out[static_cast<size_t>(b)] = (b >= 'A' && b <= 'Z') || (b >= 'a' && b <= 'z') ||
                                  (b >= '0' && b <= '9') || b == '_' || b >= 0x80;
  }
  return out;
}
constexpr std::array<bool, 256> kWordByte = word_bytes();

bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

// Calls token(offset, length) for each token of `code`, in order: the identifiers and literals
// (code_tokens). Every other byte only separates them.
template <typename Fn>
void for_each_token(std::string_view code, Fn&& token) {
  const auto* p = reinterpret_cast<const unsigned char*>(code.data());
  const size_t n = code.size();
  size_t i = 0;
  while (i < n) {
    if (!kWordByte[p[i]]) {
      ++i;
      continue;
    }
    const bool number = is_digit(p[i]);
    size_t end = i + 1;
    for (;;) {
      while (end < n && kWordByte[p[end]]) ++end;
      // A number keeps its decimal point: 0.5 is one literal, a.b two names.
      if (!number || end + 1 >= n || p[end] != '.' || !is_digit(p[end + 1])) break;
      end += 2;
    }
    token(i, end - i);
    i = end;
  }
}

// ---- Bands ----

bool band_empty(const uint32_t* sketch, size_t band) {
  return similarity::sketch_bins_empty(sketch, band * kBandBins, kBandBins);
}

uint64_t band_key(const uint32_t* sketch, size_t band) {
  return similarity::band_key(std::span<const uint32_t>(sketch + band * kBandBins, kBandBins),
                              band);
}

// ---- Options and messages ----

std::string number_text(double v) {
  std::string out;
  append_double(out, v);
  return out;
}

void validate(const DecontaminationOptions& o) {
  if (o.ngram < 1) {
    throw UsageError(OptionName("ngram", std::to_string(o.ngram)), ": must be at least 1");
  }
  if (!(o.ngram_share >= 0 && o.ngram_share < 1)) {
    throw UsageError(OptionName("ngram_share", number_text(o.ngram_share)), ": must be in [0, 1)");
  }
  if (!(o.threshold > 0 && o.threshold <= 1)) {
    throw UsageError(OptionName("decontaminate_threshold", number_text(o.threshold)),
                     ": must be in (0, 1]");
  }
}

template <typename E>
[[noreturn]] void fail_at(const std::string& path, const std::string& message) {
  E error(message);
  error.locate_file(path);
  throw error;
}

struct stat stat_path(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    fail_at<IoError>(path, std::string("cannot read: ") + std::strerror(errno));
  }
  return st;
}

// ---- Reading ----

// The whole bytes of the regular file at `path`.
std::string read_whole(const std::string& path) {
  const std::unique_ptr<LocalFile> file = LocalFile::open(path);
  std::string out(file->size(), '\0');
  file->read_at(0, std::span(reinterpret_cast<uint8_t*>(out.data()), out.size()));
  return out;
}

bool starts_with_par1(const std::string& path) {
  const std::unique_ptr<LocalFile> file = LocalFile::open(path);
  if (file->size() < 4) return false;
  std::array<uint8_t, 4> magic{};
  file->read_at(0, magic);
  return std::memcmp(magic.data(), "PAR1", 4) == 0;
}

// Every regular file under `folder` (symlinks followed), as paths that start with `folder`.
// `ancestors` are the (device, inode) of the folders on the way down, `folder` not yet among them.
void list_files(const std::string& folder, std::vector<std::pair<dev_t, ino_t>>& ancestors,
                std::vector<std::string>& out) {
  const struct stat self = stat_path(folder);
  const std::pair<dev_t, ino_t> id{self.st_dev, self.st_ino};
  if (std::find(ancestors.begin(), ancestors.end(), id) != ancestors.end()) {
    fail_at<UsageError>(folder, "a symbolic link here leads back to a folder it is in");
  }
  ancestors.push_back(id);
  std::error_code ec;
  std::vector<std::string> entries;
  for (fs::directory_iterator it(folder, ec); !ec && it != fs::directory_iterator();
       it.increment(ec)) {
    entries.push_back(it->path().string());
  }
  if (ec) fail_at<IoError>(folder, "cannot list the folder: " + ec.message());
  for (const std::string& entry : entries) {
    const struct stat st = stat_path(entry);
    if (S_ISREG(st.st_mode)) {
      out.push_back(entry);
    } else if (S_ISDIR(st.st_mode)) {
      list_files(entry, ancestors, out);
    } else {
      fail_at<UsageError>(entry, "not a regular file or folder (it is " +
                                     describe_file_type(st.st_mode) +
                                     "); a benchmark set holds files");
    }
  }
  ancestors.pop_back();
}

// The string columns of `schema` a benchmark set can be read from: BYTE_ARRAY text leaves that are
// not repeated, by dotted path.
std::vector<std::string> string_columns(const parquet::Schema& schema) {
  std::vector<std::string> out;
  for (const parquet::ColumnDescriptor& c : schema.leaves()) {
    if (dataset::is_text_type(c) && c.max_rep == 0) out.push_back(c.dotted_path);
  }
  return out;
}

std::string listed(const std::vector<std::string>& names) {
  if (names.empty()) return "it has no string column";
  std::string out = "its string columns: ";
  for (size_t i = 0; i < names.size(); ++i) out += (i > 0 ? ", " : "") + names[i];
  return out;
}

}  // namespace

const char* to_string(Contamination c) {
  switch (c) {
    case Contamination::NONE:
      return "none";
    case Contamination::NGRAM:
      return "ngram";
    case Contamination::MINHASH:
      return "minhash";
  }
  return "none";
}

std::vector<std::string_view> code_tokens(std::string_view code) {
  std::vector<std::string_view> out;
  for_each_token(code, [&](size_t at, size_t length) { out.push_back(code.substr(at, length)); });
  return out;
}

std::vector<uint64_t> ngram_hashes(std::string_view code, int ngram) {
  const auto n = static_cast<size_t>(ngram);
  std::vector<uint64_t> tokens;
  for_each_token(code, [&](size_t at, size_t length) {
    tokens.push_back(XXH3_64bits_withSeed(code.data() + at, length, kTokenSeed));
  });
  std::vector<uint64_t> out;
  if (n == 0 || tokens.size() < n) return out;
  out.reserve(tokens.size() - n + 1);
  // window = sum t[i] * base^(n - 1 - i), modulo 2^64 (unsigned arithmetic wraps).
  uint64_t oldest_weight = 1;  // base^(n - 1)
  for (size_t i = 1; i < n; ++i) oldest_weight *= kNgramBase;
  uint64_t window = 0;
  for (size_t i = 0; i < n; ++i) window = window * kNgramBase + tokens[i];
  out.push_back(similarity::splitmix64_finalize(window));
  for (size_t i = n; i < tokens.size(); ++i) {
    window = (window - tokens[i - n] * oldest_weight) * kNgramBase + tokens[i];
    out.push_back(similarity::splitmix64_finalize(window));
  }
  return out;
}

BenchmarkSet BenchmarkSet::from_texts(const std::vector<std::string>& items,
                                      const DecontaminationOptions& options) {
  validate(options);
  BenchmarkSet set(options);
  for (const std::string& item : items) set.add(item);
  set.finish();
  return set;
}

BenchmarkSet BenchmarkSet::load(const std::string& path, const DecontaminationOptions& options) {
  validate(options);
  BenchmarkSet set(options);
  const struct stat st = stat_path(path);
  if (S_ISDIR(st.st_mode)) {
    std::vector<std::pair<dev_t, ino_t>> ancestors;
    std::vector<std::string> files;
    list_files(path, ancestors, files);
    if (files.empty()) throw UsageError("no benchmark files in " + path);
    std::sort(files.begin(), files.end());
    for (const std::string& file : files) set.add(read_whole(file));
  } else if (!S_ISREG(st.st_mode)) {
    fail_at<UsageError>(path, "not a regular file or folder (it is " +
                                  describe_file_type(st.st_mode) +
                                  "); a benchmark set is a Parquet file, a folder of files or one "
                                  "file");
  } else if (!starts_with_par1(path)) {
    set.add(read_whole(path));
  } else {
    const std::string name = options.column.value_or("code");
    try {
      auto reader = parquet::FileReader::open(path);
      const parquet::Schema& schema = reader->schema();
      const std::vector<std::string> strings = string_columns(schema);
      const std::optional<int> leaf = schema.find_leaf(name);
      if (!leaf) {
        throw UsageError("no column '" + name + "'; " + listed(strings) +
                         did_you_mean(name, strings));
      }
      const parquet::ColumnDescriptor& c = schema.leaves()[static_cast<size_t>(*leaf)];
      if (!dataset::is_text_type(c) || c.max_rep > 0) {
        throw UsageError("column '" + name + "' is " + dataset::type_text(c) +
                         (c.max_rep > 0 ? " (repeated)" : "") + ", not a string column; " +
                         listed(strings));
      }
      const bool binary = c.logical.kind == parquet::LogicalType::Kind::NONE;
      parquet::ScanOptions scan_options;
      scan_options.columns = {*leaf};
      parquet::TableScan scan(*reader, scan_options);
      dataset::CodeRepairCounts counts;
      scan.run(nullptr, [&](parquet::ScanBatch& batch) {
        const parquet::ColumnBatch& col = batch.columns[0];
        size_t next = 0;  // the next value
        for (size_t r = 0; r < batch.num_rows; ++r) {
          if (c.max_def > 0 && col.def_levels[r] != c.max_def) continue;  // null
          parquet::check_batch_values(c, col.values, next + 1);
          set.add(dataset::decode_code(col.values.string(next++), binary, counts));
        }
        return true;
      });
    } catch (Error& error) {
      error.locate_file(path);
      throw;
    }
  }
  set.finish();
  return set;
}

void BenchmarkSet::add(std::string_view item) {
  ++items_;
  std::vector<uint64_t> hashes = ngram_hashes(item, options_.ngram);
  std::sort(hashes.begin(), hashes.end());
  hashes.erase(std::unique(hashes.begin(), hashes.end()), hashes.end());
  ngrams_.insert(ngrams_.end(), hashes.begin(), hashes.end());

  const similarity::CodeSketch sketch = similarity::code_sketch(item);
  if (sketch.empty()) return;  // empty item: no shingle, never a near-copy
  const auto index = static_cast<uint32_t>(sketches_.size() / similarity::kSketchBins);
  sketches_.insert(sketches_.end(), sketch.begin(), sketch.end());
  for (size_t band = 0; band < kBands; ++band) {
    if (!band_empty(sketch.data(), band)) bands_.push_back({band_key(sketch.data(), band), index});
  }
}

void BenchmarkSet::finish() {
  std::sort(ngrams_.begin(), ngrams_.end());
  ngrams_.erase(std::unique(ngrams_.begin(), ngrams_.end()), ngrams_.end());
  ngrams_.shrink_to_fit();
  // 8 to 16 hashes a bucket: the directory costs about half a byte per n-gram.
  ngram_bits_ = 0;
  while (ngram_bits_ < 40 && (size_t{1} << (ngram_bits_ + 1)) * 8 <= ngrams_.size()) {
    ++ngram_bits_;
  }
  const size_t buckets = size_t{1} << ngram_bits_;
  ngram_directory_.assign(buckets + 1, ngrams_.size());
  size_t at = 0;
  for (size_t b = 0; b < buckets; ++b) {
    while (at < ngrams_.size() && (ngram_bits_ == 0 ? 0 : ngrams_[at] >> (64 - ngram_bits_)) < b) {
      ++at;
    }
    ngram_directory_[b] = at;
  }
  std::sort(bands_.begin(), bands_.end(), [](const BandEntry& a, const BandEntry& b) {
    return a.key != b.key ? a.key < b.key : a.sketch < b.sketch;
  });
  bands_.shrink_to_fit();
  sketches_.shrink_to_fit();
}

bool BenchmarkSet::has_ngram(uint64_t hash) const {
  const size_t bucket = ngram_bits_ == 0 ? 0 : hash >> (64 - ngram_bits_);
  const auto first = ngrams_.begin() + static_cast<ptrdiff_t>(ngram_directory_[bucket]);
  const auto last = ngrams_.begin() + static_cast<ptrdiff_t>(ngram_directory_[bucket + 1]);
  return std::binary_search(first, last, hash);
}

std::optional<double> BenchmarkSet::ngram_share(std::string_view code) const {
  std::vector<uint64_t> hashes = ngram_hashes(code, options_.ngram);
  if (hashes.empty()) return std::nullopt;
  std::sort(hashes.begin(), hashes.end());
  hashes.erase(std::unique(hashes.begin(), hashes.end()), hashes.end());
  const auto shared = static_cast<size_t>(
      std::count_if(hashes.begin(), hashes.end(), [&](uint64_t h) { return has_ngram(h); }));
  return static_cast<double>(shared) / static_cast<double>(hashes.size());
}

bool BenchmarkSet::ngram_contaminated(std::string_view code) const {
  if (ngrams_.empty()) return false;
  if (options_.ngram_share == 0) {
    const std::vector<uint64_t> hashes = ngram_hashes(code, options_.ngram);
    return std::any_of(hashes.begin(), hashes.end(), [&](uint64_t h) { return has_ngram(h); });
  }
  const std::optional<double> share = ngram_share(code);
  return share && *share > options_.ngram_share;
}

std::vector<uint32_t> BenchmarkSet::candidates_of(const uint32_t* sketch) const {
  std::vector<uint32_t> out;
  for (size_t band = 0; band < kBands; ++band) {
    if (band_empty(sketch, band)) continue;
    const uint64_t key = band_key(sketch, band);
    auto it = std::lower_bound(bands_.begin(), bands_.end(), key,
                               [](const BandEntry& e, uint64_t k) { return e.key < k; });
    for (; it != bands_.end() && it->key == key; ++it) out.push_back(it->sketch);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

size_t BenchmarkSet::candidates(std::string_view code) const {
  if (code.empty() || sketches_.empty()) return 0;
  return candidates_of(similarity::code_sketch(code).data()).size();
}

Contamination BenchmarkSet::check(std::string_view code) const {
  if (ngram_contaminated(code)) return Contamination::NGRAM;
  if (code.empty() || sketches_.empty()) return Contamination::NONE;
  const similarity::CodeSketch sketch = similarity::code_sketch(code);
  for (const uint32_t index : candidates_of(sketch.data())) {
    const uint32_t* item = sketches_.data() + size_t{index} * similarity::kSketchBins;
    if (similarity::sketch_similarity(item, sketch.data()) >= options_.threshold) {
      return Contamination::MINHASH;
    }
  }
  return Contamination::NONE;
}

std::string BenchmarkSet::describe() const {
  return grouped(items_) + (items_ == 1 ? " item, " : " items, ") + grouped(ngrams_.size()) + " " +
         std::to_string(options_.ngram) + "-grams";
}

}  // namespace kbdata::pairs
