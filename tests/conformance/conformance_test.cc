// Conformance of the Parquet reader with independent readers.
//
// Every valid Parquet file of the shared corpus (all but bad/ and encrypted/) and of tests/data is
// decoded leaf column by leaf column with parquet::ColumnReader::read_batch, each value rendered by
// tabular::ValueFormatter::append_json, and the rows compared with an oracle after both sides are
// normalised to one form per column type:
//
//   oracle                                   rows             files
//   expected-duckdb/<path>.json              objects          duckdb/, parquet-testing/
//   hyparquet/<name>.json                    arrays           hyparquet/
//   parquet-testing/<name>_expect.csv        CSV records      the DELTA files of parquet-testing/
//   tests/data/expected/<file>.json          objects          tests/data/ (DuckDB, as above)
//
// Files with a nested schema (a leaf below the top level or a repeated leaf) are read as records
// instead (parquet::ColumnReader::read_records, tabular::RecordAssembler) and compared top-level
// field by top-level field, walking structs, lists and maps (NestedComparer). No file is skipped:
// an UnsupportedError on a valid file is a failure (the "skipped" count of the summary stays, and
// stays 0). docs/conformance.md lists the rules and the values not compared.
//
// Environment: KBDATA_CORPUS overrides the corpus location; CI=true makes a missing corpus a
// failure; KBDATA_ALLOW_KNOWN_FAILURES=1 lets the files of kKnownFailures pass.

#include <gtest/gtest.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "common/text.h"
#include "parquet/column_reader.h"
#include "parquet/file_reader.h"
#include "parquet/metadata.h"
#include "parquet/schema.h"
#include "parquet/types.h"
#include "parquet/values.h"
#include "tabular/record_assembler.h"
#include "tabular/value_format.h"

namespace kbdata {
namespace {

namespace fs = std::filesystem;
using parquet::ColumnDescriptor;
using parquet::LogicalType;
using parquet::PhysicalType;
using parquet::TimeUnit;
using Json = nlohmann::ordered_json;
__extension__ typedef __int128 Int128;

// Reader bugs found by this test and not fixed yet: corpus-relative path (or "tests/data/<file>")
// and diagnosis. These files still count as failures (printed "FAILING (known)") unless
// KBDATA_ALLOW_KNOWN_FAILURES=1. Remove an entry as soon as its bug is fixed; a listed file that
// passes is reported as a failure so that the list cannot go stale.
struct KnownFailure {
  const char* file;
  const char* diagnosis;
};
const std::vector<KnownFailure> kKnownFailures = {};

// Per file, at most this many mismatches are described; the rest are only counted.
constexpr int kMaxReportedMismatches = 5;
// Level entries per read_batch call, and records per read_records call.
constexpr size_t kBatchLevels = 4096;
constexpr size_t kBatchRecords = 1024;

constexpr int64_t kNanosPerSecond = 1000000000;
constexpr int64_t kNanosPerDay = 86400 * kNanosPerSecond;

// ----------------------------------------------------------------------------------------------
// Small helpers

std::optional<std::string> env(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

bool env_flag(const char* name) {
  const auto value = env(name);
  return value && !value->empty() && *value != "0" && *value != "false";
}

std::string int128_to_string(Int128 value) {
  if (value == 0) return "0";
  const bool negative = value < 0;
  std::string digits;
  while (value != 0) {
    const int digit = static_cast<int>(value % 10);
    digits.push_back(static_cast<char>('0' + (negative ? -digit : digit)));
    value /= 10;
  }
  if (negative) digits.push_back('-');
  std::reverse(digits.begin(), digits.end());
  return digits;
}

// Floor and truncating division of a by a positive b.
Int128 floor_div(Int128 a, Int128 b) {
  Int128 q = a / b;
  if (a % b != 0 && a < 0) --q;
  return q;
}

std::string hex(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (const char c : bytes) {
    const auto b = static_cast<uint8_t>(c);
    out.push_back(kHex[b >> 4]);
    out.push_back(kHex[b & 15]);
  }
  return out;
}

std::string lower(std::string text) {
  for (char& c : text) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return text;
}

// A value for messages: long texts are shortened.
std::string shorten(std::string text) {
  constexpr size_t kMax = 160;
  if (text.size() > kMax)
    text = text.substr(0, kMax) + "...(" + std::to_string(text.size()) + " chars)";
  return text;
}

std::string dump(const Json& value) {
  return shorten(value.dump(-1, ' ', false, Json::error_handler_t::replace));
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// RFC 4648 base64 with '=' padding, as tabular renders binaries. nullopt if malformed.
std::optional<std::string> base64_decode(std::string_view text) {
  auto value_of = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  if (text.size() % 4 != 0) return std::nullopt;
  std::string out;
  for (size_t i = 0; i < text.size(); i += 4) {
    int v[4];
    int padding = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = text[i + static_cast<size_t>(k)];
      if (c == '=' && i + 4 == text.size() && k >= 2) {
        v[k] = 0;
        ++padding;
      } else {
        if (padding > 0) return std::nullopt;
        v[k] = value_of(c);
        if (v[k] < 0) return std::nullopt;
      }
    }
    const uint32_t bits =
        (uint32_t(v[0]) << 18) | (uint32_t(v[1]) << 12) | (uint32_t(v[2]) << 6) | uint32_t(v[3]);
    out.push_back(static_cast<char>(bits >> 16));
    if (padding < 2) out.push_back(static_cast<char>((bits >> 8) & 0xFF));
    if (padding < 1) out.push_back(static_cast<char>(bits & 0xFF));
  }
  return out;
}

// DuckDB's BLOB text: bytes 0x20..0x7E other than '\', '"' and '\'' as themselves, every other
// byte as "\xHH".
std::string duckdb_blob_decode(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 3 < text.size() && text[i + 1] == 'x' &&
        hex_digit(text[i + 2]) >= 0 && hex_digit(text[i + 3]) >= 0) {
      out.push_back(static_cast<char>(hex_digit(text[i + 2]) * 16 + hex_digit(text[i + 3])));
      i += 3;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

// ----------------------------------------------------------------------------------------------
// Parsing of numbers, decimals, dates, times and timestamps in the spellings of kbdata, DuckDB,
// hyparquet (JavaScript Date.toISOString) and the CSV files.

std::optional<Int128> parse_integer(std::string_view text) {
  size_t pos = 0;
  bool negative = false;
  if (pos < text.size() && (text[pos] == '-' || text[pos] == '+')) negative = text[pos++] == '-';
  if (pos == text.size() || text.size() - pos > 39) return std::nullopt;
  Int128 value = 0;
  for (; pos < text.size(); ++pos) {
    if (text[pos] < '0' || text[pos] > '9') return std::nullopt;
    value = value * 10 + (text[pos] - '0');
  }
  return negative ? -value : value;
}

std::optional<double> parse_double(std::string_view text) {
  if (text == "NaN" || text == "nan" || text == "-nan" || text == "-NaN") return std::nan("");
  if (text == "Infinity" || text == "inf" || text == "+Infinity" || text == "+inf") {
    return HUGE_VAL;
  }
  if (text == "-Infinity" || text == "-inf") return -HUGE_VAL;
  double value = 0;
  const char* first = text.data();
  if (!text.empty() && text[0] == '+') ++first;
  const auto result = std::from_chars(first, text.data() + text.size(), value);
  if (result.ec != std::errc() || result.ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<float> parse_float(std::string_view text) {
  if (text == "NaN") return std::nanf("");
  if (text == "Infinity") return HUGE_VALF;
  if (text == "-Infinity") return -HUGE_VALF;
  float value = 0;
  const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
  if (result.ec != std::errc() || result.ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

// "[-]digits[.digits]" as its canonical form: no leading zeros in the integer part, no trailing
// zeros in the fraction, no point without a fraction, and zero without sign: "-012.500" ->
// "-12.5", "0.00" -> "0".
std::optional<std::string> canonical_decimal(std::string_view text) {
  size_t pos = 0;
  bool negative = false;
  if (pos < text.size() && (text[pos] == '-' || text[pos] == '+')) negative = text[pos++] == '-';
  std::string integer, fraction;
  while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') integer.push_back(text[pos++]);
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9')
      fraction.push_back(text[pos++]);
  }
  if (pos != text.size() || (integer.empty() && fraction.empty())) return std::nullopt;
  integer.erase(0, std::min(integer.find_first_not_of('0'), integer.size()));
  while (!fraction.empty() && fraction.back() == '0') fraction.pop_back();
  if (integer.empty()) integer = "0";
  std::string out;
  if (negative && !(integer == "0" && fraction.empty())) out = "-";
  out += integer;
  if (!fraction.empty()) out += "." + fraction;
  return out;
}

// Hinnant's days_from_civil: days since 1970-01-01 of the proleptic Gregorian date.
int64_t days_from_civil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

bool take(std::string_view text, size_t& pos, std::string_view literal) {
  if (text.substr(pos, literal.size()) != literal) return false;
  pos += literal.size();
  return true;
}

std::optional<int64_t> take_digits(std::string_view text, size_t& pos, size_t min_digits,
                                   size_t max_digits) {
  size_t n = 0;
  int64_t value = 0;
  while (pos < text.size() && n < max_digits && text[pos] >= '0' && text[pos] <= '9') {
    value = value * 10 + (text[pos++] - '0');
    ++n;
  }
  if (n < min_digits) return std::nullopt;
  return value;
}

// "[+|-]YYYY...-MM-DD[ (BC)]" (DuckDB writes year N BC as "N (BC)": astronomical year 1 - N).
// Returns days since 1970-01-01 and advances pos.
std::optional<int64_t> parse_date(std::string_view text, size_t& pos) {
  bool negative = false;
  if (pos < text.size() && (text[pos] == '-' || text[pos] == '+')) negative = text[pos++] == '-';
  auto year = take_digits(text, pos, 4, 12);
  if (!year || !take(text, pos, "-")) return std::nullopt;
  auto month = take_digits(text, pos, 2, 2);
  if (!month || !take(text, pos, "-")) return std::nullopt;
  auto day = take_digits(text, pos, 2, 2);
  if (!day || *month < 1 || *month > 12 || *day < 1 || *day > 31) return std::nullopt;
  int64_t y = negative ? -*year : *year;
  if (take(text, pos, " (BC)")) y = 1 - y;
  return days_from_civil(y, *month, *day);
}

// "[-]H...H:MM:SS[.f{1,9}]" as nanoseconds; `fraction_digits` receives the number of fraction
// digits written.
std::optional<int64_t> parse_time(std::string_view text, size_t& pos, int* fraction_digits) {
  const bool negative = take(text, pos, "-");
  auto hours = take_digits(text, pos, 1, 9);
  if (!hours || !take(text, pos, ":")) return std::nullopt;
  auto minutes = take_digits(text, pos, 2, 2);
  if (!minutes || !take(text, pos, ":")) return std::nullopt;
  auto seconds = take_digits(text, pos, 2, 2);
  if (!seconds || *minutes > 59 || *seconds > 60) return std::nullopt;
  int64_t nanos = ((*hours * 60 + *minutes) * 60 + *seconds) * kNanosPerSecond;
  int digits = 0;
  if (take(text, pos, ".")) {
    int64_t scale = kNanosPerSecond;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      if (++digits > 9) return std::nullopt;
      scale /= 10;
      nanos += (text[pos++] - '0') * scale;
    }
    if (digits == 0) return std::nullopt;
  }
  if (fraction_digits != nullptr) *fraction_digits = digits;
  return negative ? -nanos : nanos;
}

// A zone suffix: "Z", "+HH", "+HH:MM", "+HHMM" (or '-'). Returns the offset in seconds east of UTC,
// or nullopt (pos unchanged) when there is none.
std::optional<int64_t> parse_zone(std::string_view text, size_t& pos) {
  if (take(text, pos, "Z")) return 0;
  if (pos >= text.size() || (text[pos] != '+' && text[pos] != '-')) return std::nullopt;
  size_t p = pos;
  const int sign = text[p++] == '-' ? -1 : 1;
  auto hours = take_digits(text, p, 2, 2);
  if (!hours) return std::nullopt;
  int64_t minutes = 0;
  take(text, p, ":");
  if (auto m = take_digits(text, p, 2, 2)) minutes = *m;
  pos = p;
  return sign * (*hours * 3600 + minutes * 60);
}

struct Instant {
  Int128 nanos = 0;    // since 1970-01-01T00:00:00 (UTC when `zoned`)
  bool zoned = false;  // the text carried a zone ("Z", "+00")
  int fraction_digits = 0;
};

// "<date>[T| ]<time>[zone]", e.g. kbdata "2019-11-26T20:11:42.501000Z", DuckDB
// "2019-11-26 20:11:42.501+00" or "226414-01-07 (BC) 22:21:39.416064", JavaScript
// "2011-10-06T22:21:49.580Z".
std::optional<Instant> parse_timestamp(std::string_view text) {
  size_t pos = 0;
  auto days = parse_date(text, pos);
  if (!days || !(take(text, pos, "T") || take(text, pos, " "))) return std::nullopt;
  Instant instant;
  auto nanos = parse_time(text, pos, &instant.fraction_digits);
  if (!nanos || *nanos < 0) return std::nullopt;
  auto zone = parse_zone(text, pos);
  if (pos != text.size()) return std::nullopt;
  instant.zoned = zone.has_value();
  instant.nanos =
      Int128{*days} * kNanosPerDay + *nanos - Int128{zone.value_or(0)} * kNanosPerSecond;
  return instant;
}

// An instant as "date Ttime" with nanoseconds, for messages and exact comparison.
std::string instant_text(Int128 nanos) {
  const Int128 days = floor_div(nanos, kNanosPerDay);
  const auto nano_of_day = static_cast<int64_t>(nanos - days * kNanosPerDay);
  std::string out;
  tabular::append_date(out, static_cast<int64_t>(days));
  out.push_back('T');
  tabular::append_time(out, nano_of_day, TimeUnit::NANOS);
  return out;
}

std::string date_text(int64_t days) {
  std::string out;
  tabular::append_date(out, days);
  return out;
}

// ----------------------------------------------------------------------------------------------
// WKB to GeoJSON, the form in which hyparquet returns GEOMETRY and GEOGRAPHY values.

class WkbReader {
 public:
  explicit WkbReader(std::string_view bytes) : bytes_(bytes) {}

  Json geometry() {
    const bool little = byte() == 1;
    uint32_t type = u32(little);
    int dims = 2;
    if (type & 0x20000000u) u32(little);  // EWKB SRID
    if (type & 0x80000000u) ++dims;       // EWKB Z
    if (type & 0x40000000u) ++dims;       // EWKB M
    type &= 0x0FFFFFFFu;
    const uint32_t iso = type / 1000;  // ISO: 1000 Z, 2000 M, 3000 ZM
    if (iso == 1 || iso == 2) ++dims;
    if (iso == 3) dims += 2;
    type %= 1000;
    Json out = Json::object();
    static const char* const kNames[] = {
        "",           "Point",           "LineString",   "Polygon",
        "MultiPoint", "MultiLineString", "MultiPolygon", "GeometryCollection"};
    if (type < 1 || type > 7) throw std::runtime_error("unknown WKB geometry type");
    out["type"] = kNames[type];
    switch (type) {
      case 1:
        out["coordinates"] = point(little, dims);
        break;
      case 2:
        out["coordinates"] = points(little, dims);
        break;
      case 3: {
        Json rings = Json::array();
        for (uint32_t n = u32(little); n > 0; --n) rings.push_back(points(little, dims));
        out["coordinates"] = rings;
        break;
      }
      case 4:
      case 5:
      case 6: {
        Json parts = Json::array();
        for (uint32_t n = u32(little); n > 0; --n) parts.push_back(geometry()["coordinates"]);
        out["coordinates"] = parts;
        break;
      }
      case 7: {
        Json parts = Json::array();
        for (uint32_t n = u32(little); n > 0; --n) parts.push_back(geometry());
        out["geometries"] = parts;
        break;
      }
    }
    return out;
  }

  [[nodiscard]] bool at_end() const { return pos_ == bytes_.size(); }

 private:
  void need(size_t n) const {
    if (bytes_.size() - pos_ < n) throw std::runtime_error("WKB ends early");
  }
  uint8_t byte() {
    need(1);
    return static_cast<uint8_t>(bytes_[pos_++]);
  }
  uint64_t bits(int n, bool little) {
    need(static_cast<size_t>(n));
    uint64_t value = 0;
    for (int k = 0; k < n; ++k) {
      const auto b =
          static_cast<uint8_t>(bytes_[pos_ + static_cast<size_t>(little ? n - 1 - k : k)]);
      value = (value << 8) | b;
    }
    pos_ += static_cast<size_t>(n);
    return value;
  }
  uint32_t u32(bool little) { return static_cast<uint32_t>(bits(4, little)); }
  double f64(bool little) {
    const uint64_t b = bits(8, little);
    double value;
    std::memcpy(&value, &b, sizeof(value));
    return value;
  }
  Json point(bool little, int dims) {
    Json coordinates = Json::array();
    for (int k = 0; k < dims; ++k) coordinates.push_back(f64(little));
    return coordinates;
  }
  Json points(bool little, int dims) {
    Json list = Json::array();
    for (uint32_t n = u32(little); n > 0; --n) list.push_back(point(little, dims));
    return list;
  }

  std::string_view bytes_;
  size_t pos_ = 0;
};

// Structural equality; numbers compare as doubles, objects ignore key order.
bool trees_equal(const Json& a, const Json& b) {
  if (a.is_number() && b.is_number()) return a.get<double>() == b.get<double>();
  if (a.type() != b.type()) return false;
  if (a.is_array()) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!trees_equal(a[i], b[i])) return false;
    }
    return true;
  }
  if (a.is_object()) {
    if (a.size() != b.size()) return false;
    for (const auto& [key, value] : a.items()) {
      if (!b.contains(key) || !trees_equal(value, b[key])) return false;
    }
    return true;
  }
  return a == b;
}

// ----------------------------------------------------------------------------------------------
// Column classes and normalisation

enum class Oracle { kDuckDb, kHyparquet, kCsv };

const char* oracle_name(Oracle oracle) {
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

Class classify(const ColumnDescriptor& column) {
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

bool equal(const Canonical& a, const Canonical& b) {
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
constexpr double kDecimalAsDoubleTolerance = 1e-12;

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

// ----------------------------------------------------------------------------------------------
// Oracles

struct OracleTable {
  Oracle kind = Oracle::kDuckDb;
  std::string path;
  std::vector<std::vector<Json>> rows;  // values by column position
  std::vector<std::string> names;  // column names where the oracle has them (DuckDB, CSV header)
};

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path.string());
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// A JSON array of row objects (DuckDB) or of row arrays (hyparquet).
OracleTable load_json_oracle(const fs::path& path, Oracle kind) {
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
OracleTable load_csv_oracle(const fs::path& path) {
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
std::vector<RenderedColumn> decode_all(parquet::FileReader& reader, size_t keep_rows,
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
std::vector<RenderedColumn> decode_records(parquet::FileReader& reader, size_t keep_rows,
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
std::string nested_reason(const parquet::Schema& schema) {
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
std::vector<bool> explicit_logical_types(const parquet::FileReader& reader) {
  std::vector<bool> out;
  for (const auto& element : reader.metadata().schema) {
    if (element.type) out.push_back(element.logical_type.has_value());
  }
  if (out.size() != reader.schema().leaves().size()) out.clear();
  return out;
}

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

const KnownFailure* find_known_failure(const std::string& name) {
  for (const auto& known : kKnownFailures) {
    if (name == known.file) return &known;
  }
  return nullptr;
}

std::optional<int64_t> manifest_int(const Json* entry, const char* key) {
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
OracleSetup prepare_oracle_comparison(const parquet::FileReader& reader, const OracleTable& oracle,
                                      int64_t total_rows, int64_t truncated_to,
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
void compare_with_oracle(const parquet::FileReader& reader,
                         const std::vector<RenderedColumn>& columns, const OracleTable& oracle,
                         int64_t total_rows, int64_t truncated_to,  // -1: not truncated
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
std::optional<Int128> variant_instant(const std::string& text) {
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
std::string variant_difference(const Json& ours, const Json& want, const std::string& path,
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
std::vector<const parquet::SchemaNode*> fields_with_leaves(const parquet::Schema& schema) {
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
void compare_nested_with_oracle(const parquet::FileReader& reader,
                                const std::vector<RenderedColumn>& fields,
                                const OracleTable& oracle, int64_t total_rows,
                                int64_t truncated_to,  // -1: not truncated
                                std::vector<std::string>& failures, std::vector<std::string>& notes,
                                ValueStats& stats) {
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

Outcome check_file(const FileCase& file) {
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

const char* class_name(Class value_class) {
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

// ----------------------------------------------------------------------------------------------
// The normalisation rules, one case each, so that a lenient rule cannot hide a reader bug.

ColumnDescriptor make_column(PhysicalType physical, LogicalType logical = {}, int32_t length = 0) {
  ColumnDescriptor column;
  column.path = {"c"};
  column.dotted_path = "c";
  column.physical = physical;
  column.type_length = length;
  column.logical = logical;
  return column;
}

LogicalType logical(LogicalType::Kind kind) {
  LogicalType type;
  type.kind = kind;
  return type;
}

LogicalType timestamp(TimeUnit unit, bool utc) {
  LogicalType type = logical(LogicalType::Kind::TIMESTAMP);
  type.unit = unit;
  type.is_adjusted_to_utc = utc;
  return type;
}

LogicalType time_of_day(TimeUnit unit, bool utc) {
  LogicalType type = logical(LogicalType::Kind::TIME);
  type.unit = unit;
  type.is_adjusted_to_utc = utc;
  return type;
}

LogicalType decimal(int32_t precision, int32_t scale) {
  LogicalType type = logical(LogicalType::Kind::DECIMAL);
  type.decimal_precision = precision;
  type.decimal_scale = scale;
  return type;
}

Verdict::Kind verdict(const ColumnDescriptor& column, Oracle oracle, std::string_view ours,
                      const Json& expected, bool explicit_logical_type = true) {
  return ColumnRule(column, oracle, explicit_logical_type).compare(ours, expected).kind;
}

constexpr auto kEqual = Verdict::Kind::kEqual;
constexpr auto kMismatch = Verdict::Kind::kMismatch;

TEST(ConformanceRules, NullsAndNumbers) {
  const auto int64 = make_column(PhysicalType::INT64);
  EXPECT_EQ(verdict(int64, Oracle::kDuckDb, "null", nullptr), kEqual);
  EXPECT_EQ(verdict(int64, Oracle::kDuckDb, "0", nullptr), kMismatch);
  EXPECT_EQ(verdict(int64, Oracle::kDuckDb, "null", "0"), kMismatch);
  EXPECT_EQ(verdict(int64, Oracle::kDuckDb, "-9223372036854775807", "-9223372036854775807"),
            kEqual);
  EXPECT_EQ(verdict(int64, Oracle::kHyparquet, "45", 45), kEqual);
  EXPECT_EQ(verdict(int64, Oracle::kDuckDb, "45", "46"), kMismatch);
  LogicalType u64 = logical(LogicalType::Kind::INTEGER);
  u64.bit_width = 64;
  u64.is_signed = false;
  EXPECT_EQ(verdict(make_column(PhysicalType::INT64, u64), Oracle::kHyparquet,
                    "18446744073709551615", Json::parse("18446744073709551615")),
            kEqual);

  const auto float32 = make_column(PhysicalType::FLOAT);
  EXPECT_EQ(verdict(float32, Oracle::kDuckDb, "4.6", 4.599999904632568), kEqual);
  EXPECT_EQ(verdict(float32, Oracle::kDuckDb, "4.6", 4.6), kMismatch);
  EXPECT_EQ(verdict(float32, Oracle::kDuckDb, "\"NaN\"", "NaN"), kEqual);
  EXPECT_EQ(verdict(float32, Oracle::kDuckDb, "\"-Infinity\"", "-Infinity"), kEqual);
  EXPECT_EQ(verdict(float32, Oracle::kDuckDb, "\"Infinity\"", "-Infinity"), kMismatch);
  EXPECT_EQ(verdict(float32, Oracle::kHyparquet, "\"NaN\"", nullptr), kEqual);
  EXPECT_EQ(verdict(float32, Oracle::kDuckDb, "\"NaN\"", nullptr), kMismatch);
  const auto float16 =
      make_column(PhysicalType::FIXED_LEN_BYTE_ARRAY, logical(LogicalType::Kind::FLOAT16), 2);
  EXPECT_EQ(verdict(float16, Oracle::kDuckDb, "0.5", 0.5), kEqual);
  const auto float64 = make_column(PhysicalType::DOUBLE);
  EXPECT_EQ(verdict(float64, Oracle::kDuckDb, "4.7", 4.7), kEqual);
  EXPECT_EQ(verdict(float64, Oracle::kDuckDb, "4.7", 4.700000000000001), kMismatch);

  const auto dec = make_column(PhysicalType::INT32, decimal(3, 2));
  EXPECT_EQ(verdict(dec, Oracle::kDuckDb, "\"4.80\"", "4.80"), kEqual);
  EXPECT_EQ(verdict(dec, Oracle::kDuckDb, "\"-0.05\"", "-0.05"), kEqual);
  EXPECT_EQ(verdict(dec, Oracle::kDuckDb, "\"4.80\"", "4.81"), kMismatch);
  EXPECT_EQ(verdict(dec, Oracle::kDuckDb, "\"0.05\"", "-0.05"), kMismatch);
  EXPECT_EQ(verdict(dec, Oracle::kHyparquet, "\"1.00\"", 1), kEqual);
  EXPECT_EQ(verdict(dec, Oracle::kHyparquet, "\"1.01\"", 1), kMismatch);
  EXPECT_EQ(verdict(make_column(PhysicalType::BYTE_ARRAY, decimal(70, 0)), Oracle::kDuckDb,
                    "\"578960446186580977117854925043439539266\"", 5.7896044618658096e+38),
            kEqual);
}

TEST(ConformanceRules, DatesAndTimes) {
  const auto date = make_column(PhysicalType::INT32, logical(LogicalType::Kind::DATE));
  EXPECT_EQ(verdict(date, Oracle::kDuckDb, "\"2020-01-10\"", "2020-01-10"), kEqual);
  EXPECT_EQ(verdict(date, Oracle::kDuckDb, "\"2020-01-10\"", "2020-01-11"), kMismatch);
  EXPECT_EQ(verdict(date, Oracle::kDuckDb, "\"0000-01-01\"", "0001-01-01 (BC)"), kEqual);
  EXPECT_EQ(verdict(date, Oracle::kDuckDb, "\"-0001-03-01\"", "0002-03-01 (BC)"), kEqual);
  EXPECT_EQ(verdict(date, Oracle::kHyparquet, "\"2024-01-30\"", "2024-01-30T00:00:00.000Z"),
            kEqual);

  const auto local_ms = make_column(PhysicalType::INT64, timestamp(TimeUnit::MILLIS, false));
  EXPECT_EQ(
      verdict(local_ms, Oracle::kDuckDb, "\"2019-11-26T20:11:42.501\"", "2019-11-26 20:11:42.501"),
      kEqual);
  EXPECT_EQ(
      verdict(local_ms, Oracle::kDuckDb, "\"2019-11-26T20:11:42.501\"", "2019-11-26 20:11:42.502"),
      kMismatch);
  EXPECT_EQ(
      verdict(local_ms, Oracle::kDuckDb, "\"2019-11-26T20:11:42.000\"", "2019-11-26 20:11:42"),
      kEqual);
  const auto utc_us = make_column(PhysicalType::INT64, timestamp(TimeUnit::MICROS, true));
  EXPECT_EQ(
      verdict(utc_us, Oracle::kDuckDb, "\"2022-10-17T21:52:27.000000Z\"", "2022-10-17 21:52:27+00"),
      kEqual);
  // The zone must agree for an explicit logical type, not for a legacy converted type.
  EXPECT_EQ(
      verdict(utc_us, Oracle::kDuckDb, "\"2022-10-17T21:52:27.000000Z\"", "2022-10-17 21:52:27"),
      kMismatch);
  EXPECT_EQ(verdict(utc_us, Oracle::kDuckDb, "\"2022-10-17T21:52:27.000000Z\"",
                    "2022-10-17 21:52:27", false),
            kEqual);
  const auto utc_ns = make_column(PhysicalType::INT64, timestamp(TimeUnit::NANOS, true));
  EXPECT_EQ(verdict(utc_ns, Oracle::kDuckDb, "\"2011-10-06T22:21:49.580000999Z\"",
                    "2011-10-06 22:21:49.58+00"),
            kEqual);
  EXPECT_EQ(verdict(utc_ns, Oracle::kDuckDb, "\"2011-10-06T22:21:49.580001000Z\"",
                    "2011-10-06 22:21:49.58+00"),
            kMismatch);
  EXPECT_EQ(verdict(utc_ns, Oracle::kHyparquet, "\"2011-10-06T22:21:49.580999999Z\"",
                    "2011-10-06T22:21:49.580Z"),
            kEqual);
  const auto local_ns = make_column(PhysicalType::INT64, timestamp(TimeUnit::NANOS, false));
  EXPECT_EQ(verdict(local_ns, Oracle::kDuckDb, "\"1677-09-22T00:00:00.000000001\"",
                    "1677-09-22 00:00:00"),
            kMismatch);

  const auto int96 = make_column(PhysicalType::INT96);
  EXPECT_EQ(verdict(int96, Oracle::kDuckDb, "\"2024-01-01T20:34:56.123456789\"",
                    "2024-01-01 20:34:56.123456"),
            kEqual);
  EXPECT_EQ(verdict(int96, Oracle::kDuckDb, "\"-0001-03-01T00:00:00.000000000\"",
                    "0002-03-01 (BC) 00:00:00"),
            kEqual);
  EXPECT_EQ(verdict(int96, Oracle::kDuckDb, "\"-294554-12-13T14:58:10.448384000\"",
                    "226414-01-07 (BC) 22:21:39.416064"),
            Verdict::Kind::kNotComparable);

  const auto utc_time = make_column(PhysicalType::INT32, time_of_day(TimeUnit::MILLIS, true));
  EXPECT_EQ(verdict(utc_time, Oracle::kDuckDb, "\"09:31:38.827\"", "09:31:38.827+00"), kEqual);
  EXPECT_EQ(verdict(utc_time, Oracle::kDuckDb, "\"-03:51:39.000\"", "20:08:21+00"), kEqual);
  EXPECT_EQ(verdict(utc_time, Oracle::kDuckDb, "\"24:00:00.000\"", "24:00:00+00"), kEqual);
  const auto local_time = make_column(PhysicalType::INT32, time_of_day(TimeUnit::MILLIS, false));
  EXPECT_EQ(verdict(local_time, Oracle::kDuckDb, "\"82:00:00.000\"", "82:00:00"), kEqual);
  EXPECT_EQ(verdict(local_time, Oracle::kDuckDb, "\"-03:51:39.000\"", "20:08:21"), kMismatch);
}

TEST(ConformanceRules, BinariesAndStrings) {
  const auto blob = make_column(PhysicalType::BYTE_ARRAY);
  EXPECT_EQ(verdict(blob, Oracle::kDuckDb, "\"BAA=\"", "\\x04\\x00"), kEqual);
  EXPECT_EQ(verdict(blob, Oracle::kDuckDb, "\"BAA=\"", "\\x04\\x01"), kMismatch);
  EXPECT_EQ(verdict(blob, Oracle::kDuckDb, "\"YWJj\"", "abc"), kEqual);
  EXPECT_EQ(verdict(blob, Oracle::kHyparquet, "\"YWJj\"", "abc"), kEqual);
  EXPECT_EQ(verdict(blob, Oracle::kHyparquet, "\"YWJj\"", Json::parse("[97,98,99]")), kEqual);
  EXPECT_EQ(verdict(blob, Oracle::kHyparquet, "\"YWJj\"", "abd"), kMismatch);
  const auto text = make_column(PhysicalType::BYTE_ARRAY, logical(LogicalType::Kind::STRING));
  EXPECT_EQ(
      verdict(text, Oracle::kDuckDb, "\"hello\\u0000world\"", std::string("hello\0world", 11)),
      kEqual);
  EXPECT_EQ(verdict(text, Oracle::kDuckDb, "\"hello\\u0000world\"", "hello"), kMismatch);
  EXPECT_EQ(verdict(text, Oracle::kDuckDb, "\"abc\"", "abc "), kMismatch);
  const auto uuid =
      make_column(PhysicalType::FIXED_LEN_BYTE_ARRAY, logical(LogicalType::Kind::UUID), 16);
  EXPECT_EQ(verdict(uuid, Oracle::kDuckDb, "\"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11\"",
                    "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11"),
            kEqual);
  const auto geometry = make_column(PhysicalType::BYTE_ARRAY, logical(LogicalType::Kind::GEOMETRY));
  EXPECT_EQ(verdict(geometry, Oracle::kHyparquet, "\"AQEAAAAAAAAAAAA+QAAAAAAAACRA\"",
                    Json::parse(R"({"type": "Point", "coordinates": [30, 10]})")),
            kEqual);
  EXPECT_EQ(
      verdict(geometry, Oracle::kHyparquet,
              "\"AAAAA+oAAAACQD4AAAAAAABAJAAAAAAAAEBEAAAAAAAAQCQAAAAAAABAPgAAAAAAAEBEAAAAAAAA\"",
              Json::parse(R"({"type":"LineString","coordinates":[[30,10,40],[10,30,40]]})")),
      kEqual);
  EXPECT_EQ(verdict(geometry, Oracle::kHyparquet, "\"AQEAAAAAAAAAAAA+QAAAAAAAACRA\"",
                    Json::parse(R"({"type": "Point", "coordinates": [30, 11]})")),
            kMismatch);
  const auto null_type = make_column(PhysicalType::INT32, logical(LogicalType::Kind::UNKNOWN));
  EXPECT_EQ(verdict(null_type, Oracle::kDuckDb, "null", nullptr), kEqual);
}

TEST(ConformanceRules, CsvAndFeatures) {
  const auto text = make_column(PhysicalType::BYTE_ARRAY, logical(LogicalType::Kind::STRING));
  const auto int32 = make_column(PhysicalType::INT32);
  const fs::path path = fs::path(::testing::TempDir()) / "conformance_rules.csv";
  {
    std::ofstream out(path, std::ios::binary);
    out << "\"a\",b\r\n\"x,\"\"y\"\"\",12\n\"\",\n";
  }
  const OracleTable csv = load_csv_oracle(path);
  fs::remove(path);
  ASSERT_EQ(csv.rows.size(), 2u);
  EXPECT_EQ(csv.names, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(verdict(text, Oracle::kCsv, "\"x,\\\"y\\\"\"", csv.rows[0][0]), kEqual);
  EXPECT_EQ(verdict(int32, Oracle::kCsv, "12", csv.rows[0][1]), kEqual);
  EXPECT_EQ(verdict(text, Oracle::kCsv, "\"\"", csv.rows[1][0]), kEqual);
  EXPECT_EQ(verdict(int32, Oracle::kCsv, "null", csv.rows[1][1]), kEqual);
}

// The VARIANT rules: values by JSON type, dates and timestamps at the oracle's resolution.
TEST(ConformanceRules, VariantValues) {
  const auto same = [](const char* ours, const char* want, Oracle oracle) {
    return variant_difference(Json::parse(ours), Json::parse(want), "v", oracle).empty();
  };
  const Oracle duckdb = Oracle::kDuckDb, hyparquet = Oracle::kHyparquet;
  EXPECT_TRUE(
      same(R"({"a":[1,"x",null,true],"b":{}})", R"({"b":{},"a":[1,"x",null,true]})", duckdb));
  EXPECT_FALSE(same(R"({"a":1})", R"({"a":1,"b":null})", hyparquet));  // a missing key
  EXPECT_FALSE(same(R"({"a":1})", R"({"b":1})", duckdb));
  EXPECT_FALSE(same("[1,2]", "[2,1]", duckdb));
  EXPECT_TRUE(same("4.5", "4.5", duckdb));
  EXPECT_FALSE(same("1", R"("1")", duckdb));  // no string-number equivalence
  EXPECT_FALSE(same(R"("30")", R"("30.0")", duckdb));
  EXPECT_FALSE(same("null", "false", duckdb));
  // hyparquet's JavaScript Dates: milliseconds, always "Z".
  EXPECT_TRUE(same(R"("2024-01-30")", R"("2024-01-30T00:00:00.000Z")", hyparquet));
  EXPECT_FALSE(same(R"("2024-01-31")", R"("2024-01-30T00:00:00.000Z")", hyparquet));
  EXPECT_TRUE(same(R"("2024-01-15T10:30:00.123456")", R"("2024-01-15T10:30:00.123Z")", hyparquet));
  EXPECT_FALSE(same(R"("2024-01-15T10:30:00.124")", R"("2024-01-15T10:30:00.123Z")", hyparquet));
  // DuckDB: microseconds, trailing zeros trimmed.
  EXPECT_TRUE(same(R"("2024-01-15T10:30:00.500000Z")", R"("2024-01-15 10:30:00.5+00")", duckdb));
  EXPECT_FALSE(same(R"("2024-01-15T10:30:00.500001Z")", R"("2024-01-15 10:30:00.5+00")", duckdb));
  EXPECT_FALSE(same(R"("hello")", R"("2024-01-15 10:30:00")", duckdb));
}

// The nested rules: a schema with a nullable list of nullable ints, a map and a struct.
//   optional group l (LIST) { repeated group list { optional int32 element; } }
//   optional group m (MAP) { repeated group key_value { required binary key (STRING);
//                                                       optional int32 value; } }
//   optional group s { optional int32 a; optional int32 b; }
//   repeated int32 r;
TEST(ConformanceRules, NestedValues) {
  using parquet::ConvertedType;
  using parquet::Repetition;
  const auto group = [](std::string name, Repetition repetition, int children,
                        std::optional<ConvertedType> converted = std::nullopt) {
    parquet::SchemaElement e;
    e.name = std::move(name);
    e.repetition_type = repetition;
    e.num_children = children;
    e.converted_type = converted;
    return e;
  };
  const auto leaf = [](std::string name, Repetition repetition, PhysicalType type,
                       std::optional<ConvertedType> converted = std::nullopt) {
    parquet::SchemaElement e;
    e.name = std::move(name);
    e.repetition_type = repetition;
    e.type = type;
    e.converted_type = converted;
    return e;
  };
  parquet::SchemaElement root;
  root.name = "schema";
  root.num_children = 4;
  const parquet::Schema schema = parquet::Schema::from_elements({
      root,
      group("l", Repetition::OPTIONAL, 1, ConvertedType::LIST),
      group("list", Repetition::REPEATED, 1),
      leaf("element", Repetition::OPTIONAL, PhysicalType::INT32),
      group("m", Repetition::OPTIONAL, 1, ConvertedType::MAP),
      group("key_value", Repetition::REPEATED, 2),
      leaf("key", Repetition::REQUIRED, PhysicalType::BYTE_ARRAY, ConvertedType::UTF8),
      leaf("value", Repetition::OPTIONAL, PhysicalType::INT32),
      group("s", Repetition::OPTIONAL, 2),
      leaf("a", Repetition::OPTIONAL, PhysicalType::INT32),
      leaf("b", Repetition::OPTIONAL, PhysicalType::INT32),
      leaf("r", Repetition::REPEATED, PhysicalType::INT32),
  });
  const auto& top = schema.root().children;
  const auto check = [&](Oracle oracle, size_t field, const char* ours, const char* expected) {
    std::vector<ColumnRule> rules;
    for (const auto& column : schema.leaves()) rules.emplace_back(column, oracle, false);
    ValueStats stats;
    std::vector<std::string> notes;
    NestedComparer comparer(rules, oracle, stats, notes);
    const Json want = Json::parse(expected);
    return comparer.field(top[field], Json::parse(ours), &want, top[field].name);
  };
  // Lists: null, empty and [null] differ; lengths and elements must match.
  EXPECT_EQ(check(Oracle::kDuckDb, 0, "[1,null]", "[1,null]"), "");
  EXPECT_NE(check(Oracle::kDuckDb, 0, "[]", "null"), "");
  EXPECT_NE(check(Oracle::kDuckDb, 0, "[null]", "[]"), "");
  EXPECT_NE(check(Oracle::kDuckDb, 0, "[1]", "[1,2]"), "");
  EXPECT_NE(check(Oracle::kHyparquet, 0, "[]", "null"), "");  // a nullable list stays exact
  // A bare repeated field cannot be null: hyparquet's null is our [].
  EXPECT_EQ(check(Oracle::kHyparquet, 3, "[]", "null"), "");
  EXPECT_NE(check(Oracle::kHyparquet, 3, "[1]", "null"), "");
  // Maps: DuckDB arrays of {key, value}; hyparquet objects keyed by the key.
  EXPECT_EQ(check(Oracle::kDuckDb, 1, R"([{"key":"k","value":1}])", R"([{"key":"k","value":1}])"),
            "");
  EXPECT_NE(check(Oracle::kDuckDb, 1, R"([{"key":"k","value":1}])", R"([{"key":"k","value":2}])"),
            "");
  EXPECT_EQ(check(Oracle::kHyparquet, 1, R"([{"key":"k","value":1},{"key":"j","value":null}])",
                  R"({"j":null,"k":1})"),
            "");
  EXPECT_NE(check(Oracle::kHyparquet, 1, R"([{"key":"k","value":1}])", R"({"x":1})"), "");
  // Structs: DuckDB writes every field; hyparquet leaves null fields out.
  EXPECT_EQ(check(Oracle::kDuckDb, 2, R"({"a":1,"b":null})", R"({"a":1,"b":null})"), "");
  EXPECT_NE(check(Oracle::kDuckDb, 2, R"({"a":1,"b":null})", R"({"a":1})"), "");
  EXPECT_EQ(check(Oracle::kHyparquet, 2, R"({"a":1,"b":null})", R"({"a":1})"), "");
  EXPECT_NE(check(Oracle::kHyparquet, 2, R"({"a":1,"b":2})", R"({"a":1})"), "");
  EXPECT_NE(check(Oracle::kDuckDb, 2, R"({"a":1,"b":null})", R"({"a":1,"b":null,"c":3})"), "");
  EXPECT_NE(check(Oracle::kDuckDb, 2, "null", R"({"a":null,"b":null})"), "");
}

std::optional<fs::path> corpus_root() {
  fs::path root;
  if (auto path = env("KBDATA_CORPUS"); path && !path->empty()) {
    root = *path;
  } else {
    root = fs::path(KBDATA_SOURCE_DIR) / ".." / "shared" / "parquet-corpus";
  }
  std::error_code ec;
  if (!fs::is_directory(root, ec)) return std::nullopt;
  return fs::weakly_canonical(root, ec);
}

std::string relative_name(const fs::path& path, const fs::path& root) {
  return path.lexically_relative(root).generic_string();
}

TEST(Conformance, Corpus) {
  const auto root = corpus_root();
  if (!root) {
    const std::string where =
        env("KBDATA_CORPUS")
            .value_or((fs::path(KBDATA_SOURCE_DIR) / ".." / "shared" / "parquet-corpus").string());
    if (env_flag("CI")) FAIL() << "the corpus must be present in CI; not found at " << where;
    GTEST_SKIP() << "Parquet corpus not found at " << where << " (set KBDATA_CORPUS)";
  }

  Json manifest = Json::array();
  if (fs::exists(*root / "MANIFEST.json")) {
    manifest = Json::parse(read_file(*root / "MANIFEST.json"));
  } else {
    ADD_FAILURE() << "MANIFEST.json missing from " << root->string();
  }
  std::map<std::string, const Json*> manifest_by_file;
  for (const Json& entry : manifest) {
    if (entry.contains("file")) manifest_by_file[entry["file"].get<std::string>()] = &entry;
  }

  std::vector<FileCase> cases;
  for (auto it =
           fs::recursive_directory_iterator(*root, fs::directory_options::follow_directory_symlink);
       it != fs::recursive_directory_iterator(); ++it) {
    const std::string name = relative_name(it->path(), *root);
    if (it->is_directory() && (name == "bad" || name == "encrypted")) {
      it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file() || it->path().extension() != ".parquet") continue;
    FileCase file;
    file.name = name;
    file.path = it->path();
    const auto found = manifest_by_file.find(name);
    if (found != manifest_by_file.end()) file.manifest = found->second;
    if (name.rfind("hyparquet/", 0) == 0) {
      fs::path oracle = it->path();
      oracle.replace_extension(".json");
      if (fs::exists(oracle)) file.oracle = oracle;
      file.oracle_kind = Oracle::kHyparquet;
    } else {
      const fs::path oracle = *root / "expected-duckdb" / (name + ".json");
      if (fs::exists(oracle)) file.oracle = oracle;
      file.oracle_kind = Oracle::kDuckDb;
    }
    if (name.rfind("parquet-testing/", 0) == 0) {
      fs::path csv = it->path();
      csv.replace_filename(it->path().stem().string() + "_expect.csv");
      if (fs::exists(csv)) file.csv_oracle = csv;
    }
    cases.push_back(std::move(file));
  }
  std::sort(cases.begin(), cases.end(),
            [](const FileCase& a, const FileCase& b) { return a.name < b.name; });
  ASSERT_FALSE(cases.empty()) << "no .parquet files under " << root->string();

  Summary summary;
  for (const FileCase& file : cases) summary.outcomes.push_back(check_file(file));
  summary.report("corpus " + root->string());
}

TEST(Conformance, ProjectTestData) {
  const fs::path data = KBDATA_TEST_DATA;
  ASSERT_TRUE(fs::is_directory(data)) << data.string() << " is missing";
  std::vector<FileCase> cases;
  for (const auto& entry : fs::directory_iterator(data)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".parquet") continue;
    FileCase file;
    file.name = "tests/data/" + entry.path().filename().string();
    file.path = entry.path();
    file.oracle = data / "expected" / (entry.path().filename().string() + ".json");
    file.oracle_kind = Oracle::kDuckDb;
    if (!fs::exists(*file.oracle)) {
      ADD_FAILURE() << file.name << ": its oracle " << file.oracle->string() << " is missing";
      continue;
    }
    cases.push_back(std::move(file));
  }
  ASSERT_FALSE(cases.empty()) << "the project's own test files are missing from " << data.string();
  std::sort(cases.begin(), cases.end(),
            [](const FileCase& a, const FileCase& b) { return a.name < b.name; });
  Summary summary;
  for (const FileCase& file : cases) summary.outcomes.push_back(check_file(file));
  summary.report("tests/data");
}

}  // namespace
}  // namespace kbdata
