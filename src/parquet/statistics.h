// Column statistics for the writer: min and max in the column's sort order, and null counts, as
// Statistics (footer and page headers) and the ColumnIndex store them.
//
// Sort orders follow parquet.thrift (ColumnOrder TYPE_ORDER) and LogicalTypes.md:
//   SIGNED     INT32, INT64 (unless unsigned), FLOAT, DOUBLE (as floats), DECIMAL on any physical
//              type (numerically: BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY as big-endian two's
//              complement), FLOAT16 (FIXED_LEN_BYTE_ARRAY(2) as half floats)
//   UNSIGNED   BOOLEAN (false < true), INT32 and INT64 annotated INTEGER(unsigned) or UINT_*,
//              BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY otherwise (bytewise, a prefix first)
//   UNDEFINED  INT96, INTERVAL, GEOMETRY and GEOGRAPHY (no min or max is written)
//
// Values are the PLAIN bytes of one value (little-endian for numbers, one byte 0/1 for BOOLEAN,
// the bytes without the length prefix for BYTE_ARRAY), as Statistics.min_value stores them.
//
// Floating-point rules of the spec (and of parquet-cpp / parquet-java): NaN is never a min or max
// (a page of NaNs only has none); a zero min is written as -0.0 and a zero max as +0.0, so readers
// that compare either way never skip a page holding the other zero. FLOAT16 follows the same rules.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "parquet/metadata.h"
#include "parquet/schema.h"
#include "parquet/values.h"

namespace kbdata::parquet {

enum class SortOrder { SIGNED, UNSIGNED, UNDEFINED };

[[nodiscard]] SortOrder sort_order(const ColumnDescriptor& column);

// <0, 0 or >0 as PLAIN value `a` sorts before, with or after `b` in `column`'s sort order.
// -0.0 and +0.0 compare equal; a NaN compares equal to everything (the collector never keeps one).
// REQUIRES: sort_order(column) != UNDEFINED; `a` and `b` are well-formed values of the column
// (4 bytes for INT32, type_length bytes for FIXED_LEN_BYTE_ARRAY, ...).
[[nodiscard]] int compare_values(const ColumnDescriptor& column, std::string_view a,
                                 std::string_view b);

// A min or max of a bytewise column (BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY, unsigned order) longer
// than this is not kept whole: the footer leaves such statistics out (as parquet-cpp does) and the
// ColumnIndex cuts its bounds far shorter, so a collector keeps a bound of this many bytes instead,
// and a column of 1 GiB strings costs no 1 GiB copies.
inline constexpr size_t kMaxExactStatisticsBytes = 4096;

// Min, max and null count of the values it is shown, for one page or one column chunk (merge the
// pages' collectors into the chunk's, or feed both).
class StatisticsCollector {
 public:
  // Keeps the column's type, not a reference to it.
  explicit StatisticsCollector(const ColumnDescriptor& column);

  // Takes in non-null values [begin, end) of `values`.
  // REQUIRES: `values` holds values of the collector's column (same physical type and width);
  // begin <= end <= values.count.
  void update(const ValueBuffer& values, size_t begin, size_t end);
  void update_nulls(int64_t n);
  // Takes in everything `other` has seen. REQUIRES: `other` collects the same column type.
  void merge(const StatisticsCollector& other);
  // Forgets everything seen, for the next page.
  void reset();

  // False until a value other than NaN is seen, and always for UNDEFINED sort orders.
  [[nodiscard]] bool has_min_max() const { return has_min_max_; }
  // PLAIN bytes of the smallest / largest value. REQUIRES: has_min_max(). In a bytewise column
  // whose smallest (largest) value is longer than kMaxExactStatisticsBytes, min() (max()) is a
  // bound instead, and min_exact() (max_exact()) false: the value's prefix of that many bytes (a
  // lower bound), or that prefix without its trailing 0xFF bytes and its last byte incremented
  // (an upper bound; a prefix of only 0xFF bytes has none, and the value is kept whole).
  [[nodiscard]] const std::string& min() const { return min_; }
  [[nodiscard]] const std::string& max() const { return max_; }
  [[nodiscard]] bool min_exact() const { return min_exact_; }
  [[nodiscard]] bool max_exact() const { return max_exact_; }
  [[nodiscard]] int64_t null_count() const { return null_count_; }

  // Statistics for the footer or a page header: null_count always; min_value and max_value, with
  // is_min_value_exact and is_max_value_exact true, when has_min_max() and both are exact. The
  // deprecated min and max (fields 1-2, signed comparison) are not written: readers would misorder
  // unsigned values.
  [[nodiscard]] Statistics to_thrift() const;

  // How the column's values compare: its physical type and sort order together.
  enum class Kind {
    NONE,  // UNDEFINED sort order: no min or max
    BOOLEAN,
    INT32,
    UINT32,
    INT64,
    UINT64,
    FLOAT,
    DOUBLE,
    FLOAT16,
    BYTES,          // unsigned bytewise
    DECIMAL_BYTES,  // signed big-endian two's complement
  };

 private:
  // Replaces min_ / max_ by `lo` / `hi` when they are smaller / larger; `exact`: they are values
  // seen (not bounds of them).
  void offer(std::string_view lo, std::string_view hi, bool lo_exact = true, bool hi_exact = true);
  void keep_min(std::string_view value, bool exact);
  void keep_max(std::string_view value, bool exact);

  Kind kind_ = Kind::NONE;
  PhysicalType physical_ = PhysicalType::INT32;
  bool has_min_max_ = false;
  std::string min_;
  std::string max_;
  bool min_exact_ = true;
  bool max_exact_ = true;
  int64_t null_count_ = 0;
};

}  // namespace kbdata::parquet
