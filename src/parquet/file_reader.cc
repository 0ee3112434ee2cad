#include "parquet/file_reader.h"

#include <array>
#include <cstdio>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "common/error.h"
#include "common/file.h"

namespace kbdata::parquet {
namespace {

constexpr std::array<uint8_t, 4> kMagic = {'P', 'A', 'R', '1'};
constexpr std::array<uint8_t, 4> kEncryptedMagic = {'P', 'A', 'R', 'E'};

bool equals(std::span<const uint8_t> bytes, const std::array<uint8_t, 4>& magic) {
  return bytes.size() == 4 && std::memcmp(bytes.data(), magic.data(), 4) == 0;
}

[[noreturn]] void encrypted() {
  throw UnsupportedError("encrypted Parquet files are not supported");
}

}  // namespace

int64_t legacy_chunk_padding(const std::optional<std::string>& created_by) {
  constexpr int64_t kMaxDictionaryHeaderBytes = 100;
  if (!created_by) return 0;
  const std::string prefix = "parquet-mr";
  if (created_by->compare(0, prefix.size(), prefix) != 0) return 0;
  const std::string marker = "parquet-mr version ";
  if (created_by->compare(0, marker.size(), marker) != 0) return kMaxDictionaryHeaderBytes;
  int major = 0, minor = 0, patch = 0;
  if (std::sscanf(created_by->c_str() + marker.size(), "%d.%d.%d", &major, &minor, &patch) < 2) {
    return kMaxDictionaryHeaderBytes;
  }
  bool old = std::tie(major, minor, patch) <= std::make_tuple(1, 2, 8);
  return old ? kMaxDictionaryHeaderBytes : 0;
}

std::unique_ptr<FileReader> FileReader::open(const std::string& path, ReaderOptions options) {
  return open(LocalFile::open(path), options);
}

const std::string& FileReader::name() const { return file_->name(); }

std::unique_ptr<FileReader> FileReader::open(std::unique_ptr<RandomAccessFile> file,
                                             ReaderOptions options) {
  std::unique_ptr<FileReader> reader(new FileReader(std::move(file), options));
  RandomAccessFile& f = *reader->file_;
  try {
    uint64_t size = f.size();
    if (size < 12) {
      throw FormatError("not a Parquet file: " + std::to_string(size) +
                        " bytes is too small (a Parquet file has at least 12)");
    }
    std::array<uint8_t, 4> head{};
    f.read_at(0, head);
    std::array<uint8_t, 8> tail{};
    f.read_at(size - 8, tail);
    std::span<const uint8_t> tail_magic(tail.data() + 4, 4);
    if (equals(tail_magic, kEncryptedMagic) || equals(head, kEncryptedMagic)) encrypted();
    if (!equals(head, kMagic)) {
      FormatError error("not a Parquet file: it does not start with the magic bytes PAR1");
      error.locate_offset(0);
      throw error;
    }
    if (!equals(tail_magic, kMagic)) {
      FormatError error(
          "not a Parquet file, or a truncated one: it does not end with the magic bytes PAR1");
      error.locate_offset(static_cast<int64_t>(size - 4));
      throw error;
    }
    uint32_t footer_length;
    std::memcpy(&footer_length, tail.data(), 4);
    if (footer_length == 0 || footer_length > size - 12) {
      FormatError error("footer length " + std::to_string(footer_length) +
                        " does not fit in the file of " + std::to_string(size) + " bytes");
      error.locate_offset(static_cast<int64_t>(size - 8));
      throw error;
    }
    if (footer_length > kMaxFooterBytes) {
      FormatError error("footer of " + std::to_string(footer_length) +
                        " bytes exceeds the 256 MiB limit");
      error.locate_offset(static_cast<int64_t>(size - 8));
      throw error;
    }
    reader->footer_offset_ = size - 8 - footer_length;
    reader->footer_length_ = footer_length;
    std::vector<uint8_t> footer(footer_length);
    f.read_at(reader->footer_offset_, footer);
    try {
      reader->metadata_ =
          decode_file_metadata(footer, static_cast<int64_t>(reader->footer_offset_));
    } catch (TruncatedError& error) {
      FormatError corrupt("corrupt footer: " + error.message());
      if (error.location().byte_offset) corrupt.locate_offset(*error.location().byte_offset);
      throw corrupt;
    }
    if (reader->metadata_.has_encryption_algorithm) encrypted();
    reader->chunk_padding_ = legacy_chunk_padding(reader->metadata_.created_by);
    reader->schema_ = Schema::from_elements(reader->metadata_.schema);
    size_t leaves = reader->schema_.leaves().size();
    for (size_t g = 0; g < reader->metadata_.row_groups.size(); ++g) {
      const RowGroup& group = reader->metadata_.row_groups[g];
      if (group.columns.size() != leaves) {
        FormatError error("row group has " + std::to_string(group.columns.size()) +
                          " column chunks but the schema has " + std::to_string(leaves) +
                          " leaf columns");
        error.locate_row_group(static_cast<int>(g));
        throw error;
      }
      if (group.num_rows < 0) {
        FormatError error("row group has a negative number of rows");
        error.locate_row_group(static_cast<int>(g));
        throw error;
      }
    }
  } catch (Error& error) {
    error.locate_file(f.name());
    throw;
  }
  return reader;
}

const ColumnChunk& FileReader::chunk(int row_group, int leaf) const {
  if (row_group < 0 || row_group >= num_row_groups()) {
    UsageError error("row group " + std::to_string(row_group) + " does not exist (the file has " +
                     std::to_string(num_row_groups()) + ")");
    error.locate_file(name());
    throw error;
  }
  if (leaf < 0 || static_cast<size_t>(leaf) >= schema_.leaves().size()) {
    UsageError error("leaf column " + std::to_string(leaf) + " does not exist");
    error.locate_file(name());
    throw error;
  }
  return metadata_.row_groups[static_cast<size_t>(row_group)].columns[static_cast<size_t>(leaf)];
}

std::unique_ptr<ColumnReader> FileReader::column(int row_group, int leaf) {
  const ColumnChunk& c = chunk(row_group, leaf);
  auto reader = std::make_unique<ColumnReader>(
      *file_, c, schema_.leaves()[static_cast<size_t>(leaf)], row_group, chunk_padding_);
  if (options_.verify_checksums) reader->set_verify_checksums(true);
  return reader;
}

std::optional<OffsetIndex> FileReader::offset_index(int row_group, int leaf) {
  const ColumnChunk& c = chunk(row_group, leaf);
  try {
    return read_offset_index(*file_, c,
                             metadata_.row_groups[static_cast<size_t>(row_group)].num_rows);
  } catch (Error& error) {
    error.locate_column(schema_.leaves()[static_cast<size_t>(leaf)].dotted_path);
    error.locate_row_group(row_group);
    error.locate_file(name());
    throw;
  }
}

std::optional<ColumnIndex> FileReader::column_index(int row_group, int leaf) {
  const ColumnChunk& c = chunk(row_group, leaf);
  try {
    return read_column_index(*file_, c);
  } catch (Error& error) {
    error.locate_column(schema_.leaves()[static_cast<size_t>(leaf)].dotted_path);
    error.locate_row_group(row_group);
    error.locate_file(name());
    throw;
  }
}

std::optional<OffsetIndex> FileReader::page_locations(int row_group, int leaf) {
  std::optional<OffsetIndex> index = offset_index(row_group, leaf);
  if (index) return index;
  const ColumnChunk& c = chunk(row_group, leaf);
  const ColumnDescriptor& column = schema_.leaves()[static_cast<size_t>(leaf)];
  try {
    return walk_page_locations(*file_, c, column.max_rep,
                               metadata_.row_groups[static_cast<size_t>(row_group)].num_rows,
                               chunk_padding_);
  } catch (Error& error) {
    error.locate_column(column.dotted_path);
    error.locate_row_group(row_group);
    error.locate_file(name());
    throw;
  }
}

}  // namespace kbdata::parquet
