// The footer and page-header structures of parquet.thrift, decoded from the compact protocol.
//
// Field ids in metadata.cc match parquet.thrift. Fields kbdata does not use are skipped; optional
// fields are std::optional. Decoding throws FormatError on malformed input (see
// thrift/compact_reader.h for the limits).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "parquet/types.h"

namespace kbdata::parquet {

struct Statistics {
  std::optional<std::string> max;  // deprecated fields 1-2: signed comparison of the old writers
  std::optional<std::string> min;
  std::optional<int64_t> null_count;
  std::optional<int64_t> distinct_count;
  std::optional<std::string> max_value;  // fields 5-6: in the column's sort order
  std::optional<std::string> min_value;
  std::optional<bool> is_max_value_exact;
  std::optional<bool> is_min_value_exact;
};

struct SchemaElement {
  std::optional<PhysicalType> type;
  std::optional<int32_t> type_length;
  std::optional<Repetition> repetition_type;
  std::string name;
  std::optional<int32_t> num_children;
  std::optional<ConvertedType> converted_type;
  std::optional<int32_t> scale;
  std::optional<int32_t> precision;
  std::optional<int32_t> field_id;
  std::optional<LogicalType> logical_type;
};

struct KeyValue {
  std::string key;
  std::optional<std::string> value;
};

struct PageEncodingStats {
  PageType page_type = PageType::DATA_PAGE;
  Encoding encoding = Encoding::PLAIN;
  int32_t count = 0;
};

struct ColumnMetaData {
  PhysicalType type = PhysicalType::INT32;
  std::vector<Encoding> encodings;
  std::vector<std::string> path_in_schema;
  Codec codec = Codec::UNCOMPRESSED;
  int64_t num_values = 0;
  int64_t total_uncompressed_size = 0;
  int64_t total_compressed_size = 0;
  std::vector<KeyValue> key_value_metadata;
  int64_t data_page_offset = 0;
  std::optional<int64_t> index_page_offset;
  std::optional<int64_t> dictionary_page_offset;
  std::optional<Statistics> statistics;
  std::vector<PageEncodingStats> encoding_stats;
  std::optional<int64_t> bloom_filter_offset;
  std::optional<int32_t> bloom_filter_length;
};

struct ColumnChunk {
  std::optional<std::string> file_path;
  int64_t file_offset = 0;
  std::optional<ColumnMetaData> meta_data;
  std::optional<int64_t> offset_index_offset;
  std::optional<int32_t> offset_index_length;
  std::optional<int64_t> column_index_offset;
  std::optional<int32_t> column_index_length;
  bool has_crypto_metadata = false;            // field 8: the column is encrypted
  bool has_encrypted_column_metadata = false;  // field 9
};

struct SortingColumn {
  int32_t column_idx = 0;
  bool descending = false;
  bool nulls_first = false;
};

struct RowGroup {
  std::vector<ColumnChunk> columns;
  int64_t total_byte_size = 0;
  int64_t num_rows = 0;
  std::vector<SortingColumn> sorting_columns;
  std::optional<int64_t> file_offset;
  std::optional<int64_t> total_compressed_size;
  std::optional<int16_t> ordinal;
};

// ColumnOrder union of parquet.thrift: TYPE_ORDER (field 1) is the only member defined today; any
// other member decodes as UNKNOWN.
enum class ColumnOrder { TYPE_DEFINED, UNKNOWN };

struct FileMetaData {
  int32_t version = 0;
  std::vector<SchemaElement> schema;
  int64_t num_rows = 0;
  std::vector<RowGroup> row_groups;
  std::vector<KeyValue> key_value_metadata;
  std::optional<std::string> created_by;
  std::vector<ColumnOrder> column_orders;  // field 7: one per leaf column, or empty when absent
  bool has_encryption_algorithm = false;   // field 8: plaintext footer of an encrypted file
};

struct DataPageHeader {
  int32_t num_values = 0;
  Encoding encoding = Encoding::PLAIN;
  Encoding definition_level_encoding = Encoding::RLE;
  Encoding repetition_level_encoding = Encoding::RLE;
  std::optional<Statistics> statistics;
};

struct DictionaryPageHeader {
  int32_t num_values = 0;
  Encoding encoding = Encoding::PLAIN;
  std::optional<bool> is_sorted;
};

struct DataPageHeaderV2 {
  int32_t num_values = 0;
  int32_t num_nulls = 0;
  int32_t num_rows = 0;
  Encoding encoding = Encoding::PLAIN;
  int32_t definition_levels_byte_length = 0;
  int32_t repetition_levels_byte_length = 0;
  bool is_compressed = true;
  std::optional<Statistics> statistics;
};

struct PageHeader {
  PageType type = PageType::DATA_PAGE;
  int32_t uncompressed_page_size = 0;
  int32_t compressed_page_size = 0;
  std::optional<int32_t> crc;
  std::optional<DataPageHeader> data_page_header;
  std::optional<DictionaryPageHeader> dictionary_page_header;
  std::optional<DataPageHeaderV2> data_page_header_v2;
};

// The page index of one column chunk (PageIndex.md): where each data page starts and which rows
// it holds (OffsetIndex), and per-page min/max/null statistics (ColumnIndex). Decoded as stored;
// parquet/page_index.h validates them against the chunk.
struct PageLocation {
  int64_t offset = 0;                // file offset of the page header
  int32_t compressed_page_size = 0;  // header included
  int64_t first_row_index = 0;       // index of the page's first row within the row group
};

struct OffsetIndex {
  std::vector<PageLocation> page_locations;
  std::vector<int64_t> unencoded_byte_array_data_bytes;  // optional field 2; empty when absent
};

enum class BoundaryOrder : int32_t { UNORDERED = 0, ASCENDING = 1, DESCENDING = 2 };

struct ColumnIndex {
  std::vector<bool> null_pages;
  std::vector<std::string> min_values;  // PLAIN bytes of one value, as in Statistics.min_value
  std::vector<std::string> max_values;
  BoundaryOrder boundary_order = BoundaryOrder::UNORDERED;
  std::optional<std::vector<int64_t>> null_counts;
};

// Decodes an OffsetIndex / ColumnIndex from `bytes` (borrowed). `base_offset` is their offset in
// the file, for error locations. Throws FormatError if malformed or if required fields are missing.
[[nodiscard]] OffsetIndex decode_offset_index(std::span<const uint8_t> bytes, int64_t base_offset);
[[nodiscard]] ColumnIndex decode_column_index(std::span<const uint8_t> bytes, int64_t base_offset);

// The encoders (metadata_encode.cc) mirror the decoders: each appends one compact-protocol struct
// to `out`, writing every field the C++ struct holds with the ids the decoder reads, optional
// fields only when set (an optional list only when non-empty). decode(encode(x)) == x, except:
// - FileMetaData::has_encryption_algorithm and ColumnChunk::has_crypto_metadata /
//   has_encrypted_column_metadata are not written (the decoder keeps only a flag, not the
//   contents), so they decode as false;
// - a SchemaElement::logical_type of Kind::NONE is omitted and decodes as std::nullopt;
// - LogicalType parameters of kinds other than `kind` are not written and decode as defaults.
// REQUIRES: every list has fewer than 2^32 elements.
void encode_offset_index(const OffsetIndex& index, std::vector<uint8_t>& out);
void encode_column_index(const ColumnIndex& index, std::vector<uint8_t>& out);

// Decodes the FileMetaData from the footer bytes (borrowed). `base_offset` is the footer's offset
// in the file, for error locations.
[[nodiscard]] FileMetaData decode_file_metadata(std::span<const uint8_t> bytes,
                                                int64_t base_offset);

// Decodes a page header at the start of `bytes`. Returns the header and sets `header_size` to the
// number of bytes it took. Throws TruncatedError if the bytes end before the header does (the
// caller may retry with more bytes), FormatError if they are malformed.
[[nodiscard]] PageHeader decode_page_header(std::span<const uint8_t> bytes, int64_t base_offset,
                                            size_t& header_size);

// Encoders of the footer and of a page header: see encode_offset_index() for the contract.
void encode_file_metadata(const FileMetaData& metadata, std::vector<uint8_t>& out);
void encode_page_header(const PageHeader& header, std::vector<uint8_t>& out);

}  // namespace kbdata::parquet
