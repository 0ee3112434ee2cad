// The card pieces kbdata reads back (src/dataset/dataset_card.h): the license of a card's front
// matter.
#include "dataset/dataset_card.h"

#include <gtest/gtest.h>

namespace kbdata::dataset {
namespace {

TEST(CardLicense, ReadsTheFrontMattersLicense) {
  EXPECT_EQ(card_license("---\nlicense: mit\npretty_name: x\n---\n# x\n"), "mit");
  EXPECT_EQ(card_license("---\r\npretty_name: x\r\nlicense:  cc-by-4.0 \r\n---\r\n"), "cc-by-4.0");
  EXPECT_EQ(card_license("---\nlicense: \"apache-2.0\"\n---\n"), "apache-2.0");
  EXPECT_EQ(card_license("---\nlicense: 'other'\n---\n"), "other");
}

TEST(CardLicense, NoneOutsideTheFrontMatterOrWithoutOne) {
  EXPECT_EQ(card_license(""), std::nullopt);
  EXPECT_EQ(card_license("# title\nlicense: mit\n"), std::nullopt);
  EXPECT_EQ(card_license("---\npretty_name: x\n---\nlicense: mit\n"), std::nullopt);
  EXPECT_EQ(card_license("---\nlicense:\n---\n"), std::nullopt);
  EXPECT_EQ(card_license("---\nlicense: \"\"\n---\n"), std::nullopt);
  // A front matter never closed still ends with the text.
  EXPECT_EQ(card_license("---\nlicense: mit"), "mit");
}

TEST(CardLicense, ReadsWhatTheCardWriterWrites) {
  CardHeader header;
  header.license = "cc-by-4.0";
  header.title = "t";
  EXPECT_EQ(card_license(card_front_matter(header, {{"c", "f.parquet", 1, 1}})), "cc-by-4.0");
}

}  // namespace
}  // namespace kbdata::dataset
