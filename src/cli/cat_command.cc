#include "cli/cat_command.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "cli/row_filter_options.h"
#include "common/closest_name.h"
#include "common/error.h"
#include "parquet/file_reader.h"
#include "tabular/record_assembler.h"

namespace kbdata::cli {
namespace {

using parquet::ColumnBatch;
using parquet::ColumnReader;
using parquet::FileReader;

// Rows per batch: small enough that a batch of large text values (kernel source code, tens of KB
// a row) stays a few tens of MB, large enough to amortise the per-batch work.
constexpr size_t kBatchRows = 1024;

// The leaves selected by `names`: a leaf's dotted path selects it, a group's dotted path every
// leaf below it; no names select every leaf. Throws UsageError for a path that is neither,
// listing the top-level fields.
std::vector<int> resolve_columns(const FileReader& reader, const std::vector<std::string>& names) {
  const auto& leaves = reader.schema().leaves();
  std::vector<int> out;
  if (names.empty()) {
    for (size_t i = 0; i < leaves.size(); ++i) out.push_back(static_cast<int>(i));
    return out;
  }
  for (const auto& name : names) {
    if (auto index = reader.schema().find_leaf(name)) {
      out.push_back(*index);
      continue;
    }
    const std::string prefix = name + ".";
    bool found = false;
    for (size_t i = 0; i < leaves.size(); ++i) {
      if (leaves[i].dotted_path.compare(0, prefix.size(), prefix) == 0) {
        out.push_back(static_cast<int>(i));
        found = true;
      }
    }
    if (!found) {
      std::string known;
      for (const auto& field : reader.schema().root().children) {
        if (!known.empty()) known += ", ";
        known += field.name;
      }
      UsageError error("no column '" + name + "'" +
                       did_you_mean(name, column_names(reader.schema())) +
                       " (the columns: " + known + ")");
      error.locate_file(reader.name());
      throw error;
    }
  }
  return out;
}

// True when every selected leaf is a top-level column without repetition: rows are then read
// level entry by entry and written without record assembly.
bool all_flat(const FileReader& reader, const std::vector<int>& selected) {
  return std::all_of(selected.begin(), selected.end(), [&](int leaf) {
    const auto& column = reader.schema().leaves()[static_cast<size_t>(leaf)];
    return column.path.size() == 1 && column.max_rep == 0;
  });
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
void cat_records(FileReader& reader, const CatOptions& options, const std::vector<int>& selected,
                 tabular::Sink& sink);

}  // namespace

void run_cat(const CatOptions& options, std::FILE* out) {
  refuse_repeated_columns(options.columns);
  auto reader = FileReader::open(options.path, {.verify_checksums = options.verify_checksums});
  try {
    // --where: pruning and row filtering live in cli/row_filter_options.
    if (!options.where.empty()) {
      cat_where(*reader, options, out);
      return;
    }
    cat_rows(*reader, options, out);
  } catch (Error& error) {
    error.locate_file(reader->name());
    throw;
  }
}

namespace {

// Streams rows [offset, offset + limit) of the `leaves` to `writer`, row group by row group and
// batch by batch; row groups entirely before the offset are not read at all. Every leaf is read
// in whole records (for a flat column a record is one value).
void stream_rows(FileReader& reader, const CatOptions& options, const std::vector<int>& leaves,
                 tabular::RowWriter& writer) {
  uint64_t to_skip = options.offset;
  uint64_t to_print = options.limit.value_or(UINT64_MAX);
  std::vector<ColumnBatch> batches(leaves.size());
  std::vector<const ColumnBatch*> batch_pointers;
  for (const ColumnBatch& batch : batches) batch_pointers.push_back(&batch);

  for (int g = 0; g < reader.num_row_groups() && to_print > 0 && !leaves.empty(); ++g) {
    const int64_t group_rows = reader.metadata().row_groups[static_cast<size_t>(g)].num_rows;
    if (to_skip >= static_cast<uint64_t>(group_rows)) {
      to_skip -= static_cast<uint64_t>(group_rows);  // the whole group is skipped unread
      continue;
    }
    std::vector<std::unique_ptr<ColumnReader>> columns;
    for (int leaf : leaves) {
      columns.push_back(reader.column(g, leaf));
      if (to_skip > 0 && columns.back()->skip(to_skip) != to_skip) {
        short_column(reader, g, columns.back()->column().dotted_path, 0, group_rows);
      }
    }
    uint64_t rows_done = to_skip;
    to_skip = 0;
    size_t batch_rows = kBatchRows;
    while (rows_done < static_cast<uint64_t>(group_rows) && to_print > 0) {
      const uint64_t group_left = static_cast<uint64_t>(group_rows) - rows_done;
      const size_t want =
          static_cast<size_t>(std::min<uint64_t>({batch_rows, to_print, group_left}));
      size_t short_at = columns.size();  // the first column that returned fewer rows
      size_t got = want;
      for (size_t c = 0; c < columns.size() && short_at == columns.size(); ++c) {
        got = columns[c]->read_records(want, batches[c]);
        if (got == 0) {
          short_column(reader, g, columns[c]->column().dotted_path, rows_done, group_rows);
        }
        if (got < want) short_at = c;
      }
      if (short_at < columns.size()) {
        // The column ended its batch early to keep its values under the batch cap (huge
        // dictionary strings; ColumnReader::read_records): read this batch again with as many
        // rows as it gave, for the rest of the row group. Columns already read start again from
        // the group's start, skipping the rows written. (A chunk that really ends early returns
        // 0 on a later read, and short_column() reports it.)
        batch_rows = got;
        for (size_t c = 0; c <= short_at; ++c) {
          columns[c].reset();  // release its pages and dictionary before reading them again
          columns[c] = reader.column(g, leaves[c]);
          if (rows_done > 0 && columns[c]->skip(rows_done) != rows_done) {
            short_column(reader, g, columns[c]->column().dotted_path, 0, group_rows);
          }
        }
        continue;
      }
      try {
        writer.write(std::span<const ColumnBatch* const>(batch_pointers), 0, want);
      } catch (Error& error) {
        error.locate_row_group(g);
        throw;
      }
      rows_done += want;
      to_print -= want;
    }
  }
  writer.finish();
}

void cat_rows(FileReader& reader, const CatOptions& options, std::FILE* out) {
  std::vector<int> selected = resolve_columns(reader, options.columns);
  tabular::FileSink sink(out, "<stdout>");
  if (!all_flat(reader, selected)) {
    cat_records(reader, options, selected, sink);
    return;
  }
  std::vector<const parquet::ColumnDescriptor*> descriptors;
  for (int leaf : selected) {
    descriptors.push_back(&reader.schema().leaves()[static_cast<size_t>(leaf)]);
  }
  tabular::RowWriter writer(options.format, descriptors, sink);
  stream_rows(reader, options, selected, writer);
}

// Nested columns: whole records of every selected leaf, assembled per top-level field.
void cat_records(FileReader& reader, const CatOptions& options, const std::vector<int>& selected,
                 tabular::Sink& sink) {
  tabular::RecordAssembler assembler(reader.schema(), selected);
  tabular::RowWriter writer(options.format, assembler, sink);
  stream_rows(reader, options, assembler.leaves(), writer);
}

}  // namespace

}  // namespace kbdata::cli
