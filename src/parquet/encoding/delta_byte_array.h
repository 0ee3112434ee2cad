// DELTA_BYTE_ARRAY (BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY), also called incremental or front coding:
// the prefix lengths as a DELTA_BINARY_PACKED stream of INT32, then the suffixes as
// DELTA_LENGTH_BYTE_ARRAY. Value i is the first prefix[i] bytes of value i - 1 followed by
// suffix[i] (value -1 being empty).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "parquet/encoding/decoder.h"
#include "parquet/encoding/delta_binary_packed.h"
#include "parquet/encoding/delta_length_byte_array.h"
#include "parquet/values.h"

namespace kbdata::parquet {

class DeltaByteArrayDecoder final : public ValueDecoder {
 public:
  // A batch may not produce more than this many bytes: prefixes repeat bytes already decoded, so
  // a small page could otherwise demand terabytes (as DictionaryDecoder::kMaxBatchBytes).
  static constexpr size_t kMaxBatchBytes = size_t{1} << 30;

  // type is BYTE_ARRAY, or FIXED_LEN_BYTE_ARRAY of type_length bytes (every value must have that
  // length). REQUIRES: type_length > 0 for FIXED_LEN_BYTE_ARRAY (make_value_decoder checks).
  DeltaByteArrayDecoder(PhysicalType type, int type_length);

  // An empty `data` is a page of no values. Throws FormatError if either stream is malformed.
  void set_data(std::span<const uint8_t> data, size_t num_values) override;

  // Throws FormatError if fewer than n values remain, a prefix is longer than the previous value,
  // a FIXED_LEN_BYTE_ARRAY value has another length, or the batch exceeds kMaxBatchBytes.
  void decode(size_t n, ValueBuffer& out) override;

 private:
  PhysicalType type_;
  int type_length_;
  DeltaBitPackedStream prefixes_;
  DeltaLengthByteArrayDecoder suffixes_;
  std::vector<uint8_t> previous_;  // the last value decoded from this page
  // Reused across pages:
  std::vector<uint64_t> scratch_;
  std::vector<uint32_t> prefix_batch_;
  ValueBuffer suffix_batch_ = ValueBuffer::for_type(PhysicalType::BYTE_ARRAY, 0);
};

}  // namespace kbdata::parquet
