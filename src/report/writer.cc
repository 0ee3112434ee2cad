#include "report/writer.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "common/error.h"
#include "common/file.h"
#include "common/text.h"
#include "dataset/registry.h"
#include "parquet/write/row_file_writer.h"
#include "parquet/write/writer_options.h"

namespace kbdata::report {
namespace {

// Rows reach the Parquet writer 1,024 at a time.
constexpr parquet::RowBatchLimits kParquetBatch{.rows = 1024, .bytes = SIZE_MAX};
constexpr size_t kFlushBytes = size_t{64} * 1024;

bool right_aligned(ColumnType type) {
  return type == ColumnType::INT64 || type == ColumnType::SCORE || type == ColumnType::FACTOR ||
         type == ColumnType::DOUBLE;
}

// The renderers of one value take a Value (a list's item) or a Cell that is not a list: the two
// variants hold the scalars alike, and a cell's text is read where it is, never copied.

// A value's text in a table, before a string is made safe (table_cell) or cut.
template <typename V>
std::string table_value_text(const V& cell, ColumnType type) {
  if (std::holds_alternative<std::monostate>(cell)) return "null";
  switch (type) {
    case ColumnType::INT64:
      return std::to_string(std::get<int64_t>(cell));
    case ColumnType::TIMESTAMP:
      return people_time_text(std::get<int64_t>(cell));  // seconds are enough for people
    case ColumnType::SCORE:
      return format_score(std::get<double>(cell));
    case ColumnType::FACTOR: {
      char buf[64];
      std::snprintf(buf, sizeof buf, "×%.2f", std::get<double>(cell));
      return buf;
    }
    case ColumnType::DOUBLE: {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.6g", std::get<double>(cell));
      return buf;
    }
    case ColumnType::BOOL:
      return std::get<bool>(cell) ? "true" : "false";
    case ColumnType::STRING:
    case ColumnType::JSON:
      return std::get<std::string>(cell);
  }
  return "";
}

// Exact text for CSV (nullopt for null).
template <typename V>
std::optional<std::string> machine_text(const V& cell, ColumnType type);

// A list's items' texts joined by ",", a null item as "null".
template <typename ItemText>
std::string joined(const List& items, ItemText item_text) {
  std::string text;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) text += ',';
    text += item_text(items[i]);
  }
  return text;
}

std::string table_text(const Cell& cell, const Column& column) {
  const std::string text = cell_text(cell, column);
  if (column.list || column.type == ColumnType::STRING || column.type == ColumnType::JSON) {
    return column.whole ? table_cell_whole(text) : table_cell(text);
  }
  return text;
}

template <typename V>
std::optional<std::string> machine_text(const V& cell, ColumnType type) {
  if (std::holds_alternative<std::monostate>(cell)) return std::nullopt;
  switch (type) {
    case ColumnType::INT64:
      return std::to_string(std::get<int64_t>(cell));
    case ColumnType::TIMESTAMP:
      return time_text(std::get<int64_t>(cell));
    case ColumnType::SCORE:
    case ColumnType::FACTOR:
    case ColumnType::DOUBLE:
      return double_text(std::get<double>(cell));
    case ColumnType::BOOL:
      return std::get<bool>(cell) ? "true" : "false";
    case ColumnType::STRING:
    case ColumnType::JSON:
      return std::get<std::string>(cell);
  }
  return std::nullopt;
}

std::optional<std::string> csv_text(const Cell& cell, const Column& column) {
  if (const List* items = std::get_if<List>(&cell)) {
    return joined(*items,
                  [&](const Value& v) { return machine_text(v, column.type).value_or("null"); });
  }
  return machine_text(cell, column.type);
}

template <typename V>
void append_json_value(std::string& out, const V& cell, ColumnType type) {
  if (std::holds_alternative<std::monostate>(cell)) {
    out += "null";
    return;
  }
  switch (type) {
    case ColumnType::INT64:
      out += std::to_string(std::get<int64_t>(cell));
      return;
    case ColumnType::TIMESTAMP:
      append_json_string(out, time_text(std::get<int64_t>(cell)));
      return;
    case ColumnType::SCORE:
    case ColumnType::FACTOR:
    case ColumnType::DOUBLE:
      append_json_double(out, std::get<double>(cell));  // JSON has no NaN: "NaN"
      return;
    case ColumnType::BOOL:
      out += std::get<bool>(cell) ? "true" : "false";
      return;
    case ColumnType::STRING:
      append_json_text(out, std::get<std::string>(cell));
      return;
    case ColumnType::JSON:
      out += std::get<std::string>(cell);  // already JSON
      return;
  }
}

void append_json_cell(std::string& out, const Cell& cell, const Column& column) {
  if (const List* items = std::get_if<List>(&cell)) {
    out += '[';
    for (size_t i = 0; i < items->size(); ++i) {
      if (i > 0) out += ',';
      append_json_value(out, (*items)[i], column.type);
    }
    out += ']';
    return;
  }
  append_json_value(out, cell, column.type);
}

parquet::FieldType field_type(ColumnType type) {
  using parquet::FieldType;
  switch (type) {
    case ColumnType::INT64:
      return FieldType::INT64;
    case ColumnType::TIMESTAMP:
      return FieldType::TIMESTAMP;
    case ColumnType::SCORE:
    case ColumnType::FACTOR:
    case ColumnType::DOUBLE:
      return FieldType::DOUBLE;
    case ColumnType::BOOL:
      return FieldType::BOOLEAN;
    case ColumnType::STRING:
      return FieldType::STRING;
    case ColumnType::JSON:
      return FieldType::JSON;
  }
  return FieldType::STRING;
}

parquet::Field column_field(const Column& column) {
  return column.list ? parquet::Field::list(column.name, field_type(column.type))
                     : parquet::Field::leaf(column.name, field_type(column.type));
}

template <typename V>
void write_parquet_value(parquet::RowFileWriter& file, size_t c, const V& value) {
  if (std::holds_alternative<std::monostate>(value)) {
    file.column(c).null();
  } else if (const auto* i = std::get_if<int64_t>(&value)) {
    file.column<int64_t>(c).value(*i);
  } else if (const auto* d = std::get_if<double>(&value)) {
    file.column<double>(c).value(*d);
  } else if (const auto* flag = std::get_if<bool>(&value)) {
    file.column<bool>(c).value(*flag);
  } else {
    file.column<std::string_view>(c).value(std::get<std::string>(value));
  }
}

// The provenance of a table's file: its rule.
parquet::Provenance rule_only(std::string rule) {
  parquet::Provenance provenance;
  provenance.rule = std::move(rule);
  return provenance;
}

TableObserver& table_observer() {
  static TableObserver observer;
  return observer;
}

}  // namespace

std::string cell_text(const Cell& cell, const Column& column) {
  if (std::holds_alternative<std::monostate>(cell)) return "null";
  if (const List* items = std::get_if<List>(&cell)) {
    return joined(*items, [&](const Value& v) { return table_value_text(v, column.type); });
  }
  return table_value_text(cell, column.type);
}

void set_table_observer(TableObserver observer) { table_observer() = std::move(observer); }

struct Writer::Parquet {
  Parquet(const std::string& path, const std::vector<parquet::Field>& fields,
          const parquet::Provenance& provenance, parquet::RowBatchLimits limits, int threads)
      : file(path, fields, parquet::writer_options_on(threads), provenance, limits) {}
  parquet::RowFileWriter file;
};

Writer::Writer(Format format, std::vector<Column> columns, std::FILE* out, std::FILE* notes,
               std::optional<std::string> out_path, std::string rule, int threads)
    : Writer(format, std::move(columns), out, notes, std::move(out_path),
             rule_only(std::move(rule)), kParquetBatch, threads) {}

Writer::Writer(Format format, std::vector<Column> columns, std::FILE* out, std::FILE* notes,
               std::optional<std::string> out_path, parquet::Provenance provenance,
               parquet::RowBatchLimits limits, int threads)
    : format_(format),
      columns_(std::move(columns)),
      out_(out),
      notes_(notes),
      rule_(provenance.rule),
      notes_seen_(format, notes) {
  if (format_ == Format::PARQUET) {
    if (!out_path)
      throw UsageError(OptionName("format", "parquet"), " needs ", OptionName("out", "FILE"));
    std::vector<parquet::Field> fields;
    for (const Column& c : columns_) fields.push_back(column_field(c));
    parquet_ = std::make_unique<Parquet>(*out_path, fields, provenance, limits, threads);
  } else if (out_path) {
    file_ = std::make_unique<AtomicOutputFile>(*out_path);  // checked before any work
  }
  if (format_ == Format::JSON) buffer_ = "[";
  if (format_ == Format::CSV) {
    for (size_t i = 0; i < columns_.size(); ++i) {
      if (i > 0) buffer_ += ',';
      append_csv_field(buffer_, columns_[i].name);  // the one CSV rule, as cat's header
    }
    buffer_ += '\n';
  }
}

Writer::~Writer() = default;

void Writer::section(const std::string& title) {
  // Titles name users and problems from the data: escaped as table cells are.
  sections_.push_back(Section{terminal_text(title, false), {}});
}

void Writer::leaderboard_shown(int64_t leaderboard_id, const std::string& problem_name) {
  notes_seen_.seen(leaderboard_id, problem_name);
}

void Notes::seen(int64_t leaderboard_id, const std::string& problem_name) {
  if (!noted_.insert(leaderboard_id).second) return;
  std::string_view note = dataset::note_for(leaderboard_id);
  if (note.empty()) return;
  std::string line =
      "note: " + problem_name + " (" + std::to_string(leaderboard_id) + "): " + std::string(note);
  if (format_ == Format::TABLE) {
    table_lines_.push_back(terminal_text(line, false));
  } else if (format_ == Format::CSV || format_ == Format::PARQUET) {
    write_all(err_, "kbdata: " + terminal_text(line, false) + "\n");
  }
}

void Notes::append_json_note(std::string& out, int64_t leaderboard_id, bool first) {
  std::string_view note = dataset::note_for(leaderboard_id);
  if (note.empty()) return;
  out += first ? "\"note\":" : ",\"note\":";
  append_json_text(out, note);
}

void Writer::row(std::vector<Cell> cells, std::optional<int64_t> leaderboard_id,
                 const std::string& problem_name, std::string_view json_members) {
  if (cells.size() != columns_.size()) {
    throw std::logic_error("Writer::row: " + std::to_string(cells.size()) + " cells for " +
                           std::to_string(columns_.size()) + " columns");
  }
  for (size_t i = 0; i < cells.size(); ++i) {
    if (!result::cell_matches(cells[i], columns_[i])) {
      throw std::logic_error("Writer::row: cell of the wrong type for " + columns_[i].name);
    }
  }
  if (leaderboard_id) notes_seen_.seen(*leaderboard_id, problem_name);
  ++rows_;
  switch (format_) {
    case Format::TABLE: {
      if (sections_.empty()) sections_.push_back(Section{});
      std::vector<std::string> text;
      for (size_t i = 0; i < cells.size(); ++i) text.push_back(table_text(cells[i], columns_[i]));
      sections_.back().rows.push_back(std::move(text));
      return;
    }
    case Format::CSV:
      for (size_t i = 0; i < cells.size(); ++i) {
        if (i > 0) buffer_ += ',';
        append_csv_field(buffer_, csv_text(cells[i], columns_[i]));
      }
      buffer_ += '\n';
      break;
    case Format::JSON:
    case Format::JSONL: {
      if (format_ == Format::JSON) buffer_ += rows_ == 1 ? "\n" : ",\n";
      buffer_ += '{';
      for (size_t i = 0; i < cells.size(); ++i) {
        if (i > 0) buffer_ += ',';
        append_json_string(buffer_, columns_[i].name);
        buffer_ += ':';
        append_json_cell(buffer_, cells[i], columns_[i]);
      }
      if (leaderboard_id) Notes::append_json_note(buffer_, *leaderboard_id, cells.empty());
      if (!json_members.empty()) {
        if (buffer_.back() != '{') buffer_ += ',';
        buffer_ += json_members;
      }
      buffer_ += '}';
      if (format_ == Format::JSONL) buffer_ += '\n';
      break;
    }
    case Format::PARQUET:
      write_parquet_row(cells);
      return;
  }
  flush_if_large();
}

void Writer::write_parquet_row(const std::vector<Cell>& cells) {
  parquet::RowFileWriter& file = parquet_->file;
  for (size_t c = 0; c < cells.size(); ++c) {
    if (const List* items = std::get_if<List>(&cells[c])) {
      file.column(c).begin_list();
      for (const Value& item : *items) write_parquet_value(file, c, item);
      file.column(c).end_list();
    } else {
      write_parquet_value(file, c, cells[c]);
    }
  }
  file.end_row();
}

void Writer::write(result::ResultTable& table) {
  const std::vector<Column>& columns = table.columns();
  bool same = columns.size() == columns_.size();
  for (size_t i = 0; same && i < columns.size(); ++i) {
    same = columns[i].name == columns_[i].name && columns[i].type == columns_[i].type &&
           columns[i].list == columns_[i].list && columns[i].whole == columns_[i].whole;
  }
  if (!same) throw std::logic_error("Writer::write: the table's columns are not the writer's");
  if (const TableObserver& observer = table_observer()) observer(table);
  // First seen first: the notes come out in the order the rows and registrations showed them.
  for (const result::ResultTable::Leaderboard& l : table.leaderboards()) {
    leaderboard_shown(l.id, l.problem_name);
  }
  table.visit([&](const std::string& title) { section(title); },
              [&](std::vector<Cell>&& cells, const result::ResultTable::Leaderboard* leaderboard) {
                if (leaderboard != nullptr) {
                  row(std::move(cells), leaderboard->id, leaderboard->problem_name);
                } else {
                  row(std::move(cells));
                }
              });
  for (const std::string& line : table.summary_lines()) table_footer(line);
}

void Writer::emit(std::string_view text) {
  bytes_ += text.size();
  if (file_) {
    file_->write(text);
  } else {
    write_all(out_, text);
  }
}

void Writer::flush_if_large() {
  if (buffer_.size() >= kFlushBytes) {
    emit(buffer_);
    buffer_.clear();
  }
}

void Writer::table_footer(const std::string& line) { footers_.push_back(line); }

void Writer::add_key_value(parquet::KeyValue kv) {
  if (parquet_) parquet_->file.add_key_value(std::move(kv));
}

void Writer::finish() {
  close();
  commit();
}

void Writer::commit() {
  close();
  if (parquet_) {
    parquet_->file.commit();
  } else if (file_) {
    file_->commit();
  } else {
    std::fflush(out_);
  }
}

uint64_t Writer::close() {
  if (closed_) return parquet_ ? parquet_->file.bytes_written() : bytes_;
  closed_ = true;
  switch (format_) {
    case Format::TABLE: {
      std::string text;
      const std::vector<std::string>& table_notes = notes_seen_.table_lines();
      for (const std::string& note : table_notes) text += note + "\n";
      std::vector<bool> right;
      std::vector<std::string> header;
      for (const Column& c : columns_) {
        right.push_back(!c.list && right_aligned(c.type));  // a list reads as text
        header.push_back(c.name);
      }
      bool first = true;
      for (Section& s : sections_) {
        if (!first || !table_notes.empty()) text += "\n";
        first = false;
        if (!s.title.empty()) text += s.title + "\n";
        if (s.rows.empty()) {
          text += "(no rows)\n";
          continue;
        }
        s.rows.insert(s.rows.begin(), header);
        text += format_table(s.rows, right);
      }
      if (sections_.empty()) text += (table_notes.empty() ? "" : "\n") + std::string("(no rows)\n");
      for (const std::string& line : footers_) text += line + "\n";
      emit(text);
      break;
    }
    case Format::JSON:
      buffer_ += rows_ == 0 ? "]\n" : "\n]\n";
      emit(buffer_);
      break;
    case Format::CSV:
    case Format::JSONL:
      emit(buffer_);
      break;
    case Format::PARQUET:
      parquet_->file.close();
      return parquet_->file.bytes_written();
  }
  buffer_.clear();
  if (file_) file_->sync();
  return bytes_;
}

std::string rendered_text(const std::function<void(std::FILE* out, std::FILE* notes)>& render) {
  char* out_buffer = nullptr;
  size_t out_size = 0;
  char* notes_buffer = nullptr;
  size_t notes_size = 0;
  std::FILE* out = ::open_memstream(&out_buffer, &out_size);
  std::FILE* notes = ::open_memstream(&notes_buffer, &notes_size);
  auto close = [&] {
    if (out != nullptr) std::fclose(out);
    if (notes != nullptr) std::fclose(notes);
    std::string text = out_buffer == nullptr ? std::string() : std::string(out_buffer, out_size);
    std::free(out_buffer);
    std::free(notes_buffer);
    return text;
  };
  if (out == nullptr || notes == nullptr) {
    (void)close();
    throw IoError("cannot allocate a memory stream");
  }
  try {
    render(out, notes);
  } catch (...) {
    (void)close();
    throw;
  }
  return close();
}

std::string json_text(result::ResultTable& table) { return table_text(table, Format::JSON); }

std::string table_text(result::ResultTable& table, Format format) {
  return rendered_text([&](std::FILE* out, std::FILE* notes) {
    Writer writer(format, table.columns(), out, notes, std::nullopt, table.rule(), 1);  // text
    writer.write(table);
    writer.finish();
  });
}

void JsonDocument::member(std::string_view name, std::string_view text) {
  json_.member(name, text);
}

void JsonDocument::member(std::string_view name, result::ResultTable& table) {
  std::string rows = json_text(table);
  rows.pop_back();  // the array's newline: the document ends the line
  json_.key(name).raw(rows);
}

std::string JsonDocument::finish() const {
  JsonWriter closed = json_;
  closed.end_object();
  return closed.take() + "\n";
}

}  // namespace kbdata::report
