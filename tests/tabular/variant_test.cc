#include "tabular/variant.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "common/error.h"
#include "parquet/column_reader.h"
#include "parquet/metadata.h"
#include "parquet/schema.h"
#include "tabular/record_assembler.h"

namespace kbdata::tabular {
namespace {

using Bytes = std::vector<uint8_t>;

// Hand-built variant bytes (VariantEncoding.md; the layout is summarised in tabular/variant.h).

void put_unsigned(Bytes& out, uint64_t value, int width) {
  for (int i = 0; i < width; ++i) out.push_back(static_cast<uint8_t>(value >> (8 * i)));
}

template <typename T>
void put_le(Bytes& out, T value) {
  uint8_t raw[sizeof(T)];
  std::memcpy(raw, &value, sizeof(T));
  out.insert(out.end(), raw, raw + sizeof(T));
}

// Metadata with `keys`, offsets of `offset_size` bytes.
Bytes metadata(const std::vector<std::string>& keys, bool sorted = false, int offset_size = 1) {
  Bytes out;
  out.push_back(static_cast<uint8_t>(1 | (sorted ? 0x10 : 0) | ((offset_size - 1) << 6)));
  put_unsigned(out, keys.size(), offset_size);
  uint64_t at = 0;
  put_unsigned(out, 0, offset_size);
  for (const auto& key : keys) {
    at += key.size();
    put_unsigned(out, at, offset_size);
  }
  for (const auto& key : keys) out.insert(out.end(), key.begin(), key.end());
  return out;
}

Bytes primitive(int type_id, const Bytes& payload = {}) {
  Bytes out{static_cast<uint8_t>(type_id << 2)};
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

template <typename T>
Bytes primitive_of(int type_id, T value) {
  Bytes payload;
  put_le(payload, value);
  return primitive(type_id, payload);
}

Bytes short_string(const std::string& text) {
  Bytes out{static_cast<uint8_t>(text.size() << 2 | 1)};
  out.insert(out.end(), text.begin(), text.end());
  return out;
}

Bytes long_string(int type_id, const std::string& text) {
  Bytes payload;
  put_le(payload, static_cast<uint32_t>(text.size()));
  payload.insert(payload.end(), text.begin(), text.end());
  return primitive(type_id, payload);
}

Bytes array(const std::vector<Bytes>& elements, int offset_size = 1, bool large = false) {
  Bytes out{static_cast<uint8_t>(((offset_size - 1) | (large ? 4 : 0)) << 2 | 3)};
  put_unsigned(out, elements.size(), large ? 4 : 1);
  uint64_t at = 0;
  put_unsigned(out, 0, offset_size);
  for (const auto& element : elements) {
    at += element.size();
    put_unsigned(out, at, offset_size);
  }
  for (const auto& element : elements) out.insert(out.end(), element.begin(), element.end());
  return out;
}

struct FieldBytes {
  uint64_t id;
  Bytes value;
};

Bytes object(const std::vector<FieldBytes>& fields, int offset_size = 1, int id_size = 1,
             bool large = false) {
  Bytes out{
      static_cast<uint8_t>(((offset_size - 1) | (id_size - 1) << 2 | (large ? 16 : 0)) << 2 | 2)};
  put_unsigned(out, fields.size(), large ? 4 : 1);
  for (const auto& field : fields) put_unsigned(out, field.id, id_size);
  uint64_t at = 0;
  put_unsigned(out, 0, offset_size);
  for (const auto& field : fields) {
    at += field.value.size();
    put_unsigned(out, at, offset_size);
  }
  for (const auto& field : fields) out.insert(out.end(), field.value.begin(), field.value.end());
  return out;
}

std::string render(const Bytes& meta, const Bytes& value) {
  const VariantMetadata parsed(meta);
  VariantDecoder decoder(parsed, value.size());
  std::string out;
  decoder.append_json(out, value);
  return out;
}

std::string render(const Bytes& value) { return render(metadata({}), value); }

TEST(Variant, Primitives) {
  EXPECT_EQ(render(primitive(0)), "null");
  EXPECT_EQ(render(primitive(1)), "true");
  EXPECT_EQ(render(primitive(2)), "false");
  EXPECT_EQ(render(primitive_of(3, int8_t{-7})), "-7");
  EXPECT_EQ(render(primitive_of(4, int16_t{-300})), "-300");
  EXPECT_EQ(render(primitive_of(5, int32_t{123456})), "123456");
  EXPECT_EQ(render(primitive_of(6, int64_t{-9223372036854775807LL - 1})), "-9223372036854775808");
  EXPECT_EQ(render(primitive_of(7, 4.6)), "4.6");
  EXPECT_EQ(render(primitive_of(14, 4.6f)), "4.6");
  EXPECT_EQ(render(primitive_of(7, std::nan(""))), "\"NaN\"");
  EXPECT_EQ(render(primitive_of(14, -std::numeric_limits<float>::infinity())), "\"-Infinity\"");
  EXPECT_EQ(render(primitive_of(11, int32_t{19753})), "\"2024-01-31\"");
  EXPECT_EQ(render(primitive_of(12, int64_t{1706704496789012})), "\"2024-01-31T12:34:56.789012Z\"");
  EXPECT_EQ(render(primitive_of(13, int64_t{1706704496789012})), "\"2024-01-31T12:34:56.789012\"");
  EXPECT_EQ(render(primitive_of(18, int64_t{1706704496789012345})),
            "\"2024-01-31T12:34:56.789012345Z\"");
  EXPECT_EQ(render(primitive_of(19, int64_t{1706704496789012345})),
            "\"2024-01-31T12:34:56.789012345\"");
  EXPECT_EQ(render(primitive_of(17, int64_t{45296789012})), "\"12:34:56.789012\"");
  for (const int type_id : {12, 13, 17, 18, 19}) {  // the extremes render without overflow
    EXPECT_NO_THROW(render(primitive_of(type_id, std::numeric_limits<int64_t>::min())));
    EXPECT_NO_THROW(render(primitive_of(type_id, std::numeric_limits<int64_t>::max())));
  }
  EXPECT_EQ(render(long_string(15, std::string("\x00\x01\x02", 3))), "\"AAEC\"");
  EXPECT_EQ(render(long_string(16, "a \"long\" string")), "\"a \\\"long\\\" string\"");
  EXPECT_EQ(render(short_string("hi")), "\"hi\"");
  EXPECT_EQ(render(short_string("")), "\"\"");
  EXPECT_EQ(render(short_string("\xff")), "\"\xEF\xBF\xBD\"");  // repaired
  EXPECT_EQ(render(primitive(20, {0x12, 0x3e, 0x45, 0x67, 0xe8, 0x9b, 0x12, 0xd3, 0xa4, 0x56, 0x42,
                                  0x66, 0x14, 0x17, 0x40, 0x00})),
            "\"123e4567-e89b-12d3-a456-426614174000\"");
}

TEST(Variant, Decimals) {
  Bytes d4{2};
  put_le(d4, int32_t{-1250});
  EXPECT_EQ(render(primitive(8, d4)), "\"-12.50\"");
  Bytes d8{3};
  put_le(d8, int64_t{123456789012345});
  EXPECT_EQ(render(primitive(9, d8)), "\"123456789012.345\"");
  Bytes d16{0};
  put_le(d16, uint64_t{0xffffffffffffffffULL});  // low half of -1
  put_le(d16, int64_t{-1});
  EXPECT_EQ(render(primitive(10, d16)), "\"-1\"");
  Bytes big{4};
  put_le(big, uint64_t{0});
  put_le(big, int64_t{1});  // 2^64
  EXPECT_EQ(render(primitive(10, big)), "\"1844674407370955.1616\"");
}

TEST(Variant, NestedObjectsAndArrays) {
  // Keys unsorted in the dictionary; the object lists its fields in key order.
  const Bytes meta = metadata({"name", "age", "tags"});
  const Bytes value = object({{1, primitive_of(3, int8_t{30})},
                              {0, short_string("alice")},
                              {2, array({short_string("x"), array({}), object({})})}});
  EXPECT_EQ(render(meta, value), R"({"age":30,"name":"alice","tags":["x",[],{}]})");
  EXPECT_EQ(render(array({primitive(0), primitive(1)})), "[null,true]");
}

TEST(Variant, SortedDictionary) {
  const Bytes meta = metadata({"a", "b"}, /*sorted=*/true);
  const VariantMetadata parsed(meta);
  EXPECT_TRUE(parsed.sorted());
  EXPECT_EQ(parsed.size(), 2u);
  EXPECT_EQ(parsed.key(1), "b");
  EXPECT_FALSE(VariantMetadata(metadata({"b", "a"})).sorted());
  EXPECT_EQ(render(meta, object({{0, primitive(1)}, {1, primitive(2)}})),
            R"({"a":true,"b":false})");
}

TEST(Variant, OffsetSizes) {
  for (int size = 1; size <= 4; ++size) {
    SCOPED_TRACE(size);
    const Bytes meta = metadata({"k", "l"}, false, size);
    EXPECT_EQ(render(meta, object({{1, primitive(1)}, {0, short_string("v")}}, size, size)),
              R"({"l":true,"k":"v"})");
    EXPECT_EQ(render(meta, array({primitive(1), short_string("v")}, size)), R"([true,"v"])");
    EXPECT_EQ(render(meta, array({primitive(1)}, size, /*large=*/true)), "[true]");
    EXPECT_EQ(render(meta, object({{0, primitive(2)}}, size, size, /*large=*/true)),
              R"({"k":false})");
  }
  // A value longer than 255 bytes needs 2-byte offsets.
  const std::string text(300, 'x');
  EXPECT_EQ(render(array({long_string(16, text), primitive(0)}, 2)), "[\"" + text + "\",null]");
}

TEST(Variant, ObjectFields) {
  const Bytes meta = metadata({"b", "a"});
  const VariantMetadata parsed(meta);
  const Bytes value = object({{1, primitive(1)}, {0, short_string("z")}});
  VariantDecoder decoder(parsed, value.size());
  std::vector<VariantDecoder::Field> fields;
  ASSERT_TRUE(decoder.object_fields(value, fields));
  ASSERT_EQ(fields.size(), 2u);
  EXPECT_EQ(fields[0].key, "a");
  EXPECT_EQ(fields[1].key, "b");
  std::string out;
  decoder.append_json(out, fields[1].value);
  EXPECT_EQ(out, "\"z\"");
  EXPECT_FALSE(decoder.object_fields(primitive(1), fields));
}

void expect_format_error(const Bytes& meta, const Bytes& value, const char* why) {
  SCOPED_TRACE(why);
  EXPECT_THROW(render(meta, value), FormatError);
}

TEST(Variant, MalformedMetadata) {
  EXPECT_THROW(VariantMetadata(Bytes{}), FormatError);
  EXPECT_THROW(VariantMetadata(Bytes{0x02, 0, 0}), FormatError);          // version 2
  EXPECT_THROW(VariantMetadata(Bytes{0x01, 200, 0}), FormatError);        // 200 keys in 1 byte
  EXPECT_THROW(VariantMetadata(Bytes{0x01, 1, 0, 5, 'a'}), FormatError);  // key past the end
  EXPECT_THROW(VariantMetadata(Bytes{0x01, 2, 0, 2, 1, 'a', 'b'}), FormatError);  // decreasing
  EXPECT_THROW(VariantMetadata(Bytes{0x01, 1, 1, 1, 'a'}), FormatError);  // first offset not 0
  EXPECT_THROW(VariantMetadata(Bytes{0xC1, 0xff, 0xff, 0xff, 0xff}), FormatError);  // 4-byte size
  const VariantMetadata meta(metadata({"a"}));
  EXPECT_THROW((void)meta.key(1), FormatError);
}

TEST(Variant, MalformedValues) {
  const Bytes meta = metadata({"a"});
  expect_format_error(meta, {}, "empty value");
  expect_format_error(meta, primitive(21), "unknown primitive type");
  expect_format_error(meta, Bytes{4 << 2, 0}, "int16 truncated");
  expect_format_error(meta, Bytes{6 << 2}, "int64 truncated");
  expect_format_error(meta, Bytes{(10 << 2), 0, 1, 2}, "decimal16 truncated");
  expect_format_error(meta, Bytes{(16 << 2), 0xff, 0xff, 0xff, 0x7f, 'a'}, "string length");
  expect_format_error(meta, Bytes{(5 << 2) | 1, 'a'}, "short string truncated");
  expect_format_error(meta, Bytes{(20 << 2), 1, 2, 3}, "uuid truncated");
  expect_format_error(meta, object({{1, primitive(0)}}), "field id outside the dictionary");
  expect_format_error(meta, Bytes{3, 200, 0, 1, 0}, "array count beyond the bytes");
  expect_format_error(meta, Bytes{3, 1, 0, 9, 0}, "array offsets overrun the value");
  expect_format_error(meta, Bytes{3, 2, 1, 0, 1, 0}, "element offset at the end of the values");
  expect_format_error(meta, Bytes{2, 1, 0, 0, 5, 0}, "object offsets overrun the value");
  expect_format_error(meta, Bytes{3 | 4 << 2, 0xff, 0xff, 0xff, 0xff}, "large count, no bytes");
}

TEST(Variant, DepthBomb) {
  Bytes value = primitive(0);
  for (int i = 0; i < kMaxVariantDepth + 1; ++i) value = array({value}, 4);
  expect_format_error(metadata({}), value, "nesting deeper than the limit");
  Bytes within = primitive(0);
  for (int i = 0; i < kMaxVariantDepth; ++i) within = array({within}, 4);
  EXPECT_NO_THROW(render(metadata({}), within));
}

TEST(Variant, SharedOffsetsBomb) {
  // Every element of every level points at the same 2-element array: 2^40 values from a few
  // hundred bytes.
  Bytes value = primitive(1);
  for (int i = 0; i < 40; ++i) {
    Bytes level{3, 2, 0, 0};  // array, 1-byte offsets, 2 elements, both at offset 0
    level.push_back(static_cast<uint8_t>(value.size()));
    level.insert(level.end(), value.begin(), value.end());
    value = level;
  }
  expect_format_error(metadata({}), value, "shared offsets");
}

// Mutations of valid values either decode or throw FormatError (ASan and UBSan check the rest
// under `make sanitize`).
TEST(Variant, MutatedBytesDecodeOrThrowFormatError) {
  const Bytes meta = metadata({"a", "bb", "ccc"}, false, 2);
  const Bytes seed = object({{0, array({primitive_of(6, int64_t{1}), long_string(16, "text"),
                                        primitive(20, Bytes(16, 7))})},
                             {1, object({{2, primitive_of(7, 1.5)}, {0, short_string("s")}}, 2, 2)},
                             {2, primitive(10, Bytes(17, 0xff))}});
  uint64_t state = 42;
  const auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<uint32_t>(state >> 33);
  };
  int decoded = 0, refused = 0;
  for (int round = 0; round < 20000; ++round) {
    Bytes value = seed;
    Bytes dictionary = meta;
    for (int k = 1 + static_cast<int>(next() % 3); k > 0; --k) {
      Bytes& target = next() % 4 == 0 ? dictionary : value;
      target[next() % target.size()] = static_cast<uint8_t>(next());
    }
    if (next() % 8 == 0) value.resize(next() % value.size());
    try {
      render(dictionary, value);
      ++decoded;
    } catch (const FormatError&) {
      ++refused;
    }
  }
  EXPECT_GT(decoded, 0);
  EXPECT_GT(refused, 0);
}

// Shredded variants, merged back by the RecordAssembler (VariantShredding.md):
//
//   optional group v (VARIANT) {                     def 1
//     required binary metadata;                      1
//     optional binary value;                         2
//     optional group typed_value {                   2
//       required group a { optional binary value;    3
//                          optional int32 typed_value; }           3
//       required group b { optional binary value;    3
//                          optional binary typed_value (STRING); }}}  3
using parquet::ColumnBatch;
using parquet::PhysicalType;
using parquet::Repetition;
using parquet::SchemaElement;

SchemaElement element(std::string name, Repetition repetition, std::optional<PhysicalType> type,
                      int children = 0) {
  SchemaElement e;
  e.name = std::move(name);
  e.repetition_type = repetition;
  e.type = type;
  if (children > 0) e.num_children = children;
  return e;
}

parquet::Schema shredded_schema() {
  SchemaElement root;
  root.name = "schema";
  root.num_children = 1;
  SchemaElement v = element("v", Repetition::OPTIONAL, std::nullopt, 3);
  v.logical_type = parquet::LogicalType{};
  v.logical_type->kind = parquet::LogicalType::Kind::VARIANT;
  SchemaElement string_leaf =
      element("typed_value", Repetition::OPTIONAL, PhysicalType::BYTE_ARRAY);
  string_leaf.logical_type = parquet::LogicalType{};
  string_leaf.logical_type->kind = parquet::LogicalType::Kind::STRING;
  return parquet::Schema::from_elements({
      root,
      v,
      element("metadata", Repetition::REQUIRED, PhysicalType::BYTE_ARRAY),
      element("value", Repetition::OPTIONAL, PhysicalType::BYTE_ARRAY),
      element("typed_value", Repetition::OPTIONAL, std::nullopt, 2),
      element("a", Repetition::REQUIRED, std::nullopt, 2),
      element("value", Repetition::OPTIONAL, PhysicalType::BYTE_ARRAY),
      element("typed_value", Repetition::OPTIONAL, PhysicalType::INT32),
      element("b", Repetition::REQUIRED, std::nullopt, 2),
      element("value", Repetition::OPTIONAL, PhysicalType::BYTE_ARRAY),
      string_leaf,
  });
}

// One entry: a definition level and, at the leaf's maximum, its value.
struct Entry {
  int16_t def;
  Bytes value;
};

ColumnBatch binary_batch(const std::vector<Entry>& entries, int16_t max_def) {
  ColumnBatch batch;
  batch.values = parquet::ValueBuffer::for_type(PhysicalType::BYTE_ARRAY, 0);
  batch.num_levels = entries.size();
  for (const Entry& entry : entries) {
    batch.def_levels.push_back(entry.def);
    if (entry.def == max_def) batch.values.append_binary(entry.value);
  }
  return batch;
}

ColumnBatch int_batch(const std::vector<std::pair<int16_t, int32_t>>& entries, int16_t max_def) {
  ColumnBatch batch;
  batch.values = parquet::ValueBuffer::for_type(PhysicalType::INT32, 0);
  batch.num_levels = entries.size();
  for (const auto& [def, value] : entries) {
    batch.def_levels.push_back(def);
    if (def == max_def) {
      Bytes raw;
      put_le(raw, value);
      batch.values.data.insert(batch.values.data.end(), raw.begin(), raw.end());
      ++batch.values.count;
    }
  }
  return batch;
}

std::vector<std::string> assemble(const parquet::Schema& schema, std::vector<ColumnBatch> batches,
                                  size_t rows) {
  std::vector<int> all;
  for (size_t i = 0; i < schema.leaves().size(); ++i) all.push_back(static_cast<int>(i));
  RecordAssembler assembler(schema, all);
  std::vector<const ColumnBatch*> pointers;
  for (const auto& batch : batches) pointers.push_back(&batch);
  assembler.start(pointers);
  std::vector<std::string> out(rows);
  for (auto& row : out) assembler.append_json(0, row);
  return out;
}

TEST(ShreddedVariant, MergesTypedValueBack) {
  const parquet::Schema schema = shredded_schema();
  ASSERT_EQ(schema.leaves().size(), 6u);
  const Bytes meta = metadata({"c", "a"});
  // Rows: fully shredded; partially shredded (c in value, b missing); value only; null VARIANT;
  // value and typed_value both null (the variant null).
  std::vector<ColumnBatch> batches;
  batches.push_back(binary_batch({{1, meta}, {1, meta}, {1, meta}, {0, {}}, {1, meta}}, 1));
  batches.push_back(binary_batch({{1, {}},
                                  {2, object({{0, primitive(1)}})},
                                  {2, primitive_of(3, int8_t{5})},
                                  {0, {}},
                                  {1, {}}},
                                 2));
  batches.push_back(binary_batch({{2, {}}, {2, {}}, {1, {}}, {0, {}}, {1, {}}}, 3));  // a.value
  batches.push_back(int_batch({{3, 34}, {3, 1}, {1, 0}, {0, 0}, {1, 0}}, 3));         // a.typed
  batches.push_back(binary_batch({{3, short_string("x")}, {2, {}}, {1, {}}, {0, {}}, {1, {}}}, 3));
  batches.push_back(binary_batch({{2, {}}, {2, {}}, {1, {}}, {0, {}}, {1, {}}}, 3));  // b.typed
  EXPECT_EQ(assemble(schema, std::move(batches), 5),
            (std::vector<std::string>{R"({"a":34,"b":"x"})", R"({"a":1,"c":true})", "5", "null",
                                      "null"}));
}

TEST(ShreddedVariant, TypedStringAndMissingField) {
  const parquet::Schema schema = shredded_schema();
  const Bytes meta = metadata({});
  std::vector<ColumnBatch> batches;
  batches.push_back(binary_batch({{1, meta}}, 1));
  batches.push_back(binary_batch({{1, {}}}, 2));
  batches.push_back(binary_batch({{2, {}}}, 3));  // a: missing
  batches.push_back(int_batch({{2, 0}}, 3));
  batches.push_back(binary_batch({{2, {}}}, 3));
  Bytes text{'h', 'i'};
  batches.push_back(binary_batch({{3, text}}, 3));  // b: typed string
  EXPECT_EQ(assemble(schema, std::move(batches), 1), std::vector<std::string>{R"({"b":"hi"})"});
}

TEST(ShreddedVariant, MalformedRowsThrowFormatError) {
  const parquet::Schema schema = shredded_schema();
  const auto run = [&](const Bytes& meta, int16_t meta_def, const Bytes& value) {
    std::vector<ColumnBatch> batches;
    batches.push_back(binary_batch({{meta_def, meta}}, 1));
    batches.push_back(binary_batch({{2, value}}, 2));
    batches.push_back(binary_batch({{2, {}}}, 3));
    batches.push_back(int_batch({{3, 7}}, 3));
    batches.push_back(binary_batch({{2, {}}}, 3));
    batches.push_back(binary_batch({{2, {}}}, 3));
    return assemble(schema, std::move(batches), 1);
  };
  // value is no object while typed_value is: not a partially shredded object.
  EXPECT_THROW(run(metadata({}), 1, primitive(1)), FormatError);
  // a bad metadata version, and a field id outside the dictionary.
  EXPECT_THROW(run(Bytes{2, 0, 0}, 1, object({})), FormatError);
  EXPECT_THROW(run(metadata({}), 1, object({{3, primitive(1)}})), FormatError);
  try {
    run(metadata({}), 1, Bytes{2, 9});  // an object of 9 fields in no bytes
    ADD_FAILURE() << "no error";
  } catch (const FormatError& error) {
    EXPECT_EQ(error.location().column, "v");
  }
}

TEST(ShreddedVariant, PartlySelectedReadsAsStruct) {
  const parquet::Schema schema = shredded_schema();
  const std::vector<int> only_value{1};
  RecordAssembler assembler(schema, only_value);
  ColumnBatch value = binary_batch({{2, primitive(1)}}, 2);
  const ColumnBatch* pointers[] = {&value};
  assembler.start(pointers);
  std::string out;
  assembler.append_json(0, out);
  EXPECT_EQ(out, R"({"value":"BA=="})");
}

}  // namespace
}  // namespace kbdata::tabular
