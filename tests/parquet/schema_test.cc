#include "parquet/schema.h"

#include <gtest/gtest.h>

#include "common/error.h"
#include "parquet/metadata.h"

namespace kbdata::parquet {
namespace {

SchemaElement group(const std::string& name, int children, std::optional<Repetition> rep = {}) {
  SchemaElement e;
  e.name = name;
  e.num_children = children;
  e.repetition_type = rep;
  return e;
}

SchemaElement leaf(const std::string& name, PhysicalType type, Repetition rep) {
  SchemaElement e;
  e.name = name;
  e.type = type;
  e.repetition_type = rep;
  return e;
}

TEST(Schema, DerivesLevelsAndPaths) {
  SchemaElement tags_list = group("list", 1, Repetition::REPEATED);
  std::vector<SchemaElement> elements = {
      group("m", 3),
      leaf("id", PhysicalType::INT64, Repetition::REQUIRED),
      leaf("name", PhysicalType::BYTE_ARRAY, Repetition::OPTIONAL),
      group("tags", 1, Repetition::OPTIONAL),
      tags_list,
      leaf("element", PhysicalType::BYTE_ARRAY, Repetition::OPTIONAL),
  };
  Schema schema = Schema::from_elements(elements);
  ASSERT_EQ(schema.leaves().size(), 3u);
  EXPECT_EQ(schema.leaves()[0].max_def, 0);
  EXPECT_EQ(schema.leaves()[1].max_def, 1);
  EXPECT_EQ(schema.leaves()[2].dotted_path, "tags.list.element");
  EXPECT_EQ(schema.leaves()[2].max_def, 3);
  EXPECT_EQ(schema.leaves()[2].max_rep, 1);
  EXPECT_EQ(schema.find_leaf("name"), 1);
  EXPECT_FALSE(schema.find_leaf("nope"));
  EXPECT_FALSE(schema.is_flat());
}

TEST(Schema, FoldsConvertedTypesIntoLogicalTypes) {
  SchemaElement ts = leaf("ts", PhysicalType::INT64, Repetition::OPTIONAL);
  ts.converted_type = ConvertedType::TIMESTAMP_MICROS;
  SchemaElement dec = leaf("d", PhysicalType::INT32, Repetition::OPTIONAL);
  dec.converted_type = ConvertedType::DECIMAL;
  dec.scale = 2;
  dec.precision = 9;
  SchemaElement u = leaf("u", PhysicalType::INT32, Repetition::OPTIONAL);
  u.converted_type = ConvertedType::UINT_16;
  Schema schema = Schema::from_elements({group("m", 3), ts, dec, u});
  EXPECT_EQ(schema.leaves()[0].logical.kind, LogicalType::Kind::TIMESTAMP);
  EXPECT_TRUE(schema.leaves()[0].logical.is_adjusted_to_utc);
  EXPECT_EQ(schema.leaves()[0].logical.unit, TimeUnit::MICROS);
  EXPECT_EQ(schema.leaves()[1].logical.kind, LogicalType::Kind::DECIMAL);
  EXPECT_EQ(schema.leaves()[1].logical.decimal_scale, 2);
  EXPECT_EQ(schema.leaves()[2].logical.bit_width, 16);
  EXPECT_FALSE(schema.leaves()[2].logical.is_signed);
  EXPECT_TRUE(schema.is_flat());
}

TEST(Schema, RejectsMalformedTrees) {
  EXPECT_THROW(Schema::from_elements({}), FormatError);
  // Children overrun the list.
  EXPECT_THROW(
      Schema::from_elements({group("m", 3), leaf("a", PhysicalType::INT32, Repetition::REQUIRED)}),
      FormatError);
  // Elements left over after the root's tree.
  EXPECT_THROW(
      Schema::from_elements({group("m", 1), leaf("a", PhysicalType::INT32, Repetition::REQUIRED),
                             leaf("b", PhysicalType::INT32, Repetition::REQUIRED)}),
      FormatError);
  // FIXED_LEN_BYTE_ARRAY without a length.
  EXPECT_THROW(Schema::from_elements({group("m", 1), leaf("f", PhysicalType::FIXED_LEN_BYTE_ARRAY,
                                                          Repetition::REQUIRED)}),
               FormatError);
  // A chain deeper than the limit.
  std::vector<SchemaElement> deep = {group("m", 1)};
  for (int i = 0; i < 100; ++i) deep.push_back(group("g", 1, Repetition::OPTIONAL));
  deep.push_back(leaf("x", PhysicalType::INT32, Repetition::OPTIONAL));
  EXPECT_THROW(Schema::from_elements(deep), FormatError);
}

}  // namespace
}  // namespace kbdata::parquet
