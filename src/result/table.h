// The result table: a query's answer as data (docs/results.md). Every command's answer is, or is
// becoming, one of these; rendering it is a separate step (report::Writer, in every output format;
// arrow/ as an Arrow C stream). This layer knows no KernelBot type and depends on common/ alone.
//
//   Column       a name, a type (ColumnType: what a value means, not only how it is stored) and
//                whether each cell is a list of values of that type
//   Cell         one row's value of one column, as queries give it and renderers read it
//   Values       values of one type laid out as the Arrow columnar format lays them out: a
//                validity bitmap, then int64s, doubles, bits, or int64 offsets into UTF-8 bytes
//   ColumnData   one column of one batch: its Values, and for a list column the rows' own
//                validity and offsets into the items
//   Batch        some rows of every column (a query adds rows batch by batch, as a scan delivers
//                them); sealed batches are shared, immutable, by every stream made of the table
//   ResultTable  the columns, the batches, the sections (a table's grouping: one ranking per
//                runner), the leaderboards whose scores it shows (their reliability notes), the
//                summary lines, and the rule (what the rows are)
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace kbdata::result {

enum class ColumnType {
  INT64,
  SCORE,   // seconds (double); tables show format_score
  FACTOR,  // a ratio (double); tables show "×1.83"
  DOUBLE,  // a plain number; tables show up to 6 significant digits
  BOOL,
  STRING,
  TIMESTAMP,  // µs since the epoch, UTC (int64)
  JSON,       // a JSON value as text (std::string): as is in JSON, its text in CSV and tables, a
              // JSON-annotated string in Parquet; never the items of a list
};

struct Column {
  std::string name;  // the JSON key, CSV header, Parquet column, Arrow field and table header
  ColumnType type;
  // A table shows the column's text whole, never cut at 40 code points: a list whose every item
  // matters (the rules an audit fired and their evidence).
  bool whole = false;
  // Each cell is a list (maybe empty, maybe null) of values of `type`, items maybe null.
  bool list = false;
};

// One value of a column's type: null, or int64_t (INT64, TIMESTAMP), double (SCORE, FACTOR,
// DOUBLE), bool (BOOL), std::string (STRING, JSON).
using Value = std::variant<std::monostate, int64_t, double, bool, std::string>;
// The cell of a list column.
using List = std::vector<Value>;
// One cell: a Value, or for a list column null or a List.
using Cell = std::variant<std::monostate, int64_t, double, bool, std::string, List>;

// The cell of an optional value: null without one.
template <typename T>
[[nodiscard]] Cell optional_cell(const std::optional<T>& v) {
  return v ? Cell{*v} : Cell{};
}

// The value of a cell that is not a list. Throws std::logic_error for a List.
[[nodiscard]] Value to_value(const Cell& cell);

// Whether `value` may be a value of `type` (null always may).
[[nodiscard]] bool value_matches(const Value& value, ColumnType type);
// Whether `cell` may be a cell of `column` (null always may; a list's items each match).
[[nodiscard]] bool cell_matches(const Cell& cell, const Column& column);

// Values of one type, laid out as the Arrow columnar format lays out an array of them: bit i of
// validity() (least significant bit first) is set when value i is present; the values are
// ints() (INT64, TIMESTAMP), doubles() (SCORE, FACTOR, DOUBLE), bits() (BOOL, bit-packed as
// validity is) or offsets() (size() + 1 of them, from 0) into bytes() (STRING, JSON). A null holds
// a zero, false, or an empty string in its slot. Buffers only grow: what a batch built stays
// where it is once the batch is sealed.
class Values {
 public:
  explicit Values(ColumnType type);

  // Throws std::logic_error when `value` is not of the type.
  void append(const Value& value);
  [[nodiscard]] Value at(int64_t i) const;

  [[nodiscard]] ColumnType type() const { return type_; }
  [[nodiscard]] int64_t size() const { return size_; }
  [[nodiscard]] int64_t null_count() const { return null_count_; }
  [[nodiscard]] const std::vector<uint8_t>& validity() const { return validity_; }
  [[nodiscard]] const std::vector<int64_t>& ints() const { return ints_; }
  [[nodiscard]] const std::vector<double>& doubles() const { return doubles_; }
  [[nodiscard]] const std::vector<uint8_t>& bits() const { return bits_; }
  [[nodiscard]] const std::vector<int64_t>& offsets() const { return offsets_; }
  [[nodiscard]] const std::string& bytes() const { return bytes_; }

 private:
  ColumnType type_;
  int64_t size_ = 0;
  int64_t null_count_ = 0;
  std::vector<uint8_t> validity_;
  std::vector<int64_t> ints_;
  std::vector<double> doubles_;
  std::vector<uint8_t> bits_;
  std::vector<int64_t> offsets_;  // STRING and JSON only
  std::string bytes_;
};

// One column of one batch. A scalar column's rows are values(); a list column's rows are
// list_offsets() (rows() + 1 of them, from 0) into values(), the items of every row one after
// another, with a validity bit per row in list_validity().
class ColumnData {
 public:
  explicit ColumnData(const Column& column);

  // Throws std::logic_error when `cell` does not match the column.
  void append(const Cell& cell);
  [[nodiscard]] Cell at(int64_t row) const;

  [[nodiscard]] bool list() const { return list_; }
  [[nodiscard]] int64_t rows() const { return list_ ? rows_ : values_.size(); }
  // Rows that are null (a list column: null lists, not null items).
  [[nodiscard]] int64_t null_count() const { return list_ ? list_nulls_ : values_.null_count(); }
  [[nodiscard]] const Values& values() const { return values_; }
  [[nodiscard]] const std::vector<uint8_t>& list_validity() const { return list_validity_; }
  [[nodiscard]] const std::vector<int64_t>& list_offsets() const { return list_offsets_; }

 private:
  bool list_;
  Values values_;
  int64_t rows_ = 0;  // list columns
  int64_t list_nulls_ = 0;
  std::vector<uint8_t> list_validity_;
  std::vector<int64_t> list_offsets_;
};

// Some rows of every column.
struct Batch {
  std::vector<ColumnData> columns;
  int64_t rows = 0;
};

class ResultTable {
 public:
  // A section's title and the first row (over all batches) that belongs to it; the rows before
  // the first section belong to none.
  struct Section {
    std::string title;
    int64_t first_row;
  };
  // A leaderboard whose scores the table shows.
  struct Leaderboard {
    int64_t id;
    std::string problem_name;
  };

  // `rule` says what the rows are (Parquet's kbdata.rule). A batch is sealed every `batch_rows`
  // rows (and by end_batch()).
  ResultTable(std::vector<Column> columns, std::string rule, int64_t batch_rows = 65536);

  // Starts a section: the rows added after it belong to it (a section may have none).
  void section(std::string title);
  // Registers a leaderboard whose scores are shown without adding a row (for answers whose rows
  // do not name it, and for empty answers). Leaderboards are kept in the order first seen.
  void leaderboard_shown(int64_t leaderboard_id, const std::string& problem_name);
  // One row; `leaderboard_id` names the leaderboard whose scores it shows. Throws
  // std::logic_error when the cells do not match the columns.
  void add_row(std::vector<Cell> cells, std::optional<int64_t> leaderboard_id = std::nullopt,
               const std::string& problem_name = "");
  // Seals the open batch, if it has rows: the rows so far are one batch.
  void end_batch();
  // A line for people after the tables (a table's footer).
  void summary(std::string line) { summary_.push_back(std::move(line)); }

  [[nodiscard]] const std::vector<Column>& columns() const { return columns_; }
  [[nodiscard]] const std::string& rule() const { return rule_; }
  [[nodiscard]] int64_t rows() const { return rows_; }
  [[nodiscard]] const std::vector<Section>& sections() const { return sections_; }
  [[nodiscard]] const std::vector<Leaderboard>& leaderboards() const { return leaderboards_; }
  [[nodiscard]] const std::vector<std::string>& summary_lines() const { return summary_; }
  // The leaderboard of row `row` (over all batches), if it names one.
  [[nodiscard]] const Leaderboard* row_leaderboard(int64_t row) const;

  // Walks the table in order: `on_section` as each section starts (an empty one too, before the
  // rows that follow it), `on_row` with each row's cells and its leaderboard (nullptr when it
  // names none). Seals the open batch (batches()).
  void visit(
      const std::function<void(const std::string& title)>& on_section,
      const std::function<void(std::vector<Cell>&& cells, const Leaderboard* leaderboard)>& on_row);

  // Every batch, the open one sealed first (end_batch()): rows added later go to a new batch,
  // so a sealed batch never changes and may be shared for as long as anyone needs it.
  [[nodiscard]] const std::vector<std::shared_ptr<const Batch>>& batches();
  // The sealed batches, moved out (the open one stays open): a table streamed as it is made
  // hands its rows on this way and keeps only what describes them (rows() still counts every
  // row; batches() and visit() see only the rows not taken).
  [[nodiscard]] std::vector<std::shared_ptr<const Batch>> take_batches();

 private:
  // The index of the leaderboard in leaderboards_, added when first seen.
  int32_t leaderboard_index(int64_t leaderboard_id, const std::string& problem_name);

  std::vector<Column> columns_;
  std::string rule_;
  int64_t batch_rows_;
  int64_t rows_ = 0;
  std::vector<std::shared_ptr<const Batch>> sealed_;
  std::unique_ptr<Batch> open_;
  std::vector<Section> sections_;
  std::vector<Leaderboard> leaderboards_;
  std::vector<int32_t> row_leaderboards_;  // per row: an index into leaderboards_, or -1
  std::vector<std::string> summary_;
};

// A table of `columns` whose rows are `in`'s mapped by `map`, in the same sections, with the same
// leaderboards (in the same order), summary lines and rule: another view of the same answer (a
// table for people that names a user once where the machine formats carry id and name).
[[nodiscard]] ResultTable map_rows(
    ResultTable& in, std::vector<Column> columns,
    const std::function<std::vector<Cell>(std::vector<Cell>&&)>& map);

// Some columns of a table, by name, in the order named: the table for people that place and tasks
// show (what a reader compares; the machine formats carry every column). A name the columns lack
// is a bug in the caller (std::logic_error).
class Projection {
 public:
  Projection(const std::vector<Column>& all, const std::vector<std::string>& names);
  // The projected column `name` shown under another name (the same cells).
  void rename(const std::string& name, std::string shown);
  const std::vector<Column>& columns() const { return columns_; }
  // The projected cells of one row of the full table.
  std::vector<Cell> row(std::vector<Cell>&& cells) const;
  // `in`'s rows projected (map_rows), after `before` has seen each full row.
  [[nodiscard]] ResultTable table(ResultTable& in,
                                  const std::function<void(std::vector<Cell>&)>& before = {}) const;

 private:
  std::vector<Column> columns_;
  std::vector<size_t> indexes_;  // into the full table's columns, one per projected column
};

}  // namespace kbdata::result
