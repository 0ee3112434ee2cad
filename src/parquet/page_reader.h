// Reads the pages of one column chunk in order: page header, then the page's bytes, decompressed.
//
// The reader keeps a window of the chunk's bytes (at least one page) and reads the file forward
// in blocks of kReadBlock bytes or one page, whichever is larger; it never reads outside the
// chunk's byte range [start, start + total_compressed_size). Decompressed bytes live in a buffer
// reused from page to page (PageBuffer: never zero-filled, so a page declaring 2 GiB costs
// resident memory only as decompression writes it).
//
// For page skipping (parquet/page_index.h), seek() moves to another page header of the chunk and
// limit_read_ahead() keeps the window from reading past the pages that will be used: bytes of
// skipped pages are never read from the file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "common/uninit_allocator.h"
#include "parquet/metadata.h"
#include "parquet/types.h"

namespace kbdata {
class RandomAccessFile;
}

namespace kbdata::parquet {

// Storage for one page's decompressed bytes (or a reader's window of file bytes), reused from page
// to page. It is allocated with make_unique_for_overwrite (not zero-filled): the pages of a large
// allocation become resident only when written, so a hostile header declaring INT32_MAX bytes over
// a few compressed bytes costs no resident memory before decompress() fails. Every byte handed out
// is written before it is read: decompress() fills its output exactly or throws (compression.h),
// and the window is read from the file before use. Storage of kHugeAdviceBytes or more asks for
// huge pages (common/malloc_tuning.h): such a hostile header then costs 2 MiB of resident memory.
class PageBuffer {
 public:
  // Storage kept across pages although a much smaller page came: beyond this, a page of less
  // than a quarter of the capacity releases it, so one huge page does not pin it for the chunk.
  static constexpr size_t kKeepBytes = size_t{64} << 20;

  // What the storage holds: each thread keeps one spare storage of each use.
  enum class Use { PAGE, WINDOW };

  explicit PageBuffer(Use use = Use::PAGE) : use_(use) {}
  PageBuffer(PageBuffer&& other) noexcept
      : use_(other.use_),
        data_(std::move(other.data_)),
        capacity_(std::exchange(other.capacity_, 0)) {}
  PageBuffer& operator=(PageBuffer&& other) noexcept {
    use_ = other.use_;
    data_ = std::move(other.data_);
    capacity_ = std::exchange(other.capacity_, 0);
    return *this;
  }
  // Hands its storage to the thread's spare (below) when that is the larger.
  ~PageBuffer();

  // `size` bytes of uninitialised storage, valid until the next reset(). Growing frees the old
  // storage first: two large pages are never held at once. Storage a PageBuffer of the same
  // thread and use left behind is taken when it is large enough (a scan opens readers unit after
  // unit on each worker: without it every page of DuckDB's 100 MB pages would be mapped afresh,
  // and fault in again page by page). New storage of 1 MiB or more has an eighth more room than
  // asked, so that pages a little larger than the last one fit too.
  std::span<uint8_t> reset(size_t size);

  // As reset(), but the first `keep` bytes are those at [from, from + keep) of the storage before
  // (the old and the new storage are then held together while they are copied).
  std::span<uint8_t> reset_keeping(size_t size, size_t from, size_t keep);

  [[nodiscard]] uint8_t* data() const { return data_.get(); }
  [[nodiscard]] size_t capacity() const { return capacity_; }

 private:
  // New storage of at least `size` bytes: the thread's spare, or an allocation.
  void take(size_t size);

  Use use_;
  std::unique_ptr<uint8_t[]> data_;
  size_t capacity_ = 0;
};

struct Page {
  PageHeader header;
  int64_t offset = 0;  // file offset of the page header
  // For DATA_PAGE_V2, the repetition and definition level bytes (never compressed) are the first
  // repetition_levels_byte_length + definition_levels_byte_length bytes of `body`, followed by the
  // decompressed values. For other pages `body` is the whole decompressed page. Borrowed from the
  // reader: valid until the next call of next().
  std::span<const uint8_t> body;
  // A page left compressed for its reader to decode a piece at a time (stream_pages_from()):
  // `body` is the page as stored: for DATA_PAGE the snappy stream of the whole page, for
  // DATA_PAGE_V2 the levels, then the snappy stream of the values.
  bool streamed = false;
};

class PageReader {
 public:
  static constexpr size_t kReadBlock = 1 << 20;
  // Pages whose declared uncompressed size exceeds this are refused. It is the format's own limit
  // (page sizes are int32 in the page header), so every legal page is read: a column may hold
  // values close to 2 GiB (parquet-testing's large_string_map.brotli.parquet has a 1 GiB one).
  // Memory is still bounded: a page is allocated only once its compressed bytes lie inside the
  // chunk, and PageBuffer makes the declared size cost nothing until decompression writes it.
  static constexpr int64_t kMaxPageBytes = INT32_MAX;
  // A page header that needs more than this is refused as hostile; real ones are at most a few KB
  // plus statistics, which writers truncate.
  static constexpr size_t kMaxHeaderBytes = size_t{64} << 20;

  // Throws FormatError located at chunk_start unless [chunk_start, chunk_start + chunk_length)
  // lies inside a file of `file_size` bytes.
  static void check_chunk_range(int64_t chunk_start, int64_t chunk_length, uint64_t file_size);

  // Reads the chunk's byte range of `file` (borrowed). Throws FormatError if the range lies
  // outside the file.
  PageReader(RandomAccessFile& file, int64_t chunk_start, int64_t chunk_length, Codec codec);

  // The next page, or nullopt at the end of the chunk. INDEX_PAGEs and pages of unknown types are
  // skipped. Throws FormatError located at the page's byte offset.
  std::optional<Page> next();

  // Continues at the page header at file offset `offset`, which must lie inside the chunk (else
  // FormatError). Bytes already in the window are reused; others are read when needed.
  void seek(int64_t offset);

  // Reads ahead (in blocks) at most up to file offset `end`; a page that needs more is still read
  // whole. The default is the chunk's end.
  void limit_read_ahead(int64_t end) { read_ahead_end_ = end; }

  // Data pages of a SNAPPY chunk in the PLAIN encoding that decode to at least `bytes` are
  // returned compressed (Page::streamed), for a reader that decodes them a piece at a time
  // (SnappyStream). Off (SIZE_MAX) by default.
  void stream_pages_from(size_t bytes) { stream_from_ = bytes; }

  // When on, a page whose header carries a crc is checked against CRC-32 (zlib's crc32) of its
  // bytes as stored after the header: a mismatch throws FormatError "page checksum mismatch"
  // located at the page. Off by default.
  void set_verify_checksums(bool on) { verify_checksums_ = on; }

  [[nodiscard]] int64_t position() const { return position_; }
  [[nodiscard]] int64_t chunk_end() const { return chunk_end_; }
  [[nodiscard]] Codec codec() const { return codec_; }

 private:
  // Makes at least n bytes from position_ available in window_ (bounded by the chunk's end).
  // Returns the bytes available.
  size_t fill(size_t n);

  RandomAccessFile& file_;
  int64_t chunk_start_;
  int64_t chunk_end_;
  int64_t read_ahead_end_;
  bool verify_checksums_ = false;
  size_t stream_from_ = SIZE_MAX;
  Codec codec_;
  int64_t position_;  // file offset of the next unread byte
  // Bytes [window_start_, window_start_ + window_size_) of the file (read_at writes every byte
  // before it is used).
  PageBuffer window_{PageBuffer::Use::WINDOW};
  size_t window_size_ = 0;
  int64_t window_start_;
  PageBuffer decompressed_;
};

}  // namespace kbdata::parquet
