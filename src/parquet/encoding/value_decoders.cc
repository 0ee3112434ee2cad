#include "parquet/encoding/value_decoders.h"

#include <string>

#include "common/error.h"
#include "parquet/encoding/boolean_rle_decoder.h"
#include "parquet/encoding/byte_stream_split.h"
#include "parquet/encoding/delta_binary_packed.h"
#include "parquet/encoding/delta_byte_array.h"
#include "parquet/encoding/delta_length_byte_array.h"
#include "parquet/encoding/plain_decoder.h"

namespace kbdata::parquet {
namespace {

void check_type_length(int type_length) {
  if (type_length <= 0) {
    throw FormatError("FIXED_LEN_BYTE_ARRAY type length " + std::to_string(type_length) +
                      " is not positive");
  }
}

}  // namespace

std::unique_ptr<ValueDecoder> make_value_decoder(Encoding encoding, PhysicalType type,
                                                 int type_length) {
  switch (encoding) {
    case Encoding::PLAIN:
      return make_plain_decoder(type, type_length);
    case Encoding::RLE:
      if (type == PhysicalType::BOOLEAN) return std::make_unique<BooleanRleDecoder>();
      break;
    case Encoding::DELTA_BINARY_PACKED:
      if (type == PhysicalType::INT32 || type == PhysicalType::INT64) {
        return std::make_unique<DeltaBinaryPackedDecoder>(type);
      }
      break;
    case Encoding::DELTA_LENGTH_BYTE_ARRAY:
      if (type == PhysicalType::BYTE_ARRAY) return std::make_unique<DeltaLengthByteArrayDecoder>();
      break;
    case Encoding::DELTA_BYTE_ARRAY:
      if (type == PhysicalType::BYTE_ARRAY) {
        return std::make_unique<DeltaByteArrayDecoder>(type, 0);
      }
      if (type == PhysicalType::FIXED_LEN_BYTE_ARRAY) {
        check_type_length(type_length);
        return std::make_unique<DeltaByteArrayDecoder>(type, type_length);
      }
      break;
    case Encoding::BYTE_STREAM_SPLIT:
      switch (type) {
        case PhysicalType::FLOAT:
        case PhysicalType::INT32:
          return std::make_unique<ByteStreamSplitDecoder>(4);
        case PhysicalType::DOUBLE:
        case PhysicalType::INT64:
          return std::make_unique<ByteStreamSplitDecoder>(8);
        case PhysicalType::FIXED_LEN_BYTE_ARRAY:
          check_type_length(type_length);
          return std::make_unique<ByteStreamSplitDecoder>(static_cast<size_t>(type_length));
        default:
          break;
      }
      break;
    default:
      break;
  }
  throw UnsupportedError(std::string("value encoding ") + to_string(encoding) +
                         " is not supported for " + to_string(type));
}

}  // namespace kbdata::parquet
