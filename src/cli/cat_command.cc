#include "cli/cat_command.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/input_file.h"
#include "cli/row_filter_options.h"
#include "cli/threads.h"
#include "common/closest_name.h"
#include "common/error.h"
#include "parquet/file_reader.h"
#include "parquet/row_filter.h"
#include "parquet/table_scan.h"
#include "tabular/record_assembler.h"

namespace kbdata::cli {
namespace {

using parquet::ColumnBatch;
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

}  // namespace

void run_cat(const CatOptions& options, std::FILE* out) {
  refuse_repeated_columns(options.columns);
  auto reader = FileReader::open(open_input_file(options.path, options.verbose ? stderr : nullptr),
                                 {.verify_checksums = options.verify_checksums});
  try {
    const std::vector<int> selected = resolve_columns(*reader, options.columns);
    // --where: pruned by statistics and page indexes, then tested row by row on the conditions'
    // columns before the other columns are decoded (parquet/table_scan.h).
    std::optional<parquet::RowFilter> filter;
    if (!options.where.empty()) {
      std::vector<parquet::Predicate> predicates;
      for (const auto& text : options.where) {
        predicates.push_back(parse_where(text, reader->schema()));
      }
      filter.emplace(reader->schema(), std::move(predicates));
    }
    uint64_t to_skip = options.offset;
    uint64_t to_print = options.limit.value_or(UINT64_MAX);
    parquet::ScanOptions scan;
    scan.threads = command_threads(options.threads);
    scan.batch_rows = kBatchRows;
    if (filter) {
      scan.filter = &*filter;
      scan.filter_rows = true;  // offset and limit then count matching rows, below
    } else {
      // Without conditions, the rows asked for are known: nothing outside them is read.
      const uint64_t end = to_print > UINT64_MAX - to_skip ? UINT64_MAX : to_skip + to_print;
      const auto clamp = [](uint64_t v) {
        return static_cast<int64_t>(std::min<uint64_t>(v, static_cast<uint64_t>(INT64_MAX)));
      };
      scan.rows = parquet::RowRanges{{clamp(to_skip), clamp(end)}};
      to_skip = 0;
    }

    tabular::FileSink sink(out, "<stdout>");
    std::optional<tabular::RecordAssembler> assembler;
    std::optional<tabular::RowWriter> writer;
    if (all_flat(*reader, selected)) {
      std::vector<const parquet::ColumnDescriptor*> descriptors;
      for (int leaf : selected) {
        descriptors.push_back(&reader->schema().leaves()[static_cast<size_t>(leaf)]);
      }
      writer.emplace(options.format, descriptors, sink);
      scan.columns = selected;
    } else {
      // Nested columns: whole records of every selected leaf, assembled per top-level field.
      assembler.emplace(reader->schema(), selected);
      writer.emplace(options.format, *assembler, sink);
      scan.columns = assembler->leaves();
    }
    if (to_print > 0 && !scan.columns.empty()) {
      parquet::TableScan rows(*reader, scan);
      std::vector<const ColumnBatch*> pointers;
      rows.run(nullptr, [&](parquet::ScanBatch& batch) {
        pointers.clear();
        for (const ColumnBatch& c : batch.columns) pointers.push_back(&c);
        const uint64_t skip = std::min<uint64_t>(to_skip, batch.num_rows);
        to_skip -= skip;
        const uint64_t print = std::min<uint64_t>(to_print, batch.num_rows - skip);
        if (print > 0) {
          try {
            writer->write(std::span<const ColumnBatch* const>(pointers), static_cast<size_t>(skip),
                          static_cast<size_t>(print));
          } catch (Error& error) {
            error.locate_row_group(batch.row_group);
            throw;
          }
          to_print -= print;
        }
        return to_print > 0;
      });
    }
    writer->finish();
  } catch (Error& error) {
    error.locate_file(reader->name());
    throw;
  }
}

void add_cat_command(CLI::App& app, Commands& commands) {
  auto options = std::make_shared<CatOptions>();
  CLI::App* cmd = app.add_subcommand("cat", "Print the rows of a Parquet file");
  cmd->add_option("FILE", options->path,
                  "Parquet file, or hf://datasets/OWNER/NAME[@REV]/PATH (needs the network unless "
                  "the hub's cache holds it)")
      ->required();
  cmd->add_flag("--verbose,-v", options->verbose,
                "Report an hf:// file's requests and bytes fetched on stderr");
  cmd->add_option("--columns,-c", options->columns,
                  "Columns to print, comma-separated, in this order (default: all)")
      ->delimiter(',');
  cmd->add_option("--limit,-n", options->limit, "Print at most N rows")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--offset", options->offset, "Skip the first N rows")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--format,-f", options->format_name, "Output format")
      ->check(CLI::IsMember({"jsonl", "csv", "table"}))
      ->capture_default_str();
  cmd->add_option("--where,-w", options->where,
                  "Print only rows where COL OP VALUE holds (OP: = != < <= > >=), or "
                  "'COL is null' / 'COL is not null'; repeatable, all must hold")
      ->allow_extra_args(false);
  cmd->add_flag("--verify-checksums", options->verify_checksums,
                "Check the CRC of every page that has one; a mismatch is an error");
  add_threads_option(*cmd, options->threads);
  commands.push_back({cmd, [options] {
                        options->format = options->format_name == "csv" ? tabular::Format::CSV
                                          : options->format_name == "table"
                                              ? tabular::Format::TABLE
                                              : tabular::Format::JSONL;
                        run_cat(*options, stdout);
                      }});
}

}  // namespace kbdata::cli
