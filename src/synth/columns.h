// Building blocks of the synthetic writers: schema elements, and ColumnBatch builders that append
// one entry (value or null at a definition level) per leaf, as FileWriter::write expects.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parquet/column_reader.h"
#include "parquet/metadata.h"
#include "parquet/schema.h"

namespace kbdata::synth {

[[nodiscard]] inline parquet::SchemaElement root_element(int children) {
  parquet::SchemaElement e;
  e.name = "schema";
  e.num_children = children;
  return e;
}

// An OPTIONAL leaf.
[[nodiscard]] inline parquet::SchemaElement optional_leaf(
    std::string name, parquet::PhysicalType type,
    parquet::LogicalType::Kind kind = parquet::LogicalType::Kind::NONE) {
  parquet::SchemaElement e;
  e.name = std::move(name);
  e.type = type;
  e.repetition_type = parquet::Repetition::OPTIONAL;
  if (kind != parquet::LogicalType::Kind::NONE) {
    parquet::LogicalType t;
    t.kind = kind;
    if (kind == parquet::LogicalType::Kind::STRING) e.converted_type = parquet::ConvertedType::UTF8;
    e.logical_type = t;
  }
  return e;
}

[[nodiscard]] inline parquet::SchemaElement string_leaf(std::string name) {
  return optional_leaf(std::move(name), parquet::PhysicalType::BYTE_ARRAY,
                       parquet::LogicalType::Kind::STRING);
}

// INT64 TIMESTAMP(MICROS, isAdjustedToUTC).
[[nodiscard]] inline parquet::SchemaElement timestamp_leaf(std::string name, bool utc) {
  parquet::SchemaElement e = optional_leaf(std::move(name), parquet::PhysicalType::INT64);
  parquet::LogicalType t;
  t.kind = parquet::LogicalType::Kind::TIMESTAMP;
  t.unit = parquet::TimeUnit::MICROS;
  t.is_adjusted_to_utc = utc;
  e.logical_type = t;
  if (utc) e.converted_type = parquet::ConvertedType::TIMESTAMP_MICROS;
  return e;
}

[[nodiscard]] inline parquet::SchemaElement group_element(std::string name,
                                                          parquet::Repetition repetition,
                                                          int children) {
  parquet::SchemaElement e;
  e.name = std::move(name);
  e.repetition_type = repetition;
  e.num_children = children;
  return e;
}

// One batch per leaf of `schema`, filled entry by entry.
class Columns {
 public:
  explicit Columns(const parquet::Schema& schema) : schema_(schema) {
    for (const parquet::ColumnDescriptor& c : schema.leaves()) {
      parquet::ColumnBatch b;
      b.values = parquet::ValueBuffer::for_type(c.physical, c.type_length);
      batches_.push_back(std::move(b));
    }
  }

  // A null at definition level `level` (0: the top-level field is null; within a present
  // struct, max_def - 1).
  void null(size_t leaf, int16_t level = 0) { entry(leaf, level); }
  // A null of a field inside a present struct.
  void null_in_struct(size_t leaf) { entry(leaf, static_cast<int16_t>(max_def(leaf) - 1)); }

  void i64(size_t leaf, int64_t v) { fixed(leaf, &v, sizeof v); }
  void f64(size_t leaf, double v) { fixed(leaf, &v, sizeof v); }
  void boolean(size_t leaf, bool v) {
    uint8_t b = v ? 1 : 0;
    fixed(leaf, &b, 1);
  }
  void bytes(size_t leaf, std::string_view v) {
    entry(leaf, max_def(leaf));
    batches_[leaf].values.append_binary({reinterpret_cast<const uint8_t*>(v.data()), v.size()});
  }
  void opt_i64(size_t leaf, std::optional<int64_t> v) { v ? i64(leaf, *v) : null(leaf); }
  void opt_f64(size_t leaf, std::optional<double> v) { v ? f64(leaf, *v) : null(leaf); }
  void opt_bool(size_t leaf, std::optional<bool> v) { v ? boolean(leaf, *v) : null(leaf); }
  void opt_bytes(size_t leaf, const std::optional<std::string>& v) {
    v ? bytes(leaf, *v) : null(leaf);
  }

  // A 3-level LIST of strings (optional list, optional elements) in one leaf.
  void string_list(size_t leaf, const std::vector<std::string>& items) {
    parquet::ColumnBatch& b = batches_[leaf];
    if (items.empty()) {
      b.def_levels.push_back(1);
      b.rep_levels.push_back(0);
      b.num_levels++;
      return;
    }
    for (size_t i = 0; i < items.size(); ++i) {
      b.def_levels.push_back(max_def(leaf));
      b.rep_levels.push_back(i == 0 ? 0 : 1);
      b.num_levels++;
      b.values.append_binary({reinterpret_cast<const uint8_t*>(items[i].data()), items[i].size()});
    }
  }

  [[nodiscard]] const std::vector<parquet::ColumnBatch>& batches() const { return batches_; }
  [[nodiscard]] size_t rows() const { return batches_.empty() ? 0 : batches_[0].num_levels; }
  // Bytes of values held (to flush by size).
  [[nodiscard]] size_t value_bytes() const {
    size_t n = 0;
    for (const auto& b : batches_) n += b.values.data.size();
    return n;
  }
  void clear() {
    for (auto& b : batches_) b.clear();
  }

 private:
  int16_t max_def(size_t leaf) const {
    return static_cast<int16_t>(schema_.leaves()[leaf].max_def);
  }
  void entry(size_t leaf, int16_t level) {
    parquet::ColumnBatch& b = batches_[leaf];
    if (max_def(leaf) > 0) b.def_levels.push_back(level);
    if (schema_.leaves()[leaf].max_rep > 0) b.rep_levels.push_back(0);
    b.num_levels++;
  }
  void fixed(size_t leaf, const void* v, size_t size) {
    entry(leaf, max_def(leaf));
    const auto* p = static_cast<const uint8_t*>(v);
    parquet::ValueBuffer& values = batches_[leaf].values;
    values.data.insert(values.data.end(), p, p + size);
    values.count++;
  }

  const parquet::Schema& schema_;
  std::vector<parquet::ColumnBatch> batches_;
};

}  // namespace kbdata::synth
