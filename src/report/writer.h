// The one writer of results: every command's rows (submissions, the analyses, extract's summary)
// reach the user through it, as typed cells, in every output format, with the reliability notes
// of the leaderboards they show. One rule per format (report/text.h has the text rules):
//
//   table    each section's title, then its rows aligned (table_cell: control characters escaped,
//            cut at 40 code points unless the column is `whole`); scores as µs/ms/s (format_score),
//            times "YYYY-MM-DD HH:MM:SS" UTC, factors as "×1.83", nulls as "null"; the notes of
//            every leaderboard shown come first, above all tables ("note: ...")
//   csv      one header line, then the rows of every section; scores in seconds; notes on stderr
//   json     one array of objects; scores in seconds; an object whose leaderboard has a note
//            carries it in a "note" field
//   jsonl    the same objects, one per line
//   parquet  the rows as a file (--out), written atomically; notes on stderr; the columns' types
//            are INT64, DOUBLE, BOOLEAN, UTF-8 strings and TIMESTAMP(MICROS, UTC)
//
// Every format goes to stdout, or with --out to that file, written atomically (the format itself
// chosen by output_format(), report/text.h: docs/cli.md, "Output files").
//
// Sections are a table's grouping (one ranking per runner, say); the machine formats flatten them,
// so every row must carry the columns that tell sections apart.
//
// A list column (Column::list) is a JSON array in json and jsonl, a Parquet LIST of its type, and
// its items' texts joined by "," in a table and CSV ("a,b"; an empty list is an empty text, a
// null item reads "null").
//
// A result table (result/table.h) is written with write(): its leaderboards, sections, rows and
// summary lines, exactly as the same calls one by one would write them.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "common/json_writer.h"
#include "parquet/metadata.h"
#include "parquet/write/provenance.h"
#include "parquet/write/row_file_writer.h"
#include "report/text.h"
#include "result/table.h"

namespace kbdata {
class AtomicOutputFile;
}

namespace kbdata::report {

// A row's columns and cells are the result table's (result/table.h): one definition, named here
// too so that the commands' rows read as report's.
using result::Cell;
using result::Column;
using result::ColumnType;
using result::List;
using result::optional_cell;
using result::Value;

// A cell's text for people, by the table format's rule, before a table makes it safe for a
// terminal and cuts it (table_cell): scores as format_score, times as people_time_text, factors
// as "×1.83", plain numbers with up to 6 significant digits, a list's items joined by ",", a null
// "null". The web explorer's cells are this text, escaped for HTML (serve/html.h html_cell).
[[nodiscard]] std::string cell_text(const Cell& cell, const Column& column);

// Which leaderboards' reliability notes (dataset/registry.h note_for) an output has shown, and
// where each goes: queued for above a table, one stderr line for CSV and Parquet ("kbdata: note:
// ..."; a comment line would break CSV readers, and Parquet metadata is fixed before the first
// row), a "note" field of each JSON object (json_note).
class Notes {
 public:
  Notes(Format format, std::FILE* err) : format_(format), err_(err) {}
  // The first time `leaderboard_id` is seen: its note, if it has one, is shown.
  void seen(int64_t leaderboard_id, const std::string& problem_name);
  // The lines for above a table, in the order their leaderboards were seen.
  [[nodiscard]] const std::vector<std::string>& table_lines() const { return table_lines_; }
  // Appends `"note":"..."` (after a ',' unless `first`) when the leaderboard has a note.
  static void append_json_note(std::string& out, int64_t leaderboard_id, bool first);

 private:
  Format format_;
  std::FILE* err_;
  std::set<int64_t> noted_;
  std::vector<std::string> table_lines_;
};

class Writer {
 public:
  // The output goes to `out_path` when given (any format: a temporary beside it, renamed over it
  // by finish(); without finish() nothing appears there), else to `out` (every format but
  // PARQUET). `rule` goes into the Parquet file's key-value metadata (kbdata.rule): what the rows
  // are. Throws UsageError for PARQUET without `out_path`, and (AtomicOutputFile) for an
  // `out_path` that must not be replaced; IoError when its temporary cannot be made. `threads`
  // compress the Parquet file's pages (parquet::WriterOptions::threads, the caller's count); the
  // text formats ignore it.
  Writer(Format format, std::vector<Column> columns, std::FILE* out, std::FILE* notes,
         std::optional<std::string> out_path, std::string rule, int threads);
  // The same, for a file whose Parquet metadata records more than the rule (`provenance`: the
  // command, the source, more key-values) and whose rows reach the Parquet writer `limits` at a
  // time (they bound its row groups and pages); the text formats ignore both. For files that
  // are a command's product (kbdata pairs' rows).
  Writer(Format format, std::vector<Column> columns, std::FILE* out, std::FILE* notes,
         std::optional<std::string> out_path, parquet::Provenance provenance,
         parquet::RowBatchLimits limits, int threads);
  ~Writer();
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  // Starts a section: in a table, a blank line and `title` above the rows that follow.
  void section(const std::string& title);
  // Registers a leaderboard whose scores are shown (its note, if any, is shown once) without
  // writing a row: for outputs whose rows do not name it, and for empty results.
  void leaderboard_shown(int64_t leaderboard_id, const std::string& problem_name);
  // One row; `leaderboard_id` names the leaderboard whose scores it shows (for the note).
  // `json_members`: more members for the JSON formats' object (`"runs":[...]`), after the cells
  // and the note; the other formats have no place for them.
  // Throws std::logic_error when the cells do not match the columns.
  void row(std::vector<Cell> cells, std::optional<int64_t> leaderboard_id = std::nullopt,
           const std::string& problem_name = "", std::string_view json_members = {});
  // A line after the tables (table format only): a summary for people.
  void table_footer(const std::string& line);
  // Writes `table` (whose columns must be the writer's): its leaderboards (their notes), then its
  // sections and rows, then its summary lines as table footers. Throws std::logic_error when the
  // columns differ.
  void write(result::ResultTable& table);
  // A key-value pair of the Parquet file's metadata known only once the rows are written
  // (counts), after the provenance's; the text formats have no place for it. REQUIRES: before
  // close().
  void add_key_value(parquet::KeyValue kv);
  // Ends the output (the tables, the JSON array's "]", the Parquet footer): an output file is
  // complete and synced but still under its temporary name, until commit(). Returns the bytes
  // written. A second call does nothing more.
  uint64_t close();
  // close() if not yet, then an output file is renamed into place (stdout is flushed).
  void commit();
  // close() and commit(): the usual end.
  void finish();

  [[nodiscard]] uint64_t rows() const { return rows_; }
  [[nodiscard]] Format format() const { return format_; }

 private:
  struct Parquet;
  struct Section {
    std::string title;
    std::vector<std::vector<std::string>> rows;
  };
  void flush_if_large();
  void emit(std::string_view text);  // to file_, else out_
  void write_parquet_row(const std::vector<Cell>& cells);

  Format format_;
  std::vector<Column> columns_;
  std::FILE* out_;
  std::FILE* notes_;
  std::string rule_;
  Notes notes_seen_;
  std::vector<Section> sections_;
  std::vector<std::string> footers_;
  std::unique_ptr<Parquet> parquet_;
  std::unique_ptr<AtomicOutputFile> file_;  // --out for the text formats
  std::string buffer_;
  uint64_t rows_ = 0;
  uint64_t bytes_ = 0;  // the text formats' bytes emitted
  bool closed_ = false;
};

// Who else is shown each result table a Writer writes (Writer::write, before its rows are
// rendered): a program that runs commands in-process and takes their answers as data as well as
// text (the test that hands every command's table to DuckDB as an Arrow stream and holds its rows
// to what the command printed). Empty, as in the kbdata binary: nobody. Set it while no command
// runs; the observer must not itself write with a Writer.
using TableObserver = std::function<void(result::ResultTable& table)>;
void set_table_observer(TableObserver observer);

// What `render` writes to its `out` (a stream in memory), as text; what it writes to its `notes`
// is dropped. For documents that hold a rendered answer (the web explorer's JSON twins): the
// answer is rendered by the writer, never built twice. Throws what `render` throws, and IoError
// when the memory stream cannot be made.
[[nodiscard]] std::string rendered_text(
    const std::function<void(std::FILE* out, std::FILE* notes)>& render);

// What `--format json` prints for `table`: the JSON array of its rows, each object with its
// leaderboard's note (Writer, JSON).
[[nodiscard]] std::string json_text(result::ResultTable& table);
// What `--format F` prints for `table` (a text format: not PARQUET, a UsageError), the notes that
// go to stderr dropped: for files that hold a table (extract's manifest.jsonl).
[[nodiscard]] std::string table_text(result::ResultTable& table, Format format);

// The document of several tables beside Writer, on the one writer of JSON documents
// (common/json_writer.h, COMPACT): an object of named members, strings and result tables, each
// table as json_text prints it (the array of its rows, one line per row), then a newline:
// {"data":"...","configs":[\n{...},\n{...}\n],"skipped":[]}\n. For answers of several tables
// (configs).
class JsonDocument {
 public:
  JsonDocument() { json_.begin_object(); }
  void member(std::string_view name, std::string_view text);
  void member(std::string_view name, result::ResultTable& table);
  // The document; the members added so far, closed.
  [[nodiscard]] std::string finish() const;

 private:
  JsonWriter json_;
};

}  // namespace kbdata::report
