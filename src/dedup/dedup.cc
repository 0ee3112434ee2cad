#include "dedup/dedup.h"

#include <xxhash.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>
#include <numeric>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "common/error.h"
#include "common/output_target.h"
#include "common/text.h"
#include "common/thread_pool.h"
#include "dataset/code_spill.h"
#include "dataset/data_dir.h"
#include "dataset/flat_file_writer.h"
#include "dataset/loader.h"
#include "parquet/file_reader.h"
#include "parquet/write/writer_options.h"
#include "similarity/shingles.h"

namespace kbdata::dedup {
namespace {

using dataset::Submission;

constexpr size_t kHashBatchRows = 256;
constexpr size_t kHashBatchBytes = size_t{32} << 20;
constexpr size_t kSetCacheBytes = size_t{256} << 20;  // shared by the workers
constexpr uint64_t kProgressEvery = 4096;
// Rows reach the output's writer in batches of 1,024 rows or 8 MiB of values (code dominates).
constexpr parquet::RowBatchLimits kOutputBatch{.rows = 1024, .bytes = size_t{8} << 20};
constexpr size_t kLargeBucket = 32;
constexpr size_t kFreeSets = 512;  // emptied shingle sets kept per worker for their memory

// ---- union-find over row indexes ---------------------------------------------------------------
// Threads may work on it concurrently only on disjoint sets of rows (one scope group each).
class UnionFind {
 public:
  explicit UnionFind(size_t n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0); }
  uint32_t find(uint32_t x) {
    while (parent_[x] != x) {
      parent_[x] = parent_[parent_[x]];
      x = parent_[x];
    }
    return x;
  }
  // Returns false when already joined.
  bool unite(uint32_t a, uint32_t b) {
    a = find(a);
    b = find(b);
    if (a == b) return false;
    if (b < a) std::swap(a, b);
    parent_[b] = a;
    return true;
  }

 private:
  std::vector<uint32_t> parent_;
};

bool has_score(const Submission& s) { return s.score && !std::isnan(*s.score); }

// Streams the code of some rows: calls fn(row, code) for the rows `wanted` in increasing order.
using CodeSource =
    std::function<void(const std::function<void(size_t, std::optional<std::string>&&)>&)>;

// The whole clustering over rows whose metadata is in memory.
class Engine {
 public:
  Engine(const std::vector<Submission>& rows, const DedupOptions& options,
         const ProgressFn& progress)
      : rows_(rows), options_(options), progress_(progress), uf_(rows.size()) {
    if (threads_ > 1) pool_ = std::make_unique<ThreadPool>(threads_);
    summary_.rows_in = rows.size();
  }

  // The exact rule: partition by (leaderboard_id, user_id, code_id, runner), keep the best.
  void exact() {
    std::vector<uint32_t> order(rows_.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      const Submission& x = rows_[a];
      const Submission& y = rows_[b];
      if (x.leaderboard_id != y.leaderboard_id) return x.leaderboard_id < y.leaderboard_id;
      if (int c = x.user_id.compare(y.user_id); c != 0) return c < 0;
      if (x.code_id != y.code_id) return x.code_id < y.code_id;
      if (x.runner != y.runner) return x.runner < y.runner;  // nullopt first: its own partition
      if (keeper_before(x, y)) return true;
      if (keeper_before(y, x)) return false;
      return a < b;
    });
    is_rep_.assign(rows_.size(), false);
    for (size_t i = 0; i < order.size(); ++i) {
      const Submission& x = rows_[order[i]];
      const bool starts = i == 0 || [&] {
        const Submission& p = rows_[order[i - 1]];
        return p.leaderboard_id != x.leaderboard_id || p.user_id != x.user_id ||
               p.code_id != x.code_id || p.runner != x.runner;
      }();
      if (starts) {
        rep_start_ = order[i];
        is_rep_[order[i]] = true;
      } else {
        uf_.unite(rep_start_, order[i]);
        ++summary_.exact_duplicates;
      }
    }
  }

  // Near-duplicate clustering of the exact keepers. `source` streams the code of wanted rows.
  void fuzzy(const CodeSource& source, const std::string& spill_dir) {
    lsh_ = similarity::choose_lsh(options_.threshold);
    summary_.lsh = lsh_;
    plan_groups();
    dataset::CodeSpill spill(spill_dir);
    auto t0 = std::chrono::steady_clock::now();
    hash_codes(source, spill);
    auto t1 = std::chrono::steady_clock::now();
    cluster_groups(spill);
    auto t2 = std::chrono::steady_clock::now();
    summary_.hash_seconds = std::chrono::duration<double>(t1 - t0).count();
    summary_.cluster_seconds = std::chrono::duration<double>(t2 - t1).count();
  }

  // Which rows the fuzzy pass needs code for (true: hashed).
  [[nodiscard]] const std::vector<int32_t>& item_of_row() const { return item_of_row_; }

  struct Result {
    std::vector<uint32_t> keeper;  // per row
    std::vector<uint32_t> size;    // per row: its cluster's size
  };
  Result finish() {
    Result r;
    const size_t n = rows_.size();
    r.keeper.assign(n, UINT32_MAX);
    std::vector<uint32_t> root(n);
    std::vector<uint32_t> count(n, 0);
    std::vector<uint32_t> reps(n, 0);
    for (uint32_t i = 0; i < n; ++i) {
      root[i] = uf_.find(i);
      ++count[root[i]];
      if (is_rep_[i]) ++reps[root[i]];
      uint32_t& best = r.keeper[root[i]];
      if (best == UINT32_MAX || keeper_before(rows_[i], rows_[best]) ||
          (!keeper_before(rows_[best], rows_[i]) && i < best)) {
        best = i;
      }
    }
    r.size.resize(n);
    uint64_t clusters = 0;
    for (uint32_t i = 0; i < n; ++i) {
      if (root[i] != i) continue;
      ++clusters;
      if (reps[i] >= 2) {
        ++summary_.near_duplicate_clusters;
        summary_.near_duplicates += reps[i] - 1;
      }
    }
    for (uint32_t i = 0; i < n; ++i) {
      r.size[i] = count[root[i]];
      r.keeper[i] = r.keeper[root[i]];
    }
    summary_.rows_out = clusters;
    return r;
  }

  DedupSummary& summary() { return summary_; }

 private:
  std::pair<int64_t, std::string_view> scope_key(const Submission& s) const {
    return {s.leaderboard_id,
            options_.across_users ? std::string_view() : std::string_view(s.user_id)};
  }

  // Groups the exact keepers by scope; joins keepers of one scope with the same code_id (the
  // same code) and makes the first of each code_id an item, whose code is hashed.
  void plan_groups() {
    std::vector<uint32_t> reps;
    for (uint32_t i = 0; i < rows_.size(); ++i) {
      if (is_rep_[i]) reps.push_back(i);
    }
    std::sort(reps.begin(), reps.end(), [&](uint32_t a, uint32_t b) {
      auto ka = scope_key(rows_[a]);
      auto kb = scope_key(rows_[b]);
      if (ka != kb) return ka < kb;
      if (rows_[a].code_id != rows_[b].code_id) return rows_[a].code_id < rows_[b].code_id;
      return a < b;
    });
    item_of_row_.assign(rows_.size(), -1);
    for (size_t i = 0; i < reps.size(); ++i) {
      const Submission& x = rows_[reps[i]];
      const bool new_group = i == 0 || scope_key(rows_[reps[i - 1]]) != scope_key(x);
      if (new_group) groups_.emplace_back();
      // Rows without a code_id (a null in the file) are joined by their code's shingles only.
      if (!new_group && x.code_id && rows_[reps[i - 1]].code_id == x.code_id) {
        uf_.unite(reps[i - 1], reps[i]);
        continue;
      }
      item_of_row_[reps[i]] = static_cast<int32_t>(item_row_.size());
      groups_.back().push_back(static_cast<uint32_t>(item_row_.size()));
      item_row_.push_back(reps[i]);
    }
    // Each group's items are in code_id order (the order they were made in), so verification
    // meets pairs in an order that depends on the data only, not on threads.
    has_signature_.assign(item_row_.size(), false);
    keys_.assign(item_row_.size() * static_cast<size_t>(lsh_.bands), 0);
    spill_.resize(item_row_.size());
  }

  void hash_codes(const CodeSource& source, dataset::CodeSpill& spill) {
    struct Pending {
      uint32_t item;
      std::string code;
      std::vector<uint8_t> compressed;
      bool signed_ = false;
    };
    std::vector<Pending> batch;
    size_t batch_bytes = 0;
    uint64_t done = 0;
    const uint64_t total = item_row_.size();
    struct Scratch {
      std::string lowered;
      similarity::Signature sig;
      std::vector<uint32_t> keys;
    };
    std::vector<Scratch> scratch(static_cast<size_t>(threads_));
    auto flush = [&] {
      run_on_workers(pool_.get(), batch.size(), scratch.size(), [&](size_t i, size_t worker) {
        Pending& p = batch[i];
        Scratch& s = scratch[worker];
        if (similarity::compute_text_signature(p.code, options_.shingle_bytes, s.lowered, s.sig)) {
          s.keys.clear();
          similarity::band_keys(s.sig, lsh_, s.keys);
          std::copy(s.keys.begin(), s.keys.end(),
                    keys_.begin() + static_cast<ptrdiff_t>(p.item) * lsh_.bands);
          p.signed_ = true;
          dataset::CodeSpill::compress(p.code, p.compressed);
        }
      });
      for (Pending& p : batch) {
        if (!p.signed_) continue;
        has_signature_[p.item] = true;
        ++summary_.signatures;
        spill_[p.item] = spill.append(p.compressed, p.code.size());
      }
      done += batch.size();
      if (progress_)
        progress_({.stage = "hashing code", .done = done, .total = total, .unit = "rows"});
      batch.clear();
      batch_bytes = 0;
    };
    source([&](size_t row, std::optional<std::string>&& code) {
      const int32_t item = item_of_row_[row];
      if (item < 0) return;
      if (!code) {
        ++done;
        return;
      }
      if (code->size() > UINT32_MAX) {
        throw UnsupportedError("the code of submission " +
                               std::to_string(rows_[row].submission_id) + " exceeds 4 GB");
      }
      batch_bytes += code->size();
      batch.push_back(Pending{static_cast<uint32_t>(item), std::move(*code), {}, false});
      if (batch.size() >= kHashBatchRows || batch_bytes >= kHashBatchBytes) flush();
    });
    flush();
  }

  void cluster_groups(const dataset::CodeSpill& spill) {
    // Largest groups first, so one large group does not start last.
    std::vector<uint32_t> order(groups_.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(),
              [&](uint32_t a, uint32_t b) { return groups_[a].size() > groups_[b].size(); });
    struct Worker {
      std::unordered_map<uint32_t, std::vector<uint64_t>> sets;
      std::vector<std::vector<uint64_t>> free_sets;  // emptied sets whose memory is reused
      size_t set_bytes = 0;
      uint64_t verified = 0;
      uint64_t joined = 0;
      uint64_t candidates = 0;
      uint64_t sets_built = 0;
      similarity::ShingleScratch scratch;
      std::vector<uint8_t> compressed;
      std::string text;
    };
    std::vector<Worker> workers(static_cast<size_t>(threads_));
    const size_t cache_budget = kSetCacheBytes / static_cast<size_t>(threads_);
    std::atomic<uint64_t> groups_done{0};
    std::mutex progress_mutex;
    run_on_workers(pool_.get(), order.size(), workers.size(), [&](size_t gi, size_t w) {
      Worker& worker = workers[w];
      const std::vector<uint32_t>& group = groups_[order[gi]];
      // The shingle set of an item, from the worker's cache. References stay valid until
      // make_room() (the map's nodes do not move on insertion).
      auto set_of = [&](uint32_t item) -> const std::vector<uint64_t>& {
        auto it = worker.sets.find(item);
        if (it != worker.sets.end()) return it->second;
        ++worker.sets_built;
        std::vector<uint64_t> set;
        if (!worker.free_sets.empty()) {
          set = std::move(worker.free_sets.back());
          worker.free_sets.pop_back();
        }
        spill.read(spill_[item], worker.compressed, worker.text);
        similarity::shingle_set(worker.text, options_.shingle_bytes, worker.scratch, set);
        worker.set_bytes += set.capacity() * 8;
        return worker.sets.emplace(item, std::move(set)).first->second;
      };
      // Empties the cache when it is over its budget, keeping the vectors' memory for reuse
      // (fresh allocations of this size cost page faults).
      auto empty_cache = [&] {
        for (auto& [item, set] : worker.sets) {
          if (worker.free_sets.size() < kFreeSets) worker.free_sets.push_back(std::move(set));
        }
        worker.sets.clear();
        worker.set_bytes = 0;
      };
      auto make_room = [&] {
        if (worker.set_bytes > cache_budget) empty_cache();
      };
      std::vector<uint32_t> members;
      for (uint32_t item : group) {
        if (has_signature_[item]) members.push_back(item);
      }
      if (members.size() >= 2) {
        std::unordered_set<uint64_t> rejected;  // pairs verified below the threshold
        // Verifies one candidate pair unless its rows are already joined; joins it at or above
        // the threshold.
        auto check = [&](uint32_t a, uint32_t b) {
          if (uf_.find(item_row_[a]) == uf_.find(item_row_[b])) return;
          const uint64_t pair = (uint64_t{a} << 32) | b;
          if (rejected.count(pair) != 0) return;
          ++worker.verified;
          make_room();
          const std::vector<uint64_t>& first = set_of(a);
          const std::vector<uint64_t>& second = set_of(b);
          if (similarity::jaccard(first, second) >= options_.threshold) {
            uf_.unite(item_row_[a], item_row_[b]);
            ++worker.joined;
          } else {
            rejected.insert(pair);
          }
        };
        // Items whose band keys are all equal hold (but for a 2^-64 chance) the same shingle set:
        // each is verified against the first of its kind and joined, and only that first one is
        // banded. Otherwise many copies of one short code (whose few shingles make the same
        // signature) fill one bucket per band with a quadratic number of pairs.
        std::unordered_map<uint64_t, uint32_t> first_of_kind;
        std::vector<uint32_t> banded;
        for (uint32_t item : members) {
          const uint64_t kind = XXH3_64bits(&keys_[static_cast<size_t>(item) * lsh_.bands],
                                            sizeof(uint32_t) * static_cast<size_t>(lsh_.bands));
          const auto [it, first] = first_of_kind.try_emplace(kind, item);
          if (first) {
            banded.push_back(item);
          } else {
            check(it->second, item);
            if (uf_.find(item_row_[it->second]) != uf_.find(item_row_[item])) {
              banded.push_back(item);  // the same keys, another set: banded like any other
            }
          }
        }
        // Pairs of small buckets are gathered, made distinct and verified in item order (so an
        // item's set is reused while it is hot); a bucket of more than kLargeBucket items is
        // checked at once, where joins make most of its pairs free (already joined), rather than
        // gathering its quadratic number of pairs.
        std::vector<uint64_t> pairs;
        std::vector<std::pair<uint32_t, uint32_t>> bucket;  // (band key, item)
        for (int band = 0; band < lsh_.bands; ++band) {
          bucket.clear();
          for (uint32_t item : banded) {
            bucket.emplace_back(keys_[static_cast<size_t>(item) * lsh_.bands + band], item);
          }
          std::sort(bucket.begin(), bucket.end());
          for (size_t begin = 0; begin < bucket.size();) {
            size_t end = begin + 1;
            while (end < bucket.size() && bucket[end].first == bucket[begin].first) ++end;
            const bool large = end - begin > kLargeBucket;
            for (size_t x = begin + 1; x < end; ++x) {
              for (size_t y = begin; y < x; ++y) {
                const uint32_t a = bucket[y].second;
                const uint32_t b = bucket[x].second;
                if (large) {
                  ++worker.candidates;  // each time it is met: the work done
                  check(a, b);
                } else {
                  pairs.push_back((uint64_t{a} << 32) | b);
                }
              }
            }
            begin = end;
          }
        }
        std::sort(pairs.begin(), pairs.end());
        pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
        worker.candidates += pairs.size();
        for (uint64_t pair : pairs)
          check(static_cast<uint32_t>(pair >> 32), static_cast<uint32_t>(pair));
        empty_cache();  // no other group needs these sets
      }
      const uint64_t finished = groups_done.fetch_add(1) + 1;
      if (progress_ && (finished % 64 == 0 || finished == order.size())) {
        std::lock_guard<std::mutex> lock(progress_mutex);
        progress_({.stage = "clustering groups",
                   .done = finished,
                   .total = order.size(),
                   .unit = "groups"});
      }
    });
    for (const Worker& w : workers) {
      summary_.verified_pairs += w.verified;
      summary_.joined_pairs += w.joined;
      summary_.candidate_pairs += w.candidates;
      summary_.sets_built += w.sets_built;
    }
  }

  const std::vector<Submission>& rows_;
  const DedupOptions& options_;
  const ProgressFn& progress_;
  const int threads_ = std::max(1, options_.threads);
  std::unique_ptr<ThreadPool> pool_;  // threads_ > 1: the passes' workers
  UnionFind uf_;
  std::vector<bool> is_rep_;
  uint32_t rep_start_ = 0;
  DedupSummary summary_;
  similarity::LshParams lsh_;
  std::vector<std::vector<uint32_t>> groups_;     // items per scope group
  std::vector<uint32_t> item_row_;                // item -> row
  std::vector<int32_t> item_of_row_;              // row -> item or -1
  std::vector<bool> has_signature_;               // per item
  std::vector<uint32_t> keys_;                    // per item, lsh_.bands band keys
  std::vector<dataset::CodeSpill::Entry> spill_;  // per item
};

void check_options(const DedupOptions& o) {
  if (o.shingle_bytes < 1 || o.shingle_bytes > similarity::kMaxShingleBytes) {
    throw UsageError(OptionName("shingle_bytes", std::to_string(o.shingle_bytes)),
                     ": must be between 1 and " + std::to_string(similarity::kMaxShingleBytes));
  }
  if (!(o.threshold > 0.0 && o.threshold <= 1.0)) {
    std::string value;  // shortest round trip: 1.0000001 stays 1.0000001, never "1.000000"
    append_double(value, o.threshold);
    throw UsageError(OptionName("threshold", value), ": must be in (0, 1]");
  }
  if (o.mode == Mode::EXACT && o.across_users) {
    throw UsageError(OptionName::flag("across_users"), " applies to ", OptionName::flag("fuzzy"),
                     " only (the exact rule partitions by user)");
  }
}

std::string rule_text(const DedupOptions& o, const similarity::LshParams& lsh) {
  std::string text =
      "exact: docs/dataset.md §4.1, partition by (leaderboard_id, user_id, code_id, runner), keep "
      "the "
      "lowest score (nulls last), then the earliest submission_time, then the lowest "
      "submission_id";
  if (o.mode == Mode::FUZZY) {
    char buf[512];
    std::snprintf(buf, sizeof buf,
                  "; then fuzzy: %d-byte shingles of ASCII-lower-cased code, one-permutation "
                  "MinHash with optimal densification (%d bins), LSH %d bands x %d rows, "
                  "candidates verified by exact Jaccard >= %g, transitive clusters within %s, "
                  "same keeper order; docs/dedup.md",
                  o.shingle_bytes, similarity::kBins, lsh.bands, lsh.rows, o.threshold,
                  o.across_users ? "leaderboard_id" : "(leaderboard_id, user_id)");
    text += buf;
  } else {
    text += "; docs/dedup.md";
  }
  return text;
}

std::string folder_of(const std::string& path) {
  std::filesystem::path p(path);
  return p.has_parent_path() ? p.parent_path().string() : std::string(".");
}

}  // namespace

bool keeper_before(const Submission& a, const Submission& b) {
  const bool sa = has_score(a);
  const bool sb = has_score(b);
  if (sa != sb) return sa;
  if (sa && *a.score != *b.score) return *a.score < *b.score;
  if (a.submission_time != b.submission_time) return a.submission_time < b.submission_time;
  return a.submission_id < b.submission_id;
}

Clustering cluster_rows(const std::vector<Submission>& rows, const DedupOptions& options) {
  check_options(options);
  ProgressFn none;
  Engine engine(rows, options, none);
  engine.exact();
  if (options.mode == Mode::FUZZY) {
    const char* tmp = std::getenv("TMPDIR");
    engine.fuzzy(
        [&](const std::function<void(size_t, std::optional<std::string> &&)>& fn) {
          for (size_t i = 0; i < rows.size(); ++i) {
            if (engine.item_of_row()[i] < 0) continue;
            std::optional<std::string> code = rows[i].code;
            fn(i, std::move(code));
          }
        },
        tmp != nullptr && *tmp != '\0' ? tmp : "/tmp");
  }
  Engine::Result r = engine.finish();
  Clustering c;
  c.keeper.assign(r.keeper.begin(), r.keeper.end());
  c.summary = engine.summary();
  c.summary.rows_written = c.summary.rows_out;
  return c;
}

DedupSummary run_dedup(const DedupOptions& options, const ProgressFn& progress) {
  check_options(options);
  auto reader = parquet::FileReader::open(options.input);
  // OUT is checked before any work (the input is noted by now: OUT may not be it).
  (void)check_output_file(options.output);
  std::optional<dataset::SchemaFamily> family = dataset::detect_family(reader->schema());
  if (!family || *family == dataset::SchemaFamily::LEADERBOARDS) {
    UnsupportedError error(
        "not a submissions file: it has neither the flat columns (docs/dataset.md §4.1) nor the "
        "legacy "
        "per-run columns (4.2)");
    error.locate_file(reader->name());
    throw error;
  }

  const std::shared_ptr<const dataset::RowSet> excluded =
      options.exclude ? options.exclude() : nullptr;

  // Pass 1: metadata.
  const auto start = std::chrono::steady_clock::now();
  std::vector<Submission> rows;
  dataset::LoadOptions meta;
  meta.threads = options.threads;
  meta.filter.excluded = excluded;
  dataset::LoadStats stats;
  const uint64_t file_rows = static_cast<uint64_t>(std::max<int64_t>(reader->num_rows(), 0));
  dataset::load_file(
      *reader, *family, meta,
      [&](Submission&& s) {
        rows.push_back(std::move(s));
        if (progress && rows.size() % kProgressEvery == 0)
          progress({.stage = "reading metadata",
                    .done = rows.size(),
                    .total = file_rows,
                    .unit = "rows"});
      },
      stats);
  if (rows.size() >= UINT32_MAX) {
    UnsupportedError error("more than 4 billion submissions");
    error.locate_file(reader->name());
    throw error;
  }
  if (progress)
    progress(
        {.stage = "reading metadata", .done = rows.size(), .total = rows.size(), .unit = "rows"});

  // Streams the code of every row again, in the same order as pass 1.
  auto for_each_with_code = [&](const std::function<void(size_t, Submission &&)>& fn) {
    dataset::LoadOptions with_code;
    with_code.with_code = true;
    with_code.threads = options.threads;
    with_code.filter.excluded = excluded;
    dataset::LoadStats code_stats;
    size_t index = 0;
    dataset::load_file(
        *reader, *family, with_code,
        [&](Submission&& s) {
          if (index >= rows.size() || s.submission_id != rows[index].submission_id) {
            FormatError error(
                "the rows read with code differ from those read before; did the file change?");
            error.locate_file(reader->name());
            throw error;
          }
          fn(index++, std::move(s));
        },
        code_stats);
    if (index != rows.size()) {
      FormatError error("fewer rows read with code than before; did the file change?");
      error.locate_file(reader->name());
      throw error;
    }
  };

  const double metadata_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  Engine engine(rows, options, progress);
  engine.exact();
  if (options.mode == Mode::FUZZY) {
    engine.fuzzy(
        [&](const std::function<void(size_t, std::optional<std::string> &&)>& fn) {
          for_each_with_code([&](size_t i, Submission&& s) {
            if (engine.item_of_row()[i] >= 0) fn(i, std::move(s.code));
          });
        },
        folder_of(options.output));
  }
  Engine::Result result = engine.finish();
  DedupSummary summary = engine.summary();
  summary.metadata_seconds = metadata_seconds;
  const auto write_start = std::chrono::steady_clock::now();

  parquet::Provenance provenance;
  provenance.command = options.command_line;
  provenance.rule = rule_text(options, summary.lsh);
  provenance.source = std::filesystem::path(options.input).filename().string();
  for (const parquet::KeyValue& source_kv : reader->metadata().key_value_metadata) {
    if (source_kv.key == "kbdata.command" && source_kv.value) {
      provenance.more.push_back({"kbdata.source.command", *source_kv.value});
    }
  }
  provenance.more.push_back({"kbdata.dedup.rows_in", std::to_string(summary.rows_in)});
  if (excluded) {
    provenance.more.push_back({"kbdata.dedup.rows_left_out", std::to_string(excluded->size())});
  }
  provenance.more.push_back(
      {"kbdata.dedup.exact_duplicates", std::to_string(summary.exact_duplicates)});
  provenance.more.push_back(
      {"kbdata.dedup.near_duplicate_clusters", std::to_string(summary.near_duplicate_clusters)});
  provenance.more.push_back({"kbdata.dedup.rows_out", std::to_string(summary.rows_out)});

  using dataset::AddedColumn;
  const parquet::WriterOptions output_options = parquet::writer_options_on(options.threads);
  dataset::FlatFileWriter writer(
      options.output,
      dataset::flat_file_columns({AddedColumn::CLUSTER_ID, options.emit_all
                                                               ? AddedColumn::KEPT
                                                               : AddedColumn::CLUSTER_SIZE}),
      output_options, provenance, kOutputBatch);
  uint64_t written = 0;
  for_each_with_code([&](size_t i, Submission&& s) {
    const bool kept = result.keeper[i] == i;
    if (kept || options.emit_all) {
      dataset::AddedValues c;
      c.cluster_id = static_cast<int64_t>(result.keeper[i]);
      c.cluster_size = static_cast<int64_t>(result.size[i]);
      c.kept = kept;
      writer.write(s, c);
    }
    if (progress && (++written % kProgressEvery == 0))
      progress({.stage = "writing", .done = written, .total = rows.size(), .unit = "rows"});
  });
  writer.commit();
  summary.rows_written = static_cast<uint64_t>(writer.rows());
  summary.write_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - write_start).count();
  if (progress)
    progress({.stage = "writing", .done = rows.size(), .total = rows.size(), .unit = "rows"});
  return summary;
}

}  // namespace kbdata::dedup
