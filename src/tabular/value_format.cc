#include "tabular/value_format.h"

#include <bit>
#include <charconv>
#include <cmath>
#include <string_view>
#include <vector>

#include "common/calendar.h"
#include "common/text.h"

namespace kbdata::tabular {

using parquet::LogicalType;
using parquet::PhysicalType;
using parquet::TimeUnit;

namespace {

__extension__ typedef unsigned __int128 UInt128;

constexpr int64_t kNanosPerSecond = 1000000000;
constexpr int64_t kNanosPerDay = kSecondsPerDay * kNanosPerSecond;
constexpr int64_t kJulianDayOfUnixEpoch = 2440588;

struct UnitInfo {
  int64_t per_second;
  int fraction_digits;
};

UnitInfo unit_info(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::MILLIS:
      return {1000, 3};
    case TimeUnit::MICROS:
      return {1000000, 6};
    case TimeUnit::NANOS:
      return {kNanosPerSecond, 9};
  }
  return {1000, 3};
}

template <typename T>
void append_integer(std::string& out, T value) {
  char buffer[24];
  auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  out.append(buffer, result.ptr);
}

// `value` in decimal, zero-padded on the left to at least `width` digits.
void append_padded(std::string& out, uint64_t value, int width) {
  char buffer[24];
  auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  const auto length = static_cast<int>(result.ptr - buffer);
  if (length < width) out.append(static_cast<size_t>(width - length), '0');
  out.append(buffer, result.ptr);
}

// REQUIRES: value < 100.
void append_two_digits(std::string& out, int64_t value) {
  const char digits[] = {static_cast<char>('0' + value / 10), static_cast<char>('0' + value % 10)};
  out.append(digits, 2);
}

template <bool kJson>
void open_string(std::string& out) {
  if constexpr (kJson) out.push_back('"');
}

template <bool kJson>
void close_string(std::string& out) {
  if constexpr (kJson) out.push_back('"');
}

template <bool kJson, typename T>
void append_floating(std::string& out, T value) {
  if (std::isfinite(value)) {
    if constexpr (sizeof(T) == sizeof(float)) {
      append_float(out, value);
    } else {
      append_double(out, value);
    }
    return;
  }
  const char* name = non_finite_text(value);
  open_string<kJson>(out);
  out.append(name);
  close_string<kJson>(out);
}

template <bool kJson>
void append_string(std::string& out, std::string_view bytes) {
  if constexpr (kJson) {
    append_json_text(out, bytes);
  } else {
    append_utf8_repaired(out, bytes);
  }
}

// Writes sign, `digits` (the magnitude's decimal digits without leading zeros; "0" for zero) and
// the decimal point `scale` digits from the right.
void append_scaled(std::string& out, bool negative, std::string_view digits, int32_t scale) {
  if (negative && digits != "0") out.push_back('-');
  if (scale <= 0) {
    out.append(digits);
    if (digits != "0") out.append(static_cast<size_t>(-static_cast<int64_t>(scale)), '0');
    return;
  }
  const auto fraction_digits = static_cast<size_t>(scale);
  if (digits.size() > fraction_digits) {
    const size_t integer_digits = digits.size() - fraction_digits;
    out.append(digits.substr(0, integer_digits));
    out.push_back('.');
    out.append(digits.substr(integer_digits));
  } else {
    out.append("0.");
    out.append(fraction_digits - digits.size(), '0');
    out.append(digits);
  }
}

void append_decimal_magnitude(std::string& out, bool negative, uint64_t magnitude, int32_t scale) {
  char buffer[24];
  auto result = std::to_chars(buffer, buffer + sizeof(buffer), magnitude);
  append_scaled(out, negative, std::string_view(buffer, result.ptr - buffer), scale);
}

void append_decimal_magnitude(std::string& out, bool negative, UInt128 magnitude, int32_t scale) {
  constexpr uint64_t kTenTo19 = 10000000000000000000ULL;
  if (magnitude <= UINT64_MAX) {
    append_decimal_magnitude(out, negative, static_cast<uint64_t>(magnitude), scale);
    return;
  }
  // magnitude <= 2^127 < 10^19 * 2^64, so the high part fits in 64 bits.
  std::string digits;
  append_integer(digits, static_cast<uint64_t>(magnitude / kTenTo19));
  append_padded(digits, static_cast<uint64_t>(magnitude % kTenTo19), 19);
  append_scaled(out, negative, digits, scale);
}

// Any length: the magnitude as little-endian 32-bit limbs, converted by repeated division by 10^9.
// REQUIRES: big_endian.size() > 0.
void append_decimal_big(std::string& out, std::span<const uint8_t> big_endian, int32_t scale) {
  const size_t n = big_endian.size();
  const bool negative = (big_endian[0] & 0x80) != 0;
  std::vector<uint32_t> limbs((n + 3) / 4, 0);
  for (size_t k = 0; k < limbs.size() * 4; ++k) {
    const uint32_t byte = k < n ? big_endian[n - 1 - k] : (negative ? 0xFF : 0x00);
    limbs[k / 4] |= byte << (8 * (k % 4));
  }
  if (negative) {  // two's complement negation; the most negative value becomes 2^(bits-1)
    uint64_t carry = 1;
    for (uint32_t& limb : limbs) {
      const uint64_t sum = uint64_t{static_cast<uint32_t>(~limb)} + carry;
      limb = static_cast<uint32_t>(sum);
      carry = sum >> 32;
    }
  }
  constexpr uint32_t kChunk = 1000000000;
  std::vector<uint32_t> chunks;  // base 10^9 digits, least significant first
  size_t top = limbs.size();
  while (top > 0 && limbs[top - 1] == 0) --top;
  while (top > 0) {
    uint64_t remainder = 0;
    for (size_t j = top; j-- > 0;) {
      const uint64_t current = (remainder << 32) | limbs[j];
      limbs[j] = static_cast<uint32_t>(current / kChunk);
      remainder = current % kChunk;
    }
    chunks.push_back(static_cast<uint32_t>(remainder));
    while (top > 0 && limbs[top - 1] == 0) --top;
  }
  std::string digits;
  if (chunks.empty()) {
    digits = "0";
  } else {
    digits.reserve(chunks.size() * 9);
    append_integer(digits, chunks.back());
    for (size_t j = chunks.size() - 1; j-- > 0;) append_padded(digits, chunks[j], 9);
  }
  append_scaled(out, negative, digits, scale);
}

void append_year(std::string& out, int64_t year) {
  if (year >= 0 && year <= 9999) {
    append_padded(out, static_cast<uint64_t>(year), 4);
    return;
  }
  out.push_back(year < 0 ? '-' : '+');
  append_padded(out, year < 0 ? 0 - static_cast<uint64_t>(year) : static_cast<uint64_t>(year), 4);
}

// REQUIRES: 0 <= second_of_day < 86400, 0 <= fraction < 10^fraction_digits.
void append_date_time(std::string& out, int64_t days, int64_t second_of_day, int64_t fraction,
                      int fraction_digits) {
  append_date(out, days);
  out.push_back('T');
  append_two_digits(out, second_of_day / 3600);
  out.push_back(':');
  append_two_digits(out, second_of_day / 60 % 60);
  out.push_back(':');
  append_two_digits(out, second_of_day % 60);
  out.push_back('.');
  append_padded(out, static_cast<uint64_t>(fraction), fraction_digits);
}

uint64_t load_le64(const uint8_t* p) {
  uint64_t value = 0;
  for (int k = 7; k >= 0; --k) value = (value << 8) | p[k];
  return value;
}

uint32_t load_le32(const uint8_t* p) {
  return uint32_t{p[0]} | (uint32_t{p[1]} << 8) | (uint32_t{p[2]} << 16) | (uint32_t{p[3]} << 24);
}

}  // namespace

void append_decimal(std::string& out, int64_t unscaled, int32_t scale) {
  const bool negative = unscaled < 0;
  const uint64_t magnitude =
      negative ? 0 - static_cast<uint64_t>(unscaled) : static_cast<uint64_t>(unscaled);
  append_decimal_magnitude(out, negative, magnitude, scale);
}

bool append_decimal(std::string& out, std::span<const uint8_t> big_endian, int32_t scale) {
  // Leading 0x00 before a byte with a clear top bit, or 0xFF before one with the top bit set, only
  // repeat the sign: dropping them keeps the value.
  size_t start = 0;
  while (big_endian.size() - start > 1) {
    const uint8_t first = big_endian[start];
    const bool next_negative = (big_endian[start + 1] & 0x80) != 0;
    if (!((first == 0x00 && !next_negative) || (first == 0xFF && next_negative))) break;
    ++start;
  }
  const std::span<const uint8_t> bytes = big_endian.subspan(start);
  if (bytes.size() > kMaxDecimalBytes) return false;
  if (bytes.empty()) {
    append_scaled(out, false, "0", scale);
    return true;
  }
  const bool negative = (bytes[0] & 0x80) != 0;
  if (bytes.size() <= 8) {
    uint64_t bits = negative ? ~uint64_t{0} : 0;
    for (const uint8_t byte : bytes) bits = (bits << 8) | byte;
    append_decimal(out, static_cast<int64_t>(bits), scale);
  } else if (bytes.size() <= 16) {
    UInt128 bits = negative ? ~UInt128{0} : 0;
    for (const uint8_t byte : bytes) bits = (bits << 8) | byte;
    append_decimal_magnitude(out, negative, negative ? 0 - bits : bits, scale);
  } else {
    append_decimal_big(out, bytes, scale);
  }
  return true;
}

void append_date(std::string& out, int64_t days) {
  const CivilDate date = civil_from_days(days);
  append_year(out, date.year);
  out.push_back('-');
  append_two_digits(out, date.month);
  out.push_back('-');
  append_two_digits(out, date.day);
}

void append_time(std::string& out, int64_t value, TimeUnit unit) {
  const UnitInfo info = unit_info(unit);
  const bool negative = value < 0;
  const uint64_t magnitude =
      negative ? 0 - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
  const uint64_t per_second = static_cast<uint64_t>(info.per_second);
  const uint64_t seconds = magnitude / per_second;
  if (negative) out.push_back('-');
  append_padded(out, seconds / 3600, 2);
  out.push_back(':');
  append_two_digits(out, static_cast<int64_t>(seconds / 60 % 60));
  out.push_back(':');
  append_two_digits(out, static_cast<int64_t>(seconds % 60));
  out.push_back('.');
  append_padded(out, magnitude % per_second, info.fraction_digits);
}

void append_timestamp(std::string& out, int64_t value, TimeUnit unit, bool adjusted_to_utc) {
  const UnitInfo info = unit_info(unit);
  // Floor division in two steps; neither can overflow, even for INT64_MIN.
  int64_t seconds = value / info.per_second;
  int64_t fraction = value % info.per_second;
  if (fraction < 0) {
    fraction += info.per_second;
    --seconds;
  }
  int64_t days = seconds / kSecondsPerDay;
  int64_t second_of_day = seconds % kSecondsPerDay;
  if (second_of_day < 0) {
    second_of_day += kSecondsPerDay;
    --days;
  }
  append_date_time(out, days, second_of_day, fraction, info.fraction_digits);
  if (adjusted_to_utc) out.push_back('Z');
}

void append_int96_timestamp(std::string& out, std::span<const uint8_t> int96) {
  const auto nanos = static_cast<int64_t>(load_le64(int96.data()));
  const uint32_t julian_day = load_le32(int96.data() + 8);  // unsigned, as Arrow and DuckDB read it
  // Writers keep the nanoseconds within [0, one day); others are carried into the day.
  int64_t days = int64_t{julian_day} - kJulianDayOfUnixEpoch + nanos / kNanosPerDay;
  int64_t nano_of_day = nanos % kNanosPerDay;
  if (nano_of_day < 0) {
    nano_of_day += kNanosPerDay;
    --days;
  }
  append_date_time(out, days, nano_of_day / kNanosPerSecond, nano_of_day % kNanosPerSecond, 9);
}

void append_uuid(std::string& out, std::span<const uint8_t> uuid) {
  char text[36];
  size_t pos = 0;
  for (size_t k = 0; k < 16; ++k) {
    if (k == 4 || k == 6 || k == 8 || k == 10) text[pos++] = '-';
    text[pos++] = hex_digit(uuid[k] >> 4);
    text[pos++] = hex_digit(uuid[k]);
  }
  out.append(text, sizeof(text));
}

float half_to_float(uint16_t half) {
  const uint32_t sign = uint32_t{half & 0x8000u} << 16;
  const uint32_t exponent = (half >> 10) & 0x1F;
  const uint32_t mantissa = half & 0x3FF;
  if (exponent == 0) {  // zero or subnormal: mantissa * 2^-24, exact in float
    const float magnitude = static_cast<float>(mantissa) * (1.0f / 16777216.0f);
    return sign != 0 ? -magnitude : magnitude;
  }
  if (exponent == 31) {  // infinity or NaN, keeping the NaN payload
    return std::bit_cast<float>(sign | 0x7F800000u | (mantissa << 13));
  }
  return std::bit_cast<float>(sign | ((exponent + 127 - 15) << 23) | (mantissa << 13));
}

ValueFormatter::ValueFormatter(const parquet::ColumnDescriptor& column) {
  const PhysicalType physical = column.physical;
  const LogicalType& logical = column.logical;
  switch (physical) {
    case PhysicalType::BOOLEAN:
      kind_ = Kind::BOOLEAN;
      break;
    case PhysicalType::INT32:
      kind_ = Kind::INT32;
      break;
    case PhysicalType::INT64:
      kind_ = Kind::INT64;
      break;
    case PhysicalType::INT96:
      kind_ = Kind::INT96;
      break;
    case PhysicalType::FLOAT:
      kind_ = Kind::FLOAT;
      break;
    case PhysicalType::DOUBLE:
      kind_ = Kind::DOUBLE;
      break;
    case PhysicalType::BYTE_ARRAY:
    case PhysicalType::FIXED_LEN_BYTE_ARRAY:
      kind_ = Kind::BASE64;
      break;
  }
  const bool is_binary =
      physical == PhysicalType::BYTE_ARRAY || physical == PhysicalType::FIXED_LEN_BYTE_ARRAY;
  const bool is_flba = physical == PhysicalType::FIXED_LEN_BYTE_ARRAY;
  // Annotations that do not fit the physical type leave the physical rendering in place.
  switch (logical.kind) {
    case LogicalType::Kind::UNKNOWN:
      kind_ = Kind::NULL_VALUE;
      break;
    case LogicalType::Kind::STRING:
    case LogicalType::Kind::ENUM:
    case LogicalType::Kind::JSON:
      if (physical == PhysicalType::BYTE_ARRAY) kind_ = Kind::STRING;
      break;
    case LogicalType::Kind::INTEGER:
      if (physical == PhysicalType::INT32 && !logical.is_signed) {
        if (logical.bit_width == 8) kind_ = Kind::UINT8;
        if (logical.bit_width == 16) kind_ = Kind::UINT16;
        if (logical.bit_width == 32) kind_ = Kind::UINT32;
      } else if (physical == PhysicalType::INT64 && !logical.is_signed && logical.bit_width == 64) {
        kind_ = Kind::UINT64;
      }
      break;
    case LogicalType::Kind::DECIMAL:
      if (logical.decimal_scale < -kMaxDecimalScale || logical.decimal_scale > kMaxDecimalScale) {
        break;
      }
      scale_ = logical.decimal_scale;
      if (physical == PhysicalType::INT32) kind_ = Kind::DECIMAL_INT32;
      if (physical == PhysicalType::INT64) kind_ = Kind::DECIMAL_INT64;
      if (is_binary) kind_ = Kind::DECIMAL_BINARY;
      break;
    case LogicalType::Kind::DATE:
      if (physical == PhysicalType::INT32) kind_ = Kind::DATE;
      break;
    case LogicalType::Kind::TIME:
      if (physical == PhysicalType::INT32 && logical.unit == TimeUnit::MILLIS) {
        kind_ = Kind::TIME_MILLIS;
      } else if (physical == PhysicalType::INT64 && logical.unit == TimeUnit::MICROS) {
        kind_ = Kind::TIME_MICROS;
      } else if (physical == PhysicalType::INT64 && logical.unit == TimeUnit::NANOS) {
        kind_ = Kind::TIME_NANOS;
      }
      break;
    case LogicalType::Kind::TIMESTAMP:
      if (physical == PhysicalType::INT64) {
        kind_ = Kind::TIMESTAMP;
        unit_ = logical.unit;
        adjusted_to_utc_ = logical.is_adjusted_to_utc;
      }
      break;
    case LogicalType::Kind::UUID:
      if (is_flba && column.type_length == 16) kind_ = Kind::UUID;
      break;
    case LogicalType::Kind::FLOAT16:
      if (is_flba && column.type_length == 2) kind_ = Kind::FLOAT16;
      break;
    case LogicalType::Kind::NONE:
    case LogicalType::Kind::MAP:
    case LogicalType::Kind::LIST:
    case LogicalType::Kind::BSON:
    case LogicalType::Kind::VARIANT:
    case LogicalType::Kind::GEOMETRY:
    case LogicalType::Kind::GEOGRAPHY:
    case LogicalType::Kind::UNRECOGNISED:
      break;
  }
}

bool ValueFormatter::is_numeric() const {
  switch (kind_) {
    case Kind::INT32:
    case Kind::UINT8:
    case Kind::UINT16:
    case Kind::UINT32:
    case Kind::INT64:
    case Kind::UINT64:
    case Kind::FLOAT:
    case Kind::DOUBLE:
    case Kind::FLOAT16:
    case Kind::DECIMAL_INT32:
    case Kind::DECIMAL_INT64:
    case Kind::DECIMAL_BINARY:
      return true;
    default:
      return false;
  }
}

template <bool kJson>
void ValueFormatter::append(std::string& out, const parquet::ValueBuffer& values, size_t i) const {
  switch (kind_) {
    case Kind::NULL_VALUE:
      if constexpr (kJson) out.append("null");
      return;
    case Kind::BOOLEAN:
      out.append(values.data[i] != 0 ? "true" : "false");
      return;
    case Kind::INT32:
      append_integer(out, values.get<int32_t>(i));
      return;
    case Kind::UINT8:
      append_integer(out, uint32_t{static_cast<uint8_t>(values.get<int32_t>(i))});
      return;
    case Kind::UINT16:
      append_integer(out, uint32_t{static_cast<uint16_t>(values.get<int32_t>(i))});
      return;
    case Kind::UINT32:
      append_integer(out, static_cast<uint32_t>(values.get<int32_t>(i)));
      return;
    case Kind::INT64:
      append_integer(out, values.get<int64_t>(i));
      return;
    case Kind::UINT64:
      append_integer(out, static_cast<uint64_t>(values.get<int64_t>(i)));
      return;
    case Kind::FLOAT:
      append_floating<kJson>(out, values.get<float>(i));
      return;
    case Kind::DOUBLE:
      append_floating<kJson>(out, values.get<double>(i));
      return;
    case Kind::FLOAT16: {
      const auto bytes = values.bytes(i);
      if (bytes.size() == 2) {  // guards against a buffer that does not match the column
        append_floating<kJson>(out, half_to_float(static_cast<uint16_t>(bytes[0] | bytes[1] << 8)));
        return;
      }
      break;
    }
    case Kind::STRING:
      append_string<kJson>(out, values.string(i));
      return;
    default:
      break;
  }
  // The remaining kinds render as JSON strings of characters that need no escaping.
  open_string<kJson>(out);
  switch (kind_) {
    case Kind::DECIMAL_INT32:
      append_decimal(out, int64_t{values.get<int32_t>(i)}, scale_);
      break;
    case Kind::DECIMAL_INT64:
      append_decimal(out, values.get<int64_t>(i), scale_);
      break;
    case Kind::DECIMAL_BINARY:
      if (!append_decimal(out, values.bytes(i), scale_)) append_base64(out, values.bytes(i));
      break;
    case Kind::DATE:
      append_date(out, values.get<int32_t>(i));
      break;
    case Kind::TIME_MILLIS:
      append_time(out, values.get<int32_t>(i), TimeUnit::MILLIS);
      break;
    case Kind::TIME_MICROS:
      append_time(out, values.get<int64_t>(i), TimeUnit::MICROS);
      break;
    case Kind::TIME_NANOS:
      append_time(out, values.get<int64_t>(i), TimeUnit::NANOS);
      break;
    case Kind::TIMESTAMP:
      append_timestamp(out, values.get<int64_t>(i), unit_, adjusted_to_utc_);
      break;
    case Kind::INT96: {
      // The width checks guard against a buffer that does not match the column.
      const auto bytes = values.bytes(i);
      if (bytes.size() == 12) {
        append_int96_timestamp(out, bytes);
      } else {
        append_base64(out, bytes);
      }
      break;
    }
    case Kind::UUID: {
      const auto bytes = values.bytes(i);
      if (bytes.size() == 16) {
        append_uuid(out, bytes);
      } else {
        append_base64(out, bytes);
      }
      break;
    }
    case Kind::BASE64:
    default:
      append_base64(out, values.bytes(i));
      break;
  }
  close_string<kJson>(out);
}

void ValueFormatter::append_json(std::string& out, const parquet::ValueBuffer& values,
                                 size_t i) const {
  append<true>(out, values, i);
}

void ValueFormatter::append_text(std::string& out, const parquet::ValueBuffer& values,
                                 size_t i) const {
  append<false>(out, values, i);
}

void append_json_value(std::string& out, const parquet::ColumnDescriptor& column,
                       const parquet::ValueBuffer& values, size_t i) {
  ValueFormatter(column).append_json(out, values, i);
}

void append_text_value(std::string& out, const parquet::ColumnDescriptor& column,
                       const parquet::ValueBuffer& values, size_t i) {
  ValueFormatter(column).append_text(out, values, i);
}

}  // namespace kbdata::tabular
