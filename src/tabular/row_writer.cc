#include "tabular/row_writer.h"

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>

#include "common/error.h"
#include "common/text.h"

namespace kbdata::tabular {

using parquet::ColumnBatch;
using parquet::ColumnDescriptor;
using parquet::PhysicalType;

namespace {

[[noreturn]] void throw_io_error(const std::string& name, const char* action, int error_number) {
  IoError error(std::string("cannot ") + action + ": " +
                (error_number != 0 ? std::strerror(error_number) : "short write"));
  error.locate_file(name);
  throw error;
}

}  // namespace

void FileSink::write(std::string_view bytes) {
  if (bytes.empty()) return;
  errno = 0;
  const size_t written = std::fwrite(bytes.data(), 1, bytes.size(), file_);
  if (written != bytes.size() || std::ferror(file_) != 0) throw_io_error(name_, "write", errno);
}

void FileSink::flush() {
  errno = 0;
  if (std::fflush(file_) != 0) throw_io_error(name_, "flush", errno);
}

RowWriter::RowWriter(Format format, std::vector<const ColumnDescriptor*> columns, Sink& sink)
    : format_(format), sink_(sink) {
  columns_.reserve(columns.size());
  for (const ColumnDescriptor* column : columns) {
    if (column->max_rep > 0) {
      throw UnsupportedError("column '" + column->dotted_path +
                             "' is nested (repeated); nested columns are not supported yet");
    }
    add_column(*column, column->dotted_path, columns_.size(), -1);
  }
  start_output();
}

RowWriter::RowWriter(Format format, RecordAssembler& assembler, Sink& sink)
    : format_(format), sink_(sink), assembler_(&assembler) {
  const auto& leaves = assembler.schema().leaves();
  for (size_t f = 0; f < assembler.num_fields(); ++f) {
    const int flat = assembler.flat_batch(f);
    const size_t batch = static_cast<size_t>(flat >= 0 ? flat : assembler.first_batch(f));
    const ColumnDescriptor& leaf = leaves[static_cast<size_t>(assembler.leaves()[batch])];
    add_column(leaf, assembler.field_name(f), batch, flat >= 0 ? -1 : static_cast<int>(f));
  }
  start_output();
}

void RowWriter::add_column(const ColumnDescriptor& descriptor, const std::string& name,
                           size_t batch_index, int nested_field) {
  std::string repaired;
  append_utf8_repaired(repaired, name);
  std::string shown;
  append_table_cell(shown, repaired, 0);
  Column entry{&descriptor,
               ValueFormatter(descriptor),
               name,
               {},
               std::move(shown),
               0,
               batch_index,
               nested_field,
               false};
  entry.right_align = nested_field < 0 && entry.formatter.is_numeric();
  entry.display_width = utf8_length(entry.display_name);
  if (!columns_.empty()) entry.json_key.push_back(',');
  append_json_string(entry.json_key, repaired);
  entry.json_key.push_back(':');
  columns_.push_back(std::move(entry));
}

void RowWriter::start_output() {
  buffer_.reserve(kFlushBytes + kFlushBytes / 4);
  if (format_ == Format::CSV) {
    for (size_t c = 0; c < columns_.size(); ++c) {
      if (c > 0) buffer_.push_back(',');
      const size_t field_start = buffer_.size();
      append_utf8_repaired(buffer_, columns_[c].name);
      append_csv_field(field_start);
    }
    buffer_.push_back('\n');
  }
}

RowWriter::~RowWriter() = default;

void RowWriter::write(std::span<const ColumnBatch> batches, size_t first, size_t count) {
  batch_pointers_.clear();
  for (const ColumnBatch& batch : batches) batch_pointers_.push_back(&batch);
  write(batch_pointers_, first, count);
}

void RowWriter::write(std::span<const ColumnBatch* const> batches, size_t first, size_t count) {
  assert(!finished_);
  prepare_cursors(batches, first, count);
  switch (format_) {
    case Format::JSONL:
      write_jsonl(first, count);
      break;
    case Format::CSV:
      write_csv(first, count);
      break;
    case Format::TABLE:
      write_table(first, count);
      break;
  }
  rows_written_ += count;
}

void RowWriter::prepare_cursors(std::span<const ColumnBatch* const> batches, size_t first,
                                size_t count) {
  assert(assembler_ != nullptr || batches.size() == columns_.size());
  cursors_.clear();
  if (assembler_ != nullptr) {
    assembler_->start(batches);
    // Rows before `first`: nested fields are assembled and dropped (flat cursors count past them).
    for (size_t row = 0; row < first; ++row) {
      for (const Column& column : columns_) {
        if (column.nested_field < 0) continue;
        nested_text_.clear();
        assembler_->append_json(static_cast<size_t>(column.nested_field), nested_text_);
      }
    }
  }
  for (size_t c = 0; c < columns_.size(); ++c) {
    if (columns_[c].nested_field >= 0) {
      cursors_.push_back(Cursor{nullptr, 0, nullptr, 0});
      continue;
    }
    const ColumnBatch& batch = *batches[columns_[c].batch_index];
    const ColumnDescriptor& column = *columns_[c].descriptor;
    if (first + count > batch.num_levels) {
      FormatError error("batch has fewer entries than rows");
      error.locate_column(column.dotted_path);
      throw error;
    }
    Cursor cursor{nullptr, static_cast<int16_t>(column.max_def), &batch.values, first};
    size_t needed = first + count;  // values consumed up to the end of the range
    if (!batch.def_levels.empty()) {
      if (batch.def_levels.size() < first + count) {
        FormatError error("batch has fewer definition levels than entries");
        error.locate_column(column.dotted_path);
        throw error;
      }
      cursor.def_levels = batch.def_levels.data();
      const auto present = [&](int16_t level) { return level >= cursor.max_def; };
      const auto begin = batch.def_levels.begin();
      cursor.next_value = static_cast<size_t>(std::count_if(begin, begin + first, present));
      needed = cursor.next_value +
               static_cast<size_t>(std::count_if(begin + first, begin + first + count, present));
    }
    parquet::check_batch_values(column, batch.values, needed);
    cursors_.push_back(cursor);
  }
}

void RowWriter::flush_if_full() {
  if (buffer_.size() < kFlushBytes) return;
  sink_.write(buffer_);
  buffer_.clear();
}

void RowWriter::write_jsonl(size_t first, size_t count) {
  for (size_t row = first; row < first + count; ++row) {
    buffer_.push_back('{');
    for (size_t c = 0; c < columns_.size(); ++c) {
      Cursor& cursor = cursors_[c];
      buffer_.append(columns_[c].json_key);
      if (columns_[c].nested_field >= 0) {
        assembler_->append_json(static_cast<size_t>(columns_[c].nested_field), buffer_);
      } else if (cursor.is_null(row)) {
        buffer_.append("null");
      } else {
        columns_[c].formatter.append_json(buffer_, *cursor.values, cursor.next_value++);
      }
    }
    buffer_.append("}\n");
    flush_if_full();
  }
}

void RowWriter::append_csv_field(size_t field_start) {
  const std::string_view field(buffer_.data() + field_start, buffer_.size() - field_start);
  // A present empty value is quoted so that it differs from null, which is an empty field.
  if (!csv_needs_quotes(field)) return;
  scratch_.assign(field);
  buffer_.resize(field_start);
  append_csv_quoted(buffer_, scratch_);
}

void RowWriter::write_csv(size_t first, size_t count) {
  for (size_t row = first; row < first + count; ++row) {
    for (size_t c = 0; c < columns_.size(); ++c) {
      Cursor& cursor = cursors_[c];
      if (c > 0) buffer_.push_back(',');
      if (columns_[c].nested_field >= 0) {
        nested_text_.clear();
        assembler_->append_json(static_cast<size_t>(columns_[c].nested_field), nested_text_);
        if (nested_text_ == "null") continue;
        const size_t field_start = buffer_.size();
        buffer_.append(nested_text_);
        append_csv_field(field_start);
        continue;
      }
      if (cursor.is_null(row)) continue;
      if (columns_[c].formatter.always_null()) {  // a present value of the "null" type
        ++cursor.next_value;
        continue;
      }
      const size_t field_start = buffer_.size();
      columns_[c].formatter.append_text(buffer_, *cursor.values, cursor.next_value++);
      append_csv_field(field_start);
    }
    buffer_.push_back('\n');
    flush_if_full();
  }
}

void RowWriter::add_table_cell(std::string_view text) {
  const size_t offset = table_text_.size();
  const size_t width = append_table_cell(table_text_, text, kTableCellWidth);
  table_cells_.push_back(Cell{offset, static_cast<uint32_t>(table_text_.size() - offset),
                              static_cast<uint32_t>(width)});
}

void RowWriter::write_table(size_t first, size_t count) {
  for (size_t row = first; row < first + count; ++row) {
    for (size_t c = 0; c < columns_.size(); ++c) {
      Cursor& cursor = cursors_[c];
      const ValueFormatter& formatter = columns_[c].formatter;
      if (columns_[c].nested_field >= 0) {
        nested_text_.clear();
        assembler_->append_json(static_cast<size_t>(columns_[c].nested_field), nested_text_);
        add_table_cell(nested_text_);
        continue;
      }
      if (cursor.is_null(row) || formatter.always_null()) {
        if (!cursor.is_null(row)) ++cursor.next_value;
        add_table_cell("null");
        continue;
      }
      scratch_.clear();
      formatter.append_text(scratch_, *cursor.values, cursor.next_value++);
      add_table_cell(scratch_);
    }
    ++table_rows_;
    if (table_rows_ >= kTableBlockRows || table_text_.size() >= kTableBlockBytes) {
      flush_table_block();
    }
  }
}

void RowWriter::flush_table_block() {
  const size_t num_columns = columns_.size();
  std::vector<size_t> widths(num_columns);
  for (size_t c = 0; c < num_columns; ++c) widths[c] = columns_[c].display_width;
  for (size_t k = 0; k < table_cells_.size(); ++k) {
    size_t& width = widths[k % num_columns];
    width = std::max<size_t>(width, table_cells_[k].width);
  }
  std::vector<bool> right_align(num_columns);
  for (size_t c = 0; c < num_columns; ++c) right_align[c] = columns_[c].right_align;
  if (table_block_written_) buffer_.push_back('\n');
  append_table_line(
      buffer_, widths, right_align,
      [&](size_t c) -> std::string_view { return columns_[c].display_name; },
      [&](size_t c) { return columns_[c].display_width; });
  append_table_rule(buffer_, widths);
  for (size_t row = 0; row < table_rows_; ++row) {
    const Cell* cells = table_cells_.data() + row * num_columns;
    append_table_line(
        buffer_, widths, right_align,
        [&](size_t c) {
          return std::string_view(table_text_.data() + cells[c].offset, cells[c].size);
        },
        [&](size_t c) { return size_t{cells[c].width}; });
    flush_if_full();
  }
  flush_if_full();
  table_block_written_ = true;
  table_rows_ = 0;
  table_cells_.clear();
  table_text_.clear();
}

void RowWriter::finish() {
  if (finished_) return;
  finished_ = true;
  if (format_ == Format::TABLE) {
    if (table_rows_ > 0 || !table_block_written_) flush_table_block();
    buffer_.append("(" + std::to_string(rows_written_) +
                   (rows_written_ == 1 ? " row)\n" : " rows)\n"));
  }
  if (!buffer_.empty()) sink_.write(buffer_);
  buffer_.clear();
  sink_.flush();
}

}  // namespace kbdata::tabular
