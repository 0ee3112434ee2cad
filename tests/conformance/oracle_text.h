// Test-only, for the conformance tests (conformance_test.cc): the values as the oracles spell them
// (DuckDB's JSON, hyparquet's JSON and its JavaScript dates, the CSV files): numbers, decimals,
// dates, times and timestamps parsed, blobs decoded, WKB read as GeoJSON, JSON trees compared.
#pragma once

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

namespace kbdata::conformance {

namespace fs = std::filesystem;
using parquet::ColumnDescriptor;
using parquet::LogicalType;
using parquet::PhysicalType;
using parquet::TimeUnit;
using Json = nlohmann::ordered_json;
__extension__ typedef __int128 Int128;

// Per file, at most this many mismatches are described; the rest are only counted.
inline constexpr int kMaxReportedMismatches = 5;
// Level entries per read_batch call, and records per read_records call.
inline constexpr size_t kBatchLevels = 4096;
inline constexpr size_t kBatchRecords = 1024;

inline constexpr int64_t kNanosPerSecond = 1000000000;
inline constexpr int64_t kNanosPerDay = 86400 * kNanosPerSecond;

// ----------------------------------------------------------------------------------------------
// Small helpers

inline std::optional<std::string> env(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

inline bool env_flag(const char* name) {
  const auto value = env(name);
  return value && !value->empty() && *value != "0" && *value != "false";
}

inline std::string int128_to_string(Int128 value) {
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
inline Int128 floor_div(Int128 a, Int128 b) {
  Int128 q = a / b;
  if (a % b != 0 && a < 0) --q;
  return q;
}

inline std::string hex(std::string_view bytes) {
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

inline std::string lower(std::string text) {
  for (char& c : text) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return text;
}

// A value for messages: long texts are shortened.
inline std::string shorten(std::string text) {
  constexpr size_t kMax = 160;
  if (text.size() > kMax)
    text = text.substr(0, kMax) + "...(" + std::to_string(text.size()) + " chars)";
  return text;
}

inline std::string dump(const Json& value) {
  return shorten(value.dump(-1, ' ', false, Json::error_handler_t::replace));
}

inline int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// RFC 4648 base64 with '=' padding, as tabular renders binaries. nullopt if malformed.
inline std::optional<std::string> base64_decode(std::string_view text) {
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
inline std::string duckdb_blob_decode(std::string_view text) {
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

inline std::optional<Int128> parse_integer(std::string_view text) {
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

inline std::optional<double> parse_double(std::string_view text) {
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

inline std::optional<float> parse_float(std::string_view text) {
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
inline std::optional<std::string> canonical_decimal(std::string_view text) {
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
inline int64_t days_from_civil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

inline bool take(std::string_view text, size_t& pos, std::string_view literal) {
  if (text.substr(pos, literal.size()) != literal) return false;
  pos += literal.size();
  return true;
}

inline std::optional<int64_t> take_digits(std::string_view text, size_t& pos, size_t min_digits,
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
inline std::optional<int64_t> parse_date(std::string_view text, size_t& pos) {
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
inline std::optional<int64_t> parse_time(std::string_view text, size_t& pos, int* fraction_digits) {
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
inline std::optional<int64_t> parse_zone(std::string_view text, size_t& pos) {
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
inline std::optional<Instant> parse_timestamp(std::string_view text) {
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
inline std::string instant_text(Int128 nanos) {
  const Int128 days = floor_div(nanos, kNanosPerDay);
  const auto nano_of_day = static_cast<int64_t>(nanos - days * kNanosPerDay);
  std::string out;
  tabular::append_date(out, static_cast<int64_t>(days));
  out.push_back('T');
  tabular::append_time(out, nano_of_day, TimeUnit::NANOS);
  return out;
}

inline std::string date_text(int64_t days) {
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
inline bool trees_equal(const Json& a, const Json& b) {
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

}  // namespace kbdata::conformance
