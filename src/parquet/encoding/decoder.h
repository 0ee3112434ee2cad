// The contract every value decoder follows: bytes in, values out, no pointer back to the reader.
//
// A decoder is given one page's value section with set_data() and then asked for values in one or
// more decode() calls. Malformed bytes throw FormatError; the page reader adds the location.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "parquet/types.h"
#include "parquet/values.h"

namespace kbdata::parquet {

// A page's bytes decoded a piece at a time rather than held whole (SnappyStream, for pages of
// hundreds of MB): view() gives the bytes [offset, offset + n) of the page, valid until the next
// call; release() says the bytes before `offset` will not be viewed again.
class PageStream {
 public:
  virtual ~PageStream() = default;
  // Throws FormatError if the range passes the end of the page or its bytes cannot be decoded.
  virtual std::span<const uint8_t> view(uint64_t offset, size_t n) = 0;
  virtual void release(uint64_t offset) = 0;
  [[nodiscard]] virtual uint64_t length() const = 0;
};

class ValueDecoder {
 public:
  virtual ~ValueDecoder() = default;

  // `data` is the page's encoded values, borrowed until the next set_data() call; the page holds
  // `num_values` non-null values.
  virtual void set_data(std::span<const uint8_t> data, size_t num_values) = 0;

  // Appends the next n values to `out` (whose type matches the decoder's). Throws FormatError if
  // the page holds fewer than n more values or its bytes are malformed.
  virtual void decode(size_t n, ValueBuffer& out) = 0;

  // Moves past the next n values without producing them (rows a selection drops) and returns
  // true; or returns false, having done nothing, when this decoder has no cheaper way than
  // decoding them (the caller then decodes and drops them). Throws FormatError if fewer than n
  // values remain. Skipped values are not validated beyond what finding the next value needs
  // (a skipped dictionary index out of range is not an error: it is never used).
  [[nodiscard]] virtual bool skip(size_t n) {
    (void)n;
    return false;
  }

  // Appends fn(value) of the next n BYTE_ARRAY values to `out` as 8-byte values
  // (ValueBuffer::append_measure), with the checks decode() makes. `scratch` (of the decoder's
  // type) may be used to decode them first, which this default does; a decoder that can read its
  // values in place does so.
  virtual void measure(size_t n, ValueMeasure fn, ValueBuffer& out, ValueBuffer& scratch) {
    scratch.clear();
    decode(n, scratch);
    for (size_t i = 0; i < n; ++i) out.append_measure(fn(scratch.bytes(i)));
  }
};

}  // namespace kbdata::parquet
