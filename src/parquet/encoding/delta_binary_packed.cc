#include "parquet/encoding/delta_binary_packed.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <string>

#include "common/byte_cursor.h"
#include "common/error.h"
#include "common/varint.h"

namespace kbdata::parquet {
namespace {

constexpr uint64_t kMaxBlockSize = uint64_t{1} << 31;
constexpr size_t kScratchValues = 1024;

[[noreturn]] void fail(const std::string& message) {
  throw FormatError("DELTA_BINARY_PACKED " + message);
}

// ULEB128 of at most 10 bytes at data[pos] (ByteCursor's reading), advancing pos; the error
// names the encoding and the field.
uint64_t read_uleb(std::span<const uint8_t> data, size_t& pos, const char* what) {
  ByteCursor cursor(data.subspan(std::min(pos, data.size())));
  try {
    const uint64_t value = cursor.read_uleb128(what);
    pos += cursor.position();
    return value;
  } catch (const FormatError&) {
    fail(std::string(what) + (cursor.at_end() ? " is cut off by the end of the data"
                                              : " is a varint longer than 10 bytes"));
  }
}

uint64_t unzigzag(uint64_t value) { return static_cast<uint64_t>(zigzag_decode(value)); }

}  // namespace

void DeltaBitPackedStream::reset(std::span<const uint8_t> data, int max_bit_width) {
  assert(max_bit_width >= 0 && max_bit_width <= kMaxDeltaBitWidth);
  data_ = data;
  pos_ = 0;
  max_bit_width_ = max_bit_width;
  total_left_ = 0;
  first_pending_ = false;
  next_miniblock_ = 0;
  miniblocks_ = 0;
  miniblock_values_left_ = 0;
  group_pos_ = group_len_ = 0;
  if (data.empty()) return;
  const uint64_t block_size = read_uleb(data, pos_, "block size");
  const uint64_t miniblocks = read_uleb(data, pos_, "miniblock count");
  const uint64_t total = read_uleb(data, pos_, "value count");
  const uint64_t first = unzigzag(read_uleb(data, pos_, "first value"));
  if (block_size == 0 || block_size % 128 != 0 || block_size > kMaxBlockSize) {
    fail("block size " + std::to_string(block_size) +
         " is not a positive multiple of 128 of at most 2^31");
  }
  if (miniblocks == 0 || block_size % miniblocks != 0 || (block_size / miniblocks) % 32 != 0) {
    fail("block of " + std::to_string(block_size) + " values cannot have " +
         std::to_string(miniblocks) + " miniblocks (each must hold a multiple of 32 values)");
  }
  values_per_miniblock_ = block_size / miniblocks;
  miniblocks_ = miniblocks;
  next_miniblock_ = miniblocks;  // no block started yet
  total_left_ = total;
  first_pending_ = total > 0;
  last_ = first;
}

void DeltaBitPackedStream::read_block_header() {
  min_delta_ = unzigzag(read_uleb(data_, pos_, "block min delta"));
  if (data_.size() - pos_ < miniblocks_) {
    fail("block bit widths are cut off by the end of the data (" + std::to_string(miniblocks_) +
         " needed, " + std::to_string(data_.size() - pos_) + " left)");
  }
  widths_ = pos_;
  pos_ += static_cast<size_t>(miniblocks_);
  next_miniblock_ = 0;
}

// Starts the next miniblock of the current block. Values past the stream's end are not counted:
// a miniblock beyond the last value is never started.
void DeltaBitPackedStream::start_miniblock() {
  const int width = data_[widths_ + next_miniblock_];
  if (width > max_bit_width_) {
    fail("miniblock bit width " + std::to_string(width) + " exceeds " +
         std::to_string(max_bit_width_));
  }
  ++next_miniblock_;
  const uint64_t values = std::min(values_per_miniblock_, total_left_ - (group_len_ - group_pos_));
  const uint64_t needed = (values * static_cast<uint64_t>(width) + 7) / 8;
  const uint64_t full = values_per_miniblock_ * static_cast<uint64_t>(width) / 8;
  const size_t left = data_.size() - pos_;
  if (needed > left) {
    fail("miniblock is cut off by the end of the data (" + std::to_string(needed) +
         " bytes needed, " + std::to_string(left) + " left)");
  }
  width_ = width;
  miniblock_values_left_ = values;
  group_at_ = pos_;
  miniblock_end_ = pos_ + static_cast<size_t>(std::min<uint64_t>(full, left));
  pos_ = miniblock_end_;
}

// Unpacks the next group of 8 deltas of the current miniblock into group_ (as values).
void DeltaBitPackedStream::unpack_group() {
  // A group of 8 values of width w bits is w bytes; it is copied to a zeroed buffer with 8 spare
  // bytes so that each value can be read as one unaligned 64-bit word plus one byte.
  uint8_t padded[64 + 9] = {};
  const size_t bytes = std::min<size_t>(static_cast<size_t>(width_), miniblock_end_ - group_at_);
  if (bytes != 0) std::memcpy(padded, data_.data() + group_at_, bytes);
  group_at_ += bytes;
  const uint64_t mask = width_ == 64 ? ~uint64_t{0} : (uint64_t{1} << width_) - 1;
  const uint32_t count = static_cast<uint32_t>(std::min<uint64_t>(8, miniblock_values_left_));
  uint64_t value = last_;
  for (uint32_t i = 0; i < count; ++i) {
    uint64_t delta = 0;
    if (width_ != 0) {
      const size_t bit = static_cast<size_t>(i) * static_cast<size_t>(width_);
      const size_t shift = bit % 8;
      uint64_t word;
      std::memcpy(&word, padded + bit / 8, sizeof(word));
      delta = word >> shift;
      if (shift + static_cast<size_t>(width_) > 64) {
        delta |= static_cast<uint64_t>(padded[bit / 8 + 8]) << (64 - shift);
      }
      delta &= mask;
    }
    value += min_delta_ + delta;
    group_[i] = value;
  }
  last_ = value;
  miniblock_values_left_ -= count;
  group_pos_ = 0;
  group_len_ = count;
}

void DeltaBitPackedStream::next(uint64_t* out, size_t n) {
  if (n > total_left_) {
    fail("page holds fewer values than requested (" + std::to_string(n) + " requested, " +
         std::to_string(total_left_) + " left)");
  }
  size_t done = 0;
  if (n != 0 && first_pending_) {
    out[done++] = last_;
    first_pending_ = false;
    --total_left_;
  }
  while (done < n) {
    if (group_pos_ < group_len_) {
      const uint32_t take =
          static_cast<uint32_t>(std::min<size_t>(n - done, group_len_ - group_pos_));
      std::memcpy(out + done, group_ + group_pos_, take * sizeof(uint64_t));
      group_pos_ += take;
      done += take;
      total_left_ -= take;
    } else if (miniblock_values_left_ != 0) {
      unpack_group();
    } else if (next_miniblock_ < miniblocks_) {
      start_miniblock();
    } else {
      read_block_header();
    }
  }
}

size_t DeltaBitPackedStream::end_offset() const {
  DeltaBitPackedStream walk = *this;
  // Drop what is buffered or left in the current miniblock (pos_ is already past it), then skip
  // whole miniblocks, reading their headers only.
  uint64_t left = walk.total_left_ - (walk.first_pending_ ? 1 : 0) -
                  (walk.group_len_ - walk.group_pos_) - walk.miniblock_values_left_;
  walk.group_pos_ = walk.group_len_ = 0;
  walk.first_pending_ = false;
  walk.total_left_ = left;
  walk.miniblock_values_left_ = 0;
  while (walk.total_left_ != 0) {
    if (walk.next_miniblock_ < walk.miniblocks_) {
      walk.start_miniblock();
      walk.total_left_ -= walk.miniblock_values_left_;
      walk.miniblock_values_left_ = 0;
    } else {
      walk.read_block_header();
    }
  }
  return walk.pos_;
}

DeltaBinaryPackedDecoder::DeltaBinaryPackedDecoder(PhysicalType type) : type_(type) {
  assert(type == PhysicalType::INT32 || type == PhysicalType::INT64);
}

void DeltaBinaryPackedDecoder::set_data(std::span<const uint8_t> data, size_t /*num_values*/) {
  // The stream's own value count is authoritative (num_values also counts a v1 page's nulls).
  stream_.reset(data, kMaxDeltaBitWidth);
}

void DeltaBinaryPackedDecoder::decode(size_t n, ValueBuffer& out) {
  assert(out.type == type_);
  if (n > stream_.values_left()) {
    fail("page holds fewer values than requested (" + std::to_string(n) + " requested, " +
         std::to_string(stream_.values_left()) + " left)");
  }
  const size_t width = type_ == PhysicalType::INT32 ? 4 : 8;
  if (scratch_.size() < kScratchValues) scratch_.resize(kScratchValues);
  const size_t old_size = out.data.size();
  resize_uninit(out.data, old_size + n * width);
  uint8_t* dst = out.data.data() + old_size;
  size_t done = 0;
  while (done < n) {
    const size_t take = std::min(n - done, kScratchValues);
    stream_.next(scratch_.data(), take);
    if (width == 4) {
      for (size_t i = 0; i < take; ++i) {
        const auto value = static_cast<uint32_t>(scratch_[i]);
        std::memcpy(dst + i * 4, &value, 4);
      }
    } else {
      std::memcpy(dst, scratch_.data(), take * 8);
    }
    dst += take * width;
    done += take;
  }
  out.count += n;
}

void next_lengths(DeltaBitPackedStream& stream, size_t n, std::vector<uint64_t>& scratch,
                  uint32_t* out, const char* what) {
  if (n > stream.values_left()) {
    throw FormatError(std::string(what) + " hold fewer values than requested (" +
                      std::to_string(n) + " requested, " + std::to_string(stream.values_left()) +
                      " left)");
  }
  if (scratch.size() < n) scratch.resize(n);
  stream.next(scratch.data(), n);
  for (size_t i = 0; i < n; ++i) {
    const auto length = static_cast<int32_t>(static_cast<uint32_t>(scratch[i]));
    if (length < 0) {
      throw FormatError(std::string(what) + ": negative length " + std::to_string(length));
    }
    out[i] = static_cast<uint32_t>(length);
  }
}

}  // namespace kbdata::parquet
