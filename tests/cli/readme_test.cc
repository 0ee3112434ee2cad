// README.md stays true to the binary: every command `kbdata --help` lists is in its "What works
// today" list, and the one version (project(VERSION), common/version.h) is the one the README and
// the docs show in their examples.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "support/run_kbdata.h"

namespace {

namespace fs = std::filesystem;
using kbdata::testing::lines;
using kbdata::testing::read_file;
using kbdata::testing::run;

// The commands `kbdata --help` lists (CLI11's "Subcommands:" block: a name, then its description).
std::vector<std::string> listed_commands() {
  const kbdata::testing::Result help = run("--help");
  EXPECT_EQ(help.exit_code, 0) << help.err;
  std::vector<std::string> names;
  bool in_list = false;
  for (const std::string& line : lines(help.out)) {
    if (line.rfind("SUBCOMMANDS:", 0) == 0 || line.rfind("Subcommands:", 0) == 0) {
      in_list = true;
      continue;
    }
    if (!in_list) continue;
    if (line.empty() || line[0] != ' ') break;
    // A command's line starts with its name after two spaces; its description's further lines
    // are indented further.
    if (line.size() < 3 || line[2] == ' ') continue;
    names.push_back(line.substr(2, line.find(' ', 2) - 2));
  }
  return names;
}

std::string readme() { return read_file(std::string(KBDATA_SOURCE_DIR) + "/README.md"); }

TEST(Readme, WhatWorksTodayNamesEveryCommand) {
  const std::string text = readme();
  const size_t start = text.find("**What works today:**");
  ASSERT_NE(start, std::string::npos);
  const size_t end = text.find("\n\n", start);
  const std::string section = text.substr(start, end - start);
  const std::vector<std::string> commands = listed_commands();
  ASSERT_GE(commands.size(), 20U) << "kbdata --help lists too few commands";
  for (const std::string& command : commands) {
    EXPECT_NE(section.find("`" + command + "`"), std::string::npos)
        << "README's \"What works today\" does not name `" << command << "`";
  }
}

TEST(Readme, TheDocumentsShowTheOneVersion) {
  const kbdata::testing::Result version = run("--version");
  ASSERT_EQ(version.exit_code, 0) << version.err;
  const std::regex shown(R"(kbdata version ([0-9]+\.[0-9]+\.[0-9]+))");
  const std::string current = version.out.substr(0, version.out.find('\n'));
  ASSERT_EQ(current.rfind("kbdata ", 0), 0U) << current;
  int seen = 0;
  std::vector<fs::path> documents = {fs::path(KBDATA_SOURCE_DIR) / "README.md"};
  for (const auto& entry : fs::directory_iterator(fs::path(KBDATA_SOURCE_DIR) / "docs")) {
    if (entry.path().extension() == ".md") documents.push_back(entry.path());
  }
  for (const fs::path& document : documents) {
    const std::string text = read_file(document.string());
    for (auto it = std::sregex_iterator(text.begin(), text.end(), shown);
         it != std::sregex_iterator(); ++it) {
      EXPECT_EQ("kbdata " + (*it)[1].str(), current) << document;
      ++seen;
    }
  }
  EXPECT_GT(seen, 0) << "no document shows 'kbdata version X.Y.Z'";
}

}  // namespace
