// A bounds-checked reader over borrowed bytes.
//
// Every read past the end throws FormatError naming what was being read and the offset; nothing
// returns zeros silently. Offsets are relative to the start of the span plus `base_offset`, so
// that an error can name the byte in the file when the span is a window of it.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <type_traits>

#include "common/error.h"

namespace kbdata {

class ByteCursor {
 public:
  // `bytes` is borrowed: its owner must outlive the cursor.
  explicit ByteCursor(std::span<const uint8_t> bytes, int64_t base_offset = 0)
      : bytes_(bytes), base_offset_(base_offset) {}

  [[nodiscard]] size_t position() const { return pos_; }
  [[nodiscard]] int64_t file_offset() const { return base_offset_ + static_cast<int64_t>(pos_); }
  [[nodiscard]] size_t remaining() const { return bytes_.size() - pos_; }
  [[nodiscard]] bool at_end() const { return pos_ == bytes_.size(); }

  uint8_t read_u8(const char* what) {
    require(1, what);
    return bytes_[pos_++];
  }

  // Little-endian fixed-width integer or float.
  template <typename T>
  T read_le(const char* what) {
    static_assert(std::is_trivially_copyable_v<T>);
    require(sizeof(T), what);
    T value;
    std::memcpy(&value, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return value;
  }

  // Unsigned LEB128 varint of at most 10 bytes.
  uint64_t read_uleb128(const char* what) {
    uint64_t value = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      uint8_t byte = read_u8(what);
      value |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return value;
    }
    throw FormatError(std::string("varint longer than 10 bytes in ") + what);
  }

  // The next n bytes, borrowed from the same owner as the cursor's span.
  std::span<const uint8_t> read_bytes(size_t n, const char* what) {
    require(n, what);
    auto out = bytes_.subspan(pos_, n);
    pos_ += n;
    return out;
  }

  void skip(size_t n, const char* what) {
    require(n, what);
    pos_ += n;
  }

  [[nodiscard]] std::span<const uint8_t> rest() const { return bytes_.subspan(pos_); }

 private:
  void require(size_t n, const char* what) const {
    if (n > remaining()) [[unlikely]] {
      overrun(n, what);
    }
  }

  [[noreturn]] __attribute__((noinline)) void overrun(size_t n, const char* what) const {
    TruncatedError error(std::string("unexpected end of data reading ") + what + " (need " +
                         std::to_string(n) + " bytes, " + std::to_string(remaining()) + " left)");
    error.locate_offset(file_offset());
    throw error;
  }

  std::span<const uint8_t> bytes_;
  int64_t base_offset_;
  size_t pos_ = 0;
};

}  // namespace kbdata
