#include "dataset/leaderboards_file.h"

#include "common/error.h"
#include "parquet/file_reader.h"
#include "parquet/table_scan.h"

namespace kbdata::dataset {
namespace {

// One column of the scan: its leaf, or -1 when the file lacks it.
struct Wanted {
  const char* name;
  int leaf = -1;
  int slot = -1;  // index in the scan's columns
};

}  // namespace

std::vector<LeaderboardEntry> read_leaderboards(const DataDir& dir, const DataFile& file) {
  std::vector<LeaderboardEntry> out;
  const std::string& path = file.path;
  try {
    auto reader = parquet::FileReader::open(dir.open(file));
    const parquet::Schema& schema = reader->schema();
    Wanted wanted[] = {{"id"}, {"name"}, {"lang"}, {"description"}, {"reference"}};
    parquet::ScanOptions options;
    for (Wanted& w : wanted) {
      const std::optional<int> leaf = schema.find_leaf(w.name);
      if (!leaf) continue;
      const parquet::ColumnDescriptor& c = schema.leaves()[static_cast<size_t>(*leaf)];
      const bool id = std::string_view(w.name) == "id";
      const bool ok = id ? (c.physical == parquet::PhysicalType::INT64 ||
                            c.physical == parquet::PhysicalType::INT32)
                         : c.physical == parquet::PhysicalType::BYTE_ARRAY;
      if (!ok || c.max_rep > 0) {
        throw UnsupportedError(std::string("column '") + w.name + "': expected " +
                               (id ? "an integer" : "a string"));
      }
      w.leaf = *leaf;
      w.slot = static_cast<int>(options.columns.size());
      options.columns.push_back(*leaf);
    }
    if (options.columns.empty()) return out;
    parquet::TableScan scan(*reader, options);
    scan.run(nullptr, [&](parquet::ScanBatch& batch) {
      std::vector<size_t> next(options.columns.size(), 0);  // next value per column
      for (size_t r = 0; r < batch.num_rows; ++r) {
        LeaderboardEntry e;
        for (Wanted& w : wanted) {
          if (w.slot < 0) continue;
          const size_t s = static_cast<size_t>(w.slot);
          const parquet::ColumnBatch& col = batch.columns[s];
          const parquet::ColumnDescriptor& c = schema.leaves()[static_cast<size_t>(w.leaf)];
          const bool present = c.max_def == 0 || col.def_levels[r] == c.max_def;
          if (!present) continue;
          parquet::check_batch_values(c, col.values, next[s] + 1);
          const size_t v = next[s]++;
          const std::string_view name = w.name;
          if (name == "id") {
            e.id = c.physical == parquet::PhysicalType::INT64 ? col.values.get<int64_t>(v)
                                                              : col.values.get<int32_t>(v);
          } else if (name == "name") {
            e.name = std::string(col.values.string(v));
          } else if (name == "lang") {
            e.lang = std::string(col.values.string(v));
          } else if (name == "description") {
            e.description = std::string(col.values.string(v));
          } else {
            e.reference = std::string(col.values.string(v));
          }
        }
        out.push_back(std::move(e));
      }
      return true;
    });
  } catch (Error& error) {
    error.locate_file(path);
    throw;
  }
  return out;
}

std::vector<const DataFile*> leaderboards_files(const DataDir& dir) {
  std::vector<const DataFile*> out;
  for (const DataFile& f : dir.files) {
    if (f.family == SchemaFamily::LEADERBOARDS) out.push_back(&f);
  }
  return out;
}

}  // namespace kbdata::dataset
