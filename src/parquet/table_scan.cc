#include "parquet/table_scan.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "common/error.h"
#include "common/file.h"
#include "common/thread_pool.h"
#include "parquet/file_reader.h"
#include "parquet/metadata.h"
#include "parquet/row_filter.h"

namespace kbdata::parquet {
namespace {

// Records decoded per call while a column is decoded whole (filter and resident steps).
constexpr size_t kWholeChunkRecords = 65536;

int64_t rows_in(const RowRanges& ranges) {
  int64_t n = 0;
  for (const RowRange& r : ranges) n += r.end - r.begin;
  return n;
}

bool covers(const RowRanges& ranges, int64_t group_rows) {
  return ranges.size() == 1 && ranges[0].begin == 0 && ranges[0].end == group_rows;
}

// Thrown by the resident step when the resident columns would pass resident_bytes: the row group
// is then read as one unit with every column streamed.
struct ResidentOverflow {};

// A position in a batch: the next level entry and the next value (non-null entries before it).
struct Cursor {
  size_t entry = 0;
  size_t value = 0;
};

// The level entries and values of `records` records from `at`, and the position after them.
struct Span {
  Cursor begin;
  Cursor end;
};

Span records_at(const ColumnBatch& b, const ColumnDescriptor& d, Cursor at, size_t records) {
  Span span{at, at};
  size_t end = at.entry;
  if (d.max_rep == 0) {
    end = at.entry + records;
  } else {
    size_t starts = 0;
    for (; end < b.num_levels; ++end) {
      if (b.rep_levels[end] == 0) {
        if (starts == records) break;
        ++starts;
      }
    }
  }
  end = std::min(end, b.num_levels);
  size_t values = end - at.entry;
  if (d.max_def > 0) {
    values = static_cast<size_t>(std::count(b.def_levels.begin() + static_cast<long>(at.entry),
                                            b.def_levels.begin() + static_cast<long>(end),
                                            static_cast<int16_t>(d.max_def)));
  }
  span.end = {end, at.value + values};
  return span;
}

// Appends the entries and values of `span` of `src` to `out` (same column).
void append_span(const ColumnBatch& src, const ColumnDescriptor& d, const Span& span,
                 ColumnBatch& out) {
  const size_t entries = span.end.entry - span.begin.entry;
  const size_t values = span.end.value - span.begin.value;
  const auto first = static_cast<long>(span.begin.entry);
  if (d.max_def > 0) {
    out.def_levels.insert(out.def_levels.end(), src.def_levels.begin() + first,
                          src.def_levels.begin() + first + static_cast<long>(entries));
  }
  if (d.max_rep > 0) {
    out.rep_levels.insert(out.rep_levels.end(), src.rep_levels.begin() + first,
                          src.rep_levels.begin() + first + static_cast<long>(entries));
  }
  out.num_levels += entries;
  const ValueBuffer& in = src.values;
  ValueBuffer& to = out.values;
  if (values > 0) {
    if (in.is_binary()) {
      const uint64_t from = in.offsets[span.begin.value];
      const uint64_t until = in.offsets[span.end.value];
      const uint64_t base = to.data.size();
      append_uninit(to.data, in.data.data() + from, static_cast<size_t>(until - from));
      const size_t old = to.offsets.size();
      to.offsets.resize(old + values);
      for (size_t i = 0; i < values; ++i) {
        to.offsets[old + i] = base + (in.offsets[span.begin.value + i + 1] - from);
      }
    } else {
      const auto width = static_cast<size_t>(in.width);
      append_uninit(to.data, in.data.data() + span.begin.value * width, values * width);
    }
  }
  to.count += values;
}

// Empties `b` for values of `d`, keeping its buffers' capacity.
void reset_batch(ColumnBatch& b, const ColumnDescriptor& d) {
  b.clear();
  b.values.type = d.physical;
  b.values.width =
      d.physical == PhysicalType::FIXED_LEN_BYTE_ARRAY ? d.type_length : fixed_width(d.physical);
}

ColumnBatch empty_batch(const ColumnDescriptor& d) {
  ColumnBatch b;
  b.values = ValueBuffer::for_type(d.physical, d.type_length);
  return b;
}

// The byte ranges of a chunk that reading `rows` of it touches: the pages holding one of the rows
// (and the dictionary page before them) when the page locations are known, else the whole chunk.
void add_chunk_ranges(const ColumnMetaData& meta, const OffsetIndex* pages, const RowRanges& rows,
                      int64_t group_rows, uint64_t file_size, std::vector<ByteRange>& out) {
  const int64_t start = chunk_start(meta);
  int64_t length = 0;
  try {
    length = chunk_length(meta, 0, file_size);
  } catch (const Error&) {
    return;  // the column reader reports the bad chunk
  }
  if (start < 0 || length <= 0) return;
  if (pages == nullptr || pages->page_locations.empty() || covers(rows, group_rows)) {
    out.push_back({static_cast<uint64_t>(start), static_cast<uint64_t>(length)});
    return;
  }
  const auto& locations = pages->page_locations;
  if (locations.front().offset > start) {
    out.push_back(
        {static_cast<uint64_t>(start), static_cast<uint64_t>(locations.front().offset - start)});
  }
  size_t r = 0;
  for (size_t p = 0; p < locations.size(); ++p) {
    const int64_t first = locations[p].first_row_index;
    const int64_t last = p + 1 < locations.size() ? locations[p + 1].first_row_index : group_rows;
    while (r < rows.size() && rows[r].end <= first) ++r;
    if (r == rows.size()) break;
    if (rows[r].begin < last && locations[p].offset >= 0 && locations[p].compressed_page_size > 0) {
      out.push_back({static_cast<uint64_t>(locations[p].offset),
                     static_cast<uint64_t>(locations[p].compressed_page_size)});
    }
  }
}

void announce(RandomAccessFile& file, std::vector<ByteRange> ranges) {
  if (ranges.empty()) return;
  std::sort(ranges.begin(), ranges.end(),
            [](const ByteRange& a, const ByteRange& b) { return a.offset < b.offset; });
  std::vector<ByteRange> merged;
  for (const ByteRange& r : ranges) {
    if (!merged.empty() && r.offset <= merged.back().offset + merged.back().length) {
      const uint64_t end =
          std::max(merged.back().offset + merged.back().length, r.offset + r.length);
      merged.back().length = end - merged.back().offset;
    } else {
      merged.push_back(r);
    }
  }
  file.will_read(merged);
}

// Throws FormatError unless `column`, read without a selection through its row group's last row,
// holds no further record: a chunk with more rows than its row group is corrupt.
void expect_exhausted(ColumnReader& column, int64_t group_rows) {
  ColumnBatch scratch;
  if (column.read_records(1, scratch) != 0) {
    FormatError error("column chunk holds more rows than the row group's " +
                      std::to_string(group_rows));
    error.locate_column(column.column().dotted_path);
    throw error;
  }
}

// Takes rows from a list of ranges, in order.
class RangeCursor {
 public:
  explicit RangeCursor(const RowRanges& ranges) : ranges_(ranges) {}
  // The next n rows (fewer at the end) as ranges.
  RowRanges take(size_t n) {
    RowRanges out;
    while (n > 0 && index_ < ranges_.size()) {
      const RowRange& r = ranges_[index_];
      const int64_t begin = r.begin + offset_;
      const int64_t end = std::min<int64_t>(r.end, begin + static_cast<int64_t>(n));
      out.push_back({begin, end});
      n -= static_cast<size_t>(end - begin);
      offset_ = end - r.begin;
      if (end == r.end) {
        ++index_;
        offset_ = 0;
      }
    }
    return out;
  }

 private:
  const RowRanges& ranges_;
  size_t index_ = 0;
  int64_t offset_ = 0;
};

// One output column of a row group being read.
struct GroupColumn {
  int slot = 0;  // index into ScanOptions::columns
  int leaf = 0;
  const ColumnDescriptor* d = nullptr;
  const ColumnMetaData* meta = nullptr;
  bool streamed = false;
  std::optional<OffsetIndex> pages;  // page locations, when known
  ColumnBatch resident;              // the surviving rows, for resident columns
  // Streamed columns cut into several units: the chunk's dictionary, decoded once for them all.
  std::shared_ptr<const ValueBuffer> dictionary;
  std::vector<Cursor> unit_starts;  // resident: the position of each unit's first row
};

// Whether a chunk may start with a dictionary page: not when its metadata lists its encodings,
// none of them a dictionary's, and gives no dictionary page offset (read_dictionary() would then
// decompress the first data page for nothing: DuckDB's pages of code are 100 MB).
bool may_have_dictionary(const ColumnMetaData* meta) {
  if (meta == nullptr || meta->dictionary_page_offset || meta->encodings.empty()) return true;
  return std::any_of(meta->encodings.begin(), meta->encodings.end(), [](Encoding e) {
    return e == Encoding::PLAIN_DICTIONARY || e == Encoding::RLE_DICTIONARY;
  });
}

struct Unit {
  RowRanges rows;  // surviving rows of the unit (group row numbers)
  size_t num_rows = 0;
};

// A unit's batches, handed from its task to the calling thread.
struct UnitQueue {
  std::mutex mutex;
  std::condition_variable changed;
  std::deque<ScanBatch> ready;
  bool done = false;
  std::exception_ptr error;
};

// What the units of one row group read: shared by the unit tasks, which may outlast the steps of
// the row group that made it.
struct GroupPlan {
  int g = 0;
  int64_t first = 0;  // the group's first row in the file
  int64_t group_rows = 0;
  std::vector<GroupColumn> columns;
  std::vector<Unit> units;
};

// A unit of the stream, started on the pool or waiting to be.
struct PendingUnit {
  std::shared_ptr<const GroupPlan> plan;
  size_t u = 0;
  std::unique_ptr<UnitQueue> queue = std::make_unique<UnitQueue>();
  bool submitted = false;
};

}  // namespace

int64_t ScanBatch::file_row(size_t i) const {
  size_t left = i;
  for (const RowRange& r : rows) {
    const auto n = static_cast<size_t>(r.end - r.begin);
    if (left < n) return group_first_row + r.begin + static_cast<int64_t>(left);
    left -= n;
  }
  return group_first_row + (rows.empty() ? 0 : rows.back().end);
}

std::vector<int64_t> ScanBatch::file_rows() const {
  std::vector<int64_t> out;
  out.reserve(num_rows);
  for (const RowRange& r : rows) {
    for (int64_t row = r.begin; row < r.end; ++row) out.push_back(group_first_row + row);
  }
  return out;
}

void ScanBatch::release(size_t i) {
  ColumnBatch& c = columns.at(i);
  if (storage != nullptr && i < storage->size()) {
    std::swap(c, (*storage)[i]);
    (*storage)[i].clear();  // its values are no one's now; the capacity stays
    c.clear();
  } else {
    c = ColumnBatch();
  }
}

TableScan::TableScan(FileReader& reader, ScanOptions options)
    : reader_(reader), options_(std::move(options)) {
  const size_t leaves = reader_.schema().leaves().size();
  std::vector<bool> seen(leaves, false);
  for (int leaf : options_.columns) {
    if (leaf < 0 || static_cast<size_t>(leaf) >= leaves) {
      throw UsageError("TableScan: leaf " + std::to_string(leaf) + " out of range");
    }
    if (seen[static_cast<size_t>(leaf)]) {
      throw UsageError("TableScan: leaf " + std::to_string(leaf) + " listed twice");
    }
    seen[static_cast<size_t>(leaf)] = true;
  }
  if (!options_.measures.empty()) {
    if (options_.measures.size() != options_.columns.size()) {
      throw UsageError("TableScan: " + std::to_string(options_.measures.size()) + " measures for " +
                       std::to_string(options_.columns.size()) + " columns");
    }
    for (size_t k = 0; k < options_.columns.size(); ++k) {
      const ColumnDescriptor& d =
          reader_.schema().leaves()[static_cast<size_t>(options_.columns[k])];
      if (options_.measures[k] != nullptr &&
          (d.physical != PhysicalType::BYTE_ARRAY || d.max_rep > 0)) {
        throw UsageError("TableScan: a measure needs a BYTE_ARRAY column without repetition ('" +
                         d.dotted_path + "')");
      }
    }
  }
  if (options_.batch_rows == 0) options_.batch_rows = 1;
  if (options_.threads < 1) options_.threads = 1;
}

namespace {

// The work of one run(): the plan of the current row group and the steps.
class Scan {
 public:
  Scan(FileReader& reader, const ScanOptions& options, ScanStats& stats,
       const TableScan::MapFn& map, const TableScan::DeliverFn& deliver)
      : reader_(reader), options_(options), stats_(stats), map_(map), deliver_(deliver) {
    measure_of_leaf_.assign(reader_.schema().leaves().size(), nullptr);
    for (size_t k = 0; k < options_.measures.size(); ++k) {
      measure_of_leaf_[static_cast<size_t>(options_.columns[k])] = options_.measures[k];
    }
  }

  void run() {
    int64_t group_first = 0;
    std::exception_ptr failure;
    for (int g = 0; g < reader_.num_row_groups() && !stopped_ && !failure; ++g) {
      const int64_t group_rows =
          std::max<int64_t>(0, reader_.metadata().row_groups[static_cast<size_t>(g)].num_rows);
      const int64_t first = group_first;
      group_first += group_rows;
      RowRanges wanted;
      if (group_rows > 0) wanted.push_back({0, group_rows});
      if (options_.rows) {
        RowRanges shifted;
        for (const RowRange& r : *options_.rows) {
          const int64_t begin = std::max<int64_t>(r.begin - first, 0);
          const int64_t end = std::min<int64_t>(r.end - first, group_rows);
          if (begin < end) shifted.push_back({begin, end});
        }
        if (shifted.empty()) continue;  // outside the rows asked for: not counted
        wanted = intersect(wanted, shifted);
      }
      ++stats_.row_groups;
      try {
        read_group(g, first, group_rows, wanted);
      } catch (Error& error) {
        error.locate_row_group(g);
        error.locate_file(reader_.name());
        failure = std::current_exception();
      } catch (...) {
        failure = std::current_exception();
      }
    }
    // The units still pending belong to row groups before a failure: their batches come first,
    // and an error of theirs is the earlier one (the same error whatever the threads).
    pump(0);
    if (failure && !stopped_) std::rethrow_exception(failure);
  }

 private:
  bool remote() const { return reader_.file().remote(); }

  // The page locations of a chunk: its OffsetIndex, or (on a local file) a walk of its headers.
  std::optional<OffsetIndex> locations(int g, int leaf) {
    if (remote()) return reader_.offset_index(g, leaf);
    return reader_.page_locations(g, leaf);
  }

  const ColumnMetaData* meta_of(int g, int leaf) const {
    const auto& chunk =
        reader_.metadata().row_groups[static_cast<size_t>(g)].columns.at(static_cast<size_t>(leaf));
    return chunk.meta_data ? &*chunk.meta_data : nullptr;
  }

  std::unique_ptr<ColumnReader> open_column(int g, int leaf, const RowRanges& rows,
                                            const std::optional<OffsetIndex>& pages,
                                            int64_t group_rows) {
    auto column = reader_.column(g, leaf);
    column->stream_pages_from(options_.streamed_page_bytes);
    if (!covers(rows, group_rows)) {
      column->select_rows(rows, pages ? &*pages : nullptr, group_rows);
    }
    // (The filter step sets its own form on predicate columns after this.)
    if (ValueMeasure m = measure_of_leaf_[static_cast<size_t>(leaf)]) column->set_measure(m);
    return column;
  }

  void read_group(int g, int64_t first, int64_t group_rows, const RowRanges& wanted) {
    RowRanges selected = wanted;
    if (options_.filter != nullptr && !selected.empty()) {
      selected = intersect(selected, options_.filter->row_group_ranges(reader_, g));
    }
    if (selected.empty()) {
      ++stats_.row_groups_pruned;
      return;
    }
    stats_.rows_selected += static_cast<uint64_t>(rows_in(selected));
    RowRanges survivors = selected;
    if (options_.filter != nullptr && options_.filter_rows &&
        !options_.filter->predicates().empty()) {
      survivors = filter_step(g, group_rows, selected);
      stats_.rows_dropped += static_cast<uint64_t>(rows_in(selected) - rows_in(survivors));
      if (survivors.empty()) return;
    }
    if (options_.columns.empty()) return;

    auto plan = std::make_shared<GroupPlan>();
    plan->g = g;
    plan->first = first;
    plan->group_rows = group_rows;
    plan->columns = plan_columns(g, group_rows, survivors);
    std::vector<GroupColumn>& columns = plan->columns;
    bool fallback = false;
    try {
      resident_step(g, group_rows, survivors, columns);
    } catch (const ResidentOverflow&) {
      fallback = true;
      ++stats_.row_groups_fallback;
      for (GroupColumn& c : columns) {
        c.streamed = true;
        c.resident = ColumnBatch();
      }
    }
    plan->units = plan_units(g, group_rows, survivors, columns, fallback);
    stats_.units += plan->units.size();
    for (GroupColumn& c : columns) {
      if (!c.streamed) place_unit_starts(c, plan->units);
      if (c.streamed && plan->units.size() > 1 && may_have_dictionary(c.meta))
        c.dictionary = reader_.column(g, c.leaf)->read_dictionary();
    }
    stream_step(std::move(plan));
  }

  // The pool for the steps of a row group that run while units of earlier row groups may still be
  // in progress: none (the calling thread) while a unit task runs, since such a task may be
  // waiting for the calling thread to take its batches.
  ThreadPool* step_pool(const std::vector<ByteRange>& reads) {
    if (!worth_threads(reads)) return nullptr;
    std::lock_guard<std::mutex> lock(flight_mutex_);
    return in_flight_ == 0 ? pool() : nullptr;
  }

  // Whether reading `reads` is work enough for the pool (ScanOptions::parallel_bytes).
  [[nodiscard]] bool worth_threads(const std::vector<ByteRange>& reads) const {
    if (options_.threads < 2) return false;
    uint64_t bytes = 0;
    for (const ByteRange& r : reads) bytes += r.length;
    return bytes >= options_.parallel_bytes;
  }

  // The pool, started on first need.
  ThreadPool* pool() {
    if (!pool_) {
      pool_ = std::make_unique<ThreadPool>(options_.threads);
      stats_.threads_started = static_cast<uint64_t>(options_.threads);
    }
    return pool_.get();
  }

  // Step 1: decodes the predicates' columns for `selected` and keeps the rows where every
  // predicate holds.
  RowRanges filter_step(int g, int64_t group_rows, const RowRanges& selected) {
    const RowFilter& filter = *options_.filter;
    std::vector<int> leaves;
    for (size_t i = 0; i < filter.predicates().size(); ++i) {
      if (std::find(leaves.begin(), leaves.end(), filter.leaf(i)) == leaves.end()) {
        leaves.push_back(filter.leaf(i));
      }
    }
    std::vector<std::optional<OffsetIndex>> pages(leaves.size());
    std::vector<ByteRange> hint;
    for (size_t k = 0; k < leaves.size(); ++k) {
      if (!covers(selected, group_rows)) pages[k] = locations(g, leaves[k]);
      if (const ColumnMetaData* meta = meta_of(g, leaves[k])) {
        add_chunk_ranges(*meta, pages[k] ? &*pages[k] : nullptr, selected, group_rows,
                         reader_.file().size(), hint);
      }
    }
    ThreadPool* threads = step_pool(hint);
    announce(reader_.file(), std::move(hint));
    std::vector<RowRanges> kept(leaves.size());
    run_all(threads, leaves.size(), [&](size_t k) {
      const int leaf = leaves[k];
      const ColumnDescriptor& d = reader_.schema().leaves()[static_cast<size_t>(leaf)];
      std::vector<size_t> mine;
      for (size_t i = 0; i < filter.predicates().size(); ++i) {
        if (filter.leaf(i) == leaf) mine.push_back(i);
      }
      auto column = open_column(g, leaf, selected, pages[k], group_rows);
      // Tests of nullness read levels only; other tests see a dictionary's indices, and decide
      // each dictionary entry once.
      bool levels_only = true;
      for (size_t i : mine) {
        const CompareOp op = filter.predicates()[i].op;
        levels_only = levels_only && (op == CompareOp::IS_NULL || op == CompareOp::IS_NOT_NULL);
      }
      column->set_value_form(levels_only ? ValueForm::NONE : ValueForm::INDICES);
      auto holds = [&](std::optional<std::span<const uint8_t>> v) {
        for (size_t i : mine) {
          if (!filter.matches(i, v)) return false;
        }
        return true;
      };
      const bool null_kept = holds(std::nullopt);
      // Booleans have two values: each is decided once.
      const bool boolean = d.physical == PhysicalType::BOOLEAN;
      const uint8_t false_byte = 0, true_byte = 1;
      const bool boolean_kept[2] = {boolean && holds(std::span<const uint8_t>(&false_byte, 1)),
                                    boolean && holds(std::span<const uint8_t>(&true_byte, 1))};
      std::shared_ptr<const ValueBuffer> decided;  // the dictionary entry_kept describes
      std::vector<uint8_t> entry_kept;
      std::vector<uint8_t> kept_entry;  // per level entry of the batch
      ColumnBatch batch;
      RangeCursor rows(selected);
      int64_t left = rows_in(selected);
      while (left > 0) {
        const size_t want = static_cast<size_t>(std::min<int64_t>(left, kWholeChunkRecords));
        const size_t got = column->read_batch(want, batch);
        if (got == 0) {
          FormatError error("column chunk ends before the row group's " +
                            std::to_string(group_rows) + " rows");
          error.locate_column(d.dotted_path);
          throw error;
        }
        const bool flat = d.max_def == 0;
        const auto defined = static_cast<int16_t>(d.max_def);
        const size_t present =
            flat ? got
                 : static_cast<size_t>(std::count(batch.def_levels.begin(),
                                                  batch.def_levels.begin() + static_cast<long>(got),
                                                  defined));
        kept_entry.resize(got);
        if (batch.dictionary) {
          if (batch.indices.size() != present) {
            FormatError error("batch holds " + std::to_string(batch.indices.size()) +
                              " dictionary indices for " + std::to_string(present) + " values");
            error.locate_column(d.dotted_path);
            throw error;
          }
          if (batch.dictionary != decided) {
            const ValueBuffer& dict = *batch.dictionary;
            check_batch_values(d, dict, dict.count);
            entry_kept.resize(dict.count);
            for (size_t j = 0; j < dict.count; ++j) entry_kept[j] = holds(dict.bytes(j));
            decided = batch.dictionary;
          }
          const uint32_t* index = batch.indices.data();
          for (size_t e = 0; e < got; ++e) {
            kept_entry[e] =
                flat || batch.def_levels[e] == defined ? entry_kept[*index++] : null_kept;
          }
        } else if (levels_only) {
          const bool value_kept = holds(std::span<const uint8_t>());
          for (size_t e = 0; e < got; ++e) {
            kept_entry[e] = flat || batch.def_levels[e] == defined ? value_kept : null_kept;
          }
        } else {
          check_batch_values(d, batch.values, present);
          size_t value = 0;
          for (size_t e = 0; e < got; ++e) {
            if (!flat && batch.def_levels[e] != defined) {
              kept_entry[e] = null_kept;
            } else if (boolean) {
              kept_entry[e] = boolean_kept[batch.values.data[value++] != 0];
            } else {
              kept_entry[e] = holds(batch.values.bytes(value++));
            }
          }
        }
        // The kept entries as runs of rows.
        const RowRanges taken = rows.take(got);
        size_t entry = 0;
        for (const RowRange& r : taken) {
          int64_t row = r.begin;
          while (row < r.end) {
            while (row < r.end && kept_entry[entry] == 0) ++row, ++entry;
            const int64_t begin = row;
            while (row < r.end && kept_entry[entry] != 0) ++row, ++entry;
            if (begin < row) append_range(kept[k], begin, row);
          }
        }
        left -= static_cast<int64_t>(got);
      }
      if (covers(selected, group_rows)) expect_exhausted(*column, group_rows);
    });
    RowRanges survivors = selected;
    for (const RowRanges& k : kept) survivors = intersect(survivors, k);
    return survivors;
  }

  std::vector<GroupColumn> plan_columns(int g, int64_t group_rows, const RowRanges& survivors) {
    std::vector<GroupColumn> columns;
    const bool partial = !covers(survivors, group_rows);
    for (size_t slot = 0; slot < options_.columns.size(); ++slot) {
      GroupColumn c;
      c.slot = static_cast<int>(slot);
      c.leaf = options_.columns[slot];
      c.d = &reader_.schema().leaves()[static_cast<size_t>(c.leaf)];
      c.meta = meta_of(g, c.leaf);
      c.streamed = c.meta != nullptr && c.meta->total_compressed_size >= options_.stream_bytes;
      // Streamed columns need their pages to be cut into units; resident ones only to skip the
      // pages of dropped rows.
      if (c.meta != nullptr && (c.streamed || partial)) c.pages = locations(g, c.leaf);
      columns.push_back(std::move(c));
    }
    return columns;
  }

  // Step 2: the resident columns' surviving rows, each column whole.
  void resident_step(int g, int64_t group_rows, const RowRanges& survivors,
                     std::vector<GroupColumn>& columns) {
    std::vector<GroupColumn*> resident;
    std::vector<ByteRange> hint;
    for (GroupColumn& c : columns) {
      if (c.streamed) continue;
      resident.push_back(&c);
      if (c.meta != nullptr) {
        add_chunk_ranges(*c.meta, c.pages ? &*c.pages : nullptr, survivors, group_rows,
                         reader_.file().size(), hint);
      }
    }
    if (resident.empty()) return;
    ThreadPool* threads = step_pool(hint);
    announce(reader_.file(), std::move(hint));
    std::atomic<size_t> bytes{0};
    const int64_t total = rows_in(survivors);
    std::vector<std::exception_ptr> overflow(resident.size());
    run_all(threads, resident.size(), [&](size_t k) {
      GroupColumn& c = *resident[k];
      c.resident = empty_batch(*c.d);
      auto column = open_column(g, c.leaf, survivors, c.pages, group_rows);
      ColumnBatch batch;
      int64_t left = total;
      while (left > 0) {
        const size_t want = static_cast<size_t>(std::min<int64_t>(left, kWholeChunkRecords));
        const size_t got = column->read_records(want, batch);
        if (got == 0) {
          FormatError error("column chunk ends before the row group's " +
                            std::to_string(group_rows) + " rows");
          error.locate_column(c.d->dotted_path);
          throw error;
        }
        check_batch_values(*c.d, batch.values, 0);
        const Span all = records_at(batch, *c.d, {}, got);
        check_batch_values(*c.d, batch.values, all.end.value);
        const size_t added = batch.values.data.size() + batch.num_levels * 4;
        if (bytes.fetch_add(added) + added > options_.resident_bytes) throw ResidentOverflow{};
        append_span(batch, *c.d, all, c.resident);
        left -= static_cast<int64_t>(got);
      }
      if (covers(survivors, group_rows)) expect_exhausted(*column, group_rows);
    });
  }

  std::vector<Unit> plan_units(int g, int64_t group_rows, const RowRanges& survivors,
                               const std::vector<GroupColumn>& columns, bool fallback) {
    std::vector<Unit> units;
    auto add = [&](RowRanges rows) {
      const int64_t n = rows_in(rows);
      if (n > 0) units.push_back({std::move(rows), static_cast<size_t>(n)});
    };
    if (fallback) {
      add(survivors);
      return units;
    }
    const GroupColumn* driver = nullptr;
    for (const GroupColumn& c : columns) {
      if (c.streamed && (driver == nullptr ||
                         c.meta->total_compressed_size > driver->meta->total_compressed_size)) {
        driver = &c;
      }
    }
    if (driver == nullptr) {
      RangeCursor cursor(survivors);
      for (int64_t left = rows_in(survivors); left > 0;) {
        RowRanges rows = cursor.take(options_.unit_rows);
        left -= rows_in(rows);
        add(std::move(rows));
      }
      return units;
    }
    if (!driver->pages || driver->pages->page_locations.empty()) {
      add(survivors);
      return units;
    }
    const auto& pages = driver->pages->page_locations;
    int64_t unit_first = pages.front().first_row_index;
    int64_t bytes = 0;
    for (size_t p = 0; p < pages.size(); ++p) {
      bytes += pages[p].compressed_page_size;
      const bool last = p + 1 == pages.size();
      if (bytes < options_.unit_bytes && !last) continue;
      const int64_t end = last ? group_rows : pages[p + 1].first_row_index;
      if (unit_first < end) add(intersect(survivors, {{unit_first, end}}));
      unit_first = end;
      bytes = 0;
    }
    (void)g;
    return units;
  }

  // Resident column: the position of each unit's first row in its batch.
  static void place_unit_starts(GroupColumn& c, const std::vector<Unit>& units) {
    Cursor at;
    c.unit_starts.clear();
    for (const Unit& u : units) {
      c.unit_starts.push_back(at);
      at = records_at(c.resident, *c.d, at, u.num_rows).end;
    }
  }

  // Reads one unit: its batches go to `emit`, which returns false to stop.
  void read_unit(const GroupPlan& plan, size_t u, const std::function<bool(ScanBatch&&)>& emit) {
    const int g = plan.g;
    const int64_t first = plan.first;
    const int64_t group_rows = plan.group_rows;
    const std::vector<GroupColumn>& columns = plan.columns;
    const Unit& unit = plan.units[u];
    std::vector<std::unique_ptr<ColumnReader>> readers(columns.size());
    std::vector<ColumnBatch> carry(columns.size());
    std::vector<size_t> carried(columns.size(), 0);  // records in carry
    std::vector<Cursor> at(columns.size());
    std::vector<ByteRange> hint;
    for (size_t k = 0; k < columns.size(); ++k) {
      const GroupColumn& c = columns[k];
      if (!c.streamed) {
        at[k] = c.unit_starts[u];
        continue;
      }
      readers[k] = open_column(g, c.leaf, unit.rows, c.pages, group_rows);
      readers[k]->use_dictionary(c.dictionary);
      carry[k] = empty_batch(*c.d);
      if (c.meta != nullptr) {
        add_chunk_ranges(*c.meta, c.pages ? &*c.pages : nullptr, unit.rows, group_rows,
                         reader_.file().size(), hint);
      }
    }
    announce(reader_.file(), std::move(hint));
    RangeCursor rows(unit.rows);
    size_t left = unit.num_rows;
    ColumnBatch scratch;
    // Storage the map step handed back (ScanBatch::release), per batch column.
    std::vector<ColumnBatch> storage(options_.columns.size());
    while (left > 0) {
      if (stopped_) return;
      size_t n = std::min(left, options_.batch_rows);
      ScanBatch batch = spare_batch();
      batch.row_group = g;
      batch.group_first_row = first;
      batch.columns.resize(options_.columns.size());
      // Streamed columns first: one may end its batch early (the 1 GiB batch cap), and the batch
      // then holds as many records as it gave; columns read before it keep the rest for the next.
      std::vector<size_t> read_order;
      for (size_t k = 0; k < columns.size(); ++k) {
        if (columns[k].streamed) read_order.push_back(k);
      }
      for (size_t i = 0; i < read_order.size(); ++i) {
        const size_t k = read_order[i];
        const GroupColumn& c = columns[k];
        ColumnBatch& out = batch.columns[static_cast<size_t>(c.slot)];
        ColumnBatch& kept = storage[static_cast<size_t>(c.slot)];
        if (kept.values.data.capacity() > out.values.data.capacity()) std::swap(out, kept);
        reset_batch(out, *c.d);
        size_t got = 0;
        if (carried[k] > 0) {
          const size_t take = std::min(carried[k], n);
          const Span s = records_at(carry[k], *c.d, {}, take);
          append_span(carry[k], *c.d, s, out);
          ColumnBatch rest = empty_batch(*c.d);
          append_span(carry[k], *c.d, {s.end, {carry[k].num_levels, carry[k].values.count}}, rest);
          carry[k] = std::move(rest);
          carried[k] -= take;
          got = take;
        }
        while (got < n) {
          // Straight into the batch when it is empty (the usual case: no copy).
          ColumnBatch& into = got == 0 ? out : scratch;
          const size_t more = readers[k]->read_records(n - got, into);
          if (more == 0) break;
          check_batch_values(*c.d, into.values, 0);
          const Span s = records_at(into, *c.d, {}, more);
          check_batch_values(*c.d, into.values, s.end.value);
          if (&into != &out) append_span(scratch, *c.d, s, out);
          got += more;
          if (more < n - got + more) break;  // ended early for the cap: the batch is shorter
        }
        if (got == 0) {
          FormatError error("column chunk ends before the row group's " +
                            std::to_string(group_rows) + " rows");
          error.locate_column(c.d->dotted_path);
          throw error;
        }
        if (got < n) {
          // Give the records past `got` back to the columns read before this one.
          for (size_t j = 0; j < i; ++j) {
            const size_t p = read_order[j];
            const GroupColumn& pc = columns[p];
            ColumnBatch& full = batch.columns[static_cast<size_t>(pc.slot)];
            const Span keep = records_at(full, *pc.d, {}, got);
            ColumnBatch tail = empty_batch(*pc.d);
            append_span(full, *pc.d, {keep.end, {full.num_levels, full.values.count}}, tail);
            append_span(carry[p], *pc.d, {{}, {carry[p].num_levels, carry[p].values.count}}, tail);
            carry[p] = std::move(tail);
            carried[p] += n - got;
            ColumnBatch head = empty_batch(*pc.d);
            append_span(full, *pc.d, keep, head);
            full = std::move(head);
          }
          n = got;
        }
      }
      for (size_t k = 0; k < columns.size(); ++k) {
        const GroupColumn& c = columns[k];
        if (c.streamed) continue;
        ColumnBatch& out = batch.columns[static_cast<size_t>(c.slot)];
        reset_batch(out, *c.d);
        const Span s = records_at(c.resident, *c.d, at[k], n);
        append_span(c.resident, *c.d, s, out);
        at[k] = s.end;
      }
      batch.rows = rows.take(n);
      batch.num_rows = n;
      left -= n;
      if (left == 0 && covers(unit.rows, group_rows)) {
        for (size_t k = 0; k < columns.size(); ++k) {
          if (readers[k] && carried[k] == 0) expect_exhausted(*readers[k], group_rows);
        }
      }
      if (map_) {
        batch.storage = &storage;
        map_(batch);
        batch.storage = nullptr;
      }
      if (!emit(std::move(batch))) return;
    }
  }

  // Step 3: the units, on the pool (or inline), delivered in order. On the pool the units of
  // successive row groups form one queue: a row group's units start while the last ones of the
  // previous group are still in progress, and at most `threads + 1` units are started and not yet
  // delivered.
  void stream_step(std::shared_ptr<const GroupPlan> plan) {
    if (pending_.empty() && !units_worth_threads(*plan)) {
      for (size_t u = 0; u < plan->units.size() && !stopped_; ++u) {
        read_unit(*plan, u, [&](ScanBatch&& batch) { return deliver(batch); });
      }
      return;
    }
    pool();
    for (size_t u = 0; u < plan->units.size(); ++u) pending_.push_back({plan, u});
    pump(window());
  }

  // Whether a row group's units are work enough for the pool: several of them, or one reading
  // parallel_bytes of streamed pages (decoded on a worker while the calling thread delivers).
  [[nodiscard]] bool units_worth_threads(const GroupPlan& plan) const {
    if (options_.threads < 2) return false;
    if (plan.units.size() > 1) return true;
    int64_t streamed = 0;
    for (const GroupColumn& c : plan.columns) {
      if (c.streamed) streamed += c.meta->total_compressed_size;
    }
    return streamed >= static_cast<int64_t>(options_.parallel_bytes);
  }

  bool deliver(ScanBatch& batch) {
    stats_.rows_delivered += batch.num_rows;
    try {
      if (!deliver_(batch)) stopped_ = true;
    } catch (Error& e) {
      e.locate_row_group(batch.row_group);
      e.locate_file(reader_.name());
      throw;
    }
    recycle(std::move(batch));
    return !stopped_;
  }

  [[nodiscard]] size_t window() const {
    return pool_ ? static_cast<size_t>(pool_->threads()) + 1 : 0;
  }

  // Starts the pending units within the window, and delivers whole units from the front until at
  // most `keep` are pending. Stopping or an error cancels every unit.
  void pump(size_t keep) {
    if (!pool_) return;
    try {
      while (!stopped_) {
        for (size_t i = 0; i < std::min(window(), pending_.size()); ++i) {
          if (!pending_[i].submitted) submit(pending_[i]);
        }
        if (pending_.size() <= keep) return;
        deliver_front();
        if (!stopped_) pending_.pop_front();
      }
    } catch (...) {
      cancel_units();
      throw;
    }
    cancel_units();
  }

  // Delivers the batches of the first pending unit as they come, to its end.
  void deliver_front() {
    UnitQueue& q = *pending_.front().queue;
    for (;;) {
      std::unique_lock<std::mutex> lock(q.mutex);
      q.changed.wait(lock, [&] { return !q.ready.empty() || q.done; });
      if (q.ready.empty()) {
        if (q.error) std::rethrow_exception(q.error);
        return;
      }
      ScanBatch batch = std::move(q.ready.front());
      q.ready.pop_front();
      q.changed.notify_all();
      lock.unlock();
      if (!deliver(batch)) return;
    }
  }

  void submit(PendingUnit& p) {
    p.submitted = true;
    {
      std::lock_guard<std::mutex> lock(flight_mutex_);
      ++in_flight_;
    }
    pool_->submit([this, plan = p.plan, u = p.u, q = p.queue.get()] {
      std::exception_ptr error;
      try {
        if (!cancel_) {
          read_unit(*plan, u, [&](ScanBatch&& batch) {
            std::unique_lock<std::mutex> lock(q->mutex);
            q->changed.wait(lock,
                            [&] { return cancel_ || q->ready.size() < options_.queued_batches; });
            if (cancel_) return false;
            q->ready.push_back(std::move(batch));
            q->changed.notify_all();
            return true;
          });
        }
      } catch (Error& e) {
        e.locate_row_group(plan->g);
        e.locate_file(reader_.name());
        error = std::current_exception();
      } catch (...) {
        error = std::current_exception();
      }
      {
        std::lock_guard<std::mutex> lock(q->mutex);
        q->error = error;
        q->done = true;
        q->changed.notify_all();
      }
      std::lock_guard<std::mutex> lock(flight_mutex_);
      if (--in_flight_ == 0) flight_done_.notify_all();
    });
  }

  // Ends every unit task and forgets the pending units.
  void cancel_units() {
    cancel_ = true;
    for (PendingUnit& p : pending_) {
      std::lock_guard<std::mutex> lock(p.queue->mutex);
      p.queue->changed.notify_all();
    }
    {
      std::unique_lock<std::mutex> lock(flight_mutex_);
      flight_done_.wait(lock, [&] { return in_flight_ == 0; });
    }
    pending_.clear();
  }

  // A batch to fill: one delivered before (its buffers keep their capacity, so that batches do
  // not grow their buffers from nothing every time), or a new one.
  ScanBatch spare_batch() {
    std::lock_guard<std::mutex> lock(spare_mutex_);
    if (spare_.empty()) return ScanBatch();
    ScanBatch b = std::move(spare_.back());
    spare_.pop_back();
    return b;
  }

  void recycle(ScanBatch&& batch) {
    batch.result.reset();
    batch.rows.clear();
    std::lock_guard<std::mutex> lock(spare_mutex_);
    // As many as can be in flight at once: units in progress times their queues.
    if (spare_.size() < (options_.queued_batches + 1) * static_cast<size_t>(options_.threads + 1)) {
      spare_.push_back(std::move(batch));
    }
  }

  FileReader& reader_;
  const ScanOptions& options_;
  ScanStats& stats_;
  std::mutex spare_mutex_;
  std::vector<ScanBatch> spare_;
  const TableScan::MapFn& map_;
  const TableScan::DeliverFn& deliver_;
  std::vector<ValueMeasure> measure_of_leaf_;  // per leaf: its measure (ScanOptions::measures)
  // The units started or waiting to start, in delivery order (on the pool only).
  std::deque<PendingUnit> pending_;
  std::atomic<bool> cancel_{false};
  std::mutex flight_mutex_;
  std::condition_variable flight_done_;
  size_t in_flight_ = 0;  // unit tasks submitted and not ended
  std::atomic<bool> stopped_{false};
  std::unique_ptr<ThreadPool> pool_;  // last: its workers end before the members they use
};

}  // namespace

void TableScan::run(const MapFn& map, const DeliverFn& deliver) {
  stats_ = {};
  Scan scan(reader_, options_, stats_, map, deliver);
  scan.run();
}

}  // namespace kbdata::parquet
