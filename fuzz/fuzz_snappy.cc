// libFuzzer target: any bytes as a snappy stream, decoded by kbdata's decoder
// (parquet/snappy_decoder.h), whole and a piece at a time (SnappyStream), and by libsnappy's. All
// must accept the same streams and give the same bytes; a difference, a crash or a sanitizer
// report is a finding.
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
  const bool theirs_ok = snappy::RawUncompress(reinterpret_cast<const char*>(data), size,
                                               reinterpret_cast<char*>(theirs.data()));
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
