// Variable-length integers, the one place kbdata encodes them (Thrift's compact protocol, the
// RLE/bit-packed hybrid and the DELTA encodings all use them): ULEB128 (7 bits a byte, least
// significant first, the high bit set on every byte but the last) and zigzag (signed to unsigned,
// small magnitudes small: 0, -1, 1, -2 ... -> 0, 1, 2, 3 ...). Reading ULEB128 is
// ByteCursor::read_uleb128 (common/byte_cursor.h), which bounds it to 10 bytes.
#pragma once

#include <cstdint>
#include <vector>

namespace kbdata {

[[nodiscard]] constexpr uint64_t zigzag_encode(int64_t value) {
  // The sign spread over every bit by the arithmetic shift; the left shift unsigned (no UB).
  return (static_cast<uint64_t>(value) << 1) ^ static_cast<uint64_t>(value >> 63);
}

[[nodiscard]] constexpr int64_t zigzag_decode(uint64_t value) {
  return static_cast<int64_t>((value >> 1) ^ (~(value & 1) + 1));
}

// Appends `value` as ULEB128 (1 to 10 bytes).
inline void append_uleb128(std::vector<uint8_t>& out, uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<uint8_t>(value | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<uint8_t>(value));
}

}  // namespace kbdata
