#include "parquet/write/column_writer.h"

#include <zlib.h>

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <limits>
#include <mutex>
#include <optional>

#include "common/error.h"
#include "common/malloc_tuning.h"
#include "common/thread_pool.h"
#include "parquet/compression.h"
#include "parquet/encoding/delta_encoder.h"
#include "parquet/encoding/dictionary_encoder.h"
#include "parquet/encoding/plain_encoder.h"
#include "parquet/encoding/rle_encoder.h"
#include "parquet/statistics.h"

namespace kbdata::parquet {
namespace {

// ColumnIndex bounds of byte arrays are cut to this many bytes (the spec allows any bound that
// brackets the page's values): the index of a column of 100 KB kernels stays a few KB per chunk.
constexpr size_t kMaxIndexBoundBytes = 64;

constexpr size_t kMaxPageBytes = static_cast<size_t>(std::numeric_limits<int32_t>::max());

// The value encoding of a column's pages, decided per column from the options and its type.
enum class Mode { DICTIONARY, PLAIN, DELTA };

Mode initial_mode(const ColumnDescriptor& column, ValueEncoding encoding) {
  PhysicalType type = column.physical;
  if (type == PhysicalType::BOOLEAN) return Mode::PLAIN;  // a dictionary never pays off
  if (encoding == ValueEncoding::PLAIN) return Mode::PLAIN;
  if (encoding == ValueEncoding::DELTA &&
      (type == PhysicalType::INT32 || type == PhysicalType::INT64 ||
       type == PhysicalType::BYTE_ARRAY)) {
    return Mode::DELTA;
  }
  return Mode::DICTIONARY;
}

void put_u32_le(uint32_t v, std::vector<uint8_t>& out) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

int32_t checked_page_size(size_t size, const ColumnDescriptor& column) {
  if (size > kMaxPageBytes) {
    UsageError error("a page of " + std::to_string(size) +
                     " bytes exceeds Parquet's 2 GiB page limit (a single value is too large)");
    error.locate_column(column.dotted_path);
    throw error;
  }
  return static_cast<int32_t>(size);
}

// A lower bound of `value` at most kMaxIndexBoundBytes long: its prefix.
std::string truncated_lower_bound(const std::string& value) {
  if (value.size() <= kMaxIndexBoundBytes) return value;
  return value.substr(0, kMaxIndexBoundBytes);
}

// An upper bound of `value` at most kMaxIndexBoundBytes long: its prefix with the last byte that
// is not 0xFF incremented (and the bytes after it dropped). A prefix of only 0xFF bytes has no
// shorter upper bound; the value is then kept whole.
std::string truncated_upper_bound(const std::string& value) {
  if (value.size() <= kMaxIndexBoundBytes) return value;
  std::string bound = value.substr(0, kMaxIndexBoundBytes);
  while (!bound.empty() && static_cast<uint8_t>(bound.back()) == 0xFF) bound.pop_back();
  if (bound.empty()) return value;
  bound.back() = static_cast<char>(static_cast<uint8_t>(bound.back()) + 1);
  return bound;
}

// Frees a scratch buffer whose capacity is far beyond what pages normally need.
template <typename Bytes>
void release_if_oversized(Bytes& buffer) {
  constexpr size_t kKeep = size_t{64} << 20;
  if (buffer.capacity() > kKeep) Bytes().swap(buffer);
}

bool bounds_are_bytewise(const ColumnDescriptor& column) {
  return (column.physical == PhysicalType::BYTE_ARRAY ||
          column.physical == PhysicalType::FIXED_LEN_BYTE_ARRAY) &&
         sort_order(column) == SortOrder::UNSIGNED;
}

}  // namespace

// A closed page whose body is compressed on the pool; emitted, in order, once it is.
struct PendingPage {
  PageHeader header;            // all but the sizes (and the CRC)
  EncodedChunk::Page page;      // all but offset and size
  std::vector<uint8_t> input;   // what is compressed
  std::vector<uint8_t> stored;  // the body as stored: (v2: the levels, then) the compressed bytes
  size_t uncompressed_body = 0;

  std::mutex mutex;
  std::condition_variable finished;
  bool done = false;
  std::exception_ptr error;
};

struct ColumnWriter::State {
  ColumnDescriptor column;
  WriterOptions options;
  int level = 0;                                     // compression level, resolved
  ThreadPool* pool = nullptr;                        // compresses closed pages when set (borrowed)
  std::deque<std::unique_ptr<PendingPage>> pending;  // oldest first
  Mode initial = Mode::PLAIN;
  Mode mode = Mode::PLAIN;
  size_t level_cost_bits = 0;  // estimated bits per level entry (both kinds)

  // The open page.
  std::vector<int16_t> def_levels;
  std::vector<int16_t> rep_levels;
  ValueBuffer values;             // PLAIN and DELTA modes
  std::vector<uint32_t> indices;  // DICTIONARY mode
  size_t page_levels = 0;
  size_t page_rows = 0;
  size_t page_nulls = 0;
  size_t page_estimate = 0;  // PLAIN bytes of the values and levels
  StatisticsCollector page_stats;

  // The chunk so far.
  DictionaryEncoder dictionary;
  bool dictionary_used = false;
  EncodedChunk chunk;
  size_t last_data_bytes = 0;  // data page bytes of the chunk finished last
  int64_t chunk_rows = 0;
  int64_t chunk_levels = 0;
  int64_t uncompressed_bytes = 0;  // headers and uncompressed bodies, for ColumnMetaData
  StatisticsCollector chunk_stats;
  std::vector<Encoding> encodings;

  // What the chunk's closed pages count for in buffered_bytes(), the same whatever the threads:
  // pages closed before the last two settle() calls at their stored size (settled_bytes, the
  // first settled_pages of chunk.pages), later ones at an estimate (`recent`, oldest first), so
  // that counting never waits for the pages the pool is compressing now.
  struct Recent {
    uint64_t epoch = 0;
    size_t estimate = 0;
  };
  uint64_t epoch = 0;  // settle() calls so far
  std::deque<Recent> recent;
  size_t recent_estimate = 0;
  size_t settled_bytes = 0;
  size_t settled_pages = 0;

  // Scratch buffers reused across pages.
  std::vector<uint8_t> levels_buf;
  std::vector<uint8_t> values_buf;
  std::vector<uint8_t> body_buf;
  std::vector<uint8_t> compressed_buf;
  std::vector<uint8_t> header_buf;

  State(const ColumnDescriptor& c, const WriterOptions& o)
      : column(c),
        options(o),
        values(ValueBuffer::for_type(c.physical, c.type_length)),
        page_stats(c),
        dictionary(c.physical, c.physical == PhysicalType::FIXED_LEN_BYTE_ARRAY
                                   ? c.type_length
                                   : fixed_width(c.physical)),
        chunk_stats(c) {}
  ~State() {
    for (const auto& p : pending) wait(*p);  // a task must not outlive its page
  }
  State(const State&) = delete;
  State& operator=(const State&) = delete;

  static void wait(PendingPage& p) {
    std::unique_lock<std::mutex> lock(p.mutex);
    p.finished.wait(lock, [&] { return p.done; });
  }

  // Emits the oldest page being compressed once it is (rethrowing a compression error).
  void drain_one() {
    PendingPage& p = *pending.front();
    wait(p);
    if (p.error) {
      const std::exception_ptr error = p.error;
      pending.pop_front();
      std::rethrow_exception(error);
    }
    emit_data_page(p.header, std::move(p.page), p.stored, p.uncompressed_body);
    pending.pop_front();
  }

  // Emits the pages being compressed, in order, once each is.
  void drain() {
    while (!pending.empty()) drain_one();
  }

  static constexpr size_t kMaxPendingPages = 8;

  // A page was closed: it counts at an estimate until two settle() calls later.
  void note_closed(size_t uncompressed_body) {
    constexpr size_t kHeaderEstimate = 32;
    recent.push_back(Recent{epoch, uncompressed_body + kHeaderEstimate});
    recent_estimate += recent.back().estimate;
  }

  void settle() {
    ++epoch;
    while (!recent.empty() && recent.front().epoch + 2 <= epoch) {
      if (settled_pages == chunk.pages.size()) drain_one();  // the page is still pending
      settled_bytes += static_cast<size_t>(chunk.pages[settled_pages].size);
      ++settled_pages;
      recent_estimate -= recent.front().estimate;
      recent.pop_front();
    }
  }

  void note_encoding(Encoding e) {
    if (std::find(encodings.begin(), encodings.end(), e) == encodings.end()) {
      encodings.push_back(e);
    }
  }

  void count_page(PageType type, Encoding encoding) {
    for (PageEncodingStats& s : chunk.meta.encoding_stats) {
      if (s.page_type == type && s.encoding == encoding) {
        ++s.count;
        return;
      }
    }
    chunk.meta.encoding_stats.push_back(PageEncodingStats{type, encoding, 1});
  }

  [[nodiscard]] bool page_full() const {
    return page_rows >= options.page_rows || page_estimate >= options.page_bytes;
  }

  [[nodiscard]] size_t value_size(const ValueBuffer& v, size_t i) const {
    if (v.is_binary()) return 4 + static_cast<size_t>(v.offsets[i + 1] - v.offsets[i]);
    return static_cast<size_t>(v.width);
  }

  void append(const ColumnBatch& batch, size_t level_begin, size_t level_end, size_t value_begin,
              size_t value_end, size_t rows, size_t estimate) {
    if (column.max_def > 0) {
      def_levels.insert(def_levels.end(), batch.def_levels.begin() + level_begin,
                        batch.def_levels.begin() + level_end);
    }
    if (column.max_rep > 0) {
      rep_levels.insert(rep_levels.end(), batch.rep_levels.begin() + level_begin,
                        batch.rep_levels.begin() + level_end);
    }
    size_t levels = level_end - level_begin;
    size_t nulls = levels - (value_end - value_begin);
    page_levels += levels;
    page_rows += rows;
    page_nulls += nulls;
    page_estimate += estimate;
    page_stats.update(batch.values, value_begin, value_end);
    page_stats.update_nulls(static_cast<int64_t>(nulls));

    const ValueBuffer& v = batch.values;
    if (mode == Mode::DICTIONARY) {
      for (size_t i = value_begin; i < value_end; ++i) indices.push_back(dictionary.insert(v, i));
      dictionary_used = true;
    } else if (v.is_binary()) {
      uint64_t from = v.offsets[value_begin];
      uint64_t to = v.offsets[value_end];
      uint64_t base = values.data.size();
      // One memcpy: the vector's own insert copies byte by byte through UninitAllocator.
      append_uninit(values.data, v.data.data() + from, to - from);
      for (size_t i = value_begin; i < value_end; ++i) {
        values.offsets.push_back(base + v.offsets[i + 1] - from);
      }
      values.count += value_end - value_begin;
    } else {
      size_t w = static_cast<size_t>(v.width);
      append_uninit(values.data, v.data.data() + value_begin * w, (value_end - value_begin) * w);
      values.count += value_end - value_begin;
    }
  }

  // Appends the open page's values, encoded, to `out` and returns their encoding.
  Encoding encode_values(std::vector<uint8_t>& out) {
    switch (mode) {
      case Mode::DICTIONARY:
        encode_dictionary_indices(indices, dictionary.size(), out);
        return Encoding::RLE_DICTIONARY;
      case Mode::DELTA:
        if (values.is_binary()) {
          encode_delta_length_byte_array(values, 0, values.count, out);
          return Encoding::DELTA_LENGTH_BYTE_ARRAY;
        }
        encode_delta_binary_packed(values, 0, values.count, out);
        return Encoding::DELTA_BINARY_PACKED;
      case Mode::PLAIN:
        if (column.physical == PhysicalType::BOOLEAN && options.page_version == 2) {
          encode_boolean_rle(values, 0, values.count, out);
          return Encoding::RLE;
        }
        encode_plain(values, 0, values.count, out);
        return Encoding::PLAIN;
    }
    return Encoding::PLAIN;
  }

  // Appends header + body to `out` and returns the page's total size.
  size_t emit_page(PageHeader& header, std::span<const uint8_t> body, size_t uncompressed_body,
                   std::vector<uint8_t>& out) {
    header.compressed_page_size = checked_page_size(body.size(), column);
    header.uncompressed_page_size = checked_page_size(uncompressed_body, column);
    if (options.page_checksums) {
      uLong crc = ::crc32(0L, Z_NULL, 0);
      // zlib takes uInt lengths: feed the body in pieces.
      size_t done = 0;
      while (done < body.size()) {
        size_t n = std::min<size_t>(body.size() - done, size_t{1} << 30);
        crc = ::crc32(crc, body.data() + done, static_cast<uInt>(n));
        done += n;
      }
      header.crc = static_cast<int32_t>(static_cast<uint32_t>(crc));
    }
    header_buf.clear();
    encode_page_header(header, header_buf);
    reserve_for_append(out, header_buf.size() + body.size());
    out.insert(out.end(), header_buf.begin(), header_buf.end());
    out.insert(out.end(), body.begin(), body.end());
    uncompressed_bytes += static_cast<int64_t>(header_buf.size() + uncompressed_body);
    return header_buf.size() + body.size();
  }

  // Places a data page at the end of the chunk.
  void emit_data_page(PageHeader& header, EncodedChunk::Page page, std::span<const uint8_t> stored,
                      size_t uncompressed_body) {
    if (chunk.data_pages.empty() && last_data_bytes > 0) {
      // Room for a chunk like the last one (and an eighth more): growing by doubling copied a
      // chunk of code several times over, into storage faulted in afresh. A chunk of code is
      // above malloc's mmap threshold: mapped anew every row group, it was faulted in 4 KiB at a
      // time (a tenth of dedup's calling thread), so it asks for huge pages.
      chunk.data_pages.reserve(last_data_bytes + last_data_bytes / 8);
      advise_huge_pages(chunk.data_pages.data(), chunk.data_pages.capacity());
    }
    page.offset = chunk.data_pages.size();
    page.size =
        checked_page_size(emit_page(header, stored, uncompressed_body, chunk.data_pages), column);
    chunk.pages.push_back(std::move(page));
  }

  void flush_page() {
    if (page_levels == 0) return;
    levels_buf.clear();
    body_buf.clear();
    values_buf.clear();
    compressed_buf.clear();
    Encoding encoding = Encoding::PLAIN;
    PageHeader header;
    size_t uncompressed_body = 0;
    // The page body as stored: compressed_buf, or body_buf itself when nothing is compressed (a
    // page of one huge value is then not copied again); or, with a pool, what `later` holds once
    // the pool has compressed it.
    std::span<const uint8_t> stored;
    std::unique_ptr<PendingPage> later;
    if (options.page_version == 1) {
      if (column.max_rep > 0) {
        encode_levels(rep_levels, column.max_rep, levels_buf);
        put_u32_le(static_cast<uint32_t>(levels_buf.size()), body_buf);
        body_buf.insert(body_buf.end(), levels_buf.begin(), levels_buf.end());
        levels_buf.clear();
      }
      if (column.max_def > 0) {
        encode_levels(def_levels, column.max_def, levels_buf);
        put_u32_le(static_cast<uint32_t>(levels_buf.size()), body_buf);
        body_buf.insert(body_buf.end(), levels_buf.begin(), levels_buf.end());
      }
      encoding = encode_values(body_buf);
      uncompressed_body = body_buf.size();
      if (options.codec == Codec::UNCOMPRESSED) {
        stored = body_buf;
      } else if (pool != nullptr) {
        later = std::make_unique<PendingPage>();
        later->input = std::move(body_buf);
        body_buf.clear();
      } else {
        compress(options.codec, level, body_buf, compressed_buf);
        stored = compressed_buf;
      }
      header.type = PageType::DATA_PAGE;
      DataPageHeader data;
      data.num_values = static_cast<int32_t>(page_levels);
      data.encoding = encoding;
      data.definition_level_encoding = Encoding::RLE;
      data.repetition_level_encoding = Encoding::RLE;
      header.data_page_header = data;
    } else {
      DataPageHeaderV2 data;
      if (column.max_rep > 0) encode_levels(rep_levels, column.max_rep, levels_buf);
      data.repetition_levels_byte_length = static_cast<int32_t>(levels_buf.size());
      if (column.max_def > 0) encode_levels(def_levels, column.max_def, levels_buf);
      data.definition_levels_byte_length =
          static_cast<int32_t>(levels_buf.size()) - data.repetition_levels_byte_length;
      body_buf.assign(levels_buf.begin(), levels_buf.end());
      data.is_compressed = options.codec != Codec::UNCOMPRESSED;
      if (data.is_compressed) {
        encoding = encode_values(values_buf);
        uncompressed_body = levels_buf.size() + values_buf.size();
        if (pool != nullptr) {
          later = std::make_unique<PendingPage>();
          later->input = std::move(values_buf);
          later->stored = std::move(body_buf);  // the levels
          values_buf.clear();
          body_buf.clear();
        } else {
          compress(options.codec, level, values_buf, body_buf);
        }
      } else {
        encoding = encode_values(body_buf);
        uncompressed_body = body_buf.size();
      }
      stored = body_buf;
      header.type = PageType::DATA_PAGE_V2;
      data.num_values = static_cast<int32_t>(page_levels);
      data.num_nulls = static_cast<int32_t>(page_nulls);
      data.num_rows = static_cast<int32_t>(page_rows);
      data.encoding = encoding;
      header.data_page_header_v2 = data;
    }
    note_encoding(encoding);
    note_encoding(Encoding::RLE);  // levels (and RLE booleans)
    count_page(header.type, encoding);

    EncodedChunk::Page page;
    page.first_row = chunk_rows;
    page.null_count = static_cast<int64_t>(page_nulls);
    page.has_values = page_levels > page_nulls;
    page.has_bounds = page_stats.has_min_max();
    if (page.has_bounds) {
      page.min = page_stats.min();
      page.max = page_stats.max();
      if (bounds_are_bytewise(column)) {
        page.min = truncated_lower_bound(page.min);
        page.max = truncated_upper_bound(page.max);
      }
    }
    if (later) {
      // Memory: at most kMaxPendingPages wait for the pool (the oldest is emitted first, which
      // changes nothing of what buffered_bytes() counts).
      while (pending.size() >= kMaxPendingPages) drain_one();
      later->header = header;
      later->page = std::move(page);
      later->uncompressed_body = uncompressed_body;
      PendingPage* p = later.get();
      pending.push_back(std::move(later));
      note_closed(uncompressed_body);
      pool->submit([p, codec = options.codec, level = level] {
        std::exception_ptr error;
        try {
          compress(codec, level, p->input, p->stored);
        } catch (...) {
          error = std::current_exception();
        }
        p->input = {};
        std::lock_guard<std::mutex> lock(p->mutex);
        p->error = error;
        p->done = true;
        p->finished.notify_all();
      });
    } else {
      emit_data_page(header, std::move(page), stored,
                     uncompressed_body);  // (no pool: none pending)
      note_closed(uncompressed_body);
    }

    chunk_rows += static_cast<int64_t>(page_rows);
    chunk_levels += static_cast<int64_t>(page_levels);
    chunk_stats.merge(page_stats);
    page_stats.reset();
    def_levels.clear();
    rep_levels.clear();
    values.clear();
    indices.clear();
    page_levels = page_rows = page_nulls = page_estimate = 0;
    // Pages are about page_bytes; a page of a huge value leaves huge buffers: give them back.
    release_if_oversized(values.data);
    for (std::vector<uint8_t>* buffer : {&levels_buf, &values_buf, &body_buf, &compressed_buf}) {
      release_if_oversized(*buffer);
    }

    // The dictionary grew past its limit: the rest of the chunk is PLAIN.
    if (mode == Mode::DICTIONARY && dictionary.plain_size() > options.dictionary_page_bytes) {
      mode = Mode::PLAIN;
    }
  }

  void write_dictionary_page() {
    values_buf.clear();
    dictionary.encode_dictionary(values_buf);
    compressed_buf.clear();
    compress(options.codec, level, values_buf, compressed_buf);
    PageHeader header;
    header.type = PageType::DICTIONARY_PAGE;
    DictionaryPageHeader dict;
    dict.num_values = static_cast<int32_t>(dictionary.size());
    dict.encoding = Encoding::PLAIN;
    header.dictionary_page_header = dict;
    emit_page(header, compressed_buf, values_buf.size(), chunk.dictionary_page);
    count_page(PageType::DICTIONARY_PAGE, Encoding::PLAIN);
    release_if_oversized(values_buf);
    release_if_oversized(compressed_buf);
  }
};

ColumnWriter::ColumnWriter(const ColumnDescriptor& column, const WriterOptions& options,
                           ThreadPool* pool) {
  if (options.page_version != 1 && options.page_version != 2) {
    throw UsageError("page version must be 1 or 2, not " + std::to_string(options.page_version));
  }
  state_ = std::make_unique<State>(column, options);
  State& s = *state_;
  if (options.codec != Codec::UNCOMPRESSED) s.pool = pool;
  if (std::optional<CompressionLevels> levels = compression_levels(options.codec)) {
    s.level = options.level.value_or(levels->default_level);
    if (s.level < levels->min || s.level > levels->max) {
      throw UsageError(std::string("compression level ") + std::to_string(s.level) +
                       " is out of range for " + to_string(options.codec) + " (" +
                       std::to_string(levels->min) + ".." + std::to_string(levels->max) + ")");
    }
  }
  s.initial = initial_mode(column, options.encoding);
  s.mode = s.initial;
  s.level_cost_bits = static_cast<size_t>(bit_width_for(static_cast<uint64_t>(column.max_def)) +
                                          bit_width_for(static_cast<uint64_t>(column.max_rep)));
}

ColumnWriter::~ColumnWriter() = default;

size_t ColumnWriter::write(const ColumnBatch& batch, size_t level_begin, size_t level_end,
                           size_t value_begin) {
  State& s = *state_;
  const bool repeated = s.column.max_rep > 0;
  const bool has_def = s.column.max_def > 0;
  const auto max_def = static_cast<int16_t>(s.column.max_def);
  size_t i = level_begin;
  size_t vi = value_begin;
  while (i < level_end) {
    if (s.page_full()) s.flush_page();
    // Take records while the page has room; the first record is always taken.
    size_t j = i;
    size_t vj = vi;
    size_t rows = s.page_rows;
    size_t estimate = s.page_estimate;
    size_t level_bits = 0;
    while (j < level_end) {
      if (!repeated || batch.rep_levels[j] == 0) {
        if (j > i && (rows >= s.options.page_rows || estimate >= s.options.page_bytes)) break;
        ++rows;
      }
      if (!has_def || batch.def_levels[j] == max_def) {
        estimate += s.value_size(batch.values, vj);
        ++vj;
      }
      level_bits += s.level_cost_bits;
      if (level_bits >= 8) {
        estimate += level_bits / 8;
        level_bits %= 8;
      }
      ++j;
    }
    s.append(batch, i, j, vi, vj, rows - s.page_rows, estimate - s.page_estimate);
    i = j;
    vi = vj;
    if (s.page_full()) s.flush_page();
    if (s.mode == Mode::DICTIONARY && s.dictionary.plain_size() > s.options.dictionary_page_bytes) {
      s.flush_page();  // the page ends here, at a record boundary; the next ones are PLAIN
    }
  }
  return vi;
}

void ColumnWriter::settle() { state_->settle(); }

size_t ColumnWriter::buffered_bytes() const {
  const State& s = *state_;
  return s.settled_bytes + s.recent_estimate + s.page_estimate +
         (s.dictionary_used ? s.dictionary.plain_size() : 0);
}

EncodedChunk ColumnWriter::finish() {
  State& s = *state_;
  s.flush_page();
  s.drain();
  if (s.dictionary_used) s.write_dictionary_page();

  s.last_data_bytes = s.chunk.data_pages.size();
  EncodedChunk chunk = std::move(s.chunk);
  ColumnMetaData& meta = chunk.meta;
  meta.type = s.column.physical;
  meta.path_in_schema = s.column.path;
  meta.codec = s.options.codec;
  meta.num_values = s.chunk_levels;
  // Encodings in a stable order: the dictionary page's PLAIN first when there is one.
  if (s.dictionary_used) meta.encodings.push_back(Encoding::PLAIN);
  for (Encoding e : s.encodings) {
    if (std::find(meta.encodings.begin(), meta.encodings.end(), e) == meta.encodings.end()) {
      meta.encodings.push_back(e);
    }
  }
  meta.total_uncompressed_size = s.uncompressed_bytes;
  meta.total_compressed_size =
      static_cast<int64_t>(chunk.dictionary_page.size() + chunk.data_pages.size());
  // Footer statistics are exact; a min or max longer than kMaxExactStatisticsBytes is left out
  // rather than truncated, as parquet-cpp does, so the footer of a file of large strings stays
  // small (the collector keeps no such value whole, except a max whose prefix is all 0xFF bytes).
  Statistics stats = s.chunk_stats.to_thrift();
  if ((stats.min_value && stats.min_value->size() > kMaxExactStatisticsBytes) ||
      (stats.max_value && stats.max_value->size() > kMaxExactStatisticsBytes)) {
    stats.min_value.reset();
    stats.max_value.reset();
    stats.is_min_value_exact.reset();
    stats.is_max_value_exact.reset();
  }
  meta.statistics = stats;

  // A page with values but no bounds (only NaNs) cannot be described either, as parquet-cpp
  // also decides: the chunk then has no ColumnIndex.
  chunk.has_column_index = sort_order(s.column) != SortOrder::UNDEFINED;
  for (const EncodedChunk::Page& page : chunk.pages) {
    if (page.has_values && !page.has_bounds) chunk.has_column_index = false;
  }
  if (chunk.has_column_index) {
    // ASCENDING / DESCENDING when the bounds of the non-null pages are ordered so.
    bool ascending = true;
    bool descending = true;
    const EncodedChunk::Page* previous = nullptr;
    for (const EncodedChunk::Page& page : chunk.pages) {
      if (!page.has_values) continue;
      if (previous != nullptr) {
        int min_cmp = compare_values(s.column, previous->min, page.min);
        int max_cmp = compare_values(s.column, previous->max, page.max);
        if (min_cmp > 0 || max_cmp > 0) ascending = false;
        if (min_cmp < 0 || max_cmp < 0) descending = false;
      }
      previous = &page;
    }
    chunk.boundary_order = ascending    ? BoundaryOrder::ASCENDING
                           : descending ? BoundaryOrder::DESCENDING
                                        : BoundaryOrder::UNORDERED;
  }

  // Reset for the next row group.
  s.chunk = EncodedChunk{};
  s.dictionary.clear();
  s.dictionary_used = false;
  s.mode = s.initial;
  s.chunk_rows = 0;
  s.chunk_levels = 0;
  s.uncompressed_bytes = 0;
  s.chunk_stats.reset();
  s.encodings.clear();
  s.recent.clear();
  s.recent_estimate = s.settled_bytes = s.settled_pages = 0;
  return chunk;
}

}  // namespace kbdata::parquet
