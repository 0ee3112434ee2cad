// The encoding half of metadata.h: each encoder mirrors a decoder of metadata.cc, field for field,
// with the ids of parquet.thrift. Fields are written in increasing id order; optional fields only
// when set (std::optional engaged, or an optional list non-empty).
#include <cstdint>
#include <string>
#include <vector>

#include "parquet/metadata.h"
#include "parquet/thrift/compact_writer.h"

namespace kbdata::parquet {
namespace {

using thrift::CompactWriter;
using thrift::Type;

template <typename Enum>
int32_t enum_value(Enum value) {
  return static_cast<int32_t>(value);
}

uint32_t list_size(size_t size) { return static_cast<uint32_t>(size); }

// Writes a list field of structs, each encoded with `write_element(w, element)`.
template <typename T, typename WriteElement>
void write_struct_list(CompactWriter& w, int16_t id, const std::vector<T>& items,
                       WriteElement write_element) {
  w.write_list_field(id, Type::STRUCT, list_size(items.size()));
  for (const T& item : items) write_element(w, item);
}

// An empty struct as the value of field `id`: how the LogicalType union and TimeUnit mark a member
// that carries no parameters.
void write_empty_struct_field(CompactWriter& w, int16_t id) {
  w.begin_struct_field(id);
  w.end_struct();
}

void write_statistics(CompactWriter& w, const Statistics& s) {
  w.begin_struct();
  if (s.max) w.write_string_field(1, *s.max);
  if (s.min) w.write_string_field(2, *s.min);
  if (s.null_count) w.write_i64_field(3, *s.null_count);
  if (s.distinct_count) w.write_i64_field(4, *s.distinct_count);
  if (s.max_value) w.write_string_field(5, *s.max_value);
  if (s.min_value) w.write_string_field(6, *s.min_value);
  if (s.is_max_value_exact) w.write_bool_field(7, *s.is_max_value_exact);
  if (s.is_min_value_exact) w.write_bool_field(8, *s.is_min_value_exact);
  w.end_struct();
}

int16_t time_unit_id(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::MILLIS:
      return 1;
    case TimeUnit::MICROS:
      return 2;
    case TimeUnit::NANOS:
      return 3;
  }
  return 1;
}

// The TimeType / TimestampType struct as the value of field `id`: 1: isAdjustedToUTC, 2: unit (a
// union of empty structs).
void write_time_field(CompactWriter& w, int16_t id, const LogicalType& t) {
  w.begin_struct_field(id);
  w.write_bool_field(1, t.is_adjusted_to_utc);
  w.begin_struct_field(2);
  write_empty_struct_field(w, time_unit_id(t.unit));
  w.end_struct();
  w.end_struct();
}

// The LogicalType union: one member, its id as in parquet.thrift. Only the parameters of `t.kind`
// are written. UNRECOGNISED (and NONE, which callers omit instead) is written as a union with no
// member set, which decodes back to UNRECOGNISED. VARIANT, GEOMETRY and GEOGRAPHY are written
// without their optional parameters, which LogicalType does not hold.
void write_logical_type(CompactWriter& w, const LogicalType& t) {
  using K = LogicalType::Kind;
  w.begin_struct();
  switch (t.kind) {
    case K::NONE:
    case K::UNRECOGNISED:
      break;
    case K::STRING:
      write_empty_struct_field(w, 1);
      break;
    case K::MAP:
      write_empty_struct_field(w, 2);
      break;
    case K::LIST:
      write_empty_struct_field(w, 3);
      break;
    case K::ENUM:
      write_empty_struct_field(w, 4);
      break;
    case K::DECIMAL:
      w.begin_struct_field(5);
      w.write_i32_field(1, t.decimal_scale);
      w.write_i32_field(2, t.decimal_precision);
      w.end_struct();
      break;
    case K::DATE:
      write_empty_struct_field(w, 6);
      break;
    case K::TIME:
      write_time_field(w, 7, t);
      break;
    case K::TIMESTAMP:
      write_time_field(w, 8, t);
      break;
    case K::INTEGER:
      w.begin_struct_field(10);
      w.write_i8_field(1, t.bit_width);
      w.write_bool_field(2, t.is_signed);
      w.end_struct();
      break;
    case K::UNKNOWN:
      write_empty_struct_field(w, 11);
      break;
    case K::JSON:
      write_empty_struct_field(w, 12);
      break;
    case K::BSON:
      write_empty_struct_field(w, 13);
      break;
    case K::UUID:
      write_empty_struct_field(w, 14);
      break;
    case K::FLOAT16:
      write_empty_struct_field(w, 15);
      break;
    case K::VARIANT:
      write_empty_struct_field(w, 16);
      break;
    case K::GEOMETRY:
      write_empty_struct_field(w, 17);
      break;
    case K::GEOGRAPHY:
      write_empty_struct_field(w, 18);
      break;
  }
  w.end_struct();
}

void write_schema_element(CompactWriter& w, const SchemaElement& e) {
  w.begin_struct();
  if (e.type) w.write_i32_field(1, enum_value(*e.type));
  if (e.type_length) w.write_i32_field(2, *e.type_length);
  if (e.repetition_type) w.write_i32_field(3, enum_value(*e.repetition_type));
  w.write_string_field(4, e.name);
  if (e.num_children) w.write_i32_field(5, *e.num_children);
  if (e.converted_type) w.write_i32_field(6, enum_value(*e.converted_type));
  if (e.scale) w.write_i32_field(7, *e.scale);
  if (e.precision) w.write_i32_field(8, *e.precision);
  if (e.field_id) w.write_i32_field(9, *e.field_id);
  // Kind::NONE means "no annotation": the field is omitted, so it decodes as std::nullopt.
  if (e.logical_type && e.logical_type->kind != LogicalType::Kind::NONE) {
    w.write_struct_field_header(10);
    write_logical_type(w, *e.logical_type);
  }
  w.end_struct();
}

void write_key_value(CompactWriter& w, const KeyValue& kv) {
  w.begin_struct();
  w.write_string_field(1, kv.key);
  if (kv.value) w.write_string_field(2, *kv.value);
  w.end_struct();
}

void write_page_encoding_stats(CompactWriter& w, const PageEncodingStats& s) {
  w.begin_struct();
  w.write_i32_field(1, enum_value(s.page_type));
  w.write_i32_field(2, enum_value(s.encoding));
  w.write_i32_field(3, s.count);
  w.end_struct();
}

void write_column_metadata(CompactWriter& w, const ColumnMetaData& m) {
  w.begin_struct();
  w.write_i32_field(1, enum_value(m.type));
  w.write_list_field(2, Type::I32, list_size(m.encodings.size()));
  for (Encoding encoding : m.encodings) w.write_i32_element(enum_value(encoding));
  w.write_list_field(3, Type::BINARY, list_size(m.path_in_schema.size()));
  for (const std::string& part : m.path_in_schema) w.write_string_element(part);
  w.write_i32_field(4, enum_value(m.codec));
  w.write_i64_field(5, m.num_values);
  w.write_i64_field(6, m.total_uncompressed_size);
  w.write_i64_field(7, m.total_compressed_size);
  if (!m.key_value_metadata.empty()) {
    write_struct_list(w, 8, m.key_value_metadata, write_key_value);
  }
  w.write_i64_field(9, m.data_page_offset);
  if (m.index_page_offset) w.write_i64_field(10, *m.index_page_offset);
  if (m.dictionary_page_offset) w.write_i64_field(11, *m.dictionary_page_offset);
  if (m.statistics) {
    w.write_struct_field_header(12);
    write_statistics(w, *m.statistics);
  }
  if (!m.encoding_stats.empty()) {
    write_struct_list(w, 13, m.encoding_stats, write_page_encoding_stats);
  }
  if (m.bloom_filter_offset) w.write_i64_field(14, *m.bloom_filter_offset);
  if (m.bloom_filter_length) w.write_i32_field(15, *m.bloom_filter_length);
  w.end_struct();
}

// Fields 8 (crypto_metadata) and 9 (encrypted_column_metadata) are not written: the decoder keeps
// only whether they were present, not their contents, and kbdata writes no encrypted files.
void write_column_chunk(CompactWriter& w, const ColumnChunk& c) {
  w.begin_struct();
  if (c.file_path) w.write_string_field(1, *c.file_path);
  w.write_i64_field(2, c.file_offset);
  if (c.meta_data) {
    w.write_struct_field_header(3);
    write_column_metadata(w, *c.meta_data);
  }
  if (c.offset_index_offset) w.write_i64_field(4, *c.offset_index_offset);
  if (c.offset_index_length) w.write_i32_field(5, *c.offset_index_length);
  if (c.column_index_offset) w.write_i64_field(6, *c.column_index_offset);
  if (c.column_index_length) w.write_i32_field(7, *c.column_index_length);
  w.end_struct();
}

void write_sorting_column(CompactWriter& w, const SortingColumn& s) {
  w.begin_struct();
  w.write_i32_field(1, s.column_idx);
  w.write_bool_field(2, s.descending);
  w.write_bool_field(3, s.nulls_first);
  w.end_struct();
}

void write_row_group(CompactWriter& w, const RowGroup& g) {
  w.begin_struct();
  write_struct_list(w, 1, g.columns, write_column_chunk);
  w.write_i64_field(2, g.total_byte_size);
  w.write_i64_field(3, g.num_rows);
  if (!g.sorting_columns.empty()) write_struct_list(w, 4, g.sorting_columns, write_sorting_column);
  if (g.file_offset) w.write_i64_field(5, *g.file_offset);
  if (g.total_compressed_size) w.write_i64_field(6, *g.total_compressed_size);
  if (g.ordinal) w.write_i16_field(7, *g.ordinal);
  w.end_struct();
}

void write_data_page_header(CompactWriter& w, const DataPageHeader& h) {
  w.begin_struct();
  w.write_i32_field(1, h.num_values);
  w.write_i32_field(2, enum_value(h.encoding));
  w.write_i32_field(3, enum_value(h.definition_level_encoding));
  w.write_i32_field(4, enum_value(h.repetition_level_encoding));
  if (h.statistics) {
    w.write_struct_field_header(5);
    write_statistics(w, *h.statistics);
  }
  w.end_struct();
}

void write_dictionary_page_header(CompactWriter& w, const DictionaryPageHeader& h) {
  w.begin_struct();
  w.write_i32_field(1, h.num_values);
  w.write_i32_field(2, enum_value(h.encoding));
  if (h.is_sorted) w.write_bool_field(3, *h.is_sorted);
  w.end_struct();
}

// is_compressed (optional in parquet.thrift, default true) is always written.
void write_data_page_header_v2(CompactWriter& w, const DataPageHeaderV2& h) {
  w.begin_struct();
  w.write_i32_field(1, h.num_values);
  w.write_i32_field(2, h.num_nulls);
  w.write_i32_field(3, h.num_rows);
  w.write_i32_field(4, enum_value(h.encoding));
  w.write_i32_field(5, h.definition_levels_byte_length);
  w.write_i32_field(6, h.repetition_levels_byte_length);
  w.write_bool_field(7, h.is_compressed);
  if (h.statistics) {
    w.write_struct_field_header(8);
    write_statistics(w, *h.statistics);
  }
  w.end_struct();
}

void write_page_location(CompactWriter& w, const PageLocation& p) {
  w.begin_struct();
  w.write_i64_field(1, p.offset);
  w.write_i32_field(2, p.compressed_page_size);
  w.write_i64_field(3, p.first_row_index);
  w.end_struct();
}

}  // namespace

void encode_offset_index(const OffsetIndex& index, std::vector<uint8_t>& out) {
  CompactWriter w(out);
  w.begin_struct();
  write_struct_list(w, 1, index.page_locations, write_page_location);
  if (!index.unencoded_byte_array_data_bytes.empty()) {
    w.write_list_field(2, Type::I64, list_size(index.unencoded_byte_array_data_bytes.size()));
    for (int64_t bytes : index.unencoded_byte_array_data_bytes) w.write_i64_element(bytes);
  }
  w.end_struct();
}

void encode_column_index(const ColumnIndex& index, std::vector<uint8_t>& out) {
  CompactWriter w(out);
  w.begin_struct();
  w.write_list_field(1, Type::BOOL_TRUE, list_size(index.null_pages.size()));
  for (bool null_page : index.null_pages) w.write_bool_element(null_page);
  w.write_list_field(2, Type::BINARY, list_size(index.min_values.size()));
  for (const std::string& value : index.min_values) w.write_string_element(value);
  w.write_list_field(3, Type::BINARY, list_size(index.max_values.size()));
  for (const std::string& value : index.max_values) w.write_string_element(value);
  w.write_i32_field(4, enum_value(index.boundary_order));
  if (index.null_counts) {
    w.write_list_field(5, Type::I64, list_size(index.null_counts->size()));
    for (int64_t count : *index.null_counts) w.write_i64_element(count);
  }
  w.end_struct();
}

void encode_file_metadata(const FileMetaData& metadata, std::vector<uint8_t>& out) {
  CompactWriter w(out);
  w.begin_struct();
  w.write_i32_field(1, metadata.version);
  write_struct_list(w, 2, metadata.schema, write_schema_element);
  w.write_i64_field(3, metadata.num_rows);
  write_struct_list(w, 4, metadata.row_groups, write_row_group);
  if (!metadata.key_value_metadata.empty()) {
    write_struct_list(w, 5, metadata.key_value_metadata, write_key_value);
  }
  if (metadata.created_by) w.write_string_field(6, *metadata.created_by);
  if (!metadata.column_orders.empty()) {
    // UNKNOWN has no member to write: it is encoded as TYPE_ORDER's neighbour, an empty union,
    // which decodes as UNKNOWN again.
    write_struct_list(w, 7, metadata.column_orders, [](CompactWriter& cw, ColumnOrder order) {
      cw.begin_struct();
      if (order == ColumnOrder::TYPE_DEFINED) write_empty_struct_field(cw, 1);
      cw.end_struct();
    });
  }
  w.end_struct();
}

void encode_page_header(const PageHeader& header, std::vector<uint8_t>& out) {
  CompactWriter w(out);
  w.begin_struct();
  w.write_i32_field(1, enum_value(header.type));
  w.write_i32_field(2, header.uncompressed_page_size);
  w.write_i32_field(3, header.compressed_page_size);
  if (header.crc) w.write_i32_field(4, *header.crc);
  if (header.data_page_header) {
    w.write_struct_field_header(5);
    write_data_page_header(w, *header.data_page_header);
  }
  if (header.dictionary_page_header) {
    w.write_struct_field_header(7);
    write_dictionary_page_header(w, *header.dictionary_page_header);
  }
  if (header.data_page_header_v2) {
    w.write_struct_field_header(8);
    write_data_page_header_v2(w, *header.data_page_header_v2);
  }
  w.end_struct();
}

}  // namespace kbdata::parquet
