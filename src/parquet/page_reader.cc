#include "parquet/page_reader.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>

#include "common/error.h"
#include "common/file.h"
#include "common/malloc_tuning.h"
#include "common/text.h"
#include "parquet/compression.h"

namespace kbdata::parquet {
namespace {

constexpr size_t kFirstHeaderGuess = 64u << 10;

[[noreturn]] void fail(const std::string& message, int64_t offset) {
  FormatError error(message);
  error.locate_offset(offset);
  throw error;
}

std::string hex32(uint32_t v) {
  std::string out = "0x";
  for (int shift = 28; shift >= 0; shift -= 4) out += hex_digit(v >> shift);
  return out;
}

std::string fmt_crc(const char* prefix, uint32_t stored, uint32_t computed) {
  return prefix + hex32(stored) + ", computed " + hex32(computed) + ")";
}

static_assert(std::numeric_limits<decltype(PageHeader::uncompressed_page_size)>::max() <=
              PageReader::kMaxPageBytes);

}  // namespace

namespace {

// The largest storage a PageBuffer of this thread left behind, for the thread's next PageBuffer
// of the same use: one buffer a thread and use, at most kMaxSpareBytes, freed when the thread
// ends.
constexpr size_t kMaxSpareBytes = size_t{256} << 20;

struct SpareStorage {
  std::unique_ptr<uint8_t[]> data;
  size_t capacity = 0;
};

thread_local SpareStorage spare_storage[2];

SpareStorage& spare_for(PageBuffer::Use use) { return spare_storage[static_cast<int>(use)]; }

// Whether storage of `capacity` bytes may serve a page of `size`.
bool serves(size_t capacity, size_t size) {
  return capacity >= size && !(capacity > PageBuffer::kKeepBytes && size < capacity / 4);
}

}  // namespace

PageBuffer::~PageBuffer() {
  SpareStorage& spare = spare_for(use_);
  if (capacity_ > spare.capacity && capacity_ <= kMaxSpareBytes) {
    spare.data = std::move(data_);
    spare.capacity = capacity_;
  }
}

void PageBuffer::take(size_t size) {
  SpareStorage& spare = spare_for(use_);
  if (serves(spare.capacity, size)) {
    data_ = std::move(spare.data);
    capacity_ = spare.capacity;
    spare.capacity = 0;
    return;
  }
  if (spare.capacity < size) {
    spare.data.reset();  // too small for this page and the like: freed first, as the old storage
    spare.capacity = 0;
  }
  const size_t room = size >= (size_t{1} << 20) ? size + size / 8 : size;
  data_ = std::make_unique_for_overwrite<uint8_t[]>(room);
  capacity_ = room;
  if (room >= kHugeAdviceBytes) advise_huge_pages(data_.get(), room);
}

std::span<uint8_t> PageBuffer::reset(size_t size) {
  if (!serves(capacity_, size)) {
    data_.reset();  // before allocating: the old and the new storage are never held together
    capacity_ = 0;
    take(size);
  }
  return {data_.get(), size};
}

std::span<uint8_t> PageBuffer::reset_keeping(size_t size, size_t from, size_t keep) {
  if (size <= capacity_) {
    if (keep > 0 && from > 0) std::memmove(data_.get(), data_.get() + from, keep);
    return {data_.get(), size};
  }
  std::unique_ptr<uint8_t[]> old = std::move(data_);
  capacity_ = 0;
  take(size);
  if (keep > 0) std::memcpy(data_.get(), old.get() + from, keep);
  return {data_.get(), size};
}

void PageReader::check_chunk_range(int64_t chunk_start, int64_t chunk_length, uint64_t file_size) {
  if (chunk_start < 0 || chunk_length < 0 || static_cast<uint64_t>(chunk_start) > file_size ||
      static_cast<uint64_t>(chunk_length) > file_size - static_cast<uint64_t>(chunk_start)) {
    fail("column chunk [" + std::to_string(chunk_start) + ", +" + std::to_string(chunk_length) +
             ") lies outside the file of " + std::to_string(file_size) + " bytes",
         chunk_start);
  }
}

PageReader::PageReader(RandomAccessFile& file, int64_t chunk_start, int64_t chunk_length,
                       Codec codec)
    : file_(file),
      chunk_start_(chunk_start),
      codec_(codec),
      position_(chunk_start),
      window_start_(chunk_start) {
  check_chunk_range(chunk_start, chunk_length, file.size());
  chunk_end_ = chunk_start + chunk_length;
  read_ahead_end_ = chunk_end_;
}

void PageReader::seek(int64_t offset) {
  if (offset < chunk_start_ || offset > chunk_end_) {
    fail("page offset " + std::to_string(offset) + " lies outside the column chunk [" +
             std::to_string(chunk_start_) + ", " + std::to_string(chunk_end_) + ")",
         offset);
  }
  position_ = offset;
}

size_t PageReader::fill(size_t n) {
  size_t available_in_chunk = static_cast<size_t>(chunk_end_ - position_);
  n = std::min(n, available_in_chunk);
  int64_t window_end = window_start_ + static_cast<int64_t>(window_size_);
  if (position_ >= window_start_ && position_ + static_cast<int64_t>(n) <= window_end) {
    return static_cast<size_t>(std::min<int64_t>(window_end, chunk_end_) - position_);
  }
  // Keep the bytes of the window at and after position_, then read forward.
  size_t keep = 0;
  size_t keep_from = 0;
  if (position_ >= window_start_ && position_ < window_end) {
    keep = static_cast<size_t>(window_end - position_);
    keep_from = static_cast<size_t>(position_ - window_start_);
  }
  size_t ahead = read_ahead_end_ > position_
                     ? static_cast<size_t>(std::min(read_ahead_end_, chunk_end_) - position_)
                     : 0;
  size_t want = std::min(std::max(n, std::min(kReadBlock, ahead)), available_in_chunk);
  window_.reset_keeping(want, keep_from, keep);  // copies only the kept bytes
  window_size_ = want;
  window_start_ = position_;
  if (want > keep) {
    file_.read_at(static_cast<uint64_t>(position_) + keep,
                  std::span<uint8_t>(window_.data() + keep, want - keep));
  }
  return want;
}

std::optional<Page> PageReader::next() {
  while (position_ < chunk_end_) {
    Page page;
    page.offset = position_;
    size_t header_size = 0;
    size_t want = kFirstHeaderGuess;
    if (read_ahead_end_ > position_ && read_ahead_end_ < chunk_end_) {
      want = std::min(want, static_cast<size_t>(read_ahead_end_ - position_));
    }
    for (;;) {
      size_t available = fill(want);
      try {
        page.header = decode_page_header(
            std::span<const uint8_t>(window_.data() + (position_ - window_start_), available),
            position_, header_size);
        break;
      } catch (const TruncatedError&) {
        if (position_ + static_cast<int64_t>(available) >= chunk_end_) {
          fail("page header runs past the end of the column chunk", position_);
        }
        if (want >= kMaxHeaderBytes) fail("page header larger than 64 MB", position_);
        want = std::max(want * 2, available + 1);
      }
    }
    const PageHeader& h = page.header;
    int64_t body_start = position_ + static_cast<int64_t>(header_size);
    if (h.compressed_page_size > chunk_end_ - body_start) {
      fail("page of " + std::to_string(h.compressed_page_size) +
               " bytes runs past the end of the column chunk (" +
               std::to_string(chunk_end_ - body_start) + " bytes left)",
           position_);
    }
    // The declared uncompressed size needs no check against kMaxPageBytes: it is an int32 that
    // decode_page_header() has checked to be non-negative (the static_assert above).
    size_t compressed = static_cast<size_t>(h.compressed_page_size);
    fill(header_size + compressed);
    std::span<const uint8_t> raw(window_.data() + (body_start - window_start_), compressed);
    position_ = body_start + h.compressed_page_size;

    if (h.type != PageType::DATA_PAGE && h.type != PageType::DATA_PAGE_V2 &&
        h.type != PageType::DICTIONARY_PAGE) {
      continue;  // index pages and page types newer than this reader
    }
    if (verify_checksums_ && h.crc) {
      uint32_t computed = static_cast<uint32_t>(
          ::crc32(::crc32(0L, Z_NULL, 0), raw.data(), static_cast<uInt>(raw.size())));
      uint32_t stored = static_cast<uint32_t>(*h.crc);
      if (computed != stored) {
        fail(fmt_crc("page checksum mismatch (stored ", stored, computed), page.offset);
      }
    }
    // PLAIN data pages of a snappy chunk this large are left to the reader (stream_pages_from).
    const bool streamed = codec_ == Codec::SNAPPY &&
                          static_cast<uint64_t>(h.uncompressed_page_size) >= stream_from_ &&
                          ((h.type == PageType::DATA_PAGE && h.data_page_header &&
                            h.data_page_header->encoding == Encoding::PLAIN) ||
                           (h.type == PageType::DATA_PAGE_V2 && h.data_page_header_v2 &&
                            h.data_page_header_v2->encoding == Encoding::PLAIN &&
                            h.data_page_header_v2->is_compressed));
    if (streamed && h.type == PageType::DATA_PAGE) {
      page.body = raw;
      page.streamed = true;
      return page;
    }
    try {
      if (h.type == PageType::DATA_PAGE_V2) {
        if (!h.data_page_header_v2) fail("DATA_PAGE_V2 without its header", page.offset);
        const DataPageHeaderV2& v2 = *h.data_page_header_v2;
        int64_t levels = static_cast<int64_t>(v2.repetition_levels_byte_length) +
                         v2.definition_levels_byte_length;
        if (v2.repetition_levels_byte_length < 0 || v2.definition_levels_byte_length < 0 ||
            levels > h.compressed_page_size || levels > h.uncompressed_page_size) {
          fail("DATA_PAGE_V2 level lengths (" + std::to_string(v2.repetition_levels_byte_length) +
                   ", " + std::to_string(v2.definition_levels_byte_length) +
                   ") do not fit the page",
               page.offset);
        }
        if (streamed) {
          page.body = raw;
          page.streamed = true;
          return page;
        }
        size_t level_bytes = static_cast<size_t>(levels);
        size_t values_out = static_cast<size_t>(h.uncompressed_page_size) - level_bytes;
        std::span<const uint8_t> values_in = raw.subspan(level_bytes);
        if (!v2.is_compressed || codec_ == Codec::UNCOMPRESSED ||
            (values_in.empty() && values_out == 0)) {
          page.body = raw;
        } else {
          std::span<uint8_t> body = decompressed_.reset(level_bytes + values_out);
          if (level_bytes > 0) std::memcpy(body.data(), raw.data(), level_bytes);
          decompress(codec_, values_in, body.subspan(level_bytes));
          page.body = body;
        }
      } else if (codec_ == Codec::UNCOMPRESSED || (raw.empty() && h.uncompressed_page_size == 0)) {
        page.body = raw;
      } else {
        std::span<uint8_t> body =
            decompressed_.reset(static_cast<size_t>(h.uncompressed_page_size));
        decompress(codec_, raw, body);
        page.body = body;
      }
    } catch (Error& error) {
      error.locate_offset(page.offset);
      throw;
    }
    return page;
  }
  return std::nullopt;
}

}  // namespace kbdata::parquet
