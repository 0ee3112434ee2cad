#include "parquet/column_reader.h"

#include <algorithm>
#include <optional>
#include <string>

#include "common/error.h"
#include "common/file.h"
#include "parquet/encoding/decoder.h"
#include "parquet/encoding/dictionary_decoder.h"
#include "parquet/encoding/level_decoder.h"
#include "parquet/encoding/plain_decoder.h"
#include "parquet/encoding/value_decoders.h"
#include "parquet/metadata.h"
#include "parquet/page_index.h"
#include "parquet/page_reader.h"
#include "parquet/snappy_decoder.h"

namespace kbdata::parquet {
namespace {

[[noreturn]] void fail(const std::string& message) { throw FormatError(message); }

}  // namespace

void check_batch_values(const ColumnDescriptor& column, const ValueBuffer& values, size_t needed) {
  std::string problem;
  const int width = column.physical == PhysicalType::FIXED_LEN_BYTE_ARRAY
                        ? column.type_length
                        : fixed_width(column.physical);
  if (values.type != column.physical) {
    problem = "batch values have another physical type than the column";
  } else if (needed > values.count) {
    problem = "batch holds " + std::to_string(values.count) + " values for " +
              std::to_string(needed) + " non-null entries";
  } else if (values.is_binary()) {
    if (values.offsets.size() != values.count + 1 || values.offsets.back() > values.data.size()) {
      problem = "batch value offsets do not match the values";
    }
  } else if (values.width != width || width <= 0 ||
             values.data.size() < values.count * static_cast<size_t>(width)) {
    problem = "batch value bytes do not match the column's width";
  }
  if (!problem.empty()) {
    FormatError error(problem);
    error.locate_column(column.dotted_path);
    throw error;
  }
}

struct ColumnReader::State {
  State(RandomAccessFile& file, const ColumnMetaData& meta, int64_t padding)
      : pages(file, chunk_start(meta), chunk_length(meta, padding, file.size()), meta.codec) {
    if (padding > 0) level_limit = meta.num_values;
  }

  PageReader pages;
  // The non-dictionary decoders built so far, one per encoding met in this chunk (a chunk uses
  // one or two), reused from page to page.
  std::vector<std::pair<Encoding, std::unique_ptr<ValueDecoder>>> value_decoders;
  std::unique_ptr<DictionaryDecoder> dictionary;
  bool dictionary_given = false;    // use_dictionary(): the chunk's dictionary page is skipped
  ValueDecoder* current = nullptr;  // one of the above, for the current page
  LevelDecoder def_levels;
  LevelDecoder rep_levels;
  size_t page_levels_left = 0;  // level entries of the current page not yet read
  size_t page_value_bytes = 0;  // the current page's value section, in bytes
  // Repeated columns only: the current page's repetition levels, decoded when the page starts so
  // that read_records() can look ahead for the next record's start; rep_pos is the next unread.
  std::vector<int16_t> page_rep;
  size_t rep_pos = 0;
  bool started = false;     // a level entry of this chunk has been consumed
  int64_t page_offset = 0;  // file offset of the current page, for errors
  // With padding, the chunk's byte range may reach into the next chunk: stop after this many
  // level entries (num_values) instead of at the end of the range.
  std::optional<int64_t> level_limit;
  int64_t levels_in_pages = 0;  // level entries of the data pages started so far
  ColumnBatch scratch;          // for skip() and rows outside the selection
  ValueForm form = ValueForm::VALUES;
  ValueMeasure measure = nullptr;  // with ValueForm::MEASURES
  ValueBuffer measured;            // values decoded to be measured (decoders that need it)
  // Records (rows) whose first level entry has been consumed, or skipped with their page: the
  // index within the row group of the next record to start.
  int64_t records_started = 0;

  // The current page when it is streamed (PageReader::stream_pages_from): its snappy stream,
  // the decoder of its values and (DATA_PAGE) its levels, copied out of the stream.
  SnappyStream stream;
  StreamedByteArrayDecoder streamed_values;
  std::vector<uint8_t> stream_levels;
  bool streaming = false;
  int64_t pages_streamed = 0;        // streamed pages read to their end
  int64_t pages_streamed_whole = 0;  // of which decoded whole (a copy beyond the window)

  // Set by select_rows(): only the rows of `ranges` are returned.
  struct Selection {
    RowRanges ranges;
    size_t range = 0;                 // first range not yet finished
    std::vector<PageLocation> pages;  // from the OffsetIndex; empty: no page is skipped
    int64_t group_rows = 0;
    size_t next_page = 0;     // first page whose offset is at or after the reader's position
    bool discarding = false;  // the record being continued lies outside the ranges
  };
  std::optional<Selection> selection;
};

ColumnReader::ColumnReader(RandomAccessFile& file, const ColumnChunk& chunk,
                           const ColumnDescriptor& column, int row_group, int64_t chunk_padding)
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
    state_->scratch.values = ValueBuffer::for_type(column.physical, column.type_length);
    stream_pages_from(kStreamedPageBytes);
  } catch (Error& error) {
    error.locate_column(column.dotted_path);
    error.locate_row_group(row_group);
    error.locate_file(file.name());
    throw;
  }
  file_name_ = file.name();
}

void ColumnReader::set_value_form(ValueForm form) {
  if (form != ValueForm::VALUES && column_.max_rep > 0) {
    throw UsageError(
        "ColumnReader::set_value_form(): indices or levels only need a column "
        "without repetition ('" +
        column_.dotted_path + "' is repeated)");
  }
  if (form == ValueForm::MEASURES) {
    throw UsageError("ColumnReader::set_value_form(): use set_measure() for measures");
  }
  state_->form = form;
}

void ColumnReader::set_measure(ValueMeasure measure) {
  if (column_.physical != PhysicalType::BYTE_ARRAY || column_.max_rep > 0 || measure == nullptr) {
    throw UsageError(
        "ColumnReader::set_measure(): measures need a BYTE_ARRAY column without "
        "repetition ('" +
        column_.dotted_path + "')");
  }
  state_->form = ValueForm::MEASURES;
  state_->measure = measure;
  state_->measured = ValueBuffer::for_type(column_.physical, column_.type_length);
}

void ColumnReader::set_verify_checksums(bool on) { state_->pages.set_verify_checksums(on); }

void ColumnReader::stream_pages_from(size_t bytes) {
  const bool streamable = column_.physical == PhysicalType::BYTE_ARRAY && column_.max_rep == 0;
  state_->pages.stream_pages_from(streamable ? bytes : SIZE_MAX);
}

int64_t ColumnReader::pages_streamed() const { return state_->pages_streamed; }
int64_t ColumnReader::pages_streamed_whole() const { return state_->pages_streamed_whole; }

bool ColumnReader::start_streamed_page(const PageHeader& h, std::span<const uint8_t> body) {
  State& s = *state_;
  size_t num_values = 0;
  uint64_t values_at = 0;
  if (h.type == PageType::DATA_PAGE) {
    if (!h.data_page_header) fail("DATA_PAGE without its header");
    const DataPageHeader& d = *h.data_page_header;
    if (d.num_values < 0) fail("data page has a negative number of values");
    num_values = static_cast<size_t>(d.num_values);
    s.stream.start(body, static_cast<uint64_t>(h.uncompressed_page_size));
    // The definition levels lead the page: copied out of the stream, they are decoded as a whole
    // page's are.
    size_t level_bytes = 0;
    if (column_.max_def > 0) {
      const uint64_t page = s.stream.length();
      level_bytes =
          LevelDecoder::v1_bytes(d.definition_level_encoding, column_.max_def,
                                 s.stream.view(0, std::min<uint64_t>(page, 4)), page, num_values);
      const std::span<const uint8_t> levels = s.stream.view(0, level_bytes);
      s.stream_levels.assign(levels.begin(), levels.end());
      s.def_levels.set_data_v1(d.definition_level_encoding, column_.max_def, s.stream_levels,
                               num_values);
    }
    values_at = level_bytes;
  } else {
    if (!h.data_page_header_v2) fail("DATA_PAGE_V2 without its header");
    const DataPageHeaderV2& d = *h.data_page_header_v2;
    if (d.num_values < 0 || d.num_nulls < 0 || d.num_nulls > d.num_values) {
      fail("DATA_PAGE_V2 has invalid value counts (" + std::to_string(d.num_values) + " values, " +
           std::to_string(d.num_nulls) + " nulls)");
    }
    num_values = static_cast<size_t>(d.num_values);
    // PageReader checked that the level lengths fit the page.
    const auto rep_bytes = static_cast<size_t>(d.repetition_levels_byte_length);
    const auto def_bytes = static_cast<size_t>(d.definition_levels_byte_length);
    if (column_.max_def > 0) {
      s.def_levels.set_data_v2(column_.max_def, body.subspan(rep_bytes, def_bytes));
    }
    s.stream.start(body.subspan(rep_bytes + def_bytes),
                   static_cast<uint64_t>(h.uncompressed_page_size) - rep_bytes - def_bytes);
  }
  s.stream.release(values_at);
  if (num_values == 0) {
    s.stream.finish();
    return false;
  }
  s.streamed_values.set_stream(s.stream, values_at, num_values);
  s.current = &s.streamed_values;
  s.page_value_bytes = static_cast<size_t>(s.stream.length() - values_at);
  s.streaming = true;
  s.page_levels_left = num_values;
  s.levels_in_pages += static_cast<int64_t>(num_values);
  return true;
}

std::shared_ptr<const ValueBuffer> ColumnReader::read_dictionary() {
  State& s = *state_;
  if (s.started || s.page_levels_left > 0 || s.dictionary) {
    throw UsageError("ColumnReader::read_dictionary() called after reading began");
  }
  try {
    // next_data_page() decodes a leading dictionary page and stops at the first data page.
    if (!s.selection) next_data_page();
  } catch (Error& error) {
    locate(error);
    throw;
  }
  return s.dictionary ? s.dictionary->shared_dictionary() : nullptr;
}

void ColumnReader::use_dictionary(std::shared_ptr<const ValueBuffer> dictionary) {
  State& s = *state_;
  if (s.started || s.page_levels_left > 0) {
    throw UsageError("ColumnReader::use_dictionary() called after reading began");
  }
  if (!dictionary) return;
  s.dictionary = std::make_unique<DictionaryDecoder>(std::move(dictionary));
  s.dictionary_given = true;
}

ColumnReader::~ColumnReader() = default;

bool ColumnReader::next_data_page() {
  State& s = *state_;
  s.streaming = false;  // (a streamed page left before its end is not decoded further)
  for (;;) {
    if (s.level_limit && s.levels_in_pages >= *s.level_limit) return false;
    if (s.selection && !skip_to_selected_page()) return false;
    std::optional<Page> page = s.pages.next();
    if (!page) return false;
    s.page_offset = page->offset;
    const PageHeader& h = page->header;
    std::span<const uint8_t> body = page->body;
    if (page->streamed) {
      if (start_streamed_page(h, body)) return true;
      continue;
    }

    if (h.type == PageType::DICTIONARY_PAGE) {
      if (s.dictionary_given) continue;  // decoded once for the chunk (use_dictionary())
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
      case Encoding::PLAIN_DICTIONARY:
      case Encoding::RLE_DICTIONARY:
        if (!s.dictionary) fail("dictionary-encoded page, but the chunk has no dictionary page");
        s.current = s.dictionary.get();
        break;
      default: {
        auto cached = std::find_if(s.value_decoders.begin(), s.value_decoders.end(),
                                   [&](const auto& entry) { return entry.first == encoding; });
        if (cached == s.value_decoders.end()) {
          s.value_decoders.emplace_back(
              encoding, make_value_decoder(encoding, column_.physical, column_.type_length));
          cached = s.value_decoders.end() - 1;
        }
        s.current = cached->second.get();
        break;
      }
    }
    s.current->set_data(values, num_values);
    s.page_value_bytes = values.size();
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

size_t ColumnReader::take_levels(size_t n, ColumnBatch& out) {
  State& s = *state_;
  if (column_.max_rep > 0) {
    if (!s.started && n > 0 && s.page_rep[s.rep_pos] != 0) {
      fail("the column's first repetition level is " + std::to_string(s.page_rep[s.rep_pos]) +
           ", not 0");
    }
    out.rep_levels.insert(out.rep_levels.end(), s.page_rep.begin() + static_cast<long>(s.rep_pos),
                          s.page_rep.begin() + static_cast<long>(s.rep_pos + n));
    s.records_started += std::count(s.page_rep.begin() + static_cast<long>(s.rep_pos),
                                    s.page_rep.begin() + static_cast<long>(s.rep_pos + n), 0);
    s.rep_pos += n;
  } else {
    s.records_started += static_cast<int64_t>(n);
  }
  size_t present = n;
  if (column_.max_def > 0) {
    out.def_levels.resize(out.num_levels + n);
    int16_t* levels = out.def_levels.data() + out.num_levels;
    s.def_levels.decode(n, levels);
    present =
        static_cast<size_t>(std::count(levels, levels + n, static_cast<int16_t>(column_.max_def)));
  }
  s.page_levels_left -= n;
  out.num_levels += n;
  s.started = s.started || n > 0;
  return present;
}

void ColumnReader::consume(size_t n, ColumnBatch& out) {
  State& s = *state_;
  const size_t present = take_levels(n, out);
  if (s.form == ValueForm::NONE) {
    if (!s.current->skip(present)) {
      s.scratch.values.clear();
      s.current->decode(present, s.scratch.values);
    }
  } else if (s.form == ValueForm::INDICES && s.current == s.dictionary.get()) {
    s.dictionary->decode_indices(present, out.indices);
    if (!out.dictionary) out.dictionary = s.dictionary->shared_dictionary();
  } else if (s.form == ValueForm::MEASURES) {
    s.current->measure(present, s.measure, out.values, s.measured);
  } else {
    s.current->decode(present, out.values);
  }
  finish_streamed_page();
}

bool ColumnReader::form_changes(const ColumnBatch& out) const {
  const State& s = *state_;
  if (s.form != ValueForm::INDICES || out.num_levels == 0) return false;
  const bool page_indices = s.current == s.dictionary.get();
  return page_indices ? out.values.count > 0 : out.dictionary != nullptr;
}

void ColumnReader::discard(size_t n) {
  State& s = *state_;
  start_batch(s.scratch);
  size_t present = n;
  if (column_.max_rep == 0) {
    // A flat column's dropped levels are counted, not written out (as take_levels books them).
    if (column_.max_def > 0) present = s.def_levels.count(n, static_cast<int16_t>(column_.max_def));
    s.records_started += static_cast<int64_t>(n);
    s.page_levels_left -= n;
    s.started = s.started || n > 0;
  } else {
    present = take_levels(n, s.scratch);
  }
  if (!s.current->skip(present)) s.current->decode(present, s.scratch.values);
  finish_streamed_page();
}

void ColumnReader::finish_streamed_page() {
  State& s = *state_;
  if (!s.streaming || s.page_levels_left > 0) return;
  // A streamed page read to its end is decoded to its end, so that it is checked as a whole page
  // is (a stream holding more or fewer bytes than it declares is corrupt).
  s.streaming = false;
  s.stream.finish();
  ++s.pages_streamed;
  if (s.stream.whole()) ++s.pages_streamed_whole;
}

size_t ColumnReader::entries_within_cap(const ColumnBatch& out) const {
  const State& s = *state_;
  if (s.current == nullptr || !out.values.is_binary()) return SIZE_MAX;
  const size_t cap = DictionaryDecoder::kMaxBatchBytes;
  const size_t used = out.values.data.size();
  const size_t room = used < cap ? cap - used : 0;
  if (s.current == s.dictionary.get()) {
    const size_t largest = s.dictionary->max_value_bytes();
    return largest == 0 ? SIZE_MAX : room / largest;
  }
  // Other encodings copy their values out of the page (DELTA_BYTE_ARRAY caps its own output), so
  // the page's value bytes bound what it adds: a batch already holding values takes nothing from
  // a page that could take it past the cap.
  return used == 0 || s.page_value_bytes <= room ? SIZE_MAX : 0;
}

size_t ColumnReader::read_into(size_t max_levels, ColumnBatch& out) {
  State& s = *state_;
  start_batch(out);
  while (out.num_levels < max_levels) {
    if (s.page_levels_left == 0 && !next_data_page()) break;
    if (form_changes(out)) break;  // the next batch starts with this page's form
    size_t n = std::min(max_levels - out.num_levels, s.page_levels_left);
    const size_t fit = entries_within_cap(out);
    if (n > fit) {
      if (fit == 0 && out.num_levels > 0) break;  // full: the next batch starts here
      n = std::max<size_t>(fit, 1);  // an empty batch takes one entry, whatever its size
    }
    consume(n, out);
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
    if (entries_within_cap(out) < s.page_levels_left) {
      // The dictionary's largest value repeated over the rest of the page could pass the batch
      // cap: take one record (or the rest of one continuing from the last page) at a time, and
      // end the batch before a record that might not fit. The first record is always taken.
      size_t next = begin + 1;
      while (next < end && s.page_rep[next] != 0) ++next;
      if (s.page_rep[begin] == 0) {
        if (records == max_records || (records > 0 && next - begin > entries_within_cap(out))) {
          break;
        }
        ++records;
      }
      consume(next - begin, out);
      continue;
    }
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

void ColumnReader::select_rows(RowRanges ranges, const OffsetIndex* index, int64_t group_rows) {
  State& s = *state_;
  if (s.started || s.page_levels_left > 0) {
    throw UsageError("ColumnReader::select_rows() called after reading began");
  }
  State::Selection selection;
  selection.ranges = std::move(ranges);
  selection.group_rows = group_rows;
  if (index) selection.pages = index->page_locations;
  s.selection = std::move(selection);
}

bool ColumnReader::skip_to_selected_page() {
  State& s = *state_;
  State::Selection& sel = *s.selection;
  while (sel.range < sel.ranges.size() && sel.ranges[sel.range].end <= s.records_started) {
    ++sel.range;
  }
  if (sel.range == sel.ranges.size()) return false;  // every selected row has been read
  if (sel.pages.empty()) return true;
  const int64_t position = s.pages.position();
  auto& pages = sel.pages;
  while (sel.next_page < pages.size() && pages[sel.next_page].offset < position) ++sel.next_page;
  size_t k = sel.next_page;
  if (k == 0 && (pages.empty() || position < pages[0].offset)) {
    if (!s.dictionary_given) {
      // Before the first data page: the dictionary page. Read it, and read ahead no further than
      // the data pages that will be used.
      s.pages.limit_read_ahead(pages[0].offset);
      return true;
    }
    s.pages.seek(pages[0].offset);  // the dictionary is known: its page is not read
    return skip_to_selected_page();
  }
  if (k == pages.size() || pages[k].offset != position) {
    throw FormatError("the offset index lists no page at byte " + std::to_string(position));
  }
  auto page_end_row = [&](size_t i) {
    return i + 1 < pages.size() ? pages[i + 1].first_row_index : sel.group_rows;
  };
  // The page's records continue the one in progress only if it starts mid-record, which the
  // offset index forbids: a page outside every range is skipped whole.
  size_t range = sel.range;
  while (k < pages.size()) {
    while (range < sel.ranges.size() && sel.ranges[range].end <= pages[k].first_row_index) ++range;
    if (range == sel.ranges.size()) return false;
    if (sel.ranges[range].begin < page_end_row(k)) break;
    ++k;
  }
  if (k == pages.size()) return false;
  if (k != sel.next_page) {
    s.pages.seek(pages[k].offset);
    s.records_started = pages[k].first_row_index;
    sel.next_page = k;
  } else if (pages[k].first_row_index != s.records_started) {
    throw FormatError("the page at byte " + std::to_string(position) + " starts at row " +
                      std::to_string(s.records_started) + " but the offset index says row " +
                      std::to_string(pages[k].first_row_index));
  }
  // Read ahead over the run of consecutive pages that hold selected rows.
  size_t last = k;
  while (last + 1 < pages.size()) {
    size_t j = last + 1;
    while (range < sel.ranges.size() && sel.ranges[range].end <= pages[j].first_row_index) ++range;
    if (range == sel.ranges.size() || sel.ranges[range].begin >= page_end_row(j)) break;
    last = j;
  }
  s.pages.limit_read_ahead(pages[last].offset + pages[last].compressed_page_size);
  return true;
}

size_t ColumnReader::read_selected(size_t max_records, ColumnBatch& out) {
  State& s = *state_;
  State::Selection& sel = *s.selection;
  start_batch(out);
  size_t records = 0;
  for (;;) {
    if (s.page_levels_left == 0 && !next_data_page()) break;
    if (column_.max_rep > 0 && s.page_rep[s.rep_pos] != 0) {
      // Continuation entries of the record in progress: taken or dropped with it.
      size_t n = 1;
      while (n < s.page_levels_left && s.page_rep[s.rep_pos + n] != 0) ++n;
      if (sel.discarding) {
        discard(n);
      } else {
        consume(n, out);
      }
      continue;
    }
    while (sel.range < sel.ranges.size() && sel.ranges[sel.range].end <= s.records_started) {
      ++sel.range;
    }
    if (sel.range == sel.ranges.size()) break;
    const RowRange& r = sel.ranges[sel.range];
    bool discard = s.records_started < r.begin;
    if (!discard && records == max_records) break;
    size_t want =
        discard ? static_cast<size_t>(r.begin - s.records_started)
                : std::min(max_records - records, static_cast<size_t>(r.end - s.records_started));
    // Level entries of the next `want` records within the current page.
    size_t n = 0, starts = 0;
    if (column_.max_rep == 0) {
      n = starts = std::min(want, s.page_levels_left);
    } else {
      for (; n < s.page_levels_left; ++n) {
        if (s.page_rep[s.rep_pos + n] == 0) {
          if (starts == want) break;
          ++starts;
        }
      }
    }
    sel.discarding = discard;
    if (discard) {
      this->discard(n);
    } else {
      if (form_changes(out)) break;  // the next batch starts with this page's form
      consume(n, out);
      records += starts;
    }
  }
  return column_.max_rep == 0 ? out.num_levels : records;
}

size_t ColumnReader::read_batch(size_t max_levels, ColumnBatch& out) {
  try {
    if (state_->selection) return read_selected(max_levels, out);
    return read_into(max_levels, out);
  } catch (Error& error) {
    locate(error);
    throw;
  }
}

size_t ColumnReader::read_records(size_t max_records, ColumnBatch& out) {
  try {
    if (state_->selection) return read_selected(max_records, out);
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
  State& s = *state_;
  size_t skipped = 0;
  if (column_.max_rep == 0 && !s.selection) {
    // A flat column: each entry is a row; values are skipped without being produced.
    try {
      while (skipped < n) {
        if (s.page_levels_left == 0 && !next_data_page()) break;
        const size_t k = std::min(n - skipped, s.page_levels_left);
        discard(k);
        skipped += k;
      }
    } catch (Error& error) {
      locate(error);
      throw;
    }
    return skipped;
  }
  while (skipped < n) {
    size_t got = read_records(std::min<size_t>(n - skipped, 4096), state_->scratch);
    if (got == 0) break;
    skipped += got;
  }
  return skipped;
}

}  // namespace kbdata::parquet
