// Read, write, read: every valid file of the shared corpus and of tests/data is rewritten by
// kbdata's writer (copy_file) and read back, and every leaf column must come back with the same
// levels and values, byte for byte. The writer options rotate over the files (codec, page
// version, encoding, small pages and row groups), so the corpus's variety meets every writer path.
//
// parquet-testing/large_string_map.brotli.parquet (two 1 GiB strings) makes this test peak at
// about 5.4 GB (44 s in all on this machine; 12 GB and 171 s while the writer copied a 1 GiB
// min and max per page and every buffer was faulted in 4 KiB at a time); CMake gives it the
// big_memory resource lock.
//
// Environment: KBDATA_CORPUS overrides the corpus location; CI=true makes a missing corpus a
// failure instead of a skip.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/file.h"
#include "parquet/file_reader.h"
#include "parquet/write/copy_file.h"
#include "parquet/write/file_writer.h"

namespace kbdata::parquet {
namespace {

namespace fs = std::filesystem;

std::optional<fs::path> corpus_root() {
  const char* env = std::getenv("KBDATA_CORPUS");
  fs::path root = env != nullptr && *env != '\0'
                      ? fs::path(env)
                      : fs::path(KBDATA_SOURCE_DIR) / ".." / "shared" / "parquet-corpus";
  std::error_code ec;
  if (!fs::is_directory(root, ec)) return std::nullopt;
  return fs::weakly_canonical(root, ec);
}

// The valid .parquet files under `root` (bad/ and encrypted/ left out), sorted.
std::vector<fs::path> valid_files(const fs::path& root) {
  std::vector<fs::path> files;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator();
       ++it) {
    std::string name = it->path().lexically_relative(root).generic_string();
    if (it->is_directory() && (name == "bad" || name == "encrypted")) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file() && it->path().extension() == ".parquet") files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Writer options for the i-th file: every codec, both page versions and every encoding come
// round, and every fourth file gets tiny pages and row groups.
WriterOptions options_for(size_t i) {
  static constexpr Codec kCodecs[] = {Codec::SNAPPY, Codec::ZSTD,    Codec::UNCOMPRESSED,
                                      Codec::GZIP,   Codec::LZ4_RAW, Codec::BROTLI};
  WriterOptions options;
  options.codec = kCodecs[i % 6];
  options.page_version = i % 2 == 0 ? 1 : 2;
  options.encoding = i % 3 == 0   ? ValueEncoding::AUTO
                     : i % 3 == 1 ? ValueEncoding::DELTA
                                  : ValueEncoding::PLAIN;
  if (i % 4 == 3) {
    options.page_bytes = 512;
    options.page_rows = 37;
    options.row_group_rows = 101;
    options.dictionary_page_bytes = 256;
  }
  return options;
}

// Reads every leaf of every row group; returns a description of the first difference between
// the two files, or "" when they hold the same levels and values.
std::string compare(FileReader& a, FileReader& b) {
  // Rows as the row groups count them: some writers leave FileMetaData.num_rows at 0.
  auto rows = [](const FileReader& file) {
    int64_t total = 0;
    for (const RowGroup& group : file.metadata().row_groups) total += group.num_rows;
    return total;
  };
  if (rows(a) != rows(b)) {
    return "rows " + std::to_string(rows(a)) + " vs " + std::to_string(rows(b));
  }
  const auto& leaves = a.schema().leaves();
  for (size_t leaf = 0; leaf < leaves.size(); ++leaf) {
    // Stream both sides in fixed-size level runs across row groups and compare run by run.
    int ga = 0;
    int gb = 0;
    std::unique_ptr<ColumnReader> ra;
    std::unique_ptr<ColumnReader> rb;
    ColumnBatch ba;
    ColumnBatch bb;
    size_t ia = 0;  // consumed level entries of ba / bb
    size_t ib = 0;
    size_t va = 0;  // consumed values
    size_t vb = 0;
    auto refill = [](FileReader& file, int& group, std::unique_ptr<ColumnReader>& reader,
                     ColumnBatch& batch, size_t& at, size_t& value_at, int leaf_index) {
      while (at == batch.num_levels) {
        at = 0;
        value_at = 0;
        if (reader && reader->read_batch(1024, batch) > 0) return true;
        batch.clear();
        if (group >= file.num_row_groups()) return false;
        reader = file.column(group++, leaf_index);
      }
      return true;
    };
    uint64_t entry = 0;
    while (true) {
      bool more_a = refill(a, ga, ra, ba, ia, va, static_cast<int>(leaf));
      bool more_b = refill(b, gb, rb, bb, ib, vb, static_cast<int>(leaf));
      if (!more_a || !more_b) {
        if (more_a != more_b) return leaves[leaf].dotted_path + ": one side ends early";
        break;
      }
      const int16_t da = ba.def_levels.empty() ? 0 : ba.def_levels[ia];
      const int16_t db = bb.def_levels.empty() ? 0 : bb.def_levels[ib];
      const int16_t rpa = ba.rep_levels.empty() ? 0 : ba.rep_levels[ia];
      const int16_t rpb = bb.rep_levels.empty() ? 0 : bb.rep_levels[ib];
      if (da != db || rpa != rpb) {
        return leaves[leaf].dotted_path + ": levels differ at entry " + std::to_string(entry);
      }
      if (da == leaves[leaf].max_def) {
        auto x = ba.values.bytes(va++);
        auto y = bb.values.bytes(vb++);
        if (!std::equal(x.begin(), x.end(), y.begin(), y.end())) {
          return leaves[leaf].dotted_path + ": values differ at entry " + std::to_string(entry);
        }
      }
      ++ia;
      ++ib;
      ++entry;
    }
  }
  return "";
}

void round_trip(const fs::path& file, size_t i, std::vector<std::string>& failures) {
  std::string what = file.filename().string();
  try {
    auto source = FileReader::open(file.string());
    MemorySink sink;
    WriterOptions options = options_for(i);
    FileWriter writer(sink, source->metadata().schema, options);
    copy_file(*source, writer);
    writer.close();
    auto copy = FileReader::open(std::make_unique<MemoryFile>(what, sink.take()));
    std::string difference = compare(*source, *copy);
    if (!difference.empty()) failures.push_back(file.string() + ": " + difference);
  } catch (const Error& e) {
    failures.push_back(file.string() + ": " + e.what());
  }
}

TEST(RoundTrip, Corpus) {
  auto root = corpus_root();
  if (!root) {
    const char* ci = std::getenv("CI");
    if (ci != nullptr && std::string(ci) == "true") FAIL() << "the corpus must be present in CI";
    GTEST_SKIP() << "Parquet corpus not found (set KBDATA_CORPUS)";
  }
  std::vector<fs::path> files = valid_files(*root);
  ASSERT_GT(files.size(), 200u);
  std::vector<std::string> failures;
  for (size_t i = 0; i < files.size(); ++i) round_trip(files[i], i, failures);
  for (const std::string& failure : failures) ADD_FAILURE() << failure;
  std::printf("roundtrip: %zu corpus files read, written and read back; %zu identical\n",
              files.size(), files.size() - failures.size());
}

TEST(RoundTrip, ProjectTestData) {
  std::vector<fs::path> files = valid_files(KBDATA_TEST_DATA);
  std::vector<std::string> failures;
  for (size_t i = 0; i < files.size(); ++i) {
    if (files[i].string().find("/fuzz/") != std::string::npos) continue;
    round_trip(files[i], i, failures);
  }
  for (const std::string& failure : failures) ADD_FAILURE() << failure;
}

}  // namespace
}  // namespace kbdata::parquet
