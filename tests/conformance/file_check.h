// Test-only, for the conformance tests: one file against its oracle. Its leaf columns or records
// (decoding.h) compared with the oracle's rows, VARIANT values and nested records
// (NestedComparer) compared, the outcome of a file, and the summary of a run.
#pragma once

#include "conformance/decoding.h"

namespace kbdata::conformance {

// Reader bugs found by this test and not fixed yet: corpus-relative path (or "tests/data/<file>")
// and diagnosis. These files still count as failures (printed "FAILING (known)") unless
// KBDATA_ALLOW_KNOWN_FAILURES=1. Remove an entry as soon as its bug is fixed; a listed file that
// passes is reported as a failure so that the list cannot go stale.
struct KnownFailure {
  const char* file;
  const char* diagnosis;
};
inline const std::vector<KnownFailure> kKnownFailures = {};

// ----------------------------------------------------------------------------------------------
// One file

enum class Status { kPassed, kSkipped, kFailed };

struct FileCase {
  std::string name;  // corpus-relative path, or "tests/data/<file>"
  fs::path path;
  std::optional<fs::path> oracle;  // DuckDB or hyparquet JSON
  Oracle oracle_kind = Oracle::kDuckDb;
  std::optional<fs::path> csv_oracle;  // DELTA *_expect.csv
  const Json* manifest = nullptr;      // MANIFEST.json entry
};

// Values compared, by column class, and values the oracle could not represent.
struct ValueStats {
  static constexpr size_t kClasses = static_cast<size_t>(Class::kVariant) + 1;
  int64_t compared[kClasses] = {};
  int64_t not_comparable = 0;

  void add(const ValueStats& other) {
    for (size_t k = 0; k < kClasses; ++k) compared[k] += other.compared[k];
    not_comparable += other.not_comparable;
  }
};

struct Outcome {
  std::string name;
  Status status = Status::kPassed;
  std::string detail;  // skip reason, or the first failure
  std::vector<std::string> more_failures;
  std::vector<std::string> remarks;  // values not compared; what a file without oracle did
  bool without_oracle = false;       // DuckDB could not read it and there is no other oracle
  ValueStats stats;
};

inline const KnownFailure* find_known_failure(const std::string& name) {
  for (const auto& known : kKnownFailures) {
    if (name == known.file) return &known;
  }
  return nullptr;
}

inline std::optional<int64_t> manifest_int(const Json* entry, const char* key) {
  if (entry == nullptr || !entry->contains(key) || !(*entry)[key].is_number_integer()) {
    return std::nullopt;
  }
  return (*entry)[key].get<int64_t>();
}

// What both comparisons start with: the oracle's row count checked against ours (or against
// MANIFEST's truncation), and one comparison rule per leaf column.
struct OracleSetup {
  std::string where;
  int64_t oracle_rows;
  std::vector<ColumnRule> rules;
};
inline OracleSetup prepare_oracle_comparison(const parquet::FileReader& reader,
                                             const OracleTable& oracle, int64_t total_rows,
                                             int64_t truncated_to,
                                             std::vector<std::string>& failures) {
  const auto& leaves = reader.schema().leaves();
  OracleSetup setup{std::string(oracle_name(oracle.kind)) + " oracle",
                    static_cast<int64_t>(oracle.rows.size()),
                    {}};
  const std::string& where = setup.where;
  const int64_t oracle_rows = setup.oracle_rows;
  if (truncated_to >= 0) {
    if (oracle_rows != truncated_to || oracle_rows > total_rows) {
      failures.push_back(where + ": holds " + std::to_string(oracle_rows) +
                         " rows, MANIFEST says it was truncated to " +
                         std::to_string(truncated_to) + " of " + std::to_string(total_rows));
    }
  } else if (oracle_rows != total_rows) {
    failures.push_back(where + ": " + std::to_string(oracle_rows) + " rows, we decoded " +
                       std::to_string(total_rows));
  }
  const std::vector<bool> explicit_logical = explicit_logical_types(reader);
  for (size_t c = 0; c < leaves.size(); ++c) {
    setup.rules.emplace_back(leaves[c], oracle.kind,
                             !explicit_logical.empty() && explicit_logical[c]);
  }
  return setup;
}

// Compares the decoded columns with one oracle table; appends failures to `failures` and values
// the oracle cannot represent to `notes`.
inline void compare_with_oracle(const parquet::FileReader& reader,
                                const std::vector<RenderedColumn>& columns,
                                const OracleTable& oracle, int64_t total_rows,
                                int64_t truncated_to,  // -1: not truncated
                                std::vector<std::string>& failures, std::vector<std::string>& notes,
                                ValueStats& stats) {
  const auto& leaves = reader.schema().leaves();
  OracleSetup setup = prepare_oracle_comparison(reader, oracle, total_rows, truncated_to, failures);
  const std::string& where = setup.where;
  const int64_t oracle_rows = setup.oracle_rows;
  const std::vector<ColumnRule>& rules = setup.rules;
  int mismatches = 0;
  const auto rows = static_cast<size_t>(std::min(oracle_rows, total_rows));
  for (size_t r = 0; r < rows; ++r) {
    const auto& row = oracle.rows[r];
    if (row.size() != leaves.size()) {
      failures.push_back(where + ": row " + std::to_string(r) + " has " +
                         std::to_string(row.size()) + " columns, the file has " +
                         std::to_string(leaves.size()) + " leaf columns");
      return;
    }
    for (size_t c = 0; c < leaves.size(); ++c) {
      if (r >= columns[c].ends.size()) {
        failures.push_back("column '" + leaves[c].dotted_path + "': only " +
                           std::to_string(columns[c].ends.size()) + " values were kept");
        return;
      }
      const Verdict verdict = rules[c].compare(columns[c].value(r), row[c]);
      ++stats.compared[static_cast<size_t>(rules[c].value_class())];
      if (verdict.kind == Verdict::Kind::kEqual) continue;
      const std::string location =
          "row " + std::to_string(r) + ", column '" + leaves[c].dotted_path + "' (" + where + "): ";
      if (verdict.kind == Verdict::Kind::kNotComparable) {
        ++stats.not_comparable;
        notes.push_back("not compared: " + location + verdict.message);
        continue;
      }
      if (++mismatches <= kMaxReportedMismatches) failures.push_back(location + verdict.message);
    }
  }
  if (mismatches > kMaxReportedMismatches) {
    failures.push_back(std::to_string(mismatches - kMaxReportedMismatches) +
                       " more mismatches against the " + where);
  }
}

// ----------------------------------------------------------------------------------------------
// VARIANT values

// An instant from our rendering of a variant date ("2024-01-31", midnight) or timestamp.
inline std::optional<Int128> variant_instant(const std::string& text) {
  if (const auto instant = parse_timestamp(text)) return instant->nanos;
  size_t pos = 0;
  const auto days = parse_date(text, pos);
  if (!days || pos != text.size()) return std::nullopt;
  return Int128{*days} * kNanosPerDay;
}

// Compares a decoded VARIANT, ours (the assembler's JSON, tabular/variant.h) with the oracle's
// decoding; "" when they match, else what differs and where. A variant carries its own types,
// which the JSON of both sides drops, so the rules go by the values (docs/conformance.md,
// "VARIANT"): null, booleans and strings exactly, numbers as doubles, objects by key set in any
// order, arrays by position; and an oracle string that reads as a timestamp (hyparquet turns
// variant dates and timestamps into JavaScript Dates, "2024-01-30T00:00:00.000Z") matches our
// date or timestamp at the oracle's resolution (DuckDB microseconds, JavaScript milliseconds, or
// finer when the oracle writes more digits), zone marker aside.
inline std::string variant_difference(const Json& ours, const Json& want, const std::string& path,
                                      Oracle oracle) {
  const auto differ = [&] {
    return path + ": expected " + shorten(dump(want)) + ", got " + shorten(dump(ours)) +
           " (VARIANT)";
  };
  if (ours.is_object() && want.is_object()) {
    if (ours.size() != want.size()) return differ();
    for (const auto& [key, value] : ours.items()) {
      if (!want.contains(key)) return path + ": the oracle's object lacks '" + key + "'";
      std::string problem = variant_difference(value, want[key], path + "." + key, oracle);
      if (!problem.empty()) return problem;
    }
    return "";
  }
  if (ours.is_array() && want.is_array()) {
    if (ours.size() != want.size()) return differ();
    for (size_t i = 0; i < ours.size(); ++i) {
      std::string problem =
          variant_difference(ours[i], want[i], path + "[" + std::to_string(i) + "]", oracle);
      if (!problem.empty()) return problem;
    }
    return "";
  }
  if (ours.is_number() && want.is_number()) {
    return ours.get<double>() == want.get<double>() ? "" : differ();
  }
  if (ours.is_string() && want.is_string() && ours != want) {
    const auto expected = parse_timestamp(want.get<std::string>());
    const auto got = variant_instant(ours.get<std::string>());
    if (!expected || !got) return differ();
    int64_t resolution = oracle == Oracle::kHyparquet ? 1000000 : 1000;
    int64_t shown = 1;
    for (int k = expected->fraction_digits; k < 9; ++k) shown *= 10;
    if (expected->fraction_digits > 0) resolution = std::min(resolution, shown);
    return floor_div(*got, resolution) * resolution == expected->nanos ? "" : differ();
  }
  return ours == want ? "" : differ();
}

// ----------------------------------------------------------------------------------------------
// Nested values

// Compares one rendered top-level field (structs as objects, lists as arrays, maps as arrays of
// {"key", "value"} objects: tabular/record_assembler.h) with the oracle's value, walking the
// schema node by node by the LIST and MAP rules of LogicalTypes.md, written here independently of
// the assembler; leaves compare by their ColumnRule. The oracles' conventions:
//   - DuckDB: structs are objects with every field, lists arrays, maps arrays of {key, value};
//   - hyparquet: a struct leaves out fields that are null (undefined), an empty list that cannot
//     be null (a bare repeated field, a REQUIRED list) is null, a map is an object keyed by
//     String(key).
// A VARIANT group is compared as a decoded variant (variant_difference).
class NestedComparer {
 public:
  NestedComparer(const std::vector<ColumnRule>& rules, Oracle oracle, ValueStats& stats,
                 std::vector<std::string>& notes)
      : rules_(rules), oracle_(oracle), stats_(stats), notes_(notes) {}

  // "" when equal, else what differs and where (a path below the field).
  std::string field(const parquet::SchemaNode& s, const Json& ours, const Json* expected,
                    const std::string& path) {
    if (s.repetition == parquet::Repetition::REPEATED) {
      return elements(ours, expected, path,
                      [&](const Json& o, const Json* e, const std::string& p) {
                        return value(s, o, e, p, is_entry(s));
                      });
    }
    return value(s, ours, expected, path, false);
  }

 private:
  static bool is_entry(const parquet::SchemaNode& s) {
    return !s.is_leaf && s.converted && *s.converted == parquet::ConvertedType::MAP_KEY_VALUE;
  }
  static bool annotated(const parquet::SchemaNode& s, LogicalType::Kind kind,
                        parquet::ConvertedType converted) {
    return s.logical.kind == kind || (s.converted && *s.converted == converted);
  }

  template <typename ElementFn>
  std::string elements(const Json& ours, const Json* expected, const std::string& path,
                       ElementFn&& element) {
    // hyparquet gives null (or leaves out) an empty list that cannot be null.
    if (oracle_ == Oracle::kHyparquet && (expected == nullptr || expected->is_null()) &&
        ours.is_array() && ours.empty()) {
      return "";
    }
    if (expected == nullptr || !expected->is_array()) {
      return path + ": expected " + (expected ? shorten(dump(*expected)) : "nothing") + ", got " +
             shorten(dump(ours));
    }
    if (!ours.is_array() || ours.size() != expected->size()) {
      return path + ": expected " + shorten(dump(*expected)) + ", got " + shorten(dump(ours));
    }
    for (size_t i = 0; i < ours.size(); ++i) {
      std::string problem = element(ours[i], &(*expected)[i], path + "[" + std::to_string(i) + "]");
      if (!problem.empty()) return problem;
    }
    return "";
  }

  std::string value(const parquet::SchemaNode& s, const Json& ours, const Json* expected,
                    const std::string& path, bool map_entry) {
    static const Json kNull;
    const Json& want = expected != nullptr ? *expected : kNull;
    if (s.is_leaf) {
      const ColumnRule& rule = rules_[static_cast<size_t>(s.leaf_index)];
      const Verdict verdict = rule.compare(ours.dump(), want);
      ++stats_.compared[static_cast<size_t>(rule.value_class())];
      if (verdict.kind == Verdict::Kind::kNotComparable) {
        ++stats_.not_comparable;
        notes_.push_back("not compared: " + path + ": " + verdict.message);
        return "";
      }
      return verdict.kind == Verdict::Kind::kEqual ? "" : path + ": " + verdict.message;
    }
    // hyparquet gives null for an empty list or map that cannot be null (a REQUIRED group).
    if (oracle_ == Oracle::kHyparquet && want.is_null() && ours.is_array() && ours.empty() &&
        s.repetition == parquet::Repetition::REQUIRED) {
      return "";
    }
    if (ours.is_null() || want.is_null()) {
      if (ours.is_null() && want.is_null()) return "";
      return path + ": expected " + shorten(dump(want)) + ", got " + shorten(dump(ours));
    }
    if (s.logical.kind == LogicalType::Kind::VARIANT && !s.children.empty()) {
      ++stats_.compared[static_cast<size_t>(Class::kVariant)];
      return variant_difference(ours, want, path, oracle_);
    }
    const auto& children = s.children;
    const bool single_repeated =
        children.size() == 1 && children[0].repetition == parquet::Repetition::REPEATED;
    if (single_repeated && !children[0].is_leaf &&
        (annotated(s, LogicalType::Kind::MAP, parquet::ConvertedType::MAP) ||
         (s.converted && *s.converted == parquet::ConvertedType::MAP_KEY_VALUE))) {
      return map(children[0], ours, want, path);
    }
    if (single_repeated && annotated(s, LogicalType::Kind::LIST, parquet::ConvertedType::LIST)) {
      const parquet::SchemaNode& repeated = children[0];
      const bool two_level = repeated.is_leaf || repeated.children.size() != 1 ||
                             repeated.name == "array" || repeated.name == s.name + "_tuple";
      return elements(ours, &want, path, [&](const Json& o, const Json* e, const std::string& p) {
        return two_level ? value(repeated, o, e, p, is_entry(repeated))
                         : field(repeated.children[0], o, e, p);
      });
    }
    // A struct.
    if (!ours.is_object() || !want.is_object()) {
      return path + ": expected " + shorten(dump(want)) + ", got " + shorten(dump(ours));
    }
    size_t matched = 0;
    for (size_t i = 0; i < children.size(); ++i) {
      std::string name = children[i].name;
      if (map_entry && i < 2) name = i == 0 ? "key" : "value";
      if (!ours.contains(name)) return path + ": our object lacks '" + name + "'";
      const Json* child = want.contains(name) ? &want[name] : nullptr;
      if (child != nullptr) ++matched;
      if (child == nullptr && oracle_ != Oracle::kHyparquet) {
        return path + ": the oracle's object lacks '" + name + "'";
      }
      std::string problem = field(children[i], ours[name], child, path + "." + name);
      if (!problem.empty()) return problem;
    }
    if (matched != want.size()) return path + ": the oracle's object has other keys " + dump(want);
    return "";
  }

  std::string map(const parquet::SchemaNode& entries, const Json& ours, const Json& want,
                  const std::string& path) {
    if (oracle_ != Oracle::kHyparquet) {
      return elements(ours, &want, path, [&](const Json& o, const Json* e, const std::string& p) {
        return value(entries, o, e, p, true);
      });
    }
    // hyparquet: an object keyed by String(key); a later duplicate key wins.
    if (!ours.is_array() || !want.is_object()) {
      return path + ": expected " + shorten(dump(want)) + ", got " + shorten(dump(ours));
    }
    std::map<std::string, size_t> last;
    for (size_t i = 0; i < ours.size(); ++i) {
      if (!ours[i].is_object() || !ours[i].contains("key")) return path + ": a map entry lacks key";
      const Json& key = ours[i]["key"];
      last[key.is_string() ? key.get<std::string>() : key.dump()] = i;
    }
    if (last.size() != want.size()) {
      return path + ": expected " + shorten(dump(want)) + ", got " + shorten(dump(ours));
    }
    for (const auto& [key, index] : last) {
      if (!want.contains(key)) return path + ": the oracle's map lacks key " + key;
      if (entries.children.size() < 2) continue;
      std::string problem =
          field(entries.children[1], ours[index]["value"], &want[key], path + "{" + key + "}");
      if (!problem.empty()) return problem;
    }
    return "";
  }

  const std::vector<ColumnRule>& rules_;
  Oracle oracle_;
  ValueStats& stats_;
  std::vector<std::string>& notes_;
};

// The top-level schema fields that hold leaves, in schema order: the fields of a RecordAssembler
// over all leaves.
inline std::vector<const parquet::SchemaNode*> fields_with_leaves(const parquet::Schema& schema) {
  std::vector<const parquet::SchemaNode*> out;
  const auto has_leaf = [](const parquet::SchemaNode& node, const auto& self) -> bool {
    if (node.is_leaf) return true;
    return std::any_of(node.children.begin(), node.children.end(),
                       [&](const parquet::SchemaNode& child) { return self(child, self); });
  };
  for (const auto& child : schema.root().children) {
    if (has_leaf(child, has_leaf)) out.push_back(&child);
  }
  return out;
}

// compare_with_oracle for records: `fields` holds the rendered top-level fields.
inline void compare_nested_with_oracle(const parquet::FileReader& reader,
                                       const std::vector<RenderedColumn>& fields,
                                       const OracleTable& oracle, int64_t total_rows,
                                       int64_t truncated_to,  // -1: not truncated
                                       std::vector<std::string>& failures,
                                       std::vector<std::string>& notes, ValueStats& stats) {
  OracleSetup setup = prepare_oracle_comparison(reader, oracle, total_rows, truncated_to, failures);
  const std::string& where = setup.where;
  const int64_t oracle_rows = setup.oracle_rows;
  const std::vector<ColumnRule>& rules = setup.rules;
  const std::vector<const parquet::SchemaNode*> nodes = fields_with_leaves(reader.schema());
  if (nodes.size() != fields.size()) {
    failures.push_back("the assembler made " + std::to_string(fields.size()) +
                       " fields, the schema has " + std::to_string(nodes.size()) +
                       " top-level fields with leaves");
    return;
  }
  NestedComparer comparer(rules, oracle.kind, stats, notes);
  int mismatches = 0;
  const auto rows = static_cast<size_t>(std::min(oracle_rows, total_rows));
  for (size_t r = 0; r < rows; ++r) {
    const auto& row = oracle.rows[r];
    if (row.size() != fields.size()) {
      failures.push_back(where + ": row " + std::to_string(r) + " has " +
                         std::to_string(row.size()) + " columns, the file has " +
                         std::to_string(fields.size()) + " top-level fields with leaves");
      return;
    }
    for (size_t f = 0; f < fields.size(); ++f) {
      if (r >= fields[f].ends.size()) {
        failures.push_back("field '" + fields[f].name + "': only " +
                           std::to_string(fields[f].ends.size()) + " values were kept");
        return;
      }
      const std::string location = "row " + std::to_string(r) + " (" + where + "): ";
      Json ours;
      try {
        ours = Json::parse(fields[f].value(r));
      } catch (const std::exception&) {
        if (++mismatches <= kMaxReportedMismatches) {
          failures.push_back(
              location + "our rendering is not JSON: " + shorten(std::string(fields[f].value(r))));
        }
        continue;
      }
      const std::string problem = comparer.field(*nodes[f], ours, &row[f], fields[f].name);
      if (!problem.empty() && ++mismatches <= kMaxReportedMismatches) {
        failures.push_back(location + problem);
      }
    }
  }
  if (mismatches > kMaxReportedMismatches) {
    failures.push_back(std::to_string(mismatches - kMaxReportedMismatches) +
                       " more mismatches against the " + where);
  }
}

inline Outcome check_file(const FileCase& file) {
  Outcome outcome;
  outcome.name = file.name;
  std::vector<std::string> failures;

  // Load the oracles first: their row counts bound what decoding keeps.
  std::optional<OracleTable> oracle, csv;
  try {
    if (file.oracle) oracle = load_json_oracle(*file.oracle, file.oracle_kind);
    if (file.csv_oracle) csv = load_csv_oracle(*file.csv_oracle);
  } catch (const std::exception& e) {
    outcome.status = Status::kFailed;
    outcome.detail = std::string("cannot load the oracle: ") + e.what();
    return outcome;
  }
  const bool has_oracle = oracle || csv;
  const bool duckdb_failed = file.manifest != nullptr && file.manifest->contains("duckdb_error");
  size_t keep_rows = 0;
  if (oracle) keep_rows = std::max(keep_rows, oracle->rows.size());
  if (csv) keep_rows = std::max(keep_rows, csv->rows.size());

  std::unique_ptr<parquet::FileReader> reader;
  std::vector<RenderedColumn> columns;
  bool nested = false;
  try {
    reader = parquet::FileReader::open(file.path.string());
    nested = !nested_reason(reader->schema()).empty();
    std::vector<std::string> problems;
    columns = nested ? decode_records(*reader, keep_rows, problems)
                     : decode_all(*reader, keep_rows, problems);
    failures.insert(failures.end(), problems.begin(), problems.end());
  } catch (const UnsupportedError& e) {
    // Every feature of a valid corpus file is read now: nothing is skipped any more.
    failures.push_back(std::string("UnsupportedError: ") + e.what());
  } catch (const Error& e) {
    if (!has_oracle && duckdb_failed) {
      outcome.without_oracle = true;
      outcome.remarks.push_back(std::string("clean kbdata::Error: ") + e.what());
      return outcome;
    }
    failures.push_back(std::string("kbdata::Error: ") + e.what());
  } catch (const std::exception& e) {
    // Not part of the error model, whatever the file holds.
    failures.push_back(std::string("exception outside kbdata::Error: ") + e.what());
  }

  if (failures.empty() && reader) {
    const int64_t footer_rows = reader->num_rows();
    int64_t sum_rows = 0;
    for (const auto& rg : reader->metadata().row_groups) sum_rows += rg.num_rows;
    int64_t table_rows = footer_rows;
    if (sum_rows != footer_rows) {
      // Some writers (parquet-rs 0.3.0) store 0; DuckDB then goes by the row groups, and so do
      // we when DuckDB's count confirms it.
      if (manifest_int(file.manifest, "duckdb_rows") == sum_rows) {
        outcome.remarks.push_back("the footer's num_rows " + std::to_string(footer_rows) +
                                  " is wrong: the row groups hold " + std::to_string(sum_rows) +
                                  ", as DuckDB reads");
        table_rows = sum_rows;
      } else {
        failures.push_back("footer num_rows " + std::to_string(footer_rows) +
                           " differs from the row groups' sum " + std::to_string(sum_rows));
      }
    }
    int64_t decoded_rows = table_rows;
    for (size_t c = 0; c < columns.size(); ++c) {
      if (columns[c].rows != table_rows) {
        failures.push_back("column '" + columns[c].name + "': decoded " +
                           std::to_string(columns[c].rows) + " rows, the footer says " +
                           std::to_string(table_rows));
        decoded_rows = columns[c].rows;
      }
    }
    if (auto rows = manifest_int(file.manifest, "rows"); rows && *rows != footer_rows) {
      failures.push_back("footer num_rows " + std::to_string(footer_rows) + ", MANIFEST rows " +
                         std::to_string(*rows));
    }
    if (auto rows = manifest_int(file.manifest, "duckdb_rows"); rows && *rows != decoded_rows) {
      failures.push_back("decoded " + std::to_string(decoded_rows) + " rows, DuckDB read " +
                         std::to_string(*rows));
    }
    if (oracle) {
      const int64_t truncated =
          file.oracle_kind == Oracle::kDuckDb
              ? manifest_int(file.manifest, "duckdb_json_truncated_to").value_or(-1)
              : -1;
      if (nested) {
        compare_nested_with_oracle(*reader, columns, *oracle, decoded_rows, truncated, failures,
                                   outcome.remarks, outcome.stats);
      } else {
        compare_with_oracle(*reader, columns, *oracle, decoded_rows, truncated, failures,
                            outcome.remarks, outcome.stats);
      }
    }
    if (csv) {
      compare_with_oracle(*reader, columns, *csv, decoded_rows, -1, failures, outcome.remarks,
                          outcome.stats);
    }
    if (!has_oracle) {
      if (duckdb_failed) {
        outcome.without_oracle = true;
        outcome.remarks.push_back("read cleanly: " + std::to_string(decoded_rows) + " rows");
      } else {
        failures.push_back("no oracle for this file");
      }
    }
  }

  if (!failures.empty()) {
    outcome.status = Status::kFailed;
    outcome.detail = failures.front();
    outcome.more_failures.assign(failures.begin() + 1, failures.end());
  }
  return outcome;
}

// ----------------------------------------------------------------------------------------------
// Runs and reports

inline const char* class_name(Class value_class) {
  switch (value_class) {
    case Class::kNull:
      return "null";
    case Class::kBoolean:
      return "boolean";
    case Class::kInteger:
      return "integer";
    case Class::kFloat:
      return "float";
    case Class::kDouble:
      return "double";
    case Class::kString:
      return "string";
    case Class::kBinary:
      return "binary";
    case Class::kGeometry:
      return "geometry";
    case Class::kDecimal:
      return "decimal";
    case Class::kDate:
      return "date";
    case Class::kTime:
      return "time";
    case Class::kTimestamp:
      return "timestamp";
    case Class::kInt96:
      return "int96";
    case Class::kUuid:
      return "uuid";
    case Class::kVariant:
      return "variant";
  }
  return "?";
}

struct Summary {
  std::vector<Outcome> outcomes;

  // Prints the summary to stdout and raises one GoogleTest failure per failed file.
  void report(const std::string& label) const {
    const bool allow_known = env_flag("KBDATA_ALLOW_KNOWN_FAILURES");
    int passed = 0, skipped = 0, failed = 0;
    ValueStats stats;
    std::ostringstream skipped_list, failed_list, remarks_list;
    for (const Outcome& o : outcomes) {
      stats.add(o.stats);
      const KnownFailure* known = find_known_failure(o.name);
      for (const auto& remark : o.remarks) remarks_list << "  " << o.name << ": " << remark << "\n";
      if (o.status == Status::kSkipped) {
        ++skipped;
        skipped_list << "  " << o.name << ": " << o.detail << "\n";
        continue;
      }
      if (o.status == Status::kPassed) {
        if (known == nullptr) {
          ++passed;
        } else {
          ++failed;
          failed_list << "  " << o.name << ": listed in kKnownFailures but passes; remove it\n";
          ADD_FAILURE() << o.name << ": listed in kKnownFailures but passes; remove the entry";
        }
        continue;
      }
      std::ostringstream text;
      text << o.detail;
      for (const auto& more : o.more_failures) text << "\n      " << more;
      if (known != nullptr) {
        failed_list << "  FAILING (known) " << o.name << ": " << text.str() << "\n"
                    << "      known: " << known->diagnosis << "\n";
        if (allow_known) {
          ++passed;
          continue;
        }
        ADD_FAILURE() << "FAILING (known) " << o.name << ": " << text.str();
      } else {
        failed_list << "  " << o.name << ": " << text.str() << "\n";
        ADD_FAILURE() << o.name << ": " << text.str();
      }
      ++failed;
    }
    std::cout << "conformance: " << passed << " files passed, " << skipped << " skipped, " << failed
              << " failed (" << label << ")\n";
    std::cout << "values compared:";
    for (size_t k = 0; k < ValueStats::kClasses; ++k) {
      if (stats.compared[k] > 0) {
        std::cout << " " << class_name(static_cast<Class>(k)) << " " << stats.compared[k];
      }
    }
    std::cout << "; not comparable " << stats.not_comparable << "\n";
    if (skipped > 0) std::cout << "skipped:\n" << skipped_list.str();
    if (!remarks_list.str().empty()) std::cout << "remarks:\n" << remarks_list.str();
    if (!failed_list.str().empty()) std::cout << "failed:\n" << failed_list.str();
    std::cout.flush();
  }
};

}  // namespace kbdata::conformance
