// libFuzzer target: any bytes as a snappy stream, decoded by kbdata's decoder
// (parquet/snappy_decoder.h), whole and a piece at a time (SnappyStream), and by libsnappy's. All
// must accept the same streams and give the same bytes; a difference, a crash or a sanitizer
// report is a finding. One difference is libsnappy's, and decided: a literal whose four length
// bytes are ff ff ff ff says 2^32 bytes, which no stream can hold (its length is at most
// 2^32 - 1) and which the input does not have. kbdata refuses it as corrupt, as the format
// description reads; libsnappy 1.1.9 adds the literal's 1 in 32 bits and reads a literal of 0
// bytes (so `00 fc ff ff ff ff` is an empty stream to it). For a stream holding such a literal
// kbdata must refuse, whatever libsnappy says (snappy_decoder_test,
// ALiteralOfTwoToTheThirtyTwoBytesIsCorrupt).
#include <snappy.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <span>
#include <vector>

#include "common/error.h"
#include "parquet/snappy_decoder.h"

namespace {

// Whether a literal of 2^32 bytes (tag fc, length bytes ff ff ff ff) is among the tags libsnappy
// reads, walking them as the format description lays them out (up to such a literal, or to the
// end of the input).
bool holds_literal_of_2_to_the_32(std::span<const uint8_t> in) {
  size_t i = 0;
  while (i < in.size() && (in[i] & 0x80) != 0) ++i;  // the length's varint
  ++i;
  while (i < in.size()) {
    const unsigned tag = in[i++];
    if ((tag & 3) != 0) {
      i += (tag & 3) == 1 ? 1 : (tag & 3) == 2 ? 2 : 4;
      continue;
    }
    uint64_t length = (tag >> 2) + 1;
    if (length > 60) {
      const size_t bytes = length - 60;
      if (in.size() - i < bytes) return false;
      uint64_t value = 0;
      for (size_t k = 0; k < bytes; ++k) value |= static_cast<uint64_t>(in[i + k]) << (8 * k);
      if (value == 0xffffffff) return true;
      i += bytes;
      length = value + 1;
    }
    if (in.size() - i < length) return false;
    i += length;
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> input(data, size);
  const std::optional<uint64_t> declared = kbdata::parquet::snappy_uncompressed_length(input);
  size_t library_declared = 0;
  const bool library_length =
      snappy::GetUncompressedLength(reinterpret_cast<const char*>(data), size, &library_declared);
  if (declared.has_value() != library_length) std::abort();
  if (!declared || *declared > (size_t{1} << 24)) return 0;
  if (*declared != library_declared) std::abort();

  std::vector<uint8_t> ours(*declared);
  std::vector<uint8_t> theirs(*declared);
  const bool ours_ok = kbdata::parquet::snappy_decompress(input, ours);
  bool theirs_ok = snappy::RawUncompress(reinterpret_cast<const char*>(data), size,
                                         reinterpret_cast<char*>(theirs.data()));
  if (theirs_ok && holds_literal_of_2_to_the_32(input)) theirs_ok = false;  // see above
  if (ours_ok != theirs_ok) std::abort();
  if (ours_ok && ours != theirs) std::abort();

  // The same stream read a piece at a time (SnappyStream): the same bytes, or an error.
  bool stream_ok = true;
  try {
    kbdata::parquet::SnappyStream stream;
    stream.start(input, *declared);
    const size_t step = 1 + size % 3000;
    for (uint64_t at = 0; at < *declared; at += step) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(step, *declared - at));
      const std::span<const uint8_t> view = stream.view(at, n);
      if (theirs_ok && std::memcmp(view.data(), theirs.data() + at, n) != 0) std::abort();
      stream.release(at + n);
    }
    stream.finish();
  } catch (const kbdata::FormatError&) {
    stream_ok = false;
  }
  if (stream_ok != theirs_ok) std::abort();
  return 0;
}
