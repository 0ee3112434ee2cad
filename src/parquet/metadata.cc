#include "parquet/metadata.h"

#include <string>

#include "common/byte_cursor.h"
#include "common/error.h"
#include "parquet/thrift/compact_reader.h"

namespace kbdata::parquet {
namespace {

using thrift::CompactReader;
using thrift::FieldHeader;
using thrift::ListHeader;

// Reads a struct field by field: `on_field` handles the ids it knows and returns false for the
// others, which are skipped. A known id with an unexpected wire type is skipped too, as generated
// Thrift code does; a required field that ends up missing is reported by the caller.
template <typename OnField>
void read_struct(CompactReader& reader, OnField on_field) {
  reader.begin_struct();
  FieldHeader field;
  while (reader.next_field(field)) {
    bool handled;
    try {
      handled = on_field(field);
    } catch (const thrift::WireTypeMismatch&) {
      handled = false;  // nothing was consumed: skip it like an unknown field
    }
    if (!handled) reader.skip(field.type);
  }
  reader.end_struct();
}

// Reads a list field whose elements are structs, decoding each with `read_element`.
template <typename T, typename ReadElement>
std::vector<T> read_struct_list(CompactReader& reader, const FieldHeader& field, const char* what,
                                ReadElement read_element) {
  ListHeader list = reader.read_list(field, what);
  std::vector<T> out;
  if (list.size == 0) return out;
  if (list.element_type != thrift::Type::STRUCT) {
    FormatError error(std::string("Thrift list ") + what + " does not hold structs");
    error.locate_offset(reader.file_offset());
    throw error;
  }
  out.reserve(list.size);
  for (uint32_t i = 0; i < list.size; ++i) out.push_back(read_element(reader));
  return out;
}

template <typename Enum>
Enum as_enum(int32_t value) {
  return static_cast<Enum>(value);
}

Statistics read_statistics(CompactReader& r) {
  Statistics s;
  read_struct(r, [&](const FieldHeader& f) {
    switch (f.id) {
      case 1:
        s.max = r.read_string(f, "Statistics.max");
        return true;
      case 2:
        s.min = r.read_string(f, "Statistics.min");
        return true;
      case 3:
        s.null_count = r.read_i64(f, "Statistics.null_count");
        return true;
      case 4:
        s.distinct_count = r.read_i64(f, "Statistics.distinct_count");
        return true;
      case 5:
        s.max_value = r.read_string(f, "Statistics.max_value");
        return true;
      case 6:
        s.min_value = r.read_string(f, "Statistics.min_value");
        return true;
      case 7:
        s.is_max_value_exact = r.read_bool(f, "Statistics.is_max_value_exact");
        return true;
      case 8:
        s.is_min_value_exact = r.read_bool(f, "Statistics.is_min_value_exact");
        return true;
      default:
        return false;
    }
  });
  return s;
}

TimeUnit read_time_unit(CompactReader& r) {
  TimeUnit unit = TimeUnit::MILLIS;
  read_struct(r, [&](const FieldHeader& f) {
    switch (f.id) {
      case 1:
        unit = TimeUnit::MILLIS;
        return false;  // empty struct, skipped
      case 2:
        unit = TimeUnit::MICROS;
        return false;
      case 3:
        unit = TimeUnit::NANOS;
        return false;
      default:
        return false;
    }
  });
  return unit;
}

// TIME and TIMESTAMP share a layout: 1: isAdjustedToUTC, 2: unit.
void read_time_fields(CompactReader& r, LogicalType& t) {
  read_struct(r, [&](const FieldHeader& f) {
    switch (f.id) {
      case 1:
        t.is_adjusted_to_utc = r.read_bool(f, "isAdjustedToUTC");
        return true;
      case 2:
        r.expect_struct(f, "TimeUnit");
        t.unit = read_time_unit(r);
        return true;
      default:
        return false;
    }
  });
}

LogicalType read_logical_type(CompactReader& r) {
  LogicalType t;
  t.kind = LogicalType::Kind::UNRECOGNISED;
  using K = LogicalType::Kind;
  read_struct(r, [&](const FieldHeader& f) {
    if (f.type != thrift::Type::STRUCT) return false;
    switch (f.id) {
      case 1:
        t.kind = K::STRING;
        return false;
      case 2:
        t.kind = K::MAP;
        return false;
      case 3:
        t.kind = K::LIST;
        return false;
      case 4:
        t.kind = K::ENUM;
        return false;
      case 5:
        t.kind = K::DECIMAL;
        read_struct(r, [&](const FieldHeader& g) {
          switch (g.id) {
            case 1:
              t.decimal_scale = r.read_i32(g, "DecimalType.scale");
              return true;
            case 2:
              t.decimal_precision = r.read_i32(g, "DecimalType.precision");
              return true;
            default:
              return false;
          }
        });
        return true;
      case 6:
        t.kind = K::DATE;
        return false;
      case 7:
        t.kind = K::TIME;
        read_time_fields(r, t);
        return true;
      case 8:
        t.kind = K::TIMESTAMP;
        read_time_fields(r, t);
        return true;
      case 10:
        t.kind = K::INTEGER;
        read_struct(r, [&](const FieldHeader& g) {
          switch (g.id) {
            case 1:
              t.bit_width = r.read_byte(g, "IntType.bitWidth");
              return true;
            case 2:
              t.is_signed = r.read_bool(g, "IntType.isSigned");
              return true;
            default:
              return false;
          }
        });
        return true;
      case 11:
        t.kind = K::UNKNOWN;
        return false;
      case 12:
        t.kind = K::JSON;
        return false;
      case 13:
        t.kind = K::BSON;
        return false;
      case 14:
        t.kind = K::UUID;
        return false;
      case 15:
        t.kind = K::FLOAT16;
        return false;
      case 16:
        t.kind = K::VARIANT;
        return false;
      case 17:
        t.kind = K::GEOMETRY;
        return false;
      case 18:
        t.kind = K::GEOGRAPHY;
        return false;
      default:
        return false;
    }
  });
  return t;
}

SchemaElement read_schema_element(CompactReader& r) {
  SchemaElement e;
  read_struct(r, [&](const FieldHeader& f) {
    switch (f.id) {
      case 1:
        e.type = as_enum<PhysicalType>(r.read_i32(f, "SchemaElement.type"));
        return true;
      case 2:
        e.type_length = r.read_i32(f, "SchemaElement.type_length");
        return true;
      case 3:
        e.repetition_type = as_enum<Repetition>(r.read_i32(f, "SchemaElement.repetition_type"));
        return true;
      case 4:
        e.name = r.read_string(f, "SchemaElement.name");
        return true;
      case 5:
        e.num_children = r.read_i32(f, "SchemaElement.num_children");
        return true;
      case 6:
        e.converted_type = as_enum<ConvertedType>(r.read_i32(f, "SchemaElement.converted_type"));
        return true;
      case 7:
        e.scale = r.read_i32(f, "SchemaElement.scale");
        return true;
      case 8:
        e.precision = r.read_i32(f, "SchemaElement.precision");
        return true;
      case 9:
        e.field_id = r.read_i32(f, "SchemaElement.field_id");
        return true;
      case 10:
        r.expect_struct(f, "SchemaElement.logicalType");
        e.logical_type = read_logical_type(r);
        return true;
      default:
        return false;
    }
  });
  return e;
}

KeyValue read_key_value(CompactReader& r) {
  KeyValue kv;
  read_struct(r, [&](const FieldHeader& f) {
    switch (f.id) {
      case 1:
        kv.key = r.read_string(f, "KeyValue.key");
        return true;
      case 2:
        kv.value = r.read_string(f, "KeyValue.value");
        return true;
      default:
        return false;
    }
  });
  return kv;
}

PageEncodingStats read_page_encoding_stats(CompactReader& r) {
  PageEncodingStats s;
  read_struct(r, [&](const FieldHeader& f) {
    switch (f.id) {
      case 1:
        s.page_type = as_enum<PageType>(r.read_i32(f, "PageEncodingStats.page_type"));
        return true;
      case 2:
        s.encoding = as_enum<Encoding>(r.read_i32(f, "PageEncodingStats.encoding"));
        return true;
      case 3:
        s.count = r.read_i32(f, "PageEncodingStats.count");
        return true;
      default:
        return false;
    }
  });
  return s;
}

ColumnMetaData read_column_metadata(CompactReader& r) {
  ColumnMetaData m;
  read_struct(r, [&](const FieldHeader& f) {
    switch (f.id) {
      case 1:
        m.type = as_enum<PhysicalType>(r.read_i32(f, "ColumnMetaData.type"));
        return true;
      case 2: {
        ListHeader list = r.read_list(f, "ColumnMetaData.encodings");
        for (uint32_t i = 0; i < list.size; ++i) {
          m.encodings.push_back(as_enum<Encoding>(r.read_i32_element("ColumnMetaData.encodings")));
        }
        return true;
      }
      case 3: {
        ListHeader list = r.read_list(f, "ColumnMetaData.path_in_schema");
        for (uint32_t i = 0; i < list.size; ++i) {
          m.path_in_schema.push_back(r.read_string_element("ColumnMetaData.path_in_schema"));
        }
        return true;
      }
      case 4:
        m.codec = as_enum<Codec>(r.read_i32(f, "ColumnMetaData.codec"));
        return true;
      case 5:
        m.num_values = r.read_i64(f, "ColumnMetaData.num_values");
        return true;
      case 6:
        m.total_uncompressed_size = r.read_i64(f, "ColumnMetaData.total_uncompressed_size");
        return true;
      case 7:
        m.total_compressed_size = r.read_i64(f, "ColumnMetaData.total_compressed_size");
        return true;
      case 8:
        m.key_value_metadata =
            read_struct_list<KeyValue>(r, f, "ColumnMetaData.key_value_metadata", read_key_value);
        return true;
      case 9:
        m.data_page_offset = r.read_i64(f, "ColumnMetaData.data_page_offset");
        return true;
      case 10:
        m.index_page_offset = r.read_i64(f, "ColumnMetaData.index_page_offset");
        return true;
      case 11:
        m.dictionary_page_offset = r.read_i64(f, "ColumnMetaData.dictionary_page_offset");
        return true;
      case 12:
        r.expect_struct(f, "ColumnMetaData.statistics");
        m.statistics = read_statistics(r);
        return true;
      case 13:
        m.encoding_stats = read_struct_list<PageEncodingStats>(
            r, f, "ColumnMetaData.encoding_stats", read_page_encoding_stats);
        return true;
      case 14:
        m.bloom_filter_offset = r.read_i64(f, "ColumnMetaData.bloom_filter_offset");
        return true;
      case 15:
        m.bloom_filter_length = r.read_i32(f, "ColumnMetaData.bloom_filter_length");
        return true;
      default:
        return false;
    }
  });
  return m;
}

ColumnChunk read_column_chunk(CompactReader& r) {
  ColumnChunk c;
  read_struct(r, [&](const FieldHeader& f) {
    switch (f.id) {
      case 1:
        c.file_path = r.read_string(f, "ColumnChunk.file_path");
        return true;
      case 2:
        c.file_offset = r.read_i64(f, "ColumnChunk.file_offset");
        return true;
      case 3:
        r.expect_struct(f, "ColumnChunk.meta_data");
        c.meta_data = read_column_metadata(r);
        return true;
      case 4:
        c.offset_index_offset = r.read_i64(f, "ColumnChunk.offset_index_offset");
        return true;
      case 5:
        c.offset_index_length = r.read_i32(f, "ColumnChunk.offset_index_length");
        return true;
      case 6:
        c.column_index_offset = r.read_i64(f, "ColumnChunk.column_index_offset");
        return true;
      case 7:
        c.column_index_length = r.read_i32(f, "ColumnChunk.column_index_length");
        return true;
      case 8:
        c.has_crypto_metadata = true;
        return false;
      case 9:
        c.has_encrypted_column_metadata = true;
        return false;
      default:
        return false;
    }
  });
  return c;
}

SortingColumn read_sorting_column(CompactReader& r) {
  SortingColumn s;
  read_struct(r, [&](const FieldHeader& f) {
    switch (f.id) {
      case 1:
        s.column_idx = r.read_i32(f, "SortingColumn.column_idx");
        return true;
      case 2:
        s.descending = r.read_bool(f, "SortingColumn.descending");
        return true;
      case 3:
        s.nulls_first = r.read_bool(f, "SortingColumn.nulls_first");
        return true;
      default:
        return false;
    }
  });
  return s;
}

RowGroup read_row_group(CompactReader& r) {
  RowGroup g;
  read_struct(r, [&](const FieldHeader& f) {
    switch (f.id) {
      case 1:
        g.columns = read_struct_list<ColumnChunk>(r, f, "RowGroup.columns", read_column_chunk);
        return true;
      case 2:
        g.total_byte_size = r.read_i64(f, "RowGroup.total_byte_size");
        return true;
      case 3:
        g.num_rows = r.read_i64(f, "RowGroup.num_rows");
        return true;
      case 4:
        g.sorting_columns =
            read_struct_list<SortingColumn>(r, f, "RowGroup.sorting_columns", read_sorting_column);
        return true;
      case 5:
        g.file_offset = r.read_i64(f, "RowGroup.file_offset");
        return true;
      case 6:
        g.total_compressed_size = r.read_i64(f, "RowGroup.total_compressed_size");
        return true;
      case 7:
        g.ordinal = r.read_i16(f, "RowGroup.ordinal");
        return true;
      default:
        return false;
    }
  });
  return g;
}

DataPageHeader read_data_page_header(CompactReader& r) {
  DataPageHeader h;
  read_struct(r, [&](const FieldHeader& f) {
    switch (f.id) {
      case 1:
        h.num_values = r.read_i32(f, "DataPageHeader.num_values");
        return true;
      case 2:
        h.encoding = as_enum<Encoding>(r.read_i32(f, "DataPageHeader.encoding"));
        return true;
      case 3:
        h.definition_level_encoding =
            as_enum<Encoding>(r.read_i32(f, "DataPageHeader.definition_level_encoding"));
        return true;
      case 4:
        h.repetition_level_encoding =
            as_enum<Encoding>(r.read_i32(f, "DataPageHeader.repetition_level_encoding"));
        return true;
      case 5:
        r.expect_struct(f, "DataPageHeader.statistics");
        h.statistics = read_statistics(r);
        return true;
      default:
        return false;
    }
  });
  return h;
}

DictionaryPageHeader read_dictionary_page_header(CompactReader& r) {
  DictionaryPageHeader h;
  read_struct(r, [&](const FieldHeader& f) {
    switch (f.id) {
      case 1:
        h.num_values = r.read_i32(f, "DictionaryPageHeader.num_values");
        return true;
      case 2:
        h.encoding = as_enum<Encoding>(r.read_i32(f, "DictionaryPageHeader.encoding"));
        return true;
      case 3:
        h.is_sorted = r.read_bool(f, "DictionaryPageHeader.is_sorted");
        return true;
      default:
        return false;
    }
  });
  return h;
}

DataPageHeaderV2 read_data_page_header_v2(CompactReader& r) {
  DataPageHeaderV2 h;
  read_struct(r, [&](const FieldHeader& f) {
    switch (f.id) {
      case 1:
        h.num_values = r.read_i32(f, "DataPageHeaderV2.num_values");
        return true;
      case 2:
        h.num_nulls = r.read_i32(f, "DataPageHeaderV2.num_nulls");
        return true;
      case 3:
        h.num_rows = r.read_i32(f, "DataPageHeaderV2.num_rows");
        return true;
      case 4:
        h.encoding = as_enum<Encoding>(r.read_i32(f, "DataPageHeaderV2.encoding"));
        return true;
      case 5:
        h.definition_levels_byte_length =
            r.read_i32(f, "DataPageHeaderV2.definition_levels_byte_length");
        return true;
      case 6:
        h.repetition_levels_byte_length =
            r.read_i32(f, "DataPageHeaderV2.repetition_levels_byte_length");
        return true;
      case 7:
        h.is_compressed = r.read_bool(f, "DataPageHeaderV2.is_compressed");
        return true;
      case 8:
        r.expect_struct(f, "DataPageHeaderV2.statistics");
        h.statistics = read_statistics(r);
        return true;
      default:
        return false;
    }
  });
  return h;
}

PageLocation read_page_location(CompactReader& r) {
  PageLocation p;
  bool has_offset = false, has_size = false, has_first_row = false;
  read_struct(r, [&](const FieldHeader& f) {
    switch (f.id) {
      case 1:
        p.offset = r.read_i64(f, "PageLocation.offset");
        has_offset = true;
        return true;
      case 2:
        p.compressed_page_size = r.read_i32(f, "PageLocation.compressed_page_size");
        has_size = true;
        return true;
      case 3:
        p.first_row_index = r.read_i64(f, "PageLocation.first_row_index");
        has_first_row = true;
        return true;
      default:
        return false;
    }
  });
  if (!has_offset || !has_size || !has_first_row) {
    FormatError error("PageLocation lacks a required field");
    error.locate_offset(r.file_offset());
    throw error;
  }
  return p;
}

[[noreturn]] void missing(const char* what, int64_t offset) {
  FormatError error(std::string(what) + " is missing");
  error.locate_offset(offset);
  throw error;
}

}  // namespace

OffsetIndex decode_offset_index(std::span<const uint8_t> bytes, int64_t base_offset) {
  ByteCursor cursor(bytes, base_offset);
  CompactReader r(cursor);
  OffsetIndex index;
  bool has_locations = false;
  read_struct(r, [&](const FieldHeader& f) {
    switch (f.id) {
      case 1:
        index.page_locations =
            read_struct_list<PageLocation>(r, f, "OffsetIndex.page_locations", read_page_location);
        has_locations = true;
        return true;
      case 2: {
        ListHeader list = r.read_list(f, "OffsetIndex.unencoded_byte_array_data_bytes");
        for (uint32_t i = 0; i < list.size; ++i) {
          index.unencoded_byte_array_data_bytes.push_back(
              r.read_i64_element("OffsetIndex.unencoded_byte_array_data_bytes"));
        }
        return true;
      }
      default:
        return false;
    }
  });
  if (!has_locations) missing("OffsetIndex.page_locations", base_offset);
  return index;
}

ColumnIndex decode_column_index(std::span<const uint8_t> bytes, int64_t base_offset) {
  ByteCursor cursor(bytes, base_offset);
  CompactReader r(cursor);
  ColumnIndex index;
  bool has_null_pages = false, has_min = false, has_max = false, has_order = false;
  read_struct(r, [&](const FieldHeader& f) {
    switch (f.id) {
      case 1: {
        ListHeader list = r.read_list(f, "ColumnIndex.null_pages");
        for (uint32_t i = 0; i < list.size; ++i) {
          index.null_pages.push_back(r.read_bool_element("ColumnIndex.null_pages"));
        }
        has_null_pages = true;
        return true;
      }
      case 2:
      case 3: {
        const char* what = f.id == 2 ? "ColumnIndex.min_values" : "ColumnIndex.max_values";
        auto& out = f.id == 2 ? index.min_values : index.max_values;
        ListHeader list = r.read_list(f, what);
        for (uint32_t i = 0; i < list.size; ++i) out.push_back(r.read_string_element(what));
        (f.id == 2 ? has_min : has_max) = true;
        return true;
      }
      case 4: {
        int32_t order = r.read_i32(f, "ColumnIndex.boundary_order");
        index.boundary_order =
            order >= 0 && order <= 2 ? as_enum<BoundaryOrder>(order) : BoundaryOrder::UNORDERED;
        has_order = true;
        return true;
      }
      case 5: {
        ListHeader list = r.read_list(f, "ColumnIndex.null_counts");
        index.null_counts.emplace();
        for (uint32_t i = 0; i < list.size; ++i) {
          index.null_counts->push_back(r.read_i64_element("ColumnIndex.null_counts"));
        }
        return true;
      }
      default:
        return false;  // 6, 7: level histograms
    }
  });
  if (!has_null_pages) missing("ColumnIndex.null_pages", base_offset);
  if (!has_min) missing("ColumnIndex.min_values", base_offset);
  if (!has_max) missing("ColumnIndex.max_values", base_offset);
  if (!has_order) missing("ColumnIndex.boundary_order", base_offset);
  return index;
}

FileMetaData decode_file_metadata(std::span<const uint8_t> bytes, int64_t base_offset) {
  ByteCursor cursor(bytes, base_offset);
  CompactReader r(cursor);
  FileMetaData m;
  bool has_schema = false;
  bool has_num_rows = false;
  read_struct(r, [&](const FieldHeader& f) {
    switch (f.id) {
      case 1:
        m.version = r.read_i32(f, "FileMetaData.version");
        return true;
      case 2:
        m.schema =
            read_struct_list<SchemaElement>(r, f, "FileMetaData.schema", read_schema_element);
        has_schema = true;
        return true;
      case 3:
        m.num_rows = r.read_i64(f, "FileMetaData.num_rows");
        has_num_rows = true;
        return true;
      case 4:
        m.row_groups = read_struct_list<RowGroup>(r, f, "FileMetaData.row_groups", read_row_group);
        return true;
      case 5:
        m.key_value_metadata =
            read_struct_list<KeyValue>(r, f, "FileMetaData.key_value_metadata", read_key_value);
        return true;
      case 6:
        m.created_by = r.read_string(f, "FileMetaData.created_by");
        return true;
      case 7:
        m.column_orders = read_struct_list<ColumnOrder>(
            r, f, "FileMetaData.column_orders", [](CompactReader& reader) {
              ColumnOrder order = ColumnOrder::UNKNOWN;
              read_struct(reader, [&](const FieldHeader& member) {
                if (member.id == 1) order = ColumnOrder::TYPE_DEFINED;
                return false;  // the member's (empty) struct is skipped either way
              });
              return order;
            });
        return true;
      case 8:
        m.has_encryption_algorithm = true;
        return false;
      default:
        return false;
    }
  });
  if (!has_schema || m.schema.empty()) {
    FormatError error("footer has no schema");
    error.locate_offset(base_offset);
    throw error;
  }
  if (!has_num_rows || m.num_rows < 0) {
    FormatError error("footer has no valid num_rows");
    error.locate_offset(base_offset);
    throw error;
  }
  return m;
}

PageHeader decode_page_header(std::span<const uint8_t> bytes, int64_t base_offset,
                              size_t& header_size) {
  ByteCursor cursor(bytes, base_offset);
  CompactReader r(cursor);
  PageHeader h;
  bool has_type = false, has_uncompressed = false, has_compressed = false;
  read_struct(r, [&](const FieldHeader& f) {
    switch (f.id) {
      case 1:
        h.type = as_enum<PageType>(r.read_i32(f, "PageHeader.type"));
        has_type = true;
        return true;
      case 2:
        h.uncompressed_page_size = r.read_i32(f, "PageHeader.uncompressed_page_size");
        has_uncompressed = true;
        return true;
      case 3:
        h.compressed_page_size = r.read_i32(f, "PageHeader.compressed_page_size");
        has_compressed = true;
        return true;
      case 4:
        h.crc = r.read_i32(f, "PageHeader.crc");
        return true;
      case 5:
        r.expect_struct(f, "PageHeader.data_page_header");
        h.data_page_header = read_data_page_header(r);
        return true;
      case 7:
        r.expect_struct(f, "PageHeader.dictionary_page_header");
        h.dictionary_page_header = read_dictionary_page_header(r);
        return true;
      case 8:
        r.expect_struct(f, "PageHeader.data_page_header_v2");
        h.data_page_header_v2 = read_data_page_header_v2(r);
        return true;
      default:
        return false;
    }
  });
  if (!has_type || !has_uncompressed || !has_compressed) {
    FormatError error("page header lacks its type or sizes");
    error.locate_offset(base_offset);
    throw error;
  }
  if (h.uncompressed_page_size < 0 || h.compressed_page_size < 0) {
    FormatError error("page header has a negative size (compressed " +
                      std::to_string(h.compressed_page_size) + ", uncompressed " +
                      std::to_string(h.uncompressed_page_size) + ")");
    error.locate_offset(base_offset);
    throw error;
  }
  header_size = cursor.position();
  return h;
}

}  // namespace kbdata::parquet
