// Test-only, for the conformance tests: both sides of a comparison read. The oracles' tables
// (DuckDB's and hyparquet's JSON, the CSV files) and kbdata's rendering of a file, leaf column by
// leaf column or, for a nested schema, as records.
#pragma once

#include "conformance/column_rules.h"

namespace kbdata::conformance {

// ----------------------------------------------------------------------------------------------
// Oracles

struct OracleTable {
  Oracle kind = Oracle::kDuckDb;
  std::string path;
  std::vector<std::vector<Json>> rows;  // values by column position
  std::vector<std::string> names;  // column names where the oracle has them (DuckDB, CSV header)
};

inline std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path.string());
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// A JSON array of row objects (DuckDB) or of row arrays (hyparquet).
inline OracleTable load_json_oracle(const fs::path& path, Oracle kind) {
  OracleTable table;
  table.kind = kind;
  table.path = path.string();
  const Json document = Json::parse(read_file(path));
  if (!document.is_array()) throw std::runtime_error(path.string() + ": not a JSON array");
  table.rows.reserve(document.size());
  for (const Json& row : document) {
    std::vector<Json> values;
    if (row.is_object()) {
      if (table.rows.empty()) {
        for (const auto& [key, value] : row.items()) table.names.push_back(key);
      }
      for (const auto& [key, value] : row.items()) values.push_back(value);
    } else if (row.is_array()) {
      for (const Json& value : row) values.push_back(value);
    } else {
      throw std::runtime_error(path.string() + ": a row is neither an object nor an array");
    }
    table.rows.push_back(std::move(values));
  }
  return table;
}

// RFC 4180 CSV with a header line. A quoted field is a string; an empty unquoted field is null;
// another unquoted field is its text.
inline OracleTable load_csv_oracle(const fs::path& path) {
  OracleTable table;
  table.kind = Oracle::kCsv;
  table.path = path.string();
  const std::string text = read_file(path);
  std::vector<Json> record;
  std::string field;
  bool quoted = false, in_quotes = false, header = true;
  auto end_field = [&] {
    if (quoted || !field.empty()) {
      record.emplace_back(field);
    } else {
      record.emplace_back(nullptr);
    }
    field.clear();
    quoted = false;
  };
  auto end_record = [&] {
    end_field();
    if (header) {
      for (const Json& name : record)
        table.names.push_back(name.is_string() ? name.get<std::string>() : "");
      header = false;
    } else {
      table.rows.push_back(std::move(record));
    }
    record.clear();
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_quotes) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field.push_back('"');
        ++i;
      } else if (c == '"') {
        in_quotes = false;
      } else {
        field.push_back(c);
      }
    } else if (c == '"') {
      in_quotes = quoted = true;
    } else if (c == ',') {
      end_field();
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      end_record();
    } else {
      field.push_back(c);
    }
  }
  if (!field.empty() || quoted || !record.empty()) end_record();
  return table;
}

// ----------------------------------------------------------------------------------------------
// Decoding

// The rendered values of one leaf column: the first `kept` rows, and a count of all rows.
struct RenderedColumn {
  std::string name;          // the leaf's dotted path, or the top-level field's name
  std::string text;          // append_json output of the kept rows, concatenated
  std::vector<size_t> ends;  // end offset of each kept value in `text`
  int64_t rows = 0;

  [[nodiscard]] std::string_view value(size_t row) const {
    const size_t begin = row == 0 ? 0 : ends[row - 1];
    return std::string_view(text).substr(begin, ends[row] - begin);
  }
};

// Reads every leaf of every row group, rendering each value with the column's ValueFormatter and
// keeping the first `keep_rows` renderings. Structural inconsistencies of the reader (a batch
// whose values do not match its definition levels, a row group whose column holds a different
// number of rows than the footer says) are appended to `problems`. Throws what the reader throws.
inline std::vector<RenderedColumn> decode_all(parquet::FileReader& reader, size_t keep_rows,
                                              std::vector<std::string>& problems) {
  const auto& leaves = reader.schema().leaves();
  std::vector<RenderedColumn> columns(leaves.size());
  parquet::ColumnBatch batch;
  std::string scratch;
  for (size_t leaf = 0; leaf < leaves.size(); ++leaf) {
    const ColumnDescriptor& column = leaves[leaf];
    const tabular::ValueFormatter formatter(column);
    RenderedColumn& out = columns[leaf];
    out.name = column.dotted_path;
    for (int rg = 0; rg < reader.num_row_groups(); ++rg) {
      auto column_reader = reader.column(rg, static_cast<int>(leaf));
      int64_t rg_levels = 0;
      for (;;) {
        const size_t n = column_reader->read_batch(kBatchLevels, batch);
        if (n == 0) break;
        if (n != batch.num_levels) {
          problems.push_back("row group " + std::to_string(rg) + ", column '" + column.dotted_path +
                             "': read_batch returned " + std::to_string(n) +
                             " but the batch holds " + std::to_string(batch.num_levels) +
                             " levels");
          return columns;
        }
        size_t present = n;
        if (column.max_def > 0) {
          if (batch.def_levels.size() != n) {
            problems.push_back("row group " + std::to_string(rg) + ", column '" +
                               column.dotted_path + "': " + std::to_string(n) + " levels but " +
                               std::to_string(batch.def_levels.size()) + " definition levels");
            return columns;
          }
          present = static_cast<size_t>(std::count(batch.def_levels.begin(), batch.def_levels.end(),
                                                   static_cast<int16_t>(column.max_def)));
        }
        if (batch.values.count != present) {
          problems.push_back("row group " + std::to_string(rg) + ", column '" + column.dotted_path +
                             "': " + std::to_string(present) + " defined levels but " +
                             std::to_string(batch.values.count) + " values in a batch");
          return columns;
        }
        size_t value_index = 0;
        for (size_t i = 0; i < n; ++i) {
          const bool is_null = column.max_def > 0 && batch.def_levels[i] != column.max_def;
          const bool keep = out.rows < static_cast<int64_t>(keep_rows) && column.max_rep == 0;
          std::string& target = keep ? out.text : scratch;
          if (!keep) scratch.clear();
          if (is_null) {
            target.append("null");
          } else {
            formatter.append_json(target, batch.values, value_index++);
          }
          if (keep) out.ends.push_back(out.text.size());
          if (column.max_rep == 0 || batch.rep_levels.empty() || batch.rep_levels[i] == 0) {
            ++out.rows;
          }
        }
        rg_levels += static_cast<int64_t>(n);
      }
      const int64_t expected = reader.metadata().row_groups[static_cast<size_t>(rg)].num_rows;
      if (column.max_rep == 0 && rg_levels != expected) {
        problems.push_back("row group " + std::to_string(rg) + ", column '" + column.dotted_path +
                           "': " + std::to_string(rg_levels) + " rows decoded, the footer says " +
                           std::to_string(expected));
      }
    }
  }
  return columns;
}

// Reads every row of every row group as records (tabular::RecordAssembler over all leaves, each
// leaf read with ColumnReader::read_records), keeping the first `keep_rows` renderings of each
// top-level field. Leaves that return different numbers of records for one request, and row
// groups that hold another number of rows than the footer says, are appended to `problems`.
// Throws what the reader and the assembler throw.
inline std::vector<RenderedColumn> decode_records(parquet::FileReader& reader, size_t keep_rows,
                                                  std::vector<std::string>& problems) {
  const auto& leaves = reader.schema().leaves();
  std::vector<int> all(leaves.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
  if (all.empty()) return {};
  tabular::RecordAssembler assembler(reader.schema(), all);
  std::vector<RenderedColumn> fields(assembler.num_fields());
  for (size_t f = 0; f < fields.size(); ++f) fields[f].name = assembler.field_name(f);
  std::vector<parquet::ColumnBatch> batches(assembler.leaves().size());
  std::vector<const parquet::ColumnBatch*> pointers;
  for (const auto& batch : batches) pointers.push_back(&batch);
  std::string scratch;
  int64_t rows = 0;
  for (int rg = 0; rg < reader.num_row_groups(); ++rg) {
    std::vector<std::unique_ptr<parquet::ColumnReader>> readers;
    for (const int leaf : assembler.leaves()) readers.push_back(reader.column(rg, leaf));
    int64_t rg_rows = 0;
    const int64_t footer_rows = reader.metadata().row_groups[static_cast<size_t>(rg)].num_rows;
    size_t batch_records = kBatchRecords;
    for (;;) {
      size_t got = 0;
      bool again = false;
      // Not past the rows the footer announces, so that the last batch is not taken for one
      // ended early (a wrong footer only costs a second read of that batch).
      size_t want = batch_records;
      if (footer_rows > rg_rows) {
        want = static_cast<size_t>(std::min<int64_t>(footer_rows - rg_rows, want));
      }
      for (size_t c = 0; c < readers.size(); ++c) {
        const size_t n = readers[c]->read_records(want, batches[c]);
        if (n > 0 && n < want) {
          // The leaf ended its batch early under the batch cap on values (read_records): read
          // the batch again, as kbdata cat does, with as many records as it gave.
          batch_records = n;
          for (size_t k = 0; k <= c; ++k) {
            readers[k].reset();
            readers[k] = reader.column(rg, assembler.leaves()[k]);
            if (rg_rows > 0) readers[k]->skip(static_cast<size_t>(rg_rows));
          }
          again = true;
          break;
        }
        if (c > 0 && n != got) {
          problems.push_back("row group " + std::to_string(rg) + ", column '" +
                             readers[c]->column().dotted_path + "': read_records returned " +
                             std::to_string(n) + " records, column '" +
                             readers[0]->column().dotted_path + "' " + std::to_string(got));
          return fields;
        }
        got = n;
      }
      if (again) continue;
      if (got == 0) break;
      assembler.start(pointers);
      for (size_t r = 0; r < got; ++r, ++rows) {
        const bool keep = rows < static_cast<int64_t>(keep_rows);
        for (size_t f = 0; f < fields.size(); ++f) {
          std::string& target = keep ? fields[f].text : scratch;
          if (!keep) scratch.clear();
          assembler.append_json(f, target);
          if (keep) fields[f].ends.push_back(fields[f].text.size());
        }
      }
      rg_rows += static_cast<int64_t>(got);
    }
    const int64_t expected = reader.metadata().row_groups[static_cast<size_t>(rg)].num_rows;
    if (rg_rows != expected) {
      problems.push_back("row group " + std::to_string(rg) + ": " + std::to_string(rg_rows) +
                         " records decoded, the footer says " + std::to_string(expected));
    }
  }
  for (auto& field : fields) field.rows = rows;
  return fields;
}

// Why the schema is nested (a leaf below the top level, a repeated leaf, a group), or "": such a
// file is compared as records.
inline std::string nested_reason(const parquet::Schema& schema) {
  for (const auto& leaf : schema.leaves()) {
    if (leaf.path.size() > 1 || leaf.max_rep > 0) {
      return "nested schema (leaf '" + leaf.dotted_path + "', max_rep " +
             std::to_string(leaf.max_rep) + ")";
    }
  }
  for (const auto& child : schema.root().children) {
    if (!child.is_leaf) return "nested schema (group '" + child.name + "' without leaves)";
  }
  return "";
}

// For each leaf: whether the footer's SchemaElement carries an explicit LogicalType. Empty when the
// elements cannot be matched to the leaves.
inline std::vector<bool> explicit_logical_types(const parquet::FileReader& reader) {
  std::vector<bool> out;
  for (const auto& element : reader.metadata().schema) {
    if (element.type) out.push_back(element.logical_type.has_value());
  }
  if (out.size() != reader.schema().leaves().size()) out.clear();
  return out;
}

}  // namespace kbdata::conformance
