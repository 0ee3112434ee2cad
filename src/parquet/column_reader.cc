#include "parquet/column_reader.h"

#include <algorithm>
#include <optional>
#include <string>

#include "common/error.h"
#include "common/file.h"
#include "parquet/encoding/boolean_rle_decoder.h"
#include "parquet/encoding/decoder.h"
#include "parquet/encoding/dictionary_decoder.h"
#include "parquet/encoding/level_decoder.h"
#include "parquet/encoding/plain_decoder.h"
#include "parquet/metadata.h"
#include "parquet/page_reader.h"

namespace kbdata::parquet {
namespace {

[[noreturn]] void fail(const std::string& message) { throw FormatError(message); }

// Where a chunk's pages start: the dictionary page when there is one. Some writers store 0 for
// "no dictionary page", so only an offset inside the file's body counts; some (parquet-cpp 1.5,
// Arrow on empty chunks) store a data_page_offset of 0 beside a valid dictionary offset.
int64_t chunk_start(const ColumnMetaData& meta) {
  constexpr int64_t kFirstPageOffset = 4;  // after the magic
  if (meta.dictionary_page_offset && *meta.dictionary_page_offset >= kFirstPageOffset &&
      (*meta.dictionary_page_offset < meta.data_page_offset ||
       meta.data_page_offset < kFirstPageOffset)) {
    return *meta.dictionary_page_offset;
  }
  return meta.data_page_offset;
}

// The chunk's length, with `padding` bytes added but never past the end of the file.
int64_t chunk_length(const ColumnMetaData& meta, int64_t padding, uint64_t file_size) {
  int64_t start = chunk_start(meta);
  int64_t length = meta.total_compressed_size;
  if (padding > 0 && start >= 0 && length >= 0 &&
      static_cast<uint64_t>(start) + static_cast<uint64_t>(length) < file_size) {
    uint64_t room = file_size - static_cast<uint64_t>(start) - static_cast<uint64_t>(length);
    length += static_cast<int64_t>(std::min<uint64_t>(room, static_cast<uint64_t>(padding)));
  }
  return length;
}

}  // namespace

struct ColumnReader::State {
  State(RandomAccessFile& file, const ColumnMetaData& meta, int64_t padding)
      : pages(file, chunk_start(meta), chunk_length(meta, padding, file.size()), meta.codec) {
    if (padding > 0) level_limit = meta.num_values;
  }

  PageReader pages;
  std::unique_ptr<ValueDecoder> plain;
  std::unique_ptr<ValueDecoder> dictionary;
  std::unique_ptr<ValueDecoder> boolean_rle;
  ValueDecoder* current = nullptr;  // one of the above, for the current page
  LevelDecoder def_levels;
  LevelDecoder rep_levels;
  size_t page_levels_left = 0;  // level entries of the current page not yet read
  // Repeated columns only: the current page's repetition levels, decoded when the page starts so
  // that read_records() can look ahead for the next record's start; rep_pos is the next unread.
  std::vector<int16_t> page_rep;
  size_t rep_pos = 0;
  bool started = false;  // a level entry of this chunk has been consumed
  int64_t page_offset = 0;  // file offset of the current page, for errors
  // With padding, the chunk's byte range may reach into the next chunk: stop after this many
  // level entries (num_values) instead of at the end of the range.
  std::optional<int64_t> level_limit;
  int64_t levels_in_pages = 0;  // level entries of the data pages started so far
  ColumnBatch scratch;  // for skip()
};

ColumnReader::ColumnReader(RandomAccessFile& file, const ColumnChunk& chunk,
                           const ColumnDescriptor& column, int row_group,
                           int64_t chunk_padding)
    : column_(column), row_group_(row_group) {
  try {
    if (chunk.has_crypto_metadata || chunk.has_encrypted_column_metadata) {
      throw UnsupportedError("encrypted Parquet files are not supported");
    }
    if (chunk.file_path && !chunk.file_path->empty()) {
      throw UnsupportedError("column chunk stored in another file ('" + *chunk.file_path +
                             "') is not supported");
    }
    if (!chunk.meta_data) fail("column chunk has no metadata");
    const ColumnMetaData& meta = *chunk.meta_data;
    if (meta.type != column.physical) {
      fail(std::string("column chunk type ") + to_string(meta.type) +
           " differs from the schema's " + to_string(column.physical));
    }
    state_ = std::make_unique<State>(file, meta, chunk_padding);
    state_->plain = make_plain_decoder(column.physical, column.type_length);
    state_->scratch.values = ValueBuffer::for_type(column.physical, column.type_length);
  } catch (Error& error) {
    error.locate_column(column.dotted_path);
    error.locate_row_group(row_group);
    error.locate_file(file.name());
    throw;
  }
  file_name_ = file.name();
}

ColumnReader::~ColumnReader() = default;

bool ColumnReader::next_data_page() {
  State& s = *state_;
  for (;;) {
    if (s.level_limit && s.levels_in_pages >= *s.level_limit) return false;
    std::optional<Page> page = s.pages.next();
    if (!page) return false;
    s.page_offset = page->offset;
    const PageHeader& h = page->header;
    std::span<const uint8_t> body = page->body;

    if (h.type == PageType::DICTIONARY_PAGE) {
      if (!h.dictionary_page_header) fail("DICTIONARY_PAGE without its header");
      const DictionaryPageHeader& d = *h.dictionary_page_header;
      if (d.num_values < 0) fail("dictionary page has a negative number of values");
      if (d.encoding != Encoding::PLAIN && d.encoding != Encoding::PLAIN_DICTIONARY) {
        throw UnsupportedError(std::string("dictionary page encoding ") + to_string(d.encoding) +
                               " is not supported");
      }
      ValueBuffer dictionary = ValueBuffer::for_type(column_.physical, column_.type_length);
      auto decoder = make_plain_decoder(column_.physical, column_.type_length);
      decoder->set_data(body, static_cast<size_t>(d.num_values));
      decoder->decode(static_cast<size_t>(d.num_values), dictionary);
      s.dictionary = std::make_unique<DictionaryDecoder>(std::move(dictionary));
      continue;
    }

    Encoding encoding;
    size_t num_values;
    std::span<const uint8_t> values;
    if (h.type == PageType::DATA_PAGE) {
      if (!h.data_page_header) fail("DATA_PAGE without its header");
      const DataPageHeader& d = *h.data_page_header;
      if (d.num_values < 0) fail("data page has a negative number of values");
      num_values = static_cast<size_t>(d.num_values);
      encoding = d.encoding;
      size_t used = 0;
      if (column_.max_rep > 0) {
        used += s.rep_levels.set_data_v1(d.repetition_level_encoding, column_.max_rep, body,
                                         num_values);
      }
      if (column_.max_def > 0) {
        used += s.def_levels.set_data_v1(d.definition_level_encoding, column_.max_def,
                                         body.subspan(used), num_values);
      }
      values = body.subspan(used);
    } else {
      if (!h.data_page_header_v2) fail("DATA_PAGE_V2 without its header");
      const DataPageHeaderV2& d = *h.data_page_header_v2;
      if (d.num_values < 0 || d.num_nulls < 0 || d.num_nulls > d.num_values) {
        fail("DATA_PAGE_V2 has invalid value counts (" + std::to_string(d.num_values) +
             " values, " + std::to_string(d.num_nulls) + " nulls)");
      }
      num_values = static_cast<size_t>(d.num_values);
      encoding = d.encoding;
      size_t rep_bytes = static_cast<size_t>(d.repetition_levels_byte_length);
      size_t def_bytes = static_cast<size_t>(d.definition_levels_byte_length);
      if (column_.max_rep > 0) s.rep_levels.set_data_v2(column_.max_rep, body.first(rep_bytes));
      if (column_.max_def > 0) {
        s.def_levels.set_data_v2(column_.max_def, body.subspan(rep_bytes, def_bytes));
      }
      values = body.subspan(rep_bytes + def_bytes);
    }
    if (num_values == 0) continue;

    switch (encoding) {
      case Encoding::PLAIN:
        s.current = s.plain.get();
        break;
      case Encoding::PLAIN_DICTIONARY:
      case Encoding::RLE_DICTIONARY:
        if (!s.dictionary) fail("dictionary-encoded page, but the chunk has no dictionary page");
        s.current = s.dictionary.get();
        break;
      case Encoding::RLE:
        if (column_.physical != PhysicalType::BOOLEAN) {
          fail("RLE value encoding on a non-BOOLEAN column");
        }
        if (!s.boolean_rle) s.boolean_rle = std::make_unique<BooleanRleDecoder>();
        s.current = s.boolean_rle.get();
        break;
      default:
        throw UnsupportedError(std::string("value encoding ") + to_string(encoding) +
                               " is not supported yet");
    }
    s.current->set_data(values, num_values);
    if (column_.max_rep > 0) {
      if (num_values > kMaxRepeatedPageLevels) {
        fail("page of a repeated column declares " + std::to_string(num_values) +
             " values, more than the limit of " + std::to_string(kMaxRepeatedPageLevels));
      }
      s.page_rep.resize(num_values);
      s.rep_levels.decode(num_values, s.page_rep.data());
      s.rep_pos = 0;
    }
    s.page_levels_left = num_values;
    s.levels_in_pages += static_cast<int64_t>(num_values);
    return true;
  }
}

void ColumnReader::start_batch(ColumnBatch& out) const {
  out.clear();
  out.values.type = column_.physical;
  out.values.width = column_.physical == PhysicalType::FIXED_LEN_BYTE_ARRAY
                         ? column_.type_length
                         : fixed_width(column_.physical);
}

void ColumnReader::consume(size_t n, ColumnBatch& out) {
  State& s = *state_;
  if (column_.max_rep > 0) {
    if (!s.started && n > 0 && s.page_rep[s.rep_pos] != 0) {
      fail("the column's first repetition level is " + std::to_string(s.page_rep[s.rep_pos]) +
           ", not 0");
    }
    out.rep_levels.insert(out.rep_levels.end(), s.page_rep.begin() + static_cast<long>(s.rep_pos),
                          s.page_rep.begin() + static_cast<long>(s.rep_pos + n));
    s.rep_pos += n;
  }
  size_t present = n;
  if (column_.max_def > 0) {
    out.def_levels.resize(out.num_levels + n);
    int16_t* levels = out.def_levels.data() + out.num_levels;
    s.def_levels.decode(n, levels);
    present = static_cast<size_t>(
        std::count(levels, levels + n, static_cast<int16_t>(column_.max_def)));
  }
  s.current->decode(present, out.values);
  s.page_levels_left -= n;
  out.num_levels += n;
  s.started = s.started || n > 0;
}

size_t ColumnReader::read_into(size_t max_levels, ColumnBatch& out) {
  State& s = *state_;
  start_batch(out);
  while (out.num_levels < max_levels) {
    if (s.page_levels_left == 0 && !next_data_page()) break;
    consume(std::min(max_levels - out.num_levels, s.page_levels_left), out);
  }
  return out.num_levels;
}

size_t ColumnReader::read_records_into(size_t max_records, ColumnBatch& out) {
  State& s = *state_;
  start_batch(out);
  if (column_.max_rep == 0) return read_into(max_records, out);
  size_t records = 0;
  for (;;) {
    if (s.page_levels_left == 0 && !next_data_page()) break;
    size_t begin = s.rep_pos;
    size_t end = begin + s.page_levels_left;
    size_t i = begin;
    for (; i < end; ++i) {
      if (s.page_rep[i] == 0) {
        if (records == max_records) break;  // the next record starts here: leave it
        ++records;
      }
    }
    consume(i - begin, out);
    if (i < end) break;
  }
  return records;
}

size_t ColumnReader::read_batch(size_t max_levels, ColumnBatch& out) {
  try {
    return read_into(max_levels, out);
  } catch (Error& error) {
    locate(error);
    throw;
  }
}

size_t ColumnReader::read_records(size_t max_records, ColumnBatch& out) {
  try {
    return read_records_into(max_records, out);
  } catch (Error& error) {
    locate(error);
    throw;
  }
}

void ColumnReader::locate(Error& error) const {
  error.locate_offset(state_->page_offset);
  error.locate_column(column_.dotted_path);
  error.locate_row_group(row_group_);
  error.locate_file(file_name_);
}

size_t ColumnReader::skip(size_t n) {
  size_t skipped = 0;
  while (skipped < n) {
    size_t got = read_records(std::min<size_t>(n - skipped, 4096), state_->scratch);
    if (got == 0) break;
    skipped += got;
  }
  return skipped;
}

}  // namespace kbdata::parquet
