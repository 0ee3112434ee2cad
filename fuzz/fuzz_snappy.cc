// libFuzzer target: any bytes as a snappy stream, decoded by kbdata's decoder
// (parquet/snappy_decoder.h) and by libsnappy's. Both must accept the same streams and give the
// same bytes; a difference, a crash or a sanitizer report is a finding.
#include <snappy.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <span>
#include <vector>

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
  return 0;
}
