#include "parquet/write/file_writer.h"

#include <array>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <string>
#include <thread>

#include "common/error.h"
#include "common/thread_pool.h"
#include "parquet/write/column_writer.h"

namespace kbdata::parquet {
namespace {

constexpr std::array<uint8_t, 4> kMagic = {'P', 'A', 'R', '1'};

UsageError batch_error(const ColumnDescriptor& column, const std::string& what) {
  UsageError error("batch for column " + column.dotted_path + ": " + what);
  error.locate_column(column.dotted_path);
  return error;
}

}  // namespace

// Writes owned buffers to the sink, in order, on a thread of its own. The first error is kept and
// rethrown by the next put() or finish(); what is queued after it is dropped.
class FileWriter::Output {
 public:
  explicit Output(OutputSink& sink) : sink_(sink), thread_([this] { run(); }) {}
  ~Output() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;  // destroyed without finish(): the rest is not written
    }
    changed_.notify_all();
    thread_.join();
  }
  Output(const Output&) = delete;
  Output& operator=(const Output&) = delete;

  // Queues `bytes`, once they fit in kMaxQueuedBytes with what waits (or nothing waits: a chunk of
  // code is queued while the one before is written, and the calling thread goes on; waiting for
  // that write too kept the pool idle, dedup --exact 7% slower for no less memory).
  void put(std::vector<uint8_t>&& bytes) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] {
      return error_ || queue_.empty() || queued_ + bytes.size() <= kMaxQueuedBytes;
    });
    if (error_) std::rethrow_exception(error_);
    queued_ += bytes.size();
    queue_.push_back(std::move(bytes));
    lock.unlock();
    changed_.notify_all();
  }

  // Returns once everything queued is written.
  void finish() {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return error_ || (queue_.empty() && !writing_); });
    if (error_) std::rethrow_exception(error_);
  }

 private:
  void run() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (true) {
      changed_.wait(lock, [&] { return stopping_ || (!queue_.empty() && !error_); });
      if (stopping_) return;
      std::vector<uint8_t> bytes = std::move(queue_.front());
      queue_.pop_front();
      writing_ = true;
      lock.unlock();
      std::exception_ptr error;
      try {
        sink_.write(bytes);
      } catch (...) {
        error = std::current_exception();
      }
      lock.lock();
      writing_ = false;
      queued_ -= bytes.size();
      if (error) {
        error_ = error;
        queue_.clear();
        queued_ = 0;
      }
      changed_.notify_all();
    }
  }

  OutputSink& sink_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::vector<uint8_t>> queue_;
  size_t queued_ = 0;
  bool writing_ = false;
  bool stopping_ = false;
  std::exception_ptr error_;
  std::thread thread_;  // last: it starts after the members it uses
};

FileWriter::FileWriter(OutputSink& sink, std::vector<SchemaElement> schema, WriterOptions options)
    : sink_(sink), options_(std::move(options)) {
  try {
    schema_ = Schema::from_elements(schema);
  } catch (const FormatError& e) {
    throw UsageError(std::string("invalid schema: ") + e.what());
  }
  metadata_.version = 2;
  metadata_.schema = std::move(schema);
  metadata_.key_value_metadata = options_.key_value_metadata;
  metadata_.created_by = options_.created_by;
  const int threads = options_.threads;
  if (threads > 1 && options_.codec != Codec::UNCOMPRESSED) {
    pool_ = std::make_unique<ThreadPool>(threads);
    output_ = std::make_unique<Output>(sink_);
  }
  for (const ColumnDescriptor& column : schema_.leaves()) {
    columns_.push_back(std::make_unique<ColumnWriter>(column, options_, pool_.get()));
    metadata_.column_orders.push_back(ColumnOrder::TYPE_DEFINED);
  }
}

FileWriter::~FileWriter() = default;

void FileWriter::write_bytes(std::span<const uint8_t> bytes) {
  if (output_) {
    write_owned(std::vector<uint8_t>(bytes.begin(), bytes.end()));
    return;
  }
  if (position_ == 0) {
    sink_.write(kMagic);
    position_ = kMagic.size();
  }
  sink_.write(bytes);
  position_ += bytes.size();
}

void FileWriter::write_owned(std::vector<uint8_t>&& bytes) {
  if (!output_) {
    write_bytes(bytes);
    return;
  }
  if (position_ == 0) {
    output_->put(std::vector<uint8_t>(kMagic.begin(), kMagic.end()));
    position_ = kMagic.size();
  }
  position_ += bytes.size();
  output_->put(std::move(bytes));
}

size_t FileWriter::check_batch(const ColumnBatch& batch, int leaf) const {
  const ColumnDescriptor& column = schema_.leaves()[static_cast<size_t>(leaf)];
  size_t n = batch.num_levels;
  if (column.max_def > 0 ? batch.def_levels.size() != n : !batch.def_levels.empty()) {
    throw batch_error(column, "definition levels do not match num_levels");
  }
  if (column.max_rep > 0 ? batch.rep_levels.size() != n : !batch.rep_levels.empty()) {
    throw batch_error(column, "repetition levels do not match num_levels");
  }
  size_t values = n;
  if (column.max_def > 0) {
    values = 0;
    for (int16_t d : batch.def_levels) {
      if (d < 0 || d > column.max_def) throw batch_error(column, "definition level out of range");
      values += d == column.max_def ? 1 : 0;
    }
  }
  size_t records = n;
  if (column.max_rep > 0) {
    if (n > 0 && batch.rep_levels[0] != 0) {
      throw batch_error(column, "the first entry does not start a record");
    }
    records = 0;
    for (int16_t r : batch.rep_levels) {
      if (r < 0 || r > column.max_rep) throw batch_error(column, "repetition level out of range");
      records += r == 0 ? 1 : 0;
    }
  }
  if (batch.values.count != values) {
    throw batch_error(column, std::to_string(batch.values.count) + " values for " +
                                  std::to_string(values) + " non-null entries");
  }
  try {
    check_batch_values(column, batch.values, values);
  } catch (const FormatError& e) {
    throw batch_error(column, e.what());
  }
  return records;
}

size_t FileWriter::buffered_bytes() const {
  size_t total = 0;
  for (const auto& column : columns_) total += column->buffered_bytes();
  return total;
}

void FileWriter::write(std::span<const ColumnBatch> leaves) {
  if (closed_) throw UsageError("write() after close()");
  if (leaves.size() != columns_.size()) {
    throw UsageError("write() got " + std::to_string(leaves.size()) + " column batches for " +
                     std::to_string(columns_.size()) + " leaf columns");
  }
  size_t records = 0;
  size_t batch_bytes = 0;
  for (size_t leaf = 0; leaf < leaves.size(); ++leaf) {
    size_t n = check_batch(leaves[leaf], static_cast<int>(leaf));
    if (leaf == 0) {
      records = n;
    } else if (n != records) {
      throw batch_error(schema_.leaves()[leaf], std::to_string(n) + " records where column " +
                                                    schema_.leaves()[0].dotted_path + " has " +
                                                    std::to_string(records));
    }
    batch_bytes += leaves[leaf].values.data.size() + leaves[leaf].num_levels;
  }
  if (records == 0) return;
  for (const auto& column : columns_) column->settle();

  // Cursors into each leaf's batch: the next level entry and value to write.
  std::vector<size_t> level_at(leaves.size(), 0);
  std::vector<size_t> value_at(leaves.size(), 0);
  const size_t bytes_per_record = std::max<size_t>(1, batch_bytes / records);
  size_t done = 0;
  while (done < records) {
    // A step fills the row group up to its row limit, and about up to its byte limit (measured
    // again after the step), so a group overshoots its byte limit by about one record.
    size_t rows_left = static_cast<size_t>(options_.row_group_rows - group_rows_);
    size_t buffered = buffered_bytes();
    size_t bytes_left =
        options_.row_group_bytes > buffered ? options_.row_group_bytes - buffered : 0;
    size_t step =
        std::min({records - done, rows_left, std::max<size_t>(1, bytes_left / bytes_per_record)});
    for (size_t leaf = 0; leaf < leaves.size(); ++leaf) {
      const ColumnBatch& batch = leaves[leaf];
      const ColumnDescriptor& column = schema_.leaves()[leaf];
      size_t begin = level_at[leaf];
      size_t end = begin;
      if (column.max_rep == 0) {
        end = begin + step;
      } else {
        size_t started = 0;
        while (end < batch.num_levels) {
          if (batch.rep_levels[end] == 0 && started++ == step) break;
          ++end;
        }
      }
      value_at[leaf] = columns_[leaf]->write(batch, begin, end, value_at[leaf]);
      level_at[leaf] = end;
    }
    done += step;
    group_rows_ += static_cast<int64_t>(step);
    rows_written_ += static_cast<int64_t>(step);
    if (group_rows_ >= options_.row_group_rows || buffered_bytes() >= options_.row_group_bytes) {
      flush_row_group();
    }
  }
}

void FileWriter::flush_row_group() {
  if (group_rows_ == 0) return;
  RowGroup group;
  group.num_rows = group_rows_;
  group.ordinal = static_cast<int16_t>(std::min<size_t>(metadata_.row_groups.size(), INT16_MAX));
  std::vector<ChunkIndex> indexes;
  int64_t group_start = -1;
  for (size_t leaf = 0; leaf < columns_.size(); ++leaf) {
    EncodedChunk chunk = columns_[leaf]->finish();
    if (position_ == 0) write_bytes({});  // the magic, so offsets below are final
    auto chunk_start = static_cast<int64_t>(position_);
    if (group_start < 0) group_start = chunk_start;
    ColumnChunk column_chunk;
    column_chunk.file_offset = chunk_start;
    ColumnMetaData meta = std::move(chunk.meta);
    if (!chunk.dictionary_page.empty()) {
      meta.dictionary_page_offset = chunk_start;
      write_owned(std::move(chunk.dictionary_page));
    }
    auto data_start = static_cast<int64_t>(position_);
    meta.data_page_offset = data_start;
    write_owned(std::move(chunk.data_pages));
    group.total_byte_size += meta.total_uncompressed_size;
    group.total_compressed_size =
        group.total_compressed_size.value_or(0) + meta.total_compressed_size;

    ChunkIndex index;
    for (const EncodedChunk::Page& page : chunk.pages) {
      index.offset_index.page_locations.push_back(
          PageLocation{data_start + static_cast<int64_t>(page.offset), page.size, page.first_row});
    }
    if (chunk.has_column_index) {
      ColumnIndex column_index;
      column_index.boundary_order = chunk.boundary_order;
      column_index.null_counts.emplace();
      for (EncodedChunk::Page& page : chunk.pages) {
        column_index.null_pages.push_back(!page.has_values);
        column_index.min_values.push_back(std::move(page.min));
        column_index.max_values.push_back(std::move(page.max));
        column_index.null_counts->push_back(page.null_count);
      }
      index.column_index = std::move(column_index);
    }
    indexes.push_back(std::move(index));
    column_chunk.meta_data = std::move(meta);
    group.columns.push_back(std::move(column_chunk));
  }
  group.file_offset = group_start;
  metadata_.row_groups.push_back(std::move(group));
  metadata_.num_rows += group_rows_;
  indexes_.push_back(std::move(indexes));
  group_rows_ = 0;
}

void FileWriter::close() {
  if (closed_) throw UsageError("close() called twice");
  closed_ = true;
  flush_row_group();
  if (position_ == 0) write_bytes({});

  std::vector<uint8_t> bytes;
  if (!options_.page_index) indexes_.clear();
  for (size_t g = 0; g < indexes_.size(); ++g) {
    for (size_t leaf = 0; leaf < indexes_[g].size(); ++leaf) {
      const ChunkIndex& index = indexes_[g][leaf];
      if (!index.column_index) continue;
      bytes.clear();
      encode_column_index(*index.column_index, bytes);
      ColumnChunk& chunk = metadata_.row_groups[g].columns[leaf];
      chunk.column_index_offset = static_cast<int64_t>(position_);
      chunk.column_index_length = static_cast<int32_t>(bytes.size());
      write_bytes(bytes);
    }
  }
  for (size_t g = 0; g < indexes_.size(); ++g) {
    for (size_t leaf = 0; leaf < indexes_[g].size(); ++leaf) {
      bytes.clear();
      encode_offset_index(indexes_[g][leaf].offset_index, bytes);
      ColumnChunk& chunk = metadata_.row_groups[g].columns[leaf];
      chunk.offset_index_offset = static_cast<int64_t>(position_);
      chunk.offset_index_length = static_cast<int32_t>(bytes.size());
      write_bytes(bytes);
    }
  }
  indexes_.clear();

  bytes.clear();
  encode_file_metadata(metadata_, bytes);
  auto length = static_cast<uint32_t>(bytes.size());
  for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<uint8_t>(length >> (8 * i)));
  bytes.insert(bytes.end(), kMagic.begin(), kMagic.end());
  write_bytes(bytes);
  if (output_) output_->finish();
}

}  // namespace kbdata::parquet
