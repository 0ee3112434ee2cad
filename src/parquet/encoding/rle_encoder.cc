#include "parquet/encoding/rle_encoder.h"

#include <algorithm>
#include <bit>
#include <cassert>

#include "common/varint.h"

namespace kbdata::parquet {
namespace {

// A bit-packed run holds at most 63 groups, as parquet-cpp writes them (its header then fits in
// one byte).
constexpr size_t kMaxLiteralGroups = 63;

// An RLE run's header must stay within the 32 bits readers accept: count << 1 <= UINT32_MAX.
constexpr uint64_t kMaxRepeatedRun = (uint64_t{1} << 31) - 1;

}  // namespace

int bit_width_for(uint64_t max_value) { return static_cast<int>(std::bit_width(max_value)); }

void pack_bit_packed_groups(std::span<const uint32_t> values, int bit_width,
                            std::vector<uint8_t>& out) {
  assert(values.size() % 8 == 0 && bit_width >= 0 && bit_width <= 32);
  if (bit_width == 0) return;
  const size_t old_size = out.size();
  out.resize(old_size + values.size() / 8 * static_cast<size_t>(bit_width));
  uint8_t* dst = out.data() + old_size;
  const uint64_t mask = (uint64_t{1} << bit_width) - 1;
  uint64_t bits = 0;  // pending bits, least significant first; fewer than 8 between values
  int pending = 0;
  for (const uint32_t value : values) {
    assert((value & ~mask) == 0);
    bits |= (value & mask) << pending;
    pending += bit_width;
    while (pending >= 8) {
      *dst++ = static_cast<uint8_t>(bits);
      bits >>= 8;
      pending -= 8;
    }
  }
  // Groups of 8 values always end on a byte boundary.
  assert(pending == 0);
}

RleBitPackedEncoder::RleBitPackedEncoder(int bit_width) : bit_width_(bit_width) {
  assert(bit_width >= 0 && bit_width <= 32);
}

void RleBitPackedEncoder::put(uint32_t value) {
  assert(bit_width_ == 32 || (value >> bit_width_) == 0);
  if (value == current_value_) {
    ++repeat_count_;
    // Past 8 repeats the value only extends the RLE run; nothing is buffered.
    if (repeat_count_ > 8) return;
  } else {
    if (repeat_count_ >= 8) write_repeated_run();
    repeat_count_ = 1;
    current_value_ = value;
  }
  buffered_[num_buffered_++] = value;
  if (num_buffered_ == 8) end_group();
}

void RleBitPackedEncoder::put_repeated(uint32_t value, size_t count) {
  while (count != 0) {
    // repeat_count_ >= 8 means an RLE run of current_value_ is under way and nothing is buffered
    // (repeat_count_ restarts at every group boundary outside a run, so it reaches 8 only when a
    // whole group repeats).
    if (value == current_value_ && repeat_count_ >= 8) {
      repeat_count_ += count;
      return;
    }
    put(value);
    --count;
  }
}

void RleBitPackedEncoder::end_group() {
  if (repeat_count_ >= 8) {
    // The group is the start of an RLE run: its values are counted in repeat_count_. A pending
    // bit-packed run ends before it.
    num_buffered_ = 0;
    if (!literals_.empty()) write_literal_run();
    return;
  }
  literals_.insert(literals_.end(), buffered_, buffered_ + 8);
  num_buffered_ = 0;
  if (literals_.size() / 8 >= kMaxLiteralGroups) write_literal_run();
  repeat_count_ = 0;
}

void RleBitPackedEncoder::write_literal_run() {
  append_uleb128(runs_, literals_.size() / 8 << 1 | 1);
  pack_bit_packed_groups(literals_, bit_width_, runs_);
  literals_.clear();
}

void RleBitPackedEncoder::write_repeated_run() {
  const int value_bytes = (bit_width_ + 7) / 8;
  uint64_t left = repeat_count_;
  while (left != 0) {
    const uint64_t count = std::min(left, kMaxRepeatedRun);
    append_uleb128(runs_, count << 1);
    for (int i = 0; i < value_bytes; ++i) {
      runs_.push_back(static_cast<uint8_t>(current_value_ >> (8 * i)));
    }
    left -= count;
  }
  num_buffered_ = 0;
  repeat_count_ = 0;
}

void RleBitPackedEncoder::flush(std::vector<uint8_t>& out) {
  if (!literals_.empty() || repeat_count_ > 0 || num_buffered_ > 0) {
    const bool all_repeat =
        literals_.empty() &&
        (repeat_count_ == static_cast<uint64_t>(num_buffered_) || num_buffered_ == 0);
    if (repeat_count_ > 0 && all_repeat) {
      write_repeated_run();
    } else {
      // The last group is padded with zeros; the reader's value count says where values end.
      if (num_buffered_ != 0) {
        std::fill(buffered_ + num_buffered_, buffered_ + 8, 0u);
        literals_.insert(literals_.end(), buffered_, buffered_ + 8);
      }
      write_literal_run();
    }
  }
  out.insert(out.end(), runs_.begin(), runs_.end());
  runs_.clear();
  literals_.clear();
  num_buffered_ = 0;
  current_value_ = 0;
  repeat_count_ = 0;
}

void encode_levels(std::span<const int16_t> levels, int max_level, std::vector<uint8_t>& out) {
  assert(max_level >= 0 && max_level <= 32767);
  if (max_level == 0) return;
  RleBitPackedEncoder encoder(bit_width_for(static_cast<uint64_t>(max_level)));
  size_t i = 0;
  while (i < levels.size()) {
    const int16_t level = levels[i];
    assert(level >= 0 && level <= max_level);
    size_t j = i + 1;
    while (j < levels.size() && levels[j] == level) ++j;
    encoder.put_repeated(static_cast<uint32_t>(level), j - i);
    i = j;
  }
  encoder.flush(out);
}

}  // namespace kbdata::parquet
