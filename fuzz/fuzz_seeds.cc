// Writes seed inputs for the fuzz targets from Parquet files (not a fuzzer; run by `make fuzz`):
//   OUT_DIR/read_file/  each file of at most kMaxSeedBytes, whole
//   OUT_DIR/footer/     each file's footer (the FileMetaData bytes)
//   OUT_DIR/page/       each column chunk of at most kMaxSeedBytes, prefixed with the fuzz_page
//                       header bytes that describe its column (layout in fuzz_inputs.h)
//   OUT_DIR/snappy/     each file's first kMaxSeedBytes, snappy-compressed (streams of every tag
//                       kind for fuzz_snappy)
// Usage: fuzz_seeds OUT_DIR FILE...  Files that fail to open get only their read_file seed. A
// seed whose pages declare more than the fuzz targets decode (fuzz_inputs.h, DecodeLimits) is left
// out, and named on stdout.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <span>
#include <string>
#include <vector>

#include "common/error.h"
#include "fuzz_inputs.h"
#include "parquet/compression.h"
#include "parquet/file_reader.h"

namespace {

constexpr int64_t kMaxSeedBytes = 64 << 10;

// What a left-out seed declares, for the line that names it.
std::string describe(const kbdata::fuzz::DeclaredSizes& sizes) {
  return "its pages declare " + std::to_string(sizes.pages) + " bytes (the largest " +
         std::to_string(sizes.largest_page) + "), " + std::to_string(sizes.values) +
         " values and up to " + std::to_string(sizes.gathered) +
         " bytes of dictionary values; the fuzz targets decode at most " +
         std::to_string(kbdata::fuzz::DecodeLimits::kInputBytes) + ", " +
         std::to_string(kbdata::fuzz::DecodeLimits::kPageBytes) + ", " +
         std::to_string(kbdata::fuzz::DecodeLimits::kValues) + " and " +
         std::to_string(kbdata::fuzz::DecodeLimits::kGatheredBytes);
}

void write_seed(const std::filesystem::path& path, std::span<const uint8_t> bytes) {
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
}

}  // namespace

int main(int argc, char** argv) {
  using namespace kbdata;
  if (argc < 3) {
    std::fprintf(stderr, "usage: fuzz_seeds OUT_DIR FILE...\n");
    return 2;
  }
  const std::filesystem::path root = argv[1];
  const std::filesystem::path out_dir = root / "page";
  for (const char* sub : {"read_file", "footer", "page", "snappy"}) {
    std::filesystem::create_directories(root / sub);
  }
  int written = 0;
  for (int i = 2; i < argc; ++i) {
    const std::string stem =
        std::to_string(i - 1) + "_" + std::filesystem::path(argv[i]).stem().string();
    {
      std::ifstream in(argv[i], std::ios::binary);
      std::vector<uint8_t> head(static_cast<size_t>(kMaxSeedBytes));
      in.read(reinterpret_cast<char*>(head.data()), kMaxSeedBytes);
      head.resize(static_cast<size_t>(in.gcount()));
      std::vector<uint8_t> compressed;
      parquet::compress(parquet::Codec::SNAPPY, 0, head, compressed);
      write_seed(root / "snappy" / stem, compressed);
    }
    try {
      auto reader = parquet::FileReader::open(argv[i]);
      const uint64_t file_size = reader->file().size();
      if (file_size <= static_cast<uint64_t>(kMaxSeedBytes)) {
        std::vector<uint8_t> whole(file_size);
        reader->file().read_at(0, whole);
        const fuzz::DeclaredSizes sizes = fuzz::declared_sizes_of_file(whole.data(), whole.size());
        if (sizes.within_limits()) {
          write_seed(root / "read_file" / stem, whole);
        } else {
          std::printf("fuzz_seeds: left out %s as a read_file seed: %s\n", argv[i],
                      describe(sizes).c_str());
        }
      }
      std::vector<uint8_t> footer(reader->footer_length());
      reader->file().read_at(reader->footer_offset(), footer);
      write_seed(root / "footer" / stem, footer);
      for (int g = 0; g < reader->num_row_groups(); ++g) {
        const auto& row_group = reader->metadata().row_groups[static_cast<size_t>(g)];
        for (size_t c = 0; c < row_group.columns.size() && c < reader->schema().leaves().size();
             ++c) {
          const auto& chunk = row_group.columns[c];
          if (!chunk.meta_data) continue;
          const auto& meta = *chunk.meta_data;
          const auto& leaf = reader->schema().leaves()[c];
          int64_t start = meta.data_page_offset;
          if (meta.dictionary_page_offset && *meta.dictionary_page_offset >= 4 &&
              *meta.dictionary_page_offset < start) {
            start = *meta.dictionary_page_offset;
          }
          int64_t length = meta.total_compressed_size;
          if (start < 0 || length <= 0 || length > kMaxSeedBytes ||
              static_cast<uint64_t>(start + length) > reader->file().size()) {
            continue;
          }
          std::vector<uint8_t> seed = {
              static_cast<uint8_t>(leaf.physical),
              static_cast<uint8_t>(meta.codec),
              static_cast<uint8_t>((leaf.max_def & 3) | (std::min(leaf.max_rep, 3) & 3) << 2),
              static_cast<uint8_t>(leaf.type_length > 0 ? leaf.type_length - 1 : 0),
              static_cast<uint8_t>(127 << 1 | (leaf.max_rep > 0 ? 1 : 0)),
              static_cast<uint8_t>(meta.num_values & 0xff),
              static_cast<uint8_t>(meta.num_values >> 8 & 0xff)};
          seed.resize(fuzz::kPageFuzzHeader + static_cast<size_t>(length));
          reader->file().read_at(
              static_cast<uint64_t>(start),
              std::span<uint8_t>(seed.data() + fuzz::kPageFuzzHeader, static_cast<size_t>(length)));
          const std::string name = stem + "_rg" + std::to_string(g) + "_c" + std::to_string(c);
          const fuzz::DeclaredSizes sizes =
              fuzz::declared_sizes_of_page_input(seed.data(), seed.size());
          if (!sizes.within_limits()) {
            std::printf("fuzz_seeds: left out %s's row group %d, column %zu as a page seed: %s\n",
                        argv[i], g, c, describe(sizes).c_str());
            continue;
          }
          write_seed(out_dir / name, seed);
          ++written;
        }
      }
    } catch (const Error&) {
      std::error_code ec;
      if (std::filesystem::file_size(argv[i], ec) <= static_cast<uintmax_t>(kMaxSeedBytes) && !ec) {
        std::filesystem::copy_file(argv[i], root / "read_file" / stem,
                                   std::filesystem::copy_options::overwrite_existing, ec);
      }
    }
  }
  std::printf("fuzz_seeds: %d page seeds in %s\n", written, out_dir.c_str());
  return 0;
}
