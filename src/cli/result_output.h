// Rendering the analyses' results (top, progression, records, fastest, stats, extract's summary)
// in every output format: rows of typed columns, grouped into sections, with the reliability
// notes of the leaderboards they show.
//
//   table    each section's title, then its rows aligned; scores as µs/ms/s (format_score),
//            times "YYYY-MM-DD HH:MM:SS" UTC, factors as "×1.83", nulls as empty cells; the notes
//            of every leaderboard shown come first, above all tables ("note: ...")
//   csv      one header line, then the rows of every section; scores in seconds; notes on stderr
//   json     one array of objects; scores in seconds; an object whose leaderboard has a note
//            carries it in a "note" field
//   jsonl    the same objects, one per line
//   parquet  the rows as a file (--out), written atomically; notes on stderr; the columns' types
//            are INT64, DOUBLE, BOOLEAN, UTF-8 strings and TIMESTAMP(MICROS, UTC)
//
// Sections are a table's grouping (one ranking per runner, say); the machine formats flatten them,
// so every row must carry the columns that tell sections apart.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "cli/output.h"

namespace kbdata::cli {

enum class ColumnType {
  INT64,
  SCORE,   // seconds (double); tables show format_score
  FACTOR,  // a ratio (double); tables show "×1.83"
  DOUBLE,  // tables show up to 6 significant digits
  BOOL,
  STRING,
  TIMESTAMP,  // µs since the epoch, UTC (int64)
};

struct ResultColumn {
  std::string name;  // the JSON key, CSV header, Parquet column and table header
  ColumnType type;
};

// One cell: null, or the value of its column's type (INT64 and TIMESTAMP: int64_t; SCORE, FACTOR
// and DOUBLE: double; BOOL: bool; STRING: std::string).
using Cell = std::variant<std::monostate, int64_t, double, bool, std::string>;

class ResultWriter {
 public:
  // `rule` goes into the Parquet file's key-value metadata (kbdata.rule): what the rows are.
  // Throws UsageError for PARQUET without `parquet_path` or a path with another format.
  ResultWriter(OutputFormat format, std::vector<ResultColumn> columns, std::FILE* out,
               std::FILE* notes, std::optional<std::string> parquet_path, std::string rule);
  ~ResultWriter();
  ResultWriter(const ResultWriter&) = delete;
  ResultWriter& operator=(const ResultWriter&) = delete;

  // Starts a section: in a table, a blank line and `title` above the rows that follow.
  void section(const std::string& title);
  // Registers a leaderboard whose scores are shown (its note, if any, is shown once) without
  // writing a row: for outputs whose rows do not name it, and for empty results.
  void leaderboard_shown(int64_t leaderboard_id, const std::string& problem_name);
  // One row; `leaderboard_id` names the leaderboard whose scores it shows (for the note).
  // Throws std::logic_error when the cells do not match the columns.
  void row(std::vector<Cell> cells, std::optional<int64_t> leaderboard_id = std::nullopt,
           const std::string& problem_name = "");
  // A line after the tables (table format only): a summary for people.
  void table_footer(const std::string& line);
  // Ends the output (the tables, the JSON array's "]", the Parquet footer and commit).
  void finish();

  [[nodiscard]] uint64_t rows() const { return rows_; }
  [[nodiscard]] OutputFormat format() const { return format_; }

 private:
  struct Parquet;
  struct Section {
    std::string title;
    std::vector<std::vector<std::string>> rows;
  };
  void note_seen(int64_t leaderboard_id, const std::string& problem_name);
  void flush_if_large();
  void write_parquet_row(const std::vector<Cell>& cells);

  OutputFormat format_;
  std::vector<ResultColumn> columns_;
  std::FILE* out_;
  std::FILE* notes_;
  std::string rule_;
  std::set<int64_t> noted_;
  std::vector<std::string> table_notes_;
  std::vector<Section> sections_;
  std::vector<std::string> footers_;
  std::unique_ptr<Parquet> parquet_;
  std::string buffer_;
  uint64_t rows_ = 0;
};

}  // namespace kbdata::cli
