// Errors that name options (common/error.h): a library names them by their option names and
// values; each edge spells them its own way (the CLI's flags: tests/cli, the Python keywords:
// tests/python).
#include "common/error.h"

#include <gtest/gtest.h>

#include <string>

namespace kbdata {
namespace {

std::string shouted(const OptionName& option) {
  return "<" + option.name + (option.value ? "=" + *option.value : "") +
         (option.is_flag ? "!" : "") + ">";
}

TEST(ErrorOptions, ALibraryNamesTheOptionAndTheValue) {
  const UsageError e(OptionName("min_speedup", "0.5"), ": must be 1 or more");
  EXPECT_STREQ(e.what(), "min_speedup 0.5: must be 1 or more");
  EXPECT_EQ(e.message(), "min_speedup 0.5: must be 1 or more");
  ASSERT_EQ(e.options().size(), 1u);
  EXPECT_EQ(e.options()[0].name, "min_speedup");
  EXPECT_EQ(e.spelled(shouted), "<min_speedup=0.5>: must be 1 or more");
}

TEST(ErrorOptions, OptionsAnywhereAmongTexts) {
  const std::string name = "x.csv";
  const IoError e("cannot write ", name, " (", OptionName::flag("force"), " would not help; ",
                  OptionName("out"), " names it)");
  EXPECT_STREQ(e.what(), "cannot write x.csv (force would not help; out names it)");
  EXPECT_EQ(e.spelled(shouted), "cannot write x.csv (<force!> would not help; <out> names it)");
  // Two options side by side, and an option last.
  const UsageError both(OptionName("a"), OptionName("b", "1"));
  EXPECT_EQ(both.spelled(shouted), "<a><b=1>");
}

TEST(ErrorOptions, TheLocationStaysInFront) {
  UsageError e(OptionName("out", "dir"), ": cannot list it");
  e.locate_file("card.md");
  EXPECT_STREQ(e.what(), "card.md: out dir: cannot list it");
  EXPECT_EQ(e.spelled(shouted), "card.md: <out=dir>: cannot list it");
}

TEST(ErrorOptions, AMessageWithoutOptionsIsTheSameSpelledAnyWay) {
  FormatError e("RLE run overruns the page");
  e.locate_offset(4711);
  EXPECT_TRUE(e.options().empty());
  EXPECT_EQ(e.spelled(shouted), e.what());
  EXPECT_STREQ(e.what(), "byte 4711: RLE run overruns the page");
}

TEST(ErrorOptions, TheClassIsKeptThroughCatchAndRethrow) {
  try {
    try {
      throw IoError(OptionName("out", "d"), ": gone");
    } catch (Error& e) {
      e.locate_file("f");
      throw;
    }
  } catch (const IoError& e) {
    EXPECT_EQ(e.spelled(shouted), "f: <out=d>: gone");
    return;
  }
  FAIL() << "not an IoError";
}

}  // namespace
}  // namespace kbdata
