// Test-only, for the conformance tests: each column's class and the normalisation rules that bring
// kbdata's rendering and an oracle's to one form before they are compared (docs/conformance.md).
#pragma once

#include "conformance/oracle_text.h"

namespace kbdata::conformance {

// ----------------------------------------------------------------------------------------------
// Column classes and normalisation

enum class Oracle { kDuckDb, kHyparquet, kCsv };

inline const char* oracle_name(Oracle oracle) {
  switch (oracle) {
    case Oracle::kDuckDb:
      return "DuckDB";
    case Oracle::kHyparquet:
      return "hyparquet";
    case Oracle::kCsv:
      return "CSV";
  }
  return "?";
}

// How a column's values render, decided from its descriptor by the rules of
// tabular/value_format.h, written here independently of the formatter.
enum class Class {
  kNull,
  kBoolean,
  kInteger,
  kFloat,  // FLOAT and FLOAT16: compared widened to double
  kDouble,
  kString,
  kBinary,
  kGeometry,  // GEOMETRY / GEOGRAPHY: binary WKB
  kDecimal,
  kDate,
  kTime,
  kTimestamp,
  kInt96,
  kUuid,
  kVariant,  // a decoded VARIANT group, compared by variant_difference (never a leaf's class)
};

inline Class classify(const ColumnDescriptor& column) {
  const LogicalType& logical = column.logical;
  const PhysicalType physical = column.physical;
  const bool binary =
      physical == PhysicalType::BYTE_ARRAY || physical == PhysicalType::FIXED_LEN_BYTE_ARRAY;
  using K = LogicalType::Kind;
  switch (logical.kind) {
    case K::UNKNOWN:
      return Class::kNull;
    case K::STRING:
    case K::ENUM:
    case K::JSON:
      if (physical == PhysicalType::BYTE_ARRAY) return Class::kString;
      break;
    case K::DECIMAL:
      if (std::abs(logical.decimal_scale) <= tabular::kMaxDecimalScale &&
          (binary || physical == PhysicalType::INT32 || physical == PhysicalType::INT64)) {
        return Class::kDecimal;
      }
      break;
    case K::DATE:
      if (physical == PhysicalType::INT32) return Class::kDate;
      break;
    case K::TIME:
      if ((physical == PhysicalType::INT32 && logical.unit == TimeUnit::MILLIS) ||
          (physical == PhysicalType::INT64 && logical.unit != TimeUnit::MILLIS)) {
        return Class::kTime;
      }
      break;
    case K::TIMESTAMP:
      if (physical == PhysicalType::INT64) return Class::kTimestamp;
      break;
    case K::UUID:
      if (physical == PhysicalType::FIXED_LEN_BYTE_ARRAY && column.type_length == 16) {
        return Class::kUuid;
      }
      break;
    case K::FLOAT16:
      if (physical == PhysicalType::FIXED_LEN_BYTE_ARRAY && column.type_length == 2) {
        return Class::kFloat;
      }
      break;
    case K::GEOMETRY:
    case K::GEOGRAPHY:
      if (binary) return Class::kGeometry;
      break;
    default:
      break;
  }
  switch (physical) {
    case PhysicalType::BOOLEAN:
      return Class::kBoolean;
    case PhysicalType::INT32:
    case PhysicalType::INT64:
      return Class::kInteger;
    case PhysicalType::INT96:
      return Class::kInt96;
    case PhysicalType::FLOAT:
      return Class::kFloat;
    case PhysicalType::DOUBLE:
      return Class::kDouble;
    case PhysicalType::BYTE_ARRAY:
    case PhysicalType::FIXED_LEN_BYTE_ARRAY:
      return Class::kBinary;
  }
  return Class::kBinary;
}

// One side of a comparison after normalisation.
struct Canonical {
  enum class Kind { kText, kReal, kTree, kError, kNotComparable };
  Kind kind = Kind::kError;
  std::string text;      // kText: the canonical form; kError: why normalisation failed
  double real = 0;       // kReal
  double tolerance = 0;  // kReal: relative tolerance, 0 for exact equality
  Json tree;             // kTree

  static Canonical of_text(std::string text) { return {Kind::kText, std::move(text), 0, 0, {}}; }
  static Canonical of_real(double value, double tolerance = 0) {
    return {Kind::kReal, "", value, tolerance, {}};
  }
  static Canonical of_tree(Json tree) { return {Kind::kTree, "", 0, 0, std::move(tree)}; }
  static Canonical error(std::string why) { return {Kind::kError, std::move(why), 0, 0, {}}; }
  // The oracle cannot represent our value; `why` says so.
  static Canonical not_comparable(std::string why) {
    return {Kind::kNotComparable, std::move(why), 0, 0, {}};
  }

  [[nodiscard]] std::string describe() const {
    switch (kind) {
      case Kind::kText:
        return shorten(text);
      case Kind::kReal: {
        std::string out;
        if (std::isnan(real)) return "NaN";
        append_double(out, real);
        return out;
      }
      case Kind::kTree:
        return dump(tree);
      case Kind::kError:
      case Kind::kNotComparable:
        return "<" + text + ">";
    }
    return "?";
  }
};

inline bool equal(const Canonical& a, const Canonical& b) {
  if (a.kind != b.kind || a.kind == Canonical::Kind::kError) return false;
  switch (a.kind) {
    case Canonical::Kind::kText:
      return a.text == b.text;
    case Canonical::Kind::kReal: {
      if (std::isnan(a.real) || std::isnan(b.real)) return std::isnan(a.real) && std::isnan(b.real);
      const double tolerance = std::max(a.tolerance, b.tolerance);
      if (tolerance == 0 || std::isinf(a.real) || std::isinf(b.real)) return a.real == b.real;
      return std::fabs(a.real - b.real) <=
             tolerance * std::max(std::fabs(a.real), std::fabs(b.real));
    }
    case Canonical::Kind::kTree:
      return trees_equal(a.tree, b.tree);
    case Canonical::Kind::kError:
    case Canonical::Kind::kNotComparable:
      return false;
  }
  return false;
}

// The outcome of comparing one value.
struct Verdict {
  enum class Kind { kEqual, kMismatch, kNotComparable };
  Kind kind = Kind::kEqual;
  std::string message;  // kMismatch, kNotComparable

  static Verdict equal() { return {}; }
  static Verdict mismatch(std::string message) { return {Kind::kMismatch, std::move(message)}; }
};

// The relative tolerance for decimals that an oracle holds only as a double: DuckDB (precision
// above 38) and hyparquet (Number(unscaled) * 10 ** -scale) round more than once.
inline constexpr double kDecimalAsDoubleTolerance = 1e-12;

// The comparison rules of one column against one oracle.
class ColumnRule {
 public:
  ColumnRule(const ColumnDescriptor& column, Oracle oracle, bool explicit_logical_type)
      : column_(column), oracle_(oracle), class_(classify(column)) {
    const LogicalType& logical = column.logical;
    // The oracle's time resolution in nanoseconds; ours is truncated to it. DuckDB keeps
    // microseconds except for TIMESTAMP(NANOS) without UTC adjustment (TIMESTAMP_NS); JavaScript
    // dates keep milliseconds. An oracle value written with more fraction digits refines this.
    if (oracle == Oracle::kDuckDb) {
      resolution_ = class_ == Class::kTimestamp && logical.unit == TimeUnit::NANOS &&
                            !logical.is_adjusted_to_utc
                        ? 1
                        : 1000;
    } else if (oracle == Oracle::kHyparquet) {
      resolution_ = 1000000;
    }
    // DuckDB turns INT96 nanoseconds of the day into microseconds by division (a floor: they are
    // non-negative) and TIMESTAMP(NANOS) into microseconds by C++ division (towards zero);
    // hyparquet divides BigInts (towards zero).
    floor_ = class_ == Class::kInt96;
    // DuckDB writes "+00" exactly for TIMESTAMP WITH TIME ZONE, which it uses for an explicit
    // TIMESTAMP logical type with isAdjustedToUTC; a legacy TIMESTAMP_MILLIS/MICROS converted
    // type (UTC-adjusted by the spec) it reads as a plain TIMESTAMP, so only explicit logical
    // types are checked.
    check_zone_ = oracle == Oracle::kDuckDb && class_ == Class::kTimestamp && explicit_logical_type;
    wrap_time_ = oracle == Oracle::kDuckDb && class_ == Class::kTime && logical.is_adjusted_to_utc;
  }

  [[nodiscard]] Class value_class() const { return class_; }

  // Compares `ours` (one value as rendered by append_json) with the oracle's `expected`.
  [[nodiscard]] Verdict compare(std::string_view ours, const Json& expected) const {
    const std::string ours_text(ours);
    const bool ours_null = ours == "null";
    const bool expected_null = expected.is_null();
    if (ours_null || expected_null) {
      if (ours_null && expected_null) return Verdict::equal();
      // JSON.stringify writes NaN and infinities as null.
      if (oracle_ == Oracle::kHyparquet && expected_null &&
          (class_ == Class::kFloat || class_ == Class::kDouble) &&
          (ours == "\"NaN\"" || ours == "\"Infinity\"" || ours == "\"-Infinity\"")) {
        return Verdict::equal();
      }
      return Verdict::mismatch("expected " + dump(expected) + ", got " + shorten(ours_text));
    }
    Json ours_json;
    try {
      ours_json = Json::parse(ours);
    } catch (const std::exception&) {
      return Verdict::mismatch("our rendering is not JSON: " + shorten(ours_text));
    }
    int oracle_fraction_digits = -1;
    const Canonical want = normalise_expected(expected, &oracle_fraction_digits);
    const Canonical got = normalise_ours(ours_json, expected, oracle_fraction_digits);
    if (got.kind == Canonical::Kind::kNotComparable) {
      return {Verdict::Kind::kNotComparable, ours_text + " vs " + dump(expected) + ": " + got.text};
    }
    if (!equal(want, got)) {
      return Verdict::mismatch("expected " + dump(expected) + " (normalised " + want.describe() +
                               "), got " + shorten(ours_text) + " (normalised " + got.describe() +
                               ")");
    }
    if (check_zone_ && expected.is_string()) {
      const auto instant = parse_timestamp(expected.get<std::string>());
      const bool ours_utc = ours.size() >= 2 && ours[ours.size() - 2] == 'Z';
      if (instant && instant->zoned != ours_utc) {
        return Verdict::mismatch(std::string("the zone differs: expected ") + dump(expected) +
                                 " (" + (instant->zoned ? "UTC-adjusted" : "local") + "), got " +
                                 ours_text);
      }
    }
    return Verdict::equal();
  }

 private:
  // The oracle's value (not null) in canonical form.
  Canonical normalise_expected(const Json& v, int* fraction_digits) const {
    const std::string s = v.is_string() ? v.get<std::string>() : std::string();
    switch (class_) {
      case Class::kNull:
        return Canonical::error("a value where the column is always null");
      case Class::kBoolean:
        if (v.is_boolean()) return Canonical::of_text(v.get<bool>() ? "true" : "false");
        if (s == "true" || s == "false") return Canonical::of_text(s);
        return Canonical::error("not a boolean");
      case Class::kInteger: {
        std::optional<Int128> value;
        if (v.is_number_unsigned()) value = Int128{v.get<uint64_t>()};
        if (v.is_number_integer() && !v.is_number_unsigned()) value = Int128{v.get<int64_t>()};
        if (v.is_number_float()) {
          const double d = v.get<double>();
          if (std::trunc(d) == d && std::fabs(d) < 0x1p63) value = static_cast<Int128>(d);
        }
        if (v.is_string()) value = parse_integer(s);
        if (!value) return Canonical::error("not an integer");
        if (beyond_double_integers(v)) return Canonical::of_real(static_cast<double>(*value));
        return Canonical::of_text(int128_to_string(*value));
      }
      case Class::kFloat:
      case Class::kDouble: {
        if (v.is_number()) return Canonical::of_real(v.get<double>());
        if (auto d = v.is_string() ? parse_double(s) : std::nullopt) return Canonical::of_real(*d);
        return Canonical::error("not a number");
      }
      case Class::kDecimal: {
        if (v.is_number()) return Canonical::of_real(v.get<double>(), kDecimalAsDoubleTolerance);
        if (auto d = v.is_string() ? canonical_decimal(s) : std::nullopt) {
          return Canonical::of_text(*d);
        }
        return Canonical::error("not a decimal");
      }
      case Class::kString:
        if (v.is_string()) return Canonical::of_text(s);
        return Canonical::of_tree(v);  // hyparquet parses JSON columns
      case Class::kUuid:
        if (v.is_string()) return Canonical::of_text(lower(s));
        return Canonical::error("not a string");
      case Class::kBinary:
      case Class::kGeometry:
        if (is_geojson(v)) return Canonical::of_tree(v);
        if (v.is_string()) {
          // DuckDB's BLOB escapes; hyparquet decodes binaries as UTF-8 text; CSV holds text.
          if (oracle_ == Oracle::kDuckDb)
            return Canonical::of_text("hex:" + hex(duckdb_blob_decode(s)));
          return Canonical::of_text("utf8:" + s);
        }
        if (v.is_array() || v.is_object()) {  // bytes as numbers (hyparquet's Uint8Array)
          std::string bytes;
          for (const auto& [key, item] : v.items()) {
            if (!item.is_number_integer() || item.get<int64_t>() < 0 || item.get<int64_t>() > 255) {
              return Canonical::error("not a byte array");
            }
            bytes.push_back(static_cast<char>(item.get<int64_t>()));
          }
          return Canonical::of_text("hex:" + hex(bytes));
        }
        return Canonical::error("not a binary");
      case Class::kDate: {
        if (!v.is_string()) return Canonical::error("not a date string");
        size_t pos = 0;
        auto days = parse_date(s, pos);
        // JavaScript dates carry a time of day, midnight UTC for a DATE.
        if (days && pos != s.size() && !(take(s, pos, "T00:00:00.000Z") && pos == s.size())) {
          days.reset();
        }
        if (!days) return Canonical::error("not a date");
        return Canonical::of_text(date_text(*days));
      }
      case Class::kTime: {
        if (v.is_number_integer()) {  // raw units of the column
          const int64_t per_nano = column_.logical.unit == TimeUnit::MILLIS   ? 1000000
                                   : column_.logical.unit == TimeUnit::MICROS ? 1000
                                                                              : 1;
          return Canonical::of_text(time_text(v.get<int64_t>() * per_nano, resolution_));
        }
        if (!v.is_string()) return Canonical::error("not a time string");
        size_t pos = 0;
        int digits = 0;
        auto nanos = parse_time(s, pos, &digits);
        if (nanos) parse_zone(s, pos);
        if (!nanos || pos != s.size()) return Canonical::error("not a time");
        *fraction_digits = digits;
        return Canonical::of_text(time_text(*nanos, effective_resolution(digits)));
      }
      case Class::kTimestamp:
      case Class::kInt96: {
        if (!v.is_string()) return Canonical::error("not a timestamp string");
        const auto instant = parse_timestamp(s);
        if (!instant) return Canonical::error("not a timestamp");
        *fraction_digits = instant->fraction_digits;
        return Canonical::of_text(instant_text(instant->nanos));
      }
      case Class::kVariant:
        break;  // a group, compared by variant_difference
    }
    return Canonical::error("unhandled column class");
  }

  // Our value (parsed from append_json's output, not null) in the canonical form of `expected`.
  Canonical normalise_ours(const Json& v, const Json& expected, int oracle_fraction_digits) const {
    const std::string s = v.is_string() ? v.get<std::string>() : std::string();
    switch (class_) {
      case Class::kNull:
        return Canonical::error("always-null column rendered a value");
      case Class::kBoolean:
        if (v.is_boolean()) return Canonical::of_text(v.get<bool>() ? "true" : "false");
        return Canonical::error("not a boolean");
      case Class::kInteger:
        if (beyond_double_integers(expected) && v.is_number_integer()) {
          return Canonical::of_real(v.is_number_unsigned() ? static_cast<double>(v.get<uint64_t>())
                                                           : static_cast<double>(v.get<int64_t>()));
        }
        if (v.is_number_unsigned()) return Canonical::of_text(std::to_string(v.get<uint64_t>()));
        if (v.is_number_integer()) return Canonical::of_text(std::to_string(v.get<int64_t>()));
        return Canonical::error("not an integer");
      case Class::kFloat:
      case Class::kDouble: {
        // Re-read our text: a FLOAT's shortest text reads back exactly only as a float, which is
        // then widened like DuckDB and JavaScript widen it.
        const std::string text = v.is_string() ? s : v.dump();
        if (!v.is_string() && !v.is_number()) return Canonical::error("not a number");
        if (class_ == Class::kFloat) {
          if (auto f = parse_float(text)) return Canonical::of_real(static_cast<double>(*f));
        } else if (auto d = parse_double(text)) {
          return Canonical::of_real(*d);
        }
        return Canonical::error("not a number");
      }
      case Class::kDecimal: {
        if (!v.is_string()) return Canonical::error("not a decimal string");
        auto d = canonical_decimal(s);
        if (!d) return Canonical::error("not a decimal");
        if (expected.is_number()) {
          return Canonical::of_real(std::strtod(s.c_str(), nullptr), kDecimalAsDoubleTolerance);
        }
        return Canonical::of_text(*d);
      }
      case Class::kString:
        if (!v.is_string()) return Canonical::error("not a string");
        if (expected.is_string()) return Canonical::of_text(s);
        try {
          return Canonical::of_tree(Json::parse(s));
        } catch (const std::exception&) {
          return Canonical::error("not JSON text");
        }
      case Class::kUuid:
        if (v.is_string()) return Canonical::of_text(lower(s));
        return Canonical::error("not a string");
      case Class::kBinary:
      case Class::kGeometry: {
        const auto bytes = v.is_string() ? base64_decode(s) : std::nullopt;
        if (!bytes) return Canonical::error("not base64");
        if (is_geojson(expected)) {
          try {
            WkbReader reader(*bytes);
            Json tree = reader.geometry();
            if (!reader.at_end()) return Canonical::error("WKB has trailing bytes");
            return Canonical::of_tree(std::move(tree));
          } catch (const std::exception& e) {
            return Canonical::error(std::string("WKB: ") + e.what());
          }
        }
        if (expected.is_string() && oracle_ != Oracle::kDuckDb) {
          std::string text;
          append_utf8_repaired(text, *bytes);  // as TextDecoder does
          return Canonical::of_text("utf8:" + text);
        }
        return Canonical::of_text("hex:" + hex(*bytes));
      }
      case Class::kDate: {
        size_t pos = 0;
        const auto days = v.is_string() ? parse_date(s, pos) : std::nullopt;
        if (!days || pos != s.size()) return Canonical::error("not a date");
        return Canonical::of_text(date_text(*days));
      }
      case Class::kTime: {
        size_t pos = 0;
        const auto nanos = v.is_string() ? parse_time(s, pos, nullptr) : std::nullopt;
        if (!nanos || pos != s.size()) return Canonical::error("not a time");
        int64_t value = *nanos;
        // DuckDB reads a UTC-adjusted TIME as TIMETZ and wraps it into one day, keeping 24:00:00
        // (ParquetWrapTime in extension/parquet/parquet_timestamp.cpp).
        if (wrap_time_ && value != kNanosPerDay) {
          value %= kNanosPerDay;
          if (value < 0) value += kNanosPerDay;
        }
        return Canonical::of_text(time_text(value, effective_resolution(oracle_fraction_digits)));
      }
      case Class::kTimestamp:
      case Class::kInt96: {
        const auto instant = v.is_string() ? parse_timestamp(s) : std::nullopt;
        if (!instant) return Canonical::error("not a timestamp");
        const int64_t resolution = effective_resolution(oracle_fraction_digits);
        const Int128 truncated = floor_ ? floor_div(instant->nanos, resolution) * resolution
                                        : instant->nanos / resolution * resolution;
        // DuckDB holds timestamps as int64 microseconds (about 290,000 years either side of
        // 1970); for an instant beyond that its value is an overflow artefact, not an oracle.
        const Int128 micros = floor_div(instant->nanos, 1000);
        constexpr Int128 kInt64Limit = Int128{1} << 63;
        if (oracle_ == Oracle::kDuckDb && (micros >= kInt64Limit || micros < -kInt64Limit)) {
          return Canonical::not_comparable("outside DuckDB's TIMESTAMP range");
        }
        return Canonical::of_text(instant_text(truncated));
      }
      case Class::kVariant:
        break;  // a group, compared by variant_difference
    }
    return Canonical::error("unhandled column class");
  }

  // hyparquet writes some 64-bit integers as JavaScript Numbers: a JSON number beyond 2^53 may be
  // the rounding of the value, so both sides are compared as doubles.
  [[nodiscard]] bool beyond_double_integers(const Json& v) const {
    if (oracle_ != Oracle::kHyparquet || !v.is_number()) return false;
    return std::fabs(v.get<double>()) > 0x1p53;
  }

  // A GeoJSON object from the oracle for a WKB value: GEOMETRY / GEOGRAPHY columns, and for
  // hyparquet also plain binary columns that the file's GeoParquet "geo" metadata names.
  [[nodiscard]] bool is_geojson(const Json& v) const {
    if (!v.is_object()) return false;
    if (class_ == Class::kGeometry) return true;
    return class_ == Class::kBinary && oracle_ == Oracle::kHyparquet && v.contains("type") &&
           v["type"].is_string();
  }

  // The resolution refined by the oracle's digits: k fraction digits show at least 10^(9-k) ns.
  [[nodiscard]] int64_t effective_resolution(int oracle_fraction_digits) const {
    int64_t resolution = resolution_;
    if (oracle_fraction_digits > 0) {
      int64_t shown = 1;
      for (int k = oracle_fraction_digits; k < 9; ++k) shown *= 10;
      resolution = std::min(resolution, shown);
    }
    return resolution;
  }

  [[nodiscard]] static std::string time_text(int64_t nanos, int64_t resolution) {
    std::string out;
    tabular::append_time(out, nanos / resolution * resolution, TimeUnit::NANOS);
    return out;
  }

  const ColumnDescriptor& column_;
  Oracle oracle_;
  Class class_;
  int64_t resolution_ = 1;
  bool floor_ = false;
  bool check_zone_ = false;
  bool wrap_time_ = false;
};

}  // namespace kbdata::conformance
