// Simple predicates on leaf columns, evaluated against statistics and the page index to find the
// rows of a row group that may match, and against decoded values to decide each row exactly.
//
// Pruning is conservative: a row group or page is dropped only when its min/max/null statistics
// prove that no row in it can match. The sort order used is the column's: signed for INT32, INT64,
// FLOAT, DOUBLE and BOOLEAN, unsigned for INTEGER(unsigned) annotations, unsigned lexicographic
// bytes for BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY strings, numeric value for DECIMAL (big-endian
// two's complement for the binary forms). When the order is unknown (INT96, FLOAT16, INTERVAL) or
// a statistic is missing or not a valid value, nothing is pruned. Min/max that writers marked
// inexact (truncated) are still bounds, so they still prune.
//
// Several predicates on one RowFilter are ANDed. Only flat (non-repeated) columns are accepted.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "parquet/page_index.h"
#include "parquet/schema.h"

namespace kbdata::parquet {

class FileReader;
struct Statistics;

// A typed constant: integers, floating point, strings or bytes, booleans.
using Literal = std::variant<int64_t, double, std::string, bool>;

enum class CompareOp { EQ, NE, LT, LE, GT, GE, BETWEEN, IS_NULL, IS_NOT_NULL };

struct Predicate {
  std::string column;  // dotted leaf path
  CompareOp op = CompareOp::EQ;
  Literal value;  // unused for IS_NULL / IS_NOT_NULL; the lower bound of BETWEEN (inclusive)
  Literal upper;  // BETWEEN only: the upper bound (inclusive)
};

class RowFilter {
 public:
  // Binds the predicates to `schema` (borrowed; must outlive the filter). Throws UsageError for an
  // unknown or repeated column, or a literal that does not fit the column's type (a string for an
  // INT64 column, say) or a type that cannot be compared (INT96, FLOAT16, INTERVAL).
  RowFilter(const Schema& schema, std::vector<Predicate> predicates);

  [[nodiscard]] const std::vector<Predicate>& predicates() const { return predicates_; }
  // Leaf index of predicate i's column.
  [[nodiscard]] int leaf(size_t i) const { return bound_[i].leaf; }

  // The rows of row group `row_group` that may match every predicate: none when the chunk
  // statistics exclude the group; otherwise the pages the column indexes cannot exclude (the
  // whole group when the columns have no page index). Reads only the page indexes of the
  // predicates' columns.
  [[nodiscard]] RowRanges row_group_ranges(FileReader& reader, int row_group) const;

  // Whether predicate i holds for one value: `value` holds its PLAIN bytes (a BYTE_ARRAY without
  // length prefix, as in ValueBuffer::bytes()), nullopt for null.
  [[nodiscard]] bool matches(size_t i, std::optional<std::span<const uint8_t>> value) const;

  // Whether some value in [min, max] (PLAIN bytes, in the column's order) may satisfy predicate i
  // when the values are not all null; nullopt bounds are unknown. Used for statistics; exposed
  // for tests.
  [[nodiscard]] bool may_match_range(size_t i, const std::optional<std::string>& min,
                                     const std::optional<std::string>& max) const;

 private:
  enum class Order { SIGNED, UNSIGNED, FLOATING, BYTES, DECIMAL, BOOL, NONE };
  struct Bound {
    int leaf = -1;
    const ColumnDescriptor* column = nullptr;
    Order order = Order::NONE;
  };
  // <0, 0, >0 comparing a stored value with a literal; nullopt when not comparable (bad size, NaN).
  [[nodiscard]] std::optional<int> compare(const Bound& b, std::span<const uint8_t> value,
                                           const Literal& literal) const;
  [[nodiscard]] RowRanges chunk_ranges(FileReader& reader, int row_group, size_t i) const;

  std::vector<Predicate> predicates_;
  std::vector<Bound> bound_;
};

}  // namespace kbdata::parquet
