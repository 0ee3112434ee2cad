// Test-only: small flat-schema (docs/dataset.md §4.1) and legacy per-run (§4.2) files written with
// kbdata's FileWriter, for the data model's tests. Not the synth tool: every value is spelled out.
#pragma once

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "common/file.h"
#include "parquet/schema.h"
#include "parquet/write/file_writer.h"

namespace kbdata::testing {

struct FlatRow {
  int64_t submission_id = 0;
  int64_t leaderboard_id = 0;
  std::string problem_name;
  std::string user_id;
  std::string user_name;
  int64_t code_id = 0;
  std::optional<std::string> file_name = "submission.py";
  int64_t submission_time = 0;  // µs UTC
  std::string status = "succeeded";
  std::optional<double> score;
  std::optional<bool> passed;
  std::optional<std::string> mode;
  std::optional<std::string> runner;
  std::string code;
};

struct LegacyRow {
  int64_t submission_id = 0;
  int64_t leaderboard_id = 0;
  int64_t user_id = 0;
  int64_t submission_time_ms = 0;  // naive timestamp, milliseconds
  std::string file_name = "submission.py";
  std::string code;
  int64_t code_id = 0;
  int64_t run_id = 0;
  std::string run_mode = "test";
  std::optional<double> run_score;
  std::optional<bool> run_passed;
  std::optional<double> duration;  // run_meta.duration (a nested struct the model ignores)
  // run_result's benchmark.N.mean (N < 2) as the tester writes them (text, nanoseconds); written
  // only by legacy_file(..., with_results = true), with std "1.5", err "2.5", runs "100", best
  // "4.5" and worst "5.5" beside each mean.
  std::vector<std::string> benchmark_means;
};

namespace detail {

inline parquet::SchemaElement leaf(
    const std::string& name, parquet::PhysicalType type, bool optional,
    parquet::LogicalType::Kind kind = parquet::LogicalType::Kind::NONE,
    parquet::TimeUnit unit = parquet::TimeUnit::MICROS, bool utc = true) {
  parquet::SchemaElement e;
  e.name = name;
  e.type = type;
  e.repetition_type = optional ? parquet::Repetition::OPTIONAL : parquet::Repetition::REQUIRED;
  if (kind != parquet::LogicalType::Kind::NONE) {
    parquet::LogicalType t;
    t.kind = kind;
    t.unit = unit;
    t.is_adjusted_to_utc = utc;
    e.logical_type = t;
  }
  return e;
}

inline parquet::SchemaElement str(const std::string& name) {
  return leaf(name, parquet::PhysicalType::BYTE_ARRAY, true, parquet::LogicalType::Kind::STRING);
}
inline parquet::SchemaElement i64(const std::string& name) {
  return leaf(name, parquet::PhysicalType::INT64, false);
}

// Appends one value (or null) to a flat optional/required column's batch.
struct Batches {
  std::vector<parquet::ColumnBatch> b;
  explicit Batches(const parquet::Schema& schema) {
    for (const auto& c : schema.leaves()) {
      parquet::ColumnBatch batch;
      batch.values = parquet::ValueBuffer::for_type(c.physical, c.type_length);
      b.push_back(std::move(batch));
    }
  }
  template <typename T>
  void fixed(size_t c, std::optional<T> v, bool optional = true) {
    ++b[c].num_levels;
    if (optional) b[c].def_levels.push_back(v ? 1 : 0);
    if (!v) return;
    const auto* bytes = reinterpret_cast<const uint8_t*>(&*v);
    b[c].values.data.insert(b[c].values.data.end(), bytes, bytes + sizeof(T));
    ++b[c].values.count;
  }
  void boolean(size_t c, std::optional<bool> v) {
    ++b[c].num_levels;
    b[c].def_levels.push_back(v ? 1 : 0);
    if (!v) return;
    b[c].values.data.push_back(*v ? 1 : 0);
    ++b[c].values.count;
  }
  void text(size_t c, std::optional<std::string> v) {
    ++b[c].num_levels;
    b[c].def_levels.push_back(v ? 1 : 0);
    if (v) b[c].values.append_binary({reinterpret_cast<const uint8_t*>(v->data()), v->size()});
  }
};

}  // namespace detail

inline std::vector<parquet::SchemaElement> flat_schema() {
  using detail::i64;
  using detail::str;
  parquet::SchemaElement root;
  root.name = "schema";
  root.num_children = 14;
  return {root,
          i64("submission_id"),
          i64("leaderboard_id"),
          str("problem_name"),
          str("user_id"),
          str("user_name"),
          i64("code_id"),
          str("file_name"),
          detail::leaf("submission_time", parquet::PhysicalType::INT64, false,
                       parquet::LogicalType::Kind::TIMESTAMP),
          str("status"),
          detail::leaf("score", parquet::PhysicalType::DOUBLE, true),
          detail::leaf("passed", parquet::PhysicalType::BOOLEAN, true),
          str("mode"),
          str("runner"),
          str("code")};
}

inline std::vector<uint8_t> flat_file(const std::vector<FlatRow>& rows,
                                      parquet::WriterOptions options = {}) {
  MemorySink sink;
  parquet::FileWriter writer(sink, flat_schema(), options);
  detail::Batches b(writer.schema());
  for (const FlatRow& r : rows) {
    b.fixed<int64_t>(0, r.submission_id, false);
    b.fixed<int64_t>(1, r.leaderboard_id, false);
    b.text(2, r.problem_name);
    b.text(3, r.user_id);
    b.text(4, r.user_name);
    b.fixed<int64_t>(5, r.code_id, false);
    b.text(6, r.file_name);
    b.fixed<int64_t>(7, r.submission_time, false);
    b.text(8, r.status);
    b.fixed<double>(9, r.score);
    b.boolean(10, r.passed);
    b.text(11, r.mode);
    b.text(12, r.runner);
    b.text(13, r.code);
  }
  writer.write(b.b);
  writer.close();
  return sink.take();
}

// `binary_code`: the code column is BYTE_ARRAY without a STRING annotation. `with_results`: a
// run_result struct of string keys benchmark-count and benchmark.{0,1}.{mean,std,err,runs,best,
// worst} follows run_meta.
inline std::vector<uint8_t> legacy_file(const std::vector<LegacyRow>& rows, bool binary_code,
                                        parquet::WriterOptions options = {},
                                        bool with_results = false) {
  using detail::i64;
  using detail::str;
  parquet::SchemaElement root;
  root.name = "schema";
  root.num_children = 14;
  parquet::SchemaElement meta;
  meta.name = "run_meta";
  meta.repetition_type = parquet::Repetition::OPTIONAL;
  meta.num_children = 1;
  std::vector<parquet::SchemaElement> schema = {
      root,
      i64("submission_id"),
      i64("leaderboard_id"),
      i64("user_id"),
      detail::leaf("submission_time", parquet::PhysicalType::INT64, false,
                   parquet::LogicalType::Kind::TIMESTAMP, parquet::TimeUnit::MILLIS, false),
      str("file_name"),
      binary_code ? detail::leaf("code", parquet::PhysicalType::BYTE_ARRAY, true) : str("code"),
      i64("code_id"),
      i64("run_id"),
      detail::leaf("run_start_time", parquet::PhysicalType::INT64, true,
                   parquet::LogicalType::Kind::TIMESTAMP, parquet::TimeUnit::MILLIS, false),
      detail::leaf("run_end_time", parquet::PhysicalType::INT64, true,
                   parquet::LogicalType::Kind::TIMESTAMP, parquet::TimeUnit::MILLIS, false),
      str("run_mode"),
      detail::leaf("run_score", parquet::PhysicalType::DOUBLE, true),
      detail::leaf("run_passed", parquet::PhysicalType::BOOLEAN, true),
      meta,
      detail::leaf("duration", parquet::PhysicalType::DOUBLE, true)};
  static const char* const kKeys[] = {"mean", "std", "err", "runs", "best", "worst"};
  static const char* const kValues[] = {nullptr, "1.5", "2.5", "100", "4.5", "5.5"};
  if (with_results) {
    root.num_children = 15;
    schema[0] = root;
    parquet::SchemaElement result;
    result.name = "run_result";
    result.repetition_type = parquet::Repetition::OPTIONAL;
    result.num_children = 13;
    schema.push_back(result);
    schema.push_back(str("benchmark-count"));
    for (int n = 0; n < 2; ++n) {
      for (const char* k : kKeys) {
        schema.push_back(str("benchmark." + std::to_string(n) + "." + k));
      }
    }
  }
  MemorySink sink;
  parquet::FileWriter writer(sink, schema, options);
  detail::Batches b(writer.schema());
  for (const LegacyRow& r : rows) {
    b.fixed<int64_t>(0, r.submission_id, false);
    b.fixed<int64_t>(1, r.leaderboard_id, false);
    b.fixed<int64_t>(2, r.user_id, false);
    b.fixed<int64_t>(3, r.submission_time_ms, false);
    b.text(4, r.file_name);
    b.text(5, r.code);
    b.fixed<int64_t>(6, r.code_id, false);
    b.fixed<int64_t>(7, r.run_id, false);
    b.fixed<int64_t>(8, r.submission_time_ms + 1000);
    b.fixed<int64_t>(9, r.submission_time_ms + 2000);
    b.text(10, r.run_mode);
    b.fixed<double>(11, r.run_score);
    b.boolean(12, r.run_passed);
    // run_meta.duration: max_def 2; a null struct when there is no duration.
    auto& d = b.b[13];
    ++d.num_levels;
    d.def_levels.push_back(r.duration ? 2 : 0);
    if (r.duration) {
      const auto* bytes = reinterpret_cast<const uint8_t*>(&*r.duration);
      d.values.data.insert(d.values.data.end(), bytes, bytes + 8);
      ++d.values.count;
    }
    if (!with_results) continue;
    // run_result.*: max_def 2; a null struct when the run has no benchmarks.
    auto nested = [&](size_t c, std::optional<std::string> v) {
      auto& col = b.b[c];
      ++col.num_levels;
      col.def_levels.push_back(v ? 2 : (r.benchmark_means.empty() ? 0 : 1));
      if (v) col.values.append_binary({reinterpret_cast<const uint8_t*>(v->data()), v->size()});
    };
    nested(14, r.benchmark_means.empty()
                   ? std::nullopt
                   : std::optional<std::string>(std::to_string(r.benchmark_means.size())));
    for (size_t n = 0; n < 2; ++n) {
      for (size_t k = 0; k < 6; ++k) {
        std::optional<std::string> v;
        if (n < r.benchmark_means.size()) v = k == 0 ? r.benchmark_means[n] : kValues[k];
        nested(15 + n * 6 + k, v);
      }
    }
  }
  writer.write(b.b);
  writer.close();
  return sink.take();
}

inline void write_bytes(const std::filesystem::path& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

}  // namespace kbdata::testing
