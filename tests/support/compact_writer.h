// Test-only: builds Thrift compact-protocol bytes and small Parquet files by hand, so tests can
// make exactly the page layouts and corruptions they need.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace kbdata::testing {

enum class Wire : uint8_t {
  BOOL_TRUE = 1,
  BOOL_FALSE = 2,
  BYTE = 3,
  I16 = 4,
  I32 = 5,
  I64 = 6,
  DOUBLE = 7,
  BINARY = 8,
  LIST = 9,
  STRUCT = 12,
};

// The tests' reference varints, written from the specs independently of src/common/varint.h
// (which they check): ULEB128 and zigzag.
inline void put_uleb(std::vector<uint8_t>& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<uint8_t>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<uint8_t>(v));
}

inline uint64_t zigzag_of(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}

inline void put_zigzag(std::vector<uint8_t>& out, int64_t v) { put_uleb(out, zigzag_of(v)); }

class CompactWriter {
 public:
  std::vector<uint8_t> bytes;

  CompactWriter& varint(uint64_t v) {
    put_uleb(bytes, v);
    return *this;
  }
  CompactWriter& zigzag(int64_t v) { return varint(zigzag_of(v)); }
  CompactWriter& field(int16_t id, Wire type) {
    int delta = id - last_;
    if (delta > 0 && delta <= 15) {
      bytes.push_back(static_cast<uint8_t>(delta << 4 | static_cast<int>(type)));
    } else {
      bytes.push_back(static_cast<uint8_t>(type));
      zigzag(id);
    }
    last_ = id;
    return *this;
  }
  CompactWriter& begin() {
    stack_.push_back(last_);
    last_ = 0;
    return *this;
  }
  CompactWriter& end() {
    bytes.push_back(0);
    last_ = stack_.back();
    stack_.pop_back();
    return *this;
  }
  CompactWriter& i32(int16_t id, int32_t v) { return field(id, Wire::I32).zigzag(v); }
  CompactWriter& i64(int16_t id, int64_t v) { return field(id, Wire::I64).zigzag(v); }
  CompactWriter& boolean(int16_t id, bool v) {
    return field(id, v ? Wire::BOOL_TRUE : Wire::BOOL_FALSE);
  }
  CompactWriter& str(int16_t id, const std::string& s) {
    field(id, Wire::BINARY).varint(s.size());
    bytes.insert(bytes.end(), s.begin(), s.end());
    return *this;
  }
  CompactWriter& struct_field(int16_t id) { return field(id, Wire::STRUCT).begin(); }
  // A list header; the caller writes `size` elements (structs with begin()/end()).
  CompactWriter& list(int16_t id, Wire element, uint32_t size) {
    field(id, Wire::LIST);
    if (size < 15) {
      bytes.push_back(static_cast<uint8_t>(size << 4 | static_cast<int>(element)));
    } else {
      bytes.push_back(static_cast<uint8_t>(0xF0 | static_cast<int>(element)));
      varint(size);
    }
    return *this;
  }
  CompactWriter& list_i32(int32_t v) { return zigzag(v); }

 private:
  int16_t last_ = 0;
  std::vector<int16_t> stack_;
};

inline void append_le32(std::vector<uint8_t>& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

// Ends a hand-built file: the encoded FileMetaData, its 4-byte length and the closing magic.
inline void append_footer(std::vector<uint8_t>& file, const std::vector<uint8_t>& metadata) {
  file.insert(file.end(), metadata.begin(), metadata.end());
  append_le32(file, static_cast<uint32_t>(metadata.size()));
  file.insert(file.end(), {'P', 'A', 'R', '1'});
}

// One page of a hand-built column chunk.
struct TestPage {
  int32_t type = 0;  // 0 DATA_PAGE, 2 DICTIONARY_PAGE
  int32_t num_values = 0;
  int32_t encoding = 0;            // 0 PLAIN, 8 RLE_DICTIONARY
  std::vector<uint8_t> body;       // levels + values, compressed with the file's codec
  int32_t uncompressed_size = -1;  // the header's uncompressed_page_size; -1: body.size()
};

// A file with one REQUIRED INT32 column "v" (physical type 1), one row group holding `pages`,
// compressed with `codec` (a CompressionCodec value; 0 UNCOMPRESSED). Returns the file's bytes.
inline std::vector<uint8_t> build_int32_file(const std::vector<TestPage>& pages, int64_t num_rows,
                                             int32_t codec = 0) {
  std::vector<uint8_t> file = {'P', 'A', 'R', '1'};
  int64_t chunk_start = static_cast<int64_t>(file.size());
  int64_t dictionary_offset = -1;
  int64_t first_data_offset = -1;
  for (const auto& page : pages) {
    int64_t offset = static_cast<int64_t>(file.size());
    CompactWriter h;
    const auto body_size = static_cast<int32_t>(page.body.size());
    h.begin()
        .i32(1, page.type)
        .i32(2, page.uncompressed_size < 0 ? body_size : page.uncompressed_size)
        .i32(3, body_size);
    if (page.type == 2) {
      if (dictionary_offset < 0) dictionary_offset = offset;
      h.struct_field(7).i32(1, page.num_values).i32(2, 0).end();
    } else {
      if (first_data_offset < 0) first_data_offset = offset;
      h.struct_field(5).i32(1, page.num_values).i32(2, page.encoding).i32(3, 3).i32(4, 3).end();
    }
    h.end();
    file.insert(file.end(), h.bytes.begin(), h.bytes.end());
    file.insert(file.end(), page.body.begin(), page.body.end());
  }
  int64_t chunk_size = static_cast<int64_t>(file.size()) - chunk_start;

  CompactWriter m;
  m.begin().i32(1, 1);
  m.list(2, Wire::STRUCT, 2);
  m.begin().str(4, "schema").i32(5, 1).end();
  m.begin().i32(1, 1).i32(3, 0).str(4, "v").end();
  m.i64(3, num_rows);
  m.list(4, Wire::STRUCT, 1);
  m.begin();
  m.list(1, Wire::STRUCT, 1);
  m.begin().i64(2, chunk_start);
  m.struct_field(3).i32(1, 1);
  m.list(2, Wire::I32, 1).list_i32(0);
  m.list(3, Wire::BINARY, 1).varint(1).bytes.push_back('v');
  m.i32(4, codec).i64(5, num_rows).i64(6, chunk_size).i64(7, chunk_size);
  m.i64(9, first_data_offset);
  if (dictionary_offset >= 0) m.i64(11, dictionary_offset);
  m.end();  // ColumnMetaData
  m.end();  // ColumnChunk
  m.i64(2, chunk_size).i64(3, num_rows);
  m.end();  // RowGroup
  m.end();  // FileMetaData
  append_footer(file, m.bytes);
  return file;
}

}  // namespace kbdata::testing
