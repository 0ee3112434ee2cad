#include "dataset/leaderboards_file.h"

#include <cmath>

#include "common/error.h"
#include "dataset/column_types.h"
#include "dataset/filter.h"
#include "parquet/file_reader.h"
#include "parquet/table_scan.h"

namespace kbdata::dataset {
namespace {

enum Field { ID, NAME, DEADLINE, LANG, DESCRIPTION, REFERENCE, GPU_TYPES, FIELDS };
constexpr const char* kNames[FIELDS] = {"id",          "name",      "deadline", "lang",
                                        "description", "reference", "gpu_types"};

// The leaf a field is read from, or -1: a top-level column, except gpu_types, the one leaf of a
// list (any of the list layouts writers use).
int field_leaf(const parquet::Schema& schema, Field field) {
  const auto& leaves = schema.leaves();
  for (size_t i = 0; i < leaves.size(); ++i) {
    const parquet::ColumnDescriptor& c = leaves[i];
    if (c.path.empty() || c.path[0] != kNames[field]) continue;
    if (field == GPU_TYPES ? c.max_rep == 1 : c.path.size() == 1 && c.max_rep == 0) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

bool accepted(Field field, const parquet::ColumnDescriptor& c) {
  switch (field) {
    case ID:
      return is_integer_type(c) || is_floating_type(c);
    case DEADLINE:
      return is_time_type(c);
    default:
      return c.physical == parquet::PhysicalType::BYTE_ARRAY;
  }
}

const char* expected(Field field) {
  switch (field) {
    case ID:
      return "an integer (or a DOUBLE/FLOAT holding one)";
    case DEADLINE:
      return "a timestamp";
    case GPU_TYPES:
      return "a list of strings";
    default:
      return "a string";
  }
}

// Value `value` of `values` (leaf `c`, of `field`) into its entry `e`; `fail` throws the error
// naming the row and column.
template <typename Fail>
void take_value(LeaderboardEntry& e, Field field, const parquet::ColumnDescriptor& c,
                const parquet::ValueBuffer& values, size_t value, const Fail& fail) {
  switch (field) {
    case ID: {
      if (is_integer_type(c)) {
        e.id = c.physical == parquet::PhysicalType::INT64 ? values.get<int64_t>(value)
                                                          : values.get<int32_t>(value);
        break;
      }
      const double d = c.physical == parquet::PhysicalType::DOUBLE ? values.get<double>(value)
                                                                   : values.get<float>(value);
      if (!std::isfinite(d) || std::trunc(d) != d || std::fabs(d) >= 9.2e18) {
        fail(std::to_string(d) + " is not an integer id");
      }
      e.id = static_cast<int64_t>(d);
      break;
    }
    case DEADLINE:
      if (c.physical == parquet::PhysicalType::INT64) {
        e.deadline = to_micros(values.get<int64_t>(value), c.logical.unit);
      } else {
        e.deadline = int96_to_micros(values.bytes(value).data());
      }
      break;
    case NAME:
      e.name = std::string(values.string(value));
      break;
    case LANG:
      e.lang = std::string(values.string(value));
      break;
    case DESCRIPTION:
      e.description = std::string(values.string(value));
      break;
    case REFERENCE:
      e.reference = std::string(values.string(value));
      break;
    default:
      e.gpu_types.emplace_back(values.string(value));
      break;
  }
}

}  // namespace

std::vector<LeaderboardEntry> read_leaderboards(const DataDir& dir, const DataFile& file) {
  std::vector<LeaderboardEntry> out;
  const std::string& path = file.path;
  try {
    auto reader = parquet::FileReader::open(dir.open(file));
    const parquet::Schema& schema = reader->schema();
    int slot[FIELDS];
    const parquet::ColumnDescriptor* column[FIELDS] = {};
    parquet::ScanOptions options;
    for (int f = 0; f < FIELDS; ++f) {
      slot[f] = -1;
      const int leaf = field_leaf(schema, static_cast<Field>(f));
      if (leaf < 0) continue;
      const parquet::ColumnDescriptor& c = schema.leaves()[static_cast<size_t>(leaf)];
      if (!accepted(static_cast<Field>(f), c)) {
        UnsupportedError error(std::string("column '") + kNames[f] + "': type " + type_text(c) +
                               " where " + expected(static_cast<Field>(f)) + " is expected");
        throw error;
      }
      column[f] = &c;
      slot[f] = static_cast<int>(options.columns.size());
      options.columns.push_back(leaf);
    }
    if (options.columns.empty()) return out;
    parquet::TableScan scan(*reader, options);
    scan.run(nullptr, [&](parquet::ScanBatch& batch) {
      const size_t first = out.size();
      out.resize(first + batch.num_rows);
      for (int f = 0; f < FIELDS; ++f) {
        if (slot[f] < 0) continue;
        const parquet::ColumnDescriptor& c = *column[f];
        const parquet::ColumnBatch& col = batch.columns[static_cast<size_t>(slot[f])];
        size_t values = 0;
        for (size_t i = 0; i < col.num_levels; ++i) {
          if (c.max_def == 0 || col.def_levels[i] == c.max_def) ++values;
        }
        parquet::check_batch_values(c, col.values, values);
        size_t row = first;
        size_t v = 0;
        for (size_t i = 0; i < col.num_levels; ++i) {
          if (i > 0 && (c.max_rep == 0 || col.rep_levels[i] == 0)) ++row;
          if (row >= out.size()) throw FormatError("more list entries than rows");
          if (c.max_def != 0 && col.def_levels[i] != c.max_def) continue;
          LeaderboardEntry& e = out[row];
          const size_t value = v++;
          const auto fail = [&](const std::string& what) {
            FormatError error("row " + std::to_string(batch.file_row(row - first)) + ": " + what);
            error.locate_column(c.dotted_path);
            throw error;
          };
          take_value(e, static_cast<Field>(f), c, col.values, value, fail);
        }
        if (col.num_levels > 0 && row + 1 != out.size()) {
          throw FormatError(std::string("column '") + kNames[f] + "' ends before the batch");
        }
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
