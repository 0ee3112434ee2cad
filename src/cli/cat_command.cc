#include "cli/cat_command.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "common/error.h"
#include "parquet/file_reader.h"

namespace kbdata::cli {
namespace {

using parquet::ColumnBatch;
using parquet::ColumnReader;
using parquet::FileReader;

// Rows per batch: small enough that a batch of large text values (kernel source code, tens of KB
// a row) stays a few tens of MB, large enough to amortise the per-batch work.
constexpr size_t kBatchRows = 1024;

std::vector<int> resolve_columns(const FileReader& reader, const std::vector<std::string>& names) {
  const auto& leaves = reader.schema().leaves();
  std::vector<int> out;
  if (names.empty()) {
    for (size_t i = 0; i < leaves.size(); ++i) out.push_back(static_cast<int>(i));
    return out;
  }
  for (const auto& name : names) {
    auto index = reader.schema().find_leaf(name);
    if (!index) {
      std::string known;
      for (const auto& leaf : leaves) {
        if (!known.empty()) known += ", ";
        known += leaf.dotted_path;
      }
      UsageError error("no column '" + name + "'; the columns are: " + known);
      error.locate_file(reader.name());
      throw error;
    }
    out.push_back(*index);
  }
  return out;
}

[[noreturn]] void short_column(const FileReader& reader, int row_group, const std::string& column,
                               uint64_t got, int64_t expected) {
  FormatError error("column chunk ends after " + std::to_string(got) + " of the row group's " +
                    std::to_string(expected) + " rows");
  error.locate_column(column);
  error.locate_row_group(row_group);
  error.locate_file(reader.name());
  throw error;
}

void cat_rows(FileReader& file, const CatOptions& options, std::FILE* out);

}  // namespace

void run_cat(const CatOptions& options, std::FILE* out) {
  auto reader = FileReader::open(options.path);
  try {
    cat_rows(*reader, options, out);
  } catch (Error& error) {
    error.locate_file(reader->name());
    throw;
  }
}

namespace {

void cat_rows(FileReader& file, const CatOptions& options, std::FILE* out) {
  FileReader* reader = &file;
  std::vector<int> selected = resolve_columns(*reader, options.columns);
  std::vector<const parquet::ColumnDescriptor*> descriptors;
  for (int leaf : selected) descriptors.push_back(&reader->schema().leaves()[static_cast<size_t>(leaf)]);

  tabular::FileSink sink(out, "<stdout>");
  tabular::RowWriter writer(options.format, descriptors, sink);
  uint64_t to_skip = options.offset;
  uint64_t to_print = options.limit.value_or(UINT64_MAX);
  std::vector<ColumnBatch> batches(selected.size());

  for (int g = 0; g < reader->num_row_groups() && to_print > 0 && !selected.empty(); ++g) {
    const int64_t group_rows = reader->metadata().row_groups[static_cast<size_t>(g)].num_rows;
    if (to_skip >= static_cast<uint64_t>(group_rows)) {
      to_skip -= static_cast<uint64_t>(group_rows);  // the whole group is skipped unread
      continue;
    }
    std::vector<std::unique_ptr<ColumnReader>> columns;
    for (int leaf : selected) {
      columns.push_back(reader->column(g, leaf));
      if (to_skip > 0 && columns.back()->skip(to_skip) != to_skip) {
        short_column(*reader, g, columns.back()->column().dotted_path, 0, group_rows);
      }
    }
    uint64_t rows_done = to_skip;
    to_skip = 0;
    while (rows_done < static_cast<uint64_t>(group_rows) && to_print > 0) {
      size_t want = static_cast<size_t>(
          std::min<uint64_t>({kBatchRows, to_print, static_cast<uint64_t>(group_rows) - rows_done}));
      for (size_t c = 0; c < columns.size(); ++c) {
        size_t got = columns[c]->read_batch(want, batches[c]);
        if (got != want) {
          short_column(*reader, g, columns[c]->column().dotted_path, rows_done + got, group_rows);
        }
      }
      writer.write(std::span<const ColumnBatch>(batches), 0, want);
      rows_done += want;
      to_print -= want;
    }
  }
  writer.finish();
}

}  // namespace

}  // namespace kbdata::cli
