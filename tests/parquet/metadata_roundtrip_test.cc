// The metadata encoders against the decoders: hand-computed compact-protocol bytes for
// CompactWriter, field-by-field round trips of rich structs, and re-encoding of the footers of
// every test file.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "common/byte_cursor.h"
#include "parquet/metadata.h"
#include "parquet/thrift/compact_reader.h"
#include "parquet/thrift/compact_writer.h"

namespace kbdata::parquet {
namespace {

using Bytes = std::vector<uint8_t>;
using thrift::CompactWriter;
using thrift::Type;

constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();
constexpr int32_t kI32Min = std::numeric_limits<int32_t>::min();
constexpr int32_t kI32Max = std::numeric_limits<int32_t>::max();

// ---- CompactWriter against hand-computed bytes ----

TEST(CompactWriter, I32FieldIsShortHeaderThenZigzag) {
  Bytes out;
  CompactWriter w(out);
  w.begin_struct();
  w.write_i32_field(1, -5);
  w.end_struct();
  EXPECT_EQ(out, (Bytes{0x15, 0x09, 0x00}));
}

TEST(CompactWriter, AppendsToExistingBytes) {
  Bytes out{0xAA};
  CompactWriter w(out);
  w.begin_struct();
  w.end_struct();
  EXPECT_EQ(out, (Bytes{0xAA, 0x00}));
  EXPECT_EQ(w.depth(), 0u);
}

TEST(CompactWriter, FieldIdDeltaAndLongForm) {
  Bytes out;
  CompactWriter w(out);
  w.begin_struct();
  w.write_i32_field(1, 1);    // delta 1
  w.write_i32_field(16, 2);   // delta 15: still short
  w.write_i32_field(32, 3);   // delta 16: long form, zigzag(32) = 64
  w.write_i32_field(3, 4);    // backwards: long form, zigzag(3) = 6
  w.write_i32_field(-1, 5);   // negative id: long form, zigzag(-1) = 1
  w.write_i32_field(300, 6);  // long form, zigzag(300) = 600 = 0xD8 0x04
  w.end_struct();
  EXPECT_EQ(out, (Bytes{0x15, 0x02, 0xF5, 0x04, 0x05, 0x40, 0x06, 0x05, 0x06, 0x08, 0x05, 0x01,
                        0x0A, 0x05, 0xD8, 0x04, 0x0C, 0x00}));
}

TEST(CompactWriter, NestedStructRestoresLastFieldId) {
  Bytes out;
  CompactWriter w(out);
  w.begin_struct();
  w.write_i32_field(1, 1);
  w.begin_struct_field(2);
  w.write_i32_field(1, 2);
  w.write_i32_field(5, 3);
  w.end_struct();
  w.write_i32_field(3, 3);  // delta 1 from 2, not from the inner 5
  w.end_struct();
  EXPECT_EQ(out, (Bytes{0x15, 0x02, 0x1C, 0x15, 0x04, 0x45, 0x06, 0x00, 0x15, 0x06, 0x00}));
}

TEST(CompactWriter, BoolFieldsCarryTheValueInTheTypeNibble) {
  Bytes out;
  CompactWriter w(out);
  w.begin_struct();
  w.write_bool_field(1, true);
  w.write_bool_field(2, false);
  w.write_bool_field(40, true);  // long form: type byte, zigzag(40) = 80
  w.end_struct();
  EXPECT_EQ(out, (Bytes{0x11, 0x12, 0x01, 0x50, 0x00}));
}

TEST(CompactWriter, IntegerWidths) {
  Bytes out;
  CompactWriter w(out);
  w.begin_struct();
  w.write_i8_field(1, -2);        // raw byte
  w.write_i16_field(2, -32768);   // zigzag 65535
  w.write_i64_field(3, kI64Min);  // zigzag 2^64 - 1
  w.write_i64_field(4, kI64Max);  // zigzag 2^64 - 2
  w.write_i64_field(5, 0);
  w.write_i32_field(6, kI32Min);  // zigzag 2^32 - 1
  w.end_struct();
  EXPECT_EQ(out, (Bytes{0x13, 0xFE,                                                        //
                        0x14, 0xFF, 0xFF, 0x03,                                            //
                        0x16, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01,  //
                        0x16, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01,  //
                        0x16, 0x00,                                                        //
                        0x15, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F,                                //
                        0x00}));
}

TEST(CompactWriter, BinaryAndStringFields) {
  Bytes out;
  CompactWriter w(out);
  w.begin_struct();
  w.write_string_field(1, "abc");
  const uint8_t raw[] = {0x00, 0xFF};
  w.write_binary_field(2, raw);
  w.write_string_field(3, "");
  w.end_struct();
  EXPECT_EQ(out, (Bytes{0x18, 0x03, 'a', 'b', 'c', 0x18, 0x02, 0x00, 0xFF, 0x18, 0x00, 0x00}));
}

TEST(CompactWriter, ListHeaders) {
  Bytes out;
  CompactWriter w(out);
  w.write_list_header(Type::I32, 0);
  w.write_list_header(Type::I32, 14);
  w.write_list_header(Type::I64, 15);
  w.write_list_header(Type::STRUCT, 300);
  w.write_list_header(Type::BOOL_FALSE, 1);  // bools announced as BOOL_TRUE
  EXPECT_EQ(out, (Bytes{0x05, 0xE5, 0xF6, 0x0F, 0xFC, 0xAC, 0x02, 0x11}));
}

TEST(CompactWriter, ListFieldAndElements) {
  Bytes out;
  CompactWriter w(out);
  w.begin_struct();
  w.write_list_field(1, Type::BOOL_TRUE, 2);
  w.write_bool_element(true);
  w.write_bool_element(false);
  w.write_list_field(2, Type::BINARY, 1);
  w.write_string_element("x");
  w.write_list_field(3, Type::STRUCT, 1);
  w.begin_struct();
  w.write_i64_field(1, -1);
  w.end_struct();
  w.write_list_field(4, Type::BYTE, 2);
  w.write_i8_element(7);
  w.write_i16_element(-1);  // element types are the caller's business; here just the bytes
  w.end_struct();
  EXPECT_EQ(out, (Bytes{0x19, 0x21, 0x01, 0x02, 0x19, 0x18, 0x01, 'x', 0x19, 0x1C, 0x16, 0x01, 0x00,
                        0x19, 0x23, 0x07, 0x01, 0x00}));
}

TEST(CompactWriter, ReaderReadsWhatWriterWrote) {
  Bytes out;
  CompactWriter w(out);
  w.begin_struct();
  w.write_i64_field(7, kI64Min);
  w.write_bool_field(100, false);
  w.write_string_field(2, "hello");
  w.write_list_field(20, Type::I64, 300);
  for (int i = 0; i < 300; ++i) w.write_i64_element(i % 2 ? kI64Max : -i);
  w.write_i16_field(21, 12345);
  w.end_struct();

  ByteCursor cursor(out);
  thrift::CompactReader r(cursor);
  r.begin_struct();
  thrift::FieldHeader f;
  ASSERT_TRUE(r.next_field(f));
  EXPECT_EQ(f.id, 7);
  EXPECT_EQ(r.read_i64(f, "a"), kI64Min);
  ASSERT_TRUE(r.next_field(f));
  EXPECT_EQ(f.id, 100);
  EXPECT_FALSE(r.read_bool(f, "b"));
  ASSERT_TRUE(r.next_field(f));
  EXPECT_EQ(f.id, 2);
  EXPECT_EQ(r.read_string(f, "c"), "hello");
  ASSERT_TRUE(r.next_field(f));
  EXPECT_EQ(f.id, 20);
  thrift::ListHeader list = r.read_list(f, "d");
  ASSERT_EQ(list.size, 300u);
  EXPECT_EQ(list.element_type, Type::I64);
  for (int i = 0; i < 300; ++i) EXPECT_EQ(r.read_i64_element("d"), i % 2 ? kI64Max : -i);
  ASSERT_TRUE(r.next_field(f));
  EXPECT_EQ(f.id, 21);
  EXPECT_EQ(r.read_i16(f, "e"), 12345);
  EXPECT_FALSE(r.next_field(f));
  r.end_struct();
  EXPECT_TRUE(cursor.at_end());
}

// ---- Field-by-field comparison ----

template <typename T>
void check(const T& a, const T& b, const std::string& path) {
  if (!(a == b)) ADD_FAILURE() << path << " differs";
}
void check(const LogicalType& a, const LogicalType& b, const std::string& path);
void check(const Statistics& a, const Statistics& b, const std::string& path);
void check(const SchemaElement& a, const SchemaElement& b, const std::string& path);
void check(const KeyValue& a, const KeyValue& b, const std::string& path);
void check(const PageEncodingStats& a, const PageEncodingStats& b, const std::string& path);
void check(const ColumnMetaData& a, const ColumnMetaData& b, const std::string& path);
void check(const ColumnChunk& a, const ColumnChunk& b, const std::string& path);
void check(const SortingColumn& a, const SortingColumn& b, const std::string& path);
void check(const RowGroup& a, const RowGroup& b, const std::string& path);
void check(const FileMetaData& a, const FileMetaData& b, const std::string& path);
void check(const DataPageHeader& a, const DataPageHeader& b, const std::string& path);
void check(const DictionaryPageHeader& a, const DictionaryPageHeader& b, const std::string& path);
void check(const DataPageHeaderV2& a, const DataPageHeaderV2& b, const std::string& path);
void check(const PageHeader& a, const PageHeader& b, const std::string& path);
void check(const PageLocation& a, const PageLocation& b, const std::string& path);
void check(const OffsetIndex& a, const OffsetIndex& b, const std::string& path);
void check(const ColumnIndex& a, const ColumnIndex& b, const std::string& path);

template <typename T>
void check(const std::optional<T>& a, const std::optional<T>& b, const std::string& path) {
  if (a.has_value() != b.has_value()) {
    ADD_FAILURE() << path << (a ? " is set on the left only" : " is set on the right only");
    return;
  }
  if (a) check(*a, *b, path);
}

template <typename T>
void check(const std::vector<T>& a, const std::vector<T>& b, const std::string& path) {
  if (a.size() != b.size()) {
    ADD_FAILURE() << path << " has " << a.size() << " vs " << b.size() << " elements";
    return;
  }
  for (size_t i = 0; i < a.size(); ++i) {
    if constexpr (std::is_same_v<T, bool>) {
      check<bool>(a[i], b[i], path + "[" + std::to_string(i) + "]");
    } else {
      check(a[i], b[i], path + "[" + std::to_string(i) + "]");
    }
  }
}

#define CHECK_FIELD(name) check(a.name, b.name, path + "." #name)

void check(const LogicalType& a, const LogicalType& b, const std::string& path) {
  CHECK_FIELD(kind);
  CHECK_FIELD(decimal_scale);
  CHECK_FIELD(decimal_precision);
  CHECK_FIELD(is_adjusted_to_utc);
  CHECK_FIELD(unit);
  CHECK_FIELD(bit_width);
  CHECK_FIELD(is_signed);
}
void check(const Statistics& a, const Statistics& b, const std::string& path) {
  CHECK_FIELD(max);
  CHECK_FIELD(min);
  CHECK_FIELD(null_count);
  CHECK_FIELD(distinct_count);
  CHECK_FIELD(max_value);
  CHECK_FIELD(min_value);
  CHECK_FIELD(is_max_value_exact);
  CHECK_FIELD(is_min_value_exact);
}
void check(const SchemaElement& a, const SchemaElement& b, const std::string& path) {
  CHECK_FIELD(type);
  CHECK_FIELD(type_length);
  CHECK_FIELD(repetition_type);
  CHECK_FIELD(name);
  CHECK_FIELD(num_children);
  CHECK_FIELD(converted_type);
  CHECK_FIELD(scale);
  CHECK_FIELD(precision);
  CHECK_FIELD(field_id);
  CHECK_FIELD(logical_type);
}
void check(const KeyValue& a, const KeyValue& b, const std::string& path) {
  CHECK_FIELD(key);
  CHECK_FIELD(value);
}
void check(const PageEncodingStats& a, const PageEncodingStats& b, const std::string& path) {
  CHECK_FIELD(page_type);
  CHECK_FIELD(encoding);
  CHECK_FIELD(count);
}
void check(const ColumnMetaData& a, const ColumnMetaData& b, const std::string& path) {
  CHECK_FIELD(type);
  CHECK_FIELD(encodings);
  CHECK_FIELD(path_in_schema);
  CHECK_FIELD(codec);
  CHECK_FIELD(num_values);
  CHECK_FIELD(total_uncompressed_size);
  CHECK_FIELD(total_compressed_size);
  CHECK_FIELD(key_value_metadata);
  CHECK_FIELD(data_page_offset);
  CHECK_FIELD(index_page_offset);
  CHECK_FIELD(dictionary_page_offset);
  CHECK_FIELD(statistics);
  CHECK_FIELD(encoding_stats);
  CHECK_FIELD(bloom_filter_offset);
  CHECK_FIELD(bloom_filter_length);
}
void check(const ColumnChunk& a, const ColumnChunk& b, const std::string& path) {
  CHECK_FIELD(file_path);
  CHECK_FIELD(file_offset);
  CHECK_FIELD(meta_data);
  CHECK_FIELD(offset_index_offset);
  CHECK_FIELD(offset_index_length);
  CHECK_FIELD(column_index_offset);
  CHECK_FIELD(column_index_length);
  CHECK_FIELD(has_crypto_metadata);
  CHECK_FIELD(has_encrypted_column_metadata);
}
void check(const SortingColumn& a, const SortingColumn& b, const std::string& path) {
  CHECK_FIELD(column_idx);
  CHECK_FIELD(descending);
  CHECK_FIELD(nulls_first);
}
void check(const RowGroup& a, const RowGroup& b, const std::string& path) {
  CHECK_FIELD(columns);
  CHECK_FIELD(total_byte_size);
  CHECK_FIELD(num_rows);
  CHECK_FIELD(sorting_columns);
  CHECK_FIELD(file_offset);
  CHECK_FIELD(total_compressed_size);
  CHECK_FIELD(ordinal);
}
void check(const FileMetaData& a, const FileMetaData& b, const std::string& path) {
  CHECK_FIELD(version);
  CHECK_FIELD(schema);
  CHECK_FIELD(num_rows);
  CHECK_FIELD(row_groups);
  CHECK_FIELD(key_value_metadata);
  CHECK_FIELD(created_by);
  CHECK_FIELD(column_orders);
  CHECK_FIELD(has_encryption_algorithm);
}
void check(const DataPageHeader& a, const DataPageHeader& b, const std::string& path) {
  CHECK_FIELD(num_values);
  CHECK_FIELD(encoding);
  CHECK_FIELD(definition_level_encoding);
  CHECK_FIELD(repetition_level_encoding);
  CHECK_FIELD(statistics);
}
void check(const DictionaryPageHeader& a, const DictionaryPageHeader& b, const std::string& path) {
  CHECK_FIELD(num_values);
  CHECK_FIELD(encoding);
  CHECK_FIELD(is_sorted);
}
void check(const DataPageHeaderV2& a, const DataPageHeaderV2& b, const std::string& path) {
  CHECK_FIELD(num_values);
  CHECK_FIELD(num_nulls);
  CHECK_FIELD(num_rows);
  CHECK_FIELD(encoding);
  CHECK_FIELD(definition_levels_byte_length);
  CHECK_FIELD(repetition_levels_byte_length);
  CHECK_FIELD(is_compressed);
  CHECK_FIELD(statistics);
}
void check(const PageHeader& a, const PageHeader& b, const std::string& path) {
  CHECK_FIELD(type);
  CHECK_FIELD(uncompressed_page_size);
  CHECK_FIELD(compressed_page_size);
  CHECK_FIELD(crc);
  CHECK_FIELD(data_page_header);
  CHECK_FIELD(dictionary_page_header);
  CHECK_FIELD(data_page_header_v2);
}
void check(const PageLocation& a, const PageLocation& b, const std::string& path) {
  CHECK_FIELD(offset);
  CHECK_FIELD(compressed_page_size);
  CHECK_FIELD(first_row_index);
}
void check(const OffsetIndex& a, const OffsetIndex& b, const std::string& path) {
  CHECK_FIELD(page_locations);
  CHECK_FIELD(unencoded_byte_array_data_bytes);
}
void check(const ColumnIndex& a, const ColumnIndex& b, const std::string& path) {
  CHECK_FIELD(null_pages);
  CHECK_FIELD(min_values);
  CHECK_FIELD(max_values);
  CHECK_FIELD(boundary_order);
  CHECK_FIELD(null_counts);
}

#undef CHECK_FIELD

// ---- Encode / decode helpers ----

Bytes encode(const FileMetaData& m) {
  Bytes out;
  encode_file_metadata(m, out);
  return out;
}
Bytes encode(const PageHeader& h) {
  Bytes out;
  encode_page_header(h, out);
  return out;
}
Bytes encode(const OffsetIndex& i) {
  Bytes out;
  encode_offset_index(i, out);
  return out;
}
Bytes encode(const ColumnIndex& i) {
  Bytes out;
  encode_column_index(i, out);
  return out;
}

FileMetaData decode_metadata(const Bytes& bytes) { return decode_file_metadata(bytes, 0); }
PageHeader decode_page(const Bytes& bytes) {
  size_t size = 0;
  PageHeader h = decode_page_header(bytes, 0, size);
  EXPECT_EQ(size, bytes.size()) << "page header not decoded to its end";
  return h;
}

// ---- Rich structs ----

std::string text(size_t i) { return "s" + std::to_string(i); }

Statistics full_statistics(int salt) {
  Statistics s;
  s.max = std::string("\x00\xFF max", 6) + std::to_string(salt);
  s.min = "";
  s.null_count = kI64Max;
  s.distinct_count = kI64Min;
  s.max_value = std::string(300, 'z');
  s.min_value = std::string("\0", 1);
  s.is_max_value_exact = true;
  s.is_min_value_exact = false;
  return s;
}

std::vector<LogicalType> every_logical_type() {
  using K = LogicalType::Kind;
  std::vector<LogicalType> out;
  for (K kind : {K::STRING, K::MAP, K::LIST, K::ENUM, K::DATE, K::UNKNOWN, K::JSON, K::BSON,
                 K::UUID, K::FLOAT16, K::VARIANT, K::GEOMETRY, K::GEOGRAPHY, K::UNRECOGNISED}) {
    LogicalType t;
    t.kind = kind;
    out.push_back(t);
  }
  LogicalType decimal;
  decimal.kind = K::DECIMAL;
  decimal.decimal_scale = -3;
  decimal.decimal_precision = kI32Max;
  out.push_back(decimal);
  for (K kind : {K::TIME, K::TIMESTAMP}) {
    for (TimeUnit unit : {TimeUnit::MILLIS, TimeUnit::MICROS, TimeUnit::NANOS}) {
      for (bool utc : {true, false}) {
        LogicalType t;
        t.kind = kind;
        t.unit = unit;
        t.is_adjusted_to_utc = utc;
        out.push_back(t);
      }
    }
  }
  for (int8_t width : {8, 16, 32, 64, -128, 127}) {
    for (bool is_signed : {true, false}) {
      LogicalType t;
      t.kind = K::INTEGER;
      t.bit_width = width;
      t.is_signed = is_signed;
      out.push_back(t);
    }
  }
  return out;
}

std::vector<KeyValue> key_values(size_t n) {
  std::vector<KeyValue> out;
  for (size_t i = 0; i < n; ++i) {
    KeyValue kv;
    kv.key = "k" + std::to_string(i);
    if (i % 3 != 0) kv.value = std::string(i % 7, 'v');
    out.push_back(kv);
  }
  return out;
}

ColumnMetaData full_column_metadata(size_t list_length) {
  ColumnMetaData m;
  m.type = PhysicalType::FIXED_LEN_BYTE_ARRAY;
  for (size_t i = 0; i < list_length; ++i) m.encodings.push_back(static_cast<Encoding>(i % 10));
  for (size_t i = 0; i < list_length; ++i) m.path_in_schema.push_back(text(i));
  m.codec = Codec::LZ4_RAW;
  m.num_values = kI64Max;
  m.total_uncompressed_size = kI64Min;
  m.total_compressed_size = -1;
  m.key_value_metadata = key_values(list_length);
  m.data_page_offset = 4;
  m.index_page_offset = kI64Min;
  m.dictionary_page_offset = kI64Max;
  m.statistics = full_statistics(static_cast<int>(list_length));
  for (size_t i = 0; i < list_length; ++i) {
    m.encoding_stats.push_back(PageEncodingStats{
        static_cast<PageType>(i % 4), static_cast<Encoding>(i % 10), static_cast<int32_t>(i) - 7});
  }
  m.bloom_filter_offset = -123456789012345;
  m.bloom_filter_length = kI32Min;
  return m;
}

ColumnChunk full_column_chunk(size_t list_length) {
  ColumnChunk c;
  c.file_path = "part-" + std::to_string(list_length) + ".parquet";
  c.file_offset = kI64Max;
  c.meta_data = full_column_metadata(list_length);
  c.offset_index_offset = kI64Min;
  c.offset_index_length = kI32Max;
  c.column_index_offset = 0;
  c.column_index_length = -1;
  return c;
}

FileMetaData rich_metadata() {
  FileMetaData m;
  m.version = kI32Min;
  SchemaElement root;
  root.name = "root";
  root.num_children = 1000;
  m.schema.push_back(root);
  int i = 0;
  for (const LogicalType& t : every_logical_type()) {
    SchemaElement e;
    e.type = static_cast<PhysicalType>(i % 8);
    e.type_length = -i;
    e.repetition_type = static_cast<Repetition>(i % 3);
    e.name = "column " + std::to_string(i);
    e.num_children = i % 2 ? std::optional<int32_t>(0) : std::nullopt;
    e.converted_type = static_cast<ConvertedType>(i % 22);
    e.scale = kI32Min + i;
    e.precision = kI32Max - i;
    e.field_id = i * 1000;
    e.logical_type = t;
    m.schema.push_back(e);
    ++i;
  }
  while (m.schema.size() < 300) {  // a long schema list of minimal elements
    SchemaElement e;
    e.name = text(m.schema.size());
    m.schema.push_back(e);
  }
  m.num_rows = kI64Max;
  // Row groups whose lists have 0, 1, 14, 15 and 300 elements.
  for (size_t n : {0u, 1u, 14u, 15u, 300u}) {
    RowGroup g;
    for (size_t c = 0; c < std::min<size_t>(n, 20); ++c) g.columns.push_back(full_column_chunk(n));
    g.total_byte_size = kI64Min;
    g.num_rows = -static_cast<int64_t>(n);
    for (size_t s = 0; s < n; ++s) {
      g.sorting_columns.push_back(
          SortingColumn{static_cast<int32_t>(s) - 5, s % 2 == 0, s % 3 == 0});
    }
    g.file_offset = kI64Max - static_cast<int64_t>(n);
    g.total_compressed_size = 0;
    g.ordinal = static_cast<int16_t>(n == 300 ? -32768 : n);
    m.row_groups.push_back(g);
  }
  m.key_value_metadata = key_values(15);
  m.created_by = "kbdata metadata_roundtrip_test";
  m.column_orders = {ColumnOrder::TYPE_DEFINED, ColumnOrder::UNKNOWN, ColumnOrder::TYPE_DEFINED};
  return m;
}

// ---- Round trips of built structs ----

TEST(MetadataRoundTrip, RichFileMetaData) {
  FileMetaData original = rich_metadata();
  Bytes bytes = encode(original);
  FileMetaData decoded = decode_metadata(bytes);
  check(original, decoded, "FileMetaData");
  EXPECT_EQ(encode(decoded), bytes);

  // Spot checks.
  ASSERT_EQ(decoded.schema.size(), 300u);
  ASSERT_EQ(decoded.row_groups.size(), 5u);
  const ColumnMetaData& meta = *decoded.row_groups[4].columns[0].meta_data;
  EXPECT_EQ(meta.encodings.size(), 300u);
  EXPECT_EQ(meta.path_in_schema[299], "s299");
  EXPECT_EQ(meta.statistics->null_count, kI64Max);
  EXPECT_EQ(meta.statistics->distinct_count, kI64Min);
  EXPECT_EQ(meta.bloom_filter_length, kI32Min);
  EXPECT_EQ(decoded.row_groups[4].ordinal, -32768);
  EXPECT_TRUE(decoded.row_groups[0].columns.empty());
  EXPECT_TRUE(decoded.row_groups[0].sorting_columns.empty());
  EXPECT_EQ(decoded.row_groups[3].sorting_columns.size(), 15u);
  EXPECT_EQ(decoded.version, kI32Min);
  EXPECT_EQ(decoded.created_by, "kbdata metadata_roundtrip_test");
  EXPECT_EQ(decoded.column_orders,
            (std::vector<ColumnOrder>{ColumnOrder::TYPE_DEFINED, ColumnOrder::UNKNOWN,
                                      ColumnOrder::TYPE_DEFINED}));
}

TEST(MetadataRoundTrip, EveryLogicalTypeKind) {
  for (const LogicalType& t : every_logical_type()) {
    FileMetaData m;
    SchemaElement e;
    e.name = "x";
    e.logical_type = t;
    m.schema.push_back(e);
    FileMetaData decoded = decode_metadata(encode(m));
    ASSERT_TRUE(decoded.schema[0].logical_type.has_value()) << to_string(t);
    check(t, *decoded.schema[0].logical_type, to_string(t));
  }
}

TEST(MetadataRoundTrip, LogicalTypeNoneIsOmitted) {
  FileMetaData m;
  SchemaElement e;
  e.name = "x";
  e.logical_type = LogicalType{};  // Kind::NONE
  m.schema.push_back(e);
  FileMetaData decoded = decode_metadata(encode(m));
  EXPECT_FALSE(decoded.schema[0].logical_type.has_value());
}

TEST(MetadataRoundTrip, MinimalFileMetaDataOmitsOptionalFields) {
  FileMetaData m;
  SchemaElement root;
  root.name = "r";
  m.schema.push_back(root);
  // version 0, schema [ {name "r"} ], num_rows 0, row_groups [].
  EXPECT_EQ(encode(m),
            (Bytes{0x15, 0x00, 0x19, 0x1C, 0x48, 0x01, 'r', 0x00, 0x16, 0x00, 0x19, 0x0C, 0x00}));
}

TEST(MetadataRoundTrip, EncryptionFlagsAreNotWritten) {
  FileMetaData m;
  SchemaElement root;
  root.name = "r";
  m.schema.push_back(root);
  m.has_encryption_algorithm = true;
  RowGroup g;
  ColumnChunk c;
  c.has_crypto_metadata = true;
  c.has_encrypted_column_metadata = true;
  g.columns.push_back(c);
  m.row_groups.push_back(g);
  FileMetaData decoded = decode_metadata(encode(m));
  EXPECT_FALSE(decoded.has_encryption_algorithm);
  EXPECT_FALSE(decoded.row_groups[0].columns[0].has_crypto_metadata);
  EXPECT_FALSE(decoded.row_groups[0].columns[0].has_encrypted_column_metadata);
}

TEST(MetadataRoundTrip, PageHeaders) {
  std::vector<PageHeader> headers;
  {
    PageHeader h;  // data page v1, everything set
    h.type = PageType::DATA_PAGE;
    h.uncompressed_page_size = kI32Max;
    h.compressed_page_size = 0;
    h.crc = kI32Min;
    h.data_page_header = DataPageHeader{-1, Encoding::RLE_DICTIONARY, Encoding::BIT_PACKED,
                                        Encoding::RLE, full_statistics(1)};
    headers.push_back(h);
  }
  {
    PageHeader h;  // dictionary page, both is_sorted values and absent
    h.type = PageType::DICTIONARY_PAGE;
    h.uncompressed_page_size = 100;
    h.compressed_page_size = 50;
    for (std::optional<bool> sorted :
         {std::optional<bool>(true), std::optional<bool>(false), std::optional<bool>()}) {
      h.dictionary_page_header = DictionaryPageHeader{kI32Max, Encoding::PLAIN_DICTIONARY, sorted};
      headers.push_back(h);
    }
  }
  for (bool compressed : {true, false}) {
    PageHeader h;  // data page v2
    h.type = PageType::DATA_PAGE_V2;
    h.uncompressed_page_size = 1;
    h.compressed_page_size = 2;
    h.crc = -1;
    h.data_page_header_v2 = DataPageHeaderV2{
        kI32Min, kI32Max, 3, Encoding::DELTA_BYTE_ARRAY, -4, 5, compressed, full_statistics(2)};
    headers.push_back(h);
  }
  {
    PageHeader h;  // all three sub-headers at once (nonsense, but every field has to survive)
    h.type = PageType::INDEX_PAGE;
    h.data_page_header = DataPageHeader{};
    h.dictionary_page_header = DictionaryPageHeader{};
    h.data_page_header_v2 = DataPageHeaderV2{};
    h.data_page_header_v2->statistics = Statistics{};
    headers.push_back(h);
  }
  for (size_t i = 0; i < headers.size(); ++i) {
    Bytes bytes = encode(headers[i]);
    PageHeader decoded = decode_page(bytes);
    check(headers[i], decoded, "PageHeader#" + std::to_string(i));
    EXPECT_EQ(encode(decoded), bytes);
  }
}

TEST(MetadataRoundTrip, PageHeaderIsFollowedByPageBytes) {
  PageHeader h;
  h.uncompressed_page_size = 3;
  h.compressed_page_size = 3;
  h.data_page_header = DataPageHeader{};
  Bytes bytes = encode(h);
  size_t header_bytes = bytes.size();
  bytes.insert(bytes.end(), {1, 2, 3});
  size_t size = 0;
  PageHeader decoded = decode_page_header(bytes, 0, size);
  EXPECT_EQ(size, header_bytes);
  EXPECT_EQ(decoded.compressed_page_size, 3);
}

TEST(MetadataRoundTrip, OffsetIndex) {
  for (size_t n : {0u, 14u, 15u, 300u}) {
    OffsetIndex index;
    for (size_t i = 0; i < n; ++i) {
      index.page_locations.push_back(PageLocation{kI64Max - static_cast<int64_t>(i),
                                                  static_cast<int32_t>(i) - 1,
                                                  kI64Min + static_cast<int64_t>(i)});
      index.unencoded_byte_array_data_bytes.push_back(i % 2 ? kI64Min : static_cast<int64_t>(i));
    }
    Bytes bytes = encode(index);
    OffsetIndex decoded = decode_offset_index(bytes, 0);
    check(index, decoded, "OffsetIndex(" + std::to_string(n) + ")");
    EXPECT_EQ(encode(decoded), bytes);
  }
}

TEST(MetadataRoundTrip, ColumnIndex) {
  for (size_t n : {0u, 14u, 15u, 300u}) {
    for (bool with_null_counts : {true, false}) {
      ColumnIndex index;
      for (size_t i = 0; i < n; ++i) {
        index.null_pages.push_back(i % 3 == 0);
        index.min_values.push_back(i % 3 == 0 ? "" : std::string(i % 5, '\0'));
        index.max_values.push_back(text(i));
      }
      index.boundary_order = static_cast<BoundaryOrder>(n % 3);
      if (with_null_counts) {
        index.null_counts.emplace();
        for (size_t i = 0; i < n; ++i) index.null_counts->push_back(i % 2 ? kI64Max : -1);
      }
      Bytes bytes = encode(index);
      ColumnIndex decoded = decode_column_index(bytes, 0);
      check(index, decoded, "ColumnIndex(" + std::to_string(n) + ")");
      EXPECT_EQ(encode(decoded), bytes);
    }
  }
}

// ---- Footers of the test files ----

Bytes read_footer(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  Bytes file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (file.size() < 12 || std::string(file.end() - 4, file.end()) != "PAR1") return {};
  uint32_t length = static_cast<uint32_t>(file[file.size() - 8]) |
                    static_cast<uint32_t>(file[file.size() - 7]) << 8 |
                    static_cast<uint32_t>(file[file.size() - 6]) << 16 |
                    static_cast<uint32_t>(file[file.size() - 5]) << 24;
  if (length > file.size() - 12) return {};
  return Bytes(file.end() - 8 - length, file.end() - 8);
}

TEST(MetadataRoundTrip, FootersOfTestFiles) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(KBDATA_TEST_DATA)) {
    if (entry.is_regular_file() && entry.path().extension() == ".parquet") {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 10u);
  for (const auto& path : files) {
    SCOPED_TRACE(path.filename().string());
    Bytes footer = read_footer(path);
    ASSERT_FALSE(footer.empty());
    FileMetaData decoded = decode_metadata(footer);
    Bytes encoded = encode(decoded);
    FileMetaData redecoded = decode_metadata(encoded);
    check(decoded, redecoded, "FileMetaData");
    EXPECT_EQ(encode(redecoded), encoded);
  }
}

}  // namespace
}  // namespace kbdata::parquet
